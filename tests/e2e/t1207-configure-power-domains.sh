#!/bin/sh
# configure spreads its resets over the manifest's power domains: with
# --max-resets-per-power-domain 1 at most one system of a domain is
# between its reset and its job's end at once, while other domains'
# systems reset beside it, within --max-resets over all. Over three
# workers, each domain's systems go to one worker: split, each worker
# would allow the domain its own one (without the join the 12 systems
# sorted by domain would be cut 4/4/4, pdu-a's five over two workers).
# From the simulators' request log.
. "$(dirname "$0")/lib.sh"
cd "$T"
bringup sim --no-hosts --nodes 12 --seed 13 --faults bios_drift:12 --bios-job-ms 800 --dir rack --daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
export BRINGUP_DB=$T/inv.db
# five on pdu-a, four on pdu-b, two on pdu-c, one on none
awk -F, -v OFS=, 'NR == 1 { print $0, "power_domain"; next }
	{ d = NR <= 6 ? "pdu-a" : NR <= 10 ? "pdu-b" : NR <= 12 ? "pdu-c" : ""; print $0, d }' \
	rack/rack.csv > powered.csv
bringup import --manifest powered.csv >/dev/null
first=$(awk -F, 'NR == 2 { print $1 }' powered.csv)
assert_eq "$(bringup status -o hostname,power_domain | awk -v h="$first" '$1 == h { print $2 }')" pdu-a \
	"status -o power_domain"
bringup discover -q
sleep 0.3
: > rack/requests.log

rc=0
bringup configure --workers 3 --max-resets 4 --max-resets-per-power-domain 1 --poll-ms 100 -v --json \
	> run.json 2> run.err || rc=$?
[ "$rc" -eq 0 ] || { cat run.err; fail "configure exited $rc"; }
assert_eq "$(jq '[.nodes[] | select(.result == "configured" and .resets == 1)] | length' run.json)" 12 \
	"systems configured, each reset once"
grep -q "12 Redfish BMCs over 3 worker processes" run.err || fail "configure did not fork 3 workers"
sleep 0.3

# Each system's window: its reset's start to its job's last read. The
# simulator stamps a request's end after its answer is written, so overlaps
# under 150 ms are that (as t1200 says).
awk -F, 'NR > 1 { print $1 "," $NF }' powered.csv > domains.csv
jq -s --rawfile d domains.csv '
	($d | split("\n") | map(select(length > 0) | split(",") | {(.[0]): .[1]}) | add) as $dom |
	[group_by(.node)[] | {n: .[0].node, d: $dom[.[0].node],
		s: ([.[] | select(.method == "POST" and (.path | endswith("ComputerSystem.Reset"))) | .start_ms] | min),
		e: ([.[] | select(.method == "GET" and (.path | test("/Jobs/JID_"))) | .end_ms] | max)}
	 | select(.s != null)] as $w |
	{all: ([$w[] | .s as $t | [$w[] | select(.s <= $t and .e > $t + 150)] | length] | max),
	 domain: ([$w[] | select(.d != "") | . as $x | [$w[] | select(.d == $x.d and .s <= $x.s and .e > $x.s + 150)] | length] | max),
	 windows: ($w | length)}' rack/requests.log > overlap.json
assert_eq "$(jq .windows overlap.json)" 12 "reset windows found"
assert_eq "$(jq .domain overlap.json)" 1 "systems of one power domain resetting at once"
all=$(jq .all overlap.json)
[ "$all" -le 4 ] || fail "$all systems resetting at once with --max-resets 4"
[ "$all" -ge 2 ] || fail "only $all system resetting at once: the domains did not reset side by side"

# An operator's mistake: exit 2, nothing touched.
start=$(wc -l < rack/requests.log)
rc=0
bringup configure --max-resets-per-power-domain -1 > bad.out 2> bad.err || rc=$?
assert_eq "$rc" 2 "exit code of a negative --max-resets-per-power-domain"
assert_contains "$(cat bad.err)" "--max-resets-per-power-domain -1" "the error names the option"
sleep 0.2
assert_eq "$(wc -l < rack/requests.log)" "$start" "requests after the refused run"
