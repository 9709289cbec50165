/*
 * sim/netbox — a stand-in for NetBox's REST API, the part bringup import
 * reads: dcim/devices/ (the rack's servers and its switches) and
 * dcim/cables/ (the wiring by design, wiring.csv's), with NetBox's shapes
 * (netbox/dcim/api/serializers_/devices.py and cables.py: nested rack,
 * position as a number, oob_ip and primary_ip as nested IP addresses,
 * custom_fields, a_terminations/b_terminations of dcim.interface objects),
 * its offset pagination (count/next/previous/results, limit capped at
 * MAX_PAGE_SIZE, netbox/netbox/api/pagination.py), its filters' 400 for a
 * value no object has, and its token check (403 {"detail": …}, "Token" v1
 * or "Bearer nbt_…" v2 headers, netbox/netbox/api/authentication.py).
 *
 * It takes the writes bringup export sends, validated as NetBox validates
 * them (400 {"field": ["message"]}, a model's clean() under "__all__"):
 * PATCH dcim/devices/ID/ (serial, a CharField of 50; custom_fields, each
 * name one the site defined and each value of its type), POST
 * dcim/interfaces/ (device, name, type required; a name unique per device)
 * and POST dcim/mac-addresses/ (NetBox 4.2+'s MACAddress objects, stored
 * and printed upper case, assigned to an interface by
 * assigned_object_type "dcim.interface" and assigned_object_id). The
 * interfaces and MACs are listed by dcim/interfaces/ and
 * dcim/mac-addresses/ (filters device_id, name, mac_address). A second
 * token without write permission is refused every write (403, DRF's
 * "You do not have permission to perform this action."). Fields and types
 * follow the request bodies of NetBox 4.6's OpenAPI document (/api/schema/)
 * and its serializers (netbox/dcim/api/serializers_/devices.py,
 * device_components.py, netbox/netbox/models/features.py for the custom
 * field messages); NetBox is Apache-2.0, only facts are taken.
 *
 * It serves on the simulator's loop like a BMC; requests are logged in
 * requests.log with "auth" saying which scheme the client sent, never the
 * token.
 *
 * Ownership: sim_netbox_new copies what it needs of the rack; the caller
 * frees the result with sim_netbox_free after the loop is gone.
 */
#ifndef BRINGUP_SIM_NETBOX_H
#define BRINGUP_SIM_NETBOX_H

#include "http.h"
#include "sim.h"

#define SIM_NETBOX_PAGINATE_COUNT 50  /* NetBox's PAGINATE_COUNT default */
#define SIM_NETBOX_MAX_PAGE_SIZE 1000 /* NetBox's MAX_PAGE_SIZE default */
#define SIM_NETBOX_TOKEN_LEN 40	      /* a v1 token: 40 hex characters */

struct sim_netbox_config {
	int max_page_size;  /* 0: SIM_NETBOX_MAX_PAGE_SIZE */
	int https;	    /* next/previous links say https */
	int no_state_field; /* the site defined no custom field bringup_state */
};

struct sim_netbox;

/* The NetBox of rack (its ports known: after the BMCs listen). token and
 * ro_token (one without write permission; NULL: none) are copied. */
struct sim_netbox *sim_netbox_new(const struct sim_rack *rack, const struct sim_netbox_config *cfg,
				  const char *token, const char *ro_token);
void sim_netbox_free(struct sim_netbox *nb);
/* The loop's handler; ctx is the struct sim_netbox. */
void sim_netbox_handle(void *ctx, const struct sim_request *req, struct sim_response *resp);

#endif
