/*
 * firmware_read — what a machine's updates read before and after each one:
 * the whole FirmwareInventory (every page and member once per round, a
 * BMC's paging may repeat or loop), and the UpdateService's tasks still
 * running (an earlier run's, to follow instead of sending again).
 */
#include <string.h>

#include "rf_firmware.h"

#define PRIO 10

static void get(struct rf_bmc *bmc, const char *url, const char *step, rf_req_fn fn)
{
	struct rf_req *req = rf_req_new(bmc, RF_GET, url, PRIO, fn);

	bmc->fw->step = step;
	req->kind = bmc->fw->read_gen;
	rf_req_submit(req);
}

static json_t *answer(struct rf_req *req, int rc, const struct br_err *err, const char *what)
{
	if (rc) {
		rf_bmc_fail_request(req->bmc, req, what, err);
		return NULL;
	}
	return rf_req_json(req);
}

/* The inventory member that is component: iDRAC's "Installed-ID-VERSION__FQDD"
 * (never its "Previous-" or "Available-" ones), or a member whose Id is it. */
json_t *rf_fw_member(json_t *members, const char *component)
{
	size_t i, clen = strlen(component);
	json_t *m;

	json_array_foreach(members, i, m)
	{
		const char *id = br_json_str(m, "Id");
		size_t len = id ? strlen(id) : 0;

		if (!id)
			continue;
		if (!strcmp(id, component))
			return m;
		if (!strncmp(id, "Installed-", 10) && len > clen + 2 && !strcmp(id + len - clen, component) &&
		    !strncmp(id + len - clen - 2, "__", 2))
			return m;
	}
	return NULL;
}

const char *rf_fw_version(json_t *members, const char *component)
{
	return br_json_str(rf_fw_member(members, component), "Version");
}

/* a and b the same URI, a trailing '/' aside (iLO writes its links with one) */
static int same_uri(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);

	while (la > 1 && a[la - 1] == '/')
		la--;
	while (lb > 1 && b[lb - 1] == '/')
		lb--;
	return la == lb && !strncmp(a, b, la);
}

/* A task still running whose request was an update of component: its
 * Payload's TargetUri is one of the UpdateService's, and its JsonBody's
 * Targets name the component's inventory member (or its ImageURI the
 * image's file). */
json_t *rf_fw_task_for(struct rf_bmc *bmc, const struct rf_fw_update *u)
{
	struct rf_fw_node *fn = bmc->fw;
	const char *member = br_json_str(rf_fw_member(fn->members, u->component), "@odata.id");
	size_t i;
	json_t *t;

	json_array_foreach(fn->tasks, i, t)
	{
		const char *target = br_json_str(t, "Payload/TargetUri"),
			   *body = br_json_str(t, "Payload/JsonBody");
		char *turl = target ? rf_resolve(bmc, target) : NULL;
		int ours = turl && ((fn->multipart_url && same_uri(turl, fn->multipart_url)) ||
				    (fn->simple_url && same_uri(turl, fn->simple_url)));
		json_t *jb = ours && body ? br_json_parse(body, strlen(body), 64 * 1024, NULL) : NULL;
		json_t *targets = json_object_get(jb, "Targets"), *x;
		const char *image = br_json_str(jb, "ImageURI");
		size_t k, flen = strlen(u->file_name);
		int match = 0;

		json_array_foreach(targets, k, x) match |=
		    member && json_is_string(x) && same_uri(json_string_value(x), member);
		if (image && strlen(image) > flen && !strcmp(image + strlen(image) - flen, u->file_name) &&
		    image[strlen(image) - flen - 1] == '/')
			match = 1;
		json_decref(jb);
		free(turl);
		if (match)
			return t;
	}
	return NULL;
}

static void on_task_member(struct rf_req *req, int rc, const struct br_err *err)
{
	struct rf_bmc *bmc = req->bmc;
	struct rf_fw_node *fn = bmc->fw;
	json_t *doc = rc ? NULL : rf_req_parse(req, NULL);

	/* a task that vanished meanwhile (it ended and was reaped) is no
	 * task to follow */
	if (doc && rf_fw_task_running(rf_fw_task_state(doc)))
		json_array_append(fn->tasks, doc);
	json_decref(doc);
	if (--fn->to_read == 0)
		rf_fw_next_update(bmc);
}

static void on_tasks(struct rf_req *req, int rc, const struct br_err *err)
{
	struct rf_bmc *bmc = req->bmc;
	struct rf_fw_node *fn = bmc->fw;
	json_t *doc = answer(req, rc, err, "reading the running tasks"), *members, *m;
	size_t i;
	char *url;

	if (!doc)
		return;
	members = json_object_get(doc, "Members");
	fn->to_read = 1;
	json_array_foreach(members, i, m)
	{
		if (rf_fw_task_state(m)) {
			if (rf_fw_task_running(rf_fw_task_state(m)))
				json_array_append(fn->tasks, m);
		} else if ((url = rf_resolve(bmc, br_json_str(m, "@odata.id") ? br_json_str(m, "@odata.id")
									      : ""))) {
			fn->to_read++;
			get(bmc, url, "reading the running tasks", on_task_member);
			free(url);
		}
	}
	json_decref(doc);
	if (--fn->to_read == 0)
		rf_fw_next_update(bmc);
}

static void on_task_service(struct rf_req *req, int rc, const struct br_err *err)
{
	struct rf_bmc *bmc = req->bmc;
	json_t *doc = answer(req, rc, err, "reading the TaskService");
	const char *link = br_json_str(doc, "Tasks/@odata.id");
	char *url = link ? rf_resolve(bmc, link) : NULL;

	if (!doc)
		return;
	if (url) {
		char *full = bmc->expand ? br_xasprintf("%s?%s", url, bmc->expand) : NULL;

		get(bmc, full ? full : url, "reading the running tasks", on_tasks);
		free(full);
	} else {
		rf_fw_next_update(bmc);
	}
	free(url);
	json_decref(doc);
}

/* A failed read while the BMC comes back is the restart, not the machine. */
static int read_failed(struct rf_req *req, int rc, const struct br_err *err)
{
	struct rf_bmc *bmc = req->bmc;
	struct rf_fw_node *fn = bmc->fw;

	if (!rc)
		return 0;
	if (fn->phase == RF_FW_ILO && fn->t->updates[fn->cur].restarts_bmc) {
		rf_fw_to_returning(bmc); /* iLO flashing itself stops answering */
		return 1;
	}
	if (fn->phase == RF_FW_RETURNING && br_now_ms() < fn->return_deadline_ms) {
		fn->read_gen++;
		rf_fw_poll_root(bmc, br_now_ms() + fn->run->o->poll_ms);
		return 1;
	}
	rf_bmc_fail_request(bmc, req, "reading the FirmwareInventory", err);
	return 1;
}

static void on_member(struct rf_req *req, int rc, const struct br_err *err)
{
	struct rf_bmc *bmc = req->bmc;
	struct rf_fw_node *fn = bmc->fw;
	json_t *doc;

	if (req->kind != fn->read_gen || read_failed(req, rc, err))
		return;
	if (!(doc = rf_req_json(req)))
		return;
	json_array_append_new(fn->members, doc);
	if (--fn->to_read == 0)
		rf_fw_inventory_read(bmc);
}

static void on_inventory_page(struct rf_req *req, int rc, const struct br_err *err)
{
	struct rf_bmc *bmc = req->bmc;
	struct rf_fw_node *fn = bmc->fw;
	json_t *doc, *members, *m;
	const char *next;
	size_t i;
	char *url;

	if (req->kind != fn->read_gen || read_failed(req, rc, err))
		return;
	if (!(doc = rf_req_json(req)))
		return;
	members = json_object_get(doc, "Members");
	if (json_array_size(members) > RF_MEMBERS_MAX) {
		rf_bmc_failf(bmc, BR_E_TOOBIG, "FirmwareInventory lists more than %d members",
			     RF_MEMBERS_MAX);
		json_decref(doc);
		return;
	}
	json_array_foreach(members, i, m)
	{
		if (br_json_str(m, "Version") || br_json_str(m, "Id")) {
			json_array_append(fn->members, m); /* inline ($expand) */
		} else if (br_json_str(m, "@odata.id") &&
			   (url = rf_resolve(bmc, br_json_str(m, "@odata.id")))) {
			if (rf_urlset_add(&fn->seen, url)) {
				fn->to_read++;
				get(bmc, url, "reading the FirmwareInventory", on_member);
			}
			free(url);
		}
	}
	if ((next = br_json_str(doc, "Members@odata.nextLink")) && (url = rf_resolve(bmc, next))) {
		if (++fn->pages > RF_PAGES_MAX) {
			rf_bmc_failf(bmc, BR_E_TOOBIG, "FirmwareInventory runs past %d pages", RF_PAGES_MAX);
			free(url);
			json_decref(doc);
			return;
		}
		if (rf_urlset_add(&fn->seen, url)) {
			fn->to_read++;
			get(bmc, url, "reading the FirmwareInventory", on_inventory_page);
		}
		free(url);
	}
	json_decref(doc);
	if (--fn->to_read == 0)
		rf_fw_inventory_read(bmc);
}

void rf_fw_read_inventory(struct rf_bmc *bmc)
{
	struct rf_fw_node *fn = bmc->fw;
	char *url = bmc->expand ? br_xasprintf("%s?%s", fn->inventory_url, bmc->expand) : NULL;

	json_decref(fn->members);
	fn->members = json_array();
	rf_urlset_release(&fn->seen);
	fn->pages = 0;
	fn->read_gen++;
	fn->to_read = 1;
	get(bmc, url ? url : fn->inventory_url, "reading the FirmwareInventory", on_inventory_page);
	free(url);
}

void rf_fw_read_tasks(struct rf_bmc *bmc)
{
	get(bmc, bmc->fw->tasks_url, "reading the TaskService", on_task_service);
}
