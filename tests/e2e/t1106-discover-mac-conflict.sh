#!/bin/sh
# Two BMCs claiming one MAC are judged on evidence, never first-come. With
# nothing to tell them apart, both nodes fail and each reason names both
# BMCs, whichever answered first. When the manifest's boot disk serial is
# among the drives one BMC reports, that node wins, in either order, and
# the other fails naming it.
. "$(dirname "$0")/lib.sh"
cd "$T"
bringup-sim --no-hosts --nodes 4 --seed 3 --faults mac_clone --dir sim --daemon >/dev/null
at_exit "stop_sim $T/sim"
set -a; . ./sim/env; set +a
export BRINGUP_DB=$T/inv.db
truth=sim/truth.json
role() { jq -r --arg r "$1" '.nodes[] | select(.fault_details.mac_clone.role == $r) | .hostname' $truth; }
field() { jq -r --arg h "$1" ".nodes[] | select(.hostname == \$h) | $2" $truth; }
impostor=$(role impostor)
genuine=$(role genuine)
[ -n "$impostor" ] && [ -n "$genuine" ] || fail "mac_clone in truth.json"
mac=$(field "$genuine" .fault_details.mac_clone.mac)
field "$impostor" '.macs[]' | grep -qx "$mac" || fail "the impostor's BMC reports $mac"
bmc_i=$(field "$impostor" .bmc)
bmc_g=$(field "$genuine" .bmc)
bringup import --manifest sim/rack.csv >/dev/null
st() { bringup status --json | jq -r --arg h "$1" ".nodes[] | select(.hostname == \$h) | $2"; }

# ---- no evidence: both fail, both BMCs named --------------------------------
rc=0
bringup discover -q --json >d.json 2>err || rc=$?
assert_eq "$rc" 1 "exit with conflicting nodes"
assert_eq "$(jq -r --arg a "$impostor" --arg b "$genuine" '[.nodes[] | select(.hostname == $a or .hostname == $b) | .result] | join(",")' d.json)" \
	"failed,failed" "the run's summary, whichever was stored first"
for h in "$impostor" "$genuine"; do
	assert_eq "$(st "$h" .state)" failed "$h with a disputed MAC"
	assert_contains "$(st "$h" .reason)" "$mac" "$h: reason names the MAC"
	assert_contains "$(st "$h" .reason)" "$bmc_i" "$h: reason names the impostor's BMC"
	assert_contains "$(st "$h" .reason)" "$bmc_g" "$h: reason names the genuine BMC"
done
assert_eq "$(bringup status --json | jq -r '[.nodes[] | select(.state == "discovered")] | length')" 2 \
	"the other nodes are discovered"
# Each alone again: still judged against the other's claim, not first-come.
bringup discover -q "$impostor" 2>/dev/null || true
assert_eq "$(st "$impostor" .state)" failed "the impostor alone, no evidence"

# ---- the manifest gives the genuine node's boot disk: it wins --------------
disk=$(field "$genuine" .boot_disk_serial)
awk -F, -v OFS=, -v h="$genuine" -v d="$disk" '$1 == h { $9 = d } { print }' sim/rack.csv > rack2.csv
bringup import --manifest rack2.csv >/dev/null
# The impostor first: it loses to the genuine node's stored claim.
rc=0
bringup discover -q "$impostor" 2>/dev/null || rc=$?
assert_eq "$rc" 1 "the impostor fails"
assert_eq "$(st "$impostor" .state)" failed "impostor with the manifest against it"
assert_contains "$(st "$impostor" .reason)" "$genuine" "the impostor's reason names the winner"
assert_contains "$(st "$impostor" .reason)" "$bmc_g" "the impostor's reason names the winner's BMC"
bringup discover -q "$genuine"
assert_eq "$(st "$genuine" .state)" discovered "the genuine node wins"
bringup status --json | jq -r --arg h "$genuine" '.nodes[] | select(.hostname == $h) | .macs[]' | grep -qx "$mac" ||
	fail "the genuine node keeps $mac"
assert_eq "$(st "$impostor" .state)" failed "the impostor stays failed"
# The genuine node first, on a fresh inventory: the same verdict.
export BRINGUP_DB=$T/inv2.db
bringup import --manifest rack2.csv >/dev/null
bringup discover -q "$genuine"
rc=0
bringup discover -q "$impostor" 2>/dev/null || rc=$?
assert_eq "$(st "$genuine" .state) $(st "$impostor" .state)" "discovered failed" "genuine first"
# And both at once, in one run.
export BRINGUP_DB=$T/inv3.db
bringup import --manifest rack2.csv >/dev/null
bringup discover -q 2>/dev/null || true
assert_eq "$(st "$genuine" .state) $(st "$impostor" .state)" "discovered failed" "both in one run"
exit 0
