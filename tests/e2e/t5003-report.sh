#!/bin/sh
# bringup report on a simulated rack taken through the real stages (import,
# discover, enlist, validate over SSH, gate, tickets), opened in a real
# headless browser (Debian's chromium): the page renders (screenshot), logs
# nothing to the console (no error, no blocked load), has one box per node
# coloured by its state, one row per open ticket and one section per node;
# hostile text (a BMC's or MAAS's <script> in a reason, a manifest note) is
# shown as text, never becomes an element.
. "$(dirname "$0")/lib.sh"
cd "$T"
command -v chromium >/dev/null || fail "chromium is not installed (scripts/deps installs it)"
bringup sim --nodes 6 --seed 5 --faults psu_failed,pcie_degraded,bmc_auth --maas-commission-ms 100 \
	--maas-deploy-ms 100 --dir rack --daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
export BRINGUP_DB=$T/inv.db

bringup import --manifest rack/rack.csv >/dev/null
bringup discover -q || true
bringup enlist --skip-configure --poll-ms 50 -q || true
bringup validate -q || true
bringup gate -q || true
failed=$(jq -r '.nodes[] | select(.faults | index("bmc_auth")) | .hostname' rack/truth.json)
clean=$(jq -r '.nodes[] | select(.faults == []) | .hostname' rack/truth.json | head -1)
# What a hostile BMC or MAAS could put in a reason (the failed node's
# ticket carries it as evidence), and a manifest note re-imported.
evil='<script>document.title="PWNED"</script><img src=x onerror=alert(1)>'
sqlite3 inv.db "update nodes set reason = reason || ' $evil' where hostname = '$failed'"
awk -F, -v OFS=, -v h="$clean" '$1 == h { $10 = "<script>alert(2)</script> & <b>bold</b>" } 1' rack/rack.csv > rack2.csv
bringup import --manifest rack2.csv >/dev/null
bringup tickets --format json > tickets.json || true
bringup status --json > status.json

bringup report --json > report.json
page=$T/inv.html
assert_eq "$(jq -r .report report.json)" "$page" "report written beside the database"
assert_eq "$(jq -r .nodes report.json)" 6 "every node in the report"
assert_eq "$(jq -r .tickets report.json)" "$(jq '.tickets | length' tickets.json)" "every open ticket in the report"
bringup report -q --out other.html "$clean"
grep -q 'data-host="'"$clean"'"' other.html || fail "--out with a host: its box"
assert_eq "$(grep -c 'class="node-detail' other.html)" 1 "--out with a host: that node only"
rc=0; bringup report --db :memory: -q 2>/dev/null || rc=$?
assert_eq "$rc" 2 "an in-memory inventory needs --out"

# Self-contained: nothing refers to another file or host.
! grep -Eiq '(src|href)="(https?:|//|file:)|<link|@import|url\(' "$page" || fail "the page loads something"

chromium --headless --no-sandbox --disable-gpu --no-first-run --user-data-dir="$T/chromium" \
	--enable-logging=stderr --v=0 --window-size=1400,1000 --screenshot="$T/shot.png" --dump-dom \
	"file://$page" > dom.html 2> chromium.log || fail "chromium: $(tail -5 chromium.log)"
[ -n "${BR_ARTIFACTS:-}" ] && cp "$T/shot.png" "$BR_ARTIFACTS/t5003-report.png"

# The screenshot: a PNG of the window's size, not a blank page.
assert_eq "$(head -c 8 shot.png | od -An -tx1 | tr -d ' \n')" 89504e470d0a1a0a "screenshot is a PNG"
assert_eq "$(od -An -tu1 -j16 -N8 shot.png | tr -s ' ' | sed 's/^ //')" "0 0 5 120 0 0 3 232" "screenshot is 1400x1000"
[ "$(wc -c < shot.png)" -gt 20000 ] || fail "screenshot is near empty: $(wc -c < shot.png) bytes"
# The browser saw no script error, console message or blocked load.
! grep -E 'CONSOLE|Uncaught|Content Security Policy' chromium.log || fail "the page logged to the console"

# The DOM as the browser built it: a box per node in its state's colour.
count() { grep -o "$1" dom.html | wc -l; }
for s in golden quarantined failed; do
	assert_eq "$(count "class=\"node st-$s\"")" "$(jq --arg s $s '[.nodes[] | select(.state == $s)] | length' status.json)" \
		"boxes coloured $s"
done
assert_eq "$(jq '[.nodes[] | select(.state == "golden")] | length' status.json)" 3 "three golden"
assert_eq "$(count 'class="node st-')" 6 "one box per node"
grep -q "class=\"node st-failed\" href=\"#n[0-9]*\" data-host=\"$failed\"" dom.html || fail "the bmc_auth node's box is red"
assert_eq "$(count '<tr class="fault">')" "$(jq '.tickets | length' tickets.json)" "one fault row per open ticket"
for h in $(jq -r '.tickets[].hostname' tickets.json | sort -u); do
	grep -q "<tr class=\"fault\"><td><a href=\"#n[0-9]*\">$h</a>" dom.html || fail "no fault row for $h"
done
assert_eq "$(count 'class="node-detail')" 6 "one section per node"
[ "$(count 'class="res-fail"')" -ge 2 ] || fail "failing checks shown"
grep -q 'class="res-pass"' dom.html || fail "passing checks shown"
grep -q 'imported from' dom.html || fail "history shown"
grep -q 'PCIe riser' dom.html || fail "the pcie ticket's action shown"

# Hostile text stayed text: the browser built no script or img element
# (the page has none of its own), the title is untouched, and the text
# itself is visible, escaped.
python3 - dom.html > elements <<'PY'
import sys
from html.parser import HTMLParser
class P(HTMLParser):
    def handle_starttag(self, tag, attrs):
        if tag in ("script", "img", "iframe", "object"):
            print(tag)
P().feed(open(sys.argv[1], encoding="utf-8").read())
PY
assert_eq "$(grep -c . elements)" 0 "inventory text became markup: $(sort elements | uniq -c | tr '\n' ' ')"
grep -q '<title>bringup report: ' dom.html || fail "title changed"
grep -q '&lt;script&gt;document.title="PWNED"&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;' dom.html ||
	fail "the hostile reason is not shown as text"
grep -q '&lt;script&gt;alert(2)&lt;/script&gt; &amp; &lt;b&gt;bold&lt;/b&gt;' dom.html || fail "the hostile note is not shown as text"
echo "report: $(wc -c < "$page") bytes, renders in chromium, hostile text escaped"
