#!/bin/sh
# bringup run on a small simulated rack through every stage: the summary
# (nodes per state, open faults by kind, tickets, time per stage) as text
# and as --json; --only limits every stage to the named hosts.
. "$(dirname "$0")/lib.sh"
cd "$T"
bringup sim --nodes 4 --seed 7 --dir rack --faults pcie_degraded --maas-commission-ms 100 --maas-deploy-ms 100 \
	--daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
DB=$(db_for inv)
export BRINGUP_DB=$DB BRINGUP_SSH_PUBKEY=$BRINGUP_SSH_KEY.pub
bad=$(jq -r '.nodes[] | select(.faults | index("pcie_degraded")) | .hostname' rack/truth.json)
good=$(jq -r '.nodes[] | select(.faults == []) | .hostname' rack/truth.json | head -1)
bringup import --manifest rack/rack.csv >/dev/null

rc=0; bringup run --json -q > run.json 2> run.err || rc=$?
assert_eq "$rc" 1 "run exit with a quarantined node ($(tail -3 run.err))"
jq . run.json >/dev/null || fail "--json output is not one JSON document: $(head -c 300 run.json)"
assert_eq "$(jq -r '[.stages[].name] | join(",")' run.json)" discover,firmware,configure,enlist,validate,gate,tickets "stages in order"
assert_eq "$(jq '[.stages[] | select(.seconds >= 0)] | length' run.json)" 6 "every stage timed"
# firmware updates only with run --firmware (stage by stage)
assert_eq "$(jq -r '.stages[] | select(.name == "firmware") | .skipped' run.json)" true "firmware skipped in the flow"
assert_eq "$(jq -r '.states.golden' run.json)" 3 "three golden"
assert_eq "$(jq -r '.states.quarantined' run.json)" 1 "one quarantined"
assert_eq "$(jq -r '.nodes' run.json)" 4 "four nodes"
[ "$(jq -r '.faults.pcie // 0' run.json)" -ge 1 ] || fail "no pcie fault counted: $(jq -c .faults run.json)"
assert_eq "$(jq -r '.tickets_open' run.json)" "$(bringup tickets --json | jq '.tickets | length')" "tickets open"

# On a terminal-style run: the summary as text; --only one host.
rc=0; bringup run -q --only "$good" > only.txt 2>&1 || rc=$?
assert_eq "$rc" 0 "run --only a golden node"
assert_contains "$(cat only.txt)" "1 nodes" "summary counts the one node"
assert_contains "$(cat only.txt)" "states: golden 1" "its state"
assert_contains "$(cat only.txt)" "faults: none" "no fault on it"
# ...and what stays open elsewhere is not hidden: the whole inventory.
open_all=$(bringup tickets --json | jq '.tickets | length')
[ "$open_all" -ge 1 ] || fail "no open ticket to count"
assert_contains "$(cat only.txt)" "inventory: 4 nodes: golden 3 quarantined 1; tickets open: $open_all" \
	"summary over the whole inventory"
rc=0; bringup run -q --json --only "$good" > only.json 2>/dev/null || rc=$?
assert_eq "$(jq -c '[.tickets_open, .inventory.nodes, .inventory.states.quarantined, .inventory.tickets_open]' only.json)" \
	"[0,4,1,$open_all]" "--json: the run's hosts and the inventory"
assert_contains "$(cat only.txt)" "discover " "time per stage"
assert_eq "$(bringup status --json | jq -r --arg h "$bad" '.nodes[] | select(.hostname == $h) | .state')" quarantined \
	"the other nodes left alone"

# reprovision the quarantined node: released in MAAS (marked fixed first,
# as it was marked broken), reset with an event, its history kept, the
# pipeline run for it alone: quarantined again (the fault is still there),
# the same MAAS machine, the same ticket.
events=$(bringup history "$bad" | wc -l)
tickets=$(bringup tickets --json | jq '.tickets | length')
golden_events=$(inv_sql "$DB" "select count(*) from events e join nodes n on n.id = e.node_id where n.hostname = '$good'")
rc=0; bringup reprovision -q "$bad" > repro.txt 2>&1 || rc=$?
assert_eq "$rc" 1 "reprovision exit (quarantined again): $(tail -3 repro.txt)"
grep -q '"op":"release"' rack/maas-requests.log || fail "no release sent to MAAS"
assert_contains "$(bringup history "$bad")" "reprovision from quarantined: released in MAAS" "reset is an event"
[ "$(bringup history "$bad" | wc -l)" -gt "$events" ] || fail "history not kept or not extended"
assert_eq "$(bringup status --json | jq -r --arg h "$bad" '.nodes[] | select(.hostname == $h) | .state')" quarantined \
	"quarantined again after the pipeline"
assert_contains "$(cat repro.txt)" "states: quarantined 1" "the run covered that node alone"
assert_eq "$(bringup tickets --json | jq '.tickets | length')" "$tickets" "no new ticket"
assert_eq "$(inv_sql "$DB" "select count(*) from events e join nodes n on n.id = e.node_id where n.hostname = '$good'")" \
	"$golden_events" "other nodes untouched"
rc=0; bringup reprovision -q --no-run --rediscover "$bad" || rc=$?
assert_eq "$(bringup status --json | jq -r --arg h "$bad" '.nodes[] | select(.hostname == $h) | .state')" new "--rediscover: new"
echo "run: summary as text and JSON, --only limits the stages; reprovision releases, resets, re-runs"
