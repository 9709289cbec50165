#!/bin/sh
# A rack larger than the overall in-flight cap can serve at once: BMCs are
# started in order, twice the cap's worth of BMCs at a time (--max-inflight
# 4 at --per-bmc 4: two BMCs), and each BMC's deadline runs from its own
# first request. Started all together, twelve BMCs sharing four request
# slots each took the whole run's ~5 s, and a 4 s deadline failed every one
# of them (10,000 BMCs behind a cap of 2,048 did the same at the 600 s
# default: none discovered).
. "$(dirname "$0")/lib.sh"
cd "$T"
bringup sim --no-hosts --nodes 12 --seed 3 --latency-ms 25 --dir rack --daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
bringup import --db inv.db --manifest rack/rack.csv >/dev/null
rc=0
bringup discover --db inv.db --max-inflight 4 --per-bmc 4 --workers 1 --bmc-deadline 4 --json > out.json 2> err.txt ||
	rc=$?
assert_eq "$rc" 0 "discover exit code ($(head -c 300 err.txt))"
assert_eq "$(jq .discovered out.json)" 12 "BMCs discovered within their own deadlines"
# From the simulator's log: each BMC's first and last request; at no
# moment were more than two BMCs at work. The simulator stamps a request's
# end after writing its answer, so on a loaded machine the next BMC's first
# request can be stamped a little before the last answer it waited for:
# overlaps under 150 ms are that (a third BMC truly at work would overlap
# for most of a BMC's ~0.5 s).
jq -rs 'group_by(.node) | map({s: (map(.start_ms) | min), e: (map(.end_ms) | max)}) |
	[.[] as $a | [.[] | select(.s <= $a.s and .e > $a.s + 150)] | length] | max' rack/requests.log > overlap
assert_eq "$(cat overlap)" 2 "most BMCs at work at once"
# In order: the manifest's first BMC started first, its last one last.
first=$(jq -rs 'sort_by(.start_ms) | .[0].node' rack/requests.log)
last=$(jq -rs 'group_by(.node) | map({n: .[0].node, s: (map(.start_ms) | min)}) | sort_by(.s) | .[-1].n' rack/requests.log)
assert_eq "$first" "$(sed -n 2p rack/rack.csv | cut -d, -f1)" "the first BMC started"
assert_eq "$last" "$(tail -n 1 rack/rack.csv | cut -d, -f1)" "the last BMC started"
echo "12 BMCs through 4 request slots: two at a time, each within its 4 s deadline"
