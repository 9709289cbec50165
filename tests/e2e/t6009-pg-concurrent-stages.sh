#!/bin/sh
# Two operators at once on one PostgreSQL inventory: the same script as
# t3005-concurrent-stages (two discovers share the BMCs by the per-node
# lease; configure and enlist at once never move a node back; a dead
# holder's lease is taken over, a live one named), its inventory a
# database in a PostgreSQL cluster of the test's own (BR_TEST_DB=pg:
# tests/e2e/lib.sh): the writers' advisory lock keeping PostgreSQL's
# writers one at a time as SQLite's BEGIN IMMEDIATE does. Skipped, saying
# so, without a PostgreSQL server.
BR_TEST_DB=pg exec sh "$(dirname "$0")/t3005-concurrent-stages.sh" "$@"
