#!/bin/sh
# bringup enlist against a MAAS served over HTTPS (bringup-sim --https, its
# certificate signed by the generated CA in DIR/ca.pem): verification is on
# by default, so without the CA, or with an unrelated CA in --ca-file, it
# exits 3 quoting curl and changes nothing (the handshake fails before any
# request reaches MAAS); --insecure goes through without the CA; with
# $BRINGUP_CA_FILE it goes through verified.
. "$(dirname "$0")/lib.sh"
cd "$T"

bringup-sim --no-hosts --nodes 3 --https --dir sim --maas-commission-ms 200 --maas-deploy-ms 200 --daemon >/dev/null
at_exit "stop_sim $T/sim"
set -a; . ./sim/env; set +a
grep -q '^MAAS_URL=https://127.0.0.1:[0-9]*/MAAS/$' sim/env || fail "DIR/env has no https MAAS_URL: $(grep MAAS_URL sim/env)"
assert_eq "$BRINGUP_CA_FILE" "$T/sim/ca.pem" "BRINGUP_CA_FILE"
# The emulator answers TLS only, with a certificate for 127.0.0.1 from the CA.
assert_eq "$(curl -s --cacert sim/ca.pem -o /dev/null -w '%{http_code}' "${MAAS_URL}api/2.0/version/")" 200 \
	"MAAS over https with the CA"
rc=0
curl -s -o /dev/null "${MAAS_URL}api/2.0/version/" || rc=$?
assert_eq "$rc" 60 "curl without the CA"
plain=http://${MAAS_URL#https://}
assert_eq "$(curl -s -m 5 -o /dev/null -w '%{http_code}' "${plain}api/2.0/version/" || true)" 000 \
	"plain http on the MAAS port"

bringup import --db t.db --manifest sim/rack.csv >/dev/null
bringup discover --db t.db -q
assert_eq "$(sqlite3 t.db "select count(*) from nodes where state = 'discovered'")" 3 "discovered"
snapshot() { sqlite3 t.db "select hostname, state, reason, maas_system_id, ip from nodes order by hostname;
	select node_id, from_state, to_state, reason from events order by id"; }
before=$(snapshot)
logged=$(wc -l < sim/maas-requests.log)
# Every refusal is curl's verification failure, before any request.
refused() { # what, file
	assert_contains "$(cat "$2")" "${MAAS_URL}api/2.0/users/?op=whoami: TLS certificate not trusted" "$1: message"
	assert_contains "$(cat "$2")" "SSL certificate problem: unable to get local issuer certificate" \
		"$1: quotes curl"
	assert_contains "$(cat "$2")" "--ca-file" "$1: says what to do"
	assert_eq "$(snapshot)" "$before" "$1: inventory changed"
	assert_eq "$(wc -l < sim/maas-requests.log)" "$logged" "$1: requests reached MAAS"
}

# (a) No CA given: the system store does not know the simulator's CA.
rc=0
env -u BRINGUP_CA_FILE bringup enlist --no-ssh-key --db t.db --skip-configure --poll-ms 50 2> no-ca.err || rc=$?
assert_eq "$rc" 3 "no CA exit"
refused "no CA" no-ca.err

# (d) An unrelated CA in --ca-file wins over $BRINGUP_CA_FILE and is refused.
openssl req -x509 -newkey rsa:2048 -nodes -subj /CN=other -keyout k.pem -out other.pem -days 1 2>/dev/null
rc=0
bringup enlist --no-ssh-key --db t.db --skip-configure --poll-ms 50 --ca-file other.pem 2> other-ca.err || rc=$?
assert_eq "$rc" 3 "unrelated CA exit"
refused "unrelated CA" other-ca.err

# (b) --insecure, still without the CA, enlists the one node asked for.
first=$(sqlite3 t.db "select hostname from nodes order by hostname limit 1")
env -u BRINGUP_CA_FILE bringup enlist --no-ssh-key --db t.db --skip-configure --poll-ms 50 -q --insecure "$first"
assert_eq "$(sqlite3 t.db "select hostname || ' ' || state from nodes where state != 'discovered'")" \
	"$first deployed" "after --insecure"
[ "$(wc -l < sim/maas-requests.log)" -gt "$logged" ] || fail "--insecure sent no requests"

# (c) With $BRINGUP_CA_FILE, verified: the other two follow.
bringup enlist --no-ssh-key --db t.db --skip-configure --poll-ms 50 -q
assert_eq "$(sqlite3 t.db "select count(*) from nodes where state = 'deployed'")" 3 "deployed with the CA"
assert_eq "$(jq -r 'select(.op == "deploy" and .status == 200) | .system_id' sim/maas-requests.log | wc -l)" 3 \
	"deploys MAAS saw"

pid=$(cat sim/sim.pid)
kill "$pid"
while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
grep -q Sanitizer sim/sim.log && fail "sanitizer report: $(cat sim/sim.log)"
echo "3 nodes over https: no CA and a foreign CA refused before any request; --insecure 1, verified 2 deployed"
