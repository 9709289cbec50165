#!/bin/sh
# A fenced enlist (issue 25): an enlist paused (SIGSTOP) while MAAS
# commissions its machine loses the node to a second enlist once its lease
# expires; resumed (SIGCONT), it sees the machine Ready, its write is
# refused ("lease on HOST lost to PID@HOST (token N)"), and it drops the
# node: it asks MAAS nothing more of it (no boot-disk pinning, no deploy),
# so the machine is deployed once, by the second enlist, and the node ends
# deployed. Also run on PostgreSQL by t6013.
. "$(dirname "$0")/lib.sh"
cd "$T"
bringup-sim --no-hosts --nodes 1 --seed 3 --maas-latency-ms 10 --maas-commission-ms 7000 \
	--maas-deploy-ms 1500 --dir sim --daemon >/dev/null
at_exit "stop_sim $T/sim"
set -a; . ./sim/env; set +a
DB=$(db_for inv)
export BRINGUP_DB=$DB
bringup import --manifest sim/rack.csv >/dev/null
bringup discover -q || fail "discover"
h=$(jq -r '.nodes[0].hostname' sim/truth.json)
mlog=sim/maas-requests.log
holder() { inv_sql "$DB" "select l.pid || ' ' || l.token from leases l join nodes n on n.id = l.node_id where n.hostname = '$h'"; }
signal_tree() { kill -"$1" "$2"; for c in $(pgrep -P "$2"); do kill -"$1" "$c" 2>/dev/null || true; done; }
ENLIST="bringup enlist --no-ssh-key --skip-configure --poll-ms 200 --json $h"

BRINGUP_LEASE_TTL=3 $ENLIST > e1.json 2> e1.err &
p1=$!
at_exit "kill -CONT $p1 2>/dev/null; kill $p1 2>/dev/null"
i=0
until [ -n "$(node_field "$DB" "$h" maas_system_id)" ]; do
	i=$((i + 1)); [ $i -lt 100 ] || fail "the first enlist never created the machine: $(cat e1.err)"
	sleep 0.1
done
sleep 0.5
signal_tree STOP $p1
t1=$(holder | cut -d' ' -f2)
[ "$(holder | cut -d' ' -f1)" = "$p1" ] || fail "the first enlist does not hold the lease: $(holder)"
sleep 4

BRINGUP_LEASE_TTL=30 $ENLIST > e2.json 2> e2.err &
p2=$!
at_exit "kill $p2 2>/dev/null"
i=0
until [ "$(holder | cut -d' ' -f1)" = "$p2" ]; do
	i=$((i + 1)); [ $i -lt 100 ] || fail "the second enlist never took the lease over: $(cat e2.err)"
	sleep 0.1
done
t2=$(holder | cut -d' ' -f2)
assert_eq "$t2" "$((t1 + 1))" "the takeover's token"
signal_tree CONT $p1
rc1=0
wait $p1 || rc1=$?
rc2=0
wait $p2 || rc2=$?
[ "$rc1" -lt 2 ] || fail "the paused enlist exited $rc1: $(tail -5 e1.err)"
assert_eq "$rc2" 0 "the second enlist's exit code ($(tail -3 e2.err))"
assert_contains "$(cat e1.err)" "lease on $h lost to $p2@$(hostname) (token $t2)" "the refused write names the new holder"
assert_eq "$(jq -r '.nodes[0].result' e2.json)" deployed "the second enlist's result"
assert_eq "$(node_field "$DB" "$h" state)" deployed "the node's state"
# Whatever MAAS answered: the first asks nothing once it lost the node.
for op in set_boot_disk set_storage_layout deploy; do
	assert_eq "$(jq -r --arg op $op 'select(.op == $op) | .status' $mlog | wc -l)" 1 "$op calls to MAAS"
done
assert_contains "$(jq -r '.nodes[0].reason' e1.json)" "no longer this stage's node" "the first enlist's reason"
assert_eq "$(jq -r 'select(.method == "POST" and .path == "machines/" and .op == null) | .status' $mlog | wc -l)" 1 \
	"machines created in MAAS"
hist=$(inv_sql "$DB" "select e.reason from events e join nodes n on n.id = e.node_id where n.hostname = '$h' order by e.id")
assert_contains "$hist" "lease taken over from stage bringup-enlist pid $p1 on host $(hostname), expired at" \
	"the history records the takeover"
exit 0
