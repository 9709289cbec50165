#!/bin/sh
# configure through the IPMI fallback, against a real ipmi_sim and real
# ipmitool: a node discovered over IPMI gets `chassis bootdev pxe
# options=persistent,efiboot`, read back, and a power cycle; its BIOS is
# reported as unsupported (an unknown "bios" check with the reason), not
# skipped; a Redfish node in the same run is configured as usual; the
# password stays out of argv.
. "$(dirname "$0")/lib.sh"
. "$BR_TOP/tests/fixtures/ipmi/sim.sh"
cd "$T"
start_ipmi_sim bmc1 "$T/ipmi1" chassis
port=$IPMI_SIM_PORT
bringup sim --no-hosts --nodes 1 --seed 3 --faults bios_drift --dir rack --daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
export IPMI_PW=secret
# Record every ipmitool command line, then run the real one.
cat > ipmitool <<EOF
#!/bin/sh
echo "\$*" >> $T/argv.log
exec ipmitool "\$@"
EOF
chmod +x ipmitool
export BR_IPMITOOL=$T/ipmitool
{
	head -2 rack/rack.csv
	echo "ipmi-a,r09,1,127.0.0.1:$port,admin,env:IPMI_PW,xe9680,ipmi,,,"
} > rack.csv
export BRINGUP_DB=$T/inv.db
bringup import --manifest rack.csv >/dev/null
bringup discover --timeout 30 -q
redfish=$(jq -r '.nodes[0].hostname' rack/truth.json)

bringup configure --dry-run --json > dry.json
assert_eq "$(jq -r '.nodes[] | select(.hostname == "ipmi-a") | .via' dry.json)" IPMI "dry run names IPMI"
[ ! -s ipmi1/chassis.log ] || ! grep -q '^set' ipmi1/chassis.log || fail "dry run changed the IPMI chassis"

rc=0
bringup configure --json --poll-ms 100 --timeout 30 > run.json 2> err || rc=$?
[ "$rc" -eq 0 ] || { cat err; fail "configure exited $rc"; }
r() { jq -r --arg h "$1" ".nodes[] | select(.hostname == \$h) | $2" run.json; }
assert_eq "$(r ipmi-a .result)/$(r ipmi-a .via)" configured/IPMI "IPMI node"
assert_eq "$(r "$redfish" .result)/$(r "$redfish" .via)" configured/Redfish "Redfish node in the same run"

# What reached the BMC: the boot device, then a power cycle (it was on).
grep -q '^set boot pxe' ipmi1/chassis.log || fail "boot device not set: $(cat ipmi1/chassis.log)"
grep -q '^set power' ipmi1/chassis.log || fail "no power control: $(cat ipmi1/chassis.log)"
grep -q 'chassis bootdev pxe options=persistent,efiboot$' argv.log || fail "bootdev command: $(cat argv.log)"
grep -q 'chassis bootparam get 5$' argv.log || fail "boot flags not read back"
grep -q 'chassis power cycle$' argv.log || fail "no power cycle: $(cat argv.log)"
! grep -q secret argv.log || fail "password in argv"

bringup status --json > st.json
st() { jq -r --arg h "$1" ".nodes[] | select(.hostname == \$h) | $2" st.json; }
assert_eq "$(st ipmi-a .state)" configured "IPMI node state"
assert_contains "$(st ipmi-a .reason)" "BIOS baseline of xe9680 not applied" "reason says the BIOS was not set"
assert_eq "$(st ipmi-a '.checks[] | select(.name == "bios") | .result')" unknown "bios check"
assert_contains "$(st ipmi-a '.checks[] | select(.name == "bios") | .detail')" "only IPMI" "bios check detail"
assert_eq "$(st ipmi-a '.checks[] | select(.name == "boot") | .result')" pass "boot check"
assert_eq "$(st ipmi-a '.checks[] | select(.name == "firmware") | .result')" unknown "firmware over IPMI"
assert_eq "$(st "$redfish" .state)" configured "Redfish node state"
exit 0
