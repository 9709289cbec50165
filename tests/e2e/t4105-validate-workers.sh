#!/bin/sh
# bringup validate's SSH workers: the rack split over forked processes,
# each result sent back over a pipe. Here, 4 simulated hosts over 2 workers;
# one node's address is a listener that never speaks, and the worker stuck
# on it is killed: that node fails naming the worker and the signal, the
# other three are validated with their facts stored, and accept-new records
# each host's key once though two processes write the known_hosts file.
. "$(dirname "$0")/lib.sh"
cd "$T"
bringup-sim --nodes 4 --seed 2 --maas-commission-ms 100 --maas-deploy-ms 100 --dir rack --daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
export BRINGUP_DB=$T/inv.db
bringup import --manifest rack/rack.csv >/dev/null
bringup discover -q
bringup enlist --skip-configure --poll-ms 50 -q
hosts=$(jq -r '.nodes[].hostname' rack/truth.json)
stuck=$(echo "$hosts" | tail -1)

# A TCP listener that accepts and never sends an SSH banner.
/usr/bin/python3 -c '
import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(8)
print(s.getsockname()[1], flush=True)
conns = []
while True:
    c, _ = s.accept(); conns.append(c)
' > port.txt &
listener=$!
at_exit "kill $listener 2>/dev/null"
for _ in $(seq 50); do [ -s port.txt ] && break; sleep 0.1; done
port=$(cat port.txt)
[ -n "$port" ] || fail "no listener"

# The simulator's ssh config, the stuck node sent to the listener; an empty
# known_hosts under accept-new.
awk -v h="$stuck" -v p="$port" '$1 == "Host" { cur = $2 } cur == h && $1 == "Port" { $0 = "\tPort " p }
	$1 == "UserKnownHostsFile" { $0 = "\tUserKnownHostsFile '"$T"'/kh" } { print }' "$BRINGUP_SSH_CONFIG" > ssh_config
: > kh

# shellcheck disable=SC2086
bringup-validate -v --workers 2 --ssh-config ssh_config --known-hosts kh --host-key-policy accept-new --json \
	$hosts > v.json 2> v.err &
vpid=$!
# Wait for the three good nodes, then kill the worker still at work.
for _ in $(seq 300); do
	[ "$(grep -c 'facts collected' v.err)" -ge 3 ] && break
	sleep 0.1
done
assert_eq "$(grep -c 'facts collected' v.err)" 3 "three nodes collected before the kill ($(tail -3 v.err))"
workers=$(ps -o pid= --ppid "$vpid" | tr -d ' ')
assert_eq "$(echo "$workers" | grep -c .)" 1 "one worker still at work (the stuck node's)"
kill -KILL "$workers"
rc=0
wait "$vpid" || rc=$?
assert_eq "$rc" 1 "validate exit with a failed node ($(tail -3 v.err))"

for h in $hosts; do
	s=$(jq -r --arg h "$h" '.nodes[] | select(.hostname == $h) | .state' v.json)
	if [ "$h" = "$stuck" ]; then
		assert_eq "$s" failed "$h (stuck) state"
		assert_contains "$(jq -r --arg h "$h" '.nodes[] | select(.hostname == $h) | .reason' v.json)" \
			"validation worker $workers was killed by signal 9 before reporting this node" "$h reason"
	else
		assert_eq "$s" validated "$h state"
		[ "$(jq --arg h "$h" '[.nodes[] | select(.hostname == $h) | .checks[]] | length' v.json)" -gt 5 ] ||
			fail "$h: no checks"
		assert_eq "$(bringup status --json | jq -r --arg h "$h" '.nodes[] | select(.hostname == $h) | .state')" \
			validated "$h stored state"
	fi
done
assert_eq "$(bringup status --json | jq -r --arg h "$stuck" '.nodes[] | select(.hostname == $h) | .state')" \
	failed "$stuck stored state"
# One known_hosts line per reached host, none torn: ssh-keygen reads them all.
assert_eq "$(grep -c . kh)" 3 "known_hosts lines"
for h in $(echo "$hosts" | head -3); do
	p=$(awk -v h="$h" '$1 == "Host" { cur = $2 } cur == h && $1 == "Port" { print $2 }' ssh_config)
	ssh-keygen -F "[127.0.0.1]:$p" -f kh >/dev/null || fail "$h's key not recorded"
done
echo "3 validated over 2 workers, the killed worker's node failed with its reason"
