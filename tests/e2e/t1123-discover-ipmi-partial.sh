#!/bin/sh
# An IPMI BMC (a real ipmi_sim) that goes away after ipmitool read its FRU
# and LAN configuration (a BMC reset mid-read: the sensor list's session
# cannot be established): the node fails with the session lost, and keeps what names the machine (the FRU's serial and model,
# the BMC's MAC) for status and tickets, as a Redfish BMC's failed node
# does (issue 23: a node that fails keeps nothing).
. "$(dirname "$0")/lib.sh"
. "$BR_TOP/tests/fixtures/ipmi/sim.sh"
cd "$T"
start_ipmi_sim bmc1 "$T/ipmi1"
cat >rack.csv <<EOS
hostname,rack,unit,bmc,bmc_user,bmc_password,profile,bmc_type,boot_disk_serial,notes
ipmi-a,r01,1,127.0.0.1:$IPMI_SIM_PORT,admin,env:PW,xe9680,ipmi,,
EOS
export PW=secret
# The real ipmitool, but for `sensor list`, which fails as ipmitool does
# when the BMC stops answering.
cat > ipmitool <<'EOS'
#!/bin/sh
case "$*" in
*"sensor list") echo "Error: Unable to establish IPMI v2 / RMCP+ session" >&2; exit 1 ;;
esac
exec ipmitool "$@"
EOS
chmod +x ipmitool
export BR_IPMITOOL=$T/ipmitool
bringup import --db inv.db --manifest rack.csv >/dev/null
rc=0
bringup discover --db inv.db --timeout 30 --json > d.json 2> err || rc=$?
assert_eq "$rc" 1 "exit code"
bringup status --db inv.db --json > st.json
st() { jq -r '.nodes[] | select(.hostname == "ipmi-a") | '"$1" st.json; }
assert_eq "$(st .state)" failed "failed ($(st .reason))"
assert_contains "$(st .reason)" "IPMI session lost" "the reason says the session was lost"
assert_eq "$(st .system_serial)" SN-IPMI-0001 "the FRU's serial kept"
assert_eq "$(inv_sql inv.db "select bmc_mac from nodes where hostname='ipmi-a'")" 52:54:00:ab:cd:ef "the BMC's MAC kept"
bringup tickets --db inv.db --json > t.json
assert_eq "$(jq -r '.tickets[] | select(.hostname == "ipmi-a") | .serial' t.json)" SN-IPMI-0001 "the ticket names the machine"
echo "ipmi partial: session lost at the sensor list, FRU serial and BMC MAC kept, ticket with the serial"
