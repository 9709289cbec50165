#!/bin/sh
# discover through the IPMI fallback: a node whose manifest says bmc_type
# ipmi is read with ipmitool from a real ipmi_sim; its facts reach the
# inventory; a wrong password fails that node with a credentials reason,
# while a Redfish node in the same run is discovered.
. "$(dirname "$0")/lib.sh"
. "$BR_TOP/tests/fixtures/ipmi/sim.sh"
cd "$T"
start_ipmi_sim bmc1 "$T/ipmi1"
good=$IPMI_SIM_PORT
start_ipmi_sim bmc2 "$T/ipmi2"
bad=$IPMI_SIM_PORT
bringup sim --no-hosts --nodes 1 --seed 3 --dir rack --daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
export IPMI_PW=secret WRONG_PW=not-the-password
{
	head -2 rack/rack.csv
	echo "ipmi-a,r09,1,127.0.0.1:$good,admin,env:IPMI_PW,xe9680,ipmi,,,sn-ipmi-0001"
	echo "ipmi-b,r09,3,127.0.0.1:$bad,admin,env:WRONG_PW,xe9680,ipmi,,,"
} > rack.csv
bringup import --db inv.db --manifest rack.csv >/dev/null
rc=0
bringup discover --db inv.db --json --timeout 30 > d.json 2>err || rc=$?
assert_eq "$rc" 1 "exit code"
r() { jq -r --arg h "$1" ".nodes[] | select(.hostname==\$h) | $2" d.json; }
assert_eq "$(r ipmi-a .result)/$(r ipmi-a .via)" "discovered/IPMI" "IPMI node"
assert_eq "$(r ipmi-b .result)" failed "wrong password"
assert_contains "$(r ipmi-b .reason)" "credentials" "wrong password reason"
redfish=$(jq -r '.nodes[0].hostname' rack/truth.json)
assert_eq "$(r "$redfish" .result)/$(r "$redfish" .via)" "discovered/Redfish" "Redfish node in the same run"
q() { sqlite3 inv.db "select $1 from nodes n where hostname='ipmi-a'"; }
assert_eq "$(q system_serial)" SN-IPMI-0001 "serial from FRU"
assert_eq "$(q hw_source)" ipmi "source"
assert_eq "$(q bmc_mac)" 52:54:00:ab:cd:ef "BMC MAC"
assert_eq "$(q "(select count(*) from sensors s where s.node_id=n.id and s.kind='fan')")" 2 "fans"
[ "$(q "(select count(*) from sel_entries s where s.node_id=n.id)")" -ge 1 ] || fail "SEL entries"
! grep -q "not-the-password" err d.json || fail "password leaked"
# The FRU's serial is cross-checked with the manifest's as Redfish's is
# (above it matched in another case): another serial fails the node.
sed -n '1p; /^ipmi-a,/p' rack.csv | sed 's/sn-ipmi-0001$/SN-OTHER-9/' > other.csv
bringup import --db inv2.db --manifest other.csv >/dev/null
bringup discover --db inv2.db --json --timeout 30 > d2.json 2>err2 || true
bringup status --db inv2.db --json > st2.json
assert_eq "$(jq -r '.nodes[0].state + "/" + .nodes[0].failure_kind' st2.json)" failed/serial_mismatch "IPMI serial mismatch"
assert_contains "$(jq -r '.nodes[0].reason' st2.json)" "reports serial SN-IPMI-0001" "IPMI mismatch names the FRU serial"
assert_contains "$(jq -r '.nodes[0].reason' st2.json)" "the manifest expects SN-OTHER-9" "IPMI mismatch names the manifest's"
