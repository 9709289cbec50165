#!/bin/sh
# Tickets in Markdown and CSV carry text from BMCs, nodes and MAAS (issue
# 29, finding 7): a BMC serial holding ESC[2J and an OSC title sequence
# (the simulator's control_chars fault), and a failure reason holding HTML,
# a Markdown link, a cell separator and a spreadsheet formula. Neither
# format prints a raw control byte; Markdown renders none of it as markup
# (HTML entity-escaped, [ ] ` | backslash-escaped); CSV is RFC 4180
# (CRLF records, quotes doubled: Python's csv module reads every field
# back) and a field that would start a formula starts with an apostrophe.
. "$(dirname "$0")/lib.sh"
cd "$T"
bringup sim --no-hosts --nodes 2 --seed 2 --faults control_chars --dir rack --daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
export BRINGUP_DB=$T/inv.db
bringup import --manifest rack/rack.csv >/dev/null
h=$(jq -r '.nodes[] | select(.faults | index("control_chars")) | .hostname' rack/truth.json)
bringup discover -q || true
# The reason as MAAS or a node's LLDP neighbour could word it.
reason='=HYPERLINK("http://evil/") <script>alert(1)</script> | [click](javascript:alert(1)) `x`'
inv_sql "$BRINGUP_DB" "update nodes set state = 'failed', reason = '$(echo "$reason" | sed "s/'/''/g")' where hostname = '$h'"

raw() { LC_ALL=C tr -d '\n' < "$1" | LC_ALL=C grep -q "$(printf '[\001-\011\013-\037\177]')"; }

bringup tickets --format md > t.md
! raw t.md || fail "the Markdown holds a raw control byte: $(LC_ALL=C grep -a "$h" t.md | od -c | head -3)"
row=$(grep -F "| $h |" t.md) || fail "no Markdown row for $h"
assert_contains "$row" 'CTRL\\x1b\[2J\\x1b\]0;pwned\\x07' "the serial's controls shown escaped"
assert_contains "$row" '&lt;script&gt;alert(1)&lt;/script&gt;' "HTML entity-escaped"
assert_contains "$row" '\| \[click\](javascript:alert(1)) \`x\`' "cell separator, link and code span escaped"
case $row in *"<script>"*) fail "raw HTML in the Markdown" ;; esac
# The cells are exactly the table's: no separator of the reason's ends one.
assert_eq "$(echo "$row" | sed 's/\\|//g' | tr -cd '|' | wc -c)" 7 "cell separators in the row"

bringup tickets --format csv > t.csv
LC_ALL=C tr -d '\r' < t.csv > t.lf
! raw t.lf || fail "the CSV holds a raw control byte"
assert_eq "$(LC_ALL=C grep -c "$(printf '\r')\$" t.csv)" "$(wc -l < t.csv)" "every CSV record ends with CRLF"
/usr/bin/python3 - "$h" <<'PY' || fail "the CSV as Python's csv module reads it"
import csv, sys
rows = list(csv.reader(open("t.csv", newline="")))
assert rows[0] == ["hostname", "location", "serial", "service_tag", "fault", "evidence", "action", "external_key"], rows[0]
assert all(len(r) == 8 for r in rows), [len(r) for r in rows]
mine = [r for r in rows if r[0] == sys.argv[1]]
assert len(mine) == 1, mine
r = mine[0]
assert r[2].startswith("CTRL\\x1b[2J\\x1b]0;pwned\\x07"), r[2]
assert r[5].startswith("'=HYPERLINK(\"http://evil/\") <script>"), r[5]
PY
echo "tickets md and csv: controls escaped, no markup, RFC 4180"
