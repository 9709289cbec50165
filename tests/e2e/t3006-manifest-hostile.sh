#!/bin/sh
# Manifest details a careless editor or a hostile file brings: an embedded
# NUL is an error naming FILE:LINE:field (never a silently cut field); a
# UTF-8 byte order mark is accepted; renaming a host that keeps its BMC is
# a FILE:LINE error with exit 2, not a raw SQLite message with exit 3; and
# 100,000 rows (the row cap) import in minutes at worst (ASan, a loaded
# machine), not half an hour: rows grow in amortized
# constant time.
. "$(dirname "$0")/lib.sh"
cd "$T"
H=hostname,rack,unit,bmc,bmc_user,bmc_password,profile,bmc_type,boot_disk_serial,notes

# ---- an embedded NUL ---------------------------------------------------------
{ echo "$H"; printf 'gpu-a,r01,1,10.0.0.1,root,env:PW,xe9680,,,\n'; printf 'gpu-b,r01,2,10.0.0.2,root,env:PW,xe9680,,S6\000X,\n'; } > nul.csv
rc=0; bringup import --db inv.db --manifest nul.csv >out 2>err || rc=$?
assert_eq "$rc" 2 "exit code for a NUL in a field"
grep -qF "nul.csv:3: boot_disk_serial: contains a NUL byte" err || fail "NUL not reported: $(cat err)"
[ ! -f inv.db ] || assert_eq "$(sqlite3 inv.db 'select count(*) from nodes')" 0 "nothing imported"

# ---- a byte order mark --------------------------------------------------------
{ printf '\357\273\277'; echo "$H"; echo "gpu-a,r01,1,10.0.0.1,root,env:PW,xe9680,,,"; } > bom.csv
bringup import --db inv.db --manifest bom.csv > out 2> err || fail "BOM refused: $(cat err)"
assert_eq "$(sqlite3 inv.db "select hostname from nodes")" gpu-a "imported with a BOM"

# ---- a renamed host that keeps its BMC ---------------------------------------
{ echo "$H"; echo "gpu-z,r01,1,10.0.0.1,root,env:PW,xe9680,,,"; } > renamed.csv
rc=0; bringup import --db inv.db --manifest renamed.csv > out 2> err || rc=$?
assert_eq "$rc" 2 "exit code for a renamed host"
grep -qF "renamed.csv:2: bmc: 10.0.0.1 belongs to gpu-a in the inventory" err || fail "no FILE:LINE: $(cat err)"
! grep -qi "constraint\|sqlite" err || fail "raw SQLite message: $(cat err)"
assert_eq "$(sqlite3 inv.db "select group_concat(hostname) from nodes")" gpu-a "nothing changed"
# Moving a BMC to a host that exists, while its old owner keeps it: the same.
{ echo "$H"; echo "gpu-a,r01,1,10.0.0.1,root,env:PW,xe9680,,,"; echo "gpu-b,r01,2,10.0.0.2,root,env:PW,xe9680,,,"; } > two.csv
bringup import --db inv.db --manifest two.csv >/dev/null
{ echo "$H"; echo "gpu-b,r01,2,10.0.0.1,root,env:PW,xe9680,,,"; } > moved.csv
rc=0; bringup import --db inv.db --manifest moved.csv > out 2> err || rc=$?
assert_eq "$rc" 2 "exit code for a BMC another node holds"
grep -qF "moved.csv:2: bmc: 10.0.0.1 belongs to gpu-a in the inventory" err || fail "no FILE:LINE: $(cat err)"

# ---- 100,000 rows --------------------------------------------------------------
awk -v h="$H" 'BEGIN { print h; for (i = 0; i < 100000; i++)
	printf "gpu-%06d,r%04d,%d,10.%d.%d.%d,root,env:PW,xe9680,,,\n", i, int(i / 60), i % 60 + 1,
		int(i / 65536), int(i / 256) % 256, i % 256 }' > big.csv
start=$(date +%s)
bringup import --db big.db --manifest big.csv > out 2> err || fail "100,000 rows: $(head -3 err)"
took=$(($(date +%s) - start))
assert_eq "$(sqlite3 big.db 'select count(*) from nodes')" 100000 "rows imported"
echo "100,000 rows imported in ${took}s"
[ "$took" -le 300 ] || fail "100,000 rows took ${took}s"
# The same file again: every row compared, nothing written.
start=$(date +%s)
bringup import --db big.db --manifest big.csv > out 2> err || fail "re-import: $(head -3 err)"
assert_contains "$(cat out)" "0 added, 0 updated, 100000 unchanged" "re-import"
[ "$(($(date +%s) - start))" -le 300 ] || fail "re-importing 100,000 rows took $(($(date +%s) - start))s"
exit 0
