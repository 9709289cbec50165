/* The NetBox API stand-in: the rack's devices and cables, paged and filtered. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "netbox.h"

#define NB_VERSION "4.6.8" /* the release whose serializers these shapes follow */
#define NB_V2_KEY "bringupsim01"

struct nb_device {
	int id;
	const char *name;
	int rack_id; /* 0: not racked (the switches here) */
	const char *role;
	json_t *obj;
};

struct nb_cable {
	int id;
	int device_a, device_b;
	json_t *obj;
};

/* An interface (InterfaceSerializer) and a MAC address object
 * (MACAddressSerializer, NetBox 4.2+: dcim/mac-addresses/, assigned to an
 * interface by assigned_object_type/assigned_object_id). */
struct nb_interface {
	int id;
	int device;
	json_t *obj;
};

struct nb_mac {
	int id;
	int device; /* the interface's device; 0 unassigned */
	json_t *obj;
};

struct sim_netbox {
	struct sim_netbox_config cfg;
	char *token;
	char *ro_token; /* a token without write permission */
	struct nb_device *devices;
	size_t n_devices;
	struct nb_cable *cables;
	size_t n_cables;
	struct br_strlist names; /* owns the device names */
	struct nb_interface *interfaces;
	size_t n_interfaces;
	struct nb_mac *macs;
	size_t n_macs;
	int next_interface;
};

/* The device custom fields this NetBox defines, with their types (extras
 * CustomField: text or integer). Every device serialises each of them,
 * null when unset (CustomFieldsDataField.to_representation). */
static const struct {
	const char *name;
	int integer;
} nb_custom_fields[] = {
	{ "bringup_profile", 0 },	   { "bringup_bmc_port", 1 }, { "bringup_bmc_user", 0 },
	{ "bringup_bmc_password", 0 },	   { "bringup_bmc_type", 0 }, { "bringup_system", 0 },
	{ "bringup_boot_disk_serial", 0 }, { "bringup_state", 0 },    { "bringup_zone", 0 },
	{ "bringup_power_domain", 0 },
};
#define NB_N_CUSTOM_FIELDS (sizeof(nb_custom_fields) / sizeof(nb_custom_fields[0]))

/* Whether the site defined custom field name; -1: no, 0: text, 1: integer. */
static int custom_field_type(const struct sim_netbox *nb, const char *name)
{
	if (nb->cfg.no_state_field && !strcmp(name, "bringup_state"))
		return -1;
	for (size_t i = 0; i < NB_N_CUSTOM_FIELDS; i++)
		if (!strcmp(nb_custom_fields[i].name, name))
			return nb_custom_fields[i].integer;
	return -1;
}

static json_t *brief(const char *kind, int id, const char *name)
{
	char *url = br_xasprintf("/api/dcim/%s/%d/", kind, id);
	json_t *o = json_pack("{s:i, s:s, s:s, s:s, s:s}", "id", id, "url", url, "display", name, "name",
			      name, "description", "");

	free(url);
	return o;
}

static json_t *choice(const char *value, const char *label)
{
	return json_pack("{s:s, s:s}", "value", value, "label", label);
}

/* created and last_updated, as NetBox writes them (ISO 8601, UTC,
 * microseconds), both now: the stand-in keeps no change history. */
static void stamp(json_t *o)
{
	char at[40];
	struct timespec ts;
	struct tm tm;

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(at, sizeof(at), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(at + strlen(at), sizeof(at) - strlen(at), ".%06ldZ", ts.tv_nsec / 1000);
	json_object_set_new(o, "created", json_string(at));
	json_object_set_new(o, "last_updated", json_string(at));
}

/* The counts DeviceSerializer gives of a device's components: none here
 * but its interfaces (interface_count, kept by interface_add). */
static const char *const nb_device_counts[] = {
	"console_port_count",	"console_server_port_count", "power_port_count",      "power_outlet_count",
	"front_port_count",	"rear_port_count",	     "device_bay_count",      "module_bay_count",
	"inventory_item_count", "cooling_intake_count",	     "cooling_outflow_count",
};

/* An IP address as DeviceSerializer nests it (brief fields, dns_name and
 * the NAT pair). */
static json_t *ip_address(int id, const char *address)
{
	char *url = br_xasprintf("/api/ipam/ip-addresses/%d/", id);
	json_t *o =
	    json_pack("{s:i, s:s, s:s, s:o, s:s, s:s, s:s, s:n, s:o}", "id", id, "url", url, "display",
		      address, "family", json_pack("{s:i, s:s}", "value", 4, "label", "IPv4"), "address",
		      address, "description", "", "dns_name", "", "nat_inside", "nat_outside", json_array());

	free(url);
	return o;
}

static int device_add(struct sim_netbox *nb, const char *name, const char *role, int rack_id,
		      const char *rack, int position, json_t *custom, const char *serial, int oob_port)
{
	struct nb_device *d;
	int id = (int)nb->n_devices + 1;
	json_t *o;

	nb->devices = br_xrealloc(nb->devices, (nb->n_devices + 1) * sizeof(*nb->devices));
	d = &nb->devices[nb->n_devices++];
	br_strlist_add(&nb->names, name);
	d->id = id;
	d->name = nb->names.items[nb->names.n - 1];
	d->rack_id = rack_id;
	d->role = role;
	o = json_pack("{s:i, s:s, s:s, s:s, s:s, s:s}", "id", id, "url", "", "display_url", "", "display",
		      name, "name", name, "serial", serial);
	/* a choice field, {value, label} (NetBox's ChoiceField), null when blank */
	json_object_set_new(o, "face", rack_id ? choice("front", "Front") : json_null());
	json_object_set_new(o, "url", json_sprintf("/api/dcim/devices/%d/", id));
	json_object_set_new(o, "display_url", json_sprintf("/dcim/devices/%d/", id));
	json_object_set_new(o, "device_type",
			    json_pack("{s:i, s:s, s:o, s:s, s:s}", "id", strcmp(role, "switch") ? 1 : 2,
				      "display", "", "manufacturer", brief("manufacturers", 1, "Simulated"),
				      "model", strcmp(role, "switch") ? "GPU server" : "Ethernet switch",
				      "slug", strcmp(role, "switch") ? "gpu-server" : "ethernet-switch"));
	json_object_set_new(o, "role",
			    brief("device-roles", strcmp(role, "switch") ? 1 : 2,
				  strcmp(role, "switch") ? "GPU server" : "Switch"));
	json_object_set_new(json_object_get(o, "role"), "slug", json_string(role));
	json_object_set_new(o, "site", brief("sites", 1, "sim"));
	json_object_set_new(json_object_get(o, "site"), "slug", json_string("sim"));
	json_object_set_new(o, "tenant", json_null());
	json_object_set_new(o, "platform", json_null());
	json_object_set_new(o, "asset_tag", json_null());
	json_object_set_new(o, "location", json_null());
	json_object_set_new(o, "rack", rack_id ? brief("racks", rack_id, rack) : json_null());
	/* NetBox serialises position as a number (COERCE_DECIMAL_TO_STRING
	 * off), with a decimal part: 3.0, 10.5. */
	json_object_set_new(o, "position", rack_id ? json_real(position) : json_null());
	json_object_set_new(o, "status", choice("active", "Active"));
	json_object_set_new(o, "primary_ip", json_null());
	json_object_set_new(o, "primary_ip4", json_null());
	json_object_set_new(o, "primary_ip6", json_null());
	json_object_set_new(o, "oob_ip", oob_port ? ip_address(id, "127.0.0.1/32") : json_null());
	json_object_set_new(o, "comments", json_string(""));
	json_object_set_new(o, "tags", json_array());
	if (!custom)
		custom = json_object();
	for (size_t i = 0; i < NB_N_CUSTOM_FIELDS; i++)
		if (custom_field_type(nb, nb_custom_fields[i].name) >= 0 &&
		    !json_object_get(custom, nb_custom_fields[i].name))
			json_object_set_new(custom, nb_custom_fields[i].name, json_null());
	json_object_set_new(o, "custom_fields", custom);
	json_object_set_new(o, "interface_count", json_integer(0));
	for (size_t i = 0; i < sizeof(nb_device_counts) / sizeof(nb_device_counts[0]); i++)
		json_object_set_new(o, nb_device_counts[i], json_integer(0));
	json_object_set_new(o, "config_context", json_object());
	json_object_set_new(o, "parent_device", json_null());
	stamp(o);
	d->obj = o;
	return id;
}

/* A new interface of device d (InterfaceSerializer's fields); its id. */
static int interface_add(struct sim_netbox *nb, struct nb_device *d, const char *name, const char *type,
			 const char *description)
{
	int id = ++nb->next_interface;
	struct nb_interface *in;
	json_t *o = brief("interfaces", id, name);

	json_object_set_new(o, "display_url", json_sprintf("/dcim/interfaces/%d/", id));
	json_object_set_new(o, "device", brief("devices", d->id, d->name));
	json_object_set_new(o, "module", json_null());
	json_object_set_new(o, "label", json_string(""));
	json_object_set_new(o, "type", choice(type, strcmp(type, "other") ? type : "Other"));
	json_object_set_new(o, "enabled", json_true());
	json_object_set_new(o, "mtu", json_null());
	/* 4.2+: the primary MAC's address, read-only; the MACs themselves
	 * are dcim/mac-addresses objects, listed briefly here. */
	json_object_set_new(o, "mac_address", json_null());
	json_object_set_new(o, "primary_mac_address", json_null());
	json_object_set_new(o, "mac_addresses", json_array());
	json_object_set_new(o, "mgmt_only", json_false());
	json_object_set_new(o, "description", json_string(description ? description : ""));
	json_object_set_new(o, "cable", json_null());
	/* what NetBox's InterfaceSerializer adds of the cable path and the
	 * rest (read-only): nothing connected until a cable ends here */
	json_object_set_new(o, "cable_end", json_null());
	json_object_set_new(o, "_occupied", json_false());
	json_object_set_new(o, "link_peers", json_array());
	json_object_set_new(o, "link_peers_type", json_null());
	json_object_set_new(o, "connected_endpoints", json_null());
	json_object_set_new(o, "connected_endpoints_type", json_null());
	json_object_set_new(o, "connected_endpoints_reachable", json_false());
	json_object_set_new(o, "bridge_interfaces", json_array());
	json_object_set_new(o, "l2vpn_termination", json_null());
	json_object_set_new(o, "wireless_link", json_null());
	json_object_set_new(o, "count_ipaddresses", json_integer(0));
	json_object_set_new(o, "count_fhrp_groups", json_integer(0));
	json_object_set_new(o, "tags", json_array());
	json_object_set_new(o, "custom_fields", json_object());
	stamp(o);
	nb->interfaces = br_xrealloc(nb->interfaces, (nb->n_interfaces + 1) * sizeof(*nb->interfaces));
	in = &nb->interfaces[nb->n_interfaces++];
	in->id = id;
	in->device = d->id;
	in->obj = o;
	json_integer_set(json_object_get(d->obj, "interface_count"),
			 json_integer_value(json_object_get(d->obj, "interface_count")) + 1);
	return id;
}

static json_t *termination(struct sim_netbox *nb, struct nb_device *d, const char *port, int cable_id)
{
	int id = interface_add(nb, d, port, "other", NULL);
	json_t *iface = brief("interfaces", id, port), *full = nb->interfaces[nb->n_interfaces - 1].obj;

	json_object_set_new(iface, "device", brief("devices", d->id, d->name));
	json_object_set_new(iface, "cable",
			    json_pack("{s:i, s:s, s:s}", "id", cable_id, "url", "", "display", ""));
	json_object_set_new(iface, "_occupied", json_true());
	json_object_set(full, "cable", json_object_get(iface, "cable"));
	json_object_set_new(full, "_occupied", json_true());
	return json_pack("[{s:s, s:i, s:o}]", "object_type", "dcim.interface", "object_id", id, "object",
			 iface);
}

static int switch_id(struct sim_netbox *nb, const char *name)
{
	for (size_t i = 0; i < nb->n_devices; i++)
		if (!strcmp(nb->devices[i].role, "switch") && !strcmp(nb->devices[i].name, name))
			return nb->devices[i].id;
	return device_add(nb, name, "switch", 0, NULL, 0, NULL, "", 0);
}

static void cable_add(struct sim_netbox *nb, int a, const char *a_port, int b, const char *b_port)
{
	int id = (int)nb->n_cables + 1;
	struct nb_cable *c;
	json_t *o;

	nb->cables = br_xrealloc(nb->cables, (nb->n_cables + 1) * sizeof(*nb->cables));
	c = &nb->cables[nb->n_cables++];
	c->id = id;
	c->device_a = a;
	c->device_b = b;
	o = json_pack("{s:i, s:s, s:s, s:s}", "id", id, "url", "", "display", "", "type", "cat6");
	json_object_set_new(o, "url", json_sprintf("/api/dcim/cables/%d/", id));
	json_object_set_new(o, "display", json_sprintf("#%d", id));
	json_object_set_new(o, "a_terminations", termination(nb, &nb->devices[a - 1], a_port, id));
	json_object_set_new(o, "b_terminations", termination(nb, &nb->devices[b - 1], b_port, id));
	json_object_set_new(o, "status", choice("connected", "Connected"));
	json_object_set_new(o, "label", json_string(""));
	json_object_set_new(o, "tags", json_array());
	json_object_set_new(o, "custom_fields", json_object());
	c->obj = o;
}

struct sim_netbox *sim_netbox_new(const struct sim_rack *rack, const struct sim_netbox_config *cfg,
				  const char *token, const char *ro_token)
{
	struct sim_netbox *nb = br_xcalloc(1, sizeof(*nb));
	struct br_strlist racks = { 0 };
	int *ids = br_xcalloc(rack->n ? rack->n : 1, sizeof(*ids));

	nb->cfg = *cfg;
	if (nb->cfg.max_page_size <= 0)
		nb->cfg.max_page_size = SIM_NETBOX_MAX_PAGE_SIZE;
	nb->token = br_xstrdup(token);
	nb->ro_token = ro_token ? br_xstrdup(ro_token) : NULL;
	/* Every server first, so their ids are 1..N in rack order. */
	for (size_t i = 0; i < rack->n; i++) {
		const struct sim_node *n = &rack->nodes[i];
		size_t r;
		json_t *custom;

		for (r = 0; r < racks.n && strcmp(racks.items[r], n->rack); r++)
			;
		if (r == racks.n)
			br_strlist_add(&racks, n->rack);
		custom =
		    json_pack("{s:s, s:i, s:s, s:s, s:s}", "bringup_profile", sim_vendor_profile(n->vendor),
			      "bringup_bmc_port", n->port, "bringup_bmc_user", "root", "bringup_bmc_password",
			      "env:BRINGUP_BMC_PASSWORD", "bringup_bmc_type", "redfish");
		if (sim_fault_has(&n->faults, SIM_F_TWO_HOSTS))
			json_object_set_new(custom, "bringup_system", json_string("System.Embedded.1"));
		ids[i] = device_add(nb, n->hostname, "gpu-server", (int)r + 1, n->rack, n->unit, custom,
				    sim_manifest_serial(n), n->port);
	}
	for (size_t i = 0; i < rack->n; i++) {
		const struct sim_node *n = &rack->nodes[i];

		/* wiring.csv's cables: an InfiniBand port's is the fabric's. */
		for (int k = 0; k < SIM_NICS; k++)
			if (n->nics[k].fitted && !(k < SIM_FABRIC_NICS && sim_node_infiniband(n)))
				cable_add(nb, ids[i], n->nics[k].ifname, switch_id(nb, n->nics[k].sw),
					  n->nics[k].sw_port);
	}
	br_strlist_release(&racks);
	free(ids);
	return nb;
}

void sim_netbox_free(struct sim_netbox *nb)
{
	if (!nb)
		return;
	for (size_t i = 0; i < nb->n_devices; i++)
		json_decref(nb->devices[i].obj);
	for (size_t i = 0; i < nb->n_cables; i++)
		json_decref(nb->cables[i].obj);
	for (size_t i = 0; i < nb->n_interfaces; i++)
		json_decref(nb->interfaces[i].obj);
	for (size_t i = 0; i < nb->n_macs; i++)
		json_decref(nb->macs[i].obj);
	free(nb->interfaces);
	free(nb->macs);
	free(nb->ro_token);
	free(nb->devices);
	free(nb->cables);
	br_strlist_release(&nb->names);
	free(nb->token);
	free(nb);
}

/* ---- requests --------------------------------------------------------------- */

struct qparam {
	char *key, *value;
};

struct query {
	struct qparam *p;
	size_t n;
};

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static char *unescape(const char *s, size_t len)
{
	char *out = br_xcalloc(1, len + 1), *o = out;

	for (size_t i = 0; i < len; i++) {
		if (s[i] == '%' && i + 2 < len && hexval(s[i + 1]) >= 0 && hexval(s[i + 2]) >= 0) {
			*o++ = (char)(hexval(s[i + 1]) * 16 + hexval(s[i + 2]));
			i += 2;
		} else {
			*o++ = s[i] == '+' ? ' ' : s[i];
		}
	}
	return out;
}

/* Every key=value of the query, repeated keys kept (device_id=1&device_id=2). */
static void query_parse(const char *uri, struct query *q)
{
	const char *s = strchr(uri, '?');

	memset(q, 0, sizeof(*q));
	while (s && *s) {
		const char *item = s + 1, *end = strchr(item, '&'), *eq;

		if (!end)
			end = item + strlen(item);
		eq = memchr(item, '=', (size_t)(end - item));
		if (end > item) {
			q->p = br_xrealloc(q->p, (q->n + 1) * sizeof(*q->p));
			q->p[q->n].key = unescape(item, (size_t)((eq ? eq : end) - item));
			q->p[q->n].value = eq ? unescape(eq + 1, (size_t)(end - eq - 1)) : br_xstrdup("");
			q->n++;
		}
		s = *end ? end : NULL;
	}
}

static void query_release(struct query *q)
{
	for (size_t i = 0; i < q->n; i++) {
		free(q->p[i].key);
		free(q->p[i].value);
	}
	free(q->p);
}

static long query_long(const struct query *q, const char *key, long dflt)
{
	long v = dflt;

	for (size_t i = 0; i < q->n; i++)
		if (!strcmp(q->p[i].key, key) && br_parse_long(q->p[i].value, 0, 1000000000L, &v))
			v = dflt; /* NetBox ignores a limit or offset it cannot read */
	return v;
}

static void respond_json(struct sim_response *resp, int status, json_t *doc)
{
	resp->status = status;
	resp->body = json_dumps(doc, JSON_COMPACT);
	resp->body_len = resp->body ? strlen(resp->body) : 0;
	json_decref(doc);
}

static void detail(struct sim_response *resp, int status, const char *text)
{
	respond_json(resp, status, json_pack("{s:s}", "detail", text));
}

/* "Token <t>" (v1) or "Bearer nbt_<key>.<t>" (v2); 1 when allowed, 2 for
 * the token without write permission (v1 only), else 0 with the 403 NetBox
 * answers in resp. */
static int authorized(struct sim_netbox *nb, const struct sim_request *req, struct sim_response *resp)
{
	const char *h = sim_request_header(req, "Authorization");

	resp->auth = "none";
	if (!h) {
		detail(resp, 403, "Authentication credentials were not provided.");
		return 0;
	}
	if (!strncmp(h, "Token ", 6)) {
		resp->auth = "token";
		if (!strcmp(h + 6, nb->token))
			return 1;
		if (nb->ro_token && !strcmp(h + 6, nb->ro_token))
			return 2;
		detail(resp, 403, "Invalid v1 token");
		return 0;
	}
	if (!strncmp(h, "Bearer ", 7)) {
		resp->auth = "bearer";
		if (!strncmp(h + 7, "nbt_" NB_V2_KEY ".", strlen("nbt_" NB_V2_KEY ".")) &&
		    !strcmp(h + 7 + strlen("nbt_" NB_V2_KEY "."), nb->token))
			return 1;
		detail(resp, 403, "Invalid v2 token");
		return 0;
	}
	resp->auth = "other";
	detail(resp, 403,
	       "Invalid authorization header: Must be in the form \"Bearer <key>.<token>\" or "
	       "\"Token <token>\"");
	return 0;
}

/* One filter of a device: whether d matches value; -1 when the value names
 * nothing NetBox knows (a choice filter's 400), 0 no, 1 yes. */
static int device_filter(const struct nb_device *d, const char *key, const char *value)
{
	long n;

	if (!strcmp(key, "site"))
		return strcmp(value, "sim") ? -1 : 1;
	if (!strcmp(key, "role"))
		return strcmp(value, "gpu-server") && strcmp(value, "switch") ? -1 : !strcmp(value, d->role);
	if (!strcmp(key, "name"))
		return !strcmp(value, d->name);
	if (!strcmp(key, "rack_id") || !strcmp(key, "id"))
		return br_parse_long(value, 0, 1000000000L, &n)
			   ? -1
			   : (long)(!strcmp(key, "id") ? d->id : d->rack_id) == n;
	return 2; /* not a filter here: django-filter ignores what it does not know */
}

static int cable_filter(const struct sim_netbox *nb, const struct nb_cable *c, const char *key,
			const char *value)
{
	long n;

	(void)nb;
	if (!strcmp(key, "site"))
		return strcmp(value, "sim") ? -1 : 1;
	if (!strcmp(key, "device_id"))
		return br_parse_long(value, 0, 1000000000L, &n) ? -1 : (c->device_a == n || c->device_b == n);
	return 2;
}

/* Whether an object passes every filter key (any of a key's values). */
static int matches(const struct query *q,
		   int (*one)(const void *obj, const void *nb, const char *key, const char *value),
		   const void *obj, const void *nb, char **ret_bad_key, char **ret_bad_value)
{
	for (size_t i = 0; i < q->n; i++) {
		int any = 0, known = 0;

		if (!strcmp(q->p[i].key, "limit") || !strcmp(q->p[i].key, "offset"))
			continue;
		for (size_t j = 0; j < q->n; j++) {
			int r;

			if (strcmp(q->p[i].key, q->p[j].key))
				continue;
			r = one(obj, nb, q->p[j].key, q->p[j].value);
			if (r < 0) {
				*ret_bad_key = q->p[j].key;
				*ret_bad_value = q->p[j].value;
				return -1;
			}
			known |= r != 2;
			any |= r == 1;
		}
		if (known && !any)
			return 0;
	}
	return 1;
}

static int device_one(const void *obj, const void *nb, const char *key, const char *value)
{
	(void)nb;
	return device_filter(obj, key, value);
}

static int cable_one(const void *obj, const void *nb, const char *key, const char *value)
{
	return cable_filter(nb, obj, key, value);
}

/* "scheme://host" of the request, as NetBox builds its links
 * (request.build_absolute_uri). Caller frees. */
static char *origin_of(const struct sim_netbox *nb, const struct sim_request *req)
{
	const char *host = sim_request_header(req, "Host");

	return br_xasprintf("%s://%s", nb->cfg.https ? "https" : "http", host ? host : "127.0.0.1");
}

/* Every "url" and "display_url" made absolute, as NetBox serialises its
 * hyperlinks. */
static void absolutize(json_t *v, const char *origin)
{
	const char *key;
	json_t *member;
	size_t i;

	if (json_is_array(v))
		json_array_foreach(v, i, member) absolutize(member, origin);
	if (!json_is_object(v))
		return;
	json_object_foreach(v, key, member)
	{
		if ((!strcmp(key, "url") || !strcmp(key, "display_url")) && json_is_string(member) &&
		    json_string_value(member)[0] == '/') {
			char *abs = br_xasprintf("%s%s", origin, json_string_value(member));

			json_string_set(member, abs);
			free(abs);
		} else {
			absolutize(member, origin);
		}
	}
}

/* The page's link: the request's URL with limit and offset replaced. */
static json_t *page_link(const struct sim_netbox *nb, const struct sim_request *req, const struct query *q,
			 long limit, long offset)
{
	const char *host = sim_request_header(req, "Host");
	struct br_buf b;
	json_t *link;

	br_buf_init(&b, 0);
	br_buf_addf(&b, "%s://%s%s?", nb->cfg.https ? "https" : "http", host ? host : "127.0.0.1", req->path);
	for (size_t i = 0; i < q->n; i++)
		if (strcmp(q->p[i].key, "limit") && strcmp(q->p[i].key, "offset"))
			br_buf_addf(&b, "%s=%s&", q->p[i].key, q->p[i].value);
	br_buf_addf(&b, "limit=%ld", limit);
	if (offset > 0)
		br_buf_addf(&b, "&offset=%ld", offset);
	link = json_string(br_buf_str(&b));
	br_buf_release(&b);
	return link;
}

enum nb_kind { NB_DEVICES, NB_CABLES, NB_INTERFACES, NB_MACS };

/* A MAC as NetBox stores and prints it (netaddr's EUI, dialect
 * mac_unix_expanded_uppercase: "AA:BB:CC:00:11:22"), or 0 when value is
 * not one (six hex pairs, ':' or '-' between). */
static int mac_normal(const char *value, char out[18])
{
	if (strlen(value) != 17)
		return 0;
	for (int i = 0; i < 17; i++) {
		char c = value[i];

		if (i % 3 == 2) {
			if (c != ':' && c != '-')
				return 0;
			out[i] = ':';
		} else {
			if (hexval(c) < 0)
				return 0;
			out[i] = (char)(c >= 'a' && c <= 'f' ? c - 'a' + 'A' : c);
		}
	}
	out[17] = '\0';
	return 1;
}

static int interface_one(const void *obj, const void *nb, const char *key, const char *value)
{
	const struct nb_interface *in = obj;
	long n;

	(void)nb;
	if (!strcmp(key, "device_id") || !strcmp(key, "id"))
		return br_parse_long(value, 0, 1000000000L, &n)
			   ? -1
			   : (long)(!strcmp(key, "id") ? in->id : in->device) == n;
	if (!strcmp(key, "name"))
		return !strcmp(value, br_json_str(in->obj, "name"));
	return 2;
}

static int mac_one(const void *obj, const void *nb, const char *key, const char *value)
{
	const struct nb_mac *m = obj;
	char mac[18];
	long n;

	(void)nb;
	if (!strcmp(key, "device_id") || !strcmp(key, "id") || !strcmp(key, "assigned_object_id"))
		return br_parse_long(value, 0, 1000000000L, &n) ? -1
		       : !strcmp(key, "id")			? m->id == n
		       : !strcmp(key, "device_id")
			   ? m->device == n
			   : json_integer_value(json_object_get(m->obj, "assigned_object_id")) == n;
	/* MultiValueMACAddressFilter: any spelling of the same MAC. */
	if (!strcmp(key, "mac_address"))
		return mac_normal(value, mac) && !strcmp(mac, br_json_str(m->obj, "mac_address"));
	return 2;
}

static void list(struct sim_netbox *nb, const struct sim_request *req, struct sim_response *resp,
		 enum nb_kind kind)
{
	static int (*const ones[])(const void *, const void *, const char *,
				   const char *) = { device_one, cable_one, interface_one, mac_one };
	struct query q;
	json_t *results = json_array(), *doc;
	long limit, offset, count = 0;
	char *bad_key = NULL, *bad_value = NULL;
	size_t total = kind == NB_DEVICES      ? nb->n_devices
		       : kind == NB_CABLES     ? nb->n_cables
		       : kind == NB_INTERFACES ? nb->n_interfaces
					       : nb->n_macs;

	query_parse(req->uri, &q);
	/* pagination.py's get_limit: the default page, a limit of 0 or past
	 * MAX_PAGE_SIZE is MAX_PAGE_SIZE. */
	limit = query_long(&q, "limit", SIM_NETBOX_PAGINATE_COUNT);
	if (limit == 0 || limit > nb->cfg.max_page_size)
		limit = nb->cfg.max_page_size;
	offset = query_long(&q, "offset", 0);
	for (size_t i = 0; i < total; i++) {
		const void *obj = kind == NB_DEVICES	  ? (const void *)&nb->devices[i]
				  : kind == NB_CABLES	  ? (const void *)&nb->cables[i]
				  : kind == NB_INTERFACES ? (const void *)&nb->interfaces[i]
							  : (const void *)&nb->macs[i];
		json_t *o = kind == NB_DEVICES	    ? nb->devices[i].obj
			    : kind == NB_CABLES	    ? nb->cables[i].obj
			    : kind == NB_INTERFACES ? nb->interfaces[i].obj
						    : nb->macs[i].obj;
		int m = matches(&q, ones[kind], obj, nb, &bad_key, &bad_value);

		if (m < 0) {
			json_t *err = json_object();

			json_object_set_new(
			    err, bad_key,
			    json_pack("[o]", json_sprintf("Select a valid choice. %s is not one "
							  "of the available choices.",
							  bad_value)));
			json_decref(results);
			respond_json(resp, 400, err);
			query_release(&q);
			return;
		}
		if (m && count++ >= offset && count <= offset + limit)
			json_array_append_new(results, json_deep_copy(o));
	}
	{
		char *origin = origin_of(nb, req);

		absolutize(results, origin);
		free(origin);
	}
	doc = json_pack(
	    "{s:I, s:o, s:o, s:o}", "count", (json_int_t)count, "next",
	    offset + limit < count ? page_link(nb, req, &q, limit, offset + limit) : json_null(), "previous",
	    offset > 0 ? page_link(nb, req, &q, limit, offset > limit ? offset - limit : 0) : json_null(),
	    "results", results);
	respond_json(resp, 200, doc);
	query_release(&q);
}

/* ---- writes ------------------------------------------------------------------ */

/* NetBox's 400: {"field": ["message"]}, as DRF's ValidationError
 * serialises (a model's clean() under "__all__"). */
static void invalid(struct sim_response *resp, const char *field, const char *fmt, ...) BR_PRINTF(3, 4);
static void invalid(struct sim_response *resp, const char *field, const char *fmt, ...)
{
	struct br_buf b;
	va_list ap;

	br_buf_init(&b, 0);
	va_start(ap, fmt);
	br_buf_vaddf(&b, fmt, ap);
	va_end(ap);
	respond_json(resp, 400, json_pack("{s:[s]}", field, br_buf_str(&b)));
	br_buf_release(&b);
}

/* The request's body as a JSON object, else the 400 DRF answers. */
static json_t *body_object(const struct sim_request *req, struct sim_response *resp)
{
	json_error_t e;
	json_t *doc = json_loadb(req->body, req->body_len, 0, &e);

	if (!doc) {
		detail(resp, 400, "JSON parse error - Expecting value");
		return NULL;
	}
	if (!json_is_object(doc)) {
		invalid(resp, "non_field_errors", "Invalid data. Expected a dictionary, but got %s.",
			json_is_array(doc)    ? "list"
			: json_is_string(doc) ? "str"
					      : "int");
		json_decref(doc);
		return NULL;
	}
	return doc;
}

/* Device fields NetBox takes that the stand-in does not model: refused
 * with a 400 rather than dropped, so that no client believes it wrote
 * one. Anything else that is not a device field DRF ignores, as here. */
static const char *const unmodelled_device_fields[] = {
	"name",	       "device_type", "role",
	"tenant",      "platform",    "asset_tag",
	"site",	       "location",    "rack",
	"position",    "face",	      "status",
	"airflow",     "primary_ip4", "primary_ip6",
	"oob_ip",      "cluster",     "virtual_chassis",
	"vc_position", "vc_priority", "description",
	"comments",    "tags",	      "config_template",
	"latitude",    "longitude",   "local_context_data",
};

/* DRF CharField: a string, or a number it turns into one; 1 when taken. */
static int char_field(struct sim_response *resp, const char *field, json_t *v, size_t max)
{
	if (!json_is_string(v) && !json_is_number(v)) {
		invalid(resp, field, json_is_null(v) ? "This field may not be null." : "Not a valid string.");
		return 0;
	}
	if (json_is_string(v) && json_string_length(v) > max) {
		invalid(resp, field, "Ensure this field has no more than %zu characters.", max);
		return 0;
	}
	return 1;
}

/* PATCH dcim/devices/ID/: serial and custom_fields, checked whole before
 * any is applied (one transaction in NetBox). */
/* A copy of obj as the answer, its URLs absolute as NetBox gives them. */
static void respond_object(struct sim_netbox *nb, const struct sim_request *req, struct sim_response *resp,
			   int status, json_t *obj)
{
	json_t *out = json_deep_copy(obj);
	char *origin = origin_of(nb, req);

	absolutize(out, origin);
	free(origin);
	respond_json(resp, status, out);
}

static void device_patch(struct sim_netbox *nb, struct nb_device *d, const struct sim_request *req,
			 struct sim_response *resp)
{
	json_t *doc = body_object(req, resp), *v, *cf;
	const char *key;

	if (!doc)
		return;
	json_object_foreach(doc, key, v)
	{
		for (size_t i = 0; i < sizeof(unmodelled_device_fields) / sizeof(unmodelled_device_fields[0]);
		     i++)
			if (!strcmp(key, unmodelled_device_fields[i])) {
				invalid(resp, key, "The NetBox stand-in does not take this field.");
				json_decref(doc);
				return;
			}
	}
	v = json_object_get(doc, "serial");
	if (v && !char_field(resp, "serial", v, 50)) {
		json_decref(doc);
		return;
	}
	cf = json_object_get(doc, "custom_fields");
	if (cf && !json_is_object(cf)) {
		invalid(resp, "custom_fields",
			"Invalid data format. Custom field data must be passed as a dictionary mapping field "
			"names to their values.");
		json_decref(doc);
		return;
	}
	/* CustomFieldsMixin.clean(): every name defined, every value of
	 * its field's type (CustomField.validate). */
	json_object_foreach(cf, key, v)
	{
		int type = custom_field_type(nb, key);

		if (type < 0) {
			invalid(resp, "__all__", "Unknown field name '%s' in custom field data.", key);
			json_decref(doc);
			return;
		}
		if (!json_is_null(v) && (type ? !json_is_integer(v) : !json_is_string(v))) {
			invalid(resp, "__all__", "Invalid value for custom field '%s': Value must be %s.",
				key, type ? "an integer" : "a string");
			json_decref(doc);
			return;
		}
	}
	v = json_object_get(doc, "serial");
	if (json_is_string(v))
		json_object_set(d->obj, "serial", v);
	else if (v)
		json_object_set_new(d->obj, "serial", json_sprintf("%g", json_number_value(v)));
	json_object_foreach(cf, key, v) json_object_set(json_object_get(d->obj, "custom_fields"), key, v);
	json_decref(doc);
	respond_object(nb, req, resp, 200, d->obj);
}

/* A related object as DRF's PrimaryKeyRelatedField takes it: its id, or
 * {"id": N}; 0 when neither. */
static long related_id(json_t *v)
{
	if (json_is_object(v))
		v = json_object_get(v, "id");
	return json_is_integer(v) ? (long)json_integer_value(v) : 0;
}

static struct nb_device *device_by_id(struct sim_netbox *nb, long id)
{
	return id >= 1 && (size_t)id <= nb->n_devices ? &nb->devices[id - 1] : NULL;
}

static struct nb_interface *interface_by_id(struct sim_netbox *nb, long id)
{
	for (size_t i = 0; i < nb->n_interfaces; i++)
		if (nb->interfaces[i].id == id)
			return &nb->interfaces[i];
	return NULL;
}

/* InterfaceTypeChoices: the few a server's ports are. */
static const char *const interface_types[] = {
	"other",	   "virtual",		"1000base-t",	     "10gbase-t",	   "10gbase-x-sfpp",
	"25gbase-x-sfp28", "100gbase-x-qsfp28", "200gbase-x-qsfp56", "400gbase-x-qsfp112", "400gbase-x-osfp",
};

/* POST dcim/interfaces/: device, name and type required. */
static void interface_post(struct sim_netbox *nb, const struct sim_request *req, struct sim_response *resp)
{
	json_t *doc = body_object(req, resp), *name, *type, *description;
	struct nb_device *d;
	int known = 0, id;

	if (!doc)
		return;
	name = json_object_get(doc, "name");
	type = json_object_get(doc, "type");
	description = json_object_get(doc, "description");
	if (!json_object_get(doc, "device") || !name || !type) {
		invalid(resp,
			!json_object_get(doc, "device") ? "device"
			: !name				? "name"
							: "type",
			"This field is required.");
		goto out;
	}
	d = device_by_id(nb, related_id(json_object_get(doc, "device")));
	if (!d) {
		invalid(resp, "device", "Invalid pk \"%ld\" - object does not exist.",
			related_id(json_object_get(doc, "device")));
		goto out;
	}
	if (!char_field(resp, "name", name, 64) ||
	    (description && !char_field(resp, "description", description, 200)))
		goto out;
	if (!json_string_length(name)) {
		invalid(resp, "name", "This field may not be blank.");
		goto out;
	}
	for (size_t i = 0; json_is_string(type) && i < sizeof(interface_types) / sizeof(interface_types[0]);
	     i++)
		known |= !strcmp(json_string_value(type), interface_types[i]);
	if (!known) {
		char *t = json_dumps(type, JSON_ENCODE_ANY);

		invalid(resp, "type", "%s is not a valid choice.", t ? t : "?");
		free(t);
		goto out;
	}
	for (size_t i = 0; i < nb->n_interfaces; i++)
		if (nb->interfaces[i].device == d->id &&
		    !strcmp(br_json_str(nb->interfaces[i].obj, "name"), json_string_value(name))) {
			invalid(resp, "__all__", "Interface with this Device and Name already exists.");
			goto out;
		}
	id = interface_add(nb, d, json_string_value(name), json_string_value(type),
			   json_is_string(description) ? json_string_value(description) : NULL);
	respond_object(nb, req, resp, 201, interface_by_id(nb, id)->obj);
out:
	json_decref(doc);
}

static struct nb_mac *mac_by_id(struct sim_netbox *nb, long id)
{
	for (size_t i = 0; i < nb->n_macs; i++)
		if (nb->macs[i].id == id)
			return &nb->macs[i];
	return NULL;
}

/* The interface's primary MAC, if any, is its primary no more. */
static void primary_unmark(struct sim_netbox *nb, struct nb_interface *in)
{
	json_t *was = json_object_get(in->obj, "primary_mac_address");
	struct nb_mac *m =
	    json_is_object(was) ? mac_by_id(nb, json_integer_value(json_object_get(was, "id"))) : NULL;

	if (m)
		json_object_set_new(m->obj, "is_primary", json_false());
}

/* PATCH dcim/interfaces/N/: primary_mac_address only (the stand-in models
 * no other writable field of an interface). NetBox's BaseInterface.clean()
 * (netbox/dcim/models/device_components.py, 4.2+) refuses a primary MAC
 * assigned to another interface (an unassigned one it takes, as here);
 * null clears it. The interface's
 * mac_address (read-only) follows the primary's. */
static void interface_patch(struct sim_netbox *nb, struct nb_interface *in, const struct sim_request *req,
			    struct sim_response *resp)
{
	json_t *doc = body_object(req, resp), *v;
	const char *key;

	if (!doc)
		return;
	json_object_foreach(doc, key, v) if (strcmp(key, "primary_mac_address"))
	{
		invalid(resp, key, "The NetBox stand-in does not take this field.");
		json_decref(doc);
		return;
	}
	v = json_object_get(doc, "primary_mac_address");
	if (v)
		primary_unmark(nb, in);
	if (v && json_is_null(v)) {
		json_object_set_new(in->obj, "primary_mac_address", json_null());
		json_object_set_new(in->obj, "mac_address", json_null());
	} else if (v) {
		struct nb_mac *m = mac_by_id(nb, related_id(v));
		const char *mac;
		json_t *brief_mac;

		if (!m) {
			invalid(resp, "primary_mac_address", "Invalid pk \"%ld\" - object does not exist.",
				related_id(v));
			json_decref(doc);
			return;
		}
		mac = br_json_str(m->obj, "mac_address");
		if (json_is_string(json_object_get(m->obj, "assigned_object_type")) &&
		    json_integer_value(json_object_get(m->obj, "assigned_object_id")) != in->id) {
			invalid(resp, "primary_mac_address",
				"MAC address %s is assigned to a different interface (%s).", mac,
				br_json_str(m->obj, "assigned_object/name"));
			json_decref(doc);
			return;
		}
		brief_mac = json_pack("{s:i, s:O, s:s, s:s, s:s}", "id", m->id, "url",
				      json_object_get(m->obj, "url"), "display", mac, "mac_address", mac,
				      "description", br_json_str(m->obj, "description"));
		json_object_set_new(in->obj, "primary_mac_address", brief_mac);
		json_object_set_new(in->obj, "mac_address", json_string(mac));
		json_object_set_new(m->obj, "is_primary",
				    json_boolean(json_integer_value(json_object_get(
						     m->obj, "assigned_object_id")) == in->id));
	}
	json_decref(doc);
	respond_object(nb, req, resp, 200, in->obj);
}

/* POST dcim/mac-addresses/: mac_address required; assigned to an
 * interface when assigned_object_type is dcim.interface. */
static void mac_post(struct sim_netbox *nb, const struct sim_request *req, struct sim_response *resp)
{
	json_t *doc = body_object(req, resp), *v, *type, *o;
	struct nb_interface *in = NULL;
	struct nb_mac *m;
	char mac[18];
	int id;

	if (!doc)
		return;
	v = json_object_get(doc, "mac_address");
	type = json_object_get(doc, "assigned_object_type");
	if (!v) {
		invalid(resp, "mac_address", "This field is required.");
		goto out;
	}
	if (!json_is_string(v) || !mac_normal(json_string_value(v), mac)) {
		char *t = json_dumps(v, JSON_ENCODE_ANY);

		invalid(resp, "mac_address", "Invalid MAC address format: %s", t ? t : "?");
		free(t);
		goto out;
	}
	if (type && !json_is_null(type)) {
		long iid = related_id(json_object_get(doc, "assigned_object_id"));

		if (!json_is_string(type) || strcmp(json_string_value(type), "dcim.interface")) {
			invalid(resp, "assigned_object_type", "Invalid content type");
			goto out;
		}
		in = interface_by_id(nb, iid);
		if (!in) {
			invalid(resp, "assigned_object_id",
				"Related object not found using the provided numeric ID: %ld", iid);
			goto out;
		}
	}
	v = json_object_get(doc, "description");
	if (v && !char_field(resp, "description", v, 200))
		goto out;
	id = (int)nb->n_macs + 1;
	o = json_pack("{s:i, s:s, s:s, s:s, s:s}", "id", id, "url", "", "display_url", "", "display", mac,
		      "mac_address", mac);
	json_object_set_new(o, "url", json_sprintf("/api/dcim/mac-addresses/%d/", id));
	json_object_set_new(o, "display_url", json_sprintf("/dcim/mac-addresses/%d/", id));
	json_object_set_new(o, "assigned_object_type", in ? json_string("dcim.interface") : json_null());
	json_object_set_new(o, "assigned_object_id", in ? json_integer(in->id) : json_null());
	if (in) {
		json_t *a = brief("interfaces", in->id, br_json_str(in->obj, "name"));

		json_object_set(a, "device", json_object_get(in->obj, "device"));
		json_object_set_new(o, "assigned_object", a);
		json_array_append_new(json_object_get(in->obj, "mac_addresses"),
				      json_pack("{s:i, s:s, s:s, s:s, s:s}", "id", id, "url", "", "display",
						mac, "mac_address", mac, "description", ""));
		json_object_set_new(
		    json_array_get(json_object_get(in->obj, "mac_addresses"),
				   json_array_size(json_object_get(in->obj, "mac_addresses")) - 1),
		    "url", json_sprintf("/api/dcim/mac-addresses/%d/", id));
	} else {
		json_object_set_new(o, "assigned_object", json_null());
	}
	v = json_object_get(doc, "description");
	json_object_set_new(o, "description", json_string(json_is_string(v) ? json_string_value(v) : ""));
	json_object_set_new(o, "comments", json_string(""));
	json_object_set_new(o, "tags", json_array());
	json_object_set_new(o, "custom_fields", json_object());
	/* the assigned interface's primary MAC (MACAddress.is_primary) */
	json_object_set_new(o, "is_primary", json_false());
	stamp(o);
	nb->macs = br_xrealloc(nb->macs, (nb->n_macs + 1) * sizeof(*nb->macs));
	m = &nb->macs[nb->n_macs++];
	m->id = id;
	m->device = in ? in->device : 0;
	m->obj = o;
	respond_object(nb, req, resp, 201, o);
out:
	json_decref(doc);
}

/* "/api/dcim/devices/7/" → 7; 0 when path is not PREFIX<id>/. */
static long object_id(const char *path, const char *prefix)
{
	size_t n = strlen(prefix);
	char *end;
	long id;

	if (strncmp(path, prefix, n) || !(path[n] >= '1' && path[n] <= '9'))
		return 0;
	id = strtol(path + n, &end, 10);
	return !strcmp(end, "/") ? id : 0;
}

void sim_netbox_handle(void *ctx, const struct sim_request *req, struct sim_response *resp)
{
	struct sim_netbox *nb = ctx;
	int who = authorized(nb, req, resp), get = !strcmp(req->method, "GET");
	long id;

	if (!who)
		return;
	if (!get && who == 2) {
		/* Token.write_enabled off: TokenPermissions refuses. */
		detail(resp, 403, "You do not have permission to perform this action.");
		return;
	}
	if (get && !strcmp(req->path, "/api/dcim/devices/"))
		list(nb, req, resp, NB_DEVICES);
	else if (get && !strcmp(req->path, "/api/dcim/cables/"))
		list(nb, req, resp, NB_CABLES);
	else if (get && !strcmp(req->path, "/api/dcim/interfaces/"))
		list(nb, req, resp, NB_INTERFACES);
	else if (get && !strcmp(req->path, "/api/dcim/mac-addresses/"))
		list(nb, req, resp, NB_MACS);
	else if (get && !strcmp(req->path, "/api/status/"))
		respond_json(resp, 200, json_pack("{s:s}", "netbox-version", NB_VERSION));
	else if (!strcmp(req->method, "PATCH") && (id = object_id(req->path, "/api/dcim/devices/")) &&
		 device_by_id(nb, id))
		device_patch(nb, device_by_id(nb, id), req, resp);
	else if (!strcmp(req->method, "PATCH") && (id = object_id(req->path, "/api/dcim/interfaces/")) &&
		 interface_by_id(nb, id))
		interface_patch(nb, interface_by_id(nb, id), req, resp);
	else if (!strcmp(req->method, "POST") && !strcmp(req->path, "/api/dcim/interfaces/"))
		interface_post(nb, req, resp);
	else if (!strcmp(req->method, "POST") && !strcmp(req->path, "/api/dcim/mac-addresses/"))
		mac_post(nb, req, resp);
	else if (!get && (!strcmp(req->path, "/api/dcim/devices/") ||
			  !strcmp(req->path, "/api/dcim/cables/") || !strcmp(req->path, "/api/status/"))) {
		char *text = br_xasprintf("Method \"%s\" not allowed.", req->method);

		detail(resp, 405, text);
		free(text);
	} else
		detail(resp, 404, "Not found.");
}
