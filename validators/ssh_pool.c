/* val_ssh_run over forked workers: the SSH side of a rack (handshakes,
 * the probe's copy, encryption) is most of validate's CPU, and
 * one process does it on one core. Each worker runs its slice of the
 * targets on its own loop and sends each result back over a pipe as one
 * frame; the caller's callback runs here, on this process's loop, as the
 * frames arrive. A hook of the caller's may run in the worker first and
 * send a reply of its own in place of the command's stdout: the per-node
 * work (parsing a probe document, judging it) is then spread over the
 * workers too. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ssh.h"

#define FRAME_MAGIC 0x62727331u /* "brs1" */

/* One result on the pipe: this header, then error, stdout and stderr
 * bytes. Both ends are the same program (fork, no exec), so the header is
 * sent as the struct it is. */
struct frame {
	uint32_t magic;
	uint32_t index; /* into the whole target list */
	int32_t ok, exit_status, uploaded, replied, failure;
	int64_t ms, run_start_ms, run_end_ms;
	uint64_t len_error, len_out, len_err;
};

/* Longest frame accepted: what the runner itself keeps, plus a reason. */
#define FRAME_BODY_MAX ((uint64_t)VAL_SSH_OUT_MAX + VAL_SSH_ERR_MAX + 4096)

int val_ssh_workers_auto(size_t n_targets)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	size_t by_targets = n_targets / VAL_SSH_WORKER_TARGETS, n = cpus < 1 ? 1 : (size_t)cpus;

	if (by_targets < n)
		n = by_targets;
	if (n > VAL_SSH_WORKERS_MAX)
		n = VAL_SSH_WORKERS_MAX;
	return n ? (int)n : 1;
}

/* ---- the worker side ------------------------------------------------------ */

struct child {
	int fd;
	size_t first;
	val_ssh_worker_fn in_worker;
	void *ctx;
	struct br_buf reply;
};

static int write_all(int fd, const void *data, size_t len)
{
	const char *p = data;

	while (len) {
		ssize_t w = write(fd, p, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

static void child_done(void *ctx, size_t index, const struct val_ssh_result *r)
{
	struct child *c = ctx;
	size_t len_error = r->error ? strlen(r->error) : 0;
	int replied = 0;
	const struct br_buf *out = &r->out;
	struct frame f;

	c->reply.len = 0;
	if (c->in_worker && c->in_worker(c->ctx, c->first + index, r, &c->reply)) {
		replied = 1;
		out = &c->reply;
	}
	f = (struct frame){ .magic = FRAME_MAGIC,
			    .index = (uint32_t)(c->first + index),
			    .ok = r->ok,
			    .exit_status = r->exit_status,
			    .uploaded = r->uploaded,
			    .replied = replied,
			    .failure = (int32_t)r->failure,
			    .ms = r->ms,
			    .run_start_ms = r->run_start_ms,
			    .run_end_ms = r->run_end_ms,
			    .len_error = len_error,
			    .len_out = out->len,
			    .len_err = r->err.len };
	/* The parent gone (its end closed): nothing is left to report to. */
	if (write_all(c->fd, &f, sizeof(f)) || write_all(c->fd, r->error, len_error) ||
	    write_all(c->fd, out->data, out->len) || write_all(c->fd, r->err.data, r->err.len))
		_exit(3);
}

static void child_run(const struct val_ssh_target *targets, size_t first, size_t count,
		      const struct val_ssh_options *opts, val_ssh_worker_fn in_worker, void *ctx, int fd)
{
	struct val_ssh_result *results = br_xcalloc(count ? count : 1, sizeof(*results));
	struct child c = { fd, first, in_worker, ctx, { 0 } };
	struct br_loop *loop = NULL;
	struct br_err err = { 0 };
	int rc;

	/* A signal ends a worker at once (the parent reports its unreported
	 * nodes as interrupted); the stage's handler, inherited, would wake
	 * the parent's loop instead. The worker also ends with its parent. */
	signal(SIGTERM, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	signal(SIGPIPE, SIG_IGN);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() == 1)
		_exit(4);
	br_buf_init(&c.reply, VAL_SSH_OUT_MAX);
	rc = br_loop_new(&loop, &err);
	if (!rc)
		rc = val_ssh_run(loop, targets + first, count, opts, results, child_done, &c, &err);
	if (rc) {
		/* nothing ran: every target is told why */
		for (size_t i = 0; i < count; i++) {
			struct val_ssh_result r = { 0 };

			r.error = err.msg;
			child_done(&c, i, &r);
		}
	}
	if (in_worker)
		in_worker(ctx, SIZE_MAX, NULL, NULL);
	/* _exit: the parent's SQLite connection, stdio buffers and exit
	 * handlers are its own; a worker only reports. */
	_exit(rc ? 2 : 0);
}

/* ---- the parent side ------------------------------------------------------ */

struct worker {
	pid_t pid;
	int fd; /* read end; -1 once closed */
	size_t first, count;
	struct br_buf in;
	struct br_loop_fd *watch;
	struct pool *pool;
};

struct pool {
	struct br_loop *loop;
	struct val_ssh_result *results;
	unsigned char *reported;
	size_t n;
	val_ssh_worker_fn in_worker;
	val_ssh_done_fn done;
	void *ctx;
	struct worker *workers;
	int n_workers;
	struct br_loop_fd *signal_watch;
};

static void deliver(struct pool *p, size_t i, struct val_ssh_result *r)
{
	if (i >= p->n || p->reported[i]) {
		val_ssh_result_release(r);
		return;
	}
	p->reported[i] = 1;
	p->results[i] = *r;
	if (p->done)
		p->done(p->ctx, i, &p->results[i]);
}

static void take_bytes(struct br_buf *b, const char *data, size_t len)
{
	if (len)
		br_buf_add(b, data, len);
}

/* Hand every whole frame in w->in on; -1 on a frame that cannot be ours. */
static int drain_frames(struct pool *p, struct worker *w)
{
	size_t start = 0;

	while (w->in.len - start >= sizeof(struct frame)) {
		struct frame f;
		uint64_t body;
		const char *at;
		struct val_ssh_result r = { 0 };

		memcpy(&f, w->in.data + start, sizeof(f));
		if (f.magic != FRAME_MAGIC || f.len_error > 4096 || f.len_out > VAL_SSH_OUT_MAX ||
		    f.len_err > VAL_SSH_ERR_MAX || f.index < w->first || f.index >= w->first + w->count)
			return -1;
		body = f.len_error + f.len_out + f.len_err;
		if (w->in.len - start - sizeof(f) < body)
			break;
		at = w->in.data + start + sizeof(f);
		r.ok = f.ok;
		r.exit_status = f.exit_status;
		r.uploaded = f.uploaded;
		r.replied = f.replied;
		r.failure = f.failure >= 0 && f.failure < BR_FAIL_COUNT ? (enum br_fail_kind)f.failure
									: BR_FAIL_STAGE;
		r.ms = f.ms;
		r.run_start_ms = f.run_start_ms;
		r.run_end_ms = f.run_end_ms;
		if (f.len_error || !f.ok)
			r.error = br_xstrndup(at, f.len_error);
		br_buf_init(&r.out, VAL_SSH_OUT_MAX);
		br_buf_init(&r.err, VAL_SSH_ERR_MAX);
		take_bytes(&r.out, at + f.len_error, f.len_out);
		take_bytes(&r.err, at + f.len_error + f.len_out, f.len_err);
		deliver(p, f.index, &r);
		start += sizeof(f) + body;
	}
	if (start) {
		memmove(w->in.data, w->in.data + start, w->in.len - start);
		w->in.len -= start;
	}
	return 0;
}

/* The worker closed its pipe (or sent what cannot be a frame): reap it and
 * fail, with the reason, every target of its slice it never reported. */
static void finish_worker(struct pool *p, struct worker *w, const char *bad)
{
	int status = 0;
	char *why;

	if (bad)
		kill(w->pid, SIGKILL);
	br_loop_fd_del(w->watch);
	w->watch = NULL;
	close(w->fd);
	w->fd = -1;
	while (waitpid(w->pid, &status, 0) < 0 && errno == EINTR)
		;
	if (bad)
		why = br_xasprintf("validation worker %ld: %s", (long)w->pid, bad);
	else if (br_signal_caught())
		why = br_xasprintf("interrupted by %s", br_signal_name(br_signal_caught()));
	else if (WIFSIGNALED(status))
		why = br_xasprintf("validation worker %ld was killed by signal %d before reporting this node",
				   (long)w->pid, WTERMSIG(status));
	else
		why = br_xasprintf("validation worker %ld exited with status %d before reporting this node",
				   (long)w->pid, WEXITSTATUS(status));
	for (size_t i = w->first; i < w->first + w->count; i++) {
		struct val_ssh_result r = { 0 };

		if (p->reported[i])
			continue;
		r.error = br_xstrdup(why);
		r.failure = BR_FAIL_WORKER;
		br_buf_init(&r.out, 0);
		br_buf_init(&r.err, 0);
		deliver(p, i, &r);
	}
	free(why);
	br_loop_unhold(p->loop);
}

static void on_worker(struct br_loop_fd *watch, int fd, unsigned events, void *ctx)
{
	struct worker *w = ctx;
	char chunk[65536];
	ssize_t r;

	(void)watch;
	(void)events;
	r = read(fd, chunk, sizeof(chunk));
	if (r < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (r <= 0) {
		finish_worker(w->pool, w, r < 0 ? strerror(errno) : NULL);
		return;
	}
	if (br_buf_add(&w->in, chunk, (size_t)r) || drain_frames(w->pool, w))
		finish_worker(w->pool, w, "sent something that is not a result");
}

/* SIGTERM/SIGINT here: the workers are ended; what they had not reported
 * is reported interrupted as their pipes close. */
static void end_workers(struct pool *p, int signo)
{
	for (int k = 0; k < p->n_workers; k++)
		if (p->workers[k].fd >= 0)
			kill(p->workers[k].pid, signo);
}

static void on_signal(struct br_loop_fd *watch, int fd, unsigned events, void *ctx)
{
	struct pool *p = ctx;

	(void)events;
	if (!br_signal_pending(fd))
		return;
	br_loop_fd_del(watch);
	p->signal_watch = NULL;
	end_workers(p, SIGTERM);
}

static int spawn(struct pool *p, int k, const struct val_ssh_target *targets,
		 const struct val_ssh_options *opts, struct br_err *err)
{
	struct worker *w = &p->workers[k];
	int fds[2];

	if (pipe2(fds, O_CLOEXEC))
		return br_errf(err, BR_E_IO, "pipe for a validation worker: %s", strerror(errno));
	w->pid = fork();
	if (w->pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return br_errf(err, BR_E_IO, "fork of a validation worker: %s", strerror(errno));
	}
	if (w->pid == 0) {
		close(fds[0]);
		for (int j = 0; j < k; j++)
			close(p->workers[j].fd);
		child_run(targets, w->first, w->count, opts, p->in_worker, p->ctx, fds[1]);
	}
	close(fds[1]);
	w->fd = fds[0];
	w->pool = p;
	w->watch = br_loop_fd_add(p->loop, w->fd, BR_LOOP_IN, on_worker, w, err);
	if (!w->watch) {
		kill(w->pid, SIGKILL);
		close(w->fd);
		w->fd = -1;
		while (waitpid(w->pid, NULL, 0) < 0 && errno == EINTR)
			;
		return BR_E_IO;
	}
	br_loop_hold(p->loop);
	return 0;
}

int val_ssh_run_workers(const struct val_ssh_target *targets, size_t n, const struct val_ssh_options *opts,
			int n_workers, struct val_ssh_result *results, val_ssh_worker_fn in_worker,
			val_ssh_done_fn done, void *ctx, struct br_err *err)
{
	struct val_ssh_options per = *opts;
	struct pool p = { .results = results, .n = n, .in_worker = in_worker, .done = done, .ctx = ctx };
	struct val_ssh_file file = { 0 };
	int started = 0, rc;

	if (n_workers > (int)n)
		n_workers = (int)n;
	if ((rc = br_loop_new(&p.loop, err)))
		return rc;
	if (n_workers <= 1) {
		rc = val_ssh_run(p.loop, targets, n, opts, results, done, ctx, err);
		br_loop_free(p.loop);
		return rc;
	}
	for (size_t i = 0; i < n; i++)
		memset(&results[i], 0, sizeof(results[i]));
	/* --parallel is for the whole rack: each worker gets its share. */
	per.max_parallel = (opts->max_parallel + n_workers - 1) / n_workers;
	/* The file read and digested here, once, not by every worker; one
	 * that cannot be read is left to each worker, which fails its targets
	 * saying why, as before. */
	if (opts->upload && !opts->upload_file && !val_ssh_file_load(opts->upload, &file, NULL))
		per.upload_file = &file;
	p.n_workers = n_workers;
	p.reported = br_xcalloc(n, 1);
	p.workers = br_xcalloc((size_t)n_workers, sizeof(*p.workers));
	for (int k = 0; k < n_workers; k++) {
		p.workers[k].first = n * (size_t)k / (size_t)n_workers;
		p.workers[k].count = n * (size_t)(k + 1) / (size_t)n_workers - p.workers[k].first;
		p.workers[k].fd = -1;
		br_buf_init(&p.workers[k].in, sizeof(struct frame) + FRAME_BODY_MAX + 65536);
	}
	fflush(NULL);
	for (; started < n_workers && !rc; started++)
		rc = spawn(&p, started, targets, &per, err);
	if (!rc) {
		if (br_signal_fd() >= 0)
			p.signal_watch =
			    br_loop_fd_add(p.loop, br_signal_fd(), BR_LOOP_IN, on_signal, &p, NULL);
		if (br_signal_caught()) /* before the loop could see it */
			end_workers(&p, SIGTERM);
		rc = br_loop_run(p.loop, err);
		br_loop_fd_del(p.signal_watch);
	}
	/* A spawn or the loop failed: the workers still running are ended,
	 * their nodes left unreported (the caller has the error). */
	for (int k = 0; k < started; k++) {
		if (p.workers[k].fd < 0)
			continue;
		kill(p.workers[k].pid, SIGKILL);
		br_loop_fd_del(p.workers[k].watch);
		close(p.workers[k].fd);
		while (waitpid(p.workers[k].pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	for (int k = 0; k < n_workers; k++)
		br_buf_release(&p.workers[k].in);
	free(p.workers);
	free(p.reported);
	br_loop_free(p.loop);
	val_ssh_file_release(&file);
	return rc;
}
