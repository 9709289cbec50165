#!/bin/sh
# Two operators at once on one inventory. Two discovers started together
# read each BMC once between them (a node is worked by one stage at a
# time: the per-node lease). configure and enlist --skip-configure started
# together on the same discovered nodes never move a node back: a node
# enlist deployed is not set back to `configured` by configure finishing
# later (state changes are compare-and-set on the state the stage read).
# A lease left by a process that is gone is taken over; a live holder is
# named.
. "$(dirname "$0")/lib.sh"
cd "$T"
# Slow BMCs, a fast MAAS: configure ends well after enlist has deployed.
bringup-sim --no-hosts --nodes 6 --seed 5 --latency-ms 150 --maas-latency-ms 0 --maas-commission-ms 100 \
	--maas-deploy-ms 100 --dir sim --daemon >/dev/null
at_exit "stop_sim $T/sim"
set -a; . ./sim/env; set +a
DB=$(db_for inv)
export BRINGUP_DB=$DB
echo "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBringupTestKeyOnly validator@bringup" > id.pub
bringup import --manifest sim/rack.csv >/dev/null
log=sim/requests.log
truth=sim/truth.json

# ---- two discovers at once -------------------------------------------------
bringup discover --json > d1.json 2> d1.err &
p1=$!
bringup discover --json > d2.json 2> d2.err &
p2=$!
# One that skipped nodes the other held did not do all it was asked:
# exit 1, saying so (issue 29, finding 9); never 2 or more.
for d in 1 2; do
	rc=0
	eval "wait \$p$d" || rc=$?
	held=0
	grep -q "another run holds" d$d.err && held=1
	assert_eq "$rc" "$held" "discover $d's exit code, as it skipped held nodes or not ($(tail -2 d$d.err))"
done
bringup status --json > st.json
assert_eq "$(jq -r '[.nodes[].state] | unique | join(",")' st.json)" discovered "states after two discovers"
sleep 0.3
reads=$(jq -r 'select(.method == "GET" and .path == "/redfish/v1") | .node' $log | sort | uniq -c | awk '$1 != 1')
assert_eq "$reads" "" "BMCs whose service root was read more than once"
assert_eq "$(jq -r 'select(.session == "created") | .node' $log | sort | uniq -d)" "" "BMCs with two sessions"
assert_eq "$(($(jq '.nodes | length' d1.json) + $(jq '.nodes | length' d2.json)))" 6 \
	"the two discovers split the nodes between them"

# ---- configure and enlist at once -------------------------------------------
bringup configure --poll-ms 100 --json > c.json 2> c.err &
pc=$!
bringup enlist --skip-configure --poll-ms 100 --ssh-pubkey id.pub --json > e.json 2> e.err &
pe=$!
wait $pc || true
wait $pe || true
# A transition backwards along new -> discovered -> configured -> enlisted
# -> deployed is a regression.
back=$(inv_sql "$DB" "
	with r(s, k) as (values ('new',0),('discovered',1),('configured',2),('enlisted',3),('deployed',4))
	select n.hostname || ': ' || e.from_state || ' -> ' || e.to_state
	from events e join nodes n on n.id = e.node_id join r a on a.s = e.from_state join r b on b.s = e.to_state
	where b.k < a.k")
assert_eq "$back" "" "state regressions"
bringup status --json > st.json
assert_eq "$(jq -r '[.nodes[].state] | map(select(. != "configured" and . != "deployed")) | join(",")' st.json)" "" \
	"every node ends configured or deployed"

# ---- leases: a live holder is named, a dead one taken over -----------------
h=$(jq -r '.nodes[0].hostname' $truth)
inv_sql "$DB" "update nodes set state = 'failed' where hostname = '$h'"
sleep 300 &
holder=$!
at_exit "kill $holder 2>/dev/null"
inv_sql "$DB" "delete from leases where node_id = (select id from nodes where hostname = '$h');
	insert into leases(node_id, stage, pid, host, expires_at)
	select id, 'bringup-configure', $holder, '$(hostname)', $(($(date +%s) + 3600)) from nodes where hostname = '$h'"
start=$(wc -l < $log)
rc=0
bringup discover --json "$h" > held.json 2> held.err || rc=$?
assert_contains "$(cat held.err)" "$h: bringup-configure (pid $holder on $(hostname))" "the holder is named"
assert_eq "$(jq '.nodes | length' held.json)" 0 "a held node is not worked"
sleep 0.3
assert_eq "$(tail -n +$((start + 1)) $log | wc -l)" 0 "no request to a held node's BMC"
kill $holder
wait $holder 2>/dev/null || true
bringup discover --json "$h" > taken.json 2> taken.err || fail "discover after the holder died: $(cat taken.err)"
assert_eq "$(jq -r '.nodes[0].result' taken.json)" discovered "a dead holder's lease is taken over"
# A pid the kernel gave to another process since: not the holder.
sleep 300 &
other=$!
at_exit "kill $other 2>/dev/null"
inv_sql "$DB" "update nodes set state = 'failed' where hostname = '$h';
	delete from leases where node_id = (select id from nodes where hostname = '$h');
	insert into leases(node_id, stage, pid, host, expires_at, pid_start)
	select id, 'bringup-configure', $other, '$(hostname)', $(($(date +%s) + 3600)), 1 from nodes where hostname = '$h'"
bringup discover --json "$h" > reused.json 2>/dev/null || true
assert_eq "$(jq -r '.nodes[0].result' reused.json)" discovered "a reused pid does not hold the lease"
kill $other
# Expired on another host: taken over too; live and unexpired elsewhere: held.
inv_sql "$DB" "update nodes set state = 'failed' where hostname = '$h';
	delete from leases where node_id = (select id from nodes where hostname = '$h');
	insert into leases(node_id, stage, pid, host, expires_at)
	select id, 'bringup-enlist', 1, 'elsewhere', $(($(date +%s) - 1)) from nodes where hostname = '$h'"
bringup discover --json "$h" > exp.json 2>/dev/null || true
assert_eq "$(jq -r '.nodes[0].result' exp.json)" discovered "an expired lease is taken over"
inv_sql "$DB" "update nodes set state = 'failed' where hostname = '$h';
	delete from leases where node_id = (select id from nodes where hostname = '$h');
	insert into leases(node_id, stage, pid, host, expires_at)
	select id, 'bringup-enlist', 1, 'elsewhere', $(($(date +%s) + 3600)) from nodes where hostname = '$h'"
bringup discover --json "$h" > other.json 2> other.err || true
assert_eq "$(jq '.nodes | length' other.json)" 0 "a lease held on another host is respected"
assert_contains "$(cat other.err)" "bringup-enlist (pid 1 on elsewhere)" "the remote holder is named"
assert_eq "$(inv_sql "$DB" "select count(*) from leases l join nodes n on n.id = l.node_id where n.hostname <> '$h'")" 0 \
	"stages give their leases back when they end"
exit 0
