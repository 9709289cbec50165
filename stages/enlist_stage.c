/*
 * enlist_stage — the enlist stage's run (enlist.h): MAAS checked first, every
 * node prepared, the flow (enlist_flow.c) over the enlist workers
 * (stages/workers.h), each node's outcome stored by its worker and counted
 * here, and the report.
 */
#include <stdlib.h>
#include <string.h>

#include "stages/workers.h"
#include "bmcopts.h"
#include "discover.h"
#include "enlist.h"

/* One worker's side (this process's, with one worker): the flow's
 * callbacks store through its inventory connection and send each node's
 * outcome to the parent. */
struct worker {
	struct stg_enlist_stage *run;
	struct br_pool_worker *w;
	struct inv *inv;
};

/* A write of c's that failed: logged; kept for the parent when it is the
 * inventory's own failure (a full disk), not the node's. */
static void unwritten(struct stg_enlist_node *c, const struct br_err *err)
{
	br_error("enlist", "%s: %s", c->node->hostname, err->msg);
	if (stg_inventory_refused(err) && !c->unrecorded)
		c->unrecorded = br_xstrdup(err->msg);
}

static int record(struct inv *inv, struct stg_enlist_node *c, enum inv_state to, enum br_fail_kind kind,
		  const char *reason)
{
	struct br_err err = { 0 };
	int rc = to == INV_FAILED
		     ? inv_node_fail(inv, c->node->hostname, c->node->state, kind, reason, &err)
		     : inv_node_set_state(inv, c->node->hostname, c->node->state, to, reason, &err);

	if (rc)
		unwritten(c, &err);
	else
		c->node->state = to; /* the state the next change compares with */
	return rc;
}

/* The outcome counted and shown, here; the worker has stored it. */
static void finish(struct stg_enlist_stage *run, struct stg_enlist_node *c, int ok, const char *reason)
{
	free(c->reason);
	c->reason = br_xstrdup(reason);
	c->result = ok ? "deployed" : "failed";
	run->done++;
	run->failed += !ok;
	br_progress_item_done(&run->progress, (size_t)(c - run->ctx), ok);
}

static void on_system_id(void *ctx, struct stg_enlist_job *job)
{
	struct worker *wk = ctx;
	struct stg_enlist_node *c = job->user_data;
	struct br_err err = { 0 };

	if (inv_node_set_maas(wk->inv, c->node->hostname, job->system_id, NULL, &err)) {
		unwritten(c, &err);
		/* the lease lost (inventory.h, fencing): hands off the machine */
		job->lost = err.code == BR_E_STATE;
	}
}

static void on_ready(void *ctx, struct stg_enlist_job *job)
{
	struct worker *wk = ctx;
	struct stg_enlist_node *c = job->user_data;
	char *reason =
	    br_xasprintf("commissioned in MAAS as %s; boot disk %s", job->system_id, job->boot_disk_serial);

	/* Refused (the lease lost, another run moved it): not deployed here. */
	job->lost = record(wk->inv, c, INV_ENLISTED, BR_FAIL_NONE, reason) == BR_E_STATE;
	free(reason);
}

static void on_done(void *ctx, struct stg_enlist_job *job, enum br_fail_kind kind, const char *reason)
{
	int ok = kind == BR_FAIL_NONE;
	struct worker *wk = ctx;
	struct stg_enlist_node *c = job->user_data;
	struct br_err err = { 0 };
	char *text = br_xstrdup_capped(reason, STG_WORKER_TEXT_MAX);
	json_t *line;

	if (ok && (inv_node_set_maas(wk->inv, c->node->hostname, job->system_id, job->ip, &err) ||
		   inv_node_set_installed_disk(wk->inv, c->node->hostname, job->installed_serial, &err))) {
		unwritten(c, &err);
		/* The lease lost (inventory.h, fencing), or another run moved
		 * the node: deployed, but not this stage's to report. */
		if (err.code == BR_E_STATE) {
			char *why = br_xasprintf("no longer this stage's node: %s", err.msg);

			ok = 0;
			free(text);
			text = br_xstrdup_capped(why, STG_WORKER_TEXT_MAX);
			free(why);
		}
	}
	if (!ok)
		br_log_node(BR_LOG_WARN, "enlist", c->node->hostname, c->node->bmc, "%s", reason);
	if (err.code != BR_E_STATE) /* nothing more is this stage's to write */
		record(wk->inv, c, ok ? INV_DEPLOYED : INV_FAILED, kind, reason);
	line = json_pack("{s:b, s:s, s:o, s:o, s:o}", "ok", ok, "text", text, "system_id",
			 br_json_string_or_null(job->system_id), "ip", br_json_string_or_null(job->ip),
			 "installed_serial", br_json_string_or_null(job->installed_serial));
	if (!line) /* not UTF-8: keep the outcome, lose the words */
		line = json_pack("{s:b, s:s}", "ok", ok, "text", "(reason not encodable)");
	if (c->unrecorded)
		json_object_set_new(line, "unrecorded", json_string(c->unrecorded));
	free(text);
	br_pool_send(wk->w, (size_t)(job - wk->run->jobs), line);
}

/* In a worker: the flow over jobs [first, first + count), on a MAAS client
 * of its own. A job finished before the run (its node could not be
 * prepared) is counted here already: its line says so. */
static int work(struct br_pool_worker *w, size_t first, size_t count, void *ctx, struct br_err *err)
{
	struct stg_enlist_stage *run = ctx;
	const struct stg_enlist_callbacks cb = { on_system_id, on_ready, on_done };
	struct worker wk = { run, w, stg_pool_inv(w) };
	struct maas_options mo = run->mo;
	struct stg_enlist_options eo = run->eo;
	struct maas_client *client = NULL;
	int rc;

	/* A later run takes each machine up where MAAS has it, as after a
	 * killed enlist. */
	br_pool_end_with_parent(w);
	for (size_t i = first; i < first + count; i++)
		if (run->jobs[i].done)
			br_pool_send(w, i, json_pack("{s:b}", "prepared", 0));
	mo.max_inflight = (int)br_pool_share(w, run->mo.max_inflight);
	eo.max_parallel = (int)br_pool_share(w, run->eo.max_parallel);
	rc = maas_client_new(&mo, &client, err);
	if (rc)
		return rc;
	rc = stg_enlist_run(client, run->jobs + first, count, &eo, &cb, &wk, err);
	maas_client_free(client);
	return rc;
}

/* Replace a result field with the worker's, unless it is that already (the
 * flow wrote it here, with one worker). */
static void take_field(char **field, json_t *line, const char *key)
{
	const char *v = json_string_value(json_object_get(line, key));

	if (!v || (*field && !strcmp(*field, v)))
		return;
	free(*field);
	*field = br_xstrdup(v);
}

/* Here: job i's outcome from its worker, or why its worker sent none (the
 * node is failed with that reason, from the state the worker left). */
static void done(size_t i, json_t *line, int rc, const char *why, void *ctx)
{
	struct stg_enlist_stage *run = ctx;
	struct stg_enlist_node *c = &run->ctx[i];
	struct stg_enlist_job *j = &run->jobs[i];
	struct inv_node now = { 0 };
	struct br_err err = { 0 };
	json_t *ok = json_object_get(line, "ok");

	if (json_is_false(json_object_get(line, "prepared")))
		return;
	if (line && json_is_string(json_object_get(line, "unrecorded"))) {
		free(c->unrecorded);
		c->unrecorded = br_xstrdup(json_string_value(json_object_get(line, "unrecorded")));
	}
	if (line && json_is_boolean(ok)) {
		take_field(&j->system_id, line, "system_id");
		take_field(&j->ip, line, "ip");
		take_field(&j->installed_serial, line, "installed_serial");
		finish(run, c, json_is_true(ok), json_string_value(json_object_get(line, "text")));
		return;
	}
	if (!line)
		why = why ? why : br_strerror(rc);
	else
		why = "the enlist worker sent a result without its outcome";
	br_log_node(BR_LOG_WARN, "enlist", c->node->hostname, c->node->bmc, "%s", why);
	if (!inv_node_get(*run->inv, c->node->hostname, &now, &err)) {
		c->node->state = now.state;
		inv_node_release(&now);
	}
	record(*run->inv, c, INV_FAILED, BR_FAIL_WORKER, why);
	finish(run, c, 0, why);
}

/* Fill job i from its node; a node that cannot be prepared is failed. */
static int prepare(struct stg_enlist_stage *run, size_t i, struct stg_enlist_inputs *in)
{
	struct stg_enlist_node *c = &run->ctx[i];
	struct stg_enlist_job *j = &run->jobs[i];
	struct br_err err = { 0 };

	if (stg_enlist_node_prepare(*run->inv, c->node, in, &c->in, &err)) {
		br_log_node(BR_LOG_WARN, "enlist", c->node->hostname, c->node->bmc, "%s", err.msg);
		record(*run->inv, c, INV_FAILED, c->in.fail_kind, err.msg);
		finish(run, c, 0, err.msg);
		return -1;
	}
	br_log_node(BR_LOG_INFO, "enlist", c->node->hostname, c->node->bmc, "boot disk %s, by %s",
		    c->in.boot_disk_serial, c->in.boot_disk_why);
	*j = (struct stg_enlist_job){ .hostname = c->node->hostname,
				      .macs = &c->in.macs,
				      .power_address = c->node->bmc,
				      .bmc_type = c->node->bmc_type,
				      .power_user = c->node->bmc_user,
				      .power_pass = c->in.power_pass,
				      .boot_disk_serial = c->in.boot_disk_serial,
				      .boot_disk_why = c->in.boot_disk_why,
				      .user_data_b64 = c->in.user_data_b64,
				      .commission_limit_ms = c->in.commissioning_s * 1000,
				      .deploy_limit_ms = c->in.deployment_s * 1000,
				      .user_data = c };
	if (c->node->maas_system_id)
		j->system_id = br_xstrdup(c->node->maas_system_id);
	return 0;
}

json_t *stg_enlist_stage_json(const void *ctx)
{
	const struct stg_enlist_stage *run = ctx;
	json_t *arr = json_array();

	for (size_t i = 0; i < run->n; i++) {
		const struct stg_enlist_node *c = &run->ctx[i];
		const struct stg_enlist_job *j = &run->jobs[i];

		json_array_append_new(
		    arr, json_pack("{s:s, s:s, s:o, s:o, s:o, s:o, s:o}", "hostname", c->node->hostname,
				   "result", c->result ? c->result : "skipped", "system_id",
				   br_json_string_or_null(j->system_id), "ip", br_json_string_or_null(j->ip),
				   "boot_disk_serial", br_json_string_or_null(c->in.boot_disk_serial),
				   "installed_serial", br_json_string_or_null(j->installed_serial), "reason",
				   br_json_string_or_null(c->reason)));
	}
	return json_pack("{s:o, s:I, s:I, s:I}", "nodes", arr, "deployed",
			 (json_int_t)(run->done - run->failed), "failed", (json_int_t)run->failed,
			 "not_recorded", (json_int_t)run->unrecorded);
}

void stg_enlist_stage_print(const void *ctx)
{
	static const char *const headers[] = {
		"HOSTNAME", "RESULT", "SYSTEM_ID", "IP", "BOOT DISK", "REASON"
	};
	const struct stg_enlist_stage *run = ctx;
	struct br_table t;

	br_table_init(&t, 6, headers);
	for (size_t i = 0; i < run->n; i++) {
		const struct stg_enlist_node *c = &run->ctx[i];

		br_table_add(&t, (const char *const[]){
				     c->node->hostname, c->result, run->jobs[i].system_id, run->jobs[i].ip,
				     c->in.boot_disk_serial,
				     c->result && !strcmp(c->result, "deployed") ? NULL : c->reason });
	}
	br_table_print(&t, stdout);
	br_table_release(&t);
	printf("\n%zu deployed, %zu failed", run->done - run->failed, run->failed);
	if (run->unrecorded)
		printf("; %zu of them not recorded (the inventory refused them: %s)", run->unrecorded,
		       run->inventory_error);
	printf("\n");
}

/* The nodes this run works: those named, or those picked by state but for
 * failed nodes MAAS never saw that did not fail in enlist (one that failed
 * discovery keeps its reason). One enlist failed before its machine existed
 * (MAAS refused or was down when it was created: issue 29, finding 8) is
 * enlist's to take up again, or a rerun of enlist left it stranded. */
int stg_enlist_stage_takes(const struct stg_stage *st, const struct inv_node *node)
{
	const char *failed_in;

	if (st->argi < st->argc || node->state != INV_FAILED || node->maas_system_id)
		return 1;
	failed_in = st->inv ? stg_failed_in(st->inv, node, 0) : NULL;
	return failed_in && !strcmp(failed_in, "enlist");
}

/* The key resolved into *ret_key (kept for the workers' clients: the
 * caller frees it with br_secret_free) and MAAS asked who we are, on a
 * client closed again before any worker starts. */
static int open_maas(struct stg_stage *st, struct stg_maas_opts *o, struct maas_options *mo)
{
	struct maas_client *client = NULL;
	struct br_err err = { 0 };
	int rc;

	if (!o->url || !*o->url)
		return stg_stage_usage(st, "no MAAS URL: set MAAS_URL or pass --maas-url");
	if (!stg_maas_url_is_api_root(o->url))
		return stg_stage_usage(st,
				       "MAAS URL '%s' does not end in /MAAS/: MAAS serves its API under "
				       "http://HOST:5240/MAAS/ (the URL 'maas login' takes)",
				       o->url);
	if (stg_maas_opts_key(o, &err))
		return stg_stage_usage(st, "MAAS API key: %s", err.msg);
	stg_maas_opts_apply(o, mo);
	rc = maas_client_new(mo, &client, &err);
	if (rc)
		return stg_stage_usage(st, "%s", err.msg);
	rc = maas_check_access(client, &err);
	maas_client_free(client);
	if (rc) {
		stg_stage_usage(st, "%s", err.msg);
		return st->exit = STG_EXIT_UNREACHABLE;
	}
	return 0;
}

/* Options, then what every node's user-data is made of (the SSH key, NTP
 * servers, packages): read before the inventory is opened. */
int stg_enlist_stage_check(struct stg_stage *st, struct stg_enlist_stage_options *a)
{
	char *templates;
	struct br_err err = { 0 };
	int rc;

	if (a->max_parallel < 1 || a->max_inflight < 1 || a->poll_ms < 10 || a->maas.timeout_s < 1 ||
	    a->retries < 0 || a->commission_timeout_s < 0 || a->deploy_timeout_s < 0)
		return stg_stage_usage(st, "counts and timeouts must be positive (--poll-ms at least 10)");
	if (a->workers < 0 || a->workers > STG_WORKERS_MAX)
		return stg_stage_usage(st, "--workers must be 0-%d", STG_WORKERS_MAX);
	if (a->no_ssh_key && a->pubkey && a->pubkey != a->pubkey_env)
		return stg_stage_usage(st, "--ssh-pubkey and --no-ssh-key: give one");
	/* Deployed without the validators' key, a node cannot be validated:
	 * every one would fail validate and be ticketed, for want of a flag. */
	if (!a->no_ssh_key && (!a->pubkey || !*a->pubkey))
		return stg_stage_usage(
		    st, "no SSH key for the nodes: --ssh-pubkey PATH or $BRINGUP_SSH_PUBKEY (the public half "
			"of the key validate logs in with), or --no-ssh-key to deploy nodes nobody can "
			"validate");
	templates = stg_templates_dir();
	if (!templates)
		return stg_stage_usage(st, "no templates directory (set BRINGUP_TEMPLATES)");
	rc = stg_enlist_inputs_load(&a->in, templates, a->no_ssh_key ? NULL : a->pubkey, &a->ntp,
				    &a->packages, &err);
	free(templates);
	if (rc)
		return stg_stage_usage(st, "%s", err.msg);
	return 0;
}

/* MAAS checked first (a wrong URL or key is exit 3 with every node as it
 * was), then every node prepared and driven to Deployed or a reason: by
 * worker processes each with a slice of the machines and a MAAS client of
 * its own where the rack is large (one process's loop parsing every
 * machine's 22 KB documents held each machine's next request back), else
 * in this process, by the same code. */
int stg_enlist_stage_run(struct stg_stage *st, struct stg_enlist_stage_options *a,
			 struct stg_enlist_stage *run)
{
	struct br_err err = { 0 };
	int workers, rc;

	maas_options_init(&run->mo);
	stg_maas_opts_apply(&a->maas, &run->mo);
	run->mo.max_inflight = a->max_inflight;
	run->mo.retries = a->retries;
	rc = stg_bmc_secrets_check(st, stg_enlist_stage_takes);
	if (!rc)
		rc = open_maas(st, &a->maas, &run->mo);
	if (rc)
		return rc;
	run->inv = &st->inv;
	run->jobs = br_xcalloc(st->n ? st->n : 1, sizeof(*run->jobs));
	run->ctx = br_xcalloc(st->n ? st->n : 1, sizeof(*run->ctx));
	br_progress_init(&run->progress, "enlist", st->n);
	for (size_t i = 0; i < st->n; i++) {
		if (!stg_enlist_stage_takes(st, &st->nodes[i]))
			continue;
		/* never a node whose cables failed before PXE, --force or not:
		 * discover judges them again once they are fixed */
		if (stg_cabling_bmc_failed(st->inv, st->nodes[i].id)) {
			br_warn("enlist",
				"%s: skipped: its cables failed the check before PXE (cabling_bmc); "
				"fix them and run discover again",
				st->nodes[i].hostname);
			continue;
		}
		run->ctx[run->n].node = &st->nodes[i];
		br_progress_item(&run->progress, run->n, st->nodes[i].hostname);
		/* A node that cannot be prepared is finished already. */
		if (prepare(run, run->n, &a->in))
			run->jobs[run->n].done = 1;
		run->n++;
	}
	run->progress.total = run->n;
	stg_enlist_options_init(&run->eo);
	run->eo.max_parallel = a->max_parallel;
	run->eo.poll_ms = a->poll_ms;
	/* An option given overrides every node's profile for this run. */
	for (size_t i = 0; i < run->n; i++) {
		if (a->commission_timeout_s)
			run->jobs[i].commission_limit_ms = 0;
		if (a->deploy_timeout_s)
			run->jobs[i].deploy_limit_ms = 0;
	}
	if (a->commission_timeout_s)
		run->eo.commission_timeout_ms = a->commission_timeout_s * 1000LL;
	if (a->deploy_timeout_s)
		run->eo.deploy_timeout_ms = a->deploy_timeout_s * 1000LL;
	run->eo.distro_series = a->distro;
	workers = a->workers ? a->workers : stg_workers_auto(run->n);
	/* Each worker's share of the caps is at least 1. */
	if (workers > a->max_parallel)
		workers = a->max_parallel;
	{
		const struct br_pool pool = { "enlist", "enlist", run->n, workers, 0, work, done, run, NULL };

		if (workers > 1)
			br_info("enlist", "%zu machines over %d worker processes", run->n,
				(size_t)workers < run->n ? workers : (int)run->n);
		fflush(stdout);
		rc = stg_pool_run(run->inv, &pool, &err);
	}
	if (rc)
		rc = stg_stage_fail(st, STG_EXIT_UNREACHABLE, "%s", err.msg);
	else
		br_progress_finish(&run->progress);
	for (size_t i = 0; i < run->n; i++) {
		if (!run->ctx[i].unrecorded)
			continue;
		run->unrecorded++;
		if (!run->inventory_error)
			run->inventory_error = br_xstrdup(run->ctx[i].unrecorded);
	}
	if (run->inventory_error)
		stg_stage_unwritable(st, run->unrecorded, run->inventory_error);
	return rc;
}

void stg_enlist_stage_run_release(struct stg_enlist_stage *run)
{
	br_progress_release(&run->progress);
	for (size_t i = 0; i < run->n; i++) {
		stg_enlist_job_release(&run->jobs[i]);
		stg_enlist_node_inputs_release(&run->ctx[i].in);
		free(run->ctx[i].reason);
		free(run->ctx[i].unrecorded);
	}
	free(run->inventory_error);
	free(run->jobs);
	free(run->ctx);
	memset(run, 0, sizeof(*run));
}

void stg_enlist_stage_release(struct stg_enlist_stage *run, struct stg_enlist_stage_options *a)
{
	stg_enlist_stage_run_release(run);
	stg_enlist_inputs_release(&a->in);
	stg_maas_opts_release(&a->maas);
	br_strlist_release(&a->ntp);
	br_strlist_release(&a->packages);
}
