#!/bin/sh
# A BMC string holding terminal controls (ESC sequences, CR, BEL, DEL, other
# C0 bytes) reaches no terminal raw: status, history and the logs show each
# as \xNN, while the inventory and --json keep the real value (JSON escapes
# it its own way).
. "$(dirname "$0")/lib.sh"
cd "$T"
bringup sim --no-hosts --nodes 2 --seed 2 --faults control_chars --dir rack --daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
export BRINGUP_DB=$T/inv.db
bringup import --manifest rack/rack.csv >/dev/null
h=$(jq -r '.nodes[] | select(.faults | index("control_chars")) | .hostname' rack/truth.json)
real=$(jq -r --arg h "$h" '.nodes[] | select(.hostname == $h) | .system_serial' rack/truth.json)

bringup discover -v > disc.out 2> disc.err
bringup status > status.out 2> status.err
bringup history "$h" > history.out
# A raw control byte: anything under 0x20 but newline, or DEL.
raw() { tr -d '\n' < "$1" | LC_ALL=C grep -q "$(printf '[\001-\011\013-\037\177]')"; }
for f in disc.out disc.err status.out history.out; do
	! raw $f || fail "$f holds a raw control character: $(LC_ALL=C tr -d '\n' < $f | od -c | grep -m1 '033\|\\r')"
done
for f in disc.err status.out history.out; do
	assert_contains "$(cat $f)" 'CTRL\x1b[2J\x1b]0;pwned\x07\x0dFAKE\x7f\x01-' "$f shows the controls escaped"
done
# The inventory and --json keep what the BMC said.
assert_eq "$(bringup status --json | jq -r --arg h "$h" '.nodes[] | select(.hostname == $h) | .system_serial')" \
	"$(printf 'CTRL\033[2J\033]0;pwned\007\rFAKE\177\001-%s' "$real")" "--json keeps the real serial"
exit 0
