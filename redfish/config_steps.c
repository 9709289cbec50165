/*
 * config_steps — one system's configure, as a chain of response callbacks:
 *
 *   Systems -> System -> Bios -> (diff) -> Bios settings object (ETag)
 *   -> PATCH -> job (Location, else POST the Manager's Jobs) -> reset slot
 *   -> Reset -> poll the job -> Bios again (verify) -> System -> boot PATCH
 *   -> System again (verify) -> done
 *
 * A BMC with no config jobs (HPE iLO, Lenovo XCC, Supermicro, OpenBMC,
 * AMI) applies the settings object at the next reset (DMTF DSP0266,
 * "Settings resource"): PATCH -> reset slot -> Reset -> read the Bios until
 * the pending values show (verify) -> boot as above. What a BMC cannot do
 * (an attribute its BIOS lacks, no restart among its ResetTypes, several
 * host Systems) fails the system with "unsupported on this BMC: ..."
 * before anything is written.
 *
 * Every URL comes from a link in a document the BMC sent. A step that
 * fails fails only this system (rf_bmc_fail); the others never notice.
 */
#include <string.h>

#include "rf_private.h"

#define PRIO 10

static void get(struct rf_bmc *bmc, const char *url, const char *step, rf_req_fn fn)
{
	bmc->cfg->step = step;
	rf_req_submit(rf_req_new(bmc, RF_GET, url, PRIO, fn));
}

/* POST or PATCH body (taken); if_match may be NULL. */
static struct rf_req *send_body(struct rf_bmc *bmc, enum rf_method m, const char *url, json_t *body,
				const char *if_match, const char *step, rf_req_fn fn)
{
	struct rf_req *req = rf_req_new(bmc, m, url, PRIO, fn);

	bmc->cfg->step = step;
	req->post_body = json_dumps(body, JSON_COMPACT);
	req->if_match = if_match ? br_xstrdup(if_match) : NULL;
	json_decref(body);
	return req;
}

/* An absolute URL on this BMC for the link at path in doc, or NULL after
 * failing the system with what was missing. */
static char *need_link(struct rf_bmc *bmc, json_t *doc, const char *path, const char *what)
{
	const char *link = br_json_str(doc, path);
	char *url = link ? rf_resolve(bmc, link) : NULL;

	const char *id = br_json_str(doc, "@odata.id");

	if (!url)
		rf_bmc_failf(bmc, BR_E_PROTO, "%s has no usable %s link (%s)", id ? id : "a document", what,
			     path);
	return url;
}

/* A step's answer as JSON, or NULL after failing the system. */
static json_t *answer(struct rf_req *req, int rc, const struct br_err *err, const char *what)
{
	if (rc) {
		rf_bmc_fail_request(req->bmc, req, what, err);
		return NULL;
	}
	return rf_req_json(req);
}

static void finish(struct rf_bmc *bmc)
{
	bmc->cfg->finished = 1;
	bmc->cfg->step = "done";
}

/* ---- boot ----------------------------------------------------------------- */

static void on_system_again(struct rf_req *req, int rc, const struct br_err *err);
static void on_settings(struct rf_req *req, int rc, const struct br_err *err);

/* The System takes boot changes through its settings object (iDRAC10, and
 * other BMCs with @Redfish.Settings on the System): they wait for the next
 * boot, so they need a reset, which the BIOS job's can be. */
static int boot_pending_kind(const struct rf_cfg_node *cn)
{
	return strcmp(cn->boot_url, cn->system_url) != 0;
}

static void on_boot_patch(struct rf_req *req, int rc, const struct br_err *err)
{
	struct rf_bmc *bmc = req->bmc;
	struct rf_cfg_node *cn = bmc->cfg;

	if (rc) {
		rf_bmc_fail_request(bmc, req, "boot order PATCH", err);
		return;
	}
	cn->res.boot_patched++;
	if (!boot_pending_kind(cn))
		get(bmc, cn->system_url, "verifying the boot order", on_system_again);
	else if (cn->res.n_bios && !cn->verifying)
		/* the BIOS job's reset applies both */
		get(bmc, cn->settings_url, "reading the BIOS settings", on_settings);
	else {
		/* a reset for the boot order alone: wait on the System, not on
		 * a BIOS job that ran before it */
		free(cn->job_url);
		cn->job_url = NULL;
		rf_cfg_want_reset(bmc);
	}
}

static void send_boot_patch(struct rf_bmc *bmc, json_t *patch)
{
	struct rf_cfg_node *cn = bmc->cfg;
	/* iDRAC9 refuses a PATCH of the System without the ETag it has now */
	const char *etag = boot_pending_kind(cn) ? NULL : cn->system_etag;

	rf_req_submit(
	    send_body(bmc, RF_PATCH, cn->boot_url, patch, etag, "setting the boot order", on_boot_patch));
}

/* The System as now read decides: boot right (done), or PATCH it once. */
static void boot_step(struct rf_bmc *bmc)
{
	struct rf_cfg_node *cn = bmc->cfg;
	json_t *patch = NULL;
	char *current = NULL, *wanted = NULL;
	struct br_err e = { 0 };
	int plan = rf_cfg_boot_plan(cn->system, cn->attrs, cn->spec, &patch, &current, &wanted, &e);

	if (plan < 0) {
		rf_bmc_fail(bmc, &e);
		return;
	}
	if (plan == 0) {
		cn->res.verified = cn->res.bios_patched || cn->res.boot_patched;
		finish(bmc);
		return;
	}
	if (cn->res.boot_patched) {
		rf_bmc_failf(bmc, BR_E_STATE, "boot settings did not take: %s, want %s", current, wanted);
	} else if (!cn->res.boot_current) {
		cn->res.boot_current = current;
		cn->res.boot_wanted = wanted;
		current = wanted = NULL;
	}
	if (!bmc->failed) {
		send_boot_patch(bmc, patch);
		patch = NULL;
	}
	json_decref(patch);
	free(current);
	free(wanted);
}

static void keep_system(struct rf_bmc *bmc, struct rf_req *req, json_t *doc)
{
	struct rf_cfg_node *cn = bmc->cfg;
	const char *etag = req->etag ? req->etag : br_json_str(doc, "@odata.etag");

	json_decref(cn->system);
	cn->system = doc;
	free(cn->system_etag);
	cn->system_etag = etag ? br_xstrdup(etag) : NULL;
}

static void on_system_again(struct rf_req *req, int rc, const struct br_err *err)
{
	json_t *doc = answer(req, rc, err, "reading the System");

	if (!doc)
		return;
	keep_system(req->bmc, req, doc);
	boot_step(req->bmc);
}

/* ---- the job ---------------------------------------------------------------- */

static void on_bios(struct rf_req *req, int rc, const struct br_err *err);
static void poll_job(struct rf_bmc *bmc, int64_t due_ms);
static void poll_boot(struct rf_bmc *bmc, int64_t due_ms);
static void poll_settings(struct rf_bmc *bmc, int64_t due_ms);

static void on_reset(struct rf_req *req, int rc, const struct br_err *err)
{
	struct rf_bmc *bmc = req->bmc;
	struct rf_cfg_node *cn = bmc->cfg;

	if (rc) {
		rf_bmc_fail_request(bmc, req, "reset", err);
		return;
	}
	cn->res.resets++;
	if (!cn->reset_ms) {
		cn->reset_ms = br_now_ms();
		cn->deadline_ms = cn->reset_ms + cn->run->o->node_timeout_ms;
	}
	if (cn->job_url)
		poll_job(bmc, br_now_ms() + cn->run->o->poll_ms);
	else if (cn->settings_apply)
		poll_settings(bmc, br_now_ms() + cn->run->o->poll_ms);
	else
		poll_boot(bmc, br_now_ms() + cn->run->o->poll_ms);
}

static int allowed(json_t *system, const char *type)
{
	json_t *list =
		   br_json_path(system, "Actions/#ComputerSystem.Reset/ResetType@Redfish.AllowableValues"),
	       *v;
	size_t i;

	if (!json_is_array(list))
		return 1; /* not advertised: try it */
	json_array_foreach(list, i, v) if (json_is_string(v) && !strcmp(json_string_value(v), type)) return 1;
	return 0;
}

static void send_reset(struct rf_bmc *bmc, const char *type)
{
	struct rf_cfg_node *cn = bmc->cfg;
	struct rf_req *req = send_body(bmc, RF_POST, cn->reset_url, json_pack("{s:s}", "ResetType", type),
				       NULL, "resetting the system", on_reset);

	/* a reset whose answer was lost may have happened: never send two */
	req->no_retry_transport = 1;
	cn->reset_type = type;
	br_info("configure", "%s: %s for %s%s", bmc->target->name, type,
		cn->job_url	     ? "job "
		: cn->settings_apply ? "the pending BIOS settings"
				     : "the pending boot order",
		cn->job_url ? cn->res.job : "");
	rf_req_submit(req);
}

void rf_cfg_reset_granted(struct rf_bmc *bmc)
{
	struct rf_cfg_node *cn = bmc->cfg;
	const char *power = br_json_str(cn->system, "PowerState");

	if (cn->job_running) {
		/* an earlier run's reset started it: only wait for its end */
		cn->reset_type = "(none: the job was running)";
		cn->reset_ms = br_now_ms();
		cn->deadline_ms = cn->reset_ms + cn->run->o->node_timeout_ms;
		poll_job(bmc, cn->reset_ms);
		return;
	}

	/* a system that is off runs the job when it powers on */
	if (power && !strcmp(power, "Off"))
		send_reset(bmc, "On");
	else
		send_reset(bmc, cn->restart_type ? cn->restart_type : "ForceRestart");
}

/* The restart the System lists, gentlest first; NULL when it lists none. */
static const char *restart_type(json_t *system)
{
	static const char *const order[] = { "GracefulRestart", "ForceRestart", "PowerCycle" };

	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		if (allowed(system, order[i]))
			return order[i];
	return NULL;
}

static void set_text(char **field, const char *value)
{
	free(*field);
	*field = value ? br_xstrdup(value) : NULL;
}

/* A GracefulRestart that, after --graceful-timeout, shows no effect (no OS
 * yet to shut down gracefully, or one that ignored the request): force it,
 * once. 1 when the ForceRestart went out. */
static int forced_after_graceful(struct rf_bmc *bmc, int64_t now)
{
	struct rf_cfg_node *cn = bmc->cfg;

	if (cn->forced || strcmp(cn->reset_type, "GracefulRestart") ||
	    now - cn->reset_ms < cn->run->o->graceful_ms || !allowed(cn->system, "ForceRestart"))
		return 0;
	cn->forced = 1;
	send_reset(bmc, "ForceRestart");
	return 1;
}

static void on_job(struct rf_req *req, int rc, const struct br_err *err)
{
	struct rf_bmc *bmc = req->bmc;
	struct rf_cfg_node *cn = bmc->cfg;
	json_t *doc = answer(req, rc, err, "polling the job");
	const char *state;
	int64_t now = br_now_ms();

	if (!doc)
		return;
	/* a Dell job has JobState, a DMTF Task TaskState */
	state = br_json_str(doc, "JobState");
	if (!state)
		state = br_json_str(doc, "TaskState");
	set_text(&cn->res.job_state, state);
	set_text(&cn->res.job_message, br_json_str(doc, "Message"));
	if (state && !strcmp(state, "Completed")) {
		rf_cfg_release_reset(bmc);
		cn->verifying = 1;
		get(bmc, cn->bios_url, "verifying the BIOS", on_bios);
	} else if (state && (strstr(state, "Fail") || strstr(state, "Error") || !strcmp(state, "Exception") ||
			     !strcmp(state, "Killed") || !strcmp(state, "Cancelled"))) {
		rf_bmc_failf(bmc, BR_E_STATE, "BIOS job %s %s: %s", cn->res.job, state,
			     cn->res.job_message ? cn->res.job_message : "(no message)");
	} else if (now >= cn->deadline_ms) {
		rf_bmc_failf(bmc, RF_E_NOT_APPLIED, "BIOS job %s still %s %lld s after the reset",
			     cn->res.job, state ? state : "(no state)",
			     (long long)(now - cn->reset_ms) / 1000);
	} else if (!(state && !strcmp(state, "Scheduled") && forced_after_graceful(bmc, now))) {
		poll_job(bmc, now + cn->run->o->poll_ms);
	}
	json_decref(doc);
}

static void poll_job(struct rf_bmc *bmc, int64_t due_ms)
{
	bmc->cfg->step = "waiting for the BIOS job";
	rf_req_submit_at(rf_req_new(bmc, RF_GET, bmc->cfg->job_url, PRIO, on_job), due_ms);
}

/* No job: a pending boot order is applied by the boot itself. Read the
 * System until it shows, escalating a GracefulRestart nothing came of. */
static void on_boot_poll(struct rf_req *req, int rc, const struct br_err *err)
{
	struct rf_bmc *bmc = req->bmc;
	struct rf_cfg_node *cn = bmc->cfg;
	json_t *doc = answer(req, rc, err, "reading the System after the reset"), *patch = NULL;
	char *current = NULL, *wanted = NULL;
	int64_t now = br_now_ms();
	int plan;

	if (!doc)
		return;
	keep_system(bmc, req, doc);
	plan = rf_cfg_boot_plan(cn->system, cn->attrs, cn->spec, &patch, &current, &wanted, NULL);
	json_decref(patch);
	if (plan <= 0) {
		rf_cfg_release_reset(bmc);
		boot_step(bmc); /* done, or the reason why not */
	} else if (now >= cn->deadline_ms) {
		rf_bmc_failf(bmc, RF_E_NOT_APPLIED, "boot order still %s (want %s) %lld s after the reset",
			     current, wanted, (long long)(now - cn->reset_ms) / 1000);
	} else if (!forced_after_graceful(bmc, now)) {
		poll_boot(bmc, now + cn->run->o->poll_ms);
	}
	free(current);
	free(wanted);
}

static void poll_boot(struct rf_bmc *bmc, int64_t due_ms)
{
	bmc->cfg->step = "waiting for the pending boot order";
	rf_req_submit_at(rf_req_new(bmc, RF_GET, bmc->cfg->system_url, PRIO, on_boot_poll), due_ms);
}

static void verify_bios(struct rf_bmc *bmc);

/* No job: the BIOS takes the settings object while it boots. Read the Bios
 * until the values show, escalating a GracefulRestart nothing came of. */
static void on_settings_poll(struct rf_req *req, int rc, const struct br_err *err)
{
	struct rf_bmc *bmc = req->bmc;
	struct rf_cfg_node *cn = bmc->cfg;
	json_t *doc = answer(req, rc, err, "reading the Bios after the reset"), *attrs;
	struct rf_config_change *c = NULL;
	size_t n = 0;
	int64_t now = br_now_ms();

	if (!doc)
		return;
	attrs = json_object_get(doc, "Attributes");
	if (json_is_object(attrs)) {
		json_decref(cn->attrs);
		cn->attrs = json_incref(attrs);
		rf_cfg_bios_diff(cn->attrs, cn->spec, &c, &n);
	}
	if (json_is_object(attrs) && !n) {
		rf_cfg_release_reset(bmc);
		cn->verifying = 1;
		verify_bios(bmc);
	} else if (now >= cn->deadline_ms) {
		verify_bios(bmc); /* says what still differs */
	} else if (!forced_after_graceful(bmc, now)) {
		poll_settings(bmc, now + cn->run->o->poll_ms);
	}
	rf_cfg_changes_free(c, n);
	json_decref(doc);
}

static void poll_settings(struct rf_bmc *bmc, int64_t due_ms)
{
	bmc->cfg->step = "waiting for the BIOS to apply its settings";
	rf_req_submit_at(rf_req_new(bmc, RF_GET, bmc->cfg->bios_url, PRIO, on_settings_poll), due_ms);
}

/* No config job on this BMC: the reset applies the settings object. */
static void apply_at_reset(struct rf_bmc *bmc)
{
	struct rf_cfg_node *cn = bmc->cfg;

	cn->settings_apply = 1;
	free(cn->job_url);
	cn->job_url = NULL;
	rf_cfg_want_reset(bmc);
}

static void have_job(struct rf_bmc *bmc, const char *link)
{
	struct rf_cfg_node *cn = bmc->cfg;
	const char *slash;

	if (!(cn->job_url = rf_resolve(bmc, link))) {
		rf_bmc_failf(bmc, BR_E_PROTO, "the config job %s is not on this BMC", link);
		return;
	}
	slash = strrchr(link, '/');
	cn->res.job = br_xstrdup(slash ? slash + 1 : link);
	rf_cfg_want_reset(bmc);
}

static void on_job_created(struct rf_req *req, int rc, const struct br_err *err)
{
	json_t *doc = NULL;
	const char *link = req->location;

	if (rc) {
		rf_bmc_fail_request(req->bmc, req, "creating the config job", err);
		return;
	}
	if (!link) {
		doc = br_json_parse(req->http.body.data, req->http.body.len, RF_BODY_MAX, NULL);
		link = br_json_str(doc, "@odata.id");
	}
	if (link)
		have_job(req->bmc, link);
	else
		rf_bmc_failf(req->bmc, BR_E_PROTO, "the Jobs POST answered without a Location");
	json_decref(doc);
}

static void on_manager(struct rf_req *req, int rc, const struct br_err *err)
{
	static const char *const paths[] = { "Links/Oem/Dell/Jobs/@odata.id", "Oem/Dell/Jobs/@odata.id",
					     "Jobs/@odata.id" };
	struct rf_bmc *bmc = req->bmc;
	struct rf_cfg_node *cn = bmc->cfg;
	json_t *doc = answer(req, rc, err, "reading the Manager");
	char *jobs = NULL;

	if (!doc)
		return;
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]) && !jobs; i++)
		if (br_json_str(doc, paths[i]))
			jobs = need_link(bmc, doc, paths[i], "Jobs");
	if (!jobs && !bmc->failed)
		apply_at_reset(bmc);
	if (jobs) {
		/* iDRAC wants the settings URI as the System linked it */
		struct rf_req *post =
		    send_body(bmc, RF_POST, jobs, json_pack("{s:s}", "TargetSettingsURI", cn->settings_link),
			      NULL, "creating the config job", on_job_created);

		post->no_retry_transport = 1;
		rf_req_submit(post);
	}
	free(jobs);
	json_decref(doc);
}

/* ---- the BIOS --------------------------------------------------------------- */

static void on_patch(struct rf_req *req, int rc, const struct br_err *err)
{
	struct rf_bmc *bmc = req->bmc;
	struct rf_cfg_node *cn = bmc->cfg;

	if (rc && req->http.status == 412 && !cn->retried_412) {
		/* someone changed the pending settings between our GET and PATCH */
		cn->retried_412 = 1;
		get(bmc, cn->settings_url, "re-reading the BIOS settings (412)", on_settings);
		return;
	}
	if (rc) {
		rf_bmc_fail_request(bmc, req, "BIOS settings PATCH", err);
		return;
	}
	cn->res.bios_patched++;
	/* iDRAC9 4.x+ makes the job itself and says where */
	if (req->location)
		have_job(bmc, req->location);
	else if (cn->manager_url)
		get(bmc, cn->manager_url, "finding the Jobs collection", on_manager);
	else
		apply_at_reset(bmc);
}

static void on_settings(struct rf_req *req, int rc, const struct br_err *err)
{
	struct rf_bmc *bmc = req->bmc;
	struct rf_cfg_node *cn = bmc->cfg;
	json_t *doc = answer(req, rc, err, "reading the BIOS settings"), *body;
	const char *etag;
	struct br_err e = { 0 };

	if (!doc)
		return;
	etag = req->etag ? req->etag : br_json_str(doc, "@odata.etag");
	body = rf_cfg_bios_patch(cn->attrs, cn->res.bios, cn->res.n_bios, &e);
	/* A BMC that does not list OnReset among SupportedApplyTimes may refuse
	 * the annotation (DSP0266, "Settings resource": SupportedApplyTimes
	 * says which apply times the client may request). */
	if (body && !cn->apply_on_reset)
		json_object_del(body, "@Redfish.SettingsApplyTime");
	if (!body)
		rf_bmc_fail(bmc, &e);
	else
		rf_req_submit(send_body(bmc, RF_PATCH, cn->settings_url, body, etag,
					"PATCHing the BIOS settings", on_patch));
	json_decref(doc);
}

static void verify_bios(struct rf_bmc *bmc)
{
	struct rf_cfg_node *cn = bmc->cfg;
	struct rf_config_change *c = NULL;
	size_t n = 0;

	rf_cfg_bios_diff(cn->attrs, cn->spec, &c, &n);
	if (n)
		rf_bmc_failf(bmc, BR_E_STATE, "after %s%s the BIOS still has %s=%s (want %s)%s",
			     cn->res.job ? "job " : "the reset", cn->res.job ? cn->res.job : "", c[0].name,
			     c[0].current ? c[0].current : "(absent)", c[0].wanted, n > 1 ? " and more" : "");
	else
		get(bmc, cn->system_url, "verifying the boot order", on_system_again);
	rf_cfg_changes_free(c, n);
}

/* ---- an earlier run's job -------------------------------------------------- */

/* Members of the Jobs collection read when looking for a config job an
 * interrupted run left behind: the newest, where iDRAC appends them. */
#define JOBS_SCAN_MAX 8

/* The System as first read decides what comes next (no job pending). */
static void change(struct rf_bmc *bmc)
{
	struct rf_cfg_node *cn = bmc->cfg;

	if (cn->res.n_bios && cn->res.boot_current && boot_pending_kind(cn))
		boot_step(bmc); /* the boot order first: the BIOS job's reset applies both */
	else if (cn->res.n_bios)
		get(bmc, cn->settings_url, "reading the BIOS settings", on_settings);
	else
		boot_step(bmc);
}

/* A config job that has not ended: Dell's JobState, or a DMTF TaskState.
 * *ret_running when the BIOS is applying it now (no reset wanted). */
static int job_unfinished(json_t *job, int *ret_running)
{
	static const char *const waiting[] = { "Scheduled",  "Scheduling",	 "New", "Pending", "Waiting",
					       "Downloaded", "ReadyForExecution" };
	const char *type = br_json_str(job, "JobType"), *name = br_json_str(job, "Name");
	const char *state = br_json_str(job, "JobState");

	if (!state)
		state = br_json_str(job, "TaskState");
	if (!state || !(type ? !strcmp(type, "BIOSConfiguration") : name && strstr(name, "BIOS.Setup")))
		return 0;
	*ret_running = !strcmp(state, "Running") || !strcmp(state, "Starting");
	if (*ret_running)
		return 1;
	for (size_t i = 0; i < sizeof(waiting) / sizeof(waiting[0]); i++)
		if (!strcmp(state, waiting[i]))
			return 1;
	return 0;
}

static void on_old_job(struct rf_req *req, int rc, const struct br_err *err)
{
	struct rf_bmc *bmc = req->bmc;
	struct rf_cfg_node *cn = bmc->cfg;
	json_t *doc = rc ? NULL : rf_req_json(req);
	const char *slash;
	int running = 0;

	cn->jobs_to_read--;
	if (!cn->job_url && job_unfinished(doc, &running)) {
		/* a rerun after an interruption: a second PATCH would make a
		 * second job, and its reset would cut into this one's POST */
		cn->job_url = br_xstrdup(req->url);
		slash = strrchr(req->url, '/');
		cn->res.job = br_xstrdup(slash ? slash + 1 : req->url);
		cn->job_running = running;
		br_info("configure", "%s: BIOS job %s of an earlier run is %s: waiting for it",
			bmc->target->name, cn->res.job, running ? "running" : "scheduled");
	}
	json_decref(doc);
	if (cn->jobs_to_read > 0 || bmc->failed)
		return;
	if (cn->job_url)
		rf_cfg_want_reset(bmc);
	else
		change(bmc);
}

static void on_old_jobs(struct rf_req *req, int rc, const struct br_err *err)
{
	struct rf_bmc *bmc = req->bmc;
	struct rf_cfg_node *cn = bmc->cfg;
	json_t *doc = answer(req, rc, err, "reading the Jobs collection"), *members;
	size_t n, first;

	if (!doc)
		return;
	members = json_object_get(doc, "Members");
	n = json_is_array(members) ? json_array_size(members) : 0;
	first = n > JOBS_SCAN_MAX ? n - JOBS_SCAN_MAX : 0;
	for (size_t i = first; i < n; i++) {
		const char *link = br_json_str(json_array_get(members, i), "@odata.id");
		char *url = link ? rf_resolve(bmc, link) : NULL;

		if (url) {
			cn->jobs_to_read++;
			get(bmc, url, "looking for an earlier run's BIOS job", on_old_job);
			free(url);
		}
	}
	if (!cn->jobs_to_read && !bmc->failed)
		change(bmc);
	json_decref(doc);
}

static void on_manager_jobs(struct rf_req *req, int rc, const struct br_err *err)
{
	static const char *const paths[] = { "Links/Oem/Dell/Jobs/@odata.id", "Oem/Dell/Jobs/@odata.id",
					     "Jobs/@odata.id" };
	struct rf_bmc *bmc = req->bmc;
	json_t *doc = answer(req, rc, err, "reading the Manager");
	const char *link = NULL;
	char *url;

	if (!doc)
		return;
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]) && !link; i++)
		link = br_json_str(doc, paths[i]);
	url = link ? rf_resolve(bmc, link) : NULL;
	if (url)
		get(bmc, url, "looking for an earlier run's BIOS job", on_old_jobs);
	else
		change(bmc); /* no job queue to look in */
	free(url);
	json_decref(doc);
}

/* The baseline names attributes this BIOS does not have (another family's
 * names): say which, and write nothing. Never PATCHed: a BMC may take an
 * unknown name silently, or refuse the whole PATCH half-way through. */
static int absent_attributes(struct rf_bmc *bmc)
{
	struct rf_cfg_node *cn = bmc->cfg;
	struct br_buf b;
	size_t absent = 0;

	br_buf_init(&b, 0);
	br_buf_adds(&b, "unsupported on this BMC: ");
	for (size_t i = 0; i < cn->res.n_bios; i++)
		if (!cn->res.bios[i].current && absent++ < 8)
			br_buf_addf(&b, "%sattribute %s not present", absent > 1 ? ", " : "",
				    cn->res.bios[i].name);
	if (absent > 8)
		br_buf_addf(&b, " and %zu more", absent - 8);
	if (absent)
		rf_bmc_failf(bmc, BR_E_UNSUPPORTED, "%s (on a %s)", br_buf_str(&b),
			     br_json_str(cn->system, "Model") ? br_json_str(cn->system, "Model") : "?");
	br_buf_release(&b);
	return absent > 0;
}

/* The diff, and the boot plan for a dry run's report. */
static void first_look(struct rf_bmc *bmc)
{
	struct rf_cfg_node *cn = bmc->cfg;
	json_t *patch = NULL, *list;
	struct br_err e = { 0 };
	int plan;

	rf_cfg_bios_diff(cn->attrs, cn->spec, &cn->res.bios, &cn->res.n_bios);
	if (absent_attributes(bmc))
		return;
	plan = rf_cfg_boot_plan(cn->system, cn->attrs, cn->spec, &patch, &cn->res.boot_current,
				&cn->res.boot_wanted, &e);
	json_decref(patch);
	if (plan < 0) {
		rf_bmc_fail(bmc, &e);
		return;
	}
	cn->restart_type = restart_type(cn->system);
	if (!cn->run->o->dry_run && cn->res.n_bios && !cn->restart_type) {
		char *text = NULL;

		list = br_json_path(cn->system,
				    "Actions/#ComputerSystem.Reset/ResetType@Redfish.AllowableValues");
		text = json_dumps(list, JSON_COMPACT | JSON_ENCODE_ANY);
		rf_bmc_failf(bmc, BR_E_UNSUPPORTED,
			     "unsupported on this BMC: no restart among ResetType@Redfish.AllowableValues %s",
			     text ? text : "[]");
		free(text);
		return;
	}
	if (cn->run->o->dry_run)
		finish(bmc);
	else if (cn->res.n_bios && cn->manager_url)
		/* BIOS off baseline: is a job of ours already on its way? */
		get(bmc, cn->manager_url, "looking for an earlier run's BIOS job", on_manager_jobs);
	else
		change(bmc);
}

static void on_bios(struct rf_req *req, int rc, const struct br_err *err)
{
	struct rf_bmc *bmc = req->bmc;
	struct rf_cfg_node *cn = bmc->cfg;
	json_t *doc = answer(req, rc, err, "reading the Bios"), *attrs;

	if (!doc)
		return;
	attrs = json_object_get(doc, "Attributes");
	if (!json_is_object(attrs)) {
		rf_bmc_failf(bmc, BR_E_PROTO, "GET %s: no Attributes", req->url);
		json_decref(doc);
		return;
	}
	json_decref(cn->attrs);
	cn->attrs = json_incref(attrs);
	cn->apply_on_reset = 0;
	{
		json_t *times = br_json_path(doc, "@Redfish.Settings/SupportedApplyTimes"), *t;
		size_t i;

		json_array_foreach(times, i,
				   t) if (json_is_string(t) && !strcmp(json_string_value(t), "OnReset"))
		    cn->apply_on_reset = 1;
	}
	if (!cn->settings_url) {
		cn->settings_url =
		    need_link(bmc, doc, "@Redfish.Settings/SettingsObject/@odata.id", "BIOS settings");
		if (cn->settings_url)
			cn->settings_link =
			    br_xstrdup(br_json_str(doc, "@Redfish.Settings/SettingsObject/@odata.id"));
	}
	if (!bmc->failed) {
		if (cn->verifying)
			verify_bios(bmc);
		else
			first_look(bmc);
	}
	json_decref(doc);
}

/* ---- the System ------------------------------------------------------------ */

static void on_system(struct rf_req *req, int rc, const struct br_err *err)
{
	struct rf_bmc *bmc = req->bmc;
	struct rf_cfg_node *cn = bmc->cfg;
	json_t *doc = answer(req, rc, err, "reading the System");
	const char *settings, *manager;

	if (!doc)
		return;
	keep_system(bmc, req, doc);
	cn->system_url = br_xstrdup(req->url);
	/* iDRAC10 takes boot changes on the System's own settings object */
	settings = br_json_str(doc, "@Redfish.Settings/SettingsObject/@odata.id");
	cn->boot_url = settings ? rf_resolve(bmc, settings) : NULL;
	if (!cn->boot_url)
		cn->boot_url = br_xstrdup(cn->system_url);
	manager = br_json_str(json_array_get(br_json_path(doc, "Links/ManagedBy"), 0), "@odata.id");
	cn->manager_url = manager ? rf_resolve(bmc, manager) : NULL;
	cn->bios_url = need_link(bmc, doc, "Bios/@odata.id", "Bios");
	if (cn->bios_url && !cn->run->o->dry_run)
		cn->reset_url =
		    need_link(bmc, doc, "Actions/#ComputerSystem.Reset/target", "ComputerSystem.Reset");
	if (!bmc->failed)
		get(bmc, cn->bios_url, "reading the Bios", on_bios);
}

/* Systems read to find the host among several (a GPU baseboard or DPUs
 * beside it); a BMC listing more manages a chassis of hosts. */
#define CFG_SYSTEMS_MAX 8

/* One of several Systems. The host is chosen as discovery chose it
 * (rf_choose_host): the System the manifest names where one BMC manages
 * several hosts, else the one that can be a host (NVIDIA's
 * HGX_Baseboard_0 beside an OpenBMC host cannot), so configure sets the
 * BIOS of the machine whose MACs and serial discovery stored. */
static void on_candidate(struct rf_req *req, int rc, const struct br_err *err)
{
	struct rf_bmc *bmc = req->bmc;
	struct rf_cfg_node *cn = bmc->cfg;
	json_t *doc = answer(req, rc, err, "reading a System"), *host;
	struct br_err why = { 0 };
	char *url;

	cn->systems_to_read--;
	if (doc) {
		json_array_append_new(cn->candidates, doc);
	}
	if (cn->systems_to_read > 0 || bmc->failed)
		return;
	host = rf_choose_host(cn->candidates, bmc->target->system, &why);
	if (!host) {
		rf_bmc_failf(bmc, why.code ? why.code : BR_E_UNSUPPORTED, "%s", why.msg);
		return;
	}
	if ((url = need_link(bmc, host, "@odata.id", "System"))) {
		get(bmc, url, "reading the System", on_system);
		free(url);
	}
}

static void on_systems(struct rf_req *req, int rc, const struct br_err *err)
{
	struct rf_bmc *bmc = req->bmc;
	json_t *doc = answer(req, rc, err, "reading Systems"), *members;
	size_t n;
	char *url;

	if (!doc)
		return;
	members = json_object_get(doc, "Members");
	n = json_is_array(members) ? json_array_size(members) : 0;
	if (n == 0 || n > CFG_SYSTEMS_MAX) {
		rf_bmc_failf(bmc, BR_E_UNSUPPORTED,
			     "unsupported on this BMC: GET %s: %zu Systems (1 to %d handled)", req->url, n,
			     CFG_SYSTEMS_MAX);
	} else if (n == 1) {
		if ((url = need_link(bmc, json_array_get(members, 0), "@odata.id", "System"))) {
			get(bmc, url, "reading the System", on_system);
			free(url);
		}
	} else {
		bmc->cfg->candidates = json_array();
		for (size_t i = 0; i < n && !bmc->failed; i++)
			if ((url = need_link(bmc, json_array_get(members, i), "@odata.id", "System"))) {
				bmc->cfg->systems_to_read++;
				get(bmc, url, "choosing the host System", on_candidate);
				free(url);
			}
	}
	json_decref(doc);
}

void rf_cfg_begin(struct rf_bmc *bmc)
{
	char *url = need_link(bmc, bmc->root, "Systems/@odata.id", "Systems");

	if (url)
		get(bmc, url, "reading Systems", on_systems);
	free(url);
}
