#!/bin/sh
# Simulated hosts through real sshd: the probe is copied with scp (SFTP) and
# run over ssh with strict host key checking, as the validate stage does;
# each injected fault shows in the facts the probe prints on its node, a
# clean node shows none, and the facts agree with truth.json and with what
# the node's BMC says. Stopping the simulator stops its sshds.
. "$(dirname "$0")/lib.sh"
[ -x /usr/sbin/sshd ] || fail "needs OpenSSH's sshd (scripts/deps installs openssh-server)"

R=$T/rack
bringup-sim --nodes 9 --seed 5 --dir "$R" --daemon \
	--faults pcie_degraded,nvme_order,cpufreq_capped,thermal_bogus,cable_swap,gpu_missing,clock_skew >/dev/null
at_exit "stop_sim $R"
set -a
. "$R/env"
set +a
for v in BRINGUP_SSH_CONFIG BRINGUP_SSH_KEY BRINGUP_KNOWN_HOSTS BRINGUP_SSH_USER BRINGUP_WIRING; do
	eval "val=\${$v:-}"
	[ -n "$val" ] || fail "DIR/env has no $v"
done
assert_eq "$BRINGUP_SSH_USER" "$(id -un)" "ssh user"
assert_eq "$BRINGUP_WIRING" "$R/wiring.csv" "wiring list"
sshd_pids=$(cat "$R"/ssh/sshd-*.pid)
assert_eq "$(echo $sshd_pids | wc -w)" 1 "one sshd for 9 nodes"
# Only loopback: every listening address of the sshds is 127.0.0.1.
assert_eq "$(grep -h ^ListenAddress "$R"/ssh/sshd-*.conf | grep -vc ' 127\.0\.0\.1:')" 0 "loopback only"
assert_eq "$(grep -c '^\[127\.0\.0\.1\]:' "$BRINGUP_KNOWN_HOSTS")" 9 "known_hosts lines"

SSH="-F $BRINGUP_SSH_CONFIG -i $BRINGUP_SSH_KEY -o UserKnownHostsFile=$BRINGUP_KNOWN_HOSTS -o StrictHostKeyChecking=yes -o BatchMode=yes"
sha=$(sha256sum "$BIN/bringup-probe" | cut -c1-64)
# The hosts share this machine's file system: the copy goes under $T.
remote=$T/bringup-probe-$sha
hosts=$(jq -r '.nodes[].hostname' "$R/truth.json")
for h in $hosts; do
	# shellcheck disable=SC2086
	(scp -q $SSH "$BIN/bringup-probe" "$h:$remote.$h" &&
		ssh $SSH "$h" "cd / && exec timeout -k 5 60 '$remote.$h' '--json'" >"$T/$h.json" 2>"$T/$h.err") &
done
wait
for h in $hosts; do
	jq -e '.probe_version == 1' "$T/$h.json" >/dev/null || fail "$h: no probe document: $(cat "$T/$h.err")"
done

truth() { jq -c --arg h "$1" ".nodes[] | select(.hostname == \$h) | $2" "$R/truth.json"; }
facts() { jq -c "$2" "$T/$1.json"; }
node_with() { jq -r --arg f "$1" '[.nodes[] | select(.faults | index($f)) | .hostname][0]' "$R/truth.json"; }
# The wiring list's neighbours of a host, as "ifname switch port" lines.
wired() { awk -F, -v h="$1" '$1 == h { print $2, $3, $4 }' "$BRINGUP_WIRING" | sort; }
seen() { jq -r '.lldp.neighbors[] | "\(.local_port) \(.system_name) \(.port_id)"' "$T/$1.json" | sort; }
# A MAC as RoCE's GID 0 interface id (modified EUI-64).
eui64() {
	# shellcheck disable=SC2046
	set -- $(echo "$1" | tr : ' ')
	printf '%02x%s:%sff:fe%s:%s%s\n' $((0x$1 ^ 2)) "$2" "$3" "$4" "$5" "$6"
}

clean=""
for h in $hosts; do
	# Every session ran the node's own tree, named by its port's environment.
	assert_eq "$(facts "$h" '[.root, .host.hostname, .host.product_name, (.unreadable | length)]')" \
		"[\"$R/hosts/$h\",\"$h\",\"PowerEdge XE9680\",0]" "$h: identity"
	# / is on the drive the node was installed on, by serial, whatever the kernel named it.
	assert_eq "$(facts "$h" '.storage.root.controller_serial')" "$(truth "$h" .boot_disk_serial)" "$h: boot disk"
	assert_eq "$(facts "$h" '[.storage.nvme_controllers[].serial] | sort')" "$(truth "$h" '.drive_serials | sort')" \
		"$h: NVMe serials"
	# The fabric NICs' MACs, seen through their RDMA ports.
	want=$(for m in $(truth "$h" '.macs[]' | tr -d '"' | grep '^a0:88:c2'); do eui64 "$m"; done | sort | tr '\n' ' ')
	got=$(facts "$h" '.infiniband.ports[].port_guid' | tr -d '"' | sort | tr '\n' ' ')
	assert_eq "$got" "$want" "$h: NIC MACs"
	[ "$(truth "$h" '.faults | length')" = 0 ] && clean="$clean $h"
	:
done
[ -n "$clean" ] || fail "no clean node to compare with"

# pcie_degraded: the GPU on the truth's bus is x4 of x16, in libpci's view,
# sysfs's, nvidia-smi's and the kernel log's, and the port above it names
# the slot; its BMC says the same lanes for the same serial.
h=$(node_with pcie_degraded)
bdf=$(printf '0000:%02x:00.0' "$(truth "$h" '.fault_details.pcie_degraded.bus')")
assert_eq "$(facts "$h" ".pcie.devices[] | select(.bdf == \"$bdf\") | [.link.width_current, .link.width_max, .link.sysfs_agrees, .slot]")" \
	'[4,16,true,"'"$(truth "$h" .fault_details.pcie_degraded.gpu)"'"]' "$h: narrow GPU link"
port=$(facts "$h" ".pcie.devices[] | select(.bdf == \"$bdf\") | .upstream" | tr -d '"')
assert_eq "$(facts "$h" ".pcie.devices[] | select(.bdf == \"$port\") | [.express.port_type, .link.width_current]")" \
	'["switch_downstream",4]' "$h: the port above it"
assert_eq "$(facts "$h" ".gpus.gpus[] | select(.bdf == \"$bdf\") | [.serial, .pcie.width_current]")" \
	"[$(truth "$h" .fault_details.pcie_degraded.serial),4]" "$h: nvidia-smi"
assert_eq "$(facts "$h" '.dmesg.counts.pcie_link_limited')" 1 "$h: kernel log"
assert_contains "$(facts "$h" '.dmesg.matches[0].line')" "x4 link at $port" "$h: limited line"
bmc=$(truth "$h" .bmc | tr -d '"')
bus=$(truth "$h" .fault_details.pcie_degraded.bus)
curl -s -u "root:$BRINGUP_BMC_PASSWORD" "http://$bmc/redfish/v1/Chassis/System.Embedded.1/PCIeDevices/$bus-0" >"$T/bmc-pcie.json"
assert_eq "$(jq -c '[.SerialNumber, .PCIeInterface.LanesInUse]' "$T/bmc-pcie.json")" \
	"[$(truth "$h" .fault_details.pcie_degraded.serial),4]" "$h: BMC agrees"
for n in $hosts; do
	[ "$n" = "$h" ] && continue
	assert_eq "$(facts "$n" '[.pcie.devices[] | select(.vendor == "0x10de") | .link.width_current] | unique')" '[16]' "$n: GPUs x16"
	assert_eq "$(facts "$n" '.dmesg.counts.pcie_link_limited')" 0 "$n: no narrow link in the log"
done

# gpu_missing: 7 GPUs in nvidia-smi and on the bus, the missing serial in neither.
h=$(node_with gpu_missing)
missing=$(truth "$h" .fault_details.gpu_missing.serial)
assert_eq "$(facts "$h" "[.gpus.count, .gpus.attached_gpus, ([.pcie.devices[] | select(.vendor == \"0x10de\")] | length), ([.gpus.gpus[].serial] | index($missing))]")" \
	'[7,7,7,null]' "$h: 7 GPUs"
for n in $clean; do
	assert_eq "$(facts "$n" '[.gpus.count, ([.pcie.devices[] | select(.vendor == "0x10de")] | length)]')" '[8,8]' "$n: 8 GPUs"
done

# nvme_order: the kernel named a data drive first; / still on the boot drive.
h=$(node_with nvme_order)
assert_eq "$(facts "$h" '.storage.root.controller')" '"nvme1"' "$h: boot drive is nvme1"
for n in $clean; do
	assert_eq "$(facts "$n" '.storage.root.controller')" '"nvme0"' "$n: boot drive is nvme0"
done

# cpufreq_capped: cores held at 2 GHz.
h=$(node_with cpufreq_capped)
assert_eq "$(facts "$h" '[.cpu.cores[] | select(.scaling_max_freq_khz < .cpuinfo_max_freq_khz) | [.cpu, .scaling_max_freq_khz]]')" \
	'[[2,2000000],[6,2000000]]' "$h: capped cores"
for n in $clean; do
	assert_eq "$(facts "$n" '[.cpu.cores[] | select(.scaling_max_freq_khz < .cpuinfo_max_freq_khz)] | length')" 0 "$n: no capped core"
done

# thermal_bogus: the BMC's bogus sensor reads the same impossible value here, fans at maximum.
h=$(node_with thermal_bogus)
sensor=$(truth "$h" .fault_details.thermal_bogus.sensor)
assert_eq "$(facts "$h" "[.thermal.hwmon[].temps[] | select(.label == $sensor) | .celsius]")" \
	"[$(truth "$h" .fault_details.thermal_bogus.reading)]" "$h: bogus reading"
assert_eq "$(facts "$h" '[.thermal.hwmon[].fans[] | .rpm == .max_rpm] | unique')" '[true]' "$h: fans at max"
for n in $clean; do
	assert_eq "$(facts "$n" '[.thermal.hwmon[].temps[] | .celsius > 0 and .celsius < 100] | unique')" '[true]' "$n: plausible temperatures"
	assert_eq "$(facts "$n" '[.thermal.hwmon[].fans[] | .rpm < .max_rpm] | unique')" '[true]' "$n: fans below max"
done

# cable_swap: the two nodes' cables on one rail exchanged; every other port as wired.
a=$(jq -r '[.nodes[] | select(.faults | index("cable_swap")) | .hostname] | .[0]' "$R/truth.json")
b=$(jq -r '[.nodes[] | select(.faults | index("cable_swap")) | .hostname] | .[1]' "$R/truth.json")
ifname=$(truth "$a" .fault_details.cable_swap.ifname | tr -d '"')
assert_eq "$(seen "$a" | grep "^$ifname ")" "$ifname $(wired "$b" | grep "^$ifname " | cut -d' ' -f2-)" "$a: sees $b's switch port"
assert_eq "$(seen "$b" | grep "^$ifname ")" "$ifname $(wired "$a" | grep "^$ifname " | cut -d' ' -f2-)" "$b: sees $a's switch port"
assert_eq "$(seen "$a" | grep -v "^$ifname ")" "$(wired "$a" | grep -v "^$ifname ")" "$a: other ports as wired"
for n in $clean; do
	assert_eq "$(seen "$n")" "$(wired "$n")" "$n: neighbours as wired"
done

# clock_skew: the node's RTC (which the simulator keeps ticking) is off
# from the clock by the truth's offset, as the probe read both.
skew() { echo $(($(facts "$1" .clock.rtc_since_epoch_s) - $(facts "$1" .clock.utc_ms) / 1000)); }
h=$(node_with clock_skew)
off=$(truth "$h" .fault_details.clock_skew.offset_s)
d=$(($(skew "$h") - off))
[ "$d" -ge -3 ] && [ "$d" -le 3 ] || fail "$h: rtc off by $(skew "$h") s, want $off"
for n in $clean; do
	d=$(skew "$n")
	[ "$d" -ge -3 ] && [ "$d" -le 3 ] || fail "$n: rtc off by $d s"
done

# A key the sshd does not know is refused; so is a host key known_hosts does not hold.
ssh-keygen -q -t ed25519 -N '' -f "$T/stranger"
h=$(echo $hosts | cut -d' ' -f1)
port=$(awk -v h="$h" '$1 == "Host" { cur = $2 } $1 == "Port" && cur == h { print $2 }' "$BRINGUP_SSH_CONFIG")
ssh -F /dev/null -p "$port" -i "$T/stranger" -o IdentitiesOnly=yes -o BatchMode=yes \
	-o UserKnownHostsFile="$BRINGUP_KNOWN_HOSTS" -o StrictHostKeyChecking=yes "$BRINGUP_SSH_USER@127.0.0.1" true \
	2>"$T/stranger.err" && fail "an unknown key logged in"
assert_contains "$(cat "$T/stranger.err")" "Permission denied" "unknown key refused"
: >"$T/empty_known"
ssh -F /dev/null -p "$port" -i "$BRINGUP_SSH_KEY" -o IdentitiesOnly=yes -o BatchMode=yes \
	-o UserKnownHostsFile="$T/empty_known" -o StrictHostKeyChecking=yes "$BRINGUP_SSH_USER@127.0.0.1" true \
	2>"$T/hostkey.err" && fail "an unknown host key was accepted"
assert_contains "$(cat "$T/hostkey.err")" "Host key verification failed" "unknown host key refused"

# Files with the same bytes are one inode shared by the trees (a 512-host
# rack would otherwise write 3 GB); each node still read its own values and
# faults above, and the RTC ticker's renames kept the skewed clock its own.
files=$(find "$R/hosts" -type f | wc -l)
inodes=$(find "$R/hosts" -type f -printf '%i\n' | sort -u | wc -l)
[ "$inodes" -lt $((files / 4)) ] || fail "$files files in $inodes inodes: identical files are not shared"
# The command a client sends runs as on a real node: the login shell runs
# it, no forced command in between.
grep -q ForceCommand "$R"/ssh/sshd-*.conf && fail "sshd forces a command on the simulated hosts"

# Stopping the simulator stops its sshds.
sim_pid=$(cat "$R/sim.pid")
kill "$sim_pid"
i=0
while [ $i -lt 100 ]; do
	alive=
	for p in $sim_pid $sshd_pids; do
		if kill -0 "$p" 2>/dev/null && ! grep -q '^[0-9]* ([^)]*) Z' "/proc/$p/stat" 2>/dev/null; then
			alive="$alive $p"
		fi
	done
	[ -z "$alive" ] && break
	sleep 0.1
	i=$((i + 1))
done
[ -z "$alive" ] || fail "still running 10 s after the simulator was stopped:$alive"
if grep -q Sanitizer "$R/sim.log"; then fail "sanitizer report: $(cat "$R/sim.log")"; fi
for n in $hosts; do
	if grep -q Sanitizer "$T/$n.err"; then fail "$n: sanitizer report: $(cat "$T/$n.err")"; fi
done
# shellcheck disable=SC2086
ssh $SSH -o ConnectTimeout=3 "$h" true 2>/dev/null && fail "sshd still answers on port $port"
exit 0
