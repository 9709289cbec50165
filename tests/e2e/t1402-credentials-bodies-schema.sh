#!/bin/sh
# The account bodies credentials rotate sends (the ManagerAccount PATCH of
# Password, on an ordinary iDRAC and on one whose login says
# PasswordChangeRequired), held to DMTF's ManagerAccount schema as
# configure's are (tests/check-redfish-bodies.py over the sim's request log,
# schemas vendored in tests/fixtures/dmtf-json-schema); here with one site
# password for the rack (--site-password). Crafted bad account bodies, and a
# create that lacks what DMTF requires on create, are refused by name.
. "$(dirname "$0")/lib.sh"
cd "$T"
check() { /usr/bin/python3 "$BR_TOP/tests/check-redfish-bodies.py" "$@"; }
bringup-sim --no-hosts --nodes 3 --dir sim --seed 4 --faults password_change_required:1 --daemon >/dev/null
at_exit "stop_sim $T/sim"
set -a; . ./sim/env; set +a
export BRINGUP_DB=$T/t.db
bringup import --manifest sim/rack.csv >/dev/null
echo "Site2Pass4Rack0" > site.pw
rc=0
bringup credentials rotate --site-password "file:$T/site.pw" --json > out.json 2> err || rc=$?
assert_eq "$rc" 0 "rotate to the site password ($(cat err))"
assert_eq "$(jq -c '[.rotated, .failed]' out.json)" "[3,0]" "rotated"
assert_eq "$(jq -r '[.nodes[].password_ref] | unique | join(",")' out.json)" "file:$T/site.pw" "every node references the site file"
cp sim/requests.log rot.log
# the checker reads each target with the password the BMCs have now
rc=0
BRINGUP_BMC_PASSWORD=$(cat site.pw) check --json rot.log > rot.check || rc=$?
[ "$rc" -eq 0 ] || fail "account bodies that break DMTF's schemas: $(jq -c '.violations' rot.check)"
patches=$(jq -r 'select(.method == "PATCH" and (.path | test("/AccountService/Accounts/"))) | .path' rot.log | grep -c .)
assert_eq "$patches" 3 "account PATCHes sent"
assert_eq "$(jq '.checked["ManagerAccount PATCH"] // 0' rot.check)" "$patches" "account PATCHes checked"
! grep -qF "$(cat site.pw)" rot.log out.json err || fail "the site password in a log or the output"

# Crafted account bodies against a real target: a good create passes, the
# bad ones are refused, each by name.
bmc=$(jq -r '.nodes[0].bmc' sim/truth.json)
A=/redfish/v1/AccountService/Accounts
line() { jq -nc --arg b "$bmc" --arg m "$1" --arg p "$2" --argjson body "$3" \
	'{bmc: $b, node: "x", method: $m, path: $p, status: 200, body: $body}'; }
line POST "$A" '{"UserName":"bringup","Password":"<redacted>","RoleId":"Administrator","Enabled":true}' > good.log
rc=0
BRINGUP_BMC_PASSWORD=$(cat site.pw) check --json good.log > good.check || rc=$?
assert_eq "$rc" 0 "a good account create ($(jq -c .violations good.check))"
assert_eq "$(jq -c .checked good.check)" '{"ManagerAccount create":1}' "the create checked"
{
	line PATCH "$A/2" '{"Password":5}'
	line PATCH "$A/2" '{"Password":"<redacted>","HostBootstrapAccount":true}'
	line PATCH "$A/2" '{"Passwd":"<redacted>"}'
	line POST "$A" '{"UserName":"bringup","Password":"<redacted>"}'
} > bad.log
rc=0
BRINGUP_BMC_PASSWORD=$(cat site.pw) check --json bad.log > bad.check || rc=$?
assert_eq "$rc" 1 "checker exit code on bad account bodies"
why() { jq -r --argjson l "$1" '[.violations[] | select(.line == $l) | .message] | join("; ")' bad.check; }
assert_contains "$(why 1)" "Password: 5 is not of type" "password of the wrong type"
assert_contains "$(why 2)" "HostBootstrapAccount: is read-only" "read-only property"
assert_contains "$(why 3)" "'Passwd' does not match any of the regexes" "unknown property"
assert_contains "$(why 4)" "'RoleId' is a required property" "create without RoleId"
echo ok
