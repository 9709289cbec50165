#!/bin/sh
# bringup-sim test-only faults, for client robustness: a truncated body,
# wrong JSON types, a 100,000-member collection, a 50 MB body, a resource
# that never answers. The simulator itself stays clean through them all.
. "$(dirname "$0")/lib.sh"

R=$T/rack
bringup-sim --no-hosts --nodes 6 --seed 9 --dir "$R" --daemon --faults bad_json,bad_types,huge_collection,huge_body,hang >/dev/null
at_exit "stop_sim $R"
. "$R/env"
A="-u root:$BRINGUP_BMC_PASSWORD"
S=/redfish/v1/Systems/System.Embedded.1
C=/redfish/v1/Chassis/System.Embedded.1
node_with() { jq -r ".nodes[] | select(.faults | index(\"$1\")) | .bmc" "$R/truth.json"; }

b=$(node_with bad_json)
curl -sf $A "http://$b$S" >"$T/body" || fail "bad_json: no answer"
jq . "$T/body" >/dev/null 2>&1 && fail "bad_json: the body parses"
assert_contains "$(head -c 40 "$T/body")" '{"@odata.context"' "bad_json starts like the real thing"
# $expand on the Systems collection is no way around it.
curl -sf $A "http://$b/redfish/v1/Systems?\$expand=.(\$levels=1)" | jq . >/dev/null 2>&1 &&
	fail "bad_json: the expanded Systems collection parses"

b=$(node_with bad_types)
assert_eq "$(curl -sf $A "http://$b$S" | jq -r '.SerialNumber | type')" number "bad_types SerialNumber"
assert_eq "$(curl -sf $A "http://$b$S/EthernetInterfaces" | jq -r '.Members | type')" object "bad_types Members"
assert_eq "$(curl -sf $A "http://$b/redfish/v1/Systems?\$expand=*" | jq -r '.Members[0].SerialNumber | type')" number \
	"bad_types through \$expand"

b=$(node_with huge_collection)
curl -sf $A "http://$b$S/EthernetInterfaces" >"$T/huge"
assert_eq "$(jq '.Members | length' "$T/huge")" 100000 "huge_collection"
[ "$(wc -c <"$T/huge")" -lt 8388608 ] || fail "huge_collection body is over 8 MiB"

b=$(node_with huge_body)
BIOS=/redfish/v1/Systems/System.Embedded.1/Bios
assert_eq "$(curl -sf $A "http://$b$BIOS" | wc -c)" 52428800 "huge_body size"
assert_eq "$(curl -sf $A "http://$b$BIOS" | jq -r '."@odata.id"')" "$BIOS" "huge_body is valid JSON"

b=$(node_with hang)
assert_eq "$(curl -s -o /dev/null -w '%{http_code}' $A "http://$b$C")" 200 "hang: the Chassis answers"
rc=0
curl -s -m 2 -o /dev/null $A "http://$b$C/Thermal" || rc=$?
assert_eq "$rc" 28 "hang: Thermal never answers"
# Leave a hung request open while stopping.
curl -s -m 30 -o /dev/null $A "http://$b$C/Thermal" &
sleep 0.5
pid=$(cat "$R/sim.pid")
kill "$pid"
i=0
while kill -0 "$pid" 2>/dev/null; do
	i=$((i + 1))
	[ $i -lt 50 ] || fail "simulator did not stop with a hung request open"
	sleep 0.1
done
wait || true
assert_contains "$(jq -r 'select(.fault == "hang") | .status' "$R/requests.log" | sort -u)" 0 "hung requests logged unanswered"
grep -q Sanitizer "$R/sim.log" && fail "sanitizer report: $(cat "$R/sim.log")"
exit 0
