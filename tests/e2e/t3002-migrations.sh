#!/bin/sh
# An inventory at an older schema version is migrated on open, keeping
# every node, MAC and event; a newer one is refused; events are append-only.
. "$(dirname "$0")/lib.sh"
cd "$T"
inv_sql inv.db < "$BR_TOP/tests/fixtures/inventory/schema-v1.sql"
assert_eq "$(inv_sql inv.db 'pragma user_version')" 1 "fixture version"

bringup status --db inv.db --json > st.json
assert_eq "$(inv_sql inv.db 'pragma user_version')" 21 "version after open"
assert_eq "$(jq -r '[.nodes[] | .hostname + ":" + .state] | join(",")' st.json)" "old-a:discovered,old-b:failed" "nodes kept"
assert_eq "$(jq -r '.nodes[0].macs | join(",")' st.json)" "b0:7b:25:00:00:01,b0:7b:25:00:00:02" "MACs kept"
assert_eq "$(jq -r '.nodes[0].system_serial' st.json)" "CN7792S1" "serial kept"
assert_eq "$(jq -r '.nodes[1].reason' st.json)" "bmc 10.9.0.2: timed out" "reason kept"
# failed before failure kinds were kept: no kind made up from its words
assert_eq "$(jq -r '.nodes[1].failure_kind' st.json)" "stage_failed" "an old failure's kind"
assert_eq "$(bringup history --db inv.db --json old-a | jq '.events | length')" 2 "events kept"
# Columns and tables of later versions exist and work.
assert_eq "$(inv_sql inv.db "select bmc_type from nodes where id=1")" "auto" "v2 column default"
assert_eq "$(jq -r '.nodes[0].attempts' st.json)" 0 "v11: attempts start at 0"
for t in bios_attributes firmware pcie_devices drives sensors sel_entries probe_runs check_results tickets; do
	inv_sql inv.db "select count(*) from $t" >/dev/null || fail "table $t missing after migration"
done
assert_eq "$(inv_sql inv.db "select count(*) from pragma_table_info('tickets') where name = 'external_key'")" 1 \
	"v20: tickets.external_key"
assert_eq "$(inv_sql inv.db "select count(*) from pragma_table_info('nodes') where name = 'power_domain'")" 1 \
	"v21: nodes.power_domain"
assert_eq "$(inv_sql inv.db 'pragma integrity_check')" ok "integrity"
assert_eq "$(inv_sql inv.db 'pragma foreign_key_check' | wc -l)" 0 "foreign keys"

# Opening again is a no-op.
bringup status --db inv.db --json > st2.json
cmp -s st.json st2.json || fail "second open changed the status"

# Events are append-only from version 3 on.
rc=0; inv_sql inv.db "delete from events" 2>err || rc=$?
[ "$rc" -ne 0 ] || fail "events could be deleted"
assert_contains "$(cat err)" "append-only" "trigger message"

# A database from a newer bringup is refused, not damaged.
inv_sql inv.db 'pragma user_version = 99'
rc=0; bringup status --db inv.db 2>err || rc=$?
assert_eq "$rc" 3 "exit code for a newer schema"
assert_contains "$(cat err)" "schema version 99 is newer than this bringup" "newer schema message"
assert_eq "$(inv_sql inv.db 'pragma user_version')" 99 "newer version untouched"
