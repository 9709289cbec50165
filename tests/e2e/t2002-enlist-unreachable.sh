#!/bin/sh
# bringup enlist refuses to start when MAAS cannot serve it: a bad key (from
# the environment or --api-key-ref) or an unreachable MAAS exits 3 with a
# clear message and changes nothing, in the inventory or in MAAS; a missing
# URL or key is bad usage (exit 2).
. "$(dirname "$0")/lib.sh"
cd "$T"

bringup-sim --no-hosts --nodes 4 --dir sim --maas-commission-ms 200 --maas-deploy-ms 200 --daemon >/dev/null
at_exit "stop_sim $T/sim"
set -a; . ./sim/env; set +a
bringup import --db t.db --manifest sim/rack.csv >/dev/null
bringup discover --db t.db -q
snapshot() { sqlite3 t.db "select hostname, state, reason, maas_system_id from nodes order by hostname; select count(*) from events"; }
before=$(snapshot)

rc=0
MAAS_API_KEY=AAAAAAAAAAAAAAAAAA:BBBBBBBBBBBBBBBBBB:CCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCC \
	bringup enlist --no-ssh-key --db t.db --skip-configure 2> bad-key.err || rc=$?
assert_eq "$rc" 3 "bad key exit"
assert_contains "$(cat bad-key.err)" "MAAS refused the API key" "bad key message"
assert_contains "$(cat bad-key.err)" "Authorization Error: Invalid API key." "bad key quotes MAAS"
! grep -q CCCCCCCC bad-key.err || fail "the key's secret was printed"

printf '%s\n' "${MAAS_API_KEY%:*}:wrongsecret" > key.txt
rc=0
env -u MAAS_API_KEY bringup enlist --no-ssh-key --db t.db --skip-configure --api-key-ref file:key.txt 2> ref.err || rc=$?
assert_eq "$rc" 3 "bad key from --api-key-ref exit"
assert_contains "$(cat ref.err)" "Invalid API key" "bad key from a file"

rc=0
bringup enlist --no-ssh-key --db t.db --skip-configure --maas-url http://127.0.0.1:1/MAAS/ --retries 1 2> down.err || rc=$?
assert_eq "$rc" 3 "unreachable exit"
assert_contains "$(cat down.err)" "cannot reach http://127.0.0.1:1/MAAS/api/2.0/users/?op=whoami" "unreachable message"

rc=0
env -u MAAS_URL bringup enlist --no-ssh-key --db t.db --skip-configure 2> nourl.err || rc=$?
assert_eq "$rc" 2 "no URL exit"
assert_contains "$(cat nourl.err)" "MAAS_URL" "no URL message"
rc=0
env -u MAAS_API_KEY bringup enlist --no-ssh-key --db t.db --skip-configure 2> nokey.err || rc=$?
assert_eq "$rc" 2 "no key exit"
rc=0
bringup enlist --no-ssh-key --db t.db --skip-configure --api-key-ref "$MAAS_API_KEY" 2> literal.err || rc=$?
assert_eq "$rc" 2 "a literal key in argv is refused"

assert_eq "$(snapshot)" "$before" "inventory changed by refused runs"
changes=$(jq -r 'select(.method != "GET") | .path' sim/maas-requests.log | wc -l)
assert_eq "$changes" 0 "requests that could change MAAS"
assert_eq "$(jq -r 'select(.status == 401) | .op' sim/maas-requests.log | sort -u)" whoami "refused requests"

# The same rack with the right key goes through.
bringup enlist --no-ssh-key --db t.db --skip-configure --poll-ms 50 -q
assert_eq "$(sqlite3 t.db "select count(*) from nodes where state = 'deployed'")" 4 "deployed with the right key"
