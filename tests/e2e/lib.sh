# Shared helpers for end-to-end tests. A test's first line sources it from
# beside itself, so that tests/run and the script run alone
# (sh tests/e2e/tNNNN-NAME.sh) both work: . "$(dirname "$0")/lib.sh"
# Gives: $T (a scratch dir removed at exit), $BIN (built executables),
# fail MSG, assert_eq GOT WANT MSG, assert_contains HAYSTACK NEEDLE MSG,
# at_exit CMD (run at exit, last registered first), need_root, deployed_on_tmpfs, maas_auth [KEY],
# maas_req METHOD PATH, inventory_state DB, node_field DB HOST FIELD, nodes_in DB STATE,
# inv_sql DB SQL (the one way to the inventory that status does not show),
# db_for NAME (the --db of an inventory: a SQLite file, or with
# BR_TEST_DB=pg a database in this test's own PostgreSQL), pg_start, pg_stop.
set -eu
# The tree is the one this file is in (tests/run sets BR_TOP and BR_BIN);
# the executables are its build/bin unless BR_BIN names another build.
BR_TOP=${BR_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
BIN=${BR_BIN:-$BR_TOP/build/bin}
if [ ! -x "$BIN/bringup" ]; then
	echo "$0: no build in $BIN (run make, or set BR_BIN to a build's bin/)" >&2
	exit 2
fi
PATH=$BIN:$PATH
export PATH
# Scratch space in memory when there is some: simulated hosts are thousands
# of small files, and on a disk mounted with discard their removal alone
# took minutes.
T=$(mktemp -d "${BR_TEST_TMP:-/dev/shm}/br-test.XXXXXX" 2>/dev/null || mktemp -d /tmp/br-test.XXXXXX)
_br_exit_cmds=""
_br_cleanup() {
	rc=$?
	eval "$_br_exit_cmds" || true
	if [ "$rc" -ne 0 ] && [ -n "${KEEP:-}" ]; then echo "kept $T" >&2; else rm -rf "$T"; fi
	exit $rc
}
trap _br_cleanup EXIT INT TERM
at_exit() { _br_exit_cmds="$1; $_br_exit_cmds"; }
fail() { echo "FAIL: $*" >&2; exit 1; }
assert_eq() { [ "$1" = "$2" ] || fail "$3: got '$1', want '$2'"; }
assert_contains() {
	case "$1" in *"$2"*) ;; *) fail "$3: '$2' not found in: $1" ;; esac
}
need_root() { [ "$(id -u)" -eq 0 ] || { echo "needs root" >&2; exit 1; }; }
# A disk the test can fill (root): a 16 MiB tmpfs at $T/full, unmounted at
# exit, the inventory on it (BRINGUP_DB), the simulated rack whose env is
# loaded imported, discovered and deployed there.
deployed_on_tmpfs() {
	mkdir "$T/full"
	mount -t tmpfs -o size=16m tmpfs "$T/full" || { echo "cannot mount a tmpfs" >&2; exit 1; }
	at_exit "umount $T/full"
	export BRINGUP_DB=$T/full/inv.db
	bringup import --manifest "$T/rack/rack.csv" >/dev/null
	bringup discover -q
	bringup enlist --skip-configure --poll-ms 50 -q
}
# Stop a simulator started with --daemon in DIR.
stop_sim() { [ -f "$1/sim.pid" ] && kill "$(cat "$1/sim.pid")" 2>/dev/null || true; }
# The Authorization header of a MAAS API request as MAAS takes it (OAuth 1.0,
# PLAINTEXT), for KEY (consumer:token:secret; default $MAAS_API_KEY).
maas_auth() {
	_k=${1:-$MAAS_API_KEY}; _ck=${_k%%:*}; _rest=${_k#*:}; _tk=${_rest%%:*}; _ts=${_rest#*:}
	printf 'Authorization: OAuth oauth_version="1.0", oauth_signature_method="PLAINTEXT", oauth_consumer_key="%s", oauth_token="%s", oauth_signature="%%26%s", oauth_nonce="%s", oauth_timestamp="%s"' \
		"$_ck" "$_tk" "$_ts" "$(date +%s%N)" "$(date +%s)"
}
# METHOD PATH: MAAS's answer to an API 2.0 request ($MAAS_URL, $MAAS_API_KEY);
# fails on an HTTP error.
maas_req() { curl -sf -X "$1" -H "$(maas_auth)" "${MAAS_URL}api/2.0/$2"; }
# DB: its events and tickets counted and every node's state, one line
# each: what a stage that stopped before touching any node leaves as it was.
inventory_state() {
	inv_sql "$1" "select count(*) from events; select count(*) from tickets;"
	inv_sql "$1" "select hostname || '=' || state from nodes order by hostname" | paste -sd ' ' -
}
# DB HOST FIELD: one field of a node as `bringup status --json` shows it
# (state, reason, maas_system_id, ip, system_serial, ...); nothing for null.
node_field() {
	bringup status --db "$1" --json | jq -r --arg h "$2" ".nodes[] | select(.hostname == \$h) | .$3 // empty"
}
# RACK HOST [JQ]: the probe's document of a simulated host, from the tree
# bringup sim wrote for it (its LLDP neighbours are the wiring list's), as
# validate --facts reads it; JQ, when given, edits it first.
sim_probe_doc() {
	BRINGUP_PROBE_ROOT=$1/hosts/$2 BRINGUP_PROBE_CAPTURES=$1/hosts/$2/.captures bringup-probe |
		jq "${3:-.}"
}
# The edit for sim_probe_doc that leaves a document with no LLDP read.
NO_LLDP='.lldp = {status: "missing", source: "none", neighbors: []}'
# DB STATE: how many nodes `bringup status --json` shows in STATE.
nodes_in() {
	bringup status --db "$1" --json | jq --arg s "$2" '[.nodes[] | select(.state == $s)] | length'
}
# The backend a test's inventories live in: BR_TEST_DB=pg runs the same
# script against PostgreSQL (t6000 and on do), sqlite (the default) as ever.
BR_TEST_DB=${BR_TEST_DB:-sqlite}
# pg_start: a PostgreSQL cluster of this test's own, made with initdb in a
# scratch directory and started on a Unix socket there (no TCP port), as
# the postgres user when run as root (PostgreSQL refuses to run as root);
# stopped at exit (pg_stop). Exports PG_DIR (the socket's directory) and
# PG_URI (its database "postgres", as the superuser postgres). With no
# PostgreSQL server installed the test ends at once, passing, saying
# "skipped" (CI installs one: scripts/deps).
pg_start() {
	[ -n "${PG_DIR:-}" ] && return 0
	_pgbin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
	if [ -z "$_pgbin" ] || [ ! -x "$_pgbin/postgres" ]; then
		echo "skipped: no PostgreSQL server (Debian: apt-get install postgresql)"
		exit 0
	fi
	if [ "$(id -u)" -eq 0 ] && ! id postgres >/dev/null 2>&1; then
		echo "skipped: no postgres user to run PostgreSQL as"
		exit 0
	fi
	PG_BIN=$_pgbin
	PG_DIR=$(mktemp -d "${BR_TEST_TMP:-/dev/shm}/br-pg.XXXXXX" 2>/dev/null || mktemp -d /tmp/br-pg.XXXXXX)
	chmod 755 "$PG_DIR"
	[ "$(id -u)" -eq 0 ] && chown postgres "$PG_DIR"
	at_exit "pg_stop"
	pg_as "$PG_BIN/initdb" -D "$PG_DIR/data" -A trust -U postgres -E UTF8 --no-sync >"$PG_DIR/initdb.log" 2>&1 ||
		fail "initdb: $(tail -n 5 "$PG_DIR/initdb.log")"
	pg_as "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/log" -w \
		-o "-c listen_addresses= -k $PG_DIR -c fsync=off -c synchronous_commit=off -c full_page_writes=off" \
		start >/dev/null || fail "PostgreSQL did not start: $(tail -n 5 "$PG_DIR/log")"
	PG_URI="postgresql:///postgres?host=$PG_DIR&user=postgres"
	export PG_DIR PG_URI PG_BIN
}
pg_as() { (cd "${PG_DIR:-/}" && if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi); }
pg_stop() {
	[ -n "${PG_DIR:-}" ] || return 0
	[ -f "$PG_DIR/data/postmaster.pid" ] && pg_as "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m immediate stop >/dev/null 2>&1
	rm -rf "$PG_DIR"
	PG_DIR=
}
# NAME: the --db of the test's inventory NAME: $T/NAME.db, or with
# BR_TEST_DB=pg the URI of database NAME in the test's cluster (made the
# first time it is asked for).
db_for() {
	if [ "$BR_TEST_DB" != pg ]; then
		echo "$T/$1.db"
		return
	fi
	# Started by the test itself (lib.sh does, with BR_TEST_DB=pg): a
	# cluster started here, in the $(db_for ...) subshell, would outlive it.
	[ -n "${PG_DIR:-}" ] || fail "db_for $1: no PostgreSQL cluster (call pg_start first)"
	if [ ! -e "$PG_DIR/db-$1" ]; then
		psql -X -q -d "$PG_URI" -v ON_ERROR_STOP=1 -c "CREATE DATABASE \"$1\"" >/dev/null || fail "createdb $1"
		: >"$PG_DIR/db-$1"
	fi
	echo "postgresql:///$1?host=$PG_DIR&user=postgres"
}
[ "$BR_TEST_DB" = pg ] && pg_start
# The one place a test reads or writes the inventory behind bringup's back
# (what `bringup status --json` does not show), so that another backend
# changes only this function:
#   inv_sql DB "SQL"   run SQL; rows one a line, columns joined by '|',
#                      NULL as nothing
#   inv_sql DB --dump  every table's rows as SQL text (to compare, or grep)
#   inv_sql DB < FILE  run the SQL script on stdin (a fixture)
# DB is the path or URI given to --db: a PostgreSQL one (postgresql://,
# postgres://, or key=value) goes to psql, anything else to sqlite3.
inv_sql() {
	case $1 in
	postgresql://* | postgres://* | *=*) _inv_psql "$@" ;;
	*) _inv_sqlite "$@" ;;
	esac
}
_inv_sqlite() {
	case $# in
	1) sqlite3 -batch -bail "$1" ;;
	*) case $2 in
	   --dump) sqlite3 -batch "$1" .dump ;;
	   *) sqlite3 -batch -bail "$1" "$2" ;;
	   esac ;;
	esac
}
# psql reads the statements from stdin, so that each one's rows are
# printed (-c prints only the last's).
_inv_psql() {
	case $# in
	1) psql -X -q -A -t -F '|' -v ON_ERROR_STOP=1 -d "$1" ;;
	*) case $2 in
	   --dump) pg_dump --data-only --inserts --no-owner -d "$1" ;;
	   *) printf '%s\n' "$2" | psql -X -q -A -t -F '|' -v ON_ERROR_STOP=1 -d "$1" ;;
	   esac ;;
	esac
}
