/*
 * reclaim — rf_sessions_delete_all: DELETE sessions an earlier, killed run
 * left on its BMCs (redfish.h). One rf_bmc per target on one rf_http loop
 * (run.c), as discovery runs, but started straight on basic auth: no
 * service root, no login (the BMC may have no session slot to give, the
 * very slots being reclaimed holding them).
 */
#include <stdlib.h>
#include <string.h>

#include "rf_private.h"

struct reclaim_run {
	rf_session_deleted_fn done;
	void *ctx;
};

static const struct rf_session_target *target_of(const struct rf_bmc *bmc)
{
	return bmc->reclaim;
}

static void on_deleted(struct rf_req *req, int rc, const struct br_err *err)
{
	struct rf_bmc *bmc = req->bmc;
	const struct rf_session_target *t = target_of(bmc);
	const struct reclaim_run *run = bmc->http->done_ctx;
	const char *uri = t->uris[req->kind];

	/* 404: the BMC has no such session any more (expired, or deleted by
	 * someone at its console): gone is what was wanted */
	if (rc && req->http.status == 404)
		rc = 0;
	run->done(t, uri, rc, rc ? err : NULL, run->ctx);
}

static void start(struct rf_bmc *bmc)
{
	const struct rf_session_target *t = target_of(bmc);
	const struct reclaim_run *run = bmc->http->done_ctx;

	bmc->auth = RF_AUTH_BASIC;
	for (size_t i = 0; i < t->n_uris; i++) {
		char *url = rf_resolve(bmc, t->uris[i]);
		struct rf_req *req;
		struct br_err e;

		if (!url) {
			br_errf(&e, BR_E_INVAL, "bmc %s: session %s is not on this BMC; not sent", bmc->base,
				t->uris[i]);
			run->done(t, t->uris[i], BR_E_INVAL, &e, run->ctx);
			continue;
		}
		req = rf_req_new(bmc, RF_DELETE, url, 100, on_deleted);
		req->kind = (int)i;
		rf_req_submit(req);
		free(url);
	}
	if (bmc->host.pending == 0)
		rf_bmc_idle(bmc);
}

static void report(struct rf_bmc *bmc)
{
	(void)bmc; /* each URI was reported as it was answered */
}

static void on_idle(struct rf_bmc *bmc)
{
	rf_bmc_wind_down(bmc, report);
}

static const struct rf_driver reclaim_driver = {
	.ready = on_idle, /* never logged in: start does the work */
	.idle = on_idle,
	.abort = report,
	.windowed = 1,
	.start = start,
};

int rf_sessions_delete_all(const struct rf_session_target *targets, size_t n, const struct rf_options *opts,
			   rf_session_deleted_fn done, void *ctx, struct br_err *err)
{
	struct reclaim_run run = { done, ctx };
	struct rf_options defaults;
	struct rf_bmc *bmcs;
	struct rf_http h;
	int rc;

	if (!opts) {
		rf_options_init(&defaults);
		opts = &defaults;
	}
	if ((rc = rf_options_check(opts, err)))
		return rc;
	for (size_t i = 0; i < n; i++)
		if (!targets[i].target.base_url || strncmp(targets[i].target.base_url, "http", 4))
			return br_errf(err, BR_E_INVAL, "redfish: target %s: base URL must be http(s)://",
				       targets[i].target.name ? targets[i].target.name : "?");
	if (n == 0)
		return 0;
	if (curl_global_init(CURL_GLOBAL_DEFAULT))
		return br_errf(err, BR_E_NOMEM, "redfish: curl_global_init failed");
	if ((rc = rf_http_init(&h, opts, n, err))) {
		curl_global_cleanup();
		return rc;
	}
	bmcs = br_xcalloc(n, sizeof(*bmcs));
	h.bmcs = bmcs;
	h.n_bmcs = n;
	h.done_ctx = &run;
	h.driver = &reclaim_driver;
	for (size_t i = 0; i < n; i++) {
		rf_bmc_setup(&h, &bmcs[i], &targets[i].target);
		bmcs[i].reclaim = &targets[i];
	}
	rc = rf_run_bmcs(&h, err);
	free(bmcs);
	rf_http_release(&h);
	curl_global_cleanup();
	return rc;
}
