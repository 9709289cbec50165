#!/bin/sh
# bringup tickets --jira / --servicenow, against the simulator's Jira and
# ServiceNow stand-ins (their documented REST shapes): each ticket is
# searched for by its correlation id first and created only when none is
# open (Jira v3: the description an Atlassian Document, the search at
# search/jql; v2: a string, /search; ServiceNow: an incident with
# correlation_id). An inventory that forgot what it delivered (a copy from
# before) files nothing twice: the issue is found and updated. A fault that
# is gone is a comment on the issue, or the incident Resolved with a close
# code and notes (the stand-in refuses it otherwise). The Authorization
# header comes by reference and is in no log or output; a refused one is
# exit 3, none or a literal one exit 2.
. "$(dirname "$0")/lib.sh"
cd "$T"
bringup sim --no-hosts --nodes 3 --seed 2 --faults bmc_auth,bmc_down --dir rack --daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
log=rack/requests.log
sys_log() { grep "\"node\":\"$1\"" $log; }
db=$(db_for inv)
bringup import --db "$db" --manifest rack/rack.csv -q
bringup discover --db "$db" -q --bmc-deadline 5 || true
bringup tickets --db "$db" -q
assert_eq "$(bringup tickets --db "$db" --json | jq '.tickets | length')" 2 "tickets filed in the inventory"
cp "$db" pristine.db # nothing delivered yet
auth_node=$(jq -r '.nodes[] | select(.faults | index("bmc_auth")) | .hostname' rack/truth.json)

jira() { bringup tickets --jira "$JIRA_URL" --jira-project "$JIRA_PROJECT" --post-auth-ref env:JIRA_AUTHORIZATION "$@"; }
sn() { bringup tickets --servicenow "$SERVICENOW_URL" --post-auth-ref env:SERVICENOW_AUTHORIZATION "$@"; }

# Jira Cloud (v3) first: created, the description an Atlassian Document.
cp pristine.db v3.db
jira --db v3.db --jira-api 3 --json > out.json 2> err || fail "jira v3 exit $?: $(cat err)"
assert_eq "$(jq .posted out.json)" 2 "tickets filed in Jira (v3)"
sys_log jira > j1.log
assert_eq "$(jq -r 'select(.method == "POST") | .path' j1.log | sort -u)" /rest/api/3/issue "v3 creates at"
assert_eq "$(jq -r 'select(.method == "GET") | .path' j1.log | cut -d'?' -f1 | sort -u)" /rest/api/3/search/jql \
	"v3 searches at"
assert_eq "$(jq -r 'select(.method == "POST") | .body.fields.description.type' j1.log | sort -u)" doc \
	"v3 description"
assert_eq "$(jq -r 'select(.method == "POST") | .body.fields | "\(.project.key) \(.issuetype.name)"' j1.log | sort -u)" \
	"DC Task" "project and issue type"
jq -r 'select(.method == "POST") | .body.fields.labels | join(" ")' j1.log | grep -q "^bringup bringup-$auth_node-bmc_auth\$" ||
	fail "no correlation label for $auth_node's bmc_auth: $(jq -c 'select(.method == "POST") | .body.fields.labels' j1.log)"
jq -r 'select(.method == "POST") | .body.fields.summary' j1.log | grep -q "^rack r01 U[0-9]* $auth_node: bmc_auth\$" ||
	fail "summary: $(jq -r 'select(.method == "POST") | .body.fields.summary' j1.log)"

# Server/Data Center (v2) from an inventory that never delivered: the
# issues are found by label and updated (a string description), none filed.
n=$(wc -l < $log)
cp pristine.db v2.db
jira --db v2.db --json > out.json 2> err || fail "jira v2 exit $?: $(cat err)"
assert_eq "$(jq .posted out.json)" 2 "tickets delivered to Jira (v2)"
tail -n +$((n + 1)) $log | grep '"node":"jira"' > j2.log
assert_eq "$(jq -r .method j2.log | sort | uniq -c | tr -s ' ' | tr '\n' ';')" " 2 GET; 2 PUT;" "v2 requests"
assert_eq "$(jq -r 'select(.method == "PUT") | .body.fields.description | type' j2.log | sort -u)" string "v2 description"
total=$(curl -sf -H "Authorization: $JIRA_AUTHORIZATION" "${JIRA_URL}rest/api/2/search?jql=project%20%3D%20DC" | jq .total)
assert_eq "$total" 2 "issues in Jira"
# Delivered: a second run sends nothing.
n=$(wc -l < $log)
jira --db v2.db -q || fail "second v2 run"
assert_eq "$(tail -n +$((n + 1)) $log | grep -c '"node":"jira"')" 0 "requests for delivered tickets"
# The fault gone (the node retired: its bmc_auth ticket closes, a
# 'retired' one opens): a comment on its issue, one new issue.
bringup retire --db v2.db "$auth_node" -q
bringup tickets --db v2.db -q
n=$(wc -l < $log)
jira --db v2.db --json > out.json 2> err || fail "jira after retire exit $?: $(cat err)"
tail -n +$((n + 1)) $log | grep '"node":"jira"' > j3.log
assert_eq "$(jq -r 'select(.method == "POST") | .path' j3.log | sort | tr '\n' ' ')" \
	"/rest/api/2/issue /rest/api/2/issue/DC-1/comment " "after the fault is gone"

# ServiceNow: incidents with correlation_id, found again, resolved.
cp pristine.db sn.db
sn --db sn.db --json > out.json 2> err || fail "servicenow exit $?: $(cat err)"
assert_eq "$(jq .posted out.json)" 2 "incidents filed"
sys_log servicenow > s1.log
assert_eq "$(jq -r 'select(.method == "POST") | .path' s1.log | sort -u)" /api/now/table/incident "incident created at"
assert_eq "$(jq -r 'select(.method == "POST") | .body.correlation_id' s1.log | grep -c "^bringup-$auth_node-bmc_auth\$")" 1 \
	"correlation_id of $auth_node's bmc_auth"
[ "$(jq -r 'select(.method == "POST") | .body.short_description | length' s1.log | sort -n | tail -1)" -le 160 ] ||
	fail "short_description past 160 characters"
n=$(wc -l < $log)
cp pristine.db sn2.db
sn --db sn2.db -q 2> err || fail "servicenow again exit $?: $(cat err)"
assert_eq "$(tail -n +$((n + 1)) $log | grep '"node":"servicenow"' | jq -r .method | sort | uniq -c | tr -s ' ' | tr '\n' ';')" \
	" 2 GET; 2 PATCH;" "an inventory that forgot: found and updated"
bringup retire --db sn.db "$auth_node" -q
bringup tickets --db sn.db -q
n=$(wc -l < $log)
sn --db sn.db -q 2> err || fail "servicenow after retire exit $?: $(cat err)"
tail -n +$((n + 1)) $log | grep '"node":"servicenow"' > s3.log
assert_eq "$(jq -r 'select(.method == "PATCH") | "\(.status) \(.body.state) \(.body.close_code)"' s3.log)" \
	"200 6 Solution provided" "the incident resolved"
assert_eq "$(jq -r 'select(.method == "POST") | .status' s3.log)" 201 "the retired ticket's incident"
active=$(curl -sf -H "Authorization: $SERVICENOW_AUTHORIZATION" \
	"${SERVICENOW_URL}api/now/table/incident?sysparm_query=active%3Dtrue&sysparm_fields=number" | jq '.result | length')
assert_eq "$active" 2 "active incidents (the other node's, the retired one's)"

# Credentials: never shown; refused is exit 3; missing or literal is exit 2.
for f in $log out.json err; do
	grep -q "${JIRA_AUTHORIZATION#Bearer }" $f && fail "Jira's token in $f"
	grep -q "${SERVICENOW_AUTHORIZATION#Basic }" $f && fail "ServiceNow's credentials in $f"
done
export WRONG_AUTH="Bearer 0000"
cp pristine.db bad.db
rc=0; bringup tickets --db bad.db --jira "$JIRA_URL" --jira-project DC --post-auth-ref env:WRONG_AUTH -q 2> err || rc=$?
assert_eq "$rc" 3 "exit with Jira refusing the token"
assert_contains "$(cat err)" "HTTP 401: You are not authenticated" "Jira's words"
rc=0; bringup tickets --db bad.db --jira "$JIRA_URL" --jira-project DC -q 2> err || rc=$?
assert_eq "$rc" 2 "exit without an Authorization reference"
assert_contains "$(cat err)" "--post-auth-ref" "what is missing"
rc=0; bringup tickets --db bad.db --servicenow "$SERVICENOW_URL" --post-auth-ref "$SERVICENOW_AUTHORIZATION" -q 2> err || rc=$?
assert_eq "$rc" 2 "exit with a literal credential"
rc=0; bringup tickets --db bad.db --jira "$JIRA_URL" -q --post-auth-ref env:JIRA_AUTHORIZATION 2> err || rc=$?
assert_eq "$rc" 2 "exit without --jira-project"
exit 0
