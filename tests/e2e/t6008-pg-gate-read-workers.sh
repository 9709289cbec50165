#!/bin/sh
# gate's MAAS reads from forked workers against PostgreSQL: the same script
# as t5014-gate-read-workers, its inventory a database in a PostgreSQL
# cluster of the test's own (BR_TEST_DB=pg: tests/e2e/lib.sh starts it
# with initdb on a Unix socket and stops it at exit): the parent's
# connection closed before the fork and reopened after, the verdicts
# recorded in batches on PostgreSQL. Skipped, saying so, without a
# PostgreSQL server.
BR_TEST_DB=pg exec sh "$(dirname "$0")/t5014-gate-read-workers.sh" "$@"
