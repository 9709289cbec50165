#!/bin/sh
# bringup controller as a service on a simulated rack with hosts and MAAS:
# started before anything is imported, it takes a first manifest's nodes to
# golden / quarantined / failed (as the design's table says for each
# node's faults) with no other command run; nodes imported later (a
# second, larger manifest) and a node reprovisioned are picked up too; a
# failed node is not taken again pass after pass; SIGTERM in the middle of
# a discover (a BMC that hangs, its session open) ends the controller with
# exit 0 within seconds, no lease left in the inventory, no session left
# open on any simulated BMC, no stage process left running; started again
# it takes the node it left, prints nothing on stdout without --json, and
# SIGINT twice ends it with exit 0 too.
# BR_TEST_DB=pg runs it on PostgreSQL (LISTEN/NOTIFY wakes the controller).
. "$(dirname "$0")/lib.sh"
# This test's stage processes (another test's may run beside it): those
# whose environment names this test's scratch directory.
stage_procs() {
	n=0
	for p in $(pgrep -f "$BIN/bringup-(discover|configure|enlist|validate|gate|tickets)"); do
		tr '\0' '\n' < /proc/$p/environ 2>/dev/null | grep -q "$T" && n=$((n + 1))
	done
	echo $n
}
cd "$T"
bringup sim --nodes 7 --seed 61 --dir rack --faults bmc_auth:1,pcie_degraded:1,hang:1 \
	--maas-commission-ms 100 --maas-deploy-ms 100 --daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
DB=$(db_for inv)
export BRINGUP_DB=$DB BRINGUP_SSH_PUBKEY=$BRINGUP_SSH_KEY.pub
# The hanging BMC must still hang (its session open) when SIGTERM comes.
export BRINGUP_BMC_TIMEOUT=30 BRINGUP_BMC_RETRIES=0 BRINGUP_VALIDATE_PARALLEL=4

host_with() { jq -r --arg f "$1" '[.nodes[] | select(.faults | index($f)) | .hostname][0]' rack/truth.json; }
hang=$(host_with hang)
auth=$(host_with bmc_auth)
pcie=$(host_with pcie_degraded)
want_state() { # HOST
	case $1 in
	"$auth") echo failed ;;
	"$pcie") echo quarantined ;;
	*) echo golden ;;
	esac
}
# Manifests: the first four nodes without the hanging one, then all six
# of them, then the whole rack.
head -1 rack/rack.csv > first.csv
grep -v "^$hang," rack/rack.csv | tail -n +2 | head -4 >> first.csv
grep -v "^$hang," rack/rack.csv > second.csv
for h in "$auth" "$pcie"; do
	grep -q "^$h," first.csv || fail "first manifest lacks $h (seed changed?)"
done

state_of() { bringup status --json | jq -r --arg h "$1" '.nodes[] | select(.hostname == $h) | .state'; }
# Wait (up to $2 s) until every node of manifest $1 stands where the table
# says it ends.
wait_settled() {
	i=0
	while :; do
		left=0
		for h in $(tail -n +2 "$1" | cut -d, -f1); do
			[ "$(state_of "$h")" = "$(want_state "$h")" ] || left=$((left + 1))
		done
		[ $left -eq 0 ] && return 0
		[ $i -ge $(($2 * 2)) ] && {
			bringup status >&2 || true
			tail -20 ctl.err >&2
			fail "$left nodes of $1 not settled after $2 s"
		}
		sleep 0.5; i=$((i + 1))
	done
}
passes() { grep -c '"pass"' ctl.out || true; }

# Operator mistakes: exit 2, naming what is wrong, before anything runs.
usage() { # WANT ARGS...: exit 2 and WANT in stderr
	want=$1; shift
	rc=0; bringup controller "$@" > u.out 2> u.err || rc=$?
	assert_eq "$rc" 2 "bringup controller $*: exit"
	assert_contains "$(cat u.err)" "$want" "bringup controller $*: stderr"
}
usage "want whole seconds" --interval 0
usage "want whole seconds" --interval=soon
usage "no stage takes it" --no-such-option
usage "are bringup run's" --only "$auth"
usage "are bringup run's" --firmware
BRINGUP_CONTROLLER_INTERVAL=-5 usage "BRINGUP_CONTROLLER_INTERVAL '-5'"
bringup controller --help | grep -q -- "--interval SECONDS" || fail "controller --help"

# The controller first, on an empty inventory; events (not the interval:
# 600 s) must wake it.
bringup controller --json --interval 600 > ctl.out 2> ctl.err &
ctl=$!
at_exit "kill $ctl 2>/dev/null || true"
sleep 1
kill -0 $ctl 2>/dev/null || fail "controller exited on an empty inventory: $(cat ctl.err)"
assert_eq "$(passes)" 0 "passes before any node was imported"

bringup import --manifest first.csv >/dev/null
wait_settled first.csv 120
maas_req GET machines/ > machines.json
for h in $(tail -n +2 first.csv | cut -d, -f1); do
	[ "$(want_state "$h")" = golden ] || continue
	assert_eq "$(jq -r --arg h "$h" '.[] | select(.hostname == $h) | .status_name' machines.json)" Deployed \
		"$h deployed in MAAS"
done
# One JSON object a line per pass, each with the run's summary.
jq -e -s 'length >= 1 and all(.pass >= 1 and (.run.stages | length) >= 6 and .run.nodes >= 4)' ctl.out \
	>/dev/null || fail "pass lines: $(cat ctl.out)"
auth_bmc=$(grep "^$auth," rack/rack.csv | cut -d, -f4)
auth_requests() { jq -r --arg b "$auth_bmc" 'select(.bmc == $b) | .path' rack/requests.log | wc -l; }
auth_reqs=$(auth_requests)
[ "$auth_reqs" -ge 1 ] || fail "no request to $auth's BMC ($auth_bmc) in the simulator's log"
auth_events=$(inv_sql "$DB" "select count(*) from events e join nodes n on n.id = e.node_id where n.hostname = '$auth'")

# More nodes: a larger manifest.
p1=$(passes)
bringup import --manifest second.csv >/dev/null
wait_settled second.csv 120
[ "$(passes)" -gt "$p1" ] || fail "no pass after the second import"

# A golden node reprovisioned (reset to configured, released in MAAS) is
# taken again and ends golden again.
gold=$(tail -n +2 second.csv | cut -d, -f1 | while read -r h; do
	[ "$(want_state "$h")" = golden ] && echo "$h" && break
done)
p2=$(passes)
bringup reprovision --no-run "$gold" >/dev/null
i=0
while [ "$(passes)" -le "$p2" ] || [ "$(state_of "$gold")" != golden ]; do
	[ $i -ge 240 ] && fail "$gold not golden again after reprovision: $(state_of "$gold")"
	sleep 0.5; i=$((i + 1))
done
assert_contains "$(bringup history "$gold")" "reprovision" "$gold history"

# The failed node was left alone by every later pass.
assert_eq "$(inv_sql "$DB" "select count(*) from events e join nodes n on n.id = e.node_id where n.hostname = '$auth'")" \
	"$auth_events" "events of failed $auth after $(passes) passes"
assert_eq "$(auth_requests)" "$auth_reqs" "requests to failed $auth's BMC after pass 1"
assert_eq "$(state_of "$auth")" failed "$auth"
# Nothing held elsewhere, nothing failed in the passes after the first:
# the stages of one pass never take each other's nodes.
assert_eq "$(jq -s -c '[.[1:3][] | .run.exit]' ctl.out)" "[0,0]" "exit of passes 2 and 3"

# The hanging BMC: discover holds its session open; SIGTERM then.
hang_bmc=$(grep "^$hang," rack/rack.csv | cut -d, -f4)
open_sessions() {
	curl -sf -u "root:$BRINGUP_BMC_PASSWORD" "http://$hang_bmc/redfish/v1/SessionService/Sessions" |
		jq '.Members | length'
}
bringup import --manifest rack/rack.csv >/dev/null
i=0
while [ "$(open_sessions)" -lt 1 ]; do
	[ $i -ge 60 ] && fail "no session opened on $hang's BMC: $(tail -5 ctl.err)"
	sleep 0.5; i=$((i + 1))
done
sleep 1
[ "$(inv_sql "$DB" "select count(*) from leases")" -ge 1 ] || fail "no lease held mid-discover"
t0=$(date +%s)
kill -TERM $ctl
rc=0; wait $ctl || rc=$?
assert_eq "$rc" 0 "controller exit after SIGTERM: $(tail -5 ctl.err)"
[ $(($(date +%s) - t0)) -le 10 ] || fail "controller took $(($(date +%s) - t0)) s to stop"
assert_eq "$(open_sessions)" 0 "sessions left open on $hang's BMC"
assert_eq "$(inv_sql "$DB" "select count(*) from leases")" 0 "leases left after SIGTERM"
assert_eq "$(stage_procs)" 0 "stage processes left after SIGTERM"
assert_eq "$(state_of "$hang")" new "$hang keeps its state"
assert_eq "$(tail -1 ctl.out | jq -r .signal)" SIGTERM "the last pass says what stopped it"

# Started again: the node it left is taken at once; without --json and
# off a terminal its stdout stays empty (the stages' output on stderr);
# SIGINT twice (the second stops the stages at once): exit 0 all the same.
bringup controller --interval 600 > plain.out 2> plain.err &
ctl=$!
i=0
while [ "$(open_sessions)" -lt 1 ]; do
	[ $i -ge 60 ] && fail "the restarted controller opened no session on $hang's BMC: $(tail -5 plain.err)"
	sleep 0.5; i=$((i + 1))
done
kill -INT $ctl
sleep 0.2
kill -INT $ctl 2>/dev/null || true
rc=0; wait $ctl || rc=$?
assert_eq "$rc" 0 "controller exit after SIGINT twice: $(tail -5 plain.err)"
assert_eq "$(cat plain.out)" "" "the controller's stdout without --json"
assert_eq "$(stage_procs)" 0 \
	"stage processes left after SIGINT twice"
# Every line holds to docs/schema/controller.schema.json, and its run to
# run.schema.json.
check() { python3 "$BR_TOP/tests/e2e/schema-check.py" "$BR_TOP/docs/schema/$1.schema.json" "$2"; }
n=0
while read -r line; do
	n=$((n + 1))
	echo "$line" > pass.json
	echo "$line" | jq .run > run.json
	check controller pass.json || fail "pass $n does not hold to controller.schema.json"
	check run run.json || fail "pass $n's run does not hold to run.schema.json"
done < ctl.out
[ $n -ge 4 ] || fail "only $n passes"
echo ok
