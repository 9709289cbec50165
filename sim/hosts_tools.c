/* What a simulated host's tools print, kept in DIR/hosts/HOSTNAME/.captures/
 * (nvidia-smi.xml, nvidia-smi-nvlink.txt, lldpctl.xml, dmesg.txt,
 * ipmitool-sdr-psu.txt) in the shapes the real tools have (nvidia-smi -q -x
 * of an H200, lldpctl -f xml of lldpd 1.0, ipmitool 1.8's sdr), and the
 * same kernel messages in the tree's var/log/kern.log. LLDP neighbours are
 * the wiring list's, except the cable a fault moved: under cable_swap the
 * port sees the other node's switch port, under cable_unplugged nothing. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hosts_private.h"

#define NVSMI_DRIVER "550.127.05"
#define NVSMI_CUDA "12.4"

/* GPU g's UUID, the same in nvidia-smi -q -x and nvidia-smi nvlink -s. */
static void gpu_uuid(const struct sim_node *n, int g, char out[48])
{
	snprintf(out, 48, "GPU-%08x-%04x-%04x-%04x-%012llx", (unsigned)(0x5a000000u + (unsigned)n->index),
		 (unsigned)(0x1000 + g), 0x4000u, 0x8000u,
		 (unsigned long long)(0x10de00000000ULL + (unsigned long long)n->index * 16 + (unsigned)g));
}

static void nvsmi_gpu(struct br_buf *b, const struct sim_node *n, int g, int minor)
{
	const struct sim_gpu *gpu = &n->gpus[g];
	char bdf[16], port[16], name[32], uuid[48];
	int celsius, gen = sim_node_shape(n)->pcie_gen;
	/* the gpu_* faults, on the GPU each picked */
	int ecc = n->gpu_ecc == g + 1 ? 12 : 0, remap = n->gpu_remap == g + 1, sram = n->gpu_sram == g + 1;
	const char *slow = n->gpu_slowdown == g + 1 ? "Active" : "Not Active";
	const char *vbios = n->gpu_vbios == g + 1 ? SIM_FW_GPU_OS : SIM_FW_GPU;

	sim_host_gpu_bdf(n, g, bdf, port);
	gpu_uuid(n, g, uuid);
	sim_temp_sensor(4 + g, name, sizeof(name), &celsius);
	br_buf_addf(b,
		    "\t<gpu id=\"0000%.12s\">\n"
		    "\t\t<product_name>NVIDIA H200</product_name>\n"
		    "\t\t<product_brand>NVIDIA</product_brand>\n"
		    "\t\t<product_architecture>Hopper</product_architecture>\n"
		    "\t\t<persistence_mode>Enabled</persistence_mode>\n"
		    "\t\t<serial>%s</serial>\n"
		    "\t\t<uuid>%s</uuid>\n"
		    "\t\t<minor_number>%d</minor_number>\n"
		    "\t\t<vbios_version>%s</vbios_version>\n"
		    "\t\t<board_part_number>692-2G520-0280-000</board_part_number>\n"
		    "\t\t<ecc_mode>\n\t\t\t<current_ecc>Enabled</current_ecc>\n"
		    "\t\t\t<pending_ecc>Enabled</pending_ecc>\n\t\t</ecc_mode>\n"
		    "\t\t<ecc_errors>\n\t\t\t<volatile>\n"
		    "\t\t\t\t<sram_correctable>0</sram_correctable>\n"
		    "\t\t\t\t<sram_uncorrectable_parity>0</sram_uncorrectable_parity>\n"
		    "\t\t\t\t<sram_uncorrectable_secded>0</sram_uncorrectable_secded>\n"
		    "\t\t\t\t<dram_correctable>0</dram_correctable>\n"
		    "\t\t\t\t<dram_uncorrectable>%d</dram_uncorrectable>\n"
		    "\t\t\t</volatile>\n\t\t\t<aggregate>\n"
		    "\t\t\t\t<sram_correctable>0</sram_correctable>\n"
		    "\t\t\t\t<sram_uncorrectable_parity>0</sram_uncorrectable_parity>\n"
		    "\t\t\t\t<sram_uncorrectable_secded>0</sram_uncorrectable_secded>\n"
		    "\t\t\t\t<dram_correctable>0</dram_correctable>\n"
		    "\t\t\t\t<dram_uncorrectable>%d</dram_uncorrectable>\n"
		    "\t\t\t\t<sram_threshold_exceeded>%s</sram_threshold_exceeded>\n"
		    "\t\t\t</aggregate>\n\t\t</ecc_errors>\n"
		    "\t\t<retired_pages>\n"
		    "\t\t\t<multiple_single_bit_retirement>\n\t\t\t\t<retired_count>N/A</retired_count>\n"
		    "\t\t\t\t<retired_pagelist>N/A</retired_pagelist>\n"
		    "\t\t\t</multiple_single_bit_retirement>\n"
		    "\t\t\t<double_bit_retirement>\n\t\t\t\t<retired_count>N/A</retired_count>\n"
		    "\t\t\t\t<retired_pagelist>N/A</retired_pagelist>\n\t\t\t</double_bit_retirement>\n"
		    "\t\t\t<pending_retirement>N/A</pending_retirement>\n"
		    "\t\t</retired_pages>\n"
		    "\t\t<remapped_rows>\n\t\t\t<remapped_row_corr>0</remapped_row_corr>\n"
		    "\t\t\t<remapped_row_unc>%d</remapped_row_unc>\n"
		    "\t\t\t<remapped_row_pending>No</remapped_row_pending>\n"
		    "\t\t\t<remapped_row_failure>%s</remapped_row_failure>\n\t\t</remapped_rows>\n",
		    bdf, gpu->serial, uuid, minor, vbios, ecc, ecc, sram ? "Yes" : "No", remap,
		    remap ? "Yes" : "No");
	br_buf_addf(b,
		    "\t\t<pci>\n"
		    "\t\t\t<pci_bus>%02X</pci_bus>\n\t\t\t<pci_device>00</pci_device>\n"
		    "\t\t\t<pci_domain>0000</pci_domain>\n"
		    "\t\t\t<pci_device_id>233510DE</pci_device_id>\n"
		    "\t\t\t<pci_bus_id>0000%.5s%02X:00.0</pci_bus_id>\n"
		    "\t\t\t<pci_sub_system_id>18BF10DE</pci_sub_system_id>\n"
		    "\t\t\t<pci_gpu_link_info>\n\t\t\t\t<pcie_gen>\n"
		    "\t\t\t\t\t<max_link_gen>%d</max_link_gen>\n"
		    "\t\t\t\t\t<current_link_gen>%d</current_link_gen>\n"
		    "\t\t\t\t\t<device_current_link_gen>%d</device_current_link_gen>\n"
		    "\t\t\t\t\t<max_device_link_gen>%d</max_device_link_gen>\n"
		    "\t\t\t\t\t<max_host_link_gen>%d</max_host_link_gen>\n"
		    "\t\t\t\t</pcie_gen>\n\t\t\t\t<link_widths>\n"
		    "\t\t\t\t\t<max_link_width>16x</max_link_width>\n"
		    "\t\t\t\t\t<current_link_width>%dx</current_link_width>\n"
		    "\t\t\t\t</link_widths>\n\t\t\t</pci_gpu_link_info>\n"
		    "\t\t</pci>\n"
		    "\t\t<performance_state>P0</performance_state>\n"
		    "\t\t<clocks_event_reasons>\n"
		    "\t\t\t<clocks_event_reason_gpu_idle>Active"
		    "</clocks_event_reason_gpu_idle>\n"
		    "\t\t\t<clocks_event_reason_applications_clocks_setting>Not Active"
		    "</clocks_event_reason_applications_clocks_setting>\n"
		    "\t\t\t<clocks_event_reason_sw_power_cap>Not Active"
		    "</clocks_event_reason_sw_power_cap>\n"
		    "\t\t\t<clocks_event_reason_hw_slowdown>%s"
		    "</clocks_event_reason_hw_slowdown>\n"
		    "\t\t\t<clocks_event_reason_hw_thermal_slowdown>%s"
		    "</clocks_event_reason_hw_thermal_slowdown>\n"
		    "\t\t\t<clocks_event_reason_hw_power_brake_slowdown>Not Active"
		    "</clocks_event_reason_hw_power_brake_slowdown>\n"
		    "\t\t\t<clocks_event_reason_sync_boost>Not Active"
		    "</clocks_event_reason_sync_boost>\n"
		    "\t\t\t<clocks_event_reason_sw_thermal_slowdown>Not Active"
		    "</clocks_event_reason_sw_thermal_slowdown>\n"
		    "\t\t\t<clocks_event_reason_display_clocks_setting>Not Active"
		    "</clocks_event_reason_display_clocks_setting>\n"
		    "\t\t</clocks_event_reasons>\n"
		    "\t\t<temperature>\n\t\t\t<gpu_temp>%d C</gpu_temp>\n"
		    "\t\t\t<gpu_temp_tlimit>%d C</gpu_temp_tlimit>\n"
		    "\t\t\t<memory_temp>%d C</memory_temp>\n\t\t</temperature>\n"
		    "\t\t<gpu_power_readings>\n\t\t\t<power_state>P0</power_state>\n"
		    "\t\t\t<average_power_draw>118.20 W</average_power_draw>\n"
		    "\t\t\t<instant_power_draw>118.35 W</instant_power_draw>\n"
		    "\t\t\t<current_power_limit>700.00 W</current_power_limit>\n"
		    "\t\t\t<default_power_limit>700.00 W</default_power_limit>\n"
		    "\t\t</gpu_power_readings>\n",
		    gpu->bus, "0000:", gpu->bus, gen, gen, gen, gen, gen, gpu->lanes, slow, slow, celsius,
		    87 - celsius, celsius + 1);
	/* <fabric> as R550 prints it on an HGX baseboard once the fabric
	 * manager has registered the GPU; nvlink_fabric_down's GPU stays
	 * "In Progress" with the rest N/A (NVIDIA/gpu-operator issue 2511
	 * shows one). */
	br_buf_addf(b,
		    "\t\t<fabric>\n\t\t\t<state>%s</state>\n\t\t\t<status>%s</status>\n"
		    "\t\t\t<cliqueId>%s</cliqueId>\n\t\t\t<clusterUuid>%s</clusterUuid>\n"
		    "\t\t\t<health>\n\t\t\t\t<bandwidth>N/A</bandwidth>\n\t\t\t</health>\n"
		    "\t\t</fabric>\n\t</gpu>\n",
		    n->gpu_fabric_down == g + 1 ? "In Progress" : "Completed",
		    n->gpu_fabric_down == g + 1 ? "N/A" : "Success",
		    n->gpu_fabric_down == g + 1 ? "N/A" : "0",
		    n->gpu_fabric_down == g + 1 ? "N/A" : "00000000-0000-0000-0000-000000000000");
}

static void nvidia_smi(struct sim_hw *w, const struct sim_node *n, const char *stamp)
{
	struct br_buf b;
	int count = 0;

	for (int g = 0; g < SIM_GPUS; g++)
		count += n->gpus[g].present;
	br_buf_init(&b, 0);
	br_buf_addf(&b,
		    "<?xml version=\"1.0\" ?>\n"
		    "<!DOCTYPE nvidia_smi_log SYSTEM \"nvsmi_device_v12.dtd\">\n"
		    "<nvidia_smi_log>\n"
		    "\t<timestamp>%s</timestamp>\n"
		    "\t<driver_version>%s</driver_version>\n"
		    "\t<cuda_version>%s</cuda_version>\n"
		    "\t<attached_gpus>%d</attached_gpus>\n",
		    stamp, NVSMI_DRIVER, NVSMI_CUDA, count);
	for (int g = 0, minor = 0; g < SIM_GPUS; g++)
		if (n->gpus[g].present)
			nvsmi_gpu(&b, n, g, minor++);
	br_buf_adds(&b, "</nvidia_smi_log>\n");
	sim_hw_data(w, ".captures/nvidia-smi.xml", br_buf_str(&b), b.len);
	br_buf_release(&b);
}

/* A switch's chassis id: a locally administered MAC from its name. */
/* nvidia-smi nvlink -s of the node's H200 SXMs: 18 NVLinks each at
 * 26.562 GB/s; nvlink_down leaves one GPU's link inactive. */
static void nvlink_status(struct sim_hw *w, const struct sim_node *n)
{
	const json_t *down = json_object_get(n->details, "nvlink_down");
	int down_gpu = (sim_fault_has(&n->faults, SIM_F_NVLINK_DOWN))
			   ? (int)json_integer_value(json_object_get(down, "gpu")) - 1
			   : -1;
	int down_link = (int)json_integer_value(json_object_get(down, "link"));
	struct br_buf b;
	char uuid[48];

	br_buf_init(&b, 0);
	for (int g = 0, index = 0; g < SIM_GPUS; g++) {
		if (!n->gpus[g].present)
			continue;
		gpu_uuid(n, g, uuid);
		br_buf_addf(&b, "GPU %d: NVIDIA H200 (UUID: %s)\n", index++, uuid);
		for (int l = 0; l < SIM_NVLINKS; l++)
			br_buf_addf(&b, "\t Link %d: %s\n", l,
				    g == down_gpu && l == down_link ? "<inactive>" : "26.562 GB/s");
	}
	sim_hw_data(w, ".captures/nvidia-smi-nvlink.txt", br_buf_str(&b), b.len);
	br_buf_release(&b);
}

/* `ipmitool sdr type "Power Supply"` as the node's own BMC answers it
 * in-band: one status sensor per fitted supply and the supplies'
 * redundancy, in the columns and state texts of a real DGX-1's
 * (tests/fixtures/ipmi/sdr-psu-dgx1.out); psu_failed's supply has lost
 * its AC, as two of that machine's had. */
static void sdr_psu(struct sim_hw *w, const struct sim_node *n)
{
	const struct sim_shape *shape = sim_node_shape(n);
	int fitted = shape->psus, failed = 0;
	struct br_buf b;

	br_buf_init(&b, 0);
	for (int p = 0; p < fitted; p++)
		failed += n->psus[p].failed;
	br_buf_addf(&b, "PSU Alert        | 34h | ns  | 208.1 | Event-Only\n");
	br_buf_addf(&b, "PSU Redundancy   | E8h | ok  | 21.1 | %s\n",
		    !failed		   ? "Fully Redundant"
		    : fitted - failed >= 2 ? "Redundancy Degraded from Fully Redundant"
					   : "Redundancy Lost");
	for (int p = 0; p < fitted; p++)
		br_buf_addf(&b, "PSU%d Status      | %02Xh | ok  | 10.%d | Presence detected%s\n", p + 1,
			    0xE0 + p, p + 1, n->psus[p].failed ? ", Power Supply AC lost" : "");
	sim_hw_data(w, ".captures/ipmitool-sdr-psu.txt", br_buf_str(&b), b.len);
	br_buf_release(&b);
}

static void lldp_neighbor(struct br_buf *b, const char *ifname, const char *sw, const char *sw_port)
{
	char mac[18];

	sim_switch_mac(sw, mac);
	br_buf_addf(
	    b,
	    " <interface label=\"Interface\" name=\"%s\" via=\"LLDP\" rid=\"1\" age=\"0 day, 02:11:40\">\n"
	    "  <chassis label=\"Chassis\">\n"
	    "   <id label=\"ChassisID\" type=\"mac\">%s</id>\n"
	    "   <name label=\"SysName\">%s</name>\n"
	    "   <descr label=\"SysDescr\">Cumulus Linux version 5.9.1 running on Nvidia SN5600</descr>\n"
	    "   <capability label=\"Capability\" type=\"Bridge\" enabled=\"on\"/>\n"
	    "   <capability label=\"Capability\" type=\"Router\" enabled=\"on\"/>\n"
	    "  </chassis>\n"
	    "  <port label=\"Port\">\n"
	    "   <id label=\"PortID\" type=\"ifname\">%s</id>\n"
	    "   <descr label=\"PortDescr\">%s</descr>\n"
	    "   <ttl label=\"TTL\">120</ttl>\n"
	    "  </port>\n"
	    " </interface>\n",
	    ifname, mac, sw, sw_port, sw_port);
}

static void lldpctl(struct sim_hw *w, const struct sim_node *n)
{
	struct br_buf b;

	br_buf_init(&b, 0);
	br_buf_adds(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<lldp label=\"LLDP neighbors\">\n");
	for (int k = 0; k < SIM_NICS; k++) {
		const char *sw, *sw_port;

		if (k < SIM_FABRIC_NICS && sim_node_infiniband(n))
			continue; /* LLDP does not run on InfiniBand */
		if (sim_nic_sees(n, k, &sw, &sw_port))
			lldp_neighbor(&b, n->nics[k].ifname, sw, sw_port);
	}
	br_buf_adds(&b, "</lldp>\n");
	sim_hw_data(w, ".captures/lldpctl.xml", br_buf_str(&b), b.len);
	br_buf_release(&b);
}

/* Kernel messages of a clean boot, and pcie_degraded's bandwidth notice
 * (pcie_print_link_status's wording) naming the port that limits it. */
static int unplugged_nic(const struct sim_node *n, const struct sim_nic *nic)
{
	const char *ifname = br_json_str(json_object_get(n->details, "cable_unplugged"), "ifname");

	return (sim_fault_has(&n->faults, SIM_F_CABLE_UNPLUGGED)) && ifname && !strcmp(ifname, nic->ifname);
}

static void kernel_log(struct sim_hw *w, const struct sim_node *n, const char *syslog_stamp)
{
	struct br_buf msgs, dmesg, kern, later;
	const char *line;
	int boot_index = 0;

	br_buf_init(&msgs, 0);
	br_buf_init(&later, 0); /* what the kernel logged after boot */
	br_buf_adds(&msgs,
		    "[    0.000000] Linux version 6.8.0-49-generic (buildd@lcy02-amd64-103) "
		    "(x86_64-linux-gnu-gcc-13 (Ubuntu 13.2.0-23ubuntu4) 13.2.0) #49-Ubuntu SMP "
		    "PREEMPT_DYNAMIC Mon Nov  4 02:06:24 UTC 2024 (Ubuntu 6.8.0-49.49-generic 6.8.12)\n");
	br_buf_addf(&msgs, "[    0.000000] DMI: Dell Inc. PowerEdge XE9680/0NGMK4, BIOS %s 07/15/2024\n",
		    SIM_FW_BIOS);
	for (int g = 0; g < SIM_GPUS; g++) {
		/* pcie_print_link_status: 128b/130b lanes of 16 or 32 GT/s. */
		int gen4 = sim_node_shape(n)->pcie_gen == 4;
		const char *gts = gen4 ? "16.0" : "32.0";
		double x16 = gen4 ? 252.061 : 504.123;
		char bdf[16], port[16];

		if (!n->gpus[g].present)
			continue;
		sim_host_gpu_bdf(n, g, bdf, port);
		br_buf_addf(&msgs, "[    2.%06d] pci %s: [10de:2335] type 00 class 0x030200 PCIe Endpoint\n",
			    100000 + g * 1111, bdf);
		if (n->gpus[g].lanes < 16)
			br_buf_addf(
			    &msgs,
			    "[    2.%06d] pci %s: %.3f Gb/s available PCIe bandwidth, limited by %s GT/s "
			    "PCIe x%d link at %s (capable of %.3f Gb/s with %s GT/s PCIe x16 link)\n",
			    100001 + g * 1111, bdf, x16 * n->gpus[g].lanes / 16, gts, n->gpus[g].lanes, port,
			    x16, gts);
	}
	for (int k = 0; k < SIM_FABRIC_NICS; k++)
		if (n->nics[k].present)
			br_buf_addf(&msgs, "[    4.%06d] mlx5_core 0000:%02x:00.0: firmware version: %s\n",
				    200000 + k * 1313, n->nics[k].bus, n->nics[k].firmware);
	/* / is on the boot drive, which nvme_order names second (hosts.c). */
	for (int d = 0; d < SIM_DATA_DRIVES; d++)
		boot_index |= (sim_fault_has(&n->faults, SIM_F_NVME_ORDER)) && n->drives[d].present;
	br_buf_addf(&msgs,
		    "[    6.402311] EXT4-fs (nvme%dn1p2): mounted filesystem with ordered data mode.\n",
		    boot_index);
	br_buf_adds(
	    &msgs,
	    "[   12.880412] nvidia-nvlink: Nvlink Core is being initialized, major device number 511\n"
	    "[   13.104233] NVRM: loading NVIDIA UNIX Open Kernel Module for x86_64  " NVSMI_DRIVER "\n");
	/* mlx5e's carrier changes (netdev_info: "mlx5_core BUS IFNAME: Link
	 * up"): each cabled port trains once at boot; ib_link_flap's drops
	 * twice later, 45.5 s and 1 s. */
	for (int k = 0; k < SIM_FABRIC_NICS; k++) {
		const char *flap = br_json_str(json_object_get(n->details, "ib_link_flap"), "ifname");

		if (!n->nics[k].present || n->nics[k].ib_down || unplugged_nic(n, &n->nics[k]))
			continue;
		br_buf_addf(&msgs, "[   14.%06d] mlx5_core 0000:%02x:00.0 %s: Link up\n", 400000 + k * 1717,
			    n->nics[k].bus, n->nics[k].ifname);
		if (flap && !strcmp(flap, n->nics[k].ifname))
			br_buf_addf(&later,
				    "[  600.%06d] mlx5_core 0000:%02x:00.0 %s: Link down\n"
				    "[  645.%06d] mlx5_core 0000:%02x:00.0 %s: Link up\n"
				    "[  900.%06d] mlx5_core 0000:%02x:00.0 %s: Link down\n"
				    "[  901.%06d] mlx5_core 0000:%02x:00.0 %s: Link up\n",
				    0, n->nics[k].bus, n->nics[k].ifname, 500000, n->nics[k].bus,
				    n->nics[k].ifname, 0, n->nics[k].bus, n->nics[k].ifname, 0,
				    n->nics[k].bus, n->nics[k].ifname);
	}
	if (sim_fault_has(&n->faults, SIM_F_NVSWITCH_SXID))
		br_buf_adds(&later,
			    "[  733.118201] nvidia-nvswitch1: SXid (PCI:0000:84:00.0): 12028, Fatal, "
			    "Link 32 egress non-posted PRIV error (First)\n"
			    "[  733.118230] nvidia-nvswitch1: SXid (PCI:0000:84:00.0): 12028, Severity 1 "
			    "Engine instance 32 Sub-engine instance 00\n");
	br_buf_adds(&msgs, br_buf_str(&later));
	br_buf_release(&later);
	br_buf_init(&dmesg, 0);
	br_buf_init(&kern, 0);
	line = br_buf_str(&msgs);
	while (*line) {
		const char *nl = strchr(line, '\n');
		int len = (int)(nl - line);

		br_buf_addf(&dmesg, "%.*s\n", len, line);
		br_buf_addf(&kern, "%s %s kernel: %.*s\n", syslog_stamp, n->hostname, len, line);
		line = nl + 1;
	}
	sim_hw_data(w, ".captures/dmesg.txt", br_buf_str(&dmesg), dmesg.len);
	sim_hw_data(w, "var/log/kern.log", br_buf_str(&kern), kern.len);
	br_buf_release(&kern);
	br_buf_release(&dmesg);
	br_buf_release(&msgs);
}

void sim_host_captures(struct sim_hw *w, const struct sim_node *n)
{
	time_t now = time(NULL);
	struct tm tm;
	char stamp[40], syslog_stamp[24];

	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%a %b %e %H:%M:%S %Y", &tm);
	strftime(syslog_stamp, sizeof(syslog_stamp), "%b %e %H:%M:%S", &tm);
	nvidia_smi(w, n, stamp);
	nvlink_status(w, n);
	sdr_psu(w, n);
	lldpctl(w, n);
	kernel_log(w, n, syslog_stamp);
	sim_host_active_captures(w, n);
}
