#!/bin/sh
# enlist with workers, stopped by SIGTERM while its machines commission: the
# stage catches no signal, so it ends at once, and its workers end with it
# (none drives machines on unseen); a later run takes every machine up
# where MAAS has it and deploys it, creating none twice.
. "$(dirname "$0")/lib.sh"
cd "$T"

bringup-sim --no-hosts --nodes 12 --dir sim --seed 9 --maas-commission-ms 3000 --maas-deploy-ms 200 \
	--daemon >/dev/null
at_exit "stop_sim $T/sim"
set -a; . ./sim/env; set +a
bringup import --db t.db --manifest sim/rack.csv >/dev/null
bringup discover --db t.db -q

bringup-enlist --no-ssh-key --db t.db --skip-configure --poll-ms 50 --workers 2 -q > run1.json 2> run1.err &
pid=$!
i=0
while [ "$(jq -s '[.[] | select(.op == null and .method == "POST" and .path == "machines/")] | length' \
	sim/maas-requests.log)" -lt 12 ] && [ $i -lt 100 ]; do
	sleep 0.1; i=$((i + 1))
done
workers=$(pgrep -P $pid | tr '\n' ' ')
assert_eq "$(echo $workers | wc -w)" 2 "worker processes"
kill -TERM $pid
wait $pid || true
i=0
while [ $i -lt 30 ]; do
	alive=""
	for w in $workers; do kill -0 "$w" 2>/dev/null && alive="$alive $w"; done
	[ -z "$alive" ] && break
	sleep 0.1; i=$((i + 1))
done
assert_eq "$alive" "" "workers still running after their stage was stopped"
assert_eq "$(sqlite3 t.db 'pragma integrity_check')" ok "inventory integrity"
assert_eq "$(sqlite3 t.db "select count(*) from nodes where state = 'deployed'")" 0 "deployed before the stop"

bringup-enlist --no-ssh-key --db t.db --skip-configure --poll-ms 50 --workers 2 -q
assert_eq "$(sqlite3 t.db "select count(*) from nodes where state = 'deployed'")" 12 "deployed after the second run"
assert_eq "$(jq -r 'select(.op == null and .method == "POST" and .path == "machines/") | .hostname' sim/maas-requests.log | sort | uniq -d)" \
	"" "machines created twice"
