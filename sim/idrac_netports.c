/*
 * Dell's Connection View: the switch port each host NIC port (and the
 * iDRAC's own) sees by LLDP, before any OS runs. Shapes follow the
 * R7615 capture in tests/fixtures/redfish/dell/understack/ (iDRAC 7.x,
 * Apache-2.0, from rackerlabs/understack): the collection under
 * Systems/System.Embedded.1/NetworkPorts/Oem/Dell/DellSwitchConnections
 * with every member inline, SwitchConnectionID the switch's chassis MAC
 * with its octets unpadded ("c4:4d:4:48:61:80"), "No Link" in both IDs
 * for a port without a neighbour, StaleData "NotStale"; the refresh is
 * the DellSwitchConnectionService's ServerPortConnectionRefresh action
 * (iDRAC9 Redfish API guide). Other families have no such resource.
 * HPE (iLO 5 2.73+, iLO 6, as its RESTful API reference documents) shows
 * the same through the DMTF Port schema (DSP0268 Port v1.8:
 * Ethernet.LLDPReceive with ChassisId, ChassisIdSubtype, PortId,
 * PortIdSubtype, SystemName; Ethernet.AssociatedMACAddresses; LinkStatus)
 * under Chassis/1/NetworkAdapters/{id}/Ports/1, one port per adapter here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "idrac.h"

/* iDRAC prints the chassis MAC without leading zeros in each octet. */
static json_t *idrac_mac(const char *sw)
{
	unsigned o[6];
	char mac[18], out[18];

	sim_switch_mac(sw, mac);
	if (sscanf(mac, "%2x:%2x:%2x:%2x:%2x:%2x", &o[0], &o[1], &o[2], &o[3], &o[4], &o[5]) != 6)
		return json_string(mac);
	snprintf(out, sizeof(out), "%x:%x:%x:%x:%x:%x", o[0], o[1], o[2], o[3], o[4], o[5]);
	return json_string(out);
}

static json_t *member(const char *fqdd, const char *sw, const char *sw_port, int stale)
{
	json_t *m = sim_res("#DellSwitchConnection.v1_1_0.DellSwitchConnection", fqdd, "DellSwitchConnection",
			    SIM_R_SYS "/NetworkPorts/Oem/Dell/DellSwitchConnections/%s", fqdd);

	json_object_set_new(m, "Description",
			    json_string("An instance of DellSwitchConnection will have the switch connection "
					"view information of all the ports."));
	json_object_set_new(m, "FQDD", json_string(fqdd));
	json_object_set_new(m, "InstanceID", json_string(fqdd));
	json_object_set_new(m, "StaleData", json_string(stale ? "Stale" : "NotStale"));
	json_object_set_new(m, "SwitchConnectionID", sw ? idrac_mac(sw) : json_string("No Link"));
	json_object_set_new(m, "SwitchPortConnectionID", json_string(sw ? sw_port : "No Link"));
	return m;
}

/* SwitchConnectionView.1.Enable: the rack's start value until PATCHed. */
static int view_enabled(const struct sim_ctx *c)
{
	return c->node->st.connview_set ? c->node->st.connview_enabled : c->cfg->connection_view;
}

json_t *sim_r_switch_connections(struct sim_ctx *c)
{
	const struct sim_node *n = c->node;
	/* connview_stale: what the ports saw before the rack was recabled
	 * (the design), until a refresh is posted */
	int stale = ((sim_fault_has(&n->faults, SIM_F_CONNVIEW_STALE)) && !n->st.connview_refreshes) ||
		    (sim_fault_has(&n->faults, SIM_F_CONNVIEW_STUCK));
	json_t *coll, *members;
	char mgmt[32], mgmt_port[16];

	if (n->vendor != SIM_V_DELL)
		return NULL;
	coll = sim_coll("#DellSwitchConnectionCollection.DellSwitchConnectionCollection",
			"DellSwitchConnectionCollection",
			SIM_R_SYS "/NetworkPorts/Oem/Dell/DellSwitchConnections");
	json_object_set_new(coll, "Description",
			    json_string("A collection of DellSwitchConnection resource"));
	members = json_object_get(coll, "Members");
	snprintf(mgmt, sizeof(mgmt), "mgmt-%s", n->rack);
	snprintf(mgmt_port, sizeof(mgmt_port), "swp%d", 40 + n->unit);
	json_array_append_new(members, member("iDRAC.Embedded.1", mgmt, mgmt_port, stale));
	/* Ethernet (the LOMs) first, as iDRAC lists NIC.Embedded before NIC.Slot */
	for (int i = 0; i < SIM_NICS; i++) {
		int k = (i + SIM_FABRIC_NICS) % SIM_NICS;
		const struct sim_nic *nic = &n->nics[k];
		const char *sw = NULL, *sw_port = NULL;

		if (!nic->present)
			continue;
		/* Disabled, iDRAC reads no LLDP: the simulator shows every port
		 * without a neighbour, as an unplugged one */
		if (!view_enabled(c)) {
			sw = sw_port = NULL;
		} else if (stale) {
			sw = nic->sw;
			sw_port = nic->sw_port;
		} else if (!sim_nic_sees(n, k, &sw, &sw_port)) {
			sw = sw_port = NULL;
		}
		json_array_append_new(members, member(nic->fqdd, sw, sw_port, stale));
	}
	json_object_set_new(coll, "Members@odata.count", json_integer((json_int_t)json_array_size(members)));
	return coll;
}

json_t *sim_r_switch_connection_service(struct sim_ctx *c)
{
	json_t *s, *actions;

	if (c->node->vendor != SIM_V_DELL)
		return NULL;
	s = sim_res("#DellSwitchConnectionService.v1_0_0.DellSwitchConnectionService",
		    "DellSwitchConnectionService", "DellSwitchConnectionService",
		    SIM_R_SYS "/Oem/Dell/DellSwitchConnectionService");
	actions = json_pack("{s:{s:s}}", "#DellSwitchConnectionService.ServerPortConnectionRefresh", "target",
			    SIM_R_SYS "/Oem/Dell/DellSwitchConnectionService/Actions/"
				      "DellSwitchConnectionService.ServerPortConnectionRefresh");
	json_object_set_new(s, "Actions", actions);
	return s;
}

/* The refresh re-reads LLDP on every port; the view is current after it. */
void sim_w_switch_connection_refresh(struct sim_ctx *c)
{
	if (c->node->vendor != SIM_V_DELL) {
		sim_reply_not_found(c);
		return;
	}
	c->node->st.connview_refreshes++;
	c->resp->status = 204;
	sim_response_header(c->resp, "OData-Version", "4.0");
}

/* The iDRAC attributes (Managers/iDRAC.Embedded.1/Oem/Dell/DellAttributes/
 * iDRAC.Embedded.1, the R7615 capture's resource in
 * tests/fixtures/redfish/dell/understack/): only the one this simulator
 * acts on, SwitchConnectionView.1.Enable, "Enabled" or "Disabled". */
json_t *sim_r_idrac_attributes(struct sim_ctx *c)
{
	json_t *a;

	if (c->node->vendor != SIM_V_DELL)
		return NULL;
	a = sim_res("#DellAttributes.v1_0_0.DellAttributes", "iDRAC.Embedded.1", "OEMAttributeRegistry",
		    SIM_R_MGR "/Oem/Dell/DellAttributes/iDRAC.Embedded.1");
	json_object_set_new(a, "Description", json_string("This schema provides the oem attributes"));
	json_object_set_new(a, "AttributeRegistry", json_string("ManagerAttributeRegistry.v1_0_0"));
	json_object_set_new(
	    a, "Attributes",
	    json_pack("{s:s}", "SwitchConnectionView.1.Enable", view_enabled(c) ? "Enabled" : "Disabled"));
	return a;
}

void sim_w_idrac_attributes(struct sim_ctx *c)
{
	const char *v = br_json_str(c->body, "Attributes/SwitchConnectionView.1.Enable");
	json_t *attrs = json_object_get(c->body, "Attributes");

	if (c->node->vendor != SIM_V_DELL) {
		sim_reply_not_found(c);
		return;
	}
	if (!json_is_object(attrs) || json_object_size(attrs) != 1 || !v ||
	    (strcmp(v, "Enabled") && strcmp(v, "Disabled"))) {
		sim_reply_error(c, 400,
				sim_msg(SIM_BASE "PropertyValueNotInList", "Warning",
					"The value for SwitchConnectionView.1.Enable is not in the list of "
					"acceptable values (Enabled, Disabled).",
					"Choose a value from the enumeration list and resubmit the request."),
				NULL);
		return;
	}
	c->node->st.connview_set = 1;
	c->node->st.connview_enabled = !strcmp(v, "Enabled");
	sim_reply(c, 200,
		  json_pack("{s:[{s:s, s:s}]}", "@Message.ExtendedInfo", "MessageId", "Base.1.12.Success",
			    "Message", "Successfully Completed Request"));
}

int sim_ports_lldp(const struct sim_node *n)
{
	return n->vendor == SIM_V_HPE;
}

/* The NIC of adapter id ("NIC.Slot.31"): its one port here; -1 if none. */
static int adapter_nic(const struct sim_node *n, const char *id)
{
	size_t len = strlen(id);

	for (int k = 0; k < SIM_NICS; k++)
		if (n->nics[k].present && !strncmp(n->nics[k].fqdd, id, len) &&
		    !strcmp(n->nics[k].fqdd + len, "-1-1"))
			return k;
	return -1;
}

json_t *sim_r_ports(struct sim_ctx *c)
{
	json_t *coll;
	char *path;

	if (!sim_ports_lldp(c->node) || adapter_nic(c->node, c->args[0]) < 0)
		return NULL;
	path = br_xasprintf(SIM_R_CHASSIS "/NetworkAdapters/%s/Ports", c->args[0]);
	coll = sim_coll("#PortCollection.PortCollection", "Port Collection", path);
	sim_coll_add(coll, "%s/1", path);
	free(path);
	return coll;
}

json_t *sim_r_port(struct sim_ctx *c)
{
	int k = adapter_nic(c->node, c->args[0]);
	const char *sw, *sw_port;
	char mac[18], upper[18];
	json_t *p, *lldp;

	if (!sim_ports_lldp(c->node) || k < 0 || strcmp(c->args[1], "1"))
		return NULL;
	p = sim_res("#Port.v1_8_0.Port", "1", "Network Port 1", SIM_R_CHASSIS "/NetworkAdapters/%s/Ports/1",
		    c->args[0]);
	sim_mac_upper(c->node->nics[k].mac, upper);
	lldp = json_object();
	if (sim_nic_sees(c->node, k, &sw, &sw_port)) {
		sim_switch_mac(sw, mac);
		sim_mac_upper(mac, mac);
		json_object_set_new(lldp, "ChassisId", json_string(mac));
		json_object_set_new(lldp, "ChassisIdSubtype", json_string("MacAddr"));
		json_object_set_new(lldp, "PortId", json_string(sw_port));
		json_object_set_new(lldp, "PortIdSubtype", json_string("IfName"));
		json_object_set_new(lldp, "SystemName", json_string(sw));
	}
	json_object_set_new(p, "LinkStatus", json_string(json_object_size(lldp) ? "LinkUp" : "LinkDown"));
	json_object_set_new(p, "Ethernet",
			    json_pack("{s:[s], s:o}", "AssociatedMACAddresses", upper, "LLDPReceive", lldp));
	json_object_set_new(p, "Status", sim_status("OK"));
	return p;
}
