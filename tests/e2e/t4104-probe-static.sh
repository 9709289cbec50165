#!/bin/sh
# bringup-probe runs on a freshly deployed Ubuntu 22.04 (glibc 2.35) or 24.04
# node with nothing installed: it is one static executable, with no program
# interpreter, no shared library and so no glibc symbol version to need, and
# it runs in a root that holds nothing but itself. Its copy travels to every
# node: no DWARF in it.
. "$(dirname "$0")/lib.sh"
probe=$BIN/bringup-probe

if readelf -d "$probe" 2>/dev/null | grep -q 'NEEDED.*libasan'; then
	# The sanitizer tree links it dynamically by design (ASan cannot
	# link statically); what ships is the plain tree's.
	echo "ASan build: the probe is dynamic here by design; checked in the plain tree"
	exit 0
fi

readelf -l "$probe" >"$T/segments" || fail "readelf -l"
if grep -q INTERP "$T/segments"; then
	fail "the probe has a program interpreter ($(grep -A1 INTERP "$T/segments" | tail -1 | tr -s ' ')): linked dynamically, a node would need its libraries (did scripts/static-libs fail?)"
fi
readelf -d "$probe" >"$T/dynamic" 2>&1 || true
assert_contains "$(cat "$T/dynamic")" "There is no dynamic section" "no dynamic section"
# No symbol versions at all; should one ever appear, none may be newer than
# Ubuntu 22.04's glibc 2.35.
versions=$(objdump -T "$probe" 2>/dev/null | grep -o 'GLIBC_[0-9][0-9.]*' | sort -u -V || true)
newest=$(printf '%s\n' "$versions" GLIBC_2.35 | sort -V | tail -n 1)
assert_eq "$newest" "GLIBC_2.35" "newest glibc symbol version the probe needs (all: $(echo "$versions" | tr '\n' ' '))"
assert_eq "$(readelf -S "$probe" | grep -c '\.debug_info' || true)" 0 "DWARF in the copy sent to nodes"

# Nothing but the probe in its root: no libc, no loader, no /proc or /sys.
need_root
mkdir -p "$T/root"
cp "$probe" "$T/root/bringup-probe"
chroot "$T/root" /bringup-probe --root / >"$T/out.json" 2>"$T/err" || fail "the probe failed alone in a root: $(cat "$T/err")"
assert_eq "$(jq -r '.probe_version' "$T/out.json")" 1 "probe document from an empty root"
assert_eq "$(jq -c '[.pcie.status, .pcie.count]' "$T/out.json")" '["absent",0]' "no PCIe devices invented in an empty root"
