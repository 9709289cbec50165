/*
 * bringup enlist: hand configured (or, with --skip-configure, discovered)
 * nodes to MAAS by the MACs discovery collected, commission them, pin the
 * install disk by serial, and deploy. Nodes end `deployed`, or `failed`
 * with MAAS's own words. MAAS unreachable or the key refused: exit 3 before
 * anything changes.
 */
#include <stdlib.h>
#include <string.h>

#include "enlist.h"
#include "stage.h"

struct job_ctx {
	struct inv_node *node;
	struct enlist_node_inputs in;
	const char *result;
	char *reason;
};

struct run {
	struct inv *inv;
	struct enlist_job *jobs;
	struct job_ctx *ctx;
	size_t n, done, failed;
	struct br_progress progress;
};

static void record(struct run *run, struct job_ctx *c, enum inv_state to, const char *reason)
{
	struct br_err err = { 0 };

	if (inv_node_set_state(run->inv, c->node->hostname, c->node->state, to, reason, &err))
		br_error("enlist", "%s: %s", c->node->hostname, err.msg);
	else
		c->node->state = to; /* the state the next change compares with */
}

static void finish(struct run *run, struct job_ctx *c, int ok, const char *reason)
{
	free(c->reason);
	c->reason = br_xstrdup(reason);
	c->result = ok ? "deployed" : "failed";
	run->done++;
	run->failed += !ok;
	if (!ok)
		br_warn("enlist", "%s: %s", c->node->hostname, reason);
	record(run, c, ok ? INV_DEPLOYED : INV_FAILED, reason);
	br_progress_update(&run->progress, run->done, run->failed);
}

static void on_system_id(void *ctx, struct enlist_job *job)
{
	struct run *run = ctx;
	struct job_ctx *c = job->user_data;
	struct br_err err = { 0 };

	if (inv_node_set_maas(run->inv, c->node->hostname, job->system_id, NULL, &err))
		br_error("enlist", "%s: %s", c->node->hostname, err.msg);
}

static void on_ready(void *ctx, struct enlist_job *job)
{
	struct job_ctx *c = job->user_data;
	char *reason =
	    br_xasprintf("commissioned in MAAS as %s; boot disk %s", job->system_id, job->boot_disk_serial);

	record(ctx, c, INV_ENLISTED, reason);
	free(reason);
}

static void on_done(void *ctx, struct enlist_job *job, int ok, const char *reason)
{
	struct run *run = ctx;
	struct job_ctx *c = job->user_data;
	struct br_err err = { 0 };

	if (ok && (inv_node_set_maas(run->inv, c->node->hostname, job->system_id, job->ip, &err) ||
		   inv_node_set_installed_disk(run->inv, c->node->hostname, job->installed_serial, &err)))
		br_error("enlist", "%s: %s", c->node->hostname, err.msg);
	finish(run, c, ok, reason);
}

/* Fill job i from its node; a node that cannot be prepared is failed. */
static int prepare(struct run *run, size_t i, struct enlist_inputs *in)
{
	struct job_ctx *c = &run->ctx[i];
	struct enlist_job *j = &run->jobs[i];
	struct br_err err = { 0 };

	if (enlist_node_prepare(run->inv, c->node, in, &c->in, &err)) {
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

static int open_maas(struct br_stage *st, const char *url, const char *key_ref,
		     const struct maas_options *base, struct maas_client **ret_client)
{
	struct maas_options mo = *base;
	struct br_err err = { 0 };
	char *key = NULL;
	int rc;

	if (!url || !*url)
		return br_stage_usage(st, "no MAAS URL: set MAAS_URL or pass --maas-url");
	if (key_ref ? br_secret_resolve(key_ref, &key, &err) : !getenv("MAAS_API_KEY"))
		return br_stage_usage(st, "MAAS API key: %s",
				      key_ref ? err.msg
					      : "set MAAS_API_KEY or pass --api-key-ref env:VAR|file:PATH");
	if (!key)
		key = br_xstrdup(getenv("MAAS_API_KEY"));
	mo.url = url;
	mo.api_key = key;
	rc = maas_client_new(&mo, ret_client, &err);
	br_secret_free(key);
	if (rc)
		return br_stage_usage(st, "%s", err.msg);
	if (maas_check_access(*ret_client, &err)) {
		maas_client_free(*ret_client);
		*ret_client = NULL;
		br_stage_usage(st, "%s", err.msg);
		return st->exit = BR_EXIT_UNREACHABLE;
	}
	return 0;
}

struct args {
	const char *url, *key_ref, *ca_file, *pubkey, *distro;
	int insecure, skip_configure, max_parallel, max_inflight, poll_ms;
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
	templates = br_templates_dir();
	if (!templates)
		return br_stage_usage(st, "no templates directory (set BRINGUP_TEMPLATES)");
	rc = enlist_inputs_load(&a->in, templates, a->pubkey, &a->ntp, &a->packages, &err);
	free(templates);
	if (rc)
		return br_stage_usage(st, "%s", err.msg);
	if (!a->in.ssh_pubkey)
		br_warn("enlist",
			"no --ssh-pubkey or $BRINGUP_SSH_PUBKEY: validators will not be able to log in");
	return 0;
}

/* MAAS checked first (a wrong URL or key is exit 3 with every node as it
 * was), then every node prepared and driven to Deployed or a reason. */
static int enlist(struct br_stage *st, struct run *run, struct args *a)
{
	const struct enlist_callbacks cb = { on_system_id, on_ready, on_done };
	struct maas_client *client = NULL;
	struct maas_options mo;
	struct enlist_options eo;
	struct br_err err = { 0 };
	int rc;

	maas_options_init(&mo);
	mo.ca_file = a->ca_file && *a->ca_file ? a->ca_file : NULL;
	mo.insecure = a->insecure;
	mo.max_inflight = a->max_inflight;
	mo.timeout_ms = a->timeout_s * 1000L;
	mo.retries = a->retries;
	rc = open_maas(st, a->url, a->key_ref, &mo, &client);
	if (rc)
		return rc;
	run->inv = st->inv;
	run->jobs = br_xcalloc(st->n ? st->n : 1, sizeof(*run->jobs));
	run->ctx = br_xcalloc(st->n ? st->n : 1, sizeof(*run->ctx));
	br_progress_init(&run->progress, "enlist", st->n);
	for (size_t i = 0; i < st->n; i++) {
		/* Failed nodes are resumed only when MAAS failed them: one that
		 * failed discovery keeps its reason. */
		if (st->argi >= st->argc && st->nodes[i].state == INV_FAILED && !st->nodes[i].maas_system_id)
			continue;
		run->ctx[run->n].node = &st->nodes[i];
		/* A node that cannot be prepared is finished already. */
		if (prepare(run, run->n, &a->in))
			run->jobs[run->n].done = 1;
		run->n++;
	}
	run->progress.total = run->n;
	enlist_options_init(&eo);
	eo.max_parallel = a->max_parallel;
	eo.poll_ms = a->poll_ms;
	/* An option given overrides every node's profile for this run. */
	for (size_t i = 0; i < run->n; i++) {
		if (a->commission_timeout_s)
			run->jobs[i].commission_limit_ms = 0;
		if (a->deploy_timeout_s)
			run->jobs[i].deploy_limit_ms = 0;
	}
	if (a->commission_timeout_s)
		eo.commission_timeout_ms = a->commission_timeout_s * 1000LL;
	if (a->deploy_timeout_s)
		eo.deploy_timeout_ms = a->deploy_timeout_s * 1000LL;
	eo.distro_series = a->distro;
	rc = enlist_run(client, run->jobs, run->n, &eo, &cb, run, &err);
	if (rc)
		rc = br_stage_fail(st, BR_EXIT_UNREACHABLE, "%s", err.msg);
	else
		br_progress_finish(&run->progress);
	maas_client_free(client);
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
	br_strlist_release(&a->ntp);
	br_strlist_release(&a->packages);
}

int main(int argc, char **argv)
{
	struct br_stage st = { 0 };
	struct args a = { .url = getenv("MAAS_URL"),
			  .ca_file = getenv("BRINGUP_CA_FILE"),
			  .pubkey = getenv("BRINGUP_SSH_PUBKEY"),
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
		  "public key the validators log in with (default $BRINGUP_SSH_PUBKEY)" },
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
	int states[] = { INV_CONFIGURED, INV_ENLISTED, INV_FAILED,
			 -1 /* INV_DISCOVERED with --skip-configure */, -1 };
	struct run run = { 0 };

	if (br_stage_parse(&st, &cmd, argc, argv) || check_args(&st, &a))
		goto out;
	states[3] = a.skip_configure ? INV_DISCOVERED : -1;
	if (!br_stage_open(&st, states) && !enlist(&st, &run, &a))
		br_stage_report(&st, summary_json, print_summary, &run, run.failed);
out:
	run_release(&run, &a);
	return br_stage_close(&st);
}
