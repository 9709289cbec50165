#!/bin/sh
# bringup-probe over fixture trees (--root) and captures: the real H200's link,
# the root disk's controller serial, a capped core, a bogus sensor, IB ports,
# LLDP neighbours from real lldpd output, dmesg signatures.
. "$(dirname "$0")/lib.sh"
F=$BR_TOP/tests/fixtures
P=$F/probe

# The real H200 (tests/fixtures/hw/h200-vm): Gen5 x16 from libpci (its config
# space) and from sysfs, agreeing; nvidia-smi's capture says the same.
bringup-probe --root "$F/hw/h200-vm" --nvidia-smi-xml "$F/hw/h200-vm/nvidia-smi-q.xml" >"$T/h200.json"
jq -e '.probe_version == 1' "$T/h200.json" >/dev/null || fail "probe_version"
gpu=$(jq -c '.pcie.devices[] | select(.bdf == "0000:00:06.0")' "$T/h200.json")
assert_eq "$(echo "$gpu" | jq -r '.vendor + ":" + .device')" "0x10de:0x2335" "H200 identity"
assert_eq "$(echo "$gpu" | jq -c '[.link.source, .link.width_current, .link.width_max, .link.speed_current_gts, .link.speed_max_gts]')" \
	'["libpci",16,16,32,32]' "H200 link from libpci"
assert_eq "$(echo "$gpu" | jq -c '[.sysfs_link.current_link_width, .sysfs_link.current_link_speed, .link.sysfs_agrees]')" \
	'[16,"32.0 GT/s PCIe",true]' "H200 link from sysfs"
assert_eq "$(echo "$gpu" | jq -c '.express.link_cap2_speeds_gts')" '[2.5,5,8,16,32]' "LnkCap2 speeds"
assert_eq "$(jq -c '[.gpus.status, .gpus.count, .gpus.gpus[0].serial, .gpus.gpus[0].pcie.gen_current, .gpus.gpus[0].pcie.width_current, .gpus.gpus[0].ecc_mode.current]' "$T/h200.json")" \
	'["ok",1,"1654024028695",5,16,"Enabled"]' "nvidia-smi view"

# The same GPU through an lspci -xxxx dump (libpci's dump method).
bringup-probe --root "$T" --pci-dump "$P/pci/lspci-xxxx-h200.txt" >"$T/dump.json"
assert_eq "$(jq -c '[.pcie.source, .pcie.count, .pcie.devices[0].link.width_current, .pcie.devices[0].link.speed_max_gts]' "$T/dump.json")" \
	'["dump",1,16,32]' "H200 from its dump"
bringup-probe --root "$T" --pci-dump "$P/pci/lspci-xxxx-vm.txt" >"$T/vm.json"
assert_eq "$(jq -c '[.pcie.count, .pcie.devices[3].vendor, .pcie.devices[3].device, .pcie.devices[3].express]' "$T/vm.json")" \
	'[6,"0x1af4","0x1041",null]' "VM dump: virtio net, no Express capability"

# Behind a PCIe switch: the x4 GPU names the downstream port above it (the
# one trained x4 of x16) and its slot, so the evidence says what to reseat.
bringup-probe --root "$P/pcie-switch" >"$T/switch.json"
assert_eq "$(jq -c '.pcie.devices[] | select(.bdf == "0000:19:00.0") | [.upstream, .slot, .link.width_current, .link.width_max, .numa_node]' "$T/switch.json")" \
	'["0000:18:01.0","7",4,16,0]' "narrow GPU behind a switch"
assert_eq "$(jq -c '[.pcie.devices[] | select(.bdf == "0000:18:01.0" or .bdf == "0000:17:00.0") | .upstream]' "$T/switch.json")" \
	'["0000:16:02.0","0000:17:00.0"]' "bridge chain"
bringup-probe --root "$T" --pci-dump "$P/pci/lspci-xxxx-bridge.txt" >"$T/bridge.json"
assert_eq "$(jq -c '[.pcie.devices[] | [.bdf, .upstream]]' "$T/bridge.json")" \
	'[["0000:17:02.0",null],["0000:1b:00.0","0000:17:02.0"]]' "upstream from a dump's bridge bus numbers"

# The document the real H200 host printed has the shape this build prints,
# and says Gen5 x16 with libpci and sysfs agreeing.
H=$F/hw/h200-probe/probe-root.json
# (nvlink, modules and net came after that capture; the host's own `nvidia-smi
# nvlink -s` is tests/fixtures/probe/nvlink/h200-vm-nvlink-s.txt, judged below,
# its /sys/class/net is under tests/fixtures/hw/h200-vm/sys, read by test_probe.)
assert_eq "$(jq -c 'keys' "$H")" "$(jq -c 'keys - ["nvlink", "modules", "net", "psu_sdr"]' "$T/h200.json")" "document shape"
assert_eq "$(jq -c '.pcie.devices[] | select(.vendor == "0x10de") | [.link.width_current, .link.speed_current_gts, .link.sysfs_agrees, .express.link_cap.width]' "$H")" \
	'[16,32,true,16]' "real H200 output"

# Root on nvme1n1p2, whose disk hangs off controller nvme0: serial S6CKNE0W700123.
bringup-probe --root "$P/nvme-root" >"$T/nvme.json"
assert_eq "$(jq -c '.storage.root | [.status, .device, .disk, .controller, .controller_serial, .fstype]' "$T/nvme.json")" \
	'["ok","nvme1n1p2","nvme1n1","nvme0","S6CKNE0W700123","ext4"]' "root device"
assert_eq "$(jq -c '[.storage.nvme_controllers[] | .name + "=" + .serial]' "$T/nvme.json")" \
	'["nvme0=S6CKNE0W700123","nvme1=S6CKNE0W700999"]' "controllers"
assert_eq "$(jq -c '[.storage.block_devices[] | .name + ">" + .controller]' "$T/nvme.json")" \
	'["nvme0n1>nvme1","nvme1n1>nvme0"]' "block devices"

# One core capped at 2 GHz.
bringup-probe --root "$P/cpufreq-capped" >"$T/cpu.json"
assert_eq "$(jq -c '[.cpu.model, .cpu.processors, .cpu.summary.cores, .cpu.summary.scaling_max_freq_khz_min, .cpu.summary.governors.performance]' "$T/cpu.json")" \
	'["Intel(R) Xeon(R) Platinum 8480+",4,4,2000000,4]' "cpufreq summary"
assert_eq "$(jq -c '[.cpu.cores[] | select(.scaling_max_freq_khz < .cpuinfo_max_freq_khz) | .cpu]' "$T/cpu.json")" '[2]' "capped core"
assert_eq "$(jq -c '[.cpu.intel_pstate.no_turbo, .cpu.intel_pstate.max_perf_pct, .cpu.boost]' "$T/cpu.json")" '[0,100,null]' "pstate"
# The RTC beside the clock (for clock skew at the next boot), null where absent.
assert_eq "$(jq -c '.clock.rtc_since_epoch_s' "$T/cpu.json")" '1796022000' "rtc"

# A 127 C reading is reported as read (judging it is the rules' job).
bringup-probe --root "$P/hwmon-bogus" >"$T/hwmon.json"
assert_eq "$(jq -c '[.thermal.hwmon[].temps[] | select(.celsius == 127) | .label]' "$T/hwmon.json")" '["Core 1"]' "bogus sensor"
assert_eq "$(jq -c '[.thermal.hwmon[1].name, .thermal.hwmon[1].fans[0].rpm, .thermal.zones[0].type]' "$T/hwmon.json")" \
	'["nct6798",16800,"x86_pkg_temp"]' "fans and zones"
assert_eq "$(jq -c '.clock.rtc_since_epoch_s' "$T/hwmon.json")" 'null' "no rtc"

bringup-probe --root "$P/ib-ports" >"$T/ib.json"
assert_eq "$(jq -c '[.infiniband.ports[] | [.device, .state, .phys_state, .rate_gbps, .lid, .port_guid]]' "$T/ib.json")" \
	'[["mlx5_0","ACTIVE","LinkUp",400,"0x12","a088:c203:0045:6f30"],["mlx5_1","DOWN","Disabled",10,"0x0","a088:c203:0045:6f31"]]' "IB ports"

# The HCA's PCIe function and its port counters (procfs' real values).
bringup-probe --root "$P/ib-counters" >"$T/ibc.json"
assert_eq "$(jq -c '[.infiniband.ports[] | [.port, .pci_bdf, .counters.link_downed, .counters.symbol_error]]' "$T/ibc.json")" \
	'[["1","0000:04:00.0",0,0],["2","0000:04:00.0",0,0]]' "IB port counters and PCIe function"
assert_eq "$(jq -c '[.infiniband.ports[] | .pci_bdf]' "$T/ib.json")" '["0000:a1:00.0","0000:a1:00.1"]' \
	"IB PCIe function from the class entry's path"

# Loaded modules from /proc/modules.
bringup-probe --root "$P/modules" >"$T/mod.json"
assert_eq "$(jq -c '.modules | [.status, .loaded[0], (.loaded | length)]' "$T/mod.json")" '["ok","nvidia_peermem",10]' \
	"modules"

# NVLinks: an H100's 18, and the real H200 VM's none.
bringup-probe --root "$T" --nvidia-smi-nvlink "$P/nvlink/h100-nvlink-s.txt" >"$T/nvl.json"
assert_eq "$(jq -c '.nvlink | [.status, (.gpus[] | [.index, .uuid, (.links | length), .links[17].gbs, .links[17].active])]' "$T/nvl.json")" \
	'["ok",[0,"GPU-abcdefab-cdef-abdc-abcd-abababababab",18,26.562,true]]' "NVLinks"
bringup-probe --root "$T" --nvidia-smi-nvlink "$P/nvlink/h200-vm-nvlink-s.txt" >"$T/nvl0.json"
assert_eq "$(jq -c '.nvlink | [.status, .gpus]' "$T/nvl0.json")" '["ok",[]]' "no NVLinks shown"

# The supplies in a BMC's SDR, as ipmitool printed them on a real DGX-1
# (tests/fixtures/ipmi/README); under --root, without a capture, ipmitool
# is not run (it would read this machine's BMC).
bringup-probe --root "$T" --ipmitool-sdr-psu "$F/ipmi/sdr-psu-dgx1.out" >"$T/sdr.json"
assert_eq "$(jq -c '.psu_sdr | [.status, (.supplies[] | [.name, .kind, .health])]' "$T/sdr.json")" \
	'["ok",["PSU Redundancy","redundancy","Critical"],["PSU1 Status","psu","Critical"],["PSU2 Status","psu","Critical"],["PSU3 Status","psu","OK"],["PSU4 Status","psu","OK"]]' \
	"SDR supplies"
assert_eq "$(jq -r '.psu_sdr.status' "$T/nvl.json")" skipped "no SDR read under --root"
printf 'Error obtaining SDR info: Invalid command\n' >"$T/not-psu.txt"
bringup-probe --root "$T" --ipmitool-sdr-psu "$T/not-psu.txt" >"$T/sdr-bad.json"
assert_eq "$(jq -r '.psu_sdr.status' "$T/sdr-bad.json")" malformed "an SDR listing with no supply"
# On a node (no --root) the probe runs ipmitool itself: as root directly,
# as another user through `sudo -n` (the device node is root's). Stand-ins
# that print the DGX-1's capture show which was run.
# (in a directory of their own that another user can enter: $T is private)
tools=$(mktemp -d /tmp/br-t4000-tools.XXXXXX)
at_exit "rm -rf $tools"
chmod 755 "$tools"
cp "$F/ipmi/sdr-psu-dgx1.out" "$tools/sdr.out"
printf '#!/bin/sh\n[ "$*" = "sdr type Power Supply" ] || exit 3\ncat "%s"\n' "$tools/sdr.out" >"$tools/ipmitool"
printf '#!/bin/sh\n[ "$1" = -n ] || exit 4\nshift\nexec "$@"\n' >"$tools/sudo"
chmod 755 "$tools/ipmitool" "$tools/sudo"
chmod 644 "$tools/sdr.out"
probe=$(command -v bringup-probe)
if [ "$(id -u)" = 0 ]; then
	PATH=$tools:$PATH "$probe" >"$T/sdr-run.json"
	assert_eq "$(jq -c '.psu_sdr | [.status, .source, (.supplies | length)]' "$T/sdr-run.json")" '["ok","ipmitool",5]' \
		"ipmitool run by root"
	# as nobody, where nobody can reach the probe (a checkout under a
	# private home cannot be)
	if setpriv --reuid=65534 --regid=65534 --clear-groups "$probe" --help >/dev/null 2>&1; then
		PATH=$tools:/usr/bin:/bin setpriv --reuid=65534 --regid=65534 --clear-groups "$probe" >"$T/sdr-sudo.json" 2>/dev/null
		assert_eq "$(jq -c '.psu_sdr | [.status, .source, (.supplies | length)]' "$T/sdr-sudo.json")" '["ok","sudo",5]' \
			"ipmitool through sudo -n for another user"
	fi
else
	PATH=$tools:$PATH "$probe" >"$T/sdr-run.json"
	assert_eq "$(jq -c '.psu_sdr | [.status, .source]' "$T/sdr-run.json")" '["ok","sudo"]' "ipmitool through sudo -n"
fi

# LLDP from real lldpd; dmesg signatures.
bringup-probe --root "$T" --lldp-xml "$P/lldp/lldpctl-two-ports.xml" --dmesg "$P/dmesg/kern.log" >"$T/lldp.json"
assert_eq "$(jq -c '[.lldp.status, .lldp.count, (.lldp.neighbors[] | [.local_port, .system_name, .port_id, .port_description])]' "$T/lldp.json")" \
	'["ok",2,["veth-h1","switch01","swp1","uplink to node1"],["veth-h1b","switch01","swp2","swp2"]]' "LLDP neighbours"
assert_eq "$(jq -c '.dmesg.counts' "$T/lldp.json")" \
	'{"pcie_aer":2,"pcie_link_limited":1,"nvme_timeout":1,"nvidia_xid":1,"nvswitch_sxid":0,"thermal_throttle":1}' "dmesg counts"
assert_contains "$(jq -r '.dmesg.matches[] | select(.kind == "pcie_link_limited") | .line' "$T/lldp.json")" "PCIe x4 link at 0000:17:02.0" "limited line"
assert_eq "$(jq -c '[.dmesg.matches[] | select(.kind == "nvidia_xid") | .xid]' "$T/lldp.json")" '[79]' "Xid number"
bringup-probe --root "$T" --lldp-xml "$P/lldp/lldpctl-no-neighbors.xml" --dmesg "$F/hw/h200-vm/dmesg.txt" >"$T/none.json"
assert_eq "$(jq -c '[.lldp.count, .dmesg.count, .dmesg.lines > 300]' "$T/none.json")" '[0,0,true]' "no neighbours, clean dmesg"

# Under --root the node's tools are not run; the section says how to feed them.
assert_eq "$(jq -r '.gpus.status' "$T/nvme.json")" "skipped" "nvidia-smi under --root"
echo ok
