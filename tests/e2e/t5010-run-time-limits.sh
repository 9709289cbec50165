#!/bin/sh
# The profile's [time_limits] per node: a node stuck past its commissioning,
# deployment or validation limit is failed naming the stage, and `bringup
# run` names it in its summary. The emulator commissions and deploys slower
# than the limits; one node's SSH port is a listener that never answers.
. "$(dirname "$0")/lib.sh"
cd "$T"
bringup sim --nodes 2 --seed 3 --dir rack --maas-commission-ms 3000 --maas-deploy-ms 3000 --daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
export BRINGUP_DB=$T/inv.db BRINGUP_SSH_PUBKEY=$BRINGUP_SSH_KEY.pub BRINGUP_TEMPLATES=$T/tpl
cp -r "$BR_TOP/templates" tpl
conf=tpl/profiles/xe9680/hardware.conf
# Three runs fail the nodes three times: retirement (t5020) kept out of reach.
sed -i 's/^max_attempts = .*/max_attempts = 10/' "$conf"
limits() { # commissioning deployment validation
	sed -i -e "s/^commissioning = .*/commissioning = $1/" -e "s/^deployment = .*/deployment = $2/" \
		-e "s/^validation = .*/validation = $3/" "$conf"
}
state() { bringup status --json | jq -r --arg h "$1" '.nodes[] | select(.hostname == $h) | "\(.state) \(.reason)"'; }
hosts=$(jq -r '.nodes[].hostname' rack/truth.json)
h1=$(echo "$hosts" | head -1)
bringup import --manifest rack/rack.csv >/dev/null

# A bad value is the profile's FILE:LINE error, and nothing runs.
limits soon 10m 10m
bringup discover -q >/dev/null 2>&1 || true
bringup configure -q > bad.txt 2>&1 && fail "configure ran with a bad time limit"
assert_contains "$(cat bad.txt)" "hardware.conf:" "the file is named"
assert_contains "$(cat bad.txt)" "time_limits.commissioning: 'soon' is not a duration" "the field and value"

# Commissioning (3 s in the emulator) past a 1 s limit.
limits 1s 10m 10m
rc=0; bringup run --json -q > run1.json 2> run1.err || rc=$?
assert_eq "$rc" 1 "run exit with failed nodes ($(tail -3 run1.err))"
for h in $hosts; do
	assert_contains "$(state "$h")" "failed commissioning: past the time limit of 1 s: MAAS machine" "$h commissioning"
done
assert_eq "$(jq -r '[.timed_out[] | select(.stage == "commissioning") | .hostname] | sort | join(" ")' run1.json)" \
	"$(echo $hosts | tr ' ' '\n' | sort | tr '\n' ' ' | sed 's/ $//')" "the summary names both nodes"
[ "$(jq -r '[.stages[] | select(.name == "enlist") | .seconds] | .[0]' run1.json | cut -d. -f1)" -lt 10 ] ||
	fail "the limit did not cut the wait short: $(jq -c .stages run1.json)"

# Deployment (3 s) past a 1 s limit: the same machines, resumed.
sleep 3
limits 10m 1s 10m
rc=0; bringup run -q > run2.txt 2>&1 || rc=$?
assert_eq "$rc" 1 "second run exit"
for h in $hosts; do
	assert_contains "$(state "$h")" "failed deployment: past the time limit of 1 s" "$h deployment"
done
assert_contains "$(cat run2.txt)" "past a time limit:" "the text summary lists them"
assert_contains "$(cat run2.txt)" "$h1 (deployment)" "with the stage"

# Validation: the nodes' sshd stopped (SIGSTOP): the kernel still accepts
# connections, nothing answers, as with a node hung after deploy.
sleep 3
for f in rack/ssh/sshd-*.pid; do kill -STOP "$(cat "$f")"; at_exit "kill -CONT $(cat "$f")"; done
limits 10m 10m 2s
rc=0; bringup run --json -q > run3.json 2> run3.err || rc=$?
for h in $hosts; do
	assert_contains "$(state "$h")" "failed validation: past the time limit of 2 s" "$h validation"
done
assert_eq "$(jq -r --arg h "$h1" '.timed_out[] | select(.hostname == $h) | .stage' run3.json)" validation \
	"the summary names the stuck node and its stage"
assert_eq "$(bringup history "$h1" | grep -c 'past the time limit')" 3 "each limit is an event in the history"
echo "time limits: commissioning, deployment and validation past the profile's limit fail the node, named in run's summary"
