/* The iDRAC itself: its manager resource, NIC, SEL, the firmware inventory
 * (as long as a real XE9680's, so it pages) and the account service. */
#include <stdlib.h>
#include <string.h>

#include "idrac.h"

#define FW_MAX 80

struct fw {
	char id[112];
	char name[96];
	char version[32];
	int software_id;
	int previous;
};

struct sim_fw_list {
	struct fw items[FW_MAX];
	size_t n;
};

static void fw_add(struct sim_fw_list *l, int previous, int software_id, const char *version,
		   const char *fqdd, const char *name)
{
	struct fw *f;

	if (l->n == FW_MAX)
		return;
	f = &l->items[l->n++];
	snprintf(f->id, sizeof(f->id), "%s-%d-%s__%s", previous ? "Previous" : "Installed", software_id,
		 version, fqdd);
	snprintf(f->name, sizeof(f->name), "%s", name);
	snprintf(f->version, sizeof(f->version), "%s", version);
	f->software_id = software_id;
	f->previous = previous;
}

static void fw_hgx(struct sim_fw_list *l, const struct sim_node *n)
{
	char fqdd[48], name[64];

	for (int g = 0; g < SIM_GPUS; g++) {
		if (!n->gpus[g].present)
			continue;
		snprintf(fqdd, sizeof(fqdd), "GPU.SXM.%d", g + 1);
		snprintf(name, sizeof(name), "NVIDIA HGX H200 GPU SXM %d", g + 1);
		fw_add(l, 0, 0, SIM_FW_GPU, fqdd, name);
	}
	fw_add(l, 0, 0, "3.10", "HGX.FPGA.1", "NVIDIA HGX FPGA");
	fw_add(l, 0, 0, "HGX-22.10-1-rc80", "HGX.HMC.1", "NVIDIA HGX HMC");
	for (int i = 1; i <= 4; i++) {
		snprintf(fqdd, sizeof(fqdd), "HGX.NVSwitch.%d", i);
		snprintf(name, sizeof(name), "NVIDIA HGX NVSwitch %d", i);
		fw_add(l, 0, 0, "96.10.6D.00.01", fqdd, name);
	}
	for (int i = 0; i < 8; i++) {
		snprintf(fqdd, sizeof(fqdd), "HGX.PCIeRetimer.%d", i);
		snprintf(name, sizeof(name), "NVIDIA HGX PCIe Retimer %d", i);
		fw_add(l, 0, 0, "2.7.9", fqdd, name);
	}
	fw_add(l, 0, 0, "1.8.0", "HGX.PCIeSwitch.1", "NVIDIA HGX PCIe Switch");
}

static void fw_build(struct sim_fw_list *l, const struct sim_node *n)
{
	char name[96], mac[18];

	l->n = 0;
	fw_add(l, 0, 159, sim_fw_version(n, "BIOS.Setup.1-1"), "BIOS.Setup.1-1", "BIOS");
	fw_add(l, 1, 159, "2.2.7", "BIOS.Setup.1-1", "BIOS");
	fw_add(l, 0, 25227, sim_fw_version(n, "iDRAC.Embedded.1-1"), "iDRAC.Embedded.1-1",
	       "Integrated Dell Remote Access Controller");
	fw_add(l, 1, 25227, "7.00.60.00", "iDRAC.Embedded.1-1", "Integrated Dell Remote Access Controller");
	fw_add(l, 0, 27763, "1.1.4", "CPLD.Embedded.1", "System CPLD");
	fw_add(l, 0, 101734, "11.0", "OSCollector.Embedded.1", "OS COLLECTOR");
	fw_add(l, 0, 18981, "24.04.12", "DriverPack.Embedded.1:LC.Embedded.1", "Dell OS Driver Pack");
	fw_add(l, 0, 0, "1.60", "Enclosure.Internal.0-1", "BP_PSB_16 E3.S NVMe Backplane");
	fw_hgx(l, n);
	for (int k = 0; k < SIM_NICS; k++) {
		if (!n->nics[k].present)
			continue;
		sim_mac_upper(n->nics[k].mac, mac);
		snprintf(name, sizeof(name), "%s - %s", sim_nic_product(k), mac);
		fw_add(l, 0, k < SIM_FABRIC_NICS ? 104327 : 108255, n->nics[k].firmware, n->nics[k].fqdd,
		       name);
	}
	for (int p = 0; p < sim_node_shape(n)->psus; p++) {
		char fqdd[24];

		snprintf(fqdd, sizeof(fqdd), "PSU.Slot.%d", p + 1);
		snprintf(name, sizeof(name), "Power Supply.Slot.%d", p + 1);
		fw_add(l, 0, 0, "00.1D.7D", fqdd, name);
	}
	for (int d = 0; d < SIM_DATA_DRIVES; d++) {
		if (!n->drives[d].present)
			continue;
		snprintf(name, sizeof(name), "PCIe SSD in Slot %d in Bay 1", d);
		fw_add(l, 0, 0, n->drives[d].firmware, n->drives[d].id, name);
	}
	fw_add(l, 0, 0, n->boot_drive.firmware, n->boot_drive.id, "M.2 Drive 0");
	fw_add(l, 0, 0, "2.1.13.2025", "BOSS.SL.14-1", "BOSS-N1 Monolithic");
}

/* The node's firmware list, built once: an expanded FirmwareInventory page
 * renders every member, and rebuilding the list per member made the
 * simulator, not the client, the cost of a discovery run. */
static const struct sim_fw_list *fw_collect(struct sim_node *n)
{
	if (!n->st.firmware) {
		n->st.firmware = br_xcalloc(1, sizeof(*n->st.firmware));
		fw_build(n->st.firmware, n);
	}
	return n->st.firmware;
}

void sim_fw_list_free(struct sim_fw_list *l)
{
	free(l);
}

json_t *sim_r_fw_coll(struct sim_ctx *c)
{
	json_t *coll;

	if (sim_fault_has(&c->node->faults, SIM_F_FW_INVENTORY_MISSING))
		return NULL; /* answered 404 */
	coll = sim_coll("#SoftwareInventoryCollection.SoftwareInventoryCollection",
			"Firmware Inventory Collection", SIM_R_FW);
	const struct sim_fw_list *l = fw_collect(c->node);

	for (size_t i = 0; i < l->n; i++)
		sim_coll_add(coll, SIM_R_FW "/%s", l->items[i].id);
	return coll;
}

json_t *sim_r_fw(struct sim_ctx *c)
{
	const struct sim_fw_list *l = fw_collect(c->node);
	json_t *doc = NULL;

	for (size_t i = 0; i < l->n && !doc; i++) {
		const struct fw *f = &l->items[i];
		char software_id[16];

		if (strcmp(f->id, c->args[0]))
			continue;
		snprintf(software_id, sizeof(software_id), "%d", f->software_id);
		doc = sim_res("#SoftwareInventory.v1_9_0.SoftwareInventory", f->id, f->name, SIM_R_FW "/%s",
			      f->id);
		json_object_set_new(doc, "Version", json_string(f->version));
		json_object_set_new(doc, "SoftwareId", json_string(software_id));
		json_object_set_new(doc, "Updateable", json_true());
		json_object_set_new(
		    doc, "Status",
		    json_pack("{s:s, s:s}", "Health", "OK", "State", f->previous ? "Disabled" : "Enabled"));
	}
	return doc;
}

json_t *sim_r_managers(struct sim_ctx *c)
{
	json_t *coll =
	    sim_coll("#ManagerCollection.ManagerCollection", "Manager Collection", "/redfish/v1/Managers");

	sim_coll_add(coll, SIM_R_MGR);
	return coll;
}

json_t *sim_r_manager(struct sim_ctx *c)
{
	json_t *m = sim_res("#Manager.v1_17_0.Manager", "iDRAC.Embedded.1", "Manager", SIM_R_MGR);

	json_object_set_new(m, "Description", json_string("BMC"));
	json_object_set_new(m, "ManagerType", json_string("BMC"));
	json_object_set_new(m, "Model", json_string("16G Monolithic"));
	json_object_set_new(m, "FirmwareVersion", json_string(sim_fw_version(c->node, "iDRAC.Embedded.1-1")));
	json_object_set_new(m, "UUID", json_string(c->node->uuid));
	json_object_set_new(m, "PowerState", json_string("On"));
	json_object_set_new(m, "Status", sim_status("OK"));
	json_object_set_new(m, "EthernetInterfaces", sim_link(SIM_R_MGR "/EthernetInterfaces"));
	json_object_set_new(m, "LogServices", sim_link(SIM_R_MGR "/LogServices"));
	json_object_set_new(m, "NetworkProtocol", sim_link(SIM_R_MGR "/NetworkProtocol"));
	json_object_set_new(m, "VirtualMedia", sim_link(SIM_R_MGR "/VirtualMedia"));
	/* An OEM object names its type (DSP0266 § "OEM extensions"). */
	json_object_set_new(m, "Links",
			    json_pack("{s:[o], s:[o, o], s:{s:{s:s, s:o}}}", "ManagerForServers",
				      sim_link(SIM_R_SYS), "ManagerForChassis", sim_link(SIM_R_CHASSIS),
				      sim_link(SIM_R_ENCLOSURE), "Oem", "Dell", "@odata.type",
				      "#DellOem.v1_3_0.DellOemLinks", "Jobs", sim_link(SIM_R_MGR "/Jobs")));
	json_object_set_new(m, "Actions",
			    json_pack("{s:{s:s, s:[s]}}", "#Manager.Reset", "target",
				      SIM_R_MGR "/Actions/Manager.Reset", "ResetType@Redfish.AllowableValues",
				      "GracefulRestart"));
	return m;
}

json_t *sim_r_mgr_eth_coll(struct sim_ctx *c)
{
	json_t *coll = sim_coll("#EthernetInterfaceCollection.EthernetInterfaceCollection",
				"Manager Ethernet Interface Collection", SIM_R_MGR "/EthernetInterfaces");

	sim_coll_add(coll, SIM_R_MGR "/EthernetInterfaces/NIC.1");
	return coll;
}

json_t *sim_r_mgr_eth(struct sim_ctx *c)
{
	char mac[18], host[24];
	json_t *e;

	if (strcmp(c->args[0], "NIC.1"))
		return NULL;
	sim_mac_upper(c->node->bmc_mac, mac);
	snprintf(host, sizeof(host), "idrac-%s", c->node->service_tag);
	e = sim_res("#EthernetInterface.v1_6_2.EthernetInterface", "NIC.1", "Manager Ethernet Interface",
		    SIM_R_MGR "/EthernetInterfaces/NIC.1");
	json_object_set_new(e, "MACAddress", json_string(mac));
	json_object_set_new(e, "PermanentMACAddress", json_string(mac));
	json_object_set_new(e, "HostName", json_string(host));
	json_object_set_new(e, "SpeedMbps", json_integer(1000));
	json_object_set_new(e, "IPv4Addresses",
			    json_pack("[{s:s, s:s, s:s}]", "Address", "127.0.0.1", "AddressOrigin", "Static",
				      "SubnetMask", "255.0.0.0"));
	json_object_set_new(e, "Status", sim_status("OK"));
	return e;
}
