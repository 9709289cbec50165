#!/bin/sh
# bringup credentials rotate on a rack with factory credentials: every BMC
# answers only its new password afterwards (the factory one gets 401), the
# inventory holds only references (file:STORE/HOST), the store's files are
# 0600, no password (factory or new) is in stdout, --json, the verbose log,
# the inventory or the sim's request log; a BMC asking for a password change
# at first login (PasswordChangeRequired) is rotated too; one that refuses
# the new password fails with the BMC's message and keeps its factory
# password working, and is failed in the inventory with the kind
# bmc_credentials (status's failure_kind, the ticket's fault, an action
# naming the password policy), which only a rotation takes back. A second
# run finds every node rotated already; a failed rotation that a rerun
# finishes puts the nodes back where they were and closes their tickets.
. "$(dirname "$0")/lib.sh"
cd "$T"
bringup-sim --no-hosts --nodes 6 --dir sim --seed 5 --faults password_change_required:1,password_refused:1 --daemon >/dev/null
at_exit "stop_sim $T/sim"
set -a; . ./sim/env; set +a
export BRINGUP_DB=$T/t.db
bringup import --manifest sim/rack.csv >/dev/null
factory=$BRINGUP_BMC_PASSWORD
changer=$(jq -r '.nodes[] | select(.faults | index("password_change_required")) | .hostname' sim/truth.json)
refuser=$(jq -r '.nodes[] | select(.faults | index("password_refused")) | .hostname' sim/truth.json)
bmc_of() { jq -r --arg h "$1" '.nodes[] | select(.hostname == $h) | .bmc' sim/truth.json; }
# HTTP status of a read of the Systems collection with basic auth.
answer() { curl -s -o /dev/null -w '%{http_code}' -u "root:$2" "http://$(bmc_of "$1")/redfish/v1/Systems"; }

# Before: the change-required BMC logs in but may read nothing; discover
# says what to do about it.
assert_eq "$(answer "$changer" "$factory")" 403 "$changer before rotation (PasswordChangeRequired)"
bringup discover -q "$changer" 2>/dev/null || true
assert_contains "$(node_field t.db "$changer" reason)" \
	"the BMC requires its password to be changed first (bringup credentials rotate)" "$changer: discover's reason"

rc=0
bringup credentials rotate -v --store "file:$T/store" --json > out.json 2> log || rc=$?
assert_eq "$rc" 1 "rotate exit code (one BMC refuses): $(tail -n 3 log)"
assert_eq "$(jq -c '[.rotated, .already, .failed]' out.json)" "[5,0,1]" "rotated, already, failed"
assert_eq "$(jq -r --arg h "$refuser" '.nodes[] | select(.hostname == $h) | .result' out.json)" failed "$refuser result"
assert_contains "$(jq -r --arg h "$refuser" '.nodes[] | select(.hostname == $h) | .reason' out.json)" \
	"Base.1.12.PropertyValueError: The value provided for the property Password is not valid." "$refuser reason"
assert_eq "$(jq -r --arg h "$refuser" '.nodes[] | select(.hostname == $h) | .failure_kind' out.json)" bmc_credentials "$refuser failure_kind in --json"
assert_eq "$(jq -r '[.nodes[] | select(.result != "failed") | .failure_kind // "none"] | unique | join(",")' out.json)" none "no failure_kind on the rotated"
assert_eq "$(jq -r --arg h "$changer" '.nodes[] | select(.hostname == $h) | [.result, .password_change_required] | join(",")' out.json)" \
	"rotated,true" "$changer: rotated through PasswordChangeRequired"
# the refusal is the node's failure: status, and a ticket a person can act on
assert_eq "$(node_field t.db "$refuser" state),$(node_field t.db "$refuser" failure_kind)" failed,bmc_credentials "$refuser in the inventory"
# (the change-required node stays failed as discover left it: discover's to take back)
assert_eq "$(bringup status --json | jq -r '[.nodes[] | select(.state == "failed") | .hostname + "=" + .failure_kind] | sort | join(" ")')" \
	"$(printf '%s\n' "$changer=bmc_auth" "$refuser=bmc_credentials" | sort | paste -sd ' ' -)" "failed nodes and their kinds"
bringup tickets --format json > tickets.json
assert_eq "$(jq -r --arg h "$refuser" '.tickets[] | select(.hostname == $h) | .fault' tickets.json)" bmc_credentials "$refuser: the ticket's fault"
assert_contains "$(jq -r --arg h "$refuser" '.tickets[] | select(.hostname == $h) | .action' tickets.json)" "check the BMC's password policy" "the ticket's action"
assert_contains "$(jq -r --arg h "$refuser" '.tickets[] | select(.hostname == $h) | .evidence' tickets.json)" "Base.1.12.PropertyValueError" "the ticket's evidence: the BMC's message"

for h in $(jq -r '.nodes[].hostname' sim/truth.json); do
	ref=$(inv_sql t.db "select bmc_password_ref from nodes where hostname = '$h'")
	if [ "$h" = "$refuser" ]; then
		assert_eq "$ref" "env:BRINGUP_BMC_PASSWORD" "$h: reference kept"
		assert_eq "$(answer "$h" "$factory")" 200 "$h: factory password still works"
		continue
	fi
	assert_eq "$ref" "file:$T/store/$h" "$h: the inventory's reference"
	assert_eq "$(stat -c %a "store/$h")" 600 "$h: store file mode"
	new=$(cat "store/$h")
	[ "$new" != "$factory" ] || fail "$h: the new password is the factory one"
	# the policy: MinPasswordLength 8, MaxPasswordLength 20 (32 wanted);
	# the change-required BMC's policy could not be read: 20
	assert_eq "${#new}" 20 "$h: new password length"
	assert_eq "$(answer "$h" "$new")" 200 "$h: the new password"
	assert_eq "$(answer "$h" "$factory")" 401 "$h: the factory password"
	assert_contains "$(bringup history "$h")" "password file:$T/store/$h (were root, env:BRINGUP_BMC_PASSWORD)" "$h: history"
done
assert_eq "$(stat -c %a store)" 700 "store directory mode"
# only references in the inventory
bad=$(inv_sql t.db "select hostname from nodes where bmc_password_ref not like 'env:%' and bmc_password_ref not like 'file:%'")
assert_eq "$bad" "" "nodes whose bmc_password is not a reference"
# no secret anywhere it could leak to
inv_sql t.db --dump > dump.sql
for f in store/*; do
	for where in out.json log dump.sql sim/requests.log; do
		! grep -qF "$(cat "$f")" "$where" || fail "the new password of $(basename "$f") is in $where"
	done
done
for where in out.json log dump.sql sim/requests.log; do
	! grep -qF "$factory" "$where" || fail "the factory password is in $where"
done
# the PATCHes were sent, and logged redacted
assert_eq "$(jq -r 'select(.method == "PATCH" and (.path | test("/AccountService/Accounts/"))) | .body.Password' sim/requests.log | sort -u)" \
	"<redacted>" "account PATCH bodies"

# Again: every rotated node is checked with its stored password and left
# alone; the refusing one tries the same stored password again.
rc=0
bringup credentials rotate --store "file:$T/store" --json > again.json 2>/dev/null || rc=$?
assert_eq "$rc" 1 "second rotate exit code"
assert_eq "$(jq -c '[.rotated, .already, .failed]' again.json)" "[0,5,1]" "second run"
for h in $(jq -r '.nodes[].hostname' sim/truth.json); do
	[ "$h" = "$refuser" ] && continue
	assert_eq "$(answer "$h" "$(cat "store/$h")")" 200 "$h: still the stored password"
done
assert_eq "$(node_field t.db "$refuser" failure_kind)" bmc_credentials "$refuser still failed after the second run"
# discover reads every rotated BMC through the new reference; the refuser
# is credentials rotate's to take back, not discover's
rc=0
bringup discover "$refuser" > /dev/null 2> err || rc=$?
assert_eq "$rc" 2 "discover of the node a rotation failed"
assert_contains "$(cat err)" "is 'failed' (in credentials): run bringup credentials" "why discover refuses it"
bringup discover -q >/dev/null 2>&1 || true
assert_eq "$(nodes_in t.db discovered)" 5 "discovered with the recorded references"

# A site password the BMCs' policy refuses (30 characters, 8-20 allowed)
# fails the rotated nodes with bmc_credentials; the rerun with the store
# (every node already on it) puts them back to discovered and tickets
# closes their tickets.
export LONG_SITE_PW=abcdefghijABCDEFGHIJ0123456789
rc=0
bringup credentials rotate --site-password env:LONG_SITE_PW --json > long.json 2>/dev/null || rc=$?
assert_eq "$rc" 1 "a site password too long: exit"
assert_eq "$(jq -r '[.nodes[] | .failure_kind] | unique | join(",")' long.json)" bmc_credentials "a site password too long: failure_kind"
assert_contains "$(jq -r '.nodes[0].reason' long.json)" "the BMC's policy wants 8-20" "a site password too long: reason"
assert_eq "$(nodes_in t.db failed)" 6 "failed by the refused site password"
assert_eq "$(bringup tickets --format json | jq '[.tickets[] | select(.fault == "bmc_credentials")] | length')" 6 "bmc_credentials tickets"
rc=0
bringup credentials rotate --store "file:$T/store" --json > back.json 2>/dev/null || rc=$?
assert_eq "$rc" 1 "back on the store: exit (the refuser still refuses)"
assert_eq "$(jq -c '[.rotated, .already, .failed]' back.json)" "[0,5,1]" "back on the store"
assert_eq "$(nodes_in t.db discovered),$(nodes_in t.db failed)" 5,1 "the rotated back where they were"
assert_contains "$(bringup history "$(jq -r '.nodes[] | select(.result == "already") | .hostname' back.json | head -n 1)")" \
	"BMC credentials rotated" "history of a node taken back"
bringup tickets --format json > tickets.json
assert_eq "$(jq -r '[.tickets[] | select(.status == "open") | .hostname] | join(" ")' tickets.json)" "$refuser" "open tickets after the rotation finished"

# Operator mistakes: exit 2, nothing touched.
before=$(inventory_state t.db)
for args in "" "--store file:$T/store --site-password env:NOPE" "--site-password env:UNSET_VAR_X" "--store dir:$T/x"; do
	rc=0
	# shellcheck disable=SC2086
	bringup credentials rotate $args > /dev/null 2> err || rc=$?
	assert_eq "$rc" 2 "rotate $args: exit code ($(cat err))"
done
chmod 755 store
rc=0
bringup credentials rotate --store "file:$T/store" > /dev/null 2> err || rc=$?
assert_eq "$rc" 2 "a store open to others"
assert_contains "$(cat err)" "open to other users" "why the store is refused"
rc=0
bringup credentials > /dev/null 2> err || rc=$?
assert_eq "$rc" 2 "credentials without rotate"
assert_eq "$(inventory_state t.db)" "$before" "inventory after the refused runs"
assert_contains "$(bringup credentials --help)" "usage: bringup-credentials rotate" "help"
echo ok
