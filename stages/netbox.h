/*
 * netbox — import a rack from NetBox's REST API instead of rack.csv: the
 * devices a filter selects (dcim/devices/) become manifest rows, and the
 * cables on their interfaces (dcim/cables/) the wiring list. Shapes are
 * NetBox's own (DeviceWithConfigContextSerializer, CableSerializer):
 *
 *   hostname          name
 *   rack, unit        rack.name, position (a whole U)
 *   bmc               oob_ip.address (or primary_ip with --netbox-bmc-ip
 *                     primary) without its prefix length, and
 *                     custom_fields.bringup_bmc_port when set
 *   serial            serial
 *   profile, bmc_user, bmc_password, bmc_type, boot_disk_serial, system
 *                     custom_fields.bringup_NAME, else the import's default
 *
 * Pages are followed by their "next" link (limit/offset), which must stay
 * on the URL the operator gave: the token goes nowhere else. The token is
 * sent as "Token T" (v1) or "Bearer nbt_…" (v2, told by its prefix) and is
 * registered with the log's redaction.
 *
 * Ownership: struct stg_netbox_import owns its manifest and wiring
 * (stg_netbox_import_release); options are borrowed.
 */
#ifndef STAGES_NETBOX_H
#define STAGES_NETBOX_H

#include "common.h"
#include "manifest.h"

#define STG_NETBOX_BODY_MAX (64u * 1024 * 1024) /* one page (1,000 devices are ~5 MiB) */
#define STG_NETBOX_PAGE_LIMIT 1000		/* asked per page: NetBox's MAX_PAGE_SIZE default */
#define STG_NETBOX_OBJECTS_MAX 100000		/* as many rows as a manifest may have */
#define STG_NETBOX_IDS_PER_QUERY 50		/* device_id= per cable query: URLs stay short */
#define STG_NETBOX_QUERY_MAX 2048		/* --netbox-query */

struct stg_netbox_options {
	const char *url;    /* NetBox's base, "https://netbox.example.com/"; /api/ is added */
	const char *token;  /* the token itself (a secret), resolved from its reference */
	const char *query;  /* device filters, "site=dc1&role=gpu-server" */
	int bmc_ip_primary; /* the BMC is primary_ip, not oob_ip */
	/* Each device's custom field, else these (NULL: the field is required). */
	const char *profile, *bmc_user, *bmc_password, *bmc_type;
	const char *ca_file; /* NULL: the system store */
	int insecure;
	long timeout_ms; /* one request; 0: 30 s */
};

struct stg_wiring_row {
	char *hostname, *host_port, *sw, *switch_port;
};

struct stg_netbox_import {
	struct stg_manifest manifest; /* path: the devices' URL (token-free) */
	struct stg_wiring_row *wiring;
	size_t n_wiring;
	struct br_strlist warnings; /* cables bringup cannot use, each naming the cable */
	size_t devices, cables;	    /* what NetBox listed */
};

/* The NetBox field each manifest column comes from, for messages. */
extern const struct stg_manifest_labels stg_netbox_labels;

/* Whether query is only filters a device list takes (key=value&…, keys
 * from a known list): a typo would import the whole site. */
int stg_netbox_query_check(const char *query, struct br_err *err);

/* Read the devices and their cables. Problems of the data (a device
 * without a position, a literal password in a custom field) come back all
 * at once in ret_problems with BR_E_INVAL, each naming the device and the
 * NetBox field; NetBox unreachable or refusing is BR_E_IO (an HTTP 400 for
 * a filter: BR_E_INVAL with NetBox's words). *ret is filled only on
 * success. */
int stg_netbox_import(const struct stg_netbox_options *o, struct stg_netbox_import *ret,
		      struct br_strlist *ret_problems, struct br_err *err);
void stg_netbox_import_release(struct stg_netbox_import *imp);

/* The wiring list as bringup's CSV ("hostname,host_port,switch,switch_port"),
 * written to path through a temporary file and a rename. */
int stg_wiring_write(const struct stg_wiring_row *rows, size_t n, const char *path, struct br_err *err);

/* ---- the mapping, without HTTP (netbox_map.c; the unit tests call it) ---- */

/* One page's results array appended to *objects (a JSON array); the page
 * must be NetBox's list shape. ret_next gets its "next" link or NULL. */
int stg_netbox_page_take(const char *url, json_t *page, json_t *objects, char **ret_next, struct br_err *err);
/* Devices (an array of device objects) into manifest rows, problems per
 * device and field. */
int stg_netbox_devices_map(json_t *devices, const struct stg_netbox_options *o, struct stg_manifest *m,
			   struct br_strlist *problems);
/* Cables into wiring rows: those with one end on an interface of a device
 * in m and the other on another device's interface. */
void stg_netbox_cables_map(json_t *cables, const struct stg_manifest *m, struct stg_netbox_import *imp);

/* ---- export (netbox_export.c): what bringup learned, back to NetBox ---- */

/* A host MAC as discovery stored it: lowercase colon form, the BMC's
 * name of its port ("NIC.Slot.3-1-1"), and the OS's name of it where the
 * node's probe saw the MAC on a network device ("ens3f0np0"; NULL: not
 * probed, or not seen). */
struct stg_netbox_mac {
	const char *mac, *name, *os_name;
};

/* One inventory node, borrowed. */
struct stg_netbox_node {
	const char *hostname; /* NetBox's device name */
	/* The serial to write: the service tag where the BMC reports one (what
	 * Dell's and a site's records name), else the system serial; NULL: none
	 * known (NetBox's is never blanked). serial_alt: the other one the BMC
	 * reported: NetBox holding either is no change. */
	const char *serial, *serial_alt;
	const char *state; /* custom field bringup_state */
	const struct stg_netbox_mac *macs;
	size_t n_macs;
};

struct stg_netbox_export {
	/* Per node: {hostname, device_id (null: not in NetBox), status,
	 * changes: [{field, from, to, interface?, interface_id?, mac_id?,
	 * written}], conflicts: [text],
	 * problem}; status "unchanged", "updated", "would update" (--dry-run),
	 * "not in netbox", "ambiguous", "refused" (its write refused), "not
	 * sent" (changes planned, never sent after a refusal). A MAC two nodes
	 * of the export claim is a conflict on the second. */
	json_t *nodes;
	size_t writes;	/* requests that write: sent (or, dry, that would be) */
	size_t written; /* of those, the ones NetBox took */
	size_t unchanged, missing, conflicts;
};

/* For each node NetBox has a device of that name (o->query narrowing the
 * devices looked at): PATCH the device's serial where NetBox has none or
 * another, and custom field bringup_state where it differs (one request);
 * then each host MAC not yet a MAC address (dcim/mac-addresses/) of the
 * device's interfaces gets one, on the device's interface of the OS's
 * name of the port, else of the BMC's, else created (type "other") with
 * the OS's name where the probe saw it, else the BMC's; an
 * interface with no primary MAC that holds no MAC but the node's gets it
 * as primary (PATCH dcim/interfaces/N/ primary_mac_address). A MAC
 * NetBox holds elsewhere (another device, unassigned) is a conflict, left
 * as NetBox has it. Nothing to change sends no write. dry_run: reads only.
 * The first write NetBox refuses stops the export: BR_E_AUTH (401/403),
 * BR_E_INVAL (400) or BR_E_IO, err with NetBox's words; *ret holds what
 * was written before, whatever the result (stg_netbox_export_release). */
int stg_netbox_export(const struct stg_netbox_options *o, const struct stg_netbox_node *nodes, size_t n,
		      int dry_run, struct stg_netbox_export *ret, struct br_err *err);
void stg_netbox_export_release(struct stg_netbox_export *x);

#endif
