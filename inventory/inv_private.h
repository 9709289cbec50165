/* Private to inventory/: the handle and statement helpers, over the
 * backend interface (backend.h). */
#ifndef BRINGUP_INV_PRIVATE_H
#define BRINGUP_INV_PRIVATE_H

#include "backend.h"
#include "inventory.h"

#define INV_STMT_CACHE_MAX 64

/* A prepared statement kept for reuse (inv_prepare/inv_finalize). */
struct inv_stmt {
	char *sql;
	struct invb_stmt *st;
	int in_use;
};

struct inv {
	struct invb_conn *db;
	char *path;
	unsigned flags;		/* INV_OPEN_* it was opened with */
	struct inv_stmt *stmts; /* statement cache, by SQL text */
	size_t n_stmts;
	inv_lease_yield_fn lease_yield; /* inv_lease_set_yield; NULL: a live holder keeps its lease */
	void *lease_yield_ctx;
	int unfenced; /* set while a lease is taken: its takeover event is not fenced */
	int zoned;    /* writes for the zones inv_set_writer_zones named, beside other zones' writers */
};

/* Writers by zone (db.c, inv_set_writer_zones): whether this connection
 * writes for zones beside writers of other zones; inside a write
 * transaction, zone's lock taken if free at once, for a write to one of
 * its nodes (1: held or not needed, 0: its writer is at work, -1: err
 * set). */
int inv_zoned(const struct inv *inv);
int inv_try_zone(struct inv *inv, const char *zone, struct br_err *err);
/* Record a database error naming what was being done and the backend's message. */
int inv_dberr(struct inv *inv, struct br_err *err, const char *what);
int inv_exec(struct inv *inv, const char *sql, struct br_err *err);
/* A statement for sql, reset and with no bindings. Statements are cached
 * by their text and prepared once per connection: a stage that stores
 * hundreds of nodes would otherwise spend most of its time in the
 * database's parser. Give every statement back with inv_finalize, never
 * invb_finalize. A statement still in use when the same text is asked
 * for again (nested queries) gets a private copy. */
int inv_prepare(struct inv *inv, const char *sql, struct invb_stmt **ret_stmt, struct br_err *err);
/* Give back a statement from inv_prepare (NULL is fine): reset, so it
 * holds no read transaction, and kept for the next inv_prepare. */
void inv_finalize(struct inv *inv, struct invb_stmt *st);
/* A write transaction (invb_ops.begin_write): a writer waits for the busy
 * timeout at the start rather than failing half way through. */
int inv_tx_begin(struct inv *inv, struct br_err *err);
int inv_tx_commit(struct inv *inv, struct br_err *err);
void inv_tx_rollback(struct inv *inv);
/* Replace node id's check results of stage with checks[0..n), inside the
 * caller's transaction (checks.c; inv_checks_put and the verdict batch). */
int inv_checks_write(struct inv *inv, int64_t id, const char *stage, const struct inv_check *checks, size_t n,
		     struct br_err *err);
/* Now as the inventory stores times, UTC to the millisecond
 * ("2026-01-31T23:59:59.123Z"), into out. Computed here, not by the
 * database, so that every backend writes the same text. */
#define INV_TIME_LEN 32
void inv_now(char out[INV_TIME_LEN]);
/* Bind now (inv_now) to parameter idx. */
int inv_bind_now(struct invb_stmt *st, int idx);
/* Column as a malloc'd string or NULL. */
char *inv_col_dup(struct invb_stmt *st, int col);
/* A reason as it is kept: secrets redacted, cut to INV_REASON_MAX bytes.
 * Caller frees; NULL for NULL. */
char *inv_reason_as_stored(const char *reason);
/* Bind a reason as it is kept, or NULL. */
int inv_bind_reason(struct invb_stmt *st, int idx, const char *reason);
/* Bind text, or NULL when s is NULL. */
int inv_bind_text(struct invb_stmt *st, int idx, const char *s);
/* Who a lease or a recorded BMC session names (lease.c): this host's
 * name, this process's start time (clock ticks after boot, read once per
 * process), and whether a holder is alive: one on this host while its pid
 * runs as the process that started at started_at; one on another host
 * cannot be asked, and counts as alive. */
#define INV_HOST_MAX 256
void inv_this_host(char host[INV_HOST_MAX]);
int64_t inv_self_start(void);
int inv_holder_alive(long pid, int64_t started_at, const char *holder_host, const char *host);
/* Within the caller's write transaction, before a write to node id: 0
 * when this process holds no token for it or the node's lease still
 * carries that token; else BR_E_STATE naming who holds it now (lease.c). */
int inv_lease_fence(struct inv *inv, int64_t id, struct br_err *err);
/* Node id (and state, and stored reason: caller frees, NULL for none,
 * each when asked for) by hostname: 0 ok, BR_E_NOTFOUND, or a db error. */
int inv_node_lookup(struct inv *inv, const char *hostname, int64_t *ret_id, enum inv_state *ret_state,
		    char **ret_reason, struct br_err *err);
/* The same without the reason. */
int inv_node_id(struct inv *inv, const char *hostname, int64_t *ret_id, enum inv_state *ret_state,
		struct br_err *err);
/* Append an event row (within the caller's transaction). */
int inv_event_add(struct inv *inv, int64_t node_id, const char *from_state, const char *to_state,
		  const char *reason, struct br_err *err);
/* The compare half of a compare-and-set on a node's state: 0 when the
 * state read under the write lock (current) is the one the stage read, else
 * BR_E_STATE naming both. */
int inv_state_expect(const char *hostname, enum inv_state current, enum inv_state read, struct br_err *err);
/* Within the caller's transaction: set state and reason, append the event. */
int inv_transition(struct inv *inv, int64_t id, enum inv_state from, enum inv_state to, const char *reason,
		   struct br_err *err);
/* The same with why a failed node failed (BR_FAIL_NONE to `failed` is
 * BR_FAIL_STAGE; other states keep no kind). */
int inv_transition_kind(struct inv *inv, int64_t id, enum inv_state from, enum inv_state to,
			enum br_fail_kind kind, const char *reason, struct br_err *err);
/* inv_node_set_state with a kind. */
int inv_node_set_state_kind(struct inv *inv, const char *hostname, enum inv_state from, enum inv_state to,
			    enum br_fail_kind kind, const char *reason, struct br_err *err);
/* Within the caller's transaction, once node id's MACs and facts are
 * stored: judge every MAC another node claims too (claims.c). Other nodes
 * that lose are failed here. *ret_lost is the reason this node lost (NULL
 * if it did not); *ret_note, when it won, says which claims it beat. Both
 * malloc'd. */
int inv_judge_mac_claims(struct inv *inv, int64_t id, const char *hostname, const char *bmc, char **ret_lost,
			 char **ret_note, struct br_err *err);
/* Within the caller's transaction: close every open ticket of the node,
 * adding how many to *ret_closed (tickets.c). */
int inv_tickets_close_open(struct inv *inv, int64_t node_id, size_t *ret_closed, struct br_err *err);
/* inv_store_probe within the caller's transaction (verdicts.c). */
int inv_probe_write(struct inv *inv, const char *hostname, const char *doc, struct br_err *err);
int inv_migrate(struct inv *inv, struct br_err *err);

#endif
