#!/bin/sh
# bringup-sim --https: a CA in DIR/ca.pem, a server certificate for
# 127.0.0.1 signed by it; clients that trust the CA connect, others refuse.
. "$(dirname "$0")/lib.sh"

R=$T/rack
bringup-sim --no-hosts --nodes 3 --seed 5 --dir "$R" --daemon --https >/dev/null
at_exit "stop_sim $R"
. "$R/env"
assert_eq "$BRINGUP_BMC_SCHEME" https "scheme"
assert_eq "$BRINGUP_CA_FILE" "$(cd "$R" && pwd)/ca.pem" "BRINGUP_CA_FILE"
openssl x509 -in "$BRINGUP_CA_FILE" -noout -text | grep -q "CA:TRUE" || fail "ca.pem is not a CA certificate"

for b in $(jq -r '.nodes[].bmc' "$R/truth.json"); do
	serial=$(curl -sf --cacert "$BRINGUP_CA_FILE" -u "root:$BRINGUP_BMC_PASSWORD" \
		"https://$b/redfish/v1/Systems/System.Embedded.1" | jq -r .SerialNumber) || fail "https to $b with the CA"
	assert_eq "$serial" "$(jq -r ".nodes[] | select(.bmc == \"$b\") | .system_serial" "$R/truth.json")" "serial over https"
done
b=$(jq -r '.nodes[0].bmc' "$R/truth.json")
port=${b#*:}

# The certificate names localhost as well as 127.0.0.1.
curl -sf --cacert "$BRINGUP_CA_FILE" "https://localhost:$port/redfish/v1" >/dev/null || fail "https by name localhost"
# Without the CA, verification fails (curl exit 60), and plain HTTP gets no answer.
rc=0
curl -s -o /dev/null "https://$b/redfish/v1" || rc=$?
assert_eq "$rc" 60 "unverified certificate refused"
assert_eq "$(curl -s -m 5 -o /dev/null -w '%{http_code}' "http://$b/redfish/v1" || true)" 000 "plain http on an https port"
# Sessions work over TLS too.
code=$(curl -s --cacert "$BRINGUP_CA_FILE" -o /dev/null -w '%{http_code}' \
	-d "{\"UserName\":\"root\",\"Password\":\"$BRINGUP_BMC_PASSWORD\"}" "https://$b/redfish/v1/SessionService/Sessions")
assert_eq "$code" 201 "session over https"
pid=$(cat "$R/sim.pid")
kill "$pid"
while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
grep -q Sanitizer "$R/sim.log" && fail "sanitizer report: $(cat "$R/sim.log")"
exit 0
