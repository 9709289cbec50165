#!/bin/sh
# bringup firmware on HPE iLO 5s, which offer no MultipartHttpPushUri (as a
# real XL675d's UpdateService shows: tests/fixtures/redfish/hpe/cray_rie):
# without an image server every image goes to iLO's own HttpPushUri in
# HPE's form (sessionKey part and cookie, parameters, file), no Task is
# followed, the UpdateService's Oem.Hpe State and the FirmwareInventory
# are. An update iLO ends in State Error fails its node with iLO's
# Result; an image iLO refuses fails its node with iLO's answer; the
# iLO's own update restarts it, and the next image goes over a new
# session. An image with a component signature in the catalogue sends it
# as the compsig part, held to its hash like the image. Killed mid-update, a rerun finds iLO's update under way
# (State not Idle) and follows it instead of sending the image again.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/firmware.sh"
cd "$T"
fw_images "$T/images"

# the rack's xl675d profile gets xe9680's policy, its catalogue naming the
# XL675d, the BIOS image with its component signature (iLO's compsig)
printf 'simulated component signature\n' > "$T/images/bios-2.3.5.compsig"
h_sig=$(sha256sum "$T/images/bios-2.3.5.compsig" | cut -d' ' -f1)
policy() {
	models=$(bringup status --json | jq -r '[.nodes[].model] | unique | join(", ")')
	cp "$T/tpl/profiles/xe9680/firmware.conf" "$T/tpl/profiles/xl675d/firmware.conf"
	sed -e "s/^models = .*/models = $models/" \
		-e "/^file = .*bios-2.3.5.exe/a compsig = $T/images/bios-2.3.5.compsig\ncompsig_sha256 = $h_sig" \
		"$T/tpl/profiles/xe9680/firmware-images.conf" > "$T/tpl/profiles/xl675d/firmware-images.conf"
}

bringup sim --no-hosts --nodes 3 --seed 5 --vendor hpe --faults fw_update_fail:1,fw_image_refused:1,fw_stale:1 \
	--fw-task-ms 200 --bmc-reboot-ms 300 --image-dir "$T/images" --dir rack --daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
export BRINGUP_DB=$T/inv.db
bringup import --manifest rack/rack.csv >/dev/null
bringup discover -q >/dev/null
policy
# A signature whose hash is not the catalogue's stops the stage before any BMC is touched.
cp "$T/images/bios-2.3.5.compsig" sig.orig
echo tampered >> "$T/images/bios-2.3.5.compsig"
: > rack/requests.log
rc=0
bringup firmware > sig.out 2> sig.err || rc=$?
assert_eq "$rc" 2 "exit code with a compsig whose hash is wrong"
assert_contains "$(cat sig.err)" "firmware-images.conf:" "the catalogue named"
assert_contains "$(cat sig.err)" "[image bios]: compsig_sha256: $T/images/bios-2.3.5.compsig has" "the compsig mismatch named"
assert_eq "$(grep -c . rack/requests.log || true)" 0 "requests with a bad compsig"
cp sig.orig "$T/images/bios-2.3.5.compsig"
with() { jq -r --arg f "$1" '[.nodes[] | select(.faults | index($f)) | .hostname] | join(" ")' rack/truth.json; }
failing=$(with fw_update_fail) refused=$(with fw_image_refused)
plain=$(jq -r '[.nodes[] | select(.faults == ["fw_stale"]) | .hostname] | join(" ")' rack/truth.json)
: > rack/requests.log
rc=0
bringup firmware --json --max-updates 3 --poll-ms 50 > run.json 2> run.err || rc=$?
assert_eq "$rc" 1 "firmware exit code with failed nodes ($(tail -2 run.err))"
cp rack/requests.log run.log
res() { jq -r --arg h "$1" ".nodes[] | select(.hostname == \$h) | $2" run.json; }
assert_eq "$(res "$plain" .result)" updated "$plain: updated ($(res "$plain" .reason))"
assert_eq "$(res "$plain" '[.updates[].method] | unique | join(",")')" ilo-push "$plain: by iLO's push"
assert_contains "$(res "$failing" .reason)" \
	"iDRAC.Embedded.1-1: update to 7.10.50.00 failed: iLO's update state Error: iLO.2.14.UpdateFailed" \
	"$failing: iLO's Result named"
assert_contains "$(res "$refused" .reason)" "iDRAC.Embedded.1-1: update to 7.10.50.00 refused: HTTP 400 on" "$refused: iLO's refusal"
assert_contains "$(res "$refused" .reason)" "/cgi-bin/uploadFile" "$refused: the URI that refused"
# every image to /cgi-bin/uploadFile, none to a multipart or Task URI
assert_eq "$(jq -r 'select(.method == "POST" and (.path | test("MultipartUpload|SimpleUpdate"))) | .path' run.log | wc -l)" 0 \
	"standard pushes sent to iLO"
assert_eq "$(fw_posts run.log | grep -c "^$plain ")" 3 "$plain: images sent"
# the BIOS image came with its signature, the others without
assert_eq "$(jq -r --arg h "$plain" 'select(.node == $h and (.path | test("^/cgi-bin/uploadFile")) and .status == 200) | "\(.parts.file.filename) \(.parts.compsig.filename // "-")"' run.log | sort | tr '\n' ' ')" \
	"bios-2.3.5.exe bios-2.3.5.compsig cx7-28.39.1002.bin - idrac-7.10.50.00.d9 - " "$plain: the parts sent"
# the iLO's own update restarted it: the BIOS image came over a new session
assert_eq "$(jq -r --arg h "$plain" 'select(.node == $h and .method == "POST" and (.path | test("Sessions"))) | .status' run.log | sort | uniq -c | awk '{print $1}')" \
	2 "$plain: logins (the first, and after iLO's restart)"
rc=0
/usr/bin/python3 "$BR_TOP/tests/check-redfish-bodies.py" --json run.log > check.json || rc=$?
assert_eq "$rc" 0 "bodies ($(jq -c '.violations[:3]' check.json))"
assert_eq "$(jq -r '.checked["iLO push (HPE'"'"'s facts)"]' check.json)" 5 "iLO push forms checked"
stop_sim "$T/rack"

# Killed while iLO applies an image, then run again.
rm -f "$T/inv.db"
bringup sim --no-hosts --nodes 2 --seed 6 --vendor hpe --faults fw_stale:2 --fw-task-ms 1500 --bmc-reboot-ms 300 \
	--image-dir "$T/images" --dir rack2 --daemon >/dev/null
at_exit "stop_sim $T/rack2"
rm -rf rack && ln -s rack2 rack
set -a; . rack/env; set +a
bringup import --manifest rack/rack.csv >/dev/null
bringup discover -q >/dev/null
fw_kill_once_accepted
fw_rerun_resumed "$first" 6
echo "iLO push: $plain updated by it, $failing and $refused failed with iLO's words; a killed run's update followed on $first"
