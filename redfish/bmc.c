/*
 * bmc — the BMC record every layer of redfish/ shares, part of the
 * transport: setting it up and releasing it, failing it (record the
 * reason once, cancel its requests), resolving a link on it, reading a
 * finished request's body as JSON, and handing it to its driver (ready,
 * idle) through the run's struct rf_driver, so no layer below names a
 * driver's functions.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "loop.h"
#include "rf_private.h"

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

void rf_bmc_failf(struct rf_bmc *bmc, int code, const char *fmt, ...)
{
	struct br_err e = { .code = code };
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(e.msg, sizeof(e.msg), fmt, ap);
	va_end(ap);
	rf_bmc_fail(bmc, &e);
}

json_t *rf_req_json(struct rf_req *req)
{
	struct br_err perr;
	json_t *doc = br_json_parse(req->http.body.data, req->http.body.len, RF_BODY_MAX, &perr);

	if (doc && !json_is_object(doc)) {
		json_decref(doc);
		doc = NULL;
		br_errf(&perr, BR_E_PROTO, "not a JSON object");
	}
	if (!doc) {
		br_err_prefix(&perr, "GET %s", req->url);
		rf_bmc_fail(req->bmc, &perr);
	}
	return doc;
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
	/* Logged in just as the run was interrupted: no work, only the
	 * logout, which the transport's idle hand-over starts. */
	if (bmc->http->interrupted) {
		rf_bmc_failf(bmc, BR_E_INTERRUPTED, "interrupted by %s", br_signal_name(bmc->http->interrupted));
		return;
	}
	bmc->http->driver->ready(bmc);
}

void rf_bmc_idle(struct rf_bmc *bmc)
{
	bmc->http->driver->idle(bmc);
}
