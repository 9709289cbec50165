/* A stage's work in forked workers that store what they find; a JSON line
 * per target tells the parent how it ended (pool.h). */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "loop.h"
#include "pool.h"
#include "redfish/redfish.h"

struct br_pool_worker {
	const struct br_pool *pool;
	struct inv *inv; /* its own connection (the caller's with one worker) */
	int fd;		 /* write end of its pipe; -1 in this process */
	int index, count;
	size_t line_max;
	pid_t parent; /* the process that forked it */
};

int br_workers_auto(size_t n_targets)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	size_t by_targets = (n_targets + BR_WORKER_TARGETS - 1) / BR_WORKER_TARGETS;
	size_t n = cpus < 1 ? 1 : (size_t)cpus;

	if (by_targets < n)
		n = by_targets;
	if (n > BR_WORKERS_MAX)
		n = BR_WORKERS_MAX;
	return n ? (int)n : 1;
}

struct inv *br_pool_inv(const struct br_pool_worker *w)
{
	return w->inv;
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

/* A worker's commits never checkpoint: SQLite's automatic checkpoint
 * (every 1000 pages of log) made the committing worker copy the log into
 * the database and fsync both on its event loop, while its BMCs' answers
 * and logouts waited (a 512-node discovery writes ~16 MB of facts, four
 * such stalls at its very end). The parent, idle but for the workers'
 * lines, checkpoints instead (report). */
static int no_checkpoints(struct inv *inv, struct br_err *err)
{
	return inv_set_autocheckpoint(inv, 0, err);
}

/* Never returns. */
static void child_run(struct br_pool_worker *w, const char *db_path, size_t first, size_t count)
{
	struct br_err err = { 0 };

	/* its own self-pipe: the parent's would wake every worker at once */
	if (br_signals_catch(&err) || inv_open(db_path, &w->inv, &err) || no_checkpoints(w->inv, &err) ||
	    w->pool->work(w, first, count, w->pool->ctx, &err)) {
		send_raw(w->fd, w->line_max, json_pack("{s:s}", "fatal", err.msg));
		_exit(1);
	}
	inv_close(w->inv);
	_exit(0);
}

/* ---- the parent side ------------------------------------------------------ */

struct worker {
	pid_t pid;
	int fd; /* read end of its pipe; -1 once closed */
	size_t first, count;
	struct br_buf in; /* bytes received and not yet a whole line */
	char *why;	  /* set when the parent gave up on it */
	int skipping;	  /* dropping the rest of an over-long line */
	int sent_fatal;
};

struct parent {
	const struct br_pool *pool;
	size_t line_max;
	unsigned char *reported;
	size_t n_reported;
	struct inv *inv;      /* this process's connection, reopened */
	struct br_err fatal;  /* a worker whose run could not start */
	struct br_loop *loop; /* the caller's (br_pool_run_on), else NULL */
};

/* Copy the write-ahead log into the database. Once every target's outcome
 * is in, every store is committed; what is left of the workers' run is
 * their logouts (a BMC round trip). Closing the last connection copies the
 * log, megabytes after a discovery (every node's facts): done then, while
 * the logouts are on the wire, it is not left to the stage's end. */
static void checkpoint_log(struct parent *p)
{
	struct br_err err = { 0 };

	if (p->inv && inv_checkpoint(p->inv, &err))
		br_debug(p->pool->tag, "%s", err.msg);
}

/* Target i's outcome, handed on once (line, or NULL with rc and why). The
 * workers do not checkpoint (no_checkpoints): the log is copied here as
 * the rack goes, so it never grows without bound. */
static void report(struct parent *p, size_t i, json_t *line, int rc, const char *why)
{
	p->reported[i] = 1;
	p->pool->done(i, line, rc, why, p->pool->ctx);
	if (++p->n_reported == p->pool->n || p->n_reported % BR_POOL_CHECKPOINT_TARGETS == 0)
		checkpoint_log(p);
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

/* Hand every whole line in w->in on, keep the rest. */
static void drain_lines(struct parent *p, struct worker *w)
{
	size_t start = 0;
	char *nl;

	while (!w->why && (nl = memchr(w->in.data + start, '\n', w->in.len - start))) {
		handle_line(p, w, w->in.data + start, (size_t)(nl - (w->in.data + start)));
		start = (size_t)(nl - w->in.data) + 1;
	}
	if (w->why) {
		br_buf_reset(&w->in);
	} else if (start) {
		memmove(w->in.data, w->in.data + start, w->in.len - start);
		w->in.len -= start;
		w->in.data[w->in.len] = '\0';
	}
}

/* The worker closed its pipe: reap it, fail what it never reported. */
static void finish_worker(struct parent *p, struct worker *w)
{
	const char *what = p->pool->what;
	int status = 0;
	char *why;

	close(w->fd);
	w->fd = -1;
	while (waitpid(w->pid, &status, 0) < 0 && errno == EINTR)
		;
	if (w->sent_fatal)
		return;
	if (w->why)
		why = br_xstrdup(w->why);
	else if (WIFSIGNALED(status))
		why = br_xasprintf("%s worker exited with status %d (signal %d)", what,
				   128 + WTERMSIG(status), WTERMSIG(status));
	else if (WEXITSTATUS(status) == 0) /* its result line was dropped */
		why = br_xasprintf("%s worker ended without a readable result for it", what);
	else
		why = br_xasprintf("%s worker exited with status %d", what, WEXITSTATUS(status));
	for (size_t i = w->first; i < w->first + w->count; i++)
		if (!p->reported[i])
			report(p, i, NULL, br_signal_caught() ? BR_E_INTERRUPTED : BR_E_IO, why);
	free(why);
}

/* A line over the cap is dropped, never the worker: its target is then
 * failed when the worker ends ("sent no result"), and the worker's other
 * targets still report. */
static void take_bytes(struct parent *p, struct worker *w, const char *data, size_t len)
{
	while (len) {
		const char *nl;

		if (w->skipping) {
			nl = memchr(data, '\n', len);
			if (!nl)
				return;
			w->skipping = 0;
			len -= (size_t)(nl + 1 - data);
			data = nl + 1;
			continue;
		}
		nl = memchr(data, '\n', len);
		if (br_buf_add(&w->in, data, nl ? (size_t)(nl + 1 - data) : len)) {
			br_error(p->pool->tag, "worker %ld: a result line over %zu KiB dropped", (long)w->pid,
				 p->line_max >> 10);
			br_buf_reset(&w->in);
			w->skipping = 1;
			continue;
		}
		drain_lines(p, w);
		if (w->why || !nl)
			return;
		len -= (size_t)(nl + 1 - data);
		data = nl + 1;
	}
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

static int spawn(struct worker *workers, int k, const struct br_pool *pool, size_t line_max,
		 const char *db_path, struct br_err *err)
{
	struct worker *w = &workers[k];
	pid_t parent = getpid();
	int fds[2];

	if (pipe(fds))
		return br_errf(err, BR_E_IO, "pipe for %s worker: %s", pool->what, strerror(errno));
	w->pid = fork();
	if (w->pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return br_errf(err, BR_E_IO, "fork of %s worker: %s", pool->what, strerror(errno));
	}
	if (w->pid == 0) {
		struct br_pool_worker self = { pool, NULL, fds[1], k, pool->n_workers, line_max, parent };

		close(fds[0]);
		for (int j = 0; j < k; j++)
			close(workers[j].fd);
		child_run(&self, db_path, w->first, w->count);
	}
	close(fds[1]);
	w->fd = fds[0];
	return 0;
}

struct worker_watch {
	struct parent *p;
	struct worker *w;
	struct br_loop *loop;
	struct br_loop_fd *watch;
};

/* SIGTERM/SIGINT in the parent: each worker is told, logs out of its BMCs
 * and reports them interrupted; one that takes longer than its own grace
 * is killed. */
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

	(void)events;
	if (!br_signal_pending(fd))
		return;
	br_loop_fd_del(watch);
	in->watch = NULL;
	for (int k = 0; k < in->n; k++)
		if (in->workers[k].fd >= 0)
			kill(in->workers[k].pid, SIGTERM);
	br_loop_timer_start(in->loop, &in->kill_timer, RF_INTERRUPT_GRACE_MS + 2000);
}

static void on_worker(struct br_loop_fd *watch, int fd, unsigned events, void *ctx)
{
	struct worker_watch *ww = ctx;

	read_worker(ww->p, ww->w);
	if (ww->w->fd < 0) {
		br_loop_fd_del(ww->watch);
		ww->watch = NULL;
		br_loop_unhold(ww->loop);
	}
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
		ww[j] = (struct worker_watch){ p, &workers[j], loop, NULL };
		if (workers[j].fd < 0)
			continue;
		ww[j].watch = br_loop_fd_add(loop, workers[j].fd, BR_LOOP_IN, on_worker, &ww[j], err);
		if (!ww[j].watch)
			rc = BR_E_IO;
		else
			br_loop_hold(loop);
	}
	if (!rc)
		rc = br_loop_run(loop, err);
	br_loop_fd_del(in.watch);
	br_loop_timer_stop(loop, &in.kill_timer);
	for (int j = 0; j < n_workers; j++)
		if (ww[j].watch) { /* the loop stopped early: the caller's loop keeps no watch of ours */
			br_loop_fd_del(ww[j].watch);
			br_loop_unhold(loop);
		}
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

int br_pool_run(struct inv **inv, const struct br_pool *pool, struct br_err *err)
{
	return br_pool_run_on(inv, pool, NULL, err);
}

int br_pool_run_on(struct inv **inv, const struct br_pool *pool_in, struct br_loop *loop, struct br_err *err)
{
	struct br_pool pool = *pool_in;
	size_t line_max = pool.line_max ? pool.line_max : BR_WORKER_LINE_MAX;
	struct parent p = { &pool, line_max, NULL, 0, NULL, { 0 }, loop };
	struct worker *workers;
	char *db_path;
	int started = 0, rc = 0;

	if (pool.n == 0)
		return 0;
	if ((size_t)pool.n_workers > pool.n)
		pool.n_workers = (int)pool.n;
	if (pool.n_workers <= 1) {
		struct br_pool_worker self = { &pool, *inv, -1, 0, 1, line_max, 0 };

		return pool.work(&self, 0, pool.n, pool.ctx, err);
	}
	p.reported = br_xcalloc(pool.n, 1);
	workers = br_xcalloc((size_t)pool.n_workers, sizeof(*workers));
	for (int k = 0; k < pool.n_workers; k++) {
		workers[k].first = pool.n * (size_t)k / (size_t)pool.n_workers;
		workers[k].count = pool.n * (size_t)(k + 1) / (size_t)pool.n_workers - workers[k].first;
		workers[k].fd = -1;
		br_buf_init(&workers[k].in, line_max + 1);
	}
	/* No SQLite connection may cross fork(): close ours, open it again
	 * once the workers are running. */
	db_path = br_xstrdup(inv_path(*inv));
	inv_close(*inv);
	*inv = NULL;
	fflush(NULL);
	for (; started < pool.n_workers && !rc; started++)
		rc = spawn(workers, started, &pool, line_max, db_path, err);
	if (!rc)
		rc = inv_open(db_path, inv, err);
	if (!rc)
		p.inv = *inv;
	if (rc) {
		stop_workers(workers, started);
	} else {
		rc = poll_workers(&p, workers, pool.n_workers, err);
		if (!rc && p.fatal.msg[0])
			rc = br_errf(err, p.fatal.code, "%s", p.fatal.msg);
		if (rc)
			stop_workers(workers, pool.n_workers);
	}
	for (int k = 0; k < pool.n_workers; k++) {
		br_buf_release(&workers[k].in);
		free(workers[k].why);
	}
	free(workers);
	free(p.reported);
	free(db_path);
	return rc;
}
