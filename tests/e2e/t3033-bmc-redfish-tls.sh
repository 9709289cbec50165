#!/bin/sh
# bringup bmc --redfish over HTTPS: the BMC's certificate is verified by
# default (refused without the simulator's CA: exit 3, the reason naming
# the certificate and what to do, no request served), read with --ca-file
# (or BRINGUP_CA_FILE), and with --insecure only when asked.
. "$(dirname "$0")/lib.sh"
cd "$T"
bringup sim --no-hosts --nodes 1 --seed 11 --https --dir rack --daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
unset BRINGUP_CA_FILE
export BRINGUP_DB=$T/inv.db
bringup import --manifest rack/rack.csv >/dev/null
h=$(jq -r '.nodes[0].hostname' rack/truth.json)
serial=$(jq -r '.nodes[0].system_serial' rack/truth.json)

rc=0; BRINGUP_BMC_RETRIES=0 bringup bmc --redfish "$h" --json > out.json 2> err || rc=$?
assert_eq "$rc" 3 "exit without the BMC's CA"
assert_contains "$(cat err)" "certificate" "the certificate named"
assert_contains "$(cat err)" "--ca-file" "what to do"
[ ! -s out.json ] || fail "printed facts from an unverified BMC: $(head -c 200 out.json)"
[ "$(wc -l < rack/requests.log)" -eq 0 ] || fail "a request got through without verification"

bringup bmc --redfish "$h" --json --ca-file rack/ca.pem > out.json 2> err || fail "with --ca-file: exit $?: $(cat err)"
assert_eq "$(jq -r .system_serial out.json)" "$serial" "serial over verified TLS"
BRINGUP_CA_FILE=rack/ca.pem bringup bmc --redfish "$h" --json > out.json 2> err || fail "with BRINGUP_CA_FILE: exit $?: $(cat err)"
assert_eq "$(jq -r .system_serial out.json)" "$serial" "serial with BRINGUP_CA_FILE"
bringup bmc --redfish "$h" --json --insecure > out.json 2> err || fail "with --insecure: exit $?: $(cat err)"
assert_eq "$(jq -r .system_serial out.json)" "$serial" "serial with --insecure"
