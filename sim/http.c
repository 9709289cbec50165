/*
 * The event loop: every listener is a libmicrohttpd daemon in epoll mode
 * whose epoll fd sits in one outer epoll set, driven from this thread. A
 * response that must wait (latency, a flaky stall, a hang) suspends its
 * connection; a timer heap resumes it when due.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <microhttpd.h>

#include "http.h"

#define LOOP_EVENTS_MAX 256
#define LOG_BUF_SIZE (1u << 20)
#define LOG_FLUSH_MS 100
#define SWEEP_MS 1000
#define LISTEN_BACKLOG 1024
#define IDLE_TIMEOUT_S 120
#define SYNTH_BLOCK 65536
#define NEVER INT64_MAX

struct listener {
	struct sim_loop *loop;
	struct MHD_Daemon *daemon; /* NULL: a port that never answers */
	int fd;
	const char *name;
	char addr[32];
	sim_handler_fn handler;
	void *ctx;
	int inflight;
	int again; /* MHD has ready work left over: run it next turn */
};

enum req_state { REQ_NEW, REQ_RECEIVING, REQ_WAITING, REQ_DONE };

struct req {
	struct listener *l;
	struct MHD_Connection *conn;
	char *uri;
	char *method;
	char *if_match;
	struct br_buf body;
	int64_t start_ms;   /* monotonic */
	int64_t start_wall; /* epoch ms, for the log; durations there are monotonic */
	int64_t due_ms;
	int inflight;
	int logged;
	int too_big;
	enum req_state state;
	struct sim_response resp;
};

struct sim_loop {
	struct sim_loop_config cfg;
	int epfd;
	struct listener **ls;
	size_t nl;
	struct req **heap; /* min-heap on due_ms */
	size_t nheap, capheap;
	FILE *log;
	char *logbuf;
	int log_dirty;
	int64_t last_flush;
	int stopping;
};

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

static int64_t wall_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- request log ---------------------------------------------------------- */

static void json_escape(struct br_buf *b, const char *s)
{
	br_buf_adds(b, "\"");
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			br_buf_addf(b, "\\%c", *p);
		else if (*p < 0x20 || *p >= 0x7f)
			br_buf_addf(b, "\\u%04x", *p); /* keeps the log valid UTF-8 whatever a client sent */
		else
			br_buf_add(b, p, 1);
	}
	br_buf_adds(b, "\"");
}

static void log_request(struct req *q, int status)
{
	struct sim_loop *loop = q->l->loop;
	struct br_buf b;

	q->logged = 1;
	if (!loop->log)
		return;
	br_buf_init(&b, 0);
	br_buf_adds(&b, "{\"bmc\":");
	json_escape(&b, q->l->addr);
	br_buf_adds(&b, ",\"node\":");
	json_escape(&b, q->l->name);
	br_buf_adds(&b, ",\"method\":");
	json_escape(&b, q->method ? q->method : "");
	br_buf_adds(&b, ",\"path\":");
	json_escape(&b, q->uri ? q->uri : "");
	br_buf_addf(&b, ",\"status\":%d,\"start_ms\":%lld,\"end_ms\":%lld,\"inflight\":%d,\"depth\":%d,\"auth\":",
		    status, (long long)q->start_wall, (long long)(q->start_wall + br_now_ms() - q->start_ms), q->inflight,
		    q->resp.depth);
	json_escape(&b, q->resp.auth ? q->resp.auth : "none");
	if (q->if_match) {
		br_buf_adds(&b, ",\"if_match\":");
		json_escape(&b, q->if_match);
	}
	if (q->resp.session) {
		br_buf_adds(&b, ",\"session\":");
		json_escape(&b, q->resp.session);
	}
	if (q->resp.note) {
		br_buf_adds(&b, ",\"fault\":");
		json_escape(&b, q->resp.note);
	}
	br_buf_adds(&b, "}\n");
	fwrite(br_buf_str(&b), 1, b.len, loop->log);
	loop->log_dirty = 1;
	br_buf_release(&b);
}

static void log_flush(struct sim_loop *loop)
{
	if (loop->log && loop->log_dirty)
		fflush(loop->log);
	loop->log_dirty = 0;
	loop->last_flush = br_now_ms();
}

/* ---- timer heap ----------------------------------------------------------- */

static void heap_swap(struct sim_loop *loop, size_t a, size_t b)
{
	struct req *t = loop->heap[a];

	loop->heap[a] = loop->heap[b];
	loop->heap[b] = t;
}

static void heap_push(struct sim_loop *loop, struct req *q)
{
	size_t i;

	if (loop->nheap == loop->capheap) {
		loop->capheap = loop->capheap ? 2 * loop->capheap : 256;
		loop->heap = br_xrealloc(loop->heap, loop->capheap * sizeof(*loop->heap));
	}
	i = loop->nheap++;
	loop->heap[i] = q;
	while (i > 0 && loop->heap[(i - 1) / 2]->due_ms > loop->heap[i]->due_ms) {
		heap_swap(loop, i, (i - 1) / 2);
		i = (i - 1) / 2;
	}
}

static struct req *heap_pop(struct sim_loop *loop)
{
	struct req *top = loop->heap[0];
	size_t i = 0;

	loop->heap[0] = loop->heap[--loop->nheap];
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;

		if (l < loop->nheap && loop->heap[l]->due_ms < loop->heap[m]->due_ms)
			m = l;
		if (r < loop->nheap && loop->heap[r]->due_ms < loop->heap[m]->due_ms)
			m = r;
		if (m == i)
			break;
		heap_swap(loop, i, m);
		i = m;
	}
	return top;
}

/* ---- libmicrohttpd callbacks ---------------------------------------------- */

static void *on_uri(void *cls, const char *uri, struct MHD_Connection *conn)
{
	struct listener *l = cls;
	struct req *q = br_xcalloc(1, sizeof(*q));

	q->l = l;
	q->conn = conn;
	q->uri = br_xstrdup(uri);
	q->start_ms = br_now_ms();
	q->start_wall = wall_ms();
	q->inflight = ++l->inflight;
	br_buf_init(&q->body, SIM_REQUEST_BODY_MAX);
	br_buf_init(&q->resp.headers, 0);
	return q;
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
			 enum MHD_RequestTerminationCode toe)
{
	struct req *q = *con_cls;

	if (!q)
		return;
	if (!q->logged && q->state != REQ_NEW)
		log_request(q, 0);
	q->l->inflight--;
	free(q->uri);
	free(q->method);
	free(q->if_match);
	br_buf_release(&q->body);
	free(q->resp.body);
	br_buf_release(&q->resp.headers);
	free(q);
	*con_cls = NULL;
}

struct synth {
	char *prefix;
	size_t prefix_len;
	size_t total;
};

/* A huge body made up as it is sent: prefix, filler, closing. */
static ssize_t synth_read(void *cls, uint64_t pos, char *buf, size_t max)
{
	struct synth *s = cls;
	size_t n = 0;

	while (n < max && pos + n < s->total) {
		uint64_t at = pos + n;

		if (at < s->prefix_len)
			buf[n] = s->prefix[at];
		else if (at >= s->total - 3)
			buf[n] = "\"}}"[at - (s->total - 3)];
		else
			buf[n] = 'A';
		n++;
	}
	return n ? (ssize_t)n : MHD_CONTENT_READER_END_OF_STREAM;
}

static void synth_free(void *cls)
{
	struct synth *s = cls;

	free(s->prefix);
	free(s);
}

static struct MHD_Response *make_response(struct req *q)
{
	struct sim_response *r = &q->resp;
	struct MHD_Response *mr;

	if (r->synthetic_len > r->body_len + 3) {
		struct synth *s = br_xcalloc(1, sizeof(*s));

		s->prefix = r->body;
		s->prefix_len = r->body_len;
		s->total = r->synthetic_len;
		r->body = NULL;
		mr = MHD_create_response_from_callback(s->total, SYNTH_BLOCK, synth_read, s, synth_free);
	} else {
		mr = MHD_create_response_from_buffer(r->body_len, r->body,
						     r->body ? MHD_RESPMEM_MUST_FREE : MHD_RESPMEM_PERSISTENT);
		r->body = NULL;
	}
	if (!mr)
		return NULL;
	MHD_add_response_header(mr, MHD_HTTP_HEADER_CONTENT_TYPE,
				r->content_type ? r->content_type : "application/json;charset=utf-8");
	if (r->headers.len) {
		char *hdrs = br_xstrdup(br_buf_str(&r->headers));

		for (char *line = hdrs, *next; *line; line = next) {
			char *colon = strchr(line, ':');

			next = strchr(line, '\n');
			next = next ? (*next = '\0', next + 1) : line + strlen(line);
			if (!colon || colon >= next)
				continue;
			*colon = '\0';
			MHD_add_response_header(mr, line, colon + 1 + (colon[1] == ' '));
		}
		free(hdrs);
	}
	return mr;
}

static enum MHD_Result respond(struct req *q)
{
	struct MHD_Response *mr = make_response(q);
	enum MHD_Result ret;

	q->state = REQ_DONE;
	log_request(q, mr ? q->resp.status : 0);
	if (!mr)
		return MHD_NO;
	ret = MHD_queue_response(q->conn, (unsigned)q->resp.status, mr);
	MHD_destroy_response(mr);
	return ret;
}

static void wait_until(struct req *q, int64_t due_ms)
{
	q->state = REQ_WAITING;
	q->due_ms = due_ms;
	MHD_suspend_connection(q->conn);
	heap_push(q->l->loop, q);
}

static enum MHD_Result dispatch(struct req *q, const char *url)
{
	struct listener *l = q->l;
	struct sim_request rq = {
		.method = q->method,
		.path = url,
		.uri = q->uri,
		.body = br_buf_str(&q->body),
		.body_len = q->body.len,
		.start_ms = q->start_ms,
		.conn = q->conn,
	};
	int64_t due;

	q->resp.status = 500;
	q->resp.depth = -1;
	if (q->too_big) {
		q->resp.status = 413;
		return respond(q);
	}
	l->handler(l->ctx, &rq, &q->resp);
	switch (q->resp.action) {
	case SIM_ACT_CLOSE:
		q->state = REQ_DONE;
		log_request(q, 0);
		return MHD_NO;
	case SIM_ACT_HANG:
		wait_until(q, NEVER);
		return MHD_YES;
	case SIM_ACT_RESPOND:
		break;
	}
	due = q->start_ms + l->loop->cfg.latency_ms + q->resp.stall_ms;
	if (due > br_now_ms()) {
		wait_until(q, due);
		return MHD_YES;
	}
	return respond(q);
}

static enum MHD_Result on_access(void *cls, struct MHD_Connection *conn, const char *url, const char *method,
				 const char *version, const char *upload, size_t *upload_size, void **con_cls)
{
	struct req *q = *con_cls;
	const char *if_match;

	if (!q)
		return MHD_NO;
	q->conn = conn;
	switch (q->state) {
	case REQ_NEW:
		q->state = REQ_RECEIVING;
		q->method = br_xstrdup(method);
		if_match = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_IF_MATCH);
		if (if_match)
			q->if_match = br_xstrdup(if_match);
		return MHD_YES;
	case REQ_RECEIVING:
		if (*upload_size) {
			/* Past the cap the body is cut short and answered 413 below. */
			if (br_buf_add(&q->body, upload, *upload_size))
				q->too_big = 1;
			*upload_size = 0;
			return MHD_YES;
		}
		return dispatch(q, url);
	case REQ_WAITING:
		return q->l->loop->stopping ? MHD_NO : respond(q);
	case REQ_DONE:
		break;
	}
	return MHD_NO;
}

static void on_mhd_log(void *cls, const char *fmt, va_list ap)
{
	br_vlog(BR_LOG_DEBUG, "mhd", fmt, ap);
}

/* ---- what handlers may ask of a request ----------------------------------- */

const char *sim_request_header(const struct sim_request *req, const char *name)
{
	return MHD_lookup_connection_value(req->conn, MHD_HEADER_KIND, name);
}

const char *sim_request_query(const struct sim_request *req, const char *name)
{
	return MHD_lookup_connection_value(req->conn, MHD_GET_ARGUMENT_KIND, name);
}

int sim_request_basic_auth(const struct sim_request *req, char **ret_user, char **ret_password)
{
	char *password = NULL;
	char *user = MHD_basic_auth_get_username_password(req->conn, &password);

	if (!user || !password) {
		MHD_free(user);
		MHD_free(password);
		return BR_E_NOTFOUND;
	}
	*ret_user = br_xstrdup(user);
	*ret_password = br_xstrdup(password);
	MHD_free(user);
	memset(password, 0, strlen(password));
	MHD_free(password);
	return 0;
}

void sim_response_header(struct sim_response *resp, const char *name, const char *value)
{
	br_buf_addf(&resp->headers, "%s: %s\n", name, value);
}

/* ---- listeners ------------------------------------------------------------ */

static int listen_socket(int port, int *ret_fd, int *ret_port, struct br_err *err)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	socklen_t len = sizeof(sa);
	int fd, one = 1;

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return br_errf(err, BR_E_IO, "socket: %s", strerror(errno));
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) || listen(fd, LISTEN_BACKLOG) ||
	    getsockname(fd, (struct sockaddr *)&sa, &len)) {
		int e = errno;

		close(fd);
		return br_errf(err, BR_E_IO, "listen on 127.0.0.1:%d: %s", port, strerror(e));
	}
	*ret_fd = fd;
	*ret_port = ntohs(sa.sin_port);
	return 0;
}

static int start_daemon(struct sim_loop *loop, struct listener *l, struct br_err *err)
{
	int tls = loop->cfg.tls_key_pem && loop->cfg.tls_cert_pem;
	struct MHD_OptionItem opts[] = {
		{ MHD_OPTION_LISTEN_SOCKET, l->fd, NULL },
		{ MHD_OPTION_URI_LOG_CALLBACK, (intptr_t)on_uri, l },
		{ MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)on_completed, l },
		{ MHD_OPTION_CONNECTION_TIMEOUT, IDLE_TIMEOUT_S, NULL },
		{ MHD_OPTION_EXTERNAL_LOGGER, (intptr_t)on_mhd_log, l },
		{ tls ? MHD_OPTION_HTTPS_MEM_KEY : MHD_OPTION_END, 0, (void *)(uintptr_t)loop->cfg.tls_key_pem },
		{ MHD_OPTION_HTTPS_MEM_CERT, 0, (void *)(uintptr_t)loop->cfg.tls_cert_pem },
		{ MHD_OPTION_END, 0, NULL },
	};
	const union MHD_DaemonInfo *info;
	struct epoll_event ev = { .events = EPOLLIN };
	unsigned flags = MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG | (tls ? MHD_USE_TLS : 0);

	l->daemon = MHD_start_daemon(flags, 0, NULL, NULL, on_access, l, MHD_OPTION_ARRAY, opts, MHD_OPTION_END);
	if (!l->daemon)
		return br_errf(err, BR_E_IO, "%s: libmicrohttpd would not start on %s", l->name, l->addr);
	info = MHD_get_daemon_info(l->daemon, MHD_DAEMON_INFO_EPOLL_FD);
	ev.data.ptr = l;
	if (!info || epoll_ctl(loop->epfd, EPOLL_CTL_ADD, info->epoll_fd, &ev))
		return br_errf(err, BR_E_IO, "%s: epoll_ctl: %s", l->name, strerror(errno));
	return 0;
}

int sim_loop_listen(struct sim_loop *loop, const char *name, int port, sim_handler_fn handler, void *ctx,
		    int *ret_port, struct br_err *err)
{
	struct listener *l = br_xcalloc(1, sizeof(*l));
	int real_port = 0, rc;

	l->loop = loop;
	l->name = name;
	l->handler = handler;
	l->ctx = ctx;
	l->fd = -1;
	rc = listen_socket(port, &l->fd, &real_port, err);
	if (rc) {
		free(l);
		return br_err_prefix(err, "%s", name);
	}
	snprintf(l->addr, sizeof(l->addr), "127.0.0.1:%d", real_port);
	loop->ls = br_xrealloc(loop->ls, (loop->nl + 1) * sizeof(*loop->ls));
	loop->ls[loop->nl++] = l;
	if (handler && (rc = start_daemon(loop, l, err)))
		return rc;
	*ret_port = real_port;
	return 0;
}

/* ---- the loop ------------------------------------------------------------- */

int sim_loop_new(const struct sim_loop_config *cfg, struct sim_loop **ret_loop, struct br_err *err)
{
	struct sim_loop *loop = br_xcalloc(1, sizeof(*loop));
	struct rlimit rl;

	/* 512 BMCs with a few connections each need more than the usual 1024 fds. */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	loop->cfg = *cfg;
	loop->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (loop->epfd < 0) {
		free(loop);
		return br_errf(err, BR_E_IO, "epoll_create1: %s", strerror(errno));
	}
	if (cfg->log_path) {
		loop->log = fopen(cfg->log_path, "ae");
		if (!loop->log) {
			int e = errno;

			sim_loop_free(loop);
			return br_errf(err, BR_E_IO, "%s: %s", cfg->log_path, strerror(e));
		}
		loop->logbuf = br_xmalloc(LOG_BUF_SIZE);
		setvbuf(loop->log, loop->logbuf, _IOFBF, LOG_BUF_SIZE);
	}
	*ret_loop = loop;
	return 0;
}

static int next_timeout(struct sim_loop *loop)
{
	int64_t wait = SWEEP_MS;

	if (loop->log_dirty)
		return 0;
	for (size_t i = 0; i < loop->nl; i++)
		if (loop->ls[i]->again)
			return 0;
	if (loop->nheap && loop->heap[0]->due_ms != NEVER) {
		wait = loop->heap[0]->due_ms - br_now_ms();
		if (wait < 0)
			wait = 0;
		if (wait > SWEEP_MS)
			wait = SWEEP_MS;
	}
	return (int)wait;
}

static void run_daemon(struct listener *l)
{
	MHD_UNSIGNED_LONG_LONG timeout;

	MHD_run(l->daemon);
	/* Edge-triggered work MHD could not finish shows as a zero timeout. */
	l->again = MHD_get_timeout(l->daemon, &timeout) == MHD_YES && timeout == 0;
}

static void fire_timers(struct sim_loop *loop)
{
	int64_t now = br_now_ms();

	while (loop->nheap && loop->heap[0]->due_ms <= now) {
		struct req *q = heap_pop(loop);

		MHD_resume_connection(q->conn);
		/* MHD notices a resume only when it runs; nothing wakes epoll for it. */
		q->l->again = 1;
	}
}

static void turn(struct sim_loop *loop, struct epoll_event *evs, int n, int64_t *last_sweep)
{
	int64_t now;

	for (int i = 0; i < n; i++)
		run_daemon(evs[i].data.ptr);
	for (size_t i = 0; i < loop->nl; i++)
		if (loop->ls[i]->again)
			run_daemon(loop->ls[i]);
	fire_timers(loop);
	now = br_now_ms();
	if (now - *last_sweep >= SWEEP_MS) {
		/* Idle keep-alive connections time out only when MHD runs. */
		for (size_t i = 0; i < loop->nl; i++)
			if (loop->ls[i]->daemon)
				run_daemon(loop->ls[i]);
		*last_sweep = now;
	}
	if (loop->log_dirty && (n == 0 || now - loop->last_flush >= LOG_FLUSH_MS))
		log_flush(loop);
}

int sim_loop_run(struct sim_loop *loop, struct br_err *err)
{
	struct epoll_event evs[LOOP_EVENTS_MAX];
	struct sigaction sa = { .sa_handler = on_signal };
	sigset_t block, old, wait_mask;
	int64_t last_sweep = br_now_ms();
	int rc = 0;

	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, &old);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	wait_mask = old;
	sigdelset(&wait_mask, SIGINT);
	sigdelset(&wait_mask, SIGTERM);
	while (!stop_signal) {
		int n = epoll_pwait(loop->epfd, evs, LOOP_EVENTS_MAX, next_timeout(loop), &wait_mask);

		if (n < 0 && errno != EINTR) {
			rc = br_errf(err, BR_E_IO, "epoll_wait: %s", strerror(errno));
			break;
		}
		turn(loop, evs, n < 0 ? 0 : n, &last_sweep);
	}
	br_info("sim", "stopping on signal %d", (int)stop_signal);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return rc;
}

void sim_loop_free(struct sim_loop *loop)
{
	if (!loop)
		return;
	/* Suspended connections must be resumed before their daemon stops;
	 * they are closed unanswered. */
	loop->stopping = 1;
	while (loop->nheap)
		MHD_resume_connection(heap_pop(loop)->conn);
	for (size_t i = 0; i < loop->nl; i++) {
		struct listener *l = loop->ls[i];

		if (l->daemon) {
			MHD_run(l->daemon);
			MHD_stop_daemon(l->daemon);
		} else if (l->fd >= 0) {
			close(l->fd);
		}
		free(l);
	}
	free(loop->ls);
	free(loop->heap);
	if (loop->log)
		fclose(loop->log);
	free(loop->logbuf);
	close(loop->epfd);
	free(loop);
}
