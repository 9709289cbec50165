#!/bin/sh
# Re-importing the same manifest changes nothing; an edited one updates the
# node and records what changed as an event; status --json matches man/bringup-status.1.
. "$(dirname "$0")/lib.sh"
cd "$T"
cat > rack.csv <<'EOF2'
hostname,rack,unit,bmc,bmc_user,bmc_password,profile,bmc_type,boot_disk_serial,notes
gpu-a,r01,1,10.0.0.1,root,env:PW,xe9680,redfish,,
gpu-b,r01,3,10.0.0.2:8443,root,file:/etc/bringup/pw,xe9680,,S3EVNX0T123,"spare, row 4"
# comment rows are skipped,,,,,,,,,
gpu-c,r01,5,[fd00::5]:443,root,env:PW,xe9680,ipmi,,
EOF2
out=$(bringup import --db inv.db --manifest rack.csv --json)
assert_eq "$(echo "$out" | jq -c '[.added,.updated,.unchanged]')" "[3,0,0]" "first import"
sqlite3 inv.db 'select count(*) from events' > ev1
out=$(bringup import --db inv.db --manifest rack.csv --json)
assert_eq "$(echo "$out" | jq -c '[.added,.updated,.unchanged]')" "[0,0,3]" "identical re-import"
sqlite3 inv.db 'select count(*) from events' > ev2
assert_eq "$(cat ev2)" "$(cat ev1)" "events after identical re-import"
sqlite3 inv.db 'select hostname,updated_at from nodes order by 1' > before

sed -i 's/^gpu-b,r01,3,10.0.0.2:8443/gpu-b,r02,7,10.0.0.22:8443/' rack.csv
out=$(bringup import --db inv.db --manifest rack.csv --json)
assert_eq "$(echo "$out" | jq -c '[.added,.updated,.unchanged]')" "[0,1,2]" "edited re-import"
hist=$(bringup history --db inv.db --json gpu-b)
assert_eq "$(echo "$hist" | jq '.events | length')" 2 "gpu-b events"
assert_eq "$(echo "$hist" | jq -r '.events[1].reason')" \
	"rack.csv: rack r01 -> r02; unit 3 -> 7; bmc 10.0.0.2:8443 -> 10.0.0.22:8443" "change event reason"
assert_eq "$(echo "$hist" | jq -r '.events[1].from + ">" + .events[1].to')" "new>new" "state kept"
assert_eq "$(bringup history --db inv.db --json gpu-a | jq '.events | length')" 1 "gpu-a untouched"

# The password reference is stored, never a secret; nothing else changed.
assert_eq "$(sqlite3 inv.db "select bmc_password_ref from nodes where hostname='gpu-b'")" "file:/etc/bringup/pw" "ref"
assert_eq "$(sqlite3 inv.db "select boot_disk_serial||'|'||notes from nodes where hostname='gpu-b'")" \
	"S3EVNX0T123|spare, row 4" "optional columns"

# status --json: the document man/bringup-status.1 gives.
bringup status --db inv.db --json > st.json
jq -e '.nodes | length == 3' st.json >/dev/null || fail "status node count"
jq -e 'all(.nodes[]; has("hostname") and has("state") and has("reason") and (.macs|type=="array")
	and has("system_serial") and (.checks|type=="array"))' st.json >/dev/null || fail "status shape: $(cat st.json)"
assert_eq "$(jq -r '[.nodes[].state] | unique | join(",")' st.json)" "new" "all new"
assert_eq "$(bringup status --db inv.db --json gpu-c | jq -r '.nodes[0].bmc')" "[fd00::5]:443" "status HOST filter"
rc=0; bringup status --db inv.db nosuch 2>/dev/null || rc=$?
assert_eq "$rc" 2 "status of an unknown host"
# Human output has the table and the state summary.
assert_contains "$(bringup status --db inv.db)" "3 nodes: 3 new" "human summary"
# The driver runs stages git-style and knows its version.
assert_contains "$(bringup --version)" "bringup " "version"
assert_contains "$(bringup help import)" "--manifest" "help for a stage"
rc=0; bringup nosuchstage 2>/dev/null || rc=$?
assert_eq "$rc" 2 "unknown command"
