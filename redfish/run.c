/*
 * run — what discovery and configure share above the walk: options, one
 * rf_http loop over every BMC (service root and login first, then the
 * driver's ready), and the end of a BMC's life (report, log out, release).
 * A driver (discover.c, config.c, firmware.c, accounts.c) supplies a
 * struct rf_driver and drive.c sets the run up; nothing here or below
 * knows which one runs.
 */
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "loop.h"
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
	if (o->bmc_deadline_ms < 0)
		return br_errf(err, BR_E_INVAL, "redfish: the BMC deadline must not be negative");
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
	if (bmc->started)
		h->running--;
	rf_bmc_release(bmc);
}

void rf_run_flush_reports(struct rf_http *h)
{
	rf_run_flush_some_reports(h, SIZE_MAX);
}

size_t rf_run_flush_some_reports(struct rf_http *h, size_t max)
{
	size_t n = 0;

	for (; h->reports && n < max; n++) {
		struct rf_bmc *bmc = h->reports;
		void (*fn)(struct rf_bmc *) = bmc->report_later;

		h->reports = bmc->report_next;
		if (!h->reports)
			h->reports_tail = &h->reports;
		bmc->report_next = NULL;
		bmc->report_later = NULL;
		fn(bmc);
	}
	return n;
}

/* How many BMCs a windowed driver works at once: enough to keep the
 * overall cap busy while each BMC waits on its chain of dependent
 * requests (twice the cap's worth of BMCs at the per-BMC cap), never all
 * of a rack larger than that. Started together, 10,000 BMCs behind a cap
 * of 2,048 requests all progressed at 1/20 speed and all passed their
 * deadline together, none finished; admitted in order, each BMC's deadline
 * runs from its own first request, as rf_options says, and BMCs finish
 * (and their memory is freed) at the rate the cap allows. Started at once,
 * every BMC's documents and connections also stayed alive together, and
 * the allocator's and curl's cost per request grew with the rack. */
static size_t admission_window(const struct rf_http *h)
{
	size_t per = h->opts->per_bmc_inflight > 0 ? (size_t)h->opts->per_bmc_inflight : 1;
	size_t total = h->opts->total_inflight > 0 ? (size_t)h->opts->total_inflight : 1;
	size_t w = 2 * ((total + per - 1) / per);

	return h->driver->windowed ? w : 0;
}

/* Start BMCs, in order, while the window has room: the deadline first,
 * then the service root (login follows it). */
static void start_bmc(struct rf_http *h, struct rf_bmc *bmc)
{
	bmc->started = 1;
	h->running++;
	rf_bmc_deadline_start(bmc);
	if (h->driver->start)
		h->driver->start(bmc);
	else
		rf_session_start(bmc);
}

/* A driver that admits BMCs itself: every one not yet started is asked,
 * in order, each turn (a few hundred at most are waiting). */
static void admit_more(struct rf_http *h)
{
	int started = 0;

	for (size_t i = h->next_start; i < h->n_bmcs && !h->interrupted; i++) {
		struct rf_bmc *bmc = &h->bmcs[i];

		if (bmc->started || bmc->phase != RF_BMC_WALKING || !h->driver->admit(bmc))
			continue;
		start_bmc(h, bmc);
		started = 1;
	}
	while (h->next_start < h->n_bmcs &&
	       (h->bmcs[h->next_start].started || h->bmcs[h->next_start].phase != RF_BMC_WALKING))
		h->next_start++;
	if (started)
		br_loop_wake(h->loop);
}

static void start_more(struct rf_http *h)
{
	size_t before = h->next_start, window = admission_window(h);

	if (h->driver->admit) {
		admit_more(h);
		return;
	}

	while (h->next_start < h->n_bmcs && !h->interrupted && (!window || h->running < window)) {
		struct rf_bmc *bmc = &h->bmcs[h->next_start++];

		if (bmc->phase != RF_BMC_WALKING)
			continue;
		start_bmc(h, bmc);
	}
	/* from the turn's hook, after the core's dispatch: start them now */
	if (h->next_start != before)
		br_loop_wake(h->loop);
}

/* After the core's dispatch, every turn: outcomes (stores) only now, so the
 * requests just dispatched, logouts among them, are on the wire before this
 * work, and only RF_REPORTS_PER_TURN of them, so the BMCs still walking are
 * served between stores (the loop turns again at once while any wait):
 * a worker's BMCs finish within milliseconds of each other, and storing
 * them all in one turn (a millisecond each) held the answers of the rest
 * back for tens of milliseconds; then BMCs that finished make room for the
 * next; then see that some BMC can still move. */
static void on_turn(void *ctx)
{
	struct rf_http *h = ctx;
	struct br_err e;

	rf_run_flush_some_reports(h, RF_REPORTS_PER_TURN);
	if (h->reports)
		br_loop_wake(h->loop);
	start_more(h);
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

/* ---- SIGTERM, SIGINT ---------------------------------------------------- */

static void on_grace(struct br_loop_timer *t, void *ctx)
{
	struct rf_http *h = ctx;
	struct br_err e;

	(void)t;
	br_errf(&e, BR_E_INTERRUPTED, "interrupted by %s; gave up logging out after %d ms",
		br_signal_name(h->interrupted), RF_INTERRUPT_GRACE_MS);
	br_loop_stop(h->loop, &e);
}

/* Stop every BMC's work and log out of its session: an iDRAC keeps a
 * session nobody deletes for 30 minutes, and after eight it refuses
 * logins. A login in flight is let finish so its session is known (and
 * then deleted); rf_bmc_ready turns it away from the work. */
static void interrupt(struct rf_http *h)
{
	h->interrupted = br_signal_caught();
	br_warn("redfish", "%s: stopping %zu BMCs and logging out of their sessions",
		br_signal_name(h->interrupted), h->active);
	br_loop_timer_start(h->loop, &h->grace, RF_INTERRUPT_GRACE_MS);
	for (size_t i = 0; i < h->n_bmcs; i++) {
		struct rf_bmc *bmc = &h->bmcs[i];

		if (bmc->phase != RF_BMC_WALKING || bmc->logging_in)
			continue;
		rf_bmc_failf(bmc, BR_E_INTERRUPTED, "interrupted by %s", br_signal_name(h->interrupted));
		if (bmc->host.pending == 0)
			rf_bmc_idle(bmc);
	}
}

static void on_signal(struct br_loop_fd *watch, int fd, unsigned events, void *ctx)
{
	struct rf_http *h = ctx;

	(void)events;
	if (!br_signal_pending(fd))
		return;
	br_loop_fd_del(watch);
	h->signal_watch = NULL;
	interrupt(h);
}

/* On a loop shared with other clients, the run is over when its own BMCs
 * are: the others' work stays on the loop for its next run. */
static int run_finished(void *ctx)
{
	const struct rf_http *h = ctx;

	return h->active == 0 && !h->reports;
}

static int run_loop(struct rf_http *h, struct br_err *err)
{
	int rc;

	h->holding = 1;
	br_loop_hold(h->loop);
	br_loop_prepare_add(h->loop, on_turn, h);
	br_loop_timer_init(&h->grace, on_grace, h);
	h->grace.weak = 1;
	if (br_signal_fd() >= 0)
		h->signal_watch = br_loop_fd_add(h->loop, br_signal_fd(), BR_LOOP_IN, on_signal, h, NULL);
	rc = h->own_loop ? br_loop_run(h->loop, err) : br_loop_run_until(h->loop, run_finished, h, err);
	rf_run_flush_reports(h);
	br_loop_prepare_del(h->loop, on_turn, h);
	br_loop_fd_del(h->signal_watch);
	h->signal_watch = NULL;
	br_loop_timer_stop(h->loop, &h->grace);
	if (h->holding) {
		h->holding = 0;
		br_loop_unhold(h->loop);
	}
	return rc;
}

int rf_run_bmcs(struct rf_http *h, struct br_err *err)
{
	struct br_err e = { 0 };
	int rc = 0;

	if (br_signal_caught()) {
		h->interrupted = br_signal_caught(); /* before any BMC was touched */
	} else {
		start_more(h);
		rc = run_loop(h, &e);
	}
	if (h->interrupted) {
		/* each BMC is reported interrupted; the run itself did its part */
		br_errf(&e, BR_E_INTERRUPTED, "interrupted by %s", br_signal_name(h->interrupted));
		rc = 0;
	} else if (rc && err) {
		*err = e;
	}
	for (size_t i = 0; i < h->n_bmcs; i++) {
		struct rf_bmc *bmc = &h->bmcs[i];

		if (bmc->phase == RF_BMC_DONE)
			continue;
		/* the loop itself broke: every BMC still running gets the reason */
		rf_http_cancel_bmc(h, bmc);
		if (bmc->phase == RF_BMC_WALKING) {
			bmc->failed = 1;
			br_errf(&bmc->err, e.code ? e.code : BR_E_STATE, "%s", e.code ? e.msg : "aborted");
			h->driver->abort(bmc);
		}
		rf_bmc_release(bmc);
	}
	/* a BMC needs at most per_bmc_inflight connections: more means curl
	 * closed ones still in use (t1131) */
	br_debug("redfish", "%zu BMCs: %ld connections opened", h->n_bmcs, h->core.connects);
	return rc;
}
