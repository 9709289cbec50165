/* Private to inventory/: the handle and statement helpers. */
#ifndef BRINGUP_INV_PRIVATE_H
#define BRINGUP_INV_PRIVATE_H

#include <sqlite3.h>

#include "inventory.h"

struct inv {
	sqlite3 *db;
	char *path;
};

/* Record a database error naming what was being done and SQLite's message. */
int inv_dberr(struct inv *inv, struct br_err *err, const char *what);
int inv_exec(struct inv *inv, const char *sql, struct br_err *err);
int inv_prepare(struct inv *inv, const char *sql, sqlite3_stmt **ret_stmt, struct br_err *err);
/* BEGIN IMMEDIATE, so a writer waits for the busy timeout at the start
 * rather than failing half way through. */
int inv_tx_begin(struct inv *inv, struct br_err *err);
int inv_tx_commit(struct inv *inv, struct br_err *err);
void inv_tx_rollback(struct inv *inv);
/* Column as a malloc'd string or NULL. */
char *inv_col_dup(sqlite3_stmt *st, int col);
/* Bind text, or NULL when s is NULL. */
int inv_bind_text(sqlite3_stmt *st, int idx, const char *s);
/* Node id by hostname: 0 ok, BR_E_NOTFOUND, or a db error. */
int inv_node_id(struct inv *inv, const char *hostname, int64_t *ret_id, enum inv_state *ret_state,
		struct br_err *err);
/* Append an event row (within the caller's transaction). */
int inv_event_add(struct inv *inv, int64_t node_id, const char *from_state, const char *to_state,
		  const char *reason, struct br_err *err);
/* Within the caller's transaction: set state and reason, append the event. */
int inv_transition(struct inv *inv, int64_t id, enum inv_state from, enum inv_state to, const char *reason,
		   struct br_err *err);
int inv_migrate(struct inv *inv, struct br_err *err);

#endif
