/* The NetBox API stand-in: the rack's devices and cables, paged and filtered. */
#include <stdlib.h>
#include <string.h>

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

struct sim_netbox {
	struct sim_netbox_config cfg;
	char *token;
	struct nb_device *devices;
	size_t n_devices;
	struct nb_cable *cables;
	size_t n_cables;
	struct br_strlist names; /* owns the device names */
	int next_interface;
};

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
	o = json_pack("{s:i, s:s, s:s, s:s, s:s, s:s, s:s}", "id", id, "url", "", "display_url", "",
		      "display", name, "name", name, "serial", serial, "face", rack_id ? "front" : "");
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
	json_object_set_new(o, "custom_fields", custom ? custom : json_object());
	json_object_set_new(o, "interface_count", json_integer(0));
	d->obj = o;
	return id;
}

static json_t *termination(struct sim_netbox *nb, const struct nb_device *d, const char *port, int cable_id)
{
	int id = ++nb->next_interface;
	json_t *iface = brief("interfaces", id, port);

	json_object_set_new(iface, "device", brief("devices", d->id, d->name));
	json_object_set_new(iface, "cable",
			    json_pack("{s:i, s:s, s:s}", "id", cable_id, "url", "", "display", ""));
	json_object_set_new(iface, "_occupied", json_true());
	json_integer_set(json_object_get(d->obj, "interface_count"),
			 json_integer_value(json_object_get(d->obj, "interface_count")) + 1);
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
				  const char *token)
{
	struct sim_netbox *nb = br_xcalloc(1, sizeof(*nb));
	struct br_strlist racks = { 0 };
	int *ids = br_xcalloc(rack->n ? rack->n : 1, sizeof(*ids));

	nb->cfg = *cfg;
	if (nb->cfg.max_page_size <= 0)
		nb->cfg.max_page_size = SIM_NETBOX_MAX_PAGE_SIZE;
	nb->token = br_xstrdup(token);
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

/* "Token <t>" (v1) or "Bearer nbt_<key>.<t>" (v2); 1 when allowed, else
 * the 403 NetBox answers is in resp. */
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

static void list(struct sim_netbox *nb, const struct sim_request *req, struct sim_response *resp, int cables)
{
	struct query q;
	json_t *results = json_array(), *doc;
	long limit, offset, count = 0;
	char *bad_key = NULL, *bad_value = NULL;
	size_t total = cables ? nb->n_cables : nb->n_devices;

	query_parse(req->uri, &q);
	/* pagination.py's get_limit: the default page, a limit of 0 or past
	 * MAX_PAGE_SIZE is MAX_PAGE_SIZE. */
	limit = query_long(&q, "limit", SIM_NETBOX_PAGINATE_COUNT);
	if (limit == 0 || limit > nb->cfg.max_page_size)
		limit = nb->cfg.max_page_size;
	offset = query_long(&q, "offset", 0);
	for (size_t i = 0; i < total; i++) {
		const void *obj = cables ? (const void *)&nb->cables[i] : (const void *)&nb->devices[i];
		json_t *o = cables ? nb->cables[i].obj : nb->devices[i].obj;
		int m = matches(&q, cables ? cable_one : device_one, obj, nb, &bad_key, &bad_value);

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

void sim_netbox_handle(void *ctx, const struct sim_request *req, struct sim_response *resp)
{
	struct sim_netbox *nb = ctx;

	if (!authorized(nb, req, resp))
		return;
	if (strcmp(req->method, "GET")) {
		char *text = br_xasprintf("Method \"%s\" not allowed.", req->method);

		detail(resp, 405, text);
		free(text);
		return;
	}
	if (!strcmp(req->path, "/api/dcim/devices/"))
		list(nb, req, resp, 0);
	else if (!strcmp(req->path, "/api/dcim/cables/"))
		list(nb, req, resp, 1);
	else if (!strcmp(req->path, "/api/status/"))
		respond_json(resp, 200, json_pack("{s:s}", "netbox-version", NB_VERSION));
	else
		detail(resp, 404, "Not found.");
}
