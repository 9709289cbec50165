#!/bin/sh
# bringup run's flow with a machine MAAS commissions for good (issue 25):
# enlist's rounds run side by side, each with its share of --max-parallel,
# so the stuck machine holds its own slot and nobody else: the other nodes
# are golden while it is still in enlist (configured, Commissioning in MAAS), its lease
# held by bringup-enlist. SIGTERM stops the run (143); a run with a 2 s
# commissioning limit fails it (time_limit) and leaves the others golden.
. "$(dirname "$0")/lib.sh"
cd "$T"
bringup sim --nodes 4 --seed 9 --dir rack --faults commission_hang --maas-commission-ms 100 --maas-deploy-ms 100 \
	--daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
export BRINGUP_DB=$T/inv.db BRINGUP_SSH_PUBKEY=$BRINGUP_SSH_KEY.pub BRINGUP_TEMPLATES=$T/tpl
cp -R "$BR_TOP/templates" tpl
hung=$(jq -r '.nodes[] | select(.faults | index("commission_hang")) | .hostname' rack/truth.json)
healthy=$(jq -r '.nodes[] | select(.faults == []) | .hostname' rack/truth.json)
[ -n "$hung" ] && [ "$(echo "$healthy" | wc -l)" -eq 3 ] || fail "the rack has not one hung machine and three clean nodes"
bringup import --manifest rack/rack.csv >/dev/null
golden() { inv_sql inv.db "select hostname from nodes where state = 'golden' order by hostname" | paste -sd ' ' -; }
state_of() { inv_sql inv.db "select state from nodes where hostname = '$1'"; }
want=$(echo "$healthy" | sort | paste -sd ' ' -)

# The profile's commissioning limit (30m) is far past the test.
setsid bringup run --json -v > run.json 2> run.err &
run=$!
at_exit "kill -KILL -$run 2>/dev/null || true"
i=0
while [ "$(golden)" != "$want" ]; do
	kill -0 "$run" 2>/dev/null || fail "run ended before the healthy nodes were golden: $(tail -5 run.err)"
	i=$((i + 1)); [ "$i" -lt 1200 ] || fail "healthy nodes not golden: $(inv_sql inv.db 'select hostname, state from nodes' | paste -sd ' ' -)"
	sleep 0.25
done
assert_eq "$(state_of "$hung")" configured "the hung machine is still in enlist (enlisted once commissioned)"
id=$(inv_sql inv.db "select maas_system_id from nodes where hostname = '$hung'")
assert_eq "$(maas_req GET "machines/$id/" | jq -r .status_name)" Commissioning "MAAS still commissions it"
assert_eq "$(inv_sql inv.db "select l.stage from leases l join nodes n on n.id = l.node_id where n.hostname = '$hung'")" \
	bringup-enlist "enlist holds it"
pgrep -s "$run" -f "bin/bringup-enlist " >/dev/null || fail "enlist is not running any more"

kill -TERM "$run"
rc=0; wait "$run" || rc=$?
assert_eq "$rc" 143 "run stopped by SIGTERM ($(tail -3 run.err))"
[ -z "$(pgrep -s "$run" -f "bin/bringup-")" ] || fail "a stage outlived the run: $(pgrep -a -s "$run")"
assert_eq "$(golden)" "$want" "the golden nodes stay golden"

sed -i 's/^commissioning = .*/commissioning = 2s/' tpl/profiles/*/hardware.conf
rc=0; bringup run -q > run2.txt 2>&1 || rc=$?
assert_eq "$rc" 1 "second run: one node failed ($(tail -3 run2.txt))"
assert_eq "$(state_of "$hung")" failed "the hung machine failed at its limit"
assert_eq "$(node_field inv.db "$hung" failure_kind)" time_limit "its kind"
assert_contains "$(cat run2.txt)" "$hung (commissioning)" "the summary names it past its limit"
assert_eq "$(golden)" "$want" "still golden"
echo "run: healthy nodes golden while one machine commissions for good"
