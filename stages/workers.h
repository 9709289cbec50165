/*
 * pool — a stage's per-BMC (per-machine, per-read) work over the worker
 * pool of common/pool.h, for racks where one process's event loop is
 * CPU-bound (discover, configure, enlist, gate's reads). What a stage adds
 * to the pool: the inventory across the fork (inventory.h's inv_fork: the
 * caller's connection reopened, each worker's own, the parent's
 * checkpoints), workers that catch SIGTERM to log out of their BMCs with
 * the Redfish client's grace, and the stages' one worker count.
 */
#ifndef BRINGUP_STAGES_WORKERS_H
#define BRINGUP_STAGES_WORKERS_H

#include "common/pool.h"
#include "inventory/inventory.h"

/* The pool's caps, under the names the stages use. */
#define STG_WORKER_TEXT_MAX BR_POOL_TEXT_MAX
#define STG_WORKERS_MAX BR_POOL_WORKERS_MAX
/* Targets a worker is worth forking for when the count is automatic. */
#define STG_WORKER_TARGETS 64

/* The automatic worker count (br_pool_workers_auto): one per online CPU,
 * at most one per 64 targets, at least 1. */
int stg_workers_auto(size_t n_targets);

/* Run pool->work over the targets (br_pool_exec). *inv is closed and
 * reopened around the fork (so it may change); in each worker
 * stg_pool_inv is its own connection. Call it before any network I/O.
 * Returns nonzero only when the run could not start (a worker's work said
 * so) or the inventory could not be reopened. */
int stg_pool_run(struct inv **inv, const struct br_pool *pool, struct br_err *err);
/* As stg_pool_run, the parent hearing the workers on the caller's loop:
 * the caller's other work on it (a MAAS client's requests, queued before
 * the fork but not yet sent) moves while the workers run, and this returns
 * once that is done too. */
int stg_pool_run_on(struct inv **inv, const struct br_pool *pool, struct br_loop *loop, struct br_err *err);

/* The inventory connection of this worker (the caller's with one worker). */
struct inv *stg_pool_inv(const struct br_pool_worker *w);

#endif
