#!/bin/sh
# discover on a simulated rack with faults: every MAC and serial of
# truth.json is in the inventory and nothing else; faulty BMCs end as
# docs/simulator.md says; sessions are created and deleted; the per-BMC cap holds.
. "$(dirname "$0")/lib.sh"
cd "$T"
bringup sim --no-hosts --nodes 16 --seed 7 --fault-rate 0.3 --faults bmc_down,bmc_auth,bmc_flaky:2,nic_missing \
	--flaky-stall-ms 2500 --dir rack --daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
export BRINGUP_DB=$T/inv.db
bringup import --manifest rack/rack.csv >/dev/null

rc=0
bringup discover --json --timeout 2 --retries 4 > disc.json 2>err || rc=$?
assert_eq "$rc" 1 "discover exit code with failed nodes"
bringup status --json > st.json

truth=rack/truth.json
down=$(jq -r '.nodes[] | select(.faults | index("bmc_down")) | .hostname' $truth)
auth=$(jq -r '.nodes[] | select(.faults | index("bmc_auth")) | .hostname' $truth)
st() { jq -r --arg h "$1" ".nodes[] | select(.hostname == \$h) | $2" st.json; }

assert_eq "$(st "$down" .state)" failed "bmc_down node state"
assert_contains "$(st "$down" .reason)" "$(jq -r --arg h "$down" '.nodes[] | select(.hostname==$h) | .bmc' $truth)" \
	"bmc_down reason names the BMC"
assert_eq "$(st "$auth" .state)" failed "bmc_auth node state"
assert_contains "$(st "$auth" .reason)" "credentials" "bmc_auth reason"
assert_contains "$(st "$auth" .reason)" "HTTP 401" "bmc_auth reason carries the status"
# The password never reaches the output, the logs or the inventory.
! grep -q "$BRINGUP_BMC_PASSWORD" err disc.json st.json || fail "password in output"
! sqlite3 inv.db .dump | grep -q "$BRINGUP_BMC_PASSWORD" || fail "password in the inventory"

# Every other node is discovered, flaky ones included (retries win).
for h in $(jq -r '.nodes[] | select((.faults | index("bmc_down") or index("bmc_auth")) | not) | .hostname' $truth); do
	assert_eq "$(st "$h" .state)" discovered "state of $h"
	assert_eq "$(st "$h" '.macs | join(",")')" \
		"$(jq -r --arg h "$h" '.nodes[] | select(.hostname==$h) | .macs | sort | join(",")' $truth)" "MACs of $h"
	assert_eq "$(st "$h" .system_serial)" \
		"$(jq -r --arg h "$h" '.nodes[] | select(.hostname==$h) | .system_serial' $truth)" "serial of $h"
	# Drive serials stored by discovery are exactly the BMC-visible ones.
	assert_eq "$(sqlite3 inv.db "select group_concat(serial, ',') from (select d.serial from drives d join nodes n on n.id=d.node_id where n.hostname='$h' order by 1)")" \
		"$(jq -r --arg h "$h" '.nodes[] | select(.hostname==$h) | .drive_serials | sort | join(",")' $truth)" "drives of $h"
done
for h in $(jq -r '.nodes[] | select(.faults | index("bmc_flaky")) | .hostname' $truth); do
	assert_eq "$(st "$h" .state)" discovered "flaky node $h"
done
# A nic_missing node has one MAC fewer than a healthy one.
nm=$(jq -r '.nodes[] | select(.faults | index("nic_missing")) | .hostname' $truth)
assert_eq "$(st "$nm" '.macs | length')" 9 "nic_missing MACs"

# Facts beyond MACs reached the inventory.
h=$(jq -r '.nodes[] | select(.faults == []) | .hostname' $truth | head -1)
q() { sqlite3 inv.db "select $1 from nodes n where n.hostname='$h'"; }
assert_eq "$(q model)" "PowerEdge XE9680" "model"
assert_eq "$(q service_tag)" "$(jq -r --arg h "$h" '.nodes[] | select(.hostname==$h) | .service_tag' $truth)" "service tag"
[ "$(q '(select count(*) from bios_attributes b where b.node_id=n.id)')" -gt 10 ] || fail "BIOS attributes"
[ "$(q '(select count(*) from firmware f where f.node_id=n.id)')" -gt 20 ] || fail "firmware inventory"
assert_eq "$(q "(select count(*) from pcie_devices p where p.node_id=n.id and p.lanes_in_use=16 and p.pcie_type='Gen5')")" 16 "x16 Gen5 links"
[ "$(q "(select count(*) from sensors s where s.node_id=n.id and s.kind='psu' and s.health='OK')")" -ge 2 ] || fail "PSUs"
[ "$(q "(select count(*) from sensors s where s.node_id=n.id and s.kind='fan')")" -gt 0 ] || fail "fans"
[ "$(q "(select count(*) from boot_order b where b.node_id=n.id)")" -gt 0 ] || fail "boot order"

# The request log: one session created and deleted per answering BMC, and
# never more than 4 requests in flight at one BMC (flaky stalls excepted:
# the simulator still counts a request the client abandoned).
log=rack/requests.log
flaky_bmcs=$(jq -r '[.nodes[] | select(.faults | index("bmc_flaky")) | .bmc] | join(" ")' $truth)
created=$(jq -r 'select(.session == "created") | .bmc' $log | sort | uniq | wc -l)
deleted=$(jq -r 'select(.session == "deleted") | .bmc' $log | sort | uniq | wc -l)
assert_eq "$created" 14 "BMCs with a session created (all but down and auth)"
assert_eq "$deleted" 14 "BMCs with their session deleted (all but down and auth)"
leaked=$(jq -r 'select(.session == "created" or .session == "deleted") | .bmc + " " + .session' $log |
	awk '{ n[$1] += ($2 == "created") ? 1 : -1 } END { for (b in n) if (n[b] != 0) print b }' | sort)
for b in $leaked; do
	case " $flaky_bmcs $(jq -r '.nodes[] | select(.faults | index("bmc_auth")) | .bmc' $truth) " in
	*" $b "*) ;; *) fail "session leaked on $b" ;; esac
done
over=$(jq -r --arg f " $flaky_bmcs " 'select(.inflight > 4) | select(($f | contains(" " + .bmc + " ")) | not) | .bmc' $log | head -1)
[ -z "$over" ] || fail "more than 4 requests in flight at $over"
[ "$(jq -s 'map(.inflight) | max' $log)" -ge 2 ] || fail "requests never overlapped at a BMC"

# Re-running picks only the failed nodes; discovered ones are left alone.
before=$(wc -l < $log)
bringup discover --json --timeout 2 --retries 0 > disc2.json 2>/dev/null || true
assert_eq "$(jq -r '[.nodes[].hostname] | sort | join(",")' disc2.json)" "$(printf '%s\n' "$auth" "$down" | sort | paste -sd,)" "re-run selection"
