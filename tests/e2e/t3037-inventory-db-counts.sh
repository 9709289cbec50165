#!/bin/sh
# What a stage's --json "db" object says the database did (inventory.h's
# inv_db_counts) is what ran: a fresh import changes exactly the rows the
# inventory then holds, an unchanged re-import changes none in one commit;
# discover with forked workers counts what its workers' own connections
# did (the same work as --workers 1); and the statements per node of
# import and discover stay flat from 16 to 48 nodes. BR_TEST_DB=pg runs it
# on PostgreSQL (t6014).
. "$(dirname "$0")/lib.sh"
cd "$T"
bringup sim --no-hosts --nodes 48 --seed 3 --latency-ms 5 --dir rack --daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
head -n 17 rack/rack.csv > small.csv

db() { jq -e ".db.$2" "$1" || fail "$1: no db.$2"; }
# per_node FILE NODES FIELD: FIELD per node, to 3 decimals
per_node() { jq -n --argjson v "$(db "$1" "$3")" --argjson n "$2" '$v / $n * 1000 | round / 1000'; }
# within A B PERCENT: A and B differ by at most PERCENT of the larger
within() { jq -en --argjson a "$1" --argjson b "$2" --argjson p "$3" '($a - $b | fabs) <= ([$a, $b] | max) * $p / 100' >/dev/null; }

# Import: every row written is counted, and only those.
bringup import --db "$(db_for big)" --manifest rack/rack.csv --json > import-big.json
bringup import --db "$(db_for small)" --manifest small.csv --json > import-small.json
held=$(inv_sql "$(db_for big)" "select (select count(*) from nodes) + (select count(*) from events)")
assert_eq "$(db import-big.json rows_changed)" "$held" "rows changed by a fresh import of 48 nodes"
assert_eq "$(db import-big.json backend)" "\"$([ "$BR_TEST_DB" = pg ] && echo postgresql || echo sqlite)\"" "backend"
bringup import --db "$(db_for big)" --manifest rack/rack.csv --json > reimport.json
assert_eq "$(db reimport.json rows_changed)" 0 "rows changed by an unchanged re-import"
assert_eq "$(db reimport.json commits)" 1 "commits of an unchanged re-import"
[ "$(db reimport.json statements)" -gt 0 ] || fail "a re-import ran no statement"
[ "$(db reimport.json round_trips)" -ge "$(db reimport.json statements)" ] || fail "fewer round trips than statements"
# Per node: what the 48-node import wrote beyond the 16-node one's cost
# (opening, migrations: the same for both) per extra node, against the
# 16-node one's per node, rows exactly.
extra() { jq -n --argjson b "$(db import-big.json "$1")" --argjson s "$(db import-small.json "$1")" '($b - $s) / 32'; }
assert_eq "$(extra rows_changed)" "$(per_node import-small.json 16 rows_changed | jq '. - 0')" \
	"import rows changed per node, 48 against 16 nodes"
[ "$(jq -n --argjson v "$(extra rows_changed)" '$v >= 2')" = true ] || fail "import: under 2 rows per node"

# Discover: the workers' connections are counted in the parent's figure.
bringup discover --db "$(db_for big)" --workers 1 -q --json > one.json
assert_eq "$(jq .discovered one.json)" 48 "discovered with one worker"
bringup import --db "$(db_for three)" --manifest rack/rack.csv >/dev/null
bringup discover --db "$(db_for three)" --workers 3 -v --json > three.json 2> three.err
grep -q "over 3 worker processes" three.err || fail "--workers 3 did not fork workers"
assert_eq "$(jq .discovered three.json)" 48 "discovered with three workers"
for f in statements rows_changed commits bytes_bound; do
	within "$(db one.json $f)" "$(db three.json $f)" 15 ||
		fail "discover $f: $(db three.json $f) with 3 workers, $(db one.json $f) with one"
done
# The rows each node's discovery stores (its facts, MACs, drives, events)
# are far more than the parent alone writes: a count that missed the
# workers would fall under one per node.
[ "$(db three.json rows_changed)" -gt $((48 * 4)) ] || fail "discover's rows changed: $(db three.json rows_changed)"

# Flat: discover's statements and rows per node at 16 and 48 nodes.
bringup discover --db "$(db_for small)" --workers 1 -q --json > small.json
assert_eq "$(jq .discovered small.json)" 16 "discovered of 16"
for f in statements rows_changed round_trips; do
	a=$(per_node small.json 16 $f) b=$(per_node one.json 48 $f)
	within "$a" "$b" 20 || fail "discover $f per node: $a at 16 nodes, $b at 48"
done
echo "ok: discover $(per_node one.json 48 statements) statements, $(per_node one.json 48 rows_changed) rows per node"
