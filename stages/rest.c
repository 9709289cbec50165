/* One JSON request at a time on the HTTP core. */
#include <stdlib.h>
#include <string.h>

#include "http.h"
#include "rest.h"

struct stg_rest_client {
	char *auth_header;
	struct br_strlist headers; /* stg_rest_options.headers */
	char *authorization;	   /* registered with the redaction */
	struct br_loop *loop;
	struct br_http http;
	struct br_http_host host;
	int http_ready;
};

struct rest_req {
	struct br_http_req http; /* first member */
	struct stg_rest_client *c;
	int done, has_body, too_big;
	long status;
	CURLcode result;
	char curl_err[CURL_ERROR_SIZE];
	struct br_buf body;
};

static int on_start(struct br_http_req *hr, CURL *easy, struct curl_slist **headers)
{
	struct rest_req *r = (struct rest_req *)hr;

	(void)easy;
	*headers = curl_slist_append(*headers, "Accept: application/json");
	if (*headers && r->has_body)
		*headers = curl_slist_append(*headers, "Content-Type: application/json");
	if (*headers && r->c->auth_header)
		*headers = curl_slist_append(*headers, r->c->auth_header);
	for (size_t i = 0; *headers && i < r->c->headers.n; i++)
		*headers = curl_slist_append(*headers, r->c->headers.items[i]);
	return *headers ? 0 : BR_E_NOMEM;
}

static int on_judge(struct br_http_req *hr, long *delay)
{
	int repeatable = strcmp(hr->method, "POST") != 0, retry;

	if (hr->result != CURLE_OK)
		retry = repeatable && br_http_transient(hr->result);
	else
		retry = hr->status == 429 || hr->status == 503 || (repeatable && hr->status >= 500);
	if (!retry || hr->attempt >= STG_REST_RETRIES)
		return 0;
	if (hr->retry_after_ms > *delay)
		*delay = hr->retry_after_ms;
	return 1;
}

static void on_done(struct br_http_req *hr)
{
	struct rest_req *r = (struct rest_req *)hr;

	r->done = 1;
	r->too_big = hr->body_too_big;
	r->status = hr->start_failed ? 0 : hr->status;
	r->result = hr->start_failed ? CURLE_FAILED_INIT : hr->result;
	memcpy(r->curl_err, hr->curl_err, sizeof(r->curl_err));
	r->body = hr->body; /* taken */
	br_buf_init(&hr->body, 0);
	br_http_req_release(hr);
}

static void on_drop(struct br_http_req *hr)
{
	br_http_req_release(hr);
	br_buf_release(&hr->body);
}

static const struct br_http_ops rest_ops = {
	.start = on_start, .judge = on_judge, .done = on_done, .drop = on_drop
};

int stg_rest_init(struct stg_rest *r, const struct stg_rest_options *o, struct br_err *err)
{
	struct stg_rest_client *c = br_xcalloc(1, sizeof(*c));
	struct br_http_options ho;
	int rc;

	r->c = c;
	if (o->authorization) {
		c->authorization = br_xstrdup(o->authorization);
		br_redact_add(c->authorization);
		c->auth_header = br_xasprintf("Authorization: %s", o->authorization);
	}
	for (size_t i = 0; o->headers && o->headers[i]; i++)
		br_strlist_add(&c->headers, o->headers[i]);
	br_http_options_init(&ho);
	ho.timeout_ms = o->timeout_ms > 0 ? o->timeout_ms : 30000;
	ho.retries = STG_REST_RETRIES;
	ho.backoff_ms = 500;
	ho.backoff_max_ms = 10000;
	ho.ca_file = o->ca_file;
	ho.insecure = o->insecure;
	ho.total_inflight = 1;
	ho.body_max = o->body_max;
	rc = br_loop_new(&c->loop, err);
	if (!rc)
		rc = br_http_init(&c->http, c->loop, &ho, err);
	if (!rc) {
		c->http_ready = 1;
		br_http_host_init(&c->host, &c->http, &rest_ops, 1, c);
	}
	return rc;
}

void stg_rest_release(struct stg_rest *r)
{
	struct stg_rest_client *c = r->c;

	if (!c)
		return;
	if (c->http_ready) {
		br_http_host_cancel(&c->host);
		br_http_release(&c->http);
	}
	br_loop_free(c->loop);
	if (c->authorization) {
		br_redact_remove(c->authorization);
		memset(c->authorization, 0, strlen(c->authorization));
		memset(c->auth_header, 0, strlen(c->auth_header));
	}
	free(c->authorization);
	free(c->auth_header);
	br_strlist_release(&c->headers);
	free(c);
	r->c = NULL;
}

int stg_rest_call(struct stg_rest *r, const char *method, const char *url, const char *body, long *ret_status,
		  struct br_buf *ret_body, struct br_err *err)
{
	struct rest_req q = { .c = r->c, .has_body = body != NULL };
	int rc;

	br_http_req_init(&q.http, &r->c->host, method, url, 0);
	q.http.send_body = body;
	br_http_submit(&q.http);
	rc = br_loop_run(r->c->loop, err);
	if (rc || !q.done) {
		br_http_host_cancel(&r->c->host); /* q is this frame's */
		br_buf_release(&q.body);
		return rc ? rc : br_errf(err, BR_E_IO, "%s %s: no answer", method, url);
	}
	if (q.too_big) {
		br_buf_release(&q.body);
		return br_errf(err, BR_E_TOOBIG, "%s %s: the answer is larger than the %zu bytes read",
			       method, url, r->c->http.opts.body_max);
	}
	if (q.result != CURLE_OK) {
		br_buf_release(&q.body);
		return br_errf(err, BR_E_UNREACHABLE, "%s %s: %s", method, url,
			       q.curl_err[0] ? q.curl_err : curl_easy_strerror(q.result));
	}
	*ret_status = q.status;
	if (q.body.len)
		br_buf_add(ret_body, q.body.data, q.body.len);
	br_buf_release(&q.body);
	return 0;
}

json_t *stg_rest_json(const char *url, const struct br_buf *body, size_t max, struct br_err *err)
{
	struct br_err perr = { 0 };
	json_t *doc = br_json_parse_bounded(body->data ? body->data : "", body->len, max, max / 4, &perr);

	if (!doc)
		br_errf(err, BR_E_PROTO, "%s: %s", url, perr.msg);
	return doc;
}
