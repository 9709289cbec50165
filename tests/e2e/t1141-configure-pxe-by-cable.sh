#!/bin/sh
# The PXE NIC follows the cable. A profile whose provisioning port name is
# wrong (NIC.Embedded.2-1-1, where every node's provisioning cable is in
# NIC.Embedded.1-1-1) but that names the provisioning switch ([boot]
# pxe_switch = tor-*-a): configure sets PXE on the port the BMC's
# Connection View shows cabled to that switch, says so in the reason, and
# the BIOS's PXE device keeps naming that port. The same profile without
# pxe_switch (the control) puts PXE on the port it names.
. "$(dirname "$0")/lib.sh"
cd "$T"
bringup sim --nodes 2 --no-hosts --seed 11 --dir rack --connection-view --bios-job-ms 200 --daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
export BRINGUP_DB=$T/inv.db
cp -r "$BR_TOP/templates" tpl
export BRINGUP_TEMPLATES=$T/tpl
for p in wrongport control; do
	cp -r tpl/profiles/xe9680 "tpl/profiles/$p"
	sed -i 's/= NIC\.Embedded\.1-1-1/= NIC.Embedded.2-1-1/' "tpl/profiles/$p/bios.conf"
	[ "$(grep -c 'NIC.Embedded.2-1-1' "tpl/profiles/$p/bios.conf")" -eq 2 ] || fail "$p: port not renamed"
done
sed -i 's/^mode = persistent$/mode = persistent\npxe_switch = tor-*-a/' tpl/profiles/wrongport/bios.conf
grep -q '^pxe_switch = tor-\*-a$' tpl/profiles/wrongport/bios.conf || fail "no pxe_switch added"
set -- $(jq -r '.nodes[].hostname' rack/truth.json)
a=$1 b=$2
awk -F, -v a="$a" -v b="$b" 'BEGIN { OFS = "," } $1 == a { $7 = "wrongport" } $1 == b { $7 = "control" } { print }' \
	rack/rack.csv > rack.csv
bringup import --manifest rack.csv >/dev/null
bringup discover -q
bringup configure -q --poll-ms 100
st() { bringup status --json | jq -r --arg h "$1" ".nodes[] | select(.hostname == \$h) | $2"; }
bios() { # HOST ATTRIBUTE: as the simulated BMC has it now
	curl -sf -u "root:$BRINGUP_BMC_PASSWORD" \
		"http://$(jq -r --arg h "$1" '.nodes[] | select(.hostname == $h) | .bmc' rack/truth.json)/redfish/v1/Systems/System.Embedded.1/Bios" |
		jq -r ".Attributes.$2"
}
sw=$(jq -r --arg h "$a" '.nodes[] | select(.hostname == $h) | .neighbors.ports[] | select(.port == "NIC.Embedded.1-1-1") | "\(.switch) \(.switch_port)"' rack/truth.json)
assert_eq "$(st "$a" .state)" configured "$a configured; reason $(st "$a" .reason)"
assert_contains "$(st "$a" .reason)" "PXE first on NIC.Embedded.1-1-1" "$a: PXE on the port cabled to the provisioning switch"
assert_contains "$(st "$a" .reason)" "cabled to $sw, the provisioning switch; the profile names NIC.Embedded.2-1-1, which is not" \
	"$a: the reason says why"
assert_eq "$(bios "$a" PxeDev1Interface)" NIC.Embedded.1-1-1 "$a: the BIOS's PXE device"
assert_eq "$(st "$b" .state)" configured "$b configured; reason $(st "$b" .reason)"
assert_contains "$(st "$b" .reason)" "PXE first on NIC.Embedded.2-1-1" "$b (control): PXE on the profile's port"
assert_eq "$(bios "$b" PxeDev1Interface)" NIC.Embedded.2-1-1 "$b (control): the BIOS's PXE device"
echo "ok: PXE set on the port cabled to the provisioning switch, not the one the profile names"
