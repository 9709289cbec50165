#!/bin/sh
# bringup-sim against Redfish clients others wrote (Debian's redfishtool,
# DMTF's, and ilorest, HPE's): login, systems, chassis, managers, BIOS and
# reset work as on a real iDRAC9, and the simulator's log shows what they
# sent. Also the service-level rules those clients rely on: $metadata
# without authentication, JsonSchemas and Registries in the service root,
# the BIOS attribute registry matching the attributes.
. "$(dirname "$0")/lib.sh"
command -v redfishtool >/dev/null || fail "redfishtool is not installed (scripts/deps)"
command -v ilorest >/dev/null || fail "ilorest is not installed (scripts/deps)"

# ilorest speaks only HTTPS.
R=$T/rack
bringup-sim --no-hosts --nodes 1 --https --dir "$R" --daemon >/dev/null
at_exit "stop_sim $R"
. "$R/env"
B=$(jq -r '.nodes[0].bmc' "$R/truth.json")
serial=$(jq -r '.nodes[0].system_serial' "$R/truth.json")
LOG=$R/requests.log
S=/redfish/v1/Systems/System.Embedded.1
M=/redfish/v1/Managers/iDRAC.Embedded.1
n_req() { jq -s "[.[] | select(.method == \"$1\" and .path == \"$2\" and .status == $3)] | length" "$LOG"; }
curl_get() { curl -sf -m 10 --cacert "$R/ca.pem" "$@"; }

# -- the service itself ------------------------------------------------------
meta=$(curl_get "https://$B/redfish/v1/\$metadata")
assert_contains "$meta" '<edmx:Include Namespace="ComputerSystem.v1_20_0"/>' "\$metadata without credentials"
root=$(curl_get "https://$B/redfish/v1/")
assert_eq "$(echo "$root" | jq -r '.JsonSchemas["@odata.id"] + " " + .Registries["@odata.id"]')" \
	"/redfish/v1/JsonSchemas /redfish/v1/Registries" "JsonSchemas and Registries in the service root"
A="-u root:$BRINGUP_BMC_PASSWORD"
attrs=$(curl_get $A "https://$B$S/Bios" | jq '.Attributes | length')
[ "$attrs" -ge 400 ] || fail "BIOS attributes: $attrs, an iDRAC9 has ~450"
assert_eq "$(curl_get $A "https://$B$S/Bios/BiosRegistry" | jq '.RegistryEntries.Attributes | length')" "$attrs" \
	"one registry entry per BIOS attribute"

# -- redfishtool (session login, HTTPS) ---------------------------------------
# The first call logs in with a session; the rest use Basic, fewer requests.
rft() { redfishtool -r "$B" -S Always -A Basic -u root -p "$BRINGUP_BMC_PASSWORD" "$@"; }
assert_eq "$(rft -A Session Systems -1 -P SerialNumber | jq -r .SerialNumber)" "$serial" "redfishtool: system serial"
assert_eq "$(rft Chassis list | jq -r '[.Members[].Id] | join(" ")')" \
	"System.Embedded.1 Enclosure.Internal.0-1" "redfishtool: both chassis"
assert_eq "$(rft Managers -1 -P ManagerType | jq -r .ManagerType)" BMC "redfishtool: manager"
assert_eq "$(rft raw GET "$S/Bios" | jq -r .Attributes.SysProfile)" PerfOptimized "redfishtool: BIOS attribute"
rft Systems -1 reset ForceRestart >/dev/null || fail "redfishtool: system reset refused"
assert_eq "$(n_req POST "$S/Actions/ComputerSystem.Reset" 204)" 1 "redfishtool's system reset reached the BMC"
assert_eq "$(jq -s '[.[] | select(.method == "POST" and .path == "/redfish/v1/SessionService/Sessions" and .status == 201)] | length >= 1' "$LOG")" \
	true "redfishtool logged in with a session"

# -- ilorest (its cache in a scratch home; each call is a Python start-up,
# so few of them) ----------------------------------------------------------
export HOME=$T/home
mkdir -p "$HOME"
ilo() { (cd "$HOME" && timeout 60 ilorest --nologo "$@"); }
ilo login "https://$B" -u root -p "$BRINGUP_BMC_PASSWORD" >/dev/null 2>"$T/ilo.err" ||
	fail "ilorest login: $(cat "$T/ilo.err")"
assert_eq "$(ilo get --selector ComputerSystem. --json SerialNumber | jq -r .SerialNumber)" "$serial" \
	"ilorest: system serial"
assert_eq "$(ilo get --selector Chassis. --json ChassisType | jq -r '[.[].ChassisType] | sort | join(" ")')" \
	"Enclosure RackMount" "ilorest: both chassis"
assert_eq "$(ilo rawget "$S/Bios" | jq -r .Attributes.BootMode)" Uefi "ilorest: BIOS attribute"
printf '{"%s/Actions/ComputerSystem.Reset": {"ResetType": "GracefulRestart"}}\n' "$S" >"$T/sys-reset.json"
ilo rawpost "$T/sys-reset.json" >/dev/null || fail "ilorest: system reset refused"
assert_eq "$(n_req POST "$S/Actions/ComputerSystem.Reset" 204)" 2 "ilorest's system reset reached the BMC"

# -- the manager reset last: it ends every session, as an iDRAC restarting does.
tok=$(curl -sf -m 10 --cacert "$R/ca.pem" -D - -o /dev/null -H 'Content-Type: application/json' \
	-d "{\"UserName\":\"root\",\"Password\":\"$BRINGUP_BMC_PASSWORD\"}" "https://$B/redfish/v1/SessionService/Sessions" |
	sed -n 's/^X-Auth-Token: *\([^\r]*\).*/\1/ip')
[ -n "$tok" ] || fail "no session token"
rft Managers -1 reset GracefulRestart >/dev/null || fail "redfishtool: manager reset refused"
assert_eq "$(n_req POST "$M/Actions/Manager.Reset" 204)" 1 "the advertised #Manager.Reset target works"
assert_eq "$(curl -s -o /dev/null -w '%{http_code}' --cacert "$R/ca.pem" -H "X-Auth-Token: $tok" "https://$B$S")" 401 \
	"a session from before the manager reset is gone"
