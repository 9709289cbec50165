#!/bin/sh
# journald output: when stderr is the journal's stream ($JOURNAL_STREAM
# names fd 2's device:inode, as systemd sets it) or with --log-format
# journal, each log line starts with its syslog priority ("<3>" error,
# "<4>" warning, "<6>" info, "<7>" debug) and names the node and its BMC.
# Against a real systemd-journald (a namespace of its own, started here,
# when this machine has one): the journal keeps each line with its
# PRIORITY and without the prefix, never the BMC password. A
# JOURNAL_STREAM that is not fd 2 (stderr redirected since) keeps text;
# --log-format and BRINGUP_LOG_FORMAT beat the journal.
. "$(dirname "$0")/lib.sh"
cd "$T"
bringup sim --no-hosts --nodes 4 --seed 3 --dir rack --faults bmc_auth --daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
export BRINGUP_DB=$T/inv.db
truth=rack/truth.json
bringup import --manifest rack/rack.csv >/dev/null
auth=$(jq -r '.nodes[] | select(.faults | index("bmc_auth")) | .hostname' $truth)
auth_bmc=$(jq -r --arg h "$auth" '.nodes[] | select(.hostname == $h) | .bmc' $truth)

# A file as the stream: JOURNAL_STREAM naming it is the journal.
: > log.j
stream=$(stat -c %d:%i log.j)
rc=0; JOURNAL_STREAM=$stream bringup discover -v > out 2>> log.j || rc=$?
assert_eq "$rc" 1 "discover exit with the bmc_auth node"
[ -s log.j ] || fail "nothing logged"
bad=$(grep -v '^<[3467]>bringup-discover: \[' log.j | head -2 || true)
[ -z "$bad" ] || fail "lines without a priority prefix: $bad"
grep -q "^<4>bringup-discover: \[discover\] $auth (bmc $auth_bmc): credentials refused" log.j ||
	fail "the refused login's line: $(cat log.j)"
for h in $(jq -r --arg a "$auth" '.nodes[] | select(.hostname != $a) | .hostname' $truth); do
	b=$(jq -r --arg h "$h" '.nodes[] | select(.hostname == $h) | .bmc' $truth)
	grep -q "^<6>bringup-discover: \[discover\] $h (bmc $b): " log.j || fail "$h's line at info: $(cat log.j)"
done
grep -q "$BRINGUP_BMC_PASSWORD" log.j && fail "the BMC password in the log"

# The variable kept but stderr elsewhere: text, as before.
bringup import --manifest rack/rack.csv >/dev/null
rc=0; JOURNAL_STREAM=$stream bringup discover "$auth" 2> log.txt || rc=$?
grep -q "^[0-9T:-]*Z bringup-discover: warning\[discover\] $auth: credentials refused" log.txt ||
	fail "text expected off the journal: $(cat log.txt)"
# The option and the environment beat the journal.
: > log.j; stream=$(stat -c %d:%i log.j)
JOURNAL_STREAM=$stream bringup discover --log-format json "$auth" 2>> log.j || true
jq -e 'select(.node == "'"$auth"'") | .bmc == "'"$auth_bmc"'"' log.j > /dev/null ||
	fail "--log-format json under the journal: $(cat log.j)"
: > log.j; stream=$(stat -c %d:%i log.j)
JOURNAL_STREAM=$stream BRINGUP_LOG_FORMAT=text bringup discover "$auth" 2>> log.j || true
grep -q "^[0-9T:-]*Z bringup-discover: warning" log.j || fail "BRINGUP_LOG_FORMAT=text under the journal: $(cat log.j)"
# --log-format journal anywhere; a format no one knows: exit 2.
bringup discover --log-format journal "$auth" 2> log.p || true
grep -q "^<4>bringup-discover: \[discover\] $auth (bmc $auth_bmc): credentials refused" log.p ||
	fail "--log-format journal: $(cat log.p)"
rc=0; bringup discover --log-format syslog 2> err || rc=$?
assert_eq "$rc" 2 "--log-format syslog"
assert_contains "$(cat err)" "want text, json or journal" "the values named"

# A real journald, when there is one to start (root, systemd installed).
jd=/lib/systemd/systemd-journald
if [ "$(id -u)" -ne 0 ] || [ ! -x $jd ] || ! command -v journalctl > /dev/null ||
	[ ! -s /etc/machine-id ]; then
	echo "t3036: no systemd-journald to start here: the prefix format alone was tested" >&2
	exit 0
fi
ns=brt$$
mid=$(cat /etc/machine-id)
$jd $ns > jd.log 2>&1 &
jd_pid=$!
at_exit "kill $jd_pid 2>/dev/null; rm -rf /run/systemd/journal.$ns /var/log/journal/$mid.$ns /run/log/journal/$mid.$ns"
i=0
while [ ! -S /run/systemd/journal.$ns/stdout ]; do
	i=$((i + 1)); [ $i -lt 100 ] || fail "journald did not start: $(cat jd.log)"
	sleep 0.1
done
# every node again (--force): the journal holds each one's line
rc=0; python3 "$BR_TOP/tests/e2e/journal-stream.py" /run/systemd/journal.$ns/stdout bringup \
	bringup discover -v --force $(jq -r '.nodes[].hostname' $truth) > out || rc=$?
assert_eq "$rc" 1 "discover under journald"
kill -USR1 $jd_pid # flush to the journal files
i=0
while ! journalctl --namespace=$ns -o json --no-pager -t bringup 2>/dev/null | grep -q "discovered\|credentials"; do
	i=$((i + 1)); [ $i -lt 50 ] || fail "nothing in the journal: $(journalctl --namespace=$ns --no-pager 2>&1 | tail -5)"
	sleep 0.2
done
journalctl --namespace=$ns -o json --no-pager -t bringup > j.json
[ -s j.json ] || fail "nothing in the journal"
# The prefix read as the priority, not left in the message.
assert_eq "$(jq -r 'select(.MESSAGE | startswith("<")) | .MESSAGE' j.json)" "" "messages still carrying a prefix"
assert_eq "$(jq -r --arg h "$auth" 'select(.MESSAGE | contains($h + " (bmc")) | .PRIORITY' j.json | sort -u)" 4 \
	"the refused login's priority"
assert_contains "$(jq -r --arg h "$auth" 'select(.PRIORITY == "4") | .MESSAGE' j.json)" \
	"[discover] $auth (bmc $auth_bmc): credentials refused" "the refused login's message"
for h in $(jq -r --arg a "$auth" '.nodes[] | select(.hostname != $a) | .hostname' $truth); do
	b=$(jq -r --arg h "$h" '.nodes[] | select(.hostname == $h) | .bmc' $truth)
	n=$(jq -r --arg m "$h (bmc $b): " 'select(.PRIORITY == "6" and (.MESSAGE | contains($m))) | .MESSAGE' j.json | wc -l)
	[ "$n" -ge 1 ] || fail "$h's discovered line at info: $(jq -r .MESSAGE j.json)"
done
journalctl --namespace=$ns -o json --no-pager | grep -q "$BRINGUP_BMC_PASSWORD" && fail "the BMC password in the journal"
exit 0
