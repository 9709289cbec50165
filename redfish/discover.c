/*
 * discover — the discovery driver and rf_discover_all: one rf_bmc per
 * target, all started at once on one rf_http loop (run.c). A BMC's life:
 * service root -> login -> walk (walk.c) -> (nothing left pending) ->
 * report to the caller -> logout -> done. A failure anywhere cancels the
 * BMC's other requests and jumps to "report"; the other BMCs never notice.
 */
#include <string.h>

#include "rf_private.h"

static void report(struct rf_bmc *bmc)
{
	struct rf_http *h = bmc->http;

	h->done(bmc->target, bmc->failed ? bmc->err.code : 0, &bmc->hw,
		bmc->failed ? &bmc->err : NULL, h->done_ctx);
	br_hw_release(&bmc->hw);
}

static void on_idle(struct rf_bmc *bmc)
{
	rf_bmc_wind_down(bmc, report);
}

static const struct rf_driver discover_driver = {
	.ready = rf_walk_start, .idle = on_idle, .abort = report,
};

int rf_discover_all(const struct rf_target *targets, size_t n, const struct rf_options *opts,
		    rf_done_fn done, void *ctx, struct br_err *err)
{
	struct rf_options defaults;
	struct rf_http h;
	struct rf_bmc *bmcs;
	int rc;

	if (!opts) {
		rf_options_init(&defaults);
		opts = &defaults;
	}
	if ((rc = rf_options_check(opts, err)))
		return rc;
	if (n == 0)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!targets[i].base_url || strncmp(targets[i].base_url, "http", 4))
			return br_errf(err, BR_E_INVAL, "redfish: target %s: base URL must be http(s)://",
				       targets[i].name ? targets[i].name : "?");
	if (curl_global_init(CURL_GLOBAL_DEFAULT))
		return br_errf(err, BR_E_NOMEM, "redfish: curl_global_init failed");
	if ((rc = rf_http_init(&h, opts, n, err))) {
		curl_global_cleanup();
		return rc;
	}
	bmcs = br_xcalloc(n, sizeof(*bmcs));
	h.bmcs = bmcs;
	h.n_bmcs = n;
	h.done = done;
	h.done_ctx = ctx;
	h.driver = &discover_driver;
	for (size_t i = 0; i < n; i++)
		rf_bmc_setup(&h, &bmcs[i], &targets[i]);
	rc = rf_run_bmcs(&h, err);
	free(bmcs);
	rf_http_release(&h);
	curl_global_cleanup();
	return rc;
}
