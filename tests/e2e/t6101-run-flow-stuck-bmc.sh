#!/bin/sh
# bringup run moves each node on as soon as it is done with a stage (issue
# 25): on a rack where one BMC never answers (its discovery held for as long
# as the per-request timeout and the --bmc-deadline allow, far longer than
# the test), every other node becomes golden while that BMC's discovery is
# still in flight: its node still 'new', its lease held by bringup-discover,
# discover still running. Run stage by stage, the healthy nodes would wait
# in 'discovered' for the dead BMC. SIGTERM then stops every running stage:
# exit 143, the stuck node left as it was; a run with short limits fails it
# (bmc_unreachable) and leaves the golden ones golden.
# The flow is run with --no-bmc-cabling (leases under discover's own name);
# t6104 runs it with the wiring list, each node judged on its cables as its
# BMC is read.
. "$(dirname "$0")/lib.sh"
cd "$T"
bringup sim --nodes 4 --seed 9 --dir rack --faults bmc_down --maas-commission-ms 100 --maas-deploy-ms 100 \
	--daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
export BRINGUP_DB=$T/inv.db BRINGUP_SSH_PUBKEY=$BRINGUP_SSH_KEY.pub
dead=$(jq -r '.nodes[] | select(.faults | index("bmc_down")) | .hostname' rack/truth.json)
healthy=$(jq -r '.nodes[] | select(.faults == []) | .hostname' rack/truth.json)
[ -n "$dead" ] && [ "$(echo "$healthy" | wc -l)" -eq 3 ] || fail "the rack has not one dead BMC and three clean nodes"
bringup import --manifest rack/rack.csv >/dev/null

# The dead BMC's one request may wait 1000 s, its node 3600 s in all.
BRINGUP_BMC_TIMEOUT=1000 BRINGUP_BMC_RETRIES=0 setsid bringup run --json -v --no-bmc-cabling --bmc-deadline 3600 \
	> run.json 2> run.err &
run=$!
at_exit "kill -KILL -$run 2>/dev/null || true"
# The inventory read directly: status skips (and says so) a node a stage holds.
golden() { inv_sql inv.db "select hostname from nodes where state = 'golden' order by hostname" | paste -sd ' ' -; }
state_of() { inv_sql inv.db "select state from nodes where hostname = '$1'"; }
want=$(echo "$healthy" | sort | paste -sd ' ' -)
# Waits on the inventory's events, not on a clock: the loop's bound only
# keeps a broken build from hanging the suite.
i=0
while [ "$(golden)" != "$want" ]; do
	kill -0 "$run" 2>/dev/null || fail "run ended before the healthy nodes were golden: $(tail -5 run.err)"
	i=$((i + 1)); [ "$i" -lt 1200 ] || fail "healthy nodes not golden: $(inv_sql inv.db 'select hostname, state from nodes' | paste -sd ' ' -)"
	sleep 0.25
done
# At the moment they are golden, the dead BMC's discovery is in flight.
assert_eq "$(state_of "$dead")" new "the dead BMC's node is still in discovery"
assert_eq "$(inv_sql inv.db "select l.stage from leases l join nodes n on n.id = l.node_id where n.hostname = '$dead'")" \
	bringup-discover "discover holds the dead BMC's node"
pgrep -s "$run" -f "bin/bringup-discover " >/dev/null || fail "discover is not running any more"
for h in $healthy; do
	assert_contains "$(bringup history "$h")" "golden" "$h history"
done

# SIGTERM to the driver: passed to every stage still running.
kill -TERM "$run"
rc=0; wait "$run" || rc=$?
assert_eq "$rc" 143 "run stopped by SIGTERM ($(tail -3 run.err))"
assert_contains "$(cat run.err)" "interrupted by SIGTERM" "discover logged out and said so"
assert_eq "$(state_of "$dead")" new "the stuck node left as it was"
assert_eq "$(golden)" "$want" "the golden nodes stay golden"

# Short limits: the dead BMC fails its node, the rest are untouched.
rc=0; BRINGUP_BMC_TIMEOUT=1 BRINGUP_BMC_RETRIES=0 bringup run -q --bmc-deadline 2 > run2.txt 2>&1 || rc=$?
assert_eq "$rc" 1 "second run: one node failed ($(tail -3 run2.txt))"
assert_eq "$(state_of "$dead")" failed "the dead BMC's node failed"
assert_eq "$(node_field inv.db "$dead" failure_kind)" bmc_unreachable "its kind"
assert_eq "$(golden)" "$want" "still golden"
echo "run: healthy nodes golden while a dead BMC's discovery is in flight; SIGTERM stops every stage"
