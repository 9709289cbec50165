/*
 * HPE iLO (4/5) specifics.
 *  - iLO 5 lists the host NICs' MACs only in its OEM BaseNetworkAdapters
 *    resource (System Oem.Hpe.Links.NetworkAdapters), PhysicalPorts[]
 *    .MacAddress; its EthernetInterfaces collection is often empty until
 *    the host has booted an agent. iLO 4 uses "Hp" for "Hpe".
 */
#include <string.h>

#include "rf_private.h"

/* The collection at path in the System's Oem links. iLO 5 2.x lists
 * PCIDevices as an array that holds the collection's link (a DL385 Gen10
 * Plus v2's capture, tests/fixtures/redfish/hpe/libredfish/system.json),
 * where older iLO 5 has the link itself: each element is then a collection,
 * not a member, or the PCI devices would never be read. */
static void follow_collection(struct rf_bmc *bmc, json_t *system, const char *path, int kind)
{
	json_t *v = br_json_path(system, path), *item;
	size_t i;

	if (!json_is_array(v)) {
		rf_follow(bmc, system, path, kind, 1, -1);
		return;
	}
	json_array_foreach(v, i, item) rf_follow(bmc, item, "", kind, 1, -1);
}

static void hpe_on_system(struct rf_bmc *bmc, json_t *system)
{
	follow_collection(bmc, system, "Oem/Hpe/Links/NetworkAdapters", RF_K_HPE_ADAPTER);
	follow_collection(bmc, system, "Oem/Hp/Links/NetworkAdapters", RF_K_HPE_ADAPTER);
	/* PCIe link width and speed, where iLO's PCIeDevices have none */
	follow_collection(bmc, system, "Oem/Hpe/Links/PCIDevices", RF_K_HPE_PCI_DEVICE);
}

void rf_hpe_parse_network_adapter(struct br_hw *hw, json_t *doc)
{
	json_t *ports = br_json_path(doc, "PhysicalPorts"), *port;
	const char *adapter = br_json_str(doc, "Id");
	size_t i;

	if (!json_is_array(ports))
		return;
	json_array_foreach(ports, i, port)
	{
		char *name = br_xasprintf("%s.%zu", adapter ? adapter : "adapter", i + 1);

		rf_add_mac(hw, br_json_str(port, "MacAddress"), name, "HpeBaseNetworkAdapter", 0,
			   br_json_str(port, "LinkStatus"));
		free(name);
	}
}

const struct rf_vendor rf_vendor_hpe = {
	.name = "hpe",
	.root_key = "Hpe",
	.manufacturer = "HPE",
	.on_system = hpe_on_system,
	.retry_hint = NULL,
};
