#!/bin/sh
# bringup tickets --github OWNER/REPO, against the simulator's GitHub
# stand-in (the issues REST API's documented shapes, API version
# 2022-11-28): each ticket is looked for first among the open issues
# labelled bringup by the id hidden in its body, and created only when none
# is (POST /repos/O/R/issues with title, body, labels); an inventory that
# forgot what it delivered files nothing twice (PATCH of title and body),
# even with 100 newer issues before them (the search reads page 2);
# a fault that is gone is a comment, then the issue closed as completed.
# --github-api moves the base (GitHub Enterprise's /api/v3/); the token
# comes by reference and is in no log or output; a refused one is exit 3,
# a wrong OWNER/REPO or none exit 2.
. "$(dirname "$0")/lib.sh"
cd "$T"
bringup sim --no-hosts --nodes 3 --seed 2 --faults bmc_auth,bmc_down --dir rack --daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
log=rack/requests.log
db=$(db_for inv)
bringup import --db "$db" --manifest rack/rack.csv -q
bringup discover --db "$db" -q --bmc-deadline 5 || true
bringup tickets --db "$db" -q
assert_eq "$(bringup tickets --db "$db" --json | jq '.tickets | length')" 2 "tickets filed in the inventory"
cp "$db" pristine.db
auth_node=$(jq -r '.nodes[] | select(.faults | index("bmc_auth")) | .hostname' rack/truth.json)
gh() { bringup tickets --github "$GITHUB_REPO" --github-api "$GITHUB_API_URL" --post-auth-ref env:GITHUB_AUTHORIZATION "$@"; }
api() { curl -sf -A t5044 -H "Authorization: $GITHUB_AUTHORIZATION" "${GITHUB_API_URL}repos/$GITHUB_REPO/$1"; }

# Created: labelled bringup, the id in the body, GitHub's headers sent.
cp pristine.db gh.db
gh --db gh.db -v --json > out.json 2> err || fail "github exit $?: $(cat err)"
assert_eq "$(jq .posted out.json)" 2 "issues filed"
grep '"node":"github"' $log > g1.log
assert_eq "$(jq -r 'select(.method == "POST") | "\(.status) \(.path)"' g1.log | sort -u)" "201 /repos/$GITHUB_REPO/issues" \
	"created at"
assert_eq "$(jq -r 'select(.method == "GET") | .path' g1.log | cut -d'?' -f1 | sort -u)" "/repos/$GITHUB_REPO/issues" "searched at"
assert_contains "$(jq -r 'select(.method == "GET") | .path' g1.log | sort -u)" "state=open&labels=bringup" "searched among"
assert_eq "$(jq -r 'select(.method == "POST") | .body.labels | join(",")' g1.log | sort -u)" bringup "labels"
jq -r 'select(.method == "POST") | .body.body' g1.log | grep -q "^<!-- bringup-id: bringup-$auth_node-bmc_auth -->\$" ||
	fail "no id for $auth_node's bmc_auth in a body: $(jq -r 'select(.method == "POST") | .body.body' g1.log)"
jq -r 'select(.method == "POST") | .body.title' g1.log | grep -q "^rack r01 U[0-9]* $auth_node: bmc_auth\$" ||
	fail "title: $(jq -r 'select(.method == "POST") | .body.title' g1.log)"
assert_eq "$(api 'issues?state=open&labels=bringup' | jq length)" 2 "open issues on GitHub"
# Each ticket's issue, logged as OWNER/REPO#N.
grep -q "info\[tickets\] $auth_node/bmc_auth v1: $GITHUB_REPO#[12]\$" err || fail "the issue logged: $(cat err)"

# An inventory that never delivered: found by the id, updated, none filed,
# with 100 newer issues labelled bringup before them (GitHub lists the
# newest first): the search reads the second page.
for i in $(seq 100); do
	printf '{"title":"decoy %s","body":"someone else'"'"'s","labels":["bringup"]}' $i |
		curl -sf -A t5044 -H "Authorization: $GITHUB_AUTHORIZATION" -d @- "${GITHUB_API_URL}repos/$GITHUB_REPO/issues" > /dev/null ||
		fail "decoy issue $i"
done
n=$(wc -l < $log)
cp pristine.db gh2.db
gh --db gh2.db -q 2> err || fail "github again exit $?: $(cat err)"
assert_eq "$(tail -n +$((n + 1)) $log | grep '"node":"github"' | jq -r .method | sort | uniq -c | tr -s ' ' | tr '\n' ';')" \
	" 4 GET; 2 PATCH;" "an inventory that forgot: found on page 2 and updated"
assert_eq "$(tail -n +$((n + 1)) $log | grep '"node":"github"' | jq -r 'select(.method == "GET") | .path' | grep -c 'page=2$')" 2 \
	"second pages read"
assert_eq "$(api 'issues?state=all&per_page=100&page=2' | jq length)" 2 "issues on GitHub after the second delivery (100 decoys first)"
# Delivered: nothing sent again.
n=$(wc -l < $log)
gh --db gh.db -q || fail "third run"
assert_eq "$(tail -n +$((n + 1)) $log | grep -c '"node":"github"')" 0 "requests for delivered tickets"

# The fault gone (the node retired): a comment, then closed as completed;
# the retired ticket's issue filed.
bringup retire --db gh.db "$auth_node" -q
bringup tickets --db gh.db -q
n=$(wc -l < $log)
gh --db gh.db -q 2> err || fail "github after retire exit $?: $(cat err)"
tail -n +$((n + 1)) $log | grep '"node":"github"' > g3.log
num=$(api 'issues?state=all&direction=asc&per_page=100' | jq -r --arg id "bringup-$auth_node-bmc_auth" '.[] | select(.body | contains($id)) | .number')
assert_eq "$(jq -r 'select(.method != "GET") | "\(.method) \(.path) \(.status)"' g3.log | tr '\n' ';')" \
	"POST /repos/$GITHUB_REPO/issues/$num/comments 201;PATCH /repos/$GITHUB_REPO/issues/$num 200;POST /repos/$GITHUB_REPO/issues 201;" \
	"after the fault is gone"
assert_eq "$(api "issues/$num" | jq -r '"\(.state) \(.state_reason) \(.comments)"')" "closed completed 1" "the issue closed"
assert_eq "$({ api 'issues?state=open&labels=bringup&per_page=100&page=1'; api 'issues?state=open&labels=bringup&per_page=100&page=2'; } |
	jq -s '[add[] | select(.body | contains("bringup-id"))] | length')" 2 \
	"open issues of bringup's (the other node's, the retired one's)"

# GitHub Enterprise Server's base: /api/v3/.
cp pristine.db ghe.db
n=$(wc -l < $log)
bringup tickets --db ghe.db --github "$GITHUB_REPO" --github-api "${GITHUB_API_URL}api/v3/" \
	--post-auth-ref env:GITHUB_AUTHORIZATION -q 2> err || fail "github enterprise exit $?: $(cat err)"
assert_eq "$(tail -n +$((n + 1)) $log | grep '"node":"github"' | jq -r '"\(.method) \(.path | split("?")[0])"' | sort | uniq -c | tr -s ' ' | tr '\n' ';')" \
	" 4 GET /api/v3/repos/$GITHUB_REPO/issues; 1 PATCH /api/v3/repos/$GITHUB_REPO/issues/2; 1 POST /api/v3/repos/$GITHUB_REPO/issues;" \
	"paths under /api/v3 (the closed issue not found again: filed anew; the other updated)"

# Credentials: never shown; refused is exit 3; none, literal or a wrong
# OWNER/REPO exit 2 before anything is sent.
for f in $log out.json err; do
	grep -q "${GITHUB_AUTHORIZATION#Bearer }" $f && fail "GitHub's token in $f"
done
export WRONG_AUTH="Bearer github_pat_0000"
cp pristine.db bad.db
rc=0; bringup tickets --db bad.db --github "$GITHUB_REPO" --github-api "$GITHUB_API_URL" --post-auth-ref env:WRONG_AUTH -q 2> err || rc=$?
assert_eq "$rc" 3 "exit with GitHub refusing the token"
assert_contains "$(cat err)" "HTTP 401: Bad credentials" "GitHub's words"
n=$(wc -l < $log)
rc=0; bringup tickets --db bad.db --github "$GITHUB_REPO" --github-api "$GITHUB_API_URL" -q 2> err || rc=$?
assert_eq "$rc" 2 "exit without an Authorization reference"
assert_contains "$(cat err)" "--post-auth-ref" "what is missing"
for repo in dc-ops hardware/ "dc ops/hw" a/b/c; do
	rc=0; bringup tickets --db bad.db --github "$repo" --github-api "$GITHUB_API_URL" --post-auth-ref env:GITHUB_AUTHORIZATION -q 2> err || rc=$?
	assert_eq "$rc" 2 "exit with --github '$repo'"
	assert_contains "$(cat err)" "want OWNER/REPO" "--github '$repo' named"
done
rc=0; bringup tickets --db bad.db --github "$GITHUB_REPO" --jira "$JIRA_URL" --post-auth-ref env:GITHUB_AUTHORIZATION -q 2> err || rc=$?
assert_eq "$rc" 2 "--github with --jira"
assert_eq "$(wc -l < $log)" "$n" "requests sent for a wrong command line"
exit 0
