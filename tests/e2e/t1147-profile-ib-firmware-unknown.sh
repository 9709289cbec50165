#!/bin/sh
# A hardware.conf whose [ib] firmware names a component the firmware policy
# (firmware.conf's [firmware]) has no rule for -- a typo of NIC.Slot.* --
# is refused when the profile loads: validate exits 2 naming the file, the
# line and the field, and the node is left as it was. Named right, the same
# profile judges the HCAs' firmware against the policy.
. "$(dirname "$0")/lib.sh"
cd "$T"
bringup sim --nodes 1 --seed 1147 --dir rack --daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
export BRINGUP_DB=$T/inv.db
bringup import --manifest rack/rack.csv >/dev/null
bringup discover -q
host=$(jq -r '.nodes[0].hostname' rack/truth.json)
sim_probe_doc rack "$host" > facts.json

cp -a "$BR_TOP/templates" tpl
export BRINGUP_TEMPLATES=$T/tpl
conf=$T/tpl/profiles/xe9680/hardware.conf
sed -i 's/^link_down_time_max = 30$/&\nfirmware = NIC.Slots.*/' "$conf"
line=$(grep -n '^firmware = NIC.Slots' "$conf" | cut -d: -f1)
[ -n "$line" ] || fail "could not put [ib] firmware in $conf"
state=$(node_field "$BRINGUP_DB" "$host" state)

rc=0; bringup validate --force --facts facts.json "$host" 2>err || rc=$?
assert_eq "$rc" 2 "validate exit with an unknown [ib] firmware component: $(cat err)"
assert_contains "$(cat err)" "$conf:$line: ib.firmware: 'NIC.Slots.*' is no component of firmware.conf's [firmware]" \
	"the refusal names file, line and field"
assert_eq "$(node_field "$BRINGUP_DB" "$host" state)" "$state" "the node untouched"

sed -i 's/^firmware = NIC.Slots\.\*$/firmware = NIC.Slot.*/' "$conf"
rc=0; bringup validate --force --facts facts.json "$host" >/dev/null 2>err || rc=$?
[ "$rc" -le 1 ] || fail "validate with [ib] firmware = NIC.Slot.*: exit $rc: $(cat err)"
assert_contains "$(bringup status --json | jq -r '.nodes[0].checks[] | select(.name == "ib_ports") | .detail')" \
	"firmware at or above the policy's minimum for NIC.Slot.*" "the HCAs' firmware judged against the policy"
echo "[ib] firmware naming no policy component: refused with $conf:$line; named right, judged"
