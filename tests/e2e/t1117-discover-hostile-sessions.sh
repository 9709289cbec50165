#!/bin/sh
# The hostile rack's second half (t1116 is the first; together they would
# pass the suite's ~20 s for one test): a Bios body that never ends,
# redirects (to another host, another port, a path of the same BMC), a
# session token refused after login, a login answered without X-Auth-Token
# or without Location, a login's Context refused (a service older than
# Session v1_5_0), and a $expand answer nested thousands of levels.
# Each hostile node ends as its behaviour deserves, with a reason that
# names it; every good node ends as it would alone; no redirect is
# followed, nobody logs in twice, and no session is left open on any BMC.
. "$(dirname "$0")/lib.sh"
cd "$T"
hostile=endless_body,redirect,token_revoked,session_no_token,session_no_location,session_context_refused,deep_expand
bringup-sim --no-hosts --nodes 11 --seed 11 --faults "$hostile" --dir sim --daemon >/dev/null
at_exit "stop_sim $T/sim"
set -a; . ./sim/env; set +a
export BRINGUP_DB=$T/inv.db
truth=sim/truth.json
bringup import --manifest sim/rack.csv >/dev/null

host_of() { jq -r --arg f "$1" '.nodes[] | select(.faults | index($f)) | .hostname' $truth; }
state_of() { node_field inv.db "$1" state; }
reason_of() { node_field inv.db "$1" reason; }
macs_of() {
	inv_sql inv.db "select mac from nics join nodes on nodes.id = nics.node_id where hostname = '$1' order by mac" |
		tr '\n' ' '
}
true_macs() { jq -r --arg h "$1" '.nodes[] | select(.hostname == $h) | .macs[]' $truth | tr 'A-F' 'a-f' | sort | tr '\n' ' '; }

start=$(date +%s)
rc=0
bringup discover --timeout 4 --retries 1 --bmc-deadline 20 --json >d.json 2>err.txt || rc=$?
took=$(($(date +%s) - start))
assert_eq "$rc" 1 "discover exit code with failed nodes ($(tail -3 err.txt))"
# every BMC at once, 20 s deadline each (a good walk under the sanitizers on a
# loaded machine takes up to ~10 s): the run must end within it and its grace
[ "$took" -le 30 ] || fail "discover took $took s with a 20 s per-BMC deadline"

# Good nodes: exactly as alone.
good=$(jq -r '.nodes[] | select((.faults | length) == 0) | .hostname' $truth)
[ "$(echo "$good" | wc -w)" -ge 4 ] || fail "too few good nodes in the rack: $good"
for h in $good; do
	assert_eq "$(state_of "$h")" discovered "good node $h beside hostile BMCs ($(reason_of "$h"))"
	assert_eq "$(macs_of "$h")" "$(true_macs "$h")" "$h: host MACs"
done

# A body that never ends stops at the body cap.
h=$(host_of endless_body)
assert_eq "$(state_of "$h")" failed "endless_body node $h"
assert_contains "$(reason_of "$h")" "/Bios: response body exceeds 8388608 bytes" "endless_body reason"

# A redirect fails the node, naming where it pointed; none is followed.
h=$(host_of redirect)
assert_eq "$(state_of "$h")" failed "redirect node $h"
assert_contains "$(reason_of "$h")" "(redirect to " "redirect reason"
assert_contains "$(reason_of "$h")" "Redirected, not followed)" "redirect reason"
[ "$(grep -c '"fault":"redirect"' sim/requests.log)" -ge 1 ] || fail "the sim answered no redirect"
assert_eq "$(grep -c 'Redirected' sim/requests.log)" 0 "requests that followed a redirect"

# A token refused mid-walk: one login, a clean failure, no blame on the password.
h=$(host_of token_revoked)
assert_eq "$(state_of "$h")" failed "token_revoked node $h"
assert_contains "$(reason_of "$h")" "HTTP 401 on " "token_revoked reason"
assert_contains "$(reason_of "$h")" "session token refused after login" "token_revoked reason"
case "$(reason_of "$h")" in *"check bmc_user"*) fail "token_revoked blamed the credentials: $(reason_of "$h")" ;; esac
assert_eq "$(jq -r --arg h "$h" 'select(.node == $h and .session == "created") | .path' sim/requests.log | wc -l)" 1 \
	"logins on the token_revoked BMC"

# A login without token or without Location: discovered all the same
# (basic auth; the body's @odata.id), and the session the BMC made deleted.
for f in session_no_token session_no_location session_context_refused; do
	h=$(host_of $f)
	assert_eq "$(state_of "$h")" discovered "$f node $h ($(reason_of "$h"))"
	assert_eq "$(macs_of "$h")" "$(true_macs "$h")" "$f node $h: host MACs"
	assert_eq "$(jq -r --arg h "$h" 'select(.node == $h and .session == "deleted") | .path' sim/requests.log | wc -l)" 1 \
		"$f node $h: session deleted"
done

# The login's Context refused (400 PropertyUnknown): logged in again without it, once.
h=$(host_of session_context_refused)
assert_eq "$(jq -c -s --arg h "$h" '[.[] | select(.node == $h and .method == "POST" and (.path | endswith("/Sessions"))) | .status]' sim/requests.log)" \
	"[400,201]" "session_context_refused node $h: the logins' answers"

# $expand nested thousands of levels: refused by the depth cap.
h=$(host_of deep_expand)
assert_eq "$(state_of "$h")" failed "deep_expand node $h"
assert_contains "$(reason_of "$h")" "JSON nested deeper than 64 levels" "deep_expand reason"

# No session left open on any BMC, as each BMC lists them.
for bmc in $(tail -n +2 sim/rack.csv | cut -d, -f4); do
	n=$(curl -sf -m 5 -u "root:$BRINGUP_BMC_PASSWORD" "http://$bmc/redfish/v1/SessionService/Sessions" |
		jq '.Members | length')
	assert_eq "$n" 0 "sessions left open on $bmc"
done
assert_eq "$(inv_sql inv.db "select count(*) from nodes where state = 'failed' and coalesce(reason, '') = ''")" 0 \
	"every failed node has a reason"
echo "11 BMCs, 7 hostile, in $took s: hostile nodes end with their reasons, good ones as alone, no session left"
