/*
 * tickets — one datacenter ticket per (node, fault): what is wrong, where
 * (rack and U, serial), the evidence, and what a technician does about it,
 * worded by templates/tickets/actions.conf. The faults of a node are the
 * required checks that quarantined it (val_gate_failing) or the cause its
 * stage failed with (bmc_unreachable, bmc_auth, commission_failed, ...).
 * Tickets are kept in the inventory by (hostname, fault): a re-run updates
 * a ticket, never files a second, and a fault that is gone closes it.
 *
 * Ownership: struct stg_tickets_actions owns its entries (stg_tickets_actions_release);
 * every char * returned is the caller's.
 */
#ifndef STAGES_TICKETS_H
#define STAGES_TICKETS_H

#include "stage.h"
#include "ticketsys.h"
#include "webhook.h"

#define STG_TICKETS_ACTIONS_FILE_MAX (256u * 1024) /* actions.conf */
#define STG_TICKETS_ACTIONS_MAX 512		   /* lines in it */
#define STG_TICKETS_TEXT_MAX 4096		   /* one rendered action */

struct stg_tickets_action {
	char *fault; /* name or shell pattern */
	char *text;
};

struct stg_tickets_actions {
	struct stg_tickets_action *items;
	size_t n;
};

/* Parse actions.conf text (file names it in "FILE:LINE: message"). */
int stg_tickets_actions_parse(const char *file, const char *text, struct stg_tickets_actions *ret,
			      struct br_err *err);
/* Load templates_dir/tickets/actions.conf. */
int stg_tickets_actions_load(const char *templates_dir, struct stg_tickets_actions *ret, struct br_err *err);
void stg_tickets_actions_release(struct stg_tickets_actions *a);

/* What the placeholders stand for (borrowed; NULL prints as "?"). */
struct stg_tickets_vars {
	const char *hostname, *rack, *bmc, *serial, *service_tag, *fault, *evidence;
	int unit;
};

/* The action text for fault: the first line whose name matches, else
 * `default`, with {placeholders} filled; at most STG_TICKETS_TEXT_MAX chars. An
 * unknown placeholder is kept as written. Caller frees. */
char *stg_tickets_render(const struct stg_tickets_actions *a, const struct stg_tickets_vars *v);

/* The fault of a failed node: the kind its stage typed when it failed it
 * (br_fail_kind_name: bmc_auth, commission_failed, ...), stage_failed for
 * a node failed before kinds were kept. */
const char *stg_tickets_failure_fault(const struct inv_node *node);

/* The serial a technician finds the machine by: what its BMC reported,
 * else the manifest's expected serial (a BMC that never answered reported
 * nothing), else NULL. Borrowed from node. */
const char *stg_tickets_node_serial(const struct inv_node *node);

/* "rack R01 U17". Caller frees. */
char *stg_tickets_location(const char *rack, int unit);

enum stg_tickets_format { STG_TICKETS_MD, STG_TICKETS_JSON, STG_TICKETS_CSV };
/* Which tickets are listed (--state): the open ones by default. */
enum stg_tickets_list { STG_TICKETS_LIST_OPEN, STG_TICKETS_LIST_CLOSED, STG_TICKETS_LIST_ALL };
/* "open", "closed", "open and closed". */
const char *stg_tickets_list_name(enum stg_tickets_list list);

struct stg_tickets_run {
	struct inv_ticket_stats stats;
	struct inv_ticket *tickets; /* the listed ones, by rack, unit, hostname */
	size_t n;
	enum stg_tickets_list list;
	/* every node of the inventory, by hostname, for identities (serial,
	 * service tag): a ticket of a node not named this run keeps them. */
	struct inv_node *nodes;
	size_t n_nodes;
	enum stg_tickets_format format;
	size_t posted, post_failed; /* --post deliveries, or to the ticket system */
	/* Jira or ServiceNow instead of the webhook (kind set), borrowed. */
	const struct stg_ticketsys_options *sys;
};

/* Work out every node's faults, store them as tickets (not when
 * st->readonly: the tickets as last filed), list those run->list asks for;
 * with post (its url set), or run->sys, deliver every ticket version not
 * delivered yet (STG_EXIT_UNREACHABLE when some could not be). */
int stg_tickets_run(struct stg_stage *st, struct stg_tickets_run *run,
		    const struct stg_webhook_options *post);
json_t *stg_tickets_json(const void *run);
void stg_tickets_print(const void *run);
void stg_tickets_run_release(struct stg_tickets_run *run);

#endif
