#!/bin/sh
# bringup-probe on bad input: an unreadable sysfs file, garbage XML, a
# malformed or missing dump, bad usage. Each is reported with its path and
# reason; nothing crashes. And the node's tools are run without a shell.
. "$(dirname "$0")/lib.sh"
F=$BR_TOP/tests/fixtures
P=$F/probe

# A sysfs attribute that cannot be read (a directory where a file should be:
# root reads any file, so permissions would not do).
cp -a "$P/hwmon-bogus" "$T/tree"
f=$T/tree/sys/devices/platform/coretemp.0/hwmon/hwmon2/temp2_input
rm "$f"; mkdir "$f"
bringup-probe --root "$T/tree" >"$T/out.json" 2>"$T/err" || fail "probe failed on an unreadable file: $(cat "$T/err")"
assert_eq "$(jq -c '.thermal.hwmon[0].temps[1] | [.label, .input_millicelsius, .celsius]' "$T/out.json")" \
	'["Core 0",null,null]' "unreadable reading is null, not guessed"
assert_eq "$(jq -r '.unreadable[] | select(.path == "/sys/class/hwmon/hwmon2/temp2_input") | .reason' "$T/out.json")" \
	"unreadable: Is a directory" "unreadable path and reason"

# Garbage lldpctl output: a clear message with the line, the rest still there.
bringup-probe --root "$T/tree" --lldp-xml "$P/lldp/garbage-truncated.xml" >"$T/g1.json"
assert_eq "$(jq -r '.lldp.status' "$T/g1.json")" "malformed" "truncated XML status"
assert_contains "$(jq -r '.lldp.error' "$T/g1.json")" "lldpctl -f xml: not XML: line 8" "truncated XML message"
assert_eq "$(jq -r '.thermal.hwmon[0].name' "$T/g1.json")" "coretemp" "other sections unaffected"
bringup-probe --root "$T/tree" --lldp-xml "$P/lldp/garbage-text.xml" --nvidia-smi-xml "$P/lldp/lldpctl-two-ports.xml" >"$T/g2.json"
assert_contains "$(jq -r '.lldp.error' "$T/g2.json")" "Start tag expected" "text instead of XML"
assert_contains "$(jq -r '.gpus.error' "$T/g2.json")" "root element is <lldp>, not <nvidia_smi_log>" "wrong XML"

# Missing captures.
bringup-probe --root "$T/tree" --nvidia-smi-xml "$T/none.xml" --pci-dump "$T/none.txt" --dmesg "$T/none.log" >"$T/m.json"
assert_eq "$(jq -c '[.gpus.status, .pcie.status, .dmesg.status]' "$T/m.json")" '["absent","absent","absent"]' "missing captures"
assert_contains "$(jq -r '.pcie.error' "$T/m.json")" "$T/none.txt: No such file" "missing dump named"
assert_contains "$(jq -r '.unreadable[].path' "$T/m.json")" "$T/none.xml" "missing capture listed"

# A dump libpci refuses: its message, not an exit.
printf '00:01.0 Bridge\n00: de 10 zz\n' >"$T/bad.txt"
bringup-probe --root "$T/tree" --pci-dump "$T/bad.txt" >"$T/d.json" || fail "probe exited on a bad dump"
assert_eq "$(jq -c '[.pcie.status, .pcie.error, .pcie.count]' "$T/d.json")" '["malformed","libpci: dump: Malformed line",0]' "bad dump"

# Tools run from PATH without a shell, on the real root only.
mkdir -p "$T/bin"
printf '#!/bin/sh\ncat "%s"\n' "$F/hw/h200-vm/nvidia-smi-q.xml" >"$T/bin/nvidia-smi"
printf '#!/bin/sh\necho "unable to connect to socket /run/lldpd.socket" >&2\nexit 1\n' >"$T/bin/lldpctl"
printf '#!/bin/sh\ncat "%s"\n' "$P/dmesg/kern.log" >"$T/bin/dmesg"
chmod +x "$T/bin/"*
PATH=$T/bin:$PATH bringup-probe >"$T/live.json"
assert_eq "$(jq -c '[.gpus.source, .gpus.count, .lldp.status, .dmesg.source, .dmesg.counts.nvidia_xid]' "$T/live.json")" \
	'["nvidia-smi",1,"error","dmesg",1]' "tools from PATH"
assert_contains "$(jq -r '.lldp.error' "$T/live.json")" "lldpctl: exited with status 1: unable to connect" "tool's own message"
jq -e '.clock.utc_ms > 1700000000000' "$T/live.json" >/dev/null || fail "clock"

# Usage.
bringup-probe --help >"$T/help" || fail "--help exit"
assert_contains "$(cat "$T/help")" "--pci-dump" "help lists options"
bringup-probe --json --root "$P/ib-ports" | jq -e '.probe_version == 1' >/dev/null || fail "--json"
rc=0; bringup-probe --no-such-option >/dev/null 2>&1 || rc=$?
assert_eq "$rc" 2 "unknown option"
rc=0; bringup-probe --root "$T/nowhere" >/dev/null 2>"$T/err" || rc=$?
assert_eq "$rc" 2 "missing root"
assert_contains "$(cat "$T/err")" "--root '$T/nowhere': No such file or directory" "missing root message"
rc=0; bringup-probe extra >/dev/null 2>&1 || rc=$?
assert_eq "$rc" 2 "operand"

# --time-limit: a probe stuck (here on a FIFO no one writes, in place of a
# sysfs file) ends itself at the limit, as timeout(1) would have ended it;
# without it, it is still there a moment later.
mkdir -p "$T/stuck/sys/class/dmi/id"
mkfifo "$T/stuck/sys/class/dmi/id/product_name"
rc=0; timeout 30 bringup-probe --root "$T/stuck" --time-limit 1 >/dev/null 2>&1 || rc=$?
assert_eq "$rc" 137 "stuck probe past --time-limit (124: timeout(1) had to end it)"
rc=0; timeout 2 bringup-probe --root "$T/stuck" >/dev/null 2>&1 || rc=$?
assert_eq "$rc" 124 "stuck probe without a limit"
rc=0; bringup-probe --time-limit -1 >/dev/null 2>&1 || rc=$?
assert_eq "$rc" 2 "negative --time-limit"
echo ok
