#!/bin/sh
# A fenced write (issue 25). A discover paused (SIGSTOP) past its lease
# loses the node to a second discover, which takes the expired lease over
# with the next fencing token; the first, resumed (SIGCONT) while the
# second still works the node, finishes reading its BMC first, and its
# store is refused ("lease on HOST lost to PID@HOST (token N)") although
# the node is still in the state it read: the compare-and-set alone would
# have let it through and made the second fail. The node ends as the
# second discover left it, its history says the lease was taken over, and
# neither process crashed. A short lease (BRINGUP_LEASE_TTL) makes it
# quick; the stages renew theirs while they run (every third of it).
# Also run on PostgreSQL by t6012.
. "$(dirname "$0")/lib.sh"
cd "$T"
# Slow BMC answers: a discover of one node takes seconds.
bringup-sim --no-hosts --nodes 1 --seed 7 --latency-ms 700 --dir sim --daemon >/dev/null
at_exit "stop_sim $T/sim"
set -a; . ./sim/env; set +a
DB=$(db_for inv)
export BRINGUP_DB=$DB
bringup import --manifest sim/rack.csv >/dev/null
h=$(jq -r '.nodes[0].hostname' sim/truth.json)
log=sim/requests.log
holder() { inv_sql "$DB" "select l.pid || ' ' || l.token || ' ' || l.expires_at from leases l join nodes n on n.id = l.node_id where n.hostname = '$h'"; }
# Each of a process's children too (a worker pool), by parent pid.
signal_tree() { kill -"$1" "$2"; for c in $(pgrep -P "$2"); do kill -"$1" "$c" 2>/dev/null || true; done; }

BRINGUP_LEASE_TTL=3 bringup discover --json "$h" > d1.json 2> d1.err &
p1=$!
at_exit "kill -CONT $p1 2>/dev/null; kill $p1 2>/dev/null"
i=0
until [ "$(holder | cut -d' ' -f1)" = "$p1" ] && [ -s $log ]; do
	i=$((i + 1)); [ $i -lt 100 ] || fail "the first discover never took the lease: $(cat d1.err)"
	sleep 0.1
done
e1=$(holder | cut -d' ' -f3)
# A little way into its work, then paused: it renewed its lease meanwhile
# (every second at a TTL of 3 s).
sleep 2.2
signal_tree STOP $p1
t1=$(holder | cut -d' ' -f2)
e2=$(holder | cut -d' ' -f3)
[ "$e2" -gt "$e1" ] || fail "the first discover's lease was not renewed while it ran: expires at $e1, then $e2"
assert_eq "$(node_field "$DB" "$h" state)" new "the node's state while the first discover is paused"
sleep 4

BRINGUP_LEASE_TTL=30 bringup discover --json "$h" > d2.json 2> d2.err &
p2=$!
at_exit "kill $p2 2>/dev/null"
i=0
until [ "$(holder | cut -d' ' -f1)" = "$p2" ]; do
	i=$((i + 1)); [ $i -lt 100 ] || fail "the second discover never took the lease over: $(cat d2.err)"
	sleep 0.1
done
t2=$(holder | cut -d' ' -f2)
assert_eq "$t2" "$((t1 + 1))" "the takeover's token, one more than the first holder's"
signal_tree CONT $p1
rc1=0
wait $p1 || rc1=$?
rc2=0
wait $p2 || rc2=$?
[ "$rc1" -lt 2 ] || fail "the paused discover exited $rc1: $(tail -5 d1.err)"
assert_eq "$rc2" 0 "the second discover's exit code ($(tail -3 d2.err))"
assert_contains "$(cat d1.err)" "lease on $h lost to $p2@$(hostname) (token $t2)" "the refused write names the new holder"
assert_eq "$(jq -r '.nodes[0].result' d2.json)" discovered "the second discover's result"
assert_eq "$(node_field "$DB" "$h" state)" discovered "the node's state"
assert_eq "$(holder)" "" "no lease left behind"
assert_eq "$(inv_sql "$DB" "select t.token from lease_tokens t join nodes n on n.id = t.node_id where n.hostname = '$h'")" \
	"$t2" "the last token issued, kept after the lease was given back"

# The history: the takeover, then the second discover's store, and
# nothing of the first's.
hist=$(inv_sql "$DB" "select e.reason from events e join nodes n on n.id = e.node_id where n.hostname = '$h' order by e.id")
assert_contains "$hist" "lease taken over from stage bringup-discover" "the history records the takeover"
assert_contains "$hist" "pid $p1 on host $(hostname), expired at" "the takeover names the first holder"
after=$(printf '%s\n' "$hist" | sed -n '/lease taken over/,$p' | tail -n +2)
assert_eq "$(printf '%s\n' "$after" | grep -c 'discovered over')" 1 "stores after the takeover (the second's only)"
assert_eq "$(inv_sql "$DB" "select count(*) from events e join nodes n on n.id = e.node_id
	where n.hostname = '$h' and e.to_state = 'discovered' and e.from_state = 'new'")" 1 "moves to discovered"
exit 0
