#!/bin/sh
# Discovery over HTTPS with the simulator's generated CA: works with
# --ca-file, is refused without it (verification is on by default), works
# with --insecure.
. "$(dirname "$0")/lib.sh"
cd "$T"
bringup sim --no-hosts --nodes 3 --seed 11 --https --dir rack --daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
unset BRINGUP_CA_FILE
assert_eq "$BRINGUP_BMC_SCHEME" https "scheme in env"
[ -s rack/ca.pem ] || fail "no CA written"

bringup import --db a.db --manifest rack/rack.csv >/dev/null
rc=0; bringup discover --db a.db --json --timeout 3 --retries 0 > a.json 2>/dev/null || rc=$?
assert_eq "$rc" 1 "exit code without the CA"
assert_eq "$(jq '.failed' a.json)" 3 "all refused without the CA"
assert_contains "$(jq -r '.nodes[0].reason' a.json)" "certificate" "reason names the certificate problem"
# ... and says what to do, in the words MAAS's refusal uses.
assert_contains "$(jq -r '.nodes[0].reason' a.json)" "give the BMC's CA with --ca-file or \$BRINGUP_CA_FILE; --insecure skips the check" \
	"reason gives the --ca-file / --insecure hint"
[ "$(wc -l < rack/requests.log)" -eq 0 ] || fail "a request got through without verification"

bringup import --db b.db --manifest rack/rack.csv >/dev/null
bringup discover --db b.db --json --ca-file rack/ca.pem > b.json
assert_eq "$(jq '.discovered' b.json)" 3 "discovered with --ca-file"
assert_eq "$(bringup status --db b.db --json | jq -r '[.nodes[].macs | length] | join(",")')" "10,10,10" "MACs over TLS"

bringup import --db c.db --manifest rack/rack.csv >/dev/null
bringup discover --db c.db --json --insecure > c.json
assert_eq "$(jq '.discovered' c.json)" 3 "discovered with --insecure"

# BRINGUP_CA_FILE is the default for --ca-file.
bringup import --db d.db --manifest rack/rack.csv >/dev/null
BRINGUP_CA_FILE=$T/rack/ca.pem bringup discover --db d.db --json > d.json
assert_eq "$(jq '.discovered' d.json)" 3 "discovered with BRINGUP_CA_FILE"
