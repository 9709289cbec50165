#!/bin/sh
# Every request body discover and configure send to a BMC, held to DMTF's
# own JSON schemas (tests/check-redfish-bodies.py over the simulator's
# request log, schemas vendored in tests/fixtures/dmtf-json-schema): the
# session login, the BIOS settings PATCH of every family (iDRAC's
# Bios/Settings with @Redfish.SettingsApplyTime, the settings objects of
# iLO, XCC, Supermicro, OpenBMC and AMI), the boot PATCHes (BootOrder on
# the System, the override on the System or on its settings object as
# iDRAC10 has it), ComputerSystem.Reset, and discover's Dell OEM requests
# for Connection View (the SwitchConnectionView.1.Enable attribute PATCH,
# the ServerPortConnectionRefresh action), held to Dell's facts as the
# checker states them. Each kind is seen at least once,
# so the check cannot pass on an empty log; crafted bad bodies are refused.
. "$(dirname "$0")/lib.sh"
cd "$T"
check() { /usr/bin/python3 "$BR_TOP/tests/check-redfish-bodies.py" "$@"; }
profile_of() {
	case $1 in dell) echo xe9680 ;; hpe) echo xl675d ;; lenovo) echo sr675v3 ;;
	supermicro) echo sys-821ge ;; openbmc) echo gh200 ;; ami) echo dgx-h100 ;; esac
}
# Every family, each with BIOS drift (Dell) or its own baseline (the
# others): a PATCH on every node. Two iDRAC10s beside them, whose System
# takes boot changes through its settings object.
bringup sim --no-hosts --nodes 6 --seed 11 --bios-job-ms 200 --vendor mixed --faults bios_drift:6 --dir mixed --daemon >/dev/null
at_exit "stop_sim $T/mixed"
bringup sim --no-hosts --nodes 2 --seed 11 --bios-job-ms 200 --faults boot_settings:1,boot_settings_drift:1 --dir idrac10 --daemon >/dev/null
at_exit "stop_sim $T/idrac10"
assert_eq "$(jq -r '[.nodes[].vendor] | join(",")' mixed/truth.json)" "dell,hpe,lenovo,supermicro,openbmc,ami" "families"

for rack in mixed idrac10; do
	(
		set -a; . "$rack/env"; set +a
		jq -r '.nodes[] | "\(.hostname),\(.vendor)"' "$rack/truth.json" | while IFS=, read -r h v; do
			echo "$h,$(profile_of "$v")"
		done > "$rack.profiles"
		awk -F, -v OFS=, 'NR == FNR { p[$1] = $2; next } FNR > 1 { $7 = p[$1] } { print }' \
			"$rack.profiles" "$rack/rack.csv" > "$rack.csv"
		export BRINGUP_DB=$T/$rack.db
		bringup import --manifest "$rack.csv" >/dev/null
		bringup discover -q --timeout 5 >/dev/null
		rc=0
		bringup configure --json --poll-ms 100 --graceful-timeout 5 --job-timeout 30 > "$rack.json" 2> "$rack.err" || rc=$?
		assert_eq "$rc" 0 "$rack: configure exit code ($(cat "$rack.err"))"
		assert_eq "$(jq -r '[.nodes[].result] | unique | join(",")' "$rack.json")" configured "$rack: results"
		cp "$rack/requests.log" "$rack.log"
		rc=0
		check --json "$rack.log" > "$rack.check" || rc=$?
		[ "$rc" -eq 0 ] || fail "$rack: bodies that break DMTF's schemas: $(jq -c '.violations' "$rack.check")"
	)
done

# Connection View switched on and refreshed by discover: iDRACs whose view
# is disabled (the simulator's default), under a profile that lets
# discover enable it ([boot] connection_view = enable).
bringup sim --no-hosts --nodes 2 --seed 5 --dir connview --daemon >/dev/null
at_exit "stop_sim $T/connview"
(
	set -a; . connview/env; set +a
	cp -r "$BR_TOP/templates" tpl
	export BRINGUP_TEMPLATES=$T/tpl
	cp -r tpl/profiles/xe9680 tpl/profiles/enable
	sed -i 's/^mode = persistent$/mode = persistent\nconnection_view = enable/' tpl/profiles/enable/bios.conf
	grep -q '^connection_view = enable$' tpl/profiles/enable/bios.conf || fail "no connection_view added"
	awk -F, -v OFS=, 'FNR > 1 { $7 = "enable" } { print }' connview/rack.csv > connview.csv
	export BRINGUP_DB=$T/connview.db
	bringup import --manifest connview.csv >/dev/null
	bringup discover -q --timeout 5 >/dev/null
	cp connview/requests.log connview.log
	rc=0
	check --json connview.log > connview.check || rc=$?
	[ "$rc" -eq 0 ] || fail "connview: bodies that break Dell's facts: $(jq -c '.violations' connview.check)"
)

# Nothing passed for want of bodies: each kind was checked.
got() { jq -s --arg k "$1" '[.[].checked[$k] // 0] | add' mixed.check idrac10.check connview.check; }
for kind in "Session create" "Bios PATCH" "ComputerSystem PATCH" "ComputerSystem.Reset" \
	"DellAttributes PATCH (Dell's facts)" "DellSwitchConnectionService.ServerPortConnectionRefresh (Dell's facts)"; do
	[ "$(got "$kind")" -gt 0 ] || fail "no '$kind' body checked: $(jq -c .checked mixed.check idrac10.check)"
done
# Every login, every BIOS PATCH, every reset and every boot PATCH.
posts() { jq -r --arg m "$1" --arg p "$2" 'select(.method == $m and (.path | test($p))) | .path' mixed.log idrac10.log connview.log | grep -c .; }
assert_eq "$(got "Session create")" "$(posts POST 'SessionService/Sessions/?$')" "logins checked"
assert_eq "$(got "Bios PATCH")" "$(posts PATCH '/Bios/')" "BIOS PATCHes checked"
assert_eq "$(got "ComputerSystem.Reset")" "$(posts POST 'ComputerSystem.Reset/?$')" "resets checked"
# Each iDRAC's view enabled once and refreshed once, every such body checked.
assert_eq "$(posts PATCH '/DellAttributes/iDRAC.Embedded.1$')" 2 "Connection View enabled on both iDRACs"
assert_eq "$(got "DellAttributes PATCH (Dell's facts)")" 2 "attribute PATCHes checked"
assert_eq "$(posts POST 'ServerPortConnectionRefresh$')" 2 "Connection View refreshed on both iDRACs"
assert_eq "$(got "DellSwitchConnectionService.ServerPortConnectionRefresh (Dell's facts)")" 2 "refreshes checked"
# One BIOS settings PATCH per family, each to the object its Bios names.
assert_eq "$(jq -r 'select(.method == "PATCH" and (.path | test("/Bios/"))) | .node' mixed.log | sort -u | wc -l)" 6 \
	"nodes of the mixed rack with a BIOS PATCH"
# The iDRAC10's boot order went to the System's settings object.
assert_contains "$(jq -r 'select(.method == "PATCH") | .path' idrac10.log)" "System.Embedded.1/Settings" "settings object PATCHed"
[ "$(jq -s '[.[].annotations["@Redfish.SettingsApplyTime"] // 0] | add' mixed.check idrac10.check)" -gt 0 ] ||
	fail "no @Redfish.SettingsApplyTime checked"
# The login was logged with its password redacted, yet present as a string.
assert_eq "$(jq -s '[.[] | select(.method == "POST" and (.path | test("Sessions")))] |
	length > 0 and all(.body.Password == "<redacted>" and .body.UserName == "root")' mixed.log)" true "login bodies logged, redacted"
set -a; . mixed/env; set +a
grep -q "$BRINGUP_BMC_PASSWORD" mixed.log && fail "the BMC password is in the request log"

# Crafted bad bodies, sent to real targets: each one refused, by name.
dell=$(jq -r 'select(.node == "gpu-r01-u03") | .bmc' mixed.log | head -n 1)
S=/redfish/v1/Systems/System.Embedded.1
line() { jq -nc --arg b "$dell" --arg m "$1" --arg p "$2" --argjson body "$3" \
	'{bmc: $b, node: "gpu-r01-u03", method: $m, path: $p, status: 200, body: $body}'; }
{
	line POST "$S/Actions/ComputerSystem.Reset" '{"ResetType":"Reboot"}'
	line PATCH "$S" '{"Boot":{"BootSourceOverrideTarget":"Pxe"},"PowerState":"On"}'
	line PATCH "$S" '{"Boot":{"BootOrder":"NIC.PxeDevice.1-1"}}'
	line PATCH "$S" '{"Boot":{"BootSourceOverideTarget":"Pxe"}}'
	line PATCH "$S/Bios/Settings" '{"Attributes":{"ProcCStates":["Disabled"]}}'
	line PATCH "$S/Bios/Settings" '{"Attributes":{"ProcCStates":"Disabled"},"@Redfish.SettingsApplyTime":{"ApplyTime":"Now"}}'
	line POST /redfish/v1/SessionService/Sessions '{"UserName":"root"}'
	line POST /redfish/v1/SessionService/Sessions '{"UserName":"root","Password":0}'
	line POST "$S/Actions/ComputerSystem.Reset" '{"ResetType":"ForceRestart","Delay":5}'
	line PATCH "$S" '{"Links":{"Chassis":[{"Name":"x"}]}}'
	line PATCH "$S" '{"Boot":{"BootSourceOverrideTarget":"Pxe"},"@Redfish.Foo":1}'
} > bad.log
# Dell's job creation, which no simulated iDRAC asks for (it makes the job
# itself from the PATCH's apply time): held to the facts of Dell's schema.
J=/redfish/v1/Managers/iDRAC.Embedded.1/Jobs
line POST "$J" '{"TargetSettingsURI":"/redfish/v1/Systems/System.Embedded.1/Bios/Settings"}' > job.log
check --json job.log > job.check
assert_eq "$(jq -c .checked job.check)" '{"DellJob create (Dell'"'"'s facts)":1}' "a Dell job body checked"
{
	line POST "$J" '{}'
	line POST "$J" '{"TargetSettingsURI":5,"JobState":"Scheduled"}'
} > badjob.log
rc=0
check --json badjob.log > badjob.check || rc=$?
assert_eq "$rc" 1 "checker exit code on bad Dell job bodies"
assert_eq "$(jq -r '[.violations[].message] | sort | join("; ")' badjob.check)" \
	"(body): 'TargetSettingsURI' is a required property; (body): Additional properties are not allowed ('JobState' was unexpected); TargetSettingsURI: 5 is not of type 'string'" \
	"bad Dell job bodies"
# Dell's Connection View requests, crafted bad: each refused, by name.
A=/redfish/v1/Managers/iDRAC.Embedded.1/Oem/Dell/DellAttributes/iDRAC.Embedded.1
R=$S/Oem/Dell/DellSwitchConnectionService/Actions/DellSwitchConnectionService.ServerPortConnectionRefresh
{
	line POST "$R" '{"Ports":["NIC.Embedded.1-1-1"]}'
	line PATCH "$A" '{"Attributes":{"SwitchConnectionView.1.Enable":"On"}}'
	line PATCH "$A" '{"SwitchConnectionView.1.Enable":"Enabled"}'
	line PATCH "$A" '{"Attributes":{"SwitchConnectionViewEnable":"Enabled"}}'
	line PATCH "$A" '{"Attributes":{"NIC.1.SwitchConnection":["c4:4d:4:48:61:80"]}}'
} > baddell.log
rc=0
check --json baddell.log > baddell.check || rc=$?
assert_eq "$rc" 1 "checker exit code on bad Dell Connection View bodies"
assert_eq "$(jq '[.violations[].line] | unique | length' baddell.check)" 5 "bad Dell bodies refused ($(jq -c .violations baddell.check))"
whyd() { jq -r --argjson l "$1" '[.violations[] | select(.line == $l) | "\(.kind): \(.message)"] | join("; ")' baddell.check; }
assert_contains "$(whyd 1)" "ServerPortConnectionRefresh (Dell's facts): (body): 'Ports' does not match any of the regexes" \
	"a parameter the refresh does not take"
assert_contains "$(whyd 2)" "Attributes/SwitchConnectionView.1.Enable: 'On' is not one of ['Enabled', 'Disabled']" "a value Dell does not list"
assert_contains "$(whyd 3)" "'Attributes' is a required property" "an attribute outside Attributes"
assert_contains "$(whyd 4)" "'SwitchConnectionViewEnable' does not match any of the regexes" "an attribute name not Group.Index.Name"
assert_contains "$(whyd 5)" "Attributes/NIC.1.SwitchConnection: ['c4:4d:4:48:61:80'] is not of type" "an attribute of no registry type"

# A body that is not JSON is logged by its length alone (and refused).
curl -s -o /dev/null -X POST --data 'UserName=root&Password=x' "http://$dell/redfish/v1/SessionService/Sessions"
sleep 0.3
tail -n 1 mixed/requests.log > form.log
assert_eq "$(jq -c '[.method, .body_len, has("body")]' form.log)" '["POST",24,false]' "a form body logged by its length"
cat form.log >> bad.log
n=$(wc -l < bad.log)
rc=0
check --json bad.log > bad.check || rc=$?
assert_eq "$rc" 1 "checker exit code on bad bodies"
assert_eq "$(jq '[.violations[].line] | unique | length' bad.check)" "$n" "bad bodies refused ($(jq -c .violations bad.check))"
why() { jq -r --argjson l "$1" '[.violations[] | select(.line == $l) | .message] | join("; ")' bad.check; }
assert_contains "$(why 1)" "'Reboot' is not one of" "bad ResetType"
assert_contains "$(why 2)" "PowerState: is read-only" "read-only property"
assert_contains "$(why 3)" "Boot/BootOrder: 'NIC.PxeDevice.1-1' is not of type 'array'" "wrong type"
assert_contains "$(why 4)" "'BootSourceOverideTarget' does not match any of the regexes" "unknown property"
assert_contains "$(why 5)" "Attributes/ProcCStates: ['Disabled'] is not of type" "BIOS attribute type"
assert_contains "$(why 6)" "@Redfish.SettingsApplyTime: ApplyTime: 'Now' is not one of" "bad ApplyTime"
assert_contains "$(why 7)" "'Password' is a required property" "login without a password"
assert_contains "$(why 8)" "Password: 0 is not of type" "password of the wrong type"
assert_contains "$(why 9)" "'Delay' does not match any of the regexes" "unknown action parameter"
assert_contains "$(why 10)" "which is not vendored in tests/fixtures/dmtf-json-schema" "a schema not vendored is named, not fetched"
assert_contains "$(why 11)" "@Redfish.Foo: not a term of DMTF's" "an annotation DMTF does not define"
assert_contains "$(why 12)" "the body is not JSON (24 bytes)" "a body that is not JSON"
