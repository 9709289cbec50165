#!/bin/sh
# The tickets' external keys against PostgreSQL: the same script as
# t5045-tickets-external-key, its inventories databases in a PostgreSQL
# cluster of the test's own (BR_TEST_DB=pg: tests/e2e/lib.sh starts it and
# stops it at exit), so schema 20's step and the delivery's record hold
# on either backend. Skipped, saying so, without a PostgreSQL server.
BR_TEST_DB=pg exec sh "$(dirname "$0")/t5045-tickets-external-key.sh" "$@"
