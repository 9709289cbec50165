#!/bin/sh
# bringup run on a rack of ami BMCs shaped like the dgx-h100 profile's machine,
# judged by that profile (tests/e2e/family.sh says what is asserted).
. "$(dirname "$0")/lib.sh"
. "$BR_TOP/tests/e2e/family.sh"
cd "$T"
family_pipeline ami dgx-h100
# The DGX H100 documents its supplies with no Status (as the real one's
# BMC does): their health is the SDR the probe read in-band on the node,
# and psu_failed's supply is the one that SDR says lost its AC.
h=$(jq -r '.nodes[] | select(.faults == []) | .hostname' rack/truth.json)
assert_contains "$(detail "$h" psu)" "by the BMC's SDR, read in-band on the node: its Redfish gives no health" \
	"clean $h: psu judged by the SDR"
hp=$(jq -r '.nodes[] | select(.faults == ["psu_failed"]) | .hostname' rack/truth.json)
slot=$(jq -r --arg h "$hp" '.nodes[] | select(.hostname == $h) | .fault_details.psu_failed.psu' rack/truth.json)
assert_contains "$(detail "$hp" psu)" "PSU${slot#PSU.Slot.} Status (serial unknown): health Critical" \
	"$hp: the SDR's failed supply"
