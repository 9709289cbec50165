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

/* ---- a login whose answer was never seen: its session found by Context */

/* Sessions of one BMC read to find a login's (a flood is not followed). */
#define RECLAIM_MEMBERS_MAX 64

static int is_pending(const char *uri)
{
	return !strncmp(uri, RF_SESSION_PENDING, strlen(RF_SESSION_PENDING));
}

static void pending_done(struct rf_bmc *bmc, int i)
{
	const struct rf_session_target *t = target_of(bmc);
	const struct reclaim_run *run = bmc->http->run;
	struct br_err e;

	if (bmc->reclaim_waiting[i] != 0)
		return; /* members still out, or found (its DELETE reports) */
	br_errf(&e, BR_E_NOTFOUND, "bmc %s: no session carries the Context of the login %s", bmc->base,
		t->uris[i]);
	run->done(t, t->uris[i], BR_E_NOTFOUND, &e, run->ctx);
}

static void on_member(struct rf_req *req, int rc, const struct br_err *err)
{
	struct rf_bmc *bmc = req->bmc;
	const struct rf_session_target *t = target_of(bmc);
	const char *want = t->uris[req->kind] + strlen(RF_SESSION_PENDING);
	struct br_err e = { 0 };
	json_t *doc;

	(void)err; /* one that vanished, or cannot be read, is not the one */
	if (bmc->reclaim_waiting[req->kind] < 0)
		return;
	bmc->reclaim_waiting[req->kind]--;
	if (!rc && (doc = rf_req_parse(req, &e))) {
		const char *context = br_json_str(doc, "Context");

		if (context && !strcmp(context, want)) {
			struct rf_req *del = rf_req_new(bmc, RF_DELETE, req->url, 100, on_deleted);

			bmc->reclaim_waiting[req->kind] = -1;
			del->kind = req->kind;
			rf_req_submit(del);
		}
		json_decref(doc);
	}
	pending_done(bmc, req->kind);
}

static void on_sessions(struct rf_req *req, int rc, const struct br_err *err)
{
	struct rf_bmc *bmc = req->bmc;
	const struct rf_session_target *t = target_of(bmc);
	const struct reclaim_run *run = bmc->http->run;
	struct br_err e = { 0 };
	json_t *doc, *m;
	size_t j;

	if (rc && req->http.status == 401) {
		/* The credentials the login carried (the node's, then and now)
		 * are refused: so was that login, and it made no session. One
		 * that basic auth alone is refused for ends by the BMC's own
		 * SessionTimeout (SessionService v1_0_0: 30 to 86400 s). */
		br_errf(&e, BR_E_NOTFOUND,
			"bmc %s: refuses the credentials of the login %s (HTTP 401): it made no session",
			bmc->base, t->uris[req->kind]);
		run->done(t, t->uris[req->kind], BR_E_NOTFOUND, &e, run->ctx);
		return;
	}
	if (rc) {
		run->done(t, t->uris[req->kind], rc, err, run->ctx);
		return;
	}
	if (!(doc = rf_req_parse(req, &e))) {
		run->done(t, t->uris[req->kind], e.code ? e.code : BR_E_PROTO, &e, run->ctx);
		return;
	}
	json_array_foreach(json_object_get(doc, "Members"), j, m)
	{
		const char *id = br_json_str(m, "@odata.id");
		char *url = id ? rf_resolve(bmc, id) : NULL;
		struct rf_req *get;

		if (j >= RECLAIM_MEMBERS_MAX)
			break; /* a BMC keeps a few dozen at most (iDRAC9: eight) */
		if (!url)
			continue;
		get = rf_req_new(bmc, RF_GET, url, 100, on_member);
		get->kind = req->kind;
		bmc->reclaim_waiting[req->kind]++;
		rf_req_submit(get);
		free(url);
	}
	json_decref(doc);
	pending_done(bmc, req->kind);
}

static void start(struct rf_bmc *bmc)
{
	const struct rf_session_target *t = target_of(bmc);
	const struct reclaim_run *run = bmc->http->run;

	bmc->auth = RF_AUTH_BASIC;
	bmc->reclaim_waiting = br_xcalloc(t->n_uris ? t->n_uris : 1, sizeof(*bmc->reclaim_waiting));
	for (size_t i = 0; i < t->n_uris; i++) {
		char *url;
		struct rf_req *req;
		struct br_err e;

		if (is_pending(t->uris[i])) {
			/* DSP0266 fixes the collection's URI (clause "Session
			 * management": /redfish/v1/SessionService/Sessions) */
			url = br_xasprintf("%s/redfish/v1/SessionService/Sessions", bmc->base);
			req = rf_req_new(bmc, RF_GET, url, 100, on_sessions);
			req->kind = (int)i;
			rf_req_submit(req);
			free(url);
			continue;
		}
		url = rf_resolve(bmc, t->uris[i]);
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
