/* The two XML documents the probe reads from node tools, parsed with
 * libxml2: `nvidia-smi -q -x` (GPUs) and `lldpctl -f xml` (LLDP
 * neighbours). Field names follow the tools' own element names; values the
 * tools print as "N/A" become null, never a guess. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

#include "validators.h"

/* Parse without network or external DTD (nvidia-smi's XML names a DTD it
 * does not ship), and with errors kept for the message, not printed. */
static int xml_read(const char *xml, size_t len, const char *what, xmlDocPtr *ret_doc, struct br_err *err)
{
	xmlDocPtr doc;
	const xmlError *e;

	if (len > VAL_XML_MAX)
		return br_errf(err, BR_E_TOOBIG, "%s: larger than %d bytes", what, VAL_XML_MAX);
	xmlResetLastError();
	doc = xmlReadMemory(xml, (int)len, what, NULL,
			    XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
	if (!doc) {
		e = xmlGetLastError();
		if (e && e->message) {
			size_t ml = strlen(e->message);

			while (ml && e->message[ml - 1] == '\n')
				ml--;
			return br_errf(err, BR_E_PROTO, "%s: not XML: line %d: %.*s", what, e->line, (int)ml,
				       e->message);
		}
		return br_errf(err, BR_E_PROTO, "%s: not XML", what);
	}
	*ret_doc = doc;
	return 0;
}

static xmlNodePtr child(xmlNodePtr n, const char *name)
{
	for (xmlNodePtr c = n ? n->children : NULL; c; c = c->next)
		if (c->type == XML_ELEMENT_NODE && strcmp((const char *)c->name, name) == 0)
			return c;
	return NULL;
}

/* Element at "a/b/c" below n. */
static xmlNodePtr at(xmlNodePtr n, const char *path)
{
	char name[64];

	while (n && *path) {
		size_t l = strcspn(path, "/");

		if (l >= sizeof(name))
			return NULL;
		memcpy(name, path, l);
		name[l] = '\0';
		n = child(n, name);
		path += l;
		if (*path == '/')
			path++;
	}
	return n;
}

/* Trimmed text of an element; NULL when absent. Caller frees. */
static char *text_of(xmlNodePtr n)
{
	xmlChar *raw;
	const char *s;
	char *out;
	size_t l;

	if (!n)
		return NULL;
	raw = xmlNodeGetContent(n);
	if (!raw)
		return NULL;
	s = (const char *)raw;
	while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
		s++;
	l = strlen(s);
	while (l && (s[l - 1] == ' ' || s[l - 1] == '\t' || s[l - 1] == '\n' || s[l - 1] == '\r'))
		l--;
	out = br_xstrndup(s, l);
	xmlFree(raw);
	return out;
}

static json_t *str_at(xmlNodePtr n, const char *path)
{
	char *s = text_of(at(n, path));
	json_t *v;

	if (!s || !s[0] || strcmp(s, "N/A") == 0) {
		free(s);
		return json_null();
	}
	v = json_string(s);
	free(s);
	return v ? v : json_null();
}

/* "38 C", "83.47 W", "16x", "5": the leading number; null for "N/A". */
static json_t *num_at(xmlNodePtr n, const char *path)
{
	char *s = text_of(at(n, path)), *end = NULL;
	json_t *v = json_null();
	double d;

	if (s && s[0]) {
		errno = 0;
		d = strtod(s, &end);
		/* "nan" and "inf" parse but are no reading (and JSON has no
		 * such numbers); only a value within json_int_t's range may be
		 * converted to it (3e57 from a broken tool would be undefined). */
		if (!errno && end != s && isfinite(d)) {
			int whole =
			    d >= -9.2e18 && d <= 9.2e18 && d == (double)(json_int_t)d && !strchr(s, '.');

			json_decref(v);
			v = whole ? json_integer((json_int_t)d) : json_real(d);
		}
	}
	free(s);
	return v;
}

static xmlChar *attr(xmlNodePtr n, const char *name)
{
	return xmlGetProp(n, (const xmlChar *)name);
}

static json_t *attr_json(xmlNodePtr n, const char *name)
{
	xmlChar *a = attr(n, name);
	json_t *v = a ? json_string((const char *)a) : json_null();

	xmlFree(a);
	return v ? v : json_null();
}

/* Every child element's text, numbers where they are numbers: ECC counters
 * and clock event reasons change names between driver versions, so they are
 * kept as the driver names them. */
static json_t *children_object(xmlNodePtr n)
{
	json_t *obj;

	if (!n)
		return json_null();
	obj = json_object();
	for (xmlNodePtr c = n->children; c; c = c->next) {
		if (c->type != XML_ELEMENT_NODE)
			continue;
		if (child(c, "retired_count") || (c->children && c->children->next))
			continue; /* nested groups are read by name elsewhere */
		json_t *v = num_at(c, "");

		if (json_is_null(v)) {
			json_decref(v);
			v = str_at(c, "");
		}
		json_object_set_new(obj, (const char *)c->name, v);
	}
	return obj;
}

/* One scope of <ecc_errors> (volatile or aggregate). From R450 the
 * counters are flat (dram_uncorrectable, sram_uncorrectable_parity, …);
 * older drivers group them by kind, <single_bit> (corrected) and
 * <double_bit> (uncorrectable), each with device_memory, register_file,
 * the caches and a total: those groups are kept as objects of their own. */
static json_t *ecc_scope(xmlNodePtr n)
{
	json_t *obj = children_object(n);
	static const char *const groups[] = { "single_bit", "double_bit" };

	for (size_t i = 0; n && i < sizeof(groups) / sizeof(groups[0]); i++)
		if (child(n, groups[i]))
			json_object_set_new(obj, groups[i], children_object(child(n, groups[i])));
	return obj;
}

/* <fabric> (R530 and later): where the fabric manager has registered the
 * GPU with the NVSwitch fabric of an HGX baseboard. State goes "Not
 * Started", "In Progress", "Completed" ("Not Supported" off NVSwitch
 * systems), status is NVML's return text ("Success" once done); newer
 * drivers add a health summary. Absent from older drivers: null. */
static json_t *fabric_of(xmlNodePtr f)
{
	if (!f)
		return json_null();
	return json_pack("{s:o, s:o, s:o, s:o, s:o}", "state", str_at(f, "state"), "status",
			 str_at(f, "status"), "clique_id", str_at(f, "cliqueId"), "cluster_uuid",
			 str_at(f, "clusterUuid"), "health_summary", str_at(f, "health/summary"));
}

static json_t *nvsmi_gpu(xmlNodePtr g)
{
	xmlNodePtr link = at(g, "pci/pci_gpu_link_info");
	xmlNodePtr power = at(g, "gpu_power_readings");
	json_t *gpu, *bus = str_at(g, "pci/pci_bus_id"), *bdf_json = json_null();
	const char *bus_id;

	/* Drivers before R535 call the power block power_readings/power_draw. */
	if (!power)
		power = at(g, "power_readings");
	bus_id = json_string_value(bus);
	if (bus_id && strlen(bus_id) >= 12) {
		/* nvidia-smi's "00000000:1B:00.0" as sysfs names it, "0000:1b:00.0",
		 * so the GPU joins its PCIe device. */
		char bdf[13];

		for (size_t i = 0; i < 12; i++)
			bdf[i] = (char)tolower((unsigned char)bus_id[strlen(bus_id) - 12 + i]);
		bdf[12] = '\0';
		bdf_json = json_string(bdf);
	}
	gpu =
	    json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "bus_id", bus, "bdf", bdf_json, "product_name",
		      str_at(g, "product_name"), "serial", str_at(g, "serial"), "uuid", str_at(g, "uuid"),
		      "vbios_version", str_at(g, "vbios_version"), "minor_number", num_at(g, "minor_number"));
	json_object_set_new(gpu, "pcie",
			    json_pack("{s:o, s:o, s:o, s:o, s:o, s:o}", "gen_current",
				      num_at(link, "pcie_gen/current_link_gen"), "gen_max",
				      num_at(link, "pcie_gen/max_link_gen"), "gen_max_device",
				      num_at(link, "pcie_gen/max_device_link_gen"), "gen_max_host",
				      num_at(link, "pcie_gen/max_host_link_gen"), "width_current",
				      num_at(link, "link_widths/current_link_width"), "width_max",
				      num_at(link, "link_widths/max_link_width")));
	json_object_set_new(gpu, "temperature_c", num_at(g, "temperature/gpu_temp"));
	json_object_set_new(gpu, "memory_temperature_c", num_at(g, "temperature/memory_temp"));
	json_object_set_new(gpu, "power_draw_w",
			    at(power, "instant_power_draw") ? num_at(power, "instant_power_draw")
							    : num_at(power, "power_draw"));
	json_object_set_new(gpu, "power_limit_w", num_at(power, "current_power_limit"));
	json_object_set_new(gpu, "performance_state", str_at(g, "performance_state"));
	json_object_set_new(gpu, "ecc_mode",
			    json_pack("{s:o, s:o}", "current", str_at(g, "ecc_mode/current_ecc"), "pending",
				      str_at(g, "ecc_mode/pending_ecc")));
	json_object_set_new(gpu, "ecc_errors",
			    json_pack("{s:o, s:o}", "volatile", ecc_scope(at(g, "ecc_errors/volatile")),
				      "aggregate", ecc_scope(at(g, "ecc_errors/aggregate"))));
	json_object_set_new(gpu, "retired_pages",
			    json_pack("{s:o, s:o, s:o}", "single_bit",
				      num_at(g, "retired_pages/multiple_single_bit_retirement/retired_count"),
				      "double_bit",
				      num_at(g, "retired_pages/double_bit_retirement/retired_count"),
				      "pending", str_at(g, "retired_pages/pending_retirement")));
	json_object_set_new(gpu, "remapped_rows", children_object(at(g, "remapped_rows")));
	json_object_set_new(gpu, "fabric", fabric_of(at(g, "fabric")));
	json_object_set_new(
	    gpu, "clocks_event_reasons",
	    children_object(
		at(g, at(g, "clocks_event_reasons") ? "clocks_event_reasons" : "clocks_throttle_reasons")));
	return gpu;
}

int val_nvsmi_parse(const char *xml, size_t len, json_t **ret_gpus, struct br_err *err)
{
	xmlDocPtr doc = NULL;
	xmlNodePtr root;
	json_t *section, *gpus;
	int rc = xml_read(xml, len, "nvidia-smi -q -x", &doc, err);

	if (rc)
		return rc;
	root = xmlDocGetRootElement(doc);
	if (!root || strcmp((const char *)root->name, "nvidia_smi_log") != 0) {
		rc = br_errf(err, BR_E_PROTO, "nvidia-smi -q -x: root element is <%s>, not <nvidia_smi_log>",
			     root ? (const char *)root->name : "(none)");
		xmlFreeDoc(doc);
		return rc;
	}
	gpus = json_array();
	for (xmlNodePtr g = root->children; g; g = g->next)
		if (g->type == XML_ELEMENT_NODE && strcmp((const char *)g->name, "gpu") == 0)
			json_array_append_new(gpus, nvsmi_gpu(g));
	section = json_pack("{s:o, s:o, s:o, s:I, s:o}", "driver_version", str_at(root, "driver_version"),
			    "cuda_version", str_at(root, "cuda_version"), "attached_gpus",
			    num_at(root, "attached_gpus"), "count", (json_int_t)json_array_size(gpus), "gpus",
			    gpus);
	xmlFreeDoc(doc);
	*ret_gpus = section;
	return 0;
}

static json_t *lldp_neighbor(xmlNodePtr iface)
{
	xmlNodePtr chassis = child(iface, "chassis"), port = child(iface, "port");
	json_t *mgmt = json_array();

	for (xmlNodePtr c = chassis ? chassis->children : NULL; c; c = c->next)
		if (c->type == XML_ELEMENT_NODE && strcmp((const char *)c->name, "mgmt-ip") == 0)
			json_array_append_new(mgmt, str_at(c, ""));
	return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "local_port",
			 attr_json(iface, "name"), "via", attr_json(iface, "via"), "age",
			 attr_json(iface, "age"), "chassis_id", str_at(chassis, "id"), "chassis_id_type",
			 attr_json(child(chassis, "id"), "type"), "system_name", str_at(chassis, "name"),
			 "system_description", str_at(chassis, "descr"), "mgmt_ip", mgmt, "port_id",
			 str_at(port, "id"), "port_id_type", attr_json(child(port, "id"), "type"),
			 "port_description", str_at(port, "descr"));
}

int val_lldp_parse(const char *xml, size_t len, json_t **ret_neighbors, struct br_err *err)
{
	xmlDocPtr doc = NULL;
	xmlNodePtr root;
	json_t *list;
	int rc = xml_read(xml, len, "lldpctl -f xml", &doc, err);

	if (rc)
		return rc;
	root = xmlDocGetRootElement(doc);
	if (!root || strcmp((const char *)root->name, "lldp") != 0) {
		rc = br_errf(err, BR_E_PROTO, "lldpctl -f xml: root element is <%s>, not <lldp>",
			     root ? (const char *)root->name : "(none)");
		xmlFreeDoc(doc);
		return rc;
	}
	list = json_array();
	for (xmlNodePtr i = root->children; i; i = i->next)
		if (i->type == XML_ELEMENT_NODE && strcmp((const char *)i->name, "interface") == 0)
			json_array_append_new(list, lldp_neighbor(i));
	xmlFreeDoc(doc);
	*ret_neighbors = list;
	return 0;
}
