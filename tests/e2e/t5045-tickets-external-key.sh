#!/bin/sh
# bringup tickets --json names each ticket's external key: what the
# ticket system called it when it was filed (Jira's issue key, ServiceNow's
# incident number), null until then. Against the simulator's Jira and
# ServiceNow stand-ins: the keys listed are the ones the stand-in holds for
# each ticket's correlation label, the node's history says where its
# ticket went (once per key, not once per version), a listing by a viewer
# shows them too, and the documents hold to docs/schema/tickets.schema.json.
. "$(dirname "$0")/lib.sh"
cd "$T"
check() { python3 "$BR_TOP/tests/e2e/schema-check.py" "$BR_TOP/docs/schema/tickets.schema.json" "$1"; }
bringup sim --no-hosts --nodes 3 --seed 2 --faults bmc_auth,bmc_down --dir rack --daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
db=$(db_for inv)
bringup import --db "$db" --manifest rack/rack.csv -q
bringup discover --db "$db" -q --bmc-deadline 5 || true
bringup tickets --db "$db" --json > before.json
assert_eq "$(jq '.tickets | length' before.json)" 2 "tickets in the inventory"
assert_eq "$(jq -c '[.tickets[].external_key]' before.json)" '[null,null]' "keys before delivery"
check before.json || fail "undelivered tickets do not hold to the schema"
auth_node=$(jq -r '.nodes[] | select(.faults | index("bmc_auth")) | .hostname' rack/truth.json)

jira() { bringup tickets --db "$db" --jira "$JIRA_URL" --jira-project "$JIRA_PROJECT" --post-auth-ref env:JIRA_AUTHORIZATION "$@"; }
jira --json > filed.json 2> err || fail "jira exit $?: $(cat err)"
assert_eq "$(jq .posted filed.json)" 2 "tickets filed in Jira"
check filed.json || fail "filed tickets do not hold to the schema"
# What Jira holds: each issue's key by the correlation label bringup gave it.
jira_get() { curl -sf -H "Authorization: $JIRA_AUTHORIZATION" "${JIRA_URL}rest/api/2/$1"; }
jira_get "search?jql=project%20%3D%20DC" | jq -r '.issues[].key' > jira.list
while read -r k; do
	jira_get "issue/$k" | jq -r '"\(.fields.labels | map(select(. != "bringup"))[0]) \(.key)"'
done < jira.list | sort > jira.keys
assert_eq "$(wc -l < jira.keys)" 2 "issues in Jira"
jq -r '.tickets[] | "bringup-\(.hostname)-\(.fault) \(.external_key)"' filed.json | sort > listed.keys
assert_eq "$(cat listed.keys)" "$(cat jira.keys)" "the keys the filing run printed"
# Read back later, by a viewer's listing: the same keys.
bringup tickets --db "$db" --json > later.json
jq -r '.tickets[] | "bringup-\(.hostname)-\(.fault) \(.external_key)"' later.json | sort > later.keys
assert_eq "$(cat later.keys)" "$(cat jira.keys)" "the keys listed later"
key=$(jq -r --arg h "$auth_node" '.tickets[] | select(.hostname == $h) | .external_key' later.json)
assert_contains "$(bringup history --db "$db" "$auth_node")" "ticket bmc_auth filed as $key" "the node's history"
assert_contains "$(bringup tickets --db "$db")" "bmc_auth ($key)" "the text listing"
bringup tickets --db "$db" --format csv > later.csv
assert_eq "$(head -1 later.csv | tr -d '\r' | awk -F, '{ print $NF }')" external_key "the CSV's last column"
assert_contains "$(grep "^\"$auth_node\",.*\"bmc_auth\"" later.csv)" ",\"$key\"" "the CSV row carries the key"

# The fault gone (retired): the bmc_auth ticket closes (a comment on the
# same issue), a 'retired' ticket opens as a new issue with its own key;
# the closed ticket keeps its key and gets no second event.
bringup retire --db "$db" "$auth_node" -q
bringup tickets --db "$db" -q
jira -q 2> err || fail "jira after retire exit $?: $(cat err)"
bringup tickets --db "$db" --state all --json > all.json
check all.json || fail "all tickets do not hold to the schema"
assert_eq "$(jq -r --arg h "$auth_node" '.tickets[] | select(.hostname == $h and .fault == "bmc_auth") | "\(.status) \(.external_key)"' all.json)" \
	"closed $key" "the closed ticket's key"
retired_key=$(jq -r --arg h "$auth_node" '.tickets[] | select(.hostname == $h and .fault == "retired") | .external_key' all.json)
case "$retired_key" in DC-[0-9]*) ;; *) fail "the retired ticket's key: $retired_key" ;; esac
[ "$retired_key" != "$key" ] || fail "the retired ticket has the bmc_auth issue's key"
assert_eq "$(bringup history --db "$db" "$auth_node" | grep -c "ticket bmc_auth filed as")" 1 \
	"events for the bmc_auth ticket's key"

# The node repaired and the fault back: the bmc_auth ticket reopens with
# no key until a delivery names one (the issue it had may be closed
# there); Jira finds the issue it had still open (a comment closed it
# here) and names it again.
bringup unretire --db "$db" "$auth_node" -q
bringup discover --db "$db" -q --bmc-deadline 5 "$auth_node" || true
bringup tickets --db "$db" -q
bringup tickets --db "$db" --json > reopened.json
assert_eq "$(jq -r --arg h "$auth_node" '.tickets[] | select(.hostname == $h and .fault == "bmc_auth") | "\(.status) \(.external_key)"' reopened.json)" \
	"open null" "the reopened ticket's key before delivery"
jira -q 2> err || fail "jira after the fault came back exit $?: $(cat err)"
bringup tickets --db "$db" --json > refiled.json
assert_eq "$(jq -r --arg h "$auth_node" '.tickets[] | select(.hostname == $h and .fault == "bmc_auth") | .external_key' refiled.json)" \
	"$key" "the reopened ticket's key once delivered (the same open issue)"

# ServiceNow: the incident's number.
db2=$(db_for sn)
bringup import --db "$db2" --manifest rack/rack.csv -q
bringup discover --db "$db2" -q --bmc-deadline 5 || true
bringup tickets --db "$db2" -q
bringup tickets --db "$db2" --servicenow "$SERVICENOW_URL" --post-auth-ref env:SERVICENOW_AUTHORIZATION --json \
	> sn.json 2> err || fail "servicenow exit $?: $(cat err)"
check sn.json || fail "ServiceNow's tickets do not hold to the schema"
curl -sf -H "Authorization: $SERVICENOW_AUTHORIZATION" \
	"${SERVICENOW_URL}api/now/table/incident?sysparm_fields=number,correlation_id" |
	jq -r '.result[] | "\(.correlation_id) \(.number)"' | sort > sn.keys
jq -r '.tickets[] | "bringup-\(.hostname)-\(.fault) \(.external_key)"' sn.json | sort > sn-listed.keys
assert_eq "$(cat sn-listed.keys)" "$(cat sn.keys)" "ServiceNow's incident numbers"

# GitHub: OWNER/REPO#N, N the issue whose body holds the ticket's id line.
db3=$(db_for gh)
bringup import --db "$db3" --manifest rack/rack.csv -q
bringup discover --db "$db3" -q --bmc-deadline 5 || true
bringup tickets --db "$db3" --github "$GITHUB_REPO" --github-api "$GITHUB_API_URL" \
	--post-auth-ref env:GITHUB_AUTHORIZATION --json > gh.json 2> err || fail "github exit $?: $(cat err)"
check gh.json || fail "GitHub's tickets do not hold to the schema"
curl -sf -A t5045 -H "Authorization: $GITHUB_AUTHORIZATION" "${GITHUB_API_URL}repos/$GITHUB_REPO/issues?state=open" |
	jq -r --arg r "$GITHUB_REPO" '.[] | "\(.body | capture("bringup-id: (?<id>[^ ]+) -->").id) \($r)#\(.number)"' |
	sort > gh.keys
jq -r '.tickets[] | "bringup-\(.hostname)-\(.fault) \(.external_key)"' gh.json | sort > gh-listed.keys
assert_eq "$(wc -l < gh.keys)" 2 "issues in GitHub"
assert_eq "$(cat gh-listed.keys)" "$(cat gh.keys)" "GitHub's issue numbers"
echo "ok"
