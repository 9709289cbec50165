/*
 * discoverpool — rf_discover_all spread over forked worker processes, for
 * racks where one process's event loop is CPU-bound. Each worker runs its
 * own libcurl loop on a slice of the targets and streams one JSON line per
 * finished target through a pipe; the parent calls the done callback for
 * each, so whatever the callback writes (the inventory) stays in the parent.
 * Workers touch nothing they inherited but the targets and leave with
 * _exit(): an SQLite connection must never be closed in a forked child.
 */
#ifndef BRINGUP_DISCOVERPOOL_H
#define BRINGUP_DISCOVERPOOL_H

#include "redfish/redfish.h"

/* One result line from a worker: a br_hw as JSON is tens of KiB, so this
 * is far above anything real and only stops a broken worker. */
#define BR_WORKER_LINE_MAX (16u * 1024 * 1024)
#define BR_WORKERS_MAX 1024
/* Targets per worker when the count is automatic. */
#define BR_WORKER_TARGETS 64

/* The automatic worker count: min(online CPUs, ceil(n_targets / 64)), >= 1. */
int br_discover_workers_auto(size_t n_targets);

/* As rf_discover_all, with the targets split into n_workers contiguous
 * slices, each worker capped at opts->total_inflight / n_workers requests
 * (at least 1; the per-BMC cap is unchanged). n_workers <= 1 is
 * rf_discover_all itself. done runs in the calling process, in completion
 * order; the br_hw it gets is released when it returns. A target whose
 * worker ended without reporting it gets rc BR_E_IO and err "discovery
 * worker exited with status N". Call it before any network I/O and with
 * stdio flushed (fork copies both). */
int br_discover_workers(const struct rf_target *targets, size_t n, const struct rf_options *opts, int n_workers,
			rf_done_fn done, void *ctx, struct br_err *err);

#endif
