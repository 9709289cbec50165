#!/bin/sh
# A node with a persistent fault (a dead PSU) reprovisioned until it is
# retired: attempts counted across reprovisioning, retired at the profile's
# [lifecycle] max_attempts (3) with its history as reason, one open ticket
# (fault retired) listing that history and the psu ticket closed into it;
# gate and run leave it alone and naming it to a stage is refused; bringup
# unretire brings it back to new, and reprovisioning takes it through again.
. "$(dirname "$0")/lib.sh"
cd "$T"
bringup sim --nodes 2 --seed 7 --dir rack --faults psu_failed --maas-commission-ms 50 --maas-deploy-ms 50 \
	--daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
DB=$(db_for inv)
export BRINGUP_DB=$DB BRINGUP_SSH_PUBKEY=$BRINGUP_SSH_KEY.pub
bad=$(jq -r '.nodes[] | select(.faults | index("psu_failed")) | .hostname' rack/truth.json | head -1)
[ -n "$bad" ] || fail "no node with psu_failed in truth.json"
bringup import --manifest rack/rack.csv >/dev/null
node() { bringup status --json | jq -r --arg h "$bad" ".nodes[] | select(.hostname == \$h) | .$1"; }

rc=0; bringup run -q > run1.txt 2>&1 || rc=$?
assert_eq "$rc" 1 "first run: quarantined ($(tail -3 run1.txt))"
assert_eq "$(node state)" quarantined "quarantined once"
assert_eq "$(node attempts)" 1 "one attempt"
# the gate re-judging it is the same attempt, not a new one
bringup gate -q >/dev/null 2>&1 || true
assert_eq "$(node attempts)" 1 "gate re-run counts nothing"

rc=0; bringup reprovision -q "$bad" > repro2.txt 2>&1 || rc=$?
assert_eq "$(node state)" quarantined "quarantined again ($(tail -3 repro2.txt))"
assert_eq "$(node attempts)" 2 "reprovision keeps the count"

rc=0; bringup reprovision -q "$bad" > repro3.txt 2>&1 || rc=$?
assert_eq "$(node state)" retired "retired at the third ($(tail -3 repro3.txt))"
assert_eq "$(node attempts)" 3 "three attempts"
assert_contains "$(node reason)" "3rd failure in 1 day (psu; psu; psu): return to vendor" "reason lists the history"
assert_contains "$(bringup history "$bad")" "quarantined  retired" "retirement is an event"

bringup tickets --json > open.json
assert_eq "$(jq --arg h "$bad" '[.tickets[] | select(.hostname == $h)] | length' open.json)" 1 "one open ticket"
assert_eq "$(jq -r --arg h "$bad" '.tickets[] | select(.hostname == $h) | .fault' open.json)" retired "it is the retired one"
ev=$(jq -r --arg h "$bad" '.tickets[] | select(.hostname == $h) | .evidence' open.json)
[ "$(printf '%s' "$ev" | grep -o 'quarantined (psu)' | wc -l)" -eq 3 ] || fail "history in the ticket: $ev"
assert_contains "$(jq -r --arg h "$bad" '.tickets[] | select(.hostname == $h) | .action' open.json)" "to the vendor" \
	"the action from actions.conf"
assert_eq "$(bringup tickets --json --state closed | jq -r --arg h "$bad" '[.tickets[] | select(.hostname == $h) | .fault + ":" + .status] | join(",")')" \
	"psu:closed" "the psu ticket closed into it"
assert_eq "$(bringup tickets --json --state all | jq --arg h "$bad" '[.tickets[] | select(.hostname == $h)] | length')" 2 \
	"--state all: both"

# out of the flow: gate and run leave it, naming it is refused
events=$(bringup history "$bad" | wc -l)
bringup gate -q >/dev/null 2>&1 || true
bringup run -q >/dev/null 2>&1 || true
assert_eq "$(node state)" retired "gate and run leave it alone"
assert_eq "$(bringup history "$bad" | wc -l)" "$events" "no event from gate or run"
rc=0; bringup gate -q "$bad" > named.txt 2>&1 || rc=$?
assert_eq "$rc" 2 "a retired node named to a stage"
assert_contains "$(cat named.txt)" "retired: bringup unretire $bad first" "says what to do"

# back in: new, attempts 0, the retired ticket closed, the pipeline again
rc=0; bringup unretire --json "$bad" > unretire.json || rc=$?
assert_eq "$rc" 0 "unretire"
assert_eq "$(jq -r '.nodes[0].tickets_closed' unretire.json)" 1 "its ticket closed"
assert_eq "$(node state)" new "back to new"
assert_eq "$(node attempts)" 0 "attempts reset"
assert_eq "$(bringup tickets --json | jq --arg h "$bad" '[.tickets[] | select(.hostname == $h)] | length')" 0 \
	"no open ticket"
rc=0; bringup unretire -q "$bad" 2>/dev/null || rc=$?
assert_eq "$rc" 1 "a node not retired cannot be unretired"
# MAAS still has it marked broken: reprovision marks it fixed, releases it
# and runs the pipeline for it
rc=0; bringup reprovision -q --rediscover "$bad" > run2.txt 2>&1 || rc=$?
assert_eq "$(node state)" quarantined "through the pipeline again ($(tail -3 run2.txt))"
assert_eq "$(node attempts)" 1 "counting starts over"

# an operator retires it by hand, with a reason
rc=0; bringup retire -q --reason "chassis swap" "$bad" || rc=$?
assert_eq "$rc" 0 "retire"
assert_eq "$(node state)" retired "retired by hand"
assert_contains "$(node reason)" "retired by operator: chassis swap" "the operator's reason"
echo "lifecycle: attempts counted, retired at max_attempts with one ticket, left alone, unretired"
