#!/bin/sh
# bringup run on a simulated xe9680 rack where the fabric manager left one
# GPU's NVLink fabric registration "In Progress" in nvidia-smi -q -x
# (nvlink_fabric_down), and another node's kernel log carries a fatal
# NVSwitch SXid (nvswitch_sxid): each ends quarantined with one ticket, the
# first naming the GPU by its serial and PCIe function, the second the
# NVSwitch's PCIe function and the SXid; the clean nodes pass nvlink_fabric
# (8 GPUs Completed / Success) and gpudirect_rdma (every GPU behind one PCIe
# switch with a rail NIC) and go golden.
. "$BR_TOP/tests/e2e/lib.sh"
cd "$T"
bringup sim --nodes 4 --seed 33 --dir rack --faults nvlink_fabric_down,nvswitch_sxid --maas-commission-ms 100 \
	--maas-deploy-ms 100 --daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
export BRINGUP_DB=$T/inv.db BRINGUP_SSH_PUBKEY=$BRINGUP_SSH_KEY.pub
bringup import --manifest rack/rack.csv >/dev/null
rc=0; bringup run --json -q > run.json 2> run.err || rc=$?
[ "$rc" -le 1 ] || fail "run exit $rc: $(cat run.err)"
bringup status --json > status.json
bringup tickets --json > t.json
state() { jq -r --arg h "$1" '.nodes[] | select(.hostname == $h) | .state' status.json; }
check() { jq -r --arg h "$1" --arg c "$2" '.nodes[] | select(.hostname == $h) | .checks[] | select(.name == $c) | .'"$3" status.json; }
faults() { jq -r --arg h "$1" '[.tickets[] | select(.hostname == $h) | .fault] | join(",")' t.json; }
blamed() {
	inv_sql "$BRINGUP_DB" "SELECT c.component FROM check_results c JOIN nodes n ON n.id = c.node_id
		WHERE n.hostname = '$1' AND c.name = '$2'"
}
evidence() { jq -r --arg h "$1" '.tickets[] | select(.hostname == $h) | .evidence' t.json; }

h=$(jq -r '.nodes[] | select(.faults | index("nvlink_fabric_down")) | .hostname' rack/truth.json)
[ -n "$h" ] || fail "the simulator put no nvlink_fabric_down fault"
serial=$(jq -r --arg h "$h" '.nodes[] | select(.hostname == $h) | .fault_details.nvlink_fabric_down.serial' rack/truth.json)
bdf=$(jq -r --arg h "$h" '.nodes[] | select(.hostname == $h) | .fault_details.nvlink_fabric_down.bus' rack/truth.json |
	xargs printf '0000:%02x:00.0')
assert_eq "$(state "$h")" quarantined "$h (nvlink_fabric_down) quarantined"
assert_eq "$(check "$h" nvlink_fabric result)" fail "$h: nvlink_fabric fails"
assert_contains "$(check "$h" nvlink_fabric detail)" "(serial $serial) at $bdf: fabric state In Progress" \
	"$h: the GPU by serial and PCIe function"
assert_eq "$(blamed "$h" nvlink_fabric)" "pci:$bdf" "$h: nvlink_fabric blames that GPU"
assert_eq "$(check "$h" nvlink result)" pass "$h: its NVLinks themselves show up"
assert_eq "$(faults "$h")" nvlink_fabric "$h: one nvlink_fabric ticket"
assert_contains "$(evidence "$h")" "serial $serial" "$h: the ticket names the GPU's serial"

s=$(jq -r '.nodes[] | select(.faults | index("nvswitch_sxid")) | .hostname' rack/truth.json)
[ -n "$s" ] || fail "the simulator put no nvswitch_sxid fault"
sw=$(jq -r --arg h "$s" '.nodes[] | select(.hostname == $h) | .fault_details.nvswitch_sxid.nvswitch' rack/truth.json)
assert_eq "$(state "$s")" quarantined "$s (nvswitch_sxid) quarantined"
assert_eq "$(check "$s" dmesg result)" fail "$s: dmesg fails"
assert_contains "$(check "$s" dmesg detail)" "fatal NVSwitch SXid 12028" "$s: the SXid"
assert_eq "$(blamed "$s" dmesg)" "pci:$sw" "$s: dmesg blames the NVSwitch"
assert_eq "$(faults "$s")" dmesg "$s: one dmesg ticket"
assert_contains "$(evidence "$s")" "SXid (PCI:$sw): 12028, Fatal" "$s: the ticket quotes the kernel line"

for c in $(jq -r '.nodes[] | select(.faults == []) | .hostname' rack/truth.json); do
	assert_eq "$(state "$c")" golden "clean $c golden"
	assert_eq "$(check "$c" nvlink_fabric detail)" \
		"8 GPUs registered with the NVLink fabric (state Completed, status Success)" "clean $c: nvlink_fabric"
	assert_contains "$(check "$c" gpudirect_rdma detail)" \
		"each of 8 GPUs shares a PCIe switch with a fabric NIC of its own" "clean $c: GPU/NIC switches"
	assert_eq "$(check "$c" dcgm_diag result)$(check "$c" rdma_bw result)" "" \
		"clean $c: no active check where the profile asks for none"
done
echo "nvlink_fabric_down and nvswitch_sxid quarantined with one ticket each; clean nodes golden"
