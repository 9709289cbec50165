#!/bin/sh
# bringup gate reading MAAS from worker processes (--workers 2, more than
# one read batch of STG_GATE_READ_BATCH): the same requests as one process
# makes (two reads, 50 and 10 machines), every machine matched to its node
# from the workers' lines (tags and status included: a second run sends
# nothing that changes MAAS), every quarantined machine tagged and marked
# broken.
. "$(dirname "$0")/lib.sh"
cd "$T"
bringup sim --nodes 60 --seed 14 --dir rack --no-hosts --maas-commission-ms 100 --maas-deploy-ms 100 \
	--daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
DB=$(db_for inv)
export BRINGUP_DB=$DB

posts() { grep -c '"method":"POST"' rack/maas-requests.log || true; }

ssh-keygen -q -t ed25519 -N '' -f id
bringup import --manifest rack/rack.csv >/dev/null
bringup discover -q
bringup enlist --skip-configure --poll-ms 100 --ssh-pubkey id.pub -q
assert_eq "$(nodes_in "$DB" deployed)" 60 "60 deployed"
# Validated without checks: each is quarantined with "no check results".
inv_sql "$DB" "update nodes set state = 'validated'"
: > rack/maas-requests.log

rc=0; bringup gate --workers 2 --json > g1.json || rc=$?
assert_eq "$rc" 1 "gate exit with quarantined nodes"
assert_eq "$(jq -c '[.quarantined, .golden, .errors]' g1.json)" "[60,0,0]" "60 quarantined, no errors"
assert_eq "$(jq -s -c '[.[] | select(.method == "GET" and .path == "machines/") | .system_ids | length] | sort' \
	rack/maas-requests.log)" "[10,50]" "two reads, 50 and 10 machines"
assert_eq "$(maas_req GET 'tags/quarantine/?op=machines' | jq length)" 60 "quarantine tag on all 60"
assert_eq "$(jq -s '[.[] | select(.op == "mark_broken")] | length' rack/maas-requests.log)" 60 \
	"every machine marked broken"
assert_eq "$(jq -r '[.nodes[].maas] | unique | join("|")' g1.json)" "tagged quarantine; marked broken" \
	"each node's MAAS change recorded"

# The workers' lines carry what the gate looks at: nothing left to change.
before=$(posts)
rc=0; bringup gate --workers 2 --json > g2.json || rc=$?
assert_eq "$(jq -c '[.quarantined, .errors]' g2.json)" "[60,0]" "second gate: same verdicts"
assert_eq "$(posts)" "$before" "second gate sent no POST to MAAS"
assert_eq "$(jq '[.nodes[] | select(.changed or .maas != null)] | length' g2.json)" 0 "second gate changed nothing"
echo "gate: reads over 2 worker processes, the same requests, MAAS mirrored, idempotent"
