/*
 * HPE iLO (4/5) specifics.
 *  - iLO 5 lists the host NICs' MACs only in its OEM BaseNetworkAdapters
 *    resource (System Oem.Hpe.Links.NetworkAdapters), PhysicalPorts[]
 *    .MacAddress; its EthernetInterfaces collection is often empty until
 *    the host has booted an agent. iLO 4 uses "Hp" for "Hpe".
 */
#include <string.h>

#include "rf_private.h"

/* iLO 4 says "Hp" where iLO 5 says "Hpe"; PCIDevices give the PCIe link
 * width and speed where iLO's PCIeDevices have none. */
static const struct rf_vendor_link hpe_links[] = {
	{ "Oem/Hpe/Links/NetworkAdapters", RF_K_HPE_ADAPTER },
	{ "Oem/Hp/Links/NetworkAdapters", RF_K_HPE_ADAPTER },
	{ "Oem/Hpe/Links/PCIDevices", RF_K_HPE_PCI_DEVICE },
	{ NULL, 0 },
};

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
	.on_system = NULL,
	.system_links = hpe_links,
	/* iLO 5 2.73+ and iLO 6: Port Ethernet.LLDPReceive (HPE iLO RESTful API
	 * reference, "LLDP" under Chassis/{id}/NetworkAdapters/{id}/Ports) */
	.port_lldp = 1,
};
