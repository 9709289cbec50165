#!/bin/sh
# A split InfiniBand fabric judged over validate rounds (bringup run's flow
# validates as nodes deploy; here two runs over parts of the rack), with a
# node never validated in the first (as a dead BMC's node would be): each
# separate fabric still gets exactly one ticket, on a node validated, and
# validating the last node later files no second one. Owners chosen among
# every node of the inventory gave a fabric to the node never validated,
# whose ticket nobody filed.
. "$(dirname "$0")/lib.sh"
cd "$T"
bringup sim --nodes 4 --seed 30 --vendor ami --dir rack --faults ib_fabric_split:2 \
	--maas-commission-ms 100 --maas-deploy-ms 100 --bios-job-ms 200 --daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
export BRINGUP_DB=$T/inv.db BRINGUP_SSH_PUBKEY=$BRINGUP_SSH_KEY.pub
bringup import --manifest rack/rack.csv >/dev/null
# the first by name, which owned a fabric when every node of the inventory was a candidate
first=$(jq -r '[.nodes[].hostname] | sort | .[0]' rack/truth.json)
rest=$(jq -r --arg f "$first" '.nodes[] | select(.hostname != $f) | .hostname' rack/truth.json)
tickets() { bringup tickets --json | jq -r '[.tickets[] | select(.fault == "fabric") | "\(.hostname) \(.evidence | split(" (")[0])"] | sort | join(", ")'; }

rc=0; bringup run -q --only $rest > run1.out 2>&1 || rc=$?
assert_eq "$rc" 1 "first run: quarantined ($(tail -3 run1.out))"
assert_eq "$(node_field inv.db "$first" state)" new "$first: not validated"
t1=$(tickets)
assert_eq "$(echo "$t1" | tr ',' '\n' | grep -c 'separate fabric [12] of 2')" 2 "one ticket per separate fabric: $t1"
case "$t1" in *"$first"*) fail "a ticket on $first, never validated: $t1" ;; esac
for k in 1 2; do
	assert_eq "$(echo "$t1" | tr ',' '\n' | grep -c "separate fabric $k of 2")" 1 "fabric $k: one ticket ($t1)"
done

rc=0; bringup run -q --only "$first" > run2.out 2>&1 || rc=$?
assert_eq "$(node_field inv.db "$first" state)" quarantined "$first: validated, quarantined ($(tail -3 run2.out))"
assert_eq "$(tickets)" "$t1" "the last node validated files no second ticket"
assert_contains "$(inv_sql inv.db "select c.detail from check_results c join nodes n on n.id = c.node_id where n.hostname = '$first' and c.name = 'fabric'")" \
	"told whole on" "$first: its fabric told on another's ticket"
echo "fabric: one ticket per separate fabric over rounds, none on a node never validated"
