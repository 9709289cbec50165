#!/bin/sh
# Enlist takes up again a node that a transient MAAS error failed before
# its machine existed (issue 29, finding 8): such a node (failed in enlist,
# kind maas_refused, no system_id: what enlist records when creating the
# machine got an error) is picked by state by a rerun of enlist alone and
# deployed; a node that failed discovery is still left to discover.
. "$(dirname "$0")/lib.sh"
cd "$T"
bringup-sim --no-hosts --nodes 3 --dir sim --seed 9 --maas-commission-ms 50 --maas-deploy-ms 50 --daemon >/dev/null
at_exit "stop_sim $T/sim"
set -a; . ./sim/env; set +a
export BRINGUP_DB=$T/inv.db
echo "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBringupTestKeyOnly validator@bringup" > id.pub
bringup import --manifest sim/rack.csv >/dev/null
bringup discover -q
hosts=$(jq -r '.nodes[].hostname' sim/truth.json)
stranded=$(echo "$hosts" | sed -n 1p)
in_discover=$(echo "$hosts" | sed -n 2p)
# What an enlist that met MAAS's 500 on creating the machine left, and a
# discovery failure beside it (the inventory written as those stages write it).
inv_sql "$BRINGUP_DB" "
	update nodes set state = 'failed', failure_kind = 'maas_refused',
		reason = 'creating the machine in MAAS: MAAS POST machines/: HTTP 500 Internal Server Error'
		where hostname = '$stranded';
	insert into events(node_id, from_state, to_state, reason, at)
		select id, 'discovered', 'failed', reason, strftime('%Y-%m-%dT%H:%M:%fZ', 'now') from nodes where hostname = '$stranded';
	update nodes set state = 'failed', failure_kind = 'bmc_unreachable', reason = 'BMC did not answer'
		where hostname = '$in_discover';
	insert into events(node_id, from_state, to_state, reason, at)
		select id, 'new', 'failed', reason, strftime('%Y-%m-%dT%H:%M:%fZ', 'now') from nodes where hostname = '$in_discover';"
assert_eq "$(node_field "$BRINGUP_DB" "$stranded" maas_system_id)" "" "no machine in MAAS yet"

rc=0
bringup enlist --skip-configure --poll-ms 50 --ssh-pubkey id.pub --json > e.json 2> e.err || rc=$?
assert_eq "$(jq -r --arg h "$stranded" '.nodes[] | select(.hostname == $h) | .result' e.json)" deployed \
	"the node a transient error failed is enlisted again ($(tail -2 e.err))"
assert_eq "$(node_field "$BRINGUP_DB" "$stranded" state)" deployed "its state"
[ -n "$(node_field "$BRINGUP_DB" "$stranded" maas_system_id)" ] || fail "no machine created for $stranded"
assert_eq "$(jq -r --arg h "$in_discover" '[.nodes[] | select(.hostname == $h)] | length' e.json)" 0 \
	"a node that failed discovery is not enlist's"
assert_eq "$(node_field "$BRINGUP_DB" "$in_discover" state)" failed "the discovery failure left as it was"
echo "enlist resumes a node a transient MAAS error failed before its machine existed"
