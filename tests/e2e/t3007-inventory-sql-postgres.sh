#!/bin/sh
# The statements the inventory sends are SQL that PostgreSQL accepts, not
# only SQLite: scripts/pg-check-sql runs every stage over a small simulated
# rack, then has a scratch PostgreSQL cluster (its own, started as the
# postgres user on a Unix socket and stopped after) prepare each statement
# against the current schema. Skipped, saying so, without a PostgreSQL server.
. "$(dirname "$0")/lib.sh"
cd "$T"
out=$("$BR_TOP/scripts/pg-check-sql" "$BIN" 2>&1) || fail "$(printf '%s\n' "$out" | tail -n 20)"
printf '%s\n' "$out" | tail -n 1
case $out in
*skipped*) ;;
*" of "*" statements accepted"*) ;;
*) fail "no verdict from pg-check-sql: $out" ;;
esac
