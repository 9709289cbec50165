#!/bin/sh
# The PXE NIC follows the cable, the wiring list alone naming the
# provisioning switch: its role column marks each node's provisioning
# cable, and no profile has [boot] pxe_switch.
# - a: the profile names NIC.Embedded.2-1-1 (wrong: a's provisioning cable,
#   eno8303 to tor-*-a, is NIC.Embedded.1-1-1): PXE on NIC.Embedded.1-1-1;
# - b: the shipped profile names NIC.Embedded.1-1-1, and b's wiring line
#   says eno8403 (to tor-*-b) provisions: PXE on NIC.Embedded.2-1-1, so it
#   is the wiring list that decides, not a guess at the switch's name;
# - c (the control): the profile of a, no role on its lines: the profile's
#   port.
# A role that is not a word is the operator's mistake: exit 2 naming the
# file, line and column, no node touched.
. "$(dirname "$0")/lib.sh"
cd "$T"
bringup sim --nodes 3 --no-hosts --seed 11 --dir rack --connection-view --bios-job-ms 200 --daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
export BRINGUP_DB=$T/inv.db
cp -r "$BR_TOP/templates" tpl
export BRINGUP_TEMPLATES=$T/tpl
cp -r tpl/profiles/xe9680 tpl/profiles/wrongport
sed -i 's/= NIC\.Embedded\.1-1-1/= NIC.Embedded.2-1-1/' tpl/profiles/wrongport/bios.conf
[ "$(grep -c 'NIC.Embedded.2-1-1' tpl/profiles/wrongport/bios.conf)" -eq 2 ] || fail "port not renamed"
grep -q '^pxe_switch' tpl/profiles/*/bios.conf && fail "a profile names pxe_switch"
set -- $(jq -r '.nodes[].hostname' rack/truth.json)
a=$1 b=$2 c=$3
assert_eq "$(jq -r '[.nodes[].vendor] | unique | join(",")' rack/truth.json)" dell "the rack's family"
awk -F, -v a="$a" -v b="$b" -v c="$c" 'BEGIN { OFS = "," } $1 == a || $1 == c { $7 = "wrongport" } { print }' \
	rack/rack.csv > rack.csv
# The operator's wiring list: the simulator's, with the role column.
awk -F, -v a="$a" -v b="$b" 'BEGIN { OFS = "," }
	NR == 1 { print $0, "role"; next }
	($1 == a && $2 == "eno8303") || ($1 == b && $2 == "eno8403") { print $0, "Provisioning"; next }
	{ print $0, "" }' rack/wiring.csv > wiring.csv
[ "$(grep -c ',Provisioning$' wiring.csv)" -eq 2 ] || fail "roles not written: $(cat wiring.csv)"
export BRINGUP_WIRING=$T/wiring.csv
bringup import --manifest rack.csv >/dev/null
bringup discover -q
st() { bringup status --json | jq -r --arg h "$1" ".nodes[] | select(.hostname == \$h) | $2"; }
for h in "$a" "$b" "$c"; do
	assert_eq "$(st "$h" .state)" discovered "$h discovered (the role column read by discover too): $(st "$h" .reason)"
done

# A role that is not a word: exit 2 before any node.
awk -F, -v a="$a" 'BEGIN { OFS = "," } $1 == a && $2 == "eno8303" { $5 = "pxe net" } { print }' wiring.csv > bad.csv
line=$(grep -n 'pxe net' bad.csv | cut -d: -f1)
rc=0
bringup configure -q --poll-ms 100 --wiring bad.csv 2> bad.err || rc=$?
assert_eq "$rc" 2 "exit code on a bad role ($(cat bad.err))"
assert_contains "$(cat bad.err)" "bad.csv:$line: role: not a role" "the bad role named by file, line and column"
# (discover logged in and read; nothing since but reads and logins)
assert_eq "$(jq -r 'select(.method != "GET") | .path' rack/requests.log | grep -vc 'SessionService/Sessions' || true)" 0 \
	"no BMC touched"
for h in "$a" "$b" "$c"; do
	assert_eq "$(st "$h" .state)" discovered "$h untouched after the operator's mistake"
done

bringup configure -q --poll-ms 100
bios() { # HOST ATTRIBUTE: as the simulated BMC has it now
	curl -sf -u "root:$BRINGUP_BMC_PASSWORD" \
		"http://$(jq -r --arg h "$1" '.nodes[] | select(.hostname == $h) | .bmc' rack/truth.json)/redfish/v1/Systems/System.Embedded.1/Bios" |
		jq -r ".Attributes.$2"
}
end() { # HOST BMC-PORT: the switch end the simulated wiring gives it
	jq -r --arg h "$1" --arg p "$2" '.nodes[] | select(.hostname == $h) | .neighbors.ports[] | select(.port == $p) | "\(.switch) \(.switch_port)"' rack/truth.json
}
la=$(grep -n "^$a,eno8303," wiring.csv | cut -d: -f1)
lb=$(grep -n "^$b,eno8403," wiring.csv | cut -d: -f1)
for h in "$a" "$b" "$c"; do
	assert_eq "$(st "$h" .state)" configured "$h configured; reason $(st "$h" .reason)"
done
assert_contains "$(st "$a" .reason)" "PXE first on NIC.Embedded.1-1-1" "$a: PXE on the port cabled to the provisioning switch"
assert_contains "$(st "$a" .reason)" "cabled to $(end "$a" NIC.Embedded.1-1-1), the provisioning switch by the wiring list's line $la (eno8303, role provisioning); the profile names NIC.Embedded.2-1-1, which is not" \
	"$a: the reason says why"
assert_eq "$(bios "$a" PxeDev1Interface)" NIC.Embedded.1-1-1 "$a: the BIOS's PXE device"
assert_contains "$(st "$b" .reason)" "PXE first on NIC.Embedded.2-1-1" "$b: PXE on the port its wiring line says provisions"
assert_contains "$(st "$b" .reason)" "cabled to $(end "$b" NIC.Embedded.2-1-1), the provisioning switch by the wiring list's line $lb (eno8403, role provisioning); the profile names NIC.Embedded.1-1-1, which is not" \
	"$b: the reason says why"
assert_eq "$(bios "$b" PxeDev1Interface)" NIC.Embedded.2-1-1 "$b: the BIOS's PXE device"
assert_contains "$(st "$c" .reason)" "PXE first on NIC.Embedded.2-1-1" "$c (control): PXE on the profile's port"
assert_eq "$(bios "$c" PxeDev1Interface)" NIC.Embedded.2-1-1 "$c (control): the BIOS's PXE device"
echo "ok: PXE set on the port the wiring list's provisioning cable goes to, not the one the profile names"
