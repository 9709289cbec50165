#!/bin/sh
# configure reads and checks every profile its nodes name before it leases
# any of them (issue 25): a field an operator got wrong in a bios.conf stops
# the command with exit 2 naming the file, the line and the field, no lease
# is taken (no fencing token issued: each lease taken counts one in
# lease_tokens, which stays after the lease is given back), no BMC gets a
# request, and no node's state, row or history changes. In follow mode
# (bringup run) the same mistake ends the run before the stage says ready.
. "$(dirname "$0")/lib.sh"
cd "$T"
bringup sim --nodes 4 --seed 5 --maas-commission-ms 100 --maas-deploy-ms 100 --dir rack --daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
DB=$(db_for inv)
export BRINGUP_DB=$DB
bringup import --manifest rack/rack.csv >/dev/null
bringup discover -q
log=rack/requests.log
hosts=$(jq -r '.nodes[].hostname' rack/truth.json)
profile=$(inv_sql "$DB" "select distinct profile from nodes")
assert_eq "$(echo "$profile" | wc -w)" 1 "one profile on the rack"
assert_eq "$(inv_sql "$DB" "select count(*) from nodes where state = 'discovered'")" 4 "nodes discovered"

snapshot() { # DIR: what configure must not change
	mkdir -p "$1"
	bringup status --json | jq -S 'del(.generated_at)' > "$1/status.json"
	for h in $hosts; do bringup history --json "$h" > "$1/history-$h.json"; done
	inv_sql "$DB" "select node_id || ' ' || token || ' ' || stage || ' ' || pid from lease_tokens order by node_id" > "$1/tokens"
	inv_sql "$DB" "select count(*) from leases" > "$1/leases"
	inv_sql "$DB" "select count(*) from events" > "$1/events"
}
snapshot before
assert_eq "$(cat before/leases)" 0 "no lease held before"
tokens_before=$(wc -l < before/tokens)
[ "$tokens_before" -gt 0 ] || fail "discover took no lease: the token count proves nothing"

cp -R "$BR_TOP/templates" tpl
bios=tpl/profiles/$profile/bios.conf
[ -f "$bios" ] || fail "no $bios"
# Line of [boot]'s mode, given a value it does not take.
line=$(grep -n '^mode = ' "$bios" | head -1 | cut -d: -f1)
[ -n "$line" ] || fail "no [boot] mode line in $bios"
sed -i "${line}s/.*/mode = sometimes/" "$bios"
start=$(wc -l < $log)
rc=0
BRINGUP_TEMPLATES=$T/tpl bringup configure --poll-ms 100 2> err || rc=$?
assert_eq "$rc" 2 "exit code on a bad profile ($(cat err))"
assert_contains "$(cat err)" "$bios:$line: mode:" "the file, line and field of the mistake"
snapshot after
for f in status.json leases events tokens; do
	cmp -s before/$f after/$f || fail "configure with a bad profile changed $f: $(diff before/$f after/$f)"
done
for h in $hosts; do
	cmp -s before/history-$h.json after/history-$h.json || fail "the history of $h changed"
done
sleep 0.3
assert_eq "$(wc -l < $log)" "$start" "no BMC request after a profile error"

# Named hosts: the same, before the named node is leased.
h=$(echo "$hosts" | head -1)
rc=0
BRINGUP_TEMPLATES=$T/tpl bringup configure "$h" 2> err || rc=$?
assert_eq "$rc" 2 "exit code on a bad profile, a host named"
assert_contains "$(cat err)" "$bios:$line: mode:" "the file, line and field, a host named"
snapshot named
cmp -s before/tokens named/tokens || fail "configure HOST leased before reading its profile: $(diff before/tokens named/tokens)"
cmp -s before/status.json named/status.json || fail "configure HOST changed the nodes"

# The whole flow: configure's mistake stops the run before any stage
# touches a node.
rc=0
BRINGUP_TEMPLATES=$T/tpl bringup run --poll-ms 100 2> run.err > run.out || rc=$?
assert_eq "$rc" 2 "bringup run's exit code on a bad profile ($(tail -3 run.err))"
assert_contains "$(cat run.err)" "$bios:$line: mode:" "bringup run names the mistake"
snapshot run
cmp -s before/tokens run/tokens || fail "bringup run leased nodes with a bad profile: $(diff before/tokens run/tokens)"
cmp -s before/status.json run/status.json || fail "bringup run changed the nodes"

# A later round of the flow: nodes that become discovered during the run
# are checked before configure leases them, and the run stops there.
bringup sim --nodes 2 --seed 6 --maas-commission-ms 100 --maas-deploy-ms 100 --dir rack2 --daemon >/dev/null
at_exit "stop_sim $T/rack2"
(
	set -a; . "$T/rack2/env"; set +a
	BRINGUP_DB=$(db_for inv2) && export BRINGUP_DB
	bringup import --manifest "$T/rack2/rack.csv" >/dev/null
	rc=0
	BRINGUP_TEMPLATES=$T/tpl bringup run --poll-ms 100 2> run2.err > run2.out || rc=$?
	assert_eq "$rc" 2 "bringup run's exit code, the nodes discovered in the run ($(tail -3 run2.err))"
	assert_contains "$(cat run2.err)" "$bios:$line: mode:" "bringup run names the mistake in a later round"
	assert_eq "$(inv_sql "$BRINGUP_DB" "select count(*) from nodes where state = 'discovered'")" 2 \
		"nodes the run discovered, left there ($(inv_sql "$BRINGUP_DB" "select state from nodes" | tr "\n" " "); $(tail -4 run2.err))"
	assert_eq "$(inv_sql "$BRINGUP_DB" "select count(*) from lease_tokens where stage like '%configure%'")" 0 \
		"configure's leases in a later round with a bad profile"
) || exit 1
exit 0
