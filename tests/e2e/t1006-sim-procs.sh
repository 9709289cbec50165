#!/bin/sh
# bringup-sim --procs: the BMCs split among serving processes, every port
# answered by one of them, one request log of whole JSON lines from all,
# BMC state kept by the process serving it, and one kill of the pid file
# stopping them all.
. "$(dirname "$0")/lib.sh"

R=$T/rack
bringup-sim --no-hosts --nodes 96 --procs 3 --seed 2 --dir "$R" --daemon --latency-ms 20 >/dev/null
at_exit "stop_sim $R"
. "$R/env"
pid=$(cat "$R/sim.pid")
children=$(ps -o pid= --ppid "$pid" | tr -d ' ' | tr '\n' ' ')
assert_eq "$(echo $children | wc -w)" 2 "two serving processes besides the first"

# Every BMC answers the service root, once each.
jq -r '.nodes[] | "url = http://\(.bmc)/redfish/v1\noutput = /dev/null"' "$R/truth.json" >"$T/urls"
assert_eq "$(grep -c ^url "$T/urls")" 96 "96 BMCs"
curl -s -w '%{http_code}\n' -K "$T/urls" >"$T/codes"
assert_eq "$(grep -c '^200$' "$T/codes")" 96 "every BMC answered /redfish/v1"
made=96

# Many at once from all processes: 10 per BMC, 48 in flight.
for i in 1 2 3 4 5 6 7 8 9 10; do cat "$T/urls"; done >"$T/urls10"
curl -s -Z --parallel-max 48 -w '%{http_code}\n' -K "$T/urls10" >"$T/codes10"
assert_eq "$(grep -c '^200$' "$T/codes10")" 960 "960 parallel answers"
made=$((made + 960))

# A session lives in the process serving its BMC: BMCs 0..2 cover all three.
for bmc in $(jq -r '.nodes[0:3][] | .bmc' "$R/truth.json"); do
	curl -s -D "$T/hdr" -o /dev/null -H 'Content-Type: application/json' \
		-d "{\"UserName\":\"root\",\"Password\":\"$BRINGUP_BMC_PASSWORD\"}" \
		"http://$bmc/redfish/v1/SessionService/Sessions"
	token=$(sed -n 's/^X-Auth-Token: *\([^\r]*\).*/\1/ip' "$T/hdr")
	[ -n "$token" ] || fail "$bmc: no session token"
	assert_eq "$(curl -s -o /dev/null -w '%{http_code}' -H "X-Auth-Token: $token" \
		"http://$bmc/redfish/v1/Systems/System.Embedded.1")" 200 "$bmc: token works"
	made=$((made + 2))
done

sleep 0.5 # the log is flushed every 100 ms
L=$R/requests.log
jq -c . "$L" >/dev/null || fail "requests.log has a line that is not JSON"
assert_eq "$(wc -l <"$L")" "$made" "one log line per request"
# Each line alone is one JSON value: no line split or joined by another process.
jq -R -c fromjson "$L" >/dev/null || fail "requests.log has lines that are not one JSON value each"
assert_eq "$(jq -r .bmc "$L" | sort -u | wc -l)" 96 "every BMC logged"

kill "$pid"
i=0
while [ $i -lt 50 ]; do
	alive=
	for p in $pid $children; do kill -0 "$p" 2>/dev/null && alive="$alive $p"; done
	[ -z "$alive" ] && break
	sleep 0.1
	i=$((i + 1))
done
[ -z "$alive" ] || fail "still running 5 s after kill:$alive"
[ -f "$R/sim.pid" ] && fail "sim.pid left behind"
grep -q Sanitizer "$R/sim.log" && fail "sanitizer report: $(cat "$R/sim.log")"
exit 0
