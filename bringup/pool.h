/*
 * pool — a stage's per-BMC work spread over forked worker processes, for
 * racks where one process's event loop is CPU-bound (discover, configure,
 * enlist, gate's reads).
 * Each worker runs the caller's work function on a contiguous slice of the
 * targets, on its own loop and through its own inventory connection, and
 * sends one JSON line per finished target through a pipe: a summary, never
 * the facts themselves. The parent hears the lines on its loop and calls
 * the done hook for each, in completion order; a target whose worker ended
 * without reporting it is handed to done with the reason instead.
 *
 * SQLite must not see a connection cross fork(): the parent's connection
 * is closed before the workers start and opened again after, and each
 * worker opens its own. Once every target has reported (every store is
 * committed), the parent checkpoints the write-ahead log while the workers
 * log out, so the stage's last close has little left to copy. With one
 * worker the work runs in this process on the caller's connection, and
 * each line goes straight to done: both ways run the same code.
 */
#ifndef BRINGUP_POOL_H
#define BRINGUP_POOL_H

#include <jansson.h>

#include "inventory/inventory.h"

struct br_loop;

/* One result line from a worker, unless the caller asks for more. */
#define BR_WORKER_LINE_MAX (64u * 1024)
/* A result's text is cut to this before it is sent: JSON escaping at most
 * sextuples it (\u00XX), so a line always fits BR_WORKER_LINE_MAX. */
#define BR_WORKER_TEXT_MAX (8u * 1024)
#define BR_WORKERS_MAX 1024
/* The parent checkpoints the inventory's log each time this many more
 * targets have reported (~31 KB of facts each from discovery: ~4 MB, as
 * often as SQLite's own 1000 pages would), and once all have: the workers
 * never do. Left to the end, a 512-node discovery's whole 16 MB would be
 * copied while the last logouts are out, and past them on a slow disk. */
#define BR_POOL_CHECKPOINT_TARGETS 128
/* Targets per worker when the count is automatic. */
#define BR_WORKER_TARGETS 64

/* The automatic worker count: min(online CPUs, ceil(n_targets / 64)), >= 1. */
int br_workers_auto(size_t n_targets);

/* A worker's side of the pool (or this process's, with one worker). */
struct br_pool_worker;

struct br_pool {
	const char *tag;  /* log module: "discover" */
	const char *what; /* names a worker in reasons: "discovery" worker exited ... */
	size_t n;	  /* targets, numbered 0 .. n-1 */
	int n_workers;	  /* at most n are started; <= 1 runs in this process */
	size_t line_max;  /* longest line accepted; 0 for BR_WORKER_LINE_MAX */
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
};

/* Run pool->work over the targets, in pool->n_workers processes each taking
 * a contiguous slice. *inv is closed and reopened around the fork (so it
 * may change). Call it before any network I/O and with stdio flushed.
 * Returns nonzero only when the run could not start (a worker's work said
 * so) or the inventory could not be reopened. */
int br_pool_run(struct inv **inv, const struct br_pool *pool, struct br_err *err);
/* As br_pool_run, the parent hearing the workers on the caller's loop:
 * the caller's other work on it (a MAAS client's requests, queued before
 * the fork but not yet sent) moves while the workers run, and this returns
 * once that is done too. */
int br_pool_run_on(struct inv **inv, const struct br_pool *pool, struct br_loop *loop, struct br_err *err);

/* Send target i's outcome (line: a JSON object, taken; "i" is added). A
 * line over the pool's cap goes without its strings, its numbers kept and
 * "text" saying why: the outcome is never lost for its words. */
void br_pool_send(struct br_pool_worker *w, size_t i, json_t *line);
/* The inventory connection of this worker (the caller's with one worker). */
struct inv *br_pool_inv(const struct br_pool_worker *w);
/* In a forked worker of a stage that catches no signal: end (SIGKILL) when
 * the parent does, which a SIGTERM or Ctrl-C ends at once, instead of
 * working on unseen. Nothing with one worker (this process). */
void br_pool_end_with_parent(const struct br_pool_worker *w);
/* Worker w's part of a rack-wide cap, so the parts add up to total: each
 * at least 1, so a cap below the worker count is exceeded (keep the count
 * at most the cap where that matters). */
long br_pool_share(const struct br_pool_worker *w, long total);

#endif
