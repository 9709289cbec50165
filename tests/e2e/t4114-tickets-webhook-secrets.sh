#!/bin/sh
# The tickets webhook's credentials (issue 29, finding 4): a URL with a
# user, a password or a query is refused on the command line (exit 2, the
# URL shown masked); by reference (--post-ref env:VAR) it is used as is
# (the receiver gets the userinfo as Basic authentication) and every
# failure line shows it masked; an Authorization header comes by reference
# too (--post-auth-ref). No secret reaches stderr.
. "$(dirname "$0")/lib.sh"
cd "$T"
bringup sim --no-hosts --nodes 2 --seed 2 --faults bmc_auth --dir rack --daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
export BRINGUP_DB=$T/inv.db
bringup import --manifest rack/rack.csv >/dev/null
bringup discover -q --bmc-deadline 5 || true
bringup tickets -q
[ "$(inv_sql "$BRINGUP_DB" 'select count(*) from tickets')" -ge 1 ] || fail "no ticket to post"

# A receiver that takes a delivery only with the bearer token, and logs the
# Authorization header of each request.
cat > recv.py <<'PY'
import http.server
class H(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a): pass
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        auth = self.headers.get("Authorization", "")
        with open("auth.log", "a") as f: f.write(auth + "\n")
        self.send_response(201 if auth == "Bearer bearer-secret-1" else 500)
        self.send_header("Content-Length", "0"); self.end_headers()
srv = http.server.HTTPServer(("127.0.0.1", 0), H)
open("port", "w").write(str(srv.server_address[1]))
srv.serve_forever()
PY
python3 recv.py & rpid=$!
at_exit "kill $rpid"
for _ in $(seq 300); do [ -s port ] && break; sleep 0.1; done
[ -s port ] || fail "no receiver"
port=$(cat port)
secrets="hookpass1 tok-secret-1 bearer-secret-1"
no_secret() {
	for s in $secrets; do
		! grep -q "$s" "$1" || fail "$2: '$s' in $(grep "$s" "$1" | head -1)"
	done
}

# On the command line: refused before anything is sent.
rc=0
bringup tickets --post "http://hookuser:hookpass1@127.0.0.1:$port/hook?token=tok-secret-1" 2> e1 >/dev/null || rc=$?
assert_eq "$rc" 2 "credentials on argv: exit"
assert_contains "$(cat e1)" "--post-ref" "the refusal says how"
assert_contains "$(cat e1)" "http://<redacted>:<redacted>@127.0.0.1:$port/hook?token=<redacted>" "the URL masked"
no_secret e1 "refusal"
[ ! -e auth.log ] || fail "a refused --post sent something"

# By reference, no header: the receiver answers 500, each failure masked.
export HOOK_URL="http://hookuser:hookpass1@127.0.0.1:$port/hook?token=tok-secret-1&source=bringup"
export HOOK_AUTH="Bearer bearer-secret-1"
rc=0
bringup tickets -v --post-ref env:HOOK_URL --retries 1 2> e2 >/dev/null || rc=$?
assert_eq "$rc" 3 "a receiver refusing every delivery: exit"
assert_contains "$(cat e2)" "POST http://<redacted>:<redacted>@127.0.0.1:$port/hook?token=<redacted>&source=<redacted>: HTTP 500" \
	"the failure line shows the URL masked"
no_secret e2 "failure lines"
assert_eq "$(sort -u auth.log)" "Basic $(printf 'hookuser:hookpass1' | base64)" "the userinfo sent as Basic authentication"

# With the header by reference: delivered.
: > auth.log
bringup tickets --post-ref env:HOOK_URL --post-auth-ref env:HOOK_AUTH --json > p.json 2> e3 ||
	fail "delivery with the bearer token: $(tail -2 e3)"
[ "$(jq .posted p.json)" -ge 1 ] || fail "nothing posted"
assert_eq "$(sort -u auth.log)" "Bearer bearer-secret-1" "the Authorization header by reference"
no_secret e3 "a delivery"
echo "webhook credentials: refused on argv, by reference used, always shown masked"
