/*
 * Answering requests: the libmicrohttpd callbacks that collect a request,
 * hand it to the listener's handler and send (or delay, or drop) the
 * answer; the timer heap that delayed answers wait in; the request log.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "http_private.h"

static int64_t wall_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- request log ---------------------------------------------------------- */

/* One log line per request, 30,000 of them in a 512-BMC walk: appended to
 * the loop's buffer, no printf and no allocation once it has grown. The
 * buffer holds whole lines only, and each flush is one write() to a file
 * opened O_APPEND, so serving processes sharing the log never interleave. */
static void log_put(struct sim_loop *loop, const char *s, size_t len)
{
	br_buf_add(&loop->logbuf, s, len);
}

static void log_puts(struct sim_loop *loop, const char *s)
{
	log_put(loop, s, strlen(s));
}

static void log_str(struct sim_loop *loop, const char *s)
{
	const unsigned char *p = (const unsigned char *)s, *run = p;
	static const char hex[] = "0123456789abcdef";

	log_put(loop, "\"", 1);
	for (; *p; p++) {
		char esc[6] = { '\\', 'u', '0', '0' };

		if (*p != '"' && *p != '\\' && *p >= 0x20 && *p < 0x7f)
			continue;
		log_put(loop, (const char *)run, (size_t)(p - run));
		run = p + 1;
		if (*p == '"' || *p == '\\') {
			esc[1] = (char)*p;
			log_put(loop, esc, 2);
		} else { /* keeps the log valid UTF-8 whatever a client sent */
			esc[4] = hex[*p >> 4];
			esc[5] = hex[*p & 15];
			log_put(loop, esc, 6);
		}
	}
	log_put(loop, (const char *)run, (size_t)(p - run));
	log_put(loop, "\"", 1);
}

static void log_num(struct sim_loop *loop, long long v)
{
	char buf[24], *p = buf + sizeof(buf);
	unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;

	do
		*--p = (char)('0' + u % 10);
	while (u /= 10);
	if (v < 0)
		*--p = '-';
	log_put(loop, p, (size_t)(buf + sizeof(buf) - p));
}

static void log_field(struct sim_loop *loop, const char *name, const char *value)
{
	log_puts(loop, name);
	log_str(loop, value);
}

/* A request's JSON body, so tests can hold what a client sent against
 * DMTF's schemas. Every "Password" is replaced by a placeholder of its own
 * type: the log holds no secret, yet shows the field was sent and as what.
 * Not JSON, or past the cap: its length only. */
static void redact(json_t *v)
{
	const char *key;
	json_t *member;
	size_t i;

	if (json_is_object(v)) {
		json_object_foreach(v, key, member)
		{
			if (strcmp(key, "Password"))
				redact(member);
			else if (json_is_string(member))
				json_object_set_new(v, key, json_string("<redacted>"));
			else if (json_is_number(member))
				json_object_set_new(v, key, json_integer(0));
		}
	} else if (json_is_array(v)) {
		json_array_foreach(v, i, member) redact(member);
	}
}

static void log_body(struct sim_loop *loop, const struct req *q)
{
	json_t *doc = NULL;
	char *text = NULL;

	if (!q->too_big && q->body.len <= LOG_BODY_MAX)
		doc = json_loadb(q->body.data, q->body.len, JSON_DECODE_ANY, NULL);
	if (doc) {
		redact(doc);
		text = json_dumps(doc, JSON_COMPACT | JSON_ENCODE_ANY);
	}
	if (text) {
		log_puts(loop, ",\"body\":");
		log_puts(loop, text);
	} else {
		log_puts(loop, ",\"body_len\":");
		log_num(loop, (long long)q->body.len);
	}
	free(text);
	json_decref(doc);
}

static void log_request(struct req *q, int status)
{
	struct sim_loop *loop = q->l->loop;

	q->logged = 1;
	if (loop->log_fd < 0)
		return;
	log_field(loop, "{\"bmc\":", q->l->addr);
	log_field(loop, ",\"node\":", q->l->name);
	log_field(loop, ",\"method\":", q->method ? q->method : "");
	log_field(loop, ",\"path\":", q->uri ? q->uri : "");
	log_puts(loop, ",\"status\":");
	log_num(loop, status);
	log_puts(loop, ",\"start_ms\":");
	log_num(loop, q->start_wall);
	log_puts(loop, ",\"end_ms\":");
	log_num(loop, q->start_wall + br_now_ms() - q->start_ms);
	log_puts(loop, ",\"inflight\":");
	log_num(loop, q->inflight);
	log_puts(loop, ",\"depth\":");
	log_num(loop, q->resp.depth);
	log_field(loop, ",\"auth\":", q->resp.auth ? q->resp.auth : "none");
	if (q->if_match)
		log_field(loop, ",\"if_match\":", q->if_match);
	if (q->resp.session)
		log_field(loop, ",\"session\":", q->resp.session);
	if (q->resp.note)
		log_field(loop, ",\"fault\":", q->resp.note);
	if (q->resp.log_parts) {
		char *parts = json_dumps(q->resp.log_parts, JSON_COMPACT);

		if (parts) {
			log_puts(loop, ",\"parts\":");
			log_puts(loop, parts);
		}
		free(parts);
	} else if (q->body.len) {
		log_body(loop, q);
	}
	log_puts(loop, "}\n");
	loop->log_dirty = 1;
	if (loop->logbuf.len >= LOG_BUF_SIZE)
		sim_http_log_flush(loop);
}

void sim_http_log_flush(struct sim_loop *loop)
{
	size_t off = 0;

	while (loop->log_fd >= 0 && off < loop->logbuf.len) {
		ssize_t n = write(loop->log_fd, loop->logbuf.data + off, loop->logbuf.len - off);

		if (n < 0 && errno != EINTR)
			break; /* a full disk loses log lines, never the answers */
		if (n > 0)
			off += (size_t)n;
	}
	loop->logbuf.len = 0;
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

struct req *sim_http_heap_pop(struct sim_loop *loop)
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

void *sim_http_on_uri(void *cls, const char *uri, struct MHD_Connection *conn)
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

void sim_http_on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
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
	json_decref(q->resp.log_parts);
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
		/* endless: no Content-Length, chunks until the client hangs up */
		mr = MHD_create_response_from_callback(r->synthetic_len == SIM_BODY_ENDLESS ? MHD_SIZE_UNKNOWN
											    : s->total,
						       SYNTH_BLOCK, synth_read, s, synth_free);
	} else {
		mr = MHD_create_response_from_buffer(
		    r->body_len, r->body, r->body ? MHD_RESPMEM_MUST_FREE : MHD_RESPMEM_PERSISTENT);
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
	/* The line is on disk before the client can see the answer: a test that
	 * empties the log once its request returned must not find it there later. */
	sim_http_log_flush(q->l->loop);
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

enum MHD_Result sim_http_on_access(void *cls, struct MHD_Connection *conn, const char *url,
				   const char *method, const char *version, const char *upload,
				   size_t *upload_size, void **con_cls)
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

void sim_http_on_mhd_log(void *cls, const char *fmt, va_list ap)
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
