#!/bin/sh
# bringup run on PostgreSQL ends a rack exactly as on SQLite: two identical
# simulated racks of 14 nodes (same seed, same faults: a dead BMC, refused
# BMC credentials, a failed PSU, a GPU at x4, swapped cables, a failed
# commissioning, disks listed out of order, outdated firmware, a bogus
# sensor, BIOS drift), one run with its inventory in a SQLite file and
# one in a database of a real PostgreSQL (tests/e2e/lib.sh: pg_start);
# every node's state, failure kind and checks (name and result), every
# ticket (node and fault), the golden count and the run's summary are the
# same, and the PostgreSQL run wrote its database, not a file. Skipped,
# saying so, without a PostgreSQL server.
. "$(dirname "$0")/lib.sh"
cd "$T"
pg_start
faults=bmc_down,bmc_auth,psu_failed,pcie_degraded,cable_swap,commission_fail,nvme_order,fw_outdated,thermal_bogus,bios_drift
for r in lite pg; do
	bringup sim --nodes 14 --seed 60 --dir $r --faults "$faults" --maas-commission-ms 100 --maas-deploy-ms 100 \
		--daemon >/dev/null &
done
wait
at_exit "stop_sim $T/lite; stop_sim $T/pg"
[ -f lite/env ] && [ -f pg/env ] || fail "a simulator did not start"
BR_TEST_DB=sqlite lite_db=$(db_for lite)
BR_TEST_DB=pg pg_db=$(db_for inv)
case $pg_db in postgresql://*) ;; *) fail "no PostgreSQL URI: $pg_db" ;; esac

run_rack() { # DIR DB: import and run the rack; the run's summary into DIR.json
	(
		set -a; . "$T/$1/env"; set +a
		export BRINGUP_DB=$2 BRINGUP_SSH_PUBKEY=$BRINGUP_SSH_KEY.pub BRINGUP_BMC_TIMEOUT=3 BRINGUP_BMC_RETRIES=1
		bringup import --manifest "$T/$1/rack.csv" >/dev/null
		rc=0; bringup run --json -q > "$T/$1.json" 2> "$T/$1.err" || rc=$?
		[ "$rc" -eq 1 ] || fail "$1: run exit $rc, want 1: $(tail -n 3 "$T/$1.err")"
	)
}
run_rack lite "$lite_db"
run_rack pg "$pg_db"

# What each inventory holds, as status and tickets show it.
outcome() { # DB
	bringup status --db "$1" --json |
		jq -r '.nodes[] | "\(.hostname) \(.state) \(.failure_kind // "-") \([.checks[] | "\(.name)=\(.result)"] | sort | join(","))"' |
		sort
	bringup tickets --db "$1" --json | jq -r '.tickets[] | "ticket \(.hostname) \(.fault)"' | sort
}
outcome "$lite_db" > lite.txt
outcome "$pg_db" > pg.txt
cmp -s lite.txt pg.txt || fail "PostgreSQL's rack differs from SQLite's: $(diff lite.txt pg.txt | head -10)"
# The rack is the one its faults make: not all golden, not all failed.
golden=$(grep -c ' golden ' pg.txt || true)
assert_eq "$golden" "$(grep -c ' golden ' lite.txt || true)" "golden count"
[ "$golden" -ge 2 ] && [ "$golden" -le 8 ] || fail "golden count $golden of 14 with 9 nodes that cannot end golden"
assert_eq "$(grep -c '^ticket ' pg.txt)" "$(grep -c '^ticket ' lite.txt)" "tickets"
grep -q ' failed commission_failed ' pg.txt || fail "no commission_failed node on PostgreSQL: $(cat pg.txt)"
grep -q ' failed bmc_unreachable ' pg.txt || fail "no bmc_unreachable node on PostgreSQL"
grep -q ' failed bmc_auth ' pg.txt || fail "no bmc_auth node on PostgreSQL"
summary() { jq -c '[.states, .faults, .tickets_open, .inventory]' "$1"; }
assert_eq "$(summary pg.json)" "$(summary lite.json)" "run summaries"

# It was PostgreSQL that held it: the rows are there, no file was made.
assert_eq "$(inv_sql "$pg_db" "select count(*) from nodes where state = 'golden'")" "$golden" "golden rows in PostgreSQL"
[ "$(inv_sql "$pg_db" "select count(*) from events")" -gt 50 ] || fail "no history in PostgreSQL"
assert_eq "$(ls "$T" | grep -c '\.db' || true)" 1 "inventory files (SQLite's only)"
echo "same rack on SQLite and PostgreSQL: $golden golden, $(grep -c '^ticket ' pg.txt) tickets"
