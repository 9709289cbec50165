#!/bin/sh
# bringup bmc --redfish HOST: a read-only view of one node's BMC, for every
# BMC family (a --vendor mixed rack: dell, hpe, lenovo, supermicro,
# openbmc, ami). For each node it shows the truth's serial, host MACs (role
# host) and the BMC's own MAC (role bmc), the System's health (Critical on
# the psu_failed node), sensors and firmware; --bmc URL with --user and
# --password-ref reads the same without the inventory. Afterwards the
# inventory's rows are byte for byte what they were (inv_sql --dump) and the
# BMCs' request log shows only GETs, each session created once and deleted.
. "$(dirname "$0")/lib.sh"
cd "$T"
bringup sim --no-hosts --nodes 6 --seed 11 --vendor mixed --faults psu_failed,bmc_auth --dir rack --daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
export BRINGUP_DB=$T/inv.db
truth=rack/truth.json
log=rack/requests.log
bringup import --manifest rack/rack.csv >/dev/null
bringup discover --timeout 5 >/dev/null 2>&1 || true # the bmc_auth node fails
inv_sql inv.db --dump > before.sql
[ "$(grep -c 'INSERT INTO' before.sql)" -gt 50 ] || fail "the inventory holds nothing to compare"
start=$(wc -l < $log)

tq() { jq -r --arg h "$1" ".nodes[] | select(.hostname==\$h) | $2" $truth; }
auth_node=$(jq -r '.nodes[] | select(.faults | index("bmc_auth")) | .hostname' $truth)
psu_node=$(jq -r '.nodes[] | select(.faults | index("psu_failed")) | .hostname' $truth)
[ -n "$auth_node" ] && [ -n "$psu_node" ] || fail "faults not placed"
seen=0
for h in $(jq -r '.nodes[].hostname' $truth); do
	v=$(tq "$h" .vendor)
	if [ "$h" = "$auth_node" ]; then
		rc=0; bringup bmc --redfish "$h" --json > out.json 2> err || rc=$?
		assert_eq "$rc" 3 "$v: exit of $h whose BMC refuses the credentials"
		assert_contains "$(cat err)" "credentials refused" "$v: $h's reason"
		grep -q "$BRINGUP_BMC_PASSWORD" err && fail "password in stderr"
		continue
	fi
	bringup bmc --redfish "$h" --json > out.json 2> err || fail "$v: bmc --redfish $h exit $?: $(cat err)"
	assert_eq "$(jq -r .system_serial out.json)" "$(tq "$h" .system_serial)" "$v: serial of $h"
	assert_eq "$(jq -r '[.nics[] | select(.role == "host") | .mac] | sort | join(",")' out.json)" \
		"$(tq "$h" '.macs | sort | join(",")')" "$v: host MACs of $h"
	assert_eq "$(jq -r '[.nics[] | select(.role == "bmc") | .mac] | sort | join(",")' out.json)" \
		"$(tq "$h" .bmc_mac)" "$v: the BMC's own MAC of $h"
	want=OK; [ "$h" = "$psu_node" ] && want=Critical
	assert_eq "$(jq -r .health out.json)" "$want" "$v: health of $h"
	[ "$(jq '[.sensors[] | select(.kind == "psu")] | length' out.json)" -ge 2 ] || fail "$v: PSUs of $h"
	[ "$(jq '.firmware | length' out.json)" -ge 1 ] || fail "$v: firmware of $h"
	# The table a technician reads says the same.
	bringup bmc --redfish "$h" > out.txt 2> err || fail "$v: table of $h exit $?: $(cat err)"
	grep -q "^Serial  *$(tq "$h" .system_serial)\$" out.txt || fail "$v: no serial line in $h's table"
	grep -q "^$(tq "$h" .bmc_mac)  *bmc " out.txt || fail "$v: no BMC MAC row in $h's table"
	seen=$((seen + 1))
done
assert_eq "$seen" 5 "nodes read"

# Without the inventory: the BMC's URL, a user and a password reference.
h0=$(jq -r '.nodes[0].hostname' $truth)
[ "$h0" != "$auth_node" ] || h0=$(jq -r '.nodes[1].hostname' $truth)
bringup bmc --bmc "http://$(tq "$h0" .bmc)" --user root --password-ref env:BRINGUP_BMC_PASSWORD --json > url.json 2> err ||
	fail "bmc --bmc exit $?: $(cat err)"
assert_eq "$(jq -r .system_serial url.json)" "$(tq "$h0" .system_serial)" "--bmc URL: serial"

# Operator mistakes stop before any BMC is asked (exit 2).
lines=$(wc -l < $log)
rc=0; bringup bmc --redfish no-such-node 2> err || rc=$?
assert_eq "$rc" 2 "an unknown node"
assert_contains "$(cat err)" "no-such-node" "the unknown node named"
rc=0; bringup bmc --redfish "$h0" --user root 2> err || rc=$?
assert_eq "$rc" 2 "--redfish HOST with --user"
rc=0; bringup bmc --bmc "http://$(tq "$h0" .bmc)" --user root --password-ref env:NO_SUCH_VARIABLE 2> err || rc=$?
assert_eq "$rc" 2 "an unset password reference"
assert_eq "$(wc -l < $log)" "$lines" "requests sent for operator mistakes"

# Nothing written: the inventory's rows as they were.
inv_sql inv.db --dump > after.sql
cmp -s before.sql after.sql || fail "the inventory changed: $(diff before.sql after.sql | head -5)"

# Only reads: every request since is a GET, but the session's login and
# logout; as many sessions deleted as created, at every BMC.
tail -n +"$((start + 1))" $log > mine.log
[ "$(wc -l < mine.log)" -gt 100 ] || fail "too few requests logged: $(wc -l < mine.log)"
other=$(jq -r 'select(.method != "GET") | select((.method == "POST" and (.path | test("^/redfish/v1/SessionService/Sessions/?$"))) or (.method == "DELETE" and (.path | test("^/redfish/v1/SessionService/Sessions/[^/]+$"))) | not) | .method + " " + .path' mine.log | head -3)
[ -z "$other" ] || fail "requests other than GET and session login/logout: $other"
assert_eq "$(jq -r 'select(.method == "PATCH" or .method == "PUT") | .path' mine.log | wc -l)" 0 "PATCH or PUT sent"
imbalance=$(jq -r 'select(.session == "created" or .session == "deleted") | .bmc + " " + .session' mine.log |
	awk '{ n[$1] += ($2 == "created") ? 1 : -1 } END { for (b in n) if (n[b] != 0) print b }')
[ -z "$imbalance" ] || fail "sessions left open at $imbalance"
[ "$(jq -r 'select(.session == "created") | .bmc' mine.log | sort -u | wc -l)" -eq 5 ] || fail "sessions at other than the 5 answering BMCs"
