/* MAAS requests on the HTTP core: OAuth per attempt, what is retried
 * (connection errors, 503, 409 with Retry-After, and for a GET 500, 502
 * and 504), the errors' words, and
 * the run loop. */
#define _DEFAULT_SOURCE
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "maas_private.h"

static struct req *req_of(struct br_http_req *r)
{
	return (struct req *)r; /* first member */
}

static int on_start(struct br_http_req *hr, CURL *easy, struct curl_slist **headers)
{
	struct req *r = req_of(hr);
	struct maas_client *c = r->client;
	struct br_buf auth;
	char nonce[33];
	uint64_t a = br_http_random(&c->http), b = br_http_random(&c->http);

	/* A fresh nonce and timestamp on every attempt: MAAS refuses a
	 * replayed nonce. */
	snprintf(nonce, sizeof(nonce), "%016llx%016llx", (unsigned long long)a, (unsigned long long)b);
	br_buf_init(&auth, 4096);
	br_buf_adds(&auth, "Authorization: ");
	maas_oauth_header(&c->key, nonce, (int64_t)time(NULL), &auth);
	*headers = curl_slist_append(*headers, br_buf_str(&auth));
	explicit_bzero(auth.data, auth.len);
	br_buf_release(&auth);
	*headers = curl_slist_append(*headers, "Accept: application/json");
	if (r->form)
		*headers = curl_slist_append(*headers, "Content-Type: application/x-www-form-urlencoded");
	c->requests++;
	return *headers ? 0 : BR_E_NOMEM;
}

/* A request that can be sent again with no effect of its own (RFC 9110
 * 9.2.2): a read. MAAS answers 500 for a transient fault behind it (a
 * database connection dropped, a region worker restarted: Django's
 * handler500) and a proxy in front 502 or 504; a read retried is harmless
 * where a POST might have been done once already. */
static int idempotent(const char *method)
{
	return !strcmp(method, "GET") || !strcmp(method, "HEAD");
}

static int on_judge(struct br_http_req *hr, long *delay)
{
	struct req *r = req_of(hr);
	struct maas_client *c = r->client;
	int retry;

	br_debug("maas", "%s %s -> %ld%s%s", r->method, r->path, hr->status, hr->result ? " " : "",
		 hr->result ? curl_easy_strerror(hr->result) : "");
	if (hr->result != CURLE_OK)
		retry = br_http_transient(hr->result);
	else
		retry =
		    hr->status == 503 || (hr->status == 409 && hr->retry_after_ms >= 0) ||
		    (idempotent(r->method) && (hr->status == 500 || hr->status == 502 || hr->status == 504));
	if (!retry || hr->attempt >= c->opts.retries)
		return 0;
	if (hr->retry_after_ms > *delay)
		*delay = hr->retry_after_ms;
	br_debug("maas", "%s %s: retry %d in %ld ms", r->method, r->path, hr->attempt + 1,
		 *delay < c->opts.backoff_max_ms ? *delay : c->opts.backoff_max_ms);
	return 1;
}

static void deliver(struct req *r, int rc, long status, json_t *json, const struct br_err *err)
{
	struct maas_result res = { rc, status, json, br_buf_str(&r->http.body), err };

	if (r->done)
		r->done(r->ctx, &res);
	json_decref(json);
	maas_req_free(r);
}

static void on_done(struct br_http_req *hr)
{
	struct req *r = req_of(hr);
	struct br_err err = { 0 };
	char what[512];
	long status = hr->status;
	CURLcode cc = hr->result;
	json_t *json = NULL;

	snprintf(what, sizeof(what), "%s %s", r->method, r->path);
	if (hr->start_failed) {
		br_errf(&err, BR_E_IO, "MAAS %s: cannot start the request", what);
		deliver(r, err.code, 0, NULL, &err);
		return;
	}
	if (hr->body_too_big) {
		br_errf(&err, BR_E_TOOBIG, "MAAS %s: answer larger than %u bytes", what, MAAS_BODY_MAX);
		deliver(r, err.code, status, NULL, &err);
		return;
	}
	if (cc != CURLE_OK) {
		if (cc == CURLE_PEER_FAILED_VERIFICATION || cc == CURLE_SSL_CACERT_BADFILE)
			br_errf(
			    &err, BR_E_UNREACHABLE,
			    "MAAS %s: %s: TLS certificate not trusted: %s (give MAAS's CA with --ca-file or "
			    "$BRINGUP_CA_FILE; --insecure skips the check)",
			    what, r->url, hr->curl_err[0] ? hr->curl_err : curl_easy_strerror(cc));
		else
			br_errf(&err, cc == CURLE_OPERATION_TIMEDOUT ? BR_E_TIMEOUT : BR_E_UNREACHABLE,
				"MAAS %s: cannot reach %s: %s (after %d attempts)", what, r->url,
				hr->curl_err[0] ? hr->curl_err : curl_easy_strerror(cc), hr->attempt + 1);
		deliver(r, err.code, status, NULL, &err);
		return;
	}
	if (status < 200 || status > 299) {
		maas_error_from_response(status, br_buf_str(&hr->body), hr->body.len, what, &err);
		deliver(r, err.code, status, NULL, &err);
		return;
	}
	if (hr->body.len && (hr->body.data[0] == '{' || hr->body.data[0] == '[')) {
		json = br_json_parse_bounded(hr->body.data, hr->body.len, MAAS_BODY_MAX, MAAS_JSON_VALUES_MAX,
					     &err);
		if (!json) {
			br_err_prefix(&err, "MAAS %s: %s", what,
				      err.code == BR_E_TOOBIG ? "answer refused" : "answer is not JSON");
			deliver(r, BR_E_PROTO, status, NULL, &err);
			return;
		}
	}
	deliver(r, 0, status, json, NULL);
}

static void on_drop(struct br_http_req *hr)
{
	maas_req_free(req_of(hr));
}

const struct br_http_ops maas_http_ops = {
	.start = on_start,
	.judge = on_judge,
	.done = on_done,
	.drop = on_drop,
};

static int client_finished(void *ctx)
{
	const struct maas_client *c = ctx;

	return c->host.pending == 0 && c->n_timers == 0;
}

int maas_client_run(struct maas_client *c, struct br_err *err)
{
	if (c->own_loop)
		return br_loop_run(c->loop, err);
	return br_loop_run_until(c->loop, client_finished, c, err);
}

struct call {
	int rc;
	json_t *json;
	struct br_err err;
};

static void on_call(void *ctx, const struct maas_result *res)
{
	struct call *call = ctx;

	call->rc = res->rc;
	if (res->rc)
		call->err = *res->err;
	else
		call->json = json_incref(res->json);
}

int maas_call(struct maas_client *client, const char *method, const char *path, const char *form,
	      json_t **ret_json, struct br_err *err)
{
	struct call call = { 0 };
	int rc = maas_request(client, method, path, form, on_call, &call);

	if (rc)
		return br_errf(err, rc, "MAAS %s %s: cannot queue the request", method, path);
	rc = maas_client_run(client, err);
	if (rc)
		return rc;
	if (call.rc) {
		if (err)
			*err = call.err;
		return call.rc;
	}
	if (ret_json)
		*ret_json = call.json;
	else
		json_decref(call.json);
	return 0;
}

int maas_check_access(struct maas_client *client, struct br_err *err)
{
	struct br_err call_err = { 0 };
	int rc = maas_call(client, "GET", "users/?op=whoami", NULL, NULL, &call_err);

	if (!rc)
		return 0;
	/* Anything but a refused key means this MAAS cannot serve us now. */
	return br_errf(err, rc == BR_E_AUTH ? BR_E_AUTH : BR_E_UNREACHABLE, "%s", call_err.msg);
}

int maas_whoami(struct maas_client *client, maas_done_fn done, void *ctx)
{
	return maas_request(client, "GET", "users/?op=whoami", NULL, done, ctx);
}
