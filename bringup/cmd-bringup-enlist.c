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
	char *reason = br_xasprintf("commissioned in MAAS as %s; boot disk %s", job->system_id, job->boot_disk_serial);

	record(ctx, c, INV_ENLISTED, reason);
	free(reason);
}

static void on_done(void *ctx, struct enlist_job *job, int ok, const char *reason)
{
	struct run *run = ctx;
	struct job_ctx *c = job->user_data;
	struct br_err err = { 0 };

	if (ok && inv_node_set_maas(run->inv, c->node->hostname, job->system_id, job->ip, &err))
		br_error("enlist", "%s: %s", c->node->hostname, err.msg);
	finish(run, c, ok, reason);
}

/* Fill job i from its node; a node that cannot be prepared is failed. */
static int prepare(struct run *run, size_t i, const struct enlist_inputs *in)
{
	struct job_ctx *c = &run->ctx[i];
	struct enlist_job *j = &run->jobs[i];
	struct br_err err = { 0 };

	if (enlist_node_prepare(run->inv, c->node, in, &c->in, &err)) {
		finish(run, c, 0, err.msg);
		return -1;
	}
	br_info("enlist", "%s: boot disk %s, by %s", c->node->hostname, c->in.boot_disk_serial, c->in.boot_disk_why);
	*j = (struct enlist_job){ .hostname = c->node->hostname, .macs = &c->in.macs, .power_address = c->node->bmc,
				  .power_user = c->node->bmc_user, .power_pass = c->in.power_pass,
				  .boot_disk_serial = c->in.boot_disk_serial, .user_data_b64 = c->in.user_data_b64,
				  .user_data = c };
	if (c->node->maas_system_id)
		j->system_id = br_xstrdup(c->node->maas_system_id);
	return 0;
}

static json_t *summary_json(const struct run *run)
{
	json_t *arr = json_array();

	for (size_t i = 0; i < run->n; i++) {
		const struct job_ctx *c = &run->ctx[i];
		const struct enlist_job *j = &run->jobs[i];

		json_array_append_new(arr, json_pack("{s:s, s:s, s:o, s:o, s:o, s:o, s:o}", "hostname",
						     c->node->hostname, "result", c->result ? c->result : "skipped",
						     "system_id", br_json_string_or_null(j->system_id), "ip",
						     br_json_string_or_null(j->ip), "boot_disk_serial",
						     br_json_string_or_null(c->in.boot_disk_serial), "installed_serial",
						     br_json_string_or_null(j->installed_serial), "reason",
						     br_json_string_or_null(c->reason)));
	}
	return json_pack("{s:o, s:I, s:I}", "nodes", arr, "deployed", (json_int_t)(run->done - run->failed),
			 "failed", (json_int_t)run->failed);
}

static void print_summary(const struct run *run)
{
	static const char *const headers[] = { "HOSTNAME", "RESULT", "SYSTEM_ID", "IP", "BOOT DISK", "REASON" };
	struct br_table t;

	br_table_init(&t, 6, headers);
	for (size_t i = 0; i < run->n; i++) {
		const struct job_ctx *c = &run->ctx[i];

		br_table_add(&t, (const char *const[]){ c->node->hostname, c->result, run->jobs[i].system_id,
							run->jobs[i].ip, c->in.boot_disk_serial,
							c->result && !strcmp(c->result, "deployed") ? NULL : c->reason });
	}
	br_table_print(&t, stdout);
	br_table_release(&t);
	printf("\n%zu deployed, %zu failed\n", run->done - run->failed, run->failed);
}

static int open_maas(const char *url, const char *key_ref, const struct maas_options *base,
		     struct maas_client **ret_client)
{
	struct maas_options mo = *base;
	struct br_err err = { 0 };
	char *key = NULL;
	int rc;

	if (!url || !*url) {
		fprintf(stderr, "bringup-enlist: no MAAS URL: set MAAS_URL or pass --maas-url\n");
		return BR_EXIT_USAGE;
	}
	if (key_ref ? br_secret_resolve(key_ref, &key, &err) : !getenv("MAAS_API_KEY")) {
		fprintf(stderr, "bringup-enlist: MAAS API key: %s\n",
			key_ref ? err.msg : "set MAAS_API_KEY or pass --api-key-ref env:VAR|file:PATH");
		return BR_EXIT_USAGE;
	}
	if (!key)
		key = br_xstrdup(getenv("MAAS_API_KEY"));
	mo.url = url;
	mo.api_key = key;
	rc = maas_client_new(&mo, ret_client, &err);
	br_secret_free(key);
	if (rc) {
		fprintf(stderr, "bringup-enlist: %s\n", err.msg);
		return BR_EXIT_USAGE;
	}
	if (maas_check_access(*ret_client, &err)) {
		char *msg = br_escape(err.msg); /* may hold MAAS's own words */

		fprintf(stderr, "bringup-enlist: %s\n", msg);
		free(msg);
		maas_client_free(*ret_client);
		*ret_client = NULL;
		return BR_EXIT_UNREACHABLE;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct br_common_opts common = { 0 };
	const char *url = getenv("MAAS_URL"), *key_ref = NULL, *ca_file = getenv("BRINGUP_CA_FILE");
	const char *pubkey = getenv("BRINGUP_SSH_PUBKEY"), *distro = "jammy";
	int insecure = 0, skip_configure = 0, max_parallel = 64, max_inflight = 32, poll_ms = 1000;
	int timeout_s = 30, retries = 5, commission_timeout_s = 1800, deploy_timeout_s = 3600;
	struct br_strlist ntp = { 0 }, packages = { 0 };
	const struct br_option options[] = {
		{ "maas-url", 0, BR_OPT_STRING, &url, "URL", "MAAS URL ending in /MAAS/ (default $MAAS_URL)" },
		{ "api-key-ref", 0, BR_OPT_STRING, &key_ref, "env:VAR|file:PATH", "where the MAAS API key is (default $MAAS_API_KEY)" },
		{ "ca-file", 0, BR_OPT_STRING, &ca_file, "PATH", "CA bundle for MAAS's certificate (default $BRINGUP_CA_FILE)" },
		{ "insecure", 'k', BR_OPT_FLAG, &insecure, NULL, "do not verify MAAS's TLS certificate" },
		{ "skip-configure", 0, BR_OPT_FLAG, &skip_configure, NULL, "also take 'discovered' nodes (configure not run)" },
		{ "max-parallel", 'j', BR_OPT_INT, &max_parallel, "N", "machines in flight at once (default 64)" },
		{ "max-inflight", 0, BR_OPT_INT, &max_inflight, "N", "MAAS requests in flight at once (default 32)" },
		{ "poll-ms", 0, BR_OPT_INT, &poll_ms, "MS", "status poll interval while waiting (default 1000)" },
		{ "timeout", 't', BR_OPT_INT, &timeout_s, "SECONDS", "per-request timeout (default 30)" },
		{ "retries", 0, BR_OPT_INT, &retries, "N", "retries per request on 503, 409 + Retry-After, resets (default 5)" },
		{ "commission-timeout", 0, BR_OPT_INT, &commission_timeout_s, "SECONDS", "wait for Ready at most (default 1800)" },
		{ "deploy-timeout", 0, BR_OPT_INT, &deploy_timeout_s, "SECONDS", "wait for Deployed at most (default 3600)" },
		{ "distro", 0, BR_OPT_STRING, &distro, "SERIES", "Ubuntu series to deploy (default jammy)" },
		{ "ssh-pubkey", 0, BR_OPT_STRING, &pubkey, "PATH", "public key the validators log in with (default $BRINGUP_SSH_PUBKEY)" },
		{ "ntp-server", 0, BR_OPT_LIST, &ntp, "HOST", "NTP server for the nodes, repeatable (default $BRINGUP_NTP_SERVERS or ntp.ubuntu.com)" },
		{ "package", 0, BR_OPT_LIST, &packages, "NAME", "package to install, repeatable (default chrony lldpd nvme-cli pciutils)" },
		{ 0 },
	};
	const struct br_command cmd = {
		"bringup-enlist", "[options] [HOST...]",
		"Register 'configured' nodes (with --skip-configure also 'discovered' ones; 'enlisted' ones and\n"
		"those that failed in MAAS are resumed) with MAAS by their discovered MACs, commission them, set\n"
		"the boot disk by serial (manifest boot_disk_serial, else the profile's boot-disk rule), deploy\n"
		"with templates/cloud-init/user-data, and record system_id, address and state 'deployed'.",
		options, &common,
	};
	int states[] = { INV_CONFIGURED, INV_ENLISTED, INV_FAILED, -1 /* INV_DISCOVERED with --skip-configure */, -1 };
	struct maas_options mo;
	struct enlist_options eo;
	const struct enlist_callbacks cb = { on_system_id, on_ready, on_done };
	struct enlist_inputs in = { 0 };
	struct run run = { 0 };
	struct inv_node *nodes = NULL;
	struct maas_client *client = NULL;
	struct br_err err = { 0 };
	char *templates;
	size_t n = 0;
	int argi, rc;

	br_log_init(argv[0], BR_LOG_WARN);
	rc = br_opt_parse(&cmd, argc, argv, &argi);
	if (rc)
		return rc == BR_OPT_EXIT_OK ? BR_EXIT_OK : BR_EXIT_USAGE;
	states[3] = skip_configure ? INV_DISCOVERED : -1;
	if (max_parallel < 1 || max_inflight < 1 || poll_ms < 10 || timeout_s < 1 || retries < 0 ||
	    commission_timeout_s < 1 || deploy_timeout_s < 1) {
		fprintf(stderr, "bringup-enlist: counts and timeouts must be positive (--poll-ms at least 10)\n");
		return BR_EXIT_USAGE;
	}
	templates = br_templates_dir();
	if (!templates) {
		fprintf(stderr, "bringup-enlist: no templates directory (set BRINGUP_TEMPLATES)\n");
		return BR_EXIT_USAGE;
	}
	rc = enlist_inputs_load(&in, templates, pubkey, &ntp, &packages, &err);
	free(templates);
	if (rc) {
		fprintf(stderr, "bringup-enlist: %s\n", err.msg);
		rc = BR_EXIT_USAGE;
		goto out;
	}
	if (!in.ssh_pubkey)
		br_warn("enlist", "no --ssh-pubkey or $BRINGUP_SSH_PUBKEY: validators will not be able to log in");
	maas_options_init(&mo);
	mo.ca_file = ca_file && *ca_file ? ca_file : NULL;
	mo.insecure = insecure;
	mo.max_inflight = max_inflight;
	mo.timeout_ms = timeout_s * 1000L;
	mo.retries = retries;
	rc = br_stage_open_inventory(common.db, &run.inv);
	if (rc)
		goto out;
	rc = br_stage_select(run.inv, argc, argv, argi, states, &nodes, &n);
	if (!rc)
		rc = br_stage_lease(run.inv, cmd.name, argi < argc ? NULL : states, nodes, &n);
	if (rc)
		goto out;
	/* Checked before anything changes: a wrong URL or key is exit 3 with
	 * every node as it was. */
	rc = open_maas(url, key_ref, &mo, &client);
	if (rc)
		goto out;
	run.jobs = br_xcalloc(n ? n : 1, sizeof(*run.jobs));
	run.ctx = br_xcalloc(n ? n : 1, sizeof(*run.ctx));
	br_progress_init(&run.progress, "enlist", n);
	for (size_t i = 0; i < n; i++) {
		/* Failed nodes are resumed only when MAAS failed them: one that
		 * failed discovery keeps its reason. */
		if (argi >= argc && nodes[i].state == INV_FAILED && !nodes[i].maas_system_id)
			continue;
		run.ctx[run.n].node = &nodes[i];
		/* A node that cannot be prepared is finished already. */
		if (prepare(&run, run.n, &in))
			run.jobs[run.n].done = 1;
		run.n++;
	}
	run.progress.total = run.n;
	enlist_options_init(&eo);
	eo.max_parallel = max_parallel;
	eo.poll_ms = poll_ms;
	eo.commission_timeout_ms = commission_timeout_s * 1000LL;
	eo.deploy_timeout_ms = deploy_timeout_s * 1000LL;
	eo.distro_series = distro;
	if (enlist_run(client, run.jobs, run.n, &eo, &cb, &run, &err)) {
		br_error("enlist", "%s", err.msg);
		rc = BR_EXIT_UNREACHABLE;
		goto out;
	}
	br_progress_finish(&run.progress);
	if (common.json) {
		json_t *doc = summary_json(&run);

		br_json_print(stdout, doc);
		json_decref(doc);
	} else if (!common.quiet) {
		print_summary(&run);
	}
	rc = run.failed ? BR_EXIT_NODES : BR_EXIT_OK;
out:
	for (size_t i = 0; i < run.n; i++) {
		enlist_job_release(&run.jobs[i]);
		enlist_node_inputs_release(&run.ctx[i].in);
		free(run.ctx[i].reason);
	}
	free(run.jobs);
	free(run.ctx);
	maas_client_free(client);
	inv_nodes_free(nodes, n);
	br_stage_release(run.inv);
	inv_close(run.inv);
	enlist_inputs_release(&in);
	br_strlist_release(&ntp);
	br_strlist_release(&packages);
	return rc;
}
