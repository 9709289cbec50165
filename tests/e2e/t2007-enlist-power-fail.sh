#!/bin/sh
# MAAS given power parameters that do not work (here the wrong BMC
# password) cannot power the machine: it reverts Commissioning to New and
# logs why. enlist fails the node with MAAS's own event text in bounded
# time, instead of commissioning it again and again.
. "$(dirname "$0")/lib.sh"
cd "$T"

bringup-sim --nodes 2 --dir sim --maas-commission-ms 200 --maas-deploy-ms 200 --daemon >/dev/null
at_exit "stop_sim $T/sim"
set -a; . ./sim/env; set +a
bringup import --db t.db --manifest sim/rack.csv >/dev/null
bringup discover --db t.db -q
rc=0
BRINGUP_BMC_PASSWORD=not-the-password timeout 60 bringup enlist --db t.db --skip-configure --poll-ms 50 --json \
	> run.json 2>/dev/null || rc=$?
assert_eq "$rc" 1 "exit (not 124: the run ends on its own)"
assert_eq "$(jq .failed run.json)" 2 "failed nodes"
for h in $(jq -r '.nodes[].hostname' sim/truth.json); do
	assert_eq "$(sqlite3 t.db "select state from nodes where hostname = '$h'")" failed "$h state"
	assert_contains "$(sqlite3 t.db "select reason from nodes where hostname = '$h'")" \
		"Aborting COMMISSIONING and reverting to NEW. Unable to power control the node" "$h reason quotes MAAS"
done
# What MAAS itself shows: New, with the event.
ck=${MAAS_API_KEY%%:*}; rest=${MAAS_API_KEY#*:}; tk=${rest%%:*}; ts=${rest#*:}
curl -sf -H "Authorization: OAuth oauth_version=\"1.0\", oauth_signature_method=\"PLAINTEXT\", \
oauth_consumer_key=\"$ck\", oauth_token=\"$tk\", oauth_signature=\"%26$ts\", \
oauth_nonce=\"$(date +%s%N)\", oauth_timestamp=\"$(date +%s)\"" "${MAAS_URL}api/2.0/machines/" > machines.json
assert_eq "$(jq -r '[.[].status_name] | unique | join(",")' machines.json)" New "MAAS status after the revert"
# Never commissioned again: one create each, no op=commission.
assert_eq "$(jq -r 'select(.op == "commission")' sim/maas-requests.log | wc -l)" 0 "commission requests"

