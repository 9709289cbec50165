/*
 * discoverpool — rf_discover_all over the worker pool (pool.h), for racks
 * where one process's event loop is CPU-bound. Each worker runs its own
 * libcurl loop on a slice of the targets and stores what each BMC reported
 * through its own inventory connection, so the facts (tens of KiB per
 * node) are neither serialized nor funnelled through one process. The
 * parent hears one short line per finished target and calls the done hook
 * for it.
 */
#ifndef BRINGUP_DISCOVERPOOL_H
#define BRINGUP_DISCOVERPOOL_H

#include "workers.h"
#include "redfish/redfish.h"

struct stg_discover_hooks {
	/* Store what target t reported, on inv (the worker's own connection,
	 * or the caller's in a single process). 0 with *summary set (a short
	 * malloc'd line for logs and the summary table) and *n_macs, or an
	 * error code with err set: the target then ends with that error. */
	int (*store)(struct inv *inv, const struct rf_target *t, const struct br_hw *hw, char **summary,
		     size_t *n_macs, struct br_err *err);
	/* In the calling process, in completion order: t ended with rc 0 (its
	 * facts stored; text is store's summary) or an error (text says why,
	 * nothing was stored). */
	void (*done)(const struct rf_target *t, int rc, const char *text, size_t n_macs, void *ctx);
	void *ctx;
	/* Optional, in the worker: t failed with rc and why, and hw names
	 * the machine (br_hw_has_identity: only what names it is left).
	 * Store it and the failure; 0 when the node is now recorded failed
	 * (the target then ends with BR_E_EXISTS and why), else an error. */
	int (*store_failed)(struct inv *inv, const struct rf_target *t, const struct br_hw *hw, int rc,
			    const char *why, struct br_err *err);
};

/* The automatic worker count: stg_workers_auto. */
int stg_discover_workers_auto(size_t n_targets);

/* Discover every target, n_workers processes each taking a contiguous
 * slice and capped at its share of opts->total_inflight requests (at least
 * 1; the per-BMC cap is unchanged); n_workers <= 1 runs in this process.
 * *inv is closed and reopened around the fork (so it may change). A target
 * whose worker ended without reporting it ends with BR_E_IO and "discovery
 * worker exited with status N". Call it before any network I/O and with
 * stdio flushed. Returns nonzero only when the run could not start or the
 * inventory could not be reopened. */
int stg_discover_workers(struct inv **inv, const struct rf_target *targets, size_t n,
			 const struct rf_options *opts, int n_workers, const struct stg_discover_hooks *hooks,
			 struct br_err *err);

#endif
