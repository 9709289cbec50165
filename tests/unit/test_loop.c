/*
 * Unit tests for the event loop (common/loop.c) and the HTTP core on it
 * (common/http.c): HTTP against two libmicrohttpd peers, ipmitool-like
 * children and timers all on one loop at once, with the caps observed on
 * the servers' side; the timer heap's order; watches dropped from inside
 * callbacks; child time limits and output caps; Retry-After and backoff.
 */
#define _DEFAULT_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <microhttpd.h>
#include <pthread.h>

#include "common.h"
#include "http.h"
#include "loop.h"
#include "maas/maas.h"
#include "redfish/redfish.h"

/* ---- peers: count what is in flight, per server and over both ------------- */

#define PEERS 2 /* plain HTTP on the core; then a MAAS and two Redfish BMCs */
#define PEER_MAAS PEERS
#define PEER_BMC (PEERS + 1)
#define BMCS 2
#define PEERS_ALL (PEERS + 1 + BMCS)

struct peer {
	struct MHD_Daemon *d;
	int port;
	int inflight, max_inflight, hits, hits_busy;
};

static struct peer peers[PEERS_ALL];
static pthread_mutex_t peer_lock = PTHREAD_MUTEX_INITIALIZER;
static int all_inflight, all_max_inflight;

/* The least a Redfish BMC shows for discovery to succeed: one system with
 * one host NIC. */
static const struct {
	const char *path, *body;
} redfish_tree[] = {
	{ "/redfish/v1", "{\"Systems\":{\"@odata.id\":\"/redfish/v1/Systems\"}}" },
	{ "/redfish/v1/Systems", "{\"Members\":[{\"@odata.id\":\"/redfish/v1/Systems/1\"}]}" },
	{ "/redfish/v1/Systems/1",
	  "{\"@odata.id\":\"/redfish/v1/Systems/1\",\"Id\":\"1\",\"SerialNumber\":\"SN1\","
	  "\"PowerState\":\"On\",\"EthernetInterfaces\":{\"@odata.id\":"
	  "\"/redfish/v1/Systems/1/EthernetInterfaces\"}}" },
	{ "/redfish/v1/Systems/1/EthernetInterfaces",
	  "{\"Members\":[{\"@odata.id\":\"/redfish/v1/Systems/1/EthernetInterfaces/NIC.1\"}]}" },
	{ "/redfish/v1/Systems/1/EthernetInterfaces/NIC.1",
	  "{\"@odata.id\":\"/redfish/v1/Systems/1/EthernetInterfaces/NIC.1\",\"Id\":\"NIC.1\","
	  "\"MACAddress\":\"B0:7B:25:00:00:01\"}" },
};

static const char *redfish_body(const char *url)
{
	size_t n = strlen(url);

	if (n > 1 && url[n - 1] == '/')
		n--;
	for (size_t i = 0; i < sizeof(redfish_tree) / sizeof(redfish_tree[0]); i++)
		if (strlen(redfish_tree[i].path) == n && !strncmp(url, redfish_tree[i].path, n))
			return redfish_tree[i].body;
	return NULL;
}

static enum MHD_Result handler(void *cls, struct MHD_Connection *conn, const char *url, const char *method,
			       const char *version, const char *upload_data, size_t *upload_size,
			       void **con_cls)
{
	static int marker;
	struct peer *p = cls;
	struct MHD_Response *r;
	enum MHD_Result ret;
	const char *body = "{\"ok\":1}";
	unsigned status = 200;
	int busy = 0;

	if (!*con_cls) {
		*con_cls = &marker;
		return MHD_YES;
	}
	pthread_mutex_lock(&peer_lock);
	p->hits++;
	if (++p->inflight > p->max_inflight)
		p->max_inflight = p->inflight;
	if (p - peers < PEERS && ++all_inflight > all_max_inflight)
		all_max_inflight = all_inflight;
	/* /busy answers 503 + Retry-After: 0 the first time */
	if (!strcmp(url, "/busy") && p->hits_busy++ == 0)
		busy = 1;
	pthread_mutex_unlock(&peer_lock);
	usleep(40 * 1000);
	if (busy) {
		status = 503;
		body = "busy";
	}
	if (!strcmp(url, "/big"))
		body = "0123456789012345678901234567890123456789";
	if (p - peers >= PEER_BMC && !(body = redfish_body(url))) {
		status = 404;
		body = "{}";
	}
	r = MHD_create_response_from_buffer(strlen(body), (void *)(uintptr_t)body, MHD_RESPMEM_MUST_COPY);
	if (busy)
		MHD_add_response_header(r, "Retry-After", "0");
	pthread_mutex_lock(&peer_lock);
	p->inflight--;
	if (p - peers < PEERS)
		all_inflight--;
	pthread_mutex_unlock(&peer_lock);
	ret = MHD_queue_response(conn, status, r);
	MHD_destroy_response(r);
	return ret;
}

static int setup(void **state)
{
	(void)state;
	for (int i = 0; i < PEERS_ALL; i++) {
		memset(&peers[i], 0, sizeof(peers[i]));
		peers[i].d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION,
					      0, NULL, NULL, handler, &peers[i], MHD_OPTION_END);
		if (!peers[i].d)
			return -1;
		peers[i].port = MHD_get_daemon_info(peers[i].d, MHD_DAEMON_INFO_BIND_PORT)->port;
	}
	all_inflight = all_max_inflight = 0;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	for (int i = 0; i < PEERS_ALL; i++)
		MHD_stop_daemon(peers[i].d);
	return 0;
}

/* ---- a tiny client on the core --------------------------------------------- */

struct client_req {
	struct br_http_req http; /* first */
	char *url;
	int *done_count;
	int64_t *last_done_ms;
	long status;
	int attempts, too_big;
};

static int judge(struct br_http_req *r, long *delay)
{
	return r->result == CURLE_OK && r->status == 503 && r->attempt < 3;
}

static void done(struct br_http_req *r)
{
	struct client_req *c = (struct client_req *)r;

	c->status = r->status;
	c->attempts = r->attempt + 1;
	c->too_big = r->body_too_big;
	(*c->done_count)++;
	if (c->last_done_ms)
		*c->last_done_ms = br_now_ms();
	br_http_req_release(r);
}

static void drop(struct br_http_req *r)
{
	br_http_req_release(r);
}

static const struct br_http_ops ops = { .judge = judge, .done = done, .drop = drop };

static void release_reqs(struct client_req *reqs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		br_buf_release(&reqs[i].http.body);
		free(reqs[i].url);
	}
}

/* ---- children and timers ------------------------------------------------------ */

struct proc_out {
	int done, status, timed_out, truncated;
	size_t out_len;
	char out[64];
	int64_t at_ms;
};

static void on_proc(const struct br_loop_proc_result *res, void *ctx)
{
	struct proc_out *o = ctx;

	o->done = 1;
	o->status = res->status;
	o->timed_out = res->timed_out;
	o->truncated = res->truncated;
	o->out_len = res->out->len;
	snprintf(o->out, sizeof(o->out), "%s", br_buf_str(res->out));
	o->at_ms = br_now_ms();
}

static void spawn_sh(struct br_loop *loop, const char *script, size_t out_max, int64_t timeout_ms,
		     struct proc_out *o)
{
	char *argv[] = { (char *)(uintptr_t) "sh", (char *)(uintptr_t) "-c", (char *)(uintptr_t)script,
			 NULL };
	struct br_loop_proc_spec spec = {
		.path = "/bin/sh", .argv = argv, .out_max = out_max, .err_max = 1024, .timeout_ms = timeout_ms
	};

	memset(o, 0, sizeof(*o));
	assert_int_equal(br_loop_spawn(loop, &spec, on_proc, o, NULL), 0);
}

static int64_t fired_at[8];
static int n_fired;

static void on_timer(struct br_loop_timer *t, void *ctx)
{
	fired_at[n_fired++] = br_now_ms();
}

/* HTTP to two hosts (cap 2 each, 3 overall), a child like an ipmitool
 * call and a timer, all on one loop: each completes, the caps hold on the
 * servers' side, and the three overlap instead of running in turn. */
static void test_one_loop(void **state)
{
	enum { PER_HOST = 16 };
	struct br_loop *loop;
	struct br_http http;
	struct br_http_options o;
	struct br_http_host hosts[PEERS];
	struct client_req reqs[PEERS * PER_HOST];
	struct proc_out child;
	struct br_loop_timer timer;
	int done_count = 0;
	int64_t t0, http_done_ms = 0;

	(void)state;
	assert_int_equal(br_loop_new(&loop, NULL), 0);
	br_http_options_init(&o);
	o.total_inflight = 3;
	o.backoff_ms = 10;
	o.body_max = 1024;
	assert_int_equal(br_http_init(&http, loop, &o, NULL), 0);
	for (int h = 0; h < PEERS; h++)
		br_http_host_init(&hosts[h], &http, &ops, 2, NULL);
	for (int i = 0; i < PEERS * PER_HOST; i++) {
		int h = i % PEERS;

		memset(&reqs[i], 0, sizeof(reqs[i]));
		reqs[i].url = br_xasprintf("http://127.0.0.1:%d/%s", peers[h].port, i == 0 ? "busy" : "x");
		reqs[i].done_count = &done_count;
		reqs[i].last_done_ms = &http_done_ms;
		br_http_req_init(&reqs[i].http, &hosts[h], "GET", reqs[i].url, 0);
		br_http_submit(&reqs[i].http);
	}
	t0 = br_now_ms();
	spawn_sh(loop, "sleep 0.2; echo x", 1024, 5000, &child);
	br_loop_timer_init(&timer, on_timer, NULL);
	n_fired = 0;
	br_loop_timer_start(loop, &timer, 100);

	assert_int_equal(br_loop_run(loop, NULL), 0);

	assert_int_equal(done_count, PEERS * PER_HOST);
	for (int i = 0; i < PEERS * PER_HOST; i++)
		assert_int_equal(reqs[i].status, 200);
	/* the 503 + Retry-After: 0 was tried again */
	assert_int_equal(reqs[0].attempts, 2);
	for (int h = 0; h < PEERS; h++)
		assert_in_range(peers[h].max_inflight, 1, 2);
	assert_in_range(all_max_inflight, 2, 3);
	assert_true(child.done);
	assert_true(WIFEXITED(child.status) && WEXITSTATUS(child.status) == 0);
	assert_string_equal(child.out, "x\n");
	assert_int_equal(n_fired, 1);
	assert_in_range(fired_at[0] - t0, 100, 1000);
	/* 33 requests of 40 ms, 3 at a time, take >= 440 ms: the child's
	 * 200 ms and the timer ran meanwhile, not after */
	assert_true(http_done_ms - t0 >= 440);
	assert_true(child.at_ms < http_done_ms);
	assert_true(fired_at[0] < http_done_ms);
	assert_int_equal(http.pending, 0);

	br_http_release(&http);
	br_loop_free(loop);
	release_reqs(reqs, PEERS * PER_HOST);
}

/* The body cap cuts a transfer and says so; the request is not retried. */
/* ---- the clients on one shared loop ---------------------------------------- */

struct maas_out {
	int done, rc;
	long status;
	int64_t at_ms;
};

static void on_maas(void *ctx, const struct maas_result *res)
{
	struct maas_out *o = ctx;

	o->done = 1;
	o->rc = res->rc;
	o->status = res->status;
	o->at_ms = br_now_ms();
}

struct rf_out {
	int done, rc;
	char mac[32];
	char err[sizeof(((struct br_err *)0)->msg)];
};

static void on_rf(const struct rf_target *t, int rc, struct br_hw *hw, const struct br_err *err, void *ctx)
{
	struct rf_out *o = (struct rf_out *)t->user_data;

	(void)ctx;
	o->done = 1;
	o->rc = rc;
	snprintf(o->mac, sizeof(o->mac), "%s", hw->n_nics ? hw->nics[0].mac : "");
	snprintf(o->err, sizeof(o->err), "%s", err ? err->msg : "");
}

/* The clients themselves on one loop the test owns: plain HTTP on the
 * core, a child, a timer, MAAS requests (maas_options.loop) and a Redfish
 * discovery of two BMCs (rf_options.loop). The Redfish call runs the loop
 * until its BMCs are done, and everything else moves meanwhile; each
 * client's caps hold on its servers' side. */
static void test_clients_one_loop(void **state)
{
	enum { PLAIN = 8, MAAS_REQS = 8 };
	struct br_loop *loop;
	struct br_http http;
	struct br_http_options o;
	struct br_http_host hosts[PEERS];
	struct client_req reqs[PLAIN];
	struct proc_out child;
	struct br_loop_timer timer;
	struct maas_options mo;
	struct maas_client *cli = NULL;
	struct maas_out mouts[MAAS_REQS] = { 0 };
	struct rf_options ro;
	struct rf_target targets[BMCS];
	struct rf_out routs[BMCS] = { 0 };
	char *urls[BMCS], *maas_url;
	int done_count = 0;
	int64_t t0, rf_end, maas_first = INT64_MAX;

	(void)state;
	assert_int_equal(br_loop_new(&loop, NULL), 0);
	br_http_options_init(&o);
	o.total_inflight = 3;
	o.body_max = 1024;
	assert_int_equal(br_http_init(&http, loop, &o, NULL), 0);
	for (int h = 0; h < PEERS; h++)
		br_http_host_init(&hosts[h], &http, &ops, 2, NULL);
	for (int i = 0; i < PLAIN; i++) {
		memset(&reqs[i], 0, sizeof(reqs[i]));
		reqs[i].url = br_xasprintf("http://127.0.0.1:%d/x", peers[i % PEERS].port);
		reqs[i].done_count = &done_count;
		br_http_req_init(&reqs[i].http, &hosts[i % PEERS], "GET", reqs[i].url, 0);
		br_http_submit(&reqs[i].http);
	}
	spawn_sh(loop, "sleep 0.1; echo x", 1024, 5000, &child);
	br_loop_timer_init(&timer, on_timer, NULL);
	n_fired = 0;
	br_loop_timer_start(loop, &timer, 50);

	maas_options_init(&mo);
	maas_url = br_xasprintf("http://127.0.0.1:%d/MAAS/", peers[PEER_MAAS].port);
	mo.url = maas_url;
	mo.api_key = "ck:tk:secret";
	mo.max_inflight = 2;
	mo.loop = loop;
	assert_int_equal(maas_client_new(&mo, &cli, NULL), 0);
	for (int i = 0; i < MAAS_REQS; i++)
		assert_int_equal(maas_request(cli, "GET", "users/?op=whoami", NULL, on_maas, &mouts[i]), 0);

	rf_options_init(&ro);
	ro.loop = loop;
	ro.use_sessions = 0;
	ro.per_bmc_inflight = 2;
	ro.total_inflight = 3;
	for (int b = 0; b < BMCS; b++) {
		urls[b] = br_xasprintf("http://127.0.0.1:%d", peers[PEER_BMC + b].port);
		targets[b] = (struct rf_target){ "bmc", urls[b], "u", "p", &routs[b], 0, NULL, 0 };
	}

	t0 = br_now_ms();
	assert_int_equal(rf_discover_all(targets, BMCS, &ro, on_rf, NULL, NULL), 0);
	rf_end = br_now_ms();
	for (int b = 0; b < BMCS; b++) {
		assert_true(routs[b].done);
		if (routs[b].rc)
			fail_msg("bmc %d: %s", b, routs[b].err);
		assert_string_equal(routs[b].mac, "b0:7b:25:00:00:01");
		assert_in_range(peers[PEER_BMC + b].max_inflight, 1, 2);
	}
	/* what the Redfish run left unfinished finishes on the next runs */
	assert_int_equal(maas_client_run(cli, NULL), 0);
	assert_int_equal(br_loop_run(loop, NULL), 0);

	for (int i = 0; i < MAAS_REQS; i++) {
		assert_true(mouts[i].done);
		assert_int_equal(mouts[i].rc, 0);
		assert_int_equal(mouts[i].status, 200);
		if (mouts[i].at_ms < maas_first)
			maas_first = mouts[i].at_ms;
	}
	assert_int_equal(peers[PEER_MAAS].hits, MAAS_REQS);
	assert_in_range(peers[PEER_MAAS].max_inflight, 1, 2);
	assert_int_equal(done_count, PLAIN);
	for (int i = 0; i < PLAIN; i++)
		assert_int_equal(reqs[i].status, 200);
	for (int h = 0; h < PEERS; h++)
		assert_in_range(peers[h].max_inflight, 1, 2);
	assert_in_range(all_max_inflight, 1, 3);
	assert_true(child.done);
	assert_string_equal(child.out, "x\n");
	assert_int_equal(n_fired, 1);
	/* they ran alongside the Redfish walk (five round trips of 40 ms and
	 * more), not after it */
	assert_true(rf_end - t0 >= 200);
	assert_true(maas_first < rf_end);
	assert_true(child.at_ms < rf_end);
	assert_true(fired_at[0] < rf_end);

	maas_client_free(cli);
	br_http_release(&http);
	br_loop_free(loop);
	release_reqs(reqs, PLAIN);
	for (int b = 0; b < BMCS; b++)
		free(urls[b]);
	free(maas_url);
}

static void test_body_cap(void **state)
{
	struct br_loop *loop;
	struct br_http http;
	struct br_http_options o;
	struct br_http_host host;
	struct client_req req = { 0 };
	int done_count = 0;

	(void)state;
	assert_int_equal(br_loop_new(&loop, NULL), 0);
	br_http_options_init(&o);
	o.body_max = 16;
	assert_int_equal(br_http_init(&http, loop, &o, NULL), 0);
	br_http_host_init(&host, &http, &ops, 1, NULL);
	req.url = br_xasprintf("http://127.0.0.1:%d/big", peers[0].port);
	req.done_count = &done_count;
	br_http_req_init(&req.http, &host, "GET", req.url, 0);
	br_http_submit(&req.http);
	assert_int_equal(br_loop_run(loop, NULL), 0);
	assert_int_equal(done_count, 1);
	assert_true(req.too_big);
	assert_int_equal(req.attempts, 1);
	br_http_release(&http);
	br_loop_free(loop);
	release_reqs(&req, 1);
}

/* ---- children ------------------------------------------------------------------ */

static void test_child_limits(void **state)
{
	struct br_loop *loop;
	struct proc_out slow, chatty, failing;
	int64_t t0 = br_now_ms();

	(void)state;
	assert_int_equal(br_loop_new(&loop, NULL), 0);
	spawn_sh(loop, "sleep 5", 1024, 200, &slow);
	spawn_sh(loop, "while :; do echo yyyyyyyyyyyyyyyyyyyy; done", 4096, 5000, &chatty);
	spawn_sh(loop, "echo oops >&2; exit 3", 1024, 5000, &failing);
	assert_int_equal(br_loop_run(loop, NULL), 0);
	assert_true(br_now_ms() - t0 < 3000);
	assert_true(slow.done && slow.timed_out);
	assert_true(chatty.done && chatty.truncated && !chatty.timed_out);
	assert_int_equal(chatty.out_len, 4096);
	assert_true(failing.done && WIFEXITED(failing.status) && WEXITSTATUS(failing.status) == 3);
	br_loop_free(loop);
}

static void test_spawn_missing(void **state)
{
	struct br_loop *loop;
	struct br_err err = { 0 };
	char *argv[] = { (char *)(uintptr_t) "nope", NULL };
	struct br_loop_proc_spec spec = {
		.path = "/nonexistent/nope", .argv = argv, .out_max = 16, .err_max = 16
	};

	(void)state;
	assert_int_equal(br_loop_new(&loop, NULL), 0);
	assert_int_equal(br_loop_spawn(loop, &spec, on_proc, NULL, &err), BR_E_IO);
	assert_non_null(strstr(err.msg, "/nonexistent/nope"));
	assert_int_equal(br_loop_run(loop, NULL), 0);
	br_loop_free(loop);
}

/* What a child must not see in argv goes on its stdin (ipmitool's exec of
 * a new password): it reads exactly that, then end of file; more than a
 * pipe takes at once is refused before anything runs. */
static void test_spawn_stdin(void **state)
{
	struct br_loop *loop;
	struct br_err err = { 0 };
	struct proc_out o = { 0 };
	char *argv[] = { (char *)(uintptr_t) "sh", (char *)(uintptr_t) "-c",
			 (char *)(uintptr_t) "read a b; echo \"$b:$a\"; cat; echo end", NULL };
	struct br_loop_proc_spec spec = {
		.path = "/bin/sh", .argv = argv, .out_max = 64, .err_max = 64, .in = "one two\n", .in_len = 8
	};
	char *big = br_xcalloc(BR_LOOP_STDIN_MAX + 2, 1);

	(void)state;
	assert_int_equal(br_loop_new(&loop, NULL), 0);
	assert_int_equal(br_loop_spawn(loop, &spec, on_proc, &o, NULL), 0);
	assert_int_equal(br_loop_run(loop, NULL), 0);
	assert_true(o.done);
	assert_string_equal(o.out, "two:one\nend\n");
	memset(big, 'x', BR_LOOP_STDIN_MAX + 1);
	spec.in = big;
	spec.in_len = BR_LOOP_STDIN_MAX + 1;
	assert_int_equal(br_loop_spawn(loop, &spec, on_proc, &o, &err), BR_E_INVAL);
	assert_non_null(strstr(err.msg, "stdin"));
	free(big);
	br_loop_free(loop);
}

/* ---- timers ----------------------------------------------------------------------- */

struct order {
	int64_t last_due;
	int fired, out_of_order;
	struct br_loop_timer t[200];
};

static void on_order(struct br_loop_timer *t, void *ctx)
{
	struct order *o = ctx;

	if (t->due_ms < o->last_due)
		o->out_of_order++;
	o->last_due = t->due_ms;
	o->fired++;
}

static void test_timer_heap(void **state)
{
	struct br_loop *loop;
	struct order *o = br_xcalloc(1, sizeof(*o));
	uint64_t rng = 7;

	(void)state;
	assert_int_equal(br_loop_new(&loop, NULL), 0);
	for (int i = 0; i < 200; i++) {
		br_loop_timer_init(&o->t[i], on_order, o);
		br_loop_timer_start(loop, &o->t[i], (int64_t)(br_http_backoff_ms(60, 60, 0, &rng) - 30));
	}
	/* re-arming moves a timer; stopping removes it */
	for (int i = 0; i < 200; i += 4)
		br_loop_timer_start(loop, &o->t[i], 5);
	for (int i = 1; i < 200; i += 4)
		br_loop_timer_stop(loop, &o->t[i]);
	assert_false(br_loop_timer_pending(&o->t[1]));
	assert_true(br_loop_timer_pending(&o->t[2]));
	assert_int_equal(br_loop_run(loop, NULL), 0);
	assert_int_equal(o->fired, 150);
	assert_int_equal(o->out_of_order, 0);
	br_loop_free(loop);
	free(o);
}

/* A weak timer does not keep the loop running; a hold does until dropped. */
static void on_unhold(struct br_loop_timer *t, void *ctx)
{
	br_loop_unhold(ctx);
}

static void test_alive(void **state)
{
	struct br_loop *loop;
	struct br_loop_timer weak, strong;
	int64_t t0 = br_now_ms();

	(void)state;
	assert_int_equal(br_loop_new(&loop, NULL), 0);
	br_loop_timer_init(&weak, on_timer, NULL);
	weak.weak = 1;
	br_loop_timer_start(loop, &weak, 5000);
	assert_int_equal(br_loop_run(loop, NULL), 0);
	assert_true(br_now_ms() - t0 < 1000);
	br_loop_hold(loop);
	br_loop_timer_init(&strong, on_unhold, loop);
	br_loop_timer_start(loop, &strong, 50);
	assert_int_equal(br_loop_run(loop, NULL), 0);
	assert_true(br_now_ms() - t0 >= 50);
	br_loop_timer_stop(loop, &weak);
	br_loop_free(loop);
}

/* ---- fd watches --------------------------------------------------------------------- */

struct pair {
	int fds[2][2];
	struct br_loop_fd *w[2];
	int calls[2];
};

/* Whichever pipe is served first drops both watches; the other's event,
 * already in the batch, must not reach a freed watch. */
static void on_readable(struct br_loop_fd *watch, int fd, unsigned events, void *ctx)
{
	struct pair *p = ctx;
	int i = fd == p->fds[0][0] ? 0 : 1;

	p->calls[i]++;
	br_loop_fd_del(p->w[0]);
	br_loop_fd_del(p->w[1]);
	p->w[0] = p->w[1] = NULL;
}

static void test_fd_del_in_batch(void **state)
{
	struct br_loop *loop;
	struct br_loop_timer stop;
	struct pair p = { 0 };

	(void)state;
	assert_int_equal(br_loop_new(&loop, NULL), 0);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(pipe(p.fds[i]), 0);
		assert_int_equal(write(p.fds[i][1], "x", 1), 1);
		p.w[i] = br_loop_fd_add(loop, p.fds[i][0], BR_LOOP_IN, on_readable, &p, NULL);
		assert_non_null(p.w[i]);
	}
	br_loop_timer_init(&stop, on_timer, NULL);
	br_loop_timer_start(loop, &stop, 20);
	assert_int_equal(br_loop_run(loop, NULL), 0);
	assert_int_equal(p.calls[0] + p.calls[1], 1);
	for (int i = 0; i < 2; i++) {
		close(p.fds[i][0]);
		close(p.fds[i][1]);
	}
	br_loop_free(loop);
}

/* ---- pure pieces -------------------------------------------------------------------- */

static void test_retry_after(void **state)
{
	/* Wed, 21 Oct 2015 07:28:00 GMT */
	time_t now = 1445412480;

	(void)state;
	assert_int_equal(br_http_retry_after_ms("120", now), 120000);
	assert_int_equal(br_http_retry_after_ms("0", now), 0);
	assert_int_equal(br_http_retry_after_ms("Wed, 21 Oct 2015 07:28:30 GMT", now), 30000);
	assert_int_equal(br_http_retry_after_ms("Wednesday, 21-Oct-15 07:29:00 GMT", now), 60000);
	assert_int_equal(br_http_retry_after_ms("Wed Oct 21 07:28:05 2015", now), 5000);
	/* a date gone by: now */
	assert_int_equal(br_http_retry_after_ms("Tue, 20 Oct 2015 07:28:00 GMT", now), 0);
	/* neither */
	assert_int_equal(br_http_retry_after_ms("-5", now), -1);
	assert_int_equal(br_http_retry_after_ms("soon", now), -1);
	assert_int_equal(br_http_retry_after_ms("", now), -1);
	assert_int_equal(br_http_retry_after_ms("99999999999", now), -1);
	/* past the cap: not believed */
	assert_int_equal(br_http_retry_after_ms("Fri, 21 Oct 2016 07:28:00 GMT", now), -1);
}

static void test_backoff_bounds(void **state)
{
	uint64_t rng = 42;

	(void)state;
	for (int round = 0; round < 200; round++) {
		assert_in_range(br_http_backoff_ms(100, 1000, 0, &rng), 50, 100);
		assert_in_range(br_http_backoff_ms(100, 1000, 2, &rng), 200, 400);
		assert_in_range(br_http_backoff_ms(100, 1000, 10, &rng), 500, 1000);
		assert_in_range(br_http_backoff_ms(100, 1000, 1000, &rng), 500, 1000);
		assert_in_range(br_http_backoff_ms(0, 1000, 0, &rng), 0, 1);
	}
}

static void test_header_value(void **state)
{
	const char line[] = "eTaG:  \"abc\" \r\n";
	char *v;

	(void)state;
	v = br_http_header_value(line, sizeof(line) - 1, "ETag");
	assert_string_equal(v, "\"abc\"");
	free(v);
	assert_null(br_http_header_value(line, sizeof(line) - 1, "ETa"));
	assert_null(br_http_header_value(line, sizeof(line) - 1, "Location"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_one_loop, setup, teardown),
		cmocka_unit_test_setup_teardown(test_clients_one_loop, setup, teardown),
		cmocka_unit_test_setup_teardown(test_body_cap, setup, teardown),
		cmocka_unit_test(test_child_limits),
		cmocka_unit_test(test_spawn_missing),
		cmocka_unit_test(test_spawn_stdin),
		cmocka_unit_test(test_timer_heap),
		cmocka_unit_test(test_alive),
		cmocka_unit_test(test_fd_del_in_batch),
		cmocka_unit_test(test_retry_after),
		cmocka_unit_test(test_backoff_bounds),
		cmocka_unit_test(test_header_value),
	};

	curl_global_init(CURL_GLOBAL_DEFAULT);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
