#!/bin/sh
# The inventory's disk is full when gate runs (issue 29, finding 1): the
# verdicts it cannot store reach the exit code (3: the inventory is
# unusable) with SQLite's text and the system's reason (never an empty
# "inventory: ", nor a bare "disk I/O error": on a full tmpfs SQLite cannot
# even map its shared memory, so this gate fails as it opens it),
# no node is promoted or quarantined, none is tagged golden in MAAS (MAAS
# must not call a node golden that the inventory does not), and nothing
# stored is lost: once there is room the same gate judges every node as a
# gate on a disk with room would.
. "$(dirname "$0")/lib.sh"
need_root
cd "$T"
bringup-sim --nodes 6 --seed 4 --faults pcie_degraded:1 --maas-commission-ms 50 --maas-deploy-ms 50 --dir rack \
	--daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
deployed_on_tmpfs
rc=0
bringup validate -q || rc=$?
[ "$rc" -le 1 ] || fail "validate exited $rc"
assert_eq "$(nodes_in "$BRINGUP_DB" validated)" 6 "nodes validated"
before=$(inventory_state "$BRINGUP_DB")
golden_tagged() { maas_req GET "machines/" | jq '[.[] | select(.tag_names | index("golden"))] | length'; }
assert_eq "$(golden_tagged)" 0 "machines tagged golden before the gate"

dd if=/dev/zero of=full/filler bs=64k 2>/dev/null || true
rc=0
bringup gate --json > g.json 2> g.err || rc=$?
assert_eq "$rc" 3 "gate on a full disk: exit code ($(tail -3 g.err))"
assert_contains "$(cat g.err)" "disk I/O error (No space left on device)" "the error says the disk is full"
! grep -q 'inventory: *$' g.err || fail "an empty inventory error: $(grep 'inventory: *$' g.err | head -3)"
assert_eq "$(golden_tagged)" 0 "machines tagged golden by a gate that stored nothing"
# (read once there is room: SQLite's shared memory needs some to read)
rm -f full/filler
assert_eq "$(nodes_in "$BRINGUP_DB" validated)" 6 "nodes still validated"
assert_eq "$(inventory_state "$BRINGUP_DB")" "$before" "the inventory as it was"
rc=0
bringup gate --json > g2.json 2> g2.err || rc=$?
[ "$rc" -le 1 ] || fail "gate with room exited $rc: $(tail -3 g2.err)"
assert_eq "$(nodes_in "$BRINGUP_DB" golden)" 5 "golden with room"
assert_eq "$(nodes_in "$BRINGUP_DB" quarantined)" 1 "quarantined with room"
assert_eq "$(golden_tagged)" 5 "machines tagged golden with room"
[ "$(bringup status --json | jq '[.nodes[] | select(.state == "golden")] | length')" = 5 ] || fail "status"
echo "gate on a full disk: exit 3, nothing promoted, nothing tagged; with room 5 golden, 1 quarantined"
