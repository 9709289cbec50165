#!/bin/sh
# A BMC serving a megabyte serial number takes down nothing: the string is
# cut at the named cap where it enters (valid UTF-8, marked as cut), the
# node is discovered, the discovery worker that read it goes on with its
# other nodes, and every session is deleted. The worker's result line to
# the parent stays under its cap, and no reason or event holds a megabyte.
. "$(dirname "$0")/lib.sh"
cd "$T"
bringup sim --no-hosts --nodes 6 --seed 4 --faults huge_serial --dir rack --daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
export BRINGUP_DB=$T/inv.db
bringup import --manifest rack/rack.csv >/dev/null
truth=rack/truth.json
huge=$(jq -r '.nodes[] | select(.faults | index("huge_serial")) | .hostname' $truth)
bmc=$(jq -r '.nodes[] | select(.faults | index("huge_serial")) | .bmc' $truth)
[ "$(curl -sf -u "root:$BRINGUP_BMC_PASSWORD" "http://$bmc/redfish/v1/Systems/System.Embedded.1" | jq -r .SerialNumber | wc -c)" -gt 1000000 ] ||
	fail "the simulator serves a megabyte serial"

# Two workers: the huge node shares its worker with two others.
rc=0
bringup discover --workers 2 --json > out.json 2> err.txt || rc=$?
assert_eq "$rc" 0 "discover exit code: every node discovered"
bringup status --json > st.json
assert_eq "$(jq -r '[.nodes[] | select(.state != "discovered") | .hostname] | join(",")' st.json)" "" "nodes not discovered"
! grep -q "worker exited" err.txt st.json || fail "a worker died: $(grep "worker" err.txt | head -3)"
serial=$(sqlite3 inv.db "select system_serial from nodes where hostname = '$huge'")
len=$(printf '%s' "$serial" | wc -c)
[ "$len" -le 1024 ] || fail "stored serial is $len bytes, over the 1024 cap"
[ "$len" -ge 512 ] || fail "stored serial is $len bytes: cut too short"
assert_contains "$serial" "HUGE-" "the serial keeps its start"
printf '%s' "$serial" | iconv -f UTF-8 -t UTF-8 >/dev/null || fail "the cut serial is not valid UTF-8"
maxr=$(sqlite3 inv.db "select max(length(reason)) from events")
[ "$maxr" -le 4096 ] || fail "an event reason of $maxr characters"
[ "$(jq -r --arg h "$huge" '.nodes[] | select(.hostname == $h) | .reason | length' out.json)" -le 4096 ] ||
	fail "the --json reason is not capped"
sleep 0.3
log=rack/requests.log
created=$(jq -r 'select(.session == "created") | .bmc' $log | sort | uniq | wc -l)
deleted=$(jq -r 'select(.session == "deleted") | .bmc' $log | sort | uniq | wc -l)
assert_eq "$created $deleted" "6 6" "BMCs with a session created and deleted"
exit 0
