/*
 * stage — what every stage executable shares: exit codes, finding the
 * templates, opening the inventory with a clear error, selecting nodes, and
 * the skeleton each stage's main() follows:
 *
 *     struct stg_stage st = { 0 };
 *     const struct br_command cmd = { ..., options, &st.common };
 *
 *     if (stg_stage_parse(&st, &cmd, argc, argv) || check(&st, ...) || stg_stage_open(&st, states))
 *             return stg_stage_close(&st);
 *     if (!run(&st, &run))
 *             stg_stage_report(&st, run_json, run_print, &run, run.failed);
 *     run_release(&run);
 *     return stg_stage_close(&st);
 *
 * Every step that can stop the stage returns nonzero with st.exit set to
 * the exit code, and stg_stage_close returns it.
 */
#ifndef STAGES_STAGE_H
#define STAGES_STAGE_H

#include "common.h"
#include "inventory/inventory.h"
#include "validators/rules.h"

/* Exit codes (README.md, man/bringup.1). */
enum stg_exit {
	STG_EXIT_OK = 0,	  /* all done */
	STG_EXIT_NODES = 1,	  /* some nodes failed or were quarantined */
	STG_EXIT_USAGE = 2,	  /* bad usage or input */
	STG_EXIT_UNREACHABLE = 3, /* a required service cannot be reached */
};

/* The version of each --json document's schema, its "schema_version" key
 * (docs/schema/NAME.schema.json, whose "$id" ends in it): raised when a
 * key goes away or changes meaning; a key added is documented in the
 * schema without a new version. */
#define STG_SCHEMA_STATUS 1
#define STG_SCHEMA_TICKETS 1
#define STG_SCHEMA_RUN 1
#define STG_SCHEMA_EXPORT 1
#define STG_SCHEMA_CONTROLLER 1 /* a pass line of bringup controller --json */

/* The templates directory: $BRINGUP_TEMPLATES, else the installed
 * share/bringup/templates beside the executable, else the source tree's
 * templates/. Caller frees; NULL if none is found. */
char *stg_templates_dir(void);

/* Open the inventory named by --db; logs the error. Returns 0 or an exit
 * code: STG_EXIT_USAGE for a database that is not there (read-only opens
 * create none), else STG_EXIT_UNREACHABLE. */
int stg_stage_open_inventory(const char *path, struct inv **ret_inv);
/* Whether path is an inventory file that this user cannot write (or
 * whose directory it cannot: the journal goes beside it), or one that is
 * not there at all, which only a viewer's open names (a command that
 * lists must not make an empty inventory). A database URI is not. */
int stg_inventory_readonly_here(const char *path);
/* The same with inv_open_with's flags (INV_OPEN_READONLY). A read-only
 * open of an inventory at an older schema that this user may write
 * migrates it (a read-write open) instead of refusing it. */
int stg_stage_open_inventory_with(const char *path, unsigned flags, struct inv **ret_inv);

/* Pick nodes for a stage: those named in argv[argi..] (all must exist), or
 * every node whose state is in `states` (terminated by -1); with a zone
 * (NULL: every zone) only that zone's nodes, and naming a node of another
 * zone is a mistake. Caller frees with inv_nodes_free. Returns 0 or an exit
 * code (STG_EXIT_USAGE for an unknown host name or one of another zone). */
int stg_stage_select(struct inv *inv, int argc, char **argv, int argi, const int *states, const char *zone,
		     struct inv_node **ret_nodes, size_t *ret_n);

/* ---- which stage takes which node ------------------------------------------
 * Each pipeline stage advances nodes in some states (discover: new and
 * failed; configure: discovered; enlist: configured, enlisted and failed,
 * with --skip-configure discovered too; validate: deployed; gate:
 * validated, golden, quarantined); a failed node goes back to the stage it
 * failed in. Named on its command line, configure and validate also take
 * a node they already passed (stg_stage_named_states). Commands that read
 * (tickets, status, report, history) take every state. */

/* Every state, terminated by -1: for commands over the whole inventory
 * (status, report, tickets, retire, unretire). */
extern const int stg_all_states[];
/* The states `stage` ("discover", ...) takes, terminated by -1 (static);
 * stg_all_states for any other command. */
const int *stg_stage_states(const char *stage, int skip_configure);
/* The states a node named on `stage`'s command line may be in: its states,
 * and for configure and validate those it converges over when run again
 * (configured; validated, golden, quarantined) and failed (in that stage). */
const int *stg_stage_named_states(const char *stage, int skip_configure);
/* The pipeline stage a failed node failed in ("discover", "configure",
 * "enlist", "validate"; static), from the state its events say it was
 * failed from, else its failure kind; NULL when the node is not failed or
 * nothing says. */
const char *stg_failed_in(struct inv *inv, const struct inv_node *node, int skip_configure);
/* Whether stage, taking `states`, advances node: its state is one of them,
 * and a failed node is taken only by the stage it failed in (or by any
 * when nothing says where). */
int stg_stage_takes(struct inv *inv, const char *stage, const int *states, const struct inv_node *node);

/* ---- the stage skeleton ------------------------------------------------------ */

struct stg_bmc_opts;
struct rf_options;

struct stg_stage {
	struct br_common_opts common; /* --db, --json, -v, -q: the command's common */
	const struct br_command *cmd;
	int argc;
	char **argv;
	int argi;		/* first operand (host names) */
	struct inv *inv;	/* open after stg_stage_open */
	struct inv_node *nodes; /* selected by stg_stage_open */
	size_t n;
	int exit;     /* enum stg_exit once the stage stops or reports */
	int no_lease; /* read-only run (a dry run): take no per-node leases */
	/* Not a pipeline stage (status, retire, unretire): a retired node may
	 * be named on the command line (otherwise that stops the stage with
	 * STG_EXIT_USAGE), and closing retires nobody. */
	int allow_retired;
	/* A viewer (status, history, report, tickets listing): the inventory
	 * opened INV_OPEN_READONLY and no leases taken, so a user who may
	 * only read the database sees it; a missing one is STG_EXIT_USAGE. */
	int readonly;
	/* A pipeline stage that writes only its selected nodes' rows
	 * (discover, firmware, configure, enlist, validate, gate): given
	 * --zone, its writers wait only for writers of its zones and of none
	 * (inv_set_writer_zones), so one controller per zone shares one
	 * PostgreSQL. The others (import, tickets, reprovision, retire,
	 * credentials) write alone as before. */
	int zoned_writes;
	/* The Redfish sessions earlier, killed runs left have been deleted
	 * (stg_bmc_sessions_reclaim: once per stage, not per round). */
	int sessions_reclaimed;
	/* Set by a stage that talks to BMCs in rounds (discover, configure):
	 * its first round, once it may touch nodes (in follow mode after the
	 * driver's go), reclaims them with these options, whether or not any
	 * node is ever ready for it. NULL: not done. */
	const struct stg_bmc_opts *reclaim_bmc;
	const struct rf_options *reclaim_rf;
	/* The first write the inventory refused (a full disk, an I/O error):
	 * what the stage did is not all recorded, so it ends with
	 * STG_EXIT_UNREACHABLE (stg_stage_unwritable); owned. */
	char *inventory_error;
	size_t unrecorded; /* nodes whose outcome was not recorded */
	/* Nodes left out because another live run holds them (their lease):
	 * this run did not do what it was asked, so it does not exit 0
	 * (stg_stage_close), and its --json says which (stg_stage_report). */
	struct br_strlist held;
	char *held_by; /* the first holder, as the inventory describes it (owned) */
	/* Follow mode (--follow-fd FD, bringup run): the rounds stg_stage_round
	 * gives, the nodes already taken, the worst round's exit code. */
	int follow_fd;
	/* The name the stage's leases are held under, when not its own: one
	 * no stage of the flow knows is never yielded to the next stage; the
	 * stage gives each node's back when it is done with it (discover with
	 * a wiring list: a node stored discovered is not configure's before
	 * its cabling judgement before PXE). NULL: cmd->name. */
	const char *lease_as;
	/* Set by a stage whose inputs depend on the nodes it picked (configure:
	 * the profiles they name): called with those nodes before any of them
	 * is leased, in stg_stage_open and at each round of follow mode, so an
	 * operator's mistake touches nothing. Nonzero (STG_EXIT_USAGE for a bad
	 * input, having said why) stops the stage; inputs_ctx is passed on. */
	int (*inputs_check)(const struct inv_node *nodes, size_t n, void *ctx);
	void *inputs_ctx;
	int rounds;
	struct br_strlist taken;
	int worst;
	/* Rounds side by side (follow mode, set by the stage before its first
	 * round): the stage's cap on nodes in flight (enlist: --max-parallel).
	 * Each round then runs in a child process of its own, while this one
	 * takes the next; a round is given round_share of the cap, what the
	 * rounds still running leave, so a node stuck in one round holds only
	 * its own slot. 0: one round after another. */
	int round_slots;
	int round_share;
	int in_round_child;
	struct stg_round_child *children;
	size_t n_children;
};

/* Follow mode, for bringup run's flow (docs/operating.md): a table entry
 * for the pipeline stages (discover, configure, enlist, validate, gate). */
#define STG_FOLLOW_OPTION(st)                                                                                \
	{                                                                                                    \
		"follow-fd", 0, BR_OPT_INT, &(st)->follow_fd, "FD",                                          \
		    "for bringup run: keep taking nodes as they become ready until FD reads end of file"     \
	}
/* How often a following stage with nothing to do reads the inventory again. */
#define STG_FOLLOW_POLL_MS 200

/* Logging and options (cmd->common must be &st->common). Nonzero: stop
 * (--help: exit 0; a bad option: STG_EXIT_USAGE). Alone, --options-json
 * prints the option table (br_opt_table_json) and stops with exit 0: how
 * bringup run learns which options the stage takes. */
int stg_stage_parse(struct stg_stage *st, const struct br_command *cmd, int argc, char **argv);
/* Open the inventory (--db), select the nodes (those named on the command
 * line, else those in states, terminated by -1) and take their leases
 * (stg_stage_lease) unless st->no_lease. NULL states: open only. A retired
 * node named stops it (STG_EXIT_USAGE) unless st->allow_retired. A named
 * node the stage does not take (stg_stage_takes; the stage is cmd->name
 * less "bringup-") stops it before any node is touched, each such node
 * logged with the stage that would take it, unless --force: then its
 * events say so (inv_node_forced). In follow mode it first reads the
 * driver's skip list from FD ("-HOST" lines, then "."): those nodes count as
 * taken for the whole run, selected by no round (bringup controller: the
 * nodes at rest). Nonzero: stop (STG_EXIT_UNREACHABLE, or STG_EXIT_USAGE for
 * an unknown host name, a node out of turn or no skip list). */
int stg_stage_open(struct stg_stage *st, const int *states);
/* The stage's rounds: call it before each; nonzero: work st->nodes. The
 * first call gives what stg_stage_open picked. Without --follow-fd (or with
 * hosts named) that is the only round. In follow mode each later call
 * closes the round before (retirement as stg_stage_close, leases given
 * back, its nodes remembered: a node is taken once per run), then waits
 * (stg_stage_wait) until nodes this stage takes and has not taken appear,
 * leased, or the driver closes FD (every stage upstream ended) and none
 * are ready: then 0. A round that stopped the stage (exit 2 or more, a
 * signal caught) ends it. The first call in follow mode writes "ready" on
 * FD and waits for the driver's go ahead, so that every stage's operator
 * errors stop the run before any of them touches a node. */
int stg_stage_round(struct stg_stage *st, const int *states);
/* Wait until nodes may have become ready for a following stage, or FD
 * ends: the one wake-up (an inventory read every STG_FOLLOW_POLL_MS for
 * now). 1 when FD has ended, else 0. */
int stg_stage_wait(struct stg_stage *st);
/* "NAME: message" on stderr and stop with STG_EXIT_USAGE; returns it. */
int stg_stage_usage(struct stg_stage *st, const char *fmt, ...) BR_PRINTF(2, 3);
/* Log the error and stop with exit_code; returns it. */
int stg_stage_fail(struct stg_stage *st, int exit_code, const char *fmt, ...) BR_PRINTF(3, 4);
/* Print the outcome: with --json the document to_json(run) gives (with
 * "held_elsewhere": the nodes another run holds, when there are any), else
 * (unless -q) print(run). Sets the exit code: STG_EXIT_NODES when any node
 * failed, else STG_EXIT_OK; stg_stage_close makes an exit 0 STG_EXIT_NODES
 * when nodes were held elsewhere. */
void stg_stage_report(struct stg_stage *st, json_t *(*to_json)(const void *run),
		      void (*print)(const void *run), const void *run, size_t failed);
/* The database's work so far for this command and its workers
 * (inv_db_counts), the "db" object of a pipeline stage's --json (and
 * import's): {"backend", "statements", "round_trips", "commits",
 * "rows_changed", "rows_read", "bytes_bound"}; a new reference. inv may
 * be NULL (no backend named). */
json_t *stg_db_json(const struct inv *inv);
/* A write the inventory refused for n nodes (n may be 0: a note, an
 * event): logged, the first message kept, and the stage's exit becomes
 * STG_EXIT_UNREACHABLE once it reports (stg_stage_report,
 * stg_stage_close). A refusal that is a node's own (another run moved it:
 * BR_E_STATE) is not the inventory's: callers pass only BR_E_DB and I/O
 * errors (stg_inventory_refused). */
void stg_stage_unwritable(struct stg_stage *st, size_t n, const char *msg);
/* Whether err is the inventory's own failure (a full disk, I/O, a broken
 * database), not a refusal of one node. */
int stg_inventory_refused(const struct br_err *err);
/* For stages that hold BMC sessions: catch SIGTERM and SIGINT (loop.h),
 * so their run can log out before the stage ends. Nonzero: stop. */
int stg_stage_catch_signals(struct stg_stage *st);
/* After the run: when a signal was caught, say so and stop with 128 + its
 * number, as a shell reports a process killed by it. */
void stg_stage_interrupted(struct stg_stage *st);
/* Retire the stage's nodes that it failed or quarantined once too often
 * (lifecycle.h; not for a run that took no leases nor one that allows
 * retired nodes), free the nodes, give
 * back the leases, close the inventory; returns st->exit. */
int stg_stage_close(struct stg_stage *st);

/* The inventory's form of rule verdicts: a new array (inv_checks_free),
 * strings copied. */
struct inv_check *stg_checks_from_val(const struct val_check *checks, size_t n);
/* The rules' form of the inventory's checks, to judge them (rules_gate.c):
 * a new array the caller frees with free(), its strings borrowed from
 * checks (never val_checks_free it). */
struct val_check *stg_checks_view_val(const struct inv_check *checks, size_t n);
/* Take the per-node lease (inventory.h) on each picked node for `stage`,
 * so no other stage works it meanwhile, and re-read it under the lease. A
 * node another live stage holds is dropped with a warning naming the
 * holder; with `states` (nodes picked by state, not named), a node whose
 * state moved out of them meanwhile is dropped too. nodes is compacted in
 * place and *n lowered. 0, or STG_EXIT_UNREACHABLE when the inventory
 * fails. */
int stg_stage_lease(struct inv *inv, const char *stage, const int *states, struct inv_node *nodes, size_t *n);
/* The same, telling st of each node another live run holds (st->held). */
int stg_stage_lease_for(struct stg_stage *st, const char *stage, const int *states);
/* Give back the leases of stg_stage_lease (inv may be NULL); logs a failure. */
void stg_stage_release(struct inv *inv);

/* ---- profiles, each loaded once per run --------------------------------- */

struct stg_profiles {
	char *templates;	     /* stg_templates_dir() */
	struct prof_profile **items; /* stable addresses */
	size_t n;
};
/* The profile called name, loaded on first use. NULL with err (FILE:LINE
 * for a bad file, BR_E_NOTFOUND for an unknown profile or no templates). */
const struct prof_profile *stg_profiles_get(struct stg_profiles *ps, const char *name, struct br_err *err);
void stg_profiles_release(struct stg_profiles *ps);

#endif
