/*
 * Resources other BMC families have where iDRAC has none, rendered at
 * iDRAC paths (vendor.c maps the paths both ways). Sources, all public:
 *  - The host end of the BMC's USB network link under the System's
 *    EthernetInterfaces: Lenovo XClarity Controller REST API guide
 *    ("ToManager", the LAN-over-USB interface); Supermicro Redfish
 *    Reference Guide (the Host Interface; an X13 calls its host end
 *    "ToManager" too: tests/fixtures/redfish/supermicro/libredfish/
 *    eth_tomanager.json); DMTF DSP0270 (Redfish
 *    Host Interface Specification: a USB network device whose host side
 *    MAC the BMC chooses, commonly locally administered).
 *  - BootOptions with UefiDevicePath "…/MAC(3CECEF123456,0x1)/…": DMTF
 *    BootOption schema (BootOption.v1_0_x: UefiDevicePath, DisplayName),
 *    UEFI specification 2.10 §10.3.5.11 (MAC Address device path node
 *    text form), as OpenBMC's bmcweb and NVIDIA Grace BMCs serve them.
 *  - HPE iLO 5 BaseNetworkAdapters (Oem.Hpe.Links.NetworkAdapters,
 *    PhysicalPorts[].MacAddress): HPE iLO 5 RESTful API reference,
 *    HpeBaseNetworkAdapter resource.
 *  - A GPU baseboard System (HGX_Baseboard_0) beside the host System:
 *    NVIDIA HGX H100 BMC Redfish documentation.
 *  - Drives under the Chassis: DMTF Chassis schema (Chassis.v1_14_0 and
 *    later, "Drives" collection), as Supermicro and AMI MegaRAC use it.
 */
#include <stdlib.h>
#include <string.h>

#include "vendor.h"

json_t *sim_v_usb_eth(struct sim_ctx *c, const struct sim_vendor_info *vi)
{
	json_t *e;

	if (!vi->usb_id || !c->node->usb_mac[0])
		return NULL;
	e = sim_res("#EthernetInterface.v1_6_2.EthernetInterface", vi->usb_id, vi->usb_name,
		    SIM_R_SYS "/EthernetInterfaces/%s", vi->usb_id);
	json_object_set_new(e, "Description", json_string(vi->usb_description));
	json_object_set_new(e, "MACAddress", json_string(c->node->usb_mac));
	json_object_set_new(e, "SpeedMbps", json_integer(480));
	json_object_set_new(e, "LinkStatus", json_string("LinkUp"));
	json_object_set_new(e, "InterfaceEnabled", json_true());
	json_object_set_new(e, "Status", sim_status("OK"));
	/* an X13's links the Host Interface it is
	 * (tests/fixtures/redfish/supermicro/libredfish/eth_tomanager.json) */
	if (vi->host_iface && vi->mgr_usb_id)
		json_object_set_new(
		    e, "Links", json_pack("{s:o}", "HostInterface", sim_link(SIM_R_MGR "/HostInterfaces/1")));
	return e;
}

/* The BMC's end of the USB link: its MAC the BMC picks too, locally
 * administered, here from its own port's as the host end's is (vendor.c).
 * Shapes: a DGX H100's "usb0" (Id and Name usb0, a link-local address;
 * tests/fixtures/redfish/ami/libredfish/manager_eth_usb0.json) and an X13's
 * "ToHost" (Name and Description as its real port's, Links.HostInterface;
 * tests/fixtures/redfish/supermicro/libredfish/manager_eth_tohost.json). */
json_t *sim_v_mgr_usb_eth(struct sim_ctx *c, const struct sim_vendor_info *vi)
{
	const struct sim_node *n = c->node;
	char mac[18], out[18];
	json_t *e;
	int smc = vi->host_iface;

	if (!vi->mgr_usb_id || !n->usb_mac[0])
		return NULL;
	snprintf(mac, sizeof(mac), "0e%.15s", n->bmc_mac + 2);
	sim_vendor_mac(vi, mac, out);
	e = sim_res("#EthernetInterface.v1_6_2.EthernetInterface", vi->mgr_usb_id,
		    smc ? "Manager Ethernet Interface" : vi->mgr_usb_id, SIM_R_MGR "/EthernetInterfaces/%s",
		    vi->mgr_usb_id);
	if (smc)
		json_object_set_new(e, "Description", json_string("Management Network Interface"));
	json_object_set_new(e, "MACAddress", json_string(out));
	if (smc)
		json_object_set_new(e, "PermanentMACAddress", json_string(out));
	json_object_set_new(e, "InterfaceEnabled", json_true());
	json_object_set_new(e, "IPv4Addresses",
			    json_pack("[{s:s, s:s}]", "Address", smc ? "169.254.3.254" : "169.254.0.17",
				      "SubnetMask", smc ? "255.255.255.0" : "255.255.0.0"));
	json_object_set_new(e, "Status", sim_status("OK"));
	if (smc)
		json_object_set_new(
		    e, "Links", json_pack("{s:o}", "HostInterface", sim_link(SIM_R_MGR "/HostInterfaces/1")));
	return e;
}

/* The Redfish Host Interface the USB link is (DSP0270; HostInterface
 * schema), which both ends of an X13's link name. */
json_t *sim_v_host_ifaces(struct sim_ctx *c)
{
	json_t *coll = sim_coll("#HostInterfaceCollection.HostInterfaceCollection",
				"Host Interface Collection", SIM_R_MGR "/HostInterfaces");

	if (c->node->usb_mac[0])
		sim_coll_add(coll, SIM_R_MGR "/HostInterfaces/1");
	return coll;
}

json_t *sim_v_host_iface(struct sim_ctx *c, const struct sim_vendor_info *vi, const char *id)
{
	json_t *h;

	if (strcmp(id, "1") || !c->node->usb_mac[0] || !vi->mgr_usb_id)
		return NULL;
	h = sim_res("#HostInterface.v1_3_0.HostInterface", "1", "Host Interface",
		    SIM_R_MGR "/HostInterfaces/1");
	json_object_set_new(h, "HostInterfaceType", json_string("NetworkHostInterface"));
	json_object_set_new(h, "InterfaceEnabled", json_true());
	json_object_set_new(h, "Status", sim_status("OK"));
	json_object_set_new(h, "ManagerEthernetInterface",
			    sim_link(SIM_R_MGR "/EthernetInterfaces/%s", vi->mgr_usb_id));
	json_object_set_new(h, "Links", json_pack("{s:[o]}", "ComputerSystems", sim_link(SIM_R_SYS)));
	return h;
}

/* A DGX H100 lists the BMC's virtual media among the host's drives: USB
 * "Virtual Cdrom Device"s of 2048 bytes, every one with the serial
 * AAAABBBBCCCC1 (tests/fixtures/redfish/ami/libredfish/drive_usb_{2,4}.json). */
static const char *const vmedia_ids[SIM_V_VMEDIA_DRIVES] = { "USB_Device2_PortA", "USB_Device4_PortA" };

const char *sim_v_vmedia_id(int i)
{
	return i >= 0 && i < SIM_V_VMEDIA_DRIVES ? vmedia_ids[i] : NULL;
}

int sim_v_is_vmedia(const char *id)
{
	for (int i = 0; i < SIM_V_VMEDIA_DRIVES; i++)
		if (!strcmp(id, vmedia_ids[i]))
			return 1;
	return 0;
}

json_t *sim_v_vmedia_drive(struct sim_ctx *c, const char *id)
{
	json_t *d;

	(void)c;
	if (!sim_v_is_vmedia(id))
		return NULL;
	d = sim_res("#Drive.v1_11_0.Drive", id, id, SIM_R_CHASSIS "/Drives/%s", id);
	json_object_set_new(d, "BlockSizeBytes", json_integer(2048));
	json_object_set_new(d, "CapacityBytes", json_integer(2048));
	json_object_set_new(d, "Manufacturer", json_string("American Megatreds Inc."));
	json_object_set_new(d, "MediaType", json_string("HDD"));
	json_object_set_new(d, "Model", json_string("Virtual Cdrom Device"));
	json_object_set_new(d, "Protocol", json_string("USB"));
	json_object_set_new(d, "Revision", json_string("USB2.00"));
	json_object_set_new(d, "SerialNumber", json_string("AAAABBBBCCCC1"));
	json_object_set_new(d, "Status", sim_status("OK"));
	json_object_set_new(d, "Links", json_pack("{s:o}", "Chassis", sim_link(SIM_R_CHASSIS)));
	return d;
}

/* The NICs a BootOption is made for: every present one, LOM first (a
 * BIOS lists its PXE entries in slot order). */
static int boot_nic(const struct sim_node *n, int i)
{
	int seen = 0;

	for (int j = 0; j < SIM_NICS; j++) {
		int k = (j + SIM_FABRIC_NICS) % SIM_NICS;

		if (n->nics[k].present && seen++ == i)
			return k;
	}
	return -1;
}

static int usb_boot_option(const struct sim_node *n)
{
	return (sim_fault_has(&n->faults, SIM_F_USB_BOOT_OPTION)) && n->usb_mac[0] && sim_vendor_host_macs(n);
}

json_t *sim_v_boot_options(struct sim_ctx *c)
{
	json_t *coll =
	    sim_coll("#BootOptionCollection.BootOptionCollection", "Boot Options", SIM_R_SYS "/BootOptions");

	int i;

	for (i = 0; sim_vendor_host_macs(c->node) && boot_nic(c->node, i) >= 0; i++)
		sim_coll_add(coll, SIM_R_SYS "/BootOptions/%04X", i + 1);
	if (usb_boot_option(c->node))
		sim_coll_add(coll, SIM_R_SYS "/BootOptions/%04X", i + 1);
	return coll;
}

/* The BootOption of PXE over the BMC's USB link (usb_boot_option): the
 * device path an XCC or a bmcweb host's firmware writes for the CDC
 * Ethernet gadget, USB() nodes before MAC(). */
static json_t *usb_boot_entry(struct sim_ctx *c, const char *id)
{
	char hex[13], *path, *name;
	json_t *o;

	for (int i = 0, j = 0; i < 17; i++)
		if (c->node->usb_mac[i] != ':')
			hex[j++] = (char)(c->node->usb_mac[i] >= 'a' ? c->node->usb_mac[i] - 'a' + 'A'
								     : c->node->usb_mac[i]);
	hex[12] = '\0';
	o = sim_res("#BootOption.v1_0_4.BootOption", id, "Boot Option", SIM_R_SYS "/BootOptions/%s", id);
	json_object_set_new(o, "BootOptionReference", json_string(id));
	json_object_set_new(o, "BootOptionEnabled", json_true());
	name = br_xasprintf("UEFI: PXE IPv4 USB Network Device (MAC:%s)", hex);
	path = br_xasprintf("PciRoot(0x0)/Pci(0x14,0x0)/USB(0x3,0x0)/USB(0x2,0x0)/MAC(%s,0x0)/IPv4(0.0.0.0)",
			    hex);
	json_object_set_new(o, "DisplayName", json_string(name));
	json_object_set_new(o, "UefiDevicePath", json_string(path));
	free(name);
	free(path);
	return o;
}

/* Half the options name the MAC in the device path, the other half only in
 * the display name, as firmware that writes "UEFI PXEv4 (MAC:…)" does. */
json_t *sim_v_boot_option(struct sim_ctx *c, const char *id)
{
	long num;
	int k;
	char hex[13], *name, *path, *end;
	const char *mac;
	json_t *o;

	/* Boot#### ids are four upper-case hex digits (UEFI). */
	if (!sim_vendor_host_macs(c->node) || strlen(id) != 4 || strspn(id, "0123456789ABCDEF") != 4)
		return NULL;
	num = strtol(id, &end, 16);
	if (!*end && usb_boot_option(c->node) && boot_nic(c->node, (int)num - 1) < 0 &&
	    boot_nic(c->node, (int)num - 2) >= 0)
		return usb_boot_entry(c, id);
	if (*end || (k = boot_nic(c->node, (int)num - 1)) < 0)
		return NULL;
	mac = c->node->nics[k].mac;
	for (int i = 0, j = 0; i < 17; i++)
		if (mac[i] != ':')
			hex[j++] = (char)(mac[i] >= 'a' ? mac[i] - 'a' + 'A' : mac[i]);
	hex[12] = '\0';
	o = sim_res("#BootOption.v1_0_4.BootOption", id, "Boot Option", SIM_R_SYS "/BootOptions/%s", id);
	json_object_set_new(o, "BootOptionReference", json_string(id));
	json_object_set_new(o, "BootOptionEnabled", json_true());
	name = br_xasprintf("UEFI PXEv4 (MAC:%s)", hex);
	json_object_set_new(o, "DisplayName", json_string(name));
	if (num % 2) {
		path = br_xasprintf("PciRoot(0x%X)/Pci(0x1,0x0)/Pci(0x0,0x0)/MAC(%s,0x1)/IPv4(0.0.0.0)",
				    c->node->nics[k].bus / 64, hex);
		json_object_set_new(o, "UefiDevicePath", json_string(path));
		free(path);
	}
	free(name);
	return o;
}

json_t *sim_v_hpe_adapters(struct sim_ctx *c)
{
	json_t *coll = sim_coll("#HpeBaseNetworkAdapterCollection.HpeBaseNetworkAdapterCollection",
				"BaseNetworkAdapters", SIM_R_SYS "/BaseNetworkAdapters");

	for (int k = 0; k < SIM_NICS; k++)
		if (c->node->nics[k].present)
			sim_coll_add(coll, SIM_R_SYS "/BaseNetworkAdapters/%d", k + 1);
	return coll;
}

json_t *sim_v_hpe_adapter(struct sim_ctx *c, const char *id)
{
	const struct sim_node *n = c->node;
	long k;
	json_t *a, *port;

	if (br_parse_long(id, 1, SIM_NICS, &k) || !n->nics[k - 1].present)
		return NULL;
	a = sim_res("#HpeBaseNetworkAdapter.v2_0_0.HpeBaseNetworkAdapter", id, sim_nic_product((int)k - 1),
		    SIM_R_SYS "/BaseNetworkAdapters/%s", id);
	json_object_set_new(a, "StructuredName", json_string(n->nics[k - 1].fqdd));
	port = json_pack("{s:s, s:b}", "FullDuplex", "Full", "Enabled", 1);
	if (sim_vendor_host_macs(n))
		json_object_set_new(port, "MacAddress", json_string(n->nics[k - 1].mac));
	json_object_set_new(a, "PhysicalPorts", json_pack("[o]", port));
	json_object_set_new(a, "Status", sim_status("OK"));
	return a;
}

/* No Boot, no EthernetInterfaces: a System of GPUs, not a host. */
json_t *sim_v_hgx_system(struct sim_ctx *c)
{
	json_t *s = sim_res("#ComputerSystem.v1_20_0.ComputerSystem", "HGX_Baseboard_0", "HGX_Baseboard_0",
			    SIM_HGX_SYSTEM);
	char *serial = br_xasprintf("1652%s", c->node->gpus[0].serial + 6);

	json_object_set_new(s, "Manufacturer", json_string("NVIDIA"));
	json_object_set_new(s, "Model", json_string("HGX H100 8-GPU"));
	json_object_set_new(s, "SerialNumber", json_string(serial));
	json_object_set_new(s, "SystemType", json_string("Physical"));
	json_object_set_new(s, "PowerState", json_string("On"));
	json_object_set_new(s, "Processors", sim_link(SIM_HGX_SYSTEM "/Processors"));
	json_object_set_new(s, "Status", sim_status("OK"));
	free(serial);
	return s;
}

/* The baseboard's GPUs, each a Processor of ProcessorType "GPU" (DMTF
 * Processor.v1_18_0; NVIDIA's HGX BMC names them GPU_SXM_1..8): the
 * System's Processors link leads to a collection (a reference names a
 * resource the service has, DSP0266). */
json_t *sim_v_hgx_procs(struct sim_ctx *c)
{
	json_t *coll = sim_coll("#ProcessorCollection.ProcessorCollection", "Processors Collection",
				SIM_HGX_SYSTEM "/Processors");

	for (int g = 0; g < SIM_GPUS; g++)
		if (c->node->gpus[g].present)
			sim_coll_add(coll, SIM_HGX_SYSTEM "/Processors/GPU_SXM_%d", g + 1);
	return coll;
}

json_t *sim_v_hgx_proc(struct sim_ctx *c, const char *id)
{
	long g;
	json_t *p;

	if (strncmp(id, "GPU_SXM_", 8) || br_parse_long(id + 8, 1, SIM_GPUS, &g) ||
	    !c->node->gpus[g - 1].present)
		return NULL;
	p = sim_res("#Processor.v1_18_0.Processor", id, "GPU", SIM_HGX_SYSTEM "/Processors/%s", id);
	json_object_set_new(p, "ProcessorType", json_string("GPU"));
	json_object_set_new(p, "Manufacturer", json_string("NVIDIA"));
	json_object_set_new(p, "Model", json_string("NVIDIA H100 80GB HBM3"));
	json_object_set_new(p, "SerialNumber", json_string(c->node->gpus[g - 1].serial));
	json_object_set_new(p, "Status", sim_status("OK"));
	return p;
}

char *sim_v_drive_path(const struct sim_node *n, const char *id)
{
	if (!strcmp(id, n->boot_drive.id))
		return br_xasprintf(SIM_R_SYS "/Storage/BOSS.SL.14-1/Drives/%s", id);
	for (int d = 0; d < SIM_DATA_DRIVES; d++)
		if (n->drives[d].present && !strcmp(id, n->drives[d].id))
			return br_xasprintf(SIM_R_SYS "/Storage/CPU.1/Drives/%s", id);
	return NULL;
}

/* Every drive once, or twice where the family repeats them (AMI lists a
 * drive once per backplane path to it). */
json_t *sim_v_chassis_drives(struct sim_ctx *c, const struct sim_vendor_info *vi)
{
	const struct sim_node *n = c->node;
	json_t *coll =
	    sim_coll("#DriveCollection.DriveCollection", "Drive Collection", SIM_R_CHASSIS "/Drives");

	for (int rep = 0; rep < (vi->repeat_pages ? 2 : 1); rep++) {
		sim_coll_add(coll, SIM_R_CHASSIS "/Drives/%s", n->boot_drive.id);
		for (int d = 0; d < SIM_DATA_DRIVES; d++)
			if (n->drives[d].present)
				sim_coll_add(coll, SIM_R_CHASSIS "/Drives/%s", n->drives[d].id);
	}
	for (int i = 0; vi->virtual_media && i < SIM_V_VMEDIA_DRIVES; i++)
		sim_coll_add(coll, SIM_R_CHASSIS "/Drives/%s", vmedia_ids[i]);
	return coll;
}

/* ---- PCIe links outside PCIeDevice ------------------------------------------- */

/* Each PCIe device as idrac.c renders it (borrowed ids: collection members). */
static json_t *pcie_devices(struct sim_ctx *c)
{
	json_t *coll = sim_r_pcie_coll(c), *out = json_array(), *m;
	size_t i;

	json_array_foreach(json_object_get(coll, "Members"), i, m)
	{
		const char *id = strrchr(br_json_str(m, "@odata.id"), '/') + 1;
		struct sim_ctx one = *c;
		json_t *d;

		one.args[0] = id;
		if ((d = sim_r_pcie(&one)))
			json_array_append_new(out, d);
	}
	json_decref(coll);
	return out;
}

/* Where HPE's and Supermicro's link facts live instead; the label ties an
 * HPE PCIDevice to the standard device's slot (vendor_shape.c puts it on
 * the PCIeDevice). */
static char *slot_label(json_t *dev)
{
	return br_xasprintf("PCI-E Slot %s", br_json_str(dev, "Id"));
}

json_t *sim_v_hpe_pci_devices(struct sim_ctx *c)
{
	json_t *coll = sim_coll("#HpeServerPciDeviceCollection.HpeServerPciDeviceCollection", "PCI Devices",
				SIM_R_SYS "/PCIDevices");
	json_t *devs = pcie_devices(c);

	for (size_t i = 0; i < json_array_size(devs); i++)
		sim_coll_add(coll, SIM_R_SYS "/PCIDevices/%zu", i + 1);
	json_decref(devs);
	return coll;
}

json_t *sim_v_hpe_pci_device(struct sim_ctx *c, const char *id)
{
	json_t *devs = pcie_devices(c), *d, *o;
	long k;
	char *label;

	if (br_parse_long(id, 1, (long)json_array_size(devs), &k)) {
		json_decref(devs);
		return NULL;
	}
	d = json_array_get(devs, (size_t)k - 1);
	label = slot_label(d);
	o = sim_res("#HpeServerPciDevice.v2_0_0.HpeServerPciDevice", id, br_json_str(d, "Name"),
		    SIM_R_SYS "/PCIDevices/%s", id);
	json_object_set_new(o, "DeviceLocation", json_string(label));
	json_object_set_new(o, "StructuredName", json_string(br_json_str(d, "Id")));
	json_object_set_new(o, "DeviceType", json_string("Other PCI Device"));
	json_object_set_new(
	    o, "BusNumber",
	    json_integer((json_int_t)strtol(br_json_str(d, "Id") ? br_json_str(d, "Id") : "0", NULL, 10)));
	json_object_set_new(o, "DeviceNumber", json_integer(0));
	json_object_set_new(o, "FunctionNumber", json_integer(0));
	/* the negotiated link, as iLO reports it for each PCI device */
	json_object_set_new(o, "LinkWidth",
			    json_sprintf("x%d", (int)br_json_int(d, "PCIeInterface/LanesInUse", 0)));
	json_object_set_new(o, "LinkSpeed",
			    json_sprintf("PCIe%s", br_json_str(d, "PCIeInterface/PCIeType")
						       ? br_json_str(d, "PCIeInterface/PCIeType")
						       : "Gen1"));
	free(label);
	json_decref(devs);
	return o;
}

json_t *sim_v_pcie_slots(struct sim_ctx *c)
{
	json_t *s = sim_res("#PCIeSlots.v1_5_0.PCIeSlots", "PCIeSlots", "PCIe Slot Information",
			    SIM_R_CHASSIS "/PCIeSlots");
	json_t *devs = pcie_devices(c), *slots = json_array(), *d;
	size_t i;

	json_array_foreach(devs, i, d)
	{
		char *label = br_xasprintf("Slot %zu", i + 1);

		json_array_append_new(
		    slots, json_pack("{s:i, s:s, s:s, s:{s:{s:s, s:s}}, s:{s:[o]}, s:o}", "Lanes",
				     (int)br_json_int(d, "PCIeInterface/LanesInUse", 0), "PCIeType",
				     br_json_str(d, "PCIeInterface/PCIeType")
					 ? br_json_str(d, "PCIeInterface/PCIeType")
					 : "Gen1",
				     "SlotType", "FullLength", "Location", "PartLocation", "ServiceLabel",
				     label, "LocationType", "Slot", "Links", "PCIeDevice",
				     sim_link(SIM_R_CHASSIS "/PCIeDevices/%s", br_json_str(d, "Id")),
				     "Status", sim_status("OK")));
		free(label);
	}
	json_object_set_new(s, "Slots", slots);
	json_decref(devs);
	return s;
}

void sim_v_pcie_without_link(const struct sim_vreq *v, json_t *doc)
{
	json_object_del(doc, "PCIeInterface");
	if (!strcmp(v->vi->oem_key, "Hpe") && br_json_str(doc, "Id") &&
	    !strchr(v->dpath + strlen(SIM_R_CHASSIS "/PCIeDevices/"), '/')) {
		char *label = slot_label(doc);

		json_object_set_new(
		    doc, "Slot",
		    json_pack("{s:{s:{s:s}}}", "Location", "PartLocation", "ServiceLabel", label));
		free(label);
	}
}
