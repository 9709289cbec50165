/*
 * Private to inventory/: the one interface between the inventory's SQL and
 * the database that runs it. A backend is a table of operations
 * (struct invb_ops) over a connection and its prepared statements; the
 * inventory's other files call only the invb_* wrappers below. Two so far:
 * SQLite (backend_sqlite.c, schema_sqlite.c) and PostgreSQL (backend_pg.c and
 * backend_pg_stmt.c over backend_pg.h,
 * schema_pg.c); invb_for picks one by the form of --db.
 *
 * The SQL handed to a backend is what SQLite (3.40) and PostgreSQL (15)
 * both accept, with two exceptions the backend owns: its schema migrations
 * (invb_ops.migrations: column types, views over JSON documents and
 * triggers differ) and the few statements whose portable form would cost
 * what they exist to save (invb_ops.sql_*). Parameters are written `?`
 * (in order) or `?N` (numbered); a backend whose driver wants another form
 * ($N) renumbers them. Times are bound by the caller (inv_now), never
 * computed by the database, and ids come back through RETURNING.
 *
 * Ownership: a connection belongs to its inv (invb_close); a statement to
 * whoever prepared it (invb_finalize). Text read from a row is the
 * statement's until its next step, reset or finalize.
 */
#ifndef BRINGUP_INV_BACKEND_H
#define BRINGUP_INV_BACKEND_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "inventory.h"

/* What invb_step says; every other answer is an error (invb_errmsg). */
enum invb_step {
	INVB_ROW = 1,
	INVB_DONE,
	/* Another connection held the lock past INV_BUSY_TIMEOUT_MS. */
	INVB_BUSY,
	/* A UNIQUE, NOT NULL, CHECK or foreign key refused the row. */
	INVB_CONSTRAINT,
	INVB_ERROR,
};

/* A backend's connection and statement begin with these, so the wrappers
 * find the operations from either. */
struct invb_conn {
	const struct invb_ops *ops;
};
struct invb_stmt {
	const struct invb_ops *ops;
	int ran; /* stepped since its last reset: counted (invb_step) */
};

/* A write statement's SQL may begin with this: one statement whose
 * correctness needs no other writer held off (an upsert or a delete by its
 * own unique key, nothing read first). Outside a transaction PostgreSQL
 * runs it bare, committed on its own, without waiting for the writers'
 * advisory lock another process may hold for a whole transaction
 * (backend_pg_stmt.c); SQLite reads it as a comment. For the records a
 * kill must never find missing: a Redfish session is recorded the moment
 * its login is answered (inventory/sessions.c). */
#define INVB_SQL_UNLOCKED "/* unlocked */ "

struct invb_ops {
	const char *name;
	/* Open where: a file, ":memory:" (created if needed), a PostgreSQL
	 * URI or keyword string (an existing database). flags are
	 * inventory.h's INV_OPEN_*: with INV_OPEN_READONLY nothing is
	 * created or written, not even the backend's own settings (journal
	 * mode), and a database that is not there is BR_E_NOTFOUND. On
	 * failure *ret_conn is NULL and err names where and why (BR_E_INVAL:
	 * where is refused as written, BR_E_DB: it cannot be reached). */
	int (*open)(const char *where, unsigned flags, struct invb_conn **ret_conn, struct br_err *err);
	void (*close)(struct invb_conn *conn);
	/* The last error on conn, for messages; never NULL. */
	const char *(*errmsg)(struct invb_conn *conn);
	/* One or more statements without parameters or rows: 0 or -1. */
	int (*exec)(struct invb_conn *conn, const char *sql);
	/* Start a transaction that holds the write lock from its first
	 * statement, waiting for another writer up to INV_BUSY_TIMEOUT_MS,
	 * so a writer never fails half way through: 0 or -1. */
	int (*begin_write)(struct invb_conn *conn);
	int (*commit)(struct invb_conn *conn);
	/* Roll back the open transaction, if there is one. */
	void (*rollback)(struct invb_conn *conn);
	int (*in_transaction)(struct invb_conn *conn);
	/* keep: the statement will be reused many times (a cached one). */
	int (*prepare)(struct invb_conn *conn, const char *sql, int keep, struct invb_stmt **ret_stmt);
	/* Back to before its first step, bindings kept; holds no lock. */
	void (*reset)(struct invb_stmt *st);
	void (*clear_bindings)(struct invb_stmt *st);
	void (*finalize)(struct invb_stmt *st);
	/* Parameters count from 1. Text is copied unless borrow, when it
	 * must stay as it is until the statement's next step has run. 0 or
	 * -1. */
	int (*bind_null)(struct invb_stmt *st, int idx);
	int (*bind_int64)(struct invb_stmt *st, int idx, int64_t v);
	int (*bind_double)(struct invb_stmt *st, int idx, double v);
	int (*bind_text)(struct invb_stmt *st, int idx, const char *s, int borrow);
	int (*bind_blob)(struct invb_stmt *st, int idx, const void *data, size_t len);
	enum invb_step (*step)(struct invb_stmt *st);
	/* Columns count from 0. NULL reads as NULL text and 0. */
	int (*column_is_null)(struct invb_stmt *st, int col);
	const char *(*column_text)(struct invb_stmt *st, int col);
	size_t (*column_bytes)(struct invb_stmt *st, int col);
	int64_t (*column_int64)(struct invb_stmt *st, int col);
	double (*column_double)(struct invb_stmt *st, int col);
	/* Rows the last INSERT, UPDATE or DELETE changed. */
	int64_t (*changes)(struct invb_conn *conn);
	/* Whether the last error was a constraint or trigger refusing the
	 * statement (the database still usable: BR_E_REFUSED), not the
	 * database failing (a full disk, I/O: BR_E_DB). NULL: never. */
	int (*refused)(struct invb_conn *conn);
	/* The schema version stored in the database (0 for a new one), or
	 * -1; and setting it inside the migration's transaction. */
	int (*schema_version)(struct invb_conn *conn);
	int (*set_schema_version)(struct invb_conn *conn, int version);
	/* Write-ahead log upkeep (inventory.h's inv_checkpoint and
	 * inv_set_autocheckpoint); a backend without one does nothing. */
	int (*checkpoint)(struct invb_conn *conn);
	int (*set_autocheckpoint)(struct invb_conn *conn, int pages);
	/* The schema, INV_SCHEMA_VERSION migrations: migrations[v] takes a
	 * database from version v to v + 1 (schema_sqlite.c, schema_pg.c). */
	const char *const *migrations;
	/* The top-level members named ?2 and ?3 of node ?1's facts
	 * document, one row each: (name, JSON type as SQLite's json_each
	 * names it: null, true, false, integer, real, text, array, object,
	 * value: JSON text for arrays and objects, the value itself else).
	 * In SQL because reading the whole document to parse two members
	 * cost configure most of its start (hwpart.c). */
	const char *sql_facts_members;
	/* Wait up to timeout_ms (0: do not wait) to be told that another
	 * connection recorded an event: 1 when told, 0 when the time ran out,
	 * -1 on error. The first call subscribes. NULL: this backend cannot be
	 * told (SQLite): its followers read again after each wait. */
	int (*wait_event)(struct invb_conn *conn, int timeout_ms);
	/* Writers by zone. NULL (SQLite): one lock for every writer, which
	 * covers every zone. set_zones: this connection writes only for the
	 * nodes of zones (a comma-separated list; NULL or "": every zone's,
	 * excluding every other writer), and its writers wait only for
	 * writers of the same zones and of no zone: 0 or -1. Inside a write
	 * transaction: try_zone takes zone's lock too if it is free at once,
	 * for a write to a node of that zone (1: held, or not needed; 0:
	 * another writer of it is at work; -1: error).
	 * sql_lock_node_macs: a statement that waits for the locks of node
	 * ?1's MACs, in their keys' order, which a writer of zones takes
	 * before it reads who else claims them (a node of another zone may
	 * have one); its rows mean nothing. NULL: nothing to lock. */
	int (*set_zones)(struct invb_conn *conn, const char *zones);
	int (*try_zone)(struct invb_conn *conn, const char *zone);
	const char *sql_lock_node_macs;
};

/* The counters behind inv_db_counts (counts.c): the wrappers below count
 * statements, rows read and bytes bound; each backend its round trips,
 * lone writes' commits and rows changed. invb_counts_init maps them
 * shared (inv_open, before any fork), so forked workers add to the
 * parent's. */
enum invb_counter {
	INVB_STATEMENTS,
	INVB_ROUND_TRIPS,
	INVB_COMMITS,
	INVB_ROWS_CHANGED,
	INVB_ROWS_READ,
	INVB_BYTES_BOUND,
	INVB_N_COUNTERS,
};
void invb_counts_init(void);
void invb_count(enum invb_counter which, int64_t n);

/* The backend for where (a path or a database URI). */
const struct invb_ops *invb_for(const char *where);

/* Whether where names a PostgreSQL database: a URI (postgresql://,
 * postgres://) or a libpq keyword string ("service=NAME",
 * "host=... dbname=..."); anything else is a SQLite file. */
int invb_is_pg(const char *where);

extern const struct invb_ops invb_sqlite_ops;
/* SQLite's schema, schema_sqlite.c. */
extern const char *const invb_sqlite_migrations[INV_SCHEMA_VERSION];

extern const struct invb_ops invb_pg_ops;
/* PostgreSQL's schema, schema_pg.c: the same steps in its types. */
extern const char *const invb_pg_migrations[INV_SCHEMA_VERSION];
/* Refuse a connection string libpq cannot read or that holds a password
 * (BR_E_INVAL naming --db; the message never quotes the string). */
int invb_pg_check_conninfo(const char *where, struct br_err *err);
/* sql with SQLite's parameters (? and ?N) as libpq's ($N), a bare ?
 * numbered one past the largest so far as SQLite numbers it; text in
 * quotes and -- comments kept as they are. *ret_sql is the caller's
 * (free); *ret_nparams the largest number. 0, or -1 for a number out of
 * range. */
int invb_pg_renumber(const char *sql, char **ret_sql, int *ret_nparams);

static inline const char *invb_errmsg(struct invb_conn *c)
{
	return c->ops->errmsg(c);
}
static inline int invb_refused(struct invb_conn *c)
{
	return c->ops->refused ? c->ops->refused(c) : 0;
}
static inline int invb_exec(struct invb_conn *c, const char *sql)
{
	invb_count(INVB_STATEMENTS, 1);
	return c->ops->exec(c, sql);
}
static inline int invb_begin_write(struct invb_conn *c)
{
	invb_count(INVB_STATEMENTS, 1);
	return c->ops->begin_write(c);
}
static inline int invb_commit(struct invb_conn *c)
{
	int rc;

	invb_count(INVB_STATEMENTS, 1);
	rc = c->ops->commit(c);
	if (!rc)
		invb_count(INVB_COMMITS, 1);
	return rc;
}
static inline void invb_rollback(struct invb_conn *c)
{
	if (c->ops->in_transaction(c))
		invb_count(INVB_STATEMENTS, 1);
	c->ops->rollback(c);
}
static inline int invb_in_transaction(struct invb_conn *c)
{
	return c->ops->in_transaction(c);
}
static inline int invb_prepare(struct invb_conn *c, const char *sql, int keep, struct invb_stmt **ret)
{
	return c->ops->prepare(c, sql, keep, ret);
}
static inline void invb_reset(struct invb_stmt *st)
{
	st->ran = 0;
	st->ops->reset(st);
}
static inline void invb_clear_bindings(struct invb_stmt *st)
{
	st->ops->clear_bindings(st);
}
static inline void invb_finalize(struct invb_stmt *st)
{
	if (st)
		st->ops->finalize(st);
}
static inline int invb_bind_null(struct invb_stmt *st, int idx)
{
	return st->ops->bind_null(st, idx);
}
static inline int invb_bind_int64(struct invb_stmt *st, int idx, int64_t v)
{
	invb_count(INVB_BYTES_BOUND, 8);
	return st->ops->bind_int64(st, idx, v);
}
static inline int invb_bind_double(struct invb_stmt *st, int idx, double v)
{
	invb_count(INVB_BYTES_BOUND, 8);
	return st->ops->bind_double(st, idx, v);
}
static inline int invb_bind_text(struct invb_stmt *st, int idx, const char *s)
{
	if (!s)
		return st->ops->bind_null(st, idx);
	invb_count(INVB_BYTES_BOUND, (int64_t)strlen(s));
	return st->ops->bind_text(st, idx, s, 0);
}
/* The same without a copy: s must outlive the statement's next step. */
static inline int invb_bind_text_borrowed(struct invb_stmt *st, int idx, const char *s)
{
	if (!s)
		return st->ops->bind_null(st, idx);
	invb_count(INVB_BYTES_BOUND, (int64_t)strlen(s));
	return st->ops->bind_text(st, idx, s, 1);
}
static inline enum invb_step invb_step(struct invb_stmt *st)
{
	enum invb_step rc;

	if (!st->ran) {
		st->ran = 1;
		invb_count(INVB_STATEMENTS, 1);
	}
	rc = st->ops->step(st);
	if (rc == INVB_ROW)
		invb_count(INVB_ROWS_READ, 1);
	return rc;
}
static inline int invb_column_is_null(struct invb_stmt *st, int col)
{
	return st->ops->column_is_null(st, col);
}
static inline const char *invb_column_text(struct invb_stmt *st, int col)
{
	return st->ops->column_text(st, col);
}
static inline size_t invb_column_bytes(struct invb_stmt *st, int col)
{
	return st->ops->column_bytes(st, col);
}
static inline int64_t invb_column_int64(struct invb_stmt *st, int col)
{
	return st->ops->column_int64(st, col);
}
static inline int invb_column_int(struct invb_stmt *st, int col)
{
	return (int)st->ops->column_int64(st, col);
}
static inline double invb_column_double(struct invb_stmt *st, int col)
{
	return st->ops->column_double(st, col);
}
static inline int64_t invb_changes(struct invb_conn *c)
{
	return c->ops->changes(c);
}

#endif
