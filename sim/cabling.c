/* What each host port is cabled to, one answer for every view of it: the
 * host's LLDP (hosts_tools.c) and the BMC's neighbour views (Dell's
 * Connection View, idrac_netports.c). The wiring list keeps the design;
 * the cable faults move or remove one cable. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "sim.h"

void sim_switch_mac(const char *name, char out[18])
{
	uint32_t h = 2166136261u;

	for (const char *c = name; *c; c++)
		h = (h ^ (unsigned char)*c) * 16777619u;
	snprintf(out, 18, "02:1c:73:%02x:%02x:%02x", (h >> 16) & 0xff, (h >> 8) & 0xff, h & 0xff);
}

/* The fault's detail names this NIC's host interface. */
static json_t *moved(const struct sim_node *n, enum sim_fault f, const struct sim_nic *nic)
{
	json_t *d = json_object_get(n->details, sim_fault_name(f));
	const char *ifname = br_json_str(d, "ifname");

	return (sim_fault_has(&n->faults, f)) && ifname && !strcmp(ifname, nic->ifname) ? d : NULL;
}

int sim_nic_sees(const struct sim_node *n, int k, const char **sw, const char **sw_port)
{
	const struct sim_nic *nic = &n->nics[k];
	json_t *d;

	if (!nic->present || moved(n, SIM_F_CABLE_UNPLUGGED, nic))
		return 0;
	*sw = nic->sw;
	*sw_port = nic->sw_port;
	if (((d = moved(n, SIM_F_CABLE_SWAP, nic)) || (d = moved(n, SIM_F_CABLE_WRONG_SWITCH, nic))) &&
	    br_json_str(d, "switch") && br_json_str(d, "switch_port")) {
		*sw = br_json_str(d, "switch");
		*sw_port = br_json_str(d, "switch_port");
	}
	return 1;
}
