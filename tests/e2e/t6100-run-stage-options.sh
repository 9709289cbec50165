#!/bin/sh
# bringup run hands each stage the options it takes (issue 28): a rack run
# with --wiring, --ssh-key, --max-resets, --maas-url and --api-key-ref, and
# none of their environment variables set, ends every clean node golden
# (validate logged in with the key and judged cabling against the wiring
# list; enlist and gate reached MAAS). An option no stage takes, or a value
# a stage refuses (--max-resets 0), stops the run with exit 2, the option
# named, before any node is touched. run's own lines follow -v and -q.
. "$(dirname "$0")/lib.sh"
cd "$T"
bringup sim --nodes 3 --seed 5 --dir rack --maas-commission-ms 100 --maas-deploy-ms 100 --daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
export BRINGUP_DB=$T/inv.db BRINGUP_SSH_PUBKEY=$BRINGUP_SSH_KEY.pub
key=$BRINGUP_SSH_KEY wiring=$BRINGUP_WIRING url=$MAAS_URL
export RACK_MAAS_KEY=$MAAS_API_KEY
unset BRINGUP_SSH_KEY BRINGUP_WIRING MAAS_URL MAAS_API_KEY
bringup import --manifest rack/rack.csv >/dev/null
before=$(inventory_state inv.db)

# Unknown to every stage: named, exit 2, nothing touched.
rc=0; bringup run -q --no-such-option 3 > bad.txt 2>&1 || rc=$?
assert_eq "$rc" 2 "an option no stage takes"
assert_contains "$(cat bad.txt)" "unknown option '--no-such-option': no stage takes it" "the option named"
rc=0; bringup run -q -Z > bad.txt 2>&1 || rc=$?
assert_eq "$rc" 2 "a short option no stage takes"
assert_contains "$(cat bad.txt)" "unknown option '-Z'" "the short option named"
rc=0; bringup run -q --wiring > bad.txt 2>&1 || rc=$?
assert_eq "$rc" 2 "an option without its value"
assert_contains "$(cat bad.txt)" "missing argument for '--wiring'" "the option named"
# A value configure refuses: configure says so, and no stage touched a node
# (each waits for every stage's options to be checked first).
rc=0; bringup run -q --max-resets 0 --wiring "$wiring" --ssh-key "$key" --maas-url "$url" \
	--api-key-ref env:RACK_MAAS_KEY > bad.txt 2>&1 || rc=$?
assert_eq "$rc" 2 "--max-resets 0"
assert_contains "$(cat bad.txt)" "max-resets" "configure names it"
assert_eq "$(inventory_state inv.db)" "$before" "no node touched by a run stopped for an option"
# configure's per-power-domain limit reaches configure through run too
rc=0; bringup run -q --max-resets-per-power-domain -1 --wiring "$wiring" --ssh-key "$key" --maas-url "$url" \
	--api-key-ref env:RACK_MAAS_KEY > bad.txt 2>&1 || rc=$?
assert_eq "$rc" 2 "--max-resets-per-power-domain -1"
assert_contains "$(cat bad.txt)" "--max-resets-per-power-domain -1" "configure names it"
assert_eq "$(inventory_state inv.db)" "$before" "no node touched by a run stopped for that option"

rc=0; bringup run --json -q --wiring "$wiring" --ssh-key "$key" --max-resets 1 --maas-url "$url" \
	--api-key-ref env:RACK_MAAS_KEY > run.json 2> run.err || rc=$?
assert_eq "$rc" 0 "run with stage options ($(tail -3 run.err))"
assert_eq "$(jq -r '.states.golden' run.json)" 3 "every node golden"
assert_eq "$(jq -r '[.stages[] | select(.exit == 0)] | length' run.json)" 6 "every stage exit 0"
for h in $(jq -r '.nodes[].hostname' rack/truth.json); do
	assert_eq "$(inv_sql inv.db "select c.result from check_results c join nodes n on n.id = c.node_id
		where n.hostname = '$h' and c.name = 'cabling'")" pass "$h cabling judged against --wiring"
done
# run's own lines follow -v and -q like its stages' (passed on to them).
bringup run -v --wiring "$wiring" --ssh-key "$key" --maas-url "$url" \
	--api-key-ref env:RACK_MAAS_KEY > again.out 2> again.err
assert_contains "$(cat again.err)" "info[run] firmware updates" "run's own info line at -v"
bringup run -q --wiring "$wiring" --ssh-key "$key" --maas-url "$url" \
	--api-key-ref env:RACK_MAAS_KEY > again.out 2> again.err
assert_eq "$(cat again.err)" "" "nothing on stderr at -q"
echo "run: each stage given its own options; unknown ones and refused values stop it before any node"
