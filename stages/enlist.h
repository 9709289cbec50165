/*
 * enlist — handing machines to MAAS and getting an OS on the right disk:
 * create-or-adopt by MAC, commission, boot disk by serial, deploy, for many
 * machines at once on one MAAS client loop. The flow knows no database; it
 * reports each step through callbacks and the stage stores what it hears.
 *
 * Also what the flow needs for each node (enlist_inputs.c, the one part
 * that reads the inventory): the MACs and drives discovery stored, the
 * boot disk the profile's rule picks (validators/rules_disk.c), the
 * cloud-init user-data rendered.
 *
 * Ownership: jobs are the caller's; the flow writes only the result fields
 * of each job (system_id, ip, installed_serial: malloc'ed, freed by
 * stg_enlist_job_release).
 */
#ifndef STAGES_ENLIST_H
#define STAGES_ENLIST_H

#include "common.h"
#include "inventory/inventory.h"
#include "maas/maas.h"
#include "profile/profile.h"
#include "maasopts.h"
#include "stage.h"

#define STG_ENLIST_USER_DATA_MAX (64u * 1024) /* rendered user-data, before base64 */
#define STG_ENLIST_PUBKEYS_MAX (16u * 1024)   /* the --ssh-pubkey file: a few keys, one a line */
#define STG_ENLIST_POLL_IDS_MAX 50	      /* machines read per list request while waiting */
#define STG_ENLIST_EVENTS_MAX 1000 /* events read per look (MAAS's MAX_EVENT_LOG_COUNT, api/events.py) */
#define STG_ENLIST_EVENT_PAGES_MAX                                                                           \
	10			  /* full looks paged on in one tick; more: every waiting machine is read */
#define STG_ENLIST_SWEEP_TICKS 20 /* every Nth poll reads all waiting machines (timeouts, lost events) */
#define STG_ENLIST_SWEEP_MIN_MS 10000 /* ... and never more often than this */
#define STG_ENLIST_LOOKUPS_MAX 3      /* create/lookup rounds before giving up on a node */

struct stg_enlist_job {
	/* Input (borrowed). */
	const char *hostname;
	const struct br_strlist *macs; /* lowercase colon form, from discovery */
	const char *power_address;     /* the BMC, host[:port] */
	const char *bmc_type;	       /* "ipmi": MAAS powers it by IPMI; otherwise Redfish */
	const char *power_user;
	const char *power_pass;	      /* sent to MAAS only; never logged */
	const char *boot_disk_serial; /* the disk the OS must go on: a drive serial or a volume's identity */
	const char *boot_disk_why;    /* how it was chosen (the BMC's side, for reasons); may be NULL */
	const char *user_data_b64;    /* deploy's user_data */
	int64_t commission_limit_ms;  /* this node's wait for Ready; 0: the options' */
	int64_t deploy_limit_ms;      /* this node's wait for Deployed; 0: the options' */
	void *user_data;	      /* the caller's */
	/* Result. */
	char *system_id;
	char *ip;
	char *installed_serial; /* boot_disk.serial once deployed */
	/* Set by on_system_id or on_ready: the node is no longer this stage's
	 * (its write was refused: the lease lost, or another run moved it),
	 * so the flow asks MAAS nothing more for it and finishes it. */
	int lost;
	/* Flow state (private). */
	int lookups, commissioned_here, deploy_sent, waiting, changed, done;
	int64_t wait_since_ms;
	int64_t wait_limit_ms; /* the limit of the wait under way */
	/* MAAS events naming the machine since it was last read: news_other,
	 * an event that is not a status change; news_moved, a status change,
	 * the newest (by event id) to moved_to. */
	int news_other, news_moved, moved_to;
	int64_t moved_id;
};
void stg_enlist_job_release(struct stg_enlist_job *job);

struct stg_enlist_options {
	int max_parallel;	       /* machines in flight at once; default 64 */
	int poll_ms;		       /* status poll interval while waiting; default 1000 */
	int64_t commission_timeout_ms; /* default 30 min */
	int64_t deploy_timeout_ms;     /* default 60 min */
	const char *distro_series;     /* default "jammy" */
	const char *storage_layout;    /* default "flat" */
	int events_max;		       /* events asked for per look; default STG_ENLIST_EVENTS_MAX */
};
void stg_enlist_options_init(struct stg_enlist_options *opts);

struct stg_enlist_callbacks {
	/* The machine exists in MAAS (created or adopted): store its id now, so
	 * a run killed after this point adopts it again. */
	void (*on_system_id)(void *ctx, struct stg_enlist_job *job);
	/* Commissioned and Ready. */
	void (*on_ready)(void *ctx, struct stg_enlist_job *job);
	/* Finished: kind BR_FAIL_NONE (deployed, installed on the wanted
	 * serial) or why it failed, with a reason that quotes MAAS. */
	void (*on_done)(void *ctx, struct stg_enlist_job *job, enum br_fail_kind kind, const char *reason);
};

/* Drive every job to Deployed or a reason; jobs with done set are skipped. Returns 0 once all finished, or
 * an error when the loop itself broke. */
int stg_enlist_run(struct maas_client *client, struct stg_enlist_job *jobs, size_t n,
		   const struct stg_enlist_options *opts, const struct stg_enlist_callbacks *cb, void *ctx,
		   struct br_err *err);

/* ---- enlist_userdata.c ---------------------------------------------------- */

struct stg_enlist_userdata_vars {
	const char *hostname;
	const struct br_strlist *ssh_pubkeys; /* one key a line; none: the list is left out */
	const struct br_strlist *ntp_servers;
	const struct br_strlist *packages;
};

/* Render template_path with @HOSTNAME@, @SSH_AUTHORIZED_KEYS@, @NTP_SERVERS@,
 * @PACKAGES@ (the last three as YAML list items) into *ret_text. With no
 * key, @SSH_AUTHORIZED_KEYS@ alone on its line drops that line and the
 * "key:" line above it. */
int stg_enlist_render_userdata(const char *template_path, const struct stg_enlist_userdata_vars *vars,
			       char **ret_text, struct br_err *err);
/* Standard base64 with padding; caller frees. */
char *stg_enlist_base64(const char *data, size_t len);

/* ---- enlist_inputs.c ----------------------------------------------------- */

/* What every node's user-data is made of. */
struct stg_enlist_inputs {
	char *templates;
	struct prof_profile *profiles; /* loaded as nodes name them */
	size_t n_profiles;
	struct br_strlist ssh_pubkeys; /* the key file's keys, one a line; none with --no-ssh-key */
	struct br_strlist ntp, packages;
};
/* ntp and packages are option values (each may hold a comma or space
 * separated list); empty: $BRINGUP_NTP_SERVERS or ntp.ubuntu.com, and
 * chrony lldpd nvme-cli pciutils. */
int stg_enlist_inputs_load(struct stg_enlist_inputs *in, const char *templates, const char *pubkey_path,
			   const struct br_strlist *ntp, const struct br_strlist *packages,
			   struct br_err *err);
void stg_enlist_inputs_release(struct stg_enlist_inputs *in);

/* One node's part, owned by the record (stg_enlist_node_inputs_release). */
struct stg_enlist_node_inputs {
	struct br_strlist macs;
	char *power_pass; /* zeroed on release */
	char *boot_disk_serial;
	char *boot_disk_why; /* which clause or column chose it */
	char *user_data_b64;
	int64_t commissioning_s,
	    deployment_s;	     /* the profile's [time_limits] (its defaults if it will not load) */
	enum br_fail_kind fail_kind; /* why stg_enlist_node_prepare failed */
};
/* Gather a node's inputs (loading its profile into in the first time one
 * is needed); an error's message is the reason to fail it. */
int stg_enlist_node_prepare(struct inv *inv, const struct inv_node *node, struct stg_enlist_inputs *in,
			    struct stg_enlist_node_inputs *ni, struct br_err *err);
void stg_enlist_node_inputs_release(struct stg_enlist_node_inputs *ni);

/* ---- enlist_stage.c: the stage's run ------------------------------------- */

/* A node of the run: what it was prepared from, and its outcome. */
struct stg_enlist_node {
	struct inv_node *node;
	struct stg_enlist_node_inputs in;
	const char *result; /* "deployed", "failed" (static); NULL: not reached */
	char *reason;
	char *unrecorded; /* what the inventory refused of its outcome (owned), or NULL */
};

struct stg_enlist_stage {
	struct inv **inv; /* this process's (the stage's): reopened around the workers */
	struct stg_enlist_job *jobs;
	struct stg_enlist_node *ctx;
	size_t n, done, failed;
	size_t unrecorded;     /* nodes whose outcome the inventory refused */
	char *inventory_error; /* the first refusal (owned) */
	struct br_progress progress;
	/* What each worker's MAAS client and flow are made of. */
	struct maas_options mo;
	struct stg_enlist_options eo;
};

struct stg_enlist_stage_options {
	struct stg_maas_opts maas;
	const char *pubkey, *distro;
	const char *pubkey_env; /* $BRINGUP_SSH_PUBKEY: pubkey unless --ssh-pubkey was given */
	int skip_configure, no_ssh_key, max_parallel, max_inflight, poll_ms, workers;
	int retries, commission_timeout_s, deploy_timeout_s;
	struct br_strlist ntp, packages;
	struct stg_enlist_inputs in;
};

/* Options, then what every node's user-data is made of (the SSH key, NTP
 * servers, packages): read before the inventory is opened. Nonzero: stop
 * (st->exit is STG_EXIT_USAGE). */
int stg_enlist_stage_check(struct stg_stage *st, struct stg_enlist_stage_options *o);
/* Whether the run works node: named, or picked by state but for a failed
 * node MAAS never saw that failed elsewhere than in enlist (one that
 * failed discovery keeps its reason). */
int stg_enlist_stage_takes(const struct stg_stage *st, const struct inv_node *node);
/* MAAS checked first (a wrong URL or key is exit 3, every node as it was),
 * then every node prepared and driven to Deployed or a reason, into run
 * (zeroed by the caller). o->maas.key is set to the resolved key. Nonzero when
 * the run stopped (st->exit set). */
int stg_enlist_stage_run(struct stg_stage *st, struct stg_enlist_stage_options *o,
			 struct stg_enlist_stage *run);
/* The run as `--json` prints it (new reference) and as a table on stdout. */
json_t *stg_enlist_stage_json(const void *run);
void stg_enlist_stage_print(const void *run);
/* Frees run's contents (one round's), leaving it empty for the next. */
void stg_enlist_stage_run_release(struct stg_enlist_stage *run);
/* Frees run's contents and what o holds (inputs, key, lists). */
void stg_enlist_stage_release(struct stg_enlist_stage *run, struct stg_enlist_stage_options *o);

#endif
