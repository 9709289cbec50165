#!/bin/sh
# bringup export names each host MAC's interface as the OS does: a rack
# imported from the NetBox stand-in, run through validate (its probe read
# /sys/class/net on hosts behind real sshd), is exported with every MAC the
# probe saw on the interface of the OS's name (ens…, not the BMC's
# NIC.Slot.…): the site's interface of that name where NetBox has one
# (the stand-in's cabled ports), else one export creates with the BMC's
# name in its description; each made the MAC's primary. A second export
# writes nothing.
. "$(dirname "$0")/lib.sh"
cd "$T"
bringup sim --nodes 2 --seed 5 --dir rack --maas-commission-ms 100 --maas-deploy-ms 100 --daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
export BRINGUP_DB=$T/inv.db BRINGUP_SSH_PUBKEY=$BRINGUP_SSH_KEY.pub
printf 'Authorization: Token %s\n' "$NETBOX_TOKEN" > auth.hdr
nb_get() { curl -sf -H @auth.hdr "${NETBOX_URL}api/$1"; }

bringup import --netbox "$NETBOX_URL" --netbox-query role=gpu-server -q 2> err || fail "import: $(cat err)"
rc=0; bringup run -q 2> run.err || rc=$?
assert_eq "$rc" 0 "run: $(tail -3 run.err)"
rc=0; bringup export --netbox "$NETBOX_URL" --json > out.json 2> err || rc=$?
assert_eq "$rc" 0 "export: $(cat err)"
# The writes (an import and a run send none to NetBox) held to NetBox's OpenAPI schemas.
rc=0; /usr/bin/python3 "$BR_TOP/tests/check-netbox-bodies.py" "$BR_TOP/tests/fixtures/netbox/openapi-schemas.json" \
	rack/requests.log > bodies.out || rc=$?
assert_eq "$rc" 0 "the export's writes against NetBox's OpenAPI schemas: $(head -5 bodies.out)"
seen=0 created=0
for h in $(jq -r '.nodes[].hostname' rack/truth.json); do
	inv_sql inv.db "select p.doc from probe_facts p join nodes n on n.id = p.node_id where n.hostname = '$h'" > probe.json
	jq -r '.net.interfaces[] | "\(.address) \(.ifname)"' probe.json | sort > os.names
	[ -s os.names ] || fail "$h: the probe saw no network device"
	id=$(nb_get "dcim/devices/?name=$h" | jq '.results[0].id')
	nb_get "dcim/interfaces/?device_id=$id&limit=1000" | jq -c '.results[]' > ifaces.json
	nb_get "dcim/mac-addresses/?device_id=$id&limit=1000" |
		jq -r '.results[] | "\(.mac_address | ascii_downcase) \(.assigned_object.name)"' | sort > nb.names
	[ -s nb.names ] || fail "$h: no MAC in NetBox"
	while read -r mac ifname; do
		want=$(awk -v m="$mac" '$1 == m { print $2 }' os.names)
		[ -n "$want" ] || continue
		seen=$((seen + 1))
		assert_eq "$ifname" "$want" "$h: $mac's interface is the OS's name"
		iface=$(jq -c --arg n "$ifname" 'select(.name == $n)' ifaces.json)
		case $(echo "$iface" | jq -r .description) in
		"the OS's name of the BMC's NIC."*) created=$((created + 1)) ;;
		"") ;; # the site's (the stand-in's cabled interfaces)
		*) fail "$h $ifname's description: $(echo "$iface" | jq -r .description)" ;;
		esac
		assert_eq "$(echo "$iface" | jq -r '.primary_mac_address.mac_address | ascii_downcase')" "$mac" "$h $ifname's primary MAC"
	done < nb.names
done
[ "$seen" -ge 4 ] || fail "MACs the probe named: $seen"
assert_eq "$(jq '[.nodes[].changes[] | select(.field == "mac_address" and (.bmc_port // "" | startswith("NIC.")))] | length' out.json)" "$created" \
	"interfaces created under the OS's name, the BMC's in their description"
[ "$(jq '[.nodes[].changes[] | select(.field == "mac_address" and (.interface | startswith("NIC.")))] | length' out.json)" -eq 0 ] ||
	fail "a MAC put on an interface of the BMC's name: $(jq -c '[.nodes[].changes[] | select(.interface // "" | startswith("NIC."))]' out.json)"
python3 "$BR_TOP/tests/e2e/schema-check.py" "$BR_TOP/docs/schema/export.schema.json" out.json ||
	fail "the export's document does not hold to docs/schema/export.schema.json"
bringup export --netbox "$NETBOX_URL" --json > again.json || fail "second export exit $?"
assert_eq "$(jq .writes again.json)" 0 "writes of a second export"
echo "export: MACs on the OS's interface names, primary, idempotent"
