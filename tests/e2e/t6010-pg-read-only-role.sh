#!/bin/sh
# A PostgreSQL role that may only SELECT is enough for bringup status,
# history and report: a small rack is run with its inventory in a real
# PostgreSQL (pg_start), then a role "reader" with SELECT on the schema
# and nothing else reads it; status --json and history --json answer as
# they do for the owner, report writes the page (and, the inventory being
# no file, asks for --out, exit 2); a stage that writes is refused by
# PostgreSQL (permission denied, exit 3) and changes nothing, so the role
# is really read-only. Skipped, saying so, without a PostgreSQL server.
. "$(dirname "$0")/lib.sh"
cd "$T"
pg_start
bringup sim --nodes 4 --seed 61 --dir rack --faults psu_failed --maas-commission-ms 100 --maas-deploy-ms 100 \
	--daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
BR_TEST_DB=pg DB=$(db_for inv)
export BRINGUP_DB=$DB BRINGUP_SSH_PUBKEY=$BRINGUP_SSH_KEY.pub
bringup import --manifest rack/rack.csv >/dev/null
rc=0; bringup run -q >/dev/null 2>run.err || rc=$?
assert_eq "$rc" 1 "run exit (a quarantined node): $(tail -n 3 run.err)"

inv_sql "$DB" "CREATE ROLE reader LOGIN;
GRANT USAGE ON SCHEMA public TO reader;
GRANT SELECT ON ALL TABLES IN SCHEMA public TO reader;" >/dev/null
RO="postgresql:///inv?host=$PG_DIR&user=reader"
assert_eq "$(inv_sql "$RO" "select has_table_privilege('nodes', 'UPDATE')")" f "reader may not update"

bringup status --db "$DB" --json > owner.json
bringup status --db "$RO" --json > reader.json || fail "status as reader: $(cat reader.json)"
[ "$(jq '.nodes | length' reader.json)" -eq 4 ] || fail "status as reader shows $(jq '.nodes | length' reader.json) nodes"
cmp -s owner.json reader.json || fail "status differs for the reader: $(diff owner.json reader.json | head -5)"
bringup status --db "$RO" > reader.txt
assert_contains "$(cat reader.txt)" "quarantined" "status table as reader"

h=$(jq -r '.nodes[] | select(.state == "quarantined") | .hostname' reader.json)
bringup history --db "$DB" --json "$h" > owner-h.json
bringup history --db "$RO" --json "$h" > reader-h.json
cmp -s owner-h.json reader-h.json || fail "history differs for the reader"
assert_eq "$(jq -r '[.events[] | select(.to == "quarantined")][0].from' reader-h.json)" validated \
	"$h's move into quarantined, read by the reader"

bringup report --db "$RO" --out report.html -q || fail "report as reader"
assert_contains "$(cat report.html)" "$h" "the report names the quarantined node"
rc=0; bringup report --db "$RO" -q 2>noout.err || rc=$?
assert_eq "$rc" 2 "report of a PostgreSQL inventory without --out"
assert_contains "$(cat noout.err)" "--out" "report asks for --out"

# The role is read-only indeed: a stage that writes fails, nothing changed.
before=$(inv_sql "$DB" "select count(*) from events; select count(*) from tickets")
rc=0; bringup gate --db "$RO" -q 2>gate.err || rc=$?
assert_eq "$rc" 3 "gate as the reader: $(cat gate.err)"
assert_contains "$(cat gate.err)" "permission denied" "PostgreSQL's refusal named"
assert_eq "$(inv_sql "$DB" "select count(*) from events; select count(*) from tickets")" "$before" "nothing written"
