/* rf_discover_all in the worker pool: each worker stores what its BMCs
 * report; a JSON line per target tells the parent how it ended. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bmcopts.h"
#include "discoverpool.h"

struct disc {
	const struct rf_target *targets;
	const struct rf_options *opts;
	const struct stg_discover_hooks *hooks;
};

int stg_discover_workers_auto(size_t n_targets)
{
	return stg_workers_auto(n_targets);
}

/* ---- in a worker (or this process) ------------------------------------- */

struct child {
	struct br_pool_worker *w;
	const struct disc *d;
};

/* Store what the BMC reported and say how it went: its facts stored (rc 0,
 * text the store's summary) or the error that stopped it (text says why). */
static void child_done(const struct rf_target *t, int rc, struct br_hw *hw, const struct br_err *err,
		       void *ctx)
{
	const struct child *c = ctx;
	size_t index = (size_t)(uintptr_t)t->user_data;
	struct br_err store_err = { 0 };
	char *summary = NULL, *text;
	const char *why;
	size_t n_macs = 0;
	json_t *msg;

	if (rc == 0) {
		rc = c->d->hooks->store(stg_pool_inv(c->w), &c->d->targets[index], hw, &summary, &n_macs,
					&store_err);
		why = rc ? store_err.msg : summary ? summary : "";
	} else {
		why = err && err->msg[0] ? err->msg : br_strerror(rc);
		/* the serial and BMC MAC it did read name the machine in tickets */
		if (c->d->hooks->store_failed && rc != BR_E_INTERRUPTED && br_hw_has_identity(hw) &&
		    !c->d->hooks->store_failed(stg_pool_inv(c->w), &c->d->targets[index], hw, rc, why,
					       &store_err)) {
			rc = BR_E_EXISTS;
			why = store_err.msg;
		}
	}
	text = br_xstrdup_capped(why, STG_WORKER_TEXT_MAX);
	msg = json_pack("{s:i, s:s, s:I}", "rc", rc, "text", text, "macs", (json_int_t)n_macs);
	free(text);
	if (!msg) /* not UTF-8: keep the outcome, lose the words */
		msg = json_pack("{s:i, s:s, s:I}", "rc", rc, "text", "(reason not encodable)", "macs",
				(json_int_t)n_macs);
	br_pool_send(c->w, index, msg);
	free(summary);
}

static int work(struct br_pool_worker *w, size_t first, size_t count, void *ctx, struct br_err *err)
{
	const struct disc *d = ctx;
	struct rf_target *slice = br_xcalloc(count, sizeof(*slice));
	struct rf_options wopts = *d->opts;
	struct child c = { w, d };
	int rc;

	for (size_t i = 0; i < count; i++) {
		slice[i] = d->targets[first + i];
		slice[i].user_data = (void *)(uintptr_t)(first + i);
	}
	wopts.total_inflight = (int)br_pool_share(w, d->opts->total_inflight);
	stg_bmc_sessions_record(&wopts, stg_pool_inv(w));
	rc = rf_discover_all(slice, count, &wopts, child_done, &c, err);
	free(slice);
	return rc;
}

/* ---- in this process ----------------------------------------------------- */

static void done(size_t i, json_t *line, int rc, const char *why, void *ctx)
{
	const struct disc *d = ctx;
	json_t *rc_json = json_object_get(line, "rc");

	if (!line)
		d->hooks->done(&d->targets[i], rc, why, 0, d->hooks->ctx);
	else if (!json_is_integer(rc_json))
		d->hooks->done(&d->targets[i], BR_E_IO, "discovery worker sent a result without its code", 0,
			       d->hooks->ctx);
	else
		d->hooks->done(&d->targets[i], (int)json_integer_value(rc_json),
			       json_string_value(json_object_get(line, "text")),
			       (size_t)json_integer_value(json_object_get(line, "macs")), d->hooks->ctx);
}

int stg_discover_workers(struct inv **inv, const struct rf_target *targets, size_t n,
			 const struct rf_options *opts, int n_workers, const struct stg_discover_hooks *hooks,
			 struct br_err *err)
{
	struct disc d = { targets, opts, hooks };
	const struct br_pool pool = { "discover", "discovery", n, n_workers, 0, work, done, &d, NULL };

	return stg_pool_run(inv, &pool, err);
}
