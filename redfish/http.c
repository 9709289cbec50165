/*
 * http — the Redfish transport on the HTTP core (common/http.h): one host
 * per BMC with a cap of per_bmc_inflight, total_inflight overall, on a loop
 * of its own. What is Redfish's stays here: the headers every request
 * carries, which answers are worth another attempt (5xx but 501, 429, a
 * vendor's "busy" MessageId, transport errors unless the request must not
 * be repeated), the per-BMC request budget, and the reason an error gives.
 */
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <unistd.h>

#include "rf_private.h"

static const char *const method_names[] = {
	[RF_GET] = "GET", [RF_POST] = "POST", [RF_DELETE] = "DELETE", [RF_PATCH] = "PATCH"
};

/* curl keeps a receive buffer per easy handle, 16 KiB by default: 32 MiB
 * with 2048 transfers in flight. Bodies are copied out anyway. */
#define RF_RECV_BUFFER 4096L

/* How much of a redirect's Location a reason shows. */
#define RF_REDIRECT_SHOWN 256

static struct rf_req *req_of(struct br_http_req *r)
{
	return (struct rf_req *)r; /* first member */
}

/* ---- request lifecycle -------------------------------------------------- */

struct rf_req *rf_req_new(struct rf_bmc *bmc, enum rf_method method, const char *url, int priority,
			  rf_req_fn fn)
{
	struct rf_req *req = br_xcalloc(1, sizeof(*req));

	req->bmc = bmc;
	req->method = method;
	req->url = br_xstrdup(url);
	req->fn = fn;
	req->parent = -1;
	br_http_req_init(&req->http, &bmc->host, method_names[method], req->url, priority);
	return req;
}

static void reset_answer(struct rf_req *req)
{
	free(req->location);
	req->location = NULL;
	free(req->etag);
	req->etag = NULL;
	br_secret_free(req->auth_token);
	req->auth_token = NULL;
}

static void req_free(struct rf_req *req)
{
	curl_mime_free(req->mime);
	br_http_req_release(&req->http);
	br_buf_release(&req->http.body);
	reset_answer(req);
	free(req->url);
	free(req->if_match);
	br_secret_free(req->post_body);
	free(req);
}

static void set_send_body(struct rf_req *req)
{
	if ((req->method == RF_POST || req->method == RF_PATCH) && !req->multipart)
		req->http.send_body = req->post_body ? req->post_body : "";
}

void rf_req_submit(struct rf_req *req)
{
	struct rf_bmc *bmc = req->bmc;

	if (bmc->failed && !bmc->logging_out) {
		req_free(req);
		return;
	}
	if (bmc->spent >= RF_REQUESTS_MAX && !bmc->logging_out) {
		struct br_err e;

		br_errf(&e, BR_E_TOOBIG, "more than %d requests needed", RF_REQUESTS_MAX);
		req_free(req);
		rf_bmc_fail(bmc, &e);
		return;
	}
	bmc->spent++;
	set_send_body(req);
	br_http_submit(&req->http);
}

void rf_req_submit_at(struct rf_req *req, int64_t due_ms)
{
	struct rf_bmc *bmc = req->bmc;

	if (bmc->failed && !bmc->logging_out) {
		req_free(req);
		return;
	}
	req->poll = 1;
	set_send_body(req);
	br_http_submit_at(&req->http, due_ms);
}

int rf_http_unqueue(struct rf_bmc *bmc, const char *url)
{
	for (struct br_http_req *r = bmc->host.queue; r; r = r->next) {
		struct rf_req *req = req_of(r);

		if (r->attempt == 0 && !strcmp(req->url, url)) {
			br_http_unqueue(r);
			bmc->spent--;
			req_free(req);
			return 1;
		}
	}
	return 0;
}

void rf_http_cancel_bmc(struct rf_http *h, struct rf_bmc *bmc)
{
	br_http_host_cancel(&bmc->host);
}

/* ---- the core's callbacks ------------------------------------------------ */

/* The credentials the session layer chose for bmc, on this attempt. */
static int apply_auth(struct rf_bmc *bmc, CURL *easy, struct curl_slist **headers)
{
	const struct rf_target *t = bmc->target;
	struct curl_slist *l;
	char *h;

	switch (bmc->auth) {
	case RF_AUTH_NONE:
		return 0;
	case RF_AUTH_SESSION:
		h = br_xasprintf("X-Auth-Token: %s", bmc->token);
		l = curl_slist_append(*headers, h);
		br_secret_free(h);
		if (!l)
			return BR_E_NOMEM;
		*headers = l;
		return 0;
	case RF_AUTH_BASIC:
		curl_easy_setopt(easy, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
		curl_easy_setopt(easy, CURLOPT_USERNAME, t->user ? t->user : "");
		curl_easy_setopt(easy, CURLOPT_PASSWORD, t->password ? t->password : "");
		return 0;
	}
	return 0;
}

/* The file part's bytes, from memory (curl_mime_data would copy an image
 * of hundreds of megabytes per machine updating). */
static size_t mime_read(char *buf, size_t size, size_t nitems, void *arg)
{
	struct rf_req *req = arg;
	size_t left = req->multipart->len - req->mime_pos, n = size * nitems;

	if (n > left)
		n = left;
	memcpy(buf, req->multipart->data + req->mime_pos, n);
	req->mime_pos += n;
	return n;
}

static int mime_seek(void *arg, curl_off_t offset, int origin)
{
	struct rf_req *req = arg;

	if (origin != SEEK_SET || offset < 0 || (size_t)offset > req->multipart->len)
		return CURL_SEEKFUNC_FAIL;
	req->mime_pos = (size_t)offset;
	return CURL_SEEKFUNC_OK;
}

/* A fresh form for this attempt (the last one's is done with). */
static int set_multipart(struct rf_req *req, CURL *e)
{
	const struct rf_multipart *m = req->multipart;
	curl_mimepart *part;

	curl_mime_free(req->mime);
	req->mime_pos = 0;
	if (!(req->mime = curl_mime_init(e)))
		return BR_E_NOMEM;
	if (m->session_key && (!req->bmc->token || !(part = curl_mime_addpart(req->mime)) ||
			       curl_mime_name(part, "sessionKey") ||
			       curl_mime_data(part, req->bmc->token, CURL_ZERO_TERMINATED)))
		return BR_E_NOMEM;
	if (!(part = curl_mime_addpart(req->mime)) || curl_mime_name(part, m->json_name) ||
	    (!m->plain_json && curl_mime_type(part, "application/json")) ||
	    curl_mime_data(part, m->json, CURL_ZERO_TERMINATED))
		return BR_E_NOMEM;
	if (m->sig &&
	    (!(part = curl_mime_addpart(req->mime)) || curl_mime_name(part, "compsig") ||
	     curl_mime_filename(part, m->sig_name) || curl_mime_type(part, "application/octet-stream") ||
	     curl_mime_data(part, (const char *)m->sig, m->sig_len)))
		return BR_E_NOMEM;
	if (!(part = curl_mime_addpart(req->mime)) || curl_mime_name(part, m->file_part) ||
	    curl_mime_filename(part, m->file_name) || curl_mime_type(part, "application/octet-stream") ||
	    curl_mime_data_cb(part, (curl_off_t)m->len, mime_read, mime_seek, NULL, req))
		return BR_E_NOMEM;
	curl_easy_setopt(e, CURLOPT_MIMEPOST, req->mime);
	return 0;
}

static int on_start(struct br_http_req *r, CURL *e, struct curl_slist **headers)
{
	struct rf_req *req = req_of(r);

	*headers = curl_slist_append(*headers, "Accept: application/json");
	*headers = curl_slist_append(*headers, "OData-Version: 4.0");
	if (req->multipart) {
		if (set_multipart(req, e))
			return BR_E_NOMEM;
		if (req->multipart->session_key) {
			char *cookie = br_xasprintf("Cookie: sessionKey=%s", req->bmc->token);

			*headers = curl_slist_append(*headers, cookie);
			br_secret_free(cookie);
		}
	} else if (req->method == RF_POST || req->method == RF_PATCH) {
		*headers = curl_slist_append(*headers, "Content-Type: application/json");
		if (req->if_match) {
			char *line = br_xasprintf("If-Match: %s", req->if_match);

			*headers = curl_slist_append(*headers, line);
			free(line);
		}
	}
	if (apply_auth(req->bmc, e, headers) || !*headers)
		return BR_E_NOMEM;
	return 0;
}

static void on_header(struct br_http_req *r, const char *line, size_t len)
{
	struct rf_req *req = req_of(r);
	char *v;

	if ((v = br_http_header_value(line, len, "Location"))) {
		free(req->location);
		req->location = v;
	} else if ((v = br_http_header_value(line, len, "ETag"))) {
		free(req->etag);
		req->etag = v;
	} else if ((v = br_http_header_value(line, len, "X-Auth-Token"))) {
		br_secret_free(req->auth_token);
		req->auth_token = v;
	}
}

static int curl_errcode(CURLcode c)
{
	switch (c) {
	case CURLE_OPERATION_TIMEDOUT:
		return BR_E_TIMEOUT;
	case CURLE_COULDNT_CONNECT:
	case CURLE_COULDNT_RESOLVE_HOST:
		return BR_E_UNREACHABLE;
	case CURLE_PEER_FAILED_VERIFICATION:
	case CURLE_SSL_CACERT_BADFILE:
		return RF_E_TLS;
	default:
		return BR_E_IO;
	}
}

/* What a finished attempt means: 0, or an error in err; *ret_retry says
 * whether another attempt could help, *ret_hint_ms a vendor's wait. */
static int classify(struct rf_req *req, int *ret_retry, long *ret_hint_ms, struct br_err *err)
{
	struct br_http_req *r = &req->http;
	const char *m = method_names[req->method];
	char *mid;
	struct br_buf reason;
	int rc, code;

	*ret_retry = 0;
	*ret_hint_ms = 0;
	if (r->result != CURLE_OK) {
		/* a BMC under load resets TLS handshakes as readily as connections */
		*ret_retry = (br_http_transient(r->result) || r->result == CURLE_SSL_CONNECT_ERROR) &&
			     !req->no_retry_transport;
		/* curl's text for a timeout carries the milliseconds it waited,
		 * which differ run to run; the reason (and a ticket's evidence)
		 * must not, or every re-run would change the node and its ticket. */
		return br_errf(err, curl_errcode(r->result), "%s %s: %s", m, req->url,
			       r->result == CURLE_OPERATION_TIMEDOUT ? "timed out"
			       : r->curl_err[0]			     ? r->curl_err
								     : curl_easy_strerror(r->result));
	}
	if (r->status >= 200 && r->status < 300)
		return 0;
	mid = rf_error_message_id(r->body.data, r->body.len);
	*ret_retry = (r->status >= 500 && r->status != 501) || r->status == 429;
	if (mid && rf_retry_hint(mid, ret_hint_ms))
		*ret_retry = 1;
	free(mid);
	/* iDRAC's RAC0218 comes as a 503, but no slot frees up in seconds:
	 * the session layer turns to basic auth at once instead */
	if (*ret_retry && req->login && rf_session_limit_reached(r->status, r->body.data, r->body.len))
		*ret_retry = 0;
	code = r->status == 401 || r->status == 403 ? BR_E_AUTH : RF_E_HTTP;
	br_buf_init(&reason, 0);
	rf_http_error_reason(&reason, r->status, req->url, r->body.data, r->body.len, r->status_text);
	if (r->status >= 300 && r->status < 400) {
		/* never followed: credentials would go wherever it points */
		char *to = br_xstrdup_capped(req->location ? req->location : "nowhere", RF_REDIRECT_SHOWN);

		br_buf_addf(&reason, " (redirect to %s, not followed)", to);
		free(to);
	}
	/* The credentials did their work at login: no second login (a BMC
	 * that drops sessions mid-walk would drop that one too), and no
	 * blame on the manifest's password. */
	if (r->status == 401 && req->bmc->auth == RF_AUTH_SESSION && !req->login) {
		br_buf_adds(&reason, " (session token refused after login)");
		code = RF_E_HTTP;
	}
	rc = br_errf(err, code, "%s", br_buf_str(&reason));
	br_buf_release(&reason);
	return rc;
}

/* Another attempt is worth it and allowed. */
static int may_retry(struct rf_req *req, int retry)
{
	return retry && req->http.attempt < req->bmc->http->opts->retries &&
	       (req->poll || req->bmc->spent < RF_REQUESTS_MAX);
}

static int on_judge(struct br_http_req *r, long *delay)
{
	struct rf_req *req = req_of(r);
	const struct rf_options *o = req->bmc->http->opts;
	struct br_err err = { 0 };
	long hint_delay;
	int retry, rc = classify(req, &retry, &hint_delay, &err);

	br_debug("redfish", "%s %s -> %ld%s%s", method_names[req->method], req->url, r->status, rc ? " " : "",
		 rc ? err.msg : "");
	if (!rc || !may_retry(req, retry))
		return 0;
	/* the server said when; a vendor's hint only ever lengthens the wait */
	if (r->retry_after_ms >= 0)
		*delay = r->retry_after_ms;
	else if (hint_delay > *delay)
		*delay = hint_delay;
	br_debug("redfish", "retry %d of %s in %ld ms", r->attempt + 1, req->url,
		 *delay < o->backoff_max_ms ? *delay : o->backoff_max_ms);
	if (!req->poll)
		req->bmc->spent++;
	reset_answer(req);
	return 1;
}

static void on_done(struct br_http_req *r)
{
	struct rf_req *req = req_of(r);
	struct rf_bmc *bmc = req->bmc;
	struct br_err err = { 0 };
	long hint_delay;
	int retry, rc;

	if (r->start_failed) {
		br_errf(&err, BR_E_NOMEM, "%s: cannot start a transfer", req->url);
		req_free(req);
		rf_bmc_fail(bmc, &err);
	} else {
		if (r->body_too_big) {
			rc = br_errf(&err, BR_E_TOOBIG, "%s %s: response body exceeds %u bytes",
				     method_names[req->method], req->url, RF_BODY_MAX);
		} else {
			rc = classify(req, &retry, &hint_delay, &err);
			/* only the budget stopped a retry that was wanted */
			if (rc && retry && r->attempt < bmc->http->opts->retries && !req->poll &&
			    bmc->spent >= RF_REQUESTS_MAX)
				br_err_prefix(&err, "request cap of %d reached", RF_REQUESTS_MAX);
		}
		if (rc && r->attempt > 0)
			br_err_prefix(&err, "after %d attempts", r->attempt + 1);
		req->fn(req, rc, rc ? &err : NULL);
		req_free(req);
	}
	if (bmc->host.pending == 0)
		rf_bmc_idle(bmc);
}

static void on_drop(struct br_http_req *r)
{
	req_free(req_of(r));
}

static const struct br_http_ops rf_ops = {
	.start = on_start,
	.header = on_header,
	.judge = on_judge,
	.done = on_done,
	.drop = on_drop,
};

void rf_http_host_init(struct rf_http *h, struct rf_bmc *bmc)
{
	br_http_host_init(&bmc->host, &h->core, &rf_ops, h->opts->per_bmc_inflight, bmc);
}

int rf_http_init(struct rf_http *h, const struct rf_options *opts, size_t n_bmcs, struct br_err *err)
{
	struct br_http_options ho;
	long conns = (long)n_bmcs * opts->per_bmc_inflight;
	struct rlimit rl;
	int rc;

	memset(h, 0, sizeof(*h));
	h->opts = opts;
	h->reports_tail = &h->reports;
	h->loop = opts->loop;
	if (!h->loop) {
		if ((rc = br_loop_new(&h->loop, err)))
			return rc;
		h->own_loop = 1;
	}
	/* Idle keep-alive connections are what saves TLS handshakes; keep one
	 * per possible in-flight request, within what the fd limit allows. */
	if (conns > opts->total_inflight * 4L)
		conns = opts->total_inflight * 4L;
	/* Past BR_HTTP_SHARD_HOSTS BMCs the idle ones are kept besides those
	 * in flight (common/http.h), so both must fit. */
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur != RLIM_INFINITY &&
	    (rlim_t)conns + (rlim_t)opts->total_inflight + 64 > rl.rlim_cur)
		conns = rl.rlim_cur > (rlim_t)opts->total_inflight + 128
			    ? (long)rl.rlim_cur - 64 - opts->total_inflight
			    : 64;
	br_http_options_init(&ho);
	ho.timeout_ms = opts->timeout_ms;
	ho.connect_timeout_ms = opts->connect_timeout_ms;
	ho.retries = opts->retries;
	ho.backoff_ms = opts->backoff_ms;
	ho.backoff_max_ms = opts->backoff_max_ms;
	ho.ca_file = opts->ca_file;
	ho.insecure = opts->insecure;
	ho.total_inflight = opts->total_inflight;
	ho.max_host_connections = opts->per_bmc_inflight;
	/* Not total_inflight: at that many connections curl closes another
	 * BMC's idle one to open the next, and every BMC reconnects over and
	 * over (6.5 connections per BMC on a 512-BMC walk instead of 4). The
	 * overall cap on requests is the core's. */
	ho.max_connections = conns;
	ho.recv_buffer = RF_RECV_BUFFER;
	ho.dns_cache_forever = 1;
	ho.body_max = RF_BODY_MAX;
	if ((rc = br_http_init(&h->core, h->loop, &ho, err))) {
		if (h->own_loop)
			br_loop_free(h->loop);
		h->loop = NULL;
		return rc;
	}
	return 0;
}

void rf_http_release(struct rf_http *h)
{
	if (!h->loop)
		return;
	br_http_release(&h->core);
	if (h->own_loop)
		br_loop_free(h->loop);
	h->loop = NULL;
}
