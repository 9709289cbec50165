/*
 * discover — rf_discover_all: one rf_bmc per target, all started at once on
 * one rf_http loop. A BMC's life: service root -> login -> walk -> (nothing
 * left pending) -> report to the caller -> logout -> done. A failure
 * anywhere cancels the BMC's other requests and jumps to "report"; the
 * other BMCs never notice.
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

char *rf_resolve(struct rf_bmc *bmc, const char *link)
{
	size_t n = strlen(bmc->base);

	if (link[0] == '/' && link[1] != '/')
		return br_xasprintf("%s%s", bmc->base, link);
	if (!strncmp(link, bmc->base, n) && link[n] == '/')
		return br_xstrdup(link);
	br_debug("redfish", "%s: ignoring link to elsewhere: %s", bmc->base, link);
	return NULL;
}

/* "bmc 10.0.0.5:443" or "bmc node-07 (10.0.0.5:443)" */
static void name_bmc(struct br_buf *out, const struct rf_bmc *bmc)
{
	const char *addr = strstr(bmc->base, "://");
	const char *name = bmc->target->name;

	addr = addr ? addr + 3 : bmc->base;
	if (name && *name && strcmp(name, addr) && strcmp(name, bmc->base) &&
	    strcmp(name, bmc->target->base_url))
		br_buf_addf(out, "bmc %s (%s)", name, addr);
	else
		br_buf_addf(out, "bmc %s", addr);
}

void rf_bmc_fail(struct rf_bmc *bmc, const struct br_err *err)
{
	struct br_buf who;

	if (bmc->failed)
		return;
	bmc->failed = 1;
	bmc->err = *err;
	br_buf_init(&who, 0);
	name_bmc(&who, bmc);
	br_err_prefix(&bmc->err, "%s", br_buf_str(&who));
	br_buf_release(&who);
	br_debug("redfish", "%s", bmc->err.msg);
	rf_http_cancel_bmc(bmc->http, bmc);
}

static void report(struct rf_bmc *bmc)
{
	struct rf_http *h = bmc->http;

	h->done(bmc->target, bmc->failed ? bmc->err.code : 0, &bmc->hw,
		bmc->failed ? &bmc->err : NULL, h->done_ctx);
	br_hw_release(&bmc->hw);
}

void rf_bmc_release(struct rf_bmc *bmc)
{
	br_hw_release(&bmc->hw);
	rf_urlset_release(&bmc->seen);
	json_decref(bmc->root);
	bmc->root = NULL;
	free(bmc->expand);
	bmc->expand = NULL;
	free(bmc->session_url);
	bmc->session_url = NULL;
	br_secret_free(bmc->token);
	bmc->token = NULL;
	free(bmc->base);
	bmc->base = NULL;
}

void rf_bmc_ready(struct rf_bmc *bmc)
{
	if (bmc->http->ready)
		bmc->http->ready(bmc);
	else
		rf_walk_start(bmc);
}

void rf_bmc_idle(struct rf_bmc *bmc)
{
	if (bmc->http->idle)
		bmc->http->idle(bmc);
	else
		rf_bmc_wind_down(bmc, report);
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
		rf_http_flush_reports(h);
	bmc->phase = RF_BMC_DONE;
	h->active--;
	rf_bmc_release(bmc);
}

void rf_http_flush_reports(struct rf_http *h)
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

void rf_bmc_setup(struct rf_http *h, struct rf_bmc *bmc, const struct rf_target *target)
{
	size_t len = strlen(target->base_url);

	while (len && target->base_url[len - 1] == '/')
		len--;
	bmc->target = target;
	bmc->http = h;
	bmc->base = br_xstrndup(target->base_url, len);
	rf_http_host_init(h, bmc);
	br_hw_init(&bmc->hw);
	bmc->hw.source = br_xstrdup("redfish");
	h->active++;
}

int rf_run_bmcs(struct rf_http *h, void (*abort_report)(struct rf_bmc *bmc), struct br_err *err)
{
	int rc;

	for (size_t i = 0; i < h->n_bmcs; i++)
		rf_session_start(&h->bmcs[i]);
	rc = rf_http_run(h, err);
	for (size_t i = 0; i < h->n_bmcs; i++) {
		struct rf_bmc *bmc = &h->bmcs[i];

		if (bmc->phase == RF_BMC_DONE)
			continue;
		/* the loop itself broke: every BMC still running gets the reason */
		rf_http_cancel_bmc(h, bmc);
		if (bmc->phase == RF_BMC_WALKING) {
			bmc->failed = 1;
			br_errf(&bmc->err, rc ? rc : BR_E_STATE, "%s", err && rc ? err->msg : "aborted");
			abort_report(bmc);
		}
		rf_bmc_release(bmc);
	}
	return rc;
}

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
	for (size_t i = 0; i < n; i++)
		rf_bmc_setup(&h, &bmcs[i], &targets[i]);
	rc = rf_run_bmcs(&h, report, err);
	free(bmcs);
	rf_http_release(&h);
	curl_global_cleanup();
	return rc;
}
