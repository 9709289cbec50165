#!/bin/sh
# bringup run's flow with a wiring list (issue 25 with issue 27): discover
# judges each node's cables from its BMC's switch neighbours as soon as that
# BMC is read, and hands the node on then, so a dead BMC holds its own node
# and nobody else. On a rack with Connection View, one BMC that never
# answers (its request may wait 1000 s, its node 3600 s) and two nodes whose
# cables are exchanged:
# - the healthy nodes are golden while the dead BMC's node is still 'new',
#   its lease held by discover and discover still running (the order of
#   events, not a clock: the loop's bound only keeps a broken build from
#   hanging the suite);
# - each half of the swap is quarantined in discover from 'discovered', its
#   cabling_bmc naming the partner, and MAAS never hears of it;
# - a healthy node's cabling_bmc passed in discover before its 'configured'
#   event: judged before configure took it.
. "$(dirname "$0")/lib.sh"
cd "$T"
bringup sim --nodes 5 --seed 9 --dir rack --connection-view --faults bmc_down,cable_swap \
	--maas-commission-ms 100 --maas-deploy-ms 100 --daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
export BRINGUP_DB=$T/inv.db BRINGUP_SSH_PUBKEY=$BRINGUP_SSH_KEY.pub
[ -s "$BRINGUP_WIRING" ] || fail "the simulated rack has no wiring list"
dead=$(jq -r '.nodes[] | select(.faults | index("bmc_down")) | .hostname' rack/truth.json)
swapped=$(jq -r '.nodes[] | select(.faults | index("cable_swap")) | .hostname' rack/truth.json)
healthy=$(jq -r '.nodes[] | select(.faults == []) | .hostname' rack/truth.json)
[ -n "$dead" ] && [ "$(echo "$swapped" | wc -l)" -eq 2 ] && [ "$(echo "$healthy" | wc -l)" -eq 2 ] ||
	fail "the rack has not one dead BMC, one swap and two clean nodes"
bringup import --manifest rack/rack.csv >/dev/null

BRINGUP_BMC_TIMEOUT=1000 BRINGUP_BMC_RETRIES=0 setsid bringup run --json -v --bmc-deadline 3600 \
	> run.json 2> run.err &
run=$!
at_exit "kill -KILL -$run 2>/dev/null || true"
state_of() { inv_sql inv.db "select state from nodes where hostname = '$1'"; }
done_yet() {
	for h in $healthy; do [ "$(state_of "$h")" = golden ] || return 1; done
	for h in $swapped; do [ "$(state_of "$h")" = quarantined ] || return 1; done
}
i=0
while ! done_yet; do
	kill -0 "$run" 2>/dev/null || fail "run ended before the healthy nodes were golden: $(tail -5 run.err)"
	i=$((i + 1)); [ "$i" -lt 1200 ] || fail "not there: $(inv_sql inv.db 'select hostname, state from nodes' | paste -sd ' ' -)"
	sleep 0.25
done
assert_eq "$(state_of "$dead")" new "the dead BMC's node is still in discovery"
assert_eq "$(inv_sql inv.db "select l.stage from leases l join nodes n on n.id = l.node_id where n.hostname = '$dead'")" \
	"bringup-discover (judging cabling)" "discover holds the dead BMC's node"
pgrep -s "$run" -f "bin/bringup-discover " >/dev/null || fail "discover is not running any more"
check() { inv_sql inv.db "select c.$3 from check_results c join nodes n on n.id = c.node_id where n.hostname = '$1' and c.name = '$2'"; }
ev() { inv_sql inv.db "select min(e.id) from events e join nodes n on n.id = e.node_id where n.hostname = '$1' and e.to_state = '$2'"; }
for h in $healthy; do
	assert_eq "$(check "$h" cabling_bmc result)" pass "$h: cabling_bmc"
	assert_eq "$(check "$h" cabling_bmc stage)" discover "$h: judged by discover"
	# its check's time is before configure's event: judged, then handed on
	at=$(check "$h" cabling_bmc at)
	conf=$(inv_sql inv.db "select e.at from events e join nodes n on n.id = e.node_id where n.hostname = '$h' and e.to_state = 'configured'")
	[ -n "$conf" ] && [ "$at" \< "$conf" ] || fail "$h: cabling_bmc at $at, configured at '$conf'"
	[ "$(ev "$h" discovered)" -lt "$(ev "$h" golden)" ] || fail "$h: events out of order"
done
for h in $swapped; do
	peer=$(echo "$swapped" | grep -vx "$h")
	assert_eq "$(check "$h" cabling_bmc result)" fail "$h: cabling_bmc"
	assert_contains "$(check "$h" cabling_bmc detail)" "swapped with $peer" "$h: the swap named"
	assert_eq "$(inv_sql inv.db "select e.from_state || '>' || e.to_state from events e join nodes n on n.id = e.node_id where n.hostname = '$h' order by e.id desc limit 1")" \
		"discovered>quarantined" "$h: quarantined in discover"
	for x in "$h" $(jq -r --arg h "$h" '.nodes[] | select(.hostname == $h) | .macs[]' rack/truth.json); do
		! grep -qi -- "$x" rack/maas-requests.log || fail "$h: MAAS was sent a request naming $x"
	done
done

kill -TERM "$run"
rc=0; wait "$run" || rc=$?
assert_eq "$rc" 143 "run stopped by SIGTERM ($(tail -3 run.err))"
assert_eq "$(state_of "$dead")" new "the stuck node left as it was"
echo "run: with a wiring list, healthy nodes golden and a swap quarantined before MAAS while a dead BMC's discovery is in flight"
