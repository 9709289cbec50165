#!/bin/sh
# A discovery worker that dies (SIGKILL) mid-run fails exactly the nodes it
# had not reported, with a reason naming the signal; the other workers'
# nodes end on their own terms, the run finishes, the inventory is intact.
# Every BMC hangs on Thermal, so each worker is still waiting when it is
# killed (and the others' nodes are discovered once it times out).
. "$(dirname "$0")/lib.sh"
cd "$T"
bringup sim --no-hosts --nodes 16 --seed 3 --faults hang:16 --dir rack --daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
bringup import --db inv.db --manifest rack/rack.csv >/dev/null

bringup discover --db inv.db --workers 3 --timeout 6 --retries 0 --json > out.json 2>err.txt &
pid=$!
# Wait until all three workers are up and every BMC is being read: logged
# in (the simulator's log), so no worker can report a node before its
# Thermal times out. An event, not a time: a loaded machine only delays it.
i=0
while [ "$(pgrep -c -P $pid)" -lt 3 ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
i=0
while [ "$(grep -c '"session":"created"' rack/requests.log)" -lt 16 ] && [ $i -lt 300 ]; do sleep 0.05; i=$((i + 1)); done
assert_eq "$(grep -c '"session":"created"' rack/requests.log)" 16 "every BMC logged in before the kill"
victim=$(pgrep -P $pid | sort -n | sed -n 2p)
[ -n "$victim" ] || fail "no worker process to kill"
kill -KILL "$victim"
rc=0; wait $pid || rc=$?
assert_eq "$rc" 1 "discover exit code with failed nodes"

killed=$(bringup status --db inv.db --json | jq '[.nodes[] | select(.reason // "" | contains("discovery worker exited with status 137 (signal 9)"))] | length')
[ "$killed" -ge 5 ] && [ "$killed" -le 6 ] || fail "nodes failed by the killed worker: $killed, want its slice (5 or 6)"
# The other workers' nodes end on their own terms: a Thermal that never
# answers is listed as unreadable, not a reason to fail (issue 23).
discovered=$(bringup status --db inv.db --json | jq '[.nodes[] | select(.state == "discovered")] | length')
assert_eq "$((killed + discovered))" 16 "every other node discovered past its hung Thermal"
assert_eq "$(jq '.failed' out.json)" "$killed" "--json failed count"
assert_eq "$(inv_sql inv.db 'pragma integrity_check')" ok "inventory integrity"
assert_eq "$(nodes_in inv.db failed)" "$killed" "failed nodes stored"

