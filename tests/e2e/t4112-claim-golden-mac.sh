#!/bin/sh
# One bad BMC cannot fail a golden node (issue 29, finding 6): a BMC
# discovered after a node went golden reports one of that node's MACs (the
# simulator's mac_clone impostor). The newcomer fails, its reason naming
# the golden node and its BMC; the golden node keeps its state, its reason
# and its history, though nobody named it.
. "$(dirname "$0")/lib.sh"
cd "$T"
bringup-sim --no-hosts --nodes 4 --seed 3 --faults mac_clone --dir sim --daemon >/dev/null
at_exit "stop_sim $T/sim"
set -a; . ./sim/env; set +a
export BRINGUP_DB=$T/inv.db
truth=sim/truth.json
role() { jq -r --arg r "$1" '.nodes[] | select(.fault_details.mac_clone.role == $r) | .hostname' $truth; }
impostor=$(role impostor)
genuine=$(role genuine)
[ -n "$impostor" ] && [ -n "$genuine" ] || fail "mac_clone in truth.json"
mac=$(jq -r --arg h "$genuine" '.nodes[] | select(.hostname == $h) | .fault_details.mac_clone.mac' $truth)
bmc_g=$(jq -r --arg h "$genuine" '.nodes[] | select(.hostname == $h) | .bmc' $truth)
bringup import --manifest sim/rack.csv >/dev/null

bringup discover -q "$genuine" || fail "discover $genuine"
assert_eq "$(node_field "$BRINGUP_DB" "$genuine" state)" discovered "$genuine discovered alone"
# The rest of its way (configure .. gate) is not this test's: it is golden.
inv_sql "$BRINGUP_DB" "update nodes set state = 'golden', reason = 'every required check passed' where hostname = '$genuine'"
events=$(inv_sql "$BRINGUP_DB" "select count(*) from events e join nodes n on n.id = e.node_id where n.hostname = '$genuine'")

rc=0
bringup discover --json "$impostor" > d.json 2> d.err || rc=$?
assert_eq "$rc" 1 "discover of the impostor exits 1"
assert_eq "$(node_field "$BRINGUP_DB" "$impostor" state)" failed "the impostor"
reason=$(node_field "$BRINGUP_DB" "$impostor" reason)
assert_contains "$reason" "MAC $mac" "the impostor's reason names the MAC"
assert_contains "$reason" "already $genuine's (BMC $bmc_g), which is golden" "the impostor's reason names the golden node"
assert_eq "$(node_field "$BRINGUP_DB" "$genuine" state)" golden "the golden node's state"
assert_eq "$(node_field "$BRINGUP_DB" "$genuine" reason)" "every required check passed" "the golden node's reason"
assert_eq "$(inv_sql "$BRINGUP_DB" "select count(*) from events e join nodes n on n.id = e.node_id where n.hostname = '$genuine'")" \
	"$events" "no event on the golden node"
echo "a BMC claiming a golden node's MAC fails itself, naming it; the golden node untouched"
