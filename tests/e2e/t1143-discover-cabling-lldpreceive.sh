#!/bin/sh
# The DMTF form of the BMC's neighbours: HPE iLO's NetworkAdapters Ports
# with Ethernet.LLDPReceive (switch by LLDP system name and chassis MAC, no
# switches file needed). A fabric cable swap between two nodes is found in
# discover, each quarantined naming the partner, the BMC's port and the
# switch ports; the others pass, their neighbours shown by status.
. "$(dirname "$0")/lib.sh"
cd "$T"
bringup sim --nodes 4 --no-hosts --vendor hpe --seed 3 --dir rack --faults cable_swap --daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
export BRINGUP_DB=$T/inv.db
bringup import --manifest rack/rack.csv >/dev/null
# A switches file or wiring list with problems stops discover before any BMC.
printf 'switch,chassis_id\nleaf01,0c:42:a1:00:00:01\nleaf02,0C-42-A1-00-00-01\n' > bad-switches.csv
rc=0; bringup discover -q --switches bad-switches.csv 2> bad.err || rc=$?
assert_eq "$rc" 2 "discover exit with a bad switches file"
assert_contains "$(cat bad.err)" "bad-switches.csv:3: chassis_id: 0c:42:a1:00:00:01 is also leaf01's (line 2)" "the problem named"
printf 'hostname,host_port,switch\n' > bad-wiring.csv
rc=0; bringup discover -q --wiring bad-wiring.csv 2> bad.err || rc=$?
assert_eq "$rc" 2 "discover exit with a bad wiring list"
assert_contains "$(cat bad.err)" "bad-wiring.csv:1: header" "the wiring problem named"
[ ! -s rack/requests.log ] || fail "a BMC was asked before the files were checked"
assert_eq "$(bringup status --json | jq -r '[.nodes[].state] | unique | join(",")')" new "no node moved"
rc=0; env -u BRINGUP_SWITCHES bringup discover -q || rc=$?
assert_eq "$rc" 1 "discover exit (two nodes quarantined)"
bringup status --json > status.json
st() { jq -r --arg h "$1" ".nodes[] | select(.hostname == \$h) | $2" status.json; }
check() { st "$1" ".checks[] | select(.name == \"cabling_bmc\") | .$2"; }
for h in $(jq -r '.nodes[].hostname' rack/truth.json); do
	assert_eq "$(st "$h" .neighbors.source)" LLDPReceive "$h: the view read"
	if [ "$(jq -r --arg h "$h" '.nodes[] | select(.hostname == $h) | .faults | join(",")' rack/truth.json)" = cable_swap ]; then
		peer=$(jq -r --arg h "$h" '.nodes[] | select(.hostname == $h) | .fault_details.cable_swap.peer' rack/truth.json)
		ifname=$(jq -r --arg h "$h" '.nodes[] | select(.hostname == $h) | .fault_details.cable_swap.ifname' rack/truth.json)
		assert_eq "$(st "$h" .state)" quarantined "$h (swapped) state"
		assert_eq "$(check "$h" result)" fail "$h: cabling_bmc"
		assert_contains "$(check "$h" detail)" "by the BMC's LLDPReceive: $ifname: sees" "$h: detail"
		assert_contains "$(check "$h" detail)" "swapped with $peer $ifname" "$h: the partner"
		assert_contains "$(check "$h" detail)" "is the BMC's NIC.Slot." "$h: the BMC's port"
	else
		assert_eq "$(st "$h" .state)" discovered "$h state"
		assert_eq "$(check "$h" result)" pass "$h: cabling_bmc"
		# The switches behind the ports, in any order (the BMC's
		# answers may come back in another order than the truth's).
		sw=$(jq -r --arg h "$h" '.nodes[] | select(.hostname == $h) | [.neighbors.ports[].switch | select(. != null)] | sort | join(" ")' rack/truth.json)
		assert_eq "$(st "$h" '[.neighbors.ports[] | select(.system_name != null and .link)] | length')" 10 "$h: every port's switch named"
		assert_eq "$(st "$h" '[.neighbors.ports[].system_name | select(. != null)] | sort | join(" ")')" "$sw" "$h: the ports' switches"
	fi
done
echo "ok: HPE's LLDPReceive read and judged before PXE"
