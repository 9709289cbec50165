/*
 * stage — what every stage executable shares: exit codes, finding the
 * templates, opening the inventory with a clear error, selecting nodes.
 */
#ifndef BRINGUP_STAGE_H
#define BRINGUP_STAGE_H

#include "common.h"
#include "inventory/inventory.h"

/* Exit codes (DESIGN.md). */
enum br_exit {
	BR_EXIT_OK = 0,          /* all done */
	BR_EXIT_NODES = 1,       /* some nodes failed or were quarantined */
	BR_EXIT_USAGE = 2,       /* bad usage or input */
	BR_EXIT_UNREACHABLE = 3, /* a required service cannot be reached */
};

/* The templates directory: $BRINGUP_TEMPLATES, else the installed
 * share/bringup/templates beside the executable, else the source tree's
 * templates/. Caller frees; NULL if none is found. */
char *br_templates_dir(void);

/* Open the inventory named by --db; logs the error. */
int br_stage_open_inventory(const char *path, struct inv **ret_inv);

/* Pick nodes for a stage: those named in argv[argi..] (all must exist), or
 * every node whose state is in `states` (terminated by -1). Caller frees
 * with inv_nodes_free. Returns 0 or an exit code (BR_EXIT_USAGE for an
 * unknown host name). */
int br_stage_select(struct inv *inv, int argc, char **argv, int argi, const int *states,
		    struct inv_node **ret_nodes, size_t *ret_n);

/* Take the per-node lease (inventory.h) on each picked node for `stage`,
 * so no other stage works it meanwhile, and re-read it under the lease. A
 * node another live stage holds is dropped with a warning naming the
 * holder; with `states` (nodes picked by state, not named), a node whose
 * state moved out of them meanwhile is dropped too. nodes is compacted in
 * place and *n lowered. 0, or BR_EXIT_UNREACHABLE when the inventory
 * fails. */
int br_stage_lease(struct inv *inv, const char *stage, const int *states, struct inv_node *nodes, size_t *n);
/* Give back the leases of br_stage_lease (inv may be NULL); logs a failure. */
void br_stage_release(struct inv *inv);

#endif
