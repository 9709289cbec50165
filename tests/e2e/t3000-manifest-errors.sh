#!/bin/sh
# Every class of manifest error is reported as FILE:LINE: field: message,
# all at once, with exit 2, and nothing reaches the inventory.
. "$(dirname "$0")/lib.sh"
cd "$T"
H=hostname,rack,unit,bmc,bmc_user,bmc_password,profile,bmc_type,boot_disk_serial,notes

cat > good.csv <<EOF2
$H
gpu-a,r01,1,10.0.0.1,root,env:PW,xe9680,,,
EOF2
bringup import --db inv.db --manifest good.csv >/dev/null

cat > bad.csv <<EOF2
$H
gpu-b,r01,2,10.0.0.2,root,env:PW,xe9680,,,
gpu-b,r01,3,10.0.0.3,root,env:PW,xe9680,,,
gpu-c,r01,4,10.0.0.2,root,env:PW,xe9680,,,
gpu-d,r01,5,10.0.0.300,root,env:PW,xe9680,,,
gpu-e,r01,,10.0.0.5,root,env:PW,xe9680,,,
gpu-f,r01,99,10.0.0.6,root,env:PW,xe9680,,,
gpu-g,r01,7,10.0.0.7,root,hunter2,xe9680,,,
gpu-h,r01,8,10.0.0.8,root,env:PW,nosuchprofile,,,
gpu-i,r01,2,10.0.0.9,root,env:PW,xe9680,,,
-bad-,r01,10,10.0.0.10:99999,root,env:PW,xe9680,bogus,,
gpu-k,r01,11,10.0.0.11,root,env:PW,xe9680,,
EOF2
rc=0; bringup import --db inv.db --manifest bad.csv >out 2>err || rc=$?
assert_eq "$rc" 2 "exit code for a bad manifest"
want() { grep -qxF "$1" err || fail "missing line '$1' in: $(cat err)"; }
want "bad.csv:3: hostname: duplicate 'gpu-b' (first on line 2)"
want "bad.csv:4: bmc: duplicate '10.0.0.2' (also gpu-b on line 2)"
want "bad.csv:5: bmc: '10.0.0.300' is not an address (host, IPv4, or [IPv6], with optional :port 1-65535)"
want "bad.csv:6: unit: missing"
want "bad.csv:7: unit: '99' is not a rack unit (a whole number 1-60)"
want "bad.csv:8: bmc_password: a literal password is refused: write env:VARIABLE or file:PATH so the secret stays out of the manifest, the inventory and the logs"
grep -q "^bad.csv:9: profile: unknown hardware profile 'nosuchprofile'" err || fail "unknown profile not reported"
want "bad.csv:10: unit: rack r01 unit 2 is already taken by gpu-b (line 2)"
want "bad.csv:11: hostname: '-bad-' is not a valid host name (letters, digits, '-', '.')"
want "bad.csv:11: bmc: '10.0.0.10:99999' is not an address (host, IPv4, or [IPv6], with optional :port 1-65535)"
want "bad.csv:11: bmc_type: 'bogus' is not one of redfish, ipmi, auto"
want "bad.csv:12: 9 fields, the header has 10"
grep -q "nothing imported" err || fail "no 'nothing imported' summary"
# The literal password never echoes back.
! grep -q hunter2 err || fail "the literal password was echoed"

# Nothing of the bad file reached the inventory; the earlier import is intact.
bringup status --db inv.db --json > st.json
assert_eq "$(jq -r '[.nodes[].hostname] | join(",")' st.json)" "gpu-a" "inventory after rejected import"

# Header problems: unknown column, missing required column, empty file.
printf 'hostname,rack,unit,bmc,bmc_user,bmc_password,colour\n' > hdr.csv
rc=0; bringup import --db inv.db --manifest hdr.csv 2>err || rc=$?
assert_eq "$rc" 2 "exit code for a bad header"
grep -q "^hdr.csv:1: colour: unknown column" err || fail "unknown column not reported: $(cat err)"
want "hdr.csv:1: profile: required column missing from the header"
: > empty.csv
rc=0; bringup import --db inv.db --manifest empty.csv 2>err || rc=$?
assert_eq "$rc" 2 "exit code for an empty manifest"
want "empty.csv:1: empty manifest: a header row is required"
printf '%s\n"gpu-z,r01,1\n' "$H" > quote.csv
rc=0; bringup import --db inv.db --manifest quote.csv 2>err || rc=$?
assert_eq "$rc" 2 "exit code for an unterminated quote"
grep -q "^quote.csv:2: malformed CSV" err || fail "unterminated quote not reported: $(cat err)"
rc=0; bringup import --db inv.db --manifest missing.csv 2>err || rc=$?
[ "$rc" -ne 0 ] || fail "a missing manifest was accepted"
assert_contains "$(cat err)" "missing.csv" "missing file named"
assert_eq "$(bringup status --db inv.db --json | jq '.nodes | length')" 1 "node count after all rejections"
