/*
 * bmcopts — the options every stage that talks to BMCs takes (scheme, TLS,
 * timeouts, retries, caps), with their environment defaults, in one place.
 */
#ifndef STAGES_BMCOPTS_H
#define STAGES_BMCOPTS_H

#include "common.h"
#include "inventory/inventory.h"
#include "redfish/redfish.h"

struct stg_bmc_opts {
	const char *scheme; /* http or https */
	const char *ca_file;
	int insecure;
	int timeout_s;
	int retries;
	int per_bmc;
	int max_inflight;
	int basic_auth;
	int ipmi_parallel;
	int deadline_s; /* one BMC overall; 0: the profile's [time_limits] for the stage */
};

/* A BMC's deadline when neither --bmc-deadline nor the profile says. */
#define STG_DISCOVER_DEADLINE_S 600
#define STG_CONFIGURE_DEADLINE_S 3600
#define STG_BMC_DEADLINE_MAX_S (7 * 24 * 3600)

/* clang-format off: a table reads best one entry per line */
/* Entries for a struct br_option table (no terminator). */
#define STG_BMC_OPTIONS(o)                                                                                   \
	{ "bmc-scheme",	 0,                                                                                  \
	  BR_OPT_STRING, &(o)->scheme,                                                                       \
	  "http|https",	 "BMC URL scheme (default $BRINGUP_BMC_SCHEME or https)" },                          \
	    { "ca-file",     0,	     BR_OPT_STRING,                                                          \
	      &(o)->ca_file, "PATH", "CA bundle for BMC certificates (default $BRINGUP_CA_FILE)" },          \
	    { "insecure", 'k', BR_OPT_FLAG, &(o)->insecure, NULL, "do not verify BMC TLS certificates" },    \
	    { "timeout",       't',	  BR_OPT_INT,                                                        \
	      &(o)->timeout_s, "SECONDS", "per-request timeout (default $BRINGUP_BMC_TIMEOUT or 15)" },      \
	    { "retries",     0,	  BR_OPT_INT,                                                                \
	      &(o)->retries, "N", "retries on timeouts, resets, 5xx (default $BRINGUP_BMC_RETRIES or 5)" },  \
	    { "per-bmc", 0, BR_OPT_INT, &(o)->per_bmc, "N", "requests in flight per BMC (default 4)" },      \
	    { "max-inflight",	  0,   BR_OPT_INT,                                                           \
	      &(o)->max_inflight, "N", "requests in flight overall (default 512)" },                         \
	    { "basic-auth",	0,    BR_OPT_FLAG,                                                           \
	      &(o)->basic_auth, NULL, "use HTTP basic auth instead of Redfish sessions" },                   \
	    { "ipmi-parallel",	   0,	BR_OPT_INT,                                                          \
	      &(o)->ipmi_parallel, "N", "ipmitool processes at once (default 16)" },                         \
	{                                                                                                    \
		"bmc-deadline", 0, BR_OPT_INT, &(o)->deadline_s, "SECONDS",                                  \
		    "give up on one BMC after this long in all (default $BRINGUP_BMC_DEADLINE, else the "    \
		    "node profile's "                                                                        \
		    "[time_limits] for the stage, else 600 discover, 3600 configure)"                        \
	}
/* clang-format on */

/* Defaults, then the environment (BRINGUP_BMC_SCHEME, BRINGUP_CA_FILE,
 * BRINGUP_BMC_TIMEOUT, BRINGUP_BMC_RETRIES: `bringup run` passes them to
 * every stage that takes them, as it does the flags). Returns 0, or
 * STG_EXIT_USAGE after saying what is wrong. */
int stg_bmc_opts_init(struct stg_bmc_opts *o, const char *prog);
/* After option parsing: check the values and fill the client options.
 * Returns 0 or STG_EXIT_USAGE. */
int stg_bmc_opts_finish(struct stg_bmc_opts *o, const char *prog, struct rf_options *ropts);

/* A node's BMC deadline in ms: --bmc-deadline, else profile_s (the
 * profile's [time_limits] for the stage, 0 when it states none), else
 * default_s. */
long stg_bmc_deadline_ms(const struct stg_bmc_opts *o, int64_t profile_s, int default_s);

/* The reason a node fails with when its BMC refused or failed (rc, msg):
 * what the technician fixes first (credentials), and what to do when the
 * BMC's certificate was not trusted. Caller frees. */
char *stg_bmc_failure_reason(int rc, const char *msg);
/* Why a BMC's error failed its node, from the client's code (BR_E_AUTH:
 * bmc_auth, RF_E_DEADLINE: bmc_deadline, ...). */
enum br_fail_kind stg_bmc_failure_kind(int rc);

/* How to reach a node's BMC: its password resolved from the reference, its
 * address split into host and port (0 when absent), and its base URL. On
 * failure returns nonzero, sets *ret_reason (caller frees) to why, and
 * leaves the other outputs as they were. */
int stg_bmc_endpoint(const struct inv_node *node, const char *scheme, char **ret_password, char **ret_host,
		     int *ret_port, char **ret_base_url, char **ret_reason);

struct stg_stage;

/* Redfish sessions kept in the inventory (stages/bmcsessions.c): ro's
 * session hooks record each session's URI in inv before it is used and
 * forget it once deleted (a worker process passes its own connection). */
void stg_bmc_sessions_record(struct rf_options *ro, struct inv *inv);
/* Sessions reclaimed per BMC per stage, and how long one BMC may take. */
#define STG_BMC_RECLAIM_PER_BMC 64
#define STG_BMC_RECLAIM_DEADLINE_MS 10000
/* Once per stage, before its first BMC: DELETE the sessions that earlier
 * runs on this host left recorded (their process is gone: a SIGKILL, a
 * power cut), on every node of the inventory, over basic auth; forget
 * those deleted or gone. A BMC that does not answer keeps its rows for the
 * next run; nothing here fails the stage. Not for viewers or dry runs. */
void stg_bmc_sessions_reclaim(struct stg_stage *st, const struct stg_bmc_opts *o,
			      const struct rf_options *ro);

/* Every distinct BMC password reference of the stage's nodes (those
 * `wanted` keeps; all when it is NULL) resolved once, before any node is
 * touched: an unset variable or an unreadable file is the operator's to
 * fix, and would otherwise fail each node naming it, one by one, into
 * tickets. 0, or STG_EXIT_USAGE after listing each one on stderr. */
int stg_bmc_secrets_check(struct stg_stage *st,
			  int (*wanted)(const struct stg_stage *st, const struct inv_node *node));

#endif
