#!/bin/sh
# A BMC that manages two hosts (two_hosts: System.Embedded.1 and .2, each
# its own serial and NIC). With the manifest's system column naming
# System.Embedded.1 the node gets that System's serial and MACs alone,
# never the other's; with the column blank it fails naming both Systems,
# its BMC's facts kept; a node whose manifest names a System the BMC does
# not list fails naming what it does list.
. "$(dirname "$0")/lib.sh"
cd "$T"
bringup sim --no-hosts --nodes 4 --seed 11 --faults two_hosts:3 --bios-job-ms 200 --dir rack --daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
export BRINGUP_DB=$T/inv.db
truth=rack/truth.json
assert_eq "$(head -1 rack/rack.csv | sed 's/.*,//')" system "rack.csv has the system column"
set -- $(jq -r '.nodes[] | select(.faults | index("two_hosts")) | .hostname' $truth)
named=$1 blank=$2 wrong=$3
# one row loses its system, another names a System the BMC lacks
awk -F, -v OFS=, -v b="$blank" -v w="$wrong" '$1 == b { $NF = "" } $1 == w { $NF = "/redfish/v1/Systems/Node.9" } { print }' \
	rack/rack.csv > rack2.csv
bringup import --manifest rack2.csv >/dev/null
rc=0
bringup discover --json --timeout 5 > disc.json 2>err || rc=$?
assert_eq "$rc" 1 "discover exit code"
bringup status --json > st.json
sq() { jq -r --arg h "$1" ".nodes[] | select(.hostname==\$h) | $2" st.json; }
tr_() { jq -r --arg h "$1" ".nodes[] | select(.hostname==\$h) | $2" $truth; }

assert_eq "$(sq "$named" .state)" discovered "$named (System named) discovered ($(sq "$named" .reason))"
assert_eq "$(sq "$named" .system_serial)" "$(tr_ "$named" .system_serial)" "$named: the named System's serial"
assert_eq "$(sq "$named" '.macs | join(",")')" "$(tr_ "$named" '.macs | sort | join(",")')" "$named: its MACs alone"

assert_eq "$(sq "$blank" .state)" failed "$blank (no System named) failed"
assert_contains "$(sq "$blank" .reason)" "the BMC manages 2 hosts; name one in the manifest's system column: System.Embedded.1 (a host), System.Embedded.2 (a host)" \
	"$blank: reason names both Systems"
assert_eq "$(sq "$blank" '.macs | length')" 0 "$blank: no MAC taken from either"
assert_eq "$(sq "$blank" .system_serial)" null "$blank: no System's serial taken"
assert_eq "$(inv_sql inv.db "select bmc_mac from nodes where hostname='$blank'")" \
	"$(tr_ "$blank" '.mac_roles | to_entries[] | select(.value=="bmc") | .key')" "$blank: its BMC's MAC kept"

assert_eq "$(sq "$wrong" .state)" failed "$wrong (a System the BMC lacks) failed"
assert_contains "$(sq "$wrong" .reason)" "the manifest's system '/redfish/v1/Systems/Node.9' is not among the BMC's Systems: System.Embedded.1 (a host), System.Embedded.2 (a host)" \
	"$wrong: reason names what the BMC lists"
# the node without the fault: one System, no column value, discovered as ever
for h in $(jq -r '.nodes[] | select(.faults | index("two_hosts") | not) | .hostname' $truth); do
	assert_eq "$(sq "$h" .state)" discovered "$h (one host) discovered"
done
# the second host's System was read, its interfaces only where nothing was named
assert_eq "$(jq -r --arg b "$(tr_ "$named" .bmc)" 'select(.bmc==$b and (.path | test("System.Embedded.2/EthernetInterfaces"))) | .path' rack/requests.log | wc -l)" 0 \
	"$named: the other host's interfaces never read"

# Configure takes the host discovery took: the named System's BIOS and
# boot order, nothing of the other host's (both have a BIOS).
bmc=$(tr_ "$named" .bmc)
: > rack/requests.log
rc=0; bringup configure -q "$named" 2> cfg.err || rc=$?
bringup status --json > st.json
assert_eq "$(sq "$named" .state)" configured "$named configured ($(sq "$named" .reason); $(tail -2 cfg.err))"
assert_eq "$(jq -r --arg b "$bmc" 'select(.bmc==$b and .method != "GET" and (.path | test("System.Embedded.1"))) | .method' rack/requests.log | grep -c .)" \
	"$(jq -r --arg b "$bmc" 'select(.bmc==$b and .method != "GET" and (.path | test("Systems/"))) | .method' rack/requests.log | grep -c .)" \
	"$named: every change went to System.Embedded.1"
[ "$(jq -r --arg b "$bmc" 'select(.bmc==$b and (.path | test("System.Embedded.1/Bios$")))' rack/requests.log | grep -c .)" -gt 0 ] ||
	fail "$named: its System's BIOS never read"
assert_eq "$(jq -r --arg b "$bmc" 'select(.bmc==$b and (.path | test("System.Embedded.2/Bios")))' rack/requests.log | grep -c .)" 0 \
	"$named: the other host's BIOS never touched"
