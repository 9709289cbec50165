#!/bin/sh
# Writers by zone on one PostgreSQL inventory (issue 25): a stage given
# --zone waits only for writers of its zones and of none. A writer of zone
# b holding its lock (a psql session, as a controller of hall b in the
# middle of a store) does not stop discover --zone a, whose nodes are all
# discovered meanwhile; discover --zone b waits for it (none of b's nodes
# changes while it holds) and finishes once it lets go. The lock is the
# one inventory/backend_pg.h names: hall b's writers take it as this
# session does.
BR_TEST_DB=pg
. "$(dirname "$0")/lib.sh"
cd "$T"
bringup sim --no-hosts --nodes 6 --seed 4 --dir rack --daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
export BRINGUP_DB="$(db_for inv)"
awk -F, -v OFS=, 'NR == 1 { print $0, "zone"; next } { print $0, substr("ab", (NR - 2) % 2 + 1, 1) }' \
	rack/rack.csv > zoned.csv
bringup import --manifest zoned.csv >/dev/null
in_zone() { # ZONE STATE: how many of the zone's nodes are in the state
	inv_sql "$BRINGUP_DB" "select count(*) from nodes where zone = '$1' and state = '$2'"
}
assert_eq "$(in_zone a new)/$(in_zone b new)" 3/3 "nodes per zone"

# hall b's writer, at work until told (the file "release") or 60 s
(
	printf '%s\n' "BEGIN;" \
		"SELECT pg_advisory_xact_lock_shared(27710089590494576), pg_advisory_xact_lock(25202, hashtext('b'));" \
		"\\echo held" \
		"\\! i=0; while [ ! -e $T/release ] && [ \$i -lt 600 ]; do sleep 0.1; i=\$((i + 1)); done" \
		"COMMIT;" | _inv_psql "$BRINGUP_DB" > holder.out 2>&1
) &
holder=$!
at_exit "touch $T/release"
i=0
until grep -q held holder.out 2>/dev/null || [ $i -ge 100 ]; do sleep 0.1; i=$((i + 1)); done
grep -q held holder.out || fail "the zone b writer did not take its lock: $(cat holder.out)"

rc=0
timeout 60 bringup discover --zone a -q 2> a.err || rc=$?
assert_eq "$rc" 0 "discover --zone a beside zone b's writer ($(cat a.err))"
assert_eq "$(in_zone a discovered)" 3 "zone a's nodes discovered"
kill -0 $holder 2>/dev/null || fail "zone b's writer ended before discover --zone a did"

bringup discover --zone b -q 2> b.err &
b=$!
sleep 2
assert_eq "$(in_zone b new)" 3 "zone b's nodes while its writer holds the lock"
kill -0 $b 2>/dev/null || fail "discover --zone b ended while zone b's writer held the lock: $(cat b.err)"
touch release
rc=0
wait $b || rc=$?
wait $holder || true
assert_eq "$rc" 0 "discover --zone b once the writer let go ($(cat b.err))"
assert_eq "$(in_zone b discovered)" 3 "zone b's nodes discovered"
