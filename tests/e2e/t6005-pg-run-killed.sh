#!/bin/sh
# bringup run killed with SIGKILL, then run to the end against PostgreSQL: the same script as t5012-run-killed, its inventory a
# database in a PostgreSQL cluster of the test's own (BR_TEST_DB=pg:
# tests/e2e/lib.sh starts it with initdb on a Unix socket and stops it at
# exit); every assertion of that script holds on PostgreSQL. Skipped,
# saying so, without a PostgreSQL server.
BR_TEST_DB=pg exec sh "$(dirname "$0")/t5012-run-killed.sh" "$@"
