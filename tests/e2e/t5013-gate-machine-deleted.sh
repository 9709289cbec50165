#!/bin/sh
# bringup gate when MAAS answers a tag update short: a machine is deleted
# between gate's read and its update_nodes (the emulator's
# maas_deleted_at_tag). MAAS skips a system_id it no longer has and counts
# only the machines it matched (src/maasserver/api/tags.py
# TagHandler.update_nodes: Node.objects.filter(system_id__in=...), then
# {"added": count, "removed": count}), so gate sorts the batch out machine
# by machine: the others end tagged, the deleted one fails naming its
# system_id, and the run goes on (the quarantined node is still tagged and
# marked broken, every node keeps its verdict).
. "$(dirname "$0")/lib.sh"
cd "$T"
bringup sim --nodes 4 --seed 13 --dir rack --faults maas_deleted_at_tag:1 \
	--maas-commission-ms 100 --maas-deploy-ms 100 --daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
export BRINGUP_DB=$T/inv.db
cp -r "$BR_TOP/templates" tpl
# validate --facts reads no controller clock: clock is unknown everywhere.
sed -i 's/^optional = .*/optional = fabric, clock/' tpl/profiles/xe9680/hardware.conf
export BRINGUP_TEMPLATES=$T/tpl

maas_get() { # PATH: the answer, or the HTTP status when it is not 200
	curl -s -w '%{http_code}' -o body -H "$(maas_auth)" "${MAAS_URL}api/2.0/$1" > code
	if [ "$(cat code)" = 200 ]; then cat body; else cat code; fi
}
state() { bringup status --json | jq -r --arg h "$1" '.nodes[] | select(.hostname == $h) | .state'; }
sysid() { node_field inv.db "$1" maas_system_id; }

ssh-keygen -q -t ed25519 -N '' -f id
bringup import --manifest rack/rack.csv >/dev/null
bringup discover -q
bringup enlist --skip-configure --poll-ms 100 --ssh-pubkey id.pub -q
gone=$(jq -r '.nodes[] | select(.faults | index("maas_deleted_at_tag")) | .hostname' rack/truth.json)
[ -n "$gone" ] || fail "no maas_deleted_at_tag node"
others=$(jq -r '.nodes[] | select(.faults == []) | .hostname' rack/truth.json | sort)
unproven=$(echo "$others" | head -1)
golden=$(echo "$others" | tail -n +2)
gone_id=$(sysid "$gone")

# The probe's documents of the simulated hosts, but for one node left with
# no LLDP read (cabling unknown: quarantined).
for h in $gone $others; do
	if [ "$h" = "$unproven" ]; then sim_probe_doc rack "$h" "$NO_LLDP"; else sim_probe_doc rack "$h"; fi > "doc-$h.json"
	f=doc-$h.json
	bringup validate --facts "$f" --wiring rack/wiring.csv -q "$h" || true
	assert_eq "$(state "$h")" validated "$h validated"
done

rc=0; bringup gate --json > g.json 2> g.err || rc=$?
assert_eq "$rc" 1 "gate exit with a MAAS error and a quarantined node"
# The emulator deleted the machine as the batch arrived, and answered it short.
assert_eq "$(jq -s -c --arg id "$gone_id" '[.[] | select(.op == "update_nodes" and .deleted != null) | .deleted]' rack/maas-requests.log)" \
	"[[\"$gone_id\"]]" "the machine was deleted as the first tag update arrived"
assert_eq "$(maas_get "machines/$gone_id/")" 404 "the deleted machine is gone from MAAS"
# One batch for the three golden machines, then one request per machine.
assert_eq "$(jq -s -c '[.[] | select(.op == "update_nodes" and (.path | startswith("tags/golden/"))) | .system_ids]' rack/maas-requests.log)" \
	"[3,1,1,1]" "the short batch retried one machine at a time"
# The verdicts stand; the others are tagged, the deleted one failed with a reason.
assert_eq "$(jq -r .golden g.json),$(jq -r .quarantined g.json),$(jq -r .errors g.json)" 3,1,1 "golden, quarantined, errors"
for h in $golden; do
	assert_eq "$(state "$h")" golden "$h golden"
	assert_eq "$(jq -r --arg h "$h" '.nodes[] | select(.hostname == $h) | .error' g.json)" null "$h has no error"
	assert_contains "$(bringup history "$h")" "MAAS: tagged golden" "$h: MAAS change is an event"
done
assert_eq "$(maas_get 'tags/golden/?op=machines' | jq -r '[.[].hostname] | sort | join(",")')" \
	"$(echo "$golden" | paste -sd,)" "golden tag on exactly the golden machines MAAS still has"
assert_eq "$(maas_get 'tags/quarantine/?op=machines' | jq -r '[.[].hostname] | join(",")')" "$unproven" \
	"quarantine tag on the quarantined"
assert_eq "$(maas_get "machines/$(sysid "$unproven")/" | jq -r .status_name)" Broken "quarantined machine marked broken"
err=$(jq -r --arg h "$gone" '.nodes[] | select(.hostname == $h) | .error' g.json)
assert_eq "$err" "MAAS add tag golden: it has no machine $gone_id" "the deleted machine's error names it"
assert_contains "$(cat g.err)" "$gone: MAAS: MAAS add tag golden: it has no machine $gone_id" "warned on stderr"
assert_contains "$(bringup history "$gone")" "failed: MAAS add tag golden: it has no machine $gone_id" \
	"the failure is in the node's history"
echo "gate: a machine deleted before its tag update fails alone; the batch's others tagged"
