#!/bin/sh
# --log-format json (and bringup.conf's [log] format, BRINGUP_LOG_FORMAT):
# every line a stage logs is one JSON object with time, prog, level, stage,
# subsys, node, bmc and msg; a line about a node names it and its BMC in
# fields of their own (discover's refused login, each node discovered,
# configure's outcome per node), never the password. Text stays as it was;
# a format neither text nor json is exit 2 before any BMC is asked.
. "$(dirname "$0")/lib.sh"
cd "$T"
bringup sim --no-hosts --nodes 4 --seed 3 --dir rack --faults bmc_auth --daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
export BRINGUP_DB=$T/inv.db
truth=rack/truth.json
bringup import --manifest rack/rack.csv >/dev/null
auth=$(jq -r '.nodes[] | select(.faults | index("bmc_auth")) | .hostname' $truth)
auth_bmc=$(jq -r --arg h "$auth" '.nodes[] | select(.hostname == $h) | .bmc' $truth)

# A wrong format: nothing asked of any BMC.
lines=$(wc -l < rack/requests.log)
rc=0; bringup discover --log-format xml 2> err || rc=$?
assert_eq "$rc" 2 "--log-format xml"
assert_contains "$(cat err)" "want text, json or journal" "the values named"
rc=0; BRINGUP_LOG_FORMAT=yaml bringup discover 2> err || rc=$?
assert_eq "$rc" 2 "BRINGUP_LOG_FORMAT=yaml"
assert_eq "$(wc -l < rack/requests.log)" "$lines" "requests sent for a wrong log format"

rc=0; bringup discover -v --log-format json > out 2> log.json || rc=$?
assert_eq "$rc" 1 "discover exit with the bmc_auth node"
[ -s log.json ] || fail "nothing logged"
jq -e . log.json > /dev/null || fail "a log line is not JSON: $(head -3 log.json)"
assert_eq "$(jq -s 'map(select(has("time") and has("prog") and has("level") and has("stage") and has("node") and has("bmc") and has("msg"))) | length' log.json)" \
	"$(wc -l < log.json | tr -d ' ')" "lines with every field"
assert_eq "$(jq -s -r 'map(.stage) | unique | join(",")' log.json)" discover "stage field"
# The refused login: its node and BMC as fields, the message as text says it.
assert_eq "$(jq -r --arg h "$auth" 'select(.node == $h and .level == "warning") | .bmc' log.json)" "$auth_bmc" "the bmc_auth node's BMC field"
assert_contains "$(jq -r --arg h "$auth" 'select(.node == $h) | .msg' log.json)" "credentials refused" "the bmc_auth node's message"
grep -q "$BRINGUP_BMC_PASSWORD" log.json && fail "the BMC password in the log"
# Every other node discovered, each named with its own BMC.
for h in $(jq -r --arg a "$auth" '.nodes[] | select(.hostname != $a) | .hostname' $truth); do
	assert_eq "$(jq -r --arg h "$h" 'select(.node == $h and .level == "info") | .bmc' log.json)" \
		"$(jq -r --arg h "$h" '.nodes[] | select(.hostname == $h) | .bmc' $truth)" "$h's discovered line"
done

# From bringup.conf, for configure: each node's outcome with its BMC.
printf '[log]\nformat = json\n' > bringup.conf
bringup --config bringup.conf configure -v > out 2> conf.json || true
jq -e . conf.json > /dev/null || fail "configure's log is not JSON lines: $(head -3 conf.json)"
n=$(jq -r 'select(.stage == "configure" and .node != null and .bmc != null) | .node' conf.json | sort -u | wc -l)
assert_eq "$n" 3 "configure's lines naming a node and its BMC"

# Text as before: "TIME PROG: LEVEL[SUBSYS] HOST: message".
bringup import --manifest rack/rack.csv >/dev/null
rc=0; bringup discover "$auth" 2> log.txt || rc=$?
grep -q "^[0-9T:-]*Z bringup-discover: warning\[discover\] $auth: credentials refused" log.txt ||
	fail "text log line changed: $(cat log.txt)"
