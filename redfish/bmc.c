/*
 * bmc — the BMC record every layer of redfish/ shares, part of the
 * transport: setting it up and releasing it, failing it (record the
 * reason once, cancel its requests; a refused request's reason with the
 * BMC's own Message), resolving a link on it, reading a
 * finished request's body as JSON, and handing it to its driver (ready,
 * idle) through the run's struct rf_driver, so no layer below names a
 * driver's functions.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "loop.h"
#include "rf_private.h"

/* A link's path stays inside the service: under /redfish/ (any case: iLO
 * writes both), with no dot segment, backslash, encoded dot or control
 * character that could climb out of it once curl or the BMC normalises it
 * ("/redfish/v1/../../etc/passwd" is "/etc/passwd" on the wire). */
static int path_inside(const char *path)
{
	if (strncasecmp(path, "/redfish/", 9) && strcasecmp(path, "/redfish"))
		return 0;
	for (const char *p = path; *p; p++) {
		if ((unsigned char)*p < 0x20 || *p == 0x7f || *p == '\\')
			return 0;
		if (*p == '%' && p[1] == '2' && (p[2] == 'e' || p[2] == 'E'))
			return 0;
		if (*p == '/' && p[1] == '.' &&
		    (p[2] == '/' || p[2] == '\0' || p[2] == '?' ||
		     (p[2] == '.' && (p[3] == '/' || p[3] == '\0' || p[3] == '?'))))
			return 0;
		if (*p == '?')
			break; /* the query ($skip, $expand) is the BMC's to read */
	}
	return 1;
}

char *rf_resolve(struct rf_bmc *bmc, const char *link)
{
	size_t n = strlen(bmc->base);

	if (link[0] == '/' && link[1] != '/' && path_inside(link))
		return br_xasprintf("%s%s", bmc->base, link);
	if (!strncmp(link, bmc->base, n) && link[n] == '/' && path_inside(link + n))
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

/* The first ExtendedInfo Message of a Redfish error body, or NULL. */
static char *error_message(const char *body, size_t len)
{
	json_t *doc = body && len ? br_json_parse(body, len, 64 * 1024, NULL) : NULL;
	json_t *info = br_json_path(doc, "error/@Message.ExtendedInfo");
	const char *m = json_is_array(info) ? br_json_str(json_array_get(info, 0), "Message") : NULL;
	char *ret = m && *m ? br_xstrdup(m) : NULL;

	json_decref(doc);
	return ret;
}

void rf_bmc_fail_request(struct rf_bmc *bmc, struct rf_req *req, const char *what, const struct br_err *err)
{
	char *message =
	    req && req->http.status >= 400 ? error_message(req->http.body.data, req->http.body.len) : NULL;
	struct br_err e;

	if (message)
		br_errf(&e, err->code, "%s: %s: %s", what, err->msg, message);
	else
		br_errf(&e, err->code, "%s: %s", what, err->msg);
	free(message);
	rf_bmc_fail(bmc, &e);
}

/* Caps that must hold before the body is parsed: parsing is what costs
 * (jansson's ~200 bytes a value). 0, or BR_E_TOOBIG with perr set. */
static int too_costly(const struct rf_req *req, struct br_err *perr)
{
	struct br_json_shape shape;

	br_json_shape(req->http.body.data, req->http.body.len, "Members", &shape);
	if (shape.key_elems > (long)RF_MEMBERS_MAX - req->members)
		return br_errf(perr, BR_E_TOOBIG, "collection has more than %d members", RF_MEMBERS_MAX);
	if (shape.values > RF_JSON_VALUES_MAX)
		return br_errf(perr, BR_E_TOOBIG, "more than %u JSON values in the body", RF_JSON_VALUES_MAX);
	if (shape.depth > BR_JSON_DEPTH_MAX)
		return br_errf(perr, BR_E_TOOBIG, "JSON nested deeper than %d levels", BR_JSON_DEPTH_MAX);
	return 0;
}

json_t *rf_req_parse(struct rf_req *req, struct br_err *err)
{
	struct br_err perr;
	/* too_costly's scan bounded the nesting: parsed once, not walked after */
	json_t *doc = too_costly(req, &perr)
			  ? NULL
			  : br_json_parse_shaped(req->http.body.data, req->http.body.len, RF_BODY_MAX, &perr);

	if (doc && !json_is_object(doc)) {
		json_decref(doc);
		doc = NULL;
		br_errf(&perr, BR_E_PROTO, "not a JSON object");
	}
	if (!doc) {
		br_err_prefix(&perr, "GET %s", req->url);
		if (err)
			*err = perr;
	}
	return doc;
}

json_t *rf_req_json(struct rf_req *req)
{
	struct br_err perr;
	json_t *doc = rf_req_parse(req, &perr);

	if (!doc)
		rf_bmc_fail(req->bmc, &perr);
	return doc;
}

static void on_deadline(struct br_loop_timer *t, void *ctx);

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
	br_loop_timer_init(&bmc->deadline, on_deadline, bmc);
	bmc->deadline.weak = 1;
	h->active++;
}

static long deadline_ms(const struct rf_bmc *bmc)
{
	return bmc->target->deadline_ms > 0 ? bmc->target->deadline_ms : bmc->http->opts->bmc_deadline_ms;
}

static void fail_deadline(struct rf_bmc *bmc)
{
	long ms = deadline_ms(bmc);

	rf_bmc_failf(bmc, RF_E_DEADLINE, "deadline of %ld s passed", ms >= 1000 ? ms / 1000 : 1);
}

/* First the deadline: stop the BMC's work and log out (a login in flight
 * is let finish, so its session is known; rf_bmc_ready turns it away).
 * Then, RF_INTERRUPT_GRACE_MS later, whatever is still pending (the
 * logout to a tarpit) is dropped and the BMC wound down. */
static void on_deadline(struct br_loop_timer *t, void *ctx)
{
	struct rf_bmc *bmc = ctx;

	if (bmc->phase == RF_BMC_DONE)
		return;
	if (!bmc->deadline_passed) {
		bmc->deadline_passed = 1;
		br_loop_timer_start(bmc->http->loop, t, RF_INTERRUPT_GRACE_MS);
		if (bmc->logging_in || bmc->phase != RF_BMC_WALKING)
			return; /* logging in, or out already */
		fail_deadline(bmc);
	} else {
		br_debug("redfish", "%s: gave up on its last requests (logout)", bmc->base);
		rf_http_cancel_bmc(bmc->http, bmc);
		if (bmc->phase == RF_BMC_WALKING)
			fail_deadline(bmc); /* the login never came back */
	}
	if (bmc->host.pending == 0)
		rf_bmc_idle(bmc);
}

void rf_bmc_deadline_start(struct rf_bmc *bmc)
{
	long ms = deadline_ms(bmc);

	if (ms > 0)
		br_loop_timer_start(bmc->http->loop, &bmc->deadline, ms);
}

void rf_bmc_release(struct rf_bmc *bmc)
{
	if (bmc->http && bmc->http->loop)
		br_loop_timer_stop(bmc->http->loop, &bmc->deadline);
	/* its connections go to the BMCs still at work */
	if (bmc->host.http)
		br_http_host_release(&bmc->host);
	br_hw_release(&bmc->hw);
	rf_urlset_release(&bmc->seen);
	rf_urlset_release(&bmc->reread);
	json_decref(bmc->host_doc);
	bmc->host_doc = NULL;
	json_decref(bmc->inline_functions);
	bmc->inline_functions = NULL;
	json_decref(bmc->deferred_pcie);
	bmc->deferred_pcie = NULL;
	free(bmc->host_odata);
	bmc->host_odata = NULL;
	json_decref(bmc->root);
	bmc->root = NULL;
	json_decref(bmc->systems);
	bmc->systems = NULL;
	json_decref(bmc->pcie_hints);
	bmc->pcie_hints = NULL;
	free(bmc->expand);
	free(bmc->connview_system);
	bmc->connview_system = NULL;
	free(bmc->fw_by_pattern);
	bmc->fw_by_pattern = NULL;
	bmc->expand = NULL;
	free(bmc->session_url);
	bmc->session_url = NULL;
	free(bmc->session_pending);
	bmc->session_pending = NULL;
	free(bmc->reclaim_waiting);
	bmc->reclaim_waiting = NULL;
	free(bmc->password_change_url);
	bmc->password_change_url = NULL;
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
		rf_bmc_failf(bmc, BR_E_INTERRUPTED, "interrupted by %s",
			     br_signal_name(bmc->http->interrupted));
		return;
	}
	if (bmc->deadline_passed) {
		fail_deadline(bmc);
		return;
	}
	bmc->http->driver->ready(bmc);
}

void rf_bmc_idle(struct rf_bmc *bmc)
{
	bmc->http->driver->idle(bmc);
}
