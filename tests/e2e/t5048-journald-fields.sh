#!/bin/sh
# A stage run as a systemd service (its stderr the journal's stream, as
# systemd sets $JOURNAL_STREAM) logs to journald natively: every line a
# journal entry whose fields are its parts, BRINGUP_NODE, BRINGUP_BMC,
# BRINGUP_STAGE and BRINGUP_SUBSYSTEM beside MESSAGE, PRIORITY and
# SYSLOG_IDENTIFIER (systemd.journal-fields(7)), so `journalctl
# BRINGUP_NODE=HOST` is one node's lines; none comes twice (natively and
# through the stream). The peer is a real systemd-journald, started in a
# mount namespace of the test's own (its sockets and runtime journal on
# tmpfs, the machine's journal untouched), the stream made by systemd-cat.
# --log-format journal with stderr elsewhere keeps writing stream lines.
. "$(dirname "$0")/lib.sh"
need_root
journald=/lib/systemd/systemd-journald
[ -x "$journald" ] && command -v systemd-cat >/dev/null && command -v journalctl >/dev/null ||
	fail "systemd-journald, systemd-cat and journalctl are needed (apt-get install systemd)"
unshare -m true 2>/dev/null || { echo "skipped: no mount namespace (unshare -m) here"; exit 0; }
cd "$T"
bringup sim --no-hosts --nodes 2 --seed 3 --faults bmc_auth:1 --dir rack --daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
export BRINGUP_DB=$T/inv.db
bringup import --manifest rack/rack.csv >/dev/null
ok=$(jq -r '.nodes[] | select(.faults == []) | .hostname' rack/truth.json)
bad=$(jq -r '.nodes[] | select(.faults | index("bmc_auth")) | .hostname' rack/truth.json)
ok_bmc=$(jq -r --arg h "$ok" '.nodes[] | select(.hostname == $h) | .bmc' rack/truth.json)

cat > inner.sh <<'EOS'
set -eu
mount -t tmpfs tmpfs /run/systemd
mkdir -p /run/systemd/journal /run/log
mount -t tmpfs tmpfs /run/log
"$JOURNALD" > "$T/journald.log" 2>&1 &
jd=$!
i=0
until [ -S /run/systemd/journal/stdout ] && [ -S /run/systemd/journal/socket ]; do
	i=$((i + 1)); [ $i -lt 100 ] || { echo "journald did not start: $(cat "$T/journald.log")" >&2; exit 1; }
	sleep 0.1
done
# As systemd starts a unit with StandardError=journal: stderr the stream,
# $JOURNAL_STREAM its device and inode.
systemd-cat -t bringup-discover sh -c \
	'JOURNAL_STREAM=$(stat -L -c %d:%i /proc/self/fd/2) exec bringup discover -v --timeout 5 --retries 0' || true
sleep 1
journalctl -D /run/log/journal -o json --no-pager > "$T/journal.json"
kill $jd
EOS
T=$T JOURNALD=$journald unshare -m sh inner.sh || fail "the journald run failed"
entries() { jq -c "select(.SYSLOG_IDENTIFIER == \"bringup-discover\") | $1" journal.json; }
[ -s journal.json ] || fail "journalctl read nothing"
line=$(entries "select(.BRINGUP_NODE == \"$ok\" and (.MESSAGE | contains(\"discovered over Redfish\")))" | head -1)
[ -n "$line" ] || fail "no native entry for $ok: $(entries '.MESSAGE' | head -5)"
assert_eq "$(echo "$line" | jq -r '[._TRANSPORT, .PRIORITY, .BRINGUP_STAGE, .BRINGUP_SUBSYSTEM, .BRINGUP_BMC] | join(" ")')" \
	"journal 6 discover discover $ok_bmc" "$ok: transport, priority, stage, subsystem and BMC"
assert_contains "$(echo "$line" | jq -r .MESSAGE)" "bringup-discover: [discover] $ok (bmc $ok_bmc): discovered over Redfish" \
	"$ok: MESSAGE is the stream line's text"
warn=$(entries "select(.BRINGUP_NODE == \"$bad\" and .PRIORITY == \"4\") | .MESSAGE" | head -1)
assert_contains "$warn" "credentials refused" "$bad: its warning, priority 4"
assert_eq "$(entries 'select(._TRANSPORT == "stdout") | .MESSAGE' | grep -c 'discovered over Redfish' || true)" 0 \
	"a line through the stream too"
assert_eq "$(entries "select(.BRINGUP_NODE == \"$ok\" and (.MESSAGE | contains(\"discovered over Redfish\")))" | wc -l)" 1 \
	"$ok's line once"

# Not the journal's stream: --log-format journal writes "<N>" stream lines.
bringup status --log-format journal -v --db "$T/nope.db" 2> stream.err >/dev/null || true
assert_contains "$(head -1 stream.err)" "<3>bringup-status: [inventory]" "a stream line on stderr"
