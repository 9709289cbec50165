/* NetBox's devices and cables as manifest rows and a wiring list. */
#include <csv.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "netbox.h"

static const struct {
	const char *column, *label;
} netbox_labels[] = {
	{ "hostname", "name" },
	{ "rack", "rack" },
	{ "unit", "position" },
	{ "bmc", "oob_ip" },
	{ "serial", "serial" },
	{ "profile", "custom_fields.bringup_profile" },
	{ "bmc_user", "custom_fields.bringup_bmc_user" },
	{ "bmc_password", "custom_fields.bringup_bmc_password" },
	{ "bmc_type", "custom_fields.bringup_bmc_type" },
	{ "boot_disk_serial", "custom_fields.bringup_boot_disk_serial" },
	{ "system", "custom_fields.bringup_system" },
	{ "zone", "custom_fields.bringup_zone" },
	{ "power_domain", "custom_fields.bringup_power_domain" },
};

const struct stg_manifest_labels stg_netbox_labels = {
	(const void *)netbox_labels,
	sizeof(netbox_labels) / sizeof(netbox_labels[0]),
};

int stg_netbox_page_take(const char *url, json_t *page, json_t *objects, char **ret_next, struct br_err *err)
{
	json_t *results = json_object_get(page, "results"), *next = json_object_get(page, "next");

	if (!json_is_object(page) || !json_is_array(results))
		return br_errf(err, BR_E_PROTO, "NetBox GET %s: not a NetBox list (no 'results' array)", url);
	if (next && !json_is_null(next) && !json_is_string(next))
		return br_errf(err, BR_E_PROTO, "NetBox GET %s: 'next' is neither a URL nor null", url);
	if (json_array_size(objects) + json_array_size(results) > STG_NETBOX_OBJECTS_MAX)
		return br_errf(err, BR_E_TOOBIG, "NetBox GET %s: more than %d objects", url,
			       STG_NETBOX_OBJECTS_MAX);
	json_array_extend(objects, results);
	*ret_next =
	    json_is_string(next) && json_string_length(next) ? br_xstrdup(json_string_value(next)) : NULL;
	return 0;
}

static void dev_problem(struct br_strlist *problems, const char *origin, const char *field, const char *fmt,
			...) BR_PRINTF(4, 5);
static void dev_problem(struct br_strlist *problems, const char *origin, const char *field, const char *fmt,
			...)
{
	struct br_buf b;
	va_list ap;

	br_buf_init(&b, 0);
	br_buf_addf(&b, "%s: %s: ", origin, field);
	va_start(ap, fmt);
	br_buf_vaddf(&b, fmt, ap);
	va_end(ap);
	br_strlist_add(problems, br_buf_str(&b));
	br_buf_release(&b);
}

/* custom_fields.bringup_NAME as a string, else dflt; a value of another
 * type is a problem (a site that made it an integer field). */
static char *custom(json_t *cf, const char *name, const char *dflt, const char *origin,
		    struct br_strlist *problems)
{
	char key[64];
	json_t *v;

	snprintf(key, sizeof(key), "bringup_%s", name);
	v = json_object_get(cf, key);
	if (json_is_string(v) && json_string_length(v))
		return br_xstrdup(json_string_value(v));
	if (v && !json_is_null(v) && !json_is_string(v)) {
		char field[80];

		snprintf(field, sizeof(field), "custom_fields.%s", key);
		dev_problem(problems, origin, field, "not a text value");
	}
	return dflt ? br_xstrdup(dflt) : NULL;
}

/* The BMC's address: the IP address object's "address" less its prefix
 * length, bracketed when IPv6, with custom_fields.bringup_bmc_port. */
static char *bmc_address(json_t *dev, json_t *cf, const struct stg_netbox_options *o, const char *origin,
			 struct br_strlist *problems)
{
	const char *field = o->bmc_ip_primary ? "primary_ip" : "oob_ip";
	json_t *ip = json_object_get(dev, field), *port = json_object_get(cf, "bringup_bmc_port");
	const char *address = br_json_str(ip, "address");
	char *host, *slash, *out;
	long p = 0;

	if (!ip || json_is_null(ip)) {
		dev_problem(problems, origin, field,
			    "not set: the BMC's address (set the device's %s in NetBox%s)",
			    o->bmc_ip_primary ? "primary IP" : "OOB IP",
			    o->bmc_ip_primary ? "" : ", or import with --netbox-bmc-ip primary");
		return NULL;
	}
	if (!address || !*address) {
		dev_problem(problems, origin, field, "has no 'address'");
		return NULL;
	}
	if (json_is_integer(port))
		p = (long)json_integer_value(port);
	else if (json_is_string(port) && br_parse_long(json_string_value(port), 1, 65535, &p))
		p = -1;
	else if (port && !json_is_null(port) && !json_is_string(port))
		p = -1;
	if (p < 0 || p > 65535) {
		dev_problem(problems, origin, "custom_fields.bringup_bmc_port", "not a port (1-65535)");
		return NULL;
	}
	host = br_xstrdup(address);
	slash = strchr(host, '/');
	if (slash)
		*slash = '\0';
	if (strchr(host, ':'))
		out = p ? br_xasprintf("[%s]:%ld", host, p) : br_xasprintf("[%s]", host);
	else
		out = p ? br_xasprintf("%s:%ld", host, p) : br_xstrdup(host);
	free(host);
	return out;
}

/* position: NetBox's decimal U (0.5 steps); bringup's unit is a whole one. */
static int unit_of(json_t *dev, const char *origin, struct br_strlist *problems)
{
	json_t *pos = json_object_get(dev, "position");
	double u;

	if (!pos || json_is_null(pos)) {
		dev_problem(problems, origin, "position", "not set: the device has no place in its rack");
		return -1;
	}
	if (!json_is_number(pos)) {
		dev_problem(problems, origin, "position", "not a number");
		return -1;
	}
	u = json_number_value(pos);
	if (u != floor(u) || u < 1 || u > 60) {
		dev_problem(problems, origin, "position", "%g is not a whole rack unit 1-60", u);
		return -1;
	}
	return (int)u;
}

int stg_netbox_devices_map(json_t *devices, const struct stg_netbox_options *o, struct stg_manifest *m,
			   struct br_strlist *problems)
{
	size_t n = json_array_size(devices), before = problems->n;

	m->rows = br_xcalloc(n ? n : 1, sizeof(*m->rows));
	for (size_t i = 0; i < n; i++) {
		json_t *dev = json_array_get(devices, i), *cf = json_object_get(dev, "custom_fields");
		struct stg_manifest_row *r = &m->rows[m->n];
		const char *name = br_json_str(dev, "name");
		json_int_t id = json_integer_value(json_object_get(dev, "id"));
		json_t *rack = json_object_get(dev, "rack");

		memset(r, 0, sizeof(*r));
		r->line = (int)i + 1;
		if (name && *name)
			r->origin = br_xasprintf("netbox device '%s' (id %lld)", name, (long long)id);
		else
			r->origin = br_xasprintf("netbox device id %lld", (long long)id);
		m->n++;
		if (!json_is_object(dev)) {
			dev_problem(problems, r->origin, "device", "not an object");
			continue;
		}
		if (!json_is_integer(json_object_get(dev, "id")))
			dev_problem(problems, r->origin, "id", "missing");
		r->hostname = name ? br_xstrdup(name) : NULL;
		if (json_is_object(rack) && br_json_str(rack, "name"))
			r->rack = br_xstrdup(br_json_str(rack, "name"));
		else
			dev_problem(problems, r->origin, "rack", "not set: the device is in no rack");
		r->unit = unit_of(dev, r->origin, problems);
		r->bmc = bmc_address(dev, cf, o, r->origin, problems);
		r->serial = br_json_str(dev, "serial") ? br_xstrdup(br_json_str(dev, "serial")) : NULL;
		r->profile = custom(cf, "profile", o->profile, r->origin, problems);
		r->bmc_user = custom(cf, "bmc_user", o->bmc_user, r->origin, problems);
		r->bmc_password = custom(cf, "bmc_password", o->bmc_password, r->origin, problems);
		r->bmc_type = custom(cf, "bmc_type", o->bmc_type, r->origin, problems);
		r->boot_disk_serial = custom(cf, "boot_disk_serial", NULL, r->origin, problems);
		r->system = custom(cf, "system", NULL, r->origin, problems);
		r->zone = custom(cf, "zone", NULL, r->origin, problems);
		r->power_domain = custom(cf, "power_domain", NULL, r->origin, problems);
	}
	return problems->n > before ? BR_E_INVAL : 0;
}

/* ---- cables ----------------------------------------------------------------- */

struct end {
	const char *type, *device, *port; /* port: the interface's name */
	size_t n;			  /* terminations on this side */
};

static void end_of(json_t *cable, const char *side, struct end *e)
{
	json_t *terms = json_object_get(cable, side), *t = json_array_get(terms, 0);

	memset(e, 0, sizeof(*e));
	e->n = json_array_size(terms);
	e->type = br_json_str(t, "object_type");
	e->device = br_json_str(t, "object/device/name");
	e->port = br_json_str(t, "object/name");
}

static int cmp_host(const void *key, const void *elem)
{
	return strcasecmp(key, *(const char *const *)elem);
}

static int cmp_str(const void *a, const void *b)
{
	return strcasecmp(*(const char *const *)a, *(const char *const *)b);
}

static void add_warning(struct stg_netbox_import *imp, const char *fmt, ...) BR_PRINTF(2, 3);
static void add_warning(struct stg_netbox_import *imp, const char *fmt, ...)
{
	struct br_buf b;
	va_list ap;

	br_buf_init(&b, 0);
	va_start(ap, fmt);
	br_buf_vaddf(&b, fmt, ap);
	va_end(ap);
	br_strlist_add(&imp->warnings, br_buf_str(&b));
	br_buf_release(&b);
}

static const char *describe(const struct end *e)
{
	return e->type ? e->type : "nothing";
}

void stg_netbox_cables_map(json_t *cables, const struct stg_manifest *m, struct stg_netbox_import *imp)
{
	const char **hosts = br_xcalloc(m->n ? m->n : 1, sizeof(*hosts));
	size_t n = json_array_size(cables), nh = 0;
	json_int_t *seen = br_xcalloc(n ? n : 1, sizeof(*seen));
	size_t n_seen = 0;

	for (size_t i = 0; i < m->n; i++)
		if (m->rows[i].hostname)
			hosts[nh++] = m->rows[i].hostname;
	qsort(hosts, nh, sizeof(*hosts), cmp_str);
	imp->wiring = br_xcalloc(n ? n : 1, sizeof(*imp->wiring));
	for (size_t i = 0; i < n; i++) {
		json_t *c = json_array_get(cables, i);
		json_int_t id = json_integer_value(json_object_get(c, "id"));
		struct end a, b;
		int a_ours, b_ours, dup = 0;

		/* Chunks of device_id= list a cable between two of them twice. */
		for (size_t k = 0; k < n_seen && !dup; k++)
			dup = seen[k] == id;
		if (dup)
			continue;
		seen[n_seen++] = id;
		end_of(c, "a_terminations", &a);
		end_of(c, "b_terminations", &b);
		a_ours = a.device && bsearch(a.device, hosts, nh, sizeof(*hosts), cmp_host);
		b_ours = b.device && bsearch(b.device, hosts, nh, sizeof(*hosts), cmp_host);
		if (!a_ours && !b_ours)
			continue;
		if (a_ours && b_ours) {
			add_warning(imp,
				    "netbox cable #%lld: both ends are imported devices (%s %s, %s %s); "
				    "the wiring list holds host-to-switch cables only",
				    (long long)id, a.device, a.port ? a.port : "?", b.device,
				    b.port ? b.port : "?");
			continue;
		}
		if (b_ours) {
			struct end t = a;

			a = b;
			b = t;
		}
		if (a.n != 1 || b.n != 1 || !a.type || !b.type || strcmp(a.type, "dcim.interface") ||
		    strcmp(b.type, "dcim.interface") || !a.port || !b.port || !b.device) {
			add_warning(imp,
				    "netbox cable #%lld: %s %s ends at %zu %s termination(s); only a cable "
				    "from one interface to one interface of another device is a wiring list "
				    "row (patch panels are not followed): the port is left out",
				    (long long)id, a.device, a.port ? a.port : "?", b.n, describe(&b));
			continue;
		}
		imp->wiring[imp->n_wiring++] =
		    (struct stg_wiring_row){ br_xstrdup(a.device), br_xstrdup(a.port), br_xstrdup(b.device),
					     br_xstrdup(b.port) };
	}
	free(seen);
	free(hosts);
}

static void csv_cell(struct br_buf *b, const char *s, int last)
{
	size_t len = strlen(s), need = 2 * len + 2;
	char *out = br_xcalloc(1, need + 1);
	int quote = strpbrk(s, ",\"\r\n") != NULL;

	if (quote)
		br_buf_add(b, out, csv_write(out, need, s, len));
	else
		br_buf_adds(b, s);
	br_buf_adds(b, last ? "\n" : ",");
	free(out);
}

int stg_wiring_write(const struct stg_wiring_row *rows, size_t n, const char *path, struct br_err *err)
{
	struct br_buf b;
	int rc;

	br_buf_init(&b, 0);
	br_buf_adds(&b, "hostname,host_port,switch,switch_port\n");
	for (size_t i = 0; i < n; i++) {
		csv_cell(&b, rows[i].hostname, 0);
		csv_cell(&b, rows[i].host_port, 0);
		csv_cell(&b, rows[i].sw, 0);
		csv_cell(&b, rows[i].switch_port, 1);
	}
	rc = br_write_file(path, br_buf_str(&b), b.len, err);
	br_buf_release(&b);
	return rc;
}

void stg_netbox_import_release(struct stg_netbox_import *imp)
{
	stg_manifest_release(&imp->manifest);
	for (size_t i = 0; i < imp->n_wiring; i++) {
		free(imp->wiring[i].hostname);
		free(imp->wiring[i].host_port);
		free(imp->wiring[i].sw);
		free(imp->wiring[i].switch_port);
	}
	free(imp->wiring);
	br_strlist_release(&imp->warnings);
	memset(imp, 0, sizeof(*imp));
}

static const char *const query_keys[] = {
	"site",		  "site_id",	  "site_group", "region",     "location",  "location_id",
	"rack_id",	  "role",	  "role_id",	"tag",	      "status",	   "tenant",
	"tenant_id",	  "name",	  "q",		"serial",     "asset_tag", "device_type",
	"device_type_id", "manufacturer", "platform",	"cluster_id", "id",
};

int stg_netbox_query_check(const char *query, struct br_err *err)
{
	const char *p = query;

	if (!query || !*query)
		return 0;
	if (strlen(query) > STG_NETBOX_QUERY_MAX)
		return br_errf(err, BR_E_INVAL, "--netbox-query: longer than %d characters",
			       STG_NETBOX_QUERY_MAX);
	while (*p) {
		const char *end = strchr(p, '&'), *eq;
		size_t len, klen;
		int known = 0;

		if (!end)
			end = p + strlen(p);
		len = (size_t)(end - p);
		eq = memchr(p, '=', len);
		if (!eq || eq == p || eq + 1 == end)
			return br_errf(err, BR_E_INVAL, "--netbox-query: '%.*s' is not FILTER=VALUE",
				       (int)len, p);
		klen = (size_t)(eq - p);
		for (size_t i = 0; i < sizeof(query_keys) / sizeof(query_keys[0]); i++)
			known |= strlen(query_keys[i]) == klen && !strncmp(query_keys[i], p, klen);
		if (!known)
			return br_errf(
			    err, BR_E_INVAL,
			    "--netbox-query: '%.*s' is not a device filter bringup passes (NetBox "
			    "ignores a filter it does not know, and the import would take every "
			    "device): site, site_id, region, location, rack_id, role, tag, status, "
			    "tenant, name, q, serial, device_type, manufacturer, platform, id",
			    (int)klen, p);
		p = *end ? end + 1 : end;
	}
	return 0;
}
