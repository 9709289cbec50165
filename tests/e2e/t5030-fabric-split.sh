#!/bin/sh
# The field story: a 32-node DGX H100 rack (one scalable unit: 8 rail
# leaves under 8 spines) whose InfiniBand plan is one fabric, cabled as 8
# separate networks (ib_fabric_split:8: each rail's leaf goes up to one
# spine only). bringup run, given nothing but the simulator's env, reads
# the subnet with ibnetdiscover over SSH on a node, every one of its 8
# ports (each sees only its own network), and judges it against the
# fabric's wiring list: every node ends quarantined, and there is one
# ticket per separate fabric, each naming its switches, its 32 nodes and
# the designed cables that would join it to the others.
. "$BR_TOP/tests/e2e/lib.sh"
cd "$T"
bringup sim --nodes 32 --seed 30 --vendor ami --dir rack --faults ib_fabric_split:8 \
	--maas-commission-ms 100 --maas-deploy-ms 100 --bios-job-ms 200 --daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
export BRINGUP_DB=$T/inv.db BRINGUP_SSH_PUBKEY=$BRINGUP_SSH_KEY.pub
assert_eq "$(jq '[.nodes[] | select(.faults == ["ib_fabric_split"])] | length' rack/truth.json)" 32 \
	"every node on the split fabric (truth.json)"
# The plan is one fabric: every leaf up to every spine.
assert_eq "$(grep -c ',spine0[1-8],' rack/ib-wiring.csv)" 64 "the design's leaf-spine cables"
bringup import --manifest rack/rack.csv >/dev/null
rc=0; bringup run --json -q > run.json 2> run.err || rc=$?
assert_eq "$rc" 1 "run exit (quarantined nodes): $(tail -3 run.err)"
bringup status --json > status.json
bringup tickets --json > t.json

assert_eq "$(jq '[.nodes[] | select(.state == "quarantined")] | length' status.json)" 32 "quarantined nodes"
assert_eq "$(jq '[.nodes[] | .checks[] | select(.name == "fabric" and .result == "fail")] | length' status.json)" \
	32 "nodes failing fabric"
# Every other check passed: the split alone holds them back (cabling_bmc
# is unknown where the BMC shows no switch neighbours; in-band cabling decides).
assert_eq "$(jq -r '[.nodes[] | .checks[] | select(.result != "pass" and .name != "fabric")
	| select(.name != "cabling_bmc" or .result != "unknown") | .name] | unique | join(",")' \
	status.json)" "" "checks other than fabric not passing"
# Read over SSH on one node, all eight of its ports.
h0=$(jq -r '.nodes[0].hostname' status.json)
assert_contains "$(jq -r '.nodes[0].checks[] | select(.name == "fabric") | .detail' status.json)" \
	"(ibnetdiscover on $h0, ports mlx5_0/1, mlx5_1/1, mlx5_2/1, mlx5_3/1, mlx5_4/1, mlx5_5/1, mlx5_6/1, mlx5_7/1)" \
	"where the topology came from"

# One ticket per separate fabric, each on a node of its own.
assert_eq "$(jq '.tickets | length' t.json)" 8 "tickets: $(jq -r '.tickets[] | .hostname + " " + .fault' t.json)"
assert_eq "$(jq -r '[.tickets[].fault] | unique | join(",")' t.json)" fabric "ticket faults"
assert_eq "$(jq '[.tickets[].hostname] | unique | length' t.json)" 8 "hosts the tickets are on"
hosts=$(jq -r '.nodes[].hostname' rack/truth.json)
for k in 1 2 3 4 5 6 7 8; do
	ev=$(jq -r --arg k "separate fabric $k of 8 " '.tickets[] | select(.evidence | startswith($k)) | .evidence' t.json)
	[ -n "$ev" ] || fail "no ticket leads with separate fabric $k: $(jq -r '.tickets[].evidence[0:80]' t.json)"
	assert_eq "$(jq --arg k "separate fabric $k of 8 " '[.tickets[] | select(.evidence | startswith($k))] | length' t.json)" \
		1 "tickets for fabric $k"
	# its switches
	assert_contains "$ev" "separate fabric $k of 8 (switches leaf-su01-rail$k, spine0$k), the wiring list making 1" \
		"fabric $k: its switches"
	# its nodes, every one of them
	assert_contains "$ev" "32 hosts on it: " "fabric $k: its node count"
	for h in $hosts; do
		case "$ev" in *"$h"*) ;; *) fail "fabric $k's ticket does not name $h" ;; esac
	done
	# the cables that would join it: its leaf to every other spine, every
	# other leaf to its spine (14), each with its line in the wiring list
	assert_contains "$ev" "14 designed cables that would join it to the others not seen" "fabric $k: joining cables"
	other=$((k % 8 + 1))
	line=$(grep -n "^leaf-su01-rail$k,$((32 + other)),spine0$other,$k\$" rack/ib-wiring.csv | cut -d: -f1)
	[ -n "$line" ] || fail "no leaf-su01-rail$k - spine0$other row in ib-wiring.csv"
	assert_contains "$ev" "leaf-su01-rail$k $((32 + other)) - spine0$other $k (wiring line $line)" \
		"fabric $k: its leaf's missing uplink to spine0$other"
	line=$(grep -n "^leaf-su01-rail$other,$((32 + k)),spine0$k,$other\$" rack/ib-wiring.csv | cut -d: -f1)
	assert_contains "$ev" "leaf-su01-rail$other $((32 + k)) - spine0$k $other (wiring line $line)" \
		"fabric $k: leaf $other's missing uplink to its spine"
done
# A node whose fabrics are all told on others' tickets says where.
lone=$(jq -r --argjson t "$(jq '[.tickets[].hostname]' t.json)" \
	'[.nodes[] | select(.hostname as $h | $t | index($h) | not)][0].hostname' status.json)
assert_contains "$(jq -r --arg h "$lone" '.nodes[] | select(.hostname == $h) | .checks[] | select(.name == "fabric") | .detail' status.json)" \
	"separate fabric 1 of 8 (switches leaf-su01-rail1, spine01): on it; told whole on " "$lone: where its fabric is told"
echo "32 nodes quarantined; 8 tickets, one per separate fabric, with its switches, nodes and joining cables"
