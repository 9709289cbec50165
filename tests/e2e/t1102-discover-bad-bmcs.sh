#!/bin/sh
# BMCs that answer badly — truncated JSON, wrong types, a Members list of
# 100,000, a 50 MB body, a resource that never answers — fail that node with
# a reason; the healthy node in the same run is discovered; no crash (and,
# in the ASan build, no leak).
. "$(dirname "$0")/lib.sh"
cd "$T"
bringup sim --no-hosts --nodes 6 --seed 5 --faults bad_json,bad_types,huge_collection,huge_body,hang --dir rack --daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
bringup import --db inv.db --manifest rack/rack.csv >/dev/null
rc=0
bringup discover --db inv.db --json --timeout 3 --retries 1 > d.json 2>err || rc=$?
assert_eq "$rc" 1 "exit code"
reason() {
	h=$(jq -r --arg f "$1" '.nodes[] | select(.faults | index($f)) | .hostname' rack/truth.json)
	[ -n "$h" ] || fail "no node with fault $1"
	assert_eq "$(jq -r --arg h "$h" '.nodes[] | select(.hostname==$h) | .result' d.json)" failed "$1 result"
	jq -r --arg h "$h" '.nodes[] | select(.hostname==$h) | .reason' d.json
}
assert_contains "$(reason bad_json)" "invalid JSON" "truncated JSON reason"
assert_contains "$(reason huge_collection)" "members" "huge collection reason names the member cap"
assert_contains "$(reason huge_body)" "exceeds" "huge body reason"
# A Thermal that never answers is not the node's identity (issue 23's
# failure isolation): the node is discovered on what it showed, the
# Thermal listed among its unreadable facts with no status and the reason.
h=$(jq -r '.nodes[] | select(.faults | index("hang")) | .hostname' rack/truth.json)
assert_eq "$(jq -r --arg h "$h" '.nodes[] | select(.hostname==$h) | .result' d.json)" discovered "hang result"
u=$(sqlite3 inv.db "select facts from hw_facts f join nodes n on n.id = f.node_id where n.hostname = '$h'" |
	jq -r '.unreadable[] | select(.url | endswith("/Thermal")) | "\(.status) \(.reason)"')
assert_contains "$u" "null after 2 attempts: GET " "hang: Thermal unreadable, no status"
assert_contains "$u" "timed out" "hang: unreadable reason"
# Wrong types must not crash; the node either fails with a reason or is
# discovered without the fields that had the wrong type.
h=$(jq -r '.nodes[] | select(.faults | index("bad_types")) | .hostname' rack/truth.json)
r=$(jq -r --arg h "$h" '.nodes[] | select(.hostname==$h) | .result + ":" + (.reason // "")' d.json)
case "$r" in failed:?*|discovered:*) ;; *) fail "bad_types ended '$r'" ;; esac
healthy=$(jq -r '.nodes[] | select(.faults == []) | .hostname' rack/truth.json)
assert_eq "$(jq -r --arg h "$healthy" '.nodes[] | select(.hostname==$h) | .result' d.json)" discovered "healthy node"
assert_eq "$(bringup status --db inv.db --json | jq -r --arg h "$healthy" '.nodes[] | select(.hostname==$h) | .macs | length')" 10 "healthy MACs"
