/*
 * config — the configure driver and rf_configure_all: one rf_bmc per
 * system, run by drive.c as every driver is, with configure's steps
 * (config_steps.c) instead of the walker. A system's life: service root
 * -> login -> steps -> (nothing pending) -> report -> logout -> done. Resets are rationed here: at most
 * max_resets systems are between their reset and their job's end at once,
 * the rest wait in arrival order, so a rack is never power-cycled at the
 * same instant (inrush current; DHCP/PXE storms seen in the field).
 */
#include <string.h>

#include "rf_private.h"

void rf_config_options_init(struct rf_config_options *o)
{
	memset(o, 0, sizeof(*o));
	o->max_resets = 8;
	o->poll_ms = 5000;
	o->graceful_ms = 120000;
	/* a BIOS job on an XE9680 with 2 TB of RAM takes 10-15 minutes of POST */
	o->node_timeout_ms = 1800000;
}

/* ---- reset slots ---------------------------------------------------------- */

/* Whether a slot is free for the system: one over all, and one in its
 * power domain where the run limits a domain. */
static int slot_free(const struct rf_cfg_run *run, const struct rf_cfg_node *cn)
{
	if (run->resets_active >= run->o->max_resets)
		return 0;
	return cn->domain >= run->n_domains || run->o->max_resets_per_domain < 1 ||
	       run->domain_active[cn->domain] < run->o->max_resets_per_domain;
}

static void take_slot(struct rf_bmc *bmc)
{
	struct rf_cfg_node *cn = bmc->cfg;

	cn->run->resets_active++;
	if (cn->domain < cn->run->n_domains)
		cn->run->domain_active[cn->domain]++;
	cn->holds_reset = 1;
	rf_cfg_reset_granted(bmc);
}

void rf_cfg_want_reset(struct rf_bmc *bmc)
{
	struct rf_cfg_node *cn = bmc->cfg;
	struct rf_cfg_run *run = cn->run;

	if (slot_free(run, cn)) {
		take_slot(bmc);
		return;
	}
	if (run->resets_active < run->o->max_resets)
		br_debug("configure", "%s: waiting for a reset slot of power domain %s (%d of it in use)",
			 bmc->base, ((const struct rf_config_target *)bmc->target)->power_domain,
			 run->domain_active[cn->domain]);
	else
		br_debug("configure", "%s: waiting for a reset slot (%d in use)", bmc->base,
			 run->resets_active);
	cn->waiting_reset = 1;
	cn->step = "waiting for a reset slot";
	run->waiting[run->n_waiting++] = bmc;
}

/* A slot freed: it goes to the first waiting system, in arrival order,
 * that it lets reset (one of another power domain may pass one whose
 * domain is full). */
void rf_cfg_release_reset(struct rf_bmc *bmc)
{
	struct rf_cfg_node *cn = bmc->cfg;
	struct rf_cfg_run *run = cn->run;

	if (!cn->holds_reset)
		return;
	cn->holds_reset = 0;
	run->resets_active--;
	if (cn->domain < run->n_domains)
		run->domain_active[cn->domain]--;
	if (bmc->http->interrupted)
		return; /* stopping: no system is reset any more */
	while (run->head < run->n_waiting && !run->waiting[run->head]->cfg->waiting_reset)
		run->head++;
	for (size_t i = run->head; i < run->n_waiting; i++) {
		struct rf_bmc *next = run->waiting[i];

		if (!next->cfg->waiting_reset || !slot_free(run, next->cfg))
			continue;
		next->cfg->waiting_reset = 0;
		take_slot(next);
		return;
	}
}

/* ---- a system's life ------------------------------------------------------ */

static void node_release(void *node)
{
	struct rf_cfg_node *cn = node;

	free(cn->system_url);
	free(cn->bios_url);
	free(cn->settings_url);
	free(cn->settings_link);
	free(cn->reset_url);
	free(cn->manager_url);
	free(cn->boot_url);
	free(cn->job_url);
	free(cn->system_etag);
	json_decref(cn->candidates);
	json_decref(cn->system);
	json_decref(cn->attrs);
	rf_cfg_changes_free(cn->res.bios, cn->res.n_bios);
	free(cn->res.boot_current);
	free(cn->res.boot_wanted);
	free(cn->res.job);
	free(cn->res.job_state);
	free(cn->res.job_message);
	memset(cn, 0, sizeof(*cn));
}

static void report(struct rf_bmc *bmc)
{
	struct rf_cfg_node *cn = bmc->cfg;

	rf_cfg_release_reset(bmc);
	cn->waiting_reset = 0;
	cn->run->done((const struct rf_config_target *)bmc->target, bmc->failed ? bmc->err.code : 0, &cn->res,
		      bmc->failed ? &bmc->err : NULL, cn->run->ctx);
}

/* The loop broke: no slot may go to a system already given up on. */
static void on_abort(struct rf_bmc *bmc)
{
	bmc->cfg->run->head = bmc->cfg->run->n_waiting;
	report(bmc);
}

static void on_idle(struct rf_bmc *bmc)
{
	struct rf_cfg_node *cn = bmc->cfg;

	if (bmc->phase == RF_BMC_WALKING) {
		if (cn->waiting_reset && !bmc->failed)
			return; /* nothing to do until a slot frees up */
		if (!bmc->failed && !cn->finished)
			rf_bmc_failf(bmc, BR_E_STATE, "configure stopped while %s",
				     cn->step ? cn->step : "starting");
	}
	rf_bmc_wind_down(bmc, report); /* the node's record goes when the run ends */
}

static int check_run(const void *run, struct br_err *err)
{
	const struct rf_config_options *o = ((const struct rf_cfg_run *)run)->o;

	if (o->max_resets < 1 || o->max_resets_per_domain < 0 || o->poll_ms < 1 || o->graceful_ms < 0 ||
	    o->node_timeout_ms < 1)
		return br_errf(err, BR_E_INVAL, "configure: max_resets, poll and timeouts must be positive");
	return 0;
}

static int check_target(const void *run, const struct rf_target *target, struct br_err *err)
{
	(void)run;
	if (!((const struct rf_config_target *)target)->spec)
		return br_errf(err, BR_E_INVAL, "configure: target %s has no spec",
			       target->name ? target->name : "?");
	return 0;
}

static const char *domain_name(size_t i, const void *targets)
{
	return ((const struct rf_config_target *)targets)[i].power_domain;
}

static void bind_node(struct rf_bmc *bmc, void *node, void *run)
{
	struct rf_cfg_node *cn = node;

	cn->run = run;
	cn->spec = ((const struct rf_config_target *)bmc->target)->spec;
	cn->domain = cn->run->domain_of[(const struct rf_config_target *)bmc->target - cn->run->targets];
	bmc->cfg = cn;
}

static const struct rf_driver configure_driver = {
	.ready = rf_cfg_begin,
	.idle = on_idle,
	.abort = on_abort,
	.node_size = sizeof(struct rf_cfg_node),
	.check_run = check_run,
	.check_target = check_target,
	.bind = bind_node,
	.node_release = node_release,
};

int rf_configure_all(const struct rf_config_target *targets, size_t n, const struct rf_options *opts,
		     const struct rf_config_options *copts, rf_config_done_fn done, void *ctx,
		     struct br_err *err)
{
	struct rf_config_options cdefaults;
	struct rf_cfg_run run = { 0 };
	int rc;

	if (!copts) {
		rf_config_options_init(&cdefaults);
		copts = &cdefaults;
	}
	run = (struct rf_cfg_run){ .o = copts, .done = done, .ctx = ctx, .targets = targets };
	run.waiting = br_xcalloc(n, sizeof(*run.waiting));
	run.domain_of = br_xcalloc(n + 1, sizeof(*run.domain_of));
	run.n_domains = br_groups_number(n, domain_name, targets, run.domain_of, 1);
	run.domain_active = br_xcalloc(run.n_domains + 1, sizeof(*run.domain_active));
	rc = rf_drive_all(&configure_driver, targets, n, sizeof(*targets), &run, opts, err);
	free(run.waiting);
	free(run.domain_of);
	free(run.domain_active);
	return rc;
}
