#!/bin/sh
# bringup validate on simulated racks, seeds 1-5: every node reached
# through a real OpenSSH sshd on loopback, bringup-probe copied over and run
# there; every injected fault is reported by a failing check of the right
# name, and no check fails on a clean node; the same with the rack split
# over SSH worker processes.
. "$(dirname "$0")/lib.sh"
cd "$T"
faults=pcie_degraded,nvme_order,nvme_missing,gpu_missing,nic_missing,cable_swap,cable_unplugged,thermal_bogus
faults=$faults,cpufreq_capped,clock_skew,psu_failed,fw_outdated,ib_port_down,ib_rate,nvlink_down
# The check each fault must fail (nvme_order: none; the OS is on the right disk).
check_of() {
	case $1 in
	pcie_degraded) echo pcie ;; gpu_missing) echo gpu_count ;; nic_missing) echo nic_count ;;
	nvme_missing) echo nvme_count ;; cable_swap | cable_unplugged) echo cabling ;; thermal_bogus) echo thermal ;;
	cpufreq_capped) echo cpufreq ;; clock_skew) echo clock ;; psu_failed) echo psu ;; fw_outdated) echo firmware ;;
	ib_port_down | ib_rate) echo ib_ports ;; nvlink_down) echo nvlink ;;
	*) echo "" ;;
	esac
}
# Under the sanitizers (the build/asan tree) one seed covers the memory
# checks; the five seeds' judgement is the plain tree's to show.
seeds="1 2 3 4 5"
case "$BIN" in */asan/*) seeds=1 ;; esac
for seed in $seeds; do
	d=$T/s$seed
	bringup-sim --nodes 16 --seed "$seed" --faults "$faults" --maas-commission-ms 100 --maas-deploy-ms 100 \
		--dir "$d" --daemon >/dev/null
	at_exit "stop_sim $d"
	(
		set -a; . "$d/env"; set +a
		export BRINGUP_DB=$d/inv.db
		[ -n "${BRINGUP_SSH_CONFIG:-}" ] || fail "the simulator's env gives no ssh config"
		bringup import --manifest "$d/rack.csv" >/dev/null
		bringup discover -q || true
		bringup enlist --skip-configure --poll-ms 50 -q || true
		rc=0
		# odd seeds over 3 SSH worker processes (16 nodes split 5/5/6), even ones in one
		bringup validate --workers $((seed % 2 ? 3 : 1)) --json > "$d/v.json" 2> "$d/v.err" || rc=$?
		[ "$rc" -le 1 ] || fail "seed $seed: validate exit $rc: $(cat "$d/v.err")"
	)
	v=$d/v.json
	n=$(jq '.nodes | length' "$v")
	[ "$n" -ge 14 ] || fail "seed $seed: only $n nodes validated: $(jq -c '[.nodes[] | select(.state != "validated") | .reason]' "$v")"
	for h in $(jq -r '.nodes[].hostname' "$v"); do
		state=$(jq -r --arg h "$h" '.nodes[] | select(.hostname == $h) | .state' "$v")
		assert_eq "$state" validated "seed $seed $h state ($(jq -r --arg h "$h" '.nodes[] | select(.hostname == $h) | .reason' "$v"))"
		fs=$(jq -r --arg h "$h" '.nodes[] | select(.hostname == $h) | .faults | join(" ")' "$d/truth.json")
		failing=$(jq -r --arg h "$h" '[.nodes[] | select(.hostname == $h) | .checks[] | select(.result == "fail") | .name | sub(":.*"; "")] | unique | join(" ")' "$v")
		want=""
		for f in $fs; do c=$(check_of "$f"); [ -n "$c" ] && want="$want $c"; done
		if [ -z "$want" ]; then
			[ -z "$failing" ] || fail "seed $seed: clean node $h ($fs) fails: $(jq -c --arg h "$h" '.nodes[] | select(.hostname == $h) | [.checks[] | select(.result == "fail")]' "$v")"
			gh=$(jq -r --arg h "$h" '.nodes[] | select(.hostname == $h) | .checks[] | select(.name == "gpu_health") | .result' "$v")
			assert_eq "$gh" pass "seed $seed: clean node $h gpu_health"
			ib=$(jq -r --arg h "$h" '.nodes[] | select(.hostname == $h) | .checks[] | select(.name == "ib_ports") | .result' "$v")
			assert_eq "$ib" pass "seed $seed: clean node $h ib_ports"
			nv=$(jq -r --arg h "$h" '.nodes[] | select(.hostname == $h) | .checks[] | select(.name == "nvlink") | .result' "$v")
			assert_eq "$nv" pass "seed $seed: clean node $h nvlink"
		fi
		for c in $want; do
			case " $failing " in *" $c "*) ;; *) fail "seed $seed: $h ($fs): no failing $c check (failing: $failing)" ;; esac
		done
	done
	stop_sim "$d"
done
echo "seeds $seeds: every fault reported by its check, clean nodes pass"
