/*
 * Faults: their names (docs/simulator.md's, stable: truth.json and tickets use
 * them), --faults parsing, and putting them on nodes chosen by the seed.
 * A fault changes the node model here; the BMC code shows whatever the
 * model says, and host-side faults only leave a record for truth.json.
 */
#include <stdlib.h>
#include <string.h>

#include "sim.h"

#define FAULTS_MAX_COUNT 100000

static const char *const fault_names[SIM_F_COUNT] = {
	[SIM_F_BMC_DOWN] = "bmc_down",
	[SIM_F_BMC_AUTH] = "bmc_auth",
	[SIM_F_BMC_FLAKY] = "bmc_flaky",
	[SIM_F_PSU_FAILED] = "psu_failed",
	[SIM_F_BIOS_DRIFT] = "bios_drift",
	[SIM_F_FW_OUTDATED] = "fw_outdated",
	[SIM_F_NIC_MISSING] = "nic_missing",
	[SIM_F_GPU_MISSING] = "gpu_missing",
	[SIM_F_PCIE_DEGRADED] = "pcie_degraded",
	[SIM_F_NVME_ORDER] = "nvme_order",
	[SIM_F_NVME_MISSING] = "nvme_missing",
	[SIM_F_CABLE_SWAP] = "cable_swap",
	[SIM_F_CABLE_UNPLUGGED] = "cable_unplugged",
	[SIM_F_THERMAL_BOGUS] = "thermal_bogus",
	[SIM_F_CPUFREQ_CAPPED] = "cpufreq_capped",
	[SIM_F_CLOCK_SKEW] = "clock_skew",
	[SIM_F_COMMISSION_FAIL] = "commission_fail",
	[SIM_F_BAD_JSON] = "bad_json",
	[SIM_F_BAD_TYPES] = "bad_types",
	[SIM_F_HUGE_COLLECTION] = "huge_collection",
	[SIM_F_HUGE_BODY] = "huge_body",
	[SIM_F_HANG] = "hang",
	[SIM_F_BIOS_JOB_FAIL] = "bios_job_fail",
	[SIM_F_GRACEFUL_IGNORED] = "graceful_ignored",
	[SIM_F_BOOT_SETTINGS] = "boot_settings",
	[SIM_F_BOOT_SETTINGS_DRIFT] = "boot_settings_drift",
	[SIM_F_MAC_CLONE] = "mac_clone",
	[SIM_F_HUGE_SERIAL] = "huge_serial",
	[SIM_F_CONTROL_CHARS] = "control_chars",
	[SIM_F_MAAS_ECHO] = "maas_echo",
	[SIM_F_MAAS_TEST_FAIL] = "maas_test_fail",
	[SIM_F_SESSIONS_FULL] = "sessions_full",
	[SIM_F_TARPIT] = "tarpit",
	[SIM_F_SLOW_JOB] = "slow_job",
	[SIM_F_MEMBERS_FLOOD] = "members_flood",
	[SIM_F_NO_HOST_MAC] = "no_host_mac",
	[SIM_F_BAD_LINKS] = "bad_links",
	[SIM_F_ENDLESS_BODY] = "endless_body",
	[SIM_F_REDIRECT] = "redirect",
	[SIM_F_TOKEN_REVOKED] = "token_revoked",
	[SIM_F_SESSION_NO_TOKEN] = "session_no_token",
	[SIM_F_SESSION_NO_LOCATION] = "session_no_location",
	[SIM_F_SESSION_CONTEXT_REFUSED] = "session_context_refused",
	[SIM_F_DEEP_EXPAND] = "deep_expand",
	[SIM_F_BOSS_RAID1] = "boss_raid1",
	[SIM_F_BOSS_UNMATCHED] = "boss_unmatched",
	[SIM_F_MAAS_DELETED_AT_TAG] = "maas_deleted_at_tag",
	[SIM_F_SERIAL_MISMATCH] = "serial_mismatch",
	[SIM_F_LOGS_MISSING] = "logs_missing",
	[SIM_F_FW_INVENTORY_MISSING] = "fw_inventory_missing",
	[SIM_F_USB_BOOT_OPTION] = "usb_boot_option",
	[SIM_F_TWO_HOSTS] = "two_hosts",
	[SIM_F_IB_PORT_DOWN] = "ib_port_down",
	[SIM_F_IB_RATE] = "ib_rate",
	[SIM_F_NVLINK_DOWN] = "nvlink_down",
	[SIM_F_PEERMEM_MISSING] = "peermem_missing",
	[SIM_F_FAN_FAILED] = "fan_failed",
	[SIM_F_GPU_ECC] = "gpu_ecc",
	[SIM_F_GPU_ROW_REMAP] = "gpu_row_remap",
	[SIM_F_GPU_SLOWDOWN] = "gpu_slowdown",
	[SIM_F_GPU_SRAM_THRESHOLD] = "gpu_sram_threshold",
	[SIM_F_IB_FABRIC_SPLIT] = "ib_fabric_split",
	[SIM_F_IB_LINK_FLAP] = "ib_link_flap",
	[SIM_F_PXE_UNPLUGGED] = "pxe_unplugged",
	[SIM_F_CABLE_WRONG_SWITCH] = "cable_wrong_switch",
	[SIM_F_CONNVIEW_STALE] = "connview_stale",
	[SIM_F_CONNVIEW_STUCK] = "connview_stuck",
	[SIM_F_FW_STALE] = "fw_stale",
	[SIM_F_FW_UPDATE_FAIL] = "fw_update_fail",
	[SIM_F_FW_IMAGE_REFUSED] = "fw_image_refused",
	[SIM_F_FW_BMC_SLOW] = "fw_bmc_slow",
	[SIM_F_FW_NO_MULTIPART] = "fw_no_multipart",
	[SIM_F_FW_DELL_JOB] = "fw_dell_job",
	[SIM_F_FW_APPLY_ON_RESET] = "fw_apply_on_reset",
	[SIM_F_COMMISSION_HANG] = "commission_hang",
	[SIM_F_PASSWORD_CHANGE_REQUIRED] = "password_change_required",
	[SIM_F_PASSWORD_REFUSED] = "password_refused",
	[SIM_F_NVLINK_FABRIC_DOWN] = "nvlink_fabric_down",
	[SIM_F_NVSWITCH_SXID] = "nvswitch_sxid",
	[SIM_F_DCGM_DIAG_FAIL] = "dcgm_diag_fail",
	[SIM_F_DCGMI_MISSING] = "dcgmi_missing",
	[SIM_F_RDMA_BW_LOW] = "rdma_bw_low",
	[SIM_F_MAAS_UPDATE_FAIL] = "maas_update_fail",
	[SIM_F_GPU_VBIOS_MISMATCH] = "gpu_vbios_mismatch",
};

/* BIOS attributes bios_drift may change, and the value a drifted node has. */
static const char *const drift[][2] = {
	{ "SysProfile", "PerfPerWattOptimizedDapc" },
	{ "LogicalProc", "Disabled" },
	{ "ProcCStates", "Enabled" },
	{ "SriovGlobalEnable", "Disabled" },
	{ "ProcVirtualization", "Disabled" },
	{ "MemOpMode", "FaultResilientMode" },
};

const char *sim_fault_name(enum sim_fault f)
{
	return (unsigned)f < SIM_F_COUNT ? fault_names[f] : "?";
}

int sim_fault_parse(const char *name, enum sim_fault *ret_fault)
{
	for (int f = 0; f < SIM_F_COUNT; f++)
		if (!strcmp(name, fault_names[f])) {
			*ret_fault = (enum sim_fault)f;
			return 0;
		}
	return BR_E_INVAL;
}

int sim_faults_parse(const char *spec, struct sim_fault_request **ret, size_t *ret_n, struct br_err *err)
{
	char *copy = br_xstrdup(spec), *item = copy;
	int rc = 0;

	while (item && *item) {
		char *comma = strchr(item, ','), *colon;
		struct sim_fault_request req = { .count = 1 };
		long count;

		if (comma)
			*comma = '\0';
		colon = strchr(item, ':');
		if (colon)
			*colon = '\0';
		if (sim_fault_parse(item, &req.fault)) {
			rc = br_errf(err, BR_E_INVAL, "--faults: unknown fault '%s'", item);
			break;
		}
		if (colon) {
			if (br_parse_long(colon + 1, 1, FAULTS_MAX_COUNT, &count)) {
				rc = br_errf(err, BR_E_INVAL, "--faults: %s: count '%s' is not 1..%d", item,
					     colon + 1, FAULTS_MAX_COUNT);
				break;
			}
			req.count = (int)count;
		}
		*ret = br_xrealloc(*ret, (*ret_n + 1) * sizeof(**ret));
		(*ret)[(*ret_n)++] = req;
		item = comma ? comma + 1 : NULL;
	}
	free(copy);
	return rc;
}

static void detail(struct sim_node *n, enum sim_fault f, json_t *obj)
{
	json_object_set_new(n->details, sim_fault_name(f), obj ? obj : json_object());
}

/* The boot disk ahead of PXE, as on a node installed by hand before. */
static void disk_first(struct sim_node *n)
{
	snprintf(n->st.boot_order[0], sizeof(n->st.boot_order[0]), "Disk.Direct.0-0:BOSS.SL.14-1");
	snprintf(n->st.boot_order[1], sizeof(n->st.boot_order[1]), "NIC.PxeDevice.1-1");
}

/* Some attributes off baseline, and the disk ahead of PXE in the boot
 * order, as on a node that was installed by hand before; recorded under f. */
static void apply_bios_drift(struct sim_node *n, enum sim_fault f, uint64_t *rng)
{
	size_t ndrift = sizeof(drift) / sizeof(drift[0]);
	size_t first = sim_rng_below(rng, ndrift), count = 2 + sim_rng_below(rng, 2);
	json_t *changed = json_object();

	for (size_t i = 0; i < count; i++) {
		const char *const *d = drift[(first + i) % ndrift];

		json_object_set_new(n->st.bios, d[0], json_string(d[1]));
		json_object_set_new(changed, d[0], json_string(d[1]));
	}
	disk_first(n);
	detail(n, f,
	       json_pack("{s:o, s:[s, s, s]}", "attributes", changed, "boot_order", n->st.boot_order[0],
			 n->st.boot_order[1], n->st.boot_order[2]));
}

/* The lower of two nodes' counts: a part both fit (--vendor mixed racks
 * pair different machines). */
static int both(int a, int b)
{
	return a < b ? a : b;
}

static void apply_cable_swap(struct sim_node *a, struct sim_node *b, uint64_t *rng)
{
	int k = (int)sim_rng_below(
	    rng, (uint64_t)both(sim_node_shape(a)->fabric_nics, sim_node_shape(b)->fabric_nics));

	/* The wiring list keeps the design; the cables went to each other's port. */
	detail(a, SIM_F_CABLE_SWAP,
	       json_pack("{s:s, s:s, s:s, s:s}", "ifname", a->nics[k].ifname, "peer", b->hostname, "switch",
			 b->nics[k].sw, "switch_port", b->nics[k].sw_port));
	detail(b, SIM_F_CABLE_SWAP,
	       json_pack("{s:s, s:s, s:s, s:s}", "ifname", b->nics[k].ifname, "peer", a->hostname, "switch",
			 a->nics[k].sw, "switch_port", a->nics[k].sw_port));
	sim_fault_set(&a->faults, SIM_F_CABLE_SWAP);
	sim_fault_set(&b->faults, SIM_F_CABLE_SWAP);
}

/* a reports one of b's MACs in place of its own; both carry the fault in
 * truth.json, a as the one whose BMC lies. */
static void apply_mac_clone(struct sim_node *a, struct sim_node *b, uint64_t *rng)
{
	const struct sim_shape *sa = sim_node_shape(a), *sb = sim_node_shape(b);
	int fabric = both(sa->fabric_nics, sb->fabric_nics);
	int k = (int)sim_rng_below(rng, (uint64_t)(fabric + both(sa->eth_nics, sb->eth_nics)));

	/* Fabric NICs first, then Ethernet, fitted ones only. */
	if (k >= fabric)
		k = SIM_FABRIC_NICS + k - fabric;
	memcpy(a->nics[k].mac, b->nics[k].mac, sizeof(a->nics[k].mac));
	detail(a, SIM_F_MAC_CLONE,
	       json_pack("{s:s, s:s, s:s}", "mac", b->nics[k].mac, "role", "impostor", "peer", b->hostname));
	detail(b, SIM_F_MAC_CLONE,
	       json_pack("{s:s, s:s, s:s}", "mac", b->nics[k].mac, "role", "genuine", "peer", a->hostname));
	sim_fault_set(&a->faults, SIM_F_MAC_CLONE);
	sim_fault_set(&b->faults, SIM_F_MAC_CLONE);
}

/* The manifest gives a the serial of b and b the serial of a; the BMCs
 * report the truth. */
static void apply_serial_mismatch(struct sim_node *a, struct sim_node *b)
{
	snprintf(a->manifest_serial, sizeof(a->manifest_serial), "%s", b->system_serial);
	snprintf(b->manifest_serial, sizeof(b->manifest_serial), "%s", a->system_serial);
	detail(a, SIM_F_SERIAL_MISMATCH,
	       json_pack("{s:s, s:s, s:s}", "manifest_serial", a->manifest_serial, "bmc_serial",
			 a->system_serial, "peer", b->hostname));
	detail(b, SIM_F_SERIAL_MISMATCH,
	       json_pack("{s:s, s:s, s:s}", "manifest_serial", b->manifest_serial, "bmc_serial",
			 b->system_serial, "peer", a->hostname));
	sim_fault_set(&a->faults, SIM_F_SERIAL_MISMATCH);
	sim_fault_set(&b->faults, SIM_F_SERIAL_MISMATCH);
}

/* Put fault f on n; cable_swap, mac_clone and serial_mismatch, which take
 * two nodes, are apply_cable_swap, apply_mac_clone and apply_serial_mismatch. */
static void apply(struct sim_node *n, enum sim_fault f, uint64_t *rng)
{
	/* Each fault picks among the parts the family's machine fits. */
	const struct sim_shape *sh = sim_node_shape(n);
	int g = (int)sim_rng_below(rng, (uint64_t)sh->gpus),
	    k = (int)sim_rng_below(rng, (uint64_t)sh->fabric_nics);
	int d = (int)sim_rng_below(rng, (uint64_t)sh->data_drives),
	    p = (int)sim_rng_below(rng, (uint64_t)sh->psus);
	char name[32];
	int celsius;

	sim_fault_set(&n->faults, f);
	switch (f) {
	case SIM_F_PSU_FAILED:
		n->psus[p].failed = 1;
		snprintf(name, sizeof(name), "PSU.Slot.%d", p + 1);
		detail(n, f, json_pack("{s:s, s:s}", "psu", name, "serial", n->psus[p].serial));
		break;
	case SIM_F_BIOS_DRIFT:
	case SIM_F_BIOS_JOB_FAIL:
	case SIM_F_GRACEFUL_IGNORED:
	case SIM_F_SLOW_JOB:
	case SIM_F_BOOT_SETTINGS_DRIFT:
		apply_bios_drift(n, f, rng);
		break;
	case SIM_F_BOOT_SETTINGS:
		disk_first(n);
		detail(n, f,
		       json_pack("{s:[s, s, s]}", "boot_order", n->st.boot_order[0], n->st.boot_order[1],
				 n->st.boot_order[2]));
		break;
	case SIM_F_FW_STALE:
	case SIM_F_FW_UPDATE_FAIL:
	case SIM_F_FW_IMAGE_REFUSED:
	case SIM_F_FW_BMC_SLOW:
	case SIM_F_FW_NO_MULTIPART:
	case SIM_F_FW_DELL_JOB:
	case SIM_F_FW_APPLY_ON_RESET:
		snprintf(n->st.fw_idrac, sizeof(n->st.fw_idrac), "%s", SIM_FW_STALE_IDRAC);
		snprintf(n->st.fw_bios, sizeof(n->st.fw_bios), "%s", SIM_FW_STALE_BIOS);
		snprintf(n->nics[0].firmware, sizeof(n->nics[0].firmware), "%s", SIM_FW_NIC_OUTDATED);
		/* what a correct run ends with: the baseline ("after"), or the
		 * node failed (firmware_update_failed) with nothing past the
		 * first image sent; SimpleUpdate only: the baseline when an image
		 * server is given, else failed with nothing sent */
		detail(n, f,
		       json_pack("{s:{s:s, s:s, s:s}, s:{s:s, s:s, s:s}, s:s}", "before",
				 "iDRAC.Embedded.1-1", SIM_FW_STALE_IDRAC, "BIOS.Setup.1-1",
				 SIM_FW_STALE_BIOS, n->nics[0].fqdd, SIM_FW_NIC_OUTDATED, "after",
				 "iDRAC.Embedded.1-1", SIM_FW_IDRAC, "BIOS.Setup.1-1", SIM_FW_BIOS,
				 n->nics[0].fqdd, SIM_FW_NIC, "ends",
				 f == SIM_F_FW_UPDATE_FAIL || f == SIM_F_FW_IMAGE_REFUSED ||
					 f == SIM_F_FW_APPLY_ON_RESET
				     ? "failed"
				 : f == SIM_F_FW_NO_MULTIPART ? "updated_given_image_server"
							      : "updated"));
		if (f == SIM_F_FW_UPDATE_FAIL || f == SIM_F_FW_IMAGE_REFUSED || f == SIM_F_FW_APPLY_ON_RESET)
			json_object_set_new(json_object_get(n->details, sim_fault_name(f)), "failure_kind",
					    json_string("firmware_update_failed"));
		break;
	case SIM_F_FW_OUTDATED:
		snprintf(n->firmware_nic_outdated, sizeof(n->firmware_nic_outdated), "%s", n->nics[k].fqdd);
		snprintf(n->nics[k].firmware, sizeof(n->nics[k].firmware), "%s", SIM_FW_NIC_OUTDATED);
		detail(n, f,
		       json_pack("{s:s, s:s, s:s}", "component", n->nics[k].fqdd, "version",
				 SIM_FW_NIC_OUTDATED, "expected", SIM_FW_NIC));
		break;
	case SIM_F_NIC_MISSING:
		n->nics[k].present = 0;
		detail(n, f,
		       json_pack("{s:s, s:s, s:s}", "nic", n->nics[k].fqdd, "mac", n->nics[k].mac, "ifname",
				 n->nics[k].ifname));
		break;
	case SIM_F_GPU_MISSING:
	case SIM_F_PCIE_DEGRADED:
		if (f == SIM_F_GPU_MISSING)
			n->gpus[g].present = 0;
		else
			n->gpus[g].lanes = 4;
		detail(n, f,
		       json_pack("{s:i, s:s, s:i}", "gpu", g + 1, "serial", n->gpus[g].serial, "bus",
				 n->gpus[g].bus));
		break;
	case SIM_F_NVME_MISSING:
		n->drives[d].present = 0;
		detail(n, f,
		       json_pack("{s:s, s:s}", "drive", n->drives[d].id, "serial", n->drives[d].serial));
		break;
	case SIM_F_PXE_UNPLUGGED:
		/* the provisioning port: the first Ethernet NIC, PXE device 1 */
		k = SIM_FABRIC_NICS;
		sim_fault_set(&n->faults, SIM_F_CABLE_UNPLUGGED);
		detail(n, SIM_F_CABLE_UNPLUGGED,
		       json_pack("{s:s, s:s, s:s}", "ifname", n->nics[k].ifname, "switch", n->nics[k].sw,
				 "switch_port", n->nics[k].sw_port));
		detail(n, f,
		       json_pack("{s:s, s:s, s:s, s:s}", "nic", n->nics[k].fqdd, "ifname", n->nics[k].ifname,
				 "switch", n->nics[k].sw, "switch_port", n->nics[k].sw_port));
		break;
	case SIM_F_CONNVIEW_STUCK:
		sim_fault_set(&n->faults, SIM_F_CABLE_UNPLUGGED);
		detail(n, SIM_F_CABLE_UNPLUGGED,
		       json_pack("{s:s, s:s, s:s}", "ifname", n->nics[k].ifname, "switch", n->nics[k].sw,
				 "switch_port", n->nics[k].sw_port));
		detail(n, f, json_pack("{s:s, s:s}", "nic", n->nics[k].fqdd, "ifname", n->nics[k].ifname));
		break;
	case SIM_F_CABLE_WRONG_SWITCH:
		k = SIM_FABRIC_NICS;
		snprintf(name, sizeof(name), "mgmt-%s", n->rack);
		detail(n, f,
		       json_pack("{s:s, s:s, s:s, s:s, s:s, s:s}", "nic", n->nics[k].fqdd, "ifname",
				 n->nics[k].ifname, "switch", name, "switch_port", n->nics[k].sw_port,
				 "expected_switch", n->nics[k].sw, "expected_switch_port",
				 n->nics[k].sw_port));
		break;
	case SIM_F_CABLE_UNPLUGGED:
		detail(n, f,
		       json_pack("{s:s, s:s, s:s}", "ifname", n->nics[k].ifname, "switch", n->nics[k].sw,
				 "switch_port", n->nics[k].sw_port));
		break;
	case SIM_F_IB_LINK_FLAP:
		detail(n, f,
		       json_pack("{s:s, s:s, s:i, s:i, s:f}", "nic", n->nics[k].fqdd, "ifname",
				 n->nics[k].ifname, "bus", n->nics[k].bus, "downs", 2, "down_s", 46.5));
		break;
	case SIM_F_IB_PORT_DOWN:
	case SIM_F_IB_RATE:
		if (f == SIM_F_IB_PORT_DOWN)
			n->nics[k].ib_down = 1;
		else
			n->nics[k].ib_rate_gbps = 200;
		detail(n, f,
		       json_pack("{s:s, s:s, s:i}", "nic", n->nics[k].fqdd, "ifname", n->nics[k].ifname,
				 "bus", n->nics[k].bus));
		break;
	case SIM_F_NVLINK_DOWN:
		detail(n, f,
		       json_pack("{s:i, s:s, s:i, s:i}", "gpu", g + 1, "serial", n->gpus[g].serial, "bus",
				 n->gpus[g].bus, "link", (int)sim_rng_below(rng, SIM_NVLINKS)));
		break;
	case SIM_F_NVLINK_FABRIC_DOWN:
		n->gpu_fabric_down = g + 1;
		detail(n, f,
		       json_pack("{s:i, s:s, s:i}", "gpu", g + 1, "serial", n->gpus[g].serial, "bus",
				 n->gpus[g].bus));
		break;
	case SIM_F_DCGM_DIAG_FAIL:
		detail(n, f,
		       json_pack("{s:i, s:s, s:i, s:s}", "gpu", g + 1, "serial", n->gpus[g].serial, "bus",
				 n->gpus[g].bus, "test", "memory"));
		break;
	case SIM_F_RDMA_BW_LOW:
		detail(n, f, json_pack("{s:f}", "gbps", 180.12));
		break;
	case SIM_F_NVSWITCH_SXID:
		/* An HGX H100/H200 baseboard's four NVSwitches sit at their own
		 * PCIe functions; the fault picks one. */
		detail(n, f, json_pack("{s:s, s:i}", "nvswitch", "0000:84:00.0", "sxid", 12028));
		break;
	case SIM_F_GPU_ECC:
	case SIM_F_GPU_ROW_REMAP:
	case SIM_F_GPU_SLOWDOWN:
	case SIM_F_GPU_SRAM_THRESHOLD:
		*(f == SIM_F_GPU_ECC	     ? &n->gpu_ecc
		  : f == SIM_F_GPU_ROW_REMAP ? &n->gpu_remap
		  : f == SIM_F_GPU_SLOWDOWN  ? &n->gpu_slowdown
					     : &n->gpu_sram) = g + 1;
		detail(n, f,
		       json_pack("{s:i, s:s, s:i}", "gpu", g + 1, "serial", n->gpus[g].serial, "bus",
				 n->gpus[g].bus));
		break;
	case SIM_F_GPU_VBIOS_MISMATCH:
		n->gpu_vbios = g + 1;
		detail(n, f,
		       json_pack("{s:i, s:s, s:i, s:s, s:s}", "gpu", g + 1, "serial", n->gpus[g].serial,
				 "bus", n->gpus[g].bus, "os_vbios", SIM_FW_GPU_OS, "bmc_vbios", SIM_FW_GPU));
		break;
	case SIM_F_FAN_FAILED:
		n->failed_fan = 1 + (int)sim_rng_below(rng, (uint64_t)sh->fans);
		snprintf(name, sizeof(name), "System Board Fan%d%c", (n->failed_fan - 1) / 2 + 1,
			 'A' + (n->failed_fan - 1) % 2);
		detail(n, f, json_pack("{s:s}", "fan", name));
		break;
	case SIM_F_THERMAL_BOGUS:
		n->bogus_sensor = (int)sim_rng_below(rng, (uint64_t)sim_node_temps(n));
		sim_temp_sensor(n->bogus_sensor, name, sizeof(name), &celsius);
		detail(n, f,
		       json_pack("{s:s, s:i}", "sensor", name, "reading", n->bogus_sensor % 2 ? 255 : -128));
		break;
	case SIM_F_CPUFREQ_CAPPED:
		detail(n, f, json_pack("{s:i}", "max_mhz", 2000));
		break;
	case SIM_F_CLOCK_SKEW:
		detail(
		    n, f,
		    json_pack("{s:i}", "offset_s", (int)(120 + sim_rng_below(rng, 780)) * (g % 2 ? -1 : 1)));
		break;
	case SIM_F_COMMISSION_FAIL:
		detail(
		    n, f,
		    json_pack("{s:s}", "reason", "commissioning script 20-maas-03-machine-resources failed"));
		break;
	default:
		detail(n, f, NULL);
		break;
	}
}

/* Nodes in an order fixed by the seed; requested faults go down it. */
static size_t *shuffled(size_t n, uint64_t *rng)
{
	size_t *order = br_xcalloc(n, sizeof(*order));

	for (size_t i = 0; i < n; i++)
		order[i] = i;
	for (size_t i = n; i > 1; i--) {
		size_t j = (size_t)sim_rng_below(rng, i), t = order[i - 1];

		order[i - 1] = order[j];
		order[j] = t;
	}
	return order;
}

/* The whole InfiniBand fabric cabled as count separate networks: every
 * node on it carries the fault. Leaves and spines are grouped by index
 * modulo count, so each network needs a leaf and a spine of its own. */
static int apply_fabric_split(struct sim_rack *rack, int count, struct br_err *err)
{
	size_t leaves = 0;
	int su_max = 0;

	if (count < 2)
		count = 2;
	for (size_t i = 0; i < rack->n; i++)
		if (sim_node_infiniband(&rack->nodes[i]) && (int)(i / 32) + 1 > su_max)
			su_max = (int)(i / 32) + 1;
	leaves = (size_t)su_max * SIM_FABRIC_NICS;
	if (!su_max)
		return br_errf(err, BR_E_INVAL,
			       "--faults ib_fabric_split: no node of this rack has an InfiniBand fabric "
			       "(--vendor ami)");
	if (count > SIM_IB_SPINES || (size_t)count > leaves)
		return br_errf(
		    err, BR_E_INVAL,
		    "--faults ib_fabric_split:%d: 2 to %d separate networks (%d spines, %zu leaves)", count,
		    SIM_IB_SPINES < (int)leaves ? SIM_IB_SPINES : (int)leaves, SIM_IB_SPINES, leaves);
	rack->ib_fabrics = count;
	for (size_t i = 0; i < rack->n; i++) {
		struct sim_node *n = &rack->nodes[i];

		if (!sim_node_infiniband(n))
			continue;
		sim_fault_set(&n->faults, SIM_F_IB_FABRIC_SPLIT);
		detail(n, SIM_F_IB_FABRIC_SPLIT,
		       json_pack("{s:i, s:i}", "separate_fabrics", count, "design", 1));
	}
	return 0;
}

static int assign_requested(struct sim_rack *rack, const struct sim_config *cfg, uint64_t *rng,
			    struct br_err *err)
{
	size_t *order = shuffled(rack->n, rng), next = 0;
	int rc = 0;

	for (size_t r = 0; r < cfg->n_faults && !rc; r++) {
		enum sim_fault f = cfg->faults[r].fault;
		size_t take =
		    f == SIM_F_CABLE_SWAP || f == SIM_F_MAC_CLONE || f == SIM_F_SERIAL_MISMATCH ? 2 : 1;

		if (f == SIM_F_IB_FABRIC_SPLIT) { /* the rack's, not one node's: COUNT networks */
			rc = apply_fabric_split(rack, cfg->faults[r].count, err);
			continue;
		}

		for (int c = 0; c < cfg->faults[r].count; c++) {
			if (next + take > rack->n) {
				rc = br_errf(
				    err, BR_E_INVAL,
				    "--faults: not enough nodes for %s:%d (%zu nodes, each fault on its own)",
				    sim_fault_name(f), cfg->faults[r].count, rack->n);
				break;
			}
			if (f == SIM_F_MAC_CLONE)
				apply_mac_clone(&rack->nodes[order[next]], &rack->nodes[order[next + 1]],
						rng);
			else if (f == SIM_F_SERIAL_MISMATCH)
				apply_serial_mismatch(&rack->nodes[order[next]],
						      &rack->nodes[order[next + 1]]);
			else if (take == 2)
				apply_cable_swap(&rack->nodes[order[next]], &rack->nodes[order[next + 1]],
						 rng);
			else
				apply(&rack->nodes[order[next]], f, rng);
			next += take;
		}
	}
	free(order);
	return rc;
}

static void assign_random(struct sim_rack *rack, double rate, uint64_t *rng)
{
	for (size_t i = 0; i < rack->n; i++) {
		struct sim_node *partner = NULL;
		enum sim_fault f;

		if (sim_fault_any(&rack->nodes[i].faults) ||
		    (double)sim_rng_next(rng) / 18446744073709551616.0 >= rate)
			continue;
		f = (enum sim_fault)sim_rng_below(rng, SIM_F_DESIGN_COUNT);
		if (f == SIM_F_CABLE_SWAP) {
			for (size_t j = i + 1; j < rack->n && !partner; j++)
				if (!sim_fault_any(&rack->nodes[j].faults))
					partner = &rack->nodes[j];
			if (!partner) /* no free node left to swap with */
				f = SIM_F_CABLE_UNPLUGGED;
		}
		if (partner)
			apply_cable_swap(&rack->nodes[i], partner, rng);
		else
			apply(&rack->nodes[i], f, rng);
	}
}

int sim_faults_assign(struct sim_rack *rack, const struct sim_config *cfg, struct br_err *err)
{
	uint64_t rng = sim_rng_seed(cfg->seed, 7);
	int rc = assign_requested(rack, cfg, &rng, err);

	if (rc)
		return rc;
	if (cfg->fault_rate < 0 || cfg->fault_rate > 1)
		return br_errf(err, BR_E_INVAL, "--fault-rate %g: must be 0..1", cfg->fault_rate);
	if (cfg->fault_rate > 0)
		assign_random(rack, cfg->fault_rate, &rng);
	return 0;
}
