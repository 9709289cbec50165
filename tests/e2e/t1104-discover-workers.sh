#!/bin/sh
# discover --workers 3 (forked workers, results over pipes, inventory written
# by the parent) ends every node of a faulty rack exactly as --workers 1 (one
# process) does: same states, MACs, serials, drives and reasons. Two
# inventories (db_for: BR_TEST_DB=pg puts them in PostgreSQL, t6007), one
# simulated rack.
. "$(dirname "$0")/lib.sh"
cd "$T"
bringup sim --no-hosts --nodes 16 --seed 7 --fault-rate 0.3 --faults bmc_down,bmc_auth,bmc_flaky:2,nic_missing \
	--flaky-stall-ms 2500 --dir rack --daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
for db in one three; do
	bringup import --db "$(db_for $db)" --manifest rack/rack.csv >/dev/null
done

rc=0
bringup discover --db "$(db_for three)" --workers 3 -v --json --timeout 2 --retries 4 > three.json 2>three.err || rc=$?
assert_eq "$rc" 1 "discover --workers 3 exit code with failed nodes"
grep -q "16 Redfish BMCs over 3 worker processes" three.err || fail "--workers 3 did not fork workers"
rc=0
bringup discover --db "$(db_for one)" --workers 1 -v --json --timeout 2 --retries 4 > one.json 2>one.err || rc=$?
assert_eq "$rc" 1 "discover --workers 1 exit code with failed nodes"
! grep -q "worker processes" one.err || fail "--workers 1 forked"

# The reasons' key parts: a failed node's reason up to the first detail
# that depends on timing (curl's wording of a refused or timed-out connect).
view() {
	bringup status --db "$1" --json | jq -S '[.nodes[] | {hostname, state, macs, system_serial,
		reason: ((.reason // "") | sub(": (Failed|Could not|Connection|Operation|Timeout|connect).*"; ""))}]
		| sort_by(.hostname)'
}
view "$(db_for one)" > one.view
view "$(db_for three)" > three.view
diff one.view three.view || fail "status after --workers 3 differs from --workers 1"
assert_eq "$(jq '[.[] | select(.state == "discovered")] | length' three.view)" 14 "discovered nodes"
assert_eq "$(jq -S '.nodes | sort_by(.hostname) | map({hostname, result, via, macs})' three.json)" \
	"$(jq -S '.nodes | sort_by(.hostname) | map({hostname, result, via, macs})' one.json)" "discover --json"
for db in one three; do
	inv_sql "$(db_for $db)" "select n.hostname, d.serial from drives d join nodes n on n.id = d.node_id order by 1, 2" > $db.drives
	inv_sql "$(db_for $db)" "select n.hostname, b.name, b.value from bios_attributes b join nodes n on n.id = b.node_id order by 1, 2" > $db.bios
done
[ -s three.drives ] || fail "no drives stored"
cmp -s one.drives three.drives || fail "drive serials differ"
cmp -s one.bios three.bios || fail "BIOS attributes differ"
auth=$(jq -r '.nodes[] | select(.faults | index("bmc_auth")) | .hostname' rack/truth.json)
assert_contains "$(jq -r --arg h "$auth" '.[] | select(.hostname == $h) | .reason' three.view)" "credentials" \
	"bmc_auth reason through a worker"

# Bad values are refused.
rc=0
bringup discover --db "$(db_for three)" --workers -1 >/dev/null 2>&1 || rc=$?
assert_eq "$rc" 2 "--workers -1"
