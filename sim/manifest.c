/*
 * What the simulated rack tells the rest of the toolkit: the manifest an
 * engineer would write (rack.csv), the wiring list by design (wiring.csv),
 * and the ground truth tests and benchmarks compare against (truth.json).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

#define MANIFEST_HEADER_FIELDS                                                                               \
	"hostname,rack,unit,bmc,bmc_user,bmc_password,profile,bmc_type,boot_disk_serial,notes,serial"

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The MACs a correct discovery finds through the BMC: the union of the
 * permanent MACs in EthernetInterfaces and NetworkDeviceFunctions, which
 * here both list every present NIC. The iDRAC's own MAC is not a host MAC. */
static json_t *truth_macs(const struct sim_node *n)
{
	const char *macs[SIM_NICS] = { 0 };
	size_t count = 0;
	json_t *arr = json_array();

	for (int k = 0; k < SIM_NICS && !(sim_fault_has(&n->faults, SIM_F_NO_HOST_MAC)); k++)
		if (n->nics[k].present)
			macs[count++] = n->nics[k].mac;
	qsort(macs, count, sizeof(macs[0]), cmp_str);
	for (size_t i = 0; i < count; i++)
		json_array_append_new(arr, json_string(macs[i]));
	return arr;
}

/* Every MAC the BMC shows, with whose it is: "host" (a host NIC, what
 * MAAS must get), "bmc" (the BMC's own port), "bmc_usb" (the host end of
 * the BMC's USB network link). */
static json_t *mac_roles(const struct sim_node *n)
{
	json_t *roles = json_object();

	for (int k = 0; k < SIM_NICS && !(sim_fault_has(&n->faults, SIM_F_NO_HOST_MAC)); k++)
		if (n->nics[k].present)
			json_object_set_new(roles, n->nics[k].mac, json_string("host"));
	json_object_set_new(roles, n->bmc_mac, json_string("bmc"));
	if (n->usb_mac[0])
		json_object_set_new(roles, n->usb_mac, json_string("bmc_usb"));
	return roles;
}

/* What each host port is cabled to now (sim_nic_sees): the switch end,
 * its chassis MAC, null for none; and whether the BMC shows it before any
 * OS runs (Dell's Connection View; "stale" when it shows the old view). */
static json_t *truth_neighbors(const struct sim_node *n)
{
	json_t *ports = json_array();

	for (int k = 0; k < SIM_NICS; k++) {
		const char *sw, *sw_port;
		char mac[18];
		json_t *p;

		if (!n->nics[k].present)
			continue;
		p = json_pack("{s:s, s:s, s:s}", "port", n->nics[k].fqdd, "ifname", n->nics[k].ifname, "mac",
			      n->nics[k].mac);
		if (sim_nic_sees(n, k, &sw, &sw_port)) {
			sim_switch_mac(sw, mac);
			json_object_set_new(p, "switch", json_string(sw));
			json_object_set_new(p, "switch_port", json_string(sw_port));
			json_object_set_new(p, "chassis_id", json_string(mac));
		} else {
			json_object_set_new(p, "switch", json_null());
			json_object_set_new(p, "switch_port", json_null());
			json_object_set_new(p, "chassis_id", json_null());
		}
		json_array_append_new(ports, p);
	}
	return json_pack("{s:s?, s:b, s:o}", "bmc_view",
			 n->vendor == SIM_V_DELL ? "DellSwitchConnections" : NULL, "stale",
			 (sim_fault_has(&n->faults, SIM_F_CONNVIEW_STALE)) != 0, "ports", ports);
}

static json_t *truth_node(const struct sim_node *n)
{
	json_t *drives = json_array(), *faults = json_array();
	struct sim_drive os_boot;

	sim_node_os_boot_disk(n, &os_boot);
	json_array_append_new(drives, json_string(n->boot_drive.serial));
	if (sim_node_boss_raid1(n))
		json_array_append_new(drives, json_string(n->boot_mirror.serial));
	for (int d = 0; d < SIM_DATA_DRIVES; d++)
		if (n->drives[d].present)
			json_array_append_new(drives, json_string(n->drives[d].serial));
	for (int f = 0; f < SIM_F_COUNT; f++)
		if (sim_fault_has(&n->faults, f))
			json_array_append_new(faults, json_string(sim_fault_name((enum sim_fault)f)));
	json_t *bmc_macs = json_pack("[s]", n->bmc_mac), *doc;

	/* The BMC's side of its USB link: a MAC the BMC shows among the
	 * host's interfaces, never a host NIC. */
	if (n->usb_mac[0])
		json_array_append_new(bmc_macs, json_string(n->usb_mac));
	doc = json_pack("{s:s, s:s, s:s, s:i, s:s, s:s, s:s, s:o, s:s, s:s, s:o, s:o, s:O}", "hostname",
			n->hostname, "bmc", n->bmc, "rack", n->rack, "unit", n->unit, "system_serial",
			n->system_serial, "service_tag", n->service_tag, "uuid", n->uuid, "macs",
			truth_macs(n), "bmc_mac", n->bmc_mac, "boot_disk_serial", os_boot.serial,
			"drive_serials", drives, "faults", faults, "fault_details", n->details);
	json_object_set_new(doc, "vendor", json_string(sim_vendor_name(n->vendor)));
	json_object_set_new(doc, "bmc_macs", bmc_macs);
	json_object_set_new(doc, "mac_roles", mac_roles(n));
	json_object_set_new(doc, "neighbors", truth_neighbors(n));
	/* The BOSS RAID1 volume: the BMC's identity for it, the serial the
	 * OS reports (boot_disk_serial), and the M.2 drives under it. */
	if (sim_node_boss_raid1(n))
		json_object_set_new(doc, "boot_volume",
				    json_pack("{s:s, s:s, s:s, s:s, s:[s, s]}", "id", n->boss_volume_id,
					      "raid_type", "RAID1", "durable_name", n->boss_durable_name,
					      "os_serial", os_boot.serial, "drives", n->boot_drive.serial,
					      n->boot_mirror.serial));
	return doc;
}

json_t *sim_truth(const struct sim_rack *rack)
{
	json_t *nodes = json_array();

	for (size_t i = 0; i < rack->n; i++)
		json_array_append_new(nodes, truth_node(&rack->nodes[i]));
	return json_pack("{s:I, s:o}", "seed", (json_int_t)rack->seed, "nodes", nodes);
}

static int write_buf(const char *dir, const char *name, struct br_buf *b, struct br_err *err)
{
	char *path = br_xasprintf("%s/%s", dir, name);
	int rc = br_write_file(path, br_buf_str(b), b->len, err);

	free(path);
	br_buf_release(b);
	return rc;
}

/* The serial an engineer copies from the asset list. Left out for a BMC
 * whose test-only fault garbles its SerialNumber (a number, 1 MiB, terminal
 * controls): those faults test how discovery survives what it reads, and
 * a cross-check would fail them on the serial first. */
const char *sim_manifest_serial(const struct sim_node *n)
{
	if (sim_fault_has(&n->faults, SIM_F_BAD_TYPES) || sim_fault_has(&n->faults, SIM_F_HUGE_SERIAL) ||
	    sim_fault_has(&n->faults, SIM_F_CONTROL_CHARS))
		return "";
	return n->manifest_serial[0] ? n->manifest_serial : n->system_serial;
}

static int write_rack_csv(const struct sim_rack *rack, const char *dir, struct br_err *err)
{
	struct br_buf b;

	int systems = 0;

	/* The system column only where a BMC manages two hosts (two_hosts):
	 * the manifest names which one each node is, as an operator would. */
	for (size_t i = 0; i < rack->n; i++)
		systems |= (sim_fault_has(&rack->nodes[i].faults, SIM_F_TWO_HOSTS)) != 0;
	br_buf_init(&b, 0);
	br_buf_adds(&b, systems ? MANIFEST_HEADER_FIELDS ",system\n" : MANIFEST_HEADER_FIELDS "\n");
	for (size_t i = 0; i < rack->n; i++) {
		const struct sim_node *n = &rack->nodes[i];

		/* Each node names its own family's profile: its machine's shape. */
		br_buf_addf(&b, "%s,%s,%d,%s,root,env:BRINGUP_BMC_PASSWORD,%s,redfish,,,%s", n->hostname,
			    n->rack, n->unit, n->bmc, sim_vendor_profile(n->vendor), sim_manifest_serial(n));
		if (systems)
			br_buf_adds(&b,
				    sim_fault_has(&n->faults, SIM_F_TWO_HOSTS) ? ",System.Embedded.1" : ",");
		br_buf_adds(&b, "\n");
	}
	return write_buf(dir, "rack.csv", &b, err);
}

static int write_wiring_csv(const struct sim_rack *rack, const char *dir, struct br_err *err)
{
	struct br_buf b;

	br_buf_init(&b, 0);
	br_buf_adds(&b, "hostname,host_port,switch,switch_port\n");
	for (size_t i = 0; i < rack->n; i++) {
		const struct sim_node *n = &rack->nodes[i];

		/* An InfiniBand port has no LLDP: its cable is ib-wiring.csv's. */
		for (int k = 0; k < SIM_NICS; k++)
			if (n->nics[k].fitted && !(k < SIM_FABRIC_NICS && sim_node_infiniband(n)))
				br_buf_addf(&b, "%s,%s,%s,%s\n", n->hostname, n->nics[k].ifname,
					    n->nics[k].sw, n->nics[k].sw_port);
	}
	return write_buf(dir, "wiring.csv", &b, err);
}

/* Every switch the design or a fault names, with its chassis MAC: what a
 * network team's inventory gives for the switches (switches.csv(5)), and
 * what maps Dell's Connection View (a chassis MAC) onto the wiring list's
 * names. */
static int write_switches_csv(const struct sim_rack *rack, const char *dir, struct br_err *err)
{
	struct br_strlist names = { 0 };
	struct br_buf b;
	int rc;

	for (size_t i = 0; i < rack->n; i++) {
		const struct sim_node *n = &rack->nodes[i];
		char mgmt[32];

		for (int k = 0; k < SIM_NICS; k++)
			if (n->nics[k].fitted)
				br_strlist_add(&names, n->nics[k].sw);
		snprintf(mgmt, sizeof(mgmt), "mgmt-%s", n->rack);
		br_strlist_add(&names, mgmt);
	}
	qsort(names.items, names.n, sizeof(*names.items), cmp_str);
	br_buf_init(&b, 0);
	br_buf_adds(&b, "switch,chassis_id\n");
	for (size_t i = 0; i < names.n; i++) {
		char mac[18];

		if (i && !strcmp(names.items[i], names.items[i - 1]))
			continue;
		sim_switch_mac(names.items[i], mac);
		br_buf_addf(&b, "%s,%s\n", names.items[i], mac);
	}
	br_strlist_release(&names);
	rc = write_buf(dir, "switches.csv", &b, err);
	return rc;
}

int sim_write_manifest(const struct sim_rack *rack, const char *dir, struct br_err *err)
{
	json_t *truth;
	struct br_buf b;
	char *text;
	int rc;

	rc = write_rack_csv(rack, dir, err);
	if (!rc)
		rc = write_wiring_csv(rack, dir, err);
	if (!rc && sim_rack_infiniband(rack))
		rc = sim_ib_write_wiring(rack, dir, err);
	if (!rc)
		rc = write_switches_csv(rack, dir, err);
	if (rc)
		return rc;
	truth = sim_truth(rack);
	text = json_dumps(truth, JSON_INDENT(1));
	json_decref(truth);
	br_buf_init(&b, 0);
	br_buf_adds(&b, text);
	br_buf_adds(&b, "\n");
	free(text);
	return write_buf(dir, "truth.json", &b, err);
}
