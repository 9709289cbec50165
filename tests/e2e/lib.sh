# Shared helpers for end-to-end tests. A test's first line sources it from
# beside itself, so that tests/run and the script run alone
# (sh tests/e2e/tNNNN-NAME.sh) both work: . "$(dirname "$0")/lib.sh"
# Gives: $T (a scratch dir removed at exit), $BIN (built executables),
# fail MSG, assert_eq GOT WANT MSG, assert_contains HAYSTACK NEEDLE MSG,
# at_exit CMD (run at exit, last registered first), need_root, maas_auth [KEY],
# maas_req METHOD PATH, inventory_state DB, node_field DB HOST FIELD, nodes_in DB STATE,
# inv_sql DB SQL (the one way to the inventory that status does not show).
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
# The one place a test reads or writes the inventory behind bringup's back
# (what `bringup status --json` does not show), so that another backend
# changes only this function:
#   inv_sql DB "SQL"   run SQL; rows one a line, columns joined by '|',
#                      NULL as nothing
#   inv_sql DB --dump  every table's rows as SQL text (to compare, or grep)
#   inv_sql DB < FILE  run the SQL script on stdin (a fixture)
# DB is the path given to --db. Fails when the database does.
inv_sql() {
	case $# in
	1) sqlite3 -batch -bail "$1" ;;
	*) case $2 in
	   --dump) sqlite3 -batch "$1" .dump ;;
	   *) sqlite3 -batch -bail "$1" "$2" ;;
	   esac ;;
	esac
}
