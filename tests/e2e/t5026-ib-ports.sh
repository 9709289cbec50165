#!/bin/sh
# bringup run on a simulated rack where one node's fabric NIC port stays
# DOWN / Polling with its cable in (ib_port_down) and another's trained at
# 200 Gb/s in a 400G fabric (ib_rate): both end quarantined with one
# ib_ports ticket naming the HCA (its RDMA device, its PCIe function) and
# what was seen; an unplugged cable stays one cabling ticket with the HCA
# port's state in its evidence; clean nodes pass ib_ports and go golden.
. "$BR_TOP/tests/e2e/lib.sh"
cd "$T"
bringup sim --nodes 6 --seed 26 --dir rack --faults ib_port_down,ib_rate,cable_unplugged \
	--maas-commission-ms 100 --maas-deploy-ms 100 --daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
export BRINGUP_DB=$T/inv.db BRINGUP_SSH_PUBKEY=$BRINGUP_SSH_KEY.pub
of() { jq -r --arg f "$1" '.nodes[] | select(.faults | index($f)) | .hostname' rack/truth.json; }
bdf_of() { jq -r --arg f "$1" '.nodes[] | select(.faults | index($f)) | .fault_details[$f].bus' rack/truth.json |
	xargs printf '0000:%02x:00.0'; }
bringup import --manifest rack/rack.csv >/dev/null
rc=0; bringup run --json -q > run.json 2> run.err || rc=$?
[ "$rc" -le 1 ] || fail "run exit $rc: $(cat run.err)"
bringup status --json > status.json
bringup tickets --json > t.json
state() { jq -r --arg h "$1" '.nodes[] | select(.hostname == $h) | .state' status.json; }
check() { jq -r --arg h "$1" --arg c "$2" '.nodes[] | select(.hostname == $h) | .checks[] | select(.name == $c) | .'"$3" status.json; }
tickets() { jq -r --arg h "$1" '[.tickets[] | select(.hostname == $h) | .fault] | join(",")' t.json; }
evidence() { jq -r --arg h "$1" '.tickets[] | select(.hostname == $h) | .evidence' t.json; }

for f in ib_port_down ib_rate; do
	h=$(of $f)
	[ -n "$h" ] || fail "the simulator put no $f fault"
	assert_eq "$(state "$h")" quarantined "$h ($f) quarantined"
	assert_eq "$(check "$h" ib_ports result)" fail "$h ($f): ib_ports fails"
	assert_eq "$(tickets "$h")" ib_ports "$h ($f): one ib_ports ticket"
	assert_contains "$(evidence "$h")" "($(bdf_of $f), GUID " "$h ($f): the ticket names the HCA and its port GUID"
	case "$(jq -r --arg h "$h" '.tickets[] | select(.hostname == $h) | .action' t.json)" in
	"The fabric link of mlx5_"*) ;;
	*) fail "$h ($f): not the ib_ports action: $(jq -r --arg h "$h" '.tickets[].action' t.json)" ;;
	esac
done
assert_contains "$(evidence "$(of ib_port_down)")" "DOWN / Polling, expected ACTIVE / LinkUp" "port down: seen and expected"
assert_contains "$(evidence "$(of ib_rate)")" "200 Gb/sec (4X HDR), expected 400 Gb/s" "slow port: seen and expected"

h=$(of cable_unplugged)
assert_eq "$(state "$h")" quarantined "$h (cable_unplugged) quarantined"
assert_eq "$(check "$h" ib_ports result)" fail "$h (cable_unplugged): its HCA port is down too"
assert_eq "$(tickets "$h")" cabling "$h (cable_unplugged): one cabling ticket"
assert_contains "$(evidence "$h")" "; also ib_ports: mlx5_" "$h (cable_unplugged): the HCA port in its evidence"

for h in $(jq -r '.nodes[] | select(.faults == []) | .hostname' rack/truth.json); do
	assert_eq "$(state "$h")" golden "clean $h golden ($(jq -r --arg h "$h" '.nodes[] | select(.hostname == $h) | .reason' status.json))"
	assert_eq "$(check "$h" ib_ports result)" pass "clean $h: ib_ports"
	assert_contains "$(check "$h" ib_ports detail)" "8 ports ACTIVE / LinkUp at 400 Gb/s or more" "clean $h: what was proven"
	assert_eq "$(tickets "$h")" "" "no ticket for clean $h"
done
echo "ib_port_down and ib_rate quarantined with one ib_ports ticket each; clean nodes golden"
