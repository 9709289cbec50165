#!/bin/sh
# credentials rotate --site-user on a rack MAAS has enlisted: MAAS is given
# the site account (power_user and power_pass) before the factory account
# is disabled, so MAAS never loses power control: afterwards MAAS powers
# each node as the site account, and the factory account answers 401. The
# node whose machine MAAS refuses to update (maas_update_fail) keeps its
# factory account enabled, so MAAS, still on it, keeps powering the node;
# the site account is recorded, and a rerun (MAAS still refusing) leaves
# the factory account alone again.
. "$(dirname "$0")/lib.sh"
cd "$T"

bringup-sim --nodes 2 --dir sim --seed 3 --maas-commission-ms 200 --maas-deploy-ms 200 \
	--faults maas_update_fail:1 --daemon >/dev/null
at_exit "stop_sim $T/sim"
set -a; . ./sim/env; set +a
export BRINGUP_DB=$T/t.db
bringup import --manifest sim/rack.csv >/dev/null
bringup discover -q
rc=0
timeout 120 bringup enlist --skip-configure --poll-ms 50 --json > enlist.json 2>/dev/null || rc=$?
assert_eq "$rc" 0 "enlist exit"
factory=$BRINGUP_BMC_PASSWORD
refused=$(jq -r '.nodes[] | select(.faults | index("maas_update_fail")) | .hostname' sim/truth.json)
sid() { node_field t.db "$1" maas_system_id; }
power_query() { curl -s -o /dev/null -w '%{http_code}' -H "$(maas_auth)" "${MAAS_URL}api/2.0/machines/$(sid "$1")/?op=query_power_state"; }
power_user_pass() { maas_req GET "machines/$(sid "$1")/?op=power_parameters" | jq -r '.power_user + " " + .power_pass'; }
answer() {
	curl -s -o /dev/null -w '%{http_code}' -u "$2:$3" \
		"http://$(jq -r --arg h "$1" '.nodes[] | select(.hostname == $h) | .bmc' sim/truth.json)/redfish/v1/Systems"
}

rc=0
bringup credentials rotate --site-user bringup --store "file:$T/store" --json > out.json 2> log || rc=$?
assert_eq "$rc" 1 "rotate exit: $(tail -n 3 log)"
assert_eq "$(jq -c '[.rotated, .already, .failed]' out.json)" "[1,0,1]" "rotated, already, failed"
for h in $(jq -r '.nodes[].hostname' sim/truth.json); do
	new=$(cat "store/$h")
	assert_eq "$(inv_sql t.db "select bmc_user || ' ' || bmc_password_ref from nodes where hostname = '$h'")" \
		"bringup file:$T/store/$h" "$h: the site account recorded"
	assert_eq "$(answer "$h" bringup "$new")" 200 "$h: the site account logs in"
	if [ "$h" = "$refused" ]; then
		assert_contains "$(jq -r --arg h "$h" '.nodes[] | select(.hostname == $h) | .reason' out.json)" \
			"MAAS refused the new power parameters" "$h: reason"
		assert_eq "$(power_user_pass "$h")" "root $factory" "$h: MAAS keeps the factory account"
		assert_eq "$(answer "$h" root "$factory")" 200 "$h: the factory account stays enabled for MAAS"
		assert_eq "$(power_query "$h")" 200 "$h: MAAS still powers it"
		continue
	fi
	assert_eq "$(power_user_pass "$h")" "bringup $new" "$h: MAAS has the site account"
	assert_eq "$(answer "$h" root "$factory")" 401 "$h: the factory account disabled"
	assert_eq "$(power_query "$h")" 200 "$h: MAAS powers it as the site account"
done
# (The refused node's factory account staying enabled is what shows the
# order: MAAS is asked before any factory account is disabled.)

rc=0
bringup credentials rotate --site-user bringup --store "file:$T/store" --json > again.json 2>/dev/null || rc=$?
assert_eq "$rc" 1 "second rotate exit"
assert_eq "$(jq -c '[.rotated, .already, .failed]' again.json)" "[0,1,1]" "second run"
assert_eq "$(answer "$refused" root "$factory")" 200 "$refused: the factory account still enabled after the rerun"
assert_eq "$(power_query "$refused")" 200 "$refused: MAAS still powers it after the rerun"
echo ok
