#!/bin/sh
# validate SIGKILLed while it holds its nodes' leases (issue 25), then run
# again once they have expired (a short BRINGUP_LEASE_TTL): the second
# validate takes the dead holder's leases over (each node's history says
# so, naming the dead pid and the expiry), and every node ends with
# the verdict an undisturbed validate gives the same rack (same seed, same
# faults): same state, same checks passing and failing, one move to
# validated per node and its history the undisturbed one's plus the
# takeover, nothing twice. The kill point is an
# event: the first node's "facts collected" log line, while the
# validate's lease rows are all in the inventory.
. "$(dirname "$0")/lib.sh"
cd "$T"
faults=gpu_missing,psu_failed,nvme_missing
# rack DIR: simulated, imported, discovered and deployed
rack() {
	bringup-sim --nodes 6 --seed 9 --faults $faults --maas-commission-ms 100 --maas-deploy-ms 100 \
		--dir "$T/$1" --daemon >/dev/null
	at_exit "stop_sim $T/$1"
	(
		set -a; . "$T/$1/env"; set +a
		BRINGUP_DB=$(db_for "$1") && export BRINGUP_DB
		bringup import --manifest "$T/$1/rack.csv" >/dev/null
		bringup discover -q
		bringup enlist --skip-configure --poll-ms 50 -q
	)
}
verdicts() { # validate --json: each node's state and checks, by name
	jq -S '[.nodes[] | {hostname, state, checks: ([.checks[] | "\(.name)=\(.result)"] | sort)}] | sort_by(.hostname)' "$1"
}
# an event's reason as both racks would give it: MAAS ids and the rack's
# directory are each simulator's own
same() { sed -E "s# as [a-z0-9]{6}# as ID#g; s#$T/(calm|rack)/#RACK/#g"; }
signal_tree() { kill -"$1" "$2"; for c in $(pgrep -P "$2"); do kill -"$1" "$c" 2>/dev/null || true; done; }

# ---- the undisturbed run ------------------------------------------------
rack calm
(
	set -a; . "$T/calm/env"; set +a
	BRINGUP_DB=$(db_for calm) && export BRINGUP_DB
	rc=0
	bringup validate --parallel 1 --workers 1 --json > calm.json 2> calm.err || rc=$?
	[ "$rc" -le 1 ] || fail "the undisturbed validate exited $rc: $(cat calm.err)"
)
verdicts calm.json > calm.verdicts
assert_eq "$(jq '.nodes | length' calm.json)" 6 "nodes the undisturbed validate judged"
[ "$(jq '[.nodes[].checks[] | select(.result == "fail")] | length' calm.json)" -gt 0 ] ||
	fail "no check fails on the faulty rack: the comparison proves little"

# ---- killed, then run again --------------------------------------------
rack rack
set -a; . "$T/rack/env"; set +a
DB=$(db_for rack)
export BRINGUP_DB=$DB
held() { inv_sql "$DB" "select count(*) from leases where pid = $1 and stage = 'bringup-validate'"; }
# One node at a time, so the kill lands with nodes still to probe.
BRINGUP_LEASE_TTL=2 bringup validate -v --parallel 1 --workers 1 --json > first.json 2> first.err &
p1=$!
at_exit "kill -9 $p1 2>/dev/null || true"
i=0
until grep -q 'facts collected' first.err; do
	kill -0 $p1 2>/dev/null || fail "the first validate ended before any facts: $(cat first.err)"
	i=$((i + 1)); [ $i -lt 600 ] || fail "no facts collected in 60 s"
	sleep 0.05
done
assert_eq "$(held $p1)" 6 "leases the first validate holds when killed"
signal_tree KILL $p1
rc=0; wait $p1 || rc=$?
assert_eq "$rc" 137 "the first validate killed"
assert_eq "$(held $p1)" 6 "the dead validate's leases left in the inventory"
assert_eq "$(inv_sql "$DB" "select count(*) from nodes where state = 'deployed'")" 6 \
	"nodes still deployed after the kill"

# The second starts once the dead holder's leases have expired, as a
# controller on another machine would find them (it cannot see the pid).
i=0
until [ "$(inv_sql "$DB" "select count(*) from leases where expires_at > $(date +%s)")" = 0 ]; do
	i=$((i + 1)); [ $i -lt 100 ] || fail "the dead validate's leases never expired"
	sleep 0.1
done
rc=0
bringup validate --parallel 1 --workers 1 --json > second.json 2> second.err || rc=$?
[ "$rc" -le 1 ] || fail "the second validate exited $rc: $(cat second.err)"
verdicts second.json > second.verdicts
cmp -s calm.verdicts second.verdicts ||
	fail "verdicts differ from the undisturbed run: $(diff calm.verdicts second.verdicts)"
assert_eq "$(held $p1)" 0 "the dead holder's leases left"
assert_eq "$(inv_sql "$DB" "select count(*) from leases")" 0 "leases left after the second validate"
bringup status --json > st.json
for h in $(jq -r '.nodes[].hostname' calm.json); do
	assert_eq "$(jq -r --arg h "$h" '.nodes[] | select(.hostname == $h) | .state' st.json)" \
		"$(jq -r --arg h "$h" '.nodes[] | select(.hostname == $h) | .state' calm.json)" "$h: state"
	hist=$(inv_sql "$DB" "select e.reason from events e join nodes n on n.id = e.node_id where n.hostname = '$h' order by e.id")
	assert_contains "$hist" "lease taken over from stage bringup-validate" "$h: the history records the takeover"
	assert_contains "$hist" "pid $p1 on host $(hostname), expired at" "$h: the takeover names the dead holder and its expiry"
	assert_eq "$(inv_sql "$DB" "select count(*) from events e join nodes n on n.id = e.node_id
		where n.hostname = '$h' and e.to_state = 'validated'")" 1 "$h: moves to validated"
	assert_eq "$(inv_sql "$DB" "select count(*) from events e join nodes n on n.id = e.node_id
		where n.hostname = '$h' and e.reason like 'lease taken over%'")" 1 "$h: takeovers recorded"
	# the undisturbed rack's history, and the takeover: nothing twice
	assert_eq "$(inv_sql "$DB" "select e.to_state || ' ' || e.reason from events e join nodes n on n.id = e.node_id
		where n.hostname = '$h' and e.reason not like 'lease taken over%' order by e.id" | same)" \
		"$(inv_sql "$(db_for calm)" "select e.to_state || ' ' || e.reason from events e join nodes n on n.id = e.node_id
		where n.hostname = '$h' order by e.id" | same)" "$h: events besides the takeover"
done
exit 0
