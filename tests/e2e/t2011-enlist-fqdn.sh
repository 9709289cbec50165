#!/bin/sh
# A dotted hostname is an FQDN to MAAS: it keeps the first label as
# hostname and the whole as fqdn. A node named by FQDN whose machine is
# already in MAAS (registered under that FQDN) is adopted, not reported as
# a MAC conflict, and deploys.
. "$(dirname "$0")/lib.sh"
cd "$T"

bringup-sim --nodes 1 --dir sim --maas-commission-ms 200 --maas-deploy-ms 200 --daemon >/dev/null
at_exit "stop_sim $T/sim"
set -a; . ./sim/env; set +a
h=$(jq -r '.nodes[0].hostname' sim/truth.json)
fqdn="$h.example.com"
sed "s/^$h,/$fqdn,/" sim/rack.csv > rack.csv
bmc=$(awk -F, -v h="$fqdn" '$1 == h { print $4 }' rack.csv)
[ -n "$bmc" ] || fail "no BMC for $fqdn"

ck=${MAAS_API_KEY%%:*}; rest=${MAAS_API_KEY#*:}; tk=${rest%%:*}; ts=${rest#*:}
auth="Authorization: OAuth oauth_version=\"1.0\", oauth_signature_method=\"PLAINTEXT\", \
oauth_consumer_key=\"$ck\", oauth_token=\"$tk\", oauth_signature=\"%26$ts\", oauth_nonce=\"1\", oauth_timestamp=\"1\""
form="hostname=$fqdn&commission=false&power_type=redfish&power_parameters_power_address=$bmc"
form="$form&power_parameters_power_user=root&power_parameters_power_pass=$BRINGUP_BMC_PASSWORD"
for mac in $(jq -r '.nodes[0].macs[]' sim/truth.json); do form="$form&mac_addresses=$mac"; done
curl -sf -X POST --data "$form" -H "$auth" "${MAAS_URL}api/2.0/machines/" > created.json || fail "pre-register"
assert_eq "$(jq -r '.hostname + " " + .fqdn' created.json)" "$h $fqdn" "MAAS's hostname and fqdn"

bringup import --db t.db --manifest rack.csv >/dev/null
bringup discover --db t.db -q
rc=0
timeout 60 bringup enlist --db t.db --skip-configure --poll-ms 50 --json > run.json 2>run.err || rc=$?
assert_eq "$rc" 0 "exit"
assert_eq "$(sqlite3 t.db "select state from nodes where hostname = '$fqdn'")" deployed "state"
assert_eq "$(sqlite3 t.db "select maas_system_id from nodes where hostname = '$fqdn'")" "$(jq -r .system_id created.json)" \
	"adopted the registered machine"
! grep -q "MAC conflict" run.err run.json || fail "a false MAC conflict"
