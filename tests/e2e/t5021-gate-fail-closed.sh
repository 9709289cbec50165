#!/bin/sh
# Golden means proven. On an HPE rack (the xl675d profile) taken through
# the real stages to validated:
# - with the profile's hardware.conf gone (the profile then states no
#   hardware expectations, as the non-Dell profiles once did) the gate
#   refuses it with the file and what is missing, exit 2, before any node
#   is judged: no node moves, no event, nothing sent to MAAS;
# - with it back, a node whose cabling is unknown (validated without the
#   wiring list) is quarantined on "cabling unknown";
# - with [gate] optional = cabling, the same unknown is excused, the node is
#   golden and its reason says which optional check stayed unknown; a
#   failed check is never excused (the gpu_missing node stays quarantined).
. "$(dirname "$0")/lib.sh"
cd "$T"
bringup sim --nodes 4 --seed 21 --vendor hpe --dir rack --faults gpu_missing \
	--maas-commission-ms 100 --maas-deploy-ms 100 --bios-job-ms 200 --daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
export BRINGUP_DB=$T/inv.db BRINGUP_SSH_PUBKEY=$BRINGUP_SSH_KEY.pub BRINGUP_BMC_TIMEOUT=5
cp -r "$BR_TOP/templates" tpl
export BRINGUP_TEMPLATES=$T/tpl
conf=tpl/profiles/xl675d/hardware.conf
st() { bringup status --json | jq -r --arg h "$1" ".nodes[] | select(.hostname == \$h) | $2"; }
gpu=$(jq -r '.nodes[] | select(.faults == ["gpu_missing"]) | .hostname' rack/truth.json)
set -- $(jq -r '.nodes[] | select(.faults == []) | .hostname' rack/truth.json)
a=$1 b=$2

bringup import --manifest rack/rack.csv >/dev/null
bringup discover -q
bringup configure -q --poll-ms 100
bringup enlist -q --poll-ms 100
# Two clean nodes probed without the wiring list: cabling unknown.
env -u BRINGUP_WIRING bringup validate -q "$a" "$b"
bringup validate -q
for h in $(jq -r '.nodes[].hostname' rack/truth.json); do
	assert_eq "$(st "$h" .state)" validated "$h validated before the gate"
done
assert_eq "$(st "$a" '.checks[] | select(.name == "cabling") | .result')" unknown "$a: cabling unknown"

# 1. A profile that states nothing to prove: refused, nothing touched.
mv "$conf" hardware.conf.saved
events=$(inv_sql inv.db 'select count(*) from events')
posts=$(grep -c '"method":"POST"' rack/maas-requests.log || true)
rc=0; bringup gate --json > g1.json 2> g1.err || rc=$?
assert_eq "$rc" 2 "gate exit with a profile that states no hardware expectations"
assert_contains "$(cat g1.err)" "profiles/xl675d/hardware.conf: no such file: [gpu] count, [nic] fabric or ethernet, [nvme] count, [psu] count, [clock] max_skew not stated" \
	"the refusal names the file and what is missing"
assert_eq "$(inv_sql inv.db 'select count(*) from events')" "$events" "no event recorded"
assert_eq "$(inv_sql inv.db "select count(*) from nodes where state != 'validated'")" 0 "no node moved"
assert_eq "$(grep -c '"method":"POST"' rack/maas-requests.log || true)" "$posts" "nothing sent to MAAS"
# A hardware.conf that states only some of it names the rest.
printf '[gpu]\ncount = 8\n[psu]\ncount = 4\n' > "$conf"
rc=0; bringup gate 2> g1b.err || rc=$?
assert_eq "$rc" 2 "gate exit with a partial profile"
assert_contains "$(cat g1b.err)" "hardware.conf: [nic] fabric or ethernet, [nvme] count, [clock] max_skew not stated" \
	"the partial profile's missing settings"

# 2. The real profile: an unknown blocks.
cp hardware.conf.saved "$conf"
rc=0; bringup gate --json "$a" > g2.json || rc=$?
assert_eq "$rc" 1 "gate exit (quarantined)"
assert_eq "$(st "$a" .state)" quarantined "unknown cabling blocks promotion"
assert_contains "$(st "$a" .reason)" "cabling unknown" "the reason says unknown"

# 3. optional excuses an unknown, never a failure.
sed -i 's/^optional = \(.*\)$/optional = cabling, gpu_count, \1/' "$conf"
grep -q '^optional = cabling, gpu_count' "$conf" || fail "no [gate] optional line to add to"
rc=0; bringup gate --json > g3.json || rc=$?
assert_eq "$rc" 1 "gate exit (the gpu_missing node)"
assert_eq "$(st "$b" .state)" golden "optional unknown cabling excused; reason $(st "$b" .reason)"
assert_contains "$(st "$b" .reason)" "optional, unknown: cabling" "the golden reason names the excused check"
assert_eq "$(st "$gpu" .state)" quarantined "a failed optional check still blocks"
assert_contains "$(st "$gpu" .reason)" "gpu_count" "the failed check named"
for h in $(jq -r '.nodes[] | select(.faults == []) | .hostname' rack/truth.json); do
	[ "$h" = "$a" ] && continue
	assert_eq "$(st "$h" .state)" golden "$h golden"
done
echo "gate: fails closed on a profile without expectations, unknown blocks, optional excuses only unknowns"
