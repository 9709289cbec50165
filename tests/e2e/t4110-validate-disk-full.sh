#!/bin/sh
# The inventory's disk fills up while validate runs (issue 29, finding 1):
# the verdicts it cannot store reach the exit code (3: the inventory is
# unusable) and the summary ("N not recorded"), never "10 validated" with
# nothing stored; the nodes stay 'deployed'. Once in the collecting process
# (--workers 1: every verdict stored at the end), once with SSH workers. The disk is filled while every node's
# probe waits for it: a probe that starts, says so, and goes on only once
# the test has filled the disk.
. "$(dirname "$0")/lib.sh"
need_root
cd "$T"
bringup-sim --nodes 10 --seed 4 --maas-commission-ms 50 --maas-deploy-ms 50 --dir rack --daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
deployed_on_tmpfs
assert_eq "$(nodes_in "$BRINGUP_DB" deployed)" 10 "nodes deployed"

# The probe, held at its start until the file 'go' exists.
cat > probe <<PROBE
#!/bin/sh
: > "$T/started/\$\$"
while [ ! -e "$T/go" ]; do sleep 0.05; done
exec "$BIN/bringup-probe" "\$@"
PROBE
chmod +x probe

# WORKERS: validate with the disk filled once all ten probes started.
validate_on_full_disk() {
	rm -rf started go full/filler
	mkdir started
	rc=0
	bringup-validate --workers "$1" --probe "$T/probe" --json > v.json 2> v.err &
	vpid=$!
	while [ "$(ls started | wc -l)" -lt 10 ]; do
		kill -0 "$vpid" 2>/dev/null || fail "validate ended before its probes started: $(tail -3 v.err)"
		sleep 0.05
	done
	dd if=/dev/zero of=full/filler bs=64k 2>/dev/null || true
	: > go
	wait "$vpid" || rc=$?
	assert_eq "$rc" 3 "validate --workers $1 on a full disk: exit code ($(tail -3 v.err))"
	if [ "$1" = 1 ]; then
		assert_contains "$(cat v.err)" "the inventory cannot be written" "validate --workers $1: the error"
		assert_contains "$(cat v.err)" "full" "validate --workers $1: the error says the disk is full"
		assert_eq "$(jq .not_recorded v.json)" 10 "validate --workers $1: nodes not recorded"
		assert_eq "$(jq .validated v.json)" 0 "validate --workers $1: nodes counted validated"
		assert_eq "$(jq '[.nodes[] | select(.recorded)] | length' v.json)" 0 \
			"validate --workers $1: nodes shown recorded"
	else
		# The workers cannot open the inventory (SQLite's shared-memory
		# file needs room) and the collecting process cannot reopen it.
		assert_contains "$(cat v.err)" "error[validate] inventory $BRINGUP_DB" "validate --workers $1: the error"
	fi
	rm -f full/filler
	assert_eq "$(nodes_in "$BRINGUP_DB" deployed)" 10 "validate --workers $1: nodes still deployed"
	assert_eq "$(inv_sql "$BRINGUP_DB" 'select count(*) from probe_facts')" 0 "validate --workers $1: facts stored"
}
validate_on_full_disk 1
validate_on_full_disk 2

# With room again, the same run records every verdict.
rm -rf started go
mkdir started
: > go
rc=0
bringup-validate --workers 1 --probe "$T/probe" --json > v.json 2> v.err || rc=$?
assert_eq "$(jq .not_recorded v.json)" 0 "validate with room: nodes not recorded"
assert_eq "$(( $(nodes_in "$BRINGUP_DB" validated) + $(nodes_in "$BRINGUP_DB" failed) ))" 10 "validate with room: nodes recorded"
echo "validate on a full disk: exit 3, 10 not recorded, nodes left deployed"
