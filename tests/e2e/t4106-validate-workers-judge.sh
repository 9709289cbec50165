#!/bin/sh
# bringup validate judges each node in its SSH worker (the document parsed,
# the node rules run with the BMC's facts read through the worker's own
# inventory connection, the document stored there) and judges cabling over
# the whole rack in the collecting process. Here 6 simulated hosts with two
# cable swaps, a failed PSU (a BMC fact) and bogus thermal readings,
# validated once in one process and once with one worker per node, from
# the same inventory: the checks are the same (the clock's measured skew
# aside), the swaps are found though each side was judged by another
# worker, and every validated node's document is stored. A node whose
# document its worker cannot store (a trigger refuses it) is failed with
# the database's reason.
. "$(dirname "$0")/lib.sh"
cd "$T"
bringup-sim --nodes 6 --seed 3 --faults cable_swap:2,psu_failed:1,thermal_bogus:1 --maas-commission-ms 100 \
	--maas-deploy-ms 100 --dir rack --daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
export BRINGUP_DB=$T/one.db
bringup import --manifest rack/rack.csv >/dev/null
bringup discover -q
bringup enlist --skip-configure --poll-ms 50 -q
sqlite3 one.db ".backup $T/six.db"
refused=$(jq -r '.nodes[] | select(.faults | index("thermal_bogus")) | .hostname' rack/truth.json)
sqlite3 six.db "CREATE TRIGGER refuse BEFORE INSERT ON probe_facts
	WHEN NEW.node_id = (SELECT id FROM nodes WHERE hostname = '$refused')
	BEGIN SELECT RAISE(ABORT, 'refused by the test'); END;"

rc=0
bringup-validate --workers 1 --json > one.json 2> one.err || rc=$?
assert_eq "$rc" 0 "one process: exit, every node validated ($(tail -3 one.err))"
rc=0
BRINGUP_DB=$T/six.db bringup-validate -vv --workers 6 --json > six.json 2> six.err || rc=$?
assert_eq "$rc" 1 "six workers: exit with the refused node failed ($(tail -3 six.err))"
grep -q "6 nodes over 6 SSH workers" six.err || fail "not run over 6 workers: $(tail -3 six.err)"

# The refused node failed with the reason, recorded.
assert_eq "$(jq -r --arg h "$refused" '.nodes[] | select(.hostname == $h) | .state' six.json)" failed "$refused state"
assert_contains "$(jq -r --arg h "$refused" '.nodes[] | select(.hostname == $h) | .reason' six.json)" \
	"cannot store its facts" "$refused reason"
assert_contains "$(jq -r --arg h "$refused" '.nodes[] | select(.hostname == $h) | .reason' six.json)" \
	"refused by the test" "$refused reason"
assert_eq "$(BRINGUP_DB=$T/six.db bringup status --json | jq -r --arg h "$refused" \
	'.nodes[] | select(.hostname == $h) | .state')" failed "$refused stored state"

# Same verdicts for the others: states, reasons and every check (name,
# result, detail), except the clock's detail, which tells the skew
# measured this time.
view='[.nodes[] | select(.hostname != "'"$refused"'") | {hostname, state, reason, checks: [.checks[] | {name, result,
	detail: (if .name == "clock" then "" else .detail end)}]}] | sort_by(.hostname)'
jq -S "$view" one.json > one.view
jq -S "$view" six.json > six.view
cmp -s one.view six.view || fail "one process and six workers disagree: $(diff one.view six.view | head -20)"
assert_eq "$(jq '[.nodes[] | select(.state == "validated")] | length' six.json)" 5 "validated nodes"
[ "$(jq '[.nodes[].checks[]] | length' six.json)" -ge 50 ] || fail "too few checks: $(jq -c . six.json | head -c 300)"

# Each swapped node's cabling check names the swap; its partner was judged
# in another worker (one node each).
for h in $(jq -r '.nodes[] | select(.faults | index("cable_swap")) | .hostname' rack/truth.json); do
	d=$(jq -r --arg h "$h" '.nodes[] | select(.hostname == $h) | .checks[] | select(.name == "cabling") |
		"\(.result) \(.detail)"' six.json)
	assert_contains "$d" "swapped with" "$h cabling"
	case $d in fail*) ;; *) fail "$h: cabling does not fail: $d" ;; esac
done
[ "$(jq '[.nodes[] | select(.faults | index("cable_swap"))] | length' rack/truth.json)" -eq 4 ] ||
	fail "the rack has no two swaps"
# The BMC's facts reached the worker's rules: the failed PSU is judged.
h=$(jq -r '.nodes[] | select(.faults | index("psu_failed")) | .hostname' rack/truth.json)
assert_eq "$(jq -r --arg h "$h" '.nodes[] | select(.hostname == $h) | .checks[] | select(.name == "psu") | .result' \
	six.json)" fail "$h psu"

# Stored by the workers as the one process stores: compact documents, one
# per validated node, and the states recorded.
assert_eq "$(sqlite3 six.db 'SELECT count(*) FROM probe_facts')" 5 "stored probe documents"
assert_eq "$(sqlite3 six.db "SELECT count(*) FROM probe_facts WHERE json_valid(doc) AND doc NOT LIKE '%
%'")" 5 "compact stored documents"
assert_eq "$(BRINGUP_DB=$T/six.db bringup status --json | jq '[.nodes[] | select(.state == "validated")] | length')" \
	5 "stored states"
echo "6 nodes judged in 6 workers as in one process; both swaps found across workers; a refused store fails its node"
