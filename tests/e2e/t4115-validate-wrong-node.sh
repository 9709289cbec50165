#!/bin/sh
# A probe document from the wrong node is named as such (issue 29, finding
# 10): one node's ssh_config entry leads to another simulated host. The
# probe's own identity (its DMI system serial, then its hostname) is
# compared with the node's (the BMC's serial, the node's hostname) first:
# the node fails once, kind wrong_node, naming the machine that answered,
# nothing is judged or stored of that document (no cabling or hardware
# checks), and tickets give it one wrong_node ticket. The machine that
# answered, validated as itself, is unaffected. With workers and without.
. "$(dirname "$0")/lib.sh"
cd "$T"
bringup-sim --nodes 3 --seed 6 --maas-commission-ms 50 --maas-deploy-ms 50 --dir rack --daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
export BRINGUP_DB=$T/inv.db
bringup import --manifest rack/rack.csv >/dev/null
bringup discover -q
bringup enlist --skip-configure --poll-ms 50 -q
hosts=$(jq -r '.nodes[].hostname' rack/truth.json)
asked=$(echo "$hosts" | sed -n 1p)
other=$(echo "$hosts" | sed -n 2p)
other_tag=$(jq -r --arg h "$other" '.nodes[] | select(.hostname == $h) | .service_tag // empty' rack/truth.json)
port_of() { awk -v h="$1" '$1 == "Host" { cur = $2 } cur == h && $1 == "Port" { print $2 }' "$BRINGUP_SSH_CONFIG"; }
# The asked node's entry sent to the other's sshd.
awk -v h="$asked" -v p="$(port_of "$other")" '$1 == "Host" { cur = $2 } cur == h && $1 == "Port" { $0 = "\tPort " p }
	$1 == "UserKnownHostsFile" { $0 = "\tUserKnownHostsFile '"$T"'/kh" } { print }' "$BRINGUP_SSH_CONFIG" > ssh_config
[ "$(port_of "$asked")" != "$(port_of "$other")" ] || fail "the two nodes share a port already"

for workers in 1 2; do
	: > kh
	inv_sql "$BRINGUP_DB" "update nodes set state = 'deployed' where state in ('validated', 'failed')"
	rc=0
	# shellcheck disable=SC2086
	bringup-validate --workers $workers --ssh-config ssh_config --known-hosts kh --host-key-policy accept-new \
		--wiring rack/wiring.csv --json $hosts > v.json 2> v.err || rc=$?
	assert_eq "$rc" 1 "validate --workers $workers: exit ($(tail -2 v.err))"
	node() { jq -r --arg h "$1" ".nodes[] | select(.hostname == \$h) | $2" v.json; }
	assert_eq "$(node "$asked" .state)" failed "--workers $workers: $asked"
	assert_contains "$(node "$asked" .reason)" "the wrong machine answered: its system serial is $other_tag (hostname $other)" \
		"--workers $workers: the reason names the machine that answered"
	assert_eq "$(node "$asked" '.checks | length')" 0 "--workers $workers: nothing judged of the other's document"
	assert_eq "$(bringup status --json | jq -r --arg h "$asked" '.nodes[] | select(.hostname == $h) | .failure_kind')" \
		wrong_node "--workers $workers: failure kind"
	assert_eq "$(inv_sql "$BRINGUP_DB" "select count(*) from probe_facts f join nodes n on n.id = f.node_id where n.hostname = '$asked'")" \
		0 "--workers $workers: the other's document not stored as $asked's"
	assert_eq "$(node "$other" .state)" validated "--workers $workers: $other, validated as itself"
done
bringup tickets -q
assert_eq "$(bringup tickets --json | jq -r --arg h "$asked" '[.tickets[] | select(.hostname == $h) | .fault] | join(",")')" \
	wrong_node "one ticket for $asked"
echo "a wrong node's document: one wrong_node failure and ticket, nothing judged on it"
