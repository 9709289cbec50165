/*
 * run — what discovery and configure share above the walk: options, one
 * rf_http loop over every BMC (service root and login first, then the
 * driver's ready), and the end of a BMC's life (report, log out, release).
 * A driver (discover.c, config.c) supplies a struct rf_driver; nothing
 * here or below knows which one runs.
 */
#include <string.h>
#include <unistd.h>

#include "rf_private.h"

void rf_options_init(struct rf_options *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->per_bmc_inflight = 4;
	opts->total_inflight = 512;
	opts->timeout_ms = 15000;
	opts->connect_timeout_ms = 5000;
	opts->retries = 5;
	opts->backoff_ms = 500;
	opts->backoff_max_ms = 30000;
	opts->ca_file = NULL;
	opts->insecure = 0;
	opts->use_sessions = 1;
	opts->use_expand = 1;
}

int rf_options_check(const struct rf_options *o, struct br_err *err)
{
	if (o->per_bmc_inflight < 1 || o->total_inflight < 1)
		return br_errf(err, BR_E_INVAL, "redfish: in-flight caps must be at least 1");
	if (o->timeout_ms < 1 || o->connect_timeout_ms < 1)
		return br_errf(err, BR_E_INVAL, "redfish: timeouts must be positive");
	if (o->retries < 0 || o->backoff_ms < 0 || o->backoff_max_ms < o->backoff_ms)
		return br_errf(err, BR_E_INVAL, "redfish: bad retry or backoff settings");
	if (o->ca_file && access(o->ca_file, R_OK))
		return br_errf(err, BR_E_INVAL, "redfish: CA file %s: cannot read it", o->ca_file);
	return 0;
}

/* The walk is over: log out, then hand on what the BMC reported. The
 * outcome (which the caller may store in the inventory, a millisecond
 * each) waits until the logout has been started, so a rack whose BMCs all
 * finish together does not delay its logouts behind its stores. */
void rf_bmc_wind_down(struct rf_bmc *bmc, void (*report_fn)(struct rf_bmc *bmc))
{
	struct rf_http *h = bmc->http;

	if (bmc->phase == RF_BMC_WALKING) {
		bmc->phase = RF_BMC_FINISHING;
		if (rf_session_logout(bmc)) {
			bmc->report_later = report_fn;
			bmc->report_next = NULL;
			*h->reports_tail = bmc;
			h->reports_tail = &bmc->report_next;
			return;
		}
		report_fn(bmc);
	}
	if (bmc->phase == RF_BMC_DONE)
		return;
	if (bmc->report_later)
		rf_run_flush_reports(h);
	bmc->phase = RF_BMC_DONE;
	h->active--;
	rf_bmc_release(bmc);
}

void rf_run_flush_reports(struct rf_http *h)
{
	while (h->reports) {
		struct rf_bmc *bmc = h->reports;
		void (*fn)(struct rf_bmc *) = bmc->report_later;

		h->reports = bmc->report_next;
		if (!h->reports)
			h->reports_tail = &h->reports;
		bmc->report_next = NULL;
		bmc->report_later = NULL;
		fn(bmc);
	}
}

/* After the core's dispatch, every turn: outcomes (stores) only now, so the
 * requests just dispatched, logouts among them, are on the wire before this
 * work; then see that some BMC can still move. */
static void on_turn(void *ctx)
{
	struct rf_http *h = ctx;
	struct br_err e;

	rf_run_flush_reports(h);
	if (h->active == 0) {
		if (h->holding) {
			h->holding = 0;
			br_loop_unhold(h->loop);
		}
		return;
	}
	if (h->core.pending)
		return;
	br_errf(&e, BR_E_STATE, "redfish: %zu BMCs stalled", h->active);
	br_loop_stop(h->loop, &e);
}

static int run_loop(struct rf_http *h, struct br_err *err)
{
	int rc;

	h->holding = 1;
	br_loop_hold(h->loop);
	br_loop_prepare_add(h->loop, on_turn, h);
	rc = br_loop_run(h->loop, err);
	rf_run_flush_reports(h);
	br_loop_prepare_del(h->loop, on_turn, h);
	if (h->holding) {
		h->holding = 0;
		br_loop_unhold(h->loop);
	}
	return rc;
}

int rf_run_bmcs(struct rf_http *h, struct br_err *err)
{
	int rc;

	for (size_t i = 0; i < h->n_bmcs; i++)
		rf_session_start(&h->bmcs[i]);
	rc = run_loop(h, err);
	for (size_t i = 0; i < h->n_bmcs; i++) {
		struct rf_bmc *bmc = &h->bmcs[i];

		if (bmc->phase == RF_BMC_DONE)
			continue;
		/* the loop itself broke: every BMC still running gets the reason */
		rf_http_cancel_bmc(h, bmc);
		if (bmc->phase == RF_BMC_WALKING) {
			bmc->failed = 1;
			br_errf(&bmc->err, rc ? rc : BR_E_STATE, "%s", err && rc ? err->msg : "aborted");
			h->driver->abort(bmc);
		}
		rf_bmc_release(bmc);
	}
	return rc;
}

