/*
 * configure — what `bringup configure` keeps per node and how it reports:
 * the node's profile, its firmware judged against the policy, what the BMC
 * client did, and the inventory record (checks "bios", "boot",
 * "firmware:<FQDD>" of stage "configure"; state configured or failed).
 *
 * Ownership: struct stg_configure_job owns its strings, checks and result copies
 * (stg_configure_job_release); the node and profile are borrowed.
 */
#ifndef STAGES_CONFIGURE_H
#define STAGES_CONFIGURE_H

#include "inventory/inventory.h"
#include "redfish/redfish.h"
#include "profile/profile.h"
#include "bmcopts.h"
#include "stage.h"
#include "validators/cabling.h"

struct stg_configure_job {
	struct inv_node *node;
	const struct prof_profile *profile;
	struct rf_config_spec spec;
	/* The PXE port chosen by its cable (the wiring list's provisioning
	 * cable of the node, else [boot] pxe_switch): the BMC port
	 * cabled to the provisioning switch, when the profile names another;
	 * the baseline then names it in place of the profile's (bios_pxe,
	 * owned). pxe_note says which port and why, for the reason. */
	char *pxe_chosen, *pxe_note;
	struct br_kv *bios_pxe;
	char *password, *base_url, *host;
	int port;
	int ipmi;	      /* discovered over IPMI */
	struct inv_check *fw; /* firmware policy results (validators/rules_fw.c) */
	size_t n_fw;
	/* outcome */
	int done, ok;
	int interrupted;    /* a signal stopped it: nothing recorded, the node as it was */
	int record_refused; /* the inventory refused its outcome (a full disk): exit 3 */
	char *reason;
	enum br_fail_kind fail_kind; /* why, when not ok */
	struct rf_config_change *changes;
	size_t n_changes;
	char *boot_current, *boot_wanted, *job;
	int bios_patched, resets, boot_patched;
};

void stg_configure_job_release(struct stg_configure_job *job);

/* A value a BMC reported (a BIOS attribute's, the boot order) is kept and
 * shown cut to this: a megabyte string is the BMC's fault, not the report's. */
#define STG_CONFIGURE_VALUE_SHOWN_MAX 1024u
/* A configure worker's result line (stages/workers.h): up to PROF_ENTRIES_MAX
 * changes of STG_CONFIGURE_VALUE_SHOWN_MAX and two profile lines each, escaped. */
#define STG_CONFIGURE_WORKER_LINE_MAX (16u * 1024 * 1024)

/* Copy what the client reported into job (res may be NULL). */
void stg_configure_job_take_result(struct stg_configure_job *job, const struct rf_config_result *res);

/* The outcome of a Redfish job as a configure worker sends it to the
 * parent (ok, interrupted, reason, changes, boot, job, counts and the
 * inventory's error recording it, if any); new reference. */
json_t *stg_configure_job_outcome(const struct stg_configure_job *job, const char *record_error);
/* Take such an outcome into job (its earlier outcome replaced); a member
 * that is missing counts as failed, with "text" as the reason. *ret_record_error
 * points into line, or is NULL. */
void stg_configure_job_take_outcome(struct stg_configure_job *job, json_t *line,
				    const char **ret_record_error);
/* The reason a node failed, as recorded (caller frees): what the BMC cannot
 * do ("unsupported on this BMC: ...", RF's BR_E_UNSUPPORTED) leads. */
#define STG_CONFIGURE_UNSUPPORTED "unsupported on this BMC: "
char *stg_configure_failure_reason(int rc, const char *msg);

/* Record the outcome: checks and state (configured or failed with the
 * reason). Nothing is written in a dry run. 0 or an inventory error. */
int stg_configure_job_record(struct inv *inv, struct stg_configure_job *job, int dry_run, struct br_err *err);

/* Machine output of the run; new reference. */
json_t *stg_configure_jobs_json(const struct stg_configure_job *jobs, size_t n, int dry_run);
/* The human report: a table, and in a dry run each node's diff. */
void stg_configure_jobs_print(const struct stg_configure_job *jobs, size_t n, int dry_run, FILE *f);

/* ---- the run ------------------------------------------------------------- */

struct stg_configure_options {
	struct stg_bmc_opts bmc;
	int dry_run, max_resets, poll_ms, graceful_s, job_timeout_s;
	int workers; /* 0: automatic (stg_configure_workers) */
	/* systems of one power domain (the manifest's) resetting at once; 0: no limit but max_resets */
	int max_resets_per_domain;
	struct rf_options rf;
	/* switch,chassis_id of every switch (--switches, $BRINGUP_SWITCHES):
	 * names the switch a BMC port is cabled to for [boot] pxe_switch */
	const char *switches;
	/* the wiring list (--wiring, $BRINGUP_WIRING): a node's cable of role
	 * provisioning names the switch its PXE port is cabled to */
	const char *wiring;
};

/* The profiles the nodes name, each loaded once. */
struct stg_configure_profiles {
	struct prof_profile *items;
	size_t n;
};

/* What configure reads besides the inventory (the profiles its nodes name,
 * --switches, --wiring), loaded by the inputs check before any node is
 * leased and handed to the run that follows it, so that what was checked
 * is what is used (a file edited in between waits for the next round). */
struct stg_configure_inputs {
	const struct stg_configure_options *o;
	struct stg_configure_profiles profiles;
	struct val_switches switches;
	int have_switches;
	struct val_wiring wiring;
	int have_wiring;
};
void stg_configure_inputs_release(struct stg_configure_inputs *in);

struct stg_configure_run {
	struct stg_stage *st; /* st->inv: reopened around the configure workers */
	struct stg_configure_job *jobs;
	size_t n_jobs, done, failed;
	int dry_run;
	struct br_progress progress;
	/* what each worker runs: the Redfish targets, the options */
	const struct rf_config_target *rf;
	const struct rf_options *ro;
	struct rf_config_options copts;
	struct stg_configure_inputs inputs; /* the inputs check's, taken over */
};

/* After option parsing: check the options, fill o->rf, and make a dry run
 * take no leases. Nonzero: stop (st->exit is STG_EXIT_USAGE). */
int stg_configure_options_check(struct stg_stage *st, struct stg_configure_options *o);
/* Every input configure reads, checked for the nodes it picked (the
 * profiles they name, --switches, --wiring) before any is leased: the
 * stage's inputs_check, ctx a struct stg_configure_inputs (its o set),
 * which keeps what it loaded for the run (what an earlier check left
 * unused is dropped first). STG_EXIT_USAGE, said on stderr with the file,
 * line and field, when one is wrong. */
int stg_configure_inputs_check(const struct inv_node *nodes, size_t n, void *ctx);
/* How many worker processes run n_rf Redfish BMCs: --workers, else one per
 * CPU and 64 BMCs; never more than the reset slots (each worker holds a
 * share of them) unless in a dry run, nor than the BMCs; at least 1. */
int stg_configure_workers(const struct stg_configure_options *o, size_t n_rf);
/* Configure st's nodes into run (zeroed by the caller): profiles first
 * (those in (NULL: none), the inputs check's, taken over, the rest
 * loaded; a bad one stops the run, exit 2, before anything is touched),
 * then Redfish config jobs, then IPMI boot settings. Nonzero when the run
 * stopped (st->exit set). */
int stg_configure_run(struct stg_stage *st, const struct stg_configure_options *o,
		      struct stg_configure_inputs *in, struct stg_configure_run *run);
/* The run as `--json` prints it (new reference) and as a table on stdout. */
json_t *stg_configure_json(const void *run);
void stg_configure_print(const void *run);
void stg_configure_run_release(struct stg_configure_run *run);

#endif
