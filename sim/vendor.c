/*
 * BMC families over the iDRAC renderer. A request for a family's path is
 * mapped onto iDRAC's (System.Embedded.1 -> the family's System id, and so
 * on), answered by idrac.c (so sessions, faults, ETags and jobs behave as
 * they do for Dell), and the answer is reshaped: links mapped back, the
 * family's ids, MAC and serial formats, and the resources it shows or
 * hides. What each family does, and where that is documented:
 *  - HPE iLO 5 (HPE iLO 5 RESTful API reference): System, Chassis and
 *    Manager id "1"; every @odata.id ends in '/', and links may differ in
 *    case (iLO matches paths case-insensitively); host MACs only in
 *    Oem.Hpe BaseNetworkAdapters, EthernetInterfaces empty until the
 *    host runs HPE's agent, NetworkDeviceFunctions without MACs.
 *  - Lenovo XCC (Lenovo XClarity Controller Redfish REST API guide): ids
 *    "1"; the System's EthernetInterfaces hold "ToManager", the host end
 *    of LAN-over-USB; BootOptions with UEFI device paths; serials padded
 *    with spaces to the field's width (as the SMBIOS strings are).
 *  - Supermicro (Supermicro Redfish Reference Guide): ids "1"; the Host
 *    Interface's USB NIC among the System's EthernetInterfaces; MACs
 *    written with dashes; drives also linked from the Chassis.
 *  - OpenBMC / NVIDIA Grace (bmcweb; NVIDIA GB200/GH200 and HGX BMC
 *    Redfish docs): System "System_0" beside "HGX_Baseboard_0", Manager
 *    "bmc"; NetworkAdapters empty; host MACs only in BootOptions; the
 *    System's EthernetInterfaces only the USB LAN to the BMC.
 *  - AMI MegaRAC (AMI's Redfish server as on NVIDIA DGX): ids "Self";
 *    collections page with every remaining member on each page and a
 *    Members@odata.nextLink, without Members@odata.count; drives under
 *    the Chassis only, listed twice; MACs in mixed case; an
 *    {"error": …} body where NetworkAdapters should be; the USB LAN.
 * Dell nodes without no_host_mac go straight to idrac.c: none of this
 * costs the iDRAC rack anything.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "vendor.h"

static const struct sim_vendor_info infos[SIM_V_COUNT] = {
    [SIM_V_DELL] = {.name = "dell",
		    .system_id = "System.Embedded.1",
		    .chassis_id = "System.Embedded.1",
		    .manager_id = "iDRAC.Embedded.1",
		    .manufacturer = "Dell Inc.",
		    .model = "PowerEdge XE9680",
		    .root_vendor = "Dell",
		    .oem_key = "Dell",
		    .mac_style = SIM_MAC_UPPER,
		    .host_eth = 1,
		    .ndf_macs = 1,
		    .adapters = 1,
		    .system_storage = 1},
    [SIM_V_HPE] = {.name = "hpe",
		   .system_id = "1",
		   .chassis_id = "1",
		   .manager_id = "1",
		   .manufacturer = "HPE",
		   .model = "ProLiant XL675d Gen10 Plus",
		   .root_vendor = "HPE",
		   .oem_key = "Hpe",
		   .mac_style = SIM_MAC_LOWER,
		   .trailing_slash = 1,
		   .adapters = 1,
		   .system_storage = 1},
    [SIM_V_LENOVO] = {.name = "lenovo",
		      .system_id = "1",
		      .chassis_id = "1",
		      .manager_id = "1",
		      .manufacturer = "Lenovo",
		      .model = "ThinkSystem SR675 V3",
		      .root_vendor = "Lenovo",
		      .oem_key = "Lenovo",
		      .usb_id = "ToManager",
		      .usb_name = "ToManager",
		      .usb_description = "Interface to the XClarity Controller (LAN over USB)",
		      .mac_style = SIM_MAC_LOWER,
		      .serial_pad = 1,
		      .host_eth = 1,
		      .ndf_macs = 1,
		      .adapters = 1,
		      .boot_options = 1,
		      .system_storage = 1},
    [SIM_V_SUPERMICRO] = {.name = "supermicro",
			  .system_id = "1",
			  .chassis_id = "1",
			  .manager_id = "1",
			  .manufacturer = "Supermicro",
			  .model = "SYS-821GE-TNHR",
			  .root_vendor = "Supermicro",
			  .oem_key = "Supermicro",
			  .usb_id = "hostusb",
			  .usb_name = "Host Interface",
			  .usb_description = "Redfish Host Interface (USB NIC)",
			  .mac_style = SIM_MAC_DASH,
			  .host_eth = 1,
			  .ndf_macs = 1,
			  .adapters = 1,
			  .chassis_drives = 1,
			  .system_storage = 1},
    [SIM_V_OPENBMC] = {.name = "openbmc",
		       .system_id = "System_0",
		       .chassis_id = "Chassis_0",
		       .manager_id = "bmc",
		       .manufacturer = "NVIDIA",
		       .model = "P3880 Grace Hopper",
		       .root_vendor = "OpenBMC",
		       .oem_key = "OpenBMC",
		       .usb_id = "usb0",
		       .usb_name = "USB Ethernet",
		       .usb_description = "Host side of the USB LAN to the BMC",
		       .mac_style = SIM_MAC_LOWER,
		       .boot_options = 1,
		       .system_storage = 1,
		       .hgx = 1},
    [SIM_V_AMI] = {.name = "ami",
		   .system_id = "Self",
		   .chassis_id = "Self",
		   .manager_id = "Self",
		   .manufacturer = "NVIDIA",
		   .model = "DGXH100",
		   .root_vendor = "AMI",
		   .oem_key = "Ami",
		   .usb_id = "usb0",
		   .usb_name = "Host Interface",
		   .usb_description = "USB LAN over the Redfish Host Interface",
		   .mac_style = SIM_MAC_MIXED,
		   .serial_pad = 1,
		   .host_eth = 1,
		   .ndf_macs = 1,
		   .adapters = 1,
		   .chassis_drives = 1,
		   .repeat_pages = 1},
};

const struct sim_vendor_info *sim_vendor_info(enum sim_vendor v)
{
	return &infos[(unsigned)v < SIM_V_COUNT ? v : SIM_V_DELL];
}

const char *sim_vendor_name(enum sim_vendor v)
{
	return v == SIM_V_MIXED ? "mixed" : sim_vendor_info(v)->name;
}

int sim_vendor_parse(const char *name, enum sim_vendor *ret_vendor)
{
	for (int v = 0; v <= SIM_V_MIXED; v++)
		if (!strcmp(name, sim_vendor_name((enum sim_vendor)v))) {
			*ret_vendor = (enum sim_vendor)v;
			return 0;
		}
	return BR_E_INVAL;
}

void sim_vendor_assign(struct sim_rack *rack, enum sim_vendor vendor)
{
	for (size_t i = 0; i < rack->n; i++) {
		struct sim_node *n = &rack->nodes[i];

		n->vendor = vendor == SIM_V_MIXED ? (enum sim_vendor)(i % SIM_V_COUNT) : vendor;
		n->usb_mac[0] = '\0';
		/* The BMC picks the USB link's host MAC: locally administered
		 * (0x02 bit of the first octet), here derived from its own. */
		if (infos[n->vendor].usb_id)
			snprintf(n->usb_mac, sizeof(n->usb_mac), "0a%.15s", n->bmc_mac + 2);
	}
}

int sim_vendor_host_macs(const struct sim_node *n)
{
	return !(n->faults & SIM_FAULT_BIT(SIM_F_NO_HOST_MAC));
}

void sim_vendor_mac(const struct sim_vendor_info *vi, const char *mac, char out[18])
{
	for (int i = 0; i < 17; i++) {
		char ch = mac[i];
		int upper = vi->mac_style == SIM_MAC_UPPER || vi->mac_style == SIM_MAC_DASH ||
			    (vi->mac_style == SIM_MAC_MIXED && (i / 3) % 2);

		if (ch >= 'A' && ch <= 'F')
			ch = (char)(ch - 'A' + 'a');
		if (upper && ch >= 'a' && ch <= 'f')
			ch = (char)(ch - 'a' + 'A');
		if (ch == ':' && vi->mac_style == SIM_MAC_DASH)
			ch = '-';
		out[i] = ch;
	}
	out[17] = '\0';
}

/* ---- paths ------------------------------------------------------------------ */

struct prefix_map {
	const char *dell;
	char vendor[64];
};

static void prefixes(const struct sim_vendor_info *vi, struct prefix_map out[3])
{
	out[0].dell = SIM_R_SYS;
	snprintf(out[0].vendor, sizeof(out[0].vendor), "/redfish/v1/Systems/%s", vi->system_id);
	out[1].dell = SIM_R_CHASSIS;
	snprintf(out[1].vendor, sizeof(out[1].vendor), "/redfish/v1/Chassis/%s", vi->chassis_id);
	out[2].dell = SIM_R_MGR;
	snprintf(out[2].vendor, sizeof(out[2].vendor), "/redfish/v1/Managers/%s", vi->manager_id);
}

static int prefix_at(const char *s, const char *prefix, int nocase)
{
	size_t n = strlen(prefix);

	if (nocase ? strncasecmp(s, prefix, n) : strncmp(s, prefix, n))
		return 0;
	return s[n] == '\0' || s[n] == '/' || s[n] == '?' || s[n] == '#';
}

/* The iDRAC path of a family's path (the family matches case-blind, as
 * iLO does; trailing '/' dropped). Caller frees. */
static char *path_in(const struct sim_vendor_info *vi, const char *path)
{
	struct prefix_map map[3];
	size_t len = strlen(path);

	while (len > 1 && path[len - 1] == '/')
		len--;
	prefixes(vi, map);
	for (int i = 0; i < 3; i++) {
		char *trimmed = br_xstrndup(path, len), *out;

		if (!prefix_at(trimmed, map[i].vendor, 1)) {
			free(trimmed);
			continue;
		}
		out = br_xasprintf("%s%s", map[i].dell, trimmed + strlen(map[i].vendor));
		free(trimmed);
		return out;
	}
	return br_xstrndup(path, len);
}

/* A link of an iDRAC answer as the family writes it; NULL: unchanged. */
static char *path_out(const struct sim_vendor_info *vi, const char *s)
{
	struct prefix_map map[3];

	if (strncmp(s, "/redfish/v1/", 12))
		return NULL;
	prefixes(vi, map);
	for (int i = 0; i < 3; i++)
		if (prefix_at(s, map[i].dell, 0)) {
			const char *rest = s + strlen(map[i].dell);

			return br_xasprintf(
			    "%s%s%s", map[i].vendor, rest,
			    vi->trailing_slash && !strchr(rest, '?') && !strchr(rest, '#') ? "/" : "");
		}
	if (vi->trailing_slash && !strchr(s, '?') && !strchr(s, '#') && !strchr(s, '$') &&
	    s[strlen(s) - 1] != '/')
		return br_xasprintf("%s/", s);
	return NULL;
}

static void rewrite_links(const struct sim_vendor_info *vi, json_t *v)
{
	const char *key;
	json_t *item;
	size_t i;

	if (json_is_object(v)) {
		json_object_foreach(v, key, item)
		{
			char *out = json_is_string(item) ? path_out(vi, json_string_value(item)) : NULL;

			if (out)
				json_object_set_new(v, key, json_string(out));
			else
				rewrite_links(vi, item);
			free(out);
		}
	} else if (json_is_array(v)) {
		json_array_foreach(v, i, item)
		{
			char *out = json_is_string(item) ? path_out(vi, json_string_value(item)) : NULL;

			if (out)
				json_array_set_new(v, i, json_string(out));
			else
				rewrite_links(vi, item);
			free(out);
		}
	}
}

/* ---- reshaping an answer ------------------------------------------------------ */

struct vreq {
	struct sim_ctx c; /* for the renderers and replies; c.req is the original */
	const struct sim_vendor_info *vi;
	const char *dpath; /* the iDRAC path */
	int own;	   /* rendered here (vendor_res.c), not by idrac.c */
};

static int is(const struct vreq *v, const char *path)
{
	return !strcmp(v->dpath, path);
}

static int under(const struct vreq *v, const char *prefix)
{
	size_t n = strlen(prefix);

	return !strncmp(v->dpath, prefix, n) && v->dpath[n] == '/' && !strchr(v->dpath + n + 1, '/');
}

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

/* A host MAC in the family's format, or gone where the family (or
 * no_host_mac) shows none there. */
static void set_mac(const struct vreq *v, json_t *obj, const char *key, int shown)
{
	const char *mac = br_json_str(obj, key);
	char norm[18], out[18];

	if (!mac)
		return;
	if (!sim_vendor_host_macs(v->c.node) || !shown) {
		json_object_del(obj, key);
		return;
	}
	if (br_mac_normalize(mac, norm))
		return;
	sim_vendor_mac(v->vi, norm, out);
	json_object_set_new(obj, key, json_string(out));
}

static void pad_serial(const struct vreq *v, json_t *doc)
{
	const char *serial = br_json_str(doc, "SerialNumber");

	if (v->vi->serial_pad && serial) {
		char *padded = br_xasprintf("%-20s", serial);

		json_object_set_new(doc, "SerialNumber", json_string(padded));
		free(padded);
	}
}

static void reshape_root(const struct vreq *v, json_t *doc)
{
	json_object_del(doc, "Oem");
	json_object_set_new(doc, "Vendor", json_string(v->vi->root_vendor));
	json_object_set_new(doc, "Oem", json_pack("{s:{}}", v->vi->oem_key));
	/* iLO, XCC and bmcweb expand; the AMI firmware whose paging this
	 * copies does not, and is read link by link. */
	if (v->vi->repeat_pages)
		json_object_del(json_object_get(doc, "ProtocolFeaturesSupported"), "ExpandQuery");
}

static void reshape_system(const struct vreq *v, json_t *doc)
{
	const struct sim_vendor_info *vi = v->vi;

	json_object_set_new(doc, "Id", json_string(vi->system_id));
	json_object_set_new(doc, "Manufacturer", json_string(vi->manufacturer));
	json_object_set_new(doc, "Model", json_string(vi->model));
	json_object_del(doc, "SKU");
	json_object_del(doc, "Oem");
	pad_serial(v, doc);
	if (vi->boot_options)
		json_object_set_new(json_object_get(doc, "Boot"), "BootOptions",
				    sim_link(SIM_R_SYS "/BootOptions"));
	if (!vi->system_storage)
		json_object_del(doc, "Storage");
	if (!strcmp(vi->oem_key, "Hpe"))
		json_object_set_new(doc, "Oem",
				    json_pack("{s:{s:{s:o}}}", "Hpe", "Links", "NetworkAdapters",
					      sim_link(SIM_R_SYS "/BaseNetworkAdapters")));
}

static void reshape_chassis(const struct vreq *v, json_t *doc)
{
	json_object_set_new(doc, "Id", json_string(v->vi->chassis_id));
	json_object_set_new(doc, "Manufacturer", json_string(v->vi->manufacturer));
	json_object_set_new(doc, "Model", json_string(v->vi->model));
	json_object_del(doc, "SKU");
	pad_serial(v, doc);
	if (v->vi->chassis_drives)
		json_object_set_new(doc, "Drives", sim_link(SIM_R_CHASSIS "/Drives"));
	if (v->vi->hgx)
		json_array_append_new(json_object_get(json_object_get(doc, "Links"), "ComputerSystems"),
				      sim_link(SIM_HGX_SYSTEM));
}

/* The System's EthernetInterfaces: host NICs where the family lists them,
 * and the USB link. */
static void reshape_eth_coll(const struct vreq *v, json_t *doc)
{
	json_t *members = json_object_get(doc, "Members");

	if (!json_is_array(members))
		return; /* a test-only fault broke it on purpose */
	if (!v->vi->host_eth || !sim_vendor_host_macs(v->c.node))
		json_array_clear(members);
	if (v->vi->usb_id && v->c.node->usb_mac[0])
		json_array_append_new(members, sim_link(SIM_R_SYS "/EthernetInterfaces/%s", v->vi->usb_id));
	json_object_set_new(doc, "Members@odata.count", json_integer((json_int_t)json_array_size(members)));
}

/* Drop the first n members. */
static void drop_first(json_t *members, size_t n)
{
	for (size_t i = 0; i < n && json_array_size(members); i++)
		json_array_remove(members, 0);
}

/* AMI: page $skip holds every member from there on; the next link as if the
 * page had held SIM_AMI_PAGE_SIZE. No count. idrac.c has already cut the
 * members before $skip (it reads the same query), and with fewer than
 * SIM_PAGE_SIZE left kept all the rest: that is the page. */
static void repeat_pages(const struct vreq *v, json_t *doc)
{
	const char *skip_arg = sim_request_query(v->c.req, "$skip");
	json_t *members = json_object_get(doc, "Members");
	size_t left = json_array_size(members);
	long skip = 0;

	if (skip_arg && br_parse_long(skip_arg, 0, 1L << 30, &skip))
		skip = 0;
	if (v->own) {
		drop_first(members, (size_t)skip);
		left = json_array_size(members);
	}
	json_object_del(doc, "Members@odata.count");
	json_object_del(doc, "Members@odata.nextLink");
	if (SIM_AMI_PAGE_SIZE < left) {
		char *next = br_xasprintf("%s?$skip=%ld", v->dpath, skip + SIM_AMI_PAGE_SIZE);

		json_object_set_new(doc, "Members@odata.nextLink", json_string(next));
		free(next);
	}
}

/* The family's shape of an iDRAC answer (or of a vendor_res.c one), at
 * iDRAC paths still; NULL when the family answers something else
 * altogether (AMI's error body), doc then dropped. */
static json_t *reshape(const struct vreq *v, json_t *doc)
{
	const struct sim_vendor_info *vi = v->vi;

	if (is(v, SIM_R_ROOT))
		reshape_root(v, doc);
	else if (is(v, SIM_R_SYS))
		reshape_system(v, doc);
	else if (is(v, SIM_R_CHASSIS))
		reshape_chassis(v, doc);
	else if (is(v, SIM_R_MGR))
		json_object_set_new(doc, "Id", json_string(vi->manager_id));
	else if (is(v, "/redfish/v1/Systems") && vi->hgx)
		/* first, so a client taking the first System takes the wrong one */
		json_array_insert_new(json_object_get(doc, "Members"), 0, sim_link(SIM_HGX_SYSTEM));
	else if (is(v, SIM_R_SYS "/EthernetInterfaces"))
		reshape_eth_coll(v, doc);
	else if (under(v, SIM_R_SYS "/EthernetInterfaces") &&
		 (!vi->usb_id || strcmp(strrchr(v->dpath, '/') + 1, vi->usb_id))) {
		set_mac(v, doc, "MACAddress", 1);
		set_mac(v, doc, "PermanentMACAddress", 1);
	} else if (ends_with(v->dpath, "/NetworkAdapters") && !vi->adapters) {
		json_array_clear(json_object_get(doc, "Members"));
		json_object_set_new(doc, "Members@odata.count", json_integer(0));
	} else if (ends_with(v->dpath, "/NetworkAdapters") && vi->repeat_pages) {
		/* AMI firmware seen answering 200 with an error document where a
		 * resource it links should be. */
		json_decref(doc);
		return json_pack("{s:{s:s, s:s}}", "error", "code", "Base.1.8.InternalError", "message",
				 "The request failed due to an internal service error.");
	} else if (strstr(v->dpath, "/NetworkDeviceFunctions/")) {
		json_t *eth = json_object_get(doc, "Ethernet");

		set_mac(v, eth, "MACAddress", vi->ndf_macs);
		set_mac(v, eth, "PermanentMACAddress", vi->ndf_macs);
	}
	if (json_is_array(json_object_get(doc, "Members")) && json_object_get(doc, "Members@odata.count"))
		json_object_set_new(
		    doc, "Members@odata.count",
		    json_integer((json_int_t)json_array_size(json_object_get(doc, "Members"))));
	if (vi->repeat_pages && json_is_array(json_object_get(doc, "Members")))
		repeat_pages(v, doc);
	return doc;
}

/* After the links are the family's: iLO writes some in lower case (the
 * Systems collection's members, as iLO 5 does), which it matches anyway. */
static void lower_links(const struct vreq *v, json_t *doc)
{
	json_t *members = json_object_get(doc, "Members"), *m;
	size_t i;

	if (!v->vi->trailing_slash || !is(v, "/redfish/v1/Systems"))
		return;
	json_array_foreach(members, i, m)
	{
		char *low = br_xstrdup(br_json_str(m, "@odata.id") ? br_json_str(m, "@odata.id") : "");

		for (char *p = low; *p; p++)
			if (*p >= 'A' && *p <= 'Z')
				*p = (char)(*p - 'A' + 'a');
		json_object_set_new(m, "@odata.id", json_string(low));
		free(low);
	}
}

/* $expand put members inline: each in its family's shape too. */
static void reshape_inline(const struct vreq *v, json_t *doc)
{
	json_t *members = json_object_get(doc, "Members"), *m;
	size_t i;

	json_array_foreach(members, i, m)
	{
		const char *id = br_json_str(m, "@odata.id");
		struct vreq inner = *v;
		char *path;

		if (!id || json_object_size(m) <= 1)
			continue;
		path = br_xstrndup(id, strcspn(id, "?"));
		inner.dpath = path;
		json_incref(m);
		m = reshape(&inner, m);
		json_array_set_new(members, i, m);
		free(path);
	}
}

static json_t *finish(const struct vreq *v, json_t *doc)
{
	doc = reshape(v, doc);
	reshape_inline(v, doc);
	rewrite_links(v->vi, doc);
	lower_links(v, doc);
	return doc;
}

/* ---- the handler ------------------------------------------------------------------ */

/* Resources only the family has (at iDRAC paths); NULL: not one of them. */
static json_t *render_own(struct vreq *v, int *ret_mine)
{
	const struct sim_vendor_info *vi = v->vi;
	struct sim_ctx *c = &v->c;
	const char *last = strrchr(v->dpath, '/') + 1;

	*ret_mine = 1;
	if (vi->usb_id && under(v, SIM_R_SYS "/EthernetInterfaces") && !strcmp(last, vi->usb_id))
		return sim_v_usb_eth(c, vi);
	if (vi->boot_options && is(v, SIM_R_SYS "/BootOptions"))
		return sim_v_boot_options(c);
	if (vi->boot_options && under(v, SIM_R_SYS "/BootOptions"))
		return sim_v_boot_option(c, last);
	if (!strcmp(vi->oem_key, "Hpe") && is(v, SIM_R_SYS "/BaseNetworkAdapters"))
		return sim_v_hpe_adapters(c);
	if (!strcmp(vi->oem_key, "Hpe") && under(v, SIM_R_SYS "/BaseNetworkAdapters"))
		return sim_v_hpe_adapter(c, last);
	if (vi->hgx && is(v, SIM_HGX_SYSTEM))
		return sim_v_hgx_system(c);
	if (vi->chassis_drives && is(v, SIM_R_CHASSIS "/Drives"))
		return sim_v_chassis_drives(c, vi);
	/* Hidden: host NICs where the family does not list them, Storage where
	 * drives hang off the Chassis only. */
	if (under(v, SIM_R_SYS "/EthernetInterfaces") && (!vi->host_eth || !sim_vendor_host_macs(c->node)))
		return NULL;
	if (!vi->system_storage && !strncmp(v->dpath, SIM_R_SYS "/Storage", strlen(SIM_R_SYS "/Storage")))
		return NULL;
	*ret_mine = 0;
	return NULL;
}

static void handle_vendor(struct sim_bmc *bmc, const struct sim_request *req, struct sim_response *resp)
{
	struct vreq v = {.c = {.node = bmc->node, .cfg = bmc->cfg, .req = req, .resp = resp}};
	char *dpath, *drive = NULL;
	json_t *doc;
	int mine;

	v.vi = sim_vendor_info(bmc->node->vendor);
	dpath = path_in(v.vi, req->path);
	v.dpath = dpath;
	resp->auth = "none";
	/* Supermicro answers the version document's path with 404: a client
	 * must know /redfish/v1/ (DSP0266 fixes it) rather than discover it. */
	if (!strcmp(dpath, "/redfish") && bmc->node->vendor == SIM_V_SUPERMICRO) {
		sim_reply_not_found(&v.c);
		goto out;
	}
	if (v.vi->chassis_drives && under(&v, SIM_R_CHASSIS "/Drives"))
		drive = sim_v_drive_path(bmc->node, strrchr(dpath, '/') + 1);
	if (!drive && strcmp(dpath, "/redfish") && strcmp(dpath, SIM_R_ROOT) &&
	    strncmp(dpath, SIM_R_SESSIONS, strlen(SIM_R_SESSIONS))) {
		doc = render_own(&v, &mine);
		v.own = mine;
		if (mine) {
			if (!sim_session_check(&v.c)) {
				if (doc && !strcmp(req->method, "GET")) {
					sim_reply(&v.c, 200, finish(&v, doc));
					doc = NULL;
				} else {
					sim_reply_not_found(&v.c);
				}
			}
			json_decref(doc);
			goto out;
		}
	}
	{
		/* The query travels too: idrac.c reads it from the connection
		 * anyway ($expand, $skip), and its answer cache keys on the URI. */
		struct sim_request inner = *req;
		char *uri = br_xasprintf("%s%s", drive ? drive : dpath,
					 strchr(req->uri, '?') ? strchr(req->uri, '?') : "");

		inner.path = drive ? drive : dpath;
		inner.uri = uri;
		sim_idrac_handle(bmc, &inner, resp);
		free(uri);
	}
	if (resp->status == 200 && resp->body && !resp->synthetic_len && resp->action == SIM_ACT_RESPOND &&
	    (doc = json_loadb(resp->body, resp->body_len, 0, NULL))) {
		char *text;

		doc = finish(&v, doc);
		text = json_dumps(doc, JSON_COMPACT);
		json_decref(doc);
		free(resp->body);
		resp->body = text;
		resp->body_len = strlen(text);
	}
out:
	free(drive);
	free(dpath);
}

void sim_vendor_handle(void *ctx, const struct sim_request *req, struct sim_response *resp)
{
	struct sim_bmc *bmc = ctx;

	if (bmc->node->vendor == SIM_V_DELL && sim_vendor_host_macs(bmc->node))
		sim_idrac_handle(ctx, req, resp);
	else
		handle_vendor(bmc, req, resp);
}
