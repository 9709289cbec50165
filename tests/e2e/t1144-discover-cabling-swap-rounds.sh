#!/bin/sh
# A cable swap between two nodes discovered in different runs (or rounds of
# bringup run's flow): each node's cabling before PXE is judged as its BMC
# is read, by its own ports against its wiring lines. The first half of the
# swap, judged alone, is quarantined with its port on "a port the design
# gives to" the other; when the other's BMC is read, it is quarantined as
# swapped, and the first is judged again with both views: its check and
# reason say swapped too (one quarantined -> quarantined event), and both
# tickets name the swap. MAAS never hears of either; a healthy node
# discovered between them passes.
. "$(dirname "$0")/lib.sh"
cd "$T"
bringup sim --nodes 5 --seed 9 --dir rack --connection-view --faults cable_swap \
	--maas-commission-ms 100 --maas-deploy-ms 100 --daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
export BRINGUP_DB=$T/inv.db
bringup import --manifest rack/rack.csv >/dev/null
set -- $(jq -r '.nodes[] | select(.faults | index("cable_swap")) | .hostname' rack/truth.json)
a=$1 b=$2
[ -n "$a" ] && [ -n "$b" ] || fail "the rack has no swap"
good=$(jq -r '[.nodes[] | select(.faults == []) | .hostname][0]' rack/truth.json)
check() { inv_sql inv.db "select c.$3 from check_results c join nodes n on n.id = c.node_id where n.hostname = '$1' and c.name = '$2'"; }

rc=0; bringup discover -q "$a" > d1.out 2>&1 || rc=$?
assert_eq "$rc" 1 "first half: quarantined ($(tail -3 d1.out))"
assert_eq "$(node_field inv.db "$a" state)" quarantined "$a: quarantined on its cables"
assert_contains "$(check "$a" cabling_bmc detail)" "a port the design gives to $b" "$a: alone, a wrong port onto $b's"
case "$(check "$a" cabling_bmc detail)" in *swapped*) fail "$a: a swap told without $b's view" ;; esac

bringup discover -q "$good" > d2.out 2>&1 || fail "healthy node: $(tail -3 d2.out)"
assert_eq "$(check "$good" cabling_bmc result)" pass "$good: cabling_bmc"

rc=0; bringup discover -q "$b" > d3.out 2>&1 || rc=$?
assert_eq "$rc" 1 "second half: quarantined ($(tail -3 d3.out))"
for h in "$a" "$b"; do
	peer=$a; [ "$h" = "$a" ] && peer=$b
	assert_eq "$(node_field inv.db "$h" state)" quarantined "$h: quarantined"
	assert_eq "$(check "$h" cabling_bmc result)" fail "$h: cabling_bmc"
	assert_contains "$(check "$h" cabling_bmc detail)" "swapped with $peer" "$h: the swap named"
	assert_contains "$(node_field inv.db "$h" reason)" "swapped with $peer" "$h: its reason"
done
assert_eq "$(inv_sql inv.db "select group_concat(coalesce(e.from_state, '-') || '>' || e.to_state, ' ') from (select * from events where node_id = (select id from nodes where hostname = '$a') order by id) e")" \
	"->new new>discovered discovered>quarantined quarantined>quarantined" "$a: judged again, once"
assert_eq "$(node_field inv.db "$a" attempts)" 1 "$a: judged again is no new attempt"
bringup tickets -q >/dev/null 2>&1 || true
bringup tickets --json > tickets.json 2>/dev/null || true
for h in "$a" "$b"; do
	assert_contains "$(jq -r --arg h "$h" '[.tickets[] | select(.hostname == $h) | .evidence] | join(" | ")' tickets.json)" \
		"swapped with" "$h: its ticket says swap"
done
for h in "$a" "$b"; do
	for x in "$h" $(jq -r --arg h "$h" '.nodes[] | select(.hostname == $h) | .macs[]' rack/truth.json); do
		! grep -qi -- "$x" rack/maas-requests.log 2>/dev/null || fail "$h: MAAS was sent a request naming $x"
	done
done
echo "discover: a swap across two runs quarantines both, the first judged again to name the swap"
