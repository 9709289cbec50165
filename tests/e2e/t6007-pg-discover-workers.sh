#!/bin/sh
# discover's forked workers against PostgreSQL: the same script as
# t1104-discover-workers (--workers 3 ends a faulty rack exactly as
# --workers 1: states, MACs, serials, the drives and bios_attributes views),
# its inventories databases in a PostgreSQL cluster of the test's own
# (BR_TEST_DB=pg: tests/e2e/lib.sh starts it with initdb on a Unix socket
# and stops it at exit): the inventory's connection closed before the fork
# and reopened after, on PostgreSQL. Skipped, saying so, without a
# PostgreSQL server.
BR_TEST_DB=pg exec sh "$(dirname "$0")/t1104-discover-workers.sh" "$@"
