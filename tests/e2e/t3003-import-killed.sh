#!/bin/sh
# A process killed with SIGKILL in the middle of an import leaves the
# inventory consistent: integrity_check ok and either all of the import or
# none of it.
. "$(dirname "$0")/lib.sh"
cd "$T"
N=5000
awk -v n=$N 'BEGIN {
	print "hostname,rack,unit,bmc,bmc_user,bmc_password,profile,bmc_type,boot_disk_serial,notes"
	for (i = 0; i < n; i++)
		printf "gpu-%05d,r%04d,%d,10.%d.%d.%d,root,env:PW,xe9680,,,\n", i, int(i / 40), i % 40 + 1,
			int(i / 65536), int(i / 256) % 256, i % 256
}' > big.csv

# Time an undisturbed import to spread the kills across its whole length.
start=$(date +%s%N)
bringup import --db full.db --manifest big.csv >/dev/null
ms=$(( ($(date +%s%N) - start) / 1000000 ))
assert_eq "$(sqlite3 full.db 'select count(*) from nodes')" $N "undisturbed import"
echo "undisturbed import of $N rows: ${ms} ms"

killed=0
for pct in 15 35 55 75 90; do
	rm -f k.db k.db-wal k.db-shm
	bringup import --db k.db --manifest big.csv >/dev/null 2>&1 &
	pid=$!
	delay=$(( ms * pct / 100 ))
	sleep "$(printf '%d.%03d' $((delay / 1000)) $((delay % 1000)))"
	kill -KILL $pid 2>/dev/null && killed=$((killed + 1))
	wait $pid 2>/dev/null || true
	[ -f k.db ] || continue
	assert_eq "$(sqlite3 k.db 'pragma integrity_check')" ok "integrity after kill at ${pct}%"
	count=$(sqlite3 k.db 'select count(*) from nodes' 2>/dev/null || echo 0)
	events=$(sqlite3 k.db 'select count(*) from events' 2>/dev/null || echo 0)
	[ "$count" -eq 0 ] || [ "$count" -eq $N ] || fail "partial import after kill at ${pct}%: $count nodes"
	assert_eq "$events" "$count" "one event per imported node after kill at ${pct}%"
	# The killed database is usable: importing again completes it.
	bringup import --db k.db --manifest big.csv >/dev/null
	assert_eq "$(sqlite3 k.db 'select count(*) from nodes')" $N "re-import after kill at ${pct}%"
done
[ $killed -gt 0 ] || fail "no import was killed; the test proved nothing"
echo "killed $killed imports"
