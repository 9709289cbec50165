#!/bin/sh
# bringup run on a 48-node simulated rack carrying every fault kind of the
# design's table at least once: each node ends in the state the table says
# (failed / quarantined / golden, from truth.json's faults), every node that
# does not end golden has a ticket and no golden node has one, no (node,
# fault) ticket twice, every golden node tagged golden in the MAAS emulator;
# a second bringup run changes no node and files or updates no ticket.
. "$(dirname "$0")/lib.sh"
cd "$T"
faults=bmc_down,bmc_auth,bmc_flaky,psu_failed,bios_drift,fw_outdated,nic_missing,gpu_missing,pcie_degraded
faults=$faults,nvme_order,nvme_missing,cable_swap,cable_unplugged,thermal_bogus,cpufreq_capped,clock_skew,commission_fail
faults=$faults,fan_failed
# Under the sanitizers (build/asan) a 24-node rack still carries every
# fault kind with clean nodes beside them, in half the time.
nodes=48
case "$BIN" in */asan/*) nodes=24 ;; esac
bringup sim --nodes "$nodes" --seed 48 --dir rack --faults "$faults" --flaky-stall-ms 1500 \
	--maas-commission-ms 100 --maas-deploy-ms 100 --daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
DB=$(db_for inv)
export BRINGUP_DB=$DB BRINGUP_SSH_PUBKEY=$BRINGUP_SSH_KEY.pub
# A dead BMC costs timeout x (retries + 1); a flaky one needs the retries.
export BRINGUP_BMC_TIMEOUT=3 BRINGUP_BMC_RETRIES=3
# Probing shares the test machine's cores with sshd: a few at a time.
export BRINGUP_VALIDATE_PARALLEL=6
for f in $(echo "$faults" | tr , ' '); do
	[ -n "$(jq -r --arg f "$f" '.nodes[] | select(.faults | index($f)) | .hostname' rack/truth.json)" ] ||
		fail "the simulator put no $f fault"
done

# The design's table: what each node must end as.
want_state() { # FAULTS...
	s=golden
	for f in "$@"; do
		case $f in
		bmc_down | bmc_auth | commission_fail) echo failed; return ;;
		bmc_flaky | bios_drift | nvme_order) ;;
		*) s=quarantined ;;
		esac
	done
	echo $s
}

bringup import --manifest rack/rack.csv >/dev/null
rc=0; bringup run --json -q > run1.json 2> run1.err || rc=$?
assert_eq "$rc" 1 "first run exit (failed and quarantined nodes): $(tail -3 run1.err)"
bringup status --json > status1.json
bringup tickets --json > t1.json
for h in $(jq -r '.nodes[].hostname' rack/truth.json); do
	fs=$(jq -r --arg h "$h" '.nodes[] | select(.hostname == $h) | .faults | join(" ")' rack/truth.json)
	# shellcheck disable=SC2086
	want=$(want_state $fs)
	got=$(jq -r --arg h "$h" '.nodes[] | select(.hostname == $h) | "\(.state): \(.reason)"' status1.json)
	assert_eq "${got%%:*}" "$want" "$h (faults: ${fs:-none}) final state; reason ${got#*: }"
	n=$(jq --arg h "$h" '[.tickets[] | select(.hostname == $h)] | length' t1.json)
	if [ "$want" = golden ]; then
		assert_eq "$n" 0 "tickets for golden $h (${fs:-clean})"
	else
		[ "$n" -ge 1 ] || fail "no ticket for $h ($fs)"
	fi
	# A failed node's kind is the one its stage typed for that fault, and
	# its ticket carries that kind's own action (never the default).
	kind=
	for f in $fs; do
		case $f in bmc_down) kind=bmc_unreachable ;; bmc_auth) kind=bmc_auth ;; commission_fail) kind=commission_failed ;; esac
	done
	# One ticket per root cause: the GPU at x4 and the kernel's "limited
	# by" line about it are one pcie ticket carrying both.
	if [ "$fs" = pcie_degraded ]; then
		assert_eq "$(jq -r --arg h "$h" '[.tickets[] | select(.hostname == $h) | .fault] | join(",")' t1.json)" pcie \
			"$h (pcie_degraded): one ticket"
		assert_contains "$(jq -r --arg h "$h" '.tickets[] | select(.hostname == $h) | .evidence' t1.json)" \
			"; also dmesg: PCIe link limited" "$h (pcie_degraded): the kernel's line in its evidence"
	fi
	# A NIC gone from PCIe leaves its port silent: one ticket for the NIC
	# (with the silent port in its evidence), not one for a cable too; an
	# unplugged cable on a NIC that is there stays a cabling ticket.
	if [ "$fs" = nic_missing ]; then
		assert_eq "$(jq -r --arg h "$h" '[.tickets[] | select(.hostname == $h) | .fault] | join(",")' t1.json)" nic_count \
			"$h (nic_missing): one ticket"
		assert_contains "$(jq -r --arg h "$h" '.tickets[] | select(.hostname == $h) | .evidence' t1.json)" \
			"; also cabling: " "$h (nic_missing): the silent port in its evidence"
	fi
	if [ "$fs" = cable_unplugged ]; then
		assert_eq "$(jq -r --arg h "$h" '[.tickets[] | select(.hostname == $h) | .fault] | join(",")' t1.json)" cabling \
			"$h (cable_unplugged): a cabling ticket"
	fi
	# A stopped fan is a fan ticket naming it, with its own action.
	if [ "$fs" = fan_failed ]; then
		assert_eq "$(jq -r --arg h "$h" '[.tickets[] | select(.hostname == $h) | .fault] | join(",")' t1.json)" fans \
			"$h (fan_failed): one fans ticket"
		assert_contains "$(jq -r --arg h "$h" '.tickets[] | select(.hostname == $h) | .action' t1.json)" \
			"Replace the fan System Board Fan" "$h (fan_failed): the fan named in the action"
	fi
	if [ -n "$kind" ]; then
		assert_eq "$(jq -r --arg h "$h" '.nodes[] | select(.hostname == $h) | .failure_kind' status1.json)" "$kind" \
			"$h ($fs): failure kind"
		assert_eq "$(jq -r --arg h "$h" '[.tickets[] | select(.hostname == $h) | .fault] | join(",")' t1.json)" "$kind" \
			"$h ($fs): one ticket, of its kind"
		case "$(jq -r --arg h "$h" '.tickets[] | select(.hostname == $h) | .action' t1.json)" in
		Inspect*) fail "$h ($fs): the default action, not its kind's" ;;
		esac
	fi
done
# Every ticket names where the machine is and which one it is: rack and U
# from the manifest, the serial from the BMC, else from the manifest (a
# dead BMC's node has only that one), and it is the machine's own.
assert_eq "$(jq -r '[.tickets[] | select((.location | test("^rack [^ ?]+ U[0-9]+$")) | not)] | length' t1.json)" 0 \
	"every ticket has rack and U: $(jq -c '[.tickets[].location] | unique' t1.json)"
assert_eq "$(jq -r '[.tickets[] | select(.serial == null or .serial == "")] | length' t1.json)" 0 \
	"every ticket has a serial"
jq -r '.tickets[] | "\(.hostname) \(.serial)"' t1.json | sort -u > ticket-serials
jq -r '.nodes[] | "\(.hostname) \(.system_serial)"' rack/truth.json | sort > truth-serials
assert_eq "$(comm -23 ticket-serials truth-serials)" "" "each ticket's serial is its machine's"
dead=$(jq -r '.nodes[] | select(.faults | index("bmc_down")) | .hostname' rack/truth.json | head -1)
[ -n "$(jq -r --arg h "$dead" '.tickets[] | select(.hostname == $h) | .serial' t1.json)" ] ||
	fail "the dead BMC's node ($dead) has no serial in its ticket"
assert_eq "$(jq -r '[.tickets[] | "\(.hostname)/\(.fault)"] | length' t1.json)" \
	"$(jq -r '[.tickets[] | "\(.hostname)/\(.fault)"] | unique | length' t1.json)" "no (node, fault) ticket twice"
assert_eq "$(jq -r '.tickets_open' run1.json)" "$(jq '.tickets | length' t1.json)" "summary's ticket count"
jq -r '.nodes[] | select(.state == "golden") | .hostname' status1.json | sort > golden.inv
maas_req GET 'tags/golden/?op=machines' | jq -r '.[].hostname' | sort > golden.maas
[ -s golden.inv ] || fail "no golden node"
assert_eq "$(cat golden.maas)" "$(cat golden.inv)" "golden tag on exactly the golden nodes"
machines=$(maas_req GET machines/ | jq length)

# Again: nothing changes, nothing new is filed.
inv_sql "$DB" 'select hostname, state, reason from nodes order by hostname' > nodes1
inv_sql "$DB" 'select node_id, fault, version, status from tickets order by node_id, fault' > tickets1
rc=0; bringup run --json -q > run2.json 2> run2.err || rc=$?
assert_eq "$rc" 1 "second run exit"
inv_sql "$DB" 'select hostname, state, reason from nodes order by hostname' > nodes2
inv_sql "$DB" 'select node_id, fault, version, status from tickets order by node_id, fault' > tickets2
cmp -s nodes1 nodes2 || fail "second run changed nodes: $(diff nodes1 nodes2 | head -5)"
cmp -s tickets1 tickets2 || fail "second run changed tickets: $(diff tickets1 tickets2 | head -5)"
assert_eq "$(maas_req GET machines/ | jq length)" "$machines" "no new MAAS machine"
echo "pipeline: 48 nodes, every fault kind, final states as designed, tickets once, second run a no-op"
# The table the closing notes quote: each injected fault kind, what its
# node ended as, its tickets and the first words of their action.
jq -r --slurpfile st status1.json --slurpfile tk t1.json '
	.nodes[] | select(.faults | length == 1) | .hostname as $h | .faults[0] as $f
	| ($st[0].nodes[] | select(.hostname == $h) | .state) as $s
	| [$tk[0].tickets[] | select(.hostname == $h) | "\(.fault) (\(.action | split(" ")[0:6] | join(" ")))"] as $t
	| "\($f)\t\($s)\t\($t | join("; "))"' rack/truth.json | sort -u -t "$(printf '\t')" -k1,1
