#!/bin/sh
# enlist --workers 3: forked workers, each with its own MAAS client and a
# slice of the machines, storing through their own inventory connections.
# One worker is killed (SIGKILL) while its machines commission: exactly its
# slice fails with a reason naming the signal, the other machines end on
# their own terms (deployed, or failed with MAAS's words), the --json
# summary carries what the workers learned (system_id, address, the disk
# the OS went on); a second run resumes the killed slice and deploys it
# with no machine created twice.
. "$(dirname "$0")/lib.sh"
cd "$T"

bringup-sim --no-hosts --nodes 18 --dir sim --seed 7 --faults nvme_order:2,commission_fail:1 \
	--maas-commission-ms 2500 --maas-deploy-ms 300 --daemon >/dev/null
at_exit "stop_sim $T/sim"
set -a; . ./sim/env; set +a
bringup import --db t.db --manifest sim/rack.csv >/dev/null
bringup discover --db t.db -q

bringup-enlist --no-ssh-key --db t.db --skip-configure --poll-ms 50 --workers 3 -v --json > run1.json 2> run1.err &
pid=$!
i=0
while [ "$(pgrep -c -P $pid)" -lt 3 ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
# Every machine created (which starts its commissioning: 2.5 s) before the kill.
i=0
while [ "$(jq -s '[.[] | select(.op == null and .method == "POST" and .path == "machines/")] | length' \
	sim/maas-requests.log)" -lt 18 ] && [ $i -lt 100 ]; do
	sleep 0.1; i=$((i + 1))
done
victim=$(pgrep -P $pid | sort -n | sed -n 2p)
[ -n "$victim" ] || fail "no worker process to kill"
kill -KILL "$victim"
# When, on MAAS's own clock, the kill fell: a request made right after it.
maas_req GET version/ >/dev/null || true
rc=0; wait $pid || rc=$?
assert_eq "$rc" 1 "enlist exit code with failed nodes"
grep -q "18 machines over 3 worker processes" run1.err || fail "--workers 3 did not fork workers"

bringup status --db t.db --json > s1.json
killed=$(jq '[.nodes[] | select(.reason // "" | contains("enlist worker exited with status 137 (signal 9)"))] | length' s1.json)
# The whole slice was still in flight when no machine could have finished
# commissioning yet (the kill, on MAAS's clock, within 2.5 s of the first
# create): then exactly its 6 machines fail. A loaded machine can put the
# kill later; then the slice's machines that had finished keep their end,
# and only the rest fail (decided by events in MAAS's log, not by a timer).
first=$(jq -s '[.[] | select(.op == null and .method == "POST" and .path == "machines/") | .at_ms] | min' sim/maas-requests.log)
at_kill=$(jq -s '[.[] | select(.path == "version/") | .at_ms] | max' sim/maas-requests.log)
if [ "$at_kill" -lt $((first + 2500)) ]; then
	assert_eq "$killed" 6 "nodes failed by the killed worker (its slice)"
else
	echo "the kill fell $((at_kill - first)) ms after the first create: some of the slice had finished"
	[ "$killed" -ge 1 ] && [ "$killed" -le 6 ] || fail "nodes failed by the killed worker: $killed, not 1-6"
fi
cf=$(jq -r '.nodes[] | select(.faults | index("commission_fail")) | .hostname' sim/truth.json)
cf_state=$(jq -r --arg h "$cf" '.nodes[] | select(.hostname == $h) | .state' s1.json)
assert_eq "$cf_state" failed "commission_fail node state"
deployed=$(jq '[.nodes[] | select(.state == "deployed")] | length' s1.json)
others=$(jq --arg h "$cf" '[.nodes[] | select(.hostname != $h and .state == "failed" and (.reason // "" | contains("worker") | not))] | length' s1.json)
assert_eq "$others" 0 "nodes failed for no reason of their own"
assert_eq "$(jq .deployed run1.json)" "$deployed" "--json deployed count"
assert_eq "$(jq .failed run1.json)" "$((18 - deployed))" "--json failed count"
# What the workers learned reached the parent's summary.
bad=$(jq -r --slurpfile t sim/truth.json '
	($t[0].nodes | map({(.hostname): .boot_disk_serial}) | add) as $want
	| .nodes[] | select(.result == "deployed")
	| select(.system_id == null or (.ip // "") == "" or .installed_serial != $want[.hostname]) | .hostname' run1.json)
assert_eq "$bad" "" "deployed nodes without system_id, address or the truth's boot disk in --json"
assert_eq "$(inv_sql t.db 'pragma integrity_check')" ok "inventory integrity"

# The second run resumes the killed slice: every node but the
# commission_fail one deployed, each machine created once.
rc=0
bringup-enlist --no-ssh-key --db t.db --skip-configure --poll-ms 50 --workers 3 --json > run2.json 2> run2.err || rc=$?
assert_eq "$rc" 1 "second run exit (the commission_fail node stays failed)"
assert_eq "$(nodes_in t.db deployed)" 17 "deployed after the second run"
assert_eq "$(jq -r 'select(.op == null and .method == "POST" and .path == "machines/") | .hostname' sim/maas-requests.log | sort | uniq -d)" \
	"" "machines created twice"
assert_eq "$(jq -r 'select(.op == "deploy") | .system_id' sim/maas-requests.log | sort | uniq -d)" "" "machines deployed twice"
