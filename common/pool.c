/* Work over forked workers; a JSON line per target tells the parent how it
 * ended (pool.h). */
#define _GNU_SOURCE /* pipe2 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "loop.h"
#include "pool.h"

struct br_pool_worker {
	const struct br_pool *pool;
	const struct br_pool_fork_hooks *hooks; /* never NULL */
	void *data;				/* what the worker_start hook gave */
	int fd;					/* write end of its pipe; -1 in this process */
	int index, count;
	size_t line_max;
	pid_t parent; /* the process that forked it */
};

int br_pool_workers_auto(size_t n_targets, size_t per_worker, int max)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	size_t by_targets = per_worker ? n_targets / per_worker : n_targets;
	size_t n = cpus < 1 ? 1 : (size_t)cpus;

	if (by_targets < n)
		n = by_targets;
	if (max > 0 && n > (size_t)max)
		n = (size_t)max;
	return n ? (int)n : 1;
}

void *br_pool_worker_data(const struct br_pool_worker *w)
{
	return w->data;
}

int br_pool_worker_forked(const struct br_pool_worker *w)
{
	return w->fd >= 0;
}

void br_pool_end_with_parent(const struct br_pool_worker *w)
{
	if (w->fd < 0)
		return;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != w->parent) /* it ended before the call */
		_exit(1);
}

long br_pool_share(const struct br_pool_worker *w, long total)
{
	long part = total * (w->index + 1) / w->count - total * w->index / w->count;

	return part > 0 ? part : 1;
}

char *br_pool_end_reason(const struct br_pool_end *end)
{
	if (end->trouble)
		return br_xstrdup(end->trouble);
	if (WIFSIGNALED(end->status))
		return br_xasprintf("%s worker exited with status %d (signal %d)", end->what,
				    128 + WTERMSIG(end->status), WTERMSIG(end->status));
	if (WEXITSTATUS(end->status) == 0) /* its result line was dropped */
		return br_xasprintf("%s worker ended without a readable result for it", end->what);
	return br_xasprintf("%s worker exited with status %d", end->what, WEXITSTATUS(end->status));
}

/* ---- the worker side ----------------------------------------------------- */

static void write_all(int fd, const char *data, size_t len)
{
	while (len) {
		ssize_t wr = write(fd, data, len);

		if (wr < 0 && errno == EINTR)
			continue;
		if (wr <= 0)
			_exit(3); /* the parent is gone; nobody to report to */
		data += wr;
		len -= (size_t)wr;
	}
}

/* The outcome without its words: numbers kept, the rest dropped. */
static void strip_words(json_t *msg)
{
	const char *key;
	json_t *v;
	void *tmp;

	json_object_foreach_safe(msg, tmp, key, v) if (!json_is_integer(v)) json_object_del(msg, key);
}

static void send_raw(int fd, size_t line_max, json_t *msg)
{
	char *line = msg ? json_dumps(msg, JSON_COMPACT) : NULL;

	if (line && strlen(line) >= line_max) {
		/* Texts are cut before they get here; should one still be too
		 * long, the outcome is sent without its words rather than lost. */
		free(line);
		if (json_object_get(msg, "fatal")) {
			json_object_set_new(msg, "fatal", json_string("(text too long to report)"));
		} else {
			strip_words(msg);
			json_object_set_new(msg, "text", json_string("(text too long to report)"));
		}
		line = json_dumps(msg, JSON_COMPACT);
	}
	if (!line)
		_exit(4);
	write_all(fd, line, strlen(line));
	write_all(fd, "\n", 1);
	free(line);
	json_decref(msg);
}

void br_pool_send(struct br_pool_worker *w, size_t i, json_t *line)
{
	if (!line) /* the caller could not encode it (not UTF-8) */
		line = json_pack("{s:i, s:s}", "rc", BR_E_PROTO, "text", "(outcome not encodable)");
	json_object_set_new(line, "i", json_integer((json_int_t)i));
	if (w->fd < 0) { /* one process: straight to done */
		w->pool->done(i, line, 0, NULL, w->pool->ctx);
		json_decref(line);
		return;
	}
	send_raw(w->fd, w->line_max, line);
}

/* Start, work, end: in a forked worker (forked) or here. */
static int work_slice(struct br_pool_worker *w, size_t first, size_t count, struct br_err *err)
{
	const struct br_pool_fork_hooks *h = w->hooks;
	int forked = w->fd >= 0, rc = 0;

	if (h->worker_start && (rc = h->worker_start(h->ctx, forked, &w->data, err)))
		return rc;
	rc = w->pool->work(w, first, count, w->pool->ctx, err);
	if (h->worker_end)
		h->worker_end(h->ctx, forked, w->data);
	return rc;
}

/* Never returns: _exit, since the parent's stdio buffers, exit handlers
 * and whatever it holds open are its own. */
static void child_run(struct br_pool_worker *w, size_t first, size_t count)
{
	struct br_err err = { 0 };
	int rc = 0;

	if (!w->hooks->worker_signals_end) {
		rc = br_signals_catch(&err);
	} else {
		signal(SIGTERM, SIG_DFL);
		signal(SIGINT, SIG_DFL);
	}
	if (rc || work_slice(w, first, count, &err)) {
		send_raw(w->fd, w->line_max, json_pack("{s:s}", "fatal", err.msg));
		_exit(1);
	}
	_exit(0);
}

/* ---- the parent side ------------------------------------------------------ */

struct worker {
	pid_t pid;
	int fd; /* read end of its pipe; -1 once closed */
	size_t first, count;
	struct br_buf in; /* the line being received, without its newline */
	char *why;	  /* set when the parent gave up on it */
	int skipping;	  /* dropping the rest of an over-long line */
	int sent_fatal;
	struct br_loop_fd *watch; /* on its pipe, while the loop holds for it */
	struct br_loop *loop;
};

struct parent {
	const struct br_pool *pool;
	const struct br_pool_fork_hooks *hooks; /* never NULL */
	size_t line_max;
	unsigned char *reported;
	size_t n_reported;
	struct br_err fatal;  /* a worker whose run could not start */
	struct br_loop *loop; /* the caller's, else NULL */
};

/* Target i's outcome, handed on once (line, or NULL with rc and why). */
static void report(struct parent *p, size_t i, json_t *line, int rc, const char *why)
{
	const struct br_pool_fork_hooks *h = p->hooks;

	p->reported[i] = 1;
	p->pool->done(i, line, rc, why, p->pool->ctx);
	p->n_reported++;
	if (h->reported)
		h->reported(h->ctx, p->n_reported, p->pool->n);
}

static void give_up(const struct parent *p, struct worker *w, char *why)
{
	br_error(p->pool->tag, "worker %ld: %s", (long)w->pid, why);
	if (!w->why)
		w->why = why;
	else
		free(why);
	kill(w->pid, SIGKILL);
}

static void handle_line(struct parent *p, struct worker *w, const char *line, size_t len)
{
	struct br_err err = { 0 };
	json_t *doc = br_json_parse(line, len, p->line_max, &err), *i_json;
	json_int_t i;

	if (!doc) {
		give_up(p, w, br_xasprintf("%s worker sent a bad line: %s", p->pool->what, err.msg));
		return;
	}
	if (json_is_string(json_object_get(doc, "fatal"))) {
		if (!p->fatal.msg[0])
			br_errf(&p->fatal, BR_E_IO, "%s", json_string_value(json_object_get(doc, "fatal")));
		w->sent_fatal = 1;
		goto out;
	}
	i_json = json_object_get(doc, "i");
	i = json_integer_value(i_json);
	if (!json_is_integer(i_json) || i < (json_int_t)w->first || i >= (json_int_t)(w->first + w->count) ||
	    p->reported[i]) {
		give_up(p, w,
			br_xasprintf("%s worker sent a result for no target of its own", p->pool->what));
		goto out;
	}
	report(p, (size_t)i, doc, 0, NULL);
out:
	json_decref(doc);
}

/* A chunk from the pipe: each line handed on as its newline arrives, the
 * rest kept; only the chunk is searched, so a long line costs its length.
 * A line over the cap is dropped, never the worker: its target is then
 * failed when the worker ends ("without a readable result"), and the
 * worker's other targets still report. */
static void take_bytes(struct parent *p, struct worker *w, const char *data, size_t len)
{
	while (len && !w->why) {
		const char *nl = memchr(data, '\n', len);
		size_t part = nl ? (size_t)(nl - data) : len;

		if (w->skipping) {
			w->skipping = !nl;
		} else if (br_buf_add(&w->in, data, part)) {
			br_error(p->pool->tag, "worker %ld: a result line over %zu KiB dropped", (long)w->pid,
				 p->line_max >> 10);
			br_buf_reset(&w->in);
			w->skipping = !nl;
		} else if (nl) {
			handle_line(p, w, w->in.data ? w->in.data : "", w->in.len);
			br_buf_reset(&w->in);
		}
		if (!nl)
			return;
		len -= part + 1;
		data = nl + 1;
	}
}

/* The watch goes before the fd: a worker forked after this one may not yet
 * have closed its inherited copy of the read end, and epoll keeps the
 * registration of a file still open there, firing for a freed watch. */
static void unwatch(struct worker *w)
{
	if (!w->watch)
		return;
	br_loop_fd_del(w->watch);
	w->watch = NULL;
	br_loop_unhold(w->loop);
}

/* The worker closed its pipe: reap it, fail what it never reported. */
static void finish_worker(struct parent *p, struct worker *w)
{
	const struct br_pool_fork_hooks *h = p->hooks;
	struct br_pool_end end = { p->pool->what, (long)w->pid, 0, w->why, br_signal_caught() != 0 };
	char *why;

	unwatch(w);
	close(w->fd);
	w->fd = -1;
	while (waitpid(w->pid, &end.status, 0) < 0 && errno == EINTR)
		;
	if (w->sent_fatal)
		return;
	why = h->end_reason ? h->end_reason(&end, h->ctx) : br_pool_end_reason(&end);
	for (size_t i = w->first; i < w->first + w->count; i++)
		if (!p->reported[i])
			report(p, i, NULL, end.interrupted ? BR_E_INTERRUPTED : BR_E_IO, why);
	free(why);
}

static void read_worker(struct parent *p, struct worker *w)
{
	char chunk[65536];
	ssize_t r = read(w->fd, chunk, sizeof(chunk));

	if (r < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (r <= 0) {
		if (r < 0)
			give_up(p, w,
				br_xasprintf("reading from %s worker: %s", p->pool->what, strerror(errno)));
		finish_worker(p, w);
		return;
	}
	if (w->why)
		return; /* killed; read on until EOF */
	take_bytes(p, w, chunk, (size_t)r);
}

static int spawn(struct worker *workers, int k, const struct parent *p, struct br_err *err)
{
	const struct br_pool *pool = p->pool;
	struct worker *w = &workers[k];
	pid_t parent = getpid();
	int fds[2];

	/* close-on-exec: a child a worker runs (ipmitool) must not hold its
	 * pipe open past the worker's end */
	if (pipe2(fds, O_CLOEXEC))
		return br_errf(err, BR_E_IO, "pipe for %s worker: %s", pool->what, strerror(errno));
	w->pid = fork();
	if (w->pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return br_errf(err, BR_E_IO, "fork of %s worker: %s", pool->what, strerror(errno));
	}
	if (w->pid == 0) {
		struct br_pool_worker self = { pool, p->hooks,	      NULL,	   fds[1],
					       k,    pool->n_workers, p->line_max, parent };

		close(fds[0]);
		for (int j = 0; j < k; j++)
			close(workers[j].fd);
		child_run(&self, w->first, w->count);
	}
	close(fds[1]);
	w->fd = fds[0];
	return 0;
}

struct worker_watch {
	struct parent *p;
	struct worker *w;
};

/* SIGTERM/SIGINT in the parent: each worker is told and reports what it
 * stopped as interrupted; one that takes longer than the grace is killed. */
struct interrupt {
	struct parent *p;
	struct worker *workers;
	int n;
	struct br_loop *loop;
	struct br_loop_fd *watch;
	struct br_loop_timer kill_timer;
};

static void on_kill_timer(struct br_loop_timer *t, void *ctx)
{
	struct interrupt *in = ctx;

	(void)t;
	for (int k = 0; k < in->n; k++)
		if (in->workers[k].fd >= 0)
			give_up(in->p, &in->workers[k],
				br_xasprintf("interrupted by %s; the worker did not stop in time",
					     br_signal_name(br_signal_caught())));
}

static void on_parent_signal(struct br_loop_fd *watch, int fd, unsigned events, void *ctx)
{
	struct interrupt *in = ctx;
	int64_t grace = in->p->hooks->stop_grace_ms;

	(void)events;
	if (!br_signal_pending(fd))
		return;
	br_loop_fd_del(watch);
	in->watch = NULL;
	for (int k = 0; k < in->n; k++)
		if (in->workers[k].fd >= 0)
			kill(in->workers[k].pid, SIGTERM);
	br_loop_timer_start(in->loop, &in->kill_timer, grace > 0 ? grace : BR_POOL_STOP_GRACE_MS);
}

static void on_worker(struct br_loop_fd *watch, int fd, unsigned events, void *ctx)
{
	struct worker_watch *ww = ctx;

	read_worker(ww->p, ww->w);
}

/* Read every worker's pipe on the event loop until all have closed. */
static int poll_workers(struct parent *p, struct worker *workers, int n_workers, struct br_err *err)
{
	struct worker_watch *ww = br_xcalloc((size_t)n_workers, sizeof(*ww));
	struct interrupt in = { p, workers, n_workers, NULL, NULL, { 0 } };
	struct br_loop *loop = p->loop;
	int rc = 0;

	if (!loop && (rc = br_loop_new(&loop, err))) {
		free(ww);
		return rc;
	}
	in.loop = loop;
	br_loop_timer_init(&in.kill_timer, on_kill_timer, &in);
	in.kill_timer.weak = 1;
	if (br_signal_fd() >= 0)
		in.watch = br_loop_fd_add(loop, br_signal_fd(), BR_LOOP_IN, on_parent_signal, &in, NULL);
	if (br_signal_caught()) /* before the loop could see it */
		on_parent_signal(in.watch, br_signal_fd(), BR_LOOP_IN, &in);
	for (int j = 0; j < n_workers && !rc; j++) {
		ww[j] = (struct worker_watch){ p, &workers[j] };
		if (workers[j].fd < 0)
			continue;
		workers[j].loop = loop;
		workers[j].watch = br_loop_fd_add(loop, workers[j].fd, BR_LOOP_IN, on_worker, &ww[j], err);
		if (!workers[j].watch)
			rc = BR_E_IO;
		else
			br_loop_hold(loop);
	}
	if (!rc)
		rc = br_loop_run(loop, err);
	br_loop_fd_del(in.watch);
	br_loop_timer_stop(loop, &in.kill_timer);
	for (int j = 0; j < n_workers;
	     j++) /* the loop stopped early: the caller's loop keeps no watch of ours */
		unwatch(&workers[j]);
	if (!p->loop)
		br_loop_free(loop);
	free(ww);
	return rc;
}

static void stop_workers(struct worker *workers, int n)
{
	for (int k = 0; k < n; k++)
		if (workers[k].fd >= 0)
			kill(workers[k].pid, SIGKILL);
	for (int k = 0; k < n; k++) {
		if (workers[k].fd < 0)
			continue;
		close(workers[k].fd);
		workers[k].fd = -1;
		while (waitpid(workers[k].pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
}

/* Fork the workers, hear them out, reap them. */
static int run_forked(struct parent *p, struct worker *workers, struct br_err *err)
{
	const struct br_pool *pool = p->pool;
	const struct br_pool_fork_hooks *h = p->hooks;
	int started = 0, rc = 0, rc_after;

	if (h->before_fork && (rc = h->before_fork(h->ctx, err)))
		return rc;
	fflush(NULL);
	for (; started < pool->n_workers && !rc; started++)
		rc = spawn(workers, started, p, err);
	if (h->after_fork && (rc_after = h->after_fork(h->ctx, rc ? NULL : err)) && !rc)
		rc = rc_after;
	if (rc) {
		stop_workers(workers, started);
		return rc;
	}
	rc = poll_workers(p, workers, pool->n_workers, err);
	if (!rc && p->fatal.msg[0])
		rc = br_errf(err, p->fatal.code, "%s", p->fatal.msg);
	if (rc)
		stop_workers(workers, pool->n_workers);
	return rc;
}

/* Each worker's contiguous slice, even in size, a cut moved on past
 * targets joined to the one before; workers left empty are dropped.
 * Returns how many have targets. */
static int slice(const struct br_pool *pool, struct worker *workers)
{
	size_t first = 0;
	int used = 0;

	for (int k = 0; k < pool->n_workers && first < pool->n; k++) {
		size_t end = pool->n * (size_t)(k + 1) / (size_t)pool->n_workers;

		if (end < first)
			end = first;
		while (pool->joined && end > first && end < pool->n && pool->joined(end, pool->ctx))
			end++;
		if (end == first)
			continue;
		workers[used].first = first;
		workers[used++].count = end - first;
		first = end;
	}
	return used;
}

int br_pool_exec(const struct br_pool *pool_in, const struct br_pool_fork_hooks *hooks, struct br_loop *loop,
		 struct br_err *err)
{
	static const struct br_pool_fork_hooks no_hooks;
	struct br_pool pool = *pool_in;
	size_t line_max = pool.line_max ? pool.line_max : BR_POOL_LINE_MAX;
	struct parent p = { &pool, hooks ? hooks : &no_hooks, line_max, NULL, 0, { 0 }, loop };
	struct worker *workers;
	int rc;

	if (pool.n == 0)
		return 0;
	if ((size_t)pool.n_workers > pool.n)
		pool.n_workers = (int)pool.n;
	if (pool.n_workers <= 1) {
		struct br_pool_worker self = { &pool, p.hooks, NULL, -1, 0, 1, line_max, 0 };

		return work_slice(&self, 0, pool.n, err);
	}
	workers = br_xcalloc((size_t)pool.n_workers, sizeof(*workers));
	pool.n_workers = slice(&pool, workers);
	if (pool.n_workers <= 1) {
		struct br_pool_worker self = { &pool, p.hooks, NULL, -1, 0, 1, line_max, 0 };

		free(workers);
		return work_slice(&self, 0, pool.n, err);
	}
	p.reported = br_xcalloc(pool.n, 1);
	for (int k = 0; k < pool.n_workers; k++) {
		workers[k].fd = -1;
		br_buf_init(&workers[k].in, line_max);
	}
	rc = run_forked(&p, workers, err);
	for (int k = 0; k < pool.n_workers; k++) {
		br_buf_release(&workers[k].in);
		free(workers[k].why);
	}
	free(workers);
	free(p.reported);
	return rc;
}
