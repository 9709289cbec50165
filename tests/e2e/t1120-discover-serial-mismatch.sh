#!/bin/sh
# The manifest's serial column, cross-checked at discover: two rows
# carrying each other's serial (serial_mismatch, as a swapped management
# cable shows it) fail both nodes, kind serial_mismatch, each reason naming
# the BMC's serial and the manifest's, with what the BMC reported stored;
# the other nodes discover; a node whose BMC never answered (bmc_down) gets
# the manifest's serial on its ticket. A manifest serial compares in any
# case; a bad one is refused at import (FILE:LINE: serial: ..., exit 2).
. "$(dirname "$0")/lib.sh"
cd "$T"
bringup sim --no-hosts --nodes 4 --seed 3 --faults serial_mismatch,bmc_down --dir rack --daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
export BRINGUP_DB=$T/inv.db
truth=rack/truth.json
truth_of() { jq -r --arg h "$1" ".nodes[] | select(.hostname == \$h) | $2" $truth; }
st() { jq -r --arg h "$1" ".nodes[] | select(.hostname == \$h) | $2" st.json; }

# rack.csv carries every node's serial, last, and the swapped rows each
# other's.
assert_eq "$(head -n 1 rack/rack.csv | awk -F, '{ print $NF }')" serial "rack.csv's last column"
mism=$(jq -r '.nodes[] | select(.faults | index("serial_mismatch")) | .hostname' $truth)
down=$(jq -r '.nodes[] | select(.faults | index("bmc_down")) | .hostname' $truth)
clean=$(jq -r '.nodes[] | select(.faults == []) | .hostname' $truth)
assert_eq "$(echo "$mism" | wc -l)" 2 "serial_mismatch takes two nodes"
set -- $mism
a=$1 b=$2
col() { awk -F, -v h="$1" '$1 == h { print $NF }' rack/rack.csv; }
assert_eq "$(col "$a")" "$(truth_of "$b" .system_serial)" "$a's row has $b's serial"
assert_eq "$(col "$b")" "$(truth_of "$a" .system_serial)" "$b's row has $a's serial"
assert_eq "$(truth_of "$a" '.fault_details.serial_mismatch.manifest_serial')" "$(col "$a")" "truth.json names the manifest's serial"
for h in $down $clean; do
	assert_eq "$(col "$h")" "$(truth_of "$h" .system_serial)" "$h's row has its own serial"
done

bringup import --manifest rack/rack.csv >/dev/null
bringup status --json > st.json
for h in $a $b $down $clean; do
	assert_eq "$(st "$h" .expected_serial)" "$(col "$h")" "status --json expected_serial of $h"
done

rc=0
bringup discover --json --timeout 2 --retries 0 > disc.json 2>err || rc=$?
assert_eq "$rc" 1 "discover exit code with failed nodes"
bringup status --json > st.json
for h in $a $b; do
	assert_eq "$(st "$h" .state)" failed "$h state"
	assert_eq "$(st "$h" .failure_kind)" serial_mismatch "$h failure kind"
	reason=$(st "$h" .reason)
	assert_contains "$reason" "the BMC at $(truth_of "$h" .bmc) reports serial $(truth_of "$h" .system_serial)" "$h reason names the BMC's serial"
	assert_contains "$reason" "(service tag $(truth_of "$h" .service_tag))" "$h reason names the service tag"
	assert_contains "$reason" "the manifest expects $(col "$h")" "$h reason names the manifest's serial"
	assert_eq "$(jq -r --arg h "$h" '.nodes[] | select(.hostname == $h) | .reason' disc.json)" "$reason" \
		"discover --json gives the same reason for $h"
	# What the BMC reported is kept as evidence.
	assert_eq "$(st "$h" .system_serial)" "$(truth_of "$h" .system_serial)" "$h's BMC facts stored"
	assert_eq "$(st "$h" '.macs | length')" "$(truth_of "$h" '.macs | length')" "$h's MACs stored"
done
assert_eq "$(st "$down" .state)" failed "bmc_down node state"
assert_eq "$(st "$down" .failure_kind)" bmc_unreachable "bmc_down failure kind"
assert_eq "$(st "$clean" .state)" discovered "clean node state"

# Tickets: the bmc_down node by the manifest's serial; the mismatched ones
# by what their BMC reports, with the action for a swapped cable.
bringup tickets --json > t.json
tk() { jq -r --arg h "$1" ".tickets[] | select(.hostname == \$h) | $2" t.json; }
assert_eq "$(tk "$down" .serial)" "$(col "$down")" "bmc_down ticket has the manifest's serial"
for h in $a $b; do
	assert_eq "$(tk "$h" .fault)" serial_mismatch "$h ticket fault"
	assert_eq "$(tk "$h" .serial)" "$(truth_of "$h" .system_serial)" "$h ticket has the BMC's serial"
	assert_contains "$(tk "$h" .action)" "management cable" "$h ticket action"
done
bringup tickets --format csv > t.csv
assert_contains "$(grep "^\"$down\"," t.csv)" ",\"$(col "$down")\"," \
	"CSV ticket of the bmc_down node carries the manifest's serial"

# The manifest fixed, the serial in lower case: a re-import updates the
# rows and the next discover takes them.
awk -F, -v OFS=, -v a="$a" -v b="$b" -v sa="$(truth_of "$a" .system_serial | tr A-Z a-z)" \
	-v sb="$(truth_of "$b" .system_serial | tr A-Z a-z)" \
	'$1 == a { $NF = sa } $1 == b { $NF = sb } { print }' rack/rack.csv > fixed.csv
bringup import --json --manifest fixed.csv > imp.json
assert_eq "$(jq -r .updated imp.json)" 2 "re-import updates the two rows"
assert_contains "$(sqlite3 inv.db "select e.reason from events e join nodes n on n.id = e.node_id where n.hostname = '$a' order by e.id desc limit 1")" \
	"serial $(col "$a") -> $(truth_of "$a" .system_serial | tr A-Z a-z)" "the change event names the serial"
bringup discover --json --timeout 2 --retries 0 > disc2.json 2>err2 || true
bringup status --json > st.json
for h in $a $b; do
	assert_eq "$(st "$h" .state)" discovered "$h after the manifest is fixed"
done

# A serial no BMC could report is refused at import, naming the line.
awk -F, -v OFS=, 'NR == 3 { $NF = "\"AB,12\"" } NR == 4 { $NF = "tag with spaces" } { print }' rack/rack.csv > bad.csv
rc=0
bringup import --manifest bad.csv > out 2> err3 || rc=$?
assert_eq "$rc" 2 "import exit code for a bad serial"
assert_contains "$(cat err3)" "bad.csv:3: serial: 'AB,12' is not a serial or service tag" "comma in a serial"
assert_contains "$(cat err3)" "bad.csv:4: serial: 'tag with spaces' is not a serial" "spaces in a serial"
