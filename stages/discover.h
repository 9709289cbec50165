/*
 * discover — `bringup discover`: read every BMC of the selected nodes
 * (Redfish, over worker processes for a large rack; ipmitool for BMCs
 * without it) and store what each reports. Nodes end discovered, or
 * failed with the reason.
 *
 * Ownership: struct stg_discover_run owns its jobs and their strings
 * (stg_discover_run_release); the nodes are the stage's, borrowed.
 */
#ifndef STAGES_DISCOVER_H
#define STAGES_DISCOVER_H

#include "bmcopts.h"
#include "stage.h"

struct stg_discover_options {
	struct stg_bmc_opts bmc;
	int workers; /* 0: automatic (stg_discover_workers_auto); 1: this process */
	struct rf_options rf;
};

struct stg_discover_job {
	struct inv_node *node;
	char *password;
	char *base_url;
	char *host;
	int port;
	int done;
	int ok;
	const char *via; /* "Redfish", "IPMI" (static) */
	char *reason;
	size_t n_macs;
};

struct stg_discover_run {
	struct stg_stage *st; /* st->inv: reopened around the discovery workers */
	struct stg_discover_job *jobs;
	size_t n_jobs, done, failed;
	struct br_progress progress;
	char *inventory_error; /* the first write the inventory refused (disk full, I/O): exit 3 */
};

/* After option parsing: check the options and fill o->rf. Nonzero: stop
 * (st->exit is STG_EXIT_USAGE). */
int stg_discover_options_check(struct stg_stage *st, struct stg_discover_options *o);
/* Discover st's nodes into run (zeroed by the caller): Redfish first, then
 * IPMI for nodes that ask for it and auto nodes without Redfish. Each
 * node's outcome is in run->jobs; a node whose password reference cannot
 * be resolved fails without a request. Nonzero when the run could not
 * start (st->exit set). */
int stg_discover_run(struct stg_stage *st, const struct stg_discover_options *o,
		     struct stg_discover_run *run);
/* The run as `--json` prints it (new reference) and as a table on stdout. */
json_t *stg_discover_json(const void *run);
void stg_discover_print(const void *run);
void stg_discover_run_release(struct stg_discover_run *run);

#endif
