/*
 * Mapping paths between a family's tree and iDRAC's, and reshaping an
 * iDRAC answer into the family's (vendor.c says what each family does and
 * where that is documented).
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "vendor.h"

/* ---- paths ------------------------------------------------------------------ */

struct prefix_map {
	const char *dell;
	char vendor[64];
};

/* The family's System, Chassis and Manager, and its second Chassis where it
 * has one (vendor.c): NMAP entries, the last empty where it has none. */
#define NMAP 4

static void prefixes(const struct sim_vendor_info *vi, struct prefix_map out[NMAP])
{
	out[0].dell = SIM_R_SYS;
	snprintf(out[0].vendor, sizeof(out[0].vendor), "/redfish/v1/Systems/%s", vi->system_id);
	out[1].dell = SIM_R_CHASSIS;
	snprintf(out[1].vendor, sizeof(out[1].vendor), "/redfish/v1/Chassis/%s", vi->chassis_id);
	out[2].dell = SIM_R_MGR;
	snprintf(out[2].vendor, sizeof(out[2].vendor), "/redfish/v1/Managers/%s", vi->manager_id);
	out[3].dell = SIM_R_ENCLOSURE;
	snprintf(out[3].vendor, sizeof(out[3].vendor), "/redfish/v1/Chassis/%s",
		 vi->enclosure_id ? vi->enclosure_id : SIM_ENCLOSURE);
}

static int prefix_at(const char *s, const char *prefix, int nocase)
{
	size_t n = strlen(prefix);

	if (nocase ? strncasecmp(s, prefix, n) : strncmp(s, prefix, n))
		return 0;
	return s[n] == '\0' || s[n] == '/' || s[n] == '?' || s[n] == '#';
}

/* The family's BIOS settings object (Lenovo's Bios/Pending, Supermicro's
 * Bios/SD: vendor_bios.c) is iDRAC's Bios/Settings; iDRAC's own name then
 * leads nowhere on that family. Takes path. */
static char *settings_in(const struct sim_vendor_info *vi, char *path)
{
	const char *name = sim_vbios_settings_name(sim_vendor_of(vi));
	size_t n = strlen(SIM_R_SYS "/Bios/");
	char *out;

	if (!name || strncmp(path, SIM_R_SYS "/Bios/", n))
		return path;
	if (!strcasecmp(path + n, name))
		out = br_xstrdup(SIM_R_SYS "/Bios/Settings");
	else if (!strcmp(path + n, "Settings"))
		out = br_xstrdup(SIM_R_SYS "/Bios/Settings/NotHere");
	else
		return path;
	free(path);
	return out;
}

/* The iDRAC path of a family's path (the family matches case-blind, as
 * iLO does; trailing '/' dropped). Caller frees. */
char *sim_vendor_path_in(const struct sim_vendor_info *vi, const char *path)
{
	struct prefix_map map[NMAP];
	size_t len = strlen(path);

	while (len > 1 && path[len - 1] == '/')
		len--;
	if (!strcmp(vi->oem_key, "Hpe") && !strcmp(path, SIM_ILO_PUSH_PATH))
		return br_xstrdup(SIM_R_UPDATE_ILO_PUSH);
	prefixes(vi, map);
	/* iDRAC's second Chassis is iDRAC's: a family names its own, or has none */
	if ((!vi->enclosure_id || strcmp(vi->enclosure_id, SIM_ENCLOSURE)) &&
	    prefix_at(path, SIM_R_ENCLOSURE, 1))
		return br_xstrdup(SIM_R_ENCLOSURE "/NotHere");
	for (int i = 0; i < NMAP; i++) {
		char *trimmed = br_xstrndup(path, len), *out;

		if (i == 3 && !vi->enclosure_id) {
			free(trimmed);
			continue;
		}
		if (!prefix_at(trimmed, map[i].vendor, 1)) {
			free(trimmed);
			continue;
		}
		out = br_xasprintf("%s%s", map[i].dell, trimmed + strlen(map[i].vendor));
		free(trimmed);
		return settings_in(vi, out);
	}
	return br_xstrndup(path, len);
}

/* s with iLO's '/' after the path (NULL: unchanged, as before a query or in
 * $metadata). An embedded object's @odata.id keeps the fragment after that
 * '/': it is the resource's URI, '#', then a JSON pointer (DSP0266
 * "Resource identifier (@odata.id)"; RFC 6901), so ".../Power/#/Fans/0". */
static char *slashed(const char *s)
{
	size_t n = strcspn(s, "#");

	if (strchr(s, '?') || strchr(s, '$') || !n || s[n - 1] == '/')
		return NULL;
	return br_xasprintf("%.*s/%s", (int)n, s, s + n);
}

/* Where drives hang off the Chassis only (AMI), a drive's link and
 * @odata.id name it there: the Storage it sits under in iDRAC's tree is not
 * served, and a reference names a resource the service has (DSP0266).
 * NULL: not such a link. */
static char *chassis_drive(const struct sim_vendor_info *vi, const char *s)
{
	size_t n = strlen(SIM_R_SYS "/Storage/");
	const char *d;

	if (!vi->chassis_drives || vi->system_storage || strncmp(s, SIM_R_SYS "/Storage/", n))
		return NULL;
	d = strstr(s + n, "/Drives/");
	if (!d || strchr(s + n, '/') != d || strpbrk(d + 8, "/#?"))
		return NULL;
	return br_xasprintf(SIM_R_CHASSIS "/Drives/%s", d + 8);
}

/* A link of an iDRAC answer as the family writes it; NULL: unchanged. */
static char *path_out(const struct sim_vendor_info *vi, const char *link)
{
	struct prefix_map map[NMAP];
	char *drive = chassis_drive(vi, link), *out = NULL, *sl;
	const char *s = drive ? drive : link;

	if (strncmp(s, "/redfish/v1/", 12))
		return NULL;
	prefixes(vi, map);
	if (!strcmp(s, SIM_R_SYS "/Bios/Settings") && sim_vbios_settings_name(sim_vendor_of(vi)))
		return br_xasprintf("%s/Bios/%s%s", map[0].vendor, sim_vbios_settings_name(sim_vendor_of(vi)),
				    vi->trailing_slash ? "/" : "");
	for (int i = 0; i < NMAP && !out; i++)
		if (prefix_at(s, map[i].dell, 0))
			out = br_xasprintf("%s%s", map[i].vendor, s + strlen(map[i].dell));
	if (vi->trailing_slash && (sl = slashed(out ? out : s))) {
		free(out);
		out = sl;
	}
	free(drive);
	return out;
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

int sim_vreq_is(const struct sim_vreq *v, const char *path)
{
	return !strcmp(v->dpath, path);
}

int sim_vreq_under(const struct sim_vreq *v, const char *prefix)
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
static void set_mac(const struct sim_vreq *v, json_t *obj, const char *key, int shown)
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

static void pad_serial(const struct sim_vreq *v, json_t *doc)
{
	const char *serial = br_json_str(doc, "SerialNumber");

	if (v->vi->serial_pad && serial) {
		char *padded = br_xasprintf("%-20s", serial);

		json_object_set_new(doc, "SerialNumber", json_string(padded));
		free(padded);
	}
}

static void reshape_root(const struct sim_vreq *v, json_t *doc)
{
	json_object_del(doc, "Oem");
	json_object_set_new(doc, "Vendor", json_string(v->vi->root_vendor));
	/* iLO 5's root names its management processor and firmware under
	 * Oem.Hpe.Manager (HPE iLO 5 RESTful API reference, ServiceRoot): what
	 * HPE's ilorest reads at login to learn the iLO generation, and fails
	 * without. */
	if (!strcmp(v->vi->oem_key, "Hpe"))
		json_object_set_new(doc, "Oem",
				    json_pack("{s:{s:s, s:[{s:s, s:s}]}}", "Hpe", "@odata.type",
					      "#HpeiLOServiceExt.v2_3_0.HpeiLOServiceExt", "Manager",
					      "ManagerType", "iLO 5", "ManagerFirmwareVersion", "2.78"));
	else
		json_object_set_new(doc, "Oem", json_pack("{s:{}}", v->vi->oem_key));
	/* iLO, XCC and bmcweb expand; the AMI firmware whose paging this
	 * copies does not, and is read link by link. */
	if (v->vi->repeat_pages)
		json_object_del(json_object_get(doc, "ProtocolFeaturesSupported"), "ExpandQuery");
}

static void reshape_system(const struct sim_vreq *v, json_t *doc)
{
	const struct sim_vendor_info *vi = v->vi;

	json_object_set_new(doc, "Id", json_string(vi->system_id));
	json_object_set_new(doc, "Manufacturer", json_string(vi->manufacturer));
	json_object_set_new(doc, "Model", json_string(vi->model));
	json_object_del(doc, "SKU");
	json_object_del(doc, "Oem");
	pad_serial(v, doc);
	sim_vbios_reshape_system(v, doc);
	if (vi->boot_options)
		json_object_set_new(json_object_get(doc, "Boot"), "BootOptions",
				    sim_link(SIM_R_SYS "/BootOptions"));
	if (!vi->system_storage)
		json_object_del(doc, "Storage");
	/* PCIDevices as iLO 5 2.x lists it: an array holding the collection's
	 * link (a DL385 Gen10 Plus v2's capture,
	 * tests/fixtures/redfish/hpe/libredfish/system.json), where older iLO 5
	 * has the link itself. */
	if (!strcmp(vi->oem_key, "Hpe"))
		json_object_set_new(doc, "Oem",
				    json_pack("{s:{s:{s:o, s:[o]}}}", "Hpe", "Links", "NetworkAdapters",
					      sim_link(SIM_R_SYS "/BaseNetworkAdapters"), "PCIDevices",
					      sim_link(SIM_R_SYS "/PCIDevices")));
}

static void reshape_chassis(const struct sim_vreq *v, json_t *doc)
{
	json_object_set_new(doc, "Id", json_string(v->vi->chassis_id));
	json_object_set_new(doc, "Manufacturer", json_string(v->vi->manufacturer));
	json_object_set_new(doc, "Model", json_string(v->vi->model));
	json_object_del(doc, "SKU");
	pad_serial(v, doc);
	if (v->vi->chassis_drives)
		json_object_set_new(doc, "Drives", sim_link(SIM_R_CHASSIS "/Drives"));
	if (v->vi->pcie_slots)
		json_object_set_new(doc, "PCIeSlots", sim_link(SIM_R_CHASSIS "/PCIeSlots"));
	if (v->vi->hgx)
		json_array_append_new(json_object_get(json_object_get(doc, "Links"), "ComputerSystems"),
				      sim_link(SIM_HGX_SYSTEM));
}

static void reshape_manager(const struct sim_vreq *v, json_t *doc)
{
	json_object_set_new(doc, "Id", json_string(v->vi->manager_id));
	/* Dell's job queue is Dell's: the other families apply BIOS settings at
	 * the next reset, without a job (vendor_bios.c) */
	if (v->c.node->vendor != SIM_V_DELL)
		json_object_del(json_object_get(doc, "Links"), "Oem");
	if (v->vi->host_iface && v->c.node->usb_mac[0])
		json_object_set_new(doc, "HostInterfaces", sim_link(SIM_R_MGR "/HostInterfaces"));
}

/* Where the family has no second Chassis (iLO 5: Chassis/1 alone), no
 * link names iDRAC's: members of doc's arrays (one level down, as in Links)
 * that are links to it go, and their counts follow. */
static void drop_enclosure(const struct sim_vreq *v, json_t *doc)
{
	json_t *objs[2] = { doc, json_object_get(doc, "Links") }, *arr, *m;
	const char *key;
	size_t i;

	if (v->vi->enclosure_id)
		return;
	for (int o = 0; o < 2; o++)
		json_object_foreach(objs[o], key, arr)
		{
			int dropped = 0;
			char *count;

			if (!json_is_array(arr))
				continue;
			for (i = json_array_size(arr); i-- > 0;)
				if ((m = json_array_get(arr, i)) && br_json_str(m, "@odata.id") &&
				    !strcmp(br_json_str(m, "@odata.id"), SIM_R_ENCLOSURE)) {
					json_array_remove(arr, i);
					dropped = 1;
				}
			count = br_xasprintf("%s@odata.count", key);
			if (dropped && json_object_get(objs[o], count))
				json_object_set_new(objs[o], count,
						    json_integer((json_int_t)json_array_size(arr)));
			free(count);
		}
}

/* The family's second Chassis in its own name (vendor.c says whose). */
static void reshape_enclosure(const struct sim_vreq *v, json_t *doc)
{
	json_object_set_new(doc, "Id", json_string(v->vi->enclosure_id));
	json_object_set_new(doc, "Name", json_string(v->vi->enclosure_id));
	json_object_set_new(doc, "Manufacturer", json_string(v->vi->manufacturer));
}

/* The BMC's end of the USB link among the Manager's interfaces, first: a
 * client that takes the first interface's MAC for the BMC's is wrong. */
static void reshape_mgr_eth_coll(const struct sim_vreq *v, json_t *doc)
{
	json_t *members = json_object_get(doc, "Members");

	if (!v->vi->mgr_usb_id || !v->c.node->usb_mac[0] || !json_is_array(members))
		return;
	json_array_insert_new(members, 0, sim_link(SIM_R_MGR "/EthernetInterfaces/%s", v->vi->mgr_usb_id));
}

/* The System's EthernetInterfaces: host NICs where the family lists them,
 * and the USB link. */
static void reshape_eth_coll(const struct sim_vreq *v, json_t *doc)
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

/* Where the family hides the host NICs' EthernetInterfaces (vendor.c),
 * the links to them from NetworkDeviceFunctions and PCIeFunctions go too: a
 * reference names a resource the service has (DSP0266 "Reference
 * properties"; NetworkDeviceFunction.v1_9_0 Links.EthernetInterface,
 * PCIeFunction.v1_5_0 Links.EthernetInterfaces). */
static void drop_host_eth_links(const struct sim_vreq *v, json_t *doc)
{
	json_t *links = json_object_get(doc, "Links");

	if (!json_is_object(links) || (v->vi->host_eth && sim_vendor_host_macs(v->c.node)))
		return;
	json_object_del(links, "EthernetInterface");
	json_object_del(links, "EthernetInterfaces");
	json_object_del(links, "EthernetInterfaces@odata.count");
}

/* iLO's BIOS settings object holds every attribute as it will be after the
 * next boot, the pending values over the current ones (HPE iLO 5 RESTful
 * API reference, "BIOS": .../bios/settings/ is the pending configuration;
 * DSP0266 "Settings resource" lets a settings object carry the whole
 * future state): ilorest reads an HPE BIOS's attributes there. */
static void full_settings(const struct sim_vreq *v, json_t *doc)
{
	struct sim_vreq cur = *v;
	json_t *bios = json_pack("{s:o}", "Attributes", json_deep_copy(v->c.node->st.bios)), *attrs;

	cur.dpath = SIM_R_SYS "/Bios";
	sim_vbios_reshape(&cur, bios); /* the Bios's attributes as the family shows them */
	attrs = json_deep_copy(json_object_get(bios, "Attributes"));
	json_object_update(attrs, json_object_get(doc, "Attributes"));
	json_object_set_new(doc, "Attributes", attrs);
	json_decref(bios);
}

/* Drop the first n members. */
static void drop_first(json_t *members, size_t n)
{
	for (size_t i = 0; i < n && json_array_size(members); i++)
		json_array_remove(members, 0);
}

/* AMI: page $skip holds every member from there on; the next link as if the
 * page had held SIM_AMI_PAGE_SIZE. The count is the whole collection's, on
 * every page (DSP0266 "Collection resources": Members@odata.count is
 * required and counts all members, not the page's). idrac.c has already cut the
 * members before $skip (it reads the same query), and with fewer than
 * SIM_PAGE_SIZE left kept all the rest: that is the page. */
static void repeat_pages(const struct sim_vreq *v, json_t *doc)
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
	if (!json_object_get(doc, "Members@odata.nextLink")) /* else idrac.c's count is the total */
		json_object_set_new(doc, "Members@odata.count",
				    json_integer((json_int_t)((size_t)skip + left)));
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
static json_t *reshape(const struct sim_vreq *v, json_t *doc)
{
	const struct sim_vendor_info *vi = v->vi;

	if (sim_vreq_is(v, SIM_R_ROOT))
		reshape_root(v, doc);
	else if (sim_vreq_is(v, SIM_R_SYS))
		reshape_system(v, doc);
	else if (sim_vreq_is(v, SIM_R_CHASSIS))
		reshape_chassis(v, doc);
	else if (sim_vreq_is(v, SIM_R_ENCLOSURE))
		reshape_enclosure(v, doc);
	else if (sim_vreq_is(v, SIM_R_MGR "/EthernetInterfaces"))
		reshape_mgr_eth_coll(v, doc);
	else if (sim_vreq_is(v, SIM_R_SYS "/Bios") || sim_vreq_is(v, SIM_R_SYS "/Bios/Settings")) {
		sim_vbios_reshape(v, doc);
		/* The settings object's Id is its own path's last segment: Lenovo's
		 * "Pending" (libredfish tests/mockups/lenovo/.../Bios/Pending),
		 * an X13's "SD" (.../supermicro/.../Bios/SD), the DGX's "SD"
		 * (its SettingsObjects end in /SD:
		 * tests/fixtures/redfish/ami/libredfish/system_dgx.json). */
		if (sim_vreq_is(v, SIM_R_SYS "/Bios/Settings") && sim_vbios_settings_name(sim_vendor_of(vi)))
			json_object_set_new(doc, "Id",
					    json_string(sim_vbios_settings_name(sim_vendor_of(vi))));
		if (!strcmp(vi->oem_key, "Hpe") && sim_vreq_is(v, SIM_R_SYS "/Bios/Settings"))
			full_settings(v, doc);
	} else if (sim_vreq_is(v, SIM_R_SYS "/Bios/BiosRegistry"))
		doc = sim_vbios_registry(v, doc);
	else if (sim_vreq_is(v, SIM_R_MGR))
		reshape_manager(v, doc);
	else if (sim_vreq_is(v, "/redfish/v1/Systems") && vi->hgx)
		/* first, so a client taking the first System takes the wrong one */
		json_array_insert_new(json_object_get(doc, "Members"), 0, sim_link(SIM_HGX_SYSTEM));
	else if (sim_vreq_is(v, SIM_R_SYS "/EthernetInterfaces"))
		reshape_eth_coll(v, doc);
	else if (sim_vreq_under(v, SIM_R_SYS "/EthernetInterfaces") &&
		 (!vi->usb_id || strcmp(strrchr(v->dpath, '/') + 1, vi->usb_id))) {
		set_mac(v, doc, "MACAddress", 1);
		set_mac(v, doc, "PermanentMACAddress", 1);
	} else if (ends_with(v->dpath, "/NetworkAdapters") && !vi->adapters) {
		json_array_clear(json_object_get(doc, "Members"));
		json_object_set_new(doc, "Members@odata.count", json_integer(0));
	} else if (ends_with(v->dpath, "/NetworkAdapters") && vi->repeat_pages &&
		   (sim_fault_has(&v->c.node->faults, SIM_F_BAD_TYPES))) {
		/* AMI firmware seen answering 200 with an error document where a
		 * resource it links should be. Only under the test-only bad_types
		 * fault: a resource without @odata.type fails DMTF's schema
		 * (Resource.v1: @odata.type is required), and the personality
		 * itself passes DMTF's validator. */
		json_decref(doc);
		return json_pack("{s:{s:s, s:s}}", "error", "code", "Base.1.8.InternalError", "message",
				 "The request failed due to an internal service error.");
	} else if ((vi->pcie_oem || vi->pcie_slots) &&
		   !strncmp(v->dpath, SIM_R_CHASSIS "/PCIeDevices/", strlen(SIM_R_CHASSIS "/PCIeDevices/"))) {
		sim_v_pcie_without_link(v, doc);
	} else if (!strcmp(vi->oem_key, "Hpe") && sim_vreq_is(v, SIM_R_ROOT "/UpdateService")) {
		/* iLO 5: no multipart push, its own HttpPushUri, SimpleUpdate
		 * with no apply times (idrac_update.c says whose shape) */
		json_object_del(doc, "MultipartHttpPushUri");
		json_object_del(doc, "MultipartHttpPushUri@Redfish.OperationApplyTimeSupport");
		json_object_del(br_json_path(doc, "Actions/#UpdateService.SimpleUpdate"),
				"@Redfish.OperationApplyTimeSupport");
		json_object_set_new(doc, "HttpPushUri", json_string(SIM_ILO_PUSH_PATH));
		json_object_set_new(doc, "Oem", json_pack("{s:o}", "Hpe", sim_fw_ilo_state(v->c.node)));
	} else if (vi->psu_no_status && sim_vreq_is(v, SIM_R_CHASSIS "/Power")) {
		/* A real DGX H100 documents its supplies with no Status at all
		 * (tests/fixtures/redfish/ami/libredfish/power_supply_psu0.json). */
		json_t *psu;
		size_t i;

		json_array_foreach(json_object_get(doc, "PowerSupplies"), i, psu)
		    json_object_del(psu, "Status");
	} else if (strstr(v->dpath, "/NetworkDeviceFunctions/")) {
		json_t *eth = json_object_get(doc, "Ethernet");

		set_mac(v, eth, "MACAddress", vi->ndf_macs);
		set_mac(v, eth, "PermanentMACAddress", vi->ndf_macs);
	}
	/* (a page of idrac.c's, with a next link, already counts the whole) */
	if (json_is_array(json_object_get(doc, "Members")) && json_object_get(doc, "Members@odata.count") &&
	    !json_object_get(doc, "Members@odata.nextLink"))
		json_object_set_new(
		    doc, "Members@odata.count",
		    json_integer((json_int_t)json_array_size(json_object_get(doc, "Members"))));
	if (vi->repeat_pages && json_is_array(json_object_get(doc, "Members")))
		repeat_pages(v, doc);
	drop_host_eth_links(v, doc);
	if (sim_vreq_is(v, "/redfish/v1/Chassis") || sim_vreq_is(v, SIM_R_CHASSIS) ||
	    sim_vreq_is(v, SIM_R_MGR))
		drop_enclosure(v, doc);
	return doc;
}

/* After the links are the family's: iLO writes some in lower case, which it
 * matches anyway. Only in its Oem link to BaseNetworkAdapters: a link in
 * another case to a resource with actions or embedded objects would name
 * another URI than the resource's own (RFC 3986 §6.2.2.1: a path is case
 * sensitive) and so break DSP0266's rule that an action's target and an
 * embedded object's @odata.id start with that resource's URI. */
static void lower_links(const struct sim_vreq *v, json_t *doc)
{
	json_t *link = br_json_path(doc, "Oem/Hpe/Links/NetworkAdapters");
	const char *id = br_json_str(link, "@odata.id");
	size_t n = strlen("/redfish/v1/Systems/");
	char *low;

	if (!v->vi->trailing_slash || !sim_vreq_is(v, SIM_R_SYS) || !id ||
	    strncmp(id, "/redfish/v1/Systems/", n))
		return;
	low = br_xasprintf("/redfish/v1/systems/%s", id + n);
	json_object_set_new(link, "@odata.id", json_string(low));
	free(low);
}

/* $expand put members inline: each in its family's shape too. */
static void reshape_inline(const struct sim_vreq *v, json_t *doc)
{
	json_t *members = json_object_get(doc, "Members"), *m;
	size_t i;

	json_array_foreach(members, i, m)
	{
		const char *id = br_json_str(m, "@odata.id");
		struct sim_vreq inner = *v;
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

json_t *sim_vendor_finish(const struct sim_vreq *v, json_t *doc)
{
	doc = reshape(v, doc);
	reshape_inline(v, doc);
	rewrite_links(v->vi, doc);
	lower_links(v, doc);
	return doc;
}
