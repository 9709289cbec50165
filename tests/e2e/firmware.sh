# Firmware tests' shared set-up (t1300..t1306 and scripts/bench-firmware source it after lib.sh):
#   fw_images DIR     the simulator's images of the healthy rack's versions
#                     (iDRAC, BIOS, ConnectX-7 firmware) in DIR, and a copy
#                     of the templates with xe9680's catalogue naming them
#                     (BRINGUP_TEMPLATES=$T/tpl), max_per_rack 2
#   fw_posts LOG      one line per image sent: node, then the file name
#   fw_kill_once_accepted  fw_start_until_accepted (below), then SIGKILL that run:
#                     its requests in first.log, the first node accepted in $first
#   fw_overlap LOG [rack|FILE]  the most machines updating at once (in
#                     one rack, or in one group of FILE's node -> group): a node
#                     updates from its first image POST to its last
#                     FirmwareInventory read (the read-back)

fw_image() { # DIR FILE COMPONENT VERSION -> its SHA-256
	printf 'bringup-sim-image\ncomponent=%s\nversion=%s\n' "$3" "$4" > "$1/$2"
	sha256sum "$1/$2" | cut -d' ' -f1
}

fw_images() { # DIR
	mkdir -p "$1" "$T/tpl"
	cp -r "$BR_TOP/templates/." "$T/tpl/"
	h_idrac=$(fw_image "$1" idrac-7.10.50.00.d9 iDRAC.Embedded.1-1 7.10.50.00)
	h_bios=$(fw_image "$1" bios-2.3.5.exe BIOS.Setup.1-1 2.3.5)
	h_nic=$(fw_image "$1" cx7-28.39.1002.bin NIC.Slot.31-1-1 28.39.1002)
	cat > "$T/tpl/profiles/xe9680/firmware-images.conf" <<EOT
[update]
max_per_rack = 2

[image idrac]
component = iDRAC.Embedded.1-1
class = bmc
models = PowerEdge XE9680
version = 7.10.50.00
file = $1/idrac-7.10.50.00.d9
sha256 = $h_idrac

[image bios]
component = BIOS.Setup.1-1
class = bios
models = PowerEdge XE9680, PowerEdge XE8640
version = 2.3.5
file = $1/bios-2.3.5.exe
sha256 = $h_bios

[image cx7]
component = NIC.Slot.*
class = nic
models = PowerEdge XE9680
version = 28.39.1002
file = $1/cx7-28.39.1002.bin
sha256 = $h_nic
EOT
	export BRINGUP_TEMPLATES=$T/tpl
}

fw_posts() { # LOG
	jq -r 'select(.method == "POST" and (((.path | test("MultipartUpload|SimpleUpdate")) and .status == 202)
			or ((.path | test("^/cgi-bin/uploadFile")) and .status == 200)))
		| "\(.node) \(.parts.UpdateFile.filename // .parts.file.filename // (.body.ImageURI | split("/") | last))"' "$1"
}

# Start `bringup firmware` in the background on the rack in ./rack (its
# output in first.out, first.err; its pid in $pid, killed at exit) and
# return once a BMC accepted its first image: the kill point of the tests
# that stop a run mid-update.
fw_start_until_accepted() {
	: > rack/requests.log
	bringup firmware --max-updates 2 --poll-ms 50 > first.out 2> first.err &
	pid=$!
	at_exit "kill -9 $pid 2>/dev/null || true"
	_i=0
	until [ "$(fw_posts rack/requests.log | wc -l)" -ge 1 ]; do
		kill -0 $pid 2>/dev/null || fail "firmware ended before any image was accepted: $(cat first.err)"
		[ $_i -lt 600 ] || fail "no image accepted in 60 s"
		sleep 0.1; _i=$((_i + 1))
	done
}

# fw_start_until_accepted, then SIGKILL that run: its requests in
# first.log, the node whose image was accepted first in $first.
fw_kill_once_accepted() {
	fw_start_until_accepted
	kill -9 $pid
	_rc=0; wait $pid || _rc=$?
	assert_eq "$_rc" 137 "the first run killed"
	cp rack/requests.log first.log
	first=$(fw_posts first.log | head -n 1 | cut -d' ' -f1)
}

# After a first run stopped mid-update (its requests in first.log): run
# firmware again; it must end 0 with every node updated, follow the task
# FIRST's update left running, and send each image once over both runs,
# TOTAL in all.
fw_rerun_resumed() { # FIRST TOTAL
	: > rack/requests.log
	_rc=0
	bringup firmware --json --max-updates 2 --poll-ms 50 > rerun.json 2> rerun.err || _rc=$?
	assert_eq "$_rc" 0 "rerun exit code ($(cat rerun.err))"
	cp rack/requests.log rerun.log
	assert_eq "$(jq -r '[.nodes[].result] | unique | join(",")' rerun.json)" updated "every node updated"
	assert_eq "$(jq -r --arg h "$1" '.nodes[] | select(.hostname == $h) | .updates[0].method' rerun.json)" resumed \
		"$1: the running task followed"
	cat first.log rerun.log > both.log
	assert_eq "$(fw_posts both.log | sort | uniq -d | tr '\n' ' ')" "" "images sent twice"
	assert_eq "$(fw_posts both.log | wc -l)" "$2" "images sent over both runs"
}

fw_overlap() { # LOG [rack | FILE: a JSON object, node -> its group; default: one group]
	_groups='{}'
	case "${2:-}" in "" | rack) ;; *) _groups=$(cat "$2") ;; esac
	jq -s -r --arg group "${2:-}" --argjson groups "$_groups" '
		[group_by(.node)[] | . as $l
		 | ([$l[] | select(.method == "POST" and (.path | test("MultipartUpload|SimpleUpdate|^/cgi-bin/uploadFile")))] | map(.start_ms) | min) as $s
		 | ([$l[] | select(.method == "GET" and (.path | test("FirmwareInventory")))] | map(.end_ms) | max) as $e
		 | select($s != null) | {node: $l[0].node, s: $s, e: $e}]
		| (if $group == "" then [.] elif $group == "rack" then group_by(.node | capture("gpu-(?<r>r[0-9]+)").r)
		   else map(select($groups[.node] != null)) | group_by($groups[.node]) end)
		| map([.[] as $a | [.[] | select(.s <= $a.s and .e >= $a.s)] | length] | max) | max // 0' "$1"
}
