# The pipeline on a rack of one BMC family (t5015..t5019 source it): the
# simulator's node shaped like the family's machine, the family's own
# profile (hardware.conf) judging it. Source lib.sh first, then call
#   family_pipeline VENDOR PROFILE
# A 5-node rack: gpu_missing, clock_skew, psu_failed and fan_failed each on
# a node of its own, one node clean. The faulty nodes end quarantined
# naming their failed check (gpu_count, clock, psu, fans); the clean one ends golden with
# every check its profile's [gate] required names present and passing, and
# gpu_count's detail giving the family's own GPU count.

# KEY of SECTION in the profile's hardware.conf.
family_conf() { # PROFILE SECTION KEY
	awk -v s="[$2]" -v k="$3" '/^\[/ { in_s = $0 == s; next }
		in_s && $1 == k && $2 == "=" { sub(/^[^=]*= */, ""); print; exit }' \
		"$BR_TOP/templates/profiles/$1/hardware.conf"
}

family_pipeline() { # VENDOR PROFILE
	vendor=$1 profile=$2
	gpus=$(family_conf "$profile" gpu count)
	[ -n "$gpus" ] || fail "$profile: hardware.conf states no [gpu] count"
	bringup sim --nodes 5 --seed 15 --vendor "$vendor" --dir rack --faults gpu_missing,clock_skew,psu_failed,fan_failed \
		--maas-commission-ms 100 --maas-deploy-ms 100 --bios-job-ms 200 --daemon >/dev/null
	at_exit "stop_sim $T/rack"
	set -a; . rack/env; set +a
	export BRINGUP_DB=$T/inv.db BRINGUP_SSH_PUBKEY=$BRINGUP_SSH_KEY.pub
	export BRINGUP_BMC_TIMEOUT=5 BRINGUP_VALIDATE_PARALLEL=4
	assert_eq "$(awk -F, 'FNR > 1 { print $7 }' rack/rack.csv | sort -u)" "$profile" "rack.csv's profile"
	# The machine's shape, as the simulator's ground truth and wiring show it.
	h0=$(jq -r '.nodes[0].hostname' rack/truth.json)
	# An InfiniBand fabric's cables are in ib-wiring.csv (no LLDP there).
	cabled=$(grep -c "^$h0," rack/wiring.csv)
	[ -f rack/ib-wiring.csv ] && cabled=$((cabled + $(grep -c "^$h0," rack/ib-wiring.csv)))
	assert_eq "$cabled" \
		"$(($(family_conf "$profile" nic fabric) + $(family_conf "$profile" nic ethernet)))" "$h0's cabled NICs"

	bringup import --manifest rack/rack.csv >/dev/null
	rc=0; bringup run --json -q > run.json 2> run.err || rc=$?
	assert_eq "$rc" 1 "run exit (quarantined nodes): $(tail -3 run.err)"
	bringup status --json > status.json
	st() { jq -r --arg h "$1" ".nodes[] | select(.hostname == \$h) | $2" status.json; }
	for pair in gpu_missing:gpu_count clock_skew:clock psu_failed:psu fan_failed:fans; do
		f=${pair%%:*} check=${pair#*:}
		h=$(jq -r --arg f "$f" '.nodes[] | select(.faults == [$f]) | .hostname' rack/truth.json)
		[ -n "$h" ] || fail "no node carries $f alone"
		assert_eq "$(st "$h" .state)" quarantined "$h ($f) state; reason $(st "$h" .reason)"
		assert_contains "$(st "$h" .reason)" "$check" "$h ($f) reason"
		assert_eq "$(st "$h" ".checks[] | select(.name == \"$check\") | .result")" fail "$h ($f): $check"
	done
	h=$(jq -r '.nodes[] | select(.faults == []) | .hostname' rack/truth.json)
	[ -n "$h" ] || fail "no clean node"
	assert_eq "$(st "$h" .state)" golden "clean $h state; reason $(st "$h" .reason)"
	required=$(family_conf "$profile" gate required | tr -d ' ' | tr , ' ')
	[ -n "$required" ] || fail "$profile: no [gate] required"
	optional=" $(family_conf "$profile" gate optional | tr -d ' ' | tr , ' ') "
	set -f # the names may be shell patterns (firmware:*): each must match a check
	for check in $required; do
		re="^$(printf '%s' "$check" | sed 's/\*/.*/g')\$"
		got=$(st "$h" "[.checks[] | select(.name | test(\"$re\")) | .result] | unique | join(\",\")")
		# an optional check may be absent (fabric: no capture given), never failing
		case "$optional" in *" $check "*) [ -z "$got" ] && continue ;; esac
		assert_eq "$got" pass "clean $h: required check $check"
	done
	set +f
	# The counts are the family's own, on every side that sees them.
	detail() { st "$1" ".checks[] | select(.name == \"$2\") | .detail"; }
	assert_contains "$(detail "$h" gpu_count)" "nvidia-smi: $gpus GPU" "clean $h: gpu_count detail"
	assert_contains "$(detail "$h" gpu_count)" "BMC: $gpus GPU" "clean $h: gpu_count detail"
	assert_contains "$(detail "$h" nic_count)" "BMC: $(family_conf "$profile" nic fabric) fabric NIC" \
		"clean $h: nic_count detail"
	assert_contains "$(detail "$h" nvme_count)" "BMC: $(family_conf "$profile" nvme count) NVMe drive" \
		"clean $h: nvme_count detail"
	assert_contains "$(detail "$h" psu)" "$(family_conf "$profile" psu count) power supplies present" \
		"clean $h: psu detail"
	assert_contains "$(detail "$h" fans)" "$(family_conf "$profile" fans count) fans present" \
		"clean $h: fans detail"
	assert_contains "$(detail "$h" cpufreq)" "rated $(family_conf "$profile" cpu rated_mhz) MHz" \
		"clean $h: cpufreq detail"
	# gpu_missing took one of the machine's own GPUs (a GH200's only one).
	hg=$(jq -r '.nodes[] | select(.faults == ["gpu_missing"]) | .hostname' rack/truth.json)
	assert_contains "$(detail "$hg" gpu_count)" "BMC: $((gpus - 1)) GPUs, expected $gpus" "$hg: gpu_count detail"
	echo "$vendor: 5 ${profile} nodes, gpu_missing/clock_skew/psu_failed/fan_failed quarantined by name, the clean one golden on $required"
}
