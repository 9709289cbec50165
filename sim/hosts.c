/*
 * Simulated hosts: for each node, DIR/hosts/HOSTNAME/ is the sysfs/procfs
 * tree (and DIR/hosts/HOSTNAME/.captures/ the tool outputs) bringup-probe
 * would read on that machine, derived from the same node model the BMC
 * answers from, so the OS side and the BMC side agree: the same serials and
 * MACs, the same GPU, NIC and NVMe counts, the same link widths. Host-side
 * faults show here: the kernel's drive order (nvme_order; / stays on the
 * boot drive, which was installed by serial), capped cores, a bogus sensor
 * with the fans at full speed, the RTC off by the node's skew.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "hosts_private.h"

#define HOST_CPUS 8 /* cores shown: enough for a per-core check, cheap to write */
#define HOST_CPU_CAP_KHZ 2000000
#define HOST_FAN_RPM_MAX 18000 /* as the BMC's fan table tops out */
#define HOST_SECTOR_BYTES 512

long sim_host_skew_s(const struct sim_node *n)
{
	json_t *skew = json_object_get(json_object_get(n->details, "clock_skew"), "offset_s");

	return (sim_fault_has(&n->faults, SIM_F_CLOCK_SKEW)) && json_is_integer(skew)
		   ? (long)json_integer_value(skew)
		   : 0;
}

/* /proc/modules as the kernel prints it: the NVIDIA driver with its
 * peer-memory client (GPUDirect RDMA), which peermem_missing leaves out,
 * and the mlx5 RDMA stack. */
static void modules(struct sim_hw *w, const struct sim_node *n)
{
	int peermem = !(sim_fault_has(&n->faults, SIM_F_PEERMEM_MISSING));

	sim_hw_put(w, "proc/modules",
		   "%s"
		   "nvidia_uvm 4956160 4 - Live 0x0000000000000000 (OE)\n"
		   "nvidia 54173696 95 %snvidia_uvm, Live 0x0000000000000000 (OE)\n"
		   "mlx5_ib 483328 0 - Live 0x0000000000000000\n"
		   "ib_uverbs 184320 %d %smlx5_ib, Live 0x0000000000000000\n"
		   "ib_core 454656 2 ib_uverbs,mlx5_ib, Live 0x0000000000000000\n"
		   "mlx5_core 2080768 1 mlx5_ib, Live 0x0000000000000000\n"
		   "nvme 53248 3 - Live 0x0000000000000000\n",
		   peermem ? "nvidia_peermem 16384 0 - Live 0x0000000000000000 (OE)\n" : "",
		   peermem ? "nvidia_peermem," : "", peermem ? 2 : 1, peermem ? "nvidia_peermem," : "");
}

static void identity(struct sim_hw *w, const struct sim_node *n)
{
	sim_hw_put(w, "proc/sys/kernel/hostname", "%s", n->hostname);
	sim_hw_put(w, "proc/sys/kernel/osrelease", "6.8.0-49-generic");
	modules(w, n);
	sim_hw_put(w, "sys/class/dmi/id/product_name", "PowerEdge XE9680");
	sim_hw_put(w, "sys/class/dmi/id/sys_vendor", "Dell Inc.");
	sim_hw_put(w, "sys/class/dmi/id/board_vendor", "Dell Inc.");
	sim_hw_put(w, "sys/class/dmi/id/product_serial", "%s", n->service_tag);
	sim_hw_put(w, "sys/class/dmi/id/product_uuid", "%s", n->uuid);
	sim_hw_put(w, "sys/class/dmi/id/bios_version", "%s", SIM_FW_BIOS);
	sim_hw_put(w, "sys/class/rtc/rtc0/name", "rtc_cmos rtc_cmos");
	sim_hw_put(w, "sys/class/rtc/rtc0/hctosys", "1");
	/* since_epoch, date and time: sim_hosts_rtc_tick, from now on each second */
}

/* A real RTC ticks: rtc_cmos's since_epoch, date and time read the
 * clock at each read. Files cannot, so the simulator rewrites them as each
 * second begins (a thread of the first process), each by a rename so a reader never
 * sees half a value, at the node's skew. Done in each sshd session
 * (a date and mv per file, plus a ticker forking them every 0.2 s while the
 * probe ran), it was half of a 64-host validation's CPU, and on a loaded
 * machine the ticker still fell 2 s behind: a clean node failed its RTC
 * check. */
static int rtc_write(const char *rtc, const char *name, const char *value, struct br_err *err)
{
	char *path = br_xasprintf("%s/%s", rtc, name);
	int rc = br_write_file(path, value, strlen(value), err);

	free(path);
	return rc;
}

int sim_hosts_rtc_tick(const struct sim_rack *rack, const char *dir, struct br_err *err)
{
	time_t now = time(NULL);
	int rc = 0;

	for (size_t i = 0; i < rack->n && !rc; i++) {
		const struct sim_node *n = &rack->nodes[i];
		char *rtc = br_xasprintf("%s/hosts/%s/sys/class/rtc/rtc0", dir, n->hostname);
		time_t t = now + (time_t)sim_host_skew_s(n);
		char epoch[32], day[16], clock[16];
		struct tm tm;

		gmtime_r(&t, &tm);
		snprintf(epoch, sizeof(epoch), "%lld\n", (long long)t);
		strftime(day, sizeof(day), "%Y-%m-%d\n", &tm);
		strftime(clock, sizeof(clock), "%H:%M:%S\n", &tm);
		rc = rtc_write(rtc, "since_epoch", epoch, err);
		if (!rc)
			rc = rtc_write(rtc, "date", day, err);
		if (!rc)
			rc = rtc_write(rtc, "time", clock, err);
		free(rtc);
	}
	return rc;
}

/* cpufreq_capped: two cores held at 2 GHz by scaling_max_freq, as seen in
 * the field; the rest run to the rated turbo. */
static void cpus(struct sim_hw *w, const struct sim_node *n)
{
	int capped = (sim_fault_has(&n->faults, SIM_F_CPUFREQ_CAPPED)) != 0;
	struct br_buf info;

	br_buf_init(&info, 0);
	for (int c = 0; c < HOST_CPUS; c++) {
		char *dir = br_xasprintf("sys/devices/system/cpu/cpu%d/cpufreq", c), *rel;
		int top = sim_node_shape(n)->cpu_host_khz;
		int max = capped && (c == 2 || c == 6) ? HOST_CPU_CAP_KHZ : top;
		int cur = max < 3000000 ? max : 3000000 + 100000 * c;

		br_buf_addf(&info,
			    "processor\t: %d\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 143\n"
			    "model name\t: Intel(R) Xeon(R) Platinum 8480+\ncpu MHz\t\t: 2000.000\n"
			    "physical id\t: %d\ncore id\t\t: %d\n\n",
			    c, c / (HOST_CPUS / 2), c % (HOST_CPUS / 2));
#define ATTR(name, ...)                                                                                      \
	rel = br_xasprintf("%s/" name, dir);                                                                 \
	sim_hw_put(w, rel, __VA_ARGS__);                                                                     \
	free(rel)
		ATTR("scaling_governor", "performance");
		ATTR("scaling_driver", "intel_pstate");
		ATTR("scaling_max_freq", "%d", max);
		ATTR("scaling_min_freq", "%d", 800000);
		ATTR("cpuinfo_max_freq", "%d", top);
		ATTR("cpuinfo_min_freq", "%d", 800000);
		ATTR("scaling_cur_freq", "%d", cur < max ? cur : max);
#undef ATTR
		free(dir);
	}
	sim_hw_data(w, "proc/cpuinfo", br_buf_str(&info), info.len);
	br_buf_release(&info);
	sim_hw_put(w, "sys/devices/system/cpu/online", "0-%d", HOST_CPUS - 1);
	sim_hw_put(w, "sys/devices/system/cpu/intel_pstate/status", "active");
	sim_hw_put(w, "sys/devices/system/cpu/intel_pstate/no_turbo", "0");
	sim_hw_put(w, "sys/devices/system/cpu/intel_pstate/max_perf_pct", "100");
	sim_hw_put(w, "sys/devices/system/cpu/intel_pstate/min_perf_pct", "21");
}

static void hwmon_link(struct sim_hw *w, int index, const char *device)
{
	char *rel = br_xasprintf("sys/class/hwmon/hwmon%d", index);
	char *target = br_xasprintf("../../devices/%s/hwmon/hwmon%d", device, index);

	sim_hw_link(w, rel, target);
	free(target);
	free(rel);
}

/* The CPU packages through coretemp, and the board's sensors and fans as
 * the BMC names them (dell-smm-style hwmon): the reading the BMC calls
 * bogus is bogus here too, and the fans run at their maximum. */
static void thermal(struct sim_hw *w, const struct sim_node *n)
{
	int bogus = (sim_fault_has(&n->faults, SIM_F_THERMAL_BOGUS)) != 0;
	const char *board = "platform/dell_smm_hwmon";
	char name[32], *rel;
	int celsius;

	for (int s = 0; s < 2; s++) {
		char *dev = br_xasprintf("platform/coretemp.%d", s);

		sim_temp_sensor(2 + s, name, sizeof(name), &celsius);
		rel = br_xasprintf("sys/devices/%s/hwmon/hwmon%d/", dev, s);
		{
			char *f = br_xasprintf("%sname", rel);

			sim_hw_put(w, f, "coretemp");
			free(f);
			f = br_xasprintf("%stemp1_label", rel);
			sim_hw_put(w, f, "Package id %d", s);
			free(f);
			f = br_xasprintf("%stemp1_input", rel);
			sim_hw_put(w, f, "%d", celsius * 1000);
			free(f);
			f = br_xasprintf("%stemp1_crit", rel);
			sim_hw_put(w, f, "%d", 100000);
			free(f);
		}
		free(rel);
		hwmon_link(w, s, dev);
		free(dev);
	}
	sim_hw_put(w, "sys/devices/platform/dell_smm_hwmon/hwmon/hwmon2/name", "dell_smm");
	for (int i = 0; i < sim_node_temps(n); i++) {
		sim_temp_sensor(i, name, sizeof(name), &celsius);
		if (bogus && i == n->bogus_sensor)
			celsius = i % 2 ? 255 : -128;
		rel = br_xasprintf("sys/devices/%s/hwmon/hwmon2/temp%d_label", board, i + 1);
		sim_hw_put(w, rel, "%s", name);
		free(rel);
		rel = br_xasprintf("sys/devices/%s/hwmon/hwmon2/temp%d_input", board, i + 1);
		sim_hw_put(w, rel, "%d", celsius * 1000);
		free(rel);
	}
	for (int i = 0; i < sim_node_shape(n)->fans; i++) {
		rel = br_xasprintf("sys/devices/%s/hwmon/hwmon2/fan%d_label", board, i + 1);
		sim_hw_put(w, rel, "System Board Fan%d%c", i / 2 + 1, 'A' + i % 2);
		free(rel);
		rel = br_xasprintf("sys/devices/%s/hwmon/hwmon2/fan%d_input", board, i + 1);
		sim_hw_put(w, rel, "%d",
			   n->failed_fan == i + 1 ? 0
			   : bogus		  ? HOST_FAN_RPM_MAX
						  : 7800 + 120 * ((n->index + i) % 7));
		free(rel);
		rel = br_xasprintf("sys/devices/%s/hwmon/hwmon2/fan%d_max", board, i + 1);
		sim_hw_put(w, rel, "%d", HOST_FAN_RPM_MAX);
		free(rel);
	}
	hwmon_link(w, 2, board);
	sim_temp_sensor(2, name, sizeof(name), &celsius);
	sim_hw_put(w, "sys/devices/virtual/thermal/thermal_zone0/type", "x86_pkg_temp");
	sim_hw_put(w, "sys/devices/virtual/thermal/thermal_zone0/temp", "%d", celsius * 1000);
	sim_hw_link(w, "sys/class/thermal/thermal_zone0", "../../devices/virtual/thermal/thermal_zone0");
}

/* RoCE GID 0 and the node GUID are the MAC as a modified EUI-64. */
static void eui64(const char *mac, char out[20])
{
	unsigned b[6] = { 0 };

	sscanf(mac, "%x:%x:%x:%x:%x:%x", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5]);
	snprintf(out, 20, "%02x%02x:%02xff:fe%02x:%02x%02x", b[0] ^ 2u, b[1], b[2], b[3], b[4], b[5]);
}

static int unplugged(const struct sim_node *n, const struct sim_nic *nic)
{
	const char *ifname =
	    json_string_value(json_object_get(json_object_get(n->details, "cable_unplugged"), "ifname"));

	return (sim_fault_has(&n->faults, SIM_F_CABLE_UNPLUGGED)) && ifname && !strcmp(ifname, nic->ifname);
}

/* Net interfaces for every present NIC; an RDMA device per ConnectX-7,
 * whose port is down when its cable is unplugged or it has ib_port_down,
 * at 200 Gb/s with ib_rate. Its error counters are a clean link's. */
static void network(struct sim_hw *w, const struct sim_node *n)
{
	int ib = 0, infiniband = sim_node_infiniband(n);

	for (int k = 0; k < SIM_NICS; k++) {
		const struct sim_nic *nic = &n->nics[k];
		char bdf[16], port[16], guid[20], *rel, *dir, *target;
		int down = unplugged(n, nic), ib_down = down || nic->ib_down;
		static const char *const counters[] = { "link_downed", "link_error_recovery", "symbol_error",
							"port_rcv_errors" };

		if (!nic->present)
			continue;
		sim_host_nic_bdf(n, k, bdf, port);
		dir = br_xasprintf("sys/class/net/%s", nic->ifname);
		rel = br_xasprintf("%s/address", dir);
		sim_hw_put(w, rel, "%s", nic->mac);
		free(rel);
		rel = br_xasprintf("%s/operstate", dir);
		sim_hw_put(w, rel, "%s", down ? "down" : "up");
		free(rel);
		rel = br_xasprintf("%s/device", dir);
		target = br_xasprintf("../../../bus/pci/devices/%s", bdf);
		sim_hw_link(w, rel, target);
		free(target);
		free(rel);
		free(dir);
		if (k >= SIM_FABRIC_NICS)
			continue;
		eui64(nic->mac, guid);
		dir = br_xasprintf("sys/class/infiniband/mlx5_%d", ib++);
#define ATTR(name, ...)                                                                                      \
	rel = br_xasprintf("%s/" name, dir);                                                                 \
	sim_hw_put(w, rel, __VA_ARGS__);                                                                     \
	free(rel)
		ATTR("node_guid", "%s", guid);
		ATTR("sys_image_guid", "%s", guid);
		ATTR("fw_ver", "%s", nic->firmware);
		ATTR("board_id", "DEL0000000031");
		ATTR("hca_type", "MT4129");
		ATTR("ports/1/state", "%s", ib_down ? "1: DOWN" : "4: ACTIVE");
		/* With the cable in, a port that cannot train keeps polling. */
		ATTR("ports/1/phys_state", "%s", down ? "3: Disabled" : ib_down ? "2: Polling" : "5: LinkUp");
		ATTR("ports/1/rate", "%s",
		     ib_down			? "10 Gb/sec (4X SDR)"
		     : nic->ib_rate_gbps == 200 ? "200 Gb/sec (4X HDR)"
						: "400 Gb/sec (4X NDR)");
		for (size_t c = 0; c < sizeof(counters) / sizeof(counters[0]); c++) {
			rel = br_xasprintf("%s/ports/1/counters/%s", dir, counters[c]);
			sim_hw_put(w, rel, "0");
			free(rel);
		}
		rel = br_xasprintf("%s/device", dir);
		target = br_xasprintf("../../../bus/pci/devices/%s", bdf);
		sim_hw_link(w, rel, target);
		free(target);
		free(rel);
		/* On InfiniBand the subnet manager gives the port a LID (the
		 * SM's own is 1); RoCE ports have none. */
		ATTR("ports/1/lid", "0x%x",
		     infiniband && !ib_down ? 0x100 + n->index * SIM_FABRIC_NICS + k : 0);
		ATTR("ports/1/sm_lid", "0x%x", infiniband && !ib_down ? 1 : 0);
		ATTR("ports/1/link_layer", "%s", infiniband ? "InfiniBand" : "Ethernet");
		ATTR("ports/1/gids/0", "fe80:0000:0000:0000:%s", guid);
#undef ATTR
		free(dir);
	}
}

/* One NVMe controller (kernel name nvmeI) with its namespace nvmeIn1;
 * the boot drive also has its two partitions. */
static void nvme(struct sim_hw *w, const struct sim_drive *v, int drive, int index, int *minor, int boot,
		 char root_dev[16])
{
	char *pci = sim_host_drive_dir(drive);
	char *ctrl = br_xasprintf("%s/nvme/nvme%d", pci, index);
	char *disk = br_xasprintf("%s/nvme%dn1", ctrl, index);
	char *rel, *target;

#define ATTR(base, name, ...)                                                                                \
	rel = br_xasprintf("%s/" name, base);                                                                \
	sim_hw_put(w, rel, __VA_ARGS__);                                                                     \
	free(rel)
	ATTR(ctrl, "serial", "%-20s", v->serial);
	ATTR(ctrl, "model", "%-40s", v->model);
	ATTR(ctrl, "firmware_rev", "%-8s", v->firmware);
	ATTR(ctrl, "address", "%s", strrchr(pci, '/') + 1);
	ATTR(ctrl, "transport", "pcie");
	ATTR(ctrl, "state", "live");
	ATTR(disk, "dev", "259:%d", (*minor)++);
	ATTR(disk, "size", "%llu", (unsigned long long)(v->capacity_bytes / HOST_SECTOR_BYTES));
	ATTR(disk, "removable", "0");
	ATTR(disk, "queue/rotational", "0");
	ATTR(disk, "wwid", "eui.%.16s", v->serial);
	rel = br_xasprintf("%s/device", disk);
	target = br_xasprintf("../../nvme%d", index);
	sim_hw_link(w, rel, target);
	free(target);
	free(rel);
	rel = br_xasprintf("sys/class/nvme/nvme%d", index);
	target = br_xasprintf("../../%s", ctrl + 4);
	sim_hw_link(w, rel, target);
	free(target);
	free(rel);
	rel = br_xasprintf("sys/block/nvme%dn1", index);
	target = br_xasprintf("../%s", disk + 4);
	sim_hw_link(w, rel, target);
	free(rel);
	rel = br_xasprintf("sys/class/block/nvme%dn1", index);
	free(target);
	target = br_xasprintf("../../%s", disk + 4);
	sim_hw_link(w, rel, target);
	free(target);
	free(rel);
	for (int p = 1; boot && p <= 2; p++) {
		char *part = br_xasprintf("%s/nvme%dn1p%d", disk, index, p);

		ATTR(part, "partition", "%d", p);
		ATTR(part, "dev", "259:%d", *minor);
		if (p == 2)
			snprintf(root_dev, 16, "259:%d", *minor);
		rel = br_xasprintf("sys/class/block/nvme%dn1p%d", index, p);
		target = br_xasprintf("../../%s", part + 4);
		sim_hw_link(w, rel, target);
		free(target);
		free(rel);
		rel = br_xasprintf("sys/dev/block/259:%d", (*minor)++);
		target = br_xasprintf("../../%s", part + 4);
		sim_hw_link(w, rel, target);
		free(target);
		free(rel);
		free(part);
	}
#undef ATTR
	free(disk);
	free(ctrl);
	free(pci);
}

/* Kernel names follow probe order, as MAAS sees them (maas_rack.c): the
 * boot drive first, unless nvme_order put a data drive ahead of it. / is
 * on the boot drive's second partition either way. */
static void storage(struct sim_hw *w, const struct sim_node *n)
{
	int order[1 + SIM_DATA_DRIVES], count = 0, minor = 0, boot_index = 0;
	char root_dev[16] = "";
	struct sim_drive boot;

	order[count++] = -1;
	for (int d = 0; d < SIM_DATA_DRIVES; d++)
		if (n->drives[d].present)
			order[count++] = d;
	if ((sim_fault_has(&n->faults, SIM_F_NVME_ORDER)) && count > 1) {
		order[0] = order[1];
		order[1] = -1;
	}
	/* Under boss_raid1 the OS sees the BOSS volume where the boot drive
	 * was: one NVMe controller with the volume's serial, never the M.2
	 * drives' (sim_node_os_boot_disk). */
	sim_node_os_boot_disk(n, &boot);
	for (int i = 0; i < count; i++) {
		int d = order[i];

		if (d < 0)
			boot_index = i;
		nvme(w, d < 0 ? &boot : &n->drives[d], d, i, &minor, d < 0, root_dev);
	}
	{
		char *info = br_xasprintf(
		    "22 28 0:21 / /sys rw,nosuid,nodev,noexec,relatime shared:7 - sysfs sysfs rw\n"
		    "23 28 0:22 / /proc rw,nosuid,nodev,noexec,relatime shared:12 - proc proc rw\n"
		    "28 1 %s / / rw,relatime shared:1 - ext4 /dev/nvme%dn1p2 rw\n",
		    root_dev, boot_index);

		sim_hw_data(w, "proc/self/mountinfo", info, strlen(info));
		free(info);
	}
}

static int host_write(const struct sim_node *n, const char *dir, struct sim_hw_share *share,
		      struct br_err *err)
{
	char *root = br_xasprintf("%s/%s", dir, n->hostname);
	struct sim_hw w;
	int rc;

	if (mkdir(root, 0755)) {
		rc = br_errf(err, BR_E_IO, "%s: %s", root, strerror(errno));
		free(root);
		return rc;
	}
	sim_hw_init(&w, root, share, err);
	identity(&w, n);
	sim_host_pci(&w, n);
	cpus(&w, n);
	thermal(&w, n);
	network(&w, n);
	storage(&w, n);
	sim_host_captures(&w, n);
	rc = w.rc;
	sim_hw_release(&w);
	free(root);
	return rc;
}

int sim_host_write(const struct sim_node *n, const char *dir, struct br_err *err)
{
	return host_write(n, dir, NULL, err);
}

int sim_hosts_write(const struct sim_rack *rack, const char *dir, struct br_err *err)
{
	char *hosts = br_xasprintf("%s/hosts", dir);
	struct sim_hw_share share = { 0 };
	int rc = sim_hw_remove_tree(hosts, err); /* what an earlier run left */

	if (!rc && mkdir(hosts, 0755))
		rc = br_errf(err, BR_E_IO, "%s: %s", hosts, strerror(errno));
	for (size_t i = 0; i < rack->n && !rc; i++)
		rc = host_write(&rack->nodes[i], hosts, &share, err);
	sim_hw_share_release(&share);
	free(hosts);
	return rc;
}
