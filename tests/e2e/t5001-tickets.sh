#!/bin/sh
# bringup tickets on a simulated rack taken through the real stages: one
# ticket per faulty (node, fault) — BMC down, BMC credentials, MAAS
# commissioning, outdated firmware, swapped cables — and none for golden
# nodes; rack/U, serial, evidence and the technician's action filled in;
# Markdown sorted by rack then U, JSON, CSV; a re-run files nothing new, a
# fixed fault closes its ticket and a recurring one reopens the same one;
# --post delivers each ticket version exactly once over verified TLS to a
# receiver that fails requests (500s and dropped connections), retrying.
. "$(dirname "$0")/lib.sh"
cd "$T"
bringup sim --nodes 6 --seed 5 --dir rack --faults bmc_down,bmc_auth,commission_fail,fw_outdated --daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
DB=$(db_for inv)
export BRINGUP_DB=$DB
cp -r "$BR_TOP/templates" tpl
# validate --facts reads no controller clock: clock is unknown everywhere.
sed -i 's/^optional = .*/optional = fabric, clock/' tpl/profiles/xe9680/hardware.conf
export BRINGUP_TEMPLATES=$T/tpl
of() { jq -r --arg f "$1" '.nodes[] | select(.faults | index($f)) | .hostname' rack/truth.json; }
state() { bringup status --json | jq -r --arg h "$1" '.nodes[] | select(.hostname == $h) | .state'; }

ssh-keygen -q -t ed25519 -N '' -f id
bringup import --manifest rack/rack.csv >/dev/null
bringup discover -q --timeout 2 --retries 0 || true
bringup enlist --skip-configure --poll-ms 100 --ssh-pubkey id.pub -q || true
# The probe's document of each simulated host; "swap" exchanges the
# switch ports of its first two LLDP neighbours (the cables were crossed).
make_doc() { # HOST good|swap
	if [ "$2" = swap ]; then
		sim_probe_doc rack "$1" '.lldp.neighbors[0].system_name as $s0 | .lldp.neighbors[0].port_id as $p0
			| .lldp.neighbors[0].system_name = .lldp.neighbors[1].system_name
			| .lldp.neighbors[0].port_id = .lldp.neighbors[1].port_id
			| .lldp.neighbors[1].system_name = $s0 | .lldp.neighbors[1].port_id = $p0' > "$2-$1.json"
	else
		sim_probe_doc rack "$1" > "$2-$1.json"
	fi
}
deployed=$(bringup status --json | jq -r '.nodes[] | select(.state == "deployed") | .hostname')
swapped=$(jq -r '.nodes[] | select(.faults == []) | .hostname' rack/truth.json | head -1)
for h in $deployed; do
	if [ "$h" = "$swapped" ]; then make_doc "$h" swap; f=swap-$h.json; else make_doc "$h" good; f=good-$h.json; fi
	bringup validate --facts "$f" --wiring rack/wiring.csv -q "$h" || true
done
bringup gate -q || true
assert_eq "$(state "$swapped")" quarantined "swapped cables quarantine"

bringup tickets --json > t1.json
want=$(printf '%s\n' "$(of bmc_down)/bmc_unreachable" "$(of bmc_auth)/bmc_auth" "$(of commission_fail)/commission_failed" \
	"$swapped/cabling" | sort)
got=$(jq -r '.tickets[] | "\(.hostname)/\(.fault)"' t1.json | grep -v '/firmware:' | sort)
assert_eq "$got" "$want" "one ticket per failed-stage node and the swap"
fw=$(of fw_outdated)
assert_eq "$(jq -r '.tickets[] | select(.fault | startswith("firmware:")) | .hostname' t1.json | sort -u)" "$fw" \
	"firmware tickets only for the fw_outdated node"
golden=$(bringup status --json | jq -r '.nodes[] | select(.state == "golden") | .hostname')
[ -n "$golden" ] || fail "no golden node to check"
for h in $golden; do
	assert_eq "$(jq --arg h "$h" '[.tickets[] | select(.hostname == $h)] | length' t1.json)" 0 "no ticket for golden $h"
done
# Where, what serial, what evidence, what to do.
t=$(jq -c --arg h "$fw" '[.tickets[] | select(.hostname == $h)][0]' t1.json)
row=$(grep "^$fw," rack/rack.csv)
assert_eq "$(echo "$t" | jq -r .serial)" "$(jq -r --arg h "$fw" '.nodes[] | select(.hostname == $h) | .system_serial' rack/truth.json)" "serial"
assert_contains "$(echo "$t" | jq -r .location)" "U" "location has the U"
assert_contains "$(echo "$t" | jq -r .evidence)" " < " "firmware evidence: seen < expected"
assert_contains "$(echo "$t" | jq -r .action)" "Update the firmware of" "firmware action"
assert_contains "$(jq -r '.tickets[] | select(.fault == "bmc_unreachable") | .action' t1.json)" \
	"BMC unreachable: check the management cable and the iDRAC" "BMC action"
assert_contains "$(jq -r '.tickets[] | select(.fault == "cabling") | .action' t1.json)" "Swap" "cabling action says swap"
assert_contains "$(jq -r '.tickets[] | select(.fault == "commission_failed") | .evidence' t1.json)" \
	"Commissioning failed" "MAAS's reason kept as evidence"
n=$(jq '.tickets | length' t1.json)
# Naming one host (as reprovision and run --only do) still lists every
# open ticket with its own node's serial: none is sent without one.
bringup tickets --json "$swapped" > t1h.json
assert_eq "$(jq -r --arg h "$fw" '[.tickets[] | select(.hostname == $h)][0].serial' t1h.json)" \
	"$(echo "$t" | jq -r .serial)" "another node's ticket keeps its serial when a host is named"

# Markdown: one row per ticket, by rack then U; CSV: a header and the rows.
bringup tickets --format md > t.md
assert_eq "$(grep -c '^| rack ' t.md)" "$n" "md rows"
grep '^| rack ' t.md | sed 's/^| rack \([^ ]*\) U\([0-9]*\) .*/\1 \2/' > order
assert_eq "$(cat order)" "$(sort -k1,1 -k2,2n order)" "md sorted by rack then U"
bringup tickets --format csv > t.csv
assert_eq "$(head -1 t.csv)" "$(printf 'hostname,location,serial,service_tag,fault,evidence,action,external_key\r')" "csv header (CRLF: RFC 4180)"
assert_eq "$(($(wc -l < t.csv) - 1))" "$n" "csv rows"

# A re-run files nothing new.
bringup tickets --json > t2.json
assert_eq "$(jq .opened t2.json)" 0 "re-run opens nothing"
assert_eq "$(jq .unchanged t2.json)" "$n" "re-run leaves every ticket"
assert_eq "$(inv_sql "$DB" 'select count(*) from tickets')" "$n" "no duplicate rows"
# Discovery retried on the dead BMC fails the same way (its timings aside):
# the ticket stays as it was, same version.
down=$(of bmc_down)
bringup discover -q --timeout 2 --retries 0 "$down" || true
assert_eq "$(state "$down")" failed "dead BMC still failed"
bringup tickets --json > t2b.json
assert_eq "$(jq .opened,.changed t2b.json | paste -sd,)" "0,0" "same failure again: ticket unchanged"
assert_eq "$(jq -r '.tickets[] | select(.fault == "bmc_unreachable") | .version' t2b.json)" 1 "still version 1"

# The cables fixed: re-validated, its ticket closes; crossed again: the
# same ticket reopens, one version on.
id=$(inv_sql "$DB" "select t.id from tickets t join nodes n on n.id=t.node_id where n.hostname='$swapped'")
make_doc "$swapped" good
bringup validate --facts "good-$swapped.json" --wiring rack/wiring.csv -q "$swapped"
bringup tickets --json > t3.json
assert_eq "$(jq .closed t3.json)" 1 "fixed fault closes its ticket"
assert_eq "$(jq '.tickets | length' t3.json)" "$((n - 1))" "one ticket fewer open"
assert_eq "$(inv_sql "$DB" "select status, case when closed_at is null then 0 else 1 end from tickets where id=$id")" "closed|1" "closed_at set"
bringup validate --facts "swap-$swapped.json" --wiring rack/wiring.csv -q "$swapped"
bringup gate -q "$swapped" || true
bringup tickets --json > t4.json
assert_eq "$(jq .opened t4.json)" 1 "recurring fault reopens"
assert_eq "$(inv_sql "$DB" "select count(*), max(t.id), max(t.version) from tickets t join nodes n on n.id=t.node_id where n.hostname='$swapped'")" \
	"1|$id|3" "the same ticket, version 3"

# --post to an HTTPS receiver that fails the first attempt of every ticket
# version (500, or the connection dropped) and logs what it takes.
openssl req -x509 -newkey rsa:2048 -nodes -keyout key.pem -out cert.pem -days 1 -subj /CN=127.0.0.1 \
	-addext subjectAltName=IP:127.0.0.1 2>/dev/null
cat > recv.py <<'PY'
import http.server, json, socket, ssl, sys
attempts = {}
accepted = set()
class H(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a): pass
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        key = self.headers.get("Idempotency-Key", "")
        n = attempts[key] = attempts.get(key, 0) + 1
        with open("attempts.log", "a") as f: f.write(key + "\n")
        if n == 1 and len(attempts) % 2:
            self.send_response(500); self.end_headers(); return
        if n == 1:
            self.connection.shutdown(socket.SHUT_RDWR); self.close_connection = True; return
        if key not in accepted:
            accepted.add(key)
            doc = json.loads(body)
            assert doc["idempotency_key"] == key
            with open("accepted.log", "a") as f: f.write(key + "\n")
        self.send_response(201); self.send_header("Content-Length", "0"); self.end_headers()
srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER); ctx.load_cert_chain("cert.pem", "key.pem")
srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
open("port", "w").write(str(srv.server_address[1]))
srv.serve_forever()
PY
python3 recv.py & rpid=$!
at_exit "kill $rpid"
# python3 starts slowly on a loaded 2-core machine (ASan beside it): up to 30 s
for _ in $(seq 300); do [ -s port ] && break; sleep 0.1; done
url=https://127.0.0.1:$(cat port)/tickets
rc=0; bringup tickets --post "$url" >/dev/null 2>err || rc=$?
assert_eq "$rc" 3 "untrusted certificate: exit 3"
assert_contains "$(cat err)" "not trusted" "TLS verified by default"
[ ! -s accepted.log ] || fail "nothing may be delivered over an untrusted connection"
total=$(inv_sql "$DB" 'select count(*) from tickets')
bringup tickets --post "$url" --ca-file cert.pem --json > p1.json
assert_eq "$(jq .posted p1.json)" "$total" "every ticket version posted"
assert_eq "$(wc -l < accepted.log)" "$total" "each arrived once"
assert_eq "$(sort -u accepted.log | wc -l)" "$total" "no version twice"
[ "$(wc -l < attempts.log)" -gt "$total" ] || fail "no retries happened"
assert_eq "$(inv_sql "$DB" 'select count(*) from tickets where posted_version < version')" 0 "delivery recorded"
before=$(wc -l < attempts.log)
bringup tickets --post "$url" --ca-file cert.pem -q
assert_eq "$(wc -l < attempts.log)" "$before" "nothing changed: nothing posted"
# A change (the cables fixed again) is one new version, delivered once.
bringup validate --facts "good-$swapped.json" --wiring rack/wiring.csv -q "$swapped"
bringup tickets --post "$url" --ca-file cert.pem -q
assert_eq "$(wc -l < accepted.log)" "$((total + 1))" "the closing delivered"
assert_eq "$(tail -1 accepted.log)" "bringup-$swapped/cabling-v4" "key names ticket and version"
echo "tickets: one per fault, sorted, deduplicated, closed and reopened, posted once per version"
