/* The Chassis side of the tree: PCIe devices and functions, network
 * adapters and their device functions (the second place MACs show). */
#include <stdlib.h>
#include <string.h>

#include "idrac.h"

struct pcie_dev {
	const char *name, *vendor, *model, *device_class, *serial, *firmware;
	const char *vendor_id, *device_id, *class_code;
	int bus, lanes, functions;
	int nic; /* index into nodes' nics of the first function, or -1 */
};

/* The PCIe device at "BUS-0", or 0 when none is present there. */
static int find_pcie(const struct sim_node *n, const char *id, struct pcie_dev *ret)
{
	long bus;
	char *dash = strchr(id, '-'), *num;
	int found = 0;

	if (!dash || strcmp(dash, "-0"))
		return 0;
	num = br_xstrndup(id, (size_t)(dash - id));
	found = br_parse_long(num, 0, 255, &bus) == 0;
	free(num);
	if (!found)
		return 0;
	memset(ret, 0, sizeof(*ret));
	ret->bus = (int)bus;
	ret->nic = -1;
	for (int g = 0; g < SIM_GPUS; g++)
		if (n->gpus[g].present && n->gpus[g].bus == bus) {
			*ret = (struct pcie_dev){ "NVIDIA H200",
						  "NVIDIA Corporation",
						  "GH100 [H200 SXM 141GB]",
						  "DisplayController",
						  n->gpus[g].serial,
						  SIM_FW_GPU,
						  "0x10de",
						  "0x2335",
						  "0x030200",
						  (int)bus,
						  n->gpus[g].lanes,
						  1,
						  -1 };
			return 1;
		}
	for (int k = 0; k < SIM_NICS; k++)
		if (n->nics[k].present && n->nics[k].bus == bus) {
			int fabric = k < SIM_FABRIC_NICS;

			*ret = (struct pcie_dev){ fabric ? "MT2910 Family [ConnectX-7]" : "NetXtreme BCM5720",
						  fabric ? "Mellanox Technologies"
							 : "Broadcom Inc. and subsidiaries",
						  fabric ? "ConnectX-7 Single Port NDR400 OSFP" : "BCM5720",
						  "NetworkController",
						  fabric ? n->nics[k].serial : "",
						  n->nics[k].firmware,
						  fabric ? "0x15b3" : "0x14e4",
						  fabric ? "0x1021" : "0x165f",
						  "0x020000",
						  (int)bus,
						  fabric ? 16 : 1,
						  fabric ? 1 : sim_node_shape(n)->eth_nics,
						  k };
			return 1;
		}
	return 0;
}

json_t *sim_r_chassis_coll(struct sim_ctx *c)
{
	json_t *coll =
	    sim_coll("#ChassisCollection.ChassisCollection", "Chassis Collection", "/redfish/v1/Chassis");

	sim_coll_add(coll, SIM_R_CHASSIS);
	sim_coll_add(coll, SIM_R_ENCLOSURE);
	return coll;
}

json_t *sim_r_chassis(struct sim_ctx *c)
{
	const struct sim_node *n = c->node;
	json_t *ch = sim_res("#Chassis.v1_23_0.Chassis", "System.Embedded.1", "Computer System Chassis",
			     SIM_R_CHASSIS);

	json_object_set_new(ch, "ChassisType", json_string("RackMount"));
	json_object_set_new(ch, "Manufacturer", json_string("Dell Inc."));
	json_object_set_new(ch, "Model", json_string("PowerEdge XE9680"));
	json_object_set_new(ch, "SerialNumber", json_string(n->system_serial));
	json_object_set_new(ch, "SKU", json_string(n->service_tag));
	json_object_set_new(ch, "PowerState", json_string(n->st.powered ? "On" : "Off"));
	json_object_set_new(ch, "Status",
			    sim_status(sim_fault_has(&n->faults, SIM_F_PSU_FAILED) ? "Critical" : "OK"));
	json_object_set_new(ch, "NetworkAdapters", sim_link(SIM_R_CHASSIS "/NetworkAdapters"));
	json_object_set_new(ch, "PCIeDevices", sim_link(SIM_R_CHASSIS "/PCIeDevices"));
	json_object_set_new(ch, "Thermal", sim_link(SIM_R_CHASSIS "/Thermal"));
	json_object_set_new(ch, "Power", sim_link(SIM_R_CHASSIS "/Power"));
	json_object_set_new(ch, "LocationIndicatorActive", json_boolean(n->st.locate));
	json_object_set_new(ch, "Links",
			    json_pack("{s:[o], s:[o], s:[o]}", "ComputerSystems", sim_link(SIM_R_SYS),
				      "ManagedBy", sim_link(SIM_R_MGR), "Contains",
				      sim_link(SIM_R_ENCLOSURE)));
	return ch;
}

/* PATCH LocationIndicatorActive: the one identify LED System and Chassis share. */
void sim_w_chassis(struct sim_ctx *c)
{
	json_t *v = json_object_get(c->body, "LocationIndicatorActive");

	if (!json_is_boolean(v) || json_object_size(c->body) != 1) {
		sim_reply_error(c, 400,
				sim_msg(SIM_BASE "PropertyNotWritable", "Warning",
					"Only LocationIndicatorActive can be changed on this resource.",
					"Remove the other properties and resubmit the request."),
				NULL);
		return;
	}
	c->node->st.locate = json_is_true(v);
	c->resp->status = 204;
	sim_response_header(c->resp, "OData-Version", "4.0");
}

json_t *sim_r_pcie_coll(struct sim_ctx *c)
{
	const struct sim_node *n = c->node;
	json_t *coll = sim_coll("#PCIeDeviceCollection.PCIeDeviceCollection", "PCIe Device Collection",
				SIM_R_CHASSIS "/PCIeDevices");

	for (int g = 0; g < SIM_GPUS; g++)
		if (n->gpus[g].present)
			sim_coll_add(coll, SIM_R_CHASSIS "/PCIeDevices/%d-0", n->gpus[g].bus);
	for (int k = 0; k <= SIM_FABRIC_NICS; k++)
		if (n->nics[k].present)
			sim_coll_add(coll, SIM_R_CHASSIS "/PCIeDevices/%d-0", n->nics[k].bus);
	return coll;
}

json_t *sim_r_pcie(struct sim_ctx *c)
{
	struct pcie_dev d;
	char gen[8];
	json_t *o;

	if (!find_pcie(c->node, c->args[0], &d))
		return NULL;
	o = sim_res("#PCIeDevice.v1_11_1.PCIeDevice", c->args[0], d.name, SIM_R_CHASSIS "/PCIeDevices/%s",
		    c->args[0]);
	/* GPUs and fabric NICs at the family's generation, the LOM at Gen2. */
	snprintf(gen, sizeof(gen), "Gen%d", d.nic >= SIM_FABRIC_NICS ? 2 : sim_node_shape(c->node)->pcie_gen);
	json_object_set_new(o, "Manufacturer", json_string(d.vendor));
	json_object_set_new(o, "Model", json_string(d.model));
	json_object_set_new(o, "SerialNumber", json_string(d.serial));
	json_object_set_new(o, "FirmwareVersion", json_string(d.firmware));
	json_object_set_new(o, "DeviceType",
			    json_string(d.functions > 1 ? "MultiFunction" : "SingleFunction"));
	json_object_set_new(o, "PCIeInterface",
			    json_pack("{s:i, s:i, s:s, s:s}", "LanesInUse", d.lanes, "MaxLanes",
				      d.nic >= SIM_FABRIC_NICS ? 1 : 16, "PCIeType", gen, "MaxPCIeType",
				      gen));
	json_object_set_new(o, "PCIeFunctions",
			    sim_link(SIM_R_CHASSIS "/PCIeDevices/%s/PCIeFunctions", c->args[0]));
	json_object_set_new(o, "Status", sim_status("OK"));
	return o;
}

json_t *sim_r_pcie_funcs(struct sim_ctx *c)
{
	struct pcie_dev d;
	char *path;
	json_t *coll;

	if (!find_pcie(c->node, c->args[0], &d))
		return NULL;
	path = br_xasprintf(SIM_R_CHASSIS "/PCIeDevices/%s/PCIeFunctions", c->args[0]);
	coll = sim_coll("#PCIeFunctionCollection.PCIeFunctionCollection", "PCIe Function Collection", path);
	for (int f = 0; f < d.functions; f++)
		sim_coll_add(coll, "%s/%d-0-%d", path, d.bus, f);
	free(path);
	return coll;
}

void sim_pcie_function_links(const struct sim_node *n, const char *device_id, json_t *out)
{
	struct pcie_dev d;

	if (!find_pcie(n, device_id, &d))
		return;
	for (int f = 0; f < d.functions; f++)
		json_array_append_new(out, sim_link(SIM_R_CHASSIS "/PCIeDevices/%s/PCIeFunctions/%d-0-%d",
						    device_id, d.bus, f));
}

json_t *sim_r_pcie_func(struct sim_ctx *c)
{
	struct pcie_dev d;
	char id[24];
	int f = -1;
	json_t *o, *links;

	if (!find_pcie(c->node, c->args[0], &d))
		return NULL;
	for (int i = 0; i < d.functions && f < 0; i++) {
		snprintf(id, sizeof(id), "%d-0-%d", d.bus, i);
		if (!strcmp(id, c->args[1]))
			f = i;
	}
	if (f < 0)
		return NULL;
	o = sim_res("#PCIeFunction.v1_5_0.PCIeFunction", id, d.name,
		    SIM_R_CHASSIS "/PCIeDevices/%s/PCIeFunctions/%s", c->args[0], id);
	json_object_set_new(o, "DeviceClass", json_string(d.device_class));
	json_object_set_new(o, "FunctionType", json_string("Physical"));
	json_object_set_new(o, "FunctionId", json_integer(f));
	json_object_set_new(o, "VendorId", json_string(d.vendor_id));
	json_object_set_new(o, "DeviceId", json_string(d.device_id));
	json_object_set_new(o, "ClassCode", json_string(d.class_code));
	links = json_pack("{s:o}", "PCIeDevice", sim_link(SIM_R_CHASSIS "/PCIeDevices/%s", c->args[0]));
	if (d.nic >= 0) {
		const struct sim_nic *nic = &c->node->nics[d.nic + f];
		char *adapter = br_xstrndup(nic->fqdd, strlen(nic->fqdd) - 4);

		json_object_set_new(
		    links, "EthernetInterfaces",
		    json_pack("[o]", sim_link(SIM_R_SYS "/EthernetInterfaces/%s", nic->fqdd)));
		json_object_set_new(
		    links, "NetworkDeviceFunctions",
		    json_pack("[o]", sim_link(SIM_R_CHASSIS "/NetworkAdapters/%s/NetworkDeviceFunctions/%s",
					      adapter, nic->fqdd)));
		free(adapter);
	}
	json_object_set_new(o, "Links", links);
	json_object_set_new(o, "Status", sim_status("OK"));
	return o;
}

/* "NIC.Slot.31" → the NIC index of its first port, or -1. */
static int find_adapter(const struct sim_node *n, const char *id)
{
	size_t len = strlen(id);

	for (int k = 0; k < SIM_NICS; k++)
		if (n->nics[k].present && !strncmp(n->nics[k].fqdd, id, len) &&
		    !strcmp(n->nics[k].fqdd + len, "-1-1"))
			return k;
	return -1;
}

json_t *sim_r_adapters(struct sim_ctx *c)
{
	json_t *coll = sim_coll("#NetworkAdapterCollection.NetworkAdapterCollection",
				"Network Adapter Collection", SIM_R_CHASSIS "/NetworkAdapters");

	for (int k = 0; k < SIM_NICS; k++)
		if (c->node->nics[k].present)
			sim_coll_add(coll, SIM_R_CHASSIS "/NetworkAdapters/%.*s",
				     (int)strlen(c->node->nics[k].fqdd) - 4, c->node->nics[k].fqdd);
	return coll;
}

json_t *sim_r_adapter(struct sim_ctx *c)
{
	int k = find_adapter(c->node, c->args[0]);
	const struct sim_nic *nic;
	json_t *a;

	if (k < 0)
		return NULL;
	nic = &c->node->nics[k];
	a = sim_res("#NetworkAdapter.v1_9_0.NetworkAdapter", c->args[0], sim_nic_product(k),
		    SIM_R_CHASSIS "/NetworkAdapters/%s", c->args[0]);
	json_object_set_new(
	    a, "Manufacturer",
	    json_string(k < SIM_FABRIC_NICS ? "Mellanox Technologies" : "Broadcom Inc. and subsidiaries"));
	json_object_set_new(a, "Model", json_string(k < SIM_FABRIC_NICS ? "ConnectX-7" : "BCM5720"));
	json_object_set_new(a, "SerialNumber", json_string(nic->serial));
	json_object_set_new(a, "Controllers",
			    json_pack("[{s:s, s:{s:i}, s:{s:[o], s:[o]}}]", "FirmwarePackageVersion",
				      nic->firmware, "ControllerCapabilities", "NetworkPortCount", 1, "Links",
				      "PCIeDevices", sim_link(SIM_R_CHASSIS "/PCIeDevices/%d-0", nic->bus),
				      "NetworkDeviceFunctions",
				      sim_link(SIM_R_CHASSIS "/NetworkAdapters/%s/NetworkDeviceFunctions/%s",
					       c->args[0], nic->fqdd)));
	json_object_set_new(a, "NetworkDeviceFunctions",
			    sim_link(SIM_R_CHASSIS "/NetworkAdapters/%s/NetworkDeviceFunctions", c->args[0]));
	if (sim_ports_lldp(c->node))
		json_object_set_new(a, "Ports",
				    sim_link(SIM_R_CHASSIS "/NetworkAdapters/%s/Ports", c->args[0]));
	json_object_set_new(a, "Status", sim_status("OK"));
	return a;
}

json_t *sim_r_ndf_coll(struct sim_ctx *c)
{
	int k = find_adapter(c->node, c->args[0]);
	char *path;
	json_t *coll;

	if (k < 0)
		return NULL;
	path = br_xasprintf(SIM_R_CHASSIS "/NetworkAdapters/%s/NetworkDeviceFunctions", c->args[0]);
	coll = sim_coll("#NetworkDeviceFunctionCollection.NetworkDeviceFunctionCollection",
			"Network Device Function Collection", path);
	sim_coll_add(coll, "%s/%s", path, c->node->nics[k].fqdd);
	free(path);
	return coll;
}

json_t *sim_r_ndf(struct sim_ctx *c)
{
	int k = find_adapter(c->node, c->args[0]);
	const struct sim_nic *nic;
	char mac_upper[18];
	json_t *f;

	if (k < 0 || strcmp(c->args[1], c->node->nics[k].fqdd))
		return NULL;
	nic = &c->node->nics[k];
	sim_mac_upper(nic->mac, mac_upper);
	f = sim_res("#NetworkDeviceFunction.v1_9_0.NetworkDeviceFunction", nic->fqdd,
		    "Network Device Function", SIM_R_CHASSIS "/NetworkAdapters/%s/NetworkDeviceFunctions/%s",
		    c->args[0], nic->fqdd);
	json_object_set_new(f, "NetDevFuncType", json_string("Ethernet"));
	json_object_set_new(f, "NetDevFuncCapabilities", json_pack("[s]", "Ethernet"));
	json_object_set_new(f, "Ethernet",
			    json_pack("{s:s, s:s, s:i}", "MACAddress", mac_upper, "PermanentMACAddress",
				      mac_upper, "MTUSize", k < SIM_FABRIC_NICS ? 4200 : 1500));
	json_object_set_new(
	    f, "Links",
	    json_pack("{s:o, s:o}", "PCIeFunction",
		      sim_link(SIM_R_CHASSIS "/PCIeDevices/%d-0/PCIeFunctions/%d-0-%d", nic->bus, nic->bus,
			       k < SIM_FABRIC_NICS ? 0 : k - SIM_FABRIC_NICS),
		      "EthernetInterface", sim_link(SIM_R_SYS "/EthernetInterfaces/%s", nic->fqdd)));
	json_object_set_new(f, "Status", sim_status("OK"));
	return f;
}
