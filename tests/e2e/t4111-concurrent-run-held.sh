#!/bin/sh
# A second run over nodes a first one is working (issue 29, finding 9):
# every node it skips because the other run holds it keeps it from saying
# "all done": the stage exits 1 naming the holder, its --json lists the
# nodes held elsewhere, and bringup run does not exit 0 either. The first
# run holds its nodes for as long as the test wants: their BMCs are
# listeners that accept and never answer, so its discovery waits on them
# until the test stops it.
. "$(dirname "$0")/lib.sh"
cd "$T"
/usr/bin/python3 -c '
import socket, select
socks = []
for _ in range(3):
    s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(8); socks.append(s)
print(" ".join(str(s.getsockname()[1]) for s in socks), flush=True)
conns = []
while True:
    r, _, _ = select.select(socks, [], [])
    for s in r:
        c, _ = s.accept(); conns.append(c)
' > ports.txt &
listener=$!
at_exit "kill $listener 2>/dev/null"
for _ in $(seq 100); do [ -s ports.txt ] && break; sleep 0.05; done
[ -s ports.txt ] || fail "no listeners"
{
	echo "hostname,rack,unit,bmc,bmc_user,bmc_password,profile"
	u=1
	for p in $(cat ports.txt); do
		echo "gpu-r01-u0$u,r01,$u,127.0.0.1:$p,root,env:T4111_PW,xe9680"
		u=$((u + 1))
	done
} > rack.csv
export T4111_PW=secret BRINGUP_DB=$T/inv.db
bringup import --manifest rack.csv >/dev/null

bringup-discover --workers 1 --bmc-deadline 600 > a.out 2> a.err &
first=$!
at_exit "kill $first 2>/dev/null"
# The first run holds all three once its leases are written.
while [ "$(inv_sql "$BRINGUP_DB" 'select count(*) from leases' 2>/dev/null || echo 0)" -lt 3 ]; do
	kill -0 "$first" 2>/dev/null || fail "the first discover ended: $(tail -3 a.err)"
	sleep 0.05
done

rc=0
bringup-discover --workers 1 --json > b.json 2> b.err || rc=$?
assert_eq "$rc" 1 "second discover's exit code ($(tail -2 b.err))"
assert_eq "$(jq -c '.held_elsewhere' b.json)" '["gpu-r01-u01","gpu-r01-u02","gpu-r01-u03"]' \
	"nodes held elsewhere in --json"
assert_contains "$(cat b.err)" "3 nodes left as they were: another run holds them (gpu-r01-u01: bringup-discover (pid $first" \
	"second discover names the holder"

rc=0
bringup run --json > run.out 2> run.err || rc=$?
[ "$rc" -ne 0 ] || fail "bringup run exited 0 while another run held every node ($(tail -3 run.out))"
assert_contains "$(cat run.err)" "another run holds them" "bringup run says why"
assert_eq "$(jq -r '.stages[] | select(.name == "discover") | .exit' run.out)" 1 "bringup run: discover's exit"
assert_eq "$(nodes_in "$BRINGUP_DB" new)" 3 "nodes left new"

kill -TERM "$first"
wait "$first" || true
assert_eq "$(inv_sql "$BRINGUP_DB" 'select count(*) from leases')" 0 "leases given back"
# With the first run gone, nothing holds them: the same discover exits as any.
bringup-discover --workers 1 --bmc-deadline 1 --json > c.json 2> c.err || true
assert_eq "$(jq -c '.held_elsewhere // []' c.json)" '[]' "no node held once the first run ended"
echo "a second run over held nodes: exit 1, the holder named, bringup run not 0"
