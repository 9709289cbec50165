#!/bin/sh
# A MAC already registered in MAAS under another hostname is a conflict the
# node fails with, naming the other machine; enlist never adopts, changes or
# deploys that machine, and the other nodes go on.
. "$(dirname "$0")/lib.sh"
cd "$T"

bringup-sim --no-hosts --nodes 4 --dir sim --maas-commission-ms 200 --maas-deploy-ms 200 --daemon >/dev/null
at_exit "stop_sim $T/sim"
set -a; . ./sim/env; set +a
maas_post() {
	ck=${MAAS_API_KEY%%:*}; rest=${MAAS_API_KEY#*:}; tk=${rest%%:*}; ts=${rest#*:}
	curl -sf -X POST --data "$2" -H "Authorization: OAuth oauth_version=\"1.0\", \
oauth_signature_method=\"PLAINTEXT\", oauth_consumer_key=\"$ck\", oauth_token=\"$tk\", \
oauth_signature=\"%26$ts\", oauth_nonce=\"$(date +%s%N)\", oauth_timestamp=\"$(date +%s)\"" "${MAAS_URL}api/2.0/$1"
}
victim=$(jq -r '.nodes[1].hostname' sim/truth.json)
mac=$(jq -r '.nodes[1].macs[3]' sim/truth.json)
intruder=$(maas_post machines/ "hostname=intruder&commission=false&mac_addresses=$mac" | jq -r .system_id)
[ -n "$intruder" ] && [ "$intruder" != null ] || fail "could not pre-register the intruder"

bringup import --db t.db --manifest sim/rack.csv >/dev/null
bringup discover --db t.db -q
rc=0
bringup enlist --no-ssh-key --db t.db --skip-configure --poll-ms 50 --json > run.json 2>/dev/null || rc=$?
assert_eq "$rc" 1 "exit with one conflicting node"
reason=$(sqlite3 t.db "select reason from nodes where hostname = '$victim'")
assert_eq "$(sqlite3 t.db "select state from nodes where hostname = '$victim'")" failed "conflicting node state"
assert_contains "$reason" "MAC conflict: $mac is registered in MAAS on 'intruder' (system_id $intruder)" "reason"
assert_eq "$(sqlite3 t.db "select maas_system_id is null from nodes where hostname = '$victim'")" 1 \
	"the intruder's id was not recorded for the node"
assert_eq "$(sqlite3 t.db "select count(*) from nodes where state = 'deployed'")" 3 "other nodes deployed"
touched=$(jq -r --arg id "$intruder" 'select(.system_id == $id and .method == "POST") | .path' sim/maas-requests.log | wc -l)
assert_eq "$touched" 1 "requests changing the intruder (its own create only)"
