# Firmware tests' shared set-up (t1300..t1304 and scripts/bench-firmware source it after lib.sh):
#   fw_images DIR     the simulator's images of the healthy rack's versions
#                     (iDRAC, BIOS, ConnectX-7 firmware) in DIR, and a copy
#                     of the templates with xe9680's catalogue naming them
#                     (BRINGUP_TEMPLATES=$T/tpl), max_per_rack 2
#   fw_posts LOG      one line per image sent: node, then the file name
#   fw_overlap LOG [RACK_OF]  the most machines updating at once: a node
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
	jq -r 'select(.method == "POST" and (.path | test("MultipartUpload|SimpleUpdate")) and .status == 202)
		| "\(.node) \(.parts.UpdateFile.filename // (.body.ImageURI | split("/") | last))"' "$1"
}

fw_overlap() { # LOG [jq expression giving a node's group; default: one group]
	jq -s -r --arg group "${2:-}" '
		[group_by(.node)[] | . as $l
		 | ([$l[] | select(.method == "POST" and (.path | test("MultipartUpload|SimpleUpdate")))] | map(.start_ms) | min) as $s
		 | ([$l[] | select(.method == "GET" and (.path | test("FirmwareInventory")))] | map(.end_ms) | max) as $e
		 | select($s != null) | {node: $l[0].node, s: $s, e: $e}]
		| (if $group == "" then [.] else group_by(.node | capture("gpu-(?<r>r[0-9]+)").r) end)
		| map([.[] as $a | [.[] | select(.s <= $a.s and .e >= $a.s)] | length] | max) | max // 0' "$1"
}
