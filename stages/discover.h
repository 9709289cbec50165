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
#include "validators/cabling.h"

struct stg_discover_options {
	struct stg_bmc_opts bmc;
	int workers; /* 0: automatic (stg_discover_workers_auto); 1: this process */
	struct rf_options rf;
	/* The wiring list and the switches' chassis ids (--wiring, --switches,
	 * $BRINGUP_WIRING, $BRINGUP_SWITCHES): cabling judged from the BMCs'
	 * switch neighbours before PXE. NULL wiring: not judged. */
	const char *wiring, *switches;
};

/* The check discover records from the BMC's switch neighbours. */
#define STG_CHECK_CABLING_BMC "cabling_bmc"

struct stg_cabling_bmc {
	struct val_wiring wiring;
	struct val_switches switches;
	int have_wiring, have_switches;
};

struct stg_discover_job {
	struct inv_node *node;
	char *password;
	char *base_url;
	char *host;
	int port;
	int done;
	int ok;
	const char *via;     /* "Redfish", "IPMI" (static) */
	int quarantined;     /* discovered, then quarantined on the BMC's view of its cables */
	int cabling_pending; /* its cables failed; judged once its partner's BMC is read */
	char *reason;
	size_t n_macs;
};

struct stg_discover_run {
	struct stg_stage *st; /* st->inv: reopened around the discovery workers */
	struct stg_discover_job *jobs;
	size_t n_jobs, done, failed, quarantined;
	struct br_progress progress;
	char *inventory_error; /* the first write the inventory refused (disk full, I/O): exit 3 */
	const struct stg_cabling_bmc *cabling; /* each node judged as it is stored */
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

/* cabling_bmc.c. Load the wiring list and switches file (wiring NULL:
 * nothing, 0); a problem prints "FILE:LINE: field: message" lines and
 * stops the stage before any node (exit 2). */
int stg_cabling_bmc_load(struct stg_stage *st, const char *wiring, const char *switches,
			 struct stg_cabling_bmc *ret);
void stg_cabling_bmc_release(struct stg_cabling_bmc *c);
/* Judge one node discover just stored by its BMC's switch neighbours,
 * at once: record STG_CHECK_CABLING_BMC, quarantine it when its cables
 * are not as designed (job->quarantined, run->quarantined), and give its
 * lease back. Its own ports against its wiring lines decide; the partners
 * its findings name are read from the inventory to tell a swap, and one
 * quarantined before this node's view was in is judged again with it. A
 * failing node whose partner of this round is still being read waits for
 * it (job->cabling_pending; final: wait no more). Nothing without a
 * wiring list. */
void stg_cabling_bmc_judge_node(struct stg_stage *st, const struct stg_cabling_bmc *c,
				struct stg_discover_run *run, struct stg_discover_job *job, int final);
/* Judge again each node waiting for a partner (final: the round is over). */
void stg_cabling_bmc_flush(struct stg_stage *st, const struct stg_cabling_bmc *c,
			   struct stg_discover_run *run, int final);
/* 1 when the node's latest cabling_bmc failed: its cables are to be fixed
 * and judged again by discover before MAAS may hear of it (enlist skips
 * it, reprovision restarts it at discover). */
int stg_cabling_bmc_failed(struct inv *inv, int64_t node_id);

#endif
