/*
 * walk — the link walker. Nothing below /redfish/v1 is hard-coded: every
 * URL comes from an @odata.id in a document the BMC sent. Each document is
 * handled the moment it arrives and its links become requests at once, so
 * the walk is a dependency-driven pipeline: its wall time approaches the
 * longest chain of dependent requests times the latency. Requests are
 * queued by the height of the chain still ahead of them (kinds[].height),
 * so the per-BMC cap is spent on the critical path first.
 *
 * Collections are read with $expand where the service root advertised it;
 * a member that arrives inline (more than an @odata.id) is handled in
 * place, one that is only a link is fetched, so servers that ignore
 * $expand work too. A server that rejects it (400, or 501 for a query it
 * does not implement) gets the plain URL again. Resources are read with
 * $expand too where that saves GETs (see "$expand beyond collections").
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "rf_private.h"

typedef void (*handler_fn)(struct rf_bmc *bmc, json_t *doc, long parent);

struct kind_info {
	const char *name;
	int height; /* requests on the longest chain from this one, itself included */
	handler_fn handle;
};

/* A BMC may list more than one System: the host beside a GPU baseboard
 * (NVIDIA's HGX_Baseboard_0, tests/fixtures/redfish/ami/libredfish/
 * systems.json) or DPUs; or several hosts (a multi-node chassis under one
 * BMC). The parts' serials, boot orders and MACs must not become the
 * node's, and two hosts are never merged into one node. Judged on what
 * the System says it is, not on Boot alone: an HGX baseboard's System has
 * a Boot object too. */
static int contains_nocase(const char *s, const char *word)
{
	size_t n = strlen(word);

	for (; *s; s++)
		if (!strncasecmp(s, word, n))
			return 1;
	return 0;
}

const char *rf_system_not_host(json_t *doc)
{
	static const char *const part_words[] = { "baseboard", "hgx_", NULL };
	const char *type = br_json_str(doc, "SystemType");
	const char *id = br_json_str(doc, "Id");
	json_t *chassis = br_json_path(doc, "Links/Chassis"), *l;
	size_t i;

	if (type && !strcmp(type, "DPU"))
		return "a DPU (SystemType DPU)";
	/* ProcessorSummary says nothing here: a BlueField's own BMC reports
	 * Count 0 for the Arm host it is (openbmc/libredfish/system.json). */
	for (size_t w = 0; id && part_words[w]; w++)
		if (contains_nocase(id, part_words[w]))
			return "a GPU baseboard (by its Id)";
	/* the Chassis it sits in: an HGX baseboard's System links the
	 * baseboard's Chassis (HGX_Chassis_0, HGX_Baseboard_0) */
	json_array_foreach(chassis, i, l)
	{
		const char *link = br_json_str(l, "@odata.id");

		for (size_t w = 0; link && part_words[w]; w++)
			if (contains_nocase(link, part_words[w]))
				return "a GPU baseboard (by the Chassis it sits in)";
	}
	if (!br_json_path(doc, "Boot") && !br_json_path(doc, "EthernetInterfaces"))
		return "neither boots nor has network interfaces";
	return NULL;
}

int rf_system_is_host(json_t *doc)
{
	return rf_system_not_host(doc) == NULL;
}

static int names_system(json_t *doc, const char *want)
{
	const char *id = br_json_str(doc, "Id"), *odata = br_json_str(doc, "@odata.id");
	size_t n;

	if (!want)
		return 0;
	if ((id && !strcmp(id, want)) || (odata && !strcmp(odata, want)))
		return 1;
	/* an @odata.id written with a trailing slash */
	n = strlen(want);
	return odata && n > 1 && want[n - 1] == '/' && strlen(odata) == n - 1 && !strncmp(odata, want, n - 1);
}

static int by_text(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The Systems named in sorted order: they arrive in whatever order the
 * BMC answered, and the same BMC must give the same reason every time. */
static void list_systems(struct br_buf *b, json_t *systems)
{
	struct br_strlist names = { 0 };
	size_t i;
	json_t *doc;

	json_array_foreach(systems, i, doc)
	{
		const char *id =
		    br_json_str(doc, "Id") ? br_json_str(doc, "Id") : br_json_str(doc, "@odata.id");
		const char *why = rf_system_not_host(doc);
		char *item = br_xasprintf("%s (%s)", id ? id : "?", why ? why : "a host");

		br_strlist_add(&names, item);
		free(item);
	}
	if (names.n)
		qsort(names.items, names.n, sizeof(*names.items), by_text);
	for (i = 0; i < names.n; i++)
		br_buf_addf(b, "%s%s", i ? ", " : "", names.items[i]);
	br_strlist_release(&names);
}

json_t *rf_choose_host(json_t *systems, const char *want, struct br_err *err)
{
	json_t *doc, *host = NULL;
	struct br_buf b;
	size_t i, hosts = 0;
	int rc;

	json_array_foreach(systems, i, doc)
	{
		if (want ? names_system(doc, want) : rf_system_is_host(doc)) {
			host = doc;
			hosts++;
		}
	}
	if (hosts == 1)
		return host;
	br_buf_init(&b, 0);
	if (want)
		br_buf_addf(&b, "the manifest's system '%s' is not among the BMC's Systems: ", want);
	else if (hosts)
		br_buf_addf(&b,
			    "the BMC manages %zu hosts; name one in the manifest's system column: ", hosts);
	else
		br_buf_adds(&b, "no host System: ");
	list_systems(&b, systems);
	if (!json_array_size(systems))
		br_buf_adds(&b, "the BMC lists none");
	rc = hosts && !want ? BR_E_INVAL : BR_E_NOTFOUND;
	br_errf(err, rc, "%s", br_buf_str(&b));
	br_buf_release(&b);
	return NULL;
}

static void get_link(struct rf_bmc *bmc, const char *link, int kind, int collection, long parent);
static void follow_inline(struct rf_bmc *bmc, json_t *v, int kind, int collection, long parent);
static void issue(struct rf_bmc *bmc, const char *url, int kind, int member_kind, long parent, int pages,
		  int members, int expand);

/* ---- $expand beyond collections ----------------------------------------------
 * With MaxLevels 1 (a real iDRAC9's service root says so), a collection
 * read with $expand brings its members but not what they link. Reading a
 * member itself with $expand brings those: the host System's Bios, its
 * PCIe devices and functions (iDRAC lists them all on the System), a
 * Storage's drives, a Chassis's Thermal and Power, one request for what
 * was one each. Done where it saves requests; a BMC that answers such a
 * read with links still (one that expands collections only) is not asked
 * again. */

static int is_link_only(json_t *v)
{
	return json_is_object(v) && json_object_size(v) == 1 &&
	       json_is_string(json_object_get(v, "@odata.id"));
}

/* A document the BMC put in place of a link: more than the link. */
static int is_inline(json_t *v)
{
	return json_is_object(v) && json_is_string(json_object_get(v, "@odata.id")) &&
	       (json_object_get(v, "@odata.type") || json_object_get(v, "Id") ||
		json_object_get(v, "Members"));
}

/* How many GETs of single resources doc's paths would cost, each a link
 * or an array of links. */
static size_t singles_linked(json_t *doc, const char *const paths[])
{
	size_t n = 0, i;
	json_t *v, *item;

	for (; *paths; paths++) {
		v = br_json_path(doc, *paths);
		if (is_link_only(v))
			n++;
		json_array_foreach(v, i, item) n += (size_t)is_link_only(item);
	}
	return n;
}

/* Read doc's resource again with $expand where two or more GETs would
 * follow it otherwise; 1 when that read was issued (the caller walks its
 * answer instead of doc). */
static int reread_expanded(struct rf_bmc *bmc, json_t *doc, int kind, long parent, const char *const paths[])
{
	const char *link = br_json_str(doc, "@odata.id");
	size_t singles;
	char *url;
	int issued = 0;

	if (!bmc->expand || bmc->reread_useless || !link || (singles = singles_linked(doc, paths)) < 2)
		return 0;
	if (!(url = rf_resolve(bmc, link)))
		return 0;
	if (rf_urlset_add(&bmc->reread, url)) {
		issue(bmc, url, kind, kind, parent, 0, 0, 1);
		issued = 1;
	} else {
		/* this is the answer, and it still links them */
		br_debug("redfish", "%s: %s expanded nothing: resources read link by link", bmc->base, url);
		bmc->reread_useless = 1;
	}
	free(url);
	return issued;
}

/* The host System's inline PCIe functions, by the device each names, for
 * on_pcie_device: a device whose functions came with the System needs no
 * PCIeFunctions GET. */
static void collect_inline_functions(struct rf_bmc *bmc, json_t *system)
{
	json_t *fns = json_object_get(system, "PCIeFunctions"), *f;
	size_t i;

	json_array_foreach(fns, i, f)
	{
		char *dev, *url;
		json_t *list;

		if (!is_inline(f) || !(dev = rf_resolve(bmc, br_json_str(f, "Links/PCIeDevice/@odata.id"))))
			continue;
		if ((url = rf_resolve(bmc, br_json_str(f, "@odata.id"))))
			rf_urlset_add(&bmc->seen, url);
		free(url);
		if (!bmc->inline_functions)
			bmc->inline_functions = json_object();
		if (!(list = json_object_get(bmc->inline_functions, dev))) {
			list = json_array();
			json_object_set_new(bmc->inline_functions, dev, list);
		}
		json_array_append(list, f);
		free(dev);
	}
}

/* A Chassis of the host's whose PCIe devices the host System listed
 * already (iDRAC lists every one on the System): its collection is one
 * request for documents already read. */
static int pcie_listed_by_host(struct rf_bmc *bmc, json_t *chassis)
{
	json_t *links = br_json_path(chassis, "Links/ComputerSystems"), *l;
	size_t i;

	if (!bmc->host_lists_pcie || !bmc->host_odata)
		return 0;
	json_array_foreach(links, i, l)
	{
		const char *id = br_json_str(l, "@odata.id");

		if (id && !strcmp(id, bmc->host_odata))
			return 1;
	}
	return 0;
}

static void follow_chassis_pcie(struct rf_bmc *bmc, json_t *chassis)
{
	if (pcie_listed_by_host(bmc, chassis))
		return;
	rf_follow(bmc, chassis, "PCIeDevices", RF_K_PCIE_DEVICE, 1, -1);
}

/* The host is known (walked, or none will be): the Chassis held back. */
static void flush_deferred_pcie(struct rf_bmc *bmc)
{
	json_t *held = bmc->deferred_pcie, *chassis;
	size_t i;

	bmc->deferred_pcie = NULL;
	json_array_foreach(held, i, chassis) follow_chassis_pcie(bmc, chassis);
	json_decref(held);
}

static const char *const host_singles[] = { "Bios", "PCIeDevices", "PCIeFunctions", NULL };

static void walk_host(struct rf_bmc *bmc, json_t *doc)
{
	json_t *pcie = json_object_get(doc, "PCIeDevices");

	if (reread_expanded(bmc, doc, RF_K_HOST_SYSTEM, -1, host_singles)) {
		/* walked as it is if the re-read fails */
		json_decref(bmc->host_doc);
		bmc->host_doc = json_incref(doc);
		return;
	}
	json_decref(bmc->host_doc);
	bmc->host_doc = NULL;
	bmc->host_walked = 1;
	/* only what came inline: links would each be a GET, where the
	 * Chassis's collection is one */
	bmc->host_lists_pcie = json_array_size(pcie) > 0 && is_inline(json_array_get(pcie, 0));
	free(bmc->host_odata);
	bmc->host_odata = br_json_str(doc, "@odata.id") ? br_xstrdup(br_json_str(doc, "@odata.id")) : NULL;
	collect_inline_functions(bmc, doc);
	flush_deferred_pcie(bmc);
	rf_parse_system(&bmc->hw, doc);
	if (!bmc->vendor)
		bmc->vendor = rf_vendor_from_manufacturer(br_json_str(doc, "Manufacturer"));
	if (bmc->vendor && bmc->vendor->on_system)
		bmc->vendor->on_system(&bmc->hw, doc);
	rf_follow_vendor_links(bmc, doc);
	rf_follow(bmc, doc, "Storage", RF_K_STORAGE, 1, -1);
	rf_follow(bmc, doc, "PCIeDevices", RF_K_PCIE_DEVICE, 1, -1);
	rf_follow(bmc, doc, "LogServices", RF_K_LOG_SERVICE, 1, -1);
	rf_follow(bmc, doc, "EthernetInterfaces", RF_K_ETH, 1, -1);
	/* Always: ProcessorSummary has no clock (MaxSpeedMHz, stored and shown
	 * as cpu_max_mhz), and its Model is often only the family where the
	 * Processor names the part. One expanded GET where $expand works. */
	rf_follow(bmc, doc, "Processors", RF_K_PROCESSOR, 1, -1);
	rf_follow(bmc, doc, "Bios", RF_K_BIOS, 0, -1);
	/* Where NIC resources show no MAC, the boot entries still do. */
	rf_follow(bmc, doc, "Boot/BootOptions", RF_K_BOOT_OPTION, 1, -1);
	/* iDRAC9 links no Connection View from the System: its path is
	 * Dell's (Redfish API guide, DellSwitchConnectionCollection), one
	 * request with every port's member inline. */
	if (bmc->vendor && bmc->vendor->dell_switch_connections && br_json_str(doc, "@odata.id")) {
		char *link;

		free(bmc->connview_system);
		bmc->connview_system = br_xstrdup(br_json_str(doc, "@odata.id"));
		link = br_xasprintf("%s/NetworkPorts/Oem/Dell/DellSwitchConnections", bmc->connview_system);
		get_link(bmc, link, RF_K_DELL_SWITCH_CONN, 0, -1);
		free(link);
	}
}

/* Every System read: take the host and walk it, or fail naming them. */
static void choose_host(struct rf_bmc *bmc)
{
	struct br_err err = { 0 };
	json_t *host;
	size_t i;
	json_t *doc;

	if (bmc->host_chosen || bmc->host_failed || bmc->systems_pending || !bmc->systems_listed ||
	    bmc->failed)
		return;
	bmc->host_chosen = 1;
	if (!bmc->systems)
		bmc->systems = json_array();
	host = rf_choose_host(bmc->systems, bmc->target->system, &err);
	if (!host) {
		/* failed once the rest is read: the BMC's MAC and firmware
		 * still name the machine in the ticket */
		bmc->host_error = err;
		bmc->host_failed = 1;
		flush_deferred_pcie(bmc);
		return;
	}
	json_array_foreach(bmc->systems, i, doc) if (doc != host) bmc->other_systems++;
	walk_host(bmc, host);
}

static void on_system(struct rf_bmc *bmc, json_t *doc, long parent)
{
	if (!bmc->systems)
		bmc->systems = json_array();
	if (bmc->host_chosen) {
		/* a System linked again after the choice (from a Chassis) */
		bmc->other_systems++;
		return;
	}
	json_array_append(bmc->systems, doc);
}

static void on_host_system(struct rf_bmc *bmc, json_t *doc, long parent)
{
	walk_host(bmc, doc);
}

static void on_storage(struct rf_bmc *bmc, json_t *doc, long parent)
{
	static const char *const singles[] = { "Drives", NULL };

	if (reread_expanded(bmc, doc, RF_K_STORAGE, parent, singles))
		return;
	rf_follow(bmc, doc, "Drives", RF_K_DRIVE, 1, -1);
	/* A RAID controller's virtual disks (a BOSS card's RAID1 of two M.2
	 * drives): what the OS sees in place of the member drives. */
	rf_follow(bmc, doc, "Volumes", RF_K_VOLUME, 1, -1);
}

static void on_pcie_device(struct rf_bmc *bmc, json_t *doc, long parent)
{
	long index = rf_parse_pcie_device(&bmc->hw, doc);
	char *url = bmc->inline_functions ? rf_resolve(bmc, br_json_str(doc, "@odata.id")) : NULL;
	json_t *fns = url ? json_object_get(bmc->inline_functions, url) : NULL, *f;
	size_t i;

	free(url);
	if (json_array_size(fns)) {
		json_array_foreach(fns, i, f) rf_parse_pcie_function(&bmc->hw, index, f);
		return;
	}

	/* a collection since Redfish 2019.1, an array of links before */
	rf_follow(bmc, doc, "PCIeFunctions", RF_K_PCIE_FUNCTION, 1, index);
	rf_follow(bmc, doc, "Links/PCIeFunctions", RF_K_PCIE_FUNCTION, 1, index);
}

/* Where the manifest names the System (one BMC, several hosts), a
 * Chassis that links Systems but not that one holds another host's NICs
 * and drives: not walked. Links name Systems by @odata.id; the manifest
 * by that or by Id. */
static int chassis_of_other_host(struct rf_bmc *bmc, json_t *doc)
{
	const char *want = bmc->target->system;
	json_t *links = br_json_path(doc, "Links/ComputerSystems"), *l;
	size_t i, n = want ? strlen(want) : 0;

	if (!want || !json_array_size(links))
		return 0;
	json_array_foreach(links, i, l)
	{
		const char *id = br_json_str(l, "@odata.id");
		size_t len = id ? strlen(id) : 0;

		if (id &&
		    (!strcmp(id, want) || (len > n && id[len - n - 1] == '/' && !strcmp(id + len - n, want))))
			return 0;
	}
	return 1;
}

static void on_chassis(struct rf_bmc *bmc, json_t *doc, long parent)
{
	static const char *const chassis_singles[] = { "Thermal",	 "Power",     "ThermalSubsystem",
						       "PowerSubsystem", "PCIeSlots", NULL };

	if (chassis_of_other_host(bmc, doc)) {
		br_debug("redfish", "%s: %s belongs to another System", bmc->base,
			 br_json_str(doc, "@odata.id") ? br_json_str(doc, "@odata.id") : "a Chassis");
		return;
	}
	if (reread_expanded(bmc, doc, RF_K_CHASSIS, parent, chassis_singles))
		return;
	rf_follow(bmc, doc, "NetworkAdapters", RF_K_NET_ADAPTER, 1, -1);
	/* held until the host System is walked: it may list them all */
	if (!bmc->host_walked && !bmc->host_failed && bmc->expand && !bmc->reread_useless &&
	    br_json_path(doc, "PCIeDevices")) {
		if (!bmc->deferred_pcie)
			bmc->deferred_pcie = json_array();
		json_array_append(bmc->deferred_pcie, doc);
	} else {
		follow_chassis_pcie(bmc, doc);
	}
	/* link widths where PCIeDevice has none (Supermicro) */
	rf_follow(bmc, doc, "PCIeSlots", RF_K_PCIE_SLOTS, 0, -1);
	/* Chassis.v1_14+: Supermicro and AMI hang drives here (too). */
	rf_follow(bmc, doc, "Drives", RF_K_DRIVE, 1, -1);
	/* Thermal and Power are deprecated for the *Subsystem resources;
	 * read one of each, the old one where both exist (more BMCs have it). */
	if (br_json_path(doc, "Thermal"))
		rf_follow(bmc, doc, "Thermal", RF_K_THERMAL, 0, -1);
	else
		rf_follow(bmc, doc, "ThermalSubsystem", RF_K_THERMAL_SUBSYSTEM, 0, -1);
	if (br_json_path(doc, "Power"))
		rf_follow(bmc, doc, "Power", RF_K_POWER, 0, -1);
	else
		rf_follow(bmc, doc, "PowerSubsystem", RF_K_POWER_SUBSYSTEM, 0, -1);
}

static void on_net_adapter(struct rf_bmc *bmc, json_t *doc, long parent)
{
	rf_follow(bmc, doc, "NetworkDeviceFunctions", RF_K_NDF, 1, -1);
	/* Only where the family documents LLDPReceive: a Ports collection per
	 * adapter is a request or more per NIC for nothing elsewhere. */
	if (bmc->vendor && bmc->vendor->port_lldp)
		rf_follow(bmc, doc, "Ports", RF_K_PORT, 1, -1);
}

/* ---- Dell Connection View: read, refreshed once when stale, enabled once
 * where the profile allows it ------------------------------------------------ */

#define DELL_ATTRIBUTES "/redfish/v1/Managers/iDRAC.Embedded.1/Oem/Dell/DellAttributes/iDRAC.Embedded.1"

static void connview_get(struct rf_bmc *bmc)
{
	char *link = br_xasprintf(bmc->connview_idrac10 ? "%s/Oem/Dell/DellSwitchConnections"
							: "%s/NetworkPorts/Oem/Dell/DellSwitchConnections",
				  bmc->connview_system);
	char *url = rf_resolve(bmc, link);

	/* read again: past the seen set, which holds the first reading */
	if (url)
		issue(bmc, url, RF_K_DELL_SWITCH_CONN, RF_K_DELL_SWITCH_CONN, -1, 0, 0, 0);
	free(url);
	free(link);
}

static void connview_unreadable(struct rf_req *req, const struct br_err *err)
{
	br_hw_add_unreadable(&req->bmc->hw, req->url, req->http.result == CURLE_OK ? req->http.status : 0,
			     err->msg);
}

static void on_connview_refreshed(struct rf_req *req, int rc, const struct br_err *err)
{
	if (rc) {
		connview_unreadable(req, err);
		return;
	}
	if (!req->bmc->failed)
		connview_get(req->bmc);
}

/* The iDRAC re-reads LLDP on every port (DellSwitchConnectionService's
 * ServerPortConnectionRefresh, Dell's iDRAC9 Redfish API guide). */
static void connview_refresh(struct rf_bmc *bmc)
{
	char *link = br_xasprintf("%s/Oem/Dell/DellSwitchConnectionService/Actions/"
				  "DellSwitchConnectionService.ServerPortConnectionRefresh",
				  bmc->connview_system);
	char *url = rf_resolve(bmc, link);
	struct rf_req *req;

	bmc->connview_refreshed = 1;
	free(link);
	if (!url)
		return;
	req = rf_req_new(bmc, RF_POST, url, 1, on_connview_refreshed);
	req->post_body = br_xstrdup("{}");
	rf_req_submit(req);
	free(url);
}

static void on_connview_enabled(struct rf_req *req, int rc, const struct br_err *err)
{
	if (rc) {
		connview_unreadable(req, err);
		return;
	}
	if (!req->bmc->failed)
		connview_refresh(req->bmc);
}

static void on_dell_attributes(struct rf_bmc *bmc, json_t *doc, long parent)
{
	const char *v = br_json_str(doc, "Attributes/SwitchConnectionView.1.Enable");
	char *url;
	struct rf_req *req;

	if (!v || strcasecmp(v, "Disabled"))
		return;
	if (!bmc->target->enable_connection_view || bmc->connview_enable_tried) {
		/* what the check will say: nothing was read, and why */
		free(bmc->hw.neighbor_source);
		bmc->hw.neighbor_source = br_xstrdup("DellSwitchConnections (disabled: iDRAC attribute "
						     "SwitchConnectionView.1.Enable)");
		return;
	}
	bmc->connview_enable_tried = 1;
	if (!(url = rf_resolve(bmc, DELL_ATTRIBUTES)))
		return;
	req = rf_req_new(bmc, RF_PATCH, url, 1, on_connview_enabled);
	req->post_body = br_xstrdup("{\"Attributes\":{\"SwitchConnectionView.1.Enable\":\"Enabled\"}}");
	rf_req_submit(req);
	free(url);
}

static void on_dell_switch_connections(struct rf_bmc *bmc, json_t *doc, long parent)
{
	size_t links;
	int stale;

	/* a reading after a refresh replaces the one before */
	rf_neighbors_clear(&bmc->hw);
	rf_parse_dell_switch_connections(&bmc->hw, doc);
	if (!bmc->hw.n_neighbors || !bmc->connview_system)
		return;
	stale = rf_neighbors_stale(&bmc->hw, &links);
	if (stale && !bmc->connview_refreshed) {
		connview_refresh(bmc);
	} else if (!links && !bmc->connview_attrs_read) {
		/* every port "No Link": the view may be switched off; one read
		 * of the attribute tells, and enabling it is the profile's call */
		char *url = rf_resolve(bmc, DELL_ATTRIBUTES);

		bmc->connview_attrs_read = 1;
		if (url)
			issue(bmc, url, RF_K_DELL_ATTRIBUTES, RF_K_DELL_ATTRIBUTES, -1, 0, 0, 0);
		free(url);
	}
}

static void on_port(struct rf_bmc *bmc, json_t *doc, long parent)
{
	rf_parse_port(&bmc->hw, doc);
}

static void on_thermal_subsystem(struct rf_bmc *bmc, json_t *doc, long parent)
{
	rf_follow(bmc, doc, "Fans", RF_K_FAN, 1, -1);
}

static void on_power_subsystem(struct rf_bmc *bmc, json_t *doc, long parent)
{
	rf_parse_power_subsystem(&bmc->hw, doc);
	rf_follow(bmc, doc, "PowerSupplies", RF_K_PSU, 1, -1);
}

static void on_manager(struct rf_bmc *bmc, json_t *doc, long parent)
{
	rf_parse_manager(&bmc->hw, doc);
	rf_follow(bmc, doc, "LogServices", RF_K_LOG_SERVICE, 1, -1);
	rf_follow(bmc, doc, "EthernetInterfaces", RF_K_MANAGER_ETH, 1, -1);
}

static void on_log_service(struct rf_bmc *bmc, json_t *doc, long parent)
{
	if (rf_log_service_is_sel(doc))
		rf_follow(bmc, doc, "Entries", RF_K_LOG_ENTRY, 1, -1);
}

static void on_update_service(struct rf_bmc *bmc, json_t *doc, long parent)
{
	rf_follow(bmc, doc, "FirmwareInventory", RF_K_FIRMWARE, 1, -1);
}

#define PARSE_ONLY(fn)                                                                                       \
	static void on_##fn(struct rf_bmc *bmc, json_t *doc, long parent)                                    \
	{                                                                                                    \
		rf_parse_##fn(&bmc->hw, doc);                                                                \
	}
PARSE_ONLY(processor)
PARSE_ONLY(ethernet_interface)
PARSE_ONLY(drive)
PARSE_ONLY(volume)
PARSE_ONLY(bios)
PARSE_ONLY(network_device_function)
PARSE_ONLY(thermal)
PARSE_ONLY(fan)
PARSE_ONLY(power)
PARSE_ONLY(power_supply)
PARSE_ONLY(manager_ethernet)
PARSE_ONLY(sel_entry)
PARSE_ONLY(firmware)
PARSE_ONLY(boot_option)

static void on_pcie_function(struct rf_bmc *bmc, json_t *doc, long parent)
{
	rf_parse_pcie_function(&bmc->hw, parent, doc);
}

static void on_hpe_adapter(struct rf_bmc *bmc, json_t *doc, long parent)
{
	rf_hpe_parse_network_adapter(&bmc->hw, doc);
}

static void on_hpe_pci_device(struct rf_bmc *bmc, json_t *doc, long parent)
{
	rf_pcie_hint_hpe(bmc, doc);
}

static void on_pcie_slots(struct rf_bmc *bmc, json_t *doc, long parent)
{
	rf_pcie_hint_slots(bmc, doc);
}

/* Heights count a collection as one request ahead of its members. */
static const struct kind_info kinds[RF_K_COUNT] = {
	[RF_K_ROOT] = { "ServiceRoot", 9, NULL },
	[RF_K_SESSION_SERVICE] = { "SessionService", 8, NULL },
	[RF_K_SYSTEM] = { "ComputerSystem", 5, on_system },
	[RF_K_PROCESSOR] = { "Processor", 1, on_processor },
	[RF_K_ETH] = { "EthernetInterface", 1, on_ethernet_interface },
	[RF_K_STORAGE] = { "Storage", 3, on_storage },
	[RF_K_DRIVE] = { "Drive", 1, on_drive },
	[RF_K_PCIE_DEVICE] = { "PCIeDevice", 3, on_pcie_device },
	[RF_K_PCIE_FUNCTION] = { "PCIeFunction", 1, on_pcie_function },
	[RF_K_BIOS] = { "Bios", 1, on_bios },
	[RF_K_CHASSIS] = { "Chassis", 5, on_chassis },
	[RF_K_NET_ADAPTER] = { "NetworkAdapter", 3, on_net_adapter },
	[RF_K_NDF] = { "NetworkDeviceFunction", 1, on_network_device_function },
	[RF_K_THERMAL] = { "Thermal", 1, on_thermal },
	[RF_K_THERMAL_SUBSYSTEM] = { "ThermalSubsystem", 3, on_thermal_subsystem },
	[RF_K_FAN] = { "Fan", 1, on_fan },
	[RF_K_POWER] = { "Power", 1, on_power },
	[RF_K_POWER_SUBSYSTEM] = { "PowerSubsystem", 3, on_power_subsystem },
	[RF_K_PSU] = { "PowerSupply", 1, on_power_supply },
	[RF_K_MANAGER] = { "Manager", 5, on_manager },
	[RF_K_MANAGER_ETH] = { "EthernetInterface", 1, on_manager_ethernet },
	[RF_K_LOG_SERVICE] = { "LogService", 3, on_log_service },
	[RF_K_LOG_ENTRY] = { "LogEntry", 1, on_sel_entry },
	[RF_K_UPDATE_SERVICE] = { "UpdateService", 3, on_update_service },
	[RF_K_FIRMWARE] = { "SoftwareInventory", 1, on_firmware },
	[RF_K_HPE_ADAPTER] = { "HpeBaseNetworkAdapter", 1, on_hpe_adapter },
	[RF_K_BOOT_OPTION] = { "BootOption", 1, on_boot_option },
	[RF_K_HPE_PCI_DEVICE] = { "HpeServerPciDevice", 1, on_hpe_pci_device },
	[RF_K_PCIE_SLOTS] = { "PCIeSlots", 1, on_pcie_slots },
	[RF_K_VOLUME] = { "Volume", 1, on_volume },
	/* 2: a disabled view is followed by the iDRAC attribute that says so */
	[RF_K_DELL_SWITCH_CONN] = { "DellSwitchConnectionCollection", 2, on_dell_switch_connections },
	[RF_K_PORT] = { "Port", 1, on_port },
	[RF_K_DELL_ATTRIBUTES] = { "DellAttributes", 1, on_dell_attributes },
	[RF_K_HOST_SYSTEM] = { "ComputerSystem", 4, on_host_system },
	[RF_K_COLLECTION] = { "Collection", 1, NULL },
};

static void on_get(struct rf_req *req, int rc, const struct br_err *err);
static int is_fw_by_pattern(const struct rf_req *req);
static void on_fw_by_pattern(struct rf_req *req, int rc, const struct br_err *err);

/* Queue a GET without looking at the seen set. */
static void issue(struct rf_bmc *bmc, const char *url, int kind, int member_kind, long parent, int pages,
		  int members, int expand)
{
	int height = kind == RF_K_COLLECTION ? 1 + kinds[member_kind].height : kinds[kind].height;
	char *full = NULL;
	struct rf_req *req;

	if (expand && bmc->expand)
		full = br_xasprintf("%s%c%s", url, strchr(url, '?') ? '&' : '?', bmc->expand);
	req = rf_req_new(bmc, RF_GET, full ? full : url, height, on_get);
	req->kind = kind;
	req->member_kind = member_kind;
	req->parent = parent;
	req->pages = pages;
	req->members = members;
	req->expanded = full != NULL;
	free(full);
	rf_req_submit(req);
}

static void get_link(struct rf_bmc *bmc, const char *link, int kind, int collection, long parent)
{
	char *url = link ? rf_resolve(bmc, link) : NULL;

	if (url && rf_urlset_add(&bmc->seen, url)) {
		if (collection)
			issue(bmc, url, RF_K_COLLECTION, kind, parent, 0, 0, 1);
		else
			issue(bmc, url, kind, kind, parent, 0, 0, 0);
		if (kind == RF_K_SYSTEM && !collection)
			bmc->systems_pending++;
	}
	free(url);
}

static void collection_members(struct rf_bmc *bmc, const char *url, json_t *doc, int member_kind, long parent,
			       int pages, int members_before);
static void handle(struct rf_bmc *bmc, int kind, json_t *doc, long parent);

/* Kinds whose members are best read one by one with $expand (each brings
 * what it links) rather than as an expanded collection. */
static int expands_itself(int kind)
{
	return kind == RF_K_STORAGE;
}

/* A collection the BMC put inline (a resource read with $expand): its
 * members are links. Two or more are one GET of the collection with
 * $expand, not one each. */
static void inline_collection(struct rf_bmc *bmc, const char *url, json_t *doc, int member_kind, long parent)
{
	json_t *members = json_object_get(doc, "Members"), *m;
	size_t links = 0, i;

	json_array_foreach(members, i, m) links += (size_t)is_link_only(m);
	if (bmc->expand && links >= 2 && !expands_itself(member_kind) &&
	    !br_json_str(doc, "Members@odata.nextLink")) {
		issue(bmc, url, RF_K_COLLECTION, member_kind, parent, 0, 0, 1);
		return;
	}
	collection_members(bmc, url, doc, member_kind, parent, 0, 0);
}

/* A document in place of a link: handled here, as if fetched. */
static void follow_inline(struct rf_bmc *bmc, json_t *v, int kind, int collection, long parent)
{
	char *url = rf_resolve(bmc, br_json_str(v, "@odata.id"));
	int fresh;

	if (!url)
		return;
	fresh = rf_urlset_add(&bmc->seen, url) || rf_http_unqueue(bmc, url);
	if (fresh && collection && json_is_array(json_object_get(v, "Members")))
		inline_collection(bmc, url, v, kind, parent);
	else if (fresh && !collection)
		handle(bmc, kind, v, parent);
	else if (fresh)
		issue(bmc, url, RF_K_COLLECTION, kind, parent, 0, 0, 1);
	free(url);
}

void rf_follow(struct rf_bmc *bmc, json_t *doc, const char *path, int kind, int collection, long parent)
{
	json_t *v = br_json_path(doc, path), *item;
	size_t i;

	if (bmc->failed)
		return;
	if (json_is_array(v)) {
		if (json_array_size(v) > RF_MEMBERS_MAX) {
			rf_bmc_failf(bmc, BR_E_TOOBIG, "%s of %s has more than %d links", path,
				     br_json_str(doc, "@odata.id") ? br_json_str(doc, "@odata.id") : "?",
				     RF_MEMBERS_MAX);
			return;
		}
		json_array_foreach(v, i, item)
		{
			if (is_inline(item))
				follow_inline(bmc, item, kind, 0, parent);
			else
				get_link(bmc, br_json_str(item, "@odata.id"), kind, 0, parent);
		}
	} else if (is_inline(v)) {
		follow_inline(bmc, v, kind, collection, parent);
	} else {
		get_link(bmc, br_json_str(v, "@odata.id"), kind, collection, parent);
	}
}

static void handle(struct rf_bmc *bmc, int kind, json_t *doc, long parent)
{
	/* Some BMCs answer 200 with an error document where a resource they
	 * link should be: nothing is there. */
	if (json_object_get(doc, "error") && !json_object_get(doc, "@odata.id")) {
		br_debug("redfish", "%s: an error document where a %s should be", bmc->base,
			 kinds[kind].name);
		return;
	}
	bmc->shown[kind]++;
	if (kinds[kind].handle && !bmc->failed)
		kinds[kind].handle(bmc, doc, parent);
}

/* A member link of a kind that expands itself: read with $expand, once. */
static void get_member_expanded(struct rf_bmc *bmc, const char *link, int kind, long parent)
{
	char *url = link ? rf_resolve(bmc, link) : NULL;

	if (url && rf_urlset_add(&bmc->seen, url)) {
		rf_urlset_add(&bmc->reread, url);
		issue(bmc, url, kind, kind, parent, 0, 0, 1);
	}
	free(url);
}

static void collection_members(struct rf_bmc *bmc, const char *req_url, json_t *doc, int member_kind,
			       long parent, int pages, int members_before)
{
	json_t *members = json_object_get(doc, "Members"), *m;
	size_t n = json_is_array(members) ? json_array_size(members) : 0, i;
	const char *next = br_json_str(doc, "Members@odata.nextLink");

	if (n > RF_MEMBERS_MAX - (size_t)members_before) {
		rf_bmc_failf(bmc, BR_E_TOOBIG, "GET %s: collection has more than %d members", req_url,
			     RF_MEMBERS_MAX);
		return;
	}
	json_array_foreach(members, i, m)
	{
		const char *link = br_json_str(m, "@odata.id");

		if (!json_is_object(m))
			continue;
		if (json_object_size(m) <= 1 && expands_itself(member_kind) && bmc->expand &&
		    !bmc->reread_useless) {
			get_member_expanded(bmc, link, member_kind, parent);
			continue;
		}
		if (json_object_size(m) <= 1) {
			get_link(bmc, link, member_kind, 0, parent);
			continue;
		}
		/* Dell links each PCIe device from the System too: if that GET has
		 * not started yet, this inline copy makes it unnecessary. */
		char *url = link ? rf_resolve(bmc, link) : NULL;
		int fresh = !url || rf_urlset_add(&bmc->seen, url) || rf_http_unqueue(bmc, url);

		free(url);
		if (fresh)
			handle(bmc, member_kind, m, parent);
	}
	if (member_kind == RF_K_SYSTEM && !next) {
		bmc->systems_listed = 1;
		choose_host(bmc);
	}
	if (!next || bmc->failed)
		return;
	if (pages + 1 >= RF_PAGES_MAX) {
		rf_bmc_failf(bmc, BR_E_TOOBIG, "GET %s: collection has more than %d pages", req_url,
			     RF_PAGES_MAX);
		return;
	}
	char *url = rf_resolve(bmc, next);

	if (url && rf_urlset_add(&bmc->seen, url))
		issue(bmc, url, RF_K_COLLECTION, member_kind, parent, pages + 1, members_before + (int)n, 0);
	free(url);
}

static void on_collection(struct rf_bmc *bmc, struct rf_req *req, json_t *doc)
{
	collection_members(bmc, req->url, doc, req->member_kind, req->parent, req->pages, req->members);
}

/* The URL a request was issued for, before $expand was added. */
static char *plain_url(const struct rf_req *req)
{
	const char *q = strstr(req->url, req->bmc->expand ? req->bmc->expand : "\x01");
	size_t n = q ? (size_t)(q - req->url - 1) : strlen(req->url);

	return br_xstrndup(req->url, n);
}

/* What a node's identity rests on: its Systems (the collection and each
 * member; the service root is the session layer's). */
static int is_identity(const struct rf_req *req)
{
	return req->kind == RF_K_SYSTEM || (req->kind == RF_K_COLLECTION && req->member_kind == RF_K_SYSTEM);
}

/* A resource that could not be read fails the node only when identity
 * needs it, or when the error says the rest cannot be trusted either: a
 * session refused mid-walk, a cap hit (a hostile or broken BMC), an
 * untrusted certificate. Anything else (a log service a BMC does not
 * have, an OEM resource that times out, a body cut short) is listed
 * under the node's unreadable facts, and the node keeps what was read:
 * a 404 on one log service used to throw away the serial and every MAC. */
static void unreadable_or_fail(struct rf_req *req, const struct br_err *err)
{
	struct rf_bmc *bmc = req->bmc;
	char *url;

	if (req->http.status == 401 || err->code == BR_E_TOOBIG || err->code == BR_E_NOMEM ||
	    err->code == RF_E_TLS) {
		rf_bmc_fail(bmc, err);
		return;
	}
	/* No host System: the node fails, once the rest (the BMC's MAC and
	 * firmware) is read to name the machine. */
	if (is_identity(req)) {
		if (!bmc->host_failed)
			bmc->host_error = *err;
		bmc->host_failed = 1;
		flush_deferred_pcie(bmc);
		return;
	}
	/* A switch-neighbour view the firmware does not have (an iDRAC8, an
	 * iDRAC9 before Connection View, a Port without LLDPReceive): the BMC
	 * offers none, which the cabling check says; nothing is unreadable. */
	if ((req->kind == RF_K_DELL_SWITCH_CONN || req->kind == RF_K_DELL_ATTRIBUTES ||
	     (req->kind == RF_K_COLLECTION && req->member_kind == RF_K_PORT)) &&
	    req->http.status == 404) {
		br_debug("redfish", "%s: no switch neighbour view at %s (HTTP 404)", bmc->base, req->url);
		/* iDRAC10 has the collection under the System's Oem itself */
		if (req->kind == RF_K_DELL_SWITCH_CONN && !bmc->connview_idrac10 && bmc->connview_system) {
			char *link = br_xasprintf("%s/Oem/Dell/DellSwitchConnections", bmc->connview_system);

			bmc->connview_idrac10 = 1;
			get_link(bmc, link, RF_K_DELL_SWITCH_CONN, 0, -1);
			free(link);
		}
		return;
	}
	url = plain_url(req);
	br_debug("redfish", "%s: unreadable, walking on: %s", bmc->base, err->msg);
	br_hw_add_unreadable(&bmc->hw, url, req->http.result == CURLE_OK ? req->http.status : 0, err->msg);
	free(url);
}

static void on_get(struct rf_req *req, int rc, const struct br_err *err)
{
	struct rf_bmc *bmc = req->bmc;
	struct br_err perr;
	json_t *doc;

	/* 404: the resource is not there, whatever the query (a BMC without
	 * the log service it links); dropping $expand for it would read every
	 * collection after it link by link. */
	/* DSP0266 clause 7.3: a query parameter out of range or malformed is
	 * 400, an unsupported one starting with $ is 501. */
	if (rc && req->expanded && req->http.status >= 400 &&
	    (req->http.status < 500 || req->http.status == 501) && req->http.status != 401 &&
	    req->http.status != 403 && req->http.status != 404) {
		char *url = plain_url(req);

		br_debug("redfish", "%s: $expand refused (HTTP %ld), reading links one by one", bmc->base,
			 req->http.status);
		free(bmc->expand);
		bmc->expand = NULL;
		issue(bmc, url, req->kind, req->member_kind, req->parent, req->pages, req->members, 0);
		free(url);
		return;
	}
	if (is_fw_by_pattern(req)) {
		on_fw_by_pattern(req, rc, err);
		return;
	}
	if (rc || !(doc = rf_req_parse(req, &perr))) {
		/* the host System read again failed: walk it as first read */
		if (req->kind == RF_K_HOST_SYSTEM && bmc->host_doc && req->http.status != 401) {
			json_t *first = json_incref(bmc->host_doc);

			walk_host(bmc, first);
			json_decref(first);
			return;
		}
		unreadable_or_fail(req, rc ? err : &perr);
		return;
	}
	if (req->kind == RF_K_COLLECTION)
		on_collection(bmc, req, doc);
	else
		handle(bmc, req->kind, doc, req->parent);
	json_decref(doc);
	if (req->kind == RF_K_SYSTEM) {
		bmc->systems_pending--;
		choose_host(bmc);
	}
}

/* iLO 5 2.x lists PCIDevices as an array that holds the collection's
 * link (a DL385 Gen10 Plus v2's capture,
 * tests/fixtures/redfish/hpe/libredfish/system.json), where older iLO 5 has
 * the link itself: each element is then a collection, not a member. */
void rf_follow_vendor_links(struct rf_bmc *bmc, json_t *system)
{
	const struct rf_vendor_link *l = bmc->vendor ? bmc->vendor->system_links : NULL;

	for (; l && l->path; l++) {
		json_t *v = br_json_path(system, l->path), *item;
		size_t i;

		if (!json_is_array(v)) {
			rf_follow(bmc, system, l->path, l->kind, 1, -1);
			continue;
		}
		json_array_foreach(v, i, item) rf_follow(bmc, item, "", l->kind, 1, -1);
	}
}

/* ---- The firmware inventory without its UpdateService --------------------
 * The UpdateService is read for one thing, the link to its
 * FirmwareInventory. DSP0266 v1.6.0 and later have a service build its
 * URIs as the schemas' Redfish.Uris annotations list them (the clause
 * "Redfish-defined URIs and relative reference rules": "All other Redfish
 * service-supported URIs shall match the resource URI patterns
 * definitions", bar the resources that @Redfish.Settings, ActionInfo and
 * CollectionCapabilities reference; DMTF's own Redfish-Service-Validator
 * applies that check to services at RedfishVersion 1.6.0 and above, its
 * pull request 437), and the UpdateService schema (DSP8010) lists one
 * FirmwareInventory:
 * /redfish/v1/UpdateService/FirmwareInventory. A service that says it
 * conforms (RedfishVersion 1.6.0 or later) and whose root links the
 * UpdateService at its own listed URI is asked for the inventory there
 * at once: one request fewer, one link less on the chain. Whatever that
 * read answers other than a collection (404, an error document, a
 * timeout) sends the walk the old way, through the UpdateService, which
 * then reads what it links as before: the facts are the same either way. */

static int redfish_version_at_least(json_t *root, long major, long minor)
{
	const char *v = br_json_str(root, "RedfishVersion");
	char *end;
	long ma, mi;

	if (!v)
		return 0;
	ma = strtol(v, &end, 10);
	if (end == v || *end != '.')
		return 0;
	v = end + 1;
	mi = strtol(v, &end, 10);
	if (end == v)
		return 0;
	return ma > major || (ma == major && mi >= minor);
}

static void follow_update_service(struct rf_bmc *bmc, json_t *root)
{
	static const char service[] = "/redfish/v1/UpdateService";
	const char *link = br_json_str(root, "UpdateService/@odata.id");
	size_t n = link ? strlen(link) : 0;

	/* iLO writes its URIs with a trailing slash */
	if (n && link[n - 1] == '/')
		n--;
	if (link && n == sizeof(service) - 1 && !strncmp(link, service, n) &&
	    redfish_version_at_least(root, 1, 6) && !bmc->fw_by_pattern &&
	    (bmc->fw_by_pattern = rf_resolve(bmc, "/redfish/v1/UpdateService/FirmwareInventory"))) {
		/* in the seen set once it answered: a failure reads it again
		 * through the UpdateService's own link */
		issue(bmc, bmc->fw_by_pattern, RF_K_COLLECTION, RF_K_FIRMWARE, -1, 0, 0, 1);
		return;
	}
	rf_follow(bmc, root, "UpdateService", RF_K_UPDATE_SERVICE, 0, -1);
}

/* req is the inventory's read at its listed URI (its first page) */
static int is_fw_by_pattern(const struct rf_req *req)
{
	char *url;
	int yes;

	if (!req->bmc->fw_by_pattern || req->kind != RF_K_COLLECTION || req->member_kind != RF_K_FIRMWARE ||
	    req->pages)
		return 0;
	url = plain_url(req);
	yes = !strcmp(url, req->bmc->fw_by_pattern);
	free(url);
	return yes;
}

/* The answer to that read: walked as the collection it is, or the
 * UpdateService read after all. */
static void on_fw_by_pattern(struct rf_req *req, int rc, const struct br_err *err)
{
	struct rf_bmc *bmc = req->bmc;
	struct br_err perr;
	json_t *doc = rc ? NULL : rf_req_parse(req, &perr);

	if (doc && json_is_array(json_object_get(doc, "Members"))) {
		rf_urlset_add(&bmc->seen, bmc->fw_by_pattern);
		free(bmc->fw_by_pattern);
		bmc->fw_by_pattern = NULL;
		on_collection(bmc, req, doc);
		json_decref(doc);
		return;
	}
	json_decref(doc);
	free(bmc->fw_by_pattern);
	bmc->fw_by_pattern = NULL;
	/* what fails the node wherever it comes from still does */
	if (rc && (req->http.status == 401 || err->code == BR_E_TOOBIG || err->code == BR_E_NOMEM ||
		   err->code == RF_E_TLS)) {
		unreadable_or_fail(req, err);
		return;
	}
	br_debug("redfish", "%s: no firmware inventory at %s (HTTP %ld): reading the UpdateService",
		 bmc->base, req->url, req->http.status);
	rf_follow(bmc, bmc->root, "UpdateService", RF_K_UPDATE_SERVICE, 0, -1);
}

void rf_walk_start(struct rf_bmc *bmc)
{
	json_t *root = bmc->root;

	bmc->vendor = rf_vendor_from_root(root);

	/* the three long chains first: their heights put them ahead anyway */
	rf_follow(bmc, root, "Chassis", RF_K_CHASSIS, 1, -1);
	rf_follow(bmc, root, "Managers", RF_K_MANAGER, 1, -1);
	rf_follow(bmc, root, "Systems", RF_K_SYSTEM, 1, -1);
	follow_update_service(bmc, root);
}
