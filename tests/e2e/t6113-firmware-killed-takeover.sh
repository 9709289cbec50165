#!/bin/sh
# firmware SIGKILLed while it holds its nodes' leases and images are being
# applied (issue 25), then run again once the leases have expired (a short
# BRINGUP_LEASE_TTL): the second run takes each dead holder's lease over
# (the node's history names the dead pid and the expiry, once), follows
# the task the first left running instead of sending its image again, and
# every node ends updated, with every image sent once over both runs. The
# kill point is an event: the first image a simulated iDRAC accepted.
# The task (8 s) outlasts the wait for the leases to expire (up to 3 s)
# with room for a loaded machine: the rerun finds it still running.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/firmware.sh"
cd "$T"
fw_images "$T/images"
bringup sim --no-hosts --nodes 4 --seed 11 --faults fw_stale:4 --fw-task-ms 8000 --bmc-reboot-ms 300 \
	--image-dir "$T/images" --dir rack --daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
DB=$(db_for inv)
export BRINGUP_DB=$DB
bringup import --manifest rack/rack.csv >/dev/null
bringup discover -q >/dev/null
export BRINGUP_LEASE_TTL=2
fw_start_until_accepted
unset BRINGUP_LEASE_TTL
kill -9 $pid
for c in $(pgrep -P $pid); do kill -9 "$c" 2>/dev/null || true; done
rc=0; wait $pid || rc=$?
assert_eq "$rc" 137 "the first run killed"
held=$(inv_sql "$DB" "select n.hostname from leases l join nodes n on n.id = l.node_id
	where l.pid = $pid and l.stage = 'bringup-firmware' order by n.hostname")
[ -n "$held" ] || fail "the killed firmware held no lease"
cp rack/requests.log first.log
first=$(fw_posts first.log | head -n 1 | cut -d' ' -f1)
case " $(echo $held) " in *" $first "*) ;; *) fail "$first updating without a lease (held: $held)" ;; esac

i=0
until [ "$(inv_sql "$DB" "select count(*) from leases where expires_at > $(date +%s)")" = 0 ]; do
	i=$((i + 1)); [ $i -lt 100 ] || fail "the dead firmware's leases never expired"
	sleep 0.1
done
fw_rerun_resumed "$first" 12
assert_eq "$(inv_sql "$DB" "select count(*) from leases")" 0 "leases left after the rerun"
for h in $held; do
	hist=$(inv_sql "$DB" "select e.reason from events e join nodes n on n.id = e.node_id where n.hostname = '$h' order by e.id")
	assert_contains "$hist" "lease taken over from stage bringup-firmware" "$h: the history records the takeover"
	assert_contains "$hist" "pid $pid on host $(hostname), expired at" "$h: the takeover names the dead holder"
	assert_eq "$(printf '%s\n' "$hist" | grep -c '^lease taken over')" 1 "$h: takeovers recorded"
done
exit 0
