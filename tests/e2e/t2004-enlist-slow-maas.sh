#!/bin/sh
# Against a MAAS slower than the poll interval, with more machines waiting
# than one poll request reads (so polls overlap), every step is
# taken once per machine: one create, one set_boot_disk, one layout, one
# deploy, and no 409 from acting twice on the same machine. Catches a poll
# that re-reads machines whose previous poll is still in flight.
. "$(dirname "$0")/lib.sh"
cd "$T"

# Polls read 50 machines a request (STG_ENLIST_POLL_IDS_MAX): 120 waiting take
# three requests. Under the sanitizers (build/asan) 60 take two, enough for
# the memory checks at half the cost; the plain tree shows the 120. One
# process (--workers 1), so all of them wait in one flow (t2018 covers the
# workers).
nodes=120
case "$BIN" in */asan/*) nodes=60 ;; esac
bringup-sim --no-hosts --nodes $nodes --dir sim --seed 5 --faults nvme_order:2 --maas-latency-ms 150 \
	--maas-commission-ms 300 --maas-deploy-ms 300 --daemon >/dev/null
at_exit "stop_sim $T/sim"
set -a; . ./sim/env; set +a
bringup import --db t.db --manifest sim/rack.csv >/dev/null
bringup discover --db t.db -q
bringup enlist --no-ssh-key --db t.db --skip-configure --poll-ms 20 --workers 1 -q
assert_eq "$(sqlite3 t.db "select count(*) from nodes where state = 'deployed'")" $nodes "deployed"
for op in set_boot_disk set_storage_layout deploy; do
	assert_eq "$(jq -r --arg op $op 'select(.op == $op) | .system_id' sim/maas-requests.log | sort | uniq -d)" "" \
		"machines sent $op more than once"
	assert_eq "$(jq -r --arg op $op 'select(.op == $op) | .system_id' sim/maas-requests.log | sort -u | wc -l)" $nodes \
		"machines sent $op"
done
assert_eq "$(jq -r 'select(.status == 409) | .op' sim/maas-requests.log)" "" "requests refused as a wrong state"
