#!/bin/sh
# A collection of just under 8 MiB of empty members ({"Members":[{},{},...]},
# 2.8 million of them) is refused by counting before parsing: the node
# fails with the member cap as its reason, its neighbour is discovered,
# and the process stays small (parsing it first took 654 MB).
. "$(dirname "$0")/lib.sh"
cd "$T"
bringup sim --no-hosts --nodes 2 --seed 10 --faults members_flood:1 --dir rack --daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
bringup import --db inv.db --manifest rack/rack.csv >/dev/null
flood=$(jq -r '.nodes[] | select(.faults | index("members_flood")) | .hostname' rack/truth.json)

rc=0; /usr/bin/time -v -o time.txt "$BIN/bringup-discover" --db inv.db --workers 1 --json > out.json 2> err.txt || rc=$?
assert_eq "$rc" 1 "discover exit code with the flooded node failed"
reason=$(bringup status --db inv.db --json | jq -r --arg h "$flood" '.nodes[] | select(.hostname == $h) | .reason')
assert_contains "$reason" "collection has more than 4096 members" "the flooded node's reason"
assert_eq "$(bringup status --db inv.db --json | jq '[.nodes[] | select(.state == "discovered")] | length')" 1 \
	"the other node discovered"
assert_eq "$(jq -s '[.[] | select(.fault == "members_flood")] | length' rack/requests.log)" 1 "the flood was served"
rss_kib=$(sed -n 's/^[[:space:]]*Maximum resident set size (kbytes): //p' time.txt)
# the 8 MiB body itself, curl's copy and the rest of a discover: well under 100 MiB
[ "$rss_kib" -lt 102400 ] || fail "peak RSS ${rss_kib} KiB"
echo "peak RSS ${rss_kib} KiB"
