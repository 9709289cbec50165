#!/bin/sh
# bringup-sim as a configure stage sees it: BIOS attributes PATCHed into
# Bios/Settings (If-Match checked and logged), a config job, applied at the
# next reset; the boot override PATCHed on the System.
. "$(dirname "$0")/lib.sh"

R=$T/rack
bringup-sim --no-hosts --nodes 2 --seed 4 --dir "$R" --daemon --faults bios_drift --bios-job-ms 5000 >/dev/null
at_exit "stop_sim $R"
. "$R/env"
A="-u root:$BRINGUP_BMC_PASSWORD"
S=/redfish/v1/Systems/System.Embedded.1
b=$(jq -r '.nodes[] | select(.faults | index("bios_drift")) | .bmc' "$R/truth.json")
B=http://$b
H='Content-Type: application/json'

attrs=$(jq -c '.nodes[] | select(.faults | index("bios_drift")) | .fault_details.bios_drift.attributes' "$R/truth.json")
first=$(echo "$attrs" | jq -r 'keys[0]')
baseline=$(curl -sf $A "$(jq -r '.nodes[] | select(.faults | length == 0) | "http://\(.bmc)"' "$R/truth.json")$S/Bios" |
	jq -c ".Attributes | {$first}")

# A stale ETag is refused; the current one is accepted.
code=$(curl -s -o "$T/body" -w '%{http_code}' -X PATCH $A -H "$H" -H 'If-Match: "0000000000000000"' \
	-d "{\"Attributes\":$baseline}" "$B$S/Bios/Settings")
assert_eq "$code" 412 "stale If-Match"
assert_contains "$(jq -r '.error."@Message.ExtendedInfo"[0].MessageId' "$T/body")" PreconditionFailed "412 MessageId"
etag=$(curl -sf -D - -o /dev/null $A "$B$S/Bios/Settings" | sed -n 's/^ETag: *\([^\r]*\).*/\1/ip')
code=$(curl -s -o /dev/null -w '%{http_code}' -X PATCH $A -H "$H" -H "If-Match: $etag" \
	-d "{\"Attributes\":$baseline}" "$B$S/Bios/Settings")
assert_eq "$code" 200 "PATCH with the current ETag"
assert_eq "$(curl -sf $A "$B$S/Bios/Settings" | jq -c '.Attributes')" "$baseline" "pending settings"
assert_eq "$(curl -sf $A "$B$S/Bios" | jq -r ".Attributes.$first")" "$(echo "$attrs" | jq -r ".$first")" \
	"not applied before a job and a reset"

# Unknown attributes are refused.
code=$(curl -s -o "$T/body" -w '%{http_code}' -X PATCH $A -H "$H" -d '{"Attributes":{"NoSuchAttr":"x"}}' "$B$S/Bios/Settings")
assert_eq "$code" 400 "unknown attribute"

# A config job, then a reset, applies the settings.
code=$(curl -s -D "$T/hdr" -o /dev/null -w '%{http_code}' -X POST $A -H "$H" \
	-d "{\"TargetSettingsURI\":\"$S/Bios/Settings\"}" "$B/redfish/v1/Managers/iDRAC.Embedded.1/Jobs")
assert_eq "$code" 200 "job created"
job=$(sed -n 's/^Location: *\([^\r]*\).*/\1/ip' "$T/hdr")
assert_eq "$(curl -sf $A "$B$job" | jq -r .JobState)" Scheduled "job scheduled"
code=$(curl -s -o /dev/null -w '%{http_code}' -X POST $A -H "$H" -d '{"ResetType":"ForceRestart"}' \
	"$B$S/Actions/ComputerSystem.Reset")
assert_eq "$code" 204 "reset"
# The job runs during POST: Running, and nothing applied yet, then Completed.
assert_eq "$(curl -sf $A "$B$job" | jq -r .JobState)" Running "job running after the reset"
assert_eq "$(curl -sf $A "$B$S/Bios" | jq -r ".Attributes.$first")" "$(echo "$attrs" | jq -r ".$first")" \
	"not applied while the job runs"
i=0
until [ "$(curl -sf $A "$B$job" | jq -r .JobState)" = Completed ]; do
	i=$((i + 1)); [ $i -lt 150 ] || fail "job never completed"; sleep 0.1
done
assert_eq "$(curl -sf $A "$B$S/Bios" | jq -c ".Attributes | {$first}")" "$baseline" "applied after the reset"
assert_eq "$(curl -sf $A "$B$S/Bios/Settings" | jq -c '.Attributes')" "{}" "nothing pending"

# Boot override: PXE once.
code=$(curl -s -o /dev/null -w '%{http_code}' -X PATCH $A -H "$H" \
	-d '{"Boot":{"BootSourceOverrideTarget":"Pxe","BootSourceOverrideEnabled":"Once"}}' "$B$S")
assert_eq "$code" 200 "boot override"
assert_eq "$(curl -sf $A "$B$S" | jq -r '"\(.Boot.BootSourceOverrideTarget) \(.Boot.BootSourceOverrideEnabled)"')" \
	"Pxe Once" "boot override shown"
code=$(curl -s -o /dev/null -w '%{http_code}' -X PATCH $A -H "$H" -d '{"Boot":{"BootSourceOverrideTarget":"Floppy"}}' "$B$S")
assert_eq "$code" 400 "unknown boot target"

sleep 0.3
assert_eq "$(jq -r 'select(.method == "PATCH" and .status == 200 and .if_match != null) | .if_match' "$R/requests.log")" \
	"$etag" "If-Match logged"
assert_eq "$(jq -r 'select(.method == "PATCH" and .status == 412) | .if_match' "$R/requests.log")" \
	'"0000000000000000"' "stale If-Match logged"
exit 0
