/*
 * bringup configure: bring every discovered node to its profile's BIOS
 * baseline and PXE boot order (Redfish, iDRAC config jobs; for IPMI-only
 * BMCs bootdev pxe and a power cycle), and judge its firmware against the
 * policy. Templates are read and checked before anything is touched: a bad
 * one stops the run with FILE:LINE and exit 2.
 */
#include <stdlib.h>
#include <string.h>

#include "bmcopts.h"
#include "configure.h"
#include "loop.h"
#include "manifest.h"
#include "pool.h"
#include "stage.h"

struct run {
	struct br_stage *st; /* st->inv: reopened around the configure workers */
	struct cfg_job *jobs;
	size_t n_jobs, done, failed;
	int dry_run;
	struct br_progress progress;
	/* what each worker runs: the Redfish targets, the options */
	const struct rf_config_target *rf;
	const struct rf_options *ro;
	struct rf_config_options copts;
};

struct profiles {
	struct prof_profile *items;
	size_t n;
};

static void counted(struct run *run, const struct cfg_job *job)
{
	run->done++;
	run->failed += !job->ok;
	br_progress_update(&run->progress, run->done, run->failed);
}

static void logged(const struct cfg_job *job)
{
	if (job->interrupted)
		return;
	if (job->ok)
		br_info("configure", "%s: %s", job->node->hostname, job->reason);
	else
		br_warn("configure", "%s: %s", job->node->hostname, job->reason);
}

/* A node ended here (its credentials, its IPMI run, its worker's end):
 * recorded through this process's connection. */
static void finish(struct run *run, struct cfg_job *job, enum br_fail_kind kind, char *reason_take)
{
	struct br_err err = { 0 };

	job->done = 1;
	job->ok = kind == BR_FAIL_NONE;
	job->fail_kind = kind;
	free(job->reason);
	job->reason = reason_take;
	logged(job);
	if (cfg_job_record(run->st->inv, job, run->dry_run, &err))
		br_error("configure", "%s: %s", job->node->hostname, err.msg);
	counted(run, job);
}

static char *configured_reason(const struct cfg_job *job, int dry_run)
{
	const char *pxe = job->spec.pxe_nic ? job->spec.pxe_nic : "(boot order left alone)";

	if (dry_run)
		return br_xasprintf("%zu BIOS attributes and %s boot settings to change", job->n_changes,
				    job->boot_wanted ? "the" : "no");
	if (!job->bios_patched && !job->boot_patched)
		return br_xasprintf("already on the %s BIOS baseline; PXE first on %s", job->profile->name,
				    pxe);
	if (!job->bios_patched)
		return br_xasprintf("on the %s BIOS baseline; boot order set and verified: PXE first on %s",
				    job->profile->name, pxe);
	/* no job: the BMC's settings object, applied by the reset (not iDRAC) */
	return br_xasprintf("%s BIOS baseline applied by %s%s (%zu attributes, %d reset%s) and verified; PXE "
			    "first on %s",
			    job->profile->name, job->job ? "job " : "the reset", job->job ? job->job : "",
			    job->n_changes, job->resets, job->resets == 1 ? "" : "s", pxe);
}

/* ---- in a configure worker (or this process) ------------------------------ */

struct child {
	struct br_pool_worker *w;
	struct run *run;
	/* the slice's targets whose facts could be read, and each one's
	 * index in run->rf (the pool's numbering) */
	const struct rf_config_target *live;
	const size_t *index;
};

/* The node's outcome, recorded through the worker's own connection (not
 * when a signal stopped it: the node stays as it was, and a rerun finds
 * its BIOS job, if one was made, and waits for it), then sent on. */
static void on_redfish(const struct rf_config_target *t, int rc, const struct rf_config_result *res,
		       const struct br_err *err, void *ctx)
{
	const struct child *c = ctx;
	struct cfg_job *job = t->target.user_data;
	const char *msg = err && err->msg[0] ? err->msg : br_strerror(rc);
	struct br_err rec = { 0 };
	const char *record_error = NULL;

	cfg_job_take_result(job, res);
	free(job->reason);
	job->ok = rc == 0;
	job->fail_kind = rc ? br_bmc_failure_kind(rc) : BR_FAIL_NONE;
	job->interrupted = rc == BR_E_INTERRUPTED;
	if (rc == 0)
		job->reason = configured_reason(job, c->run->dry_run);
	else if (job->interrupted)
		job->reason = br_xstrdup(msg);
	else
		job->reason = cfg_failure_reason(rc, msg);
	if (!job->interrupted && cfg_job_record(br_pool_inv(c->w), job, c->run->dry_run, &rec))
		record_error = rec.msg;
	/* t points into c->live: rf_configure_all hands back its own targets */
	br_pool_send(c->w, c->index[t - c->live], cfg_job_outcome(job, record_error));
}

/* The node's firmware against its profile's policy, from its stored facts:
 * the firmware and the facts' source are all configure judges, and the
 * whole document would cost a millisecond a node. */
static int judge_firmware(struct inv *inv, struct cfg_job *job, struct br_err *err)
{
	struct val_check *verdicts = NULL;
	struct br_hw hw;

	if (inv_load_hw_firmware(inv, job->node->hostname, &hw, err))
		return err && err->code ? err->code : BR_E_DB;
	val_firmware_judge(job->profile, &hw, &verdicts, &job->n_fw);
	job->fw = br_checks_from_val(verdicts, job->n_fw);
	val_checks_free(verdicts, job->n_fw);
	br_hw_release(&hw);
	return 0;
}

static char *facts_unreadable(const struct br_err *err)
{
	return br_xasprintf("reading its discovered facts: %s", err->msg);
}

/* Each worker judges its own nodes' firmware, so a rack's judging is
 * spread over the workers rather than done by this process before any of
 * them starts (a tenth of a second for 512 nodes on a fast host). A node
 * whose stored facts cannot be read fails here, its BMC untouched, as it
 * always has. */
static int work(struct br_pool_worker *w, size_t first, size_t count, void *ctx, struct br_err *err)
{
	struct run *run = ctx;
	struct rf_config_target *live = br_xcalloc(count ? count : 1, sizeof(*live));
	size_t *index = br_xcalloc(count ? count : 1, sizeof(*index));
	struct child c = { w, run, live, index };
	struct rf_options ro = *run->ro;
	struct rf_config_options copts = run->copts;
	size_t n_live = 0;
	int rc = 0;

	for (size_t i = first; i < first + count; i++) {
		struct cfg_job *job = run->rf[i].target.user_data;
		struct br_err facts = { 0 }, rec = { 0 };

		if (!judge_firmware(br_pool_inv(w), job, &facts)) {
			live[n_live] = run->rf[i];
			index[n_live++] = i;
			continue;
		}
		job->ok = 0;
		job->fail_kind = BR_FAIL_STAGE;
		free(job->reason);
		job->reason = facts_unreadable(&facts);
		br_pool_send(w, i,
			     cfg_job_outcome(job, cfg_job_record(br_pool_inv(w), job, run->dry_run, &rec)
						      ? rec.msg
						      : NULL));
	}
	/* the rack's caps, shared out: requests in flight, and systems
	 * between their reset and their job's end (at most one worker per
	 * reset slot, so the parts add up to --max-resets) */
	ro.total_inflight = (int)br_pool_share(w, run->ro->total_inflight);
	copts.max_resets = (int)br_pool_share(w, run->copts.max_resets);
	if (n_live)
		rc = rf_configure_all(live, n_live, &ro, &copts, on_redfish, &c, err);
	free(live);
	free(index);
	return rc;
}

/* ---- in this process ------------------------------------------------------ */

static void on_outcome(size_t i, json_t *line, int rc, const char *why, void *ctx)
{
	struct run *run = ctx;
	struct cfg_job *job = run->rf[i].target.user_data;
	const char *record_error = NULL;

	if (!line && rc != BR_E_INTERRUPTED) { /* its worker died: the node fails, the run goes on */
		finish(run, job, BR_FAIL_WORKER, br_xstrdup(why));
		return;
	}
	if (line) {
		cfg_job_take_outcome(job, line, &record_error);
	} else {
		job->ok = 0;
		job->interrupted = 1;
		free(job->reason);
		job->reason = br_xstrdup(why);
	}
	job->done = 1;
	logged(job);
	if (record_error)
		br_error("configure", "%s: %s", job->node->hostname, record_error);
	counted(run, job);
}

static void on_ipmi(const struct rf_ipmi_target *t, int rc, struct br_hw *hw, const struct br_err *err,
		    void *ctx)
{
	struct cfg_job *job = t->user_data;

	if (rc == 0) {
		job->resets = 1;
		job->boot_patched = 1;
		finish(ctx, job, BR_FAIL_NONE,
		       br_xasprintf(
			   "PXE boot (persistent, EFI) set and power cycled over IPMI; BIOS baseline of %s "
			   "not applied: IPMI cannot set BIOS attributes",
			   job->profile->name));
	} else {
		finish(ctx, job, br_bmc_failure_kind(rc),
		       br_xstrdup(err && err->msg[0] ? err->msg : br_strerror(rc)));
	}
}

/* Load every profile the nodes name, once. Any problem ends the run. */
static int load_profiles(struct run *run, struct profiles *ps)
{
	char *dir = br_templates_dir();
	struct br_err err = { 0 };
	int rc = 0;

	if (!dir) {
		fprintf(stderr, "bringup-configure: no templates directory (set BRINGUP_TEMPLATES)\n");
		return BR_EXIT_USAGE;
	}
	ps->items = br_xcalloc(run->n_jobs ? run->n_jobs : 1, sizeof(*ps->items));
	for (size_t i = 0; i < run->n_jobs && !rc; i++) {
		struct cfg_job *job = &run->jobs[i];
		const char *name = job->node->profile;
		size_t k;

		for (k = 0; k < ps->n && strcmp(ps->items[k].name, name); k++)
			;
		if (k == ps->n && prof_load(dir, name, &ps->items[ps->n], &err)) {
			fprintf(stderr, "bringup-configure: %s (node %s)\n", err.msg, job->node->hostname);
			rc = BR_EXIT_USAGE;
			break;
		}
		if (k == ps->n)
			ps->n++;
		job->profile = &ps->items[k];
	}
	free(dir);
	return rc;
}

static void make_spec(struct cfg_job *job)
{
	const struct prof_profile *p = job->profile;

	job->spec =
	    (struct rf_config_spec){ p->bios, p->n_bios, p->pxe_nic,
				     p->boot_mode == PROF_BOOT_ONCE ? RF_BOOT_ONCE : RF_BOOT_PERSISTENT };
}

/* Credentials, address and the protocol of a node (its facts' source);
 * an IPMI node's firmware verdict too (a Redfish node's is its worker's).
 * A node that cannot even start is finished as failed here, its facts'
 * reason first, as when every node's facts were read here. */
static int prepare(struct run *run, struct cfg_job *job, const char *scheme)
{
	struct br_err err = { 0 };
	char *source = NULL, *why = NULL;

	make_spec(job);
	if (inv_hw_source(run->st->inv, job->node->hostname, &source, &err)) {
		finish(run, job, BR_FAIL_STAGE, facts_unreadable(&err));
		return -1;
	}
	job->ipmi = source && !strcmp(source, "ipmi");
	free(source);
	if (br_bmc_endpoint(job->node, scheme, &job->password, &job->host, &job->port, &job->base_url,
			    &why)) {
		if (judge_firmware(run->st->inv, job, &err)) {
			free(why);
			why = facts_unreadable(&err);
			job->ipmi = 0; /* as when the source came from the facts */
		}
		finish(run, job, BR_FAIL_STAGE, why);
		return -1;
	}
	if (job->ipmi && judge_firmware(run->st->inv, job, &err)) {
		job->ipmi = 0;
		finish(run, job, BR_FAIL_STAGE, facts_unreadable(&err));
		return -1;
	}
	return 0;
}

struct args {
	struct br_bmc_opts bmc;
	int dry_run, max_resets, poll_ms, graceful_s, job_timeout_s, workers;
	struct rf_options rf;
};

static int check_args(struct br_stage *st, struct args *a)
{
	if (br_bmc_opts_finish(&a->bmc, st->cmd->name, &a->rf))
		return st->exit = BR_EXIT_USAGE;
	if (a->max_resets < 1 || a->poll_ms < 1 || a->graceful_s < 0 || a->job_timeout_s < 1)
		return br_stage_usage(st, "counts, intervals and timeouts must be positive");
	if (a->workers < 0 || a->workers > BR_WORKERS_MAX)
		return br_stage_usage(st, "--workers must be 0-%d", BR_WORKERS_MAX);
	a->rf.use_expand = 0;	   /* configure reads single resources */
	st->no_lease = a->dry_run; /* a dry run changes nothing: it needs no lease */
	return 0;
}

/* How many worker processes run the Redfish BMCs: --workers, else one per
 * CPU and 64 BMCs; never more than the reset slots (each worker holds a
 * share of them), nor than the BMCs. */
static int workers_for(const struct args *a, size_t n_rf)
{
	int n = a->workers ? a->workers : br_workers_auto(n_rf);

	if (!a->dry_run && n > a->max_resets)
		n = a->max_resets;
	if ((size_t)n > n_rf)
		n = (int)n_rf;
	return n > 0 ? n : 1;
}

/* Profiles first (a bad one stops the run before anything is touched),
 * then Redfish config jobs, over worker processes when the rack is large,
 * then IPMI boot settings. */
static int configure(struct br_stage *st, struct run *run, struct profiles *ps, const struct args *a)
{
	struct rf_config_target *rf = br_xcalloc(st->n ? st->n : 1, sizeof(*rf));
	struct rf_ipmi_target *ipmi = br_xcalloc(st->n ? st->n : 1, sizeof(*ipmi));
	struct rf_ipmi_options io;
	struct br_err err = { 0 };
	size_t n_rf = 0, n_ipmi = 0;
	int rc, workers;

	run->st = st;
	run->dry_run = a->dry_run;
	run->jobs = br_xcalloc(st->n ? st->n : 1, sizeof(*run->jobs));
	run->n_jobs = st->n;
	for (size_t i = 0; i < st->n; i++)
		run->jobs[i].node = &st->nodes[i];
	rc = load_profiles(run, ps);
	if (rc) {
		st->exit = rc;
		goto out;
	}
	br_progress_init(&run->progress, a->dry_run ? "configure (dry run)" : "configure", st->n);
	for (size_t i = 0; i < st->n; i++) {
		struct cfg_job *job = &run->jobs[i];

		if (prepare(run, job, a->bmc.scheme))
			continue;
		if (job->ipmi && !a->dry_run)
			ipmi[n_ipmi++] = (struct rf_ipmi_target){
				job->node->hostname, job->host,	    job->port ? job->port : 623,
				job->node->bmc_user, job->password, job
			};
		else if (job->ipmi)
			finish(
			    run, job, BR_FAIL_NONE,
			    br_xstrdup("would set bootdev pxe (persistent, EFI) and power cycle over IPMI"));
		else
			rf[n_rf++] = (struct rf_config_target){
				{ job->node->hostname, job->base_url, job->node->bmc_user, job->password, job,
				  br_bmc_deadline_ms(&a->bmc, job->profile->hw.limits.configure_s,
						     BR_CONFIGURE_DEADLINE_S),
				  NULL },
				&job->spec
			};
	}
	rf_config_options_init(&run->copts);
	run->copts.dry_run = a->dry_run;
	run->copts.max_resets = a->max_resets;
	run->copts.poll_ms = a->poll_ms;
	run->copts.graceful_ms = a->graceful_s * 1000L;
	run->copts.node_timeout_ms = a->job_timeout_s * 1000L;
	run->rf = rf;
	run->ro = &a->rf;
	/* Workers fork here, before any network I/O; each runs its BMCs on
	 * its own loop and records their nodes through its own connection. */
	workers = workers_for(a, n_rf);
	if (n_rf && workers > 1)
		br_info("configure", "%zu Redfish BMCs over %d worker processes", n_rf, workers);
	if (n_rf && br_pool_run(&st->inv,
				&(const struct br_pool){ "configure", "configure", n_rf, workers,
							 CFG_WORKER_LINE_MAX, work, on_outcome, run },
				&err)) {
		rc = br_stage_fail(st, BR_EXIT_USAGE, "%s", err.msg);
		goto out;
	}
	/* a power cycle per ipmitool slot: the slots are the reset ration too */
	io = (struct rf_ipmi_options){ a->bmc.ipmi_parallel, a->bmc.timeout_s, NULL };
	if (a->max_resets < io.max_parallel)
		io.max_parallel = a->max_resets;
	if (n_ipmi && !br_signal_caught() && rf_ipmi_pxe_opts(ipmi, n_ipmi, &io, on_ipmi, run, &err)) {
		rc = br_stage_fail(st, BR_EXIT_USAGE, "%s", err.msg);
		goto out;
	}
	br_progress_finish(&run->progress);
out:
	free(rf);
	free(ipmi);
	return rc;
}

static json_t *summary_json(const void *ctx)
{
	const struct run *run = ctx;

	return cfg_jobs_json(run->jobs, run->n_jobs, run->dry_run);
}

static void print_summary(const void *ctx)
{
	const struct run *run = ctx;

	cfg_jobs_print(run->jobs, run->n_jobs, run->dry_run, stdout);
}

static void run_release(struct run *run, struct profiles *ps)
{
	for (size_t i = 0; i < run->n_jobs; i++)
		cfg_job_release(&run->jobs[i]);
	for (size_t i = 0; i < ps->n; i++)
		prof_release(&ps->items[i]);
	free(ps->items);
	free(run->jobs);
}

int main(int argc, char **argv)
{
	struct br_stage st = { 0 };
	struct args a = { .max_resets = 8, .poll_ms = 5000, .graceful_s = 120, .job_timeout_s = 1800 };
	const struct br_option options[] = {
		{ "dry-run", 'n', BR_OPT_FLAG, &a.dry_run, NULL,
		  "print what would change per node; change nothing" },
		{ "max-resets", 0, BR_OPT_INT, &a.max_resets, "N",
		  "systems resetting (reset to job end) at once (default 8)" },
		{ "poll-ms", 0, BR_OPT_INT, &a.poll_ms, "MS", "job polling interval (default 5000)" },
		{ "graceful-timeout", 0, BR_OPT_INT, &a.graceful_s, "SECONDS",
		  "GracefulRestart, then ForceRestart after this (default 120)" },
		{ "job-timeout", 0, BR_OPT_INT, &a.job_timeout_s, "SECONDS",
		  "a job not done this long after the reset fails the node (default 1800)" },
		{ "workers", 0, BR_OPT_INT, &a.workers, "N",
		  "processes configuring BMCs (default 0: min(CPUs, Redfish BMCs / 64, --max-resets); 1: "
		  "this one)" },
		BR_BMC_OPTIONS(&a.bmc),
		{ 0 },
	};
	const struct br_command cmd = {
		"bringup-configure",
		"[options] [HOST...]",
		"Bring nodes that are 'discovered' (or the named ones) to their profile's BIOS baseline\n"
		"(templates/profiles/NAME/bios.conf) through iDRAC config jobs (other BMCs: the BIOS "
		"settings\n"
		"object and a reset), put PXE on the provisioning NIC\n"
		"first, verify both, and judge firmware against firmware.conf. IPMI-only BMCs get bootdev "
		"pxe\n"
		"(persistent, EFI) and a power cycle. Nodes end 'configured' or 'failed'.",
		options,
		&st.common,
	};
	const int *states = br_stage_states("configure", 0);
	struct run run = { 0 };
	struct profiles ps = { 0 };

	if (br_bmc_opts_init(&a.bmc, cmd.name))
		return BR_EXIT_USAGE;
	if (br_stage_parse(&st, &cmd, argc, argv) || check_args(&st, &a) || br_stage_open(&st, states) ||
	    br_bmc_secrets_check(&st, NULL))
		return br_stage_close(&st);
	if (br_stage_catch_signals(&st))
		return br_stage_close(&st);
	if (!configure(&st, &run, &ps, &a))
		br_stage_report(&st, summary_json, print_summary, &run, run.failed);
	br_stage_interrupted(&st);
	run_release(&run, &ps);
	return br_stage_close(&st);
}
