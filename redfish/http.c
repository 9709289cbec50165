/*
 * http — every BMC's requests on one CURLM, no threads.
 *
 * curl would happily queue requests itself, but then a request's timeout
 * would also count the time it waited for a connection, and one BMC's
 * backlog would take connections from the others. So the caps are ours:
 * each BMC has a priority queue, and dispatch() starts requests round-robin
 * across BMCs while the BMC has fewer than per_bmc_inflight in flight and
 * the run fewer than total_inflight. curl's own connection caps are set to
 * the same numbers, so it never has to queue, and keeps connections alive.
 */
#include <errno.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <unistd.h>

#include "rf_private.h"

static const char *const method_names[] = { [RF_GET] = "GET", [RF_POST] = "POST",
					    [RF_DELETE] = "DELETE", [RF_PATCH] = "PATCH" };

/* ---- request lifecycle -------------------------------------------------- */

struct rf_req *rf_req_new(struct rf_bmc *bmc, enum rf_method method, const char *url,
			  int priority, rf_req_fn fn)
{
	struct rf_req *req = br_xcalloc(1, sizeof(*req));

	req->bmc = bmc;
	req->method = method;
	req->url = br_xstrdup(url);
	req->priority = priority;
	req->fn = fn;
	req->parent = -1;
	req->retry_after_ms = -1;
	br_buf_init(&req->body, RF_BODY_MAX);
	return req;
}

/* Easy handles are reused (curl_easy_reset keeps their buffers): a
 * 512-BMC walk makes ~30,000 requests and curl_easy_init is costly. */
#define RF_EASY_POOL_MAX 256
#define RF_EPOLL_EVENTS 256
/* curl keeps a receive buffer per easy handle, 16 KiB by default: 32 MiB
 * with 2048 transfers in flight. Bodies are copied out anyway. */
#define RF_RECV_BUFFER 4096L

static CURL *easy_get(struct rf_http *h)
{
	if (h->n_pool == 0)
		return curl_easy_init();
	curl_easy_reset(h->pool[--h->n_pool]);
	return h->pool[h->n_pool];
}

static void easy_put(struct rf_http *h, CURL *e)
{
	if (!e)
		return;
	if (h->n_pool < RF_EASY_POOL_MAX)
		h->pool[h->n_pool++] = e;
	else
		curl_easy_cleanup(e);
}

static void req_reset_response(struct rf_req *req)
{
	easy_put(req->bmc->http, req->easy);
	req->easy = NULL;
	curl_slist_free_all(req->headers);
	req->headers = NULL;
	br_buf_reset(&req->body);
	req->status = 0;
	free(req->status_text);
	req->status_text = NULL;
	free(req->location);
	req->location = NULL;
	free(req->etag);
	req->etag = NULL;
	br_secret_free(req->auth_token);
	req->auth_token = NULL;
	req->retry_after_ms = -1;
	req->body_too_big = 0;
	req->curl_err[0] = '\0';
}

static void req_free(struct rf_req *req)
{
	req_reset_response(req);
	br_buf_release(&req->body);
	free(req->url);
	free(req->if_match);
	br_secret_free(req->post_body);
	free(req);
}

static void enqueue(struct rf_bmc *bmc, struct rf_req *req)
{
	struct rf_req **pp = &bmc->queue;

	while (*pp && (*pp)->priority >= req->priority)
		pp = &(*pp)->next;
	req->next = *pp;
	*pp = req;
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
	bmc->pending++;
	enqueue(bmc, req);
}

void rf_req_submit_at(struct rf_req *req, int64_t due_ms)
{
	struct rf_bmc *bmc = req->bmc;
	struct rf_http *h = bmc->http;

	if (bmc->failed && !bmc->logging_out) {
		req_free(req);
		return;
	}
	bmc->spent++;
	bmc->pending++;
	req->due_ms = due_ms;
	req->next = h->delayed;
	h->delayed = req;
}

int rf_http_unqueue(struct rf_bmc *bmc, const char *url)
{
	for (struct rf_req **pp = &bmc->queue, *req; (req = *pp); pp = &req->next)
		if (req->attempt == 0 && !strcmp(req->url, url)) {
			*pp = req->next;
			bmc->pending--;
			bmc->spent--;
			req_free(req);
			return 1;
		}
	return 0;
}

static void unlink_req(struct rf_req **head, struct rf_req *req)
{
	for (struct rf_req **pp = head; *pp; pp = &(*pp)->next)
		if (*pp == req) {
			*pp = req->next;
			req->next = NULL;
			return;
		}
}

void rf_http_cancel_bmc(struct rf_http *h, struct rf_bmc *bmc)
{
	struct rf_req *req, **pp;

	while ((req = bmc->queue)) {
		bmc->queue = req->next;
		bmc->pending--;
		req_free(req);
	}
	while ((req = bmc->running)) {
		bmc->running = req->next;
		curl_multi_remove_handle(h->multi, req->easy);
		bmc->inflight--;
		h->inflight--;
		bmc->pending--;
		req_free(req);
	}
	for (pp = &h->delayed; (req = *pp);) {
		if (req->bmc != bmc) {
			pp = &req->next;
			continue;
		}
		*pp = req->next;
		bmc->pending--;
		req_free(req);
	}
}

/* ---- curl callbacks ------------------------------------------------------- */

static size_t on_body(char *data, size_t size, size_t nmemb, void *userp)
{
	struct rf_req *req = userp;

	if (br_buf_add(&req->body, data, size * nmemb)) {
		req->body_too_big = 1;
		return 0; /* aborts the transfer */
	}
	return size * nmemb;
}

static char *header_value(const char *line, size_t len, const char *name)
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
	return br_xstrndup(line, len);
}

static long retry_after_ms(const char *v)
{
	long secs;
	time_t when;

	if (!br_parse_long(v, 0, 86400, &secs))
		return secs * 1000;
	when = curl_getdate(v, NULL);
	if (when < 0)
		return -1;
	secs = (long)(when - time(NULL));
	return secs > 0 ? secs * 1000 : 0;
}

static size_t on_header(char *line, size_t size, size_t nmemb, void *userp)
{
	struct rf_req *req = userp;
	size_t len = size * nmemb;
	char *v;

	if (len > 5 && !strncmp(line, "HTTP/", 5)) {
		/* a new status line (after 100 Continue, say) starts over */
		const char *end = line + len, *p = memchr(line, ' ', len);

		free(req->status_text);
		req->status_text = NULL;
		if (p)
			p = memchr(p + 1, ' ', (size_t)(end - p - 1));
		while (end > line && (end[-1] == '\r' || end[-1] == '\n'))
			end--;
		if (p && end > p + 1)
			req->status_text = br_xstrndup(p + 1, (size_t)(end - p - 1));
		return size * nmemb;
	}
	if ((v = header_value(line, len, "Location"))) {
		free(req->location);
		req->location = v;
	} else if ((v = header_value(line, len, "ETag"))) {
		free(req->etag);
		req->etag = v;
	} else if ((v = header_value(line, len, "X-Auth-Token"))) {
		br_secret_free(req->auth_token);
		req->auth_token = v;
	} else if ((v = header_value(line, len, "Retry-After"))) {
		req->retry_after_ms = retry_after_ms(v);
		free(v);
	}
	return size * nmemb;
}

/* ---- starting and finishing ----------------------------------------------- */

static int start(struct rf_http *h, struct rf_req *req)
{
	const struct rf_options *o = h->opts;
	struct rf_bmc *bmc = req->bmc;
	CURL *e = easy_get(h);

	if (!e)
		return BR_E_NOMEM;
	req->easy = e;
	req->headers = curl_slist_append(req->headers, "Accept: application/json");
	req->headers = curl_slist_append(req->headers, "OData-Version: 4.0");
	curl_easy_setopt(e, CURLOPT_URL, req->url);
	curl_easy_setopt(e, CURLOPT_PRIVATE, req);
	curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(e, CURLOPT_WRITEDATA, req);
	curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(e, CURLOPT_HEADERDATA, req);
	curl_easy_setopt(e, CURLOPT_ERRORBUFFER, req->curl_err);
	curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(e, CURLOPT_BUFFERSIZE, RF_RECV_BUFFER);
	/* curl 7.x prunes its DNS cache, every BMC's entry, after each
	 * transfer unless entries live forever; a run is short and BMC
	 * addresses do not move during one. */
	curl_easy_setopt(e, CURLOPT_DNS_CACHE_TIMEOUT, -1L);
	curl_easy_setopt(e, CURLOPT_VERBOSE, 0L); /* headers carry secrets */
	curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, o->timeout_ms);
	curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, o->connect_timeout_ms);
	curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, o->insecure ? 0L : 1L);
	curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, o->insecure ? 0L : 2L);
	if (o->ca_file)
		curl_easy_setopt(e, CURLOPT_CAINFO, o->ca_file);
	if (req->method == RF_POST || req->method == RF_PATCH) {
		req->headers = curl_slist_append(req->headers, "Content-Type: application/json");
		curl_easy_setopt(e, CURLOPT_POSTFIELDS, req->post_body ? req->post_body : "");
		if (req->method == RF_PATCH)
			curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, "PATCH");
		if (req->if_match) {
			char *line = br_xasprintf("If-Match: %s", req->if_match);

			req->headers = curl_slist_append(req->headers, line);
			free(line);
		}
	} else if (req->method == RF_DELETE) {
		curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, "DELETE");
	}
	if (rf_session_apply(bmc, e, &req->headers) || !req->headers)
		return BR_E_NOMEM;
	curl_easy_setopt(e, CURLOPT_HTTPHEADER, req->headers);
	if (curl_multi_add_handle(h->multi, e) != CURLM_OK)
		return BR_E_NOMEM;
	req->next = bmc->running;
	bmc->running = req;
	bmc->inflight++;
	h->inflight++;
	return 0;
}

static int curl_retryable(CURLcode c)
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
	case CURLE_SSL_CONNECT_ERROR:
		return 1;
	default:
		return 0;
	}
}

static int curl_errcode(CURLcode c)
{
	switch (c) {
	case CURLE_OPERATION_TIMEDOUT: return BR_E_TIMEOUT;
	case CURLE_COULDNT_CONNECT:
	case CURLE_COULDNT_RESOLVE_HOST: return BR_E_UNREACHABLE;
	case CURLE_PEER_FAILED_VERIFICATION:
	case CURLE_SSL_CACERT_BADFILE: return BR_E_PROTO;
	default: return BR_E_IO;
	}
}

long rf_backoff_ms(const struct rf_options *opts, int attempt, uint64_t *rng)
{
	long delay = opts->backoff_ms > 0 ? opts->backoff_ms : 1;
	long half;

	for (int i = 0; i < attempt && delay < opts->backoff_max_ms; i++)
		delay *= 2;
	if (delay > opts->backoff_max_ms)
		delay = opts->backoff_max_ms;
	/* xorshift64: jitter only, no need for anything better */
	*rng ^= *rng << 13;
	*rng ^= *rng >> 7;
	*rng ^= *rng << 17;
	half = delay / 2;
	return half + (half > 0 ? (long)(*rng % (uint64_t)(delay - half + 1)) : 0);
}

/* Decide what a finished attempt means: 0 done, 1 retry in *ret_delay, or an
 * error in err. */
static int classify(struct rf_http *h, struct rf_req *req, CURLcode cc, long *ret_delay,
		    struct br_err *err)
{
	const char *m = method_names[req->method];
	long hint_delay = 0;
	int retry = 0;

	if (req->body_too_big)
		return br_errf(err, BR_E_TOOBIG, "%s %s: response body exceeds %u bytes", m,
			       req->url, RF_BODY_MAX);
	if (cc != CURLE_OK) {
		retry = curl_retryable(cc) && !req->no_retry_transport;
		br_errf(err, curl_errcode(cc), "%s %s: %s", m, req->url,
			req->curl_err[0] ? req->curl_err : curl_easy_strerror(cc));
	} else {
		curl_easy_getinfo(req->easy, CURLINFO_RESPONSE_CODE, &req->status);
		if (req->status >= 200 && req->status < 300)
			return 0;
		char *mid = rf_error_message_id(req->body.data, req->body.len);
		struct br_buf reason;

		retry = (req->status >= 500 && req->status != 501) || req->status == 429;
		if (mid && rf_vendor_retry_hint(mid, &hint_delay))
			retry = 1;
		free(mid);
		br_buf_init(&reason, 0);
		rf_http_error_reason(&reason, req->status, req->url, req->body.data, req->body.len,
				     req->status_text);
		br_errf(err, req->status == 401 || req->status == 403 ? BR_E_AUTH : RF_E_HTTP, "%s",
			br_buf_str(&reason));
		br_buf_release(&reason);
	}
	if (!retry || req->attempt >= h->opts->retries)
		return err->code;
	if (req->bmc->spent >= RF_REQUESTS_MAX)
		return br_err_prefix(err, "request cap of %d reached", RF_REQUESTS_MAX);
	*ret_delay = rf_backoff_ms(h->opts, req->attempt, &h->rng);
	if (req->retry_after_ms >= 0)
		*ret_delay = req->retry_after_ms;
	else if (hint_delay > *ret_delay)
		*ret_delay = hint_delay;
	if (*ret_delay > h->opts->backoff_max_ms)
		*ret_delay = h->opts->backoff_max_ms;
	return 1;
}

static void finish(struct rf_http *h, struct rf_req *req, CURLcode cc)
{
	struct rf_bmc *bmc = req->bmc;
	struct br_err err = { 0 };
	long delay = 0;
	int rc;

	unlink_req(&bmc->running, req);
	curl_multi_remove_handle(h->multi, req->easy);
	bmc->inflight--;
	h->inflight--;
	rc = classify(h, req, cc, &delay, &err);
	br_debug("redfish", "%s %s -> %ld%s%s", method_names[req->method], req->url, req->status,
		 rc ? " " : "", rc ? err.msg : "");
	if (rc == 1) {
		br_debug("redfish", "retry %d of %s in %ld ms", req->attempt + 1, req->url, delay);
		req_reset_response(req);
		req->attempt++;
		bmc->spent++;
		req->due_ms = br_now_ms() + delay;
		req->next = h->delayed;
		h->delayed = req;
		return;
	}
	if (rc && req->attempt > 0)
		br_err_prefix(&err, "after %d attempts", req->attempt + 1);
	bmc->pending--;
	req->fn(req, rc, rc ? &err : NULL);
	req_free(req);
	if (bmc->pending == 0)
		rf_bmc_idle(bmc);
}

/* ---- the loop ----------------------------------------------------------- */

static int64_t promote_due(struct rf_http *h, int64_t now)
{
	int64_t next = -1;

	for (struct rf_req **pp = &h->delayed, *req; (req = *pp);) {
		if (req->due_ms <= now) {
			*pp = req->next;
			enqueue(req->bmc, req);
			continue;
		}
		if (next < 0 || req->due_ms < next)
			next = req->due_ms;
		pp = &req->next;
	}
	return next;
}

static void dispatch(struct rf_http *h)
{
	int per_bmc = h->opts->per_bmc_inflight, total = h->opts->total_inflight;
	int progress = 1;

	while (progress && h->inflight < total) {
		progress = 0;
		for (size_t i = 0; i < h->n_bmcs && h->inflight < total; i++) {
			struct rf_bmc *bmc = &h->bmcs[(h->cursor + i) % h->n_bmcs];
			struct rf_req *req = bmc->queue;

			if (!req || bmc->inflight >= per_bmc)
				continue;
			bmc->queue = req->next;
			req->next = NULL;
			progress = 1;
			if (start(h, req)) {
				struct br_err e;

				br_errf(&e, BR_E_NOMEM, "%s: cannot start a transfer", req->url);
				bmc->pending--;
				req_free(req);
				rf_bmc_fail(bmc, &e);
				if (bmc->pending == 0)
					rf_bmc_idle(bmc);
			}
		}
	}
	if (h->n_bmcs)
		h->cursor = (h->cursor + 1) % h->n_bmcs;
}

/* curl tells us which sockets it wants watched and when it next needs a
 * call; one epoll set holds them, so a turn costs what happened, not how
 * many connections are open (curl_multi_poll would poll() every socket of
 * every BMC, and curl_multi_perform would visit every transfer). */
struct loop {
	CURLM *multi;
	int epfd;
	int64_t curl_due_ms; /* -1: curl wants no timeout call */
};

static int on_socket(CURL *easy, curl_socket_t fd, int what, void *userp, void *socketp)
{
	struct loop *lp = userp;
	struct epoll_event ev = { .data.fd = fd };

	if (what == CURL_POLL_REMOVE) {
		/* curl may have closed fd already; then the kernel dropped it */
		epoll_ctl(lp->epfd, EPOLL_CTL_DEL, fd, NULL);
		return 0;
	}
	ev.events = (what & CURL_POLL_IN ? EPOLLIN : 0u) | (what & CURL_POLL_OUT ? EPOLLOUT : 0u);
	if (socketp)
		return epoll_ctl(lp->epfd, EPOLL_CTL_MOD, fd, &ev) ? -1 : 0;
	if (epoll_ctl(lp->epfd, EPOLL_CTL_ADD, fd, &ev) && errno != EEXIST)
		return -1;
	/* marks fd as in the set until curl says REMOVE */
	curl_multi_assign(lp->multi, fd, lp);
	return 0;
}

static int on_timer(CURLM *multi, long timeout_ms, void *userp)
{
	struct loop *lp = userp;

	lp->curl_due_ms = timeout_ms < 0 ? -1 : br_now_ms() + timeout_ms;
	return 0;
}

static int reap(struct rf_http *h)
{
	int left, finished = 0;
	CURLMsg *msg;

	while ((msg = curl_multi_info_read(h->multi, &left))) {
		struct rf_req *req = NULL;

		if (msg->msg != CURLMSG_DONE)
			continue;
		curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, (char **)&req);
		finish(h, req, msg->data.result);
		finished++;
	}
	return finished;
}

static int stalled(struct rf_http *h)
{
	if (h->inflight || h->delayed)
		return 0;
	for (size_t i = 0; i < h->n_bmcs; i++)
		if (h->bmcs[i].queue)
			return 0;
	return 1;
}

static int run_loop(struct rf_http *h, struct loop *lp, struct br_err *err)
{
	struct epoll_event evs[RF_EPOLL_EVENTS];
	int running;

	while (h->active > 0) {
		int64_t now = br_now_ms(), next_due = promote_due(h, now);
		int n, finished, timeout = 1000;

		dispatch(h);
		/* Starting hundreds of transfers takes milliseconds, and curl's
		 * timer for them (usually "now") was set meanwhile: judge it by
		 * the clock as it is, or the loop sleeps before connecting. */
		now = br_now_ms();
		if (lp->curl_due_ms >= 0 && lp->curl_due_ms <= now) {
			lp->curl_due_ms = -1;
			if (curl_multi_socket_action(h->multi, CURL_SOCKET_TIMEOUT, 0, &running) != CURLM_OK)
				return br_errf(err, BR_E_IO, "curl_multi_socket_action failed");
		}
		/* Outcomes (stores) only now: the requests just dispatched,
		 * logouts among them, are on the wire before this work. */
		rf_http_flush_reports(h);
		finished = reap(h);
		if (h->active == 0)
			break;
		if (!finished && stalled(h))
			return br_errf(err, BR_E_STATE, "redfish: %zu BMCs stalled", h->active);
		/* After answers, only look for more before starting what they made
		 * possible: never sleep then, never skip the sockets either. */
		if (lp->curl_due_ms >= 0 && lp->curl_due_ms - now < timeout)
			timeout = (int)(lp->curl_due_ms - now);
		if (next_due >= 0 && next_due - now < timeout)
			timeout = (int)(next_due - now);
		if (timeout < 0 || finished)
			timeout = 0;
		n = epoll_wait(lp->epfd, evs, RF_EPOLL_EVENTS, timeout);
		if (n < 0 && errno != EINTR)
			return br_errf(err, BR_E_IO, "epoll_wait: %s", strerror(errno));
		for (int i = 0; i < n; i++) {
			int mask = (evs[i].events & EPOLLIN ? CURL_CSELECT_IN : 0) |
				   (evs[i].events & EPOLLOUT ? CURL_CSELECT_OUT : 0) |
				   (evs[i].events & (EPOLLERR | EPOLLHUP) ? CURL_CSELECT_ERR : 0);

			if (curl_multi_socket_action(h->multi, evs[i].data.fd, mask, &running) != CURLM_OK)
				return br_errf(err, BR_E_IO, "curl_multi_socket_action failed");
		}
		reap(h);
	}
	return 0;
}

int rf_http_run(struct rf_http *h, struct br_err *err)
{
	struct loop lp = { .multi = h->multi, .curl_due_ms = -1 };
	int rc;

	lp.epfd = epoll_create1(EPOLL_CLOEXEC);
	if (lp.epfd < 0)
		return br_errf(err, BR_E_IO, "epoll_create1: %s", strerror(errno));
	curl_multi_setopt(h->multi, CURLMOPT_SOCKETFUNCTION, on_socket);
	curl_multi_setopt(h->multi, CURLMOPT_SOCKETDATA, &lp);
	curl_multi_setopt(h->multi, CURLMOPT_TIMERFUNCTION, on_timer);
	curl_multi_setopt(h->multi, CURLMOPT_TIMERDATA, &lp);
	rc = run_loop(h, &lp, err);
	rf_http_flush_reports(h);
	/* Handles removed after the run (a cancel, the cleanup) must not call
	 * back into this frame's loop. */
	curl_multi_setopt(h->multi, CURLMOPT_SOCKETFUNCTION, NULL);
	curl_multi_setopt(h->multi, CURLMOPT_TIMERFUNCTION, NULL);
	close(lp.epfd);
	return rc;
}

int rf_http_init(struct rf_http *h, const struct rf_options *opts, size_t n_bmcs,
		 struct br_err *err)
{
	long conns = (long)n_bmcs * opts->per_bmc_inflight;
	struct rlimit rl;

	memset(h, 0, sizeof(*h));
	h->opts = opts;
	h->reports_tail = &h->reports;
	h->rng = (uint64_t)br_now_ms() * 0x9E3779B97F4A7C15ull ^ (uint64_t)getpid();
	if (!h->rng)
		h->rng = 1;
	h->pool = br_xcalloc(RF_EASY_POOL_MAX, sizeof(*h->pool));
	h->multi = curl_multi_init();
	if (!h->multi)
		return br_errf(err, BR_E_NOMEM, "curl_multi_init failed");
	/* Idle keep-alive connections are what saves TLS handshakes; keep one
	 * per possible in-flight request, within what the fd limit allows. */
	if (conns > opts->total_inflight * 4L)
		conns = opts->total_inflight * 4L;
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur != RLIM_INFINITY &&
	    (rlim_t)conns + 64 > rl.rlim_cur)
		conns = rl.rlim_cur > 128 ? (long)rl.rlim_cur - 64 : 64;
	curl_multi_setopt(h->multi, CURLMOPT_MAX_HOST_CONNECTIONS, (long)opts->per_bmc_inflight);
	/* Not total_inflight: at that many connections curl closes another
	 * BMC's idle one to open the next, and every BMC reconnects over and
	 * over (6.5 connections per BMC on a 512-BMC walk instead of 4). The
	 * overall cap on requests is dispatch()'s. */
	curl_multi_setopt(h->multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, conns);
	curl_multi_setopt(h->multi, CURLMOPT_MAXCONNECTS, conns);
	return 0;
}

void rf_http_release(struct rf_http *h)
{
	while (h->n_pool)
		curl_easy_cleanup(h->pool[--h->n_pool]);
	free(h->pool);
	h->pool = NULL;
	if (h->multi)
		curl_multi_cleanup(h->multi);
	h->multi = NULL;
}
