#!/bin/sh
# A system that acknowledges GracefulRestart and never performs it (a hung
# OS): configure escalates to ForceRestart after --graceful-timeout, the job
# runs, and the node ends on the baseline.
. "$(dirname "$0")/lib.sh"
cd "$T"
bringup sim --no-hosts --nodes 2 --seed 4 --faults graceful_ignored --dir rack --daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
export BRINGUP_DB=$T/inv.db
bringup import --manifest rack/rack.csv >/dev/null
bringup discover -q >/dev/null
h=$(jq -r '.nodes[] | select(.faults | index("graceful_ignored")) | .hostname' rack/truth.json)
b=$(jq -r --arg h "$h" '.nodes[] | select(.hostname == $h) | .bmc' rack/truth.json)
: > rack/requests.log
bringup configure --json --poll-ms 100 --graceful-timeout 1 --job-timeout 20 > run.json || true
assert_eq "$(bringup status --json "$h" | jq -r '.nodes[0].state')" configured "state after a forced restart"
cp rack/requests.log run.log
resets=$(jq -c --arg n "$h" 'select(.node == $n and .method == "POST" and (.path | endswith("ComputerSystem.Reset"))) | .fault // "none"' run.log | tr '\n' ' ')
assert_eq "$resets" '"graceful_ignored" "none" ' "a graceful restart that was ignored, then one more (forced)"
curl -sf -u "root:$BRINGUP_BMC_PASSWORD" "http://$b/redfish/v1/Systems/System.Embedded.1/Bios" > bios.json
sed -n '/^\[bios\]/,/^\[/p' "$BR_TOP/templates/profiles/xe9680/bios.conf" |
	sed -n 's/^\([A-Za-z0-9_]*\) *= *\(.*\)$/\1 \2/p' > baseline.txt
[ "$(wc -l < baseline.txt)" -ge 8 ] || fail "baseline has its attributes"
while read -r k v; do
	assert_eq "$(jq -r ".Attributes.$k" bios.json)" "$v" "$k read back"
done < baseline.txt
# The healthy node was not touched.
other=$(jq -r --arg h "$h" '.nodes[] | select(.hostname != $h) | .hostname' rack/truth.json)
assert_eq "$(jq -r --arg n "$other" 'select(.node == $n and .method != "GET" and (.session // "") == "") | .path' run.log | wc -l)" 0 "healthy node untouched"
