#!/bin/sh
# A fenced enlist on PostgreSQL: t3015-lease-fenced-enlist (an enlist
# paused past its lease, taken over, resumed: its write refused and MAAS
# left alone) with the inventory in a PostgreSQL cluster of the test's own
# (BR_TEST_DB=pg: tests/e2e/lib.sh). Skipped, saying so, without a
# PostgreSQL server.
BR_TEST_DB=pg exec sh "$(dirname "$0")/t3015-lease-fenced-enlist.sh" "$@"
