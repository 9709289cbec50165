/*
 * firmware — the firmware driver and rf_firmware_all: one rf_bmc per
 * machine on one rf_http loop (run.c), admitted only as an update slot
 * frees up (max_updates over all, max_per_group within a rack), with the
 * steps of firmware_steps.c. A machine's life: admitted -> service root ->
 * login -> steps -> (nothing pending) -> report, slot given back -> logout.
 */
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

static size_t group_index(struct rf_fw_run *run, const char *group)
{
	size_t i;

	for (i = 0; i < run->n_groups && strcmp(run->groups[i].name, group); i++)
		;
	return i;
}

static int admit(struct rf_bmc *bmc)
{
	struct rf_fw_node *fn = bmc->fw;
	struct rf_fw_run *run = fn->run;
	const struct rf_fw_target *t = fn->t;
	size_t g = t->group ? group_index(run, t->group) : run->n_groups;

	if (run->active >= run->o->max_updates)
		return 0;
	if (g < run->n_groups && t->max_per_group > 0 && run->groups[g].active >= t->max_per_group)
		return 0;
	run->active++;
	if (run->active > run->peak)
		run->peak = run->active;
	if (g < run->n_groups)
		run->groups[g].active++;
	fn->holds_slot = 1;
	fn->group = g;
	return 1;
}

static void release_slot(struct rf_bmc *bmc)
{
	struct rf_fw_node *fn = bmc->fw;

	if (!fn->holds_slot)
		return;
	fn->holds_slot = 0;
	fn->run->active--;
	if (fn->group < fn->run->n_groups)
		fn->run->groups[fn->group].active--;
}

/* ---- a machine's life ---------------------------------------------------------- */

static void node_release(struct rf_fw_node *fn)
{
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

static const struct rf_driver firmware_driver = {
	.ready = rf_fw_begin,
	.idle = on_idle,
	.abort = on_abort,
	.admit = admit,
};

static int check(const struct rf_fw_target *targets, size_t n, const struct rf_fw_options *o,
		 struct br_err *err)
{
	if (o->max_updates < 1 || o->poll_ms < 1 || o->task_timeout_ms < 1 || o->bmc_return_ms < 1)
		return br_errf(err, BR_E_INVAL, "firmware: max_updates, poll and timeouts must be positive");
	if (!o->apply_time || !*o->apply_time)
		return br_errf(err, BR_E_INVAL, "firmware: no apply time");
	for (size_t i = 0; i < n; i++) {
		const char *url = targets[i].target.base_url;

		if (!url || strncmp(url, "http", 4))
			return br_errf(err, BR_E_INVAL, "redfish: target %s: base URL must be http(s)://",
				       targets[i].target.name ? targets[i].target.name : "?");
		for (size_t u = 0; u < targets[i].n_updates; u++)
			if (!targets[i].updates[u].component || !targets[i].updates[u].version ||
			    !targets[i].updates[u].file_name || !targets[i].updates[u].image)
				return br_errf(err, BR_E_INVAL,
					       "firmware: target %s: update %zu is incomplete",
					       targets[i].target.name ? targets[i].target.name : "?", u);
	}
	return 0;
}

int rf_firmware_all(const struct rf_fw_target *targets, size_t n, const struct rf_options *opts,
		    const struct rf_fw_options *fopts, rf_fw_done_fn done, rf_fw_sending_fn sending,
		    void *ctx, struct br_err *err)
{
	struct rf_options defaults;
	struct rf_fw_options fdefaults;
	struct rf_fw_run run = { 0 };
	struct rf_fw_node *nodes;
	struct rf_bmc *bmcs;
	struct rf_http h;
	int rc;

	if (!opts) {
		rf_options_init(&defaults);
		opts = &defaults;
	}
	if (!fopts) {
		rf_fw_options_init(&fdefaults);
		fopts = &fdefaults;
	}
	if ((rc = rf_options_check(opts, err)) || (rc = check(targets, n, fopts, err)))
		return rc;
	if (n == 0)
		return 0;
	if (curl_global_init(CURL_GLOBAL_DEFAULT))
		return br_errf(err, BR_E_NOMEM, "redfish: curl_global_init failed");
	if ((rc = rf_http_init(&h, opts, n, err))) {
		curl_global_cleanup();
		return rc;
	}
	run = (struct rf_fw_run){ .o = fopts, .done = done, .sending = sending, .ctx = ctx };
	run.groups = br_xcalloc(n, sizeof(*run.groups));
	for (size_t i = 0; i < n; i++)
		if (targets[i].group && group_index(&run, targets[i].group) == run.n_groups)
			run.groups[run.n_groups++].name = targets[i].group;
	bmcs = br_xcalloc(n, sizeof(*bmcs));
	nodes = br_xcalloc(n, sizeof(*nodes));
	h.bmcs = bmcs;
	h.n_bmcs = n;
	h.driver = &firmware_driver;
	for (size_t i = 0; i < n; i++) {
		rf_bmc_setup(&h, &bmcs[i], &targets[i].target);
		nodes[i].run = &run;
		nodes[i].t = &targets[i];
		nodes[i].group = run.n_groups;
		bmcs[i].fw = &nodes[i];
	}
	rc = rf_run_bmcs(&h, err);
	br_debug("firmware", "at most %d machines updated at once", run.peak);
	for (size_t i = 0; i < n; i++)
		node_release(&nodes[i]);
	free(nodes);
	free(bmcs);
	free(run.groups);
	rf_http_release(&h);
	curl_global_cleanup();
	return rc;
}
