#!/bin/sh
# bringup gate on a simulated rack taken through the real stages (import,
# discover, enlist, validate --facts with the probe's documents of the
# simulated hosts' trees): passing nodes golden, a firmware fault and an unproven
# (unknown) cabling check quarantined with the checks named; MAAS tagged to
# match, quarantined machines marked broken with the reason; a second gate
# sends nothing that changes MAAS; a repaired node re-validated is promoted,
# marked fixed and its tickets closed; every change is an event.
. "$(dirname "$0")/lib.sh"
cd "$T"
bringup sim --nodes 5 --seed 11 --dir rack --faults fw_outdated --daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
DB=$(db_for inv)
export BRINGUP_DB=$DB
# validate --facts reads no controller clock, so the clock check is
# unknown on every node: the profile here excuses that (the shipped one
# does not), and requires everything else it states (a [gate] required
# list could not take a check away).
cp -r "$BR_TOP/templates" tpl
sed -i 's/^optional = .*/optional = fabric, clock/' tpl/profiles/xe9680/hardware.conf
export BRINGUP_TEMPLATES=$T/tpl

# The POSTs MAAS received (each one changes something).
posts() { grep -c '"method":"POST"' rack/maas-requests.log || true; }
state() { bringup status --json | jq -r --arg h "$1" '.nodes[] | select(.hostname == $h) | .state'; }
reason() { bringup status --json | jq -r --arg h "$1" '.nodes[] | select(.hostname == $h) | .reason'; }
sysid() { node_field "$DB" "$1" maas_system_id; }

ssh-keygen -q -t ed25519 -N '' -f id
bringup import --manifest rack/rack.csv >/dev/null
bringup discover -q
bringup enlist --skip-configure --poll-ms 100 --ssh-pubkey id.pub -q
hosts=$(jq -r '.nodes[].hostname' rack/truth.json)
fw=$(jq -r '.nodes[] | select(.faults | index("fw_outdated")) | .hostname' rack/truth.json)
unproven=$(jq -r '.nodes[] | select(.faults == []) | .hostname' rack/truth.json | head -1)
for h in $hosts; do assert_eq "$(state "$h")" deployed "$h deployed before the gate"; done

# The probe's document of a simulated host (its LLDP neighbours are the
# wiring list's), and one with no LLDP read: cabling unknown.
good_doc() { sim_probe_doc rack "$1" > "good-$1.json"; }
doc=$T/no-lldp.json
sim_probe_doc rack "$unproven" "$NO_LLDP" > "$doc"
for h in $hosts; do
	if [ "$h" = "$unproven" ]; then f=$doc; else good_doc "$h"; f=good-$h.json; fi
	bringup validate --facts "$f" --wiring rack/wiring.csv -q "$h" || true
	assert_eq "$(state "$h")" validated "$h validated"
done

rc=0; bringup gate --json > g1.json || rc=$?
assert_eq "$rc" 1 "gate exit with quarantined nodes"
assert_eq "$(jq -r .quarantined g1.json)" 2 "two quarantined"
assert_eq "$(jq -r .golden g1.json)" 3 "three golden"
assert_eq "$(state "$fw")" quarantined "firmware fault quarantined"
assert_contains "$(reason "$fw")" "failed checks: firmware:" "reason names the failed firmware check"
assert_eq "$(state "$unproven")" quarantined "unknown required check quarantines"
assert_contains "$(reason "$unproven")" "cabling unknown" "reason says unknown"

# MAAS says the same: tags created, golden / quarantine on the right machines.
assert_eq "$(maas_req GET tags/ | jq -r '[.[].name] | sort | join(",")')" golden,quarantine "tags created"
maas_req GET 'tags/golden/?op=machines' | jq -r '.[].hostname' | sort > golden.maas
bringup status --json | jq -r '.nodes[] | select(.state == "golden") | .hostname' | sort > golden.inv
assert_eq "$(cat golden.maas)" "$(cat golden.inv)" "golden tag on exactly the golden nodes"
assert_eq "$(maas_req GET 'tags/quarantine/?op=machines' | jq -r '[.[].hostname] | sort | join(",")')" \
	"$(printf '%s\n%s\n' "$fw" "$unproven" | sort | paste -sd,)" "quarantine tag on exactly the quarantined"
m=$(maas_req GET "machines/$(sysid "$fw")/")
assert_eq "$(echo "$m" | jq -r .status_name)" Broken "quarantined machine marked broken"
assert_contains "$(echo "$m" | jq -r .status_message)" "firmware:" "MAAS comment is the reason"
assert_eq "$(maas_req GET "machines/$(sysid "$(head -1 golden.inv)")/" | jq -r .status_name)" Deployed "golden left deployed"
assert_contains "$(bringup history "$fw")" "MAAS: tagged quarantine; marked broken" "MAAS change is an event"
# One update_nodes request tagged every golden machine (MAAS takes many
# system_ids at once); marking broken stays one request per machine.
assert_eq "$(jq -s -c '[.[] | select(.op == "update_nodes" and (.path | startswith("tags/golden/"))) | .system_ids]' \
	rack/maas-requests.log)" "[3]" "one request tagged the three golden machines"
assert_eq "$(jq -s '[.[] | select(.op == "mark_broken")] | length' rack/maas-requests.log)" 2 "mark_broken per machine"

# Idempotent: nothing changes, nothing that changes MAAS is sent.
events=$(inv_sql "$DB" 'select count(*) from events')
before=$(posts)
rc=0; bringup gate --json > g2.json || rc=$?
assert_eq "$rc" 1 "second gate exit"
assert_eq "$(posts)" "$before" "second gate sent no POST to MAAS"
assert_eq "$(jq '[.nodes[] | select(.changed or .maas != null)] | length' g2.json)" 0 "second gate changed nothing"
assert_eq "$(inv_sql "$DB" 'select count(*) from events')" "$events" "second gate recorded no event"

# Tickets for the quarantined; the repaired node re-validated and gated is
# promoted, marked fixed, untagged, its tickets closed.
bringup tickets --json > t1.json
assert_eq "$(jq --arg h "$unproven" '[.tickets[] | select(.hostname == $h)] | length' t1.json)" 1 "ticket for the unproven node"
good_doc "$unproven"
bringup validate --facts "good-$unproven.json" --wiring rack/wiring.csv -q "$unproven"
assert_eq "$(state "$unproven")" validated "re-validated"
rc=0; bringup gate --json > g3.json || rc=$?
assert_eq "$(state "$unproven")" golden "repaired node promoted"
assert_eq "$(jq -r --arg h "$unproven" '.nodes[] | select(.hostname == $h) | .tickets_closed' g3.json)" 1 "its ticket closed"
m=$(maas_req GET "machines/$(sysid "$unproven")/")
assert_eq "$(echo "$m" | jq -r .status_name)" Deployed "marked fixed: back to Deployed"
assert_eq "$(echo "$m" | jq -r '.tag_names | sort | join(",")')" golden "quarantine tag removed, golden added"
assert_eq "$(inv_sql "$DB" "select status from tickets t join nodes n on n.id=t.node_id where n.hostname='$unproven'")" closed "ticket closed in the inventory"
assert_contains "$(bringup history "$unproven")" "marked fixed" "MAAS promotion is an event"

# --no-mark-broken: tagged, not marked broken.
rc=0; bringup validate --facts "$doc" --wiring rack/wiring.csv -q "$unproven" || rc=$?
bringup gate --no-mark-broken -q "$unproven" || true
m=$(maas_req GET "machines/$(sysid "$unproven")/")
assert_eq "$(echo "$m" | jq -r .status_name)" Deployed "--no-mark-broken leaves MAAS status"
assert_eq "$(echo "$m" | jq -r '.tag_names | join(",")')" quarantine "--no-mark-broken still tags"
echo "gate: golden and quarantined, MAAS mirrored, idempotent, repaired node promoted"
