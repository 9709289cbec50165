#!/bin/sh
# A rotation killed (SIGKILL) between its phases leaves every BMC reachable:
# the kill point is an event, the first account PATCH the simulated BMCs
# logged, when that BMC already refuses its factory password; each BMC then
# takes either the password the inventory references or the one its store
# file holds (written before the PATCH was sent). The next run finishes the
# job: every BMC answers only its new password, the inventory references the
# store. No password was in the killed run's argv.
. "$(dirname "$0")/lib.sh"
cd "$T"
N=12
# 150 ms a request: the kill, taken at the first PATCH, lands while the other
# BMCs are anywhere between their login and their record, and the rotation
# still has a second of requests to go when the PATCH is logged (at 50 ms
# it had ended before a test starved of CPU by a loaded machine saw it).
bringup-sim --no-hosts --nodes $N --dir sim --seed 9 --latency-ms 150 --daemon >/dev/null
at_exit "stop_sim $T/sim"
set -a; . ./sim/env; set +a
export BRINGUP_DB=$T/t.db
bringup import --manifest sim/rack.csv >/dev/null
factory=$BRINGUP_BMC_PASSWORD
answer() { curl -s -o /dev/null -w '%{http_code}' -u "root:$2" "http://$1/redfish/v1/Systems"; }
patches() { grep -c '"method":"PATCH","path":"/redfish/v1/AccountService/Accounts/' sim/requests.log 2>/dev/null || true; }

: > sim/requests.log
bringup credentials rotate --store "file:$T/store" -q 2>rotate.err &
pid=$!
polls=0
while [ "$(patches)" -lt 1 ] && [ $polls -lt 12000 ]; do
	sleep 0.01
	polls=$((polls + 1))
done
ps -o args= -p $pid > argv.txt 2>/dev/null || true
kill -KILL $pid 2>/dev/null || fail "rotate had ended before the first account PATCH"
wait $pid 2>/dev/null || true
echo "killed after $(patches) account PATCH(es) of $N"
for f in store/*; do
	[ -f "$f" ] || continue
	! grep -qF "$(cat "$f")" argv.txt || fail "a new password in rotate's argv"
done
! grep -qF "$factory" argv.txt || fail "the factory password in rotate's argv"

# Every BMC reachable, by the inventory's reference or by its store file.
moved=0
inv_sql t.db "select hostname, bmc, bmc_password_ref from nodes" | tr '|' ' ' > nodes.txt
while read -r h bmc ref; do
	case $ref in
	env:*) pw=$factory ;;
	file:*) pw=$(cat "${ref#file:}") ;;
	esac
	if [ "$(answer "$bmc" "$pw")" != 200 ]; then
		[ -f "store/$h" ] || fail "$h: the referenced password is refused and no store file"
		assert_eq "$(answer "$bmc" "$(cat "store/$h")")" 200 "$h: reachable by its store file"
		moved=$((moved + 1))
	fi
done < nodes.txt
echo "after the kill: $moved BMC(s) on a new password the inventory did not reference yet"
# The BMC whose PATCH was the kill point had taken the new password before
# any record could be made: the store file is what reaches it.
first=$(jq -r 'select(.method == "PATCH") | .node' sim/requests.log | head -n 1)
assert_eq "$(answer "$(jq -r --arg h "$first" '.nodes[] | select(.hostname == $h) | .bmc' sim/truth.json)" "$factory")" 401 \
	"$first: the factory password after its PATCH"

rc=0
bringup credentials rotate --store "file:$T/store" --json > out.json 2> err || rc=$?
assert_eq "$rc" 0 "the re-run ($(cat err))"
assert_eq "$(jq '.rotated + .already' out.json)" $N "nodes rotated in the end"
while read -r h bmc ref; do
	assert_eq "$(inv_sql t.db "select bmc_password_ref from nodes where hostname = '$h'")" "file:$T/store/$h" "$h: reference"
	assert_eq "$(answer "$bmc" "$(cat "store/$h")")" 200 "$h: the new password"
	assert_eq "$(answer "$bmc" "$factory")" 401 "$h: the factory password"
done < nodes.txt
echo ok
