/* Webhook deliveries on the HTTP core. */
#include <stdlib.h>
#include <string.h>

#include "http.h"
#include "webhook.h"

struct wh_req {
	struct br_http_req http; /* first member */
	size_t index;
	char *key_header;
	char *body;
	struct wh_ctx *ctx;
};

struct wh_ctx {
	stg_webhook_done_fn done;
	void *ctx;
	int retries;
	const char *url; /* as shown: credentials masked */
	char *auth_header;
};

void stg_webhook_options_init(struct stg_webhook_options *o)
{
	memset(o, 0, sizeof(*o));
	o->retries = 5;
	o->timeout_ms = 10000;
	o->backoff_ms = 200;
	o->max_inflight = 8;
}

static int on_start(struct br_http_req *hr, CURL *easy, struct curl_slist **headers)
{
	struct wh_req *r = (struct wh_req *)hr;

	*headers = curl_slist_append(*headers, "Content-Type: application/json");
	*headers = curl_slist_append(*headers, r->key_header);
	if (*headers && r->ctx->auth_header)
		*headers = curl_slist_append(*headers, r->ctx->auth_header);
	return *headers ? 0 : BR_E_NOMEM;
}

static int on_judge(struct br_http_req *hr, long *delay)
{
	struct wh_req *r = (struct wh_req *)hr;
	int retry;

	/* A TLS failure will not fix itself; a dropped connection, a 5xx or
	 * a 429 may. The Idempotency-Key makes a retry of a request the
	 * receiver did take harmless. */
	if (hr->result != CURLE_OK)
		retry = br_http_transient(hr->result);
	else
		retry = hr->status >= 500 || hr->status == 429;
	if (!retry || hr->attempt >= r->ctx->retries)
		return 0;
	if (hr->retry_after_ms > *delay)
		*delay = hr->retry_after_ms;
	br_debug("webhook", "%s: retry %d", r->key_header, hr->attempt + 1);
	return 1;
}

static void req_free(struct wh_req *r)
{
	br_http_req_release(&r->http);
	br_buf_release(&r->http.body);
	free(r->key_header);
	free(r->body);
	free(r);
}

static void on_done(struct br_http_req *hr)
{
	struct wh_req *r = (struct wh_req *)hr;
	char *msg = NULL;
	int ok = 0;

	if (hr->start_failed)
		msg = br_xasprintf("POST %s: cannot start the request", r->ctx->url);
	else if (hr->result == CURLE_PEER_FAILED_VERIFICATION || hr->result == CURLE_SSL_CACERT_BADFILE)
		msg = br_xasprintf(
		    "POST %s: TLS certificate not trusted: %s (--ca-file gives the CA; --insecure skips "
		    "the check)",
		    r->ctx->url, hr->curl_err[0] ? hr->curl_err : curl_easy_strerror(hr->result));
	else if (hr->result != CURLE_OK)
		msg = br_xasprintf("POST %s: %s (after %d attempts)", r->ctx->url,
				   hr->curl_err[0] ? hr->curl_err : curl_easy_strerror(hr->result),
				   hr->attempt + 1);
	else if (hr->status < 200 || hr->status > 299)
		msg = br_xasprintf("POST %s: HTTP %ld (after %d attempts)", r->ctx->url, hr->status,
				   hr->attempt + 1);
	else
		ok = 1;
	r->ctx->done(r->ctx->ctx, r->index, ok, msg);
	free(msg);
	req_free(r);
}

static void on_drop(struct br_http_req *hr)
{
	req_free((struct wh_req *)hr);
}

static const struct br_http_ops wh_ops = {
	.start = on_start, .judge = on_judge, .done = on_done, .drop = on_drop
};

int stg_webhook_run(const struct stg_webhook_options *o, const struct stg_webhook_delivery *d, size_t n,
		    stg_webhook_done_fn done, void *ctx, struct br_err *err)
{
	struct wh_ctx c = { done, ctx, o->retries, NULL, NULL };
	struct br_http_options ho;
	struct br_http http = { 0 };
	struct br_http_host host;
	struct br_loop *loop = NULL;
	char *shown;
	int rc;

	if (!o->url || (strncmp(o->url, "http://", 7) && strncmp(o->url, "https://", 8))) {
		shown = o->url ? br_url_masked(o->url) : br_xstrdup("");
		rc = br_errf(err, BR_E_INVAL, "webhook '%s': not an http(s) URL", shown);
		free(shown);
		return rc;
	}
	if (!n)
		return 0;
	br_url_redact(o->url);
	shown = br_url_masked(o->url);
	c.url = shown;
	if (o->authorization) {
		br_redact_add(o->authorization);
		c.auth_header = br_xasprintf("Authorization: %s", o->authorization);
	}
	br_http_options_init(&ho);
	ho.timeout_ms = o->timeout_ms;
	ho.retries = o->retries;
	ho.backoff_ms = o->backoff_ms;
	ho.backoff_max_ms = 5000;
	ho.ca_file = o->ca_file;
	ho.insecure = o->insecure;
	ho.total_inflight = o->max_inflight;
	ho.body_max = STG_WEBHOOK_BODY_MAX;
	rc = br_loop_new(&loop, err);
	if (!rc)
		rc = br_http_init(&http, loop, &ho, err);
	if (rc) {
		br_loop_free(loop);
		free(shown);
		free(c.auth_header);
		return rc;
	}
	br_http_host_init(&host, &http, &wh_ops, o->max_inflight, &c);
	for (size_t i = 0; i < n; i++) {
		struct wh_req *r = br_xcalloc(1, sizeof(*r));

		r->index = i;
		r->ctx = &c;
		r->key_header = br_xasprintf("Idempotency-Key: %s", d[i].key);
		r->body = br_xstrdup(d[i].body);
		br_http_req_init(&r->http, &host, "POST", o->url, 0);
		r->http.send_body = r->body;
		br_http_submit(&r->http);
	}
	rc = br_loop_run(loop, err);
	br_http_host_cancel(&host);
	br_http_release(&http);
	br_loop_free(loop);
	free(shown);
	free(c.auth_header);
	return rc;
}
