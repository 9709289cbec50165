#!/bin/sh
# The inventory's disk fills up while discover runs: the stage exits 3 (a
# required service, the inventory, is unusable), not 1 as if some BMCs had
# failed, and says so.
. "$(dirname "$0")/lib.sh"
need_root
cd "$T"
bringup sim --no-hosts --nodes 6 --seed 8 --latency-ms 150 --dir rack --daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
mkdir full
mount -t tmpfs -o size=2m tmpfs full || { echo "cannot mount a tmpfs" >&2; exit 1; }
at_exit "umount $T/full"
bringup import --db full/inv.db --manifest rack/rack.csv >/dev/null
rc=0
bringup discover --db full/inv.db --workers 1 > out 2> err &
pid=$!
# Once the stage holds its nodes (leases written), fill the disk.
i=0
while [ "$(sqlite3 full/inv.db 'select count(*) from leases' 2>/dev/null || echo 0)" -lt 6 ] && [ $i -lt 100 ]; do
	sleep 0.05; i=$((i + 1))
done
dd if=/dev/zero of=full/filler bs=64k 2>/dev/null || true
wait $pid || rc=$?
assert_eq "$rc" 3 "exit code when the inventory's disk is full"
assert_contains "$(cat err)" "full" "the error says the disk is full"
exit 0
