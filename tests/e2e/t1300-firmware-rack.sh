#!/bin/sh
# bringup firmware on a 32-node rack whose iDRAC, BIOS and first ConnectX-7
# are below xe9680's policy on 12 nodes: every one ends at the baseline
# (read back from the BMC, recorded, and judged so by configure), the
# iDRAC first and waited for through its restart, then the BIOS, then the
# NIC; no image sent twice to a node; never more than --max-updates (3)
# machines updating at once, nor more than the catalogue's max_per_rack (2)
# in one rack (from the simulators' request logs). Every multipart body's
# UpdateParameters holds to DMTF's UpdateService schema; the dry run plans
# the same and sends nothing; --report shows the rack agreeing afterwards
# and who differed before.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/firmware.sh"
cd "$T"
fw_images "$T/images"
bringup sim --no-hosts --nodes 32 --seed 5 --faults fw_stale:12 --fw-task-ms 300 --bmc-reboot-ms 400 \
	--image-dir "$T/images" --dir rack --daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
export BRINGUP_DB=$T/inv.db
bringup import --manifest rack/rack.csv >/dev/null
bringup discover -q >/dev/null || true
stale=$(jq -r '[.nodes[] | select(.faults | index("fw_stale")) | .hostname] | sort | join(" ")' rack/truth.json)
assert_eq "$(echo "$stale" | wc -w)" 12 "stale nodes"

# Before: the report names exactly the stale nodes as differing.
bringup firmware --report --json > before.json || fail "report before"
assert_eq "$(jq -r '[.components[] | select(.component == "iDRAC.Embedded.1-1") | .differ[]] | sort | join(" ")' before.json)" \
	"$stale" "iDRAC versions differing before"
assert_eq "$(jq -r '.components[] | select(.component == "BIOS.Setup.1-1") | .versions[0].version' before.json)" 2.3.5 \
	"the BIOS most nodes run"

# ... and so does the HTML report, its firmware section linking each one.
bringup report --out before.html >/dev/null || fail "HTML report before"
for h in $stale; do
	grep -q "<tr class=\"fwdiff\"><td>PowerEdge XE9680</td><td>iDRAC.Embedded.1-1</td>.*>$h</a>" before.html ||
		fail "$h not among the iDRAC's differing nodes in the HTML report"
done

# The dry run: the plan in order, nothing sent.
: > rack/requests.log
bringup firmware --dry-run --json > plan.json || fail "dry run"
assert_eq "$(jq -r '[.nodes[] | select(.result == "planned") | .hostname] | sort | join(" ")' plan.json)" "$stale" "planned nodes"
assert_eq "$(jq -r '[.nodes[] | select(.result == "planned") | [.updates[].class] | join(",")] | unique | join(" ")' plan.json)" \
	"bmc,bios,nic" "update order"
assert_eq "$(jq -r '[.nodes[] | select(.result == "current")] | length' plan.json)" 20 "nodes already on the policy"
assert_eq "$(grep -c . rack/requests.log || true)" 0 "requests of the dry run"

# The run.
rc=0
bringup firmware --json --max-updates 3 --poll-ms 50 > run.json 2> run.err || rc=$?
assert_eq "$rc" 0 "firmware exit code ($(cat run.err))"
cp rack/requests.log run.log
assert_eq "$(jq -r '[.nodes[] | select(.result == "updated") | .hostname] | sort | join(" ")' run.json)" "$stale" "updated nodes"
assert_eq "$(jq -r '.summary.images_sent' run.json)" 36 "images sent"
# No image twice: one POST per node and image file, and only to stale nodes.
assert_eq "$(fw_posts run.log | sort | uniq -d | wc -l)" 0 "images sent twice"
assert_eq "$(fw_posts run.log | wc -l)" 36 "image POSTs"
assert_eq "$(fw_posts run.log | cut -d' ' -f1 | sort -u | tr '\n' ' ' | sed 's/ $//')" "$stale" "nodes sent an image"
# In order on every node: iDRAC, BIOS, NIC.
for h in $stale; do
	assert_eq "$(fw_posts run.log | awk -v h="$h" '$1 == h { printf "%s ", $2 }')" \
		"idrac-7.10.50.00.d9 bios-2.3.5.exe cx7-28.39.1002.bin " "$h: image order"
done
# The iDRAC restarted (connections dropped) and was waited for.
[ "$(jq -s '[.[] | select(.fault == "bmc_restarting")] | length' run.log)" -gt 0 ] || fail "no iDRAC restart seen"
# The caps, from the BMCs' side.
most=$(fw_overlap run.log)
[ "$most" -le 3 ] && [ "$most" -ge 2 ] || fail "machines updating at once: $most (cap 3)"
per_rack=$(fw_overlap run.log rack)
[ "$per_rack" -le 2 ] || fail "machines updating at once in one rack: $per_rack (max_per_rack 2)"

# Read back and recorded: the report agrees, history says so, configure passes the policy.
bringup firmware --report --json > after.json
assert_eq "$(jq -r '[.components[] | select(.component | test("iDRAC|BIOS|NIC.Slot.31-1-1"))] | length' after.json)" 0 \
	"components differing after"
bringup report --out after.html >/dev/null || fail "HTML report after"
assert_eq "$(grep -c 'class="fwdiff"' after.html)" 0 "differing components in the HTML report after"
grep -q "Every model runs one version of each component" after.html || fail "the HTML report's firmware section after"
# The versions truth.json says a correct run ends with, node by node.
bringup firmware --report --all --json > all.json
for h in $stale; do
	want=$(jq -c --arg h "$h" '.nodes[] | select(.hostname == $h) | .fault_details.fw_stale.after | to_entries | sort_by(.key)' rack/truth.json)
	got=$(jq -c --arg h "$h" --argjson w "$want" '[$w[] as $e | .components[] | select(.component == $e.key)
		| {key: .component, value: (.versions[] | select(.nodes | index($h)) | .version)}] | sort_by(.key)' all.json)
	assert_eq "$got" "$want" "$h: versions against truth.json"
done
h1=$(echo "$stale" | cut -d' ' -f1)
assert_contains "$(bringup history "$h1")" "firmware updated and read back: iDRAC.Embedded.1-1 7.00.60.00 -> 7.10.50.00" "history"
assert_eq "$(bringup status --json | jq -r '[.nodes[].state] | unique | join(",")')" discovered "states after firmware"
bringup configure --json --poll-ms 50 --graceful-timeout 5 $stale > configure.json 2>/dev/null || true
assert_eq "$(bringup status --json | jq -r --arg h "$h1" '.nodes[] | select(.hostname == $h) | [.checks[] | select(.name | startswith("firmware:")) | .result] | unique | join(",")')" \
	pass "firmware checks of an updated node"

# A second run sends nothing: every node is at the policy.
: > rack/requests.log
bringup firmware --json > again.json
assert_eq "$(jq -r '.summary.images_sent' again.json)" 0 "images sent by a second run"
assert_eq "$(grep -c . rack/requests.log || true)" 0 "requests of a second run (nothing planned)"

# The bodies against DMTF's schemas.
rc=0
/usr/bin/python3 "$BR_TOP/tests/check-redfish-bodies.py" --json run.log > check.json || rc=$?
assert_eq "$rc" 0 "bodies checked ($(jq -c .violations check.json))"
assert_eq "$(jq -r '.checked["UpdateService multipart"]' check.json)" 36 "multipart bodies checked"
assert_eq "$(jq -r '.annotations["@Redfish.OperationApplyTime"]' check.json)" 36 "apply times checked"
# ... and a crafted bad one is refused.
jq -c 'select(.parts) | .parts.UpdateParameters.Targets = "x" | .parts.UpdateParameters.Force = true' run.log | head -n 1 > bad.log
rc=0
/usr/bin/python3 "$BR_TOP/tests/check-redfish-bodies.py" --json bad.log > bad.json || rc=$?
assert_eq "$rc" 1 "a bad UpdateParameters refused"
assert_contains "$(jq -r '[.violations[].message] | join("; ")' bad.json)" "'Force' does not match any of the regexes" "unknown parameter named"
