#!/bin/sh
# Named hosts respect states: a stage refuses a named node it does not
# take (exit 2, nothing touched) unless --force, which the history says;
# `bringup run --only` takes each node from the stage it stands at; and
# `bringup reprovision` of a node that failed BMC login goes back through
# discover alone, its bmc_auth ticket kept open and no other opened.
. "$(dirname "$0")/lib.sh"
cd "$T"
bringup sim --nodes 4 --seed 7 --dir rack --faults bmc_auth --maas-commission-ms 100 --maas-deploy-ms 100 \
	--daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
export BRINGUP_DB=$T/inv.db BRINGUP_SSH_PUBKEY=$BRINGUP_SSH_KEY.pub
bad=$(jq -r '.nodes[] | select(.faults | index("bmc_auth")) | .hostname' rack/truth.json)
set -- $(jq -r '.nodes[] | select(.faults == []) | .hostname' rack/truth.json)
a=$1 b=$2 c=$3
bringup import --manifest rack/rack.csv >/dev/null
state_of() { bringup status --json | jq -r --arg h "$1" '.nodes[] | select(.hostname == $h) | .state'; }
events_to() { inv_sql inv.db "select count(*) from events e join nodes n on n.id = e.node_id
	where n.hostname = '$1' and e.to_state = '$2' and e.from_state is not e.to_state"; }

# validate of a node only imported: refused before any node, named with the
# stage that takes it.
before=$(inventory_state inv.db)
rc=0; bringup validate "$a" "$b" > v.out 2> v.err || rc=$?
assert_eq "$rc" 2 "validate of imported-only nodes ($(cat v.err))"
assert_contains "$(cat v.err)" "$a is 'new': run bringup discover first, or --force" "refusal names the node"
assert_contains "$(cat v.err)" "$b is 'new'" "every refused node named"
assert_eq "$(inventory_state inv.db)" "$before" "nothing touched"
assert_eq "$(state_of "$a")" new "still new"
# gate and configure likewise; tickets and status take any named node.
rc=0; bringup gate "$a" 2> g.err || rc=$?
assert_eq "$rc" 2 "gate of a new node ($(cat g.err))"
rc=0; bringup configure "$a" 2> c.err || rc=$?
assert_eq "$rc" 2 "configure of a new node ($(cat c.err))"
bringup status "$a" >/dev/null || fail "status of a named new node"
bringup tickets "$a" >/dev/null || fail "tickets of a named new node"
assert_eq "$(inventory_state inv.db)" "$before" "nothing touched by the refusals"

# --force: taken, and the history says so.
rc=0; bringup validate --force --timeout 5 "$c" > vf.out 2> vf.err || rc=$?
[ "$rc" -le 1 ] || fail "validate --force exit $rc: $(tail -3 vf.err)"
[ "$(state_of "$c")" != new ] || fail "validate --force left it new"
assert_contains "$(bringup history "$c")" "forced (--force)" "the forced transition in the history"

# run --only over nodes at different states: each from its own stage.
bringup discover -q "$b" || fail "discover $b"
bringup configure -q "$b" || fail "configure $b"
assert_eq "$(state_of "$b")" configured "b configured"
rc=0; bringup run --json -q --only "$a" "$b" > run.json 2> run.err || rc=$?
assert_eq "$rc" 0 "run --only ($(tail -3 run.err))"
assert_eq "$(state_of "$a")" golden "a golden"
assert_eq "$(state_of "$b")" golden "b golden"
assert_eq "$(events_to "$b" discovered)" 1 "b discovered once, not again"
assert_eq "$(events_to "$b" configured)" 1 "b configured once, not again"
assert_eq "$(events_to "$a" discovered)" 1 "a discovered by the run"
assert_eq "$(jq -r '[.stages[] | select(.skipped | not) | .name] | join(",")' run.json)" \
	discover,configure,enlist,validate,gate,tickets "every stage some node needed ran (firmware: only with --firmware)"
rc=0; bringup run --json -q --only "$a" > run2.json 2> run2.err || rc=$?
assert_eq "$rc" 0 "run --only of a golden node ($(tail -3 run2.err))"
assert_eq "$(jq -r '[.stages[] | select(.skipped | not) | .name] | join(",")' run2.json)" gate,tickets \
	"a golden node: gate and tickets only"

# A node that failed BMC login: failed in discover, with its ticket.
rc=0; bringup run -q --only "$bad" > bad.out 2>&1 || rc=$?
assert_eq "$rc" 1 "run of the bmc_auth node ($(tail -3 bad.out))"
assert_eq "$(state_of "$bad")" failed "bmc_auth node failed"
kinds() { bringup tickets --json | jq -r --arg h "$bad" '[.tickets[] | select(.hostname == $h) | .fault] | sort | join(",")'; }
open_before=$(kinds)
assert_contains "$open_before" bmc_auth "its bmc_auth ticket"
all_before=$(inv_sql inv.db "select count(*) from tickets")
rc=0; bringup validate "$bad" 2> vb.err || rc=$?
assert_eq "$rc" 2 "validate of a node failed in discover"
assert_contains "$(cat vb.err)" "$bad is 'failed' (in discover): run bringup discover" "names where it failed"
rc=0; bringup enlist "$bad" 2> eb.err || rc=$?
assert_eq "$rc" 2 "enlist of a node failed in discover ($(cat eb.err))"

rc=0; bringup reprovision -q "$bad" > repro.out 2>&1 || rc=$?
assert_eq "$rc" 1 "reprovision exit (it fails login again): $(tail -3 repro.out)"
assert_contains "$(bringup history "$bad")" "reprovision from failed in discover" "reset back to discover"
assert_eq "$(state_of "$bad")" failed "failed again, in discover"
for s in configured enlisted deployed validated golden quarantined; do
	assert_eq "$(events_to "$bad" $s)" 0 "never $s"
done
assert_eq "$(kinds)" "$open_before" "its bmc_auth ticket kept open, no other opened"
assert_eq "$(inv_sql inv.db "select count(*) from tickets")" "$all_before" "no ticket filed or closed"
assert_eq "$(inv_sql inv.db "select count(*) from tickets t join nodes n on n.id = t.node_id
	where n.hostname = '$bad' and t.status <> 'open'")" 0 "none closed"
echo "named nodes: refused out of turn (exit 2) unless --force; run --only and reprovision start each at its stage"
