#!/bin/sh
# A real MAAS client against the emulator: Juju's gomaasapi (Debian's
# golang-github-juju-gomaasapi-dev, built with Debian's golang-go in GOPATH
# mode, nothing downloaded) reads the controller, version, zones, domains,
# spaces, tags and machines (its schema check on every machine, in every
# state they pass through), allocates, sets owner data, deploys and
# releases. scripts/deps installs both packages; without Go the test says
# so and skips.
. "$(dirname "$0")/lib.sh"
cd "$T"

if ! command -v go >/dev/null 2>&1 || [ ! -d /usr/share/gocode/src/github.com/juju/gomaasapi ]; then
	echo "SKIP: golang-go or golang-github-juju-gomaasapi-dev not installed (scripts/deps installs them)" >&2
	exit 0
fi
# Built once into build/go with its own Go cache (the program does not
# depend on the C build, so the plain and ASan trees share it).
gobuild=$BR_TOP/build/go
mkdir -p "$gobuild/cache"
src="$BR_TOP/tests/gomaasapi/jujuflow.go"
if [ ! -x "$gobuild/jujuflow" ] || [ "$src" -nt "$gobuild/jujuflow" ]; then
	# Its own temporary name: the plain and ASan runs may build at once.
	GO111MODULE=off GOPATH=/usr/share/gocode GOCACHE="$gobuild/cache" GOFLAGS= GOPROXY=off \
		go build -o "$gobuild/jujuflow.tmp.$$" "$src" || fail "building jujuflow"
	mv "$gobuild/jujuflow.tmp.$$" "$gobuild/jujuflow"
fi

bringup-sim --nodes 2 --no-hosts --dir sim --maas-commission-ms 1000 --maas-deploy-ms 300 --maas-latency-ms 0 \
	--daemon >/dev/null
at_exit "stop_sim $T/sim"
set -a; . ./sim/env; set +a

ck=${MAAS_API_KEY%%:*}; rest=${MAAS_API_KEY#*:}; tk=${rest%%:*}; ts=${rest#*:}
auth="Authorization: OAuth oauth_version=\"1.0\", oauth_signature_method=\"PLAINTEXT\", \
oauth_consumer_key=\"$ck\", oauth_token=\"$tk\", oauth_signature=\"%26$ts\", oauth_nonce=\"1\", oauth_timestamp=\"1\""
h0=$(jq -r '.nodes[0].hostname' sim/truth.json)
# gomaasapi starts first and reads the machine list while the machines
# are registered, so it sees every status from the start.
timeout 60 "$gobuild/jujuflow" -url "$MAAS_URL" -key "$MAAS_API_KEY" -host "$h0" -timeout 20s > flow.out 2>&1 &
flow=$!
at_exit "kill $flow 2>/dev/null"
n=0
until grep -q '^tags:' flow.out; do
	n=$((n + 1)); [ "$n" -lt 200 ] || { cat flow.out; fail "jujuflow did not start"; }
	sleep 0.05
done
# Two machines registered as the enlist stage does: the first commissions
# (New -> Commissioning -> Testing -> Ready), the second stays New.
for i in 0 1; do
	h=$(jq -r ".nodes[$i].hostname" sim/truth.json)
	bmc=$(awk -F, -v h="$h" '$1 == h { print $4 }' sim/rack.csv)
	commission=true; [ "$i" = 1 ] && commission=false
	form="hostname=$h&commission=$commission&power_type=redfish&power_parameters_power_address=$bmc"
	form="$form&power_parameters_power_user=root&power_parameters_power_pass=$BRINGUP_BMC_PASSWORD"
	for mac in $(jq -r ".nodes[$i].macs[]" sim/truth.json); do form="$form&mac_addresses=$mac"; done
	curl -sf -X POST --data "$form" -H "$auth" "${MAAS_URL}api/2.0/machines/" >/dev/null || fail "register $h"
done

rc=0
wait "$flow" || rc=$?
cat flow.out
assert_eq "$rc" 0 "jujuflow exit"
out=$(cat flow.out)
assert_contains "$out" "zone: default" "zones"
assert_contains "$out" "domain: maas" "domains"
assert_contains "$out" "allocate no-match: ok" "allocate refused with no match"
assert_contains "$out" "owner data: ok" "owner data"
assert_contains "$out" "deployed: ubuntu jammy, / on" "deployed"
assert_contains "$out" "release New: refused" "release refused in New"
# Every state the machines went through was read through the schema check.
for s in New Commissioning Testing Ready Allocated Deploying Deployed Releasing; do
	assert_contains "$(grep '^states:' flow.out)" "$s" "state $s seen by gomaasapi"
done
tail -n 1 flow.out | grep -qx ok || fail "jujuflow did not finish"
