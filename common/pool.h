/*
 * pool — work on many targets spread over forked worker processes, for work
 * that one process's event loop cannot keep up with (a rack's TLS, SSH or
 * JSON). Each worker takes a contiguous slice of the targets, works it on
 * a loop of its own and sends one JSON line per finished target through a
 * pipe: a summary, never bulk data that could stay in the worker. The
 * parent hears the lines on its loop and hands each to the caller's done
 * in completion order; a target whose worker ended without reporting it is
 * handed to done with a reason instead. With one worker the work runs in
 * this process and each line goes straight to done: both ways run the same
 * code.
 *
 * The pool knows nothing of what a caller holds. What must not cross
 * fork() (a database connection, a client with requests on the wire) the
 * caller handles in its hooks: before the fork and after it in this
 * process, first and last in each worker, and after each target reported
 * here.
 *
 * Ownership: the pool and everything it points to are borrowed for the
 * run; a line handed to done is borrowed for the call.
 */
#ifndef BRINGUP_COMMON_POOL_H
#define BRINGUP_COMMON_POOL_H

#include <jansson.h>
#include <stdint.h>

#include "common.h"

struct br_loop;

/* One result line from a worker, unless the pool asks for more. */
#define BR_POOL_LINE_MAX (64u * 1024)
/* A result's text is cut to this before it is sent: JSON escaping at most
 * sextuples it (\u00XX), so a line always fits BR_POOL_LINE_MAX. */
#define BR_POOL_TEXT_MAX (8u * 1024)
#define BR_POOL_WORKERS_MAX 1024
/* How long a worker told to stop (SIGTERM, passed on from this process)
 * has before it is killed, unless the pool says otherwise. */
#define BR_POOL_STOP_GRACE_MS 2000

/* The one rule for an automatic worker count: one per online CPU, at most
 * one per per_worker targets (a worker is worth its fork only with that
 * many to do), at most max, at least 1. */
int br_pool_workers_auto(size_t n_targets, size_t per_worker, int max);

/* A worker's side of the pool (or this process's, with one worker). */
struct br_pool_worker;

/* How a worker ended, for the reason its unreported targets fail with. */
struct br_pool_end {
	const char *what; /* the pool's what */
	long pid;
	int status;	     /* waitpid's */
	const char *trouble; /* why this process gave up on it and killed it, or NULL */
	int interrupted;     /* this process caught SIGTERM or SIGINT */
};

/* What a caller does around the fork; any of them may be NULL. Only
 * worker_start and worker_end run with one worker (forked 0); the rest
 * only when workers are forked. */
struct br_pool_fork_hooks {
	/* Here, before the first fork: let go of what must not cross it. 0, or
	 * an error that stops the run before any worker starts. */
	int (*before_fork)(void *ctx, struct br_err *err);
	/* Here, once the workers are started, or their start failed: take
	 * back what before_fork let go of. 0 or an error that stops the run. */
	int (*after_fork)(void *ctx, struct br_err *err);
	/* In the process that works the targets, before the work: a forked
	 * worker (its memory a copy of this process's) or this process.
	 * *ret_data is what br_pool_worker_data gives. 0, or an error that
	 * stops the run (it could not start). */
	int (*worker_start)(void *ctx, int forked, void **ret_data, struct br_err *err);
	/* There, once the work is done: release what worker_start made. */
	void (*worker_end)(void *ctx, int forked, void *data);
	/* Here, after done was called for a target: n_reported of n have
	 * reported so far (n_reported == n: the last one). */
	void (*reported)(void *ctx, size_t n_reported, size_t n);
	/* Here: the reason, malloc'd, that a dead worker's unreported targets
	 * fail with. NULL hook: "WHAT worker exited with status N (signal S)"
	 * and its kin (br_pool_end_reason). */
	char *(*end_reason)(const struct br_pool_end *end, void *ctx);
	void *ctx;
	/* How long a worker told to stop has before it is killed; 0:
	 * BR_POOL_STOP_GRACE_MS. */
	int64_t stop_grace_ms;
	/* 0: each forked worker catches SIGTERM and SIGINT on a self-pipe of
	 * its own (br_signals_catch), for its work to wind down; nonzero: a
	 * worker takes the default disposition back, and a signal ends it at
	 * once (the handler it inherits would wake this process's loop). */
	int worker_signals_end;
};

struct br_pool {
	const char *tag;  /* log module: "discover" */
	const char *what; /* names a worker in reasons: "discovery" worker exited ... */
	size_t n;	  /* targets, numbered 0 .. n-1 */
	int n_workers;	  /* at most n are started; <= 1 runs in this process */
	size_t line_max;  /* longest line accepted; 0 for BR_POOL_LINE_MAX */
	/* In each worker: work on targets [first, first + count), sending each
	 * one's outcome with br_pool_send as it ends. 0, or an error that
	 * stops the whole run (it could not start). */
	int (*work)(struct br_pool_worker *w, size_t first, size_t count, void *ctx, struct br_err *err);
	/* In this process, in completion order: target i's line (borrowed),
	 * or line NULL when its worker ended without one: rc is then
	 * BR_E_INTERRUPTED (a signal stopped the run) or BR_E_IO, and why
	 * says why ("discovery worker exited with status 137 (signal 9)"). */
	void (*done)(size_t i, json_t *line, int rc, const char *why, void *ctx);
	void *ctx;
	/* May be NULL. Nonzero: target i goes to the worker of target i - 1
	 * (a run of joined targets is never split between workers: the
	 * caller rations something over them in one process). A worker left
	 * without targets is not started. */
	int (*joined)(size_t i, void *ctx);
};

/* Run pool->work over the targets, in pool->n_workers processes each taking
 * a contiguous slice, with hooks (may be NULL), the parent hearing them on
 * loop (NULL: one of its own). On the caller's loop, the caller's other work on it (requests
 * queued before the fork but not yet sent) moves while the workers run,
 * and this returns once that is done too. Call it with nothing of this
 * process's on the wire. A SIGTERM or SIGINT caught here (br_signals_catch)
 * is passed on to the workers, which are killed after the grace. Returns
 * nonzero only when the run could not start (a hook or a worker's work
 * said so) or the loop failed. */
int br_pool_exec(const struct br_pool *pool, const struct br_pool_fork_hooks *hooks, struct br_loop *loop,
		 struct br_err *err);

/* Send target i's outcome (line: a JSON object, taken; NULL: the caller
 * could not encode it; "i" is added). A line over the pool's cap goes
 * without its strings, its numbers kept and "text" saying why: the outcome
 * is never lost for its words. */
void br_pool_send(struct br_pool_worker *w, size_t i, json_t *line);
/* What the worker_start hook gave this worker (NULL without one). */
void *br_pool_worker_data(const struct br_pool_worker *w);
/* Whether w is a forked worker (0: this process, with one worker). */
int br_pool_worker_forked(const struct br_pool_worker *w);
/* In a forked worker of a stage that catches no signal: end (SIGKILL) when
 * the parent does, which a SIGTERM or Ctrl-C ends at once, instead of
 * working on unseen. Nothing with one worker (this process). */
void br_pool_end_with_parent(const struct br_pool_worker *w);
/* Worker w's part of a total cap, so the parts add up to total: each at
 * least 1, so a cap below the worker count is exceeded (keep the count at
 * most the cap where that matters). */
long br_pool_share(const struct br_pool_worker *w, long total);
/* The default reason for a dead worker's targets (malloc'd). */
char *br_pool_end_reason(const struct br_pool_end *end);

#endif
