/*
 * firmware — the firmware driver and rf_firmware_all: one rf_bmc per
 * machine, run by drive.c as every driver is, admitted only as an update slot
 * frees up (max_updates over all, and each group's max: its rack's, its
 * power domain's), with the steps of firmware_steps.c. A machine's life:
 * admitted -> service root -> login -> steps -> (nothing pending) ->
 * report, slot given back -> logout.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rf_private.h"
#include "rf_firmware.h"

void rf_fw_options_init(struct rf_fw_options *o)
{
	memset(o, 0, sizeof(*o));
	o->max_updates = 4;
	o->poll_ms = 5000;
	o->task_timeout_ms = 3600000;
	/* an iDRAC9 takes 5-10 minutes to flash and reboot itself */
	o->bmc_return_ms = 900000;
	o->apply_time = "Immediate";
}

/* ---- update slots ------------------------------------------------------------ */

static const size_t *groups_of(const struct rf_fw_node *fn)
{
	return &fn->run->group_of[fn->index * RF_FW_GROUP_KINDS];
}

/* A slot over all, and one in each of the machine's groups whose limit
 * (its profile's) has room. Every machine of a group counts, whatever its
 * own profile's limit: the rack's feed is shared. */
static int admit(struct rf_bmc *bmc)
{
	struct rf_fw_node *fn = bmc->fw;
	struct rf_fw_run *run = fn->run;
	const size_t *g = groups_of(fn);

	if (run->active >= run->o->max_updates)
		return 0;
	for (size_t k = 0; k < RF_FW_GROUP_KINDS; k++)
		if (g[k] < run->n_groups && fn->t->groups[k].max > 0 &&
		    run->groups[g[k]].active >= fn->t->groups[k].max)
			return 0;
	run->active++;
	if (run->active > run->peak)
		run->peak = run->active;
	for (size_t k = 0; k < RF_FW_GROUP_KINDS; k++)
		if (g[k] < run->n_groups)
			run->groups[g[k]].active++;
	fn->holds_slot = 1;
	return 1;
}

static void release_slot(struct rf_bmc *bmc)
{
	struct rf_fw_node *fn = bmc->fw;
	const size_t *g;

	if (!fn->holds_slot)
		return;
	fn->holds_slot = 0;
	fn->run->active--;
	g = groups_of(fn);
	for (size_t k = 0; k < RF_FW_GROUP_KINDS; k++)
		if (g[k] < fn->run->n_groups)
			fn->run->groups[g[k]].active--;
}

/* Each target's group of each kind, numbered once for the run (a target
 * without a name of that kind is in none: SIZE_MAX, never below
 * n_groups); the kinds' numbers follow one another. */
struct kind_names {
	const struct rf_fw_target *targets;
	size_t kind;
};

static const char *group_name(size_t i, const void *ctx)
{
	const struct kind_names *k = ctx;

	return k->targets[i].groups[k->kind].name;
}

static void number_groups(struct rf_fw_run *run, size_t n)
{
	run->group_of = br_xcalloc(n * RF_FW_GROUP_KINDS + 1, sizeof(*run->group_of));
	run->n_groups = 0;
	for (size_t k = 0; k < RF_FW_GROUP_KINDS; k++) {
		const struct kind_names names = { run->targets, k };
		size_t first = run->n_groups;

		run->n_groups +=
		    br_groups_number(n, group_name, &names, run->group_of + k, RF_FW_GROUP_KINDS);
		for (size_t i = 0; first && i < n; i++)
			if (run->group_of[i * RF_FW_GROUP_KINDS + k] != SIZE_MAX)
				run->group_of[i * RF_FW_GROUP_KINDS + k] += first;
	}
	run->groups = br_xcalloc(run->n_groups + 1, sizeof(*run->groups));
}

/* ---- a machine's life ---------------------------------------------------------- */

static void node_release(void *node)
{
	struct rf_fw_node *fn = node;

	for (size_t i = 0; i < fn->res.n_steps; i++) {
		struct rf_fw_step *s = &fn->res.steps[i];

		free(s->from_version);
		free(s->version);
		free(s->task);
		free(s->task_state);
		free(s->message);
	}
	free(fn->res.steps);
	br_hw_release(&fn->res.inventory);
	free(fn->multipart_url);
	free(fn->simple_url);
	free(fn->inventory_url);
	free(fn->tasks_url);
	free(fn->ilo_push_url);
	free(fn->update_url);
	free(fn->ilo_prior);
	free(fn->task_url);
	free(fn->params);
	free(fn->apply_multipart);
	free(fn->apply_simple);
	json_decref(fn->members);
	json_decref(fn->tasks);
	rf_urlset_release(&fn->seen);
	memset(fn, 0, sizeof(*fn));
}

static void report(struct rf_bmc *bmc)
{
	struct rf_fw_node *fn = bmc->fw;

	release_slot(bmc);
	fn->run->done(fn->t, bmc->failed ? bmc->err.code : 0, &fn->res, bmc->failed ? &bmc->err : NULL,
		      fn->run->ctx);
}

static void on_abort(struct rf_bmc *bmc)
{
	report(bmc);
}

static void on_idle(struct rf_bmc *bmc)
{
	struct rf_fw_node *fn = bmc->fw;

	if (bmc->phase == RF_BMC_WALKING && !bmc->failed && !fn->finished)
		rf_bmc_failf(bmc, BR_E_STATE, "firmware stopped while %s", fn->step ? fn->step : "starting");
	rf_bmc_wind_down(bmc, report);
}

static int check_run(const void *run, struct br_err *err)
{
	const struct rf_fw_options *o = ((const struct rf_fw_run *)run)->o;

	if (o->max_updates < 1 || o->poll_ms < 1 || o->task_timeout_ms < 1 || o->bmc_return_ms < 1)
		return br_errf(err, BR_E_INVAL, "firmware: max_updates, poll and timeouts must be positive");
	if (!o->apply_time || !*o->apply_time)
		return br_errf(err, BR_E_INVAL, "firmware: no apply time");
	return 0;
}

static int check_target(const void *run, const struct rf_target *target, struct br_err *err)
{
	(void)run;
	const struct rf_fw_target *t = (const struct rf_fw_target *)target;

	for (size_t u = 0; u < t->n_updates; u++)
		if (!t->updates[u].component || !t->updates[u].version || !t->updates[u].file_name ||
		    !t->updates[u].image)
			return br_errf(err, BR_E_INVAL, "firmware: target %s: update %zu is incomplete",
				       target->name ? target->name : "?", u);
	return 0;
}

static void bind_node(struct rf_bmc *bmc, void *node, void *run)
{
	struct rf_fw_node *fn = node;

	fn->run = run;
	fn->t = (const struct rf_fw_target *)bmc->target;
	fn->index = (size_t)(fn->t - fn->run->targets);
	bmc->fw = fn;
}

static const struct rf_driver firmware_driver = {
	.ready = rf_fw_ready,
	.idle = on_idle,
	.abort = on_abort,
	.admit = admit,
	.node_size = sizeof(struct rf_fw_node),
	.check_run = check_run,
	.check_target = check_target,
	.bind = bind_node,
	.node_release = node_release,
};

int rf_firmware_all(const struct rf_fw_target *targets, size_t n, const struct rf_options *opts,
		    const struct rf_fw_options *fopts, rf_fw_done_fn done, rf_fw_sending_fn sending,
		    void *ctx, struct br_err *err)
{
	struct rf_fw_options fdefaults;
	struct rf_fw_run run = { 0 };
	int rc;

	if (!fopts) {
		rf_fw_options_init(&fdefaults);
		fopts = &fdefaults;
	}
	run = (struct rf_fw_run){ .o = fopts, .done = done, .sending = sending, .ctx = ctx };
	run.targets = targets;
	number_groups(&run, n);
	rc = rf_drive_all(&firmware_driver, targets, n, sizeof(*targets), &run, opts, err);
	if (n)
		br_debug("firmware", "at most %d machines updated at once", run.peak);
	free(run.groups);
	free(run.group_of);
	return rc;
}
