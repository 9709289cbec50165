#!/bin/sh
# Output that fits (issue 28 point C): the --json documents of run, status,
# tickets and export (to the NetBox stand-in) carry their schema_version and hold to docs/schema/*.json
# (every key documented there; one not there fails), checked with
# python3-jsonschema on a simulated rack's real outputs; the status table
# fits $COLUMNS, its long cells cut with an ellipsis; -o picks columns and
# --format csv gives the same nodes as the JSON.
. "$(dirname "$0")/lib.sh"
cd "$T"
check() { python3 "$BR_TOP/tests/e2e/schema-check.py" "$BR_TOP/docs/schema/$1.schema.json" "$2"; }
bringup sim --nodes 4 --seed 7 --dir rack --faults pcie_degraded,bmc_down --maas-commission-ms 100 \
	--maas-deploy-ms 100 --daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
export BRINGUP_DB=$T/inv.db BRINGUP_SSH_PUBKEY=$BRINGUP_SSH_KEY.pub BRINGUP_BMC_TIMEOUT=3
bringup import --manifest rack/rack.csv >/dev/null

rc=0; bringup run --json -q > run.json 2> run.err || rc=$?
assert_eq "$rc" 1 "run with a quarantined and a failed node ($(tail -3 run.err))"
bringup status --json > status.json
bringup tickets --json > tickets.json
bringup tickets --json --state all > tickets-all.json
bringup status --json --state failed > status-failed.json
# export --netbox to the simulator's NetBox stand-in: one host MAC already
# there unassigned (a conflict), a dry run, the writes, and a second run
# with nothing left to write.
m0=$(jq -r '[.nodes[] | select(.macs | length > 0)][0].macs[0]' status.json)
curl -sf -H "Authorization: Token $NETBOX_TOKEN" -H 'Content-Type: application/json' \
	-d "{\"mac_address\": \"$m0\"}" "${NETBOX_URL}api/dcim/mac-addresses/" > /dev/null || fail "POST $m0 to NetBox"
for x in export-dry:--dry-run export: export-again:; do
	rc=0; bringup export --netbox "$NETBOX_URL" ${x#*:} --json > "${x%%:*}.json" 2> export.err || rc=$?
	assert_eq "$rc" 1 "${x%%:*} exit (the conflict): $(cat export.err)"
done
assert_eq "$(jq '[.nodes[].changes[] | select(.field == "mac_address" and .written)] | length > 0' export.json)" \
	true "host MACs written"
assert_eq "$(jq '[.nodes[].conflicts[]] | length' export.json)" 1 "the conflict listed"
assert_eq "$(jq .writes export-again.json)" 0 "writes of a second export"
# What the rack must have shown for the check to mean something.
assert_eq "$(jq '[.nodes[] | select(.state == "failed" and .failure_kind != null)] | length' status.json)" 1 "a failed node with its kind"
[ "$(jq '[.nodes[].checks[]] | length' status.json)" -gt 0 ] || fail "no checks in status"
[ "$(jq '[.nodes[].nics[]] | length' status.json)" -gt 0 ] || fail "no nics in status"
[ "$(jq '.tickets | length' tickets.json)" -ge 2 ] || fail "fewer than two tickets"
for d in run:run.json status:status.json status:status-failed.json tickets:tickets.json tickets:tickets-all.json \
	export:export-dry.json export:export.json export:export-again.json; do
	check "${d%%:*}" "${d#*:}" || fail "${d#*:} does not hold to docs/schema/${d%%:*}.schema.json"
	assert_eq "$(jq .schema_version "${d#*:}")" \
		"$(jq -r '.properties.schema_version.const' "$BR_TOP/docs/schema/${d%%:*}.schema.json")" "${d#*:} schema_version"
	assert_eq "$(jq -r '."$id"' "$BR_TOP/docs/schema/${d%%:*}.schema.json")" \
		"urn:bringup:schema:${d%%:*}:$(jq .schema_version "${d#*:}")" "${d%%:*} schema \$id names its version"
done
# The check fails on what it must: a key no schema documents, a missing one,
# a state no bringup has.
jq '.nodes[0].undocumented = 1' status.json > extra.json
! check status extra.json >/dev/null || fail "an undocumented key passed"
jq 'del(.schema_version)' tickets.json > noversion.json
! check tickets noversion.json >/dev/null || fail "a document without schema_version passed"
jq '.states.broken = 1' run.json > badstate.json
! check run badstate.json >/dev/null || fail "an unknown state passed"
# A key of export's renamed, at the top, in a node, in a change.
jq '.not_in_netbox as $v | del(.not_in_netbox) | .missing = $v' export.json > renamed.json
! check export renamed.json >/dev/null || fail "export's not_in_netbox renamed passed"
jq '.nodes[0] |= (.device = .device_id | del(.device_id))' export.json > renamed.json
! check export renamed.json >/dev/null || fail "a node's device_id renamed passed"
jq '(.nodes[] | select(.changes | length > 0) | .changes[0]) |= (.value = .to | del(.to))' export.json > renamed.json
! check export renamed.json >/dev/null || fail "a change's to renamed passed"

# The table fits the terminal: every line within $COLUMNS, long cells cut.
COLUMNS=60 LANG=C bringup status > narrow.txt
awk 'length > 60 { print "line " NR " is " length " wide: " $0; bad = 1 } END { exit bad }' narrow.txt ||
	fail "status wider than COLUMNS=60"
grep -q '\.\.\.$' narrow.txt || fail "no long reason cut with an ellipsis: $(cat narrow.txt)"
COLUMNS=2000 bringup status > wide.txt
grep -q '\.\.\.$' wide.txt && fail "cut on a wide terminal: $(cat wide.txt)"
assert_eq "$(bringup status -o hostname,state | head -1 | tr -s ' ')" "HOSTNAME STATE" "-o picks columns"
rc=0; err=$(bringup status -o hostname,stat 2>&1) || rc=$?
assert_eq "$rc" 2 "-o with an unknown column"
assert_contains "$err" "did you mean 'state'?" "-o suggestion"
assert_contains "$err" "(columns: hostname,rack,unit,state,serial,macs,reason,bmc," "-o lists the columns"
assert_contains "$err" ",zone,power_domain)" "-o lists every column"
# CSV: every node, its state, as the JSON has them, whole (not cut).
COLUMNS=40 bringup status --format csv -o hostname,state,reason > st.csv
python3 - st.csv status.json <<'PY' || fail "CSV does not match the JSON"
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
nodes = json.load(open(sys.argv[2]))["nodes"]
want = [(n["hostname"], n["state"], n["reason"] or "") for n in nodes]
got = [(r["hostname"], r["state"], r["reason"]) for r in rows]
sys.exit(0 if got == want else "got %r\nwant %r" % (got, want))
PY
assert_eq "$(bringup status --format json | jq -c '[.nodes[].hostname]')" "$(jq -c '[.nodes[].hostname]' status.json)" "--format json"
echo "ok"
