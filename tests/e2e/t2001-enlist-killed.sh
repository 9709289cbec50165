#!/bin/sh
# SIGKILL at 10 random points during an enlist of 64 nodes, each followed by
# a re-run: MAAS ends with one machine per node (one create per MAC), no
# machine deployed twice, the inventory's system_id is MAAS's, and every node
# ends where it must: deployed on the truth boot disk, or failed for
# commission_fail. Each trial gets a fresh simulated rack (a fresh MAAS).
# The kill points are events, not times: the K-th write MAAS logged (a create,
# commission, boot-disk or deploy call), K drawn over an undisturbed run's
# writes, so a loaded machine moves the moment but not where it falls.
. "$(dirname "$0")/lib.sh"
cd "$T"
N=64
# Under the sanitizers (the build/asan tree) a rack of 32, four batches of
# --max-inflight 8 still, for the memory checks: 64 instrumented BMCs
# discovered and enlisted five times were the suite's largest CPU cost.
case "$BIN" in */asan/*) N=32 ;; esac
FAULTS=nvme_order:4,commission_fail:2
ENLIST="bringup enlist --no-ssh-key --db t.db --skip-configure --poll-ms 50 --max-inflight 8 -q"

maas_get() { maas_req GET "$1"; }

# A fresh rack and a discovered inventory for it in $1.
fresh() {
	rm -rf "$1" && mkdir "$1" && cd "$1"
	bringup-sim --no-hosts --nodes $N --dir sim --seed 3 --faults $FAULTS --maas-latency-ms 10 \
		--maas-commission-ms 400 --maas-deploy-ms 400 --daemon >/dev/null
	at_exit "stop_sim $PWD/sim"
	set -a; . ./sim/env; set +a
	bringup import --db t.db --manifest sim/rack.csv >/dev/null
	bringup discover --db t.db -q
}

check() { # trial name
	maas_get machines/ > machines.json
	assert_eq "$(jq length machines.json)" $N "$1: machines in MAAS"
	dup=$(jq -r 'select(.method == "POST" and .path == "machines/" and .op == null and .status == 200) | .macs[]' \
		sim/maas-requests.log | sort | uniq -d | wc -l)
	assert_eq "$dup" 0 "$1: MACs created twice"
	twice=$(jq -r 'select(.op == "deploy" and .status == 200) | .system_id' sim/maas-requests.log | sort | uniq -d)
	assert_eq "$twice" "" "$1: machines deployed twice"
	sqlite3 -separator ' ' t.db "select hostname, state, maas_system_id from nodes order by hostname" > inv.txt
	bad=$(jq -r --slurpfile t sim/truth.json --rawfile inv inv.txt '
		($inv | split("\n") | map(select(. != "") | split(" ") | {(.[0]): {state: .[1], id: .[2]}}) | add) as $db
		| ($t[0].nodes | map({(.hostname): .}) | add) as $truth
		| .[] | . as $m | $truth[.hostname] as $tn
		| (if ($tn.faults | index("commission_fail")) then "failed" else "deployed" end) as $want
		| ([.blockdevice_set[] | select(any(.partitions[]; .filesystem.mount_point == "/")) | .serial][0]) as $root
		| select($db[$m.hostname].state != $want or $db[$m.hostname].id != $m.system_id
			or ($want == "deployed" and ($root != $tn.boot_disk_serial or $m.status_name != "Deployed")))
		| "\($m.hostname): inventory \($db[$m.hostname].state) \($db[$m.hostname].id), MAAS \($m.system_id) \($m.status_name) on \($root)"' \
		machines.json)
	assert_eq "$bad" "" "$1: nodes in the wrong final state"
}

# MAAS's log lines that change something, as the emulator wrote them.
writes() { grep -c '"method":"\(POST\|PUT\|DELETE\)"' "$1" 2>/dev/null || true; }

# An undisturbed run counts the writes the kills are spread over.
fresh "$T/base"
: > sim/maas-requests.log
$ENLIST 2>/dev/null || true
W=$(writes sim/maas-requests.log)
check undisturbed
stop_sim "$T/base/sim"
echo "undisturbed enlist of $N nodes: $W writes to MAAS"
[ "$W" -ge 3 ] || fail "an undisturbed enlist wrote $W times to MAAS"

# Under the sanitizers (the build/asan tree) four trials cover the memory
# checks; the ten random points are the plain tree's to show.
trials="1 2 3 4 5 6 7 8 9 10"
case "$BIN" in */asan/*) trials="1 2 3 4" ;; esac
for trial in $trials; do
	fresh "$T/k$trial"
	: > sim/maas-requests.log
	# After the K-th write, K over the first 90% of them: after the last
	# write the run still waits for the deployments, so every kill strikes
	# a live run.
	k=$(( 1 + $(od -An -N2 -tu2 /dev/urandom) % (W * 9 / 10) ))
	$ENLIST 2>/dev/null &
	pid=$!
	# A child that ended stays a zombie until waited for, so kill -0 alone
	# would wait forever: the wait is bounded (120 s) as well.
	polls=0
	while [ "$(writes sim/maas-requests.log)" -lt "$k" ] && [ $polls -lt 12000 ]; do
		sleep 0.01
		polls=$((polls + 1))
	done
	kill -KILL $pid 2>/dev/null || fail "trial $trial: enlist had ended before MAAS's write $k of $W"
	wait $pid 2>/dev/null || true
	at=$(writes sim/maas-requests.log)
	$ENLIST 2>/dev/null || true
	check "kill after write $k of $W"
	echo "trial $trial: killed after MAAS write $k of $W ($at logged), re-run converged"
	stop_sim "$T/k$trial/sim"
done
