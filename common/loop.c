/*
 * loop — epoll for fds, a binary heap for timers, posix_spawn + pipes for
 * children (see loop.h for the contract).
 *
 * A turn costs what happened, not how much is registered: epoll hands back
 * only ready fds, the heap only the due timers. A watch deleted while its
 * event is still in the batch being served is only marked dead and freed
 * after the batch, so a callback may drop any watch, its own included.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/wait.h>
#include <unistd.h>

#include "loop.h"

extern char **environ;

struct br_loop_fd {
	struct br_loop *loop;
	int fd;
	int dead;
	br_loop_fd_fn fn;
	void *ctx;
	struct br_loop_fd *next, *prev; /* live watches */
	struct br_loop_fd *next_dead;
};

struct prepare_hook {
	void (*fn)(void *ctx);
	void *ctx;
};

struct proc;

struct br_loop {
	int epfd;
	struct br_loop_timer **heap;
	size_t n_heap, cap_heap;
	size_t strong_timers; /* pending timers that are not weak */
	uint64_t seq;
	size_t holds;
	int stopped, woken;
	struct br_err stop_err;
	int stop_rc;
	struct prepare_hook *hooks;
	size_t n_hooks;
	struct br_loop_fd *watches; /* live */
	struct br_loop_fd *dead;    /* watches deleted during a batch */
	int serving;		    /* inside the fd batch */
	int running;		    /* inside br_loop_run */
	struct proc *procs;	    /* running children */
};

/* ---- the loop itself ------------------------------------------------------ */

int br_loop_new(struct br_loop **ret_loop, struct br_err *err)
{
	struct br_loop *loop = br_xcalloc(1, sizeof(*loop));

	loop->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (loop->epfd < 0) {
		free(loop);
		return br_errf(err, BR_E_IO, "epoll_create1: %s", strerror(errno));
	}
	*ret_loop = loop;
	return 0;
}

static void free_dead(struct br_loop *loop)
{
	while (loop->dead) {
		struct br_loop_fd *w = loop->dead;

		loop->dead = w->next_dead;
		free(w);
	}
}

static void proc_abandon(struct br_loop *loop, struct proc *p);

void br_loop_free(struct br_loop *loop)
{
	if (!loop)
		return;
	while (loop->procs)
		proc_abandon(loop, loop->procs);
	while (loop->watches)
		br_loop_fd_del(loop->watches);
	free_dead(loop);
	for (size_t i = 0; i < loop->n_heap; i++)
		loop->heap[i]->slot = 0;
	free(loop->heap);
	free(loop->hooks);
	close(loop->epfd);
	free(loop);
}

void br_loop_stop(struct br_loop *loop, const struct br_err *err)
{
	loop->stopped = 1;
	if (err && !loop->stop_rc) {
		loop->stop_err = *err;
		loop->stop_rc = err->code ? err->code : BR_E_STATE;
	}
}

void br_loop_hold(struct br_loop *loop)
{
	loop->holds++;
}

void br_loop_unhold(struct br_loop *loop)
{
	if (loop->holds)
		loop->holds--;
}

void br_loop_wake(struct br_loop *loop)
{
	loop->woken = 1;
}

int br_loop_prepare_add(struct br_loop *loop, void (*fn)(void *ctx), void *ctx)
{
	loop->hooks = br_xrealloc(loop->hooks, (loop->n_hooks + 1) * sizeof(*loop->hooks));
	loop->hooks[loop->n_hooks++] = (struct prepare_hook){ fn, ctx };
	return 0;
}

void br_loop_prepare_del(struct br_loop *loop, void (*fn)(void *ctx), void *ctx)
{
	for (size_t i = 0; i < loop->n_hooks; i++)
		if (loop->hooks[i].fn == fn && loop->hooks[i].ctx == ctx) {
			memmove(&loop->hooks[i], &loop->hooks[i + 1],
				(loop->n_hooks - i - 1) * sizeof(*loop->hooks));
			loop->n_hooks--;
			return;
		}
}

/* ---- timers: a min-heap on (due_ms, seq) ----------------------------------- */

static int timer_before(const struct br_loop_timer *a, const struct br_loop_timer *b)
{
	return a->due_ms < b->due_ms || (a->due_ms == b->due_ms && a->seq < b->seq);
}

static void heap_put(struct br_loop *loop, size_t i, struct br_loop_timer *t)
{
	loop->heap[i] = t;
	t->slot = i + 1;
}

static void sift_up(struct br_loop *loop, size_t i)
{
	struct br_loop_timer *t = loop->heap[i];

	while (i > 0) {
		size_t parent = (i - 1) / 2;

		if (!timer_before(t, loop->heap[parent]))
			break;
		heap_put(loop, i, loop->heap[parent]);
		i = parent;
	}
	heap_put(loop, i, t);
}

static void sift_down(struct br_loop *loop, size_t i)
{
	struct br_loop_timer *t = loop->heap[i];

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= loop->n_heap)
			break;
		if (c + 1 < loop->n_heap && timer_before(loop->heap[c + 1], loop->heap[c]))
			c++;
		if (!timer_before(loop->heap[c], t))
			break;
		heap_put(loop, i, loop->heap[c]);
		i = c;
	}
	heap_put(loop, i, t);
}

void br_loop_timer_init(struct br_loop_timer *t, void (*fn)(struct br_loop_timer *timer, void *ctx),
			void *ctx)
{
	memset(t, 0, sizeof(*t));
	t->fn = fn;
	t->ctx = ctx;
}

void br_loop_timer_stop(struct br_loop *loop, struct br_loop_timer *t)
{
	size_t i;

	if (!t->slot)
		return;
	i = t->slot - 1;
	t->slot = 0;
	if (!t->weak)
		loop->strong_timers--;
	if (i != --loop->n_heap) {
		struct br_loop_timer *moved = loop->heap[loop->n_heap];

		heap_put(loop, i, moved);
		sift_down(loop, i);
		sift_up(loop, moved->slot - 1);
	}
}

void br_loop_timer_start_at(struct br_loop *loop, struct br_loop_timer *t, int64_t due_ms)
{
	br_loop_timer_stop(loop, t);
	if (loop->n_heap == loop->cap_heap) {
		loop->cap_heap = loop->cap_heap ? 2 * loop->cap_heap : 64;
		loop->heap = br_xrealloc(loop->heap, loop->cap_heap * sizeof(*loop->heap));
	}
	t->due_ms = due_ms;
	t->seq = loop->seq++;
	if (!t->weak)
		loop->strong_timers++;
	heap_put(loop, loop->n_heap++, t);
	sift_up(loop, loop->n_heap - 1);
}

void br_loop_timer_start(struct br_loop *loop, struct br_loop_timer *t, int64_t delay_ms)
{
	br_loop_timer_start_at(loop, t, br_now_ms() + (delay_ms > 0 ? delay_ms : 0));
}

/* Fire what is due now; timers armed by a callback for "now" wait for the
 * next turn, so a timer that re-arms itself cannot starve the fds. */
static void fire_timers(struct br_loop *loop)
{
	int64_t now = br_now_ms();
	uint64_t seq_end = loop->seq;

	while (loop->n_heap && loop->heap[0]->due_ms <= now && loop->heap[0]->seq < seq_end) {
		struct br_loop_timer *t = loop->heap[0];

		br_loop_timer_stop(loop, t);
		t->fn(t, t->ctx);
		if (loop->stopped)
			return;
	}
}

/* ---- fd watches ------------------------------------------------------------ */

static uint32_t epoll_mask(unsigned events)
{
	return (events & BR_LOOP_IN ? EPOLLIN : 0u) | (events & BR_LOOP_OUT ? EPOLLOUT : 0u);
}

struct br_loop_fd *br_loop_fd_add(struct br_loop *loop, int fd, unsigned events, br_loop_fd_fn fn, void *ctx,
				  struct br_err *err)
{
	struct br_loop_fd *w = br_xcalloc(1, sizeof(*w));
	struct epoll_event ev = { .events = epoll_mask(events), .data.ptr = w };

	w->loop = loop;
	w->fd = fd;
	w->fn = fn;
	w->ctx = ctx;
	if (epoll_ctl(loop->epfd, EPOLL_CTL_ADD, fd, &ev)) {
		br_errf(err, BR_E_IO, "epoll_ctl(ADD, fd %d): %s", fd, strerror(errno));
		free(w);
		return NULL;
	}
	w->next = loop->watches;
	if (loop->watches)
		loop->watches->prev = w;
	loop->watches = w;
	return w;
}

int br_loop_fd_set(struct br_loop_fd *w, unsigned events)
{
	struct epoll_event ev = { .events = epoll_mask(events), .data.ptr = w };

	return epoll_ctl(w->loop->epfd, EPOLL_CTL_MOD, w->fd, &ev) ? BR_E_IO : 0;
}

void br_loop_fd_del(struct br_loop_fd *w)
{
	struct br_loop *loop;

	if (!w)
		return;
	loop = w->loop;
	/* The fd may be closed already; the kernel then dropped it itself. */
	epoll_ctl(loop->epfd, EPOLL_CTL_DEL, w->fd, NULL);
	if (w->prev)
		w->prev->next = w->next;
	else
		loop->watches = w->next;
	if (w->next)
		w->next->prev = w->prev;
	if (!loop->serving) {
		free(w);
		return;
	}
	w->dead = 1;
	w->next_dead = loop->dead;
	loop->dead = w;
}

/* ---- a turn ------------------------------------------------------------------ */

static int alive(const struct br_loop *loop)
{
	return !loop->stopped && (loop->holds || loop->strong_timers || loop->procs);
}

static struct {
	void (*fn)(void *ctx);
	void *ctx;
	int64_t interval_ms, due_ms;
	pid_t pid;
} keepalive;

void br_loop_keepalive_set(void (*fn)(void *ctx), void *ctx, int64_t interval_ms)
{
	keepalive.fn = fn;
	keepalive.ctx = ctx;
	keepalive.interval_ms = interval_ms > 0 ? interval_ms : 1;
	keepalive.due_ms = br_now_ms() + keepalive.interval_ms;
	keepalive.pid = getpid();
}

static int keepalive_ours(void)
{
	return keepalive.fn && keepalive.pid == getpid();
}

void br_loop_keepalive_due(void)
{
	if (!keepalive_ours() || br_now_ms() < keepalive.due_ms)
		return;
	keepalive.due_ms = br_now_ms() + keepalive.interval_ms;
	keepalive.fn(keepalive.ctx);
}

static int wait_ms(struct br_loop *loop)
{
	int64_t ms = BR_LOOP_WAIT_MAX_MS;

	if (keepalive_ours()) {
		int64_t until = keepalive.due_ms - br_now_ms();

		if (until < ms)
			ms = until < 0 ? 0 : until;
	}

	if (loop->woken)
		return 0;
	if (loop->n_heap) {
		int64_t until = loop->heap[0]->due_ms - br_now_ms();

		if (until < ms)
			ms = until < 0 ? 0 : until;
	}
	return (int)ms;
}

int br_loop_run(struct br_loop *loop, struct br_err *err)
{
	return br_loop_run_until(loop, NULL, NULL, err);
}

int br_loop_run_until(struct br_loop *loop, int (*finished)(void *ctx), void *ctx, struct br_err *err)
{
	struct epoll_event evs[BR_LOOP_EVENTS_MAX];
	int rc;

	/* A client's synchronous call from inside a callback would run the
	 * turn that called it again: refuse rather than recurse. */
	if (loop->running)
		return br_errf(err, BR_E_STATE, "event loop: run from inside one of its own callbacks");
	loop->running = 1;
	loop->stopped = 0;
	loop->stop_rc = 0;
	while (alive(loop) && !(finished && finished(ctx))) {
		int n;

		for (size_t i = 0; i < loop->n_hooks && !loop->stopped; i++)
			loop->hooks[i].fn(loop->hooks[i].ctx);
		if (!alive(loop))
			break;
		n = epoll_wait(loop->epfd, evs, BR_LOOP_EVENTS_MAX, wait_ms(loop));
		loop->woken = 0;
		if (n < 0 && errno != EINTR) {
			loop->running = 0;
			return br_errf(err, BR_E_IO, "epoll_wait: %s", strerror(errno));
		}
		loop->serving = 1;
		for (int i = 0; i < n && !loop->stopped; i++) {
			struct br_loop_fd *w = evs[i].data.ptr;
			unsigned what = (evs[i].events & EPOLLIN ? BR_LOOP_IN : 0u) |
					(evs[i].events & EPOLLOUT ? BR_LOOP_OUT : 0u) |
					(evs[i].events & (EPOLLERR | EPOLLHUP) ? BR_LOOP_ERR : 0u);

			if (!w->dead)
				w->fn(w, w->fd, what, w->ctx);
		}
		loop->serving = 0;
		free_dead(loop);
		if (!loop->stopped)
			fire_timers(loop);
		br_loop_keepalive_due();
	}
	loop->running = 0;
	rc = loop->stop_rc;
	if (rc && err)
		*err = loop->stop_err;
	/* A stop ends this run only: a later run on a shared loop starts afresh. */
	loop->stopped = 0;
	loop->stop_rc = 0;
	return rc;
}

/* ---- child processes ---------------------------------------------------------- */

/* Both pipes at EOF but the child not reaped yet: look again this soon. */
#define PROC_REAP_RECHECK_MS 10

struct proc {
	struct br_loop *loop;
	struct proc *next;
	pid_t pid;
	int fd[2]; /* stdout, stderr; -1 at EOF */
	struct br_loop_fd *watch[2];
	struct br_buf out, err;
	struct br_loop_timer deadline, recheck;
	int status, exited, timed_out, truncated;
	br_loop_proc_fn fn;
	void *ctx;
};

static void proc_unlink(struct br_loop *loop, struct proc *p)
{
	for (struct proc **pp = &loop->procs; *pp; pp = &(*pp)->next)
		if (*pp == p) {
			*pp = p->next;
			return;
		}
}

static void proc_close(struct proc *p, int which)
{
	if (p->fd[which] < 0)
		return;
	br_loop_fd_del(p->watch[which]);
	p->watch[which] = NULL;
	close(p->fd[which]);
	p->fd[which] = -1;
}

static void proc_kill(struct proc *p)
{
	if (p->exited)
		return;
	kill(p->pid, SIGKILL);
	while (waitpid(p->pid, &p->status, 0) < 0 && errno == EINTR)
		;
	p->exited = 1;
}

static void proc_free(struct br_loop *loop, struct proc *p)
{
	proc_close(p, 0);
	proc_close(p, 1);
	br_loop_timer_stop(loop, &p->deadline);
	br_loop_timer_stop(loop, &p->recheck);
	br_buf_release(&p->out);
	br_buf_release(&p->err);
	free(p);
}

static void proc_abandon(struct br_loop *loop, struct proc *p)
{
	proc_unlink(loop, p);
	proc_kill(p);
	proc_free(loop, p);
}

/* Drain a pipe. Stdout past its cap ends the call (what came so far is
 * still handed on); stderr past its cap is read and dropped. */
static void proc_read(struct proc *p, int which)
{
	struct br_buf *b = which ? &p->err : &p->out;
	char chunk[4096];

	while (p->fd[which] >= 0) {
		ssize_t got = read(p->fd[which], chunk, sizeof(chunk));
		size_t room = b->max - b->len;

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0 && errno == EAGAIN)
			return;
		if (got <= 0) {
			proc_close(p, which);
			return;
		}
		br_buf_add(b, chunk, (size_t)got < room ? (size_t)got : room);
		if (!which && (size_t)got > room && !p->truncated) {
			p->truncated = 1;
			proc_kill(p);
		}
	}
}

static void proc_try_finish(struct proc *p)
{
	struct br_loop *loop = p->loop;
	struct br_loop_proc_result res;

	if (p->fd[0] >= 0 || p->fd[1] >= 0)
		return;
	if (!p->exited) {
		pid_t got = waitpid(p->pid, &p->status, WNOHANG);

		if (got == 0) {
			if (!br_loop_timer_pending(&p->recheck))
				br_loop_timer_start(loop, &p->recheck, PROC_REAP_RECHECK_MS);
			return;
		}
		p->exited = 1;
	}
	proc_unlink(loop, p);
	res = (struct br_loop_proc_result){ .pid = p->pid,
					    .status = p->status,
					    .timed_out = p->timed_out,
					    .truncated = p->truncated,
					    .out = &p->out,
					    .err = &p->err };
	p->fn(&res, p->ctx);
	proc_free(loop, p);
}

static void on_pipe(struct br_loop_fd *watch, int fd, unsigned events, void *ctx)
{
	struct proc *p = ctx;

	proc_read(p, fd == p->fd[0] ? 0 : 1);
	proc_try_finish(p);
}

static void on_recheck(struct br_loop_timer *t, void *ctx)
{
	proc_try_finish(ctx);
}

static void on_deadline(struct br_loop_timer *t, void *ctx)
{
	struct proc *p = ctx;

	p->timed_out = 1;
	proc_kill(p);
	/* what the pipes still hold belongs to the answer */
	proc_read(p, 0);
	proc_read(p, 1);
	proc_close(p, 0);
	proc_close(p, 1);
	proc_try_finish(p);
}

int br_loop_spawn(struct br_loop *loop, const struct br_loop_proc_spec *spec, br_loop_proc_fn fn, void *ctx,
		  struct br_err *err)
{
	posix_spawn_file_actions_t fa;
	int out[2] = { -1, -1 }, errp[2] = { -1, -1 }, in[2] = { -1, -1 };
	struct proc *p = br_xcalloc(1, sizeof(*p));
	int rc = 0, sprc;

	p->loop = loop;
	p->fd[0] = p->fd[1] = -1;
	p->fn = fn;
	p->ctx = ctx;
	br_buf_init(&p->out, spec->out_max);
	br_buf_init(&p->err, spec->err_max);
	br_loop_timer_init(&p->deadline, on_deadline, p);
	br_loop_timer_init(&p->recheck, on_recheck, p);
	if (spec->in && spec->in_len > BR_LOOP_STDIN_MAX) {
		rc = br_errf(err, BR_E_INVAL, "%s: %zu bytes for stdin, more than %d", spec->path,
			     spec->in_len, BR_LOOP_STDIN_MAX);
		goto out;
	}
	if (pipe2(out, O_CLOEXEC) || pipe2(errp, O_CLOEXEC) || (spec->in && pipe2(in, O_CLOEXEC))) {
		rc = br_errf(err, BR_E_IO, "pipe: %s", strerror(errno));
		goto out;
	}
	posix_spawn_file_actions_init(&fa);
	if (spec->in)
		posix_spawn_file_actions_adddup2(&fa, in[0], 0);
	else
		posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, out[1], 1);
	posix_spawn_file_actions_adddup2(&fa, errp[1], 2);
	sprc = posix_spawn(&p->pid, spec->path, &fa, NULL, spec->argv, spec->envp ? spec->envp : environ);
	posix_spawn_file_actions_destroy(&fa);
	if (sprc) {
		rc = br_errf(err, BR_E_IO, "cannot run %s: %s", spec->path, strerror(sprc));
		goto out;
	}
	p->fd[0] = out[0];
	p->fd[1] = errp[0];
	out[0] = errp[0] = -1;
	/* an empty pipe takes PIPE_BUF bytes whole; its read end is still
	 * open here, so a child that exits at once costs no SIGPIPE */
	if (spec->in && spec->in_len && write(in[1], spec->in, spec->in_len) != (ssize_t)spec->in_len) {
		rc = br_errf(err, BR_E_IO, "%s: stdin: %s", spec->path, strerror(errno));
		proc_kill(p);
		goto out;
	}
	for (int i = 0; i < 2; i++) {
		fcntl(p->fd[i], F_SETFL, O_NONBLOCK);
		p->watch[i] = br_loop_fd_add(loop, p->fd[i], BR_LOOP_IN, on_pipe, p, err);
		if (!p->watch[i]) {
			/* the child runs already: it is killed and reaped */
			rc = BR_E_IO;
			proc_kill(p);
			goto out;
		}
	}
	if (spec->timeout_ms > 0)
		br_loop_timer_start(loop, &p->deadline, spec->timeout_ms);
	p->next = loop->procs;
	loop->procs = p;
out:
	for (int i = 0; i < 2; i++) {
		if (out[i] >= 0)
			close(out[i]);
		if (errp[i] >= 0)
			close(errp[i]);
		if (in[i] >= 0)
			close(in[i]);
	}
	if (rc)
		proc_free(loop, p);
	return rc;
}
