#!/bin/sh
# A fenced write on PostgreSQL: t3014-lease-fenced-write (a discover
# paused past its lease, taken over, resumed: its store refused) with the
# inventory in a PostgreSQL cluster of the test's own (BR_TEST_DB=pg:
# tests/e2e/lib.sh). Skipped, saying so, without a PostgreSQL server.
BR_TEST_DB=pg exec sh "$(dirname "$0")/t3014-lease-fenced-write.sh" "$@"
