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
 * enlist_job_release).
 */
#ifndef BRINGUP_ENLIST_H
#define BRINGUP_ENLIST_H

#include "common.h"
#include "inventory/inventory.h"
#include "maas/maas.h"
#include "profile/profile.h"

#define ENLIST_USER_DATA_MAX (64u * 1024) /* rendered user-data, before base64 */
#define ENLIST_PUBKEYS_MAX (16u * 1024)	  /* the --ssh-pubkey file: a few keys, one a line */
#define ENLIST_POLL_IDS_MAX 50		  /* machines read per list request while waiting */
#define ENLIST_EVENTS_MAX 1000	  /* events read per look (MAAS's MAX_EVENT_LOG_COUNT, api/events.py) */
#define ENLIST_EVENT_PAGES_MAX 10 /* full looks paged on in one tick; more: every waiting machine is read */
#define ENLIST_SWEEP_TICKS 20	  /* every Nth poll reads all waiting machines (timeouts, lost events) */
#define ENLIST_SWEEP_MIN_MS 10000 /* ... and never more often than this */
#define ENLIST_LOOKUPS_MAX 3	  /* create/lookup rounds before giving up on a node */

struct enlist_job {
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
void enlist_job_release(struct enlist_job *job);

struct enlist_options {
	int max_parallel;	       /* machines in flight at once; default 64 */
	int poll_ms;		       /* status poll interval while waiting; default 1000 */
	int64_t commission_timeout_ms; /* default 30 min */
	int64_t deploy_timeout_ms;     /* default 60 min */
	const char *distro_series;     /* default "jammy" */
	const char *storage_layout;    /* default "flat" */
	int events_max;		       /* events asked for per look; default ENLIST_EVENTS_MAX */
};
void enlist_options_init(struct enlist_options *opts);

struct enlist_callbacks {
	/* The machine exists in MAAS (created or adopted): store its id now, so
	 * a run killed after this point adopts it again. */
	void (*on_system_id)(void *ctx, struct enlist_job *job);
	/* Commissioned and Ready. */
	void (*on_ready)(void *ctx, struct enlist_job *job);
	/* Finished: kind BR_FAIL_NONE (deployed, installed on the wanted
	 * serial) or why it failed, with a reason that quotes MAAS. */
	void (*on_done)(void *ctx, struct enlist_job *job, enum br_fail_kind kind, const char *reason);
};

/* Drive every job to Deployed or a reason; jobs with done set are skipped. Returns 0 once all finished, or
 * an error when the loop itself broke. */
int enlist_run(struct maas_client *client, struct enlist_job *jobs, size_t n,
	       const struct enlist_options *opts, const struct enlist_callbacks *cb, void *ctx,
	       struct br_err *err);

/* ---- enlist_userdata.c ---------------------------------------------------- */

struct enlist_userdata_vars {
	const char *hostname;
	const struct br_strlist *ssh_pubkeys; /* one key a line; none: the list is left out */
	const struct br_strlist *ntp_servers;
	const struct br_strlist *packages;
};

/* Render template_path with @HOSTNAME@, @SSH_AUTHORIZED_KEYS@, @NTP_SERVERS@,
 * @PACKAGES@ (the last three as YAML list items) into *ret_text. With no
 * key, @SSH_AUTHORIZED_KEYS@ alone on its line drops that line and the
 * "key:" line above it. */
int enlist_render_userdata(const char *template_path, const struct enlist_userdata_vars *vars,
			   char **ret_text, struct br_err *err);
/* Standard base64 with padding; caller frees. */
char *enlist_base64(const char *data, size_t len);

/* ---- enlist_inputs.c ----------------------------------------------------- */

/* What every node's user-data is made of. */
struct enlist_inputs {
	char *templates;
	struct prof_profile *profiles; /* loaded as nodes name them */
	size_t n_profiles;
	struct br_strlist ssh_pubkeys; /* the key file's keys, one a line; none with --no-ssh-key */
	struct br_strlist ntp, packages;
};
/* ntp and packages are option values (each may hold a comma or space
 * separated list); empty: $BRINGUP_NTP_SERVERS or ntp.ubuntu.com, and
 * chrony lldpd nvme-cli pciutils. */
int enlist_inputs_load(struct enlist_inputs *in, const char *templates, const char *pubkey_path,
		       const struct br_strlist *ntp, const struct br_strlist *packages, struct br_err *err);
void enlist_inputs_release(struct enlist_inputs *in);

/* One node's part, owned by the record (enlist_node_inputs_release). */
struct enlist_node_inputs {
	struct br_strlist macs;
	char *power_pass; /* zeroed on release */
	char *boot_disk_serial;
	char *boot_disk_why; /* which clause or column chose it */
	char *user_data_b64;
	int64_t commissioning_s,
	    deployment_s;	     /* the profile's [time_limits] (its defaults if it will not load) */
	enum br_fail_kind fail_kind; /* why enlist_node_prepare failed */
};
/* Gather a node's inputs (loading its profile into in the first time one
 * is needed); an error's message is the reason to fail it. */
int enlist_node_prepare(struct inv *inv, const struct inv_node *node, struct enlist_inputs *in,
			struct enlist_node_inputs *ni, struct br_err *err);
void enlist_node_inputs_release(struct enlist_node_inputs *ni);

#endif
