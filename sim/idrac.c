/*
 * One iDRAC answering a request: route the path, show the BMC faults
 * (flaky, auth, the test-only ones), authenticate, then render, page and
 * expand. Paths are iDRAC's; link depth from the service root is part of
 * each route so the request log can say how deep a client had to walk.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "idrac.h"

#define ARG_MAX 128

typedef json_t *(*render_fn)(struct sim_ctx *c);
typedef void (*write_fn)(struct sim_ctx *c);

enum route_tag { T_NONE, T_PUBLIC, T_SYSTEM, T_ETH_COLL, T_CHASSIS, T_THERMAL, T_BIOS };

enum route_flag {
	R_ETAG = 1,	/* the resource carries @odata.etag, as iDRAC's do */
	R_NO_CACHE = 2, /* the answer changes with simulated time or sessions: render it every time */
	/* Writes here change sessions only, which no cached answer shows: a
	 * client logging in and out around its reads keeps the node's cache. */
	R_SESSION_WRITES = 4,
	R_MULTIPART = 8, /* takes multipart/form-data, not JSON */
};

struct route {
	const char *pattern; /* '*' matches one path segment */
	int depth;
	enum route_tag tag;
	unsigned flags; /* enum route_flag */
	render_fn get;
	write_fn patch, post, del;
};

static json_t *r_versions(struct sim_ctx *c)
{
	return json_pack("{s:s}", "v1", "/redfish/v1/");
}

static const struct route routes[] = {
	{ "/redfish", 0, T_PUBLIC, 0, r_versions, NULL, NULL, NULL },
	{ SIM_R_ROOT, 1, T_PUBLIC, 0, sim_r_root, NULL, NULL, NULL },
	{ SIM_R_ROOT "/odata", 1, T_PUBLIC, 0, sim_r_odata, NULL, NULL, NULL },
	{ SIM_R_ROOT "/Systems", 2, T_NONE, 0, sim_r_systems, NULL, NULL, NULL },
	{ SIM_R_SYS2, 3, T_NONE, 0, sim_r_system2, NULL, NULL, NULL },
	{ SIM_R_SYS2 "/EthernetInterfaces", 4, T_NONE, 0, sim_r_system2_eth_coll, NULL, NULL, NULL },
	{ SIM_R_SYS2 "/Bios", 4, T_NONE, 0, sim_r_system2_bios, NULL, NULL, NULL },
	{ SIM_R_SYS2 "/EthernetInterfaces/*", 5, T_NONE, 0, sim_r_system2_eth, NULL, NULL, NULL },
	{ SIM_R_SYS, 3, T_SYSTEM, R_ETAG, sim_r_system, sim_w_system, NULL, NULL },
	{ SIM_R_SYS "/EthernetInterfaces", 4, T_ETH_COLL, 0, sim_r_eth_coll, NULL, NULL, NULL },
	{ SIM_R_SYS "/EthernetInterfaces/*", 5, T_NONE, 0, sim_r_eth, NULL, NULL, NULL },
	{ SIM_R_SYS "/Processors", 4, T_NONE, 0, sim_r_procs, NULL, NULL, NULL },
	{ SIM_R_SYS "/Processors/*", 5, T_NONE, 0, sim_r_proc, NULL, NULL, NULL },
	{ SIM_R_SYS "/Storage", 4, T_NONE, 0, sim_r_storages, NULL, NULL, NULL },
	{ SIM_R_SYS "/Storage/*", 5, T_NONE, 0, sim_r_storage, NULL, NULL, NULL },
	{ SIM_R_SYS "/Storage/*/Drives/*", 6, T_NONE, 0, sim_r_drive, NULL, NULL, NULL },
	{ SIM_R_SYS "/Storage/*/Volumes", 6, T_NONE, 0, sim_r_volumes, NULL, NULL, NULL },
	{ SIM_R_SYS "/Storage/*/Volumes/*", 7, T_NONE, 0, sim_r_volume, NULL, NULL, NULL },
	{ SIM_R_SYS "/Settings", 4, T_NONE, R_ETAG, sim_r_system_settings, sim_w_system_settings, NULL,
	  NULL },
	{ SIM_R_SYS "/Bios", 4, T_BIOS, R_ETAG, sim_r_bios, NULL, NULL, NULL },
	{ SIM_R_SYS "/Bios/Settings", 5, T_NONE, R_ETAG, sim_r_bios_settings, sim_w_bios_settings, NULL,
	  NULL },
	{ SIM_R_SYS "/Bios/BiosRegistry", 5, T_NONE, 0, sim_r_bios_registry, NULL, NULL, NULL },
	{ SIM_R_SYS "/SecureBoot", 4, T_NONE, 0, sim_r_secure_boot, NULL, NULL, NULL },
	{ SIM_R_SYS "/Memory", 4, T_NONE, 0, sim_r_memory_coll, NULL, NULL, NULL },
	{ SIM_R_SYS "/Memory/*", 5, T_NONE, 0, sim_r_memory, NULL, NULL, NULL },
	{ SIM_R_SYS "/SimpleStorage", 4, T_NONE, 0, sim_r_simple_storage_coll, NULL, NULL, NULL },
	{ SIM_R_SYS "/SimpleStorage/*", 5, T_NONE, 0, sim_r_simple_storage, NULL, NULL, NULL },
	{ SIM_R_SYS "/Actions/ComputerSystem.Reset", 4, T_NONE, 0, NULL, NULL, sim_w_reset, NULL },
	/* depths are the chain of requests a client needs to get there: the
	 * System links no Connection View, its path is Dell's (one after the
	 * System); the attribute and the refresh come after a first reading */
	{ SIM_R_SYS "/NetworkPorts/Oem/Dell/DellSwitchConnections", 4, T_NONE, 0, sim_r_switch_connections,
	  NULL, NULL, NULL },
	{ SIM_R_SYS "/Oem/Dell/DellSwitchConnectionService", 4, T_NONE, 0, sim_r_switch_connection_service,
	  NULL, NULL, NULL },
	{ SIM_R_SYS "/Oem/Dell/DellSwitchConnectionService/Actions/"
		    "DellSwitchConnectionService.ServerPortConnectionRefresh",
	  5, T_NONE, 0, NULL, NULL, sim_w_switch_connection_refresh, NULL },
	{ SIM_R_ROOT "/Chassis", 2, T_NONE, 0, sim_r_chassis_coll, NULL, NULL, NULL },
	{ SIM_R_CHASSIS, 3, T_CHASSIS, R_ETAG, sim_r_chassis, sim_w_chassis, NULL, NULL },
	{ SIM_R_ENCLOSURE, 3, T_NONE, 0, sim_r_enclosure, NULL, NULL, NULL },
	{ SIM_R_CHASSIS "/PCIeDevices", 4, T_NONE, 0, sim_r_pcie_coll, NULL, NULL, NULL },
	/* Linked straight from the System's PCIeDevices array, so one level up. */
	{ SIM_R_CHASSIS "/PCIeDevices/*", 4, T_NONE, 0, sim_r_pcie, NULL, NULL, NULL },
	{ SIM_R_CHASSIS "/PCIeDevices/*/PCIeFunctions", 5, T_NONE, 0, sim_r_pcie_funcs, NULL, NULL, NULL },
	{ SIM_R_CHASSIS "/PCIeDevices/*/PCIeFunctions/*", 6, T_NONE, 0, sim_r_pcie_func, NULL, NULL, NULL },
	{ SIM_R_CHASSIS "/NetworkAdapters", 4, T_NONE, 0, sim_r_adapters, NULL, NULL, NULL },
	{ SIM_R_CHASSIS "/NetworkAdapters/*", 5, T_NONE, 0, sim_r_adapter, NULL, NULL, NULL },
	{ SIM_R_CHASSIS "/NetworkAdapters/*/NetworkDeviceFunctions", 6, T_NONE, 0, sim_r_ndf_coll, NULL, NULL,
	  NULL },
	{ SIM_R_CHASSIS "/NetworkAdapters/*/NetworkDeviceFunctions/*", 7, T_NONE, 0, sim_r_ndf, NULL, NULL,
	  NULL },
	{ SIM_R_CHASSIS "/NetworkAdapters/*/Ports", 6, T_NONE, 0, sim_r_ports, NULL, NULL, NULL },
	{ SIM_R_CHASSIS "/NetworkAdapters/*/Ports/*", 7, T_NONE, 0, sim_r_port, NULL, NULL, NULL },
	{ SIM_R_CHASSIS "/Thermal", 4, T_THERMAL, 0, sim_r_thermal, NULL, NULL, NULL },
	{ SIM_R_CHASSIS "/Power", 4, T_NONE, 0, sim_r_power, NULL, NULL, NULL },
	{ SIM_R_ROOT "/Managers", 2, T_NONE, 0, sim_r_managers, NULL, NULL, NULL },
	{ SIM_R_MGR, 3, T_NONE, R_ETAG, sim_r_manager, NULL, NULL, NULL },
	{ SIM_R_MGR "/Actions/Manager.Reset", 4, T_NONE, 0, NULL, NULL, sim_w_manager_reset, NULL },
	{ SIM_R_MGR "/Oem/Dell/DellAttributes/iDRAC.Embedded.1", 5, T_NONE, 0, sim_r_idrac_attributes,
	  sim_w_idrac_attributes, NULL, NULL },
	{ SIM_R_MGR "/NetworkProtocol", 4, T_NONE, 0, sim_r_network_protocol, NULL, NULL, NULL },
	{ SIM_R_MGR "/VirtualMedia", 4, T_NONE, 0, sim_r_virtual_media_coll, NULL, NULL, NULL },
	{ SIM_R_MGR "/VirtualMedia/*", 5, T_NONE, 0, sim_r_virtual_media, NULL, NULL, NULL },
	{ SIM_R_MGR "/EthernetInterfaces", 4, T_NONE, 0, sim_r_mgr_eth_coll, NULL, NULL, NULL },
	{ SIM_R_MGR "/EthernetInterfaces/*", 5, T_NONE, 0, sim_r_mgr_eth, NULL, NULL, NULL },
	{ SIM_R_MGR "/LogServices", 4, T_NONE, 0, sim_r_log_services, NULL, NULL, NULL },
	{ SIM_R_MGR "/LogServices/Sel", 5, T_NONE, 0, sim_r_sel, NULL, NULL, NULL },
	{ SIM_R_MGR "/LogServices/Sel/Entries", 6, T_NONE, 0, sim_r_sel_entries, NULL, NULL, NULL },
	{ SIM_R_MGR "/LogServices/Sel/Entries/*", 7, T_NONE, 0, sim_r_sel_entry, NULL, NULL, NULL },
	{ SIM_R_MGR "/Jobs", 4, T_NONE, R_NO_CACHE, sim_r_jobs, NULL, sim_w_jobs, NULL },
	{ SIM_R_MGR "/Jobs/*", 5, T_NONE, R_NO_CACHE, sim_r_job, NULL, NULL, NULL },
	{ SIM_R_ROOT "/UpdateService", 2, T_NONE, R_NO_CACHE, sim_r_update_service, NULL, NULL, NULL },
	{ SIM_R_UPDATE_MULTIPART, 3, T_NONE, R_MULTIPART, NULL, NULL, sim_w_update_multipart, NULL },
	{ SIM_R_UPDATE_SIMPLE, 3, T_NONE, 0, NULL, NULL, sim_w_update_simple, NULL },
	{ SIM_R_UPDATE_ILO_PUSH, 3, T_NONE, R_MULTIPART, NULL, NULL, sim_w_update_ilo_push, NULL },
	{ SIM_R_FW, 3, T_NONE, 0, sim_r_fw_coll, NULL, NULL, NULL },
	{ SIM_R_FW "/*", 4, T_NONE, 0, sim_r_fw, NULL, NULL, NULL },
	{ SIM_R_ROOT "/SessionService", 2, T_NONE, 0, sim_r_session_service, NULL, NULL, NULL },
	/* The service root links Sessions directly (Links.Sessions). */
	{ SIM_R_SESSIONS, 2, T_NONE, R_NO_CACHE | R_SESSION_WRITES, sim_r_sessions, NULL,
	  sim_w_session_create, NULL },
	{ SIM_R_SESSIONS "/*", 3, T_NONE, R_NO_CACHE | R_SESSION_WRITES, sim_r_session, NULL, NULL,
	  sim_w_session_delete },
	{ SIM_R_ROOT "/AccountService", 2, T_NONE, 0, sim_r_accounts_service, NULL, NULL, NULL },
	{ SIM_R_ROOT "/AccountService/Accounts", 3, T_NONE, 0, sim_r_accounts, NULL, sim_w_account_create,
	  NULL },
	{ SIM_R_ROOT "/AccountService/Accounts/*", 4, T_NONE, 0, sim_r_account, sim_w_account, NULL, NULL },
	{ SIM_R_ROOT "/AccountService/Roles", 3, T_NONE, 0, sim_r_roles, NULL, NULL, NULL },
	{ SIM_R_ROOT "/AccountService/Roles/*", 4, T_NONE, 0, sim_r_role, NULL, NULL, NULL },
	{ SIM_R_ROOT "/JsonSchemas", 2, T_NONE, 0, sim_r_json_schemas, NULL, NULL, NULL },
	{ SIM_R_ROOT "/JsonSchemas/*", 3, T_NONE, 0, sim_r_json_schema, NULL, NULL, NULL },
	{ SIM_R_ROOT "/Registries", 2, T_NONE, 0, sim_r_registries, NULL, NULL, NULL },
	{ SIM_R_ROOT "/Registries/*", 3, T_NONE, 0, sim_r_registry, NULL, NULL, NULL },
	{ SIM_R_ROOT "/TaskService", 2, T_NONE, 0, sim_r_task_service, NULL, NULL, NULL },
	{ SIM_R_ROOT "/TaskService/Tasks", 3, T_NONE, R_NO_CACHE, sim_r_tasks, NULL, NULL, NULL },
	{ SIM_R_ROOT "/TaskService/Tasks/*", 4, T_NONE, R_NO_CACHE, sim_r_task, NULL, NULL, NULL },
};

/* Match path against pattern, copying '*' segments into args. */
static int match(const char *pattern, const char *path, char args[3][ARG_MAX])
{
	int nargs = 0;

	for (;;) {
		const char *pe = strchrnul(pattern, '/'), *se = strchrnul(path, '/');
		size_t plen = (size_t)(pe - pattern), slen = (size_t)(se - path);

		if (plen == 1 && *pattern == '*') {
			if (nargs == 3 || slen == 0 || slen >= ARG_MAX)
				return 0;
			memcpy(args[nargs], path, slen);
			args[nargs++][slen] = '\0';
		} else if (plen != slen || memcmp(pattern, path, plen)) {
			return 0;
		}
		if (!*pe || !*se)
			return !*pe && !*se;
		pattern = pe + 1;
		path = se + 1;
	}
}

static const struct route *find_route(const char *path, char args[3][ARG_MAX])
{
	for (size_t i = 0; i < sizeof(routes) / sizeof(routes[0]); i++)
		if (match(routes[i].pattern, path, args))
			return &routes[i];
	return NULL;
}

/* Depth of a path no route knows: one below its parent's. */
static int guess_depth(const char *path)
{
	int d = -1;

	for (const char *p = path; *p; p++)
		if (*p == '/')
			d++;
	return d;
}

/* 1 when the node carries test-only fault f, about to alter the answer:
 * an altered answer is not the resource, so it stays out of the cache. */
static int alters(struct sim_ctx *c, enum sim_fault f)
{
	if (!(sim_fault_has(&c->node->faults, f)))
		return 0;
	c->uncacheable = 1;
	return 1;
}

/* bad_types on the System: wrong JSON types where clients trust them. */
static void break_types(json_t *system)
{
	json_object_set_new(system, "SerialNumber", json_integer(4711));
	json_object_set_new(json_object_get(system, "ProcessorSummary"), "Count", json_string("two"));
	json_object_set_new(system, "MemorySummary", json_array());
}

/* huge_serial: a megabyte where a serial belongs, to see that one BMC's
 * string cannot take a client's worker down. Two-byte characters in it,
 * so a cut may fall inside one. */
static void huge_serial(json_t *system)
{
	static const char unit[] = "\xc3\xa9"
				   "0123456789";
	struct br_buf b;

	br_buf_init(&b, 0);
	br_buf_adds(&b, "HUGE-");
	while (b.len + sizeof(unit) - 1 <= SIM_HUGE_SERIAL_BYTES)
		br_buf_adds(&b, unit);
	json_object_set_new(system, "SerialNumber", json_string(br_buf_str(&b)));
	br_buf_release(&b);
}

/* control_chars: a serial that, printed raw, would clear the screen,
 * retitle the terminal, return the cursor to overwrite the line, and ring
 * the bell: what a hostile BMC can send to an operator's terminal. */
static void control_serial(const struct sim_node *n, json_t *system)
{
	char *s = br_xasprintf("CTRL\x1b[2J\x1b]0;pwned\x07\rFAKE\x7f\x01-%s", n->system_serial);

	json_object_set_new(system, "SerialNumber", json_string(s));
	free(s);
}

/* The System's test-only faults, wherever the System is served. */
static void alter_system(struct sim_ctx *c, json_t *system)
{
	if (alters(c, SIM_F_BAD_TYPES))
		break_types(system);
	if (alters(c, SIM_F_HUGE_SERIAL))
		huge_serial(system);
	if (alters(c, SIM_F_CONTROL_CHARS))
		control_serial(c->node, system);
}

/* A resource other than the one requested, for $expand; *ret_tag is its
 * route's tag. NULL leaves the link as it is: no such resource, or one a
 * test-only fault must keep a client's own GET for (a hanging Thermal, a
 * huge Bios, a flooded collection), so $expand is no way around them. */
static json_t *render_path(struct sim_ctx *c, const char *path, enum route_tag *ret_tag)
{
	char args[3][ARG_MAX];
	const struct route *r = find_route(path, args);
	const struct sim_faultset *f = &c->node->faults;
	const char *saved[3];
	json_t *doc;

	if (!r || !r->get)
		return NULL;
	if ((r->tag == T_THERMAL && sim_fault_has(f, SIM_F_HANG)) ||
	    (r->tag == T_BIOS &&
	     (sim_fault_has(f, SIM_F_HUGE_BODY) || sim_fault_has(f, SIM_F_ENDLESS_BODY))) ||
	    (r->tag == T_ETH_COLL &&
	     (sim_fault_has(f, SIM_F_MEMBERS_FLOOD) || sim_fault_has(f, SIM_F_HUGE_COLLECTION) ||
	      sim_fault_has(f, SIM_F_BAD_LINKS) || sim_fault_has(f, SIM_F_BAD_TYPES))))
		return NULL;
	if (r->flags & R_NO_CACHE)
		c->uncacheable = 1;
	memcpy(saved, c->args, sizeof(saved));
	for (int i = 0; i < 3; i++)
		c->args[i] = args[i];
	doc = r->get(c);
	memcpy(c->args, saved, sizeof(saved));
	*ret_tag = r->tag;
	return doc;
}

/* $expand as DSP0266 (Redfish Specification 1.15, clause 7.3 "Query
 * parameters") defines it: "." expands every hyperlink not under a Links
 * property (payload annotations such as @Redfish.Settings included), "*"
 * every hyperlink, "~" only those under Links; $levels=N how many levels
 * of references, each the references of the level above (a collection's
 * Members are its first). No $levels is one level. */
struct expand_query {
	char what; /* '.', '*' or '~' */
	long levels;
};

/* 0 when q is one of ".", "*", "~", each optionally "($levels=N)". */
static int parse_expand(const char *q, struct expand_query *ret)
{
	static const char lv[] = "($levels=";
	const char *p = q + 1;
	char *end;
	long n = 1;

	if (!q[0] || !strchr(".*~", q[0]))
		return -1;
	if (*p) {
		if (strncmp(p, lv, sizeof(lv) - 1))
			return -1;
		errno = 0;
		n = strtol(p + sizeof(lv) - 1, &end, 10);
		if (errno || end == p + sizeof(lv) - 1 || strcmp(end, ")"))
			return -1;
	}
	ret->what = q[0];
	ret->levels = n;
	return 0;
}

static int is_reference(json_t *v)
{
	return json_is_object(v) && json_object_size(v) == 1 &&
	       json_is_string(json_object_get(v, "@odata.id"));
}

/* Expand the references in v (a part of one resource) that the query
 * takes; in_links: v lies under a Links property. 1 when a System was
 * put inline. */
static int expand_refs(struct sim_ctx *c, json_t *v, const struct expand_query *q, long levels, int in_links)
{
	int holds_system = 0;
	const char *key;
	json_t *item;
	size_t i;

	if (json_is_object(v)) {
		void *tmp;

		json_object_foreach_safe(v, tmp, key, item)
		{
			int links = in_links || !strcmp(key, "Links");

			/* The other families' personalities (vendor*.c) reshape
			 * a document path by path: they expand a collection's
			 * Members, and leave a resource's own references links,
			 * as a BMC that expands collections only does. */
			if (c->node->vendor != SIM_V_DELL && strcmp(key, "Members"))
				continue;
			if (is_reference(item)) {
				json_t *full = NULL;
				enum route_tag tag = T_NONE;

				if (q->what == '*' || (q->what == '.') != links)
					full = render_path(c, br_json_str(item, "@odata.id"), &tag);
				if (!full)
					continue;
				if (tag == T_SYSTEM)
					alter_system(c, full);
				holds_system |= tag == T_SYSTEM;
				if (levels > 1)
					holds_system |= expand_refs(c, full, q, levels - 1, 0);
				json_object_set_new(v, key, full);
			} else if (json_is_object(item) || json_is_array(item)) {
				holds_system |= expand_refs(c, item, q, levels, links);
			}
		}
	} else if (json_is_array(v)) {
		json_array_foreach(v, i, item)
		{
			if (is_reference(item)) {
				json_t *full = NULL;
				enum route_tag tag = T_NONE;

				if (q->what == '*' || (q->what == '.') != in_links)
					full = render_path(c, br_json_str(item, "@odata.id"), &tag);
				if (!full)
					continue;
				if (tag == T_SYSTEM)
					alter_system(c, full);
				holds_system |= tag == T_SYSTEM;
				if (levels > 1)
					holds_system |= expand_refs(c, full, q, levels - 1, 0);
				json_array_set_new(v, i, full);
			} else if (json_is_object(item) || json_is_array(item)) {
				holds_system |= expand_refs(c, item, q, levels, in_links);
			}
		}
	}
	return holds_system;
}

/* A $expand the family cannot answer: 400 with Base's message, as DSP0266
 * clause 7.3 asks for a value out of range or badly formed. 1 when refused. */
static int expand_refused(struct sim_ctx *c, const char *query, struct expand_query *ret)
{
	if (parse_expand(query, ret)) {
		sim_reply_error(
		    c, 400,
		    sim_msg(SIM_BASE "QueryParameterValueFormatError", "Warning",
			    "The value for the parameter $expand is of a different format than the "
			    "parameter can accept.",
			    "Correct the value for the query parameter in the request and resubmit "
			    "the request if the operation failed."),
		    NULL);
		return 1;
	}
	if (ret->levels < 1 || ret->levels > SIM_EXPAND_MAX_LEVELS) {
		sim_reply_error(
		    c, 400,
		    sim_msg(SIM_BASE "QueryParameterOutOfRange", "Warning",
			    "The value for the query parameter $levels is out of range (MaxLevels in "
			    "the service root's ProtocolFeaturesSupported.ExpandQuery).",
			    "Reduce the value for the query parameter to a value that is within range."),
		    NULL);
		return 1;
	}
	return 0;
}

/* Members@odata.nextLink paging, $skip=N. */
static void page_members(struct sim_ctx *c, json_t *doc, json_t *members)
{
	const char *skip_arg = sim_request_query(c->req, "$skip"),
		   *expand = sim_request_query(c->req, "$expand");
	size_t total = json_array_size(members);
	long skip = 0;
	json_t *page;

	if (total <= SIM_PAGE_SIZE && !skip_arg)
		return;
	if (skip_arg && br_parse_long(skip_arg, 0, 1L << 30, &skip))
		skip = 0;
	page = json_array();
	for (size_t i = (size_t)skip; i < total && i < (size_t)skip + SIM_PAGE_SIZE; i++)
		json_array_append(page, json_array_get(members, i));
	json_object_set_new(doc, "Members", page);
	if ((size_t)skip + SIM_PAGE_SIZE < total) {
		char *next = br_xasprintf("%s?$skip=%ld%s%s", c->req->path, skip + SIM_PAGE_SIZE,
					  expand ? "&$expand=" : "", expand ? expand : "");

		json_object_set_new(doc, "Members@odata.nextLink", json_string(next));
		free(next);
	}
}

/* bmc_flaky: ~30% of requests stall past a client's timeout, lose their
 * connection, or get iDRAC's "not ready" 503. 1 when already answered. */
static int flaky(struct sim_ctx *c)
{
	struct sim_node *n = c->node;

	if (!(sim_fault_has(&n->faults, SIM_F_BMC_FLAKY)) ||
	    sim_rng_below(&n->st.rng, 100) >= SIM_FLAKY_PERCENT)
		return 0;
	switch (sim_rng_below(&n->st.rng, 3)) {
	case 0:
		c->resp->stall_ms = c->cfg->flaky_stall_ms;
		c->resp->note = "stall";
		return 0;
	case 1:
		c->resp->action = SIM_ACT_CLOSE;
		c->resp->note = "reset";
		return 1;
	default:
		sim_reply_error(
		    c, 503,
		    sim_msg(SIM_MSG "SYS518", "Critical",
			    "iDRAC is not ready. The configuration values cannot be accessed. Please retry "
			    "after a few minutes.",
			    "Wait for a few minutes and retry the operation."),
		    NULL);
		sim_response_header(c->resp, "Retry-After", "1");
		c->resp->note = "503";
		return 1;
	}
}

/* huge_collection: short member paths keep the body under 8 MiB, so a
 * client's cap on members trips before its cap on body size. Written as
 * text: 100,000 jansson objects took the (single-threaded) simulator
 * seconds under ASan, stalling every other BMC it serves. */
static void huge_members(struct sim_ctx *c)
{
	struct br_buf b;

	br_buf_init(&b, 0);
	br_buf_adds(&b, "{\"@odata.id\":\"" SIM_R_SYS "/EthernetInterfaces\",\"Members\":[");
	for (int i = 0; i < SIM_HUGE_MEMBERS; i++)
		br_buf_addf(&b, "%s{\"@odata.id\":\"" SIM_R_SYS "/EthernetInterfaces/%d\"}", i ? "," : "", i);
	br_buf_addf(&b, "],\"Members@odata.count\":%d}", SIM_HUGE_MEMBERS);
	c->resp->status = 200;
	c->resp->body_len = b.len;
	c->resp->body = br_buf_detach(&b);
	c->resp->note = "huge_collection";
}

/* members_flood: {"@odata.id":...,"Members":[{},{},...,{}]}, three bytes a
 * member, just under SIM_FLOOD_BODY_BYTES. */
static void flood_members(struct sim_ctx *c)
{
	static const char head[] = "{\"@odata.id\":\"" SIM_R_SYS "/EthernetInterfaces\",\"Members\":[";
	size_t n = (SIM_FLOOD_BODY_BYTES - sizeof(head) - 8) / 3, len = 0;
	char *body = br_xmalloc(sizeof(head) + n * 3 + 8);

	memcpy(body, head, sizeof(head) - 1);
	len = sizeof(head) - 1;
	for (size_t i = 0; i < n; i++) {
		memcpy(body + len, i ? ",{}" : "{}", i ? 3 : 2);
		len += i ? 3 : 2;
	}
	memcpy(body + len, "]}", 3);
	len += 2;
	c->resp->status = 200;
	c->resp->body = body;
	c->resp->body_len = len;
	c->resp->note = "members_flood";
}

/* bad_links: 198.51.100.7 is TEST-NET-2 (RFC 5737), never a BMC of the rack. */
#define SIM_BAD_LINKS_DEPTH 4000 /* past jansson's own 2048 and any sane cap */
static void bad_links(const struct route *r, json_t *doc)
{
	static const char *const links[] = {
		"http://198.51.100.7/redfish/v1/Systems/System.Embedded.1/EthernetInterfaces/NIC.Evil.1",
		"/redfish/v1/../../../etc/passwd",
		SIM_R_SYS "/EthernetInterfaces",
	};
	json_t *members = json_object_get(doc, "Members");

	if (r->tag == T_ETH_COLL && json_is_array(members)) {
		for (size_t i = 0; i < sizeof(links) / sizeof(links[0]); i++)
			json_array_append_new(members, json_pack("{s:s}", "@odata.id", links[i]));
		json_object_set_new(doc, "Members@odata.count",
				    json_integer((json_int_t)json_array_size(members)));
	} else if (r->tag == T_SYSTEM) {
		json_t *deep = json_object();

		for (int i = 0; i < SIM_BAD_LINKS_DEPTH; i++)
			deep = json_pack("{s:o}", "Nested", deep);
		json_object_set_new(doc, "Oem", json_pack("{s:o}", "Deep", deep));
	}
}

/* endless_body: an opening, then 'A's for ever in chunks (http.c). */
static void endless_body(struct sim_ctx *c)
{
	c->resp->status = 200;
	c->resp->body = br_xasprintf("{\"@odata.id\":\"%s\",\"Oem\":{\"Filler\":\"", SIM_R_SYS "/Bios");
	c->resp->body_len = strlen(c->resp->body);
	c->resp->synthetic_len = SIM_BODY_ENDLESS;
	c->resp->note = "endless_body";
}

/* deep_expand: {"@odata.id":...,"Members":[{"Members":[{"Members":[...]}]}]},
 * SIM_DEEP_EXPAND_LEVELS deep, written as text (no recursion to build or
 * dump it). */
static void deep_expand(struct sim_ctx *c)
{
	static const char down[] = "{\"Members\":[", up[] = "]}";
	struct br_buf b;

	br_buf_init(&b, 0);
	br_buf_addf(&b, "{\"@odata.id\":\"%s\",\"Members\":[", c->req->path);
	for (int i = 0; i < SIM_DEEP_EXPAND_LEVELS; i++)
		br_buf_add(&b, down, sizeof(down) - 1);
	for (int i = 0; i < SIM_DEEP_EXPAND_LEVELS; i++)
		br_buf_add(&b, up, sizeof(up) - 1);
	br_buf_adds(&b, "]}");
	c->resp->status = 200;
	c->resp->body_len = b.len;
	c->resp->body = br_buf_detach(&b);
	c->resp->note = "deep_expand";
}

/* redirect: where each top collection sends a client. 198.51.100.7 is
 * TEST-NET-2; port + 1 is another BMC of the rack or nothing. Every target
 * path ends in "Redirected", so a request that followed one shows in the
 * log. 1 when answered. */
static int redirect(struct sim_ctx *c, const struct route *r)
{
	char *where = NULL;
	int status = 0;

	if (!strcmp(r->pattern, SIM_R_ROOT "/Chassis")) {
		status = 301;
		where = br_xstrdup("http://198.51.100.7" SIM_R_ROOT "/Chassis/Redirected");
	} else if (!strcmp(r->pattern, SIM_R_ROOT "/Managers")) {
		status = 307;
		where =
		    br_xasprintf("http://127.0.0.1:%d" SIM_R_ROOT "/Managers/Redirected", c->node->port + 1);
	} else if (!strcmp(r->pattern, SIM_R_ROOT "/Systems")) {
		status = 302;
		where = br_xstrdup(SIM_R_ROOT "/Systems/Redirected");
	}
	if (!where)
		return 0;
	c->uncacheable = 1;
	sim_reply(c, status, json_pack("{s:s}", "@odata.id", where));
	sim_response_header(c->resp, "Location", where);
	c->resp->note = "redirect";
	free(where);
	return 1;
}

/* Test-only faults that change a rendered document; 1 when answered. */
static int test_faults(struct sim_ctx *c, const struct route *r, json_t *doc)
{
	/* On Bios: a resource a client must fetch by itself (never inlined by
	 * $expand of a collection), so the fault cannot be walked around. */
	if (r->tag == T_BIOS && alters(c, SIM_F_HUGE_BODY)) {
		c->resp->status = 200;
		c->resp->body =
		    br_xasprintf("{\"@odata.id\":\"%s\",\"Oem\":{\"Filler\":\"", SIM_R_SYS "/Bios");
		c->resp->body_len = strlen(c->resp->body);
		c->resp->synthetic_len = SIM_HUGE_BODY_BYTES;
		c->resp->note = "huge_body";
		json_decref(doc);
		return 1;
	}
	if (r->tag == T_BIOS && alters(c, SIM_F_ENDLESS_BODY)) {
		endless_body(c);
		json_decref(doc);
		return 1;
	}
	if (r->tag == T_ETH_COLL && alters(c, SIM_F_MEMBERS_FLOOD)) {
		flood_members(c);
		json_decref(doc);
		return 1;
	}
	if (r->tag == T_ETH_COLL && alters(c, SIM_F_HUGE_COLLECTION)) {
		huge_members(c);
		json_decref(doc);
		return 1;
	}
	if ((r->tag == T_ETH_COLL || r->tag == T_SYSTEM) && alters(c, SIM_F_BAD_LINKS))
		bad_links(r, doc);
	if (r->tag == T_SYSTEM)
		alter_system(c, doc);
	if (r->tag == T_ETH_COLL && alters(c, SIM_F_BAD_TYPES))
		json_object_set_new(doc, "Members", json_pack("{s:s}", "@odata.id", "not-a-list"));
	return 0;
}

static void do_get(struct sim_ctx *c, const struct route *r)
{
	const char *expand = sim_request_query(c->req, "$expand");
	struct expand_query q = { 0 };
	json_t *doc, *members;
	int holds_system = r->tag == T_SYSTEM;

	c->uncacheable = (r->flags & R_NO_CACHE) != 0;
	if ((sim_fault_has(&c->node->faults, SIM_F_REDIRECT)) && redirect(c, r))
		return;
	if (!c->uncacheable && sim_cache_answer(c))
		return;
	doc = r->get ? r->get(c) : NULL;
	if (!doc) {
		sim_reply_not_found(c);
		return;
	}
	if (r->tag == T_THERMAL && alters(c, SIM_F_HANG)) {
		c->resp->action = SIM_ACT_HANG;
		c->resp->note = "hang";
		json_decref(doc);
		return;
	}
	members = json_object_get(doc, "Members");
	if (expand && expand_refused(c, expand, &q)) {
		json_decref(doc);
		return;
	}
	if (json_array_size(members) && expand && alters(c, SIM_F_DEEP_EXPAND)) {
		deep_expand(c);
		json_decref(doc);
		return;
	}
	if (json_is_array(members))
		page_members(c, doc, members);
	if (expand)
		holds_system |= expand_refs(c, doc, &q, q.levels, 0);
	if (test_faults(c, r, doc))
		return;
	sim_reply(c, 200, doc);
	if (holds_system && alters(c, SIM_F_BAD_JSON)) {
		c->resp->body_len /= 2;
		c->resp->body[c->resp->body_len] = '\0';
		c->resp->note = "bad_json";
	}
	sim_cache_keep(c);
}

/* If-Match on a PATCH must name the resource as it is now. 1 when refused. */
static int precondition_failed(struct sim_ctx *c, const struct route *r)
{
	const char *if_match = sim_request_header(c->req, "If-Match");
	char etag[SIM_ETAG_LEN];
	json_t *doc;
	char *text;

	if (!if_match || !strcmp(if_match, "*") || !r->get || !(doc = r->get(c)))
		return 0;
	text = json_dumps(doc, JSON_COMPACT);
	sim_etag_of(text, strlen(text), etag);
	free(text);
	json_decref(doc);
	if (!strcmp(etag, if_match))
		return 0;
	sim_reply_error(c, 412,
			sim_msg(SIM_BASE "PreconditionFailed", "Critical",
				"The ETag supplied did not match the ETag required to change this resource.",
				"Try the operation again using the appropriate ETag."),
			NULL);
	return 1;
}

static void method_not_allowed(struct sim_ctx *c)
{
	sim_reply_error(c, 405,
			sim_msg(SIM_BASE "OperationNotAllowed", "Critical",
				"The HTTP method is not allowed on this resource.",
				"None. Use a method the resource supports."),
			NULL);
}

static void dispatch(struct sim_ctx *c, const struct route *r)
{
	const char *m = c->req->method;
	write_fn w = NULL;

	if (!strcmp(m, "GET") || !strcmp(m, "HEAD")) {
		do_get(c, r);
		return;
	}
	if (!strcmp(m, "PATCH"))
		w = r->patch;
	else if (!strcmp(m, "POST"))
		w = r->post;
	else if (!strcmp(m, "DELETE"))
		w = r->del;
	if (!w) {
		method_not_allowed(c);
		return;
	}
	/* As if every write changed the node, whatever its outcome: cheaper to
	 * re-render than to be wrong about which ones did. */
	if (!(r->flags & R_SESSION_WRITES))
		c->node->st.generation++;
	if (c->req->body_len && !(r->flags & R_MULTIPART)) {
		c->body = json_loadb(c->req->body, c->req->body_len, 0, NULL);
		if (!json_is_object(c->body)) {
			sim_reply_error(
			    c, 400,
			    sim_msg(SIM_BASE "MalformedJSON", "Critical",
				    "The request body submitted was malformed JSON and could not be parsed "
				    "by the receiving service.",
				    "Ensure that the request body is valid JSON and resubmit the request."),
			    NULL);
			return;
		}
	}
	if (!strcmp(m, "PATCH") && precondition_failed(c, r))
		return;
	w(c);
}

void sim_idrac_handle(void *ctx, const struct sim_request *req, struct sim_response *resp)
{
	struct sim_bmc *bmc = ctx;
	char args[3][ARG_MAX];
	struct sim_ctx c = { .node = bmc->node, .cfg = bmc->cfg, .req = req, .resp = resp, .account = -1 };
	char *path = br_xstrdup(req->path);
	size_t len = strlen(path);
	const struct route *r;
	int public;

	/* iDRAC answers /redfish/v1/ as /redfish/v1. */
	while (len > 1 && path[len - 1] == '/')
		path[--len] = '\0';
	r = find_route(path, args);
	for (int i = 0; i < 3; i++)
		c.args[i] = args[i];
	resp->depth = r ? r->depth : guess_depth(path);
	resp->auth = "none";
	sim_jobs_advance(bmc->node);
	sim_fw_tasks_advance(bmc->node, bmc->cfg);
	if (br_now_ms() < bmc->node->st.down_until_ms) {
		/* restarting into new firmware: connections are refused */
		resp->action = SIM_ACT_CLOSE;
		resp->note = "bmc_restarting";
		goto out;
	}
	if (flaky(&c))
		goto out;
	/* $metadata is XML, and readable without authentication (DSP0266 §
	 * "Requests": the service root, /redfish, $metadata and odata are). */
	if (!strcmp(path, SIM_R_ROOT "/$metadata") &&
	    (!strcmp(req->method, "GET") || !strcmp(req->method, "HEAD"))) {
		resp->depth = 1;
		sim_reply_metadata(&c);
		goto out;
	}
	public =
	    r && (r->tag == T_PUBLIC || (r->post == sim_w_session_create && !strcmp(req->method, "POST")));
	if (!public && sim_session_check(&c))
		goto out;
	if (!public && sim_account_change_pending(&c))
		goto out;
	if (!r) {
		sim_reply_not_found(&c);
		goto out;
	}
	c.etag_in_body = (r->flags & R_ETAG) != 0;
	dispatch(&c, r);
out:
	if (sim_fault_has(&bmc->node->faults, SIM_F_TARPIT)) {
		int late = SIM_TARPIT_STALL_MS + SIM_TARPIT_STEP_MS * bmc->node->st.tarpit_answers;

		if (late < SIM_TARPIT_STALL_MAX_MS)
			bmc->node->st.tarpit_answers++;
		else
			late = SIM_TARPIT_STALL_MAX_MS;
		resp->stall_ms += late;
		if (!resp->note)
			resp->note = "tarpit";
	}
	json_decref(c.body);
	free(path);
}
