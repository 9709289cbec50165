/*
 * Private to inventory/backend_pg*.c, the PostgreSQL backend (backend.h):
 * its connection and statement, and what its two files share.
 * backend_pg.c: connecting, transactions, the schema version, the
 * operations table; backend_pg_stmt.c: statements (prepare, bind, step,
 * columns). They are the only files in bringup that call libpq.
 */
#ifndef BRINGUP_INV_BACKEND_PG_H
#define BRINGUP_INV_BACKEND_PG_H

#include <libpq-fe.h>

#include "backend.h"

/* The writers' advisory lock ("bringup" in ASCII): every writer of no
 * zone takes it alone; a writer of zones takes it shared, beside its
 * zones' own (PG_ZONE_LOCK_CLASS, hashtext of the name), so writers of
 * different zones run side by side and a writer of no zone excludes
 * them all. A MAC, which nodes of two zones could claim, is locked in
 * PG_NAME_LOCK_CLASS by the hashtext of its text. The
 * two-key locks are a key space of their own, apart from the one-key. */
#define PG_WRITE_LOCK_KEY "27710089590494576"
#define PG_WRITE_LOCK_SQL "SELECT pg_advisory_xact_lock(" PG_WRITE_LOCK_KEY ")"
#define PG_ZONE_LOCK_CLASS "25202"
#define PG_NAME_LOCK_CLASS "25203"
#define PG_ERRMSG_MAX 1024

struct pg_conn {
	struct invb_conn base;
	PGconn *pg;
	int64_t changes;
	unsigned next_stmt; /* names the next prepared statement */
	char errmsg[PG_ERRMSG_MAX];
	int refused;   /* the last error was SQLSTATE class 23 (a constraint, a trigger) */
	int listening; /* LISTEN bringup_events sent (pg_wait_event) */
	char *zones;   /* the zones this connection writes for (sorted, commas); NULL: none */
	/* "BEGIN; " and the lock a writer takes (PG_WRITE_LOCK_SQL, or the
	 * zones'), built once; lock_sql is its lock alone (a lone write's) */
	char *begin_sql;
	const char *lock_sql;
};

struct pg_stmt {
	struct invb_stmt base;
	struct pg_conn *c;
	char name[32];
	int nparams;
	/* Each parameter's text (or bytes, for a blob), and whether it is a
	 * copy this statement frees. */
	char **values;
	int *lengths, *formats;
	unsigned char *owned;
	PGresult *res;
	int row;
	int reads;    /* a SELECT: needs no savepoint (run_prepared) */
	int unlocked; /* INVB_SQL_UNLOCKED: alone, no advisory lock (run_prepared) */
};

static inline struct pg_conn *conn_of(struct invb_conn *c)
{
	return (struct pg_conn *)c;
}

static inline struct pg_stmt *stmt_of(struct invb_stmt *st)
{
	return (struct pg_stmt *)st;
}

/* Keep msg (libpq's, ending in a newline) as the connection's last error. */
void invb_pg_set_error(struct pg_conn *c, const char *msg);
/* Record res's error (or the connection's, for NULL) on c and say what it
 * means to the callers (INVB_CONSTRAINT, INVB_BUSY or INVB_ERROR). */
enum invb_step invb_pg_failure(struct pg_conn *c, const PGresult *res);

/* The statement operations (backend_pg_stmt.c), as invb_ops names them. */
int invb_pg_prepare(struct invb_conn *conn, const char *sql, int keep, struct invb_stmt **ret_stmt);
void invb_pg_reset(struct invb_stmt *stmt);
void invb_pg_clear_bindings(struct invb_stmt *stmt);
void invb_pg_finalize(struct invb_stmt *stmt);
int invb_pg_bind_null(struct invb_stmt *stmt, int idx);
int invb_pg_bind_int64(struct invb_stmt *stmt, int idx, int64_t v);
int invb_pg_bind_double(struct invb_stmt *stmt, int idx, double v);
int invb_pg_bind_text(struct invb_stmt *stmt, int idx, const char *s, int borrow);
int invb_pg_bind_blob(struct invb_stmt *stmt, int idx, const void *data, size_t len);
enum invb_step invb_pg_step(struct invb_stmt *stmt);
int invb_pg_column_is_null(struct invb_stmt *stmt, int col);
const char *invb_pg_column_text(struct invb_stmt *stmt, int col);
size_t invb_pg_column_bytes(struct invb_stmt *stmt, int col);
int64_t invb_pg_column_int64(struct invb_stmt *stmt, int col);
double invb_pg_column_double(struct invb_stmt *stmt, int col);

#endif
