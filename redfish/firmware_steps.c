/*
 * firmware_steps — one machine's updates, as a chain of response callbacks:
 *
 *   UpdateService -> FirmwareInventory (every member) -> the running Tasks
 *   -> for each update, in order: already there? a task running for it?
 *      else push the image (multipart) or SimpleUpdate -> the Task to its
 *      end (or iLO's own push -> its UpdateService state and the inventory,
 *      polled) -> (the BMC's own: wait for it to come back) -> FirmwareInventory
 *      again, the new version read back -> next
 *
 * Every URL comes from a link the BMC sent. A step that fails fails only
 * this machine (rf_bmc_fail), and stops its remaining updates.
 */
#include <string.h>

#include "rf_firmware.h"

#define PRIO 10
#define FW_MESSAGE_MAX 1024 /* a task's Messages, joined, as kept */
#define ILO_PUSH_PATH "/cgi-bin/uploadFile"

static void get(struct rf_bmc *bmc, const char *url, const char *step, rf_req_fn fn)
{
	struct rf_req *req = rf_req_new(bmc, RF_GET, url, PRIO, fn);

	bmc->fw->step = step;
	req->kind = bmc->fw->read_gen;
	rf_req_submit(req);
}

static void get_at(struct rf_bmc *bmc, const char *url, const char *step, rf_req_fn fn, int64_t due_ms)
{
	struct rf_req *req = rf_req_new(bmc, RF_GET, url, PRIO, fn);

	bmc->fw->step = step;
	req->kind = bmc->fw->read_gen;
	rf_req_submit_at(req, due_ms);
}

static json_t *answer(struct rf_req *req, int rc, const struct br_err *err, const char *what)
{
	if (rc) {
		rf_bmc_fail_request(req->bmc, req, what, err);
		return NULL;
	}
	return rf_req_json(req);
}

static const struct rf_fw_update *update_of(struct rf_bmc *bmc)
{
	return &bmc->fw->t->updates[bmc->fw->cur];
}

static void set_text(char **field, const char *value)
{
	free(*field);
	*field = value ? br_xstrdup_capped(value, FW_MESSAGE_MAX) : NULL;
}

/* ---- the BMC coming back -------------------------------------------------------- */

static void on_task_after_return(struct rf_req *req, int rc, const struct br_err *err);

static void on_root(struct rf_req *req, int rc, const struct br_err *err)
{
	struct rf_bmc *bmc = req->bmc;
	struct rf_fw_node *fn = bmc->fw;
	int64_t now = br_now_ms();

	if (rc) {
		if (now >= fn->return_deadline_ms) {
			rf_bmc_failf(bmc, BR_E_TIMEOUT,
				     "%s: the BMC did not come back within %ld s of its update: %s",
				     update_of(bmc)->component, fn->run->o->bmc_return_ms / 1000, err->msg);
			return;
		}
		rf_fw_poll_root(bmc, now + fn->run->o->poll_ms);
		return;
	}
	/* what the task said in the end, if the BMC kept it across its restart;
	 * iLO's push has none: its inventory says */
	if (!fn->task_url) {
		rf_fw_read_inventory(bmc);
		return;
	}
	get(bmc, fn->task_url, "reading the task after the BMC's restart", on_task_after_return);
}

void rf_fw_poll_root(struct rf_bmc *bmc, int64_t due_ms)
{
	char *url = br_xasprintf("%s/redfish/v1", bmc->base);

	get_at(bmc, url, "waiting for the BMC to come back", on_root, due_ms);
	free(url);
}

/* The BMC's own firmware restarts it, and the restart ends the session:
 * what follows goes over basic auth (the session is gone with the BMC). */
void rf_fw_to_returning(struct rf_bmc *bmc)
{
	struct rf_fw_node *fn = bmc->fw;
	const struct rf_options *o = bmc->http->opts;

	if (bmc->session_url && o->session_closed)
		o->session_closed(bmc->target, bmc->session_url, o->session_ctx);
	br_secret_free(bmc->token);
	bmc->token = NULL;
	free(bmc->session_url);
	bmc->session_url = NULL;
	bmc->auth = RF_AUTH_BASIC;
	if (fn->phase != RF_FW_RETURNING)
		fn->return_deadline_ms = br_now_ms() + fn->run->o->bmc_return_ms;
	fn->phase = RF_FW_RETURNING;
	fn->read_gen++;
	rf_fw_poll_root(bmc, br_now_ms() + fn->run->o->poll_ms);
}

/* ---- the task --------------------------------------------------------------------- */

static void poll_task(struct rf_bmc *bmc, int64_t due_ms);

int rf_fw_task_running(const char *state)
{
	static const char *const ended[] = { "Completed", "Killed", "Exception", "Cancelled" };

	if (!state)
		return 0;
	for (size_t i = 0; i < sizeof(ended) / sizeof(ended[0]); i++)
		if (!strcmp(state, ended[i]))
			return 0;
	return 1;
}

/* Messages[].Message of a Task (its MessageId when it has no text). */
/* A Task's TaskState, or a Dell job's JobState in the Task's terms, should
 * a BMC's Location name its Lifecycle Controller job (Managers/.../Jobs/JID_…)
 * rather than the Task (Dell's DellJob: Scheduled, Running, Downloading, …,
 * Completed, CompletedWithErrors, Failed). */
const char *rf_fw_task_state(json_t *doc)
{
	const char *state = br_json_str(doc, "TaskState"), *job = br_json_str(doc, "JobState");

	if (state || !job)
		return state;
	if (!strcmp(job, "Completed"))
		return "Completed";
	if (!strcmp(job, "Failed") || !strcmp(job, "CompletedWithErrors"))
		return "Exception";
	return "Running";
}

static char *task_messages(json_t *doc)
{
	json_t *msgs = json_object_get(doc, "Messages"), *m;
	struct br_buf b;
	size_t i;

	br_buf_init(&b, 0);
	json_array_foreach(msgs, i, m)
	{
		const char *text = br_json_str(m, "Message"), *id = br_json_str(m, "MessageId");

		if (!text && !id)
			continue;
		br_buf_addf(&b, "%s%s%s%s%s", b.len ? "; " : "", id ? id : "", id && text ? ": " : "",
			    text ? text : "", "");
		if (b.len > FW_MESSAGE_MAX)
			break;
	}
	if (!b.len && br_json_str(doc, "Message")) /* a Dell job's one Message (and MessageId) */
		br_buf_addf(&b, "%s%s%s", br_json_str(doc, "MessageId") ? br_json_str(doc, "MessageId") : "",
			    br_json_str(doc, "MessageId") ? ": " : "", br_json_str(doc, "Message"));
	return b.len ? br_buf_detach(&b) : (br_buf_release(&b), NULL);
}

/* 1 when the task is over and judged (the machine failed, or the next step
 * started); 0 while it runs. */
static int task_judged(struct rf_bmc *bmc, json_t *doc)
{
	struct rf_fw_node *fn = bmc->fw;
	const struct rf_fw_update *u = update_of(bmc);
	struct rf_fw_step *s = &fn->res.steps[fn->cur];
	const char *state = rf_fw_task_state(doc), *status = br_json_str(doc, "TaskStatus");
	char *msgs = task_messages(doc);

	set_text(&s->task_state, state);
	if (msgs)
		set_text(&s->message, msgs);
	free(msgs);
	if (rf_fw_task_running(state))
		return 0;
	if (!state || strcmp(state, "Completed") || (status && !strcmp(status, "Critical"))) {
		rf_bmc_failf(bmc, BR_E_STATE, "%s: update to %s failed: task %s %s%s%s", u->component,
			     u->version, s->task, state ? state : "(no TaskState)", s->message ? ": " : "",
			     s->message ? s->message : "");
		return 1;
	}
	if (u->restarts_bmc && fn->phase != RF_FW_RETURNING) {
		rf_fw_to_returning(bmc);
		return 1;
	}
	fn->phase = RF_FW_VERIFYING;
	rf_fw_read_inventory(bmc);
	return 1;
}

static void on_task(struct rf_req *req, int rc, const struct br_err *err)
{
	struct rf_bmc *bmc = req->bmc;
	struct rf_fw_node *fn = bmc->fw;
	int64_t now = br_now_ms();
	json_t *doc;

	if (rc && update_of(bmc)->restarts_bmc) {
		/* the BMC flashing itself stops answering: wait for it */
		rf_fw_to_returning(bmc);
		return;
	}
	if (!(doc = answer(req, rc, err, "polling the update's task")))
		return;
	if (!task_judged(bmc, doc)) {
		if (now >= fn->task_deadline_ms)
			rf_bmc_failf(bmc, BR_E_TIMEOUT, "%s: task %s still %s after %ld s",
				     update_of(bmc)->component, fn->task_url,
				     fn->res.steps[fn->cur].task_state, fn->run->o->task_timeout_ms / 1000);
		else
			poll_task(bmc, now + fn->run->o->poll_ms);
	}
	json_decref(doc);
}

static void on_task_after_return(struct rf_req *req, int rc, const struct br_err *err)
{
	struct rf_bmc *bmc = req->bmc;
	struct rf_fw_node *fn = bmc->fw;
	json_t *doc = rc ? NULL : rf_req_parse(req, NULL);

	if (req->kind != fn->read_gen)
		goto out;
	if (!doc) {
		/* the restart took its task list with it: the inventory says */
		rf_fw_read_inventory(bmc);
	} else if (rf_fw_task_running(rf_fw_task_state(doc))) {
		fn->phase = RF_FW_TASK;
		poll_task(bmc, br_now_ms() + fn->run->o->poll_ms);
	} else if (!task_judged(bmc, doc)) {
		rf_fw_read_inventory(bmc);
	}
out:
	json_decref(doc);
}

static void poll_task(struct rf_bmc *bmc, int64_t due_ms)
{
	get_at(bmc, bmc->fw->task_url, "waiting for the update's task", on_task, due_ms);
}

static void follow_task(struct rf_bmc *bmc, const char *link)
{
	struct rf_fw_node *fn = bmc->fw;
	struct rf_fw_step *s = &fn->res.steps[fn->cur];
	char *url = rf_resolve(bmc, link);

	if (!url) {
		rf_bmc_failf(bmc, BR_E_PROTO, "%s: the task link '%s' is not on this BMC",
			     update_of(bmc)->component, link);
		return;
	}
	free(fn->task_url);
	fn->task_url = url;
	set_text(&s->task, link);
	fn->phase = RF_FW_TASK;
	fn->task_deadline_ms = br_now_ms() + fn->run->o->task_timeout_ms;
	poll_task(bmc, br_now_ms() + fn->run->o->poll_ms);
}

/* ---- iLO's own push ------------------------------------------------------------------ */

/*
 * iLO 5 offers no MultipartHttpPushUri (a real XL675d's UpdateService,
 * tests/fixtures/redfish/hpe/cray_rie/update_service.json): its
 * HttpPushUri, /cgi-bin/uploadFile, takes HPE's own form, as HPE's
 * python-ilorest-library example upload_firmware_ilo_repository.py sends
 * it: a part sessionKey (the session's token, also the cookie of that
 * name), parameters (JSON: UpdateRepository, UpdateTarget, ETag, Section)
 * and file. The answer names no task: the UpdateService's Oem.Hpe State
 * and Result say how it goes ("Idle" with nothing under way, as a DL325
 * Gen10 Plus's iLO 5 2.14 shows it; "Error" with Result.MessageId
 * "iLO.2.14.UpdateFailed" after a failed update, as the XL675d's does,
 * where it stays until the next), and FirmwareInventory when the new
 * version runs. Any other State is taken as an update under way: nothing
 * is sent into it.
 */
char *rf_fw_ilo_result(json_t *hpe)
{
	json_t *result = json_object_get(hpe, "Result"), *arg;
	const char *id = br_json_str(result, "MessageId");
	struct br_buf b;
	size_t i;

	if (!id)
		return NULL;
	br_buf_init(&b, FW_MESSAGE_MAX);
	br_buf_adds(&b, id);
	json_array_foreach(json_object_get(result, "MessageArgs"), i, arg)
	    br_buf_addf(&b, "%s%s", i ? ", " : " (", json_is_string(arg) ? json_string_value(arg) : "?");
	if (json_array_size(json_object_get(result, "MessageArgs")))
		br_buf_adds(&b, ")");
	return br_buf_detach(&b);
}

int rf_fw_ilo_idle(const char *state)
{
	return !state || !strcmp(state, "Idle") || !strcmp(state, "Complete") || !strcmp(state, "Error");
}

/* iLO's HttpPushUri is outside /redfish, where rf_resolve follows no
 * link: the one path iLO 5 gives is taken, and only it. */
const char *rf_fw_ilo_push(json_t *update_service)
{
	const char *link = br_json_str(update_service, "HttpPushUri");

	if (!json_is_object(br_json_path(update_service, "Oem/Hpe")) || !link ||
	    (strcmp(link, ILO_PUSH_PATH) && strcmp(link, ILO_PUSH_PATH "/")))
		return NULL;
	return ILO_PUSH_PATH;
}

static void on_ilo_state(struct rf_req *req, int rc, const struct br_err *err)
{
	struct rf_bmc *bmc = req->bmc;
	struct rf_fw_node *fn = bmc->fw;
	const struct rf_fw_update *u = update_of(bmc);
	struct rf_fw_step *s = &fn->res.steps[fn->cur];
	json_t *doc, *hpe;
	const char *state;
	char *result;

	if (req->kind != fn->read_gen)
		return;
	if (rc && u->restarts_bmc) {
		rf_fw_to_returning(bmc); /* iLO flashing itself stops answering */
		return;
	}
	if (!(doc = answer(req, rc, err, "reading iLO's update state")))
		return;
	hpe = br_json_path(doc, "Oem/Hpe");
	state = br_json_str(hpe, "State");
	result = rf_fw_ilo_result(hpe);
	set_text(&s->task_state, state);
	if (result)
		set_text(&s->message, result);
	if (state && !strcmp(state, "Error") && result && (!fn->ilo_prior || strcmp(result, fn->ilo_prior)))
		rf_bmc_failf(bmc, BR_E_STATE, "%s: update to %s failed: iLO's update state Error: %s",
			     u->component, u->version, result);
	else
		rf_fw_read_inventory(bmc); /* the version there, or another round */
	free(result);
	json_decref(doc);
}

void rf_fw_poll_ilo(struct rf_bmc *bmc, int64_t due_ms)
{
	get_at(bmc, bmc->fw->update_url, "waiting for iLO's update", on_ilo_state, due_ms);
}

/* 1 when u goes by iLO's push: the service offers it and neither
 * standard form (send_image tries them in that order). */
static int by_ilo_push(const struct rf_fw_node *fn, const struct rf_fw_update *u)
{
	return fn->ilo_push_url && !fn->multipart_url && !(fn->simple_url && u->image_uri);
}

static void follow_ilo(struct rf_bmc *bmc)
{
	struct rf_fw_node *fn = bmc->fw;

	free(fn->task_url);
	fn->task_url = NULL;
	fn->phase = RF_FW_ILO;
	fn->task_deadline_ms = br_now_ms() + fn->run->o->task_timeout_ms;
	rf_fw_poll_ilo(bmc, br_now_ms() + fn->run->o->poll_ms);
}

/* ---- sending the image -------------------------------------------------------------- */

static void on_sent(struct rf_req *req, int rc, const struct br_err *err)
{
	struct rf_bmc *bmc = req->bmc;
	const struct rf_fw_update *u = update_of(bmc);
	json_t *doc = NULL;
	const char *link = req->location;
	char *what;

	if (rc) {
		what = br_xasprintf("%s: update to %s refused", u->component, u->version);
		rf_bmc_fail_request(bmc, req, what, err);
		free(what);
		return;
	}
	if (!link && req->http.body.len) {
		doc = br_json_parse(req->http.body.data, req->http.body.len, RF_BODY_MAX, NULL);
		if (rf_fw_task_state(doc))
			link = br_json_str(doc, "@odata.id");
	}
	if (link)
		follow_task(bmc, link);
	else if (!strcmp(bmc->fw->res.steps[bmc->fw->cur].method, "ilo-push"))
		follow_ilo(bmc);
	else
		rf_bmc_failf(bmc, BR_E_PROTO,
			     "%s: the BMC took the image (HTTP %ld) but named no task to follow",
			     u->component, req->http.status);
	json_decref(doc);
}

/* 1 when the service allows the apply time we ask for (or says nothing). */
static int apply_time_ok(struct rf_bmc *bmc, const char *supported, const char *form)
{
	const char *want = bmc->fw->run->o->apply_time;

	if (!supported)
		return 1;
	for (const char *p = supported; *p;) {
		size_t n = strcspn(p, ",");

		if (n == strlen(want) && !strncmp(p, want, n))
			return 1;
		p += n + (p[n] == ',');
	}
	rf_bmc_failf(bmc, BR_E_UNSUPPORTED,
		     "unsupported on this BMC: %s applies updates only at %s, not %s (nothing sent)", form,
		     supported, want);
	return 0;
}

static json_t *update_parameters(struct rf_bmc *bmc, json_t *member)
{
	const char *target = br_json_str(member, "@odata.id");
	json_t *p = json_object();

	if (target)
		json_object_set_new(p, "Targets", json_pack("[s]", target));
	json_object_set_new(p, "@Redfish.OperationApplyTime", json_string(bmc->fw->run->o->apply_time));
	return p;
}

static void send_image(struct rf_bmc *bmc)
{
	struct rf_fw_node *fn = bmc->fw;
	const struct rf_fw_update *u = update_of(bmc);
	struct rf_fw_step *s = &fn->res.steps[fn->cur];
	json_t *params = update_parameters(bmc, rf_fw_member(fn->members, u->component));
	struct rf_req *req;

	if (fn->multipart_url) {
		if (!apply_time_ok(bmc, fn->apply_multipart, "MultipartHttpPushUri"))
			goto out;
		free(fn->params);
		fn->params = json_dumps(params, JSON_COMPACT);
		fn->form = (struct rf_multipart){ .json_name = "UpdateParameters",
						  .json = fn->params,
						  .file_part = "UpdateFile",
						  .file_name = u->file_name,
						  .data = u->image,
						  .len = u->image_len };
		req = rf_req_new(bmc, RF_POST, fn->multipart_url, PRIO, on_sent);
		req->multipart = &fn->form;
		s->method = "multipart";
	} else if (fn->simple_url && u->image_uri) {
		if (!apply_time_ok(bmc, fn->apply_simple, "SimpleUpdate"))
			goto out;
		json_object_set_new(params, "ImageURI", json_string(u->image_uri));
		req = rf_req_new(bmc, RF_POST, fn->simple_url, PRIO, on_sent);
		req->post_body = json_dumps(params, JSON_COMPACT);
		s->method = "simple";
	} else if (by_ilo_push(fn, u)) {
		json_t *form;

		if (strcmp(fn->run->o->apply_time, "Immediate")) {
			rf_bmc_failf(bmc, BR_E_UNSUPPORTED,
				     "unsupported on this BMC: iLO's HttpPushUri applies an update at once, "
				     "not %s (%s not sent)",
				     fn->run->o->apply_time, u->component);
			goto out;
		}
		if ((bmc->auth != RF_AUTH_SESSION || !bmc->token) && !fn->relogged && bmc->root &&
		    bmc->http->opts->use_sessions) {
			/* the BMC's own update restarted it and ended the
			 * session: a new one, then this again */
			fn->relogging = fn->relogged = 1;
			fn->step = "logging in again";
			rf_session_reopen(bmc);
			goto out;
		}
		if (bmc->auth != RF_AUTH_SESSION || !bmc->token) {
			rf_bmc_failf(bmc, BR_E_UNSUPPORTED,
				     "unsupported on this BMC: iLO's HttpPushUri needs a session login, "
				     "and this BMC is driven over basic auth (%s not sent)",
				     u->component);
			goto out;
		}
		form = json_pack("{s:b, s:b, s:s, s:i}", "UpdateRepository", 1, "UpdateTarget", 1, "ETag",
				 "bringup", "Section", 0);
		free(fn->params);
		fn->params = json_dumps(form, JSON_COMPACT);
		json_decref(form);
		fn->form = (struct rf_multipart){ .json_name = "parameters",
						  .json = fn->params,
						  .file_part = "file",
						  .file_name = u->file_name,
						  .data = u->image,
						  .len = u->image_len,
						  .plain_json = 1,
						  .session_key = 1,
						  .sig_name = u->sig_name,
						  .sig = u->sig,
						  .sig_len = u->sig_len };
		req = rf_req_new(bmc, RF_POST, fn->ilo_push_url, PRIO, on_sent);
		req->multipart = &fn->form;
		s->method = "ilo-push";
	} else if (fn->simple_url) {
		rf_bmc_failf(
		    bmc, BR_E_UNSUPPORTED,
		    "unsupported on this BMC: it takes images only by SimpleUpdate from an image server, "
		    "and no --image-base-url was given (%s not sent)",
		    u->component);
		goto out;
	} else {
		rf_bmc_failf(
		    bmc, BR_E_UNSUPPORTED,
		    "unsupported on this BMC: its UpdateService offers neither MultipartHttpPushUri nor "
		    "SimpleUpdate (%s not sent)",
		    u->component);
		goto out;
	}
	/* an image the BMC may have taken although the answer was lost is
	 * never sent again blindly: a rerun finds its task instead */
	req->no_retry_transport = 1;
	fn->step = "sending the image";
	s->sent = 1;
	if (fn->run->sending)
		fn->run->sending(fn->t, u, s->method, fn->run->ctx);
	rf_req_submit(req);
out:
	json_decref(params);
}

/* ---- the running tasks (an earlier run's) --------------------------------------------- */

/* ---- the updates in order --------------------------------------------------------------- */

static void finish(struct rf_bmc *bmc)
{
	bmc->fw->finished = 1;
	bmc->fw->step = "done";
}

void rf_fw_next_update(struct rf_bmc *bmc)
{
	struct rf_fw_node *fn = bmc->fw;
	json_t *task;

	for (; fn->cur < fn->t->n_updates; fn->cur++) {
		const struct rf_fw_update *u = update_of(bmc);
		struct rf_fw_step *s = &fn->res.steps[fn->cur];
		const char *v = rf_fw_version(fn->members, u->component);

		if (!v || strcmp(v, u->version))
			break;
		set_text(&s->version, v);
		s->done = 1;
	}
	if (fn->cur == fn->t->n_updates) {
		finish(bmc);
		return;
	}
	/* iLO's own push under way (an earlier, killed run's): followed, not sent again */
	if (fn->ilo_busy && by_ilo_push(fn, update_of(bmc))) {
		fn->ilo_busy = 0;
		fn->res.steps[fn->cur].method = "resumed";
		br_info("firmware", "%s: %s: iLO has an update under way: following it", bmc->base,
			update_of(bmc)->component);
		follow_ilo(bmc);
		return;
	}
	if ((task = rf_fw_task_for(bmc, update_of(bmc)))) {
		fn->res.steps[fn->cur].method = "resumed";
		br_info("firmware", "%s: %s: following the running task %s", bmc->base,
			update_of(bmc)->component,
			br_json_str(task, "@odata.id") ? br_json_str(task, "@odata.id") : "?");
		follow_task(bmc, br_json_str(task, "@odata.id") ? br_json_str(task, "@odata.id") : "");
		return;
	}
	fn->relogged = 0;
	send_image(bmc);
}

/* The whole inventory is in fn->members: what it means for the phase. */
void rf_fw_inventory_read(struct rf_bmc *bmc)
{
	struct rf_fw_node *fn = bmc->fw;
	size_t i;
	json_t *m;

	br_hw_release(&fn->res.inventory);
	br_hw_init(&fn->res.inventory);
	json_array_foreach(fn->members, i, m) rf_parse_firmware(&fn->res.inventory, m);
	if (fn->phase == RF_FW_LOOKING) {
		int pending = 0;

		for (size_t u = 0; u < fn->t->n_updates; u++) {
			const struct rf_fw_update *up = &fn->t->updates[u];
			const char *v = rf_fw_version(fn->members, up->component);

			if (!rf_fw_member(fn->members, up->component)) {
				rf_bmc_failf(bmc, BR_E_UNSUPPORTED,
					     "refused: the BMC lists no firmware component %s (nothing sent)",
					     up->component);
				return;
			}
			set_text(&fn->res.steps[u].from_version, v);
			pending |= !v || strcmp(v, up->version);
		}
		if (pending && fn->tasks_url) {
			rf_fw_read_tasks(bmc);
			return;
		}
		rf_fw_next_update(bmc);
		return;
	}
	/* after an update: it must show now (a restarted BMC may show its old
	 * version a while, until its inventory is rebuilt) */
	{
		const struct rf_fw_update *u = update_of(bmc);
		const char *v = rf_fw_version(fn->members, u->component);

		if (v && !strcmp(v, u->version)) {
			fn->phase = RF_FW_VERIFYING;
			rf_fw_next_update(bmc);
		} else if (fn->phase == RF_FW_RETURNING && br_now_ms() < fn->return_deadline_ms) {
			rf_fw_poll_root(bmc, br_now_ms() + fn->run->o->poll_ms);
		} else if (fn->phase == RF_FW_ILO && br_now_ms() < fn->task_deadline_ms) {
			rf_fw_poll_ilo(bmc, br_now_ms() + fn->run->o->poll_ms);
		} else if (fn->phase == RF_FW_ILO) {
			const struct rf_fw_step *st = &fn->res.steps[fn->cur];

			rf_bmc_failf(
			    bmc, BR_E_TIMEOUT,
			    "%s: iLO's update state still %s after %ld s, the BMC reporting %s, not %s",
			    u->component, st->task_state ? st->task_state : "unreported",
			    fn->run->o->task_timeout_ms / 1000, v ? v : "no version", u->version);
		} else {
			rf_bmc_failf(bmc, RF_E_NOT_APPLIED,
				     "%s: task %s completed, but the BMC reports %s, not %s", u->component,
				     fn->res.steps[fn->cur].task ? fn->res.steps[fn->cur].task : "?",
				     v ? v : "no version", u->version);
		}
	}
}

/* ---- the UpdateService ------------------------------------------------------------------- */

/* "Immediate,OnReset" from an @Redfish.OperationApplyTimeSupport object;
 * NULL when it says nothing. */
static char *apply_times(json_t *support)
{
	json_t *values = json_object_get(support, "SupportedValues"), *v;
	struct br_buf b;
	size_t i;

	if (!json_is_array(values))
		return NULL;
	br_buf_init(&b, 0);
	json_array_foreach(values, i, v) if (json_is_string(v))
	    br_buf_addf(&b, "%s%s", b.len ? "," : "", json_string_value(v));
	return br_buf_detach(&b);
}

static void on_update_service(struct rf_req *req, int rc, const struct br_err *err)
{
	struct rf_bmc *bmc = req->bmc;
	struct rf_fw_node *fn = bmc->fw;
	json_t *doc = answer(req, rc, err, "reading the UpdateService");
	json_t *simple = br_json_path(doc, "Actions/#UpdateService.SimpleUpdate");
	json_t *hpe = br_json_path(doc, "Oem/Hpe");
	const char *link, *ilo = rf_fw_ilo_push(doc);

	if (!doc)
		return;
	if ((link = br_json_str(doc, "MultipartHttpPushUri")))
		fn->multipart_url = rf_resolve(bmc, link);
	if ((link = br_json_str(simple, "target")))
		fn->simple_url = rf_resolve(bmc, link);
	if (ilo) {
		fn->ilo_push_url = br_xasprintf("%s%s", bmc->base, ilo);
		fn->update_url = br_xstrdup(req->url);
		fn->ilo_prior = rf_fw_ilo_result(hpe);
		fn->ilo_busy = !rf_fw_ilo_idle(br_json_str(hpe, "State"));
	}
	/* DSP0266 "Operation apply time": the annotation on the action, and
	 * on the push URI property for multipart (as bmcweb, OpenBMC's Redfish
	 * server, writes it: MultipartHttpPushUri@Redfish.OperationApplyTimeSupport) */
	fn->apply_multipart =
	    apply_times(json_object_get(doc, "MultipartHttpPushUri@Redfish.OperationApplyTimeSupport"));
	fn->apply_simple = apply_times(json_object_get(simple, "@Redfish.OperationApplyTimeSupport"));
	link = br_json_str(doc, "FirmwareInventory/@odata.id");
	if (!link || !(fn->inventory_url = rf_resolve(bmc, link))) {
		rf_bmc_failf(bmc, BR_E_UNSUPPORTED,
			     "unsupported on this BMC: its UpdateService has no FirmwareInventory");
	} else {
		fn->phase = RF_FW_LOOKING;
		rf_fw_read_inventory(bmc);
	}
	json_decref(doc);
}

void rf_fw_ready(struct rf_bmc *bmc)
{
	struct rf_fw_node *fn = bmc->fw;

	if (fn->relogging) {
		fn->relogging = 0;
		send_image(bmc);
		return;
	}
	rf_fw_begin(bmc);
}

void rf_fw_begin(struct rf_bmc *bmc)
{
	struct rf_fw_node *fn = bmc->fw;
	const char *link = br_json_str(bmc->root, "UpdateService/@odata.id");
	const char *tasks = br_json_str(bmc->root, "Tasks/@odata.id");
	char *url = link ? rf_resolve(bmc, link) : NULL;

	fn->res.n_steps = fn->t->n_updates;
	fn->res.steps = br_xcalloc(fn->t->n_updates ? fn->t->n_updates : 1, sizeof(*fn->res.steps));
	for (size_t i = 0; i < fn->t->n_updates; i++) {
		fn->res.steps[i].component = fn->t->updates[i].component;
		fn->res.steps[i].method = "none";
	}
	br_hw_init(&fn->res.inventory);
	fn->tasks = json_array();
	fn->tasks_url = tasks ? rf_resolve(bmc, tasks) : NULL;
	if (!url) {
		rf_bmc_failf(bmc, BR_E_UNSUPPORTED,
			     "unsupported on this BMC: its service root links no UpdateService");
		return;
	}
	get(bmc, url, "reading the UpdateService", on_update_service);
	free(url);
}
