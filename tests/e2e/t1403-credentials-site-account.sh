#!/bin/sh
# credentials rotate --site-user: on each BMC a site account with the
# Administrator role is created (a POST to Accounts, held to DMTF's
# ManagerAccount schema), logged in with, recorded (bmc_user and
# bmc_password), and only then is the factory account disabled (a PATCH of
# Enabled false, logged in as the site account, sent after the POST). The
# factory credentials get 401 afterwards. A second run (as after one stopped
# between the record and the retirement) finds the site account recorded
# and retires the factory account the record's event names.
. "$(dirname "$0")/lib.sh"
cd "$T"
check() { /usr/bin/python3 "$BR_TOP/tests/check-redfish-bodies.py" "$@"; }
bringup-sim --no-hosts --nodes 4 --dir sim --seed 6 --daemon >/dev/null
at_exit "stop_sim $T/sim"
set -a; . ./sim/env; set +a
export BRINGUP_DB=$T/t.db
bringup import --manifest sim/rack.csv >/dev/null
factory=$BRINGUP_BMC_PASSWORD
answer() { curl -s -o /dev/null -w '%{http_code}' -u "$2:$3" "http://$1/redfish/v1/Systems"; }

rc=0
bringup credentials rotate --site-user bringup --store "file:$T/store" --json > out.json 2> err || rc=$?
assert_eq "$rc" 0 "rotate to a site account ($(cat err))"
assert_eq "$(jq -c '[.rotated, .failed]' out.json)" "[4,0]" "rotated"
jq -r '.nodes[] | "\(.hostname) \(.bmc)"' sim/truth.json > nodes.txt
while read -r h bmc; do
	assert_eq "$(inv_sql t.db "select bmc_user || ' ' || bmc_password_ref from nodes where hostname = '$h'")" \
		"bringup file:$T/store/$h" "$h: recorded account"
	assert_eq "$(answer "$bmc" bringup "$(cat "store/$h")")" 200 "$h: the site account"
	assert_eq "$(answer "$bmc" root "$factory")" 401 "$h: the factory account"
	role=$(curl -s -u "bringup:$(cat "store/$h")" "http://$bmc/redfish/v1/AccountService/Accounts/3" | jq -r '.UserName + " " + .RoleId')
	assert_eq "$role" "bringup Administrator" "$h: the site account's role"
	# the order: create, then (after the login with it) the factory account disabled
	order=$(jq -r --arg h "$h" 'select(.node == $h and (.path | test("/AccountService/Accounts"))
		and (.method == "POST" or .method == "PATCH")) | "\(.method) \(.auth)"' sim/requests.log | paste -sd, -)
	assert_eq "$order" "POST session,PATCH session" "$h: account writes in order"
done < nodes.txt
last_login=$(jq -r 'select(.method == "POST" and (.path | test("Sessions")) and .body.UserName == "bringup") | .node' sim/requests.log | sort -u | wc -l)
assert_eq "$last_login" 4 "a login as the site account on every BMC"
# bodies against DMTF's schemas; the checker reads targets as the site account,
# one password per BMC: only the first BMC's targets are readable with it,
# so hold that BMC's lines alone
first=$(head -n 1 nodes.txt | cut -d' ' -f1)
jq -c --arg h "$first" 'select(.node == $h)' sim/requests.log > first.log
rc=0
BRINGUP_BMC_USER=bringup BRINGUP_BMC_PASSWORD=$(cat "store/$first") check --json first.log > first.check || rc=$?
[ "$rc" -eq 0 ] || fail "site account bodies that break DMTF's schemas: $(jq -c .violations first.check)"
assert_eq "$(jq -c '[.checked["ManagerAccount create"], .checked["ManagerAccount PATCH"]]' first.check)" "[1,1]" "create and retire bodies checked"
for f in store/*; do
	! grep -qF "$(cat "$f")" out.json err sim/requests.log || fail "a new password in the output or a log"
done

# Again, as after a run stopped between the record and the retirement: the
# site account is recorded (already); the factory account, which the
# inventory names no more, is the one the record's event names, and is
# disabled again.
: > sim/requests.log
rc=0
bringup credentials rotate --site-user bringup --store "file:$T/store" --json > again.json 2>/dev/null || rc=$?
assert_eq "$rc" 0 "second run"
assert_eq "$(jq -c '[.already, .failed]' again.json)" "[4,0]" "second run: already"
assert_eq "$(jq -r '[.nodes[].reason] | unique | join(",")' again.json)" "" "second run: no reason"
assert_eq "$(jq -r 'select(.method == "POST" and (.path | test("/Accounts/?$"))) | .node' sim/requests.log | wc -l)" 0 "no account created again"
assert_eq "$(jq -r 'select(.method == "PATCH" and .body.Enabled == false) | .path' sim/requests.log | sort -u)" \
	"/redfish/v1/AccountService/Accounts/2" "the factory account (root, slot 2) disabled again"
while read -r h bmc; do
	assert_eq "$(answer "$bmc" root "$factory")" 401 "$h: the factory account after the second run"
done < nodes.txt
rc=0
bringup credentials rotate --factory-user root --store "file:$T/store" >/dev/null 2>&1 || rc=$?
assert_eq "$rc" 2 "--factory-user alone"
echo ok
