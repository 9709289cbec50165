#!/bin/sh
# The progress line on a terminal (issue 28 point C), through a real pty
# (script(1)): each stage's line says the stage, done/total, failed and
# left, and names nodes still out; it ends with every node done; off a
# terminal nothing of it is printed. The line's rules (who is named, when
# an ETA is shown) are test_output's, on given times.
. "$(dirname "$0")/lib.sh"
cd "$T"
bringup sim --nodes 4 --seed 3 --dir rack --faults bmc_down --daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
export BRINGUP_DB=$T/inv.db
bringup import --manifest rack/rack.csv >/dev/null
down=$(jq -r '.nodes[] | select(.faults | index("bmc_down")) | .hostname' rack/truth.json)
[ -n "$down" ] || fail "no bmc_down node in the rack"
COLUMNS=200 script -qec "bringup discover --timeout 2 --retries 0" tty.out >/dev/null 2>&1 || true
tr '\r' '\n' < tty.out | sed 's/\x1b\[K//g' > lines
grep -Eq '^discover  [0-3]/4 done.*  [1-4] left: gpu-' lines || fail "no line naming a node still out: $(cat lines)"
grep -Eq '^discover  4/4 done  1 failed$' lines || fail "no final line with the failed node: $(cat lines)"
# Lines that name nodes name only nodes of this rack.
grep -Eo 'left: [^ ]+' lines | sed 's/left: //' | sort -u | while read -r h; do
	jq -e --arg h "$h" '.nodes[] | select(.hostname == $h)' rack/truth.json >/dev/null || fail "named '$h', not a node"
done
# Off a terminal: no progress at all.
rc=0; bringup discover --timeout 2 --retries 0 "$down" > off.out 2>&1 || rc=$?
grep -q ' done' off.out && fail "progress off a terminal: $(cat off.out)"
echo "ok"
