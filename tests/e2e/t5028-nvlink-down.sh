#!/bin/sh
# bringup run on a simulated rack where one GPU shows an NVLink inactive in
# `nvidia-smi nvlink -s` (nvlink_down): that node ends quarantined with one
# nvlink ticket naming the GPU (its UUID and PCIe function) and the link;
# another without GPUDirect RDMA's peer-memory client (peermem_missing) ends
# quarantined with one gpudirect_rdma ticket; the clean nodes pass nvlink
# (8 GPUs x 18 links at 26.562 GB/s) and gpudirect_rdma and go golden.
. "$BR_TOP/tests/e2e/lib.sh"
cd "$T"
bringup sim --nodes 4 --seed 28 --dir rack --faults nvlink_down,peermem_missing --maas-commission-ms 100 --maas-deploy-ms 100 \
	--daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
export BRINGUP_DB=$T/inv.db BRINGUP_SSH_PUBKEY=$BRINGUP_SSH_KEY.pub
bringup import --manifest rack/rack.csv >/dev/null
rc=0; bringup run --json -q > run.json 2> run.err || rc=$?
[ "$rc" -le 1 ] || fail "run exit $rc: $(cat run.err)"
bringup status --json > status.json
bringup tickets --json > t.json
state() { jq -r --arg h "$1" '.nodes[] | select(.hostname == $h) | .state' status.json; }
check() { jq -r --arg h "$1" '.nodes[] | select(.hostname == $h) | .checks[] | select(.name == "nvlink") | .'"$2" status.json; }
h=$(jq -r '.nodes[] | select(.faults | index("nvlink_down")) | .hostname' rack/truth.json)
[ -n "$h" ] || fail "the simulator put no nvlink_down fault"
link=$(jq -r --arg h "$h" '.nodes[] | select(.hostname == $h) | .fault_details.nvlink_down.link' rack/truth.json)
bdf=$(jq -r --arg h "$h" '.nodes[] | select(.hostname == $h) | .fault_details.nvlink_down.bus' rack/truth.json |
	xargs printf '0000:%02x:00.0')
assert_eq "$(state "$h")" quarantined "$h (nvlink_down) quarantined"
assert_eq "$(check "$h" result)" fail "$h: nvlink fails"
assert_contains "$(check "$h" detail)" ") at $bdf: NVLink $link inactive" "$h: the GPU's PCIe function and the link"
assert_contains "$(check "$h" detail)" "17 NVLinks up, expected 18" "$h: the count"
assert_eq "$(jq -r --arg h "$h" '[.tickets[] | select(.hostname == $h) | .fault] | join(",")' t.json)" nvlink \
	"$h: one nvlink ticket"
case "$(jq -r --arg h "$h" '.tickets[] | select(.hostname == $h) | .action' t.json)" in
"An NVLink of GPU "*) ;;
*) fail "$h: not the nvlink action: $(jq -r --arg h "$h" '.tickets[] | select(.hostname == $h) | .action' t.json)" ;;
esac
p=$(jq -r '.nodes[] | select(.faults | index("peermem_missing")) | .hostname' rack/truth.json)
[ -n "$p" ] || fail "the simulator put no peermem_missing fault"
assert_eq "$(state "$p")" quarantined "$p (peermem_missing) quarantined"
assert_eq "$(jq -r --arg h "$p" '[.tickets[] | select(.hostname == $h) | .fault] | join(",")' t.json)" gpudirect_rdma \
	"$p: one gpudirect_rdma ticket"
assert_contains "$(jq -r --arg h "$p" '.tickets[] | select(.hostname == $h) | .evidence' t.json)" \
	"neither nvidia_peermem nor nv_peer_mem is loaded" "$p: what was seen"
for c in $(jq -r '.nodes[] | select(.faults == []) | .hostname' rack/truth.json); do
	assert_contains "$(jq -r --arg h "$c" '.nodes[] | select(.hostname == $h) | .checks[] | select(.name == "gpudirect_rdma") | .detail' status.json)" \
		"nvidia_peermem loaded (of 8 modules)" "clean $c: gpudirect_rdma"
	assert_eq "$(state "$c")" golden "clean $c golden"
	assert_eq "$(check "$c" result)" pass "clean $c: nvlink"
	assert_contains "$(check "$c" detail)" "8 GPUs with 18 NVLinks up each at 26 GB/s or more (144 links)" \
		"clean $c: what was proven"
done
echo "nvlink_down and peermem_missing quarantined with one ticket each; clean nodes golden"
