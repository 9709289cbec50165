/*
 * configure_run — the configure stage's run (configure.h): every profile
 * loaded first, Redfish config jobs over the configure workers
 * (stages/workers.h), IPMI boot settings for the rest, and the report.
 */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "config.h"
#include "stages/workers.h"
#include "configure.h"
#include "loop.h"

static void counted(struct stg_configure_run *run, const struct stg_configure_job *job)
{
	run->done++;
	run->failed += !job->ok;
	br_progress_item_done(&run->progress, (size_t)(job - run->jobs), job->ok);
}

static void logged(const struct stg_configure_job *job)
{
	if (job->interrupted)
		return;
	if (job->ok)
		br_log_node(BR_LOG_INFO, "configure", job->node->hostname, job->node->bmc, "%s", job->reason);
	else
		br_log_node(BR_LOG_WARN, "configure", job->node->hostname, job->node->bmc, "%s", job->reason);
}

/* A node ended here (its credentials, its IPMI run, its worker's end):
 * recorded through this process's connection. */
static void finish(struct stg_configure_run *run, struct stg_configure_job *job, enum br_fail_kind kind,
		   char *reason_take)
{
	struct br_err err = { 0 };

	job->done = 1;
	job->ok = kind == BR_FAIL_NONE;
	job->fail_kind = kind;
	free(job->reason);
	job->reason = reason_take;
	logged(job);
	if (stg_configure_job_record(run->st->inv, job, run->dry_run, &err)) {
		br_log_node(BR_LOG_ERROR, "configure", job->node->hostname, job->node->bmc, "%s", err.msg);
		if (stg_inventory_refused(&err))
			stg_stage_unwritable(run->st, 1, err.msg);
	}
	counted(run, job);
}

static char *configured_text(const struct stg_configure_job *job, int dry_run)
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

static char *configured_reason(const struct stg_configure_job *job, int dry_run)
{
	char *text = configured_text(job, dry_run), *with;

	if (!job->pxe_note || dry_run)
		return text;
	with = br_xasprintf("%s (%s)", text, job->pxe_note);
	free(text);
	return with;
}

/* ---- in a configure worker (or this process) ------------------------------ */

struct child {
	struct br_pool_worker *w;
	struct stg_configure_run *run;
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
	struct stg_configure_job *job = t->target.user_data;
	const char *msg = err && err->msg[0] ? err->msg : br_strerror(rc);
	struct br_err rec = { 0 };
	const char *record_error = NULL;

	stg_configure_job_take_result(job, res);
	free(job->reason);
	job->ok = rc == 0;
	job->fail_kind = rc ? stg_bmc_failure_kind(rc) : BR_FAIL_NONE;
	job->interrupted = rc == BR_E_INTERRUPTED;
	if (rc == 0)
		job->reason = configured_reason(job, c->run->dry_run);
	else if (job->interrupted)
		job->reason = br_xstrdup(msg);
	else
		job->reason = stg_configure_failure_reason(rc, msg);
	if (!job->interrupted && stg_configure_job_record(stg_pool_inv(c->w), job, c->run->dry_run, &rec)) {
		record_error = rec.msg;
		job->record_refused = stg_inventory_refused(&rec);
	}
	/* t points into c->live: rf_configure_all hands back its own targets */
	br_pool_send(c->w, c->index[t - c->live], stg_configure_job_outcome(job, record_error));
}

/* The node's firmware against its profile's policy, from its stored facts:
 * the firmware and the facts' source are all configure judges, and the
 * whole document would cost a millisecond a node. */
static int judge_firmware(struct inv *inv, struct stg_configure_job *job, struct br_err *err)
{
	struct val_check *verdicts = NULL;
	struct br_hw hw;

	if (inv_load_hw_firmware(inv, job->node->hostname, &hw, err))
		return err && err->code ? err->code : BR_E_DB;
	val_firmware_judge(job->profile, &hw, &verdicts, &job->n_fw);
	job->fw = stg_checks_from_val(verdicts, job->n_fw);
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
	struct stg_configure_run *run = ctx;
	struct rf_config_target *live = br_xcalloc(count ? count : 1, sizeof(*live));
	size_t *index = br_xcalloc(count ? count : 1, sizeof(*index));
	struct child c = { w, run, live, index };
	struct rf_options ro = *run->ro;
	struct rf_config_options copts = run->copts;
	size_t n_live = 0;
	int rc = 0;

	for (size_t i = first; i < first + count; i++) {
		struct stg_configure_job *job = run->rf[i].target.user_data;
		struct br_err facts = { 0 }, rec = { 0 };

		if (!judge_firmware(stg_pool_inv(w), job, &facts)) {
			live[n_live] = run->rf[i];
			index[n_live++] = i;
			continue;
		}
		job->ok = 0;
		job->fail_kind = BR_FAIL_STAGE;
		free(job->reason);
		job->reason = facts_unreadable(&facts);
		br_pool_send(w, i,
			     stg_configure_job_outcome(
				 job, stg_configure_job_record(stg_pool_inv(w), job, run->dry_run, &rec)
					  ? rec.msg
					  : NULL));
	}
	/* the rack's caps, shared out: requests in flight, and systems
	 * between their reset and their job's end (at most one worker per
	 * reset slot, so the parts add up to --max-resets) */
	ro.total_inflight = (int)br_pool_share(w, run->ro->total_inflight);
	stg_bmc_sessions_record(&ro, stg_pool_inv(w));
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
	struct stg_configure_run *run = ctx;
	struct stg_configure_job *job = run->rf[i].target.user_data;
	const char *record_error = NULL;

	if (!line && rc != BR_E_INTERRUPTED) { /* its worker died: the node fails, the run goes on */
		finish(run, job, BR_FAIL_WORKER, br_xstrdup(why));
		return;
	}
	if (line) {
		stg_configure_job_take_outcome(job, line, &record_error);
	} else {
		job->ok = 0;
		job->interrupted = 1;
		free(job->reason);
		job->reason = br_xstrdup(why);
	}
	job->done = 1;
	logged(job);
	if (record_error)
		br_log_node(BR_LOG_ERROR, "configure", job->node->hostname, job->node->bmc, "%s",
			    record_error);
	if (record_error && job->record_refused)
		stg_stage_unwritable(run->st, 1, record_error);
	counted(run, job);
}

static const char *ipmi_power_domain(const struct rf_ipmi_target *t)
{
	return ((const struct stg_configure_job *)t->user_data)->node->power_domain;
}

static void on_ipmi(const struct rf_ipmi_target *t, int rc, struct br_hw *hw, const struct br_err *err,
		    void *ctx)
{
	struct stg_configure_job *job = t->user_data;

	if (rc == 0) {
		job->resets = 1;
		job->boot_patched = 1;
		finish(ctx, job, BR_FAIL_NONE,
		       br_xasprintf(
			   "PXE boot (persistent, EFI) set and power cycled over IPMI; BIOS baseline of %s "
			   "not applied: IPMI cannot set BIOS attributes",
			   job->profile->name));
	} else {
		finish(ctx, job, stg_bmc_failure_kind(rc),
		       br_xstrdup(err && err->msg[0] ? err->msg : br_strerror(rc)));
	}
}

/* Load every profile the nodes name, once, into ps (zeroed by the caller,
 * released by it whatever the result). A problem: STG_EXIT_USAGE, said. */
static int profiles_load(const struct inv_node *nodes, size_t n, struct stg_configure_profiles *ps)
{
	char *dir = stg_templates_dir();
	struct br_err err = { 0 };
	int rc = 0;

	if (!dir) {
		fprintf(stderr, "bringup-configure: no templates directory (set BRINGUP_TEMPLATES)\n");
		return STG_EXIT_USAGE;
	}
	/* room for every node's, beside those loaded already */
	ps->items = br_xrealloc(ps->items, (ps->n + n + 1) * sizeof(*ps->items));
	memset(&ps->items[ps->n], 0, (n + 1) * sizeof(*ps->items));
	for (size_t i = 0; i < n && !rc; i++) {
		const char *name = nodes[i].profile;
		size_t k;

		for (k = 0; k < ps->n && strcmp(ps->items[k].name, name); k++)
			;
		if (k < ps->n)
			continue;
		if (stg_profile_load(dir, name, &ps->items[ps->n], &err)) {
			fprintf(stderr, "bringup-configure: %s (node %s)\n", err.msg, nodes[i].hostname);
			rc = STG_EXIT_USAGE;
			break;
		}
		ps->n++;
	}
	free(dir);
	return rc;
}

static void profiles_release(struct stg_configure_profiles *ps)
{
	for (size_t i = 0; i < ps->n; i++)
		prof_release(&ps->items[i]);
	free(ps->items);
	ps->items = NULL;
	ps->n = 0;
}

/* A wiring or switches file refused: its problems, then why, exit 2. */
static int input_refused(struct br_strlist *problems, const struct br_err *err)
{
	for (size_t i = 0; i < problems->n; i++)
		fprintf(stderr, "%s\n", problems->items[i]);
	br_strlist_release(problems);
	fprintf(stderr, "bringup-configure: %s\n", err->msg);
	return STG_EXIT_USAGE;
}

static int switches_load(const char *path, struct val_switches *ret)
{
	struct br_strlist problems = { 0 };
	struct br_err err = { 0 };

	return val_switches_load(path, ret, &problems, &err) ? input_refused(&problems, &err) : 0;
}

static int wiring_load(const char *path, struct val_wiring *ret)
{
	struct br_strlist problems = { 0 };
	struct br_err err = { 0 };

	return val_wiring_load(path, ret, &problems, &err) ? input_refused(&problems, &err) : 0;
}

void stg_configure_inputs_release(struct stg_configure_inputs *in)
{
	profiles_release(&in->profiles);
	if (in->have_switches)
		val_switches_release(&in->switches);
	if (in->have_wiring)
		val_wiring_release(&in->wiring);
	in->have_switches = in->have_wiring = 0;
}

/* What in lacks of nodes' inputs, loaded into it. */
static int inputs_load(struct stg_configure_inputs *in, const struct inv_node *nodes, size_t n)
{
	const struct stg_configure_options *a = in->o;
	int rc = profiles_load(nodes, n, &in->profiles);

	if (!rc && a->switches && !in->have_switches && !(rc = switches_load(a->switches, &in->switches)))
		in->have_switches = 1;
	if (!rc && a->wiring && !in->have_wiring && !(rc = wiring_load(a->wiring, &in->wiring)))
		in->have_wiring = 1;
	return rc;
}

int stg_configure_inputs_check(const struct inv_node *nodes, size_t n, void *ctx)
{
	struct stg_configure_inputs *in = ctx;

	stg_configure_inputs_release(in); /* a round that leased nothing */
	return inputs_load(in, nodes, n);
}

/* The inputs of the run's nodes (those the check loaded taken over), each
 * job pointed at its profile. */
static int load_inputs(struct stg_configure_run *run, const struct stg_configure_options *a,
		       struct stg_configure_inputs *checked)
{
	struct stg_configure_profiles *ps = &run->inputs.profiles;
	int rc;

	run->inputs = (struct stg_configure_inputs){ .o = a };
	if (checked) {
		const struct stg_configure_options *o = checked->o;

		run->inputs = *checked;
		run->inputs.o = a;
		*checked = (struct stg_configure_inputs){ .o = o };
	}
	rc = inputs_load(&run->inputs, run->st->nodes, run->n_jobs);
	for (size_t i = 0; !rc && i < run->n_jobs; i++) {
		struct stg_configure_job *job = &run->jobs[i];
		size_t k;

		for (k = 0; k < ps->n && strcmp(ps->items[k].name, job->node->profile); k++)
			;
		job->profile = &ps->items[k];
	}
	return rc;
}

/* The switch a BMC port sees, as the wiring list and the profile name it. */
static const char *seen_switch(const struct stg_configure_run *run, const struct br_neighbor *nb)
{
	const struct stg_configure_inputs *in = &run->inputs;
	const char *name = in->have_switches ? val_switch_by_chassis(&in->switches, nb->chassis_id) : NULL;

	return name ? name : nb->system_name ? nb->system_name : nb->chassis_id;
}

/* PXE on the host port the BMC sees cabled to the provisioning switch,
 * whatever port the profile names (a profile written for another riser
 * layout, a LOM port renamed by a firmware update). The provisioning
 * switch is the one the wiring list's cable of role provisioning of this
 * node goes to (the switch port it names preferred), else the profile's
 * [boot] pxe_switch (a name or pattern). The profile's port wins where it
 * is cabled there too, or where the BMC shows no such port; the reason
 * says which it was. */
static void choose_pxe(struct stg_configure_run *run, struct stg_configure_job *job)
{
	const struct prof_profile *p = job->profile;
	const struct br_neighbor *pick = NULL;
	const char *wired = NULL, *wired_host_port = NULL, *wired_port = NULL;
	char *want = NULL, *by = NULL;
	unsigned line = 0;
	size_t n_wired = 0;
	int best = 0;
	struct br_hw hw;

	if (!p->pxe_nic)
		return;
	if (run->inputs.have_wiring)
		wired = val_wiring_host_role(&run->inputs.wiring, job->node->hostname, VAL_ROLE_PROVISIONING,
					     &wired_host_port, &wired_port, &line, &n_wired);
	if (n_wired > 1) {
		job->pxe_note = br_xasprintf("the wiring list gives %zu provisioning cables (the first at "
					     "line %u): PXE on the profile's port",
					     n_wired, line);
		return;
	}
	if (wired) {
		want = br_xasprintf("%s %s", wired, wired_port);
		by = br_xasprintf("by the wiring list's line %u (%s, role " VAL_ROLE_PROVISIONING ")", line,
				  wired_host_port);
	} else if (!p->pxe_switch) {
		return;
	}
	if (inv_load_hw_neighbors(run->st->inv, job->node->hostname, &hw, NULL) || !hw.n_neighbors) {
		job->pxe_note = br_xasprintf("the BMC shows no switch neighbours: PXE on the profile's port");
		br_hw_release(&hw);
		goto out;
	}
	for (size_t i = 0; i < hw.n_neighbors; i++) {
		const struct br_neighbor *nb = &hw.neighbors[i];
		const char *sw = nb->link ? seen_switch(run, nb) : NULL;
		int score;

		if (!sw || !nb->port || strncmp(nb->port, "NIC.", 4))
			continue;
		if (wired ? !val_same_device(sw, wired) : fnmatch(p->pxe_switch, sw, 0) != 0)
			continue;
		/* the designed switch port first, then the profile's port */
		score = 1 + !strcasecmp(nb->port, p->pxe_nic) +
			2 * (wired && nb->port_id && !strcasecmp(nb->port_id, wired_port));
		if (score > best) {
			pick = nb;
			best = score;
		}
	}
	if (!pick) {
		job->pxe_note = br_xasprintf("no host port the BMC shows is cabled to %s %s: PXE on the "
					     "profile's %s",
					     wired ? "the provisioning switch" : "a switch matching",
					     wired ? want : p->pxe_switch, p->pxe_nic);
	} else if (!strcasecmp(pick->port, p->pxe_nic)) {
		job->pxe_note =
		    br_xasprintf("cabled to %s %s, the provisioning switch%s%s", seen_switch(run, pick),
				 pick->port_id ? pick->port_id : "?", by ? " " : "", by ? by : "");
	} else {
		job->pxe_chosen = br_xstrdup(pick->port);
		job->pxe_note =
		    br_xasprintf("cabled to %s %s, the provisioning switch%s%s; the profile names "
				 "%s, which is not",
				 seen_switch(run, pick), pick->port_id ? pick->port_id : "?", by ? " " : "",
				 by ? by : "", p->pxe_nic);
	}
	br_hw_release(&hw);
out:
	free(want);
	free(by);
}

static void make_spec(struct stg_configure_run *run, struct stg_configure_job *job)
{
	const struct prof_profile *p = job->profile;

	choose_pxe(run, job);
	job->spec =
	    (struct rf_config_spec){ p->bios, p->n_bios, job->pxe_chosen ? job->pxe_chosen : p->pxe_nic,
				     p->boot_mode == PROF_BOOT_ONCE ? RF_BOOT_ONCE : RF_BOOT_PERSISTENT };
	if (!job->pxe_chosen)
		return;
	/* the baseline's PXE device attributes name the port chosen */
	job->bios_pxe = br_xcalloc(p->n_bios ? p->n_bios : 1, sizeof(*job->bios_pxe));
	for (size_t i = 0; i < p->n_bios; i++) {
		job->bios_pxe[i].key = br_xstrdup(p->bios[i].key);
		job->bios_pxe[i].value = br_xstrdup(
		    p->bios[i].value && !strcasecmp(p->bios[i].value, p->pxe_nic) ? job->pxe_chosen
										  : p->bios[i].value);
	}
	job->spec.bios = job->bios_pxe;
}

/* Credentials, address and the protocol of a node (its facts' source);
 * an IPMI node's firmware verdict too (a Redfish node's is its worker's).
 * A node that cannot even start is finished as failed here, its facts'
 * reason first, as when every node's facts were read here. */
static int prepare(struct stg_configure_run *run, struct stg_configure_job *job, const char *scheme)
{
	struct br_err err = { 0 };
	char *source = NULL, *why = NULL;

	make_spec(run, job);
	if (inv_hw_source(run->st->inv, job->node->hostname, &source, &err)) {
		finish(run, job, BR_FAIL_STAGE, facts_unreadable(&err));
		return -1;
	}
	job->ipmi = source && !strcmp(source, "ipmi");
	free(source);
	if (stg_bmc_endpoint(job->node, scheme, &job->password, &job->host, &job->port, &job->base_url,
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

int stg_configure_options_check(struct stg_stage *st, struct stg_configure_options *a)
{
	if (stg_bmc_opts_finish(&a->bmc, st->cmd->name, &a->rf))
		return st->exit = STG_EXIT_USAGE;
	if (a->max_resets < 1)
		return stg_stage_usage(st, "--max-resets %d: at least 1 system must be allowed to reset",
				       a->max_resets);
	if (a->max_resets_per_domain < 0)
		return stg_stage_usage(st,
				       "--max-resets-per-power-domain %d: 0 (no limit of its own) or more",
				       a->max_resets_per_domain);
	if (a->poll_ms < 1 || a->graceful_s < 0 || a->job_timeout_s < 1)
		return stg_stage_usage(st,
				       "--poll-ms and --job-timeout must be positive, --graceful-timeout not "
				       "negative");
	if (a->workers < 0 || a->workers > STG_WORKERS_MAX)
		return stg_stage_usage(st, "--workers must be 0-%d", STG_WORKERS_MAX);
	a->rf.use_expand = 0;	   /* configure reads single resources */
	st->no_lease = a->dry_run; /* a dry run changes nothing: it needs no lease */
	return 0;
}

/* How many worker processes run the Redfish BMCs: --workers, else one per
 * CPU and 64 BMCs; never more than the reset slots (each worker holds a
 * share of them), nor than the BMCs. */
int stg_configure_workers(const struct stg_configure_options *a, size_t n_rf)
{
	int n = a->workers ? a->workers : stg_workers_auto(n_rf);

	if (!a->dry_run && n > a->max_resets)
		n = a->max_resets;
	if ((size_t)n > n_rf)
		n = (int)n_rf;
	return n > 0 ? n : 1;
}

/* The order workers take systems in where a power domain's resets are
 * limited: a domain's systems one after another (the manifest's order
 * within it), so that none is split between two workers, each of which
 * would allow the domain's limit. */
static int by_power_domain(const void *a, const void *b)
{
	const struct rf_config_target *x = a, *y = b;
	const struct stg_configure_job *jx = x->target.user_data, *jy = y->target.user_data;
	int c = strcmp(x->power_domain ? x->power_domain : "", y->power_domain ? y->power_domain : "");

	if (c)
		return c;
	return jx < jy ? -1 : jx > jy;
}

static int same_domain(size_t i, void *ctx)
{
	const struct stg_configure_run *run = ctx;
	const char *d = run->rf[i].power_domain, *before = run->rf[i - 1].power_domain;

	return d && *d && before && !strcmp(d, before);
}

/* Profiles first (a bad one stops the run before anything is touched),
 * then Redfish config jobs, over worker processes when the rack is large,
 * then IPMI boot settings. */
int stg_configure_run(struct stg_stage *st, const struct stg_configure_options *a,
		      struct stg_configure_inputs *in, struct stg_configure_run *run)
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
	rc = load_inputs(run, a, in);
	if (rc) {
		st->exit = rc;
		goto out;
	}
	br_progress_init(&run->progress, a->dry_run ? "configure (dry run)" : "configure", st->n);
	for (size_t i = 0; i < st->n; i++) {
		struct stg_configure_job *job = &run->jobs[i];

		br_progress_item(&run->progress, i, job->node->hostname);
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
				  stg_bmc_deadline_ms(&a->bmc, job->profile->hw.limits.configure_s,
						      STG_CONFIGURE_DEADLINE_S),
				  job->node->bmc_system, 0 },
				&job->spec,
				job->node->power_domain
			};
	}
	rf_config_options_init(&run->copts);
	run->copts.dry_run = a->dry_run;
	run->copts.max_resets = a->max_resets;
	run->copts.max_resets_per_domain = a->max_resets_per_domain;
	run->copts.poll_ms = a->poll_ms;
	run->copts.graceful_ms = a->graceful_s * 1000L;
	run->copts.node_timeout_ms = a->job_timeout_s * 1000L;
	run->rf = rf;
	run->ro = &a->rf;
	/* Workers fork here, before any network I/O; each runs its BMCs on
	 * its own loop and records their nodes through its own connection. */
	workers = stg_configure_workers(a, n_rf);
	if (n_rf && workers > 1)
		br_info("configure", "%zu Redfish BMCs over %d worker processes", n_rf, workers);
	if (workers > 1 && a->max_resets_per_domain > 0)
		qsort(rf, n_rf, sizeof(*rf), by_power_domain);
	if (n_rf &&
	    stg_pool_run(&st->inv,
			 &(const struct br_pool){ "configure", "configure", n_rf, workers,
						  STG_CONFIGURE_WORKER_LINE_MAX, work, on_outcome, run,
						  a->max_resets_per_domain > 0 ? same_domain : NULL },
			 &err)) {
		rc = stg_stage_fail(st, STG_EXIT_USAGE, "%s", err.msg);
		goto out;
	}
	/* a power cycle per ipmitool slot: the slots are the reset ration too */
	io = (struct rf_ipmi_options){ a->bmc.ipmi_parallel, a->bmc.timeout_s, NULL, a->max_resets_per_domain,
				       ipmi_power_domain };
	if (a->max_resets < io.max_parallel)
		io.max_parallel = a->max_resets;
	if (n_ipmi && !br_signal_caught() && rf_ipmi_pxe_opts(ipmi, n_ipmi, &io, on_ipmi, run, &err)) {
		rc = stg_stage_fail(st, STG_EXIT_USAGE, "%s", err.msg);
		goto out;
	}
	br_progress_finish(&run->progress);
out:
	free(rf);
	free(ipmi);
	return rc;
}

json_t *stg_configure_json(const void *ctx)
{
	const struct stg_configure_run *run = ctx;

	return stg_configure_jobs_json(run->jobs, run->n_jobs, run->dry_run);
}

void stg_configure_print(const void *ctx)
{
	const struct stg_configure_run *run = ctx;

	stg_configure_jobs_print(run->jobs, run->n_jobs, run->dry_run, stdout);
}

void stg_configure_run_release(struct stg_configure_run *run)
{
	br_progress_release(&run->progress);
	for (size_t i = 0; i < run->n_jobs; i++)
		stg_configure_job_release(&run->jobs[i]);
	stg_configure_inputs_release(&run->inputs);
	free(run->jobs);
}
