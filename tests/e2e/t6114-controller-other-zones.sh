#!/bin/sh
# A controller of one zone, woken by events of another (one inventory for
# a site of many halls: every stage's event wakes every controller), reads
# the nodes again only for events of its own zones: zone b's discover
# leaves zone a's controller asleep (its log says the events were none of
# its zone, no pass follows), an import into zone a wakes it at once.
. "$(dirname "$0")/lib.sh"
cd "$T"
bringup sim --no-hosts --nodes 5 --seed 14 --dir rack --maas-commission-ms 50 --maas-deploy-ms 50 --daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
ssh-keygen -q -t ed25519 -N "" -f "$T/key"
export BRINGUP_DB=$T/inv.db BRINGUP_SSH_KEY=$T/key BRINGUP_SSH_PUBKEY=$T/key.pub BRINGUP_BMC_TIMEOUT=5 BRINGUP_BMC_RETRIES=0
: > "$T/known_hosts"
export BRINGUP_KNOWN_HOSTS=$T/known_hosts
# rows 1-2 in zone a, 3-4 in zone b; the fifth comes later, in zone a
awk -F, -v OFS=, 'NR == 1 { print $0, "zone"; next } NR <= 5 { print $0, (NR <= 3 ? "a" : "b") }' rack/rack.csv > first.csv
awk -F, -v OFS=, 'NR == 1 { print $0, "zone"; next } { print $0, (NR <= 3 || NR == 6 ? "a" : "b") }' rack/rack.csv > all.csv
bringup import --manifest first.csv >/dev/null
at_rest() { # ZONE: its nodes at rest
	inv_sql "$BRINGUP_DB" "select count(*) from nodes where zone = '$1' and state in ('golden', 'quarantined', 'failed')"
}
wait_rest() { # ZONE N
	i=0
	until [ "$(at_rest "$1")" = "$2" ]; do
		i=$((i + 1)); [ $i -le 240 ] || fail "zone $1: $(at_rest "$1") of $2 nodes at rest: $(tail -5 ctl.err)"
		sleep 0.5
	done
}
passes() { grep -c '"pass"' ctl.out || true; }
bringup controller --zone a --json --interval 600 --host-key-policy accept-new -vv > ctl.out 2> ctl.err &
ctl=$!
at_exit "kill $ctl 2>/dev/null || true"
wait_rest a 2
# idle: its pass reported, no stage of it running
i=0
until [ "$(passes)" -ge 1 ] && [ -z "$(pgrep -P $ctl)" ]; do
	i=$((i + 1)); [ $i -le 240 ] || fail "the controller never went idle: $(tail -5 ctl.err)"
	sleep 0.25
done
p=$(passes)

# Zone b's nodes moved by another hall's stage.
bringup discover --zone b -q
[ "$(nodes_in "$BRINGUP_DB" discovered)" = 2 ] || fail "zone b not discovered"
i=0
until grep -q "none of zone a" ctl.err; do
	i=$((i + 1)); [ $i -le 240 ] || fail "the controller never said zone b's events were none of its own: $(grep controller ctl.err | tail -5)"
	sleep 0.25
done
sleep 1
assert_eq "$(passes)" "$p" "passes after zone b's events"
assert_eq "$(inv_sql "$BRINGUP_DB" "select count(*) from nodes where zone = 'b' and state = 'discovered'")" 2 \
	"zone b's nodes left to zone b"

# A node imported into zone a: woken, a pass takes it.
bringup import --manifest all.csv >/dev/null
wait_rest a 3
i=0
until [ "$(passes)" -gt "$p" ]; do
	i=$((i + 1)); [ $i -le 240 ] || fail "no pass reported after the import into zone a"
	sleep 0.25
done
kill -TERM $ctl
rc=0; wait $ctl || rc=$?
assert_eq "$rc" 0 "the controller stopped by SIGTERM"
