/*
 * lifecycle — when a machine that keeps failing leaves the flow. The
 * inventory counts a node's attempts (each time it goes into failed or
 * quarantined from another state; inventory.h inv_node.attempts); a node
 * whose count reaches its profile's [lifecycle] max_attempts is retired
 * here, once, when the stage that failed it closes (stg_stage_close), with
 * a reason built from its history in the events table. A retired node is
 * picked by no stage until `bringup unretire`; the tickets stage files one
 * `retired` ticket for it, which closes its other tickets.
 *
 * Ownership: every char * returned is the caller's.
 */
#ifndef STAGES_LIFECYCLE_H
#define STAGES_LIFECYCLE_H

#include "stage.h"

/* The short cause of a failed or quarantined event's reason: the first
 * check a quarantine names ("psu"), or a failure's reason up to its first
 * ':' (at most 40 characters). Caller frees. */
char *stg_lifecycle_cause(const char *reason);
/* "3rd failure in 9 days (psu; psu; psu)": attempts (the node's count) and
 * the causes and dates of its attempts in ev (a node's events, oldest
 * first), counted since it was last unretired. Caller frees. */
char *stg_lifecycle_summary(const struct inv_event *ev, size_t n, int attempts);
/* Every attempt since it was last unretired, "DATE STATE (cause)" joined
 * with "; "; NULL when there is none. Caller frees. */
char *stg_lifecycle_history(const struct inv_event *ev, size_t n);
/* Whether node must be retired: failed or quarantined max_attempts times. */
int stg_lifecycle_due(const struct inv_node *node, int max_attempts);
/* Retire each of hostnames that is due under its profile (read fresh from
 * the inventory), with the summary and "return to vendor" as its reason.
 * Returns how many were retired; a node that cannot be read or moved is
 * logged and left as it is. */
size_t stg_lifecycle_retire_due(struct inv *inv, struct stg_profiles *profiles, const struct inv_node *nodes,
				size_t n);

/* ---- bringup retire / unretire: an operator's word ------------------------ */

enum stg_lifecycle_op { STG_LIFECYCLE_RETIRE, STG_LIFECYCLE_UNRETIRE };

struct stg_lifecycle_result {
	const char *hostname; /* borrowed from the stage's nodes */
	const char *from;     /* the state it was in (static) */
	int rc;		      /* 0, or why not in message */
	char *message;	      /* the reason recorded, or the error */
	size_t tickets_closed;
};

struct stg_lifecycle_run {
	enum stg_lifecycle_op op;
	struct stg_lifecycle_result *items;
	size_t n, failed;
};

/* Retire (to `retired`, reason "retired by operator: TEXT") or unretire
 * (inv_node_unretire: back to `new`, attempts 0, its tickets closed) each
 * of the stage's nodes; reason may be NULL. A node already retired is left
 * as it is; one not retired cannot be unretired (counted in run->failed). */
void stg_lifecycle_apply(struct stg_stage *st, enum stg_lifecycle_op op, const char *reason,
			 struct stg_lifecycle_run *run);
json_t *stg_lifecycle_json(const void *run);
void stg_lifecycle_print(const void *run);
void stg_lifecycle_run_release(struct stg_lifecycle_run *run);
/* The main of bringup-retire and bringup-unretire. */
int stg_lifecycle_main(enum stg_lifecycle_op op, int argc, char **argv);

#endif
