#!/bin/sh
# Cabling judged before the first PXE boot, from the switch neighbours the
# BMC knows (Dell's Connection View). On a Dell rack with two fabric cables
# exchanged between nodes, an unplugged provisioning cable and a
# provisioning cable in the management switch, bringup run:
# - quarantines each of those nodes in discover, with the check cabling_bmc
#   failing and a cabling_bmc ticket naming both ends (the host port as the
#   wiring list and as the BMC names it, the switch port designed and the
#   one seen, the partner of a swap); MAAS never hears of them (no request
#   names their hostname or a MAC of theirs);
# - takes the healthy nodes to golden, cabling_bmc passing beside the
#   in-band cabling check; status --json shows each port's neighbour;
# - on a Lenovo rack (XCC shows no neighbours) cabling_bmc is unknown, and
#   the unplugged cable there is found in band after deploy.
. "$(dirname "$0")/lib.sh"
cd "$T"
export BRINGUP_BMC_TIMEOUT=5
bringup sim --nodes 8 --seed 3 --dir rack --connection-view \
	--faults cable_swap,pxe_unplugged,cable_wrong_switch \
	--maas-commission-ms 100 --maas-deploy-ms 100 --bios-job-ms 200 --daemon >/dev/null
at_exit "stop_sim $T/rack"
(
	set -a; . rack/env; set +a
	export BRINGUP_DB=$T/inv.db BRINGUP_SSH_PUBKEY=$BRINGUP_SSH_KEY.pub
	bringup import --manifest rack/rack.csv >/dev/null
	rc=0; bringup run -q > run.out 2> run.err || rc=$?
	assert_eq "$rc" 1 "run exit (quarantined nodes): $(tail -3 run.err)"
	bringup status --json > status.json
	bringup tickets --json > tickets.json
	bringup history gpu-r01-u03 > /dev/null
)
st() { jq -r --arg h "$1" ".nodes[] | select(.hostname == \$h) | $2" status.json; }
check() { st "$1" ".checks[] | select(.name == \"$2\") | .$3"; }
ticket() { jq -r --arg h "$1" '[.tickets[] | select(.hostname == $h) | "\(.fault): \(.evidence)"] | join(" | ")' tickets.json; }
detail() { jq -r --arg h "$1" --arg f "$2" ".nodes[] | select(.hostname == \$h) | .fault_details[\$f].$3" rack/truth.json; }
no_maas() { # HOST: no MAAS request names it or one of its MACs
	for x in "$1" $(jq -r --arg h "$1" '.nodes[] | select(.hostname == $h) | .macs[]' rack/truth.json); do
		! grep -qi -- "$x" rack/maas-requests.log || fail "$1: MAAS was sent a request naming $x"
	done
}
faulty=0
for h in $(jq -r '.nodes[].hostname' rack/truth.json); do
	fs=$(jq -r --arg h "$h" '.nodes[] | select(.hostname == $h) | .faults | join(" ")' rack/truth.json)
	case " $fs " in
	*" cable_swap "*)
		faulty=$((faulty + 1))
		peer=$(detail "$h" cable_swap peer) ifname=$(detail "$h" cable_swap ifname)
		seen="$(detail "$h" cable_swap switch) $(detail "$h" cable_swap switch_port)"
		t=$(ticket "$h")
		assert_contains "$t" "cabling_bmc: before PXE, by the BMC's DellSwitchConnections: $ifname: sees $seen" "$h ticket"
		assert_contains "$t" "swapped with $peer $ifname" "$h ticket names the partner"
		assert_contains "$t" "is the BMC's NIC.Slot." "$h ticket names the BMC's port"
		;;
	*" pxe_unplugged "*)
		faulty=$((faulty + 1))
		t=$(ticket "$h")
		want="$(detail "$h" pxe_unplugged ifname): no LLDP neighbour, expected $(detail "$h" pxe_unplugged switch) $(detail "$h" pxe_unplugged switch_port)"
		assert_contains "$t" "$want" "$h ticket (unplugged)"
		assert_contains "$t" "$(detail "$h" pxe_unplugged ifname) is the BMC's NIC.Embedded.1-1-1" "$h ticket: the BMC's port"
		assert_eq "$(st "$h" '.neighbors.ports[] | select(.port == "NIC.Embedded.1-1-1") | .link')" false "$h: no link on its PXE port"
		;;
	*" cable_wrong_switch "*)
		faulty=$((faulty + 1))
		t=$(ticket "$h")
		want="$(detail "$h" cable_wrong_switch ifname): sees $(detail "$h" cable_wrong_switch switch) $(detail "$h" cable_wrong_switch switch_port), expected $(detail "$h" cable_wrong_switch expected_switch) $(detail "$h" cable_wrong_switch expected_switch_port)"
		assert_contains "$t" "$want" "$h ticket (wrong switch)"
		;;
	"  ")
		assert_eq "$(st "$h" .state)" golden "healthy $h; reason $(st "$h" .reason)"
		assert_eq "$(check "$h" cabling_bmc result)" pass "healthy $h: cabling_bmc"
		assert_eq "$(check "$h" cabling result)" pass "healthy $h: in-band cabling"
		assert_eq "$(st "$h" .neighbors.source)" DellSwitchConnections "healthy $h: the neighbours' source"
		assert_eq "$(st "$h" '[.neighbors.ports[] | select(.link and (.stale | not) and .chassis_id != null)] | length')" 10 \
			"healthy $h: a neighbour on each of its 10 host ports"
		continue
		;;
	*) fail "$h: unexpected faults $fs" ;;
	esac
	assert_eq "$(st "$h" .state)" quarantined "$h ($fs) state; reason $(st "$h" .reason)"
	assert_contains "$(st "$h" .reason)" "cabling: before PXE" "$h ($fs) reason"
	assert_eq "$(check "$h" cabling_bmc result)" fail "$h ($fs): cabling_bmc"
	assert_eq "$(jq -r --arg h "$h" '[.tickets[] | select(.hostname == $h)] | length' tickets.json)" 1 "$h: one ticket"
	no_maas "$h"
done
assert_eq "$faulty" 4 "nodes with a cable fault"
# the stage that stopped them: discover, straight from discovered
for h in $(jq -r '.nodes[] | select(.faults != []) | .hostname' rack/truth.json); do
	assert_eq "$(inv_sql inv.db "select e.to_state from events e join nodes n on n.id = e.node_id where n.hostname = '$h' order by e.id desc limit 1")" \
		quarantined "$h: its last event"
	assert_eq "$(inv_sql inv.db "select e.from_state from events e join nodes n on n.id = e.node_id where n.hostname = '$h' order by e.id desc limit 1")" \
		discovered "$h: quarantined from discovered"
done
# Enlist never takes a node whose cables failed before PXE, even forced.
wrong=$(jq -r '.nodes[] | select(.faults | index("cable_wrong_switch")) | .hostname' rack/truth.json)
(
	set -a; . rack/env; set +a
	export BRINGUP_DB=$T/inv.db
	bringup enlist --force "$wrong" > enlist.out 2>&1 || true
	assert_contains "$(cat enlist.out)" "$wrong: skipped: its cables failed the check before PXE" "enlist says why"
	assert_eq "$(node_field inv.db "$wrong" state)" quarantined "$wrong: left as it was"
)
no_maas "$wrong"

# Reprovisioned (the cable said to be fixed), a node stopped on its cables
# starts again at discover, whose judgement is the one that lets it on: here
# the simulated cable is still out, so it is quarantined again, unenlisted.
unplugged=$(jq -r '.nodes[] | select(.faults | index("pxe_unplugged")) | .hostname' rack/truth.json)
(
	set -a; . rack/env; set +a
	export BRINGUP_DB=$T/inv.db
	rc=0; bringup reprovision -q "$unplugged" > reprovision.out 2>&1 || rc=$?
	assert_eq "$rc" 1 "reprovision exit (quarantined again): $(tail -3 reprovision.out)"
	assert_eq "$(node_field inv.db "$unplugged" state)" quarantined "$unplugged: its cable judged again"
	assert_eq "$(inv_sql inv.db "select group_concat(coalesce(e.from_state, '-') || '>' || e.to_state, ' ') from (select * from events where node_id = (select id from nodes where hostname = '$unplugged') order by id desc limit 3) e")" \
		"discovered>quarantined new>discovered quarantined>new" "$unplugged: restarted at discover"
)
no_maas "$unplugged"
stop_sim "$T/rack"

# A family whose BMC shows no neighbours: unknown, judged in band.
bringup sim --nodes 2 --seed 4 --vendor lenovo --dir rack2 --faults cable_unplugged \
	--maas-commission-ms 100 --maas-deploy-ms 100 --bios-job-ms 200 --daemon >/dev/null
at_exit "stop_sim $T/rack2"
set -a; . rack2/env; set +a
export BRINGUP_DB=$T/inv2.db BRINGUP_SSH_PUBKEY=$BRINGUP_SSH_KEY.pub
bringup import --manifest rack2/rack.csv >/dev/null
rc=0; bringup run -q > run2.out 2> run2.err || rc=$?
assert_eq "$rc" 1 "lenovo run exit: $(tail -3 run2.err)"
bringup status --json > status.json
bad=$(jq -r '.nodes[] | select(.faults == ["cable_unplugged"]) | .hostname' rack2/truth.json)
good=$(jq -r '.nodes[] | select(.faults == []) | .hostname' rack2/truth.json)
for h in $bad $good; do
	assert_eq "$(check "$h" cabling_bmc result)" unknown "$h: cabling_bmc (no neighbours from XCC)"
	assert_contains "$(check "$h" cabling_bmc detail)" "judged in band after deploy" "$h: cabling_bmc says why"
	assert_eq "$(st "$h" .neighbors.source)" null "$h: no neighbour view"
done
assert_eq "$(st "$good" .state)" golden "$good: golden on in-band cabling; reason $(st "$good" .reason)"
assert_eq "$(st "$bad" .state)" quarantined "$bad: quarantined in band"
assert_eq "$(check "$bad" cabling result)" fail "$bad: in-band cabling"
grep -q "$bad" rack2/maas-requests.log || fail "$bad: judged in band, so MAAS deployed it"
echo "ok: cable faults found before PXE from the BMC's Connection View; a BMC without one judged in band"
