/* What bringup learned, written back to NetBox (netbox.h, "export"). */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "http.h"
#include "netbox_client.h"

/* The operator's filters, each value escaped, as "k=v&". */
static void add_query(struct br_buf *b, const char *query)
{
	const char *p = query ? query : "";

	while (*p) {
		const char *end = strchr(p, '&'), *eq;
		char *value;

		if (!end)
			end = p + strlen(p);
		eq = memchr(p, '=', (size_t)(end - p));
		value = curl_easy_escape(NULL, eq + 1, (int)(end - eq - 1));
		br_buf_addf(b, "%.*s=%s&", (int)(eq - p), p, value ? value : "");
		curl_free(value);
		p = *end ? end + 1 : end;
	}
}

/* Every object of list (a path under api/) whose key is one of values,
 * STG_NETBOX_IDS_PER_QUERY values a request. */
static int get_by(struct stg_netbox_client *c, const char *list, const char *key, const char *const *values,
		  size_t n, const char *query, json_t *out, struct br_err *err)
{
	int rc = 0;

	for (size_t i = 0; i < n && !rc; i += STG_NETBOX_IDS_PER_QUERY) {
		struct br_buf b;

		br_buf_init(&b, 0);
		br_buf_addf(&b, "%sapi/%s?", c->base, list);
		add_query(&b, query);
		for (size_t k = i; k < n && k < i + STG_NETBOX_IDS_PER_QUERY; k++) {
			char *v = curl_easy_escape(NULL, values[k], 0);

			br_buf_addf(&b, "%s=%s&", key, v ? v : "");
			curl_free(v);
		}
		br_buf_addf(&b, "limit=%d", STG_NETBOX_PAGE_LIMIT);
		rc = stg_netbox_get_all(c, br_buf_str(&b), out, err);
		br_buf_release(&b);
	}
	return rc;
}

/* One write; 0 with NetBox's answer in *ret (ret may be NULL), else the
 * error naming the method, URL and NetBox's words. */
static int write_one(struct stg_netbox_client *c, const char *method, const char *url, json_t *body,
		     json_t **ret, struct br_err *err)
{
	struct br_err call_err = { 0 };
	char *text = json_dumps(body, JSON_COMPACT);
	struct br_buf answer;
	long status = 0;
	int rc;

	br_buf_init(&answer, 0);
	rc = stg_rest_call(&c->rest, method, url, text, &status, &answer, &call_err);
	if (rc)
		rc = br_errf(err, rc, "NetBox %s", call_err.msg);
	else if (status != 200 && status != 201) {
		char *words = stg_netbox_words(&answer);

		rc = br_errf(err,
			     status == 400		      ? BR_E_INVAL
			     : status == 401 || status == 403 ? BR_E_AUTH
							      : BR_E_IO,
			     "NetBox %s %s: HTTP %ld: %s", method, url, status, words);
		free(words);
	} else if (ret) {
		*ret = stg_rest_json(url, &answer, STG_NETBOX_BODY_MAX, &call_err);
		if (!*ret)
			rc = br_errf(err, BR_E_PROTO, "NetBox %s %s", method, call_err.msg);
	}
	br_buf_release(&answer);
	free(text);
	return rc;
}

static json_int_t id_of(json_t *o)
{
	return json_integer_value(json_object_get(o, "id"));
}

/* The MAC object of list whose mac_address is mac (NetBox prints them
 * upper case), or NULL. */
static json_t *mac_in(json_t *list, const char *mac)
{
	size_t i;
	json_t *m;

	json_array_foreach(list, i, m)
	{
		const char *v = br_json_str(m, "mac_address");

		if (v && !strcasecmp(v, mac))
			return m;
	}
	return NULL;
}

static int planned_has(const struct br_strlist *l, const char *mac)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcasecmp(l->items[i], mac))
			return 1;
	return 0;
}

static json_t *change(const char *field, const char *from, const char *to)
{
	return json_pack("{s:s, s:s?, s:s?, s:b}", "field", field, "from", from, "to", to, "written", 0);
}

/* The interface of the device's list named name, or NULL. */
static json_t *iface_named(json_t *ifaces, const char *name)
{
	size_t i;
	json_t *c;

	json_array_foreach(ifaces, i, c)
	{
		const char *v = br_json_str(c, "name");

		if (name && v && !strcmp(v, name))
			return c;
	}
	return NULL;
}

static json_t *iface_with_id(json_t *ifaces, json_int_t id)
{
	size_t i;
	json_t *c;

	json_array_foreach(ifaces, i, c) if (id_of(c) == id) return c;
	return NULL;
}

/* An interface whose primary MAC bringup may set: it has none, and holds
 * no MAC (new: it is to get the node's) or only the node's (held). */
static int primary_free(json_t *iface, size_t held)
{
	return !iface || (json_is_null(json_object_get(iface, "primary_mac_address")) &&
			  json_array_size(json_object_get(iface, "mac_addresses")) == held);
}

/* The interface's primary MAC set to mac (a MAC address object of it:
 * mac_id, 0 while it is yet to be created). */
static void plan_primary(json_t *changes, struct br_strlist *primaries, const char *iface_name,
			 json_int_t iface_id, const char *mac, json_int_t mac_id, struct stg_netbox_export *x)
{
	json_t *c = change("primary_mac_address", NULL, mac);

	json_object_set_new(c, "interface", json_string(iface_name));
	json_object_set_new(c, "interface_id", iface_id ? json_integer(iface_id) : json_null());
	json_object_set_new(c, "mac_id", mac_id ? json_integer(mac_id) : json_null());
	json_array_append_new(changes, c);
	br_strlist_add(primaries, iface_name);
	x->writes++;
}

struct plan {
	json_t *node;	    /* the node's entry in the export's nodes */
	json_t *device;	    /* NetBox's device, borrowed */
	json_t *patch;	    /* the device's PATCH body, NULL: none */
	json_t *serial_chg; /* the changes the patch carries, borrowed */
	json_t *state_chg;
};

/* The device's changes: its PATCH and the MACs it lacks. */
static void plan_node(const struct stg_netbox_node *nd, struct plan *p, json_t *dev_ifaces, json_t *dev_macs,
		      json_t *elsewhere, struct br_strlist *planned, struct stg_netbox_export *x)
{
	json_t *changes = json_object_get(p->node, "changes"),
	       *conflicts = json_object_get(p->node, "conflicts");
	const char *serial = br_json_str(p->device, "serial");
	json_t *cf = json_object_get(p->device, "custom_fields");
	json_t *state = json_object_get(cf, "bringup_state");
	struct br_strlist primaries = { 0 }; /* interfaces whose primary MAC is planned */

	if (nd->serial && *nd->serial && (!serial || strcasecmp(serial, nd->serial)) &&
	    (!serial || !nd->serial_alt || strcasecmp(serial, nd->serial_alt))) {
		p->patch = json_object();
		json_object_set_new(p->patch, "serial", json_string(nd->serial));
		p->serial_chg = change("serial", serial && *serial ? serial : NULL, nd->serial);
		json_array_append_new(changes, p->serial_chg);
	}
	if (nd->state && (!json_is_string(state) || strcmp(json_string_value(state), nd->state))) {
		if (!p->patch)
			p->patch = json_object();
		json_object_set_new(p->patch, "custom_fields",
				    json_pack("{s:s}", "bringup_state", nd->state));
		p->state_chg = change("custom_fields.bringup_state",
				      json_is_string(state) ? json_string_value(state) : NULL, nd->state);
		json_array_append_new(changes, p->state_chg);
	}
	if (p->patch)
		x->writes++;
	for (size_t k = 0; k < nd->n_macs; k++) {
		const struct stg_netbox_mac *m = &nd->macs[k];
		json_t *other, *iface, *c, *held = mac_in(dev_macs, m->mac);
		const char *name = m->name ? m->name : m->mac;

		if (held) {
			/* On an interface of the device already: its primary
			 * where it has none and holds this MAC only. */
			iface = iface_with_id(
			    dev_ifaces, json_integer_value(json_object_get(held, "assigned_object_id")));
			if (iface && primary_free(iface, 1) &&
			    !planned_has(&primaries, br_json_str(iface, "name")))
				plan_primary(changes, &primaries, br_json_str(iface, "name"), id_of(iface),
					     m->mac, id_of(held), x);
			continue;
		}
		other = mac_in(elsewhere, m->mac);
		if (!other && planned_has(planned, m->mac)) {
			char *text =
			    br_xasprintf("%s: another node of this export has it too: not written", m->mac);

			json_array_append_new(conflicts, json_string(text));
			free(text);
			x->conflicts++;
			continue;
		}
		if (other) {
			const char *on = br_json_str(other, "assigned_object/device/name");
			char *text =
			    on ? br_xasprintf(
				     "%s: NetBox has it on device %s interface %s (MAC address #%lld): "
				     "left as it is",
				     m->mac, on, br_json_str(other, "assigned_object/name"),
				     (long long)id_of(other))
			       : br_xasprintf(
				     "%s: NetBox has it unassigned (MAC address #%lld): left as it is",
				     m->mac, (long long)id_of(other));

			json_array_append_new(conflicts, json_string(text));
			free(text);
			x->conflicts++;
			continue;
		}
		/* The port as the OS names it (what a site's NetBox names
		 * interfaces by), else as the BMC does. */
		iface = m->os_name ? iface_named(dev_ifaces, m->os_name) : NULL;
		if (!iface && m->name)
			iface = iface_named(dev_ifaces, m->name);
		if (iface)
			name = br_json_str(iface, "name");
		else if (m->os_name)
			name = m->os_name;
		br_strlist_add(planned, m->mac);
		c = change("mac_address", NULL, m->mac);
		json_object_set_new(c, "interface", json_string(name));
		if (!iface && m->os_name && m->name)
			json_object_set_new(c, "bmc_port", json_string(m->name));
		json_object_set_new(c, "interface_id", iface ? json_integer(id_of(iface)) : json_null());
		json_array_append_new(changes, c);
		x->writes += iface ? 1 : 2;
		if (primary_free(iface, 0) && !planned_has(&primaries, name))
			plan_primary(changes, &primaries, name, iface ? id_of(iface) : 0, m->mac, 0, x);
	}
	br_strlist_release(&primaries);
}

/* An interface's primary MAC: PATCH dcim/interfaces/N/ with the MAC
 * address object's id (NetBox 4.2+; it must be assigned to that
 * interface). A MAC and an interface made by this export take their ids
 * from the change that made them, sent before. */
static int send_primary(struct stg_netbox_client *c, json_t *changes, json_t *ch, struct stg_netbox_export *x,
			struct br_err *err)
{
	json_int_t iface = json_integer_value(json_object_get(ch, "interface_id")),
		   mac = json_integer_value(json_object_get(ch, "mac_id"));
	json_t *made, *body;
	size_t i;
	char *url;
	int rc;

	json_array_foreach(changes, i, made) if (!strcmp(br_json_str(made, "field"), "mac_address") &&
						 !strcasecmp(br_json_str(made, "to"), br_json_str(ch, "to")))
	{
		mac = json_integer_value(json_object_get(made, "mac_id"));
		iface = json_integer_value(json_object_get(made, "interface_id"));
	}
	if (!mac || !iface)
		return br_errf(err, BR_E_PROTO, "NetBox: no id for %s or its interface %s",
			       br_json_str(ch, "to"), br_json_str(ch, "interface"));
	json_object_set_new(ch, "interface_id", json_integer(iface));
	json_object_set_new(ch, "mac_id", json_integer(mac));
	body = json_pack("{s:I}", "primary_mac_address", mac);
	url = br_xasprintf("%sapi/dcim/interfaces/%lld/", c->base, (long long)iface);
	rc = write_one(c, "PATCH", url, body, NULL, err);
	free(url);
	json_decref(body);
	if (rc)
		return rc;
	x->written++;
	json_object_set_new(ch, "written", json_true());
	return 0;
}

/* Send a planned node's writes; the first refusal stops it. */
static int send_node(struct stg_netbox_client *c, struct plan *p, struct stg_netbox_export *x,
		     struct br_err *err)
{
	json_t *changes = json_object_get(p->node, "changes"), *ch;
	json_int_t dev_id = id_of(p->device);
	size_t i;
	int rc = 0;

	if (p->patch) {
		char *url = br_xasprintf("%sapi/dcim/devices/%lld/", c->base, (long long)dev_id);

		rc = write_one(c, "PATCH", url, p->patch, NULL, err);
		free(url);
		if (rc)
			return rc;
		x->written++;
		if (p->serial_chg)
			json_object_set_new(p->serial_chg, "written", json_true());
		if (p->state_chg)
			json_object_set_new(p->state_chg, "written", json_true());
	}
	json_array_foreach(changes, i, ch)
	{
		json_t *iface_id = json_object_get(ch, "interface_id"), *body, *posted = NULL;
		char *url;

		if (!strcmp(br_json_str(ch, "field"), "primary_mac_address")) {
			rc = send_primary(c, changes, ch, x, err);
			if (rc)
				return rc;
			continue;
		}
		if (strcmp(br_json_str(ch, "field"), "mac_address"))
			continue;
		if (json_is_null(iface_id)) {
			/* The interface of the change's name (the OS's, else the
			 * BMC's), created to hold the MAC. */
			json_t *made = NULL;

			char *about = br_json_str(ch, "bmc_port")
					  ? br_xasprintf("the OS's name of the BMC's %s (bringup export)",
							 br_json_str(ch, "bmc_port"))
					  : br_xstrdup("the BMC's name of this port (bringup export)");

			body = json_pack("{s:I, s:s, s:s, s:s}", "device", dev_id, "name",
					 br_json_str(ch, "interface"), "type", "other", "description", about);
			free(about);
			url = br_xasprintf("%sapi/dcim/interfaces/", c->base);
			rc = write_one(c, "POST", url, body, &made, err);
			if (!rc && !json_is_integer(json_object_get(made, "id")))
				rc = br_errf(err, BR_E_PROTO,
					     "NetBox POST %s: the answer has no interface id", url);
			if (!rc) {
				x->written++;
				json_object_set_new(ch, "interface_id", json_integer(id_of(made)));
				json_object_set_new(ch, "interface_created", json_true());
			}
			json_decref(made);
			free(url);
			json_decref(body);
			if (rc)
				return rc;
		}
		body = json_pack("{s:s, s:s, s:I}", "mac_address", br_json_str(ch, "to"),
				 "assigned_object_type", "dcim.interface", "assigned_object_id",
				 json_integer_value(json_object_get(ch, "interface_id")));
		url = br_xasprintf("%sapi/dcim/mac-addresses/", c->base);
		rc = write_one(c, "POST", url, body, &posted, err);
		if (!rc && !json_is_integer(json_object_get(posted, "id")))
			rc =
			    br_errf(err, BR_E_PROTO, "NetBox POST %s: the answer has no MAC address id", url);
		free(url);
		json_decref(body);
		if (!rc)
			json_object_set_new(ch, "mac_id", json_integer(id_of(posted)));
		json_decref(posted);
		if (rc)
			return rc;
		x->written++;
		json_object_set_new(ch, "written", json_true());
	}
	return 0;
}

/* The objects of list whose key (a device id path) is id. */
static json_t *of_device(json_t *list, const char *path, json_int_t id)
{
	json_t *out = json_array(), *o;
	size_t i;

	json_array_foreach(list, i, o) if (json_integer_value(br_json_path(o, path)) == id)
	    json_array_append(out, o);
	return out;
}

int stg_netbox_export(const struct stg_netbox_options *o, const struct stg_netbox_node *nodes, size_t n,
		      int dry_run, struct stg_netbox_export *ret, struct br_err *err)
{
	struct stg_netbox_client c;
	json_t *devices = json_array(), *ifaces = json_array(), *macs = json_array(),
	       *elsewhere = json_array();
	const char **names = br_xcalloc(n ? n : 1, sizeof(*names));
	const char **ids = br_xcalloc(n ? n : 1, sizeof(*ids));
	struct plan *plans = br_xcalloc(n ? n : 1, sizeof(*plans));
	struct br_strlist id_text = { 0 }, missing = { 0 }, planned = { 0 };
	size_t n_ids = 0;
	int rc;

	memset(ret, 0, sizeof(*ret));
	ret->nodes = json_array();
	rc = stg_netbox_query_check(o->query, err);
	if (!rc)
		rc = stg_netbox_client_init(&c, o, err);
	else
		memset(&c, 0, sizeof(c));
	for (size_t i = 0; i < n; i++)
		names[i] = nodes[i].hostname;
	if (!rc)
		rc = get_by(&c, "dcim/devices/", "name", names, n, o->query, devices, err);
	for (size_t i = 0; !rc && i < n; i++) {
		json_t *d, *found = NULL;
		size_t k, same = 0;

		plans[i].node = json_pack("{s:s, s:n, s:s, s:[], s:[]}", "hostname", nodes[i].hostname,
					  "device_id", "status", "unchanged", "changes", "conflicts");
		json_array_append_new(ret->nodes, plans[i].node);
		json_array_foreach(devices, k, d) if (br_json_str(d, "name") &&
						      !strcmp(br_json_str(d, "name"), nodes[i].hostname))
		{
			found = d;
			same++;
		}
		if (same != 1) {
			json_object_set_new(plans[i].node, "status",
					    json_string(same ? "ambiguous" : "not in netbox"));
			if (same)
				json_object_set_new(
				    plans[i].node, "problem",
				    json_sprintf("NetBox has %zu devices named %s: narrow with "
						 "--netbox-query (site=…)",
						 same, nodes[i].hostname));
			ret->missing++;
			continue;
		}
		plans[i].device = found;
		json_object_set_new(plans[i].node, "device_id", json_integer(id_of(found)));
		{
			char id[24];

			snprintf(id, sizeof(id), "%lld", (long long)id_of(found));
			br_strlist_add(&id_text, id);
		}
	}
	for (size_t i = 0; i < id_text.n; i++)
		ids[n_ids++] = id_text.items[i];
	if (!rc && n_ids)
		rc = get_by(&c, "dcim/interfaces/", "device_id", ids, n_ids, NULL, ifaces, err);
	if (!rc && n_ids)
		rc = get_by(&c, "dcim/mac-addresses/", "device_id", ids, n_ids, NULL, macs, err);
	/* The MACs no interface of their device holds: NetBox may have them
	 * elsewhere. */
	for (size_t i = 0; !rc && i < n; i++)
		for (size_t k = 0; plans[i].device && k < nodes[i].n_macs; k++) {
			json_t *m = mac_in(macs, nodes[i].macs[k].mac);

			if (!m || json_integer_value(br_json_path(m, "assigned_object/device/id")) !=
				      id_of(plans[i].device))
				br_strlist_add(&missing, nodes[i].macs[k].mac);
		}
	if (!rc && missing.n)
		rc = get_by(&c, "dcim/mac-addresses/", "mac_address", (const char *const *)missing.items,
			    missing.n, NULL, elsewhere, err);
	for (size_t i = 0; !rc && i < n; i++) {
		json_int_t id = plans[i].device ? id_of(plans[i].device) : 0;
		json_t *di, *dm;

		if (!plans[i].device)
			continue;
		di = of_device(ifaces, "device/id", id);
		dm = of_device(macs, "assigned_object/device/id", id);
		plan_node(&nodes[i], &plans[i], di, dm, elsewhere, &planned, ret);
		json_decref(di);
		json_decref(dm);
	}
	for (size_t i = 0; !rc && i < n; i++) {
		if (!plans[i].device)
			continue;
		if (!json_array_size(json_object_get(plans[i].node, "changes"))) {
			ret->unchanged++;
			continue;
		}
		if (dry_run) {
			json_object_set_new(plans[i].node, "status", json_string("would update"));
			continue;
		}
		rc = send_node(&c, &plans[i], ret, err);
		json_object_set_new(plans[i].node, "status", json_string(rc ? "refused" : "updated"));
		if (rc)
			json_object_set_new(plans[i].node, "problem", json_string(err->msg));
	}
	/* After a refusal: the nodes whose writes were never sent say so. */
	for (size_t i = 0; rc && i < n; i++)
		if (plans[i].device && json_array_size(json_object_get(plans[i].node, "changes")) &&
		    !strcmp(br_json_str(plans[i].node, "status"), "unchanged"))
			json_object_set_new(plans[i].node, "status", json_string("not sent"));
	for (size_t i = 0; i < n; i++)
		json_decref(plans[i].patch);
	stg_netbox_client_release(&c);
	json_decref(devices);
	json_decref(ifaces);
	json_decref(macs);
	json_decref(elsewhere);
	br_strlist_release(&id_text);
	br_strlist_release(&missing);
	br_strlist_release(&planned);
	free(names);
	free(ids);
	free(plans);
	return rc;
}

void stg_netbox_export_release(struct stg_netbox_export *x)
{
	json_decref(x->nodes);
	memset(x, 0, sizeof(*x));
}
