/* A stage's work in forked workers that store what they find (pool.h). */
#include "workers.h"
#include "redfish/redfish.h"

int stg_workers_auto(size_t n_targets)
{
	return br_pool_workers_auto(n_targets, STG_WORKER_TARGETS, STG_WORKERS_MAX);
}

struct inv *stg_pool_inv(const struct br_pool_worker *w)
{
	return br_pool_worker_data(w);
}

int stg_pool_run(struct inv **inv, const struct br_pool *pool, struct br_err *err)
{
	return stg_pool_run_on(inv, pool, NULL, err);
}

int stg_pool_run_on(struct inv **inv, const struct br_pool *pool, struct br_loop *loop, struct br_err *err)
{
	struct br_pool_fork_hooks hooks;
	struct inv_fork fork_inv;
	int rc;

	inv_fork_init(&fork_inv, inv);
	inv_fork_hooks(&fork_inv, &hooks);
	/* A worker told to stop logs out of its BMCs (each within the
	 * client's grace) and reports them interrupted. */
	hooks.stop_grace_ms = RF_INTERRUPT_GRACE_MS + 2000;
	rc = br_pool_exec(pool, &hooks, loop, err);
	inv_fork_release(&fork_inv);
	return rc;
}
