#!/bin/sh
# The active checks on a simulated xe9680 rack whose profile opts into them
# ([active] dcgm_diag = 1, rdma_bw_gbps = 350, each with its own time
# limit): validate runs `dcgmi diag -r 1 -j` and an ib_write_bw loopback
# over SSH after the probe (the hosts' tools print DCGM 4's JSON and
# perftest's report). A node whose GPU fails DCGM's memory test
# (dcgm_diag_fail) is quarantined with one dcgm_diag ticket naming the GPU's
# serial; one measuring 180 Gb/s (rdma_bw_low) with one rdma_bw ticket; one
# without dcgmi (dcgmi_missing) has dcgm_diag unknown saying so and is not
# promoted; the clean node passes both and goes golden. Without [active]
# neither check runs (the shipped profile: t5033 asserts it).
. "$BR_TOP/tests/e2e/lib.sh"
cd "$T"
bringup sim --nodes 4 --seed 34 --dir rack --faults dcgm_diag_fail,dcgmi_missing,rdma_bw_low \
	--maas-commission-ms 100 --maas-deploy-ms 100 --daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
export BRINGUP_DB=$T/inv.db BRINGUP_SSH_PUBKEY=$BRINGUP_SSH_KEY.pub
cp -r "$BR_TOP/templates" tpl
export BRINGUP_TEMPLATES=$T/tpl
printf '\n[active]\ndcgm_diag = 1\ndcgm_diag_time_limit = 60s\nrdma_bw_gbps = 350\nrdma_bw_time_limit = 30s\n' \
	>> tpl/profiles/xe9680/hardware.conf
bringup import --manifest rack/rack.csv >/dev/null
rc=0; bringup run --json -q > run.json 2> run.err || rc=$?
[ "$rc" -le 1 ] || fail "run exit $rc: $(cat run.err)"
bringup status --json > status.json
bringup tickets --json > t.json
state() { jq -r --arg h "$1" '.nodes[] | select(.hostname == $h) | .state' status.json; }
check() { jq -r --arg h "$1" --arg c "$2" '.nodes[] | select(.hostname == $h) | .checks[] | select(.name == $c) | .'"$3" status.json; }
faults() { jq -r --arg h "$1" '[.tickets[] | select(.hostname == $h) | .fault] | join(",")' t.json; }
who() { jq -r --arg f "$1" '.nodes[] | select(.faults | index($f)) | .hostname' rack/truth.json; }
blamed() {
	inv_sql "$BRINGUP_DB" "SELECT c.component FROM check_results c JOIN nodes n ON n.id = c.node_id
		WHERE n.hostname = '$1' AND c.name = '$2'"
}

d=$(who dcgm_diag_fail)
[ -n "$d" ] || fail "the simulator put no dcgm_diag_fail fault"
serial=$(jq -r --arg h "$d" '.nodes[] | select(.hostname == $h) | .fault_details.dcgm_diag_fail.serial' rack/truth.json)
bdf=$(jq -r --arg h "$d" '.nodes[] | select(.hostname == $h) | .fault_details.dcgm_diag_fail.bus' rack/truth.json |
	xargs printf '0000:%02x:00.0')
assert_eq "$(state "$d")" quarantined "$d (dcgm_diag_fail) quarantined"
assert_eq "$(check "$d" dcgm_diag result)" fail "$d: dcgm_diag fails"
assert_contains "$(check "$d" dcgm_diag detail)" "test 'memory' failed on GPU" "$d: the test"
assert_contains "$(check "$d" dcgm_diag detail)" "(serial $serial) at $bdf: A memory mismatch was detected" \
	"$d: the GPU by serial and PCIe function, and DCGM's words"
assert_eq "$(blamed "$d" dcgm_diag)" "pci:$bdf" "$d: dcgm_diag blames that GPU"
assert_eq "$(faults "$d")" dcgm_diag "$d: one dcgm_diag ticket"

m=$(who dcgmi_missing)
assert_eq "$(check "$m" dcgm_diag result)" unknown "$m (dcgmi_missing): dcgm_diag unknown"
assert_contains "$(check "$m" dcgm_diag detail)" "dcgmi is not installed on the node (exit 127" "$m: why"
assert_contains "$(check "$m" dcgm_diag detail)" "bringup installs nothing" "$m: nothing installed"
[ "$(state "$m")" != golden ] || fail "$m: promoted with dcgm_diag unproven"

b=$(who rdma_bw_low)
assert_eq "$(state "$b")" quarantined "$b (rdma_bw_low) quarantined"
assert_eq "$(check "$b" rdma_bw result)" fail "$b: rdma_bw fails"
assert_contains "$(check "$b" rdma_bw detail)" "to mlx5_1: 180.12 Gb/s average, expected 350 Gb/s or more" \
	"$b: the measured rate against the floor"
assert_eq "$(faults "$b")" rdma_bw "$b: one rdma_bw ticket"

for c in $(jq -r '.nodes[] | select(.faults == []) | .hostname' rack/truth.json); do
	assert_eq "$(state "$c")" golden "clean $c golden"
	assert_contains "$(check "$c" dcgm_diag detail)" "dcgmi diag -r 1 -j: 3 tests, 24 results passed (0 warned, 0 skipped)" "clean $c: dcgm_diag"
	assert_contains "$(check "$c" rdma_bw detail)" "392.46 Gb/s average, at least 350 Gb/s" "clean $c: rdma_bw"
done
echo "dcgm_diag_fail and rdma_bw_low quarantined with one ticket each, dcgmi_missing unproven; clean node golden"
