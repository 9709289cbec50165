#!/bin/sh
# Zones (issue 25): the manifest's zone column names the management
# network or hall of each BMC; a stage given --zone (or $BRINGUP_ZONE, or
# bringup.conf's [inventory] zone) takes only that zone's nodes and sends
# no request to another zone's BMCs; naming a node of another zone, or a
# zone name no manifest could hold, stops the stage (exit 2) before any
# node is touched; status shows each node's zone and filters by it.
. "$(dirname "$0")/lib.sh"
cd "$T"
bringup sim --no-hosts --nodes 6 --seed 12 --dir rack --daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
# The first three rows in hall-a, the others in hall-b.
awk -F, -v OFS=, 'NR == 1 { print $0, "zone"; next } { print $0, (NR <= 4 ? "hall-a" : "hall-b") }' \
	rack/rack.csv > zoned.csv
DB=$(db_for inv)
hosts_in() { bringup status --db "$DB" --json | jq -r --arg s "$1" '[.nodes[] | select(.state == $s) | .hostname] | sort | join(" ")'; }
bringup import --db "$DB" --manifest zoned.csv >/dev/null
a_hosts=$(awk -F, 'NR > 1 && NR <= 4 { print $1 }' zoned.csv | sort | paste -sd' ' -)
b_hosts=$(awk -F, 'NR > 4 { print $1 }' zoned.csv | sort | paste -sd' ' -)
b_bmcs=$(awk -F, 'NR > 4 { print $4 }' zoned.csv | sort | paste -sd' ' -)
b1=${b_hosts%% *}
zones=$(bringup status --db "$DB" --json | jq -r '[.nodes[] | "\(.hostname)=\(.zone)"] | sort | join(" ")')
assert_contains "$zones" "$b1=hall-b" "status --json shows the zone"
assert_eq "$(bringup status --db "$DB" --zone hall-a --json | jq -r '[.nodes[].hostname] | sort | join(" ")')" \
	"$a_hosts" "status --zone: that zone's nodes only"
assert_contains "$(bringup status --db "$DB" -o hostname,zone)" "hall-b" "status -o zone"
# Several zones, comma-separated (a controller standing by for a
# neighbour hall): the nodes of each.
assert_eq "$(bringup status --db "$DB" --zone hall-b,hall-a --json | jq -r '[.nodes[].hostname] | sort | join(" ")')" \
	"$(printf '%s %s' "$a_hosts" "$b_hosts" | tr ' ' '\n' | sort | paste -sd' ' -)" "status --zone hall-b,hall-a: both zones' nodes"
assert_eq "$(bringup status --db "$DB" --zone hall-b,hall-c --json | jq -r '[.nodes[].hostname] | sort | join(" ")')" \
	"$b_hosts" "status --zone hall-b,hall-c: hall-b's nodes"

# An operator's slips: a node of another zone named, a zone no manifest
# could hold. Nothing is touched: no node moves, no BMC is asked.
before=$(inventory_state "$DB")
rc=0
bringup discover --db "$DB" --zone hall-a "$b1" 2>err || rc=$?
assert_eq "$rc" 2 "a node of another zone named"
assert_contains "$(cat err)" "$b1 is in zone hall-b, not in zone hall-a" "the message names both zones"
rc=0
bringup discover --db "$DB" --zone 'hall a' 2>err || rc=$?
assert_eq "$rc" 2 "a zone name with a blank"
assert_contains "$(cat err)" "--zone: 'hall a' is not a zone name" "the message names the option"
rc=0
bringup discover --db "$DB" --zone 'hall-a,' 2>err || rc=$?
assert_eq "$rc" 2 "a zone list with an empty name"
assert_contains "$(cat err)" "--zone: 'hall-a,' is not a zone name (at most 64 letters, digits, '.', '_', '-'), nor up to 16 of them separated by commas" \
	"the message says what a list may hold"
rc=0
bringup discover --db "$DB" --zone hall-a,hall-c "$b1" 2>err || rc=$?
assert_eq "$rc" 2 "a node of a zone not in the list named"
assert_contains "$(cat err)" "$b1 is in zone hall-b, not in zones hall-a,hall-c" "the message names the zones"
assert_eq "$(inventory_state "$DB")" "$before" "nothing changed"
assert_eq "$(wc -l < rack/requests.log)" 0 "no BMC was asked"

# discover --zone hall-a: hall-a's nodes discovered, hall-b's untouched
# and their BMCs never asked.
bringup discover --db "$DB" --zone hall-a --json > d.json
assert_eq "$(jq -r '[.nodes[].hostname] | sort | join(" ")' d.json)" "$a_hosts" "discover's nodes"
assert_eq "$(hosts_in discovered)" "$a_hosts" "hall-a discovered"
assert_eq "$(hosts_in new)" "$b_hosts" "hall-b still new"
asked=$(jq -r '.bmc' rack/requests.log | sort -u | paste -sd' ' -)
for b in $b_bmcs; do
	case " $asked " in *" $b "*) fail "hall-b's BMC $b was asked by discover --zone hall-a" ;; esac
done
# $BRINGUP_ZONE is the default.
BRINGUP_ZONE=hall-b bringup discover --db "$DB" >/dev/null
assert_eq "$(hosts_in discovered)" "$(printf '%s %s' "$a_hosts" "$b_hosts" | tr ' ' '\n' | sort | paste -sd' ' -)" \
	"BRINGUP_ZONE=hall-b discovered the rest"

# A node moved to another zone: the import records the change.
sed "s/^\($b1,.*\),hall-b\$/\1,hall-a/" zoned.csv > moved.csv
bringup import --db "$DB" --manifest moved.csv >/dev/null
assert_contains "$(bringup history --db "$DB" "$b1")" "zone hall-b -> hall-a" "the move is in the history"
assert_eq "$(node_field "$DB" "$b1" zone)" hall-a "the node's zone"

# A zone in the manifest that is not a name: FILE:LINE: zone.
sed '3s/hall-a$/hall a/' zoned.csv > bad.csv
rc=0
bringup import --db "$DB" --manifest bad.csv 2>err || rc=$?
assert_eq "$rc" 2 "a bad zone in the manifest"
assert_contains "$(cat err)" "bad.csv:3: zone: 'hall a' is not a zone name" "FILE:LINE: zone"
