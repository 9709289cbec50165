/*
 * neighbors — the switch port behind each host NIC port, as the BMC knows
 * it before any OS runs (the cabling check before enlist judges it):
 *  - Dell iDRAC9 "Connection View": the DellSwitchConnection collection
 *    under Systems/{id}/NetworkPorts/Oem/Dell/DellSwitchConnections
 *    (iDRAC10: Systems/{id}/Oem/Dell/DellSwitchConnections), its
 *    members inline (the R7615 capture in tests/fixtures/redfish/dell/
 *    understack/, iDRAC 7.x). SwitchConnectionID is the switch's chassis
 *    MAC, sent unpadded ("c4:4d:4:48:61:80"); SwitchPortConnectionID its
 *    port name; both "No Link" when the port saw no LLDP; StaleData
 *    "Stale" when the view was not refreshed since the port changed. The
 *    iDRAC's own port (iDRAC.Embedded.1) is listed too: not a host port.
 *  - DMTF Port v1.4+ Ethernet.LLDPReceive (DSP0268 Port schema: ChassisId,
 *    ChassisIdSubtype, PortId, PortIdSubtype, ManagementAddressIPv4,
 *    ManagementVlanId; SystemName from v1.8), which HPE documents for
 *    iLO 5 2.73+ and iLO 6 under Chassis/{id}/NetworkAdapters/{id}/Ports.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "rf_private.h"

/* A MAC as iDRAC writes it, octets unpadded, into lowercase colon form;
 * 0 or BR_E_INVAL. */
static int unpadded_mac(const char *in, char out[18])
{
	unsigned octets[6];
	int n = 0;
	const char *p = in;

	if (!br_mac_normalize(in, out))
		return 0;
	while (n < 6) {
		unsigned v = 0;
		int digits = 0;

		while (isxdigit((unsigned char)*p) && digits < 2) {
			v = v * 16 + (unsigned)(isdigit((unsigned char)*p)
						    ? *p - '0'
						    : (tolower((unsigned char)*p) - 'a' + 10));
			p++;
			digits++;
		}
		if (!digits)
			return BR_E_INVAL;
		octets[n++] = v;
		if (n < 6 && *p++ != ':')
			return BR_E_INVAL;
	}
	if (*p)
		return BR_E_INVAL;
	snprintf(out, 18, "%02x:%02x:%02x:%02x:%02x:%02x", octets[0], octets[1], octets[2], octets[3],
		 octets[4], octets[5]);
	return 0;
}

static int no_link(const char *s)
{
	return !s || !*s || !strcasecmp(s, "No Link") || !strcasecmp(s, "NoLink");
}

static void dell_member(struct br_hw *hw, json_t *m)
{
	const char *port = br_json_str(m, "FQDD"), *sw = br_json_str(m, "SwitchConnectionID"),
		   *sw_port = br_json_str(m, "SwitchPortConnectionID"), *stale = br_json_str(m, "StaleData");
	struct br_neighbor *nb;
	char mac[18];

	if (!port)
		port = br_json_str(m, "Id");
	/* the iDRAC's own port: its switch is the management network's */
	if (!port || !strncasecmp(port, "iDRAC.", 6))
		return;
	if (hw->n_neighbors >= RF_NEIGHBORS_MAX)
		return;
	nb = br_hw_add_neighbor(hw);
	nb->port = br_hw_strdup(port);
	nb->source = br_xstrdup("DellSwitchConnection");
	nb->stale = stale && !strcasecmp(stale, "Stale");
	nb->link = !no_link(sw) && !no_link(sw_port);
	if (!nb->link)
		return;
	if (!unpadded_mac(sw, mac)) {
		nb->chassis_id = br_xstrdup(mac);
		nb->chassis_id_subtype = br_xstrdup("MacAddr");
	} else {
		nb->chassis_id = br_hw_strdup(sw);
	}
	nb->port_id = br_hw_strdup(sw_port);
}

void rf_parse_dell_switch_connections(struct br_hw *hw, json_t *doc)
{
	json_t *members = json_object_get(doc, "Members"), *m;
	size_t i;

	if (!json_is_array(members))
		return;
	if (!hw->neighbor_source)
		hw->neighbor_source = br_xstrdup("DellSwitchConnections");
	json_array_foreach(members, i, m) if (json_is_object(m)) dell_member(hw, m);
}

/* The adapter's Id from a Port's @odata.id
 * ".../NetworkAdapters/DE083000/Ports/1": "DE083000". */
static char *adapter_of(const char *odata_id)
{
	const char *a = odata_id ? strstr(odata_id, "/NetworkAdapters/") : NULL, *end;

	if (!a)
		return NULL;
	a += strlen("/NetworkAdapters/");
	end = strchr(a, '/');
	return end ? br_hw_strndup(a, (size_t)(end - a)) : NULL;
}

/* DSP0268 has LLDPReceive's PortId "a colon-delimited string of
 * hexadecimal octets"; an interface name sent so ("73:77:70:31" for swp1)
 * is decoded to its text, a MAC (6 octets, subtype MacAddr) is kept as a
 * MAC, anything else as sent. Caller frees. */
static char *port_id_text(const char *id, const char *subtype)
{
	char mac[18];
	struct br_buf b;
	const char *p = id;

	if (subtype && !strcasecmp(subtype, "MacAddr") && !br_mac_normalize(id, mac))
		return br_xstrdup(mac);
	br_buf_init(&b, 0);
	while (isxdigit((unsigned char)p[0]) && isxdigit((unsigned char)p[1]) && (p[2] == ':' || !p[2])) {
		unsigned v =
		    (unsigned)((isdigit((unsigned char)p[0]) ? p[0] - '0'
							     : tolower((unsigned char)p[0]) - 'a' + 10) *
				   16 +
			       (isdigit((unsigned char)p[1]) ? p[1] - '0'
							     : tolower((unsigned char)p[1]) - 'a' + 10));

		if (v < 0x20 || v > 0x7e)
			break;
		br_buf_add(&b, &(char){ (char)v }, 1);
		p += p[2] ? 3 : 2;
		if (!*p && b.len > 1) /* every octet printable: it was text */
			return br_buf_detach(&b);
	}
	br_buf_release(&b);
	return br_hw_strdup(id);
}

void rf_parse_port(struct br_hw *hw, json_t *doc)
{
	json_t *lldp = br_json_path(doc, "Ethernet/LLDPReceive"),
	       *macs = br_json_path(doc, "Ethernet/AssociatedMACAddresses");
	const char *id = br_json_str(doc, "Id"), *chassis = br_json_str(lldp, "ChassisId"),
		   *link = br_json_str(doc, "LinkStatus");
	struct br_neighbor *nb;
	json_t *vlan = json_object_get(lldp, "ManagementVlanId");
	char *adapter;
	char mac[18];

	/* A Port without the property is a BMC that does not offer it. */
	if (!json_is_object(lldp) || !id || hw->n_neighbors >= RF_NEIGHBORS_MAX)
		return;
	if (!hw->neighbor_source)
		hw->neighbor_source = br_xstrdup("LLDPReceive");
	nb = br_hw_add_neighbor(hw);
	adapter = adapter_of(br_json_str(doc, "@odata.id"));
	nb->port = adapter ? br_xasprintf("%s/%s", adapter, id) : br_hw_strdup(id);
	free(adapter);
	nb->source = br_xstrdup("LLDPReceive");
	if (json_is_array(macs) && !br_mac_normalize(json_string_value(json_array_get(macs, 0)), mac))
		nb->mac = br_xstrdup(mac);
	nb->link = chassis && *chassis && !(link && !strcasecmp(link, "LinkDown"));
	if (!nb->link)
		return;
	nb->chassis_id_subtype = br_hw_strdup(br_json_str(lldp, "ChassisIdSubtype"));
	if (nb->chassis_id_subtype && !strcasecmp(nb->chassis_id_subtype, "MacAddr") &&
	    !br_mac_normalize(chassis, mac))
		nb->chassis_id = br_xstrdup(mac);
	else
		nb->chassis_id = br_hw_strdup(chassis);
	nb->port_id_subtype = br_hw_strdup(br_json_str(lldp, "PortIdSubtype"));
	if (br_json_str(lldp, "PortId"))
		nb->port_id = port_id_text(br_json_str(lldp, "PortId"), nb->port_id_subtype);
	nb->system_name = br_hw_strdup(br_json_str(lldp, "SystemName"));
	nb->mgmt_address = br_hw_strdup(br_json_str(lldp, "ManagementAddressIPv4"));
	if (!nb->mgmt_address)
		nb->mgmt_address = br_hw_strdup(br_json_str(lldp, "ManagementAddressIPv6"));
	if (json_is_integer(vlan) && json_integer_value(vlan) >= 0 && json_integer_value(vlan) <= 4095)
		nb->vlan = (int)json_integer_value(vlan);
}

void rf_neighbors_clear(struct br_hw *hw)
{
	for (size_t i = 0; i < hw->n_neighbors; i++) {
		struct br_neighbor *nb = &hw->neighbors[i];

		free(nb->port);
		free(nb->mac);
		free(nb->chassis_id);
		free(nb->chassis_id_subtype);
		free(nb->system_name);
		free(nb->port_id);
		free(nb->port_id_subtype);
		free(nb->mgmt_address);
		free(nb->source);
	}
	free(hw->neighbors);
	hw->neighbors = NULL;
	hw->n_neighbors = 0;
}

int rf_neighbors_stale(const struct br_hw *hw, size_t *ret_links)
{
	size_t links = 0;
	int stale = 0;

	for (size_t i = 0; i < hw->n_neighbors; i++) {
		links += hw->neighbors[i].link;
		stale |= hw->neighbors[i].stale;
	}
	*ret_links = links;
	return stale;
}
