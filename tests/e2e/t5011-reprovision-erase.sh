#!/bin/sh
# bringup reprovision on a node whose profile says [reprovision] erase: the
# release asks MAAS to erase the disks, reprovision waits until MAAS has the
# machine Ready (straight away, or through Releasing and Disk erasing, as
# real MAAS does), and enlist then deploys the same machine again.
. "$(dirname "$0")/lib.sh"
cd "$T"
bringup sim --nodes 2 --seed 5 --dir rack --no-hosts --maas-commission-ms 100 --maas-deploy-ms 100 --daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
DB=$(db_for inv)
export BRINGUP_DB=$DB BRINGUP_TEMPLATES=$T/tpl BRINGUP_SSH_PUBKEY=$T/key.pub
echo "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBq2G2kT0rHqRk1F3jS3w3yQbq6v6hwqL9F1d1vH0Vvh test" > key.pub
cp -r "$BR_TOP/templates" tpl
printf '\n[reprovision]\nerase = yes\n' >> tpl/profiles/xe9680/hardware.conf
h=$(jq -r '.nodes[0].hostname' rack/truth.json)
other=$(jq -r '.nodes[1].hostname' rack/truth.json)
maas_status() { # hostname -> its status_name, read from the API as any MAAS client would
	ck=${MAAS_API_KEY%%:*}; rest=${MAAS_API_KEY#*:}; tk=${rest%%:*}; ts=${rest#*:}
	curl -sf -H "Authorization: OAuth oauth_version=\"1.0\", oauth_signature_method=\"PLAINTEXT\", \
oauth_consumer_key=\"$ck\", oauth_token=\"$tk\", oauth_signature=\"%26$ts\", \
oauth_nonce=\"$(date +%s%N)\", oauth_timestamp=\"$(date +%s)\"" "${MAAS_URL}api/2.0/machines/" |
		jq -r --arg h "$1" '.[] | select(.hostname == $h) | .status_name'
}
bringup import --manifest rack/rack.csv >/dev/null
bringup discover -q >/dev/null
bringup configure -q >/dev/null
bringup enlist -q --poll-ms 100 >/dev/null
assert_eq "$(bringup status --json | jq -r '[.nodes[].state] | unique | join(",")')" deployed "both deployed first"
id=$(node_field "$DB" "$h" maas_system_id)
machines=$(grep -c '"method":"POST","path":"/MAAS/api/2.0/machines/"' rack/maas-requests.log || true)

rc=0; bringup reprovision -q --no-run --poll-ms 100 "$h" > repro.txt 2>&1 || rc=$?
assert_eq "$rc" 0 "reprovision exit: $(cat repro.txt)"
grep '"op":"release"' rack/maas-requests.log | grep -q '"erase":"true"' ||
	fail "release sent without erase=true: $(grep '"op":"release"' rack/maas-requests.log)"
assert_eq "$(maas_status "$h")" Ready "the machine is Ready once reprovision returns"
assert_eq "$(bringup status --json | jq -r --arg h "$h" '.nodes[] | select(.hostname == $h) | .state')" configured "reset"
assert_contains "$(bringup history "$h")" "released in MAAS, disks erased" "the erase is in the history"
assert_eq "$(bringup status --json | jq -r --arg h "$other" '.nodes[] | select(.hostname == $h) | .state')" deployed \
	"the other node untouched"

# Deployed again on the same machine: nothing created in MAAS.
bringup enlist -q --poll-ms 100 >/dev/null
assert_eq "$(bringup status --json | jq -r --arg h "$h" '.nodes[] | select(.hostname == $h) | .state')" deployed "redeployed"
assert_eq "$(node_field "$DB" "$h" maas_system_id)" "$id" "the same machine"
assert_eq "$(grep -c '"method":"POST","path":"/MAAS/api/2.0/machines/"' rack/maas-requests.log || true)" "$machines" \
	"no machine created"

# Without erase in the profile: a plain release.
sed -i 's/^erase = yes/erase = no/' tpl/profiles/xe9680/hardware.conf
bringup reprovision -q --no-run "$other" >/dev/null 2>&1
assert_eq "$(grep '"op":"release"' rack/maas-requests.log | grep -c '"erase":"true"')" 1 "only the erasing profile erased"
assert_contains "$(bringup history "$other")" "reprovision from deployed: released in MAAS" "plain release recorded"
echo "reprovision: erase from the profile, Ready waited for, the same machine redeployed"
