/*
 * reclaim — rf_sessions_delete_all: DELETE sessions an earlier, killed run
 * left on its BMCs (redfish.h). A driver of rf_drive_all (drive.c), as
 * discovery is, but started straight on basic auth: no
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
	return (const struct rf_session_target *)bmc->target;
}

static void on_deleted(struct rf_req *req, int rc, const struct br_err *err)
{
	struct rf_bmc *bmc = req->bmc;
	const struct rf_session_target *t = target_of(bmc);
	const struct reclaim_run *run = bmc->http->run;
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
	const struct reclaim_run *run = bmc->http->run;

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

	return rf_drive_all(&reclaim_driver, targets, n, sizeof(*targets), &run, opts, err);
}
