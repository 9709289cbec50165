#!/bin/sh
# A BMC whose session table is full (iDRAC's RAC0218: sessions leaked by
# others, or by killed runs) is read with HTTP basic auth instead of failing
# the node; the refused login is not retried. Its neighbours keep sessions.
. "$(dirname "$0")/lib.sh"
cd "$T"
bringup sim --no-hosts --nodes 3 --seed 7 --faults sessions_full:1 --dir rack --daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
bringup import --db inv.db --manifest rack/rack.csv >/dev/null
full=$(jq -r '.nodes[] | select(.faults | index("sessions_full")) | .hostname' rack/truth.json)
bmc=$(jq -r --arg h "$full" '.nodes[] | select(.hostname == $h) | .bmc' rack/truth.json)

bringup discover --db inv.db --json > out.json 2> err.txt || fail "discover: $(cat err.txt)"
assert_eq "$(bringup status --db inv.db --json | jq '[.nodes[] | select(.state == "discovered")] | length')" 3 \
	"every node discovered"
logins() { jq -s --arg b "$1" '[.[] | select(.bmc == $b and .method == "POST" and (.path | endswith("/Sessions")))]' rack/requests.log; }
assert_eq "$(logins "$bmc" | jq 'length')" 1 "one login tried on the full BMC (no retries)"
assert_eq "$(logins "$bmc" | jq -r '.[0].status')" 503 "the login refused"
assert_eq "$(jq -s --arg b "$bmc" '[.[] | select(.bmc == $b and .method == "GET" and .auth != "basic" and .auth != "none")] | length' rack/requests.log)" 0 \
	"the full BMC read with basic auth only"
assert_eq "$(jq -s --arg b "$bmc" '[.[] | select(.bmc != $b and .auth == "session")] | length > 0' rack/requests.log)" true \
	"the others read with sessions"
assert_contains "$(cat err.txt)" "no session slot free" "the fallback is logged"
