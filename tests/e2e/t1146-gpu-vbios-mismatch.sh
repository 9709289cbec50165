#!/bin/sh
# bringup run on a rack where one GPU's VBIOS, as the simulated host's
# nvidia-smi -q -x reads it from the GPU, differs from what the simulated
# iDRAC's firmware inventory shows for that GPU (gpu_vbios_mismatch; both
# at or above the xe9680 policy's GPU.SXM.* minimum, so only the
# disagreement is wrong). That node ends quarantined on gpu_health with one
# ticket naming the GPU by serial and both versions; the others end golden.
. "$(dirname "$0")/lib.sh"
cd "$T"
bringup sim --nodes 3 --seed 1146 --dir rack --faults gpu_vbios_mismatch \
	--maas-commission-ms 100 --maas-deploy-ms 100 --bios-job-ms 200 --daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
export BRINGUP_DB=$T/inv.db BRINGUP_SSH_PUBKEY=$BRINGUP_SSH_KEY.pub
export BRINGUP_BMC_TIMEOUT=5 BRINGUP_VALIDATE_PARALLEL=3

bringup import --manifest rack/rack.csv >/dev/null
rc=0; bringup run --json -q > run.json 2> run.err || rc=$?
assert_eq "$rc" 1 "run exit (a quarantined node): $(tail -3 run.err)"
bringup status --json > status.json
bringup tickets --json > tickets.json
st() { jq -r --arg h "$1" ".nodes[] | select(.hostname == \$h) | $2" status.json; }

h=$(jq -r '.nodes[] | select(.faults == ["gpu_vbios_mismatch"]) | .hostname' rack/truth.json)
[ -n "$h" ] || fail "no node carries gpu_vbios_mismatch"
d() { jq -r --arg h "$h" ".nodes[] | select(.hostname == \$h) | .fault_details.gpu_vbios_mismatch.$1" rack/truth.json; }
serial=$(d serial) os=$(d os_vbios) bmc=$(d bmc_vbios)
[ "$os" != "$bmc" ] || fail "truth: the OS's VBIOS $os is the BMC's $bmc"

# The host really shows the other version.
assert_contains "$(cat "rack/hosts/$h/.captures/nvidia-smi.xml")" "<vbios_version>$os</vbios_version>" \
	"$h: nvidia-smi -q -x shows the GPU's own VBIOS"

assert_eq "$(st "$h" .state)" quarantined "$h state; reason $(st "$h" .reason)"
assert_eq "$(st "$h" '.checks[] | select(.name == "gpu_health") | .result')" fail "$h: gpu_health"
assert_eq "$(jq -r --arg h "$h" '[.tickets[] | select(.hostname == $h) | .fault] | join(",")' tickets.json)" \
	gpu_health "$h: one ticket, gpu_health"
ev=$(jq -r --arg h "$h" '.tickets[] | select(.hostname == $h) | .evidence' tickets.json)
assert_contains "$ev" "(serial $serial) at 0000:" "$h: the ticket names the GPU by serial"
assert_contains "$ev" "runs VBIOS $os but the BMC's inventory shows $bmc" "$h: the ticket names both versions"

for c in $(jq -r '.nodes[] | select(.faults == []) | .hostname' rack/truth.json); do
	assert_eq "$(st "$c" .state)" golden "clean $c; reason $(st "$c" .reason)"
	assert_eq "$(st "$c" '.checks[] | select(.name == "gpu_health") | .result')" pass "clean $c: gpu_health"
	assert_contains "$(st "$c" '.checks[] | select(.name == "gpu_health") | .detail')" \
		"as the BMC's inventory shows" "clean $c: its VBIOS judged against the BMC's"
	assert_eq "$(jq -r --arg h "$c" '[.tickets[] | select(.hostname == $h)] | length' tickets.json)" 0 \
		"clean $c: no ticket"
done
assert_eq "$(jq '[.nodes[] | select(.state == "golden")] | length' status.json)" 2 "two nodes golden"
echo "gpu_vbios_mismatch: the node whose GPU runs $os while its BMC shows $bmc is quarantined with one ticket"
