#!/bin/sh
# In-band cabling across validate rounds (bringup run's flow validates in
# rounds as nodes deploy; here two validate runs): the first half of a cable
# swap, validated before its partner's probe is in, fails cabling as a wrong
# port onto the partner's designed port; once the partner is validated, its
# check says swapped, and the first node's cabling check is judged again
# among both views and says swapped too, its other checks left as they
# were. Both tickets name the swap.
. "$(dirname "$0")/lib.sh"
cd "$T"
bringup sim --nodes 5 --seed 9 --dir rack --faults cable_swap \
	--maas-commission-ms 100 --maas-deploy-ms 100 --bios-job-ms 200 --daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
export BRINGUP_DB=$T/inv.db BRINGUP_SSH_PUBKEY=$BRINGUP_SSH_KEY.pub
bringup import --manifest rack/rack.csv >/dev/null
set -- $(jq -r '.nodes[] | select(.faults | index("cable_swap")) | .hostname' rack/truth.json)
a=$1 b=$2
[ -n "$a" ] && [ -n "$b" ] || fail "the rack has no swap"
for s in discover configure enlist; do
	bringup "$s" -q > "$s.out" 2>&1 || fail "$s: $(tail -3 "$s.out")"
done
check() { inv_sql inv.db "select c.$3 from check_results c join nodes n on n.id = c.node_id where n.hostname = '$1' and c.name = '$2'"; }
n_checks() { inv_sql inv.db "select count(*) from check_results c join nodes n on n.id = c.node_id where n.hostname = '$1' and c.stage = 'validate'"; }

bringup validate -q "$a" > v1.out 2>&1 || true
assert_eq "$(node_field inv.db "$a" state)" validated "$a: validated ($(tail -3 v1.out))"
assert_eq "$(check "$a" cabling result)" fail "$a: cabling"
assert_contains "$(check "$a" cabling detail)" "a port the design gives to $b" "$a: alone, a wrong port onto $b's"
case "$(check "$a" cabling detail)" in *swapped*) fail "$a: a swap told without $b's view" ;; esac
before=$(n_checks "$a")
other=$(check "$a" gpu_count detail)

bringup validate -q "$b" > v2.out 2>&1 || true
for h in "$a" "$b"; do
	peer=$a; [ "$h" = "$a" ] && peer=$b
	assert_eq "$(check "$h" cabling result)" fail "$h: cabling"
	assert_contains "$(check "$h" cabling detail)" "swapped with $peer" "$h: the swap named"
done
assert_eq "$(n_checks "$a")" "$before" "$a: its other validate checks kept"
assert_eq "$(check "$a" gpu_count detail)" "$other" "$a: gpu_count as it was"
bringup gate -q > gate.out 2>&1 || true
bringup tickets --json > tickets.json 2>/dev/null || true
for h in "$a" "$b"; do
	assert_eq "$(node_field inv.db "$h" state)" quarantined "$h: quarantined by the gate"
	assert_contains "$(jq -r --arg h "$h" '[.tickets[] | select(.hostname == $h) | .evidence] | join(" | ")' tickets.json)" \
		"swapped with" "$h: its ticket says swap"
done
echo "validate: a swap across two rounds names the swap on both nodes"
