#!/bin/sh
# scripts/layers (make lint) passes on the built archives and fails, naming
# the object, the symbol and both modules, on a call the layers of
# ARCHITECTURE.md forbid: sideways (redfish to maas), upward (common to
# inventory) and out of the simulator (sim to redfish), each added to a
# scratch copy of the archives. A module with no archive (one being
# created) counts as empty; an archive of a module the diagram lacks fails.
# SQLite and libpq are called from their backends' files only.
. "$(dirname "$0")/lib.sh"
cd "$T"
lib=$BIN/../lib
layers=$BR_TOP/scripts/layers
"$layers" "$lib" >out 2>&1 || fail "layers fails on the built tree: $(cat out)"
[ -f "$lib/libstages.a" ] || assert_eq "$(cat out)" "" "no output on the built tree"

# SYMBOL: the first function ARCHIVE defines with that prefix.
first_fn() { nm -g "$lib/$1" | awk -v p="$2" '$2 == "T" && index($3, p) == 1 { print $3; exit }'; }
# MODULE SYMBOL: a copy of the archives in which MODULE's extra.o calls SYMBOL.
scratch() {
	rm -rf lib && mkdir lib && cp "$lib"/*.a lib/
	printf 'int %s(void);\nint layers_extra(void);\nint layers_extra(void) { return %s(); }\n' "$2" "$2" >extra.c
	cc -c -o extra.o extra.c
	ar rcs "lib/lib$1.a" extra.o
}
# MODULE SYMBOL OTHER KIND: the check fails on it, saying so.
refused() {
	scratch "$1" "$2"
	rc=0
	"$layers" lib >out 2>&1 || rc=$?
	assert_eq "$rc" 1 "$1 calling $3's $2 fails"
	assert_eq "$(cat out)" "layers: $1/extra.o: $2: $1 calls $3 ($4)" "$1 calling $3"
}

maas_fn=$(first_fn libmaas.a maas_)
inv_fn=$(first_fn libinventory.a inv_)
rf_fn=$(first_fn libredfish.a rf_)
common_fn=$(first_fn libcommon.a br_)
[ -n "$maas_fn" ] && [ -n "$inv_fn" ] && [ -n "$rf_fn" ] && [ -n "$common_fn" ] || fail "no symbols found in $lib"
refused redfish "$maas_fn" maas sideways
refused common "$inv_fn" inventory upward
refused sim "$rf_fn" redfish sideways

# A call down a layer, and one skipping layers, are allowed.
scratch validators "$common_fn"
"$layers" lib >out 2>&1 || fail "validators calling common: $(cat out)"
scratch bringup "$inv_fn"
"$layers" lib >out 2>&1 || fail "bringup calling inventory: $(cat out)"

# Without bringup's archive (as without stages') the rest is still checked.
scratch maas "$rf_fn"
rm lib/libbringup.a
rc=0
"$layers" lib >out 2>&1 || rc=$?
assert_eq "$rc" 1 "maas calling redfish, no libbringup.a"
assert_contains "$(cat out)" "maas calls redfish (sideways)" "maas calling redfish"

# Each database's library only from its backend's file: SQLite from
# inventory/backend_sqlite.o, libpq from inventory/backend_pg.o and
# backend_pg_stmt.o, not from another file of inventory/ nor from a stage.
nm -A "$lib/libinventory.a" 2>/dev/null | grep -q 'backend_pg_stmt.o:.* U PQexecPrepared$' ||
	fail "backend_pg_stmt.o does not call libpq's PQexecPrepared"
nm -A "$lib/libinventory.a" 2>/dev/null | grep -q 'backend_pg.o:.* U PQconnectdb$' ||
	fail "backend_pg.o does not call libpq's PQconnectdb"
for pair in inventory:PQexec stages:PQexec inventory:sqlite3_exec stages:sqlite3_step; do
	m=${pair%%:*} sym=${pair#*:}
	scratch "$m" "$sym"
	rc=0
	"$layers" lib >out 2>&1 || rc=$?
	assert_eq "$rc" 1 "$m's extra.o calling $sym fails"
	case $sym in PQ*) want="only inventory/backend_pg.o and backend_pg_stmt.o call libpq" ;; *) want="only inventory/backend_sqlite.o calls SQLite" ;; esac
	assert_eq "$(cat out)" "layers: $m/extra.o: $sym: $want" "$m calling $sym"
done

# A module the diagram lacks is refused, not left unchecked.
scratch validators "$common_fn"
cp lib/libvalidators.a lib/libextra.a
rc=0
"$layers" lib >out 2>&1 || rc=$?
assert_eq "$rc" 1 "an archive of an unknown module"
assert_contains "$(cat out)" "module extra is not in the diagram" "an unknown module named"

rc=0
"$layers" "$T/none" >out 2>&1 || rc=$?
assert_eq "$rc" 2 "no library directory"
