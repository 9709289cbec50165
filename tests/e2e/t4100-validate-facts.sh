#!/bin/sh
# bringup validate --facts: a saved probe document (the real H200 host's)
# judged for one node without SSH: facts stored, checks recorded with the
# stage's name, the node validated; a cabling check from the wiring list;
# bad documents refused with the file named and nothing changed. The node is
# only discovered, so it is judged with --force (validate takes deployed nodes).
. "$(dirname "$0")/lib.sh"
cd "$T"
bringup sim --nodes 2 --seed 3 --dir rack --daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
export BRINGUP_DB=$T/inv.db
bringup import --manifest rack/rack.csv >/dev/null
bringup discover -q
host=$(jq -r '.nodes[0].hostname' rack/truth.json)
doc=$BR_TOP/tests/fixtures/hw/h200-probe/probe-root.json

# Not JSON, not a probe document, a newer probe: exit 2, the file named, the node untouched.
printf 'not json' > bad.json
rc=0; bringup validate --force --facts bad.json "$host" 2>err || rc=$?
assert_eq "$rc" 2 "garbage facts exit"
assert_contains "$(cat err)" "bad.json: not a probe document" "garbage facts message"
echo '{"probe_version": 99}' > newer.json
rc=0; bringup validate --force --facts newer.json "$host" 2>err || rc=$?
assert_eq "$rc" 2 "newer facts exit"
assert_contains "$(cat err)" "version 99 is newer" "newer facts message"
# A document holding only probe_version (issue 29: stored whole, it passed
# 24 checks on the BMC's word): not a probe's output, refused naming the
# first section every probe writes that it lacks; a section of the wrong
# type likewise.
echo '{"probe_version": 1}' > junk.json
rc=0; bringup validate --force --facts junk.json "$host" 2>err || rc=$?
assert_eq "$rc" 2 "junk facts exit"
assert_contains "$(cat err)" "junk.json: not a probe document (no 'host' section)" "junk facts message"
jq '.pcie = "none"' "$doc" > typo.json
rc=0; bringup validate --force --facts typo.json "$host" 2>err || rc=$?
assert_eq "$rc" 2 "wrong-typed section exit"
assert_contains "$(cat err)" "typo.json: not a probe document (no 'pcie' section)" "wrong-typed section message"
# A document of 300,000 empty objects (2 MiB) is refused by counting, before
# jansson spends some 200 bytes on each (issue 29: 16 MiB of them cost 1.43 GB).
/usr/bin/python3 -c 'import sys; sys.stdout.write("{\"probe_version\": 1, \"x\": [" + ",".join(["{}"] * 300000) + "]}")' > flood.json
rc=0; bringup validate --force --facts flood.json "$host" 2>err || rc=$?
assert_eq "$rc" 2 "flood facts exit"
assert_contains "$(cat err)" "flood.json: not a probe document: JSON document holds more than 262144 values" \
	"flood facts message"
rc=0; bringup validate --force --facts "$doc" 2>err || rc=$?
assert_eq "$rc" 2 "--facts without a host"
assert_eq "$(bringup status --json | jq -r --arg h "$host" '.nodes[] | select(.hostname == $h) | .state')" discovered \
	"node untouched by refused documents"

# A wiring list that cables the node's ports: the H200 VM has no LLDP
# neighbours to show, so cabling is unknown, never a pass.
rc=0
bringup validate --force --facts "$doc" --wiring rack/wiring.csv --json "$host" > v.json || rc=$?
assert_eq "$(jq -r '.nodes[0].state' v.json)" validated "validated"
assert_eq "$(jq -r '.nodes[0].checks[] | select(.name == "cabling") | .result' v.json)" unknown "cabling without LLDP"
# The node rules judged the real H200's facts against the xe9680 profile:
# one GPU where eight are expected; no controller clock beside a saved
# document, so the clock is unknown, never a pass.
assert_eq "$(jq -r '.nodes[0].checks[] | select(.name == "gpu_count") | .result' v.json)" fail "gpu_count from the H200"
assert_eq "$(jq -r '.nodes[0].checks[] | select(.name == "clock") | .result' v.json)" unknown "clock of a saved document"
for c in pcie gpu_count nic_count nvme_count boot_disk thermal cpufreq clock psu dmesg cabling; do
	[ -n "$(jq -r --arg c "$c" '.nodes[0].checks[] | select(.name == $c) | .result' v.json)" ] || fail "check $c missing"
done
bringup status --json > st.json
assert_eq "$(jq -r --arg h "$host" '.nodes[] | select(.hostname == $h) | .state' st.json)" validated "state stored"
assert_eq "$(jq -r --arg h "$host" '.nodes[] | select(.hostname == $h) | .checks[] | select(.name == "cabling") | .result' st.json)" \
	unknown "cabling check stored"
# The document is stored as the node's probe facts, whole.
assert_eq "$(inv_sql inv.db "select json_extract(doc, '$.probe_version') from probe_facts")" 1 "facts stored"
assert_eq "$(inv_sql inv.db "select count(*) from probe_facts")" 1 "one document"

# A malformed wiring list: FILE:LINE: field, exit 2, nothing changed.
printf 'hostname,host_port,switch,switch_port\n%s,,leaf1,swp1\n' "$host" > bad-wiring.csv
rc=0; bringup validate --force --facts "$doc" --wiring bad-wiring.csv "$host" 2>err || rc=$?
assert_eq "$rc" 2 "bad wiring exit"
assert_contains "$(cat err)" "bad-wiring.csv:2: host_port: empty" "bad wiring message"
echo "validate --facts: judged, stored, refused bad input"
