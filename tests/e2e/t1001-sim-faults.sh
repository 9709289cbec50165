#!/bin/sh
# bringup-sim faults: every BMC-visible fault shows through Redfish the way
# truth.json says, host-side ones are recorded, sessions are capped at 8.
. "$(dirname "$0")/lib.sh"

R=$T/rack
bringup-sim --no-hosts --nodes 16 --seed 3 --dir "$R" --daemon --flaky-stall-ms 1500 \
	--faults psu_failed,pcie_degraded,gpu_missing,bmc_auth,bmc_down,nic_missing,nvme_missing \
	--faults thermal_bogus,fw_outdated,bios_drift,bmc_flaky,cable_swap >/dev/null
at_exit "stop_sim $R"
. "$R/env"
A="-u root:$BRINGUP_BMC_PASSWORD"
TRUTH=$R/truth.json
S=/redfish/v1/Systems/System.Embedded.1
C=/redfish/v1/Chassis/System.Embedded.1

node_with() { jq -r ".nodes[] | select(.faults | index(\"$1\")) | .bmc" "$TRUTH" | head -n 1; }
detail() { jq -r ".nodes[] | select(.faults | index(\"$1\")) | .fault_details.$1.$2" "$TRUTH" | head -n 1; }
get() { curl -sf -m 10 $A "http://$1$2"; }

assert_eq "$(jq '[.nodes[] | select(.faults | length > 0)] | length' "$TRUTH")" 13 "13 nodes carry a fault"
healthy=$(jq -r '.nodes[] | select(.faults | length == 0) | .bmc' "$TRUTH" | head -n 1)

# psu_failed: exactly one supply Critical, the one truth names.
b=$(node_with psu_failed)
assert_eq "$(get "$b" "$C/Power" | jq -r '.PowerSupplies[] | select(.Status.Health == "Critical") | .SerialNumber')" \
	"$(detail psu_failed serial)" "failed PSU"
assert_eq "$(get "$healthy" "$C/Power" | jq '[.PowerSupplies[] | select(.Status.Health != "OK")] | length')" 0 \
	"healthy node has no failed PSU"
assert_contains "$(get "$b" /redfish/v1/Managers/iDRAC.Embedded.1/LogServices/Sel/Entries | jq -r '.Members[].Severity')" \
	Critical "SEL has a critical entry"

# pcie_degraded: one GPU at x4.
b=$(node_with pcie_degraded)
assert_eq "$(get "$b" "$C/PCIeDevices/$(detail pcie_degraded bus)-0" | jq -r .PCIeInterface.LanesInUse)" 4 "degraded GPU width"
widths=$(for d in $(get "$b" "$C/PCIeDevices" | jq -r '.Members[]."@odata.id"'); do
	get "$b" "$d" | jq -r .PCIeInterface.LanesInUse; done | sort | uniq -c | tr -s ' ' | tr '\n' ';')
assert_contains "$widths" " 1 4;" "exactly one x4 link"

# gpu_missing: 7 GPUs.
b=$(node_with gpu_missing)
count=$(get "$b" "$S" | jq -r '.PCIeDevices[]."@odata.id"' | while read -r d; do get "$b" "$d" | jq -r .Manufacturer; done |
	grep -c NVIDIA)
assert_eq "$count" 7 "GPUs on a gpu_missing node"
assert_eq "$(curl -s -o /dev/null -w '%{http_code}' $A "http://$b$C/PCIeDevices/$(detail gpu_missing bus)-0")" 404 \
	"the missing GPU is 404"

# nic_missing: the NIC is gone from both MAC views and from truth.
b=$(node_with nic_missing)
mac=$(detail nic_missing mac)
assert_eq "$(get "$b" "$S/EthernetInterfaces" | jq '."Members@odata.count"')" 9 "EthernetInterfaces on nic_missing"
assert_eq "$(get "$b" "$C/NetworkAdapters" | jq '."Members@odata.count"')" 9 "NetworkAdapters on nic_missing"
assert_eq "$(jq -r ".nodes[] | select(.bmc == \"$b\") | .macs | length" "$TRUTH")" 9 "truth lists 9 MACs"
jq -e ".nodes[] | select(.bmc == \"$b\") | .macs | index(\"$mac\")" "$TRUTH" >/dev/null && fail "missing MAC in truth"

# nvme_missing: 7 data drives.
b=$(node_with nvme_missing)
assert_eq "$(get "$b" "$S/Storage/CPU.1" | jq '.Drives | length')" 7 "data drives on nvme_missing"
assert_eq "$(get "$healthy" "$S/Storage/CPU.1" | jq '.Drives | length')" 8 "data drives on a healthy node"

# thermal_bogus: an impossible temperature, fans at full speed.
b=$(node_with thermal_bogus)
t=$(get "$b" "$C/Thermal")
assert_eq "$(echo "$t" | jq -r ".Temperatures[] | select(.Name == \"$(detail thermal_bogus sensor)\") | .ReadingCelsius")" \
	"$(detail thermal_bogus reading)" "bogus reading"
assert_eq "$(echo "$t" | jq -r '[.Fans[] | .Reading == .MaxReadingRange] | all')" true "fans at max"
assert_eq "$(get "$healthy" "$C/Thermal" | jq -r '[.Temperatures[].ReadingCelsius | . > 0 and . < 90] | all')" true \
	"healthy temperatures plausible"

# fw_outdated: one NIC below policy, in the paged inventory.
b=$(node_with fw_outdated)
fw=/redfish/v1/UpdateService/FirmwareInventory
ids=$( (get "$b" "$fw"; get "$b" "$fw?\$skip=50") | jq -r '.Members[]."@odata.id"')
assert_contains "$ids" "Installed-104327-28.33.0800__$(detail fw_outdated component)" "outdated NIC firmware"
assert_eq "$(echo "$ids" | grep -c 'Installed-104327-28.33.0800')" 1 "one outdated component"

# bios_drift: the drifted attributes show in Bios.
b=$(node_with bios_drift)
attrs=$(get "$b" "$S/Bios" | jq -c .Attributes)
for a in $(jq -r '.nodes[] | select(.faults | index("bios_drift")) | .fault_details.bios_drift.attributes | keys[]' "$TRUTH"); do
	assert_eq "$(echo "$attrs" | jq -r ".$a")" \
		"$(jq -r ".nodes[] | select(.faults | index(\"bios_drift\")) | .fault_details.bios_drift.attributes.$a" "$TRUTH")" \
		"drifted $a"
done
assert_eq "$(get "$healthy" "$S/Bios" | jq -r .Attributes.SysProfile)" PerfOptimized "baseline SysProfile"

# bmc_auth: root answers, everything authenticated is 401.
b=$(node_with bmc_auth)
assert_eq "$(curl -s -o /dev/null -w '%{http_code}' "http://$b/redfish/v1")" 200 "bmc_auth root"
assert_eq "$(curl -s -o /dev/null -w '%{http_code}' $A "http://$b$S")" 401 "bmc_auth basic"
assert_eq "$(curl -s -o /dev/null -w '%{http_code}' -d "{\"UserName\":\"root\",\"Password\":\"$BRINGUP_BMC_PASSWORD\"}" \
	"http://$b/redfish/v1/SessionService/Sessions")" 401 "bmc_auth session"

# bmc_down: the port accepts, nothing ever answers.
b=$(node_with bmc_down)
rc=0
curl -s -m 2 -o /dev/null "http://$b/redfish/v1" || rc=$?
assert_eq "$rc" 28 "bmc_down times out"

# bmc_flaky: some requests stall, reset or get 503 + Retry-After; retries win.
b=$(node_with bmc_flaky)
ok=0 bad=0
for i in $(seq 30); do
	code=$(curl -s -m 1 -D "$T/fh" -o /dev/null -w '%{http_code}' $A "http://$b$S") || true
	case "$code" in
	200) ok=$((ok + 1)) ;;
	503) bad=$((bad + 1)); grep -qi '^Retry-After: 1' "$T/fh" || fail "503 without Retry-After" ;;
	*) bad=$((bad + 1)) ;;
	esac
done
[ "$ok" -gt 10 ] && [ "$bad" -gt 2 ] || fail "bmc_flaky: $ok ok, $bad bad of 30"
curl -sf -m 1 --retry 10 --retry-all-errors --retry-delay 0 $A "http://$b$S" >/dev/null || fail "retries do not win on bmc_flaky"
sleep 2
kinds=$(jq -r "select(.bmc == \"$b\") | .fault // empty" "$R/requests.log" | sort -u | tr '\n' ' ')
assert_eq "$kinds" "503 reset stall " "flaky behaviours in the log"

# Host-side faults are in truth only: cable_swap pairs two nodes.
assert_eq "$(jq -r '[.nodes[] | select(.faults | index("cable_swap"))] | length' "$TRUTH")" 2 "cable_swap takes two nodes"
a=$(jq -r '[.nodes[] | select(.faults | index("cable_swap"))][0] | "\(.hostname) \(.fault_details.cable_swap.peer)"' "$TRUTH")
z=$(jq -r '[.nodes[] | select(.faults | index("cable_swap"))][1] | "\(.fault_details.cable_swap.peer) \(.hostname)"' "$TRUTH")
assert_eq "$a" "$z" "swap partners name each other"

# Eight sessions, then RAC0218; a logout frees a slot.
sess=/redfish/v1/SessionService/Sessions
body="{\"UserName\":\"root\",\"Password\":\"$BRINGUP_BMC_PASSWORD\"}"
for i in 1 2 3 4 5 6 7 8; do
	assert_eq "$(curl -s -D "$T/sh$i" -o /dev/null -w '%{http_code}' -d "$body" "http://$healthy$sess")" 201 "session $i"
done
assert_eq "$(curl -s -o "$T/body" -w '%{http_code}' -d "$body" "http://$healthy$sess")" 503 "9th session"
assert_contains "$(jq -r '.error."@Message.ExtendedInfo"[0].MessageId' "$T/body")" RAC0218 "9th session MessageId"
loc=$(sed -n 's/^Location: *\([^\r]*\).*/\1/ip' "$T/sh3")
assert_eq "$(curl -s -o /dev/null -w '%{http_code}' -X DELETE $A "http://$healthy$loc")" 200 "logout with basic auth"
assert_eq "$(curl -s -o /dev/null -w '%{http_code}' -d "$body" "http://$healthy$sess")" 201 "a slot is free again"

# --fault-rate picks only the field's faults (docs/simulator.md); test-only ones need asking for.
bringup-sim --no-hosts --nodes 64 --seed 11 --fault-rate 0.5 --dir "$T/rate" --daemon >/dev/null
at_exit "stop_sim $T/rate"
n=$(jq '[.nodes[] | select(.faults | length > 0)] | length' "$T/rate/truth.json")
[ "$n" -ge 16 ] && [ "$n" -le 52 ] || fail "--fault-rate 0.5 faulted $n of 64"
jq -r '.nodes[].faults[]' "$T/rate/truth.json" | grep -Eq 'bad_json|bad_types|huge_|hang' && fail "test-only fault chosen by rate"
stop_sim "$T/rate"

# Bad fault specs are usage errors.
rc=0
bringup-sim --no-hosts --nodes 2 --dir "$T/bad" --faults no_such_fault 2>"$T/err" || rc=$?
assert_eq "$rc" 2 "unknown fault exit code"
assert_contains "$(cat "$T/err")" "no_such_fault" "error names the fault"
rc=0
bringup-sim --no-hosts --nodes 2 --dir "$T/bad" --faults psu_failed:3 2>/dev/null || rc=$?
assert_eq "$rc" 2 "more faults than nodes"
exit 0
