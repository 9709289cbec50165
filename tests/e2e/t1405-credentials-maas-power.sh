#!/bin/sh
# bringup credentials rotate on a rack MAAS has enlisted: afterwards MAAS's
# power parameters (GET machines/ID/?op=power_parameters, admin only, as
# in MAAS) hold each BMC's new password and MAAS's power query works
# (the emulator judges it against the simulated BMC's accounts as they are
# now); the node whose machine MAAS answers 500 on the update (test fault
# maas_update_fail) fails alone, with MAAS's text, its BMC on the new
# (recorded) password and MAAS's power query failing; it is failed in the
# inventory with the kind maas_power and its ticket tells a MAAS admin
# that MAAS holds an old BMC password (--no-maas does not take it back). No password is in
# --json, the log, the inventory, the emulators' request logs or any
# process's argv. A second run updates MAAS again (idempotent); an
# enlisted rack with no MAAS named is refused (exit 2) before any BMC is
# touched, and --no-maas leaves MAAS alone.
. "$(dirname "$0")/lib.sh"
cd "$T"

bringup-sim --nodes 3 --dir sim --seed 7 --maas-commission-ms 200 --maas-deploy-ms 200 \
	--faults maas_update_fail:1 --daemon >/dev/null
at_exit "stop_sim $T/sim"
set -a; . ./sim/env; set +a
export BRINGUP_DB=$T/t.db
bringup import --manifest sim/rack.csv >/dev/null
bringup discover -q
rc=0
timeout 120 bringup enlist --skip-configure --poll-ms 50 --json > enlist.json 2>/dev/null || rc=$?
assert_eq "$rc" 0 "enlist exit"
assert_eq "$(jq .deployed enlist.json)" 3 "deployed"
factory=$BRINGUP_BMC_PASSWORD
refused=$(jq -r '.nodes[] | select(.faults | index("maas_update_fail")) | .hostname' sim/truth.json)
[ -n "$refused" ] || fail "no node with maas_update_fail"
sid() { node_field t.db "$1" maas_system_id; }
# MAAS's power query: HTTP status (200, or 503 PowerProblem)
power_query() { curl -s -o /dev/null -w '%{http_code}' -H "$(maas_auth)" "${MAAS_URL}api/2.0/machines/$(sid "$1")/?op=query_power_state"; }
power_pass() { maas_req GET "machines/$(sid "$1")/?op=power_parameters" | jq -r .power_pass; }
for h in $(jq -r '.nodes[].hostname' sim/truth.json); do
	[ -n "$(sid "$h")" ] || fail "$h has no system_id after enlist"
	assert_eq "$(power_query "$h")" 200 "$h: MAAS powers it before the rotation"
done
# power_parameters is an admin's (the operator gets MAAS's 403)
code=$(curl -s -o /dev/null -w '%{http_code}' -H "$(maas_auth "$MAAS_OPERATOR_API_KEY")" \
	"${MAAS_URL}api/2.0/machines/$(sid "$refused")/?op=power_parameters")
assert_eq "$code" 403 "power_parameters for a non-admin"

# An enlisted rack, MAAS not named: refused before any BMC is touched.
before=$(inventory_state t.db)
rc=0
env -u MAAS_URL bringup credentials rotate --store "file:$T/store" > /dev/null 2> err || rc=$?
assert_eq "$rc" 2 "rotate without MAAS_URL: exit ($(cat err))"
assert_contains "$(cat err)" "is enlisted in MAAS: set MAAS_URL" "why"
assert_eq "$(inventory_state t.db)" "$before" "inventory after the refused run"
[ ! -e store ] || [ -z "$(ls store)" ] || fail "a refused run stored passwords"
assert_eq "$(power_query "$refused")" 200 "BMCs untouched by the refused run"

# The rotation, every process's argv sampled while it runs.
rc=0
bringup credentials rotate -v --store "file:$T/store" --json > out.json 2> log &
pid=$!
while kill -0 "$pid" 2>/dev/null; do ps -eo args >> argv.log; done
wait "$pid" || rc=$?
assert_eq "$rc" 1 "rotate exit (MAAS refuses one node): $(tail -n 3 log)"
assert_eq "$(jq -c '[.rotated, .already, .failed]' out.json)" "[2,0,1]" "rotated, already, failed"
for h in $(jq -r '.nodes[].hostname' sim/truth.json); do
	new=$(cat "store/$h")
	assert_eq "$(inv_sql t.db "select bmc_password_ref from nodes where hostname = '$h'")" "file:$T/store/$h" \
		"$h: the inventory references the store"
	code=$(curl -s -o /dev/null -w '%{http_code}' -u "root:$new" "http://$(jq -r --arg h "$h" '.nodes[] | select(.hostname == $h) | .bmc' sim/truth.json)/redfish/v1/Systems")
	assert_eq "$code" 200 "$h: the BMC takes the new password"
	if [ "$h" = "$refused" ]; then
		assert_eq "$(jq -r --arg h "$h" '.nodes[] | select(.hostname == $h) | [.result, .maas_power] | join(",")' out.json)" \
			"failed,failed" "$h: result"
		assert_contains "$(jq -r --arg h "$h" '.nodes[] | select(.hostname == $h) | .reason' out.json)" \
			"MAAS refused the new power parameters of machine $(sid "$h")" "$h: reason"
		assert_contains "$(jq -r --arg h "$h" '.nodes[] | select(.hostname == $h) | .reason' out.json)" \
			"HTTP 500" "$h: reason quotes MAAS's answer"
		assert_eq "$(power_pass "$h")" "$factory" "$h: MAAS keeps the factory password"
		assert_eq "$(power_query "$h")" 503 "$h: MAAS can no longer power it"
		assert_eq "$(jq -r --arg h "$h" '.nodes[] | select(.hostname == $h) | .failure_kind' out.json)" maas_power "$h: failure_kind in --json"
		assert_eq "$(node_field t.db "$h" state),$(node_field t.db "$h" failure_kind)" failed,maas_power "$h: in the inventory"
		bringup tickets --format json > tickets.json
		assert_eq "$(jq -r '[.tickets[] | .hostname + "=" + .fault] | join(" ")' tickets.json)" "$h=maas_power" "tickets"
		assert_contains "$(jq -r '.tickets[0].action' tickets.json)" "MAAS holds an old BMC password for $h" "the ticket's action"
		assert_contains "$(jq -r '.tickets[0].evidence' tickets.json)" "HTTP 500" "the ticket's evidence: MAAS's answer"
		continue
	fi
	assert_eq "$(jq -r --arg h "$h" '.nodes[] | select(.hostname == $h) | [.result, .maas_power] | join(",")' out.json)" \
		"rotated,updated" "$h: result"
	assert_eq "$(power_pass "$h")" "$new" "$h: MAAS has the new password"
	assert_eq "$(maas_req GET "machines/$(sid "$h")/?op=power_parameters" | jq -r '[.power_user, .power_address] | join(" ")')" \
		"root $(inv_sql t.db "select bmc from nodes where hostname = '$h'")" "$h: MAAS's power user and address"
	assert_eq "$(power_query "$h")" 200 "$h: MAAS powers it with the new password"
done
# The updates: one PUT per enlisted node, its form logged without the password.
assert_eq "$(jq -r 'select(.method == "PUT") | .status' sim/maas-requests.log | sort | uniq -c | awk '{print $1 "x" $2}' | paste -sd ' ' -)" \
	"2x200 1x500" "PUTs MAAS answered"
# No secret anywhere it could leak to.
inv_sql t.db --dump > dump.sql
for f in store/*; do
	for where in out.json log dump.sql sim/requests.log sim/maas-requests.log argv.log; do
		! grep -qF "$(cat "$f")" "$where" || fail "the new password of $(basename "$f") is in $where"
	done
done
for where in out.json log dump.sql sim/requests.log sim/maas-requests.log; do
	! grep -qF "$factory" "$where" || fail "the factory password is in $where"
done

# Again: every node is recorded; MAAS gets the parameters again (the
# same ones), and still refuses the one.
rc=0
bringup credentials rotate --store "file:$T/store" --json > again.json 2>/dev/null || rc=$?
assert_eq "$rc" 1 "second rotate exit"
assert_eq "$(jq -c '[.rotated, .already, .failed]' again.json)" "[0,2,1]" "second run"
assert_eq "$(jq -r '[.nodes[] | .maas_power] | sort | join(",")' again.json)" "failed,updated,updated" "second run's MAAS updates"
assert_eq "$(jq -r 'select(.method == "PUT") | .status' sim/maas-requests.log | grep -c 200)" 4 "PUTs answered 200 over both runs"
for h in $(jq -r '.nodes[].hostname' sim/truth.json); do
	[ "$h" = "$refused" ] && continue
	assert_eq "$(power_query "$h")" 200 "$h: MAAS powers it after the second run"
done

# --no-maas: MAAS is not asked.
puts=$(grep -c '"method":"PUT"' sim/maas-requests.log)
rc=0
env -u MAAS_URL bringup credentials rotate --no-maas --store "file:$T/store" --json > nomaas.json 2>/dev/null || rc=$?
assert_eq "$rc" 0 "rotate --no-maas exit"
assert_eq "$(jq -c '[.rotated, .already, .failed, ([.nodes[] | .maas_power // "none"] | unique)]' nomaas.json)" '[0,3,0,["none"]]' "--no-maas run"
assert_eq "$(grep -c '"method":"PUT"' sim/maas-requests.log)" "$puts" "no PUT with --no-maas"
assert_eq "$(node_field t.db "$refused" failure_kind)" maas_power "--no-maas leaves $refused failed: MAAS still has the old password"
assert_eq "$(nodes_in t.db deployed)" 2 "the others stay deployed"
echo ok
