/*
 * drive — what every driver's rf_*_all shares around its own steps: the
 * options and every target checked, curl and one rf_http set up, one
 * rf_bmc and one node of the driver's per target, the run (run.c), and
 * everything released after. A driver (discover.c, config.c, firmware.c,
 * accounts.c) is its struct rf_driver; nothing here knows which one runs.
 */
#include <string.h>

#include "rf_private.h"

struct drive {
	const struct rf_driver *driver;
	const char *targets;
	size_t n, target_size;
	void *run;
};

static const struct rf_target *target_at(const struct drive *d, size_t i)
{
	return (const struct rf_target *)(d->targets + i * d->target_size);
}

static int check(const struct drive *d, struct br_err *err)
{
	const struct rf_driver *drv = d->driver;
	int rc;

	if (drv->check_run && (rc = drv->check_run(d->run, err)))
		return rc;
	for (size_t i = 0; i < d->n; i++) {
		const struct rf_target *t = target_at(d, i);

		if (!t->base_url || strncmp(t->base_url, "http", 4))
			return br_errf(err, BR_E_INVAL, "redfish: target %s: base URL must be http(s)://",
				       t->name ? t->name : "?");
		if (drv->check_target && (rc = drv->check_target(d->run, t, err)))
			return rc;
	}
	return 0;
}

static int run_all(const struct drive *d, const struct rf_options *opts, struct br_err *err)
{
	const struct rf_driver *drv = d->driver;
	struct rf_bmc *bmcs;
	struct rf_http h;
	char *nodes;
	int rc;

	if ((rc = rf_http_init(&h, opts, d->n, err)))
		return rc;
	bmcs = br_xcalloc(d->n, sizeof(*bmcs));
	nodes = drv->node_size ? br_xcalloc(d->n, drv->node_size) : NULL;
	h.bmcs = bmcs;
	h.n_bmcs = d->n;
	h.driver = drv;
	h.run = d->run;
	for (size_t i = 0; i < d->n; i++) {
		rf_bmc_setup(&h, &bmcs[i], target_at(d, i));
		if (drv->bind)
			drv->bind(&bmcs[i], nodes ? nodes + i * drv->node_size : NULL, d->run);
	}
	rc = rf_run_bmcs(&h, err);
	for (size_t i = 0; nodes && drv->node_release && i < d->n; i++)
		drv->node_release(nodes + i * drv->node_size);
	free(nodes);
	free(bmcs);
	rf_http_release(&h);
	return rc;
}

int rf_drive_all(const struct rf_driver *driver, const void *targets, size_t n, size_t target_size, void *run,
		 const struct rf_options *opts, struct br_err *err)
{
	struct drive d = {
		.driver = driver, .targets = targets, .n = n, .target_size = target_size, .run = run
	};
	struct rf_options defaults;
	int rc;

	if (!opts) {
		rf_options_init(&defaults);
		opts = &defaults;
	}
	if ((rc = rf_options_check(opts, err)) || (rc = check(&d, err)))
		return rc;
	if (n == 0)
		return 0;
	if (curl_global_init(CURL_GLOBAL_DEFAULT))
		return br_errf(err, BR_E_NOMEM, "redfish: curl_global_init failed");
	rc = run_all(&d, opts, err);
	curl_global_cleanup();
	return rc;
}
