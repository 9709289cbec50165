#!/bin/sh
# bringup export --netbox: a rack imported from the simulator's NetBox
# stand-in (NetBox 4.6's API) and discovered is written back: the serial
# the BMC reported where NetBox has none or another (never blanked), every
# host MAC as a MAC address (dcim/mac-addresses) of one of the device's
# interfaces, made the interface's primary where it has none and holds no
# other MAC, and the state as custom field bringup_state; read back from
# the stand-in. --dry-run writes nothing; a second export sends no write
# (PATCH/POST counted in the stand-in's request log). The stand-in refuses
# as NetBox does (400 {"serial": [...]}, an unknown custom field), and a
# NetBox that refuses bringup's writes (a read-only token: 403; a site
# without the custom field: 400) is exit 3 with NetBox's words, nothing
# reported as written that was not.
. "$(dirname "$0")/lib.sh"
cd "$T"
bringup sim --no-hosts --nodes 6 --seed 11 --vendor mixed --netbox-max-page 4 --dir rack --daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
export BRINGUP_DB=$T/inv.db
log=rack/requests.log
writes() { grep '"node":"netbox"' $log | jq -r 'select(.method == "PATCH" or .method == "POST") | .method' | wc -l; }
printf 'Authorization: Token %s\n' "$NETBOX_TOKEN" > auth.hdr
nb() { curl -s -H @auth.hdr -H 'Content-Type: application/json' "$@"; }
nb_get() { nb -f "${NETBOX_URL}api/$1"; }
# Every object of a list, page by page (pages of 4 here).
nb_all() {
	url="${NETBOX_URL}api/$1"
	while [ "$url" != null ]; do
		nb -f "$url" > page.json || fail "GET $url"
		jq -c '.results[]' page.json
		url=$(jq -r .next page.json)
	done
}
dev_id() { nb_get "dcim/devices/?name=$1" | jq '.results[0].id'; }

bringup import --netbox "$NETBOX_URL" --netbox-query role=gpu-server -q 2> err || fail "import: $(cat err)"
bringup discover --timeout 5 -q 2> err || fail "discover exit $?: $(cat err)"
bringup status --json > st.json
hosts=$(jq -r '.nodes[].hostname' st.json)
h1=$(echo "$hosts" | sed -n 1p)
h2=$(echo "$hosts" | sed -n 2p)
# The serial export writes: the service tag where there is one, else the
# system serial.
want_serial() { jq -r --arg h "$1" '.nodes[] | select(.hostname == $h) |
	if (.service_tag // "") != "" then .service_tag else .system_serial end' st.json; }

# The stand-in validates writes as NetBox does.
id1=$(dev_id "$h1")
out=$(nb -X PATCH -d '{"serial": true}' "${NETBOX_URL}api/dcim/devices/$id1/")
assert_eq "$out" '{"serial":["Not a valid string."]}' "a serial of the wrong type"
out=$(nb -X PATCH -d '{"custom_fields": {"bringup_nope": "x"}}' "${NETBOX_URL}api/dcim/devices/$id1/")
assert_eq "$out" '{"__all__":["Unknown field name '"'"'bringup_nope'"'"' in custom field data."]}' "an unknown custom field"
out=$(nb -X POST -d '{"mac_address": "zz"}' "${NETBOX_URL}api/dcim/mac-addresses/")
assert_eq "$out" '{"mac_address":["Invalid MAC address format: \"zz\""]}' "a MAC that is none"
# NetBox with no serial for h1 and another one for h2.
nb -f -X PATCH -d '{"serial": ""}' "${NETBOX_URL}api/dcim/devices/$id1/" > /dev/null || fail "blank h1's serial"
id2=$(dev_id "$h2")
nb -f -X PATCH -d '{"serial": "WRONG-1"}' "${NETBOX_URL}api/dcim/devices/$id2/" > /dev/null || fail "h2's serial"
# One of h3's MACs already in NetBox, unassigned: a conflict, left alone.
h3=$(echo "$hosts" | sed -n 3p)
m3=$(jq -r --arg h "$h3" '.nodes[] | select(.hostname == $h) | .macs[0]' st.json)
mac_id=$(nb -f -X POST -d "{\"mac_address\": \"$m3\"}" "${NETBOX_URL}api/dcim/mac-addresses/" | jq .id)
# h4's first MAC on an interface the site made (an OS name), with a MAC of
# the site's beside it and no primary: both left, no primary chosen. Its
# second MAC on an OS-named interface holding it alone: made its primary.
h4=$(echo "$hosts" | sed -n 4p)
id4=$(dev_id "$h4")
m4a=$(jq -r --arg h "$h4" '.nodes[] | select(.hostname == $h) | .macs[0]' st.json)
m4b=$(jq -r --arg h "$h4" '.nodes[] | select(.hostname == $h) | .macs[1]' st.json)
[ "$m4b" != null ] || fail "$h4 has one MAC"
if4a=$(nb -f -X POST -d "{\"device\": $id4, \"name\": \"ens1f0np0\", \"type\": \"other\"}" "${NETBOX_URL}api/dcim/interfaces/" | jq .id)
if4b=$(nb -f -X POST -d "{\"device\": $id4, \"name\": \"ens1f1np1\", \"type\": \"other\"}" "${NETBOX_URL}api/dcim/interfaces/" | jq .id)
for pair in "$m4a $if4a" "02:00:00:00:00:99 $if4a" "$m4b $if4b"; do
	set -- $pair
	nb -f -X POST -d "{\"mac_address\": \"$1\", \"assigned_object_type\": \"dcim.interface\", \"assigned_object_id\": $2}" \
		"${NETBOX_URL}api/dcim/mac-addresses/" > /dev/null || fail "put $1 on interface $2"
done
# The stand-in refuses a primary MAC of another interface, as NetBox does.
other=$(nb_get "dcim/mac-addresses/?mac_address=$m4b" | jq '.results[0].id')
out=$(nb -X PATCH -d "{\"primary_mac_address\": $other}" "${NETBOX_URL}api/dcim/interfaces/$if4a/")
assert_eq "$out" "{\"primary_mac_address\":[\"MAC address $(echo "$m4b" | tr a-f A-F) is assigned to a different interface (ens1f1np1).\"]}" \
	"a primary MAC of another interface"
before=$(writes)

# --dry-run: what would change, nothing written.
rc=0; bringup export --netbox "$NETBOX_URL" --dry-run --json > dry.json 2> err || rc=$?
assert_eq "$rc" 1 "dry run exit (the conflict): $(cat err)"
assert_eq "$(writes)" "$before" "writes of a dry run"
[ "$(jq .writes dry.json)" -gt 12 ] || fail "a dry run plans $(jq .writes dry.json) writes"
assert_eq "$(jq .written dry.json)" 0 "written by a dry run"

# The export: exit 1 for the conflict.
from=$(($(wc -l < $log) + 1))
rc=0; bringup export --netbox "$NETBOX_URL" > out.txt 2> err || rc=$?
assert_eq "$rc" 1 "export exit with a MAC conflict: $(cat err)"
# Every write it sent, held to NetBox's own OpenAPI schemas.
rc=0; /usr/bin/python3 "$BR_TOP/tests/check-netbox-bodies.py" --json --from "$from" \
	"$BR_TOP/tests/fixtures/netbox/openapi-schemas.json" $log > bodies.json || rc=$?
assert_eq "$rc" 0 "the export's writes against NetBox's OpenAPI schemas: $(jq -c .violations bodies.json)"
assert_eq "$(jq -r '.checked | keys | join(" ")' bodies.json)" \
	"MACAddressRequest PatchedWritableDeviceRequest PatchedWritableInterfaceRequest WritableInterfaceRequest" \
	"the kinds of write checked"
# What the stand-in answers is NetBox's shape too (its response schemas).
for kind in "Device devices" "Interface interfaces" "MACAddress mac-addresses"; do
	set -- $kind
	nb_all "dcim/$2/" | jq -s '{results: .}' > "answer-$2.json"
	[ "$(jq '.results | length' "answer-$2.json")" -gt 0 ] || fail "no $2 in the stand-in"
	/usr/bin/python3 "$BR_TOP/tests/check-netbox-bodies.py" --answers "$1" \
		"$BR_TOP/tests/fixtures/netbox/openapi-schemas.json" "answer-$2.json" > "answer-$2.out" ||
		fail "the stand-in's $2 against NetBox's $1 schema: $(head -5 "answer-$2.out")"
done
# A MAC is_primary exactly where its interface has it as primary.
assert_eq "$(jq -r '[.results[] | select(.is_primary) | .id] | sort | join(" ")' answer-mac-addresses.json)" \
	"$(jq -r '[.results[] | .primary_mac_address.id // empty] | sort | join(" ")' answer-interfaces.json)" \
	"MACs is_primary against the interfaces' primaries"
# ... and the check refuses what NetBox's schemas refuse.
cat > bad.log <<'EOT'
{"node":"netbox","method":"POST","path":"/api/dcim/interfaces/","body":{"device":1,"name":"eth0","type":"bogus"}}
{"node":"netbox","method":"PATCH","path":"/api/dcim/devices/1/","body":{"serail":"X1"}}
{"node":"netbox","method":"POST","path":"/api/dcim/mac-addresses/","body":{"assigned_object_id":-1}}
{"node":"netbox","method":"DELETE","path":"/api/dcim/cables/3/"}
EOT
rc=0; /usr/bin/python3 "$BR_TOP/tests/check-netbox-bodies.py" "$BR_TOP/tests/fixtures/netbox/openapi-schemas.json" bad.log \
	> bad.out || rc=$?
assert_eq "$rc" 1 "the check on bad writes"
for want in "type: 'bogus' is not one of" "(top): Additional properties are not allowed ('serail' was unexpected)" \
	"'mac_address' is a required property" "assigned_object_id: -1 is less than the minimum of 0" \
	"DELETE /api/dcim/cables/3/ (None): no NetBox request schema named for this write"; do
	assert_contains "$(cat bad.out)" "$want" "the check on bad writes"
done
assert_contains "$(cat out.txt)" "$h3: conflict: $m3: NetBox has it unassigned (MAC address #$mac_id): left as it is" \
	"the conflict"
assert_eq "$(nb_get "dcim/mac-addresses/?id=$mac_id" | jq -c '[.results[0].assigned_object_id, .count]')" "[null,1]" \
	"the conflicting MAC in NetBox"
assert_eq "$(nb_get "dcim/mac-addresses/?mac_address=$m3" | jq .count)" 1 "objects of the conflicting MAC"
assert_contains "$(cat out.txt)" "$h1: set serial to $(want_serial "$h1") (NetBox had none)" "h1's serial"
assert_contains "$(cat out.txt)" "$h2: set serial to $(want_serial "$h2") (NetBox had WRONG-1: another)" "h2's serial"
for h in $hosts; do
	id=$(dev_id "$h")
	dev=$(nb_get "dcim/devices/?id=$id" | jq '.results[0]')
	assert_eq "$(echo "$dev" | jq -r .custom_fields.bringup_state)" \
		"$(jq -r --arg h "$h" '.nodes[] | select(.hostname == $h) | .state' st.json)" "$h's bringup_state"
	serial=$(echo "$dev" | jq -r .serial)
	case $h in
	"$h1" | "$h2") assert_eq "$serial" "$(want_serial "$h")" "$h's serial in NetBox" ;;
	*) [ -n "$serial" ] || fail "$h's serial was blanked" ;;
	esac
	# Every host MAC discovery stored is a MAC address of this device's
	# interfaces, and no other.
	nb_all "dcim/mac-addresses/?device_id=$id" |
		jq -r 'select(.assigned_object.device.id == '"$id"') | .mac_address' |
		tr 'A-F' 'a-f' | sort > got.macs
	jq -r --arg h "$h" '.nodes[] | select(.hostname == $h) | .macs[]' st.json | grep -vx "$m3" | sort > want.macs
	[ -s want.macs ] || fail "$h: no MACs discovered"
	[ "$h" = "$h4" ] && echo 02:00:00:00:00:99 >> want.macs && sort -o want.macs want.macs
	diff want.macs got.macs > macs.diff || fail "$h's MACs in NetBox: $(cat macs.diff)"
	# Every interface holding only host MACs has one of them as primary.
	nb_all "dcim/interfaces/?device_id=$id" |
		jq -r 'select((.mac_addresses | length) > 0) | "\(.name) \(.primary_mac_address.mac_address // "none") \(.mac_address // "none")"' \
		> prim.txt
	while read -r name prim shown; do
		case $name in
		ens1f0np0) assert_eq "$prim" none "$h4's interface with a MAC of the site's: no primary chosen" ;;
		*) [ "$prim" != none ] || fail "$h's interface $name has no primary MAC"
		   assert_eq "$shown" "$prim" "$h's interface $name shows its primary's address" ;;
		esac
	done < prim.txt
done
assert_contains "$(cat out.txt)" "$h4: set the primary MAC of interface ens1f1np1 to $m4b" "h4's second MAC made primary"
[ "$(jq '[.nodes[].changes[] | select(.field == "primary_mac_address")] | length' dry.json)" -ge 6 ] ||
	fail "primary MACs a dry run plans"
grep -q "$NETBOX_TOKEN" out.txt err $log && fail "the token is in the output or the log"

# Again: nothing to change, no write sent.
n=$(writes)
rc=0; bringup export --netbox "$NETBOX_URL" --json > again.json 2> err || rc=$?
assert_eq "$rc" 1 "second export exit (the conflict stays): $(cat err)"
assert_eq "$(writes)" "$n" "writes of a second export"
assert_eq "$(jq .conflicts again.json)" 1 "conflicts of a second export"
assert_eq "$(jq .writes again.json)" 0 "writes planned by a second export"
assert_eq "$(jq .unchanged again.json)" 6 "nodes unchanged"

# A token without write permission: NetBox's 403, exit 3, nothing reported
# as written.
nb -f -X PATCH -d '{"custom_fields": {"bringup_state": "stale"}}' "${NETBOX_URL}api/dcim/devices/$id1/" >/dev/null ||
	fail "set h1's state aside"
rc=0; bringup export --netbox "$NETBOX_URL" --netbox-token env:NETBOX_RO_TOKEN --json > ro.json 2> err || rc=$?
assert_eq "$rc" 3 "exit with a read-only token"
assert_contains "$(cat err)" "HTTP 403: You do not have permission to perform this action." "the refusal"
assert_eq "$(jq -r --arg h "$h1" '.nodes[] | select(.hostname == $h) | .status' ro.json)" refused "h1's status"
assert_eq "$(jq '[.nodes[].changes[] | select(.written)] | length' ro.json)" 0 "changes reported written"
assert_eq "$(nb_get "dcim/devices/?id=$id1" | jq -r '.results[0].custom_fields.bringup_state')" stale \
	"h1's state after a refused write"
# A token NetBox does not know.
export NB_BAD=0000000000000000000000000000000000000000
rc=0; bringup export --netbox "$NETBOX_URL" --netbox-token env:NB_BAD > /dev/null 2> err || rc=$?
assert_eq "$rc" 3 "exit with a refused token"
assert_contains "$(cat err)" "HTTP 403: Invalid v1 token" "refused token"
# Operator mistakes: exit 2, nothing sent.
n=$(grep -c '"node":"netbox"' $log)
rc=0; bringup export --netbox "$NETBOX_URL" --netbox-token "$NETBOX_TOKEN" > /dev/null 2> err || rc=$?
assert_eq "$rc" 2 "exit with a literal token"
rc=0; bringup export > /dev/null 2> err || rc=$?
assert_eq "$rc" 2 "exit without --netbox"
assert_eq "$(grep -c '"node":"netbox"' $log)" "$n" "requests sent for operator mistakes"

# A site that defined no custom field bringup_state: NetBox's 400 for the
# first device, which is not reported as written, and nothing after it.
bringup sim --no-hosts --nodes 2 --seed 12 --netbox-no-state-field --dir rack2 --daemon >/dev/null
at_exit "stop_sim $T/rack2"
url2=$(sed -n 's/^NETBOX_URL=//p' rack2/env)
export NB2=$(sed -n 's/^NETBOX_TOKEN=//p' rack2/env)
export BRINGUP_DB=$T/inv2.db
bringup import --netbox "$url2" --netbox-token env:NB2 --netbox-query role=gpu-server -q 2> err || fail "import 2: $(cat err)"
rc=0; bringup export --netbox "$url2" --netbox-token env:NB2 --json > nofield.json 2> err || rc=$?
assert_eq "$rc" 3 "exit when NetBox refuses the custom field"
assert_contains "$(cat err)" "HTTP 400: {\"__all__\":[\"Unknown field name 'bringup_state' in custom field data.\"]}" \
	"NetBox's words"
assert_eq "$(jq .written nofield.json)" 0 "written when the first write is refused"
assert_eq "$(jq '[.nodes[] | select(.status == "refused")] | length' nofield.json)" 1 "nodes refused"
assert_eq "$(jq '[.nodes[] | select(.status == "updated")] | length' nofield.json)" 0 "nodes reported updated"
assert_eq "$(jq '[.nodes[] | select(.status == "not sent")] | length' nofield.json)" 1 "nodes never sent"
assert_eq "$(grep '"node":"netbox"' rack2/requests.log | jq -r 'select(.method != "GET") | "\(.method) \(.status)"' | tr '\n' ' ')" \
	"PATCH 400 " "writes sent to the NetBox without the field"
exit 0
