/* LLDP neighbours from lldpctl's JSON outputs (lldpd 1.0), beside its XML
 * (probe_xml.c), into the same neighbour objects. Two shapes
 * (tests/fixtures/probe/lldp/ has real captures of both):
 *   -f json   "interface" is an array of {IFNAME: {...}}, or one such
 *             object when there is one; the chassis is keyed by its name
 *             ({NAME: {"id": {"type", "value"}, "descr", "mgmt-ip"}}), or
 *             unkeyed when it has none; a value listed once is a string,
 *             several an array;
 *   -f json0  every element an array, every text {"value": ...}, the
 *             interface's name a member ("name"). */
#include <string.h>

#include "probe_private.h"

#define LLDP_JSON_VALUES_MAX (1u << 20)

/* A text as either shape has it: "x", {"value": "x"}, or a list of those
 * (the first); NULL when absent. */
static const char *text_of(json_t *v)
{
	if (json_is_array(v))
		v = json_array_get(v, 0);
	if (json_is_object(v))
		v = json_object_get(v, "value");
	return json_string_value(v);
}

static json_t *str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

/* json0 wraps each element in an array of one. */
static json_t *one(json_t *v)
{
	return json_is_array(v) ? json_array_get(v, 0) : v;
}

static json_t *neighbor(const char *ifname, json_t *iface, int json0)
{
	json_t *chassis = one(json_object_get(iface, "chassis")), *port = one(json_object_get(iface, "port"));
	json_t *body = chassis, *mgmt = json_array(), *ips, *ip;
	const char *name = NULL, *key;
	size_t i;

	/* -f json: the chassis keyed by its name, unless it has none */
	if (!json0 && json_is_object(chassis) && !json_object_get(chassis, "id") &&
	    json_object_size(chassis) == 1) {
		json_object_foreach(chassis, key, body) name = key;
	} else {
		name = text_of(json_object_get(chassis, "name"));
	}
	ips = json_object_get(body, "mgmt-ip");
	if (json_is_array(ips)) {
		json_array_foreach(ips, i, ip) if (text_of(ip))
		    json_array_append_new(mgmt, json_string(text_of(ip)));
	} else if (text_of(ips)) {
		json_array_append_new(mgmt, json_string(text_of(ips)));
	}
	return json_pack(
	    "{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "local_port", str_or_null(ifname),
	    "via", str_or_null(text_of(json_object_get(iface, "via"))), "age",
	    str_or_null(text_of(json_object_get(iface, "age"))), "chassis_id",
	    str_or_null(text_of(one(json_object_get(body, "id")))), "chassis_id_type",
	    str_or_null(json_string_value(json_object_get(one(json_object_get(body, "id")), "type"))),
	    "system_name", str_or_null(name), "system_description",
	    str_or_null(text_of(json_object_get(body, "descr"))), "mgmt_ip", mgmt, "port_id",
	    str_or_null(text_of(one(json_object_get(port, "id")))), "port_id_type",
	    str_or_null(json_string_value(json_object_get(one(json_object_get(port, "id")), "type"))),
	    "port_description", str_or_null(text_of(json_object_get(port, "descr"))));
}

/* -f json's {IFNAME: {...}} (several keys when lldpd merged them). */
static void add_keyed(json_t *list, json_t *obj)
{
	const char *ifname;
	json_t *iface;

	json_object_foreach(obj, ifname, iface) if (json_is_object(iface))
	    json_array_append_new(list, neighbor(ifname, iface, 0));
}

int val_lldp_parse_json(const char *text, size_t len, json_t **ret_neighbors, struct br_err *err)
{
	json_t *doc = br_json_parse_bounded(text, len, VAL_XML_MAX, LLDP_JSON_VALUES_MAX, err), *lldp,
	       *ifaces, *v, *list;
	size_t i;
	int json0;

	if (!doc)
		return br_err_prefix(err, "lldpctl -f json");
	lldp = json_object_get(doc, "lldp");
	if (!json_is_object(lldp) && !json_is_array(lldp)) {
		json_decref(doc);
		return br_errf(err, BR_E_PROTO, "lldpctl -f json: no \"lldp\" member");
	}
	json0 = json_is_array(lldp);
	ifaces = json_object_get(one(lldp), "interface");
	list = json_array();
	if (json0) {
		json_array_foreach(ifaces, i, v) if (json_is_object(v))
		    json_array_append_new(list, neighbor(text_of(json_object_get(v, "name")), v, 1));
	} else if (json_is_array(ifaces)) {
		json_array_foreach(ifaces, i, v) if (json_is_object(v)) add_keyed(list, v);
	} else if (json_is_object(ifaces)) {
		add_keyed(list, ifaces);
	}
	json_decref(doc);
	*ret_neighbors = list;
	return 0;
}
