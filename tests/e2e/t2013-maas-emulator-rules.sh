#!/bin/sh
# The MAAS emulator's rules, each as MAAS's source has it (the references
# are in sim/maas_*.c): power parameters updated with PUT machines/{id}/
# (required ones kept, a wrong password fails commissioning as MAAS's
# revert to New, the right one commissions), release with erase=true
# through Disk erasing and Releasing, a release MAAS cannot power off ends
# "Releasing failed" (13), events after= are the oldest after it, a state
# conflict is a plain 409 without Retry-After.
. "$(dirname "$0")/lib.sh"
cd "$T"

bringup-sim --nodes 1 --no-hosts --dir sim --maas-commission-ms 300 --maas-deploy-ms 200 --maas-latency-ms 0 \
	--daemon >/dev/null
at_exit "stop_sim $T/sim"
set -a; . ./sim/env; set +a
ck=${MAAS_API_KEY%%:*}; rest=${MAAS_API_KEY#*:}; tk=${rest%%:*}; ts=${rest#*:}
auth="Authorization: OAuth oauth_version=\"1.0\", oauth_signature_method=\"PLAINTEXT\", \
oauth_consumer_key=\"$ck\", oauth_token=\"$tk\", oauth_signature=\"%26$ts\", oauth_nonce=\"1\", oauth_timestamp=\"1\""
api() { # METHOD PATH [FORM] -> body in out.json, status in $code
	code=$(curl -s -o out.json -D hdr.txt -w '%{http_code}' -X "$1" ${3:+--data "$3"} -H "$auth" \
		"${MAAS_URL}api/2.0/$2")
}
status_of() { api GET "machines/$id/"; jq -r .status_name out.json; }
wait_for() { # STATUS -> every status seen on the way in seen.txt
	n=0
	while s=$(status_of) && [ "$s" != "$1" ]; do
		echo "$s" >> seen.txt
		n=$((n + 1)); [ "$n" -lt 300 ] || fail "still $s waiting for $1"
		sleep 0.02
	done
}

h=$(jq -r '.nodes[0].hostname' sim/truth.json)
bmc=$(awk -F, -v h="$h" '$1 == h { print $4 }' sim/rack.csv)
form="hostname=$h&commission=false&power_type=redfish&power_parameters_power_address=$bmc"
form="$form&power_parameters_power_user=root&power_parameters_power_pass=wrong"
for mac in $(jq -r '.nodes[0].macs[]' sim/truth.json); do form="$form&mac_addresses=$mac"; done
api POST machines/ "$form"; assert_eq "$code" 200 "create"
id=$(jq -r .system_id out.json)

# A wrong password: commissioning reverts to New with MAAS's event.
api POST "machines/$id/?op=commission"; assert_eq "$code" 200 "commission"
wait_for New
api GET "events/?op=query&id=$id&level=ERROR"
assert_contains "$(jq -r '.events[0].description' out.json)" "Aborting COMMISSIONING and reverting to NEW" "revert event"

# PUT: a required parameter emptied is refused, nothing changes.
api PUT "machines/$id/" "power_parameters_power_address="
assert_eq "$code" 400 "emptied power_address"
assert_eq "$(jq -r '.power_parameters[0]' out.json)" "power_address: This field is required." "its error"
# A type whose required parameters are missing is refused too.
api PUT "machines/$id/" "power_type=ipmi&power_parameters_power_address="
assert_eq "$code" 400 "ipmi without an address"
# The right password alone: the rest are kept, and commissioning works.
api PUT "machines/$id/" "power_parameters_power_pass=$BRINGUP_BMC_PASSWORD"
assert_eq "$code" 200 "update the password"
assert_eq "$(jq -r .power_type out.json)" redfish "power type kept"
api POST "machines/$id/?op=commission"; assert_eq "$code" 200 "commission again"
wait_for Ready

# power_address with a scheme, as MAAS's Redfish driver takes it
# (RedfishPowerDriverBase.get_url prepends https:// only to an address
# holding no "http"): https:// and http:// reach the BMC, a trailing / too;
# "http" inside the host name makes get_url use it as a URL that reaches
# nothing. The emulator says in its log whether MAAS could power it.
power_works_with() {
	api PUT "machines/$id/" "power_parameters_power_address=$1"; assert_eq "$code" 200 "PUT address $1"
	jq -r 'select(.method == "PUT") | .power_works' sim/maas-requests.log | tail -n 1
}
assert_eq "$(power_works_with "https://$bmc")" true "https://host:port"
assert_eq "$(power_works_with "https://$bmc/")" true "https://host:port/"
assert_eq "$(power_works_with "http://$bmc")" true "http://host:port"
assert_eq "$(power_works_with "https://127.0.0.2:1")" false "a scheme and another BMC"
assert_eq "$(power_works_with "xhttps://$bmc")" false "http not as the scheme"
api POST "machines/$id/?op=commission"; assert_eq "$code" 200 "commission with xhttps://"
wait_for Ready
api GET "events/?op=query&id=$id&level=ERROR"
assert_contains "$(jq -r '.events[0].description' out.json)" "reverting to READY" "no BMC reached through xhttps://"
errors=$(jq '.events | length' out.json)
assert_eq "$(power_works_with "https://$bmc")" true "https://host:port again"
api POST "machines/$id/?op=commission"; assert_eq "$code" 200 "commission with https://"
wait_for Ready
api GET "events/?op=query&id=$id&level=ERROR"
assert_eq "$(jq '.events | length' out.json)" "$errors" "commissioning through https://host:port failed"
assert_eq "$(power_works_with "$bmc")" true "host:port"

# A state conflict is a plain 409: no Retry-After (that is for contention).
api POST "machines/$id/?op=mark_fixed"
assert_eq "$code" 409 "mark_fixed from Ready"
! grep -qi '^retry-after' hdr.txt || fail "a state conflict carried Retry-After"

# Deploy, then release with erase: Disk erasing, Releasing, Ready.
api POST "machines/$id/?op=deploy" "distro_series=jammy"; assert_eq "$code" 200 "deploy"
wait_for Deployed
api GET "events/?op=query&id=$id&level=DEBUG&limit=1"; mark=$(jq '.events[0].id' out.json)
api POST "machines/$id/?op=release" "erase=true"; assert_eq "$code" 200 "release erase"
assert_eq "$(jq -r .status_name out.json)" "Disk erasing" "release with erase starts erasing"
wait_for Ready
# The way there, from MAAS's events (a poll could miss a short state).
api GET "events/?op=query&id=$id&level=DEBUG&after=$mark"
assert_eq "$(jq -r '[.events | reverse | .[].type | select(. != "Node changed status")] | join(",")' out.json)" \
	"Erasing disk,Releasing,Released" "release with erase went through"
# ... each status change with the event MAAS writes for it, first.
assert_eq "$(jq -r '[.events | reverse | .[] | select(.type == "Node changed status") | .description] | join(",")' \
	out.json)" "From 'Deployed' to 'Disk erasing',From 'Disk erasing' to 'Releasing',From 'Releasing' to 'Ready'" \
	"status changes of a release with erase"

# A release MAAS cannot power off: "Releasing failed", status 13.
api POST "machines/$id/?op=deploy"; wait_for Deployed
api PUT "machines/$id/" "power_parameters_power_pass=wrong"; assert_eq "$code" 200 "break the password"
api POST "machines/$id/?op=release"; assert_eq "$(jq -r .status_name out.json)" Releasing "releasing"
wait_for "Releasing failed"
assert_eq "$(jq -r .status out.json)" 13 "Releasing failed is 13"

# events after=: the oldest events after it, listed newest first.
api GET "events/?op=query&id=$id&level=DEBUG&limit=1000"
first=$(jq '[.events[].id] | min' out.json); total=$(jq '.events | length' out.json)
api GET "events/?op=query&id=$id&level=DEBUG&limit=2&after=$first"
assert_eq "$(jq -c '[.events[].id]' out.json)" "[$((first + 2)),$((first + 1))]" "after= takes the oldest"
[ "$total" -gt 4 ] || fail "only $total events"
