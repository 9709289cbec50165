/*
 * http — libcurl multi on the event loop (see http.h for the contract).
 *
 * curl tells us which sockets it wants watched and when it next needs a
 * call; the loop's epoll set holds them, so a turn costs what happened, not
 * how many connections are open (curl_multi_poll would poll() every socket
 * of every host, and curl_multi_perform would visit every transfer).
 * Dispatch runs in the loop's prepare hook: requests made by callbacks
 * during a turn all start together before the next wait.
 */
#define _DEFAULT_SOURCE
#include <limits.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>

#include "http.h"

struct br_http_shard {
	struct br_http *http;
	CURLM *multi;
	struct br_loop_timer timer; /* curl's */
	size_t hosts;
	size_t active;			    /* hosts that submitted and are not released */
	size_t released;		    /* hosts released (br_http_host_release) */
	int live;			    /* counted in n_live_shards */
	struct br_http_shard *next_touched; /* started transfers this dispatch */
	int touched;
};

static struct br_http_shard *shard_new(struct br_http *h);
static void shard_caps(struct br_http *h);
static CURLM *multi_new(struct br_http_shard *sh);

void br_http_options_init(struct br_http_options *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->timeout_ms = 30000;
	opts->connect_timeout_ms = 5000;
	opts->retries = 5;
	opts->backoff_ms = 500;
	opts->backoff_max_ms = 30000;
	opts->total_inflight = 512;
}

/* ---- small pure pieces ------------------------------------------------------ */

uint64_t br_http_random(struct br_http *h)
{
	uint64_t z = (h->rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

long br_http_backoff_ms(long base_ms, long max_ms, int attempt, uint64_t *rng)
{
	long delay = base_ms > 0 ? base_ms : 1, half;
	uint64_t z;

	for (int i = 0; i < attempt && delay < max_ms; i++)
		delay *= 2;
	if (delay > max_ms)
		delay = max_ms > 0 ? max_ms : 0;
	z = (*rng += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	z ^= z >> 31;
	half = delay / 2;
	return half + (long)(z % (uint64_t)(delay - half + 1));
}

long br_http_retry_after_ms(const char *value, time_t now)
{
	long secs;
	time_t when;

	if (!br_parse_long(value, 0, BR_HTTP_RETRY_AFTER_MAX_S, &secs))
		return secs * 1000;
	/* only a date: a number out of range is not one */
	if (value[0] >= '0' && value[0] <= '9')
		return -1;
	when = curl_getdate(value, &now);
	if (when < 0)
		return -1;
	if (when - now > BR_HTTP_RETRY_AFTER_MAX_S)
		return -1;
	return when > now ? (long)(when - now) * 1000 : 0;
}

char *br_http_header_value(const char *line, size_t len, const char *name)
{
	size_t n = strlen(name);

	if (len <= n || strncasecmp(line, name, n) || line[n] != ':')
		return NULL;
	line += n + 1;
	len -= n + 1;
	while (len && (*line == ' ' || *line == '\t'))
		line++, len--;
	while (len && (line[len - 1] == '\r' || line[len - 1] == '\n' || line[len - 1] == ' '))
		len--;
	if (len > BR_HTTP_HEADER_MAX)
		len = BR_HTTP_HEADER_MAX;
	return br_xstrndup(line, len);
}

int br_http_transient(CURLcode c)
{
	switch (c) {
	case CURLE_COULDNT_CONNECT:
	case CURLE_OPERATION_TIMEDOUT:
	case CURLE_RECV_ERROR:
	case CURLE_SEND_ERROR:
	case CURLE_GOT_NOTHING:
	case CURLE_PARTIAL_FILE:
	case CURLE_HTTP2:
	case CURLE_HTTP2_STREAM:
		return 1;
	default:
		return 0;
	}
}

/* ---- lists ---------------------------------------------------------------- */

static void list_push(struct br_http_req **head, struct br_http_req *req)
{
	req->prev = NULL;
	req->next = *head;
	if (*head)
		(*head)->prev = req;
	*head = req;
}

static void list_unlink(struct br_http_req **head, struct br_http_req *req)
{
	if (req->prev)
		req->prev->next = req->next;
	else
		*head = req->next;
	if (req->next)
		req->next->prev = req->prev;
	req->next = req->prev = NULL;
}

/* A host is in the ring while it could start a request. */
static void ring_update(struct br_http_host *host)
{
	struct br_http *h = host->http;
	int want = host->queue && host->inflight < host->cap;

	if (want && !host->ring_next) {
		if (!h->ring) {
			host->ring_next = host->ring_prev = host;
			h->ring = host;
		} else {
			host->ring_next = h->ring;
			host->ring_prev = h->ring->ring_prev;
			h->ring->ring_prev->ring_next = host;
			h->ring->ring_prev = host;
		}
		br_loop_wake(h->loop);
	} else if (!want && host->ring_next) {
		if (host->ring_next == host) {
			h->ring = NULL;
		} else {
			host->ring_prev->ring_next = host->ring_next;
			host->ring_next->ring_prev = host->ring_prev;
			if (h->ring == host)
				h->ring = host->ring_next;
		}
		host->ring_next = host->ring_prev = NULL;
	}
}

static void enqueue(struct br_http_req *req)
{
	struct br_http_host *host = req->host;
	struct br_http_req *at;

	req->state = BR_HTTP_QUEUED;
	if (!host->queue_tail || host->queue_tail->priority >= req->priority) {
		req->next = NULL;
		req->prev = host->queue_tail;
		if (host->queue_tail)
			host->queue_tail->next = req;
		else
			host->queue = req;
		host->queue_tail = req;
	} else {
		for (at = host->queue; at->priority >= req->priority; at = at->next)
			;
		req->next = at;
		req->prev = at->prev;
		if (at->prev)
			at->prev->next = req;
		else
			host->queue = req;
		at->prev = req;
	}
	ring_update(host);
}

static void dequeue(struct br_http_req *req)
{
	struct br_http_host *host = req->host;

	if (host->queue_tail == req)
		host->queue_tail = req->prev;
	list_unlink(&host->queue, req);
	req->state = BR_HTTP_IDLE;
}

/* ---- requests ------------------------------------------------------------- */

void br_http_host_init(struct br_http_host *host, struct br_http *h, const struct br_http_ops *ops, int cap,
		       void *ctx)
{
	memset(host, 0, sizeof(*host));
	host->http = h;
	host->shard = h->shards[h->n_shards - 1];
	if (host->shard->hosts >= BR_HTTP_SHARD_HOSTS) {
		struct br_http_shard *s = shard_new(h);

		if (s) /* else the last one takes more hosts */
			host->shard = s;
	}
	host->shard->hosts++;
	h->n_hosts++;
	host->ops = ops;
	host->cap = cap > 0 ? cap : 1;
	host->ctx = ctx;
}

static void on_delay(struct br_loop_timer *t, void *ctx)
{
	struct br_http_req *req = ctx;

	list_unlink(&req->host->delayed, req);
	enqueue(req);
}

void br_http_req_init(struct br_http_req *req, struct br_http_host *host, const char *method, const char *url,
		      int priority)
{
	memset(req, 0, sizeof(*req));
	req->host = host;
	req->method = method;
	req->url = url;
	req->priority = priority;
	req->retry_after_ms = -1;
	br_buf_init(&req->body, host->http->opts.body_max);
	br_loop_timer_init(&req->delay, on_delay, req);
}

static CURL *easy_get(struct br_http *h)
{
	if (h->n_pool == 0)
		return curl_easy_init();
	curl_easy_reset(h->pool[--h->n_pool]);
	return h->pool[h->n_pool];
}

static void easy_put(struct br_http *h, CURL *e)
{
	if (!e)
		return;
	if (h->n_pool < BR_HTTP_EASY_POOL_MAX)
		h->pool[h->n_pool++] = e;
	else
		curl_easy_cleanup(e);
}

void br_http_req_release(struct br_http_req *req)
{
	easy_put(req->host->http, req->easy);
	req->easy = NULL;
	curl_slist_free_all(req->headers);
	req->headers = NULL;
	br_buf_reset(&req->body);
	free(req->status_text);
	req->status_text = NULL;
	req->status = 0;
	req->result = CURLE_OK;
	req->retry_after_ms = -1;
	req->body_too_big = 0;
	req->start_failed = 0;
	req->curl_err[0] = '\0';
}

/* A host's first request puts its multi among those at work. */
static void host_activate(struct br_http_host *host)
{
	struct br_http_shard *sh = host->shard;

	host->activated = 1;
	sh->active++;
	if (!sh->live) {
		sh->live = 1;
		host->http->n_live_shards++;
		shard_caps(host->http);
	}
}

void br_http_submit(struct br_http_req *req)
{
	struct br_http_host *host = req->host;

	if (!host->activated && !host->released)
		host_activate(host);
	host->pending++;
	host->http->pending++;
	br_loop_hold(host->http->loop);
	enqueue(req);
}

void br_http_submit_at(struct br_http_req *req, int64_t due_ms)
{
	struct br_http_host *host = req->host;

	if (!host->activated && !host->released)
		host_activate(host);
	host->pending++;
	host->http->pending++;
	br_loop_hold(host->http->loop);
	req->state = BR_HTTP_DELAYED;
	list_push(&host->delayed, req);
	br_loop_timer_start_at(host->http->loop, &req->delay, due_ms);
}

int br_http_unqueue(struct br_http_req *req)
{
	struct br_http_host *host = req->host;

	if (req->state != BR_HTTP_QUEUED)
		return BR_E_STATE;
	dequeue(req);
	ring_update(host);
	host->pending--;
	host->http->pending--;
	br_loop_unhold(host->http->loop);
	return 0;
}

void br_http_host_cancel(struct br_http_host *host)
{
	struct br_http *h = host->http;
	struct br_http_req *req;

	while ((req = host->queue)) {
		dequeue(req);
		host->pending--;
		h->pending--;
		br_loop_unhold(h->loop);
		host->ops->drop(req);
	}
	while ((req = host->delayed)) {
		list_unlink(&host->delayed, req);
		br_loop_timer_stop(h->loop, &req->delay);
		req->state = BR_HTTP_IDLE;
		host->pending--;
		h->pending--;
		br_loop_unhold(h->loop);
		host->ops->drop(req);
	}
	while ((req = host->running)) {
		list_unlink(&host->running, req);
		curl_multi_remove_handle(host->shard->multi, req->easy);
		req->state = BR_HTTP_IDLE;
		host->inflight--;
		h->inflight--;
		host->pending--;
		h->pending--;
		br_loop_unhold(h->loop);
		host->ops->drop(req);
	}
	ring_update(host);
}

/* Every host of sh is released: nothing of theirs runs on its multi, and
 * its idle connections (to BMCs that are done) would stay open to the
 * end: a fresh multi takes its place, closing them. */
static void shard_close_idle(struct br_http_shard *sh)
{
	struct br_http *h = sh->http;
	CURLM *fresh = multi_new(sh);

	if (!fresh)
		return; /* they stay open; nothing breaks */
	br_loop_timer_stop(h->loop, &sh->timer);
	curl_multi_cleanup(sh->multi);
	sh->multi = fresh;
	if (h->shards[0] == sh)
		h->multi = fresh;
	/* one multi serves all: the total cap is curl's too (shard_new) */
	if (h->n_shards == 1 && h->opts.max_connections > 0)
		curl_multi_setopt(fresh, CURLMOPT_MAX_TOTAL_CONNECTIONS, h->opts.max_connections);
}

void br_http_host_release(struct br_http_host *host)
{
	struct br_http_shard *sh = host->shard;
	struct br_http *h = host->http;

	/* still holding requests: not over, whatever the client thinks */
	if (host->released || host->pending)
		return;
	host->released = 1;
	sh->released++;
	if (host->activated)
		sh->active--;
	if (sh->active == 0 && sh->live) {
		sh->live = 0;
		h->n_live_shards--;
		if (sh->released == sh->hosts)
			shard_close_idle(sh);
		shard_caps(h);
	}
}

/* ---- curl callbacks ------------------------------------------------------ */

static size_t on_body(char *data, size_t size, size_t nmemb, void *userp)
{
	struct br_http_req *req = userp;
	curl_off_t announced = -1;

	/* The whole body at once when its length is announced: a 1 MB answer
	 * grown by doubling from 64 bytes was copied ~15 times. Only a length
	 * under the cap and BR_HTTP_BODY_PRESIZE_MAX is believed before the
	 * bytes come: a server's word alone never reserves more. */
	if (!req->body.cap &&
	    curl_easy_getinfo(req->easy, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &announced) == CURLE_OK &&
	    announced > 0 && announced <= BR_HTTP_BODY_PRESIZE_MAX &&
	    (!req->body.max || (uint64_t)announced <= req->body.max))
		(void)br_buf_reserve(&req->body, (size_t)announced);
	if (br_buf_add(&req->body, data, size * nmemb)) {
		req->body_too_big = 1;
		return 0; /* aborts the transfer */
	}
	return size * nmemb;
}

static size_t on_header(char *line, size_t size, size_t nmemb, void *userp)
{
	struct br_http_req *req = userp;
	size_t len = size * nmemb;
	char *v;

	if (len > 5 && !strncmp(line, "HTTP/", 5)) {
		/* a new status line (after 100 Continue, say) starts over */
		const char *end = line + len, *p = memchr(line, ' ', len);

		free(req->status_text);
		req->status_text = NULL;
		req->retry_after_ms = -1;
		if (p)
			p = memchr(p + 1, ' ', (size_t)(end - p - 1));
		while (end > line && (end[-1] == '\r' || end[-1] == '\n'))
			end--;
		if (p && end > p + 1)
			req->status_text = br_xstrndup(p + 1, (size_t)(end - p - 1));
		return len;
	}
	if ((v = br_http_header_value(line, len, "Retry-After"))) {
		req->retry_after_ms = br_http_retry_after_ms(v, time(NULL));
		free(v);
		return len;
	}
	if (req->host->ops->header)
		req->host->ops->header(req, line, len);
	return len;
}

/* ---- starting and finishing ------------------------------------------------ */

static int start(struct br_http *h, struct br_http_req *req)
{
	const struct br_http_options *o = &h->opts;
	struct br_http_host *host = req->host;
	CURL *e = easy_get(h);

	if (!e)
		return BR_E_NOMEM;
	req->easy = e;
	curl_easy_setopt(e, CURLOPT_URL, req->url);
	curl_easy_setopt(e, CURLOPT_PRIVATE, req);
	curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(e, CURLOPT_WRITEDATA, req);
	curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(e, CURLOPT_HEADERDATA, req);
	curl_easy_setopt(e, CURLOPT_ERRORBUFFER, req->curl_err);
	curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
	if (o->recv_buffer > 0)
		curl_easy_setopt(e, CURLOPT_BUFFERSIZE, o->recv_buffer);
	/* curl 7.x prunes its DNS cache, every host's entry, after each
	 * transfer unless entries live forever. */
	if (o->dns_cache_forever)
		curl_easy_setopt(e, CURLOPT_DNS_CACHE_TIMEOUT, -1L);
	curl_easy_setopt(e, CURLOPT_VERBOSE, 0L); /* headers carry secrets */
	curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, o->timeout_ms);
	curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, o->connect_timeout_ms);
	curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, o->insecure ? 0L : 1L);
	curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, o->insecure ? 0L : 2L);
	if (h->ca_file)
		curl_easy_setopt(e, CURLOPT_CAINFO, h->ca_file);
	if (req->send_body) {
		curl_easy_setopt(e, CURLOPT_POSTFIELDS, req->send_body);
		curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE, (long)strlen(req->send_body));
		if (strcmp(req->method, "POST"))
			curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, req->method);
	} else if (strcmp(req->method, "GET")) {
		curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, req->method);
	}
	if (host->ops->start && host->ops->start(req, e, &req->headers))
		return BR_E_NOMEM;
	if (req->headers)
		curl_easy_setopt(e, CURLOPT_HTTPHEADER, req->headers);
	if (curl_multi_add_handle(host->shard->multi, e) != CURLM_OK)
		return BR_E_NOMEM;
	if (!host->shard->touched) {
		host->shard->touched = 1;
		host->shard->next_touched = h->touched;
		h->touched = host->shard;
	}
	req->state = BR_HTTP_RUNNING;
	list_push(&host->running, req);
	host->inflight++;
	h->inflight++;
	return 0;
}

/* The request leaves the core: the client takes it back. */
static void hand_back(struct br_http_req *req)
{
	struct br_http_host *host = req->host;

	req->state = BR_HTTP_IDLE;
	host->pending--;
	host->http->pending--;
	br_loop_unhold(host->http->loop);
	host->ops->done(req);
}

static void finish(struct br_http *h, struct br_http_req *req, CURLcode cc)
{
	struct br_http_host *host = req->host;
	long delay, connects = 0;

	list_unlink(&host->running, req);
	curl_multi_remove_handle(host->shard->multi, req->easy);
	host->inflight--;
	h->inflight--;
	ring_update(host);
	req->result = cc;
	if (cc == CURLE_OK)
		curl_easy_getinfo(req->easy, CURLINFO_RESPONSE_CODE, &req->status);
	if (curl_easy_getinfo(req->easy, CURLINFO_NUM_CONNECTS, &connects) == CURLE_OK && connects > 0)
		h->connects += connects;
	if (req->body_too_big) {
		hand_back(req);
		return;
	}
	delay = br_http_backoff_ms(h->opts.backoff_ms, h->opts.backoff_max_ms, req->attempt, &h->rng);
	if (!host->ops->judge(req, &delay)) {
		hand_back(req);
		return;
	}
	if (delay > h->opts.backoff_max_ms)
		delay = h->opts.backoff_max_ms;
	br_http_req_release(req);
	req->attempt++;
	req->state = BR_HTTP_DELAYED;
	list_push(&host->delayed, req);
	br_loop_timer_start(h->loop, &req->delay, delay);
}

static void reap(struct br_http_shard *sh)
{
	struct br_http *h = sh->http;
	CURLMsg *msg;
	int left;

	while ((msg = curl_multi_info_read(sh->multi, &left))) {
		struct br_http_req *req = NULL;

		if (msg->msg != CURLMSG_DONE)
			continue;
		curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, (char **)&req);
		finish(h, req, msg->data.result);
	}
}

/* Start requests round-robin over the hosts that can, one per host per
 * round, within the overall cap. */
static void on_curl_timer(struct br_loop_timer *t, void *ctx);

static void dispatch(void *ctx)
{
	struct br_http *h = ctx;

	while (h->ring && h->inflight < h->opts.total_inflight) {
		struct br_http_host *host = h->ring;
		struct br_http_req *req = host->queue;

		h->ring = host->ring_next;
		dequeue(req);
		if (start(h, req)) {
			br_http_req_release(req);
			req->start_failed = 1;
			ring_update(host);
			hand_back(req);
			continue;
		}
		ring_update(host);
	}
	/* Starting hundreds of transfers takes milliseconds, and curl's timer
	 * for them (usually "now") was set meanwhile: judge it by the clock as
	 * it is, and put them on the wire before the loop's other work. */
	while (h->touched) {
		struct br_http_shard *sh = h->touched;

		h->touched = sh->next_touched;
		sh->touched = 0;
		if (br_loop_timer_pending(&sh->timer) && sh->timer.due_ms <= br_now_ms()) {
			br_loop_timer_stop(h->loop, &sh->timer);
			on_curl_timer(&sh->timer, sh);
		}
	}
}

/* ---- curl on the loop ---------------------------------------------------- */

static void on_fd(struct br_loop_fd *watch, int fd, unsigned events, void *ctx)
{
	struct br_http_shard *sh = ctx;
	int mask = (events & BR_LOOP_IN ? CURL_CSELECT_IN : 0) |
		   (events & BR_LOOP_OUT ? CURL_CSELECT_OUT : 0) |
		   (events & BR_LOOP_ERR ? CURL_CSELECT_ERR : 0);
	int running;

	curl_multi_socket_action(sh->multi, fd, mask, &running);
	reap(sh);
}

static int on_socket(CURL *easy, curl_socket_t fd, int what, void *userp, void *socketp)
{
	struct br_http_shard *sh = userp;
	struct br_loop_fd *w = socketp;
	unsigned events = (what & CURL_POLL_IN ? BR_LOOP_IN : 0u) | (what & CURL_POLL_OUT ? BR_LOOP_OUT : 0u);

	if (what == CURL_POLL_REMOVE) {
		br_loop_fd_del(w);
		curl_multi_assign(sh->multi, fd, NULL);
		return 0;
	}
	if (w)
		return br_loop_fd_set(w, events) ? -1 : 0;
	w = br_loop_fd_add(sh->http->loop, fd, events, on_fd, sh, NULL);
	if (!w)
		return -1;
	curl_multi_assign(sh->multi, fd, w);
	return 0;
}

static void on_curl_timer(struct br_loop_timer *t, void *ctx)
{
	struct br_http_shard *sh = ctx;
	int running;

	curl_multi_socket_action(sh->multi, CURL_SOCKET_TIMEOUT, 0, &running);
	reap(sh);
}

static int on_timer(CURLM *multi, long timeout_ms, void *userp)
{
	struct br_http_shard *sh = userp;

	if (timeout_ms < 0)
		br_loop_timer_stop(sh->http->loop, &sh->timer);
	else
		br_loop_timer_start(sh->http->loop, &sh->timer, timeout_ms);
	return 0;
}

/* The idle connections kept (CURLMOPT_MAXCONNECTS), shared out among the
 * shards whose hosts are at work (all of them, for a client that never
 * releases a host), and never more than a shard's hosts can hold (curl
 * caps each host at max_host_connections). Shared among every shard, a
 * rack walked a window of BMCs at a time left each working shard a slice
 * of what it needed: at 1,024 BMCs behind 256 requests in flight each
 * shard kept 64 connections for 64 BMCs at work on 4 each, curl closed one
 * as every request ended, and a BMC opened 50 connections, not 4. The
 * overall in-flight cap is the core's own. */
static void shard_caps(struct br_http *h)
{
	size_t live = h->n_live_shards ? h->n_live_shards : h->n_shards;
	long share = h->opts.max_connections / (long)live, mhc = h->opts.max_host_connections;

	if (h->opts.max_connections <= 0)
		return;
	for (size_t i = 0; i < h->n_shards; i++) {
		struct br_http_shard *sh = h->shards[i];
		long each = share;

		if (mhc > 0 && sh->hosts > 0 && sh->hosts <= (size_t)(LONG_MAX / mhc) &&
		    each > (long)sh->hosts * mhc)
			each = (long)sh->hosts * mhc;
		if (each < mhc)
			each = mhc;
		if (each < 1)
			each = 1;
		curl_multi_setopt(sh->multi, CURLMOPT_MAXCONNECTS, each);
	}
}

/* A multi handle on sh's callbacks; its idle cap is shard_caps's. */
static CURLM *multi_new(struct br_http_shard *sh)
{
	CURLM *m = curl_multi_init();

	if (!m)
		return NULL;
	curl_multi_setopt(m, CURLMOPT_SOCKETFUNCTION, on_socket);
	curl_multi_setopt(m, CURLMOPT_SOCKETDATA, sh);
	curl_multi_setopt(m, CURLMOPT_TIMERFUNCTION, on_timer);
	curl_multi_setopt(m, CURLMOPT_TIMERDATA, sh);
	if (sh->http->opts.max_host_connections > 0)
		curl_multi_setopt(m, CURLMOPT_MAX_HOST_CONNECTIONS, sh->http->opts.max_host_connections);
	return m;
}

static struct br_http_shard *shard_new(struct br_http *h)
{
	struct br_http_shard *sh = br_xcalloc(1, sizeof(*sh));
	const struct br_http_options *opts = &h->opts;

	sh->http = h;
	br_loop_timer_init(&sh->timer, on_curl_timer, sh);
	/* curl's own timer only serves transfers, which hold the loop */
	sh->timer.weak = 1;
	sh->multi = multi_new(sh);
	if (!sh->multi) {
		free(sh);
		return NULL;
	}
	h->shards = br_xrealloc(h->shards, (h->n_shards + 1) * sizeof(*h->shards));
	h->shards[h->n_shards++] = sh;
	if (h->n_shards == 1) {
		h->multi = sh->multi;
		/* One multi serves all: the total cap is curl's too, as before. */
		if (opts->max_connections > 0)
			curl_multi_setopt(sh->multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, opts->max_connections);
	} else if (h->n_shards == 2 && opts->max_connections > 0) {
		/* Past one shard curl's total cap would be per shard: the idle
		 * connections are shared out instead (shard_caps). */
		curl_multi_setopt(h->shards[0]->multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, 0L);
	}
	shard_caps(h);
	return sh;
}

int br_http_init(struct br_http *h, struct br_loop *loop, const struct br_http_options *opts,
		 struct br_err *err)
{
	memset(h, 0, sizeof(*h));
	h->loop = loop;
	h->opts = *opts;
	if (h->opts.total_inflight < 1)
		h->opts.total_inflight = 1;
	h->ca_file = opts->ca_file ? br_xstrdup(opts->ca_file) : NULL;
	h->opts.ca_file = h->ca_file;
	if (getrandom(&h->rng, sizeof(h->rng), 0) != sizeof(h->rng))
		h->rng = (uint64_t)br_now_ms() * 0x9e3779b97f4a7c15ULL;
	h->pool = br_xcalloc(BR_HTTP_EASY_POOL_MAX, sizeof(*h->pool));
	if (!shard_new(h)) {
		br_http_release(h);
		return br_errf(err, BR_E_NOMEM, "curl_multi_init failed");
	}
	br_loop_prepare_add(loop, dispatch, h);
	return 0;
}

void br_http_release(struct br_http *h)
{
	if (h->loop)
		br_loop_prepare_del(h->loop, dispatch, h);
	for (size_t i = 0; i < h->n_shards; i++) {
		struct br_http_shard *sh = h->shards[i];

		if (h->loop)
			br_loop_timer_stop(h->loop, &sh->timer);
		/* closing cached connections calls on_socket: the watches go too */
		curl_multi_cleanup(sh->multi);
		free(sh);
	}
	free(h->shards);
	h->shards = NULL;
	h->n_shards = 0;
	h->multi = NULL;
	while (h->n_pool)
		curl_easy_cleanup(h->pool[--h->n_pool]);
	free(h->pool);
	h->pool = NULL;
	free(h->ca_file);
	h->ca_file = NULL;
}

const char *br_http_status_phrase(long status)
{
	switch (status) {
	case 400:
		return "Bad Request";
	case 401:
		return "Unauthorized";
	case 403:
		return "Forbidden";
	case 404:
		return "Not Found";
	case 405:
		return "Method Not Allowed";
	case 406:
		return "Not Acceptable";
	case 409:
		return "Conflict";
	case 412:
		return "Precondition Failed";
	case 429:
		return "Too Many Requests";
	case 500:
		return "Internal Server Error";
	case 501:
		return "Not Implemented";
	case 502:
		return "Bad Gateway";
	case 503:
		return "Service Unavailable";
	case 504:
		return "Gateway Timeout";
	default:
		return NULL;
	}
}
