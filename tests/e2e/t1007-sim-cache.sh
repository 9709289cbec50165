#!/bin/sh
# bringup-sim keeps rendered GET answers per node: a second GET answers
# byte for byte what the first did (body, status, headers, ETag, request
# log line), and any change to the node (a PATCH, a reset, a config job
# ending in simulated time) shows at once with a new ETag, so no stale copy
# is ever served. Answers a test-only fault altered are rendered every time.
. "$(dirname "$0")/lib.sh"

R=$T/rack
bringup-sim --no-hosts --nodes 2 --seed 5 --dir "$R" --daemon --faults bad_json --bios-job-ms 5000 >/dev/null
at_exit "stop_sim $R"
. "$R/env"
A="-u root:$BRINGUP_BMC_PASSWORD"
H='Content-Type: application/json'
S=/redfish/v1/Systems/System.Embedded.1
JOBS=/redfish/v1/Managers/iDRAC.Embedded.1/Jobs
B=http://$(jq -r '.nodes[] | select(.faults | length == 0) | .bmc' "$R/truth.json")
BAD=http://$(jq -r '.nodes[] | select(.faults | index("bad_json")) | .bmc' "$R/truth.json")

# GET $1 into $T/$2.body and $2.hdr (headers less Date, CRs dropped).
fetch() {
	curl -sf -g $A -D "$T/$2.raw" -o "$T/$2.body" "$B$1" || fail "GET $1"
	tr -d '\r' <"$T/$2.raw" | grep -iv '^Date:' >"$T/$2.hdr"
}
etag_of() { sed -n 's/^ETag: *//ip' "$T/$1.hdr"; }

# ---- a hit is the render it stands for ------------------------------------------
n=0
for p in /redfish/v1 "$S" "$S/Bios" "$S/Bios/Settings" "/redfish/v1/Systems?\$expand=.(\$levels=1)" \
	"/redfish/v1/UpdateService/FirmwareInventory?\$expand=.(\$levels=1)" \
	"/redfish/v1/UpdateService/FirmwareInventory?\$skip=50&\$expand=.(\$levels=1)"; do
	n=$((n + 1))
	fetch "$p" "a$n"
	fetch "$p" "b$n"
	cmp -s "$T/a$n.body" "$T/b$n.body" || fail "$p: second body differs from the first"
	cmp -s "$T/a$n.hdr" "$T/b$n.hdr" || fail "$p: second headers differ: $(diff "$T/a$n.hdr" "$T/b$n.hdr")"
	for h in 'HTTP/1.1 200' 'Content-Type: application/json;odata.metadata=minimal;charset=utf-8' \
		'OData-Version: 4.0' 'Cache-Control: no-cache' 'Server: Apache' 'ETag: "'; do
		grep -q "^$h" "$T/b$n.hdr" || fail "$p: a second GET lacks '$h'"
	done
	jq -e . "$T/b$n.body" >/dev/null || fail "$p: body is not JSON"
done
# The query is part of what is kept: the two pages stay two pages.
cmp -s "$T/b6.body" "$T/b7.body" && fail "FirmwareInventory pages answered alike"
assert_eq "$(jq -r '."@odata.etag"' "$T/b2.body")" "$(etag_of b2)" "System @odata.etag = ETag header"
# HEAD answers as GET does, minus the body.
curl -sf -I $A "$B$S" | tr -d '\r' | grep -iv '^Date:' >"$T/head.hdr"
assert_eq "$(grep -i '^ETag:' "$T/head.hdr")" "$(grep -i '^ETag:' "$T/b2.hdr")" "HEAD ETag"

# ---- a PATCH shows at once -----------------------------------------------------------
settings_etag=$(etag_of b4)
code=$(curl -s -o /dev/null -w '%{http_code}' -X PATCH $A -H "$H" -H "If-Match: $settings_etag" \
	-d '{"Attributes":{"ProcTurboMode":"Disabled"}}' "$B$S/Bios/Settings")
assert_eq "$code" 200 "PATCH Bios/Settings with the current ETag"
fetch "$S/Bios/Settings" settings
assert_eq "$(jq -c .Attributes "$T/settings.body")" '{"ProcTurboMode":"Disabled"}' "pending attribute shown"
[ "$(etag_of settings)" != "$settings_etag" ] || fail "Bios/Settings ETag unchanged after the PATCH"
assert_eq "$(jq -r '."@odata.etag"' "$T/settings.body")" "$(etag_of settings)" "Settings @odata.etag = ETag header"

code=$(curl -s -o /dev/null -w '%{http_code}' -X PATCH $A -H "$H" \
	-d '{"Boot":{"BootSourceOverrideTarget":"Pxe","BootSourceOverrideEnabled":"Once"}}' "$B$S")
assert_eq "$code" 200 "boot override"
fetch "$S" sys_boot
assert_eq "$(jq -r '"\(.Boot.BootSourceOverrideTarget) \(.Boot.BootSourceOverrideEnabled)"' "$T/sys_boot.body")" \
	"Pxe Once" "boot override shown"
[ "$(etag_of sys_boot)" != "$(etag_of b2)" ] || fail "System ETag unchanged after the boot PATCH"

# ---- a reset shows at once, in the System and in the expanded collection -----------------
code=$(curl -s -o /dev/null -w '%{http_code}' -X POST $A -H "$H" -d '{"ResetType":"ForceOff"}' \
	"$B$S/Actions/ComputerSystem.Reset")
assert_eq "$code" 204 "ForceOff"
fetch "$S" sys_off
assert_eq "$(jq -r .PowerState "$T/sys_off.body")" Off "PowerState after ForceOff"
[ "$(etag_of sys_off)" != "$(etag_of sys_boot)" ] || fail "System ETag unchanged after ForceOff"
fetch "/redfish/v1/Systems?\$expand=.(\$levels=1)" systems_off
assert_eq "$(jq -r '.Members[0].PowerState' "$T/systems_off.body")" Off "expanded System after ForceOff"

# ---- a config job ending in simulated time shows too -----------------------------------
code=$(curl -s -D "$T/job.hdr" -o /dev/null -w '%{http_code}' -X POST $A -H "$H" \
	-d "{\"TargetSettingsURI\":\"$S/Bios/Settings\"}" "$B$JOBS")
assert_eq "$code" 200 "job created"
job=$(sed -n 's/^Location: *\([^\r]*\).*/\1/ip' "$T/job.hdr")
code=$(curl -s -o /dev/null -w '%{http_code}' -X POST $A -H "$H" -d '{"ResetType":"On"}' \
	"$B$S/Actions/ComputerSystem.Reset")
assert_eq "$code" 204 "On"
fetch "$S" sys_on
assert_eq "$(jq -r '"\(.PowerState) \(.Boot.BootSourceOverrideEnabled)"' "$T/sys_on.body")" "On Disabled" \
	"powered on, the one-time override used"
# Read Bios while the job runs, so a copy of the old attributes is kept.
fetch "$S/Bios" bios_running
fetch "$S/Bios" bios_running
assert_eq "$(jq -r .Attributes.ProcTurboMode "$T/bios_running.body")" Enabled "not applied while the job runs"
i=0
until [ "$(curl -sf $A "$B$job" | jq -r .JobState)" = Completed ]; do
	i=$((i + 1)); [ $i -lt 150 ] || fail "job never completed"; sleep 0.1
done
fetch "$S/Bios" bios_done
assert_eq "$(jq -r .Attributes.ProcTurboMode "$T/bios_done.body")" Disabled "applied once the job completed"
[ "$(etag_of bios_done)" != "$(etag_of bios_running)" ] || fail "Bios ETag unchanged after the job"
fetch "$S/Bios/Settings" settings_done
assert_eq "$(jq -c .Attributes "$T/settings_done.body")" "{}" "nothing pending after the job"

# ---- sessions are never kept: logins leave the other answers alone but show themselves ----
SESSIONS=/redfish/v1/SessionService/Sessions
fetch "$SESSIONS" sessions0
fetch "$SESSIONS" sessions0
code=$(curl -s -D "$T/login.hdr" -o /dev/null -w '%{http_code}' -H "$H" \
	-d "{\"UserName\":\"root\",\"Password\":\"$BRINGUP_BMC_PASSWORD\"}" "$B$SESSIONS")
assert_eq "$code" 201 "login"
fetch "$SESSIONS" sessions1
assert_eq "$(jq '."Members@odata.count"' "$T/sessions1.body")" \
	"$(( $(jq '."Members@odata.count"' "$T/sessions0.body") + 1 ))" "the new session listed"
fetch "$S/Bios" bios_after_login
cmp -s "$T/bios_after_login.body" "$T/bios_done.body" || fail "Bios changed with a login"

# ---- test-only faults: altered answers are never kept -----------------------------------
for i in 1 2; do
	curl -sf $A "$BAD$S" >"$T/bad$i" || fail "bad_json: no answer"
	jq . "$T/bad$i" >/dev/null 2>&1 && fail "bad_json: GET $i of the System parses"
done

# ---- the request log cannot tell a hit from a miss ----------------------------------------
sleep 0.3
L=$R/requests.log
bmc=${B#http://}
for p in "$S/Bios" "/redfish/v1/UpdateService/FirmwareInventory?\$skip=50&\$expand=.(\$levels=1)"; do
	lines=$(jq -c "select(.bmc == \"$bmc\" and .path == \"$p\") | del(.start_ms, .end_ms, .inflight)" "$L" |
		sort -u)
	assert_eq "$(echo "$lines" | wc -l)" 1 "$p: log lines alike"
done
assert_eq "$(jq -r "select(.bmc == \"${BAD#http://}\" and .path == \"$S\") | .fault" "$L")" \
	"$(printf 'bad_json\nbad_json')" "bad_json logged on both GETs"

pid=$(cat "$R/sim.pid")
kill "$pid"
i=0
while kill -0 "$pid" 2>/dev/null; do
	i=$((i + 1)); [ $i -lt 50 ] || fail "simulator did not stop on SIGTERM"; sleep 0.1
done
grep -q Sanitizer "$R/sim.log" && fail "sanitizer report: $(cat "$R/sim.log")"
exit 0
