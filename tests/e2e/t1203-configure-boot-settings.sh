#!/bin/sh
# A System that takes boot order changes only through its own settings
# object (@Redfish.Settings on the System, as iDRAC10 does), pending until
# the next boot. configure PATCHes the settings object, never the System;
# a node with only the boot order wrong gets one reset and is verified from
# the System once it shows PXE first; a node with BIOS drift too has its
# boot order PATCHed before the BIOS job, so that job's single reset
# applies both. A re-run changes nothing.
. "$(dirname "$0")/lib.sh"
cd "$T"
bringup sim --no-hosts --nodes 4 --seed 11 --faults boot_settings:1,boot_settings_drift:1 --dir rack --daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
export BRINGUP_DB=$T/inv.db
bringup import --manifest rack/rack.csv >/dev/null
bringup discover -q >/dev/null
host_with() { jq -r --arg f "$1" '.nodes[] | select(.faults | index($f)) | .hostname' rack/truth.json; }
bmc_of() { jq -r --arg h "$1" '.nodes[] | select(.hostname == $h) | .bmc' rack/truth.json; }
boot=$(host_with boot_settings)
both=$(host_with boot_settings_drift)
[ -n "$boot" ] && [ -n "$both" ] && [ "$boot" != "$both" ] || fail "two distinct faulty nodes: '$boot' '$both'"
get() { curl -sf -u "root:$BRINGUP_BMC_PASSWORD" "http://$1/redfish/v1/Systems/System.Embedded.1$2"; }
assert_eq "$(get "$(bmc_of "$boot")" "" | jq -r '.Boot.BootOrder[0]')" "Disk.Direct.0-0:BOSS.SL.14-1" "disk first before"
# The System itself refuses a boot order PATCH on these nodes.
code=$(curl -s -o /dev/null -w '%{http_code}' -u "root:$BRINGUP_BMC_PASSWORD" -X PATCH -H 'Content-Type: application/json' \
	-d '{"Boot":{"BootOrder":["NIC.PxeDevice.1-1","Disk.Direct.0-0:BOSS.SL.14-1","Disk.Bay.0:Enclosure.Internal.0-1"]}}' \
	"http://$(bmc_of "$boot")/redfish/v1/Systems/System.Embedded.1")
assert_eq "$code" 400 "PATCH of the System's boot order refused"

: > rack/requests.log
rc=0
bringup configure --json --poll-ms 100 --graceful-timeout 5 --job-timeout 30 > run.json 2> run.err || rc=$?
assert_eq "$rc" 0 "configure exit code ($(cat run.err))"
cp rack/requests.log run.log
for h in "$boot" "$both"; do
	assert_eq "$(bringup status --json "$h" | jq -r '.nodes[0].state')" configured "$h state"
	assert_eq "$(get "$(bmc_of "$h")" "" | jq -r '.Boot.BootOrder[0]')" "NIC.PxeDevice.1-1" "$h PXE first after"
	n() { jq -r --arg n "$h" --arg m "$1" --arg p "$2" \
		'select(.node == $n and .method == $m and (.path | endswith($p))) | .path' run.log | wc -l; }
	assert_eq "$(n PATCH /Systems/System.Embedded.1/Settings)" 1 "$h: one PATCH of the System's settings"
	assert_eq "$(n PATCH /Systems/System.Embedded.1)" 0 "$h: no PATCH of the System"
	assert_eq "$(n POST /Actions/ComputerSystem.Reset)" 1 "$h: exactly one reset"
done
# On the node with BIOS drift the boot PATCH went before the BIOS PATCH.
order=$(jq -r --arg n "$both" 'select(.node == $n and .method == "PATCH") | .path' run.log | tr '\n' ' ')
assert_eq "$order" "/redfish/v1/Systems/System.Embedded.1/Settings /redfish/v1/Systems/System.Embedded.1/Bios/Settings " \
	"boot order pending before the BIOS job"
attrs=$(jq -r --arg h "$both" '.nodes[] | select(.hostname == $h) | .fault_details.boot_settings_drift.attributes | keys[]' rack/truth.json)
[ -n "$attrs" ] || fail "truth lists the drifted attributes"
for k in $attrs; do
	want=$(sed -n "s/^$k *= *//p" "$BR_TOP/templates/profiles/xe9680/bios.conf")
	assert_eq "$(get "$(bmc_of "$both")" /Bios | jq -r ".Attributes.$k")" "$want" "$both $k back on baseline"
done
# Healthy nodes: no writes at all.
for h in $(jq -r '.nodes[] | select(.faults | length == 0) | .hostname' rack/truth.json); do
	assert_eq "$(jq -r --arg n "$h" 'select(.node == $n and .method != "GET" and (.session // "") == "") | .path' run.log | wc -l)" 0 \
		"$h untouched"
done

# A second run: nothing to do, no writes.
: > rack/requests.log
bringup configure --json --poll-ms 100 "$boot" "$both" > again.json
assert_eq "$(jq -r 'select(.method != "GET" and (.session // "") == "") | .path' rack/requests.log | wc -l)" 0 "re-run writes nothing"
