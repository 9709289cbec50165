/*
 * bringup discover: read every BMC of the rack (Redfish; ipmitool for BMCs
 * without it) concurrently and store what each reports. Nodes end
 * `discovered`, or `failed` with the reason; one slow or broken BMC never
 * holds the rest back.
 */
#include <stdlib.h>
#include <string.h>

#include "bmcopts.h"
#include "discoverpool.h"
#include "manifest.h"
#include "redfish/redfish.h"
#include "stage.h"

struct job {
	struct inv_node *node;
	char *password;
	char *base_url;
	char *host;
	int port;
	int done;
	int ok;
	const char *via;
	char *reason;
	size_t n_macs;
};

struct run {
	struct inv *inv;
	struct job *jobs;
	size_t n_jobs, done, failed;
	struct br_progress progress;
	char *inventory_error; /* the first write the inventory refused (disk full, I/O): exit 3 */
};

static void finish(struct run *run, struct job *job, int ok, const char *via, const char *reason, size_t n_macs)
{
	job->done = 1;
	job->ok = ok;
	job->via = via;
	free(job->reason);
	job->reason = br_xstrdup(reason);
	job->n_macs = n_macs;
	run->done++;
	if (!ok)
		run->failed++;
	br_progress_update(&run->progress, run->done, run->failed);
}

static void inventory_failed(struct run *run, const char *msg)
{
	if (!run->inventory_error)
		run->inventory_error = br_xstrdup(msg);
}

static void fail_node(struct run *run, struct job *job, const char *reason)
{
	struct br_err err = { 0 };

	br_warn("discover", "%s: %s", job->node->hostname, reason);
	if (inv_node_set_state(run->inv, job->node->hostname, job->node->state, INV_FAILED, reason, &err)) {
		br_error("discover", "%s: %s", job->node->hostname, err.msg);
		if (err.code == BR_E_DB)
			inventory_failed(run, err.msg);
	}
	finish(run, job, 0, NULL, reason, 0);
}

static int store_node(struct inv *inv, const struct inv_node *node, const struct br_hw *hw, char **summary,
		      size_t *n_macs, struct br_err *err)
{
	const char *via = hw->source && !strcmp(hw->source, "ipmi") ? "IPMI" : "Redfish";
	char *reason = br_xasprintf("discovered over %s: %zu MACs, serial %s", via, hw->n_nics,
				    hw->system_serial ? hw->system_serial : "(none)");

	if (inv_store_hw(inv, node->hostname, hw, node->state, INV_DISCOVERED, reason, err)) {
		if (err->code != BR_E_EXISTS) /* a lost MAC claim: the reason as recorded */
			br_err_prefix(err, "storing what the BMC reported");
		free(reason);
		return err->code ? err->code : BR_E_DB;
	}
	*summary = reason;
	*n_macs = hw->n_nics;
	return 0;
}

/* The pool's store hook: runs in a discovery worker (its own inventory
 * connection) or here. */
static int store_hw(struct inv *inv, const struct rf_target *t, const struct br_hw *hw, char **summary,
		    size_t *n_macs, struct br_err *err)
{
	const struct job *job = t->user_data;

	return store_node(inv, job->node, hw, summary, n_macs, err);
}

static void stored(struct run *run, struct job *job, const char *via, const char *summary, size_t n_macs)
{
	br_info("discover", "%s: %s", job->node->hostname, summary);
	finish(run, job, 1, via, summary, n_macs);
}

/* A BMC that refused the credentials says so first: that is what the
 * technician fixes, whatever the protocol detail after it. */
static void fail_bmc(struct run *run, struct job *job, int rc, const char *why)
{
	const char *msg = why && why[0] ? why : br_strerror(rc);
	char *reason = br_bmc_failure_reason(rc, msg);

	if (rc == BR_E_EXISTS) { /* a MAC claim lost: the store recorded the node failed */
		br_warn("discover", "%s: %s", job->node->hostname, reason);
		finish(run, job, 0, NULL, reason, 0);
		free(reason);
		return;
	}
	if (rc == BR_E_DB) /* what the BMC said could not be stored */
		inventory_failed(run, msg);
	fail_node(run, job, reason);
	free(reason);
}

static void on_redfish(const struct rf_target *t, int rc, const char *text, size_t n_macs, void *ctx)
{
	struct job *job = t->user_data;

	if (rc == 0)
		stored(ctx, job, "Redfish", text, n_macs);
	else if (rc == RF_E_NO_REDFISH && strcmp(job->node->bmc_type, "redfish"))
		br_info("discover", "%s: no Redfish service; trying IPMI", job->node->hostname); /* second pass */
	else
		fail_bmc(ctx, job, rc, text);
}

static void on_ipmi(const struct rf_ipmi_target *t, int rc, struct br_hw *hw, const struct br_err *err, void *ctx)
{
	struct run *run = ctx;
	struct job *job = t->user_data;
	struct br_err store_err = { 0 };
	char *summary = NULL;
	size_t n_macs = 0;

	if (rc) {
		fail_bmc(run, job, rc, err ? err->msg : NULL);
		return;
	}
	if (store_node(run->inv, job->node, hw, &summary, &n_macs, &store_err))
		fail_bmc(run, job, store_err.code, store_err.msg);
	else
		stored(run, job, "IPMI", summary, n_macs);
	free(summary);
}

/* Prepare one node: its password and addresses. Fails the node (and
 * returns nonzero) when its credential reference cannot be resolved. */
static int prepare(struct run *run, struct job *job, const char *scheme)
{
	char *why = NULL;

	if (br_bmc_endpoint(job->node, scheme, &job->password, &job->host, &job->port, &job->base_url, &why)) {
		fail_node(run, job, why);
		free(why);
		return -1;
	}
	return 0;
}

/* A node stored as discovered can be failed later in the run, when
 * another BMC's claim on one of its MACs beat it (inventory claims): the
 * summary says what the inventory says. */
static void recheck_discovered(struct run *run)
{
	for (size_t i = 0; i < run->n_jobs; i++) {
		struct job *job = &run->jobs[i];
		struct inv_node now;

		if (!job->ok || inv_node_get(run->inv, job->node->hostname, &now, NULL))
			continue;
		if (now.state == INV_FAILED) {
			job->ok = 0;
			job->via = NULL;
			free(job->reason);
			job->reason = now.reason ? br_xstrdup(now.reason) : NULL;
			run->failed++;
		}
		inv_node_release(&now);
	}
}

static json_t *summary_json(const struct run *run)
{
	json_t *arr = json_array();

	for (size_t i = 0; i < run->n_jobs; i++) {
		const struct job *j = &run->jobs[i];

		json_array_append_new(arr, json_pack("{s:s, s:s, s:o, s:o, s:I}", "hostname", j->node->hostname,
						     "result", j->ok ? "discovered" : "failed", "via",
						     br_json_string_or_null(j->via), "reason",
						     br_json_string_or_null(j->reason), "macs", (json_int_t)j->n_macs));
	}
	return json_pack("{s:o, s:I, s:I}", "nodes", arr, "discovered", (json_int_t)(run->done - run->failed),
			 "failed", (json_int_t)run->failed);
}

static void print_summary(const struct run *run)
{
	static const char *const headers[] = { "HOSTNAME", "RESULT", "VIA", "MACS", "REASON" };
	struct br_table t;

	br_table_init(&t, 5, headers);
	for (size_t i = 0; i < run->n_jobs; i++) {
		const struct job *j = &run->jobs[i];
		char macs[16];

		snprintf(macs, sizeof(macs), "%zu", j->n_macs);
		br_table_add(&t, (const char *const[]){ j->node->hostname, j->ok ? "discovered" : "failed", j->via,
							macs, j->ok ? NULL : j->reason });
	}
	br_table_print(&t, stdout);
	br_table_release(&t);
	printf("\n%zu discovered, %zu failed\n", run->done - run->failed, run->failed);
}

int main(int argc, char **argv)
{
	struct br_common_opts common = { 0 };
	struct br_bmc_opts bo;
	int workers = 0;
	const struct br_option options[] = {
		BR_BMC_OPTIONS(&bo),
		{ "workers", 0, BR_OPT_INT, &workers, "N",
		  "processes reading BMCs (default 0: min(CPUs, Redfish BMCs / 64); 1: this one)" },
		{ 0 },
	};
	const struct br_command cmd = {
		"bringup-discover", "[options] [HOST...]",
		"Read every BMC of nodes that are 'new' or 'failed' (or the named ones): MACs, serials,\n"
		"model, BIOS, boot order, firmware, PCIe, drives, PSUs, thermal, SEL. Redfish first; BMCs\n"
		"with bmc_type ipmi, or without /redfish/v1, are read with ipmitool.",
		options, &common,
	};
	static const int states[] = { INV_NEW, INV_FAILED, -1 };
	struct run run = { 0 };
	struct rf_target *rf = NULL;
	struct rf_ipmi_target *ipmi = NULL;
	struct inv_node *nodes = NULL;
	struct rf_options ropts;
	struct br_err err = { 0 };
	size_t n = 0, n_rf = 0, n_ipmi = 0;
	int argi, rc;

	br_log_init(argv[0], BR_LOG_WARN);
	if (br_bmc_opts_init(&bo, cmd.name))
		return BR_EXIT_USAGE;
	rc = br_opt_parse(&cmd, argc, argv, &argi);
	if (rc)
		return rc == BR_OPT_EXIT_OK ? BR_EXIT_OK : BR_EXIT_USAGE;
	if (br_bmc_opts_finish(&bo, cmd.name, &ropts))
		return BR_EXIT_USAGE;
	if (workers < 0 || workers > BR_WORKERS_MAX) {
		fprintf(stderr, "%s: --workers must be 0-%d\n", cmd.name, BR_WORKERS_MAX);
		return BR_EXIT_USAGE;
	}
	rc = br_stage_open_inventory(common.db, &run.inv);
	if (rc)
		return rc;
	rc = br_stage_select(run.inv, argc, argv, argi, states, &nodes, &n);
	if (!rc)
		rc = br_stage_lease(run.inv, cmd.name, argi < argc ? NULL : states, nodes, &n);
	if (rc)
		goto out;
	run.jobs = br_xcalloc(n ? n : 1, sizeof(*run.jobs));
	run.n_jobs = n;
	rf = br_xcalloc(n ? n : 1, sizeof(*rf));
	ipmi = br_xcalloc(n ? n : 1, sizeof(*ipmi));
	br_progress_init(&run.progress, "discover", n);
	for (size_t i = 0; i < n; i++) {
		struct job *job = &run.jobs[i];

		job->node = &nodes[i];
		if (prepare(&run, job, bo.scheme))
			continue;
		if (!strcmp(job->node->bmc_type, "ipmi"))
			continue;
		rf[n_rf++] = (struct rf_target){ job->node->hostname, job->base_url, job->node->bmc_user, job->password,
						 job };
	}
	/* Workers fork here, before any network I/O; each stores what its
	 * BMCs report through its own inventory connection. */
	if (!workers)
		workers = br_discover_workers_auto(n_rf);
	if (n_rf && workers > 1)
		br_info("discover", "%zu Redfish BMCs over %d worker processes", n_rf,
			(size_t)workers < n_rf ? workers : (int)n_rf);
	if (n_rf && br_discover_workers(&run.inv, rf, n_rf, &ropts, workers,
					&(const struct br_pool_hooks){ store_hw, on_redfish, &run }, &err)) {
		br_error("discover", "%s", err.msg);
		rc = BR_EXIT_USAGE;
		goto out;
	}
	/* IPMI: nodes that asked for it, and auto nodes without Redfish. */
	for (size_t i = 0; i < n; i++) {
		struct job *job = &run.jobs[i];

		if (job->done || !job->password)
			continue;
		ipmi[n_ipmi++] = (struct rf_ipmi_target){ job->node->hostname, job->host, job->port ? job->port : 623,
							  job->node->bmc_user, job->password, job };
	}
	if (n_ipmi && rf_ipmi_discover_all(ipmi, n_ipmi, bo.ipmi_parallel, bo.timeout_s, on_ipmi, &run, &err)) {
		br_error("discover", "%s", err.msg);
		rc = BR_EXIT_USAGE;
		goto out;
	}
	br_progress_finish(&run.progress);
	recheck_discovered(&run);
	if (common.json) {
		json_t *doc = summary_json(&run);

		br_json_print(stdout, doc);
		json_decref(doc);
	} else if (!common.quiet) {
		print_summary(&run);
	}
	rc = run.failed ? BR_EXIT_NODES : BR_EXIT_OK;
	if (run.inventory_error) {
		br_error("discover", "the inventory cannot be written: %s", run.inventory_error);
		rc = BR_EXIT_UNREACHABLE;
	}
out:
	for (size_t i = 0; i < run.n_jobs; i++) {
		br_secret_free(run.jobs[i].password);
		free(run.jobs[i].base_url);
		free(run.jobs[i].host);
		free(run.jobs[i].reason);
	}
	free(run.jobs);
	free(run.inventory_error);
	free(rf);
	free(ipmi);
	inv_nodes_free(nodes, n);
	br_stage_release(run.inv);
	inv_close(run.inv);
	return rc;
}
