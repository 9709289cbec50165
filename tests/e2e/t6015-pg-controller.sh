#!/bin/sh
# bringup controller against PostgreSQL: the same script as t6110-controller,
# its inventory a database in a PostgreSQL cluster of the test's own
# (BR_TEST_DB=pg: tests/e2e/lib.sh starts it with initdb on a Unix socket
# and stops it at exit): the controller sleeps on LISTEN between passes and
# the events trigger's NOTIFY wakes it. Skipped, saying so, without a
# PostgreSQL server.
BR_TEST_DB=pg exec sh "$(dirname "$0")/t6110-controller.sh" "$@"
