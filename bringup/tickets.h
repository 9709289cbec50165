/*
 * tickets — one datacenter ticket per (node, fault): what is wrong, where
 * (rack and U, serial), the evidence, and what a technician does about it,
 * worded by templates/tickets/actions.conf. The faults of a node are the
 * required checks that quarantined it (gate_failing) or the cause its
 * stage failed with (bmc_unreachable, bmc_auth, commission_failed, ...).
 * Tickets are kept in the inventory by (hostname, fault): a re-run updates
 * a ticket, never files a second, and a fault that is gone closes it.
 *
 * Ownership: struct tkt_actions owns its entries (tkt_actions_release);
 * every char * returned is the caller's.
 */
#ifndef BRINGUP_TICKETS_H
#define BRINGUP_TICKETS_H

#include "stage.h"
#include "webhook.h"

#define TKT_ACTIONS_FILE_MAX (256u * 1024) /* actions.conf */
#define TKT_ACTIONS_MAX 512		   /* lines in it */
#define TKT_TEXT_MAX 4096		   /* one rendered action */

struct tkt_action {
	char *fault; /* name or shell pattern */
	char *text;
};

struct tkt_actions {
	struct tkt_action *items;
	size_t n;
};

/* Parse actions.conf text (file names it in "FILE:LINE: message"). */
int tkt_actions_parse(const char *file, const char *text, struct tkt_actions *ret, struct br_err *err);
/* Load templates_dir/tickets/actions.conf. */
int tkt_actions_load(const char *templates_dir, struct tkt_actions *ret, struct br_err *err);
void tkt_actions_release(struct tkt_actions *a);

/* What the placeholders stand for (borrowed; NULL prints as "?"). */
struct tkt_vars {
	const char *hostname, *rack, *bmc, *serial, *service_tag, *fault, *evidence;
	int unit;
};

/* The action text for fault: the first line whose name matches, else
 * `default`, with {placeholders} filled; at most TKT_TEXT_MAX chars. An
 * unknown placeholder is kept as written. Caller frees. */
char *tkt_render(const struct tkt_actions *a, const struct tkt_vars *v);

/* The fault of a failed node: the kind its stage typed when it failed it
 * (br_fail_kind_name: bmc_auth, commission_failed, ...), stage_failed for
 * a node failed before kinds were kept. */
const char *tkt_failure_fault(const struct inv_node *node);

/* The serial a technician finds the machine by: what its BMC reported,
 * else the manifest's expected serial (a BMC that never answered reported
 * nothing), else NULL. Borrowed from node. */
const char *tkt_node_serial(const struct inv_node *node);

/* "rack R01 U17". Caller frees. */
char *tkt_location(const char *rack, int unit);

enum tkt_format { TKT_MD, TKT_JSON, TKT_CSV };
/* Which tickets are listed (--state): the open ones by default. */
enum tkt_list { TKT_LIST_OPEN, TKT_LIST_CLOSED, TKT_LIST_ALL };
/* "open", "closed", "open and closed". */
const char *tkt_list_name(enum tkt_list list);

struct tkt_run {
	struct inv_ticket_stats stats;
	struct inv_ticket *tickets; /* the listed ones, by rack, unit, hostname */
	size_t n;
	enum tkt_list list;
	/* every node of the inventory, by hostname, for identities (serial,
	 * service tag): a ticket of a node not named this run keeps them. */
	struct inv_node *nodes;
	size_t n_nodes;
	enum tkt_format format;
	size_t posted, post_failed; /* --post deliveries */
};

/* Work out every node's faults, store them as tickets, list those run->list
 * asks for;
 * with post (its url set), deliver every ticket version not delivered yet
 * (BR_EXIT_UNREACHABLE when some could not be). */
int tkt_run(struct br_stage *st, struct tkt_run *run, const struct wh_options *post);
json_t *tkt_json(const void *run);
void tkt_print(const void *run);
void tkt_run_release(struct tkt_run *run);

#endif
