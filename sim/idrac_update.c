/*
 * Firmware updates on a simulated iDRAC9: the UpdateService's two transfer
 * forms, the task each update runs as, and versions that change when it
 * ends. Shapes follow DMTF's UpdateService v1_11_0 and Task v1_6 schemas and
 * Dell's iDRAC9 Redfish API Guide (facts as dell/iDRAC-Redfish-Scripting's
 * DeviceFirmwareMultipartUploadREDFISH.py uses them: MultipartHttpPushUri
 * /redfish/v1/UpdateService/MultipartUpload takes parts UpdateParameters
 * (JSON: Targets, @Redfish.OperationApplyTime) and UpdateFile, and answers
 * 202 with Location: /redfish/v1/TaskService/Tasks/JID_...).
 *
 * An image is the simulator's own: a text file whose first line is
 * "bringup-sim-image" and whose lines "component=FQDD" and "version=V" say
 * what it carries; anything else is refused as a corrupt package. A
 * SimpleUpdate's ImageURI is not downloaded: its file name is read from
 * the rack's --image-dir, as if the image server had served it.
 *
 * Faults: fw_update_fail (the task ends in Exception with the BMC's
 * message), fw_image_refused (the push answered 400), fw_bmc_slow (the iDRAC
 * takes SIM_FW_SLOW_REBOOT_MS to come back after its own update),
 * fw_no_multipart (no MultipartHttpPushUri: SimpleUpdate only).
 *
 * An HPE node is an iLO 5 as a real XL675d's UpdateService shows it
 * (tests/fixtures/redfish/hpe/cray_rie/update_service.json): no
 * MultipartHttpPushUri, SimpleUpdate, and HttpPushUri /cgi-bin/uploadFile
 * taking HPE's form (parts sessionKey, parameters, file; the cookie
 * sessionKey), whose update has no Task: Oem.Hpe.State is "Idle" before
 * any, "Error" with Result iLO.2.14.UpdateFailed after a failed one (the
 * two states recordings show); "Updating" while one runs and "Complete"
 * after are this simulator's words, no recording here having caught them.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include <microhttpd.h>

#include "idrac.h"

#define FW_JOB_BASE 905000000000LL /* update jobs look like JID_905000000001 */
#define FW_PART_MAX (1024u * 1024)

static const char *idrac_fqdd = "iDRAC.Embedded.1-1";

/* ---- the UpdateService ----------------------------------------------------- */

json_t *sim_r_update_service(struct sim_ctx *c)
{
	json_t *u = sim_res("#UpdateService.v1_11_0.UpdateService", "UpdateService", "Update Service",
			    "/redfish/v1/UpdateService");
	int on_reset = (sim_fault_has(&c->node->faults, SIM_F_FW_APPLY_ON_RESET)) != 0;
	json_t *times = on_reset ? json_pack("[s]", "OnReset") : json_pack("[s, s]", "Immediate", "OnReset");

	json_object_set_new(u, "ServiceEnabled", json_true());
	if (!sim_fault_has(&c->node->faults, SIM_F_FW_INVENTORY_MISSING))
		json_object_set_new(u, "FirmwareInventory", sim_link(SIM_R_FW));
	json_object_set_new(u, "Status", sim_status("OK"));
	json_object_set_new(u, "HttpPushUri", json_string(SIM_R_FW));
	if (!(sim_fault_has(&c->node->faults, SIM_F_FW_NO_MULTIPART))) {
		json_object_set_new(u, "MultipartHttpPushUri", json_string(SIM_R_UPDATE_MULTIPART));
		/* the property's apply times, as bmcweb (OpenBMC) annotates it */
		json_object_set_new(u, "MultipartHttpPushUri@Redfish.OperationApplyTimeSupport",
				    json_pack("{s:s, s:O}", "@odata.type",
					      "#Settings.v1_3_5.OperationApplyTimeSupport", "SupportedValues",
					      times));
	}
	json_object_set_new(
	    u, "Actions",
	    json_pack("{s:{s:s, s:[s, s], s:{s:s, s:O}}}", "#UpdateService.SimpleUpdate", "target",
		      SIM_R_UPDATE_SIMPLE, "TransferProtocol@Redfish.AllowableValues", "HTTP", "HTTPS",
		      "@Redfish.OperationApplyTimeSupport", "@odata.type",
		      "#Settings.v1_3_5.OperationApplyTimeSupport", "SupportedValues", times));
	json_decref(times);
	return u;
}

/* ---- versions ---------------------------------------------------------------- */

const char *sim_fw_version(const struct sim_node *n, const char *fqdd)
{
	if (!strcmp(fqdd, idrac_fqdd))
		return n->st.fw_idrac[0] ? n->st.fw_idrac : SIM_FW_IDRAC;
	if (!strcmp(fqdd, "BIOS.Setup.1-1"))
		return n->st.fw_bios[0] ? n->st.fw_bios : SIM_FW_BIOS;
	for (int k = 0; k < SIM_NICS; k++)
		if (n->nics[k].present && !strcmp(n->nics[k].fqdd, fqdd))
			return n->nics[k].firmware;
	return NULL;
}

/* 1 when the node has a component fqdd this simulator can update. */
static int set_version(struct sim_node *n, const char *fqdd, const char *version)
{
	if (!strcmp(fqdd, idrac_fqdd)) {
		snprintf(n->st.fw_idrac, sizeof(n->st.fw_idrac), "%.23s", version);
	} else if (!strcmp(fqdd, "BIOS.Setup.1-1")) {
		snprintf(n->st.fw_bios, sizeof(n->st.fw_bios), "%.23s", version);
	} else {
		int k;

		for (k = 0; k < SIM_NICS && !(n->nics[k].present && !strcmp(n->nics[k].fqdd, fqdd)); k++)
			;
		if (k == SIM_NICS)
			return 0;
		/* a longer version than the NIC record holds is cut, as the BMC would show it */
		snprintf(n->nics[k].firmware, sizeof(n->nics[k].firmware), "%.15s", version);
	}
	sim_fw_list_free(n->st.firmware); /* rebuilt with the new version */
	n->st.firmware = NULL;
	n->st.generation++;
	return 1;
}

/* ---- tasks --------------------------------------------------------------------- */

void sim_fw_tasks_advance(struct sim_node *n, const struct sim_bmc_config *cfg)
{
	int64_t now = br_now_ms();

	for (int i = 0; i < n->st.n_fw_tasks; i++) {
		struct sim_fw_task *t = &n->st.fw_tasks[i];
		/* copies: what is written below lives in the same node */
		char component[sizeof(t->component)], version[sizeof(t->version)];

		if (t->state != SIM_FW_TASK_RUNNING || now < t->done_ms)
			continue;
		memcpy(component, t->component, sizeof(component));
		memcpy(version, t->version, sizeof(version));
		n->st.generation++;
		if (sim_fault_has(&n->faults, SIM_F_FW_UPDATE_FAIL)) {
			t->state = SIM_FW_TASK_FAILED;
			snprintf(t->message_id, sizeof(t->message_id), "IDRAC.2.9.SUP0518");
			snprintf(t->message, sizeof(t->message),
				 "Unable to complete the firmware update operation because the package could "
				 "not be "
				 "applied to %s.",
				 component);
			continue;
		}
		t->state = SIM_FW_TASK_COMPLETED;
		snprintf(t->message_id, sizeof(t->message_id), "IDRAC.2.9.SUP018");
		snprintf(t->message, sizeof(t->message), "Job completed successfully.");
		set_version(n, component, version);
		if (!strcmp(component, idrac_fqdd)) {
			/* the iDRAC restarts into its new firmware: its sessions end
			 * and it answers nothing until it is back */
			memset(n->st.sessions, 0, sizeof(n->st.sessions));
			n->st.down_until_ms =
			    now + (sim_fault_has(&n->faults, SIM_F_FW_BMC_SLOW) ? SIM_FW_SLOW_REBOOT_MS
										: cfg->bmc_reboot_ms);
		}
	}
}

static struct sim_fw_task *task_find(struct sim_node *n, const char *jid)
{
	long long id;
	char *end = NULL;

	if (strncmp(jid, "JID_", 4))
		return NULL;
	id = strtoll(jid + 4, &end, 10) - FW_JOB_BASE;
	if (!end || *end || id < 1 || id > n->st.n_fw_tasks || n->st.fw_tasks[id - 1].ilo_push)
		return NULL;
	return &n->st.fw_tasks[id - 1];
}

void sim_fw_task_ids(const struct sim_node *n, json_t *coll, const char *prefix)
{
	for (int i = 1; i <= n->st.n_fw_tasks; i++)
		if (!n->st.fw_tasks[i - 1].ilo_push)
			sim_coll_add(coll, "%s/JID_%lld", prefix, FW_JOB_BASE + i);
}

/* The Task of an update (Task v1_6: TaskState, TaskStatus, Messages, and
 * the Payload of the request that made it), NULL when jid is none. */
json_t *sim_fw_task_render(struct sim_ctx *c, const char *jid)
{
	static const char *const states[] = { "Running", "Completed", "Exception" };
	struct sim_fw_task *t = task_find(c->node, jid);
	json_t *doc;

	if (!t)
		return NULL;
	doc = sim_res("#Task.v1_6_1.Task", jid, "Firmware Update", SIM_R_ROOT "/TaskService/Tasks/%s", jid);
	json_object_set_new(doc, "TaskState", json_string(states[t->state]));
	json_object_set_new(doc, "TaskStatus",
			    json_string(t->state == SIM_FW_TASK_FAILED ? "Critical" : "OK"));
	json_object_set_new(doc, "PercentComplete", json_integer(t->state == SIM_FW_TASK_RUNNING ? 50 : 100));
	json_object_set_new(doc, "Messages",
			    t->message[0]
				? json_pack("[{s:s, s:s}]", "MessageId", t->message_id, "Message", t->message)
				: json_array());
	json_object_set_new(doc, "Payload",
			    json_pack("{s:s, s:s, s:s}", "HttpOperation", "POST", "TargetUri", t->target_uri,
				      "JsonBody", t->json_body));
	return doc;
}

/* The update as iDRAC's DellJob shows it (JobState, Message, MessageId). */
json_t *sim_fw_job_render(struct sim_ctx *c, const char *jid)
{
	static const char *const states[] = { "Running", "Completed", "Failed" };
	struct sim_fw_task *t = task_find(c->node, jid);
	json_t *j;

	if (!t)
		return NULL;
	j = sim_res("#DellJob.v1_5_0.DellJob", jid, "Firmware Update", SIM_R_MGR "/Jobs/%s", jid);
	json_object_set_new(j, "JobType", json_string("FirmwareUpdate"));
	json_object_set_new(j, "JobState", json_string(states[t->state]));
	json_object_set_new(j, "PercentComplete", json_integer(t->state == SIM_FW_TASK_RUNNING ? 50 : 100));
	json_object_set_new(j, "Message", json_string(t->message[0] ? t->message : "Job in progress."));
	json_object_set_new(j, "MessageId", json_string(t->message_id[0] ? t->message_id : "IDRAC.2.9.PR20"));
	return j;
}

/* ---- taking an image ------------------------------------------------------------- */

struct image_info {
	char component[48], version[32];
};

/* "bringup-sim-image\ncomponent=...\nversion=...\n": 0, or -1 when it is not one. */
static int image_parse(const char *data, size_t len, struct image_info *ret)
{
	static const char magic[] = "bringup-sim-image\n";
	char *text, *line, *save = NULL;

	memset(ret, 0, sizeof(*ret));
	if (len < sizeof(magic) - 1 || memcmp(data, magic, sizeof(magic) - 1) || memchr(data, '\0', len))
		return -1;
	text = br_xstrndup(data + sizeof(magic) - 1, len - (sizeof(magic) - 1));
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, "component=", 10))
			snprintf(ret->component, sizeof(ret->component), "%s", line + 10);
		else if (!strncmp(line, "version=", 8))
			snprintf(ret->version, sizeof(ret->version), "%s", line + 8);
	}
	free(text);
	return ret->component[0] && ret->version[0] ? 0 : -1;
}

static void refuse(struct sim_ctx *c, const char *message)
{
	sim_reply_error(c, 400,
			sim_msg("IDRAC.2.9.RED004", "Critical", message,
				"Make sure the firmware package is for this system and retry the operation."),
			NULL);
}

/* A task for an accepted image, or NULL with the refusal answered. */
static struct sim_fw_task *new_task(struct sim_ctx *c, const struct image_info *im, const char *target_uri,
				    json_t *params)
{
	struct sim_node *n = c->node;
	struct sim_fw_task *t;
	char *body;

	if (!sim_fw_version(n, im->component)) {
		refuse(c,
		       "Unable to update the firmware because the package is not applicable to this system.");
		return NULL;
	}
	if (n->st.n_fw_tasks == SIM_FW_TASKS_MAX) {
		sim_reply_error(c, 503,
				sim_msg("IDRAC.2.9.SUP0108", "Critical", "The job queue is full.",
					"Delete completed jobs and retry."),
				NULL);
		return NULL;
	}
	t = &n->st.fw_tasks[n->st.n_fw_tasks++];
	memset(t, 0, sizeof(*t));
	snprintf(t->component, sizeof(t->component), "%s", im->component);
	snprintf(t->version, sizeof(t->version), "%s", im->version);
	snprintf(t->target_uri, sizeof(t->target_uri), "%s", target_uri);
	body = json_dumps(params, JSON_COMPACT);
	snprintf(t->json_body, sizeof(t->json_body), "%s", body ? body : "{}");
	free(body);
	t->done_ms = br_now_ms() + c->cfg->fw_task_ms;
	return t;
}

/* The task for an accepted image: 202, Location naming it, the Task as body. */
static void start_task(struct sim_ctx *c, const struct image_info *im, const char *target_uri, json_t *params)
{
	struct sim_node *n = c->node;
	char jid[32], *where;

	if (!new_task(c, im, target_uri, params))
		return;
	snprintf(jid, sizeof(jid), "JID_%lld", FW_JOB_BASE + n->st.n_fw_tasks);
	where = sim_fault_has(&n->faults, SIM_F_FW_DELL_JOB)
		    ? br_xasprintf(SIM_R_MGR "/Jobs/%s", jid)
		    : br_xasprintf(SIM_R_ROOT "/TaskService/Tasks/%s", jid);
	sim_reply(c, 202, sim_fw_task_render(c, jid));
	sim_response_header(c->resp, "Location", where);
	free(where);
}

struct parts {
	const char *params_name, *file_name_field; /* the form's part names */
	struct br_buf params, file, key, sig;
	char *file_name, *sig_name;
	int too_big;
};

static enum MHD_Result on_part(void *cls, enum MHD_ValueKind kind, const char *key, const char *filename,
			       const char *content_type, const char *transfer_encoding, const char *data,
			       uint64_t off, size_t size)
{
	struct parts *p = cls;
	struct br_buf *b = !strcmp(key, p->params_name)	      ? &p->params
			   : !strcmp(key, p->file_name_field) ? &p->file
			   : !strcmp(key, "sessionKey")	      ? &p->key
			   : !strcmp(key, "compsig")	      ? &p->sig
							      : NULL;

	if (!b)
		return MHD_YES;
	if (b == &p->file && filename && !p->file_name)
		p->file_name = br_xstrdup(filename);
	if (b == &p->sig && filename && !p->sig_name)
		p->sig_name = br_xstrdup(filename);
	if (b->len + size > FW_PART_MAX) {
		p->too_big = 1;
		return MHD_NO;
	}
	br_buf_add(b, data, size);
	return MHD_YES;
}

/* The form's parts, by libmicrohttpd's form parser; 0, or -1 with the
 * refusal answered. */
static int read_parts(struct sim_ctx *c, struct parts *p)
{
	struct MHD_PostProcessor *pp;

	br_buf_init(&p->params, 0);
	br_buf_init(&p->file, 0);
	br_buf_init(&p->key, 0);
	br_buf_init(&p->sig, 0);
	pp = MHD_create_post_processor((struct MHD_Connection *)c->req->conn, 64 * 1024, on_part, p);
	if (!pp || MHD_post_process(pp, c->req->body, c->req->body_len) != MHD_YES || p->too_big) {
		if (pp)
			MHD_destroy_post_processor(pp);
		refuse(c, "The request is not a multipart/form-data firmware upload.");
		return -1;
	}
	MHD_destroy_post_processor(pp);
	return 0;
}

static void parts_release(struct parts *p)
{
	br_buf_release(&p->params);
	br_buf_release(&p->file);
	br_buf_release(&p->sig);
	br_secret_free(br_buf_detach(&p->key));
	free(p->file_name);
	free(p->sig_name);
}

/* POST MultipartUpload: the parts read by libmicrohttpd's form parser. */
void sim_w_update_multipart(struct sim_ctx *c)
{
	struct parts p = { .params_name = "UpdateParameters", .file_name_field = "UpdateFile" };
	struct image_info im;
	json_t *params = NULL;

	if (read_parts(c, &p))
		goto out;
	params = p.params.len ? json_loadb(p.params.data, p.params.len, 0, NULL) : json_object();
	c->resp->log_parts = json_pack("{s:O?, s:{s:s?, s:I}}", "UpdateParameters", params, "UpdateFile",
				       "filename", p.file_name, "bytes", (json_int_t)p.file.len);
	if (!json_is_object(params)) {
		refuse(c, "UpdateParameters is not a JSON object.");
		goto out;
	}
	if ((sim_fault_has(&c->node->faults, SIM_F_FW_IMAGE_REFUSED)) ||
	    image_parse(p.file.data, p.file.len, &im)) {
		refuse(c, "Unable to verify Update Package signature.");
		goto out;
	}
	start_task(c, &im, SIM_R_UPDATE_MULTIPART, params);
out:
	json_decref(params);
	parts_release(&p);
}

/* The value of cookie name in the request's Cookie header (RFC 6265
 * "name=value; name2=value2"), copied into out; 0 when there is none. */
static int cookie(const struct sim_request *req, const char *name, char *out, size_t size)
{
	const char *h = sim_request_header(req, "Cookie");
	size_t n = strlen(name);

	for (const char *p = h; p && *p; p += strspn(p, "; ")) {
		size_t len = strcspn(p, ";");

		if (len > n && !strncmp(p, name, n) && p[n] == '=') {
			snprintf(out, size, "%.*s", (int)(len - n - 1), p + n + 1);
			return 1;
		}
		p += len;
	}
	return 0;
}

/* POST /cgi-bin/uploadFile on an iLO: the form HPE's tools send, the
 * session's token both as the part sessionKey and the cookie (iLO refuses
 * either missing); UpdateTarget true flashes the image now. */
void sim_w_update_ilo_push(struct sim_ctx *c)
{
	struct parts p = { .params_name = "parameters", .file_name_field = "file" };
	char key[64] = "";
	struct image_info im;
	struct sim_fw_task *t;
	json_t *params = NULL;

	if (c->node->vendor != SIM_V_HPE) {
		sim_reply_not_found(c);
		return;
	}
	if (read_parts(c, &p))
		goto out;
	if (!p.key.len || !sim_session_of(&c->node->st, br_buf_str(&p.key)) ||
	    !cookie(c->req, "sessionKey", key, sizeof(key)) || strcmp(key, br_buf_str(&p.key))) {
		sim_reply_error(c, 401,
				sim_msg(SIM_BASE "NoValidSession", "Critical",
					"There is no valid session established with the implementation.",
					"Establish a session before attempting any operations."),
				NULL);
		goto out;
	}
	params = p.params.len ? json_loadb(p.params.data, p.params.len, 0, NULL) : NULL;
	c->resp->log_parts = json_pack("{s:O?, s:{s:s?, s:I}}", "parameters", params, "file", "filename",
				       p.file_name, "bytes", (json_int_t)p.file.len);
	if (p.sig.len || p.sig_name)
		json_object_set_new(
		    c->resp->log_parts, "compsig",
		    json_pack("{s:s?, s:I}", "filename", p.sig_name, "bytes", (json_int_t)p.sig.len));
	if (!json_is_object(params) || !json_is_true(json_object_get(params, "UpdateTarget"))) {
		refuse(c, "parameters is not a JSON object asking UpdateTarget.");
		goto out;
	}
	if ((sim_fault_has(&c->node->faults, SIM_F_FW_IMAGE_REFUSED)) ||
	    image_parse(p.file.data, p.file.len, &im)) {
		refuse(c, "Unable to verify Update Package signature.");
		goto out;
	}
	if ((t = new_task(c, &im, SIM_ILO_PUSH_PATH, params))) {
		t->ilo_push = 1;
		sim_reply(c, 200, json_object());
	}
out:
	json_decref(params);
	parts_release(&p);
}

json_t *sim_fw_ilo_state(const struct sim_node *n)
{
	const struct sim_fw_task *t = NULL;
	json_t *hpe;

	for (int i = n->st.n_fw_tasks - 1; i >= 0 && !t; i--)
		if (n->st.fw_tasks[i].ilo_push)
			t = &n->st.fw_tasks[i];
	hpe = json_pack("{s:s, s:{s:b, s:b}, s:s}", "@odata.type",
			"#HpeiLOUpdateServiceExt.v2_1_4.HpeiLOUpdateServiceExt", "Capabilities",
			"PLDMFirmwareUpdate", 1, "UpdateFWPKG", 1, "State",
			!t				    ? "Idle"
			: t->state == SIM_FW_TASK_RUNNING   ? "Updating"
			: t->state == SIM_FW_TASK_COMPLETED ? "Complete"
							    : "Error");
	if (t && t->state == SIM_FW_TASK_FAILED)
		json_object_set_new(hpe, "Result",
				    json_pack("{s:s, s:[s]}", "MessageId", "iLO.2.14.UpdateFailed",
					      "MessageArgs", t->component));
	return hpe;
}

/* #UpdateService.SimpleUpdate: the image by its URI's file name, from --image-dir. */
void sim_w_update_simple(struct sim_ctx *c)
{
	const char *uri = br_json_str(c->body, "ImageURI"), *base;
	struct image_info im;
	char *path, *data = NULL;
	size_t len = 0;

	if (!uri) {
		sim_reply_error(
		    c, 400,
		    sim_msg(SIM_BASE "ActionParameterMissing", "Critical",
			    "The action UpdateService.SimpleUpdate requires the parameter ImageURI to be "
			    "present in the request body.",
			    "Supply the action with the required parameter in the request body."),
		    NULL);
		return;
	}
	base = strrchr(uri, '/') ? strrchr(uri, '/') + 1 : uri;
	if (!c->cfg->image_dir || !*base || strchr(base, '.') == base) {
		refuse(c, "Unable to download the firmware image from the ImageURI.");
		return;
	}
	path = br_xasprintf("%s/%s", c->cfg->image_dir, base);
	if (br_read_file(path, 64u * 1024 * 1024, &data, &len, NULL)) {
		free(path);
		refuse(c, "Unable to download the firmware image from the ImageURI.");
		return;
	}
	free(path);
	if ((sim_fault_has(&c->node->faults, SIM_F_FW_IMAGE_REFUSED)) || image_parse(data, len, &im))
		refuse(c, "Unable to verify Update Package signature.");
	else
		start_task(c, &im, SIM_R_UPDATE_SIMPLE, c->body);
	free(data);
}
