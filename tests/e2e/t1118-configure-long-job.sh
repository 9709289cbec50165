#!/bin/sh
# A BIOS config job that needs more polls than the per-BMC request cap
# (RF_REQUESTS_MAX, 2000) allows requests: the simulated job stays Running
# until it has been read 2200 times (--bios-job-polls), polled every 1 ms.
# Configure must still converge: polls are bounded by the job timeout and
# the BMC's deadline, never by the request cap (issue 13, finding 6: a
# short --poll-ms failed long jobs with "more than 2000 requests needed").
. "$(dirname "$0")/lib.sh"
cd "$T"
polls=2200
bringup-sim --no-hosts --nodes 1 --seed 4 --faults bios_drift --bios-job-ms 0 --bios-job-polls $polls \
	--dir sim --daemon >/dev/null
at_exit "stop_sim $T/sim"
set -a; . ./sim/env; set +a
export BRINGUP_DB=$T/inv.db
bringup import --manifest sim/rack.csv >/dev/null
bringup discover -q || fail "discover"
: > sim/requests.log

rc=0
bringup configure --poll-ms 1 --json >c.json 2>err.txt || rc=$?
h=$(jq -r '.nodes[0].hostname' sim/truth.json)
reason=$(sqlite3 inv.db "select reason from nodes where hostname = '$h'")
assert_eq "$rc" 0 "configure exit code ($reason)"
assert_eq "$(sqlite3 inv.db "select state from nodes where hostname = '$h'")" configured "state of $h ($reason)"
assert_contains "$reason" "applied by job" "reason of $h"
got=$(jq -r 'select(.method == "GET" and (.path | test("/Jobs/JID_"))) | .path' sim/requests.log | wc -l)
[ "$got" -gt $polls ] || fail "only $got job polls: the job cannot have needed $polls"
others=$(jq -r 'select((.path | test("/Jobs/JID_")) | not) | .path' sim/requests.log | wc -l)
[ "$((got + others))" -gt 2000 ] || fail "only $((got + others)) requests in all: the cap was never in reach"
echo "configure converged after $got job polls ($others other requests)"
