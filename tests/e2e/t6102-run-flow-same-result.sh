#!/bin/sh
# bringup run's flow (every stage at once, each node moved on as soon as it
# is done) ends a faulty rack exactly as the stages run one after another
# over the whole rack do: on two identical simulated racks (same seed, the
# same faults: dead and refusing BMCs, BIOS drift, a failed PSU, a degraded
# link, a cable swap between two nodes, a failed commissioning, disks in
# another order, commissioning that never ends, cut by a 3 s commissioning
# limit), every node's state, failure kind and check results, and every
# ticket's node, fault and status, are the same.
. "$(dirname "$0")/lib.sh"
cd "$T"
faults=bmc_down,bmc_auth,bios_drift,psu_failed,pcie_degraded,cable_swap,commission_fail,nvme_order,commission_hang
cp -R "$BR_TOP/templates" tpl
sed -i 's/^commissioning = .*/commissioning = 3s/' tpl/profiles/*/hardware.conf
export BRINGUP_TEMPLATES=$T/tpl
for r in flow seq; do
	bringup sim --nodes 10 --seed 21 --dir $r --faults "$faults" --maas-commission-ms 100 --maas-deploy-ms 100 \
		--daemon >/dev/null &
done
wait
at_exit "stop_sim $T/flow; stop_sim $T/seq"
[ -f flow/env ] && [ -f seq/env ] || fail "a simulator did not start"
in_rack() { # DIR command...: in a subshell, with that rack's environment
	d=$1; shift
	(
		set -a; . "$T/$d/env"; set +a
		export BRINGUP_DB=$T/$d.db BRINGUP_SSH_PUBKEY=$BRINGUP_SSH_KEY.pub BRINGUP_BMC_TIMEOUT=3 BRINGUP_BMC_RETRIES=1
		"$@"
	)
}
result() { # DB
	inv_sql "$1" "select 'node', hostname, state, coalesce(failure_kind, '') from nodes order by hostname"
	inv_sql "$1" "select 'check', n.hostname, c.name, c.result from check_results c join nodes n on n.id = c.node_id
		order by n.hostname, c.name"
	inv_sql "$1" "select 'ticket', n.hostname, t.fault, t.status from tickets t join nodes n on n.id = t.node_id
		order by n.hostname, t.fault"
}
for r in flow seq; do in_rack $r bringup import --manifest $r/rack.csv >/dev/null; done

rc=0; in_rack flow bringup run -q > flow.txt 2>&1 || rc=$?
assert_eq "$rc" 1 "the flow: failed and quarantined nodes ($(tail -3 flow.txt))"
for stage in discover configure enlist validate gate tickets; do
	rc=0; in_rack seq bringup $stage -q > "seq-$stage.txt" 2>&1 || rc=$?
	[ "$rc" -le 1 ] || fail "bringup $stage exited $rc: $(tail -3 "seq-$stage.txt")"
done
result flow.db > flow-result.txt
result seq.db > seq-result.txt
cmp -s flow-result.txt seq-result.txt || fail "the flow ended otherwise: $(diff seq-result.txt flow-result.txt | head -20)"
grep -q "|failed|time_limit$" flow-result.txt || fail "the hung commissioning did not end at its limit"
for s in golden quarantined failed; do
	grep -q "|$s|" flow-result.txt || fail "no node ended $s: the comparison proves little ($(cat flow-result.txt | head -12))"
done
echo "run: the flow ends a faulty rack as the stages one after another do"
