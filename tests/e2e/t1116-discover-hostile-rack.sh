#!/bin/sh
# A rack where most BMCs misbehave, side by side with good ones, in one
# discovery: garbage and wrongly typed JSON, huge bodies and collections, an
# 8 MiB Members flood, a megabyte serial, control characters, a BMC that
# hangs, a tarpit, a full session table, bad credentials, a dead BMC,
# another node's MAC, no host MAC at all, and links off the host, out of
# /redfish/v1 or in a cycle. Every good node must end as
# it would alone: discovered, with exactly its true host MACs and serial.
# Every hostile node ends with a state and a reason; none takes the run
# down, and the run ends within the per-BMC deadline.
. "$(dirname "$0")/lib.sh"
cd "$T"
hostile=bad_json,bad_types,huge_collection,huge_body,members_flood,huge_serial,control_chars,hang,tarpit
hostile=$hostile,sessions_full,bmc_auth,bmc_down,mac_clone,no_host_mac,bad_links
bringup-sim --no-hosts --nodes 22 --seed 11 --faults "$hostile" --dir sim --daemon >/dev/null
at_exit "stop_sim $T/sim"
set -a; . ./sim/env; set +a
export BRINGUP_DB=$T/inv.db
truth=sim/truth.json
bringup import --manifest sim/rack.csv >/dev/null

# A good BMC's walk takes ~1 s alone, but under the sanitizers on a loaded
# 2-core machine (client and simulator both instrumented) up to ~10 s.
deadline=10
case "$BIN" in */asan/*) deadline=20 ;; esac
start=$(date +%s)
rc=0
bringup discover --timeout 4 --retries 1 --bmc-deadline $deadline --json >d.json 2>err.txt || rc=$?
took=$(($(date +%s) - start))
[ "$rc" -le 1 ] || fail "discover exit $rc: $(tail -5 err.txt)"
# the deadline per BMC, all BMCs at once; generous for a loaded machine
[ "$took" -le $((deadline * 9)) ] || fail "discover took $took s with a $deadline s per-BMC deadline"

# The good nodes: no fault at all, and not the genuine owner of a cloned
# MAC (t1106 judges that pair).
good=$(jq -r '.nodes[] | select((.faults | length) == 0) | .hostname' $truth)
[ "$(echo "$good" | wc -w)" -ge 5 ] || fail "too few good nodes in the rack: $good"
for h in $good; do
	state=$(sqlite3 inv.db "select state from nodes where hostname = '$h'")
	assert_eq "$state" discovered "good node $h beside hostile BMCs ($(sqlite3 inv.db "select reason from nodes where hostname = '$h'"))"
	want=$(jq -r --arg h "$h" '.nodes[] | select(.hostname == $h) | .macs[]' $truth | tr 'A-F' 'a-f' | sort | tr '\n' ' ')
	got=$(sqlite3 inv.db "select mac from nics join nodes on nodes.id = nics.node_id where hostname = '$h' order by mac" | tr '\n' ' ')
	assert_eq "$got" "$want" "$h: host MACs"
	assert_eq "$(sqlite3 inv.db "select json_extract(facts, '\$.system_serial') from hw_facts join nodes on nodes.id = hw_facts.node_id where hostname = '$h'")" \
		"$(jq -r --arg h "$h" '.nodes[] | select(.hostname == $h) | .system_serial' $truth)" "$h: serial"
done

# Every hostile node has a state and, when failed, a reason; nothing was
# left 'new' or half-done, and nothing crashed.
assert_eq "$(sqlite3 inv.db "select count(*) from nodes where state not in ('discovered', 'failed')")" 0 \
	"every node ended discovered or failed"
assert_eq "$(sqlite3 inv.db "select count(*) from nodes where state = 'failed' and coalesce(reason, '') = ''")" 0 \
	"every failed node has a reason"
for f in bmc_down bmc_auth tarpit no_host_mac members_flood; do
	h=$(jq -r --arg f "$f" '.nodes[] | select(.faults | index($f)) | .hostname' $truth)
	assert_eq "$(sqlite3 inv.db "select state from nodes where hostname = '$h'")" failed "$f node $h"
done
# A Thermal that hangs is no reason to fail either (issue 23): the node is
# discovered, the Thermal listed as unreadable.
h=$(jq -r '.nodes[] | select(.faults | index("hang")) | .hostname' $truth)
assert_eq "$(sqlite3 inv.db "select state from nodes where hostname = '$h'")" discovered "hang node $h"
assert_eq "$(sqlite3 inv.db "select json_extract(facts, '\$.unreadable[0].url') like '%/Thermal' from hw_facts join nodes on nodes.id = hw_facts.node_id where hostname = '$h'")" 1 \
	"hang node $h: Thermal unreadable"
# A full session table is no reason to fail: basic auth reads it.
h=$(jq -r '.nodes[] | select(.faults | index("sessions_full")) | .hostname' $truth)
assert_eq "$(sqlite3 inv.db "select state from nodes where hostname = '$h'")" discovered "sessions_full node $h"
# Links off the host or out of /redfish/v1 are never followed.
assert_eq "$(jq -r 'select(.path | test("^/redfish(/|$)") | not) | .path' sim/requests.log | sort -u | tr '\n' ' ')" "" \
	"requests outside /redfish (a followed bad link)"
# ...and the node that shows them is read as if they were not there.
h=$(jq -r '.nodes[] | select(.faults | index("bad_links")) | .hostname' $truth)
assert_eq "$(sqlite3 inv.db "select state from nodes where hostname = '$h'")" discovered "bad_links node $h"
assert_eq "$(sqlite3 inv.db "select mac from nics join nodes on nodes.id = nics.node_id where hostname = '$h' order by mac" | tr '\n' ' ')" \
	"$(jq -r --arg h "$h" '.nodes[] | select(.hostname == $h) | .macs[]' $truth | tr 'A-F' 'a-f' | sort | tr '\n' ' ')" \
	"bad_links node $h: host MACs"
assert_eq "$(sqlite3 inv.db "select count(*) from nics where mac = '' or mac is null")" 0 "no empty MAC stored"
# No escape or carriage return from a BMC reaches the output.
if grep -q "$(printf '\033')" err.txt d.json; then fail "a control character reached the output"; fi
assert_eq "$(sqlite3 inv.db 'pragma integrity_check')" ok "inventory integrity"
echo "22 BMCs, 15 hostile, in $took s: every good node discovered as alone"
