#!/bin/sh
# Viewers read (issue 28 point B, issue 29 finding 12): status, history,
# report and tickets open the inventory read-only. A user who may only read
# the database and its directory sees it; nothing is created for a path
# that names no database (exit 2, naming it); the file is left byte for
# byte as it was; a corrupted row is an error naming the node and the
# field, not read as something else.
. "$(dirname "$0")/lib.sh"
need_root
cd "$T"
cat > rack.csv <<'EOF2'
hostname,rack,unit,bmc,bmc_user,bmc_password,profile,bmc_type,boot_disk_serial,notes
gpu-a,r01,1,10.0.0.1,root,env:PW,xe9680,redfish,,
gpu-b,r01,3,10.0.0.2,root,env:PW,xe9680,redfish,,
EOF2
mkdir inv
bringup import --db inv/inv.db --manifest rack.csv >/dev/null
bringup tickets --db inv/inv.db >/dev/null

# A path naming no database: exit 2 naming it, and no database made.
for cmd in "status" "status --json" "history gpu-a" "report --out r.html" "tickets --list" "tickets"; do
	rc=0; err=$(bringup $cmd --db typo.db 2>&1 >/dev/null) || rc=$?
	assert_eq "$rc" 2 "$cmd --db typo.db"
	assert_contains "$err" "typo.db" "$cmd names the missing database"
	[ ! -e typo.db ] || fail "$cmd --db typo.db created it"
done

# A viewer: another user, the database and its directory read-only to it.
viewer=nobody
id "$viewer" >/dev/null 2>&1 || fail "no user '$viewer' to view as"
as_viewer() { runuser -u "$viewer" -- env BRINGUP_TEMPLATES="$BR_TOP/templates" "$@"; }
chmod 0755 "$T"
mkdir out && chown "$viewer" out
chmod 0644 inv/inv.db && chmod 0755 inv
sum0=$(sha256sum inv/inv.db | cut -d' ' -f1)
as_viewer sh -c "test ! -w inv/inv.db && test ! -w inv" || fail "the viewer can write the inventory"
[ ! -e inv/inv.db-wal ] || fail "a -wal file before the viewers (the importer left it)"

out=$(as_viewer bringup status --db inv/inv.db --json) || fail "status as a viewer: rc $?"
assert_eq "$(echo "$out" | jq -r '[.nodes[].hostname] | join(",")')" "gpu-a,gpu-b" "status as a viewer"
out=$(as_viewer bringup status --db inv/inv.db) || fail "status table as a viewer"
assert_contains "$out" "2 nodes: 2 new" "status table as a viewer"
out=$(as_viewer bringup history --db inv/inv.db --json gpu-b) || fail "history as a viewer"
assert_eq "$(echo "$out" | jq '.events | length')" 1 "history as a viewer"
as_viewer bringup report --db inv/inv.db --out out/report.html >/dev/null || fail "report as a viewer"
grep -q gpu-b out/report.html || fail "report names no node"
out=$(as_viewer bringup tickets --db inv/inv.db --json --list) || fail "tickets --list as a viewer"
assert_eq "$(echo "$out" | jq '.tickets | length')" 0 "tickets --list as a viewer"
rc=0; err=$(as_viewer bringup tickets --db inv/inv.db --json 2>&1 >/dev/null) || rc=$?
assert_eq "$rc" 0 "tickets as a viewer"
assert_contains "$err" "read-only to this user" "tickets says it only lists"
rc=0; err=$(as_viewer bringup tickets --db inv/inv.db --post http://127.0.0.1:9/ 2>&1) || rc=$?
assert_eq "$rc" 2 "tickets --post as a viewer"
assert_contains "$err" "cannot write" "tickets --post says why"
# The file is as it was, and the viewers left nothing beside it.
assert_eq "$(sha256sum inv/inv.db | cut -d' ' -f1)" "$sum0" "inventory bytes after the viewers"
assert_eq "$(ls inv)" "inv.db" "files beside the inventory"

# A 0444 file reads the same.
chmod 0444 inv/inv.db
out=$(as_viewer bringup status --db inv/inv.db --json gpu-a) || fail "status of a 0444 file"
assert_eq "$(echo "$out" | jq -r '.nodes[0].state')" "new" "status of a 0444 file"
chmod 0644 inv/inv.db

# A writer at work (its -wal and -shm there, made by root): the viewer
# reads through them and sees the write not yet checkpointed.
mkfifo writer.in
sqlite3 -batch inv/inv.db < writer.in > writer.out 2>&1 &
writer=$!
exec 3> writer.in
at_exit "kill $writer 2>/dev/null"
echo "PRAGMA wal_autocheckpoint=0; UPDATE nodes SET reason='held by a writer' WHERE hostname='gpu-a'; SELECT 'written';" >&3
i=0
until grep -q written writer.out; do
	i=$((i + 1)); [ $i -lt 2000 ] || fail "the writer never wrote: $(cat writer.out)"
	sleep 0.01
done
[ -s inv/inv.db-wal ] || fail "no -wal file while the writer holds it"
out=$(as_viewer bringup status --db inv/inv.db --json gpu-a) || fail "status beside a writer"
assert_eq "$(echo "$out" | jq -r '.nodes[0].reason')" "held by a writer" "viewer reads the writer's log"
exec 3>&-
wait "$writer" || true

# A read-only file system (where this machine lets root mount one): even
# root's status and report read it.
mkdir rofs
if mount -t tmpfs -o size=16m tmpfs rofs 2>/dev/null; then
	at_exit "umount $T/rofs 2>/dev/null"
	cp inv/inv.db rofs/inv.db
	mount -o remount,ro rofs || fail "cannot remount the tmpfs read-only"
	out=$(bringup status --db rofs/inv.db --json) || fail "status on a read-only file system"
	assert_eq "$(echo "$out" | jq '.nodes | length')" 2 "status on a read-only file system"
	bringup report --db rofs/inv.db --out rofs-report.html >/dev/null || fail "report on a read-only file system"
	bringup tickets --db rofs/inv.db --json >/dev/null 2>&1 || fail "tickets on a read-only file system"
	umount rofs
else
	echo "note: cannot mount a tmpfs here; the read-only file system case is not run" >&2
fi

# An older schema: the viewer who cannot write is told who migrates it, and
# it stays as it was; its owner's status migrates it (t3002).
mkdir old && inv_sql old/inv.db < "$BR_TOP/tests/fixtures/inventory/schema-v1.sql" && chmod 0755 old
rc=0; err=$(as_viewer bringup status --db old/inv.db 2>&1 >/dev/null) || rc=$?
assert_eq "$rc" 3 "viewer of an older schema"
assert_contains "$err" "a command that writes (bringup import, any stage) migrates it" "older schema named"
assert_eq "$(inv_sql old/inv.db 'pragma user_version')" 1 "older schema left as it was"

# Corrupted rows: named, not used.
cp inv/inv.db bad.db
inv_sql bad.db "UPDATE nodes SET state='bogus' WHERE hostname='gpu-b'"
rc=0; err=$(bringup status --db bad.db --json 2>&1 >/dev/null) || rc=$?
[ "$rc" -ne 0 ] || fail "status used a node in state 'bogus'"
assert_contains "$err" "node 'gpu-b': state: 'bogus' is not a state" "unknown state named"
rc=0; err=$(bringup report --db bad.db --out bad.html 2>&1 >/dev/null) || rc=$?
[ "$rc" -ne 0 ] || fail "report used a node in state 'bogus'"
assert_contains "$err" "node 'gpu-b': state" "report names the corrupted node"
cp inv/inv.db bad2.db
inv_sql bad2.db "INSERT INTO hw_facts(node_id, collected_at, facts) SELECT id, '2026-01-01T00:00:00Z', '{\"nics\": [' FROM nodes WHERE hostname='gpu-a'" 2>/dev/null ||
	inv_sql bad2.db "INSERT INTO hw_facts(node_id, facts) SELECT id, '{\"nics\": [' FROM nodes WHERE hostname='gpu-a'"
rc=0; err=$(bringup status --db bad2.db --json 2>&1 >/dev/null) || rc=$?
[ "$rc" -ne 0 ] || fail "status used a node whose stored facts are not JSON"
assert_contains "$err" "node 'gpu-a': field nics" "bad stored document named"
echo "ok"
