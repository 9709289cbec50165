#!/bin/sh
# MAAS (or a proxy) that echoes the request in its error: the node fails
# with MAAS's words, but the BMC power password and the parts of the MAAS
# API key the client sent are gone from the reason, the events, --json,
# stderr and the inventory.
. "$(dirname "$0")/lib.sh"
cd "$T"
bringup-sim --no-hosts --nodes 3 --seed 6 --faults maas_echo --maas-commission-ms 100 --maas-deploy-ms 100 \
	--dir sim --daemon >/dev/null
at_exit "stop_sim $T/sim"
set -a; . ./sim/env; set +a
export BRINGUP_DB=$T/inv.db
echo "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBringupTestKeyOnly validator@bringup" > id.pub
bringup import --manifest sim/rack.csv >/dev/null
bringup discover -q
h=$(jq -r '.nodes[] | select(.faults | index("maas_echo")) | .hostname' sim/truth.json)
ck=${MAAS_API_KEY%%:*}; rest=${MAAS_API_KEY#*:}; tk=${rest%%:*}; ts=${rest#*:}
rc=0
bringup enlist -v --skip-configure --poll-ms 50 --ssh-pubkey id.pub --json > run.json 2> run.err || rc=$?
assert_eq "$rc" 1 "one node refused"
# The emulator did echo them: the test would pass for nothing otherwise.
jq -r 'select(.status == 400) | .path' sim/maas-requests.log | grep -q machines ||
	fail "the emulator refused no create"
bringup status --json > st.json
bringup history --json "$h" > hist.json
sqlite3 inv.db .dump > dump.sql
assert_eq "$(jq -r --arg h "$h" '.nodes[] | select(.hostname == $h) | .state' st.json)" failed "the echoed node"
reason=$(jq -r --arg h "$h" '.nodes[] | select(.hostname == $h) | .reason' st.json)
assert_contains "$reason" "Invalid power parameters" "MAAS's words are kept"
assert_contains "$reason" "power_parameters_power_pass=<redacted>" "the password's place is marked"
for f in run.json run.err st.json hist.json dump.sql; do
	for s in "$BRINGUP_BMC_PASSWORD" "$ts" "$tk" "$ck"; do
		! grep -qF "$s" $f || fail "$f holds a secret: $(grep -oF "$s" $f | head -1 | cut -c1-4)..."
	done
done
assert_eq "$(jq -r '[.nodes[] | select(.state == "deployed")] | length' st.json)" 2 "the other nodes deploy"
exit 0
