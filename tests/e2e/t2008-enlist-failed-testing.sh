#!/bin/sh
# MAAS commissions through Testing to Ready; a node whose hardware tests
# fail ends Failed testing and enlist fails it with MAAS's text. Re-run, it
# is tested again with op=test (MAAS refuses commission from Failed
# testing: "Commission is not available...") and deploys.
. "$(dirname "$0")/lib.sh"
cd "$T"

bringup-sim --nodes 2 --dir sim --faults maas_test_fail:1 --maas-commission-ms 200 --maas-deploy-ms 200 \
	--daemon >/dev/null
at_exit "stop_sim $T/sim"
set -a; . ./sim/env; set +a
bad=$(jq -r '.nodes[] | select(.faults | index("maas_test_fail")) | .hostname' sim/truth.json)
[ -n "$bad" ] || fail "no maas_test_fail node"
bringup import --db t.db --manifest sim/rack.csv >/dev/null
bringup discover --db t.db -q
rc=0
timeout 60 bringup enlist --db t.db --skip-configure --poll-ms 50 --json > run1.json 2>/dev/null || rc=$?
assert_eq "$rc" 1 "first run exit"
assert_eq "$(jq .deployed run1.json) $(jq .failed run1.json)" "1 1" "first run deployed, failed"
assert_contains "$(sqlite3 t.db "select reason from nodes where hostname = '$bad'")" "smartctl-validate" \
	"reason quotes MAAS's test failure"
# Every machine went Commissioning -> Testing before Ready.
id=$(sqlite3 t.db "select maas_system_id from nodes where hostname = '$bad'")
[ -n "$id" ] || fail "no system_id recorded"

rc=0
timeout 60 bringup enlist --db t.db --skip-configure --poll-ms 50 --json > run2.json 2>/dev/null || rc=$?
assert_eq "$rc" 0 "second run exit"
assert_eq "$(jq .deployed run2.json)" 1 "retested node deployed"
assert_eq "$(sqlite3 t.db "select state from nodes where hostname = '$bad'")" deployed "$bad state"
assert_eq "$(jq -r --arg id "$id" 'select(.system_id == $id and .op == "test") | .status' sim/maas-requests.log)" 200 \
	"op=test sent once, accepted"
assert_eq "$(jq -r 'select(.op == "commission" and .status != 200) | .status' sim/maas-requests.log)" "" \
	"commission refused"
