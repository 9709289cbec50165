/*
 * redfish — read (and later configure) BMCs over DMTF Redfish, many at once,
 * on one libcurl multi handle; plus the IPMI fallback through ipmitool.
 *
 * The client walks @odata.id links from /redfish/v1 and never hard-codes a
 * path below it. Vendor quirks (Dell iDRAC, HPE iLO) live in one small place
 * per vendor (redfish/vendor_*.c). It knows no database: results are handed
 * to the caller as struct br_hw records (common/hw.h).
 *
 * Ownership: targets and options are borrowed for the duration of the call.
 * The br_hw passed to a done callback belongs to the library and is released
 * when the callback returns; copy what you keep.
 */
#ifndef BRINGUP_REDFISH_H
#define BRINGUP_REDFISH_H

#include "common.h"

/* Caps on what a BMC may send us. */
#define RF_BODY_MAX (8u * 1024 * 1024)	 /* one response body */
#define RF_MEMBERS_MAX 4096		 /* members of one collection, all pages */
#define RF_PAGES_MAX 64			 /* nextLink pages of one collection */
#define RF_JSON_VALUES_MAX (256u * 1024) /* JSON values in one body, counted before parsing */
#define RF_REQUESTS_MAX 2000		 /* requests spent on one BMC in one walk */
/* After SIGTERM/SIGINT or a BMC's deadline, how long its session DELETE
 * may take before the run gives up on it (keep it short). */
#define RF_INTERRUPT_GRACE_MS 5000

/* Error codes beyond common's (all negative). */
enum rf_errcode {
	RF_E_HTTP = -100,	 /* a non-success HTTP status; message carries it */
	RF_E_NO_REDFISH = -101,	 /* /redfish/v1 absent: try IPMI */
	RF_E_DEADLINE = -102,	 /* the BMC's deadline passed while it was still answering */
	RF_E_NO_HOST_MAC = -103, /* the BMC showed no host NIC MAC */
	RF_E_TLS = -104,	 /* the BMC's certificate was not trusted */
	RF_E_NOT_APPLIED = -105, /* a BIOS job or boot order had not taken after the reset */
};

struct rf_target {
	const char *name;     /* hostname, for logs and reasons */
	const char *base_url; /* "https://10.0.0.5" or "http://127.0.0.1:8001" */
	const char *user;
	const char *password; /* never logged */
	void *user_data;
	long deadline_ms; /* this BMC, first request to logout; 0: opts' bmc_deadline_ms */
	/* Which System is this host where one BMC manages several (the
	 * manifest's `system`): its Id or @odata.id. NULL: the one host the
	 * BMC shows; several without it fail the node naming them. */
	const char *system;
	/* Dell: enable Connection View (the iDRAC attribute
	 * SwitchConnectionView.1.Enable) where it is off, so the BMC reads its
	 * host ports' LLDP (the profile's [discover] connection_view). */
	int enable_connection_view;
};

struct br_loop;

struct rf_options {
	int per_bmc_inflight;	 /* requests in flight per BMC; default 4 */
	int total_inflight;	 /* requests in flight overall; default 512 */
	long timeout_ms;	 /* one request, default 15000 */
	long connect_timeout_ms; /* default 5000 */
	int retries;		 /* per request on timeouts, resets, 5xx; default 5 */
	long backoff_ms;	 /* first retry delay, doubled each time with jitter; default 500 */
	long backoff_max_ms;	 /* default 30000 */
	const char *ca_file;	 /* NULL: system store */
	int insecure;		 /* skip TLS verification, only when asked */
	int use_sessions;	 /* 1: X-Auth-Token sessions (default); 0: basic auth */
	int use_expand;		 /* 1: use $expand where advertised (default) */
	/* One BMC, from its first request: past it the node fails with
	 * "deadline of N s passed" and its logout gets RF_INTERRUPT_GRACE_MS,
	 * so a tarpit BMC (each answer just inside the timeout) cannot hold
	 * the run. 0: none (default). */
	long bmc_deadline_ms;
	/* The event loop to run on (common/loop.h), shared with other clients
	 * of the process (MAAS, ipmitool, SSH), borrowed; the call runs it
	 * until its own BMCs are done, other work on it progressing meanwhile.
	 * NULL: the call makes a loop of its own (default). */
	struct br_loop *loop;
	/* Sessions as they are made and ended, so that the caller can record
	 * them and a later run DELETE those a killed one left
	 * (rf_sessions_delete_all): session_opened gets the session's URI
	 * (never its token) after the login, before the session is used;
	 * session_closed once its DELETE was answered, or the BMC said it has
	 * no such session (404). A session_opened that fails is logged, and
	 * the session is used and deleted at the end all the same. NULL:
	 * nobody is told. */
	int (*session_opened)(const struct rf_target *t, const char *uri, const char *pending, void *ctx,
			      struct br_err *err);
	void (*session_closed)(const struct rf_target *t, const char *uri, void *ctx);
	/* Before the login is sent: the pending "URI" RF_SESSION_PENDING
	 * followed by the Context (Session v1_5_0: "a client-supplied string
	 * that is stored with the session") the login carries, so that a run
	 * killed after the BMC made the session but before session_opened
	 * leaves something a later rf_sessions_delete_all finds it by.
	 * session_opened then gets the pending URI as well (to forget), and a
	 * login the BMC refused gets session_closed with it. A BMC that
	 * refuses the property (HTTP 400 naming it) is logged into again
	 * without it. NULL: no Context is sent. */
	int (*session_opening)(const struct rf_target *t, const char *pending, void *ctx, struct br_err *err);
	void *session_ctx;
};

/* A recorded session "URI" that stands for a login whose answer was not
 * yet seen: this prefix, then the Context the login carried. */
#define RF_SESSION_PENDING "context:"

void rf_options_init(struct rf_options *opts);

/* Called once per target, in completion order, from inside rf_discover_all.
 * rc is 0 or an error code; on error err names the BMC and the cause
 * ("bmc 10.0.0.5: HTTP 401 on https://10.0.0.5/redfish/v1/SessionService/Sessions:
 * Base.1.12.InsufficientPrivilege"). hw is never NULL; on error it holds
 * only what names the machine (br_hw_keep_identity: serials, model,
 * firmware, the BMC's MAC, no host MAC), which a stage may store so
 * tickets and status can name the machine. Resources other than the
 * service root and the host System that could not be read do not fail a
 * target: they are listed in hw->unreadable.
 * The callback runs as soon as the walk ends; the session DELETE follows,
 * and rf_discover_all returns only after every DELETE has finished. */
typedef void (*rf_done_fn)(const struct rf_target *target, int rc, struct br_hw *hw, const struct br_err *err,
			   void *ctx);

/* Discover every target concurrently. Returns 0 when the run itself worked
 * (individual BMC failures go to the callback), or an error for a run that
 * could not start (curl init, bad CA file). */
int rf_discover_all(const struct rf_target *targets, size_t n, const struct rf_options *opts, rf_done_fn done,
		    void *ctx, struct br_err *err);

/* ---- sessions an earlier run left (redfish/reclaim.c) -----------------------
 *
 * DELETE each session URI on its BMC (DSP0266: a session ends with a
 * DELETE of its URI, which an Administrator may send for any session),
 * with HTTP basic auth, so reclaiming takes no session slot of its own:
 * the BMC may be at its limit (iDRAC9: eight, the ninth login answered 503
 * RAC0218) with the very sessions being reclaimed. No service root, no
 * login, nothing else sent. A URI that does not lead to the target's own
 * BMC is refused unsent (its credentials go nowhere else).
 */
struct rf_session_target {
	struct rf_target target; /* first member: callbacks hand the whole struct back */
	const char *const *uris; /* absolute, as the login's Location resolved, or pending */
	size_t n_uris;
};

/* Once per URI answered: rc 0 when the session is gone (deleted now, or
 * 404: it expired or someone deleted it), else err says why (the BMC
 * unreachable, 401 for credentials changed since). A URI of a BMC that
 * passed its deadline first gets no call. A pending URI (RF_SESSION_PENDING)
 * is looked for among the BMC's sessions (DSP0266's fixed
 * /redfish/v1/SessionService/Sessions) by its Context and deleted: rc 0;
 * BR_E_NOTFOUND when no session carries it (the login made none, or the
 * BMC keeps no Context: what it made expires by itself), or when the
 * BMC refuses the credentials (401) the login carried too. */
typedef void (*rf_session_deleted_fn)(const struct rf_session_target *t, const char *uri, int rc,
				      const struct br_err *err, void *ctx);

/* Delete the sessions of every target concurrently (opts' caps, retries
 * and deadline). Returns 0 when the run itself worked, as rf_discover_all. */
int rf_sessions_delete_all(const struct rf_session_target *targets, size_t n, const struct rf_options *opts,
			   rf_session_deleted_fn done, void *ctx, struct br_err *err);

/* ---- configure (redfish/config*.c) ------------------------------------------
 *
 * Bring each BMC's system to a BIOS baseline and PXE boot, the iDRAC way:
 * GET the System (links from the service root), its Bios (attributes) and
 * the Bios @Redfish.Settings SettingsObject (ETag); PATCH the attributes
 * that differ into the settings object with If-Match and
 * @Redfish.SettingsApplyTime OnReset; take the config job from the
 * Location header, else POST the Manager's (Oem.Dell) Jobs collection with
 * TargetSettingsURI; reset the system (GracefulRestart, ForceRestart after
 * graceful_ms; at most max_resets systems between reset and job end at
 * once); poll the job until Completed or Failed; re-read the Bios and
 * verify. Then PXE on the provisioning NIC first (the persistent BootOrder,
 * PATCHed on the System or its own SettingsObject, or a one-time
 * BootSourceOverrideTarget=Pxe), read back and verified. A system already
 * on the baseline gets no PATCH and no reset. With dry_run, only GETs.
 */

enum rf_boot_mode {
	RF_BOOT_PERSISTENT, /* the PXE device of pxe_nic first in BootOrder */
	RF_BOOT_ONCE,	    /* BootSourceOverrideTarget=Pxe, Enabled=Once */
};

/* What one system should look like (borrowed for the run). */
struct rf_config_spec {
	const struct br_kv *bios; /* attribute name -> value as text */
	size_t n_bios;
	const char *pxe_nic; /* FQDD a PxeDevNInterface names; NULL: boot left alone */
	enum rf_boot_mode boot_mode;
};

struct rf_config_target {
	struct rf_target target; /* first member: callbacks hand the whole struct back */
	const struct rf_config_spec *spec;
	/* the power feed the system draws from (NULL or "": none); at most
	 * max_resets_per_domain systems of one are between reset and job end */
	const char *power_domain;
};

struct rf_config_options {
	int dry_run;		   /* read and diff only */
	int max_resets;		   /* systems between reset and job end at once; default 8 */
	int max_resets_per_domain; /* of them, of one power domain; 0: no limit of its own */
	long poll_ms;		   /* job polling interval; default 5000 */
	long graceful_ms;	   /* GracefulRestart, then ForceRestart after this; default 120000 */
	long node_timeout_ms;	   /* one system, first request to verified; default 1800000 */
};

void rf_config_options_init(struct rf_config_options *o);

struct rf_config_change {
	char *name;
	char *current; /* as text; NULL when the BIOS has no such attribute */
	char *wanted;
};

/* What happened on one system; owned by the library, valid during the
 * callback only. */
struct rf_config_result {
	struct rf_config_change *bios; /* the diff found before any change */
	size_t n_bios;
	char *boot_current; /* boot diff ("BootOrder: a,b,c"); both NULL when right */
	char *boot_wanted;
	char *job;	   /* job URI, when one was made */
	char *job_state;   /* its last JobState */
	char *job_message; /* and Message */
	int bios_patched;  /* PATCHes of the BIOS settings sent */
	int resets;	   /* reset actions sent */
	int boot_patched;  /* boot PATCHes sent */
	int verified;	   /* read back after the changes, all holds */
};

/* rc 0: the system is on the spec (verified when anything changed; in a
 * dry run, res holds the diff). Otherwise err says why: the BMC's
 * MessageId and Message, or the job's Message. */
typedef void (*rf_config_done_fn)(const struct rf_config_target *target, int rc,
				  const struct rf_config_result *res, const struct br_err *err, void *ctx);

/* Configure every target concurrently on one loop (per-BMC and overall caps
 * from opts). Returns 0 when the run itself worked, as rf_discover_all. */
int rf_configure_all(const struct rf_config_target *targets, size_t n, const struct rf_options *opts,
		     const struct rf_config_options *copts, rf_config_done_fn done, void *ctx,
		     struct br_err *err);

/* ---- firmware updates (redfish/firmware*.c) ---------------------------------
 *
 * Update components of each BMC's machine, one after another in the order
 * given, the way its UpdateService offers (DMTF DSP0266 "Software update";
 * UpdateService v1_11_0): the image pushed as multipart/form-data to
 * MultipartHttpPushUri (parts UpdateParameters, application/json, and
 * UpdateFile) when the service has one, which needs nothing else on the
 * network; else #UpdateService.SimpleUpdate with an ImageURI on the site's
 * image server; else, on an iLO 5, its own HttpPushUri form (firmware_steps.c
 * says whose facts), followed by its UpdateService's Oem.Hpe state and the
 * inventory. Each asks for @Redfish.OperationApplyTime Immediate, and a
 * service that advertises (@Redfish.OperationApplyTimeSupport) only other
 * times is refused, never surprised. The Task the answer's Location names
 * (iDRAC9: TaskService/Tasks/JID_..., the Lifecycle Controller job of the
 * same id) is followed to its end; an Exception fails the machine with the
 * task's Messages. A BMC update restarts the BMC: its session ends with it,
 * so the rest goes over basic auth, and the BMC is waited for (bmc_return_ms)
 * until its FirmwareInventory shows the new version. Every other update is
 * read back from FirmwareInventory too.
 *
 * Never twice: before anything is sent the live FirmwareInventory is read
 * (a component it does not list is refused: nothing is sent for it), a
 * component already at its version is skipped, and a running Task of the
 * UpdateService whose Payload targets the component (an earlier, killed
 * run's) is followed instead of sending the image again.
 */

/* One update (borrowed for the run). */
struct rf_fw_update {
	const char
	    *component; /* FQDD: a FirmwareInventory member "Installed-…__FQDD", or one whose Id is it */
	const char *version;	    /* what the component reports once the image is applied */
	int restarts_bmc;	    /* the BMC's own firmware: wait for it to come back */
	const char *file_name;	    /* the image's file name (multipart filename) */
	const unsigned char *image; /* its bytes, already checked against the catalogue's SHA-256 */
	size_t image_len;
	const char *image_uri; /* on the site's image server, for SimpleUpdate; NULL: none */
	/* iLO's component signature beside it (its push form's compsig part); NULL: none */
	const char *sig_name;
	const unsigned char *sig;
	size_t sig_len;
};

#define RF_FW_GROUP_KINDS 2 /* a rack, a power domain */

struct rf_fw_target {
	struct rf_target target; /* first member: callbacks hand the whole struct back */
	const struct rf_fw_update *updates;
	size_t n_updates;
	/* Groups the machine belongs to, one of each kind (its rack, its
	 * power domain): it starts only while fewer than max machines of its
	 * group update (max 0: no limit of its own; it still counts for the
	 * others). name NULL or "": in no group of that kind. */
	struct rf_fw_group_limit {
		const char *name;
		int max;
	} groups[RF_FW_GROUP_KINDS];
};

struct rf_fw_options {
	int max_updates;	/* machines updating at once; default 4 */
	long poll_ms;		/* task polling interval; default 5000 */
	long task_timeout_ms;	/* one task, sent to its end; default 3600000 */
	long bmc_return_ms;	/* a restarted BMC back with its new version; default 900000 */
	const char *apply_time; /* @Redfish.OperationApplyTime asked for; default "Immediate" */
};

void rf_fw_options_init(struct rf_fw_options *o);

/* What became of one update (library-owned, valid during the callback). */
struct rf_fw_step {
	const char *component;
	char *from_version; /* as the BMC listed it before; NULL if it did not list it */
	char *version;	    /* as read back at the end */
	const char *method; /* "multipart", "simple", "ilo-push", "none" (already there), "resumed" (a running
			     task, or iLO's update under way, followed) */
	char *task;	    /* the task's URI */
	char *task_state;   /* its last TaskState */
	char *message;	    /* its Messages, joined */
	int sent;	    /* the image was sent (POSTed) in this run */
	int done;	    /* at its version, read back */
};

struct rf_fw_result {
	struct rf_fw_step *steps; /* one per update, in order */
	size_t n_steps;
	struct br_hw inventory; /* the last FirmwareInventory read (hw.firmware only) */
};

/* rc 0: every update is at its version, read back. Otherwise err says
 * why, naming the component and the BMC's or the task's message. */
typedef void (*rf_fw_done_fn)(const struct rf_fw_target *target, int rc, const struct rf_fw_result *res,
			      const struct br_err *err, void *ctx);
/* Called as an image is about to be sent (a journal, a progress line). */
typedef void (*rf_fw_sending_fn)(const struct rf_fw_target *target, const struct rf_fw_update *update,
				 const char *method, void *ctx);

/* Update every target, at most max_updates machines at once (and per
 * group, its max), each admitted in order as a slot frees up; the
 * others are not even logged in meanwhile. Returns 0 when the run itself
 * worked, as rf_discover_all. */
int rf_firmware_all(const struct rf_fw_target *targets, size_t n, const struct rf_options *opts,
		    const struct rf_fw_options *fopts, rf_fw_done_fn done, rf_fw_sending_fn sending,
		    void *ctx, struct br_err *err);

/* ---- BMC accounts (redfish/accounts.c) -------------------------------------
 *
 * Log in with the target's credentials and work on one ManagerAccount of
 * the AccountService (DMTF ManagerAccount): the account is found in the
 * Accounts collection by UserName. A login whose answer carries Base's
 * PasswordChangeRequired (DSP0266; Lenovo XCC's factory account) names the
 * account itself; that session may only PATCH its Password, and the
 * AccountService's policy cannot be read first.
 */

#define RF_ACCOUNTS_MAX 64 /* members of the Accounts collection read */

enum rf_account_op {
	RF_ACCOUNT_CHECK,	 /* the credentials log in and read the AccountService */
	RF_ACCOUNT_SET_PASSWORD, /* PATCH Password of account_user (default target.user) */
	RF_ACCOUNT_CREATE,	 /* POST account_user with role (default Administrator); PATCH it if there */
	RF_ACCOUNT_DISABLE,	 /* PATCH Enabled false on account_user */
};

/* The AccountService's password policy; 0 where it states none. */
struct rf_account_policy {
	int min_length, max_length;
};

struct rf_account_target {
	struct rf_target target; /* first member; logs in with its user and password */
	enum rf_account_op op;
	const char *account_user; /* the account worked on; NULL: target.user */
	const char *role;	  /* RF_ACCOUNT_CREATE: RoleId; NULL: Administrator */
};

/* What one BMC showed; the library's, valid during the callback only. */
struct rf_account_result {
	struct rf_account_policy policy; /* as read (zeros when unread) */
	int password_change_required;	 /* the login said so */
	char *account_url;		 /* the account worked on, when found */
	int changed;			 /* the PATCH or POST was accepted */
};

/* Asked once per SET_PASSWORD or CREATE target, after the policy was read
 * and just before the change is sent: the new password into *ret_password
 * (the caller's, valid until done is called for the target). Nonzero, with
 * err set, fails the target with nothing changed. */
typedef int (*rf_account_password_fn)(const struct rf_account_target *target,
				      const struct rf_account_policy *policy, const char **ret_password,
				      struct br_err *err, void *ctx);
typedef void (*rf_account_done_fn)(const struct rf_account_target *target, int rc,
				   const struct rf_account_result *res, const struct br_err *err, void *ctx);

/* Run every target concurrently on one loop (opts' caps), as rf_discover_all. */
int rf_accounts_all(const struct rf_account_target *targets, size_t n, const struct rf_options *opts,
		    rf_account_password_fn password, rf_account_done_fn done, void *ctx, struct br_err *err);

/* ---- IPMI fallback (redfish/ipmi.c), through ipmitool -I lanplus ---------- */

struct rf_ipmi_target {
	const char *name;
	const char *host;
	int port; /* 623 by default */
	const char *user;
	const char *password; /* handed to ipmitool through its environment, never argv */
	void *user_data;
};

typedef void (*rf_ipmi_done_fn)(const struct rf_ipmi_target *target, int rc, struct br_hw *hw,
				const struct br_err *err, void *ctx);

/* Read power state, FRU (serials, model), SDR (fans, temperatures, PSUs),
 * SEL and the BMC's LAN MAC of every target, running up to max_parallel
 * ipmitool processes at once. timeout_s bounds each ipmitool call. */
int rf_ipmi_discover_all(const struct rf_ipmi_target *targets, size_t n, int max_parallel, int timeout_s,
			 rf_ipmi_done_fn done, void *ctx, struct br_err *err);

/* The same, with options: loop (borrowed, may be NULL for one of its own)
 * is an event loop shared with other clients of the process; the call runs
 * it until its own BMCs are done, others' work progressing meanwhile. */
struct rf_ipmi_options {
	int max_parallel; /* ipmitool processes at once; <= 0: the default */
	int timeout_s;	  /* one ipmitool call; <= 0: the default */
	struct br_loop *loop;
	/* At most max_per_group BMCs of one group at once (<= 0: no limit of
	 * its own), the group a target's being group(target) (NULL or "":
	 * none); a BMC whose group is full is passed by later ones. */
	int max_per_group;
	const char *(*group)(const struct rf_ipmi_target *target);
};
int rf_ipmi_discover_opts(const struct rf_ipmi_target *targets, size_t n, const struct rf_ipmi_options *o,
			  rf_ipmi_done_fn done, void *ctx, struct br_err *err);

/* configure over IPMI: `chassis bootdev pxe options=persistent,efiboot`,
 * read back (bootparam 5 must say Force PXE), then `chassis power cycle`
 * (`power on` when off). At most max_parallel BMCs at once (and
 * max_per_group of one group), which is also how many power-cycle at once. hw in the callback holds the power
 * state and boot flags read. BIOS attributes cannot be set over IPMI. */
int rf_ipmi_pxe_all(const struct rf_ipmi_target *targets, size_t n, int max_parallel, int timeout_s,
		    rf_ipmi_done_fn done, void *ctx, struct br_err *err);
int rf_ipmi_pxe_opts(const struct rf_ipmi_target *targets, size_t n, const struct rf_ipmi_options *o,
		     rf_ipmi_done_fn done, void *ctx, struct br_err *err);

/* Credentials over IPMI (ipmitool's user commands), at most
 * o->max_parallel BMCs at once. rf_ipmi_password_set logs in as each
 * target's user, finds that user's ID in the BMC's user list (`-c user
 * list`) and sets its password to new_password, which reaches ipmitool on
 * stdin (`exec /dev/stdin`), never in argv; 1-16 printable characters
 * without blanks, quotes, backslashes or '#'. rf_ipmi_login_check only
 * logs in (and lists the users): rc BR_E_AUTH when the BMC refuses the
 * password. The callback's target is a copy of targets[i].target (its
 * user_data the caller's); its hw holds nothing. */
#define RF_IPMI_PASSWORD_MAX 16 /* Set User Password's 16-byte form (redfish/ipmi_private.h says why) */
struct rf_ipmi_user_target {
	struct rf_ipmi_target target;
	const char *new_password; /* borrowed; a secret */
};
int rf_ipmi_password_set(const struct rf_ipmi_user_target *targets, size_t n, const struct rf_ipmi_options *o,
			 rf_ipmi_done_fn done, void *ctx, struct br_err *err);
int rf_ipmi_login_check(const struct rf_ipmi_target *targets, size_t n, const struct rf_ipmi_options *o,
			rf_ipmi_done_fn done, void *ctx, struct br_err *err);

#endif
