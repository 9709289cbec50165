#!/bin/sh
# Power parameters per BMC: an IPMI node is registered with power_type=ipmi,
# power_driver=LAN_2_0 and an address without a port (ipmitool's -H); a
# Redfish node with no fixed node_id (MAAS takes the BMC's own System).
# Both commission through their BMC (the emulator checks the parameters
# against each node's simulated BMC) and deploy. The emulator refuses a
# Redfish machine without its required parameters.
. "$(dirname "$0")/lib.sh"
cd "$T"

bringup-sim --nodes 2 --dir sim --maas-commission-ms 200 --maas-deploy-ms 200 --daemon >/dev/null
at_exit "stop_sim $T/sim"
set -a; . ./sim/env; set +a
bringup import --db t.db --manifest sim/rack.csv >/dev/null
bringup discover --db t.db -q
ipmi=$(jq -r '.nodes[0].hostname' sim/truth.json)
rf=$(jq -r '.nodes[1].hostname' sim/truth.json)
# The first node's BMC is known as an IPMI one (as a manifest's bmc_type says).
sqlite3 t.db "update nodes set bmc_type = 'ipmi' where hostname = '$ipmi'"
bmc=$(sqlite3 t.db "select bmc from nodes where hostname = '$ipmi'")
rc=0
timeout 60 bringup enlist --db t.db --skip-configure --poll-ms 50 --json > run.json 2>/dev/null || rc=$?
assert_eq "$rc" 0 "exit"
assert_eq "$(jq .deployed run.json)" 2 "deployed"
created() { jq -r --arg h "$1" "select(.op == null and .method == \"POST\" and .path == \"machines/\" and .hostname == \$h) | $2" \
	sim/maas-requests.log; }
assert_eq "$(created "$ipmi" '[.power_type, .power_driver, .power_address] | join(" ")')" "ipmi LAN_2_0 ${bmc%:*}" \
	"IPMI node's power parameters"
assert_eq "$(created "$rf" '[.power_type, (.node_id // "none")] | join(" ")')" "redfish none" "Redfish node's power parameters"

# MAAS's required power parameters (drivers/power/redfish.py).
ck=${MAAS_API_KEY%%:*}; rest=${MAAS_API_KEY#*:}; tk=${rest%%:*}; ts=${rest#*:}
out=$(curl -s -X POST --data "hostname=x&power_type=redfish&power_parameters_power_address=127.0.0.1&mac_addresses=02:00:00:00:00:99" \
	-H "Authorization: OAuth oauth_version=\"1.0\", oauth_signature_method=\"PLAINTEXT\", \
oauth_consumer_key=\"$ck\", oauth_token=\"$tk\", oauth_signature=\"%26$ts\", \
oauth_nonce=\"$(date +%s%N)\", oauth_timestamp=\"$(date +%s)\"" -w ' %{http_code}' "${MAAS_URL}api/2.0/machines/")
assert_contains "$out" '{"power_parameters":["power_user: This field is required."]} 400' "missing power_user refused"
