/*
 * discover — the discover stage's run (discover.h): prepare each node's
 * BMC endpoint, Redfish over the discovery workers (stages/discoverpool.h),
 * IPMI for the rest, and the run's report.
 */
#include <stdlib.h>
#include <string.h>

#include "stages/discoverpool.h"
#include "discover.h"
#include "loop.h"
#include "profile/profile.h"
#include "redfish/redfish.h"

static void finish(struct stg_discover_run *run, struct stg_discover_job *job, int ok, const char *via,
		   const char *reason, size_t n_macs)
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
	br_progress_item_done(&run->progress, (size_t)(job - run->jobs), ok);
	if (run->cabling) /* a node waiting for this one's view */
		stg_cabling_bmc_flush(run->st, run->cabling, run, 0);
}

static void inventory_failed(struct stg_discover_run *run, const char *msg)
{
	if (!run->inventory_error)
		run->inventory_error = br_xstrdup(msg);
}

static void fail_node(struct stg_discover_run *run, struct stg_discover_job *job, enum br_fail_kind kind,
		      const char *reason)
{
	struct br_err err = { 0 };

	br_log_node(BR_LOG_WARN, "discover", job->node->hostname, job->node->bmc, "%s", reason);
	if (inv_node_fail(run->st->inv, job->node->hostname, job->node->state, kind, reason, &err)) {
		br_log_node(BR_LOG_ERROR, "discover", job->node->hostname, job->node->bmc, "%s", err.msg);
		if (err.code == BR_E_DB)
			inventory_failed(run, err.msg);
	}
	finish(run, job, 0, NULL, reason, 0);
}

static int store_node(struct inv *inv, const struct inv_node *node, const struct br_hw *hw, char **summary,
		      size_t *n_macs, struct br_err *err)
{
	const char *via = hw->source && !strcmp(hw->source, "ipmi") ? "IPMI" : "Redfish";
	char *reason = br_xasprintf("discovered over %s: %zu MACs, serial %s", via, br_hw_host_nics(hw),
				    hw->system_serial ? hw->system_serial : "(none)");

	if (inv_store_hw(inv, node->hostname, hw, node->state, INV_DISCOVERED, reason, err)) {
		if (err->code != BR_E_EXISTS) /* a lost MAC claim: the reason as recorded */
			br_err_prefix(err, "storing what the BMC reported");
		free(reason);
		return err->code ? err->code : BR_E_DB;
	}
	*summary = reason;
	*n_macs = br_hw_host_nics(hw);
	return 0;
}

/* The pool's store hook: runs in a discovery worker (its own inventory
 * connection) or here. */
static int store_hw(struct inv *inv, const struct rf_target *t, const struct br_hw *hw, char **summary,
		    size_t *n_macs, struct br_err *err)
{
	const struct stg_discover_job *job = t->user_data;

	return store_node(inv, job->node, hw, summary, n_macs, err);
}

/* The pool's store_failed hook: a BMC that failed the node but named the
 * machine (its serial, model, BMC MAC) leaves those in the inventory, so
 * status and tickets name it; the node fails with the reason and kind the
 * failure has. A node that is another machine (serial_mismatch) says so
 * instead. err carries the reason recorded. */
static int store_failed_hw(struct inv *inv, const struct rf_target *t, const struct br_hw *hw, int rc,
			   const char *why, struct br_err *err)
{
	const struct stg_discover_job *job = t->user_data;
	char *reason = stg_bmc_failure_reason(rc, why);
	int src;

	src = inv_store_hw_kind(inv, job->node->hostname, hw, job->node->state, INV_FAILED,
				stg_bmc_failure_kind(rc), reason, err);
	if (!src)
		br_errf(err, BR_E_EXISTS, "%s", reason);
	free(reason);
	return src == BR_E_EXISTS ? 0 : src;
}

/* A node stored discovered is judged on its cables at once and handed
 * on: with a wiring list its lease is held under a name the flow's next
 * stage does not take over (bringup/cmd-bringup-discover.c), so configure
 * cannot take it between its store (in a worker) and its judgement here;
 * given back once judged, configure may take it while the other BMCs of
 * the round are still read (a dead one held to its deadline). */
static void stored(struct stg_discover_run *run, struct stg_discover_job *job, const char *via,
		   const char *summary, size_t n_macs)
{
	br_log_node(BR_LOG_INFO, "discover", job->node->hostname, job->node->bmc, "%s", summary);
	finish(run, job, 1, via, summary, n_macs);
	if (run->cabling)
		stg_cabling_bmc_judge_node(run->st, run->cabling, run, job, 0);
}

/* A BMC that refused the credentials says so first: that is what the
 * technician fixes, whatever the protocol detail after it. */
static void fail_bmc(struct stg_discover_run *run, struct stg_discover_job *job, int rc, const char *why)
{
	const char *msg = why && why[0] ? why : br_strerror(rc);
	char *reason = stg_bmc_failure_reason(rc, msg);

	if (rc == BR_E_EXISTS) { /* a MAC claim lost: the store recorded the node failed */
		br_log_node(BR_LOG_WARN, "discover", job->node->hostname, job->node->bmc, "%s", reason);
		finish(run, job, 0, NULL, reason, 0);
		free(reason);
		return;
	}
	if (rc == BR_E_DB) /* what the BMC said could not be stored */
		inventory_failed(run, msg);
	fail_node(run, job, stg_bmc_failure_kind(rc), reason);
	free(reason);
}

static void on_redfish(const struct rf_target *t, int rc, const char *text, size_t n_macs, void *ctx)
{
	struct stg_discover_job *job = t->user_data;

	if (rc == 0)
		stored(ctx, job, "Redfish", text, n_macs);
	else if (rc == BR_E_INTERRUPTED) /* logged out; the node stays as it was for the next run */
		finish(ctx, job, 0, NULL, text ? text : "interrupted", 0);
	else if (rc == RF_E_NO_REDFISH && strcmp(job->node->bmc_type, "redfish"))
		br_log_node(BR_LOG_INFO, "discover", job->node->hostname, job->node->bmc,
			    "no Redfish service; trying IPMI"); /* second pass */
	else
		fail_bmc(ctx, job, rc, text);
}

static void on_ipmi(const struct rf_ipmi_target *t, int rc, struct br_hw *hw, const struct br_err *err,
		    void *ctx)
{
	struct stg_discover_run *run = ctx;
	struct stg_discover_job *job = t->user_data;
	struct br_err store_err = { 0 };
	char *summary = NULL;
	size_t n_macs = 0;

	if (rc && hw && (hw->system_serial || hw->bmc_mac) && rc != BR_E_INTERRUPTED) {
		/* What ipmitool read before the command that failed (the FRU's
		 * serial and model, the BMC's MAC) stays, so the ticket names
		 * the machine, as a Redfish BMC's does (store_failed_hw). */
		const char *msg = err && err->msg[0] ? err->msg : br_strerror(rc);
		char *reason = stg_bmc_failure_reason(rc, msg);
		int src = inv_store_hw_kind(run->st->inv, job->node->hostname, hw, job->node->state,
					    INV_FAILED, stg_bmc_failure_kind(rc), reason, &store_err);

		if (!src || src == BR_E_EXISTS) {
			br_warn("discover", "%s: %s", job->node->hostname, src ? store_err.msg : reason);
			finish(run, job, 0, NULL, src ? store_err.msg : reason, 0);
			free(reason);
			return;
		}
		free(reason);
	}
	if (rc) {
		fail_bmc(run, job, rc, err ? err->msg : NULL);
		return;
	}
	if (store_node(run->st->inv, job->node, hw, &summary, &n_macs, &store_err))
		fail_bmc(run, job, store_err.code, store_err.msg);
	else
		stored(run, job, "IPMI", summary, n_macs);
	free(summary);
}

/* Prepare one node: its password and addresses. Fails the node (and
 * returns nonzero) when its credential reference cannot be resolved. */
static int prepare(struct stg_discover_run *run, struct stg_discover_job *job, const char *scheme)
{
	char *why = NULL;

	if (stg_bmc_endpoint(job->node, scheme, &job->password, &job->host, &job->port, &job->base_url,
			     &why)) {
		fail_node(run, job, BR_FAIL_STAGE, why);
		free(why);
		return -1;
	}
	return 0;
}

/* A node stored as discovered can be failed later in the run, when
 * another BMC's claim on one of its MACs beat it (inventory claims): the
 * summary says what the inventory says. */
static void recheck_discovered(struct stg_discover_run *run)
{
	for (size_t i = 0; i < run->n_jobs; i++) {
		struct stg_discover_job *job = &run->jobs[i];
		struct inv_node now;

		if (!job->ok || inv_node_get(run->st->inv, job->node->hostname, &now, NULL))
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

json_t *stg_discover_json(const void *ctx)
{
	const struct stg_discover_run *run = ctx;
	json_t *arr = json_array();

	for (size_t i = 0; i < run->n_jobs; i++) {
		const struct stg_discover_job *j = &run->jobs[i];

		json_array_append_new(
		    arr, json_pack("{s:s, s:s, s:o, s:o, s:I}", "hostname", j->node->hostname, "result",
				   j->quarantined ? "quarantined"
				   : j->ok	  ? "discovered"
						  : "failed",
				   "via", br_json_string_or_null(j->via), "reason",
				   br_json_string_or_null(j->reason), "macs", (json_int_t)j->n_macs));
	}
	return json_pack("{s:o, s:I, s:I, s:I}", "nodes", arr, "discovered",
			 (json_int_t)(run->done - run->failed - run->quarantined), "failed",
			 (json_int_t)run->failed, "quarantined", (json_int_t)run->quarantined);
}

void stg_discover_print(const void *ctx)
{
	static const char *const headers[] = { "HOSTNAME", "RESULT", "VIA", "MACS", "REASON" };
	const struct stg_discover_run *run = ctx;
	struct br_table t;

	br_table_init(&t, 5, headers);
	for (size_t i = 0; i < run->n_jobs; i++) {
		const struct stg_discover_job *j = &run->jobs[i];
		char macs[16];

		snprintf(macs, sizeof(macs), "%zu", j->n_macs);
		br_table_add(&t, (const char *const[]){ j->node->hostname,
							j->quarantined ? "quarantined"
							: j->ok	       ? "discovered"
								       : "failed",
							j->via, macs,
							j->ok && !j->quarantined ? NULL : j->reason });
	}
	br_table_print(&t, stdout);
	br_table_release(&t);
	printf("\n%zu discovered, %zu failed, %zu quarantined\n", run->done - run->failed - run->quarantined,
	       run->failed, run->quarantined);
}

int stg_discover_options_check(struct stg_stage *st, struct stg_discover_options *a)
{
	if (stg_bmc_opts_finish(&a->bmc, st->cmd->name, &a->rf))
		return st->exit = STG_EXIT_USAGE;
	if (a->workers < 0 || a->workers > STG_WORKERS_MAX)
		return stg_stage_usage(st, "--workers must be 0-%d", STG_WORKERS_MAX);
	return 0;
}

/* The node's BMC deadline: --bmc-deadline, else its profile's
 * [time_limits] discover. A profile that does not load is configure's to
 * report; discovery then uses its own default. */
static long deadline_ms(struct stg_profiles *profiles, const struct inv_node *node,
			const struct stg_bmc_opts *o)
{
	const struct prof_profile *p = NULL;
	struct br_err err = { 0 };

	if (o->deadline_s <= 0 && node->profile && *node->profile &&
	    !(p = stg_profiles_get(profiles, node->profile, &err)))
		br_debug("discover", "%s: profile %s: %s", node->hostname, node->profile, err.msg);
	return stg_bmc_deadline_ms(o, p ? p->hw.limits.discover_s : 0, STG_DISCOVER_DEADLINE_S);
}

/* Whether the node's profile lets discovery switch Dell's Connection View
 * on ([boot] connection_view = enable). */
static int connection_view(struct stg_profiles *profiles, const struct inv_node *node)
{
	const struct prof_profile *p =
	    node->profile && *node->profile ? stg_profiles_get(profiles, node->profile, NULL) : NULL;

	return p && p->connection_view_enable;
}

/* Redfish first, over worker processes when the rack is large; then IPMI
 * for nodes that asked for it and auto nodes without Redfish. */
int stg_discover_run(struct stg_stage *st, const struct stg_discover_options *a, struct stg_discover_run *run)
{
	struct rf_target *rf = br_xcalloc(st->n ? st->n : 1, sizeof(*rf));
	struct rf_ipmi_target *ipmi = br_xcalloc(st->n ? st->n : 1, sizeof(*ipmi));
	struct br_err err = { 0 };
	struct stg_profiles profiles = { 0 };
	struct stg_cabling_bmc cabling;
	size_t n_rf = 0, n_ipmi = 0;
	int workers = a->workers, rc = 0;

	/* before any node: a bad wiring list or switches file is the operator's */
	if (stg_cabling_bmc_load(st, a->wiring, a->switches, &cabling)) {
		free(rf);
		free(ipmi);
		return st->exit;
	}
	run->st = st;
	run->cabling = cabling.have_wiring ? &cabling : NULL;
	run->jobs = br_xcalloc(st->n ? st->n : 1, sizeof(*run->jobs));
	run->n_jobs = st->n;
	br_progress_init(&run->progress, "discover", st->n);
	for (size_t i = 0; i < st->n; i++) {
		struct stg_discover_job *job = &run->jobs[i];

		job->node = &st->nodes[i];
		br_progress_item(&run->progress, i, job->node->hostname);
		if (prepare(run, job, a->bmc.scheme) || !strcmp(job->node->bmc_type, "ipmi"))
			continue;
		rf[n_rf++] = (struct rf_target){ job->node->hostname,
						 job->base_url,
						 job->node->bmc_user,
						 job->password,
						 job,
						 deadline_ms(&profiles, job->node, &a->bmc),
						 job->node->bmc_system,
						 connection_view(&profiles, job->node) };
	}
	/* Workers fork here, before any network I/O; each stores what its
	 * BMCs report through its own inventory connection. */
	if (!workers)
		workers = stg_discover_workers_auto(n_rf);
	if (n_rf && workers > 1)
		br_info("discover", "%zu Redfish BMCs over %d worker processes", n_rf,
			(size_t)workers < n_rf ? workers : (int)n_rf);
	if (n_rf &&
	    stg_discover_workers(
		&st->inv, rf, n_rf, &a->rf, workers,
		&(const struct stg_discover_hooks){ store_hw, on_redfish, run, store_failed_hw }, &err))
		rc = stg_stage_fail(st, STG_EXIT_USAGE, "%s", err.msg);
	for (size_t i = 0; i < st->n && !rc; i++) {
		struct stg_discover_job *job = &run->jobs[i];

		if (!job->done && job->password)
			ipmi[n_ipmi++] = (struct rf_ipmi_target){
				job->node->hostname, job->host,	    job->port ? job->port : 623,
				job->node->bmc_user, job->password, job
			};
	}
	if (!rc && n_ipmi && !br_signal_caught() &&
	    rf_ipmi_discover_all(ipmi, n_ipmi, a->bmc.ipmi_parallel, a->bmc.timeout_s, on_ipmi, run, &err))
		rc = stg_stage_fail(st, STG_EXIT_USAGE, "%s", err.msg);
	if (!rc) {
		br_progress_finish(&run->progress);
		recheck_discovered(run);
	}
	if (run->cabling)
		stg_cabling_bmc_flush(st, run->cabling, run, 1);
	run->cabling = NULL;
	stg_cabling_bmc_release(&cabling);
	free(rf);
	free(ipmi);
	stg_profiles_release(&profiles);
	return rc;
}

void stg_discover_run_release(struct stg_discover_run *run)
{
	br_progress_release(&run->progress);
	for (size_t i = 0; i < run->n_jobs; i++) {
		br_secret_free(run->jobs[i].password);
		free(run->jobs[i].base_url);
		free(run->jobs[i].host);
		free(run->jobs[i].reason);
	}
	free(run->jobs);
	free(run->inventory_error);
}
