#!/bin/sh
# A stage killed with SIGKILL (no handler runs: the OOM killer, a power cut)
# leaves its Redfish sessions open, and an iDRAC keeps them for 30 minutes
# and answers the ninth login 503 RAC0218. Each session is recorded in the
# inventory (its URI, never its token) before it is used, and the next stage
# to start DELETEs the ones killed runs left, over basic auth: after each of
# three kills every BMC holds only the last killed run's session, and the
# final run leaves none of its own open and none recorded. A BMC that the killed run
# filled (seven sessions of people at its console, the eighth the killed
# run's) gets its slot back: the next run logs in with a session of its own,
# and the console's sessions stay. Kill points are events: the inventory
# holding a session of every BMC for the running stage, whose walks all hang
# (fault hang: Thermal never answers) with their sessions open.
. "$(dirname "$0")/lib.sh"
cd "$T"
N=3
bringup sim --no-hosts --nodes $N --seed 5 --faults hang:$N --dir rack --daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
db=$(db_for inv)
bringup import --db "$db" --manifest rack/rack.csv >/dev/null
bmcs=$(tail -n +2 rack/rack.csv | cut -d, -f4)
first_bmc=$(echo "$bmcs" | head -n 1)

listed() { # BMC: the sessions it lists
	curl -sf -u "root:$BRINGUP_BMC_PASSWORD" "http://$1/redfish/v1/SessionService/Sessions" | jq '.Members | length'
}
open_sessions() { # summed over the rack
	total=0
	for bmc in $bmcs; do total=$((total + $(listed "$bmc"))); done
	echo "$total"
}
recorded() { inv_sql "$db" "select count(*) from bmc_sessions"; }
# Sessions recorded by processes still running (the stage, its workers).
live_recorded() {
	n=0
	for p in $(inv_sql "$db" "select pid from bmc_sessions where uri not like 'context:%'"); do
		if kill -0 "$p" 2>/dev/null; then n=$((n + 1)); fi
	done
	echo "$n"
}
wait_live_recorded() { # N WHAT
	i=0
	while [ "$(live_recorded)" -lt "$1" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
	assert_eq "$(live_recorded)" "$1" "$2"
}
deletes() { # sessions DELETEd with basic auth, as the simulator logged them
	jq -s '[.[] | select(.method == "DELETE" and .session == "deleted" and .auth == "basic")] | length' rack/requests.log
}
# The stage (and its workers) killed as one: its own process group.
killed_discover() { # WORKERS WHAT
	setsid bringup-discover -v --db "$db" --timeout 60 --retries 0 --workers "$1" >/dev/null 2>>err.txt &
	pid=$!
	wait_live_recorded $N "$2: a session of every BMC recorded"
	kill -s KILL -- "-$pid"
	wait "$pid" 2>/dev/null || true
}

killed_discover 1 "first run"
assert_eq "$(open_sessions)" $N "sessions left open by the first SIGKILL"
assert_eq "$(recorded)" $N "the killed run's sessions stay recorded"
assert_eq "$(inv_sql "$db" "select count(*) from bmc_sessions where uri like 'http://%/redfish/v1/SessionService/Sessions/%'")" $N \
	"each recorded by its URI on its BMC"
# The table's columns, in order, on either backend.
case $db in
postgresql://* | postgres://* | *=*)
	cols="select string_agg(column_name::text, ',' order by ordinal_position) from information_schema.columns where table_schema = current_schema() and table_name = 'bmc_sessions'" ;;
*)	cols="select group_concat(name, ',') from pragma_table_info('bmc_sessions')" ;;
esac
assert_eq "$(inv_sql "$db" "$cols")" \
	"id,node_id,uri,pid,host,pid_start,opened_at" "a session's row holds no token"

for k in 2 3; do
	: > rack/requests.log
	killed_discover $((k - 1)) "run $k"
	assert_eq "$(deletes)" $N "run $k deleted the sessions the run before it left"
	assert_eq "$(open_sessions)" $N "after kill $k, only the last killed run's sessions are open"
	assert_eq "$(recorded)" $N "after kill $k, only the last killed run's sessions are recorded"
done
assert_contains "$(cat err.txt)" "deleted session http://" "a reclaimed session is logged"
# Each login carried a Context of its own (Session v1_5_0), kept by the BMC.
uri=$(inv_sql "$db" "select uri from bmc_sessions order by id limit 1")
ctx=$(curl -sf -u "root:$BRINGUP_BMC_PASSWORD" "$uri" | jq -r .Context)
case $ctx in bringup-????????????????????????????????) ;; *) fail "the killed run's session carries Context '$ctx'" ;; esac
assert_eq "$(inv_sql "$db" "select count(*) from bmc_sessions where uri like 'context:%'")" 0 \
	"logins answered leave no pending record"
this_host=$(inv_sql "$db" "select host from bmc_sessions limit 1")

# The first BMC's table full: seven sessions from its console beside the
# last killed run's.
for i in 1 2 3 4 5 6 7; do
	curl -sf -o /dev/null -H 'Content-Type: application/json' \
		-d "{\"UserName\":\"root\",\"Password\":\"$BRINGUP_BMC_PASSWORD\"}" \
		"http://$first_bmc/redfish/v1/SessionService/Sessions" || fail "console login $i"
done
assert_eq "$(listed "$first_bmc")" 8 "the first BMC's table full"

# The final run: Thermal times out (2 s), every walk ends and logs out.
: > rack/requests.log
bringup discover --db "$db" --timeout 2 --retries 0 --json > out.json 2> final.txt || true
assert_eq "$(deletes)" $N "the final run deleted the last killed run's sessions"
logins() { jq -s --arg b "$first_bmc" '[.[] | select(.bmc == $b and .method == "POST" and (.path | endswith("/Sessions")))]' rack/requests.log; }
assert_eq "$(logins | jq -c '[.[].status]')" "[201]" "the full BMC's login, once its leaked session was deleted"
assert_eq "$(jq -s --arg b "$first_bmc" '[.[] | select(.bmc == $b and .method == "GET" and .auth == "basic")] | length' rack/requests.log)" 0 \
	"the full BMC walked with a session, not basic auth"
assert_eq "$(nodes_in "$db" discovered)" $N "every node discovered"
assert_eq "$(listed "$first_bmc")" 7 "the console's sessions stay"
assert_eq "$(open_sessions)" 7 "sessions open after the final run (the console's)"
assert_eq "$(recorded)" 0 "sessions recorded after the final run"

# A run killed after the BMC answered its login but before the session was
# recorded left only the login's Context: the next run finds the session by
# it among the BMC's sessions and deletes it, and forgets a login that made
# none; the console's sessions (no Context, or another) stay.
ctx=bringup-0123456789abcdef0123456789abcdef
curl -sf -o /dev/null -H 'Content-Type: application/json' \
	-d "{\"UserName\":\"root\",\"Password\":\"$BRINGUP_BMC_PASSWORD\",\"Context\":\"$ctx\"}" \
	"http://$first_bmc/redfish/v1/SessionService/Sessions" || fail "the killed run's login"
assert_eq "$(listed "$first_bmc")" 8 "the first BMC holds the console's sessions and the killed login's"
dead=$(sh -c 'echo $$')
first=$(inv_sql "$db" "select id from nodes where bmc = '$first_bmc'")
second=$(inv_sql "$db" "select id from nodes where bmc <> '$first_bmc' order by id limit 1")
[ -n "$first" ] && [ -n "$second" ] || fail "the nodes of the BMCs: '$first' '$second'"
now=$(date +%s)
inv_sql "$db" "insert into bmc_sessions(node_id, uri, pid, host, pid_start, opened_at) values
	($first, 'context:$ctx', $dead, '$this_host', 1, $now),
	($second, 'context:bringup-ffffffffffffffffffffffffffffffff', $dead, '$this_host', 1, $now)" >/dev/null
: > rack/requests.log
bringup discover -v --db "$db" --timeout 2 --retries 0 > /dev/null 2> pending.txt || true
assert_eq "$(listed "$first_bmc")" 7 "the killed login's session deleted, the console's kept"
assert_contains "$(cat pending.txt)" "no session carries the Context of the login context:bringup-ffff" \
	"a login that made no session is forgotten, saying so"
assert_eq "$(recorded)" 0 "nothing recorded after the run"
