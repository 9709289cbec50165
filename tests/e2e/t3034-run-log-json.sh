#!/bin/sh
# bringup run --log-format json: the option reaches every stage, and every
# line they log is one JSON object; each stage that works on nodes
# (discover, configure, enlist, validate, gate) logs each node with its
# hostname and its BMC's address as fields, the BMC the truth's.
. "$(dirname "$0")/lib.sh"
cd "$T"
bringup sim --nodes 3 --seed 7 --dir rack --faults pcie_degraded --maas-commission-ms 100 --maas-deploy-ms 100 \
	--daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
export BRINGUP_DB=$T/inv.db BRINGUP_SSH_PUBKEY=$BRINGUP_SSH_KEY.pub
truth=rack/truth.json
bringup import --manifest rack/rack.csv >/dev/null
rc=0; bringup run -v --log-format json > out.txt 2> log.json || rc=$?
assert_eq "$rc" 1 "run exit with a quarantined node"
[ -s log.json ] || fail "nothing logged"
bad=$(grep -v '^{' log.json | head -2 || true)
[ -z "$bad" ] || fail "log lines that are not JSON: $bad"
jq -e . log.json > /dev/null || fail "a log line is not JSON"
for st in discover configure enlist validate gate; do
	for h in $(jq -r '.nodes[].hostname' $truth); do
		assert_eq "$(jq -r --arg s $st --arg h "$h" 'select(.stage == $s and .node == $h) | .bmc' log.json | sort -u)" \
			"$(jq -r --arg h "$h" '.nodes[] | select(.hostname == $h) | .bmc' $truth)" "$st: $h's BMC field"
	done
done
assert_contains "$(cat out.txt)" "== bringup run: 3 nodes" "the summary on stdout, as text"
