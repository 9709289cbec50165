#!/bin/sh
# bringup firmware killed (SIGKILL) while images are being applied, then
# run again: the rerun converges on the baseline without sending any image
# twice. The kill point is an event, not a time: the first image the
# simulated iDRACs have accepted (a 202 in their request log). The node
# whose task was running when the first run died has its task followed by
# the rerun (method "resumed"), found from the BMC's TaskService (the
# Task's Payload names the UpdateService and the component), not sent again.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/firmware.sh"
cd "$T"
fw_images "$T/images"
bringup sim --no-hosts --nodes 8 --seed 11 --faults fw_stale:8 --fw-task-ms 1500 --bmc-reboot-ms 300 \
	--image-dir "$T/images" --dir rack --daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
export BRINGUP_DB=$T/inv.db
bringup import --manifest rack/rack.csv >/dev/null
bringup discover -q >/dev/null
fw_kill_once_accepted
assert_eq "$(jq -r --arg h "$first" '.nodes[] | select(.hostname == $h) | .state' "$(bringup status --json > st.json; echo st.json)")" \
	discovered "the killed run's node keeps its state"

# Over both runs: every image once per node, and all 24 sent.
fw_rerun_resumed "$first" 24
bringup firmware --report --json > report.json
assert_eq "$(jq -r '[.components[] | select(.component | test("iDRAC|BIOS|NIC.Slot.31-1-1"))] | length' report.json)" 0 \
	"components differing after the rerun"
