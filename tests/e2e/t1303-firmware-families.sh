#!/bin/sh
# bringup firmware on a 32-node rack of every BMC family (five or six each of
# Dell, HPE, Lenovo, Supermicro, OpenBMC, AMI), each with its BMC, BIOS and
# first fabric NIC below its profile's policy: every node ends at the
# baseline through its own family's UpdateService (paths as each family
# writes them, iLO's with a trailing '/'), no image twice, never more than
# --max-updates at once, and the multipart bodies hold to DMTF's schema.
# The catalogue names each family's System Model; the policy is given to
# every family's profile here (only xe9680 ships one). The simulator's
# families all list iDRAC-shaped FirmwareInventory members (FQDDs): what
# differs is the family's paths and documents around them.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/firmware.sh"
cd "$T"
fw_images "$T/images"
bringup sim --no-hosts --nodes 32 --seed 3 --vendor mixed --faults fw_stale:32 --fw-task-ms 200 --bmc-reboot-ms 300 \
	--image-dir "$T/images" --dir rack --daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
export BRINGUP_DB=$T/inv.db
# each node on its family's profile
jq -r '.nodes[] | "\(.hostname),\(.vendor)"' rack/truth.json | while IFS=, read -r h v; do
	case $v in dell) p=xe9680 ;; hpe) p=xl675d ;; lenovo) p=sr675v3 ;; supermicro) p=sys-821ge ;;
	openbmc) p=gh200 ;; ami) p=dgx-h100 ;; esac
	echo "$h,$p"
done > profiles
awk -F, -v OFS=, 'NR == FNR { p[$1] = $2; next } FNR > 1 { $7 = p[$1] } { print }' profiles rack/rack.csv > rack.csv
bringup import --manifest rack.csv >/dev/null
bringup discover -q >/dev/null
models=$(bringup status --json | jq -r '[.nodes[].model] | unique | join(", ")')
[ "$(echo "$models" | tr ',' '\n' | wc -l)" -ge 5 ] || fail "models of the families: $models"
for p in xl675d sr675v3 sys-821ge gh200 dgx-h100; do
	cp "$T/tpl/profiles/xe9680/firmware.conf" "$T/tpl/profiles/$p/firmware.conf"
	sed "s/^models = .*/models = $models/" "$T/tpl/profiles/xe9680/firmware-images.conf" > "$T/tpl/profiles/$p/firmware-images.conf"
done
sed -i "s/^models = .*/models = $models/" "$T/tpl/profiles/xe9680/firmware-images.conf"

: > rack/requests.log
rc=0
bringup firmware --json --max-updates 4 --poll-ms 50 > run.json 2> run.err || rc=$?
assert_eq "$rc" 0 "firmware exit code ($(cat run.err); $(jq -c '[.nodes[] | select(.result != "updated") | {hostname, reason}]' run.json))"
cp rack/requests.log run.log
assert_eq "$(jq -r '[.nodes[] | select(.result == "updated")] | length' run.json)" 32 "nodes updated"
assert_eq "$(fw_posts run.log | wc -l)" 96 "images sent"
assert_eq "$(fw_posts run.log | sort | uniq -d | wc -l)" 0 "images sent twice"
most=$(fw_overlap run.log)
[ "$most" -le 4 ] && [ "$most" -ge 2 ] || fail "machines updating at once: $most (cap 4)"
per_rack=$(fw_overlap run.log rack)
[ "$per_rack" -le 2 ] || fail "machines updating at once in one rack: $per_rack (max_per_rack 2)"
# iLO 5 has no multipart push (a real XL675d's UpdateService): its images
# go to its own HttpPushUri in HPE's form, the session's token as a part
# and a cookie, and no Task is followed (its UpdateService's Oem.Hpe is).
hpe=$(jq -r '[.nodes[] | select(.vendor == "hpe") | .hostname][0]' rack/truth.json)
n_hpe=$(jq -r '[.nodes[] | select(.vendor == "hpe")] | length' rack/truth.json)
assert_eq "$(jq -r --arg h "$hpe" 'select(.node == $h and .method == "POST" and (.path | test("[Uu]pload"))) | .path' run.log | sort -u)" \
	"/cgi-bin/uploadFile" "the iLO's push URI"
assert_eq "$(jq -r --arg h "$hpe" 'select(.node == $h and (.path | test("TaskService/Tasks/JID_"))) | .path' run.log | wc -l)" 0 \
	"tasks the iLO was asked for"
assert_eq "$(jq -r 'select(.method == "POST" and (.path | test("^/cgi-bin/uploadFile")) and .status == 200) | .node' run.log | sort -u | wc -l)" \
	"$n_hpe" "iLOs that took their images by their push URI"
bringup firmware --report --json > after.json
assert_eq "$(jq -r '[.components[] | select(.component | test("iDRAC|BIOS|NIC.Slot.31-1-1"))] | length' after.json)" 0 \
	"components differing after"
rc=0
/usr/bin/python3 "$BR_TOP/tests/check-redfish-bodies.py" --json run.log > check.json || rc=$?
assert_eq "$rc" 0 "bodies ($(jq -c '.violations[:3]' check.json))"
assert_eq "$(jq -r '.checked["UpdateService multipart"]' check.json)" $((96 - 3 * n_hpe)) "multipart bodies checked"
assert_eq "$(jq -r '.checked["iLO push (HPE'"'"'s facts)"]' check.json)" $((3 * n_hpe)) "iLO push forms checked"
