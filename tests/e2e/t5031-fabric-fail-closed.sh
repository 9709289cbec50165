#!/bin/sh
# The InfiniBand fabric fails closed. On a 4-node DGX H100 rack (fabric
# InfiniBand, dgx-h100's [gate] requires fabric) bringup run reads the
# subnet over SSH and the clean nodes go golden with fabric passed; a node
# cabled swapped with another shows in the subnet (LLDP cannot see it) and
# both end quarantined. Then, with ibnetdiscover gone from the nodes,
# validating again leaves fabric unknown with the reason and the gate
# keeps the nodes out of the golden pool; a --fabric-host the inventory
# does not know stops validate (exit 2) before any node is touched.
. "$BR_TOP/tests/e2e/lib.sh"
cd "$T"
bringup sim --nodes 4 --seed 31 --vendor ami --dir rack --faults cable_swap \
	--maas-commission-ms 100 --maas-deploy-ms 100 --bios-job-ms 200 --daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
export BRINGUP_DB=$T/inv.db BRINGUP_SSH_PUBKEY=$BRINGUP_SSH_KEY.pub
bringup import --manifest rack/rack.csv >/dev/null
rc=0; bringup run --json -q > run.json 2> run.err || rc=$?
assert_eq "$rc" 1 "run exit (the swapped pair quarantined): $(tail -3 run.err)"
bringup status --json > status.json
check() { jq -r --arg h "$1" --arg c "$2" '.nodes[] | select(.hostname == $h) | .checks[] | select(.name == $c) | .'"$3" "${4:-status.json}"; }
state() { jq -r --arg h "$1" '.nodes[] | select(.hostname == $h) | .state' "${2:-status.json}"; }
swapped=$(jq -r '.nodes[] | select(.faults == ["cable_swap"]) | .hostname' rack/truth.json)
clean=$(jq -r '.nodes[] | select(.faults == []) | .hostname' rack/truth.json)
assert_eq "$(echo $swapped | wc -w)" 2 "swapped nodes"
for h in $clean; do
	assert_eq "$(state "$h")" golden "clean $h: $(jq -r --arg h "$h" '.nodes[] | select(.hostname == $h) | .reason' status.json)"
	assert_eq "$(check "$h" fabric result)" pass "clean $h: fabric"
	assert_contains "$(check "$h" fabric detail)" "its 8 designed fabric cables seen as designed" "clean $h: what was proven"
	assert_contains "$(check "$h" fabric detail)" "(ibnetdiscover on " "clean $h: read over SSH"
done
set -- $swapped
for h in $swapped; do
	assert_eq "$(state "$h")" quarantined "swapped $h"
	assert_eq "$(check "$h" fabric result)" fail "swapped $h: fabric"
	assert_contains "$(check "$h" fabric detail)" "are exchanged" "swapped $h: the swap"
	assert_contains "$(check "$h" fabric detail)" "$1 " "swapped $h: names $1"
	assert_contains "$(check "$h" fabric detail)" "$2 " "swapped $h: names $2"
	# LLDP does not run on InfiniBand: cabling judged the Ethernet ports only
	assert_eq "$(check "$h" cabling result)" pass "swapped $h: cabling (Ethernet)"
done

# An operator's slip: a fabric host the inventory does not know.
before=$(jq -c '[.nodes[] | .state]' status.json)
rc=0; bringup validate --force --fabric-host no-such-node $clean > slip.out 2> slip.err || rc=$?
assert_eq "$rc" 2 "validate --fabric-host no-such-node: $(cat slip.err)"
assert_contains "$(cat slip.err)" "--fabric-host no-such-node" "the error names the option and the host"
bringup status --json > after-slip.json
assert_eq "$(jq -c '[.nodes[] | .state]' after-slip.json)" "$before" "no node changed by the slip"

# No node can read the subnet now: the fabric is unproven, never passed.
rm rack/bin/ibnetdiscover
rc=0; bringup validate --force --json -q $clean > v2.json 2> v2.err || rc=$?
assert_eq "$rc" 0 "validate again: $(tail -3 v2.err)"
rc=0; bringup gate --force --json -q $clean > g2.json 2> g2.err || rc=$?
assert_eq "$rc" 1 "gate: the unproven nodes quarantined: $(tail -3 g2.err)"
bringup status --json > status2.json
bringup tickets --json > t2.json
for h in $clean; do
	assert_eq "$(state "$h" status2.json)" quarantined "$h with its fabric unjudged"
	assert_eq "$(check "$h" fabric result status2.json)" unknown "$h: fabric"
	assert_contains "$(check "$h" fabric detail status2.json)" "not judged: the subnet could not be read: " "$h: why"
	assert_contains "$(check "$h" fabric detail status2.json)" "ibnetdiscover -C mlx5_0 -P 1: exit status 127" "$h: what failed"
	assert_contains "$(jq -r --arg h "$h" '.tickets[] | select(.hostname == $h and .fault == "fabric") | .evidence' t2.json)" \
		"not proven (unknown): not judged" "$h: its ticket"
done
echo "fabric proven over SSH for golden; a swap seen in the subnet; unjudged fabric blocks; bad --fabric-host exits 2"
