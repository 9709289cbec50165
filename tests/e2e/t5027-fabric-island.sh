#!/bin/sh
# The InfiniBand fabric judged in the pipeline: a 4-node simulated rack
# whose fabric design is two leaves under one spine, cabled with leaf02's
# uplink missing, walked by the real ibnetdiscover over ibsim. bringup run
# given that capture (BRINGUP_IB_TOPOLOGY) and the design (BRINGUP_IB_WIRING)
# quarantines the two nodes on the cut-off leaf with a fabric ticket naming
# the island and the missing uplink; the two on the reachable leaf pass
# fabric and go golden.
. "$BR_TOP/tests/e2e/lib.sh"
cd "$T"
command -v ibsim >/dev/null && command -v ibnetdiscover >/dev/null ||
	fail "ibsim or ibnetdiscover missing (scripts/deps: ibsim-utils infiniband-diags)"
bringup sim --nodes 4 --seed 27 --dir rack --maas-commission-ms 100 --maas-deploy-ms 100 --daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
export BRINGUP_DB=$T/inv.db BRINGUP_SSH_PUBKEY=$BRINGUP_SSH_KEY.pub
set -- $(jq -r '.nodes[].hostname' rack/truth.json)
h0=$1 h1=$2 h2=$3 h3=$4

# The design, in the wiring list's own form.
cat > ib-wiring.csv <<W
hostname,host_port,switch,switch_port
$h0,mlx5_0/1,leaf01,1
$h1,mlx5_0/1,leaf01,2
$h2,mlx5_0/1,leaf02,1
$h3,mlx5_0/1,leaf02,2
leaf01,31,spine01,1
leaf02,31,spine01,2
W
# As cabled: leaf02's uplink is not there.
cat > fabric.net <<N
Switch	36 "MF0;spine01:MQM9700/U1"
[1]	"MF0;leaf01:MQM9700/U1"[31]

Switch	36 "MF0;leaf01:MQM9700/U1"
[1]	"$h0 mlx5_0"[1]
[2]	"$h1 mlx5_0"[1]
[31]	"MF0;spine01:MQM9700/U1"[1]

Switch	36 "MF0;leaf02:MQM9700/U1"
[1]	"$h2 mlx5_0"[1]
[2]	"$h3 mlx5_0"[1]

Hca	1 "$h0 mlx5_0"
[1]	"MF0;leaf01:MQM9700/U1"[1]

Hca	1 "$h1 mlx5_0"
[1]	"MF0;leaf01:MQM9700/U1"[2]

Hca	1 "$h2 mlx5_0"
[1]	"MF0;leaf02:MQM9700/U1"[1]

Hca	1 "$h3 mlx5_0"
[1]	"MF0;leaf02:MQM9700/U1"[2]
N
ibsim -s fabric.net </dev/null >ibsim.log 2>&1 &
pid=$!
ok=0
for i in $(seq 1 50); do
	if timeout 20 ibsim-run ibnetdiscover >topology.txt 2>ibnd.err && grep -q '^Switch' topology.txt; then ok=1; break; fi
	sleep 0.2
done
kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null || true
[ $ok = 1 ] || fail "ibnetdiscover over ibsim: $(cat ibnd.err ibsim.log)"

export BRINGUP_IB_TOPOLOGY=$T/topology.txt BRINGUP_IB_WIRING=$T/ib-wiring.csv
bringup import --manifest rack/rack.csv >/dev/null
rc=0; bringup run --json -q > run.json 2> run.err || rc=$?
[ "$rc" -le 1 ] || fail "run exit $rc: $(cat run.err)"
bringup status --json > status.json
bringup tickets --json > t.json
state() { jq -r --arg h "$1" '.nodes[] | select(.hostname == $h) | .state' status.json; }
fabric() { jq -r --arg h "$1" '.nodes[] | select(.hostname == $h) | .checks[] | select(.name == "fabric") | .'"$2" status.json; }
for h in $h2 $h3; do
	assert_eq "$(state "$h")" quarantined "$h on the cut-off leaf"
	assert_eq "$(fabric "$h" result)" fail "$h: fabric fails"
	assert_contains "$(fabric "$h" detail)" "leaf02 31 - spine01 2 (wiring line 7) not seen" "$h: the missing uplink"
	assert_contains "$(fabric "$h" detail)" "not reached by discovery: " "$h: the island"
	assert_eq "$(jq -r --arg h "$h" '[.tickets[] | select(.hostname == $h) | .fault] | join(",")' t.json)" fabric \
		"$h: one fabric ticket"
done
for h in $h0 $h1; do
	assert_eq "$(state "$h")" golden "$h on the reachable leaf ($(jq -r --arg h "$h" '.nodes[] | select(.hostname == $h) | .reason' status.json))"
	assert_eq "$(fabric "$h" result)" pass "$h: fabric passes"
	assert_contains "$(fabric "$h" detail)" "its 1 designed fabric cable seen as designed" "$h: what was proven"
done
echo "the cut-off leaf's nodes quarantined with a fabric ticket; the others golden"
