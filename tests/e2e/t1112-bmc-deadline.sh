#!/bin/sh
# A tarpit BMC (every answer 1.5-3.5 s late, each inside the request timeout)
# would hold discovery for a minute here and for hours on a real walk; the
# per-BMC deadline fails it with "deadline of N s passed" while the good
# BMCs beside it end as they would alone. The deadline comes from
# --bmc-deadline, else from the profile's [time_limits] discover.
# test: alone (its run time is the assertion; 4 s of margin)
. "$(dirname "$0")/lib.sh"
cd "$T"
bringup sim --no-hosts --nodes 4 --seed 8 --faults tarpit:1 --dir rack --daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
tarpit=$(jq -r '.nodes[] | select(.faults | index("tarpit")) | .hostname' rack/truth.json)

reason() { bringup status --db inv.db --json | jq -r --arg h "$1" '.nodes[] | select(.hostname == $h) | .reason'; }
state_count() { bringup status --db inv.db --json | jq --arg s "$1" '[.nodes[] | select(.state == $s)] | length'; }

bringup import --db inv.db --manifest rack/rack.csv >/dev/null
start=$(date +%s)
rc=0; bringup discover --db inv.db --bmc-deadline 3 --json > out.json 2> err.txt || rc=$?
took=$(( $(date +%s) - start ))
assert_eq "$rc" 1 "discover exit code with the tarpit node failed"
[ "$took" -le 12 ] || fail "discover took ${took}s with a 3 s deadline (+5 s logout grace)"
assert_contains "$(reason "$tarpit")" "deadline of 3 s passed" "the tarpit node's reason"
# typed where it was seen: a BMC too slow to finish, not one that never answered
assert_eq "$(bringup status --db inv.db --json | jq -r --arg h "$tarpit" '.nodes[] | select(.hostname == $h) | .failure_kind')" \
	bmc_deadline "the tarpit node's failure kind"
assert_eq "$(bringup tickets --db inv.db --json | jq -r --arg h "$tarpit" '.tickets[] | select(.hostname == $h) | .fault')" \
	bmc_deadline "the tarpit node's ticket"
assert_eq "$(state_count discovered)" 3 "the good nodes discovered"
assert_eq "$(state_count failed)" 1 "only the tarpit node failed"
# It logged out (late answers and all) or gave up within the grace: no
# other request went to it after its deadline's grace.
[ "$(jq -s --arg n "$tarpit" '[.[] | select(.node == $n)] | length' rack/requests.log)" -lt 20 ] ||
	fail "requests to the tarpit after its deadline"

# The profile's [time_limits] discover is the default.
mkdir tpl
cp -r "$BR_TOP/templates/." tpl/
sed -i 's/^discover = .*/discover = 2s/' tpl/profiles/xe9680/hardware.conf
rm -f inv.db
bringup import --db inv.db --manifest rack/rack.csv >/dev/null
rc=0; BRINGUP_TEMPLATES=$T/tpl bringup discover --db inv.db --json > out.json 2> err.txt || rc=$?
assert_eq "$rc" 1 "discover exit code (profile deadline)"
assert_contains "$(reason "$tarpit")" "deadline of 2 s passed" "the profile's deadline"
assert_eq "$(state_count discovered)" 3 "the good nodes discovered (profile deadline)"
