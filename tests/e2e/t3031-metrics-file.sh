#!/bin/sh
# --metrics-file: bringup run and bringup status write the inventory (and
# the run's stages) as a Prometheus text file, read back here by the
# Prometheus project's own parser (python3-prometheus-client's
# text_string_to_metric_families): every family a gauge with HELP, nodes per
# state and failing checks as status --json counts them, the BMC's errors
# by kind, each stage's time and exit as run --json has them. The file is
# replaced by a rename (a new inode, no temporary file left beside it);
# bringup.conf's [metrics] file asks for it too; a path that cannot be
# written stops run before any stage (exit 2).
. "$(dirname "$0")/lib.sh"
cd "$T"
/usr/bin/python3 -c 'import prometheus_client' 2>/dev/null || fail "python3-prometheus-client is not installed (scripts/deps)"
bringup sim --nodes 4 --seed 7 --dir rack --faults pcie_degraded,bmc_auth --maas-commission-ms 100 --maas-deploy-ms 100 \
	--daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
export BRINGUP_DB=$T/inv.db BRINGUP_SSH_PUBKEY=$BRINGUP_SSH_KEY.pub
bringup import --manifest rack/rack.csv >/dev/null
mkdir prom

# The Prometheus parser's view: one line per sample, "name{k=v,...} value",
# labels sorted, after checking every family is a gauge with its HELP.
parse() {
	/usr/bin/python3 - "$1" <<'EOF'
import sys
from prometheus_client.parser import text_string_to_metric_families
for fam in text_string_to_metric_families(open(sys.argv[1]).read()):
    if fam.type != "gauge" or not fam.documentation or not fam.name.startswith("bringup_"):
        sys.exit("bad family %s: type %s, help %r" % (fam.name, fam.type, fam.documentation))
    for s in fam.samples:
        labels = ",".join("%s=%s" % kv for kv in sorted(s.labels.items()))
        print("%s{%s} %r" % (s.name, labels, float(s.value)))
EOF
}
val() { awk -v k="$1" '$1 == k { print $2 }' "$2"; }

# An old file there: the run must replace it, not write into it.
echo "# stale" > prom/bringup.prom
old_inode=$(stat -c %i prom/bringup.prom)
rc=0; bringup run --json -q --metrics-file prom/bringup.prom > run.json 2> run.err || rc=$?
assert_eq "$rc" 1 "run exit with a failed and a quarantined node ($(tail -3 run.err))"
[ "$(stat -c %i prom/bringup.prom)" != "$old_inode" ] || fail "metrics file written in place, not renamed over"
assert_eq "$(ls prom)" bringup.prom "files left beside the metrics file"
assert_eq "$(stat -c %a prom/bringup.prom)" 644 "metrics file mode (node_exporter reads it as another user)"
parse prom/bringup.prom > run.samples || fail "the Prometheus parser refused the file: $(cat run.samples)"

bringup status --json > st.json
for s in new discovered configured enlisted deployed validated golden failed quarantined retired; do
	assert_eq "$(val "bringup_nodes{state=$s}" run.samples)" "$(jq --arg s $s '[.nodes[] | select(.state == $s)] | length' st.json).0" "nodes $s"
done
assert_eq "$(val 'bringup_nodes{state=failed}' run.samples)" 1.0 "the bmc_auth node failed"
# Every check failing on some node, and how many nodes, as status shows them.
jq -r '[.nodes[].checks[] | select(.result == "fail") | .name] | group_by(.) | map("bringup_checks_failed{check=\(.[0])} \(length).0") | .[]' st.json | sort > want.checks
grep '^bringup_checks_failed' run.samples | sort > got.checks
[ -s want.checks ] || fail "no failing check to count"
cmp -s want.checks got.checks || fail "checks failed: got $(cat got.checks), want $(cat want.checks)"
assert_eq "$(val 'bringup_bmc_errors{kind=bmc_auth}' run.samples)" 1.0 "BMC errors: credentials"
assert_eq "$(val 'bringup_bmc_errors{kind=bmc_unreachable}' run.samples)" 0.0 "BMC errors: unreachable"
assert_eq "$(val 'bringup_nodes_failed{kind=bmc_auth}' run.samples)" 1.0 "failed nodes by kind"
assert_eq "$(val 'bringup_tickets_open{}' run.samples)" "$(bringup tickets --json | jq '.tickets | length').0" "tickets open"
# Each stage's time and exit as the run's own summary has them.
for st in discover configure enlist validate gate tickets; do
	want=$(jq -r --arg s $st '.stages[] | select(.name == $s) | .seconds' run.json)
	got=$(val "bringup_stage_duration_seconds{stage=$st}" run.samples)
	awk -v a="$got" -v b="$want" 'BEGIN { d = a - b; exit !(a != "" && d < 1e-6 && d > -1e-6) }' ||
		fail "$st duration: got '$got', want '$want'"
	assert_eq "$(val "bringup_stage_exit_code{stage=$st}" run.samples)" "$(jq -r --arg s $st '.stages[] | select(.name == $s) | .exit' run.json).0" "$st exit"
done
assert_eq "$(val 'bringup_run_exit_code{}' run.samples)" 1.0 "run exit"

# status: the same inventory counts, no stage it did not run.
bringup status --metrics-file prom/status.prom > /dev/null || fail "status --metrics-file exit $?"
parse prom/status.prom > st.samples || fail "the Prometheus parser refused status's file"
assert_eq "$(grep -v '^bringup_\(stage\|run\)_' run.samples)" "$(cat st.samples)" "status's metrics against run's inventory metrics"
grep -q '^bringup_stage_' st.samples && fail "status wrote stage metrics"

# bringup.conf's [metrics] file.
printf '[metrics]\nfile = %s\n' "$T/prom/conf.prom" > bringup.conf
bringup --config bringup.conf status > /dev/null || fail "status with [metrics] file exit $?"
parse prom/conf.prom > conf.samples || fail "no metrics file from bringup.conf"
assert_eq "$(cat conf.samples)" "$(cat st.samples)" "bringup.conf's metrics file"

# A path that cannot be written: exit 2 before any stage ran.
inv_sql inv.db --dump > before.sql
lines=$(wc -l < rack/requests.log)
rc=0; bringup run --metrics-file "$T/no/such/dir/bringup.prom" > out 2> err || rc=$?
assert_eq "$rc" 2 "run with a metrics file in a missing directory"
assert_contains "$(cat err)" "no/such/dir" "the directory named"
assert_eq "$(wc -l < rack/requests.log)" "$lines" "BMC requests after the operator's mistake"
inv_sql inv.db --dump > after.sql
cmp -s before.sql after.sql || fail "the inventory changed after the operator's mistake"
rc=0; bringup status --metrics-file "$T/prom" > out 2> err || rc=$?
assert_eq "$rc" 2 "status with a directory for its metrics file"
