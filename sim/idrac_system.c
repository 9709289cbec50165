/* The service root and the ComputerSystem side of the tree: the system,
 * its Ethernet interfaces, processors and storage. */
#include <stdlib.h>
#include <string.h>

#include "idrac.h"

json_t *sim_r_root(struct sim_ctx *c)
{
	json_t *r = sim_res("#ServiceRoot.v1_16_0.ServiceRoot", "RootService", "Root Service", SIM_R_ROOT);

	json_object_set_new(r, "Description", json_string("Root Service"));
	json_object_set_new(r, "RedfishVersion", json_string("1.17.0"));
	json_object_set_new(r, "Product", json_string("Integrated Dell Remote Access Controller"));
	json_object_set_new(r, "Vendor", json_string("Dell"));
	json_object_set_new(r, "UUID", json_string(c->node->uuid));
	json_object_set_new(r, "AccountService", sim_link("/redfish/v1/AccountService"));
	json_object_set_new(r, "Chassis", sim_link("/redfish/v1/Chassis"));
	json_object_set_new(r, "Managers", sim_link("/redfish/v1/Managers"));
	json_object_set_new(r, "SessionService", sim_link("/redfish/v1/SessionService"));
	json_object_set_new(r, "Systems", sim_link("/redfish/v1/Systems"));
	json_object_set_new(r, "UpdateService", sim_link("/redfish/v1/UpdateService"));
	/* Required for clients to find schemas and registries (DSP0266 §
	 * "Service root"); ilorest will not log in without Registries. */
	json_object_set_new(r, "JsonSchemas", sim_link("/redfish/v1/JsonSchemas"));
	json_object_set_new(r, "Registries", sim_link("/redfish/v1/Registries"));
	json_object_set_new(r, "Tasks", sim_link("/redfish/v1/TaskService"));
	json_object_set_new(r, "Links", json_pack("{s:o}", "Sessions", sim_link(SIM_R_SESSIONS)));
	json_object_set_new(r, "ProtocolFeaturesSupported",
			    json_pack("{s:{s:b, s:b}, s:b, s:{s:b, s:b, s:b, s:i, s:b}, s:b, s:b, s:b}",
				      "DeepOperations", "DeepPATCH", 0, "DeepPOST", 0, "ExcerptQuery", 0,
				      "ExpandQuery", "ExpandAll", 1, "Levels", 1, "Links", 1, "MaxLevels",
				      SIM_EXPAND_MAX_LEVELS, "NoLinks", 1, "FilterQuery", 0,
				      "OnlyMemberQuery", 0, "SelectQuery", 0));
	/* iDRAC shows these without authentication. */
	json_object_set_new(r, "Oem",
			    json_pack("{s:{s:s, s:i, s:s, s:s}}", "Dell", "@odata.type",
				      "#DellServiceRoot.v1_0_0.DellServiceRoot", "IsBranded", 0,
				      "ManagerMACAddress", c->node->bmc_mac, "ServiceTag",
				      c->node->service_tag));
	return r;
}

json_t *sim_r_odata(struct sim_ctx *c)
{
	static const char *const sets[] = { "Systems",	      "Chassis",       "Managers",
					    "SessionService", "UpdateService", "AccountService",
					    "JsonSchemas",    "Registries",    "TaskService" };
	json_t *values = json_array();

	for (size_t i = 0; i < sizeof(sets) / sizeof(sets[0]); i++) {
		char *url = br_xasprintf("/redfish/v1/%s", sets[i]);

		json_array_append_new(
		    values, json_pack("{s:s, s:s, s:s}", "kind", "Singleton", "name", sets[i], "url", url));
		free(url);
	}
	json_array_append_new(values, json_pack("{s:s, s:s, s:s}", "kind", "Singleton", "name", "Service",
						"url", "/redfish/v1/"));
	return json_pack("{s:s, s:o}", "@odata.context", "/redfish/v1/$metadata", "value", values);
}

json_t *sim_r_systems(struct sim_ctx *c)
{
	json_t *coll = sim_coll("#ComputerSystemCollection.ComputerSystemCollection",
				"Computer System Collection", "/redfish/v1/Systems");

	sim_coll_add(coll, SIM_R_SYS);
	if (sim_fault_has(&c->node->faults, SIM_F_TWO_HOSTS))
		sim_coll_add(coll, SIM_R_SYS2);
	return coll;
}

/* two_hosts: the second host behind the same BMC, a System of its own
 * (not a part of the first: it boots, has CPUs and a NIC). Its serial and
 * its NIC's MAC are derived from the node's so that a merge shows. */
static int second_host(const struct sim_ctx *c)
{
	return (sim_fault_has(&c->node->faults, SIM_F_TWO_HOSTS)) != 0;
}

void sim_second_host_mac(const struct sim_node *n, char out[18])
{
	snprintf(out, 18, "c8:4b:d7%.9s", n->bmc_mac + 8);
}

json_t *sim_r_system2(struct sim_ctx *c)
{
	json_t *s;
	char *serial;

	if (!second_host(c))
		return NULL;
	s = sim_res("#ComputerSystem.v1_20_0.ComputerSystem", "System.Embedded.2", "System", SIM_R_SYS2);
	serial = br_xasprintf("%s2", c->node->system_serial);
	json_object_set_new(s, "Manufacturer", json_string("Dell Inc."));
	json_object_set_new(s, "Model", json_string("PowerEdge XE9680"));
	json_object_set_new(s, "SerialNumber", json_string(serial));
	json_object_set_new(s, "SystemType", json_string("Physical"));
	json_object_set_new(s, "ProcessorSummary",
			    json_pack("{s:i, s:s}", "Count", 2, "Model", "Intel(R) Xeon(R)"));
	json_object_set_new(
	    s, "Boot",
	    json_pack("{s:[s], s:s}", "BootOrder", "NIC.Embedded.1-1-1", "BootSourceOverrideTarget", "None"));
	json_object_set_new(s, "EthernetInterfaces", sim_link(SIM_R_SYS2 "/EthernetInterfaces"));
	/* the second host has a BIOS of its own, as each node of a multi-node
	 * chassis does: only the manifest's system column says which to set */
	json_object_set_new(s, "Bios", sim_link(SIM_R_SYS2 "/Bios"));
	free(serial);
	return s;
}

json_t *sim_r_system2_bios(struct sim_ctx *c)
{
	json_t *b;

	if (!second_host(c))
		return NULL;
	b = sim_res("#Bios.v1_2_0.Bios", "Bios", "BIOS Configuration Current Settings", SIM_R_SYS2 "/Bios");
	json_object_set_new(b, "Attributes", json_pack("{s:s}", "SysProfile", "PerfOptimized"));
	return b;
}

json_t *sim_r_system2_eth_coll(struct sim_ctx *c)
{
	json_t *coll;

	if (!second_host(c))
		return NULL;
	coll = sim_coll("#EthernetInterfaceCollection.EthernetInterfaceCollection",
			"System Ethernet Interface Collection", SIM_R_SYS2 "/EthernetInterfaces");
	sim_coll_add(coll, SIM_R_SYS2 "/EthernetInterfaces/NIC.Embedded.1-1-1");
	return coll;
}

json_t *sim_r_system2_eth(struct sim_ctx *c)
{
	json_t *e;
	char mac[18];

	if (!second_host(c))
		return NULL;
	sim_second_host_mac(c->node, mac);
	e = sim_res("#EthernetInterface.v1_6_0.EthernetInterface", "NIC.Embedded.1-1-1",
		    "System Ethernet Interface", SIM_R_SYS2 "/EthernetInterfaces/NIC.Embedded.1-1-1");
	json_object_set_new(e, "MACAddress", json_string(mac));
	json_object_set_new(e, "PermanentMACAddress", json_string(mac));
	json_object_set_new(e, "LinkStatus", json_string("LinkUp"));
	return e;
}

static json_t *boot(struct sim_ctx *c)
{
	const struct sim_node *n = c->node;

	return json_pack("{s:[s, s, s], s:s, s:s, s:s, s:[s, s, s, s, s, s, s, s]}", "BootOrder",
			 n->st.boot_order[0], n->st.boot_order[1], n->st.boot_order[2],
			 "BootSourceOverrideTarget", n->st.boot_target, "BootSourceOverrideEnabled",
			 n->st.boot_enabled, "BootSourceOverrideMode", "UEFI",
			 "BootSourceOverrideTarget@Redfish.AllowableValues", "None", "Pxe", "Cd", "Hdd",
			 "BiosSetup", "Utilities", "UefiTarget", "UefiHttp");
}

int sim_boot_via_settings(const struct sim_node *n)
{
	return sim_fault_has(&n->faults, SIM_F_BOOT_SETTINGS) ||
	       sim_fault_has(&n->faults, SIM_F_BOOT_SETTINGS_DRIFT);
}

/* The pending boot order (the current one when nothing is pending). */
json_t *sim_r_system_settings(struct sim_ctx *c)
{
	const struct sim_node *n = c->node;
	const char(*order)[40] = n->st.boot_pending_set ? n->st.boot_pending : n->st.boot_order;
	json_t *s;

	if (!sim_boot_via_settings(n))
		return NULL;
	s = sim_res("#ComputerSystem.v1_20_0.ComputerSystem", "Settings", "System Settings",
		    SIM_R_SYS "/Settings");
	json_object_set_new(s, "Boot", json_pack("{s:[s, s, s]}", "BootOrder", order[0], order[1], order[2]));
	return s;
}

json_t *sim_r_system(struct sim_ctx *c)
{
	const struct sim_node *n = c->node;
	json_t *s =
	    sim_res("#ComputerSystem.v1_20_0.ComputerSystem", "System.Embedded.1", "System", SIM_R_SYS);
	json_t *pcie = json_array(), *functions = json_array(), *dev;
	size_t i;

	json_object_set_new(s, "Description",
			    json_string("Computer System which represents a machine (physical "
					"or virtual) and the local resources such as memory, "
					"cpu and other devices that can be accessed from it."));
	json_object_set_new(s, "Manufacturer", json_string("Dell Inc."));
	json_object_set_new(s, "Model", json_string("PowerEdge XE9680"));
	json_object_set_new(s, "SerialNumber", json_string(n->system_serial));
	json_object_set_new(s, "SKU", json_string(n->service_tag));
	json_object_set_new(s, "PartNumber", json_string("0X8V2MA01"));
	json_object_set_new(s, "UUID", json_string(n->uuid));
	json_object_set_new(s, "HostName", json_string(""));
	json_object_set_new(s, "SystemType", json_string("Physical"));
	json_object_set_new(s, "BiosVersion", json_string(sim_fw_version(c->node, "BIOS.Setup.1-1")));
	json_object_set_new(s, "PowerState", json_string(n->st.powered ? "On" : "Off"));
	json_object_set_new(s, "Status",
			    sim_status(sim_fault_has(&n->faults, SIM_F_PSU_FAILED) ? "Critical" : "OK"));
	json_object_set_new(s, "Boot", boot(c));
	if (sim_boot_via_settings(n))
		json_object_set_new(s, "@Redfish.Settings",
				    json_pack("{s:s, s:{s:s}, s:[s]}", "@odata.type",
					      "#Settings.v1_3_5.Settings", "SettingsObject", "@odata.id",
					      SIM_R_SYS "/Settings", "SupportedApplyTimes", "OnReset"));
	json_object_set_new(s, "ProcessorSummary",
			    json_pack("{s:i, s:i, s:i, s:s, s:o}", "Count", 2, "CoreCount", 112,
				      "LogicalProcessorCount", 224, "Model",
				      "Intel(R) Xeon(R) Platinum 8480+", "Status", sim_status("OK")));
	json_object_set_new(s, "MemorySummary",
			    json_pack("{s:i, s:s, s:o}", "TotalSystemMemoryGiB", 2048, "MemoryMirroring",
				      "System", "Status", sim_status("OK")));
	json_object_set_new(s, "Bios", sim_link(SIM_R_SYS "/Bios"));
	json_object_set_new(s, "EthernetInterfaces", sim_link(SIM_R_SYS "/EthernetInterfaces"));
	json_object_set_new(s, "Processors", sim_link(SIM_R_SYS "/Processors"));
	json_object_set_new(s, "Storage", sim_link(SIM_R_SYS "/Storage"));
	json_object_set_new(s, "Memory", sim_link(SIM_R_SYS "/Memory"));
	json_object_set_new(s, "SimpleStorage", sim_link(SIM_R_SYS "/SimpleStorage"));
	json_object_set_new(s, "SecureBoot", sim_link(SIM_R_SYS "/SecureBoot"));
	/* The identify LED, one for System and Chassis as on iDRAC9 (the
	 * deprecated IndicatorLED is left out: LocationIndicatorActive replaces
	 * it, ComputerSystem v1_13). */
	json_object_set_new(s, "LocationIndicatorActive", json_boolean(n->st.locate));
	/* iDRAC lists PCIe devices inline on the System, pointing into the Chassis. */
	for (int g = 0; g < SIM_GPUS; g++)
		if (n->gpus[g].present)
			json_array_append_new(pcie,
					      sim_link(SIM_R_CHASSIS "/PCIeDevices/%d-0", n->gpus[g].bus));
	for (int k = 0; k < SIM_FABRIC_NICS; k++)
		if (n->nics[k].present)
			json_array_append_new(pcie,
					      sim_link(SIM_R_CHASSIS "/PCIeDevices/%d-0", n->nics[k].bus));
	json_array_append_new(pcie,
			      sim_link(SIM_R_CHASSIS "/PCIeDevices/%d-0", n->nics[SIM_FABRIC_NICS].bus));
	json_object_set_new(s, "PCIeDevices@odata.count", json_integer((json_int_t)json_array_size(pcie)));
	/* and each device's functions, as a PowerEdge R750's iDRAC9 does
	 * (tests/fixtures/redfish/dell/libredfish/system.json keeps the count) */
	json_array_foreach(pcie, i, dev)
	{
		const char *id = strrchr(br_json_str(dev, "@odata.id"), '/') + 1;

		sim_pcie_function_links(n, id, functions);
	}
	json_object_set_new(s, "PCIeFunctions@odata.count",
			    json_integer((json_int_t)json_array_size(functions)));
	json_object_set_new(s, "PCIeFunctions", functions);
	json_object_set_new(s, "PCIeDevices", pcie);
	json_object_set_new(s, "Links",
			    json_pack("{s:[o], s:[o]}", "Chassis", sim_link(SIM_R_CHASSIS), "ManagedBy",
				      sim_link(SIM_R_MGR)));
	json_object_set_new(s, "Actions",
			    json_pack("{s:{s:s, s:[s, s, s, s, s, s, s]}}", "#ComputerSystem.Reset", "target",
				      SIM_R_SYS "/Actions/ComputerSystem.Reset",
				      "ResetType@Redfish.AllowableValues", "On", "ForceOff", "ForceRestart",
				      "GracefulRestart", "GracefulShutdown", "PushPowerButton",
				      "PowerCycle"));
	return s;
}

/* NIC index for an interface id, or -1 when absent. */
static int nic_by_fqdd(const struct sim_node *n, const char *fqdd)
{
	for (int k = 0; k < SIM_NICS; k++)
		if (n->nics[k].present && !strcmp(n->nics[k].fqdd, fqdd))
			return k;
	return -1;
}

json_t *sim_r_eth_coll(struct sim_ctx *c)
{
	json_t *coll = sim_coll("#EthernetInterfaceCollection.EthernetInterfaceCollection",
				"System Ethernet Interface Collection", SIM_R_SYS "/EthernetInterfaces");

	for (int k = SIM_FABRIC_NICS; k < SIM_NICS; k++)
		if (c->node->nics[k].fitted)
			sim_coll_add(coll, SIM_R_SYS "/EthernetInterfaces/%s", c->node->nics[k].fqdd);
	for (int k = 0; k < SIM_FABRIC_NICS; k++)
		if (c->node->nics[k].present)
			sim_coll_add(coll, SIM_R_SYS "/EthernetInterfaces/%s", c->node->nics[k].fqdd);
	return coll;
}

json_t *sim_r_eth(struct sim_ctx *c)
{
	int k = nic_by_fqdd(c->node, c->args[0]);
	const struct sim_nic *nic;
	char mac_upper[18];
	json_t *e;

	if (k < 0)
		return NULL;
	nic = &c->node->nics[k];
	sim_mac_upper(nic->mac, mac_upper);
	e = sim_res("#EthernetInterface.v1_6_2.EthernetInterface", nic->fqdd, "System Ethernet Interface",
		    SIM_R_SYS "/EthernetInterfaces/%s", nic->fqdd);
	json_object_set_new(e, "Description", json_string(sim_nic_product(k)));
	json_object_set_new(e, "MACAddress", json_string(mac_upper));
	json_object_set_new(e, "PermanentMACAddress", json_string(mac_upper));
	json_object_set_new(e, "SpeedMbps", json_integer(k < SIM_FABRIC_NICS ? 400000 : 1000));
	json_object_set_new(e, "LinkStatus", json_string("LinkUp"));
	json_object_set_new(e, "AutoNeg", json_boolean(k >= SIM_FABRIC_NICS));
	json_object_set_new(e, "FullDuplex", json_true());
	json_object_set_new(e, "Status", sim_status("OK"));
	return e;
}

json_t *sim_r_procs(struct sim_ctx *c)
{
	json_t *coll = sim_coll("#ProcessorCollection.ProcessorCollection", "Processors Collection",
				SIM_R_SYS "/Processors");

	sim_coll_add(coll, SIM_R_SYS "/Processors/CPU.Socket.1");
	sim_coll_add(coll, SIM_R_SYS "/Processors/CPU.Socket.2");
	return coll;
}

json_t *sim_r_proc(struct sim_ctx *c)
{
	json_t *p;

	if (strcmp(c->args[0], "CPU.Socket.1") && strcmp(c->args[0], "CPU.Socket.2"))
		return NULL;
	p = sim_res("#Processor.v1_18_0.Processor", c->args[0], "CPU", SIM_R_SYS "/Processors/%s",
		    c->args[0]);
	json_object_set_new(p, "Manufacturer", json_string("Intel"));
	json_object_set_new(p, "Model", json_string("Intel(R) Xeon(R) Platinum 8480+"));
	json_object_set_new(p, "ProcessorType", json_string("CPU"));
	json_object_set_new(p, "ProcessorArchitecture", json_string("x86"));
	json_object_set_new(p, "InstructionSet", json_string("x86-64"));
	json_object_set_new(p, "Socket", json_string(c->args[0]));
	json_object_set_new(p, "TotalCores", json_integer(56));
	json_object_set_new(p, "TotalEnabledCores", json_integer(56));
	json_object_set_new(p, "TotalThreads", json_integer(112));
	json_object_set_new(p, "MaxSpeedMHz", json_integer(sim_node_shape(c->node)->cpu_mhz));
	json_object_set_new(p, "OperatingSpeedMHz", json_integer(2000));
	json_object_set_new(p, "Status", sim_status("OK"));
	return p;
}
