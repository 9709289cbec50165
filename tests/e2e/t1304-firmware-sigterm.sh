#!/bin/sh
# bringup firmware stopped by SIGTERM while images are being applied (the
# kill point: the first image a simulated iDRAC accepted): it exits 143,
# logs out of every session it held, leaves every node as it was
# (discovered), and a rerun follows the tasks the first run left running
# (method "resumed") and sends no image twice.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/firmware.sh"
cd "$T"
fw_images "$T/images"
bringup sim --no-hosts --nodes 4 --seed 2 --faults fw_stale:4 --fw-task-ms 3000 --image-dir "$T/images" \
	--dir rack --daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
export BRINGUP_DB=$T/inv.db
bringup import --manifest rack/rack.csv >/dev/null
bringup discover -q >/dev/null
fw_start_until_accepted
kill -TERM $pid
rc=0; wait $pid || rc=$?
assert_eq "$rc" 143 "firmware stopped by SIGTERM"
assert_contains "$(cat first.err)" "BMC sessions logged out" "what it said"
cp rack/requests.log first.log
logins=$(jq -s '[.[] | select(.method == "POST" and (.path | test("Sessions")) and .status == 201)] | length' first.log)
logouts=$(jq -s '[.[] | select(.method == "DELETE" and (.path | test("Sessions/")))] | length' first.log)
assert_eq "$logouts" "$logins" "sessions logged out"
assert_eq "$(bringup status --json | jq -r '[.nodes[].state] | unique | join(",")')" discovered "states after SIGTERM"
: > rack/requests.log
bringup firmware --json --max-updates 2 --poll-ms 50 > rerun.json 2> rerun.err || fail "rerun: $(cat rerun.err)"
assert_eq "$(jq -r '[.nodes[].result] | unique | join(",")' rerun.json)" updated "every node updated"
[ "$(jq '[.nodes[].updates[] | select(.method == "resumed")] | length' rerun.json)" -ge 1 ] ||
	fail "no running task followed: $(jq -c '[.nodes[].updates[].method]' rerun.json)"
cat first.log rack/requests.log > both.log
assert_eq "$(fw_posts both.log | sort | uniq -d | tr '\n' ' ')" "" "images sent twice"
assert_eq "$(fw_posts both.log | wc -l)" 12 "images sent over both runs"
