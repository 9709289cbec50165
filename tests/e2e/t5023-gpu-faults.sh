#!/bin/sh
# bringup run on a rack whose GPUs fail the ways the field notes tell of,
# each in the simulated host's nvidia-smi -q -x (the shape of a real H200's):
# uncorrectable DRAM ECC errors, a failed row remap, HW slowdown on an idle
# GPU, SRAM errors past the threshold. Each node ends quarantined on
# gpu_health with one ticket naming the GPU by serial (from truth.json)
# and PCI address; the clean node ends golden.
. "$(dirname "$0")/lib.sh"
cd "$T"
faults=gpu_ecc,gpu_row_remap,gpu_slowdown,gpu_sram_threshold
bringup sim --nodes 5 --seed 23 --dir rack --faults "$faults" \
	--maas-commission-ms 100 --maas-deploy-ms 100 --bios-job-ms 200 --daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
export BRINGUP_DB=$T/inv.db BRINGUP_SSH_PUBKEY=$BRINGUP_SSH_KEY.pub
export BRINGUP_BMC_TIMEOUT=5 BRINGUP_VALIDATE_PARALLEL=4

bringup import --manifest rack/rack.csv >/dev/null
rc=0; bringup run --json -q > run.json 2> run.err || rc=$?
assert_eq "$rc" 1 "run exit (quarantined nodes): $(tail -3 run.err)"
bringup status --json > status.json
bringup tickets --json > tickets.json
st() { jq -r --arg h "$1" ".nodes[] | select(.hostname == \$h) | $2" status.json; }
for pair in gpu_ecc:"uncorrectable DRAM ECC errors" gpu_row_remap:"row remapping failed" \
	gpu_slowdown:"hw_slowdown" gpu_sram_threshold:"SRAM ECC errors past the threshold"; do
	f=${pair%%:*} says=${pair#*:}
	h=$(jq -r --arg f "$f" '.nodes[] | select(.faults == [$f]) | .hostname' rack/truth.json)
	[ -n "$h" ] || fail "no node carries $f alone"
	serial=$(jq -r --arg h "$h" --arg f "$f" '.nodes[] | select(.hostname == $h) | .fault_details[$f].serial' rack/truth.json)
	assert_eq "$(st "$h" .state)" quarantined "$h ($f) state; reason $(st "$h" .reason)"
	assert_eq "$(st "$h" '.checks[] | select(.name == "gpu_health") | .result')" fail "$h ($f): gpu_health"
	assert_eq "$(jq -r --arg h "$h" '[.tickets[] | select(.hostname == $h) | .fault] | join(",")' tickets.json)" \
		gpu_health "$h ($f): one ticket, gpu_health"
	ev=$(jq -r --arg h "$h" '.tickets[] | select(.hostname == $h) | .evidence' tickets.json)
	assert_contains "$ev" "(serial $serial) at 0000:" "$h ($f): the ticket names the GPU by serial"
	assert_contains "$ev" "$says" "$h ($f): the ticket says what is wrong"
done
h=$(jq -r '.nodes[] | select(.faults == []) | .hostname' rack/truth.json)
[ -n "$h" ] || fail "no clean node"
assert_eq "$(st "$h" .state)" golden "clean $h; reason $(st "$h" .reason)"
assert_eq "$(st "$h" '.checks[] | select(.name == "gpu_health") | .result')" pass "clean $h: gpu_health"
echo "gpu faults: ECC, row remap, slowdown and SRAM threshold each quarantined with one ticket naming the GPU"
