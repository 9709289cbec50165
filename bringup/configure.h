/*
 * configure — what `bringup configure` keeps per node and how it reports:
 * the node's profile, its firmware judged against the policy, what the BMC
 * client did, and the inventory record (checks "bios", "boot",
 * "firmware:<FQDD>" of stage "configure"; state configured or failed).
 *
 * Ownership: struct cfg_job owns its strings, checks and result copies
 * (cfg_job_release); the node and profile are borrowed.
 */
#ifndef BRINGUP_CONFIGURE_H
#define BRINGUP_CONFIGURE_H

#include "inventory/inventory.h"
#include "redfish/redfish.h"
#include "profile/profile.h"

struct cfg_job {
	struct inv_node *node;
	const struct prof_profile *profile;
	struct rf_config_spec spec;
	char *password, *base_url, *host;
	int port;
	int ipmi;	      /* discovered over IPMI */
	struct inv_check *fw; /* firmware policy results (validators/rules_fw.c) */
	size_t n_fw;
	/* outcome */
	int done, ok;
	int interrupted; /* a signal stopped it: nothing recorded, the node as it was */
	char *reason;
	enum br_fail_kind fail_kind; /* why, when not ok */
	struct rf_config_change *changes;
	size_t n_changes;
	char *boot_current, *boot_wanted, *job;
	int bios_patched, resets, boot_patched;
};

void cfg_job_release(struct cfg_job *job);

/* A value a BMC reported (a BIOS attribute's, the boot order) is kept and
 * shown cut to this: a megabyte string is the BMC's fault, not the report's. */
#define CFG_VALUE_SHOWN_MAX 1024u
/* A configure worker's result line (bringup/pool.h): up to PROF_ENTRIES_MAX
 * changes of CFG_VALUE_SHOWN_MAX and two profile lines each, escaped. */
#define CFG_WORKER_LINE_MAX (16u * 1024 * 1024)

/* Copy what the client reported into job (res may be NULL). */
void cfg_job_take_result(struct cfg_job *job, const struct rf_config_result *res);

/* The outcome of a Redfish job as a configure worker sends it to the
 * parent (ok, interrupted, reason, changes, boot, job, counts and the
 * inventory's error recording it, if any); new reference. */
json_t *cfg_job_outcome(const struct cfg_job *job, const char *record_error);
/* Take such an outcome into job (its earlier outcome replaced); a member
 * that is missing counts as failed, with "text" as the reason. *ret_record_error
 * points into line, or is NULL. */
void cfg_job_take_outcome(struct cfg_job *job, json_t *line, const char **ret_record_error);
/* The reason a node failed, as recorded (caller frees): what the BMC cannot
 * do ("unsupported on this BMC: ...", RF's BR_E_UNSUPPORTED) leads. */
#define CFG_UNSUPPORTED "unsupported on this BMC: "
char *cfg_failure_reason(int rc, const char *msg);

/* Record the outcome: checks and state (configured or failed with the
 * reason). Nothing is written in a dry run. 0 or an inventory error. */
int cfg_job_record(struct inv *inv, struct cfg_job *job, int dry_run, struct br_err *err);

/* Machine output of the run; new reference. */
json_t *cfg_jobs_json(const struct cfg_job *jobs, size_t n, int dry_run);
/* The human report: a table, and in a dry run each node's diff. */
void cfg_jobs_print(const struct cfg_job *jobs, size_t n, int dry_run, FILE *f);

#endif
