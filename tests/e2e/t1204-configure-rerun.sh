#!/bin/sh
# configure stopped between a system's reset and its BIOS job's end, then
# run again: the rerun finds the earlier run's job and waits for it. No
# second BIOS PATCH, no second job, no reset of a system whose job is
# running (a reset would cut into its POST). Job polls are outside the
# per-BMC request cap (RF_REQUESTS_MAX, 2000): the slow job is polled every
# 2 ms, hundreds of times, and only time bounds that.
. "$(dirname "$0")/lib.sh"
cd "$T"
bringup sim --no-hosts --nodes 2 --seed 9 --faults slow_job:1,graceful_ignored:1 --dir rack --daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
export BRINGUP_DB=$T/inv.db
bringup import --manifest rack/rack.csv >/dev/null
bringup discover -q >/dev/null
slow=$(jq -r '.nodes[] | select(.faults | index("slow_job")) | .hostname' rack/truth.json)
hung=$(jq -r '.nodes[] | select(.faults | index("graceful_ignored")) | .hostname' rack/truth.json)

count() { # node, jq condition on a log line
	jq -s --arg n "$1" "[.[] | select(.node == \$n and ($2))] | length" rack/requests.log
}
PATCHES='.method == "PATCH" and (.path | endswith("Bios/Settings"))'
RESETS='.method == "POST" and (.path | endswith("ComputerSystem.Reset"))'
JOBPOSTS='.method == "POST" and (.path | endswith("/Jobs"))'

: > rack/requests.log
bringup configure --poll-ms 200 --graceful-timeout 60 > /dev/null 2> first.err &
pid=$!
i=0
while { [ "$(count "$slow" "$RESETS")" -lt 1 ] || [ "$(count "$hung" "$RESETS")" -lt 1 ]; } && [ $i -lt 100 ]; do
	sleep 0.1; i=$((i + 1))
done
kill -TERM $pid # the slow job runs (10 s) from its reset; the hung system's stays Scheduled
rc=0; wait $pid || rc=$?
assert_eq "$rc" 143 "first configure stopped by SIGTERM"
assert_eq "$(count "$slow" "$PATCHES")" 1 "the first run PATCHed the slow node"

cp rack/requests.log first.log
: > rack/requests.log
bringup configure -v --json --poll-ms 2 --graceful-timeout 1 > rerun.json 2> rerun.err || fail "rerun: $(cat rerun.err)"
for h in "$slow" "$hung"; do
	assert_eq "$(bringup status --json "$h" | jq -r '.nodes[0].state')" configured "$h configured by the rerun"
	assert_eq "$(count "$h" "$PATCHES")" 0 "$h: no second BIOS PATCH"
	assert_eq "$(count "$h" "$JOBPOSTS")" 0 "$h: no second job"
done
assert_eq "$(count "$slow" "$RESETS")" 0 "no reset while the slow node's job runs"
assert_contains "$(cat rerun.err)" "of an earlier run is running: waiting for it" "the running job found"
assert_contains "$(cat rerun.err)" "of an earlier run is scheduled: waiting for it" "the scheduled job found"
polls=$(count "$slow" '.method == "GET" and (.path | contains("/Jobs/JID_"))')
[ "$polls" -gt 500 ] || fail "only $polls job polls: the test wants many"
b=$(jq -r --arg h "$slow" '.nodes[] | select(.hostname == $h) | .bmc' rack/truth.json)
assert_eq "$(curl -sf -u "root:$BRINGUP_BMC_PASSWORD" "http://$b/redfish/v1/Managers/iDRAC.Embedded.1/Jobs" |
	jq '.Members | length')" 1 "one job on the slow node's BMC"
