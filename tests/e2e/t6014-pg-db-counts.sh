#!/bin/sh
# The database counters on PostgreSQL: the same script as
# t3037-inventory-db-counts (a fresh import counts exactly the rows it
# wrote, forked workers' connections are summed, statements per node flat),
# its inventories databases in a cluster of the test's own. Skipped,
# saying so, without a PostgreSQL server.
BR_TEST_DB=pg exec sh "$(dirname "$0")/t3037-inventory-db-counts.sh" "$@"
