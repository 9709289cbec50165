#!/bin/sh
# bringup-sim: the files it writes, the iDRAC tree reached only through
# links from /redfish/v1, paging and $expand, sessions, errors, the request
# log, and a clean stop on SIGTERM.
. "$(dirname "$0")/lib.sh"

R=$T/rack
bringup-sim --no-hosts --nodes 4 --seed 7 --dir "$R" --daemon --json >"$T/summary.json"
at_exit "stop_sim $R"
pid=$(cat "$R/sim.pid")
kill -0 "$pid" || fail "simulator not running after --daemon returned"
assert_eq "$(jq -r .pid "$T/summary.json")" "$pid" "summary names the serving pid"

# ---- files ------------------------------------------------------------------
assert_eq "$(head -n 1 "$R/rack.csv")" \
	"hostname,rack,unit,bmc,bmc_user,bmc_password,profile,bmc_type,boot_disk_serial,notes,serial" "rack.csv header"
assert_eq "$(sed 1d "$R/rack.csv" | wc -l)" 4 "rack.csv rows"
assert_eq "$(sed 1d "$R/rack.csv" | cut -d, -f5-10 | sort -u)" "root,env:BRINGUP_BMC_PASSWORD,xe9680,redfish,," \
	"rack.csv user, password reference, profile, type"
assert_eq "$(sed 1d "$R/rack.csv" | cut -d, -f1 | sort -u | wc -l)" 4 "hostnames unique"
set -a
. "$R/env"
set +a
[ -n "$BRINGUP_BMC_PASSWORD" ] || fail "env has no BRINGUP_BMC_PASSWORD"
assert_eq "$BRINGUP_BMC_SCHEME" http "scheme"
assert_eq "$BRINGUP_SIM_DIR" "$(cd "$R" && pwd)" "BRINGUP_SIM_DIR"
grep -q "$BRINGUP_BMC_PASSWORD" "$R/rack.csv" && fail "the password is written in rack.csv"
assert_eq "$(head -n 1 "$R/wiring.csv")" "hostname,host_port,switch,switch_port" "wiring.csv header"
assert_eq "$(sed 1d "$R/wiring.csv" | wc -l)" 40 "wiring.csv: 10 ports per node"
assert_eq "$(sed 1d "$R/wiring.csv" | cut -d, -f3,4 | sort -u | wc -l)" 40 "switch ports unique"
assert_eq "$(jq '.nodes | length' "$R/truth.json")" 4 "truth nodes"
assert_eq "$(jq -r '[.nodes[].macs[]] | length' "$R/truth.json")" 40 "truth MACs"
assert_eq "$(jq -r '[.nodes[].macs[]] | unique | length' "$R/truth.json")" 40 "truth MACs unique"
assert_eq "$(jq -r '[.nodes[].system_serial] | unique | length' "$R/truth.json")" 4 "serials unique"
assert_eq "$(jq -r '.nodes[].bmc' "$R/truth.json")" "$(sed 1d "$R/rack.csv" | cut -d, -f4)" "truth bmc = rack.csv bmc"

# The same seed gives the same rack.
bringup-sim --no-hosts --nodes 4 --seed 7 --dir "$T/again" --daemon >/dev/null
at_exit "stop_sim $T/again"
assert_eq "$(jq -c '[.nodes[] | del(.bmc)]' "$T/again/truth.json")" "$(jq -c '[.nodes[] | del(.bmc)]' "$R/truth.json")" \
	"same seed, same truth"
stop_sim "$T/again"

# ---- walking the tree from the service root --------------------------------
n=1
bmc=$(jq -r ".nodes[$n].bmc" "$R/truth.json")
B=http://$bmc
A="-u root:$BRINGUP_BMC_PASSWORD"
get() { curl -sf $A "$B$1"; }

root=$(curl -sf "$B/redfish/v1") || fail "service root needs no credentials"
assert_eq "$(echo "$root" | jq -r .ProtocolFeaturesSupported.ExpandQuery.Levels)" true "ExpandQuery advertised"
systems=$(echo "$root" | jq -r '.Systems."@odata.id"')
sys=$(get "$systems" | jq -r '.Members[0]."@odata.id"')
sysdoc=$(get "$sys")
assert_eq "$(echo "$sysdoc" | jq -r .SerialNumber)" "$(jq -r ".nodes[$n].system_serial" "$R/truth.json")" "SerialNumber"
assert_eq "$(echo "$sysdoc" | jq -r .SKU)" "$(jq -r ".nodes[$n].service_tag" "$R/truth.json")" "SKU is the service tag"
assert_eq "$(echo "$sysdoc" | jq -r .Model)" "PowerEdge XE9680" "Model"
assert_eq "$(echo "$sysdoc" | jq -r .Manufacturer)" "Dell Inc." "Manufacturer"
assert_eq "$(echo "$sysdoc" | jq -r '."@odata.etag" | length > 2')" true "System has @odata.etag"

jq -r ".nodes[$n].macs[]" "$R/truth.json" >"$T/want_macs"
eth=$(echo "$sysdoc" | jq -r '.EthernetInterfaces."@odata.id"')
for m in $(get "$eth" | jq -r '.Members[]."@odata.id"'); do
	get "$m" | jq -r .PermanentMACAddress
done | tr 'A-F' 'a-f' | sort >"$T/got_macs"
cmp -s "$T/got_macs" "$T/want_macs" || fail "EthernetInterfaces MACs differ from truth: $(diff "$T/got_macs" "$T/want_macs")"

# One $expand request gives the same MACs.
get "$eth?\$expand=.(\$levels=1)" | jq -r '.Members[].PermanentMACAddress' | tr 'A-F' 'a-f' | sort >"$T/expand_macs"
cmp -s "$T/expand_macs" "$T/want_macs" || fail "\$expand MACs differ from truth"

# NetworkDeviceFunctions, reached from the Chassis, show the same MACs.
chassis=$(echo "$sysdoc" | jq -r '.Links.Chassis[0]."@odata.id"')
adapters=$(get "$chassis" | jq -r '.NetworkAdapters."@odata.id"')
for a in $(get "$adapters" | jq -r '.Members[]."@odata.id"'); do
	f=$(get "$a" | jq -r '.NetworkDeviceFunctions."@odata.id"')
	for d in $(get "$f" | jq -r '.Members[]."@odata.id"'); do get "$d" | jq -r .Ethernet.PermanentMACAddress; done
done | tr 'A-F' 'a-f' | sort >"$T/ndf_macs"
cmp -s "$T/ndf_macs" "$T/want_macs" || fail "NetworkDeviceFunctions MACs differ from truth"

# Drives: the serials truth lists, one small boot drive, NVMe.
storage=$(echo "$sysdoc" | jq -r '.Storage."@odata.id"')
for s in $(get "$storage" | jq -r '.Members[]."@odata.id"'); do
	for d in $(get "$s" | jq -r '.Drives[]."@odata.id"'); do get "$d" | jq -c '{SerialNumber, CapacityBytes, Protocol}'; done
done >"$T/drives"
assert_eq "$(jq -r .SerialNumber "$T/drives" | sort | tr '\n' ' ')" \
	"$(jq -r ".nodes[$n].drive_serials[]" "$R/truth.json" | sort | tr '\n' ' ')" "drive serials"
assert_eq "$(jq -r 'select(.CapacityBytes < 1000000000000) | .SerialNumber' "$T/drives")" \
	"$(jq -r ".nodes[$n].boot_disk_serial" "$R/truth.json")" "the one small drive is the boot disk"
assert_eq "$(jq -r .Protocol "$T/drives" | sort -u)" NVMe "drives are NVMe"

# PCIe: 8 GPUs and 8 ConnectX-7 at Gen5 x16.
gpus=0 nics=0
for d in $(echo "$sysdoc" | jq -r '.PCIeDevices[]."@odata.id"'); do
	doc=$(get "$d")
	class=$(get "$(echo "$doc" | jq -r '.PCIeFunctions."@odata.id"')" | jq -r '.Members[0]."@odata.id"')
	class=$(get "$class" | jq -r .DeviceClass)
	w=$(echo "$doc" | jq -r '"\(.PCIeInterface.LanesInUse)/\(.PCIeInterface.MaxLanes)/\(.PCIeInterface.PCIeType)"')
	case "$class" in
	DisplayController) gpus=$((gpus + 1)); assert_eq "$w" 16/16/Gen5 "GPU link" ;;
	NetworkController) [ "$w" = 16/16/Gen5 ] && nics=$((nics + 1)) ;;
	esac
done
assert_eq "$gpus/$nics" 8/8 "GPUs/ConnectX-7 on the System's PCIeDevices"

# Firmware inventory pages with Members@odata.nextLink.
fw=$(echo "$root" | jq -r '.UpdateService."@odata.id"')
fw=$(get "$fw" | jq -r '.FirmwareInventory."@odata.id"')
page=$(get "$fw")
total=$(echo "$page" | jq '."Members@odata.count"')
[ "$total" -gt 50 ] || fail "FirmwareInventory has only $total members"
assert_eq "$(echo "$page" | jq '.Members | length')" 50 "first page size"
next=$(echo "$page" | jq -r '."Members@odata.nextLink"')
[ "$next" != null ] || fail "no nextLink on FirmwareInventory"
rest=$(get "$next")
assert_eq "$(echo "$rest" | jq -r '."Members@odata.nextLink" // "none"')" none "last page has no nextLink"
assert_eq "$(( 50 + $(echo "$rest" | jq '.Members | length') ))" "$total" "pages add up"
assert_contains "$( (echo "$page"; echo "$rest") | jq -r '.Members[]."@odata.id"' | sort -u | tr '\n' ' ')" \
	"Installed-159-2.3.5__BIOS.Setup.1-1" "BIOS component listed"

# ETag on every response.
curl -sf -D "$T/hdr" -o /dev/null $A "$B$sys"
grep -qi '^ETag: "' "$T/hdr" || fail "no ETag header"

# ---- errors -------------------------------------------------------------------
code=$(curl -s -o "$T/body" -w '%{http_code}' "$B$sys")
assert_eq "$code" 401 "no credentials"
assert_contains "$(jq -r '.error."@Message.ExtendedInfo"[].MessageId' "$T/body")" InsufficientPrivilege "401 body"
code=$(curl -s -o /dev/null -w '%{http_code}' -u root:wrong "$B$sys")
assert_eq "$code" 401 "wrong password"
code=$(curl -s -o "$T/body" -w '%{http_code}' $A "$B/redfish/v1/Nope")
assert_eq "$code" 404 "unknown path"
assert_contains "$(jq -r '.error."@Message.ExtendedInfo"[].MessageId' "$T/body" | tr '\n' ' ')" "SYS403" "404 iDRAC id"
assert_contains "$(jq -r '.error."@Message.ExtendedInfo"[].MessageId' "$T/body" | tr '\n' ' ')" \
	"Base.1.12.ResourceNotFound" "404 base id"

# ---- sessions ----------------------------------------------------------------
sessions=$(echo "$root" | jq -r '.Links.Sessions."@odata.id"')
code=$(curl -s -D "$T/hdr" -o "$T/body" -w '%{http_code}' -H 'Content-Type: application/json' \
	-d "{\"UserName\":\"root\",\"Password\":\"$BRINGUP_BMC_PASSWORD\"}" "$B$sessions")
assert_eq "$code" 201 "session created"
token=$(sed -n 's/^X-Auth-Token: *\([^\r]*\).*/\1/ip' "$T/hdr")
location=$(sed -n 's/^Location: *\([^\r]*\).*/\1/ip' "$T/hdr")
[ -n "$token" ] && [ -n "$location" ] || fail "no X-Auth-Token or Location"
assert_eq "$(curl -sf -H "X-Auth-Token: $token" "$B$sessions" | jq '."Members@odata.count"')" 1 "one session"
assert_eq "$(curl -s -o /dev/null -w '%{http_code}' -H "X-Auth-Token: $token" "$B$sys")" 200 "token works"
assert_eq "$(curl -s -o /dev/null -w '%{http_code}' -X DELETE -H "X-Auth-Token: $token" "$B$location")" 200 "logout"
assert_eq "$(curl -s -o /dev/null -w '%{http_code}' -H "X-Auth-Token: $token" "$B$sys")" 401 "token dead after logout"
code=$(curl -s -o /dev/null -w '%{http_code}' -d '{"UserName":"root","Password":"nope"}' "$B$sessions")
assert_eq "$code" 401 "session with a wrong password"

# ---- the request log -----------------------------------------------------------
sleep 0.3
L=$R/requests.log
jq -e . "$L" >/dev/null || fail "requests.log is not JSON lines"
grep -q "$BRINGUP_BMC_PASSWORD" "$L" && fail "password in requests.log"
grep -q "$token" "$L" && fail "token in requests.log"
assert_eq "$(jq -r "select(.bmc == \"$bmc\") | .node" "$L" | sort -u)" "$(jq -r ".nodes[$n].hostname" "$R/truth.json")" "node name"
assert_eq "$(jq -r 'select(.path == "/redfish/v1") | "\(.depth) \(.auth) \(.status)"' "$L" | sort -u)" "1 none 200" "root line"
assert_eq "$(jq -r "select(.path == \"$sys\" and .status == 200) | .depth" "$L" | sort -u)" 3 "System depth"
assert_eq "$(jq -r 'select(.session == "created") | "\(.method) \(.status) \(.depth)"' "$L")" "POST 201 2" "session created logged"
assert_eq "$(jq -r 'select(.session == "deleted") | "\(.method) \(.status) \(.auth)"' "$L")" "DELETE 200 session" "session deleted logged"
assert_eq "$(jq -r 'select(.auth == "basic") | .auth' "$L" | sort -u)" basic "basic auth logged"
assert_eq "$(jq -r 'select(.path | test("skip=50")) | .status' "$L")" 200 "paged request logged with its query"
jq -e 'select(.end_ms < .start_ms or .inflight < 1)' "$L" >/dev/null && fail "bad timing or inflight in log"

# ---- clean stop ------------------------------------------------------------------
kill "$pid"
i=0
while kill -0 "$pid" 2>/dev/null; do
	i=$((i + 1))
	[ $i -lt 50 ] || fail "simulator did not stop on SIGTERM"
	sleep 0.1
done
[ -f "$R/sim.pid" ] && fail "sim.pid left after a clean stop"
grep -q Sanitizer "$R/sim.log" && fail "sanitizer report: $(cat "$R/sim.log")"
exit 0
