/* The inventory across a worker pool's fork: the caller's connection
 * reopened, one per worker, the log checkpointed by the parent
 * (inventory.h). */
#include <stdlib.h>
#include <string.h>

#include "common/pool.h"
#include "inventory.h"

void inv_fork_init(struct inv_fork *f, struct inv **inv)
{
	f->inv = inv;
	f->path = NULL;
}

void inv_fork_release(struct inv_fork *f)
{
	free(f->path);
	f->path = NULL;
}

static int close_for_fork(void *ctx, struct br_err *err)
{
	struct inv_fork *f = ctx;

	free(f->path);
	f->path = br_xstrdup(inv_path(*f->inv));
	inv_close(*f->inv);
	*f->inv = NULL;
	return 0;
}

static int reopen_after_fork(void *ctx, struct br_err *err)
{
	struct inv_fork *f = ctx;

	return inv_open(f->path, f->inv, err);
}

/* A worker's commits never checkpoint: SQLite's automatic checkpoint
 * (every 1000 pages of log) made the committing worker copy the log into
 * the database and fsync both on its event loop, while its BMCs' answers
 * and logouts waited (a 512-node discovery writes ~16 MB of facts, four
 * such stalls at its very end). */
static int open_in_worker(void *ctx, int forked, void **ret_data, struct br_err *err)
{
	struct inv_fork *f = ctx;
	struct inv *inv = NULL;
	int rc;

	if (!forked) {
		*ret_data = *f->inv;
		return 0;
	}
	rc = inv_open(f->path, &inv, err);
	if (!rc && (rc = inv_set_autocheckpoint(inv, 0, err)))
		inv_close(inv);
	if (!rc)
		*ret_data = inv;
	return rc;
}

static void close_in_worker(void *ctx, int forked, void *data)
{
	if (forked)
		inv_close(data);
}

/* Copy the write-ahead log into the database as the rack goes, so it never
 * grows without bound, and once every target's outcome is in: what is left
 * of the workers' run then is their logouts (a BMC round trip), and the
 * copy is done while those are on the wire, not left to the stage's end. */
static void checkpoint_cadence(void *ctx, size_t n_reported, size_t n)
{
	struct inv_fork *f = ctx;
	struct br_err err = { 0 };

	if (n_reported != n && n_reported % INV_FORK_CHECKPOINT_TARGETS)
		return;
	if (*f->inv && inv_checkpoint(*f->inv, &err))
		br_debug("inventory", "%s", err.msg);
}

void inv_fork_hooks(struct inv_fork *f, struct br_pool_fork_hooks *ret_hooks)
{
	*ret_hooks = (struct br_pool_fork_hooks){ .before_fork = close_for_fork,
						  .after_fork = reopen_after_fork,
						  .worker_start = open_in_worker,
						  .worker_end = close_in_worker,
						  .reported = checkpoint_cadence,
						  .ctx = f };
}
