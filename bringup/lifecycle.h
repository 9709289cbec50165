/*
 * lifecycle — when a machine that keeps failing leaves the flow. The
 * inventory counts a node's attempts (each time it goes into failed or
 * quarantined from another state; inventory.h inv_node.attempts); a node
 * whose count reaches its profile's [lifecycle] max_attempts is retired
 * here, once, when the stage that failed it closes (br_stage_close), with
 * a reason built from its history in the events table. A retired node is
 * picked by no stage until `bringup unretire`; the tickets stage files one
 * `retired` ticket for it, which closes its other tickets.
 *
 * Ownership: every char * returned is the caller's.
 */
#ifndef BRINGUP_LIFECYCLE_H
#define BRINGUP_LIFECYCLE_H

#include "stage.h"

/* The short cause of a failed or quarantined event's reason: the first
 * check a quarantine names ("psu"), or a failure's reason up to its first
 * ':' (at most 40 characters). Caller frees. */
char *br_lifecycle_cause(const char *reason);
/* "3rd failure in 9 days (psu; psu; psu)": attempts (the node's count) and
 * the causes and dates of its attempts in ev (a node's events, oldest
 * first), counted since it was last unretired. Caller frees. */
char *br_lifecycle_summary(const struct inv_event *ev, size_t n, int attempts);
/* Every attempt since it was last unretired, "DATE STATE (cause)" joined
 * with "; "; NULL when there is none. Caller frees. */
char *br_lifecycle_history(const struct inv_event *ev, size_t n);
/* Whether node must be retired: failed or quarantined max_attempts times. */
int br_lifecycle_due(const struct inv_node *node, int max_attempts);
/* Retire each of hostnames that is due under its profile (read fresh from
 * the inventory), with the summary and "return to vendor" as its reason.
 * Returns how many were retired; a node that cannot be read or moved is
 * logged and left as it is. */
size_t br_lifecycle_retire_due(struct inv *inv, struct br_profiles *profiles, const struct inv_node *nodes,
			       size_t n);

/* ---- bringup retire / unretire: an operator's word ------------------------ */

enum br_lifecycle_op { BR_LIFECYCLE_RETIRE, BR_LIFECYCLE_UNRETIRE };

struct br_lifecycle_result {
	const char *hostname; /* borrowed from the stage's nodes */
	const char *from;     /* the state it was in (static) */
	int rc;		      /* 0, or why not in message */
	char *message;	      /* the reason recorded, or the error */
	size_t tickets_closed;
};

struct br_lifecycle_run {
	enum br_lifecycle_op op;
	struct br_lifecycle_result *items;
	size_t n, failed;
};

/* Retire (to `retired`, reason "retired by operator: TEXT") or unretire
 * (inv_node_unretire: back to `new`, attempts 0, its tickets closed) each
 * of the stage's nodes; reason may be NULL. A node already retired is left
 * as it is; one not retired cannot be unretired (counted in run->failed). */
void br_lifecycle_apply(struct br_stage *st, enum br_lifecycle_op op, const char *reason,
			struct br_lifecycle_run *run);
json_t *br_lifecycle_json(const void *run);
void br_lifecycle_print(const void *run);
void br_lifecycle_run_release(struct br_lifecycle_run *run);
/* The main of bringup-retire and bringup-unretire. */
int br_lifecycle_main(enum br_lifecycle_op op, int argc, char **argv);

#endif
