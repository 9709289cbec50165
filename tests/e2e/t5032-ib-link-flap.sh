#!/bin/sh
# A fabric NIC whose link flapped after boot (ib_link_flap: the kernel log
# shows its interface down twice, 46.5 s in all; its port ACTIVE and its
# counters clean again by validation): bringup run quarantines the node on
# ib_ports, the evidence giving the down time against the profile's
# [ib] link_down_time_max (30 s) and blaming the NIC's PCIe function, one
# ticket; the clean nodes, whose links trained once at boot, go golden.
. "$BR_TOP/tests/e2e/lib.sh"
cd "$T"
bringup sim --nodes 3 --seed 32 --dir rack --faults ib_link_flap \
	--maas-commission-ms 100 --maas-deploy-ms 100 --daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
export BRINGUP_DB=$T/inv.db BRINGUP_SSH_PUBKEY=$BRINGUP_SSH_KEY.pub
h=$(jq -r '.nodes[] | select(.faults == ["ib_link_flap"]) | .hostname' rack/truth.json)
[ -n "$h" ] || fail "the simulator put no ib_link_flap fault"
ifname=$(jq -r --arg h "$h" '.nodes[] | select(.hostname == $h) | .fault_details.ib_link_flap.ifname' rack/truth.json)
bdf=$(jq -r --arg h "$h" '.nodes[] | select(.hostname == $h) | .fault_details.ib_link_flap.bus' rack/truth.json |
	xargs printf '0000:%02x:00.0')
bringup import --manifest rack/rack.csv >/dev/null
rc=0; bringup run --json -q > run.json 2> run.err || rc=$?
assert_eq "$rc" 1 "run exit (the flapping node quarantined): $(tail -3 run.err)"
bringup status --json > status.json
bringup tickets --json > t.json
check() { jq -r --arg h "$1" --arg c "$2" '.nodes[] | select(.hostname == $h) | .checks[] | select(.name == $c) | .'"$3" status.json; }
assert_eq "$(jq -r --arg h "$h" '.nodes[] | select(.hostname == $h) | .state' status.json)" quarantined "$h"
assert_eq "$(check "$h" ib_ports result)" fail "$h: ib_ports"
assert_contains "$(check "$h" ib_ports detail)" \
	"($bdf, GUID " "$h: the port on the NIC's PCIe function"
assert_contains "$(check "$h" ib_ports detail)" \
	"$ifname went down 2 times, down 46.5 s in all (kernel log), at most 30 s expected: a flapping link" \
	"$h: the down time against the limit"
assert_eq "$(inv_sql "$BRINGUP_DB" "SELECT c.component FROM check_results c JOIN nodes n ON n.id = c.node_id
	WHERE n.hostname = '$h' AND c.name = 'ib_ports'")" "pci:$bdf" "$h: ib_ports blames the NIC"
assert_eq "$(jq -r --arg h "$h" '[.tickets[] | select(.hostname == $h) | .fault] | join(",")' t.json)" ib_ports \
	"$h: one ib_ports ticket"
for o in $(jq -r '.nodes[] | select(.faults == []) | .hostname' rack/truth.json); do
	assert_eq "$(jq -r --arg h "$o" '.nodes[] | select(.hostname == $h) | .state' status.json)" golden "clean $o"
	assert_contains "$(check "$o" ib_ports detail)" "down at most 30 s in the kernel log" "clean $o: what was proven"
done
echo "a link down 46.5 s since boot quarantines its node on ib_ports; links that trained once pass"
