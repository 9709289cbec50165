/* rf_discover_all in forked workers that store what they find; a JSON line
 * per target tells the parent how it ended. */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "discoverpool.h"
#include "loop.h"

struct worker {
	pid_t pid;
	int fd; /* read end of its pipe; -1 once closed */
	size_t first, count;
	struct br_buf in; /* bytes received and not yet a whole line */
	char *why;	  /* set when the parent gave up on it */
	int skipping;	  /* dropping the rest of an over-long line */
	int sent_fatal;
};

struct pool {
	const struct rf_target *targets;
	unsigned char *reported;
	const struct br_pool_hooks *hooks;
	struct br_err fatal; /* a worker whose run could not start */
};

int br_discover_workers_auto(size_t n_targets)
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

/* How one target ended, wherever it ended: its facts stored (rc 0, text
 * the store's summary) or the error that stopped it (text says why). */
struct outcome {
	int rc;
	const char *text;
	size_t n_macs;
	char *summary; /* owned */
	struct br_err store_err;
};

static void settle(const struct br_pool_hooks *hooks, struct inv *inv, const struct rf_target *t, int rc,
		   const struct br_hw *hw, const struct br_err *err, struct outcome *o)
{
	*o = (struct outcome){ rc, NULL, 0, NULL, { 0 } };
	if (rc == 0) {
		o->rc = hooks->store(inv, t, hw, &o->summary, &o->n_macs, &o->store_err);
		o->text = o->rc ? o->store_err.msg : o->summary ? o->summary : "";
	} else {
		o->text = err && err->msg[0] ? err->msg : br_strerror(rc);
	}
}

/* ---- the worker side ----------------------------------------------------- */

struct child {
	int fd;
	struct inv *inv; /* the worker's own connection */
	const struct rf_target *targets;
	const struct br_pool_hooks *hooks;
};

static void write_all(int fd, const char *data, size_t len)
{
	while (len) {
		ssize_t w = write(fd, data, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			_exit(3); /* the parent is gone; nobody to report to */
		data += w;
		len -= (size_t)w;
	}
}

static void send_line(int fd, json_t *msg)
{
	char *line = msg ? json_dumps(msg, JSON_COMPACT) : NULL;

	if (line && strlen(line) >= BR_WORKER_LINE_MAX) {
		/* Texts are cut before they get here; should one still be too
		 * long, the outcome is sent without its words rather than lost. */
		free(line);
		json_object_set_new(msg, json_object_get(msg, "fatal") ? "fatal" : "text",
				    json_string("(text too long to report)"));
		line = json_dumps(msg, JSON_COMPACT);
	}
	if (!line)
		_exit(4);
	write_all(fd, line, strlen(line));
	write_all(fd, "\n", 1);
	free(line);
	json_decref(msg);
}

static void child_done(const struct rf_target *t, int rc, struct br_hw *hw, const struct br_err *err,
		       void *ctx)
{
	const struct child *c = ctx;
	size_t index = (size_t)(uintptr_t)t->user_data;
	struct outcome o;
	json_t *msg;
	char *text;

	settle(c->hooks, c->inv, &c->targets[index], rc, hw, err, &o);
	text = br_xstrdup_capped(o.text, BR_WORKER_TEXT_MAX);
	msg = json_pack("{s:I, s:i, s:s, s:I}", "i", (json_int_t)index, "rc", o.rc, "text", text, "macs",
			(json_int_t)o.n_macs);
	free(text);
	if (!msg) /* not UTF-8: keep the outcome, lose the words */
		msg = json_pack("{s:I, s:i, s:s, s:I}", "i", (json_int_t)index, "rc", o.rc, "text",
				"(reason not encodable)", "macs", (json_int_t)o.n_macs);
	send_line(c->fd, msg);
	free(o.summary);
}

/* Never returns. */
static void child_run(const char *db_path, const struct rf_target *targets, size_t first, size_t count,
		      const struct rf_options *opts, int n_workers, const struct br_pool_hooks *hooks, int fd)
{
	struct rf_target *slice = br_xcalloc(count, sizeof(*slice));
	struct rf_options wopts = *opts;
	struct child c = { fd, NULL, targets, hooks };
	struct br_err err = { 0 };

	for (size_t i = 0; i < count; i++) {
		slice[i] = targets[first + i];
		slice[i].user_data = (void *)(uintptr_t)(first + i);
	}
	wopts.total_inflight = opts->total_inflight / n_workers > 0 ? opts->total_inflight / n_workers : 1;
	/* its own self-pipe: the parent's would wake every worker at once */
	if (br_signals_catch(&err) || inv_open(db_path, &c.inv, &err) ||
	    rf_discover_all(slice, count, &wopts, child_done, &c, &err)) {
		send_line(fd, json_pack("{s:s}", "fatal", err.msg));
		_exit(1);
	}
	inv_close(c.inv);
	_exit(0);
}

/* ---- the parent side ------------------------------------------------------ */

static void give_up(struct worker *w, char *why)
{
	br_error("discover", "worker %ld: %s", (long)w->pid, why);
	if (!w->why)
		w->why = why;
	else
		free(why);
	kill(w->pid, SIGKILL);
}

static void deliver(struct pool *p, size_t i, int rc, const char *text, size_t n_macs)
{
	p->reported[i] = 1;
	p->hooks->done(&p->targets[i], rc, text, n_macs, p->hooks->ctx);
}

static void handle_line(struct pool *p, struct worker *w, const char *line, size_t len)
{
	struct br_err err = { 0 };
	json_t *doc = br_json_parse(line, len, BR_WORKER_LINE_MAX, &err), *i_json, *rc_json;
	json_int_t i;

	if (!doc) {
		give_up(w, br_xasprintf("discovery worker sent a bad line: %s", err.msg));
		return;
	}
	if (json_is_string(json_object_get(doc, "fatal"))) {
		if (!p->fatal.msg[0])
			br_errf(&p->fatal, BR_E_IO, "%s", json_string_value(json_object_get(doc, "fatal")));
		w->sent_fatal = 1;
		goto out;
	}
	i_json = json_object_get(doc, "i");
	rc_json = json_object_get(doc, "rc");
	i = json_integer_value(i_json);
	if (!json_is_integer(i_json) || !json_is_integer(rc_json) || i < (json_int_t)w->first ||
	    i >= (json_int_t)(w->first + w->count) || p->reported[i]) {
		give_up(w, br_xstrdup("discovery worker sent a result for no target of its own"));
		goto out;
	}
	deliver(p, (size_t)i, (int)json_integer_value(rc_json),
		json_string_value(json_object_get(doc, "text")),
		(size_t)json_integer_value(json_object_get(doc, "macs")));
out:
	json_decref(doc);
}

/* Hand every whole line in w->in on, keep the rest. */
static void drain_lines(struct pool *p, struct worker *w)
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
static void finish_worker(struct pool *p, struct worker *w)
{
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
		why = br_xasprintf("discovery worker exited with status %d (signal %d)",
				   128 + WTERMSIG(status), WTERMSIG(status));
	else if (WEXITSTATUS(status) == 0) /* its result line was dropped */
		why = br_xstrdup("discovery worker ended without a readable result for it");
	else
		why = br_xasprintf("discovery worker exited with status %d", WEXITSTATUS(status));
	for (size_t i = w->first; i < w->first + w->count; i++)
		if (!p->reported[i])
			deliver(p, i, br_signal_caught() ? BR_E_INTERRUPTED : BR_E_IO, why, 0);
	free(why);
}

/* A line over the cap is dropped, never the worker: its target is then
 * failed when the worker ends ("sent no result"), and the worker's other
 * targets still report. */
static void take_bytes(struct pool *p, struct worker *w, const char *data, size_t len)
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
			br_error("discover", "worker %ld: a result line over %u KiB dropped", (long)w->pid,
				 BR_WORKER_LINE_MAX >> 10);
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

static void read_worker(struct pool *p, struct worker *w)
{
	char chunk[65536];
	ssize_t r = read(w->fd, chunk, sizeof(chunk));

	if (r < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (r <= 0) {
		if (r < 0)
			give_up(w, br_xasprintf("reading from discovery worker: %s", strerror(errno)));
		finish_worker(p, w);
		return;
	}
	if (w->why)
		return; /* killed; read on until EOF */
	take_bytes(p, w, chunk, (size_t)r);
}

/* What spawn hands to every worker. */
struct spawn_args {
	const char *db_path;
	const struct rf_target *targets;
	const struct rf_options *opts;
	int n_workers;
	const struct br_pool_hooks *hooks;
};

static int spawn(struct worker *workers, int k, const struct spawn_args *a, struct br_err *err)
{
	struct worker *w = &workers[k];
	int fds[2];

	if (pipe(fds))
		return br_errf(err, BR_E_IO, "pipe for discovery worker: %s", strerror(errno));
	w->pid = fork();
	if (w->pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return br_errf(err, BR_E_IO, "fork of discovery worker: %s", strerror(errno));
	}
	if (w->pid == 0) {
		close(fds[0]);
		for (int j = 0; j < k; j++)
			close(workers[j].fd);
		child_run(a->db_path, a->targets, w->first, w->count, a->opts, a->n_workers, a->hooks,
			  fds[1]);
	}
	close(fds[1]);
	w->fd = fds[0];
	return 0;
}

struct worker_watch {
	struct pool *p;
	struct worker *w;
	struct br_loop *loop;
	struct br_loop_fd *watch;
};

/* SIGTERM/SIGINT in the parent: each worker is told, logs out of its BMCs
 * and reports them interrupted; one that takes longer than its own grace
 * is killed. */
struct interrupt {
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
			give_up(&in->workers[k],
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
static int poll_workers(struct pool *p, struct worker *workers, int n_workers, struct br_err *err)
{
	struct worker_watch *ww = br_xcalloc((size_t)n_workers, sizeof(*ww));
	struct interrupt in = { workers, n_workers, NULL, NULL, { 0 } };
	struct br_loop *loop;
	int rc;

	if ((rc = br_loop_new(&loop, err))) {
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
	br_loop_free(loop);
	free(ww);
	return rc;
}

/* One process: store and report as each target ends. */
struct local {
	struct inv *inv;
	const struct br_pool_hooks *hooks;
};

static void local_done(const struct rf_target *t, int rc, struct br_hw *hw, const struct br_err *err,
		       void *ctx)
{
	const struct local *l = ctx;
	struct outcome o;

	settle(l->hooks, l->inv, t, rc, hw, err, &o);
	l->hooks->done(t, o.rc, o.text, o.n_macs, l->hooks->ctx);
	free(o.summary);
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

int br_discover_workers(struct inv **inv, const struct rf_target *targets, size_t n,
			const struct rf_options *opts, int n_workers, const struct br_pool_hooks *hooks,
			struct br_err *err)
{
	struct pool p = { targets, NULL, hooks, { 0 } };
	struct spawn_args a = { NULL, targets, opts, n_workers, hooks };
	struct worker *workers;
	char *db_path;
	int started = 0, rc = 0;

	if ((size_t)n_workers > n)
		a.n_workers = n_workers = (int)n;
	if (n_workers <= 1) {
		struct local l = { *inv, hooks };

		return rf_discover_all(targets, n, opts, local_done, &l, err);
	}
	p.reported = br_xcalloc(n, 1);
	workers = br_xcalloc((size_t)n_workers, sizeof(*workers));
	for (int k = 0; k < n_workers; k++) {
		workers[k].first = n * (size_t)k / (size_t)n_workers;
		workers[k].count = n * (size_t)(k + 1) / (size_t)n_workers - workers[k].first;
		workers[k].fd = -1;
		br_buf_init(&workers[k].in, BR_WORKER_LINE_MAX + 1);
	}
	/* No SQLite connection may cross fork(): close ours, open it again
	 * once the workers are running. */
	db_path = br_xstrdup(inv_path(*inv));
	inv_close(*inv);
	*inv = NULL;
	a.db_path = db_path;
	fflush(NULL);
	for (; started < n_workers && !rc; started++)
		rc = spawn(workers, started, &a, err);
	if (!rc)
		rc = inv_open(db_path, inv, err);
	if (rc) {
		stop_workers(workers, started);
	} else {
		rc = poll_workers(&p, workers, n_workers, err);
		if (!rc && p.fatal.msg[0])
			rc = br_errf(err, p.fatal.code, "%s", p.fatal.msg);
		if (rc)
			stop_workers(workers, n_workers);
	}
	for (int k = 0; k < n_workers; k++) {
		br_buf_release(&workers[k].in);
		free(workers[k].why);
	}
	free(workers);
	free(p.reported);
	free(db_path);
	return rc;
}
