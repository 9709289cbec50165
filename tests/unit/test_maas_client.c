/*
 * Unit tests for the MAAS client's loop against a scripted libmicrohttpd
 * peer: retries on 503 and on 409 with Retry-After, none on a plain 409,
 * a fresh nonce per attempt, the form body as sent, connection errors,
 * the global in-flight cap and timers.
 */
#define _DEFAULT_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <microhttpd.h>
#include <pthread.h>

#include "common.h"
#include "maas/maas.h"

struct peer {
	struct MHD_Daemon *d;
	int port;
	pthread_mutex_t lock;
	int hits_retry, hits_conflict, hits_internal, inflight, max_inflight;
	char nonces[8][64];
	int n_nonces;
	char body[1024];
	char auth[512];
};

static struct peer peer;

static void note_nonce(const char *auth)
{
	const char *n = auth ? strstr(auth, "oauth_nonce=\"") : NULL;

	if (n && peer.n_nonces < 8)
		snprintf(peer.nonces[peer.n_nonces++], 64, "%.*s", (int)strcspn(n + 13, "\""), n + 13);
	if (auth)
		snprintf(peer.auth, sizeof(peer.auth), "%s", auth);
}

static enum MHD_Result reply(struct MHD_Connection *conn, unsigned status, const char *body,
			     const char *retry_after)
{
	struct MHD_Response *r =
	    MHD_create_response_from_buffer(strlen(body), (void *)(uintptr_t)body, MHD_RESPMEM_MUST_COPY);
	enum MHD_Result ret;

	if (retry_after)
		MHD_add_response_header(r, "Retry-After", retry_after);
	ret = MHD_queue_response(conn, status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result handler(void *cls, struct MHD_Connection *conn, const char *url, const char *method,
			       const char *version, const char *upload_data, size_t *upload_size,
			       void **con_cls)
{
	static int marker;
	enum MHD_Result ret;
	int hit;

	if (!*con_cls) {
		*con_cls = &marker;
		return MHD_YES;
	}
	if (*upload_size) {
		pthread_mutex_lock(&peer.lock);
		snprintf(peer.body, sizeof(peer.body), "%.*s", (int)*upload_size, upload_data);
		pthread_mutex_unlock(&peer.lock);
		*upload_size = 0;
		return MHD_YES;
	}
	pthread_mutex_lock(&peer.lock);
	note_nonce(MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Authorization"));
	if (++peer.inflight > peer.max_inflight)
		peer.max_inflight = peer.inflight;
	pthread_mutex_unlock(&peer.lock);
	if (!strcmp(url, "/MAAS/api/2.0/retry/")) {
		pthread_mutex_lock(&peer.lock);
		hit = ++peer.hits_retry;
		pthread_mutex_unlock(&peer.lock);
		ret = hit < 3 ? reply(conn, 503, "busy", "0") : reply(conn, 200, "{\"ok\": 1}", NULL);
	} else if (!strcmp(url, "/MAAS/api/2.0/internal/")) {
		pthread_mutex_lock(&peer.lock);
		hit = ++peer.hits_internal;
		pthread_mutex_unlock(&peer.lock);
		ret = hit == 1	 ? reply(conn, 500, "Internal Server Error", NULL)
		      : hit == 2 ? reply(conn, 502, "Bad Gateway", NULL)
				 : reply(conn, 200, "{\"ok\": 2}", NULL);
	} else if (!strcmp(url, "/MAAS/api/2.0/conflict/")) {
		pthread_mutex_lock(&peer.lock);
		hit = ++peer.hits_conflict;
		pthread_mutex_unlock(&peer.lock);
		ret = hit < 2 ? reply(conn, 409, "database is locked", "0") : reply(conn, 200, "OK", NULL);
	} else if (!strcmp(url, "/MAAS/api/2.0/state/")) {
		ret = reply(conn, 409, "Invalid transition: Ready -> Ready.", NULL);
	} else if (!strcmp(url, "/MAAS/api/2.0/slow/")) {
		usleep(50 * 1000);
		ret = reply(conn, 200, "[]", NULL);
	} else if (!strcmp(url, "/MAAS/api/2.0/flood/")) {
		/* 3 MiB of "[{},{},...]": over a million values in a body far under
		 * MAAS_BODY_MAX. */
		size_t n = 3u << 20;
		char *big = malloc(n + 1);

		for (size_t i = 0; i < n; i += 3)
			memcpy(big + i, "{},", 3);
		big[0] = '[';
		big[n - 1] = ']';
		big[n] = '\0';
		ret = reply(conn, 200, big, NULL);
		free(big);
	} else if (!strcmp(url, "/MAAS/api/2.0/form/") && !strcmp(method, "POST")) {
		ret = reply(conn, 200, "{}", NULL);
	} else {
		ret = reply(conn, 404, "No Machine matches the given query.", NULL);
	}
	pthread_mutex_lock(&peer.lock);
	peer.inflight--;
	pthread_mutex_unlock(&peer.lock);
	return ret;
}

static int setup(void **state)
{
	(void)state;
	memset(&peer, 0, sizeof(peer));
	pthread_mutex_init(&peer.lock, NULL);
	peer.d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION, 0, NULL,
				  NULL, handler, NULL, MHD_OPTION_END);
	if (!peer.d)
		return -1;
	peer.port = MHD_get_daemon_info(peer.d, MHD_DAEMON_INFO_BIND_PORT)->port;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	MHD_stop_daemon(peer.d);
	pthread_mutex_destroy(&peer.lock);
	return 0;
}

static struct maas_client *client_for(int port, int max_inflight)
{
	struct maas_options o;
	struct maas_client *c = NULL;
	char url[64];

	snprintf(url, sizeof(url), "http://127.0.0.1:%d/MAAS", port);
	maas_options_init(&o);
	o.url = url;
	o.api_key = "ck:tk:sekrit";
	o.backoff_ms = 10;
	o.retries = 3;
	o.max_inflight = max_inflight;
	assert_int_equal(maas_client_new(&o, &c, NULL), 0);
	return c;
}

static void test_retry_503(void **state)
{
	struct maas_client *c = client_for(peer.port, 4);
	struct br_err err = { 0 };
	json_t *doc = NULL;

	(void)state;
	assert_int_equal(maas_call(c, "GET", "retry/", NULL, &doc, &err), 0);
	assert_int_equal(json_integer_value(json_object_get(doc, "ok")), 1);
	assert_int_equal(peer.hits_retry, 3);
	assert_int_equal(maas_client_requests(c), 3);
	/* Every attempt carries its own nonce. */
	assert_int_equal(peer.n_nonces, 3);
	assert_string_not_equal(peer.nonces[0], peer.nonces[1]);
	assert_string_not_equal(peer.nonces[1], peer.nonces[2]);
	assert_non_null(strstr(peer.auth, "oauth_signature=\"%26sekrit\""));
	json_decref(doc);
	maas_client_free(c);
}

/* Issue 29, finding 8: a GET answered 500 or 502 (a transient fault in
 * MAAS or before it) is retried; a POST answered 500 is not: it may have
 * been done. */
static void test_retry_500_get_only(void **state)
{
	struct maas_client *c = client_for(peer.port, 4);
	struct br_err err = { 0 };
	json_t *doc = NULL;

	(void)state;
	assert_int_equal(maas_call(c, "GET", "internal/", NULL, &doc, &err), 0);
	assert_int_equal(json_integer_value(json_object_get(doc, "ok")), 2);
	assert_int_equal(peer.hits_internal, 3);
	json_decref(doc);
	doc = NULL;
	peer.hits_internal = 0;
	assert_int_not_equal(maas_call(c, "POST", "internal/", "", &doc, &err), 0);
	assert_int_equal(peer.hits_internal, 1);
	maas_client_free(c);
}

static void test_conflict_and_state(void **state)
{
	struct maas_client *c = client_for(peer.port, 4);
	struct br_err err = { 0 };
	json_t *doc = NULL;

	(void)state;
	/* 409 with Retry-After is a database conflict: retried. Plain "OK" is not JSON. */
	assert_int_equal(maas_call(c, "POST", "conflict/", "", &doc, &err), 0);
	assert_null(doc);
	assert_int_equal(peer.hits_conflict, 2);
	/* 409 without it is a wrong state: reported at once. */
	assert_int_equal(maas_call(c, "POST", "state/", "", NULL, &err), BR_E_STATE);
	assert_string_equal(err.msg,
			    "MAAS POST state/: HTTP 409 Conflict: Invalid transition: Ready -> Ready.");
	assert_int_equal(maas_call(c, "GET", "machines/nope/", NULL, NULL, &err), BR_E_NOTFOUND);
	assert_non_null(strstr(err.msg, "No Machine matches the given query."));
	maas_client_free(c);
}

/* Issue 29: an 8 MiB answer of empty objects cost 708 MB and 8.6 s of CPU in
 * jansson; the values are counted first and the answer refused. */
static void test_value_cap(void **state)
{
	struct maas_client *c = client_for(peer.port, 4);
	struct br_err err = { 0 };
	json_t *doc = NULL;

	(void)state;
	assert_int_equal(maas_call(c, "GET", "flood/", NULL, &doc, &err), BR_E_PROTO);
	assert_null(doc);
	assert_non_null(strstr(err.msg, "more than 1048576 values"));
	maas_client_free(c);
}

static void test_form_sent(void **state)
{
	struct maas_client *c = client_for(peer.port, 4);
	struct br_buf f;

	(void)state;
	br_buf_init(&f, 0);
	maas_form_add(&f, "mac_addresses", "aa:bb:cc:dd:ee:01");
	maas_form_add(&f, "mac_addresses", "aa:bb:cc:dd:ee:02");
	assert_int_equal(maas_call(c, "POST", "form/", br_buf_str(&f), NULL, NULL), 0);
	assert_string_equal(
	    peer.body, "mac_addresses=aa%3Abb%3Acc%3Add%3Aee%3A01&mac_addresses=aa%3Abb%3Acc%3Add%3Aee%3A02");
	br_buf_release(&f);
	maas_client_free(c);
}

static void test_unreachable(void **state)
{
	struct maas_client *c = client_for(1, 4); /* nothing listens on port 1 */
	struct br_err err = { 0 };

	(void)state;
	assert_int_equal(maas_check_access(c, &err), BR_E_UNREACHABLE);
	assert_non_null(strstr(err.msg, "cannot reach http://127.0.0.1:1/MAAS/api/2.0/users/?op=whoami"));
	assert_non_null(strstr(err.msg, "after 4 attempts"));
	assert_null(strstr(err.msg, "sekrit"));
	maas_client_free(c);
}

struct counter {
	int done, timers;
};

static void on_done(void *ctx, const struct maas_result *res)
{
	struct counter *n = ctx;

	if (res->rc == 0 && json_is_array(res->json))
		n->done++;
}

static void on_timer(void *ctx)
{
	((struct counter *)ctx)->timers++;
}

static void test_cap_and_timers(void **state)
{
	struct maas_client *c = client_for(peer.port, 3);
	struct counter n = { 0 };
	int64_t start = br_now_ms();

	(void)state;
	for (int i = 0; i < 12; i++)
		assert_int_equal(maas_request(c, "GET", "slow/", NULL, on_done, &n), 0);
	assert_int_equal(maas_after(c, 30, on_timer, &n), 0);
	assert_int_equal(maas_client_run(c, NULL), 0);
	assert_int_equal(n.done, 12);
	assert_int_equal(n.timers, 1);
	assert_true(peer.max_inflight <= 3);
	assert_true(peer.max_inflight >= 2);
	/* 12 requests of 50 ms, 3 at a time: at least 4 rounds. */
	assert_true(br_now_ms() - start >= 190);
	maas_client_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_retry_503, setup, teardown),
		cmocka_unit_test_setup_teardown(test_retry_500_get_only, setup, teardown),
		cmocka_unit_test_setup_teardown(test_conflict_and_state, setup, teardown),
		cmocka_unit_test_setup_teardown(test_value_cap, setup, teardown),
		cmocka_unit_test_setup_teardown(test_form_sent, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unreachable, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cap_and_timers, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
