#!/bin/sh
# A rack walked a window of BMCs at a time keeps each BMC's connections for
# its whole walk: a BMC opens at most --per-bmc of them. The HTTP core gives
# every 64 BMCs a curl multi of their own; its idle connections were shared
# out among all of them, also those whose BMCs had not started or were done,
# so a multi at work kept fewer than its BMCs used and curl closed one as
# each request ended (1,024 BMCs behind 256 requests in flight opened 50
# connections each, not 4). Here 260 BMCs (five multis) behind 16 requests
# in flight, 8 BMCs at work at a time: before, 6,419 connections (25 a BMC).
. "$(dirname "$0")/lib.sh"
cd "$T"
n=260
bringup sim --no-hosts --nodes $n --seed 5 --latency-ms 2 --dir rack --daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
bringup import --db inv.db --manifest rack/rack.csv >/dev/null
rc=0
bringup discover -v -v --db inv.db --max-inflight 16 --per-bmc 4 --workers 1 --json > out.json 2> err.txt || rc=$?
assert_eq "$rc" 0 "discover exit code ($(grep -v DEBUG err.txt | head -c 300))"
assert_eq "$(jq .discovered out.json)" $n "BMCs discovered"
line=$(grep -o "$n BMCs: [0-9]* connections opened" err.txt) || fail "no connection count in the log"
conns=${line#"$n BMCs: "}
conns=${conns%% *}
[ "$conns" -le $((n * 4)) ] || fail "$conns connections for $n BMCs at 4 each: curl closed connections in use"
# and not fewer than one each: the count is real
[ "$conns" -ge $n ] || fail "$conns connections for $n BMCs"
echo "ok: $conns connections for $n BMCs"
