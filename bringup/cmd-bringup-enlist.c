/*
 * bringup enlist: hand configured (or, with --skip-configure, discovered)
 * nodes to MAAS by the MACs discovery collected, commission them, pin the
 * install disk by serial, and deploy. Nodes end `deployed`, or `failed`
 * with MAAS's own words. MAAS unreachable or the key refused: exit 3 before
 * anything changes; no SSH key (unless --no-ssh-key), a MAAS URL or key
 * reference that cannot be right, a BMC password reference that does not
 * resolve: exit 2, as early.
 */
#include <stdlib.h>
#include <string.h>

#include "bmcopts.h"
#include "enlist.h"
#include "pool.h"
#include "stage.h"

struct job_ctx {
	struct inv_node *node;
	struct enlist_node_inputs in;
	const char *result;
	char *reason;
};

struct run {
	struct inv **inv; /* this process's (the stage's): reopened around the workers */
	struct enlist_job *jobs;
	struct job_ctx *ctx;
	size_t n, done, failed;
	struct br_progress progress;
	/* What each worker's MAAS client and flow are made of. */
	struct maas_options mo;
	struct enlist_options eo;
};

/* One worker's side (this process's, with one worker): the flow's
 * callbacks store through its inventory connection and send each node's
 * outcome to the parent. */
struct worker {
	struct run *run;
	struct br_pool_worker *w;
	struct inv *inv;
};

static void record(struct inv *inv, struct job_ctx *c, enum inv_state to, enum br_fail_kind kind,
		   const char *reason)
{
	struct br_err err = { 0 };
	int rc = to == INV_FAILED
		     ? inv_node_fail(inv, c->node->hostname, c->node->state, kind, reason, &err)
		     : inv_node_set_state(inv, c->node->hostname, c->node->state, to, reason, &err);

	if (rc)
		br_error("enlist", "%s: %s", c->node->hostname, err.msg);
	else
		c->node->state = to; /* the state the next change compares with */
}

/* The outcome counted and shown, here; the worker has stored it. */
static void finish(struct run *run, struct job_ctx *c, int ok, const char *reason)
{
	free(c->reason);
	c->reason = br_xstrdup(reason);
	c->result = ok ? "deployed" : "failed";
	run->done++;
	run->failed += !ok;
	br_progress_update(&run->progress, run->done, run->failed);
}

static void on_system_id(void *ctx, struct enlist_job *job)
{
	struct worker *wk = ctx;
	struct job_ctx *c = job->user_data;
	struct br_err err = { 0 };

	if (inv_node_set_maas(wk->inv, c->node->hostname, job->system_id, NULL, &err))
		br_error("enlist", "%s: %s", c->node->hostname, err.msg);
}

static void on_ready(void *ctx, struct enlist_job *job)
{
	struct worker *wk = ctx;
	struct job_ctx *c = job->user_data;
	char *reason =
	    br_xasprintf("commissioned in MAAS as %s; boot disk %s", job->system_id, job->boot_disk_serial);

	record(wk->inv, c, INV_ENLISTED, BR_FAIL_NONE, reason);
	free(reason);
}

static void on_done(void *ctx, struct enlist_job *job, enum br_fail_kind kind, const char *reason)
{
	int ok = kind == BR_FAIL_NONE;
	struct worker *wk = ctx;
	struct job_ctx *c = job->user_data;
	struct br_err err = { 0 };
	char *text = br_xstrdup_capped(reason, BR_WORKER_TEXT_MAX);
	json_t *line;

	if (ok && (inv_node_set_maas(wk->inv, c->node->hostname, job->system_id, job->ip, &err) ||
		   inv_node_set_installed_disk(wk->inv, c->node->hostname, job->installed_serial, &err)))
		br_error("enlist", "%s: %s", c->node->hostname, err.msg);
	if (!ok)
		br_warn("enlist", "%s: %s", c->node->hostname, reason);
	record(wk->inv, c, ok ? INV_DEPLOYED : INV_FAILED, kind, reason);
	line = json_pack("{s:b, s:s, s:o, s:o, s:o}", "ok", ok, "text", text, "system_id",
			 br_json_string_or_null(job->system_id), "ip", br_json_string_or_null(job->ip),
			 "installed_serial", br_json_string_or_null(job->installed_serial));
	if (!line) /* not UTF-8: keep the outcome, lose the words */
		line = json_pack("{s:b, s:s}", "ok", ok, "text", "(reason not encodable)");
	free(text);
	br_pool_send(wk->w, (size_t)(job - wk->run->jobs), line);
}

/* In a worker: the flow over jobs [first, first + count), on a MAAS client
 * of its own. A job finished before the run (its node could not be
 * prepared) is counted here already: its line says so. */
static int work(struct br_pool_worker *w, size_t first, size_t count, void *ctx, struct br_err *err)
{
	struct run *run = ctx;
	const struct enlist_callbacks cb = { on_system_id, on_ready, on_done };
	struct worker wk = { run, w, br_pool_inv(w) };
	struct maas_options mo = run->mo;
	struct enlist_options eo = run->eo;
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
	rc = enlist_run(client, run->jobs + first, count, &eo, &cb, &wk, err);
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
	struct run *run = ctx;
	struct job_ctx *c = &run->ctx[i];
	struct enlist_job *j = &run->jobs[i];
	struct inv_node now = { 0 };
	struct br_err err = { 0 };
	json_t *ok = json_object_get(line, "ok");

	if (json_is_false(json_object_get(line, "prepared")))
		return;
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
	br_warn("enlist", "%s: %s", c->node->hostname, why);
	if (!inv_node_get(*run->inv, c->node->hostname, &now, &err)) {
		c->node->state = now.state;
		inv_node_release(&now);
	}
	record(*run->inv, c, INV_FAILED, BR_FAIL_WORKER, why);
	finish(run, c, 0, why);
}

/* Fill job i from its node; a node that cannot be prepared is failed. */
static int prepare(struct run *run, size_t i, struct enlist_inputs *in)
{
	struct job_ctx *c = &run->ctx[i];
	struct enlist_job *j = &run->jobs[i];
	struct br_err err = { 0 };

	if (enlist_node_prepare(*run->inv, c->node, in, &c->in, &err)) {
		br_warn("enlist", "%s: %s", c->node->hostname, err.msg);
		record(*run->inv, c, INV_FAILED, c->in.fail_kind, err.msg);
		finish(run, c, 0, err.msg);
		return -1;
	}
	br_info("enlist", "%s: boot disk %s, by %s", c->node->hostname, c->in.boot_disk_serial,
		c->in.boot_disk_why);
	*j = (struct enlist_job){ .hostname = c->node->hostname,
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

static json_t *summary_json(const void *ctx)
{
	const struct run *run = ctx;
	json_t *arr = json_array();

	for (size_t i = 0; i < run->n; i++) {
		const struct job_ctx *c = &run->ctx[i];
		const struct enlist_job *j = &run->jobs[i];

		json_array_append_new(
		    arr, json_pack("{s:s, s:s, s:o, s:o, s:o, s:o, s:o}", "hostname", c->node->hostname,
				   "result", c->result ? c->result : "skipped", "system_id",
				   br_json_string_or_null(j->system_id), "ip", br_json_string_or_null(j->ip),
				   "boot_disk_serial", br_json_string_or_null(c->in.boot_disk_serial),
				   "installed_serial", br_json_string_or_null(j->installed_serial), "reason",
				   br_json_string_or_null(c->reason)));
	}
	return json_pack("{s:o, s:I, s:I}", "nodes", arr, "deployed", (json_int_t)(run->done - run->failed),
			 "failed", (json_int_t)run->failed);
}

static void print_summary(const void *ctx)
{
	static const char *const headers[] = {
		"HOSTNAME", "RESULT", "SYSTEM_ID", "IP", "BOOT DISK", "REASON"
	};
	const struct run *run = ctx;
	struct br_table t;

	br_table_init(&t, 6, headers);
	for (size_t i = 0; i < run->n; i++) {
		const struct job_ctx *c = &run->ctx[i];

		br_table_add(&t, (const char *const[]){
				     c->node->hostname, c->result, run->jobs[i].system_id, run->jobs[i].ip,
				     c->in.boot_disk_serial,
				     c->result && !strcmp(c->result, "deployed") ? NULL : c->reason });
	}
	br_table_print(&t, stdout);
	br_table_release(&t);
	printf("\n%zu deployed, %zu failed\n", run->done - run->failed, run->failed);
}

/* MAAS answers its API under .../MAAS/api/2.0/ (the region's Django
 * root is /MAAS/); a URL without it reaches the web server's 404 for every
 * call, which read as "MAAS unreachable". */
static int maas_url_is_api_root(const char *url)
{
	const char *scheme_end = strstr(url, "://");
	size_t len = strlen(url);

	if (len && url[len - 1] == '/')
		len--;
	return scheme_end && len >= 5 && (size_t)(scheme_end - url) + 3 < len - 5 &&
	       !strncmp(url + len - 5, "/MAAS", 5);
}

/* The nodes this run works: those named, or those picked by state but for
 * failed nodes MAAS never saw (one that failed discovery keeps its
 * reason). */
static int worked(const struct br_stage *st, const struct inv_node *node)
{
	return st->argi < st->argc || node->state != INV_FAILED || node->maas_system_id;
}

/* The key resolved into *ret_key (kept for the workers' clients: the
 * caller frees it with br_secret_free) and MAAS asked who we are, on a
 * client closed again before any worker starts. */
static int open_maas(struct br_stage *st, const char *url, const char *key_ref, struct maas_options *mo,
		     char **ret_key)
{
	struct maas_client *client = NULL;
	struct br_err err = { 0 };
	char *key = NULL;
	int rc;

	if (!url || !*url)
		return br_stage_usage(st, "no MAAS URL: set MAAS_URL or pass --maas-url");
	if (!maas_url_is_api_root(url))
		return br_stage_usage(st,
				      "MAAS URL '%s' does not end in /MAAS/: MAAS serves its API under "
				      "http://HOST:5240/MAAS/ (the URL 'maas login' takes)",
				      url);
	if (key_ref ? br_secret_resolve(key_ref, &key, &err) : !getenv("MAAS_API_KEY"))
		return br_stage_usage(st, "MAAS API key: %s",
				      key_ref ? err.msg
					      : "set MAAS_API_KEY or pass --api-key-ref env:VAR|file:PATH");
	if (!key)
		key = br_xstrdup(getenv("MAAS_API_KEY"));
	*ret_key = key;
	mo->url = url;
	mo->api_key = key;
	rc = maas_client_new(mo, &client, &err);
	if (rc)
		return br_stage_usage(st, "%s", err.msg);
	rc = maas_check_access(client, &err);
	maas_client_free(client);
	if (rc) {
		br_stage_usage(st, "%s", err.msg);
		return st->exit = BR_EXIT_UNREACHABLE;
	}
	return 0;
}

struct args {
	const char *url, *key_ref, *ca_file, *pubkey, *distro;
	const char *pubkey_env; /* $BRINGUP_SSH_PUBKEY: pubkey unless --ssh-pubkey was given */
	char *key;		/* the MAAS API key, resolved */
	int insecure, skip_configure, no_ssh_key, max_parallel, max_inflight, poll_ms, workers;
	int timeout_s, retries, commission_timeout_s, deploy_timeout_s;
	struct br_strlist ntp, packages;
	struct enlist_inputs in;
};

/* Options, then what every node's user-data is made of (the SSH key, NTP
 * servers, packages): read before the inventory is opened. */
static int check_args(struct br_stage *st, struct args *a)
{
	char *templates;
	struct br_err err = { 0 };
	int rc;

	if (a->max_parallel < 1 || a->max_inflight < 1 || a->poll_ms < 10 || a->timeout_s < 1 ||
	    a->retries < 0 || a->commission_timeout_s < 0 || a->deploy_timeout_s < 0)
		return br_stage_usage(st, "counts and timeouts must be positive (--poll-ms at least 10)");
	if (a->workers < 0 || a->workers > BR_WORKERS_MAX)
		return br_stage_usage(st, "--workers must be 0-%d", BR_WORKERS_MAX);
	if (a->no_ssh_key && a->pubkey && a->pubkey != a->pubkey_env)
		return br_stage_usage(st, "--ssh-pubkey and --no-ssh-key: give one");
	/* Deployed without the validators' key, a node cannot be validated:
	 * every one would fail validate and be ticketed, for want of a flag. */
	if (!a->no_ssh_key && (!a->pubkey || !*a->pubkey))
		return br_stage_usage(
		    st, "no SSH key for the nodes: --ssh-pubkey PATH or $BRINGUP_SSH_PUBKEY (the public half "
			"of the key validate logs in with), or --no-ssh-key to deploy nodes nobody can "
			"validate");
	templates = br_templates_dir();
	if (!templates)
		return br_stage_usage(st, "no templates directory (set BRINGUP_TEMPLATES)");
	rc = enlist_inputs_load(&a->in, templates, a->no_ssh_key ? NULL : a->pubkey, &a->ntp, &a->packages,
				&err);
	free(templates);
	if (rc)
		return br_stage_usage(st, "%s", err.msg);
	return 0;
}

/* MAAS checked first (a wrong URL or key is exit 3 with every node as it
 * was), then every node prepared and driven to Deployed or a reason: by
 * worker processes each with a slice of the machines and a MAAS client of
 * its own where the rack is large (one process's loop parsing every
 * machine's 22 KB documents held each machine's next request back), else
 * in this process, by the same code. */
static int enlist(struct br_stage *st, struct run *run, struct args *a)
{
	struct br_err err = { 0 };
	int workers, rc;

	maas_options_init(&run->mo);
	run->mo.ca_file = a->ca_file && *a->ca_file ? a->ca_file : NULL;
	run->mo.insecure = a->insecure;
	run->mo.max_inflight = a->max_inflight;
	run->mo.timeout_ms = a->timeout_s * 1000L;
	run->mo.retries = a->retries;
	rc = br_bmc_secrets_check(st, worked);
	if (!rc)
		rc = open_maas(st, a->url, a->key_ref, &run->mo, &a->key);
	if (rc)
		return rc;
	run->inv = &st->inv;
	run->jobs = br_xcalloc(st->n ? st->n : 1, sizeof(*run->jobs));
	run->ctx = br_xcalloc(st->n ? st->n : 1, sizeof(*run->ctx));
	br_progress_init(&run->progress, "enlist", st->n);
	for (size_t i = 0; i < st->n; i++) {
		if (!worked(st, &st->nodes[i]))
			continue;
		run->ctx[run->n].node = &st->nodes[i];
		/* A node that cannot be prepared is finished already. */
		if (prepare(run, run->n, &a->in))
			run->jobs[run->n].done = 1;
		run->n++;
	}
	run->progress.total = run->n;
	enlist_options_init(&run->eo);
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
	workers = a->workers ? a->workers : br_workers_auto(run->n);
	/* Each worker's share of the caps is at least 1. */
	if (workers > a->max_parallel)
		workers = a->max_parallel;
	{
		const struct br_pool pool = { "enlist", "enlist", run->n, workers, 0, work, done, run };

		if (workers > 1)
			br_info("enlist", "%zu machines over %d worker processes", run->n,
				(size_t)workers < run->n ? workers : (int)run->n);
		fflush(stdout);
		rc = br_pool_run(run->inv, &pool, &err);
	}
	if (rc)
		rc = br_stage_fail(st, BR_EXIT_UNREACHABLE, "%s", err.msg);
	else
		br_progress_finish(&run->progress);
	return rc;
}

static void run_release(struct run *run, struct args *a)
{
	for (size_t i = 0; i < run->n; i++) {
		enlist_job_release(&run->jobs[i]);
		enlist_node_inputs_release(&run->ctx[i].in);
		free(run->ctx[i].reason);
	}
	free(run->jobs);
	free(run->ctx);
	enlist_inputs_release(&a->in);
	br_secret_free(a->key);
	br_strlist_release(&a->ntp);
	br_strlist_release(&a->packages);
}

int main(int argc, char **argv)
{
	struct br_stage st = { 0 };
	struct args a = { .url = getenv("MAAS_URL"),
			  .ca_file = getenv("BRINGUP_CA_FILE"),
			  .pubkey = getenv("BRINGUP_SSH_PUBKEY"),
			  .pubkey_env = getenv("BRINGUP_SSH_PUBKEY"),
			  .distro = "jammy",
			  .max_parallel = 64,
			  .max_inflight = 32,
			  .poll_ms = 1000,
			  .timeout_s = 30,
			  .retries = 5,
			  .commission_timeout_s = 0,
			  .deploy_timeout_s = 0 };
	const struct br_option options[] = {
		{ "maas-url", 0, BR_OPT_STRING, &a.url, "URL",
		  "MAAS URL ending in /MAAS/ (default $MAAS_URL)" },
		{ "api-key-ref", 0, BR_OPT_STRING, &a.key_ref, "env:VAR|file:PATH",
		  "where the MAAS API key is (default $MAAS_API_KEY)" },
		{ "ca-file", 0, BR_OPT_STRING, &a.ca_file, "PATH",
		  "CA bundle for MAAS's certificate (default $BRINGUP_CA_FILE)" },
		{ "insecure", 'k', BR_OPT_FLAG, &a.insecure, NULL, "do not verify MAAS's TLS certificate" },
		{ "skip-configure", 0, BR_OPT_FLAG, &a.skip_configure, NULL,
		  "also take 'discovered' nodes (configure not run)" },
		{ "max-parallel", 'j', BR_OPT_INT, &a.max_parallel, "N",
		  "machines in flight at once (default 64)" },
		{ "max-inflight", 0, BR_OPT_INT, &a.max_inflight, "N",
		  "MAAS requests in flight at once (default 32)" },
		{ "poll-ms", 0, BR_OPT_INT, &a.poll_ms, "MS",
		  "status poll interval while waiting (default 1000)" },
		{ "workers", 0, BR_OPT_INT, &a.workers, "N",
		  "processes driving machines (default 0: min(CPUs, nodes / 64); 1: this one)" },
		{ "timeout", 't', BR_OPT_INT, &a.timeout_s, "SECONDS", "per-request timeout (default 30)" },
		{ "retries", 0, BR_OPT_INT, &a.retries, "N",
		  "retries per request on 503, 409 + Retry-After, resets (default 5)" },
		{ "commission-timeout", 0, BR_OPT_INT, &a.commission_timeout_s, "SECONDS",
		  "wait for Ready at most (default: the profile's [time_limits] commissioning, else 1800)" },
		{ "deploy-timeout", 0, BR_OPT_INT, &a.deploy_timeout_s, "SECONDS",
		  "wait for Deployed at most (default: the profile's [time_limits] deployment, else 3600)" },
		{ "distro", 0, BR_OPT_STRING, &a.distro, "SERIES",
		  "Ubuntu series to deploy (default jammy)" },
		{ "ssh-pubkey", 0, BR_OPT_STRING, &a.pubkey, "PATH",
		  "public key(s) the validators log in with, one a line (default $BRINGUP_SSH_PUBKEY); "
		  "required unless --no-ssh-key" },
		{ "no-ssh-key", 0, BR_OPT_FLAG, &a.no_ssh_key, NULL,
		  "deploy with no SSH key in the user-data (validate cannot log in to such nodes)" },
		{ "ntp-server", 0, BR_OPT_LIST, &a.ntp, "HOST",
		  "NTP server for the nodes, repeatable (default $BRINGUP_NTP_SERVERS or ntp.ubuntu.com)" },
		{ "package", 0, BR_OPT_LIST, &a.packages, "NAME",
		  "package to install, repeatable (default chrony lldpd nvme-cli pciutils)" },
		{ 0 },
	};
	const struct br_command cmd = {
		"bringup-enlist",
		"[options] [HOST...]",
		"Register 'configured' nodes (with --skip-configure also 'discovered' ones; 'enlisted' ones "
		"and\n"
		"those that failed in MAAS are resumed) with MAAS by their discovered MACs, commission them, "
		"set\n"
		"the boot disk by serial (manifest boot_disk_serial, else the profile's boot-disk rule), "
		"deploy\n"
		"with templates/cloud-init/user-data, and record system_id, address and state 'deployed'.",
		options,
		&st.common,
	};
	struct run run = { 0 };

	if (br_stage_parse(&st, &cmd, argc, argv) || check_args(&st, &a))
		goto out;
	if (!br_stage_open(&st, br_stage_states("enlist", a.skip_configure)) && !enlist(&st, &run, &a))
		br_stage_report(&st, summary_json, print_summary, &run, run.failed);
out:
	run_release(&run, &a);
	return br_stage_close(&st);
}
