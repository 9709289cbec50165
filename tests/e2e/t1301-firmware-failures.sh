#!/bin/sh
# What bringup firmware does when an update goes wrong, and what it refuses
# before anything is sent. A task that ends in Exception and an image the
# BMC refuses each fail their node (firmware_update_failed) with the
# component and the BMC's own message, into a ticket; the other nodes
# update. A BMC offering only SimpleUpdate fails without --image-base-url
# and nothing is sent; given one, the rerun takes the failed nodes again
# and sends SimpleUpdate with the ImageURI on it (held to DMTF's schema).
# A BMC that applies updates only OnReset is refused, nothing sent
# (Immediate asked for, never a surprise). A slow iDRAC is waited for; a Location naming the Dell job, not the
# Task, is followed as the job (JobState). An image whose SHA-256 is not the
# catalogue's, or a missing one, stops the stage (exit 2, FILE:LINE) before
# any BMC is touched; a model the catalogue does not name gets no update.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/firmware.sh"
cd "$T"
fw_images "$T/images"
bringup sim --no-hosts --nodes 8 --seed 7 \
	--faults fw_update_fail:1,fw_image_refused:1,fw_no_multipart:2,fw_bmc_slow:1,fw_stale:1,fw_dell_job:1,fw_apply_on_reset:1 \
	--fw-task-ms 200 --bmc-reboot-ms 300 --image-dir "$T/images" --dir rack --daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
export BRINGUP_DB=$T/inv.db
bringup import --manifest rack/rack.csv >/dev/null
bringup discover -q >/dev/null
with() { jq -r --arg f "$1" '[.nodes[] | select(.faults | index($f)) | .hostname] | sort | join(" ")' rack/truth.json; }
failing=$(with fw_update_fail) refused=$(with fw_image_refused) simple=$(with fw_no_multipart)
slow=$(with fw_bmc_slow) plain=$(with fw_stale) dell_job=$(with fw_dell_job) on_reset=$(with fw_apply_on_reset)

# Operator mistakes first: nothing may reach a BMC.
cp "$T/tpl/profiles/xe9680/firmware-images.conf" good.conf
cp images/bios-2.3.5.exe bios.orig
echo tampered >> images/bios-2.3.5.exe
: > rack/requests.log
rc=0
bringup firmware > hash.out 2> hash.err || rc=$?
assert_eq "$rc" 2 "exit code with an image whose hash is wrong"
assert_contains "$(cat hash.err)" "firmware-images.conf:13: [image bios]: sha256: $T/images/bios-2.3.5.exe has" "the hash mismatch named"
assert_eq "$(grep -c . rack/requests.log || true)" 0 "requests with a bad image"
cp bios.orig images/bios-2.3.5.exe
sed -i 's|file = .*/bios-2.3.5.exe|file = missing.exe|' "$T/tpl/profiles/xe9680/firmware-images.conf"
rc=0
bringup firmware > missing.out 2> missing.err || rc=$?
assert_eq "$rc" 2 "exit code with an image missing"
assert_contains "$(cat missing.err)" "[image bios]" "the missing image named"
assert_contains "$(cat missing.err)" "profiles/xe9680/missing.exe" "relative files are the profile's"
assert_eq "$(grep -c . rack/requests.log || true)" 0 "requests with an image missing"
# A catalogue that names another model for the NIC: no update on any node.
sed -e 's|file = missing.exe|file = '"$T"'/images/bios-2.3.5.exe|' good.conf |
	awk '/^\[image cx7\]/ { cx = 1 } cx && /^models/ { $0 = "models = PowerEdge R760xa" } { print }' \
	> "$T/tpl/profiles/xe9680/firmware-images.conf"
bringup firmware --json $plain > model.json || true
assert_eq "$(jq -r '.nodes[0].result' model.json)" refused "a node whose model the catalogue does not name"
assert_contains "$(jq -r '.nodes[0].updates[] | select(.component == "NIC.Slot.31-1-1") | .refused' model.json)" \
	"no image of NIC.Slot.31-1-1 for model 'PowerEdge XE9680'" "why"
assert_eq "$(grep -c . rack/requests.log || true)" 0 "requests for a refused node"
assert_contains "$(bringup history "$plain")" "firmware: nothing updated" "the refusal in the node's history"
cp good.conf "$T/tpl/profiles/xe9680/firmware-images.conf"
# Facts that name a component the BMC does not list (stored before a NIC
# was moved, say): refused when the live inventory is read, nothing sent.
inv_sql inv.db ".backup inv-saved.db"
inv_sql inv.db "UPDATE hw_facts SET facts = replace(facts, '__NIC.Slot.31-1-1', '__NIC.Slot.39-1-1')
	WHERE node_id = (SELECT id FROM nodes WHERE hostname = '$plain')"
rc=0
bringup firmware --json $plain > unlisted.json 2>/dev/null || rc=$?
assert_eq "$rc" 1 "exit code with a component the BMC does not list"
assert_contains "$(jq -r '.nodes[0].reason' unlisted.json)" "refused: the BMC lists no firmware component NIC.Slot.39-1-1 (nothing sent)" \
	"the unlisted component refused"
assert_eq "$(fw_posts rack/requests.log | wc -l)" 0 "images sent for an unlisted component"
inv_sql inv.db ".restore inv-saved.db"

# The run.
rc=0
bringup firmware --json --poll-ms 50 --bmc-return-timeout 60 > run.json 2> run.err || rc=$?
assert_eq "$rc" 1 "exit code with failed updates"
cp rack/requests.log run.log
result() { jq -r --arg h "$1" '.nodes[] | select(.hostname == $h) | .result' run.json; }
reason() { jq -r --arg h "$1" '.nodes[] | select(.hostname == $h) | .reason' run.json; }
assert_eq "$(result "$plain")" updated "$plain"
assert_eq "$(result "$slow")" updated "$slow (slow iDRAC)"
assert_eq "$(result "$on_reset")" failed "$on_reset (updates applied only OnReset)"
assert_contains "$(reason "$on_reset")" "unsupported on this BMC: MultipartHttpPushUri applies updates only at OnReset, not Immediate (nothing sent)" \
	"$on_reset: why"
assert_eq "$(fw_posts run.log | awk -v h="$on_reset" '$1 == h' | wc -l)" 0 "$on_reset: images sent"
assert_eq "$(result "$dell_job")" updated "$dell_job (its updates' Location a Dell job)"
[ "$(jq -s --arg h "$dell_job" '[.[] | select(.node == $h and (.path | test("/Managers/iDRAC.Embedded.1/Jobs/JID_905")))] | length' run.log)" -gt 0 ] ||
	fail "$dell_job: its Dell jobs were not followed"
assert_eq "$(result "$failing")" failed "$failing"
assert_contains "$(reason "$failing")" "iDRAC.Embedded.1-1: update to 7.10.50.00 failed: task /redfish/v1/TaskService/Tasks/JID_" "the task named"
assert_contains "$(reason "$failing")" "Exception: IDRAC.2.9.SUP0518: Unable to complete the firmware update operation" "the BMC's message"
assert_eq "$(result "$refused")" failed "$refused"
assert_contains "$(reason "$refused")" "iDRAC.Embedded.1-1: update to 7.10.50.00 refused: HTTP 400" "refused"
assert_contains "$(reason "$refused")" "Unable to verify Update Package signature" "the BMC's refusal"
for h in $simple; do
	assert_eq "$(result "$h")" failed "$h without an image server"
	assert_contains "$(reason "$h")" "only by SimpleUpdate from an image server, and no --image-base-url" "$h: why"
	assert_eq "$(fw_posts run.log | awk -v h="$h" '$1 == h' | wc -l)" 0 "$h: images sent"
done
# As truth.json says a correct run ends (before an image server is given).
jq -r '.nodes[] | "\(.hostname) \(.fault_details | to_entries[0].value.ends)"' rack/truth.json |
while read -r h ends; do
	case $ends in updated) want=updated ;; *) want=failed ;; esac # updated_given_image_server: not yet
	assert_eq "$(result "$h")" "$want" "$h against truth.json ($ends)"
	if [ "$want" = failed ] && [ "$ends" = failed ]; then
		assert_eq "$(bringup status --json | jq -r --arg h "$h" '.nodes[] | select(.hostname == $h) | .failure_kind')" \
			"$(jq -r --arg h "$h" '.nodes[] | select(.hostname == $h) | .fault_details | to_entries[0].value.failure_kind' rack/truth.json)" \
			"$h: failure kind against truth.json"
	fi
done
# Nothing past the failed update was sent: the first image only.
assert_eq "$(fw_posts run.log | awk -v h="$failing" '$1 == h' | wc -l)" 1 "images sent to $failing"
assert_eq "$(bringup status --json | jq -r --arg h "$failing" '.nodes[] | select(.hostname == $h) | .failure_kind')" \
	firmware_update_failed "failure kind"
bringup tickets --format json > tickets.json
assert_eq "$(jq -r --arg h "$failing" '.tickets[] | select(.hostname == $h) | .fault' tickets.json)" firmware_update_failed "ticket fault"
assert_contains "$(jq -r --arg h "$failing" '.tickets[] | select(.hostname == $h) | .evidence' tickets.json)" \
	"iDRAC.Embedded.1-1: update to 7.10.50.00 failed" "ticket evidence: the component"
assert_contains "$(jq -r --arg h "$failing" '.tickets[] | select(.hostname == $h) | .evidence' tickets.json)" \
	"could not be applied" "ticket evidence: the BMC's message"
assert_contains "$(jq -r --arg h "$failing" '.tickets[] | select(.hostname == $h) | .action' tickets.json)" \
	"re-run bringup firmware" "ticket action"

# Given an image server, the rerun takes the nodes failed in firmware again.
: > rack/requests.log
rc=0
bringup firmware --json --poll-ms 50 --image-base-url http://images.example.test/fw $simple > simple.json 2> simple.err || rc=$?
assert_eq "$rc" 0 "SimpleUpdate rerun ($(cat simple.err))"
cp rack/requests.log simple.log
assert_eq "$(jq -r '[.nodes[].result] | unique | join(",")' simple.json)" updated "SimpleUpdate nodes"
assert_eq "$(jq -r '[.nodes[].updates[].method] | unique | join(",")' simple.json)" simple "transfer"
assert_eq "$(jq -r 'select(.method == "POST" and (.path | test("SimpleUpdate"))) | .body.ImageURI' simple.log | sort -u | tr '\n' ' ')" \
	"http://images.example.test/fw/bios-2.3.5.exe http://images.example.test/fw/cx7-28.39.1002.bin http://images.example.test/fw/idrac-7.10.50.00.d9 " \
	"ImageURIs"
assert_eq "$(fw_posts simple.log | sort | uniq -d | wc -l)" 0 "images sent twice by SimpleUpdate"
rc=0
/usr/bin/python3 "$BR_TOP/tests/check-redfish-bodies.py" --json simple.log > check.json || rc=$?
assert_eq "$rc" 0 "SimpleUpdate bodies ($(jq -c .violations check.json))"
assert_eq "$(jq -r '.checked["UpdateService.SimpleUpdate"]' check.json)" 6 "SimpleUpdate bodies checked"
