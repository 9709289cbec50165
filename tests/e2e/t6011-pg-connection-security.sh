#!/bin/sh
# How bringup reaches a PostgreSQL inventory over TCP: the server's
# certificate and name are verified unless the operator says otherwise,
# and a password is taken only by reference. A real PostgreSQL (pg_start)
# restarted listening on 127.0.0.1 with TLS on (a certificate for
# "localhost" made here) and a role that logs in with a password:
# - no CA given: refused (no root certificate: verification is on);
# - the CA given and the name "localhost": connects, over TLS;
# - the CA given, the address 127.0.0.1: refused (verify-full checks
#   the name, not only the CA);
# - sslmode=disable in the URI, or PGSSLMODE=require: the operator's
#   choice stands;
# - a service file's sslmode stands; one that sets none is verified;
# - the password from PGPASSFILE, or a service file (--db service=NAME):
#   connects; without it: refused by the server;
# - a password written into --db (URI, query or keyword form, or
#   BRINGUP_DB): exit 2 naming --db, before any node is touched, the
#   password in no output, and bringup run stops before any stage.
# Skipped, saying so, without a PostgreSQL server.
. "$(dirname "$0")/lib.sh"
cd "$T"
pg_start
BR_TEST_DB=pg DB=$(db_for inv)
bringup gate --db "$DB" --no-maas --json >/dev/null # the schema, made by the owner (a writer; status only reads)
inv_sql "$DB" "CREATE ROLE operator LOGIN PASSWORD 'op-Secret-7731';
GRANT ALL ON ALL TABLES IN SCHEMA public TO operator;" >/dev/null

# TLS on 127.0.0.1, a certificate for localhost; the password role over
# TCP by SCRAM, everything else as initdb's trust.
openssl req -x509 -newkey rsa:2048 -nodes -subj /CN=localhost -addext subjectAltName=DNS:localhost \
	-keyout "$PG_DIR/server.key" -out "$PG_DIR/server.crt" -days 2 2>/dev/null
cp "$PG_DIR/server.crt" ca.pem
chmod 600 "$PG_DIR/server.key"
[ "$(id -u)" -eq 0 ] && chown postgres "$PG_DIR/server.key" "$PG_DIR/server.crt"
hba=$PG_DIR/data/pg_hba.conf
{ echo "host inv operator 127.0.0.1/32 scram-sha-256"; cat "$hba"; } > hba.new
cat hba.new > "$hba"
port=$((20000 + $$ % 20000))
while ss -ltn 2>/dev/null | grep -q ":$port "; do port=$((port + 1)); done
pg_as "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/log" -w -m fast \
	-o "-c listen_addresses=127.0.0.1 -p $port -k $PG_DIR -c ssl=on -c ssl_cert_file=$PG_DIR/server.crt -c ssl_key_file=$PG_DIR/server.key -c fsync=off" \
	restart >/dev/null || fail "PostgreSQL did not restart on TCP: $(tail -n 5 "$PG_DIR/log")"
# Unix-socket URIs carry the port too now.
DB="$DB&port=$port"
export HOME=$T PGPASSFILE=$T/none
unset PGSSLMODE PGSSLROOTCERT PGSERVICEFILE PGSERVICE 2>/dev/null || true

tcp() { echo "postgresql://postgres@$1:$port/inv${2:-}"; }
# DB [ENV=VALUE...]: bringup status's exit; its stderr in status.err
status_rc() {
	_db=$1; shift
	rc=0; env "$@" bringup status --db "$_db" --json > status.json 2> status.err || rc=$?
	echo "$rc"
}
# verification is on by default
assert_eq "$(status_rc "$(tcp localhost)")" 3 "no CA given: $(cat status.err)"
assert_contains "$(cat status.err)" "root certificate" "refused for want of a CA to verify with"
# the CA and the right name: in
assert_eq "$(status_rc "$(tcp localhost "?sslrootcert=$T/ca.pem")")" 0 "CA given: $(cat status.err)"
assert_eq "$(inv_sql "$(tcp localhost "?sslrootcert=$T/ca.pem")" "select ssl from pg_stat_ssl where pid = pg_backend_pid()")" t \
	"a connection made the same way is TLS"
# the name is verified, not only the CA (verify-full)
assert_eq "$(status_rc "$(tcp 127.0.0.1 "?sslrootcert=$T/ca.pem")")" 3 "by address: $(cat status.err)"
assert_contains "$(cat status.err)" "does not match host name" "the name checked"
# the operator's own choice stands
assert_eq "$(status_rc "$(tcp 127.0.0.1 "?sslmode=disable")")" 0 "sslmode=disable in the URI: $(cat status.err)"
assert_eq "$(status_rc "$(tcp 127.0.0.1)" PGSSLMODE=require)" 0 "PGSSLMODE=require: $(cat status.err)"
# Unix sockets take no TLS whatever the default
assert_eq "$(status_rc "$DB")" 0 "Unix socket: $(cat status.err)"

# The password by reference: a password file, or a service file.
op="postgresql://operator@localhost:$port/inv?sslrootcert=$T/ca.pem"
assert_eq "$(status_rc "$op")" 3 "no password file: $(cat status.err)"
assert_contains "$(cat status.err)" "password" "the server wants a password"
printf 'localhost:%s:inv:operator:op-Secret-7731\n' "$port" > pgpass
chmod 600 pgpass
assert_eq "$(status_rc "$op" PGPASSFILE="$T/pgpass")" 0 "the password file: $(cat status.err)"
printf '[inv]\nhost=localhost\nport=%s\ndbname=inv\nuser=operator\nsslrootcert=%s\n' "$port" "$T/ca.pem" > services
assert_eq "$(status_rc service=inv PGSERVICEFILE="$T/services" PGPASSFILE="$T/pgpass")" 0 "a service: $(cat status.err)"
# a service file's sslmode stands too
printf '[plain]\nhost=127.0.0.1\nport=%s\ndbname=inv\nuser=postgres\nsslmode=disable\n' "$port" >> services
assert_eq "$(status_rc service=plain PGSERVICEFILE="$T/services")" 0 "a service with sslmode=disable: $(cat status.err)"
printf '[strict]\nhost=127.0.0.1\nport=%s\ndbname=inv\nuser=postgres\n' "$port" >> services
assert_eq "$(status_rc service=strict PGSERVICEFILE="$T/services")" 3 "a service that says nothing: verified"
env PGSERVICEFILE="$T/services" PGPASSFILE="$T/pgpass" bringup history --db service=inv -vv --json nosuch > hist.out 2>&1 || true
env PGSERVICEFILE="$T/services" PGPASSFILE="$T/pgpass" bringup status --db service=inv -vv > verbose.out 2>&1
grep -q 'op-Secret' verbose.out hist.out && fail "the password in bringup's output"

# A password written into --db: refused, exit 2, never echoed.
for bad in "postgresql://operator:op-Secret-7731@localhost:$port/inv" \
	"postgresql://operator@localhost:$port/inv?password=op-Secret-7731" \
	"host=localhost port=$port dbname=inv user=operator password=op-Secret-7731"; do
	rc=0; bringup status --db "$bad" > out 2> err || rc=$?
	assert_eq "$rc" 2 "a password in --db ($bad)"
	assert_contains "$(cat err)" "--db" "the option named"
	grep -q 'op-Secret' out err && fail "the password echoed: $(cat err)"
done
before=$(inv_sql "$DB" "select count(*) from events")
ssh-keygen -q -t ed25519 -N '' -f key
printf 'hostname,rack,unit,bmc,bmc_user,bmc_password,profile\nn1,r01,1,127.0.0.1:9,root,env:PW,xe9680\n' > rack.csv
rc=0; BRINGUP_DB="postgresql://operator:op-Secret-7731@localhost:$port/inv" bringup import --manifest rack.csv \
	> out 2> err || rc=$?
assert_eq "$rc" 2 "import with a password in BRINGUP_DB"
grep -q 'op-Secret' out err && fail "import echoed the password"
rc=0; bringup run --db "postgresql://operator:op-Secret-7731@localhost:$port/inv" > out 2> err || rc=$?
assert_eq "$rc" 2 "run with a password in --db"
assert_contains "$(cat err)" "--db" "run names the option"
grep -q 'discover' err && fail "run started a stage: $(cat err)"
assert_eq "$(inv_sql "$DB" "select count(*) from nodes; select count(*) from events")" "0
$before" "nothing imported, nothing recorded"
echo "TLS verified by default (CA and name), passwords by reference only"
