#!/bin/sh
# A BMC that shows no host MAC (no_host_mac) fails discovery with a reason
# saying so and naming what it did show, on any family; AMI's repeating
# pagination (every remaining member on each page, no count) reads each
# member once.
. "$(dirname "$0")/lib.sh"
cd "$T"
bringup sim --no-hosts --nodes 6 --seed 3 --vendor mixed --faults no_host_mac:3,nic_missing:2 --dir rack --daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
export BRINGUP_DB=$T/inv.db
bringup import --manifest rack/rack.csv >/dev/null
rc=0
bringup discover --json --timeout 5 > disc.json 2>err || rc=$?
assert_eq "$rc" 1 "discover exit code with MAC-less nodes"
bringup status --json > st.json
truth=rack/truth.json
sq() { jq -r --arg h "$1" ".nodes[] | select(.hostname==\$h) | $2" st.json; }

n=0
for h in $(jq -r '.nodes[] | select(.faults | index("no_host_mac")) | .hostname' $truth); do
	n=$((n + 1))
	v=$(jq -r --arg h "$h" '.nodes[] | select(.hostname==$h) | .vendor' $truth)
	assert_eq "$(sq "$h" .state)" failed "$v: MAC-less $h"
	reason=$(sq "$h" .reason)
	assert_contains "$reason" "no host NIC MAC" "$v: reason of $h"
	assert_contains "$reason" "EthernetInterfaces" "$v: reason names what the BMC showed"
	usb=$(jq -r --arg h "$h" '.nodes[] | select(.hostname==$h) | .mac_roles | to_entries[] | select(.value=="bmc_usb") | .key' $truth)
	[ -z "$usb" ] || assert_contains "$reason" "$usb is the BMC's USB link" "$v: reason names the USB link"
	assert_eq "$(sqlite3 inv.db "select count(*) from nics c join nodes n on n.id=c.node_id where n.hostname='$h'")" 0 "$v: no MACs stored for $h"
	# What names the machine is kept all the same (issue 23): its serial and
	# the BMC's MAC, shown by status, the failure typed no_host_mac; every
	# MAC it did show is listed with its role, none of them host.
	assert_eq "$(sq "$h" .failure_kind)" no_host_mac "$v: failure kind of $h"
	assert_eq "$(sq "$h" .system_serial)" "$(jq -r --arg h "$h" '.nodes[] | select(.hostname==$h) | .system_serial' $truth)" \
		"$v: serial of $h kept"
	bmc_mac=$(jq -r --arg h "$h" '.nodes[] | select(.hostname==$h) | .mac_roles | to_entries[] | select(.value=="bmc") | .key' $truth)
	assert_eq "$(sqlite3 inv.db "select bmc_mac from nodes where hostname='$h'")" "$bmc_mac" "$v: BMC MAC of $h kept"
	assert_eq "$(sq "$h" '[.nics[] | select(.role == "host")] | length')" 0 "$v: no host role among $h's MACs"
	assert_eq "$(sq "$h" "[.nics[] | select(.mac == \"$bmc_mac\") | .role] | join(\",\")")" bmc "$v: the BMC's port shown as bmc"
done
assert_eq "$n" 3 "MAC-less nodes"
# The other nodes, nic_missing ones included (a NIC absent from every view,
# BootOptions and OEM adapters too), are discovered with the truth's MACs.
for h in $(jq -r '.nodes[] | select(.faults | index("no_host_mac") | not) | .hostname' $truth); do
	assert_eq "$(sq "$h" .state)" discovered "$h ($(sq "$h" .reason))"
	assert_eq "$(sq "$h" '.macs | join(",")')" \
		"$(jq -r --arg h "$h" '.nodes[] | select(.hostname==$h) | .macs | sort | join(",")' $truth)" "MACs of $h"
done
[ "$(jq '[.nodes[] | select(.faults | index("nic_missing"))] | length' $truth)" -eq 2 ] || fail "nic_missing nodes"
[ "$(jq '[.nodes[] | select(.faults | index("nic_missing")) | .macs | length] | max' $truth)" -eq 9 ] || fail "nic_missing MACs"


# AMI: collections came in several pages, without a count, and every member
# (a drive is listed twice on each page) was still read once.
ami=$(jq -r '.nodes[] | select(.vendor=="ami") | .bmc' $truth)
log=rack/requests.log
pages=$(jq -r --arg b "$ami" 'select(.bmc==$b and (.path | test("/Chassis/Self/Drives[?]"))) | .path' $log | wc -l)
[ "$pages" -ge 3 ] || fail "ami drive collection pages: $pages"
assert_eq "$(jq -r --arg b "$ami" 'select(.bmc==$b and .method=="GET") | .path' $log | sort | uniq -d)" "" "ami: a resource read twice"
