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
	struct br_strlist macs;
	char *power_pass, *boot_disk_serial, *user_data_b64;
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

	if (inv_node_set_state(run->inv, c->node->hostname, to, reason, &err))
		br_error("enlist", "%s: %s", c->node->hostname, err.msg);
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

/* What every node's user-data is made of. */
struct inputs {
	char *templates;
	char *ssh_pubkey;
	struct br_strlist ntp, packages;
};

/* Resolve what one node needs; a problem fails the node (returns -1). */
static int prepare(struct run *run, size_t i, const struct inputs *in)
{
	struct job_ctx *c = &run->ctx[i];
	struct enlist_job *j = &run->jobs[i];
	struct enlist_userdata_vars vars = { c->node->hostname, in->ssh_pubkey, &in->ntp, &in->packages };
	struct br_err err = { 0 };
	struct br_hw hw;
	char *why = NULL, *path, *text = NULL;
	int rc;

	j->user_data = c;
	j->hostname = c->node->hostname;
	j->macs = &c->macs;
	j->power_address = c->node->bmc;
	j->power_user = c->node->bmc_user;
	j->system_id = c->node->maas_system_id ? br_xstrdup(c->node->maas_system_id) : NULL;
	if (inv_node_macs(run->inv, c->node->id, &c->macs, &err) || !c->macs.n) {
		finish(run, c, 0, err.msg[0] ? err.msg : "no MACs from discovery: run bringup discover first");
		return -1;
	}
	if (br_secret_resolve(c->node->bmc_password_ref, &c->power_pass, &err)) {
		char *reason = br_xasprintf("bmc %s: credentials for MAAS power control: %s", c->node->bmc, err.msg);

		finish(run, c, 0, reason);
		free(reason);
		return -1;
	}
	j->power_pass = c->power_pass;
	if (c->node->boot_disk_serial && *c->node->boot_disk_serial) {
		c->boot_disk_serial = br_xstrdup(c->node->boot_disk_serial);
		why = br_xstrdup("the manifest's boot_disk_serial");
	} else {
		path = br_xasprintf("%s/profiles/%s/boot-disk", in->templates, c->node->profile);
		rc = inv_load_hw(run->inv, c->node->hostname, &hw, &err);
		if (!rc)
			rc = enlist_pick_boot_disk(path, &hw, &c->boot_disk_serial, &why, &err);
		br_hw_release(&hw);
		free(path);
		if (rc) {
			finish(run, c, 0, err.msg);
			return -1;
		}
	}
	br_info("enlist", "%s: boot disk %s, by %s", c->node->hostname, c->boot_disk_serial, why);
	free(why);
	j->boot_disk_serial = c->boot_disk_serial;
	path = br_xasprintf("%s/cloud-init/user-data", in->templates);
	rc = enlist_render_userdata(path, &vars, &text, &err);
	free(path);
	if (rc) {
		finish(run, c, 0, err.msg);
		return -1;
	}
	c->user_data_b64 = enlist_base64(text, strlen(text));
	j->user_data_b64 = c->user_data_b64;
	free(text);
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
						     br_json_string_or_null(c->boot_disk_serial), "installed_serial",
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
							run->jobs[i].ip, c->boot_disk_serial,
							c->result && !strcmp(c->result, "deployed") ? NULL : c->reason });
	}
	br_table_print(&t, stdout);
	br_table_release(&t);
	printf("\n%zu deployed, %zu failed\n", run->done - run->failed, run->failed);
}

/* --ssh-pubkey / $BRINGUP_SSH_PUBKEY name a public key file; its first line. */
static int load_pubkey(const char *path, char **ret_key, struct br_err *err)
{
	char *text = NULL;
	size_t len;

	if (!path || !*path) {
		*ret_key = NULL;
		return 0;
	}
	if (br_read_file(path, 16384, &text, &len, err))
		return br_err_prefix(err, "--ssh-pubkey");
	text[strcspn(text, "\r\n")] = '\0';
	*ret_key = text;
	return 0;
}

static void split_list(const char *s, struct br_strlist *out)
{
	while (s && *s) {
		size_t n = strcspn(s, ", ");

		if (n) {
			char *item = br_xstrndup(s, n);

			br_strlist_add(out, item);
			free(item);
		}
		s += n;
		s += strspn(s, ", ");
	}
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
		fprintf(stderr, "bringup-enlist: %s\n", err.msg);
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
	int states[] = { INV_CONFIGURED, INV_ENLISTED, INV_FAILED, skip_configure ? INV_DISCOVERED : -1, -1 };
	struct maas_options mo;
	struct enlist_options eo;
	const struct enlist_callbacks cb = { on_system_id, on_ready, on_done };
	struct inputs in = { 0 };
	struct run run = { 0 };
	struct inv_node *nodes = NULL;
	struct maas_client *client = NULL;
	struct br_err err = { 0 };
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
	in.templates = br_templates_dir();
	if (!in.templates) {
		fprintf(stderr, "bringup-enlist: no templates directory (set BRINGUP_TEMPLATES)\n");
		return BR_EXIT_USAGE;
	}
	if (load_pubkey(pubkey, &in.ssh_pubkey, &err)) {
		fprintf(stderr, "bringup-enlist: %s\n", err.msg);
		rc = BR_EXIT_USAGE;
		goto out;
	}
	if (!in.ssh_pubkey)
		br_warn("enlist", "no --ssh-pubkey or $BRINGUP_SSH_PUBKEY: validators will not be able to log in");
	for (size_t i = 0; i < ntp.n; i++)
		split_list(ntp.items[i], &in.ntp);
	if (!in.ntp.n)
		split_list(getenv("BRINGUP_NTP_SERVERS") ? getenv("BRINGUP_NTP_SERVERS") : "ntp.ubuntu.com", &in.ntp);
	for (size_t i = 0; i < packages.n; i++)
		split_list(packages.items[i], &in.packages);
	if (!in.packages.n)
		split_list("chrony lldpd nvme-cli pciutils", &in.packages);
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
		br_strlist_release(&run.ctx[i].macs);
		br_secret_free(run.ctx[i].power_pass);
		free(run.ctx[i].boot_disk_serial);
		free(run.ctx[i].user_data_b64);
		free(run.ctx[i].reason);
	}
	free(run.jobs);
	free(run.ctx);
	maas_client_free(client);
	inv_nodes_free(nodes, n);
	inv_close(run.inv);
	free(in.templates);
	free(in.ssh_pubkey);
	br_strlist_release(&in.ntp);
	br_strlist_release(&in.packages);
	br_strlist_release(&ntp);
	br_strlist_release(&packages);
	return rc;
}
