/*
 * validate — the stage that proves a deployed machine is physically right:
 * bringup-probe run on each node over SSH (or a saved probe document), its
 * facts stored, and judged with the BMC's facts against the node's profile
 * and the wiring list. A node whose checks all ran becomes `validated`
 * (gate decides golden or quarantined from the checks); one whose facts
 * could not be collected becomes `failed` with the reason.
 *
 * Ownership: struct stg_validate_run owns its jobs and what they hold
 * (stg_validate_run_release); nodes are borrowed from the stage.
 */
#ifndef STAGES_VALIDATE_H
#define STAGES_VALIDATE_H

#include "stage.h"
#include "validators/cabling.h"
#include "validators/rules.h"
#include "validators/ssh.h"
#include "validators/validators.h"

struct stg_validate_options {
	const char *facts_file; /* judge this saved probe document (one node), no SSH */
	const char *wiring;	/* wiring list; NULL: cabling unknown */
	const char *switches;	/* switch,chassis_id: names the switches a BMC knows by MAC */
	/* The InfiniBand fabric as ibnetdiscover printed it, judged once
	 * against ib_wiring (NULL: the wiring list) and given to each node it
	 * cables as check "fabric"; NULL: no such check. */
	const char *ib_topology, *ib_wiring, *ib_rate;
	/* Without ib_topology: the nodes ibnetdiscover is run on over SSH
	 * (each in the inventory), tried in order; none: the run's nodes
	 * with an active InfiniBand port (stages/validate_fabric.c). */
	struct br_strlist fabric_hosts;
	const char *ssh_key, *known_hosts, *ssh_config, *ssh_user;
	enum val_ssh_host_keys host_keys;
	const char *probe; /* the bringup-probe executable to copy over */
	int parallel;
	int workers;	    /* SSH worker processes; 0: val_ssh_workers_auto */
	int64_t timeout_ms; /* 0: each node's profile's [time_limits] validation */
};

struct stg_validate_job {
	struct inv_node *node; /* borrowed */
	const struct prof_profile *profile;
	json_t *probe;		 /* the node's facts (owned); judged in a worker: its LLDP part only */
	char *probe_text;	 /* the probe's compact output as stored, or NULL: dumped from probe */
	int64_t probe_ms;	 /* controller clock while the probe ran */
	int64_t probe_window_ms; /* half the exec's length: probe_ms is known within it */
	struct val_check *checks;
	size_t n_checks, fails, unknowns;
	/* Judged in an SSH worker: the node rules' checks it sent (put after
	 * cabling's), the document already stored there. */
	int judged;
	struct val_check *node_checks;
	size_t n_node_checks;
	/* The active checks' verdicts ([active]: dcgm_diag, rdma_bw), put
	 * after the node rules'. */
	struct val_check *active_checks;
	size_t n_active_checks;
	int done, ok;
	enum br_fail_kind fail_kind; /* why, when not ok */
	char *missing_nic;	     /* the PCIe device of a NIC its silent ports say is gone, or NULL */
	char *reason;
	/* The inventory refused this node's outcome (its facts in a worker,
	 * or its verdict): the node stays as it was; why (owned). */
	char *unrecorded;
};

struct stg_validate_run {
	struct inv *inv;
	struct stg_validate_job *jobs;
	size_t n, done, failed;
	struct stg_profiles profiles;
	struct val_wiring wiring;
	int have_wiring;
	struct val_wiring ib_wiring; /* have_ib_wiring: the fabric's design */
	int have_ib_wiring;
	struct val_fabric_result fabric; /* have_fabric: its judgement */
	struct val_switches switches;
	int have_switches;
	int have_fabric;
	char *fabric_source;   /* where the topology came from ("ibnetdiscover on HOST, ports ...") */
	char *fabric_unjudged; /* why the fabric was not judged, for the nodes it must prove */
	char *ssh_user;	       /* the user the probe's sessions logged in as */
	struct br_progress progress;
	size_t unrecorded;     /* nodes whose outcome the inventory refused */
	char *inventory_error; /* the first such refusal (owned) */
};

/* Collect, judge and record every node; 0, or an exit code for a problem
 * that stops the whole run (bad options or input: STG_EXIT_USAGE). */
int stg_validate_run(struct stg_stage *st, const struct stg_validate_options *o,
		     struct stg_validate_run *run);
json_t *stg_validate_json(const void *run);
void stg_validate_print(const void *run);
void stg_validate_run_release(struct stg_validate_run *run);

/* validate_fabric.c: read the subnet over SSH (when the run has nodes
 * whose fabric must be proven and no capture was given) and judge it;
 * then give every node its check "fabric". */
void stg_validate_fabric_collect(const struct stg_validate_options *o, struct stg_validate_run *run);
void stg_validate_fabric_checks(struct stg_validate_run *run);

/* validate_active.c: the checks the node's profile opts into ([active]),
 * each tool run over SSH on every node that asks for it under that
 * check's own time limit, judged into the job's active_checks. Not with
 * --facts (nothing is run on a node judged offline). */
void stg_validate_active(const struct stg_validate_options *o, struct stg_validate_run *run);

/* Fabric mode: an InfiniBand fabric as ibnetdiscover printed it, judged
 * against the wiring list (exchanged, missing and unexpected cables,
 * devices never reached, links below expected_rate when given). Prints the
 * verdict (json: one document) and returns the exit code: 0 as designed,
 * 1 not, STG_EXIT_USAGE for unusable input (problems on stderr as
 * FILE:LINE). */
int stg_validate_fabric(const char *ibnet_path, const char *wiring, const char *expected_rate, int json);

#endif
