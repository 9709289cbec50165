#!/bin/sh
# mark_broken is the machine owner's alone (src/maasserver/api/machines.py
# MachineHandler.mark_broken: MAASAPIForbidden, a 403 with no text, unless
# the caller owns the machine; an admin included, and nobody while it is
# unowned). The emulator has a second, non-admin user (MAAS_OPERATOR_API_KEY).
# A gate run with that user's key quarantines a node whose machine the
# admin deployed: MAAS refuses to mark it broken, and the gate says so for
# that node (who owns it, that only the owner may) and carries on; with the
# owner's key the same gate marks it broken.
. "$(dirname "$0")/lib.sh"
cd "$T"
bringup-sim --nodes 1 --dir rack --no-hosts --maas-commission-ms 100 --maas-deploy-ms 100 --daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
export BRINGUP_DB=$T/inv.db
[ -n "${MAAS_OPERATOR_API_KEY:-}" ] || fail "the simulator's env gives no second MAAS user"

maas_as() { # KEY METHOD PATH: prints the body, then the HTTP status
	curl -s -X "$2" -w ' %{http_code}' -H "$(maas_auth "$1")" "${MAAS_URL}api/2.0/$3"
}
assert_eq "$(maas_as "$MAAS_OPERATOR_API_KEY" GET 'users/?op=whoami' | jq -r '"\(.username) \(.is_superuser)"' 2>/dev/null)" \
	"operator false" "the second user is no admin"

host=$(jq -r '.nodes[0].hostname' rack/truth.json)
bringup import --manifest rack/rack.csv >/dev/null
bringup discover -q
bringup enlist --no-ssh-key --skip-configure --poll-ms 50 -q
id=$(node_field inv.db "$host" maas_system_id)
assert_eq "$(maas_as "$MAAS_API_KEY" GET "machines/$id/" | sed 's/ [0-9]*$//' | jq -r '"\(.status_name) \(.owner)"')" \
	"Deployed admin" "deployed, owned by the admin"
# The fixture's probe document has no LLDP neighbours: cabling unknown.
bringup validate --facts "$BR_TOP/tests/fixtures/hw/h200-probe/probe-root.json" --wiring rack/wiring.csv -q \
	"$host" || true

rc=0
MAAS_API_KEY=$MAAS_OPERATOR_API_KEY bringup gate --json > g1.json 2> g1.err || rc=$?
assert_eq "$rc" 1 "gate exit"
assert_eq "$(bringup status --json | jq -r '.nodes[0].state')" quarantined "quarantined in the inventory"
line=$(grep '"op":"mark_broken"' rack/maas-requests.log | tail -1)
assert_eq "$(echo "$line" | jq -r '"\(.status) \(.user) \(.owner)"')" "403 operator admin" "MAAS refused the non-owner"
err=$(cat g1.err)
assert_contains "$err" "$host: MAAS: MAAS refused to mark $id broken (HTTP 403): only the machine's owner may" \
	"a per-node error saying why"
assert_contains "$err" "it is owned by admin (status Deployed)" "the error names the owner"
assert_eq "$(maas_as "$MAAS_API_KEY" GET "machines/$id/" | sed 's/ [0-9]*$//' | jq -r .status_name)" Deployed \
	"still Deployed"

# The emulator's own answer to a non-owner: 403, no text, as MAAS.
assert_eq "$(maas_as "$MAAS_OPERATOR_API_KEY" POST "machines/$id/?op=mark_broken")" " 403" \
	"403 with an empty body"

# The owner's key: marked broken.
bringup gate -q || true
assert_eq "$(maas_as "$MAAS_API_KEY" GET "machines/$id/" | sed 's/ [0-9]*$//' | jq -r .status_name)" Broken \
	"the owner marks it broken"
