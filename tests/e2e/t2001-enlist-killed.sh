#!/bin/sh
# SIGKILL at 10 random points during an enlist of 64 nodes, each followed by
# a re-run: MAAS ends with one machine per node (one create per MAC), no
# machine deployed twice, the inventory's system_id is MAAS's, and every node
# ends where it must: deployed on the truth boot disk, or failed for
# commission_fail. Each trial gets a fresh simulated rack (a fresh MAAS).
# test: alone (the kill points are times measured on an undisturbed run)
. "$BR_TOP/tests/e2e/lib.sh"
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
	inv_sql t.db "select hostname, state, maas_system_id from nodes order by hostname" | tr '|' ' ' > inv.txt
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

# An undisturbed run sets the span the kills are spread over.
fresh "$T/base"
start=$(date +%s%N)
$ENLIST 2>/dev/null || true
ms=$(( ($(date +%s%N) - start) / 1000000 ))
check undisturbed
stop_sim "$T/base/sim"
echo "undisturbed enlist of $N nodes: ${ms} ms"

# Under the sanitizers (the build/asan tree) four trials cover the memory
# checks; the ten random points are the plain tree's to show.
trials="1 2 3 4 5 6 7 8 9 10"
case "$BIN" in */asan/*) trials="1 2 3 4" ;; esac
n_trials=$(echo $trials | wc -w)
killed=0
for trial in $trials; do
	fresh "$T/k$trial"
	# Random points, spread over the whole run (3%..97%).
	pct=$(( 3 + $(od -An -N2 -tu2 /dev/urandom) % 95 ))
	delay=$(( ms * pct / 100 ))
	$ENLIST 2>/dev/null &
	pid=$!
	sleep "$(printf '%d.%03d' $((delay / 1000)) $((delay % 1000)))"
	if kill -KILL $pid 2>/dev/null; then killed=$((killed + 1)); fi
	wait $pid 2>/dev/null || true
	$ENLIST 2>/dev/null || true
	check "kill at ${pct}% (${delay} ms)"
	echo "trial $trial: killed at ${pct}% (${delay} ms), re-run converged"
	stop_sim "$T/k$trial/sim"
done
[ $killed -ge $((n_trials * 8 / 10)) ] || fail "only $killed of $n_trials runs were still running when killed"
