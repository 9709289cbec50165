#!/bin/sh
# A BMC password reference the operator has not made good (an env:VAR not
# set, a file:PATH that cannot be read) stops discover and configure before
# any node is touched: exit 2, each distinct reference listed once with how
# many nodes name it, no state changed, no event, no ticket. (Each node used
# to fail on its own, one "credentials" failure after another.)
. "$(dirname "$0")/lib.sh"
cd "$T"

bringup-sim --no-hosts --nodes 4 --dir sim --seed 5 --daemon >/dev/null
at_exit "stop_sim $T/sim"
set -a; . ./sim/env; set +a
# Two nodes read the password from a file instead; it is not there yet.
awk -F, -v OFS=, 'NR == 2 || NR == 3 { $6 = "file:'"$T"'/bmc-pass" } { print }' sim/rack.csv > rack.csv
bringup import --db t.db --manifest rack.csv >/dev/null

before=$(inventory_state t.db)

rc=0
env -u BRINGUP_BMC_PASSWORD bringup discover --db t.db > out 2> err || rc=$?
assert_eq "$rc" 2 "discover with neither reference good"
assert_contains "$(cat err)" "env:BRINGUP_BMC_PASSWORD (2 nodes): credential env:BRINGUP_BMC_PASSWORD: environment variable BRINGUP_BMC_PASSWORD is not set" \
	"the unset variable, once"
assert_contains "$(cat err)" "file:$T/bmc-pass (2 nodes)" "the missing file, once"
assert_contains "$(cat err)" "no node was touched" "what happened"
assert_eq "$(grep -c 'env:BRINGUP_BMC_PASSWORD' err)" 1 "each reference listed once"
assert_eq "$(inventory_state t.db)" "$before" "inventory after the refused discover"

# Only the nodes selected count: the two with the file, named, and the
# variable unset, are refused for the file alone.
h2=$(awk -F, 'NR == 2 { print $1 }' rack.csv)
rc=0
env -u BRINGUP_BMC_PASSWORD bringup discover --db t.db "$h2" > out 2> err || rc=$?
assert_eq "$rc" 2 "discover of a node with the file missing"
! grep -q "env:BRINGUP_BMC_PASSWORD" err || fail "a reference no selected node names was listed"
assert_eq "$(inventory_state t.db)" "$before" "inventory after the refused discover of one node"

# Made good: discover runs, every node discovered.
echo "$BRINGUP_BMC_PASSWORD" > bmc-pass
bringup discover --db t.db -q
assert_eq "$(sqlite3 t.db "select count(*) from nodes where state = 'discovered'")" 4 "discovered once the references resolve"

# configure: the same check, before any BMC is written.
chmod 000 bmc-pass
if [ "$(id -u)" -eq 0 ]; then rm bmc-pass; fi
before=$(inventory_state t.db)
rc=0
env -u BRINGUP_BMC_PASSWORD bringup configure --db t.db > out 2> err || rc=$?
assert_eq "$rc" 2 "configure with neither reference good"
assert_contains "$(cat err)" "env:BRINGUP_BMC_PASSWORD (2 nodes)" "configure: the unset variable"
assert_contains "$(cat err)" "file:$T/bmc-pass (2 nodes)" "configure: the unreadable file"
assert_eq "$(inventory_state t.db)" "$before" "inventory after the refused configure"
! grep -q '"PATCH"\|"POST"' sim/bmc-requests.log 2>/dev/null || fail "a BMC was written to"
echo "unset env: and unreadable file: references: exit 2 before any node, each listed once"
