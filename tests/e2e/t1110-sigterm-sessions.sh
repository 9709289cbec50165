#!/bin/sh
# SIGTERM (or Ctrl-C) in the middle of discover or configure logs out of
# every Redfish session before the stage exits (128 + 15), in one process
# and across discovery workers: the simulator then lists no open session on
# any BMC, and the interrupted nodes keep the state they had.
. "$(dirname "$0")/lib.sh"
cd "$T"

# Open sessions on every BMC of the rack in DIR, as each BMC lists them.
open_sessions() {
	total=0
	for bmc in $(tail -n +2 "$1/rack.csv" | cut -d, -f4); do
		n=$(curl -sf -u "root:$BRINGUP_BMC_PASSWORD" "http://$bmc/redfish/v1/SessionService/Sessions" |
			jq '.Members | length')
		total=$((total + n))
	done
	echo "$total"
}

# Wait until the sim's log shows N sessions created.
wait_sessions() {
	i=0
	while [ "$(grep -c '"session":"created"' "$1/requests.log")" -lt "$2" ] && [ $i -lt 100 ]; do
		sleep 0.1; i=$((i + 1))
	done
}

# Every BMC hangs on Thermal, so every walk is mid-way with its session open.
bringup sim --no-hosts --nodes 6 --seed 5 --faults hang:6 --dir hang --daemon >/dev/null
at_exit "stop_sim $T/hang"
set -a; . hang/env; set +a
for workers in 1 2; do
	rm -f inv.db
	: > hang/requests.log
	bringup import --db inv.db --manifest hang/rack.csv >/dev/null
	bringup discover --db inv.db --workers $workers --timeout 30 --json > out.json 2> err.txt &
	pid=$!
	wait_sessions hang 6
	assert_eq "$(open_sessions hang)" 6 "sessions open mid-discover ($workers workers)"
	kill -TERM $pid
	rc=0; wait $pid || rc=$?
	assert_eq "$rc" 143 "discover exit code after SIGTERM ($workers workers)"
	assert_eq "$(open_sessions hang)" 0 "sessions left open after SIGTERM of discover ($workers workers)"
	assert_eq "$(grep -c '"session":"deleted"' hang/requests.log)" 6 "session DELETEs ($workers workers)"
	assert_contains "$(cat err.txt)" "interrupted by SIGTERM"
	assert_eq "$(nodes_in inv.db new)" 6 \
		"interrupted nodes keep their state ($workers workers)"
done

# configure: GracefulRestart is ignored, so every system waits for its
# ForceRestart with its session open; SIGINT must neither force-restart
# nor leave a session.
bringup sim --no-hosts --nodes 3 --seed 6 --faults graceful_ignored:3 --dir cfg --daemon >/dev/null
at_exit "stop_sim $T/cfg"
set -a; . cfg/env; set +a
rm -f inv.db
bringup import --db inv.db --manifest cfg/rack.csv >/dev/null
bringup discover --db inv.db >/dev/null 2>&1 || fail "discover of the configure rack"
: > cfg/requests.log
bringup configure --db inv.db --graceful-timeout 60 --poll-ms 200 > out.txt 2> err.txt &
pid=$!
resets() { jq -s '[.[] | select(.method == "POST" and (.path | endswith("ComputerSystem.Reset")))] | length' cfg/requests.log; }
i=0
while [ "$(resets)" -lt 3 ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
assert_eq "$(resets)" 3 "GracefulRestarts sent"
assert_eq "$(open_sessions cfg)" 3 "sessions open mid-configure"
kill -INT $pid
rc=0; wait $pid || rc=$?
assert_eq "$rc" 130 "configure exit code after SIGINT"
assert_eq "$(open_sessions cfg)" 0 "sessions left open after SIGINT of configure"
sleep 0.5
assert_eq "$(resets)" 3 "no reset (ForceRestart) after SIGINT"
assert_eq "$(nodes_in inv.db discovered)" 3 \
	"interrupted configure leaves nodes discovered"

# bringup run: SIGTERM to the driver alone (not its process group, as a
# service manager or a kill from another shell sends it) reaches the stage
# it is running: discover logs out, run stops there with 143, and no stage
# process is left behind.
rm -f inv.db
: > hang/requests.log
set -a; . hang/env; set +a
bringup import --db inv.db --manifest hang/rack.csv >/dev/null
# The rack has no hosts, so no SSH key: every stage's options must pass
# their check before discover starts (enlist: --no-ssh-key; validate: a key).
BRINGUP_BMC_TIMEOUT=30 setsid bringup run --db "$T/inv.db" --json --no-ssh-key --ssh-key "$T/no-key" \
	> out.json 2> err.txt &
pid=$!
wait_sessions hang 6
assert_eq "$(open_sessions hang)" 6 "sessions open mid-run"
kill -TERM $pid
rc=0; wait $pid || rc=$?
assert_eq "$rc" 143 "run exit code after SIGTERM"
assert_eq "$(open_sessions hang)" 0 "sessions left open after SIGTERM of run"
assert_contains "$(cat err.txt)" "interrupted by SIGTERM"
assert_eq "$(pgrep -f "bringup-[a-z]* --db $T/inv.db" | wc -l)" 0 "no stage left running after run's SIGTERM"
assert_eq "$(nodes_in inv.db new)" 6 \
	"nodes interrupted under run keep their state"
