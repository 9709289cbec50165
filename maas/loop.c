/* Sending MAAS requests on the multi handle, retrying, and the run loop. */
#define _DEFAULT_SOURCE
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "maas_private.h"

static size_t on_body(char *data, size_t size, size_t nmemb, void *userp)
{
	struct req *r = userp;

	/* Returning short makes curl fail the transfer with CURLE_WRITE_ERROR. */
	return br_buf_add(&r->body, data, size * nmemb) ? 0 : size * nmemb;
}

static size_t on_header(char *line, size_t size, size_t nmemb, void *userp)
{
	struct req *r = userp;
	size_t len = size * nmemb;
	static const char name[] = "retry-after:";

	if (len > sizeof(name) && !strncasecmp(line, name, sizeof(name) - 1)) {
		char value[24];
		size_t n = len - (sizeof(name) - 1);
		const char *p = line + sizeof(name) - 1;
		long secs;

		while (n && (*p == ' ' || *p == '\t'))
			p++, n--;
		while (n && (p[n - 1] == '\r' || p[n - 1] == '\n' || p[n - 1] == ' '))
			n--;
		/* MAAS sends delta-seconds; an HTTP date is treated as "soon". */
		if (n && n < sizeof(value)) {
			memcpy(value, p, n);
			value[n] = '\0';
			r->retry_after_s = br_parse_long(value, 0, 3600, &secs) ? 1 : secs;
		}
	}
	return len;
}

static int start(struct maas_client *c, struct req *r)
{
	struct br_buf auth;
	char nonce[33];
	uint64_t a = maas_random(c), b = maas_random(c);

	if (!r->easy && !(r->easy = curl_easy_init()))
		return BR_E_NOMEM;
	curl_easy_reset(r->easy);
	curl_slist_free_all(r->headers);
	r->headers = NULL;
	br_buf_reset(&r->body);
	r->retry_after_s = -1;
	r->errbuf[0] = '\0';
	/* A fresh nonce and timestamp on every attempt: MAAS refuses a
	 * replayed nonce. */
	snprintf(nonce, sizeof(nonce), "%016llx%016llx", (unsigned long long)a, (unsigned long long)b);
	br_buf_init(&auth, 4096);
	br_buf_adds(&auth, "Authorization: ");
	maas_oauth_header(&c->key, nonce, (int64_t)time(NULL), &auth);
	r->headers = curl_slist_append(r->headers, br_buf_str(&auth));
	explicit_bzero(auth.data, auth.len);
	br_buf_release(&auth);
	r->headers = curl_slist_append(r->headers, "Accept: application/json");
	if (r->form)
		r->headers = curl_slist_append(r->headers, "Content-Type: application/x-www-form-urlencoded");
	curl_easy_setopt(r->easy, CURLOPT_URL, r->url);
	curl_easy_setopt(r->easy, CURLOPT_HTTPHEADER, r->headers);
	if (strcmp(r->method, "GET")) {
		curl_easy_setopt(r->easy, CURLOPT_POSTFIELDS, r->form ? r->form : "");
		curl_easy_setopt(r->easy, CURLOPT_POSTFIELDSIZE, (long)(r->form ? strlen(r->form) : 0));
		if (strcmp(r->method, "POST"))
			curl_easy_setopt(r->easy, CURLOPT_CUSTOMREQUEST, r->method);
	}
	curl_easy_setopt(r->easy, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(r->easy, CURLOPT_WRITEDATA, r);
	curl_easy_setopt(r->easy, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(r->easy, CURLOPT_HEADERDATA, r);
	curl_easy_setopt(r->easy, CURLOPT_ERRORBUFFER, r->errbuf);
	curl_easy_setopt(r->easy, CURLOPT_PRIVATE, r);
	curl_easy_setopt(r->easy, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(r->easy, CURLOPT_TIMEOUT_MS, c->opts.timeout_ms);
	curl_easy_setopt(r->easy, CURLOPT_CONNECTTIMEOUT_MS, c->opts.connect_timeout_ms);
	curl_easy_setopt(r->easy, CURLOPT_PROTOCOLS_STR, "http,https");
	if (c->ca_file)
		curl_easy_setopt(r->easy, CURLOPT_CAINFO, c->ca_file);
	if (c->opts.insecure) {
		curl_easy_setopt(r->easy, CURLOPT_SSL_VERIFYPEER, 0L);
		curl_easy_setopt(r->easy, CURLOPT_SSL_VERIFYHOST, 0L);
	}
	if (curl_multi_add_handle(c->multi, r->easy) != CURLM_OK)
		return BR_E_IO;
	c->active++;
	c->requests++;
	r->active_prev = NULL;
	r->active_next = c->active_list;
	if (c->active_list)
		c->active_list->active_prev = r;
	c->active_list = r;
	return 0;
}

static void deliver(struct req *r, int rc, long status, json_t *json, const struct br_err *err)
{
	struct maas_result res = { rc, status, json, br_buf_str(&r->body), err };

	if (r->done)
		r->done(r->ctx, &res);
	json_decref(json);
	maas_req_free(r);
}

static int schedule_retry(struct maas_client *c, struct req *r)
{
	int64_t delay = c->opts.backoff_ms << (r->attempt < 16 ? r->attempt : 16);

	if (r->attempt >= c->opts.retries)
		return -1;
	if (delay > c->opts.backoff_max_ms)
		delay = c->opts.backoff_max_ms;
	/* Jitter: half to full delay, so a rack of retries does not arrive at once. */
	delay = delay / 2 + (int64_t)(maas_random(c) % (uint64_t)(delay / 2 + 1));
	if (r->retry_after_s >= 0 && r->retry_after_s * 1000 > delay)
		delay = r->retry_after_s * 1000 < c->opts.backoff_max_ms ? r->retry_after_s * 1000 : c->opts.backoff_max_ms;
	r->attempt++;
	br_debug("maas", "%s %s: retry %d in %lld ms", r->method, r->path, r->attempt, (long long)delay);
	return maas_add_timer(c, delay, NULL, NULL, r) ? -1 : 0;
}

static int transient(CURLcode cc)
{
	switch (cc) {
	case CURLE_COULDNT_CONNECT:
	case CURLE_OPERATION_TIMEDOUT:
	case CURLE_SEND_ERROR:
	case CURLE_RECV_ERROR:
	case CURLE_GOT_NOTHING:
	case CURLE_PARTIAL_FILE:
		return 1;
	default:
		return 0;
	}
}

static void complete(struct maas_client *c, struct req *r, CURLcode cc)
{
	struct br_err err = { 0 };
	char what[512];
	long status = 0;
	json_t *json = NULL;

	curl_multi_remove_handle(c->multi, r->easy);
	c->active--;
	if (r->active_prev)
		r->active_prev->active_next = r->active_next;
	else
		c->active_list = r->active_next;
	if (r->active_next)
		r->active_next->active_prev = r->active_prev;
	curl_easy_getinfo(r->easy, CURLINFO_RESPONSE_CODE, &status);
	snprintf(what, sizeof(what), "%s %s", r->method, r->path);
	br_debug("maas", "%s -> %ld%s%s", what, status, cc ? " " : "", cc ? curl_easy_strerror(cc) : "");
	if (cc != CURLE_OK) {
		if (transient(cc) && !schedule_retry(c, r))
			return;
		if (cc == CURLE_PEER_FAILED_VERIFICATION || cc == CURLE_SSL_CACERT_BADFILE)
			br_errf(&err, BR_E_UNREACHABLE,
				"MAAS %s: %s: TLS certificate not trusted: %s (give MAAS's CA with --ca-file or "
				"$BRINGUP_CA_FILE; --insecure skips the check)",
				what, r->url, r->errbuf[0] ? r->errbuf : curl_easy_strerror(cc));
		else
			br_errf(&err, cc == CURLE_OPERATION_TIMEDOUT ? BR_E_TIMEOUT : BR_E_UNREACHABLE,
				"MAAS %s: cannot reach %s: %s (after %d attempts)", what, r->url,
				r->errbuf[0] ? r->errbuf : curl_easy_strerror(cc), r->attempt + 1);
		if (cc == CURLE_WRITE_ERROR)
			br_errf(&err, BR_E_TOOBIG, "MAAS %s: answer larger than %u bytes", what, MAAS_BODY_MAX);
		deliver(r, err.code, status, NULL, &err);
		return;
	}
	if ((status == 503 || (status == 409 && r->retry_after_s >= 0)) && !schedule_retry(c, r))
		return;
	if (status < 200 || status > 299) {
		maas_error_from_response(status, br_buf_str(&r->body), r->body.len, what, &err);
		deliver(r, err.code, status, NULL, &err);
		return;
	}
	if (r->body.len && (r->body.data[0] == '{' || r->body.data[0] == '[')) {
		json = br_json_parse(r->body.data, r->body.len, MAAS_BODY_MAX, &err);
		if (!json) {
			br_err_prefix(&err, "MAAS %s: answer is not JSON", what);
			deliver(r, BR_E_PROTO, status, NULL, &err);
			return;
		}
	}
	deliver(r, 0, status, json, NULL);
}

static void fire_timers(struct maas_client *c)
{
	int64_t now = br_now_ms();

	while (c->timers && c->timers->due_ms <= now) {
		struct timer *t = c->timers;

		c->timers = t->next;
		c->queued--;
		if (t->retry)
			maas_enqueue(c, t->retry);
		else
			t->fn(t->ctx);
		free(t);
	}
}

static void start_waiting(struct maas_client *c)
{
	while (c->wait_head && c->active < (size_t)c->opts.max_inflight) {
		struct req *r = c->wait_head;
		struct br_err err = { 0 };

		c->wait_head = r->next;
		if (!c->wait_head)
			c->wait_tail = NULL;
		c->queued--;
		if (start(c, r)) {
			br_errf(&err, BR_E_IO, "MAAS %s %s: cannot start the request", r->method, r->path);
			deliver(r, err.code, 0, NULL, &err);
		}
	}
}

int maas_client_run(struct maas_client *c, struct br_err *err)
{
	for (;;) {
		CURLMsg *msg;
		int running, left;
		long wait_ms = 1000;

		fire_timers(c);
		start_waiting(c);
		if (curl_multi_perform(c->multi, &running) != CURLM_OK)
			return br_errf(err, BR_E_IO, "curl_multi_perform failed");
		while ((msg = curl_multi_info_read(c->multi, &left))) {
			struct req *r = NULL;

			if (msg->msg != CURLMSG_DONE)
				continue;
			curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, (char **)&r);
			complete(c, r, msg->data.result);
		}
		if (!c->active && !c->wait_head && !c->timers)
			return 0;
		if (c->wait_head && c->active < (size_t)c->opts.max_inflight)
			wait_ms = 0;
		else if (c->timers) {
			int64_t until = c->timers->due_ms - br_now_ms();

			wait_ms = until < 0 ? 0 : until < wait_ms ? (long)until : wait_ms;
		}
		if (wait_ms && curl_multi_poll(c->multi, NULL, 0, (int)wait_ms, NULL) != CURLM_OK)
			return br_errf(err, BR_E_IO, "curl_multi_poll failed");
	}
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
