#!/bin/sh
# A run killed between recording a login's Context and the BMC's answer, on
# a BMC that refuses the node's credentials (bmc_auth: it has others than
# the manifest says): the next stage's reclaim cannot list that BMC's
# sessions (HTTP 401 to the same credentials), so the login was refused
# too and made no session: the record is forgotten, saying why. A session
# whose URI was recorded (the login answered, the credentials changed
# since) stays recorded, to be tried again. t5012's kills left the first
# kind behind (seed 631 in a CI run: 0 open on the BMCs, 1 recorded).
. "$(dirname "$0")/lib.sh"
cd "$T"
bringup sim --no-hosts --nodes 2 --seed 3 --faults bmc_auth --dir rack --daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
db=$(db_for inv)
bringup import --db "$db" --manifest rack/rack.csv >/dev/null
refused=$(jq -r '.nodes[] | select(.faults | index("bmc_auth")) | .hostname' rack/truth.json)
[ -n "$refused" ] || fail "no node with bmc_auth in truth.json"
id=$(inv_sql "$db" "select id from nodes where hostname = '$refused'")
bmc=$(inv_sql "$db" "select bmc from nodes where hostname = '$refused'")
dead=$(sh -c 'echo $$')
now=$(date +%s)
inv_sql "$db" "insert into bmc_sessions(node_id, uri, pid, host, pid_start, opened_at) values
	($id, 'context:bringup-00000000000000000000000000000001', $dead, '$(hostname)', 1, $now),
	($id, 'http://$bmc/redfish/v1/SessionService/Sessions/7', $dead, '$(hostname)', 1, $now)" >/dev/null
bringup discover -v --db "$db" --timeout 3 --retries 0 > /dev/null 2> err.txt || true
assert_contains "$(cat err.txt)" "refuses the credentials of the login context:bringup-00000000000000000000000000000001 (HTTP 401): it made no session" \
	"the refused login forgotten, saying why"
assert_eq "$(inv_sql "$db" "select count(*) from bmc_sessions where uri like 'context:%'")" 0 \
	"no pending login recorded after the run"
assert_eq "$(inv_sql "$db" "select uri from bmc_sessions")" "http://$bmc/redfish/v1/SessionService/Sessions/7" \
	"the session whose URI was recorded stays, for the next run"
assert_contains "$(cat err.txt)" "Sessions/7 an earlier run left is still open" "and says it stays open"
