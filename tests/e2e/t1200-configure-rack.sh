#!/bin/sh
# configure on a simulated rack: a dry run only reads; bad templates stop
# the run before any request; bios_drift nodes end on the baseline (read
# back through Redfish) after one PATCH with If-Match, a job, one reset and
# polling, with PXE put first; healthy nodes get no PATCH and no reset; a
# failing job fails its node with the job's message; resets are rationed
# by --max-resets; fw_outdated shows as a failed firmware check; a re-run
# changes nothing.
. "$(dirname "$0")/lib.sh"
cd "$T"
bringup sim --no-hosts --nodes 8 --seed 11 --faults bios_drift:3,bios_job_fail,fw_outdated --dir rack --daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
export BRINGUP_DB=$T/inv.db
bringup import --manifest rack/rack.csv >/dev/null
bringup discover -q
truth=rack/truth.json
log=rack/requests.log
A="-u root:$BRINGUP_BMC_PASSWORD"
S=/redfish/v1/Systems/System.Embedded.1
with() { jq -r --arg f "$1" '.nodes[] | select(.faults | index($f)) | .hostname' $truth; }
bmc_of() { jq -r --arg h "$1" '.nodes[] | select(.hostname == $h) | .bmc' $truth; }
drift=$(with bios_drift)
jobfail=$(with bios_job_fail)
fwold=$(with fw_outdated)
healthy=$(jq -r '.nodes[] | select(.faults == []) | .hostname' $truth)
[ "$(echo "$drift" | wc -w)" -eq 3 ] || fail "three drifted nodes"
sleep 0.3
lines() { wc -l < $log; }

# ---- dry run: the diff, and nothing written anywhere ----------------------
inv_sql inv.db --dump > before.sql
start=$(lines)
bringup configure --dry-run --json > dry.json
sleep 0.3
tail -n +$((start + 1)) $log > dry.log
writes=$(jq -r 'select(.method != "GET" and (.path | startswith("/redfish/v1/SessionService/Sessions") | not)) | "\(.method) \(.path)"' dry.log)
[ -z "$writes" ] || fail "dry run sent: $writes"
[ "$(wc -l < dry.log)" -gt 0 ] || fail "dry run read nothing"
inv_sql inv.db --dump > after.sql
cmp -s before.sql after.sql || fail "dry run changed the inventory"
for h in $drift; do
	assert_eq "$(jq -r --arg h "$h" '.nodes[] | select(.hostname == $h) | [.bios_changes[].name] | sort | join(",")' dry.json)" \
		"$(jq -r --arg h "$h" '.nodes[] | select(.hostname == $h) | .fault_details.bios_drift.attributes | keys | sort | join(",")' $truth)" \
		"dry-run diff of $h"
	assert_contains "$(jq -r --arg h "$h" '.nodes[] | select(.hostname == $h) | .boot.wanted' dry.json)" \
		"BootOrder NIC.PxeDevice.1-1," "dry-run boot diff of $h"
done
for h in $healthy; do
	assert_eq "$(jq -r --arg h "$h" '.nodes[] | select(.hostname == $h) | "\(.result) \(.bios_changes | length)"' dry.json)" \
		"unchanged 0" "dry run of healthy $h"
done
bringup configure --dry-run > dry.txt
assert_contains "$(cat dry.txt)" "(dry run: nothing changed)" "human dry run"

# ---- bad templates: FILE:LINE, exit 2, nothing touched --------------------
cp -R "$BR_TOP/templates" tpl
printf '[bios]\nBootMode = Uefi\nSysProfile PerfOptimized\n' > tpl/profiles/xe9680/bios.conf
start=$(lines)
rc=0
BRINGUP_TEMPLATES=$T/tpl bringup configure 2> err || rc=$?
assert_eq "$rc" 2 "exit code on a bad template"
assert_contains "$(cat err)" "tpl/profiles/xe9680/bios.conf:3: expected" "FILE:LINE of the syntax error"
printf '[bios]\nBootMode = Uefi\n[firmware]\n' > tpl/profiles/xe9680/bios.conf
rc=0
BRINGUP_TEMPLATES=$T/tpl bringup configure 2> err || rc=$?
assert_eq "$rc" 2 "exit code on an unknown section"
assert_contains "$(cat err)" "bios.conf:3: unknown section [firmware]" "unknown section"
rm tpl/profiles/xe9680/bios.conf
rc=0
BRINGUP_TEMPLATES=$T/tpl bringup configure 2> err || rc=$?
assert_eq "$rc" 2 "exit code on an unknown profile"
assert_contains "$(cat err)" "profile 'xe9680'" "unknown profile named"
sleep 0.3
assert_eq "$(lines)" "$start" "no request after a template error"
# configure reads the profiles before it leases a node (t6111): not even a
# fencing token is issued, so the whole inventory is as it was.
inv_sql inv.db --dump > after.sql
cmp -s before.sql after.sql || fail "a template error changed the inventory"

# ---- apply ----------------------------------------------------------------
start=$(lines)
rc=0
bringup configure --json --poll-ms 100 --max-resets 2 > run.json 2> run.err || rc=$?
assert_eq "$rc" 1 "exit code with a failed job"
sleep 0.3
tail -n +$((start + 1)) $log > run.log
bringup status --json > st.json
st() { jq -r --arg h "$1" ".nodes[] | select(.hostname == \$h) | $2" st.json; }
n_req() { # node method path-regex
	jq -r --arg n "$1" --arg m "$2" --arg p "$3" \
		'select(.node == $n and .method == $m and (.path | test($p))) | .path' run.log | wc -l
}
sed -n '/^\[bios\]/,/^\[/p' "$BR_TOP/templates/profiles/xe9680/bios.conf" |
	sed -n 's/^\([A-Za-z0-9_]*\) *= *\(.*\)$/\1 \2/p' > baseline.txt
[ "$(wc -l < baseline.txt)" -ge 8 ] || fail "baseline has its attributes"
for h in $drift; do
	assert_eq "$(st "$h" .state)" configured "state of drifted $h"
	assert_contains "$(st "$h" .reason)" "applied by job JID_" "reason of $h"
	b=$(bmc_of "$h")
	curl -sf $A "http://$b$S/Bios" > bios.json
	while read -r k v; do
		assert_eq "$(jq -r ".Attributes.$k" bios.json)" "$v" "$h: $k read back"
	done < baseline.txt
	assert_eq "$(curl -sf $A "http://$b$S" | jq -r '.Boot.BootOrder[0]')" NIC.PxeDevice.1-1 "$h: PXE first"
	assert_eq "$(n_req "$h" PATCH '/Bios/Settings$')" 1 "$h: one BIOS PATCH"
	assert_eq "$(jq -r --arg n "$h" 'select(.node == $n and .method == "PATCH" and (.path | endswith("/Bios/Settings"))) | .if_match | test("^\".+\"$")' run.log)" \
		true "$h: BIOS PATCH with If-Match"
	assert_eq "$(n_req "$h" POST 'ComputerSystem.Reset$')" 1 "$h: one reset"
	[ "$(n_req "$h" GET '/Jobs/JID_[0-9]+$')" -ge 2 ] || fail "$h: job polled"
	assert_eq "$(n_req "$h" PATCH "^$S\$")" 1 "$h: one boot order PATCH"
	assert_eq "$(st "$h" '.checks[] | select(.name == "bios") | .result')" pass "$h: bios check"
	assert_eq "$(st "$h" '.checks[] | select(.name == "boot") | .result')" pass "$h: boot check"
done
for h in $healthy $fwold; do
	assert_eq "$(st "$h" .state)" configured "state of $h"
	assert_eq "$(jq -r --arg n "$h" 'select(.node == $n and (.method == "PATCH" or (.method == "POST" and (.path | test("Sessions$") | not)))) | .path' run.log)" \
		"" "$h: no PATCH, no POST"
done
assert_eq "$(st "$jobfail" .state)" failed "state of the failing-job node"
assert_contains "$(st "$jobfail" .reason)" "ProcCStates is read-only while SysProfile is not Custom" "job's message as the reason"
assert_contains "$(st "$jobfail" .reason)" "Failed" "job state in the reason"
assert_eq "$(n_req "$jobfail" POST 'ComputerSystem.Reset$')" 1 "failing-job node reset once"

# fw_outdated: one failed firmware check naming the component and both versions
comp=$(jq -r '.nodes[] | select(.faults | index("fw_outdated")) | .fault_details.fw_outdated.component' $truth)
assert_eq "$(st "$fwold" ".checks[] | select(.name == \"firmware:$comp\") | .result")" fail "firmware check of $fwold"
assert_eq "$(st "$fwold" ".checks[] | select(.name == \"firmware:$comp\") | .detail")" \
	"$comp: 28.33.0800 < 28.39.1002 — update firmware" "firmware detail"
assert_eq "$(st "$fwold" '[.checks[] | select(.result == "fail")] | length')" 1 "only one failed check on $fwold"
h1=$(echo "$healthy" | head -1)
[ "$(st "$h1" '[.checks[] | select(.name | startswith("firmware:")) | select(.result == "pass")] | length')" -ge 10 ] ||
	fail "passing firmware checks on $h1"

# --max-resets 2: never more than two systems between reset and job end.
# The simulator stamps a request's end after writing its answer, so on a
# loaded machine the next system's reset can be stamped a little before
# the job read that freed its slot: overlaps under 150 ms are that (a third
# system truly resetting would overlap for most of its job's run).
max=$(jq -s '[group_by(.node)[] | {s: ([.[] | select(.method == "POST" and (.path | endswith("ComputerSystem.Reset"))) | .start_ms] | min),
	e: ([.[] | select(.method == "GET" and (.path | test("/Jobs/JID_"))) | .end_ms] | max)} | select(.s != null)] as $w |
	[$w[] | .s as $t | [$w[] | select(.s <= $t and .e > $t + 150)] | length] | max' run.log)
[ "$max" -le 2 ] || fail "$max systems resetting at once with --max-resets 2"
assert_eq "$(jq -s '[.[] | select(.method == "POST" and (.path | endswith("ComputerSystem.Reset")))] | length' run.log)" 4 \
	"four resets in all (three drifted, one failing)"

# ---- re-run on configured nodes: nothing changes -------------------------
start=$(lines)
bringup configure --json > rerun0.json
assert_eq "$(jq '.nodes | length' rerun0.json)" 0 "configured nodes are not picked again"
# shellcheck disable=SC2086
bringup configure --json --poll-ms 100 $drift $healthy > rerun.json
assert_eq "$(jq -r '[.nodes[].result] | unique | join(",")' rerun.json)" unchanged "re-run result"
sleep 0.3
assert_eq "$(tail -n +$((start + 1)) $log | jq -r 'select(.method == "PATCH" or (.method == "POST" and (.path | test("Sessions$") | not))) | .path')" \
	"" "re-run sent no PATCH and no reset"
for h in $drift; do
	assert_eq "$(st "$h" .state)" configured "state of $h after the re-run"
done
exit 0
