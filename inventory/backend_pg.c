/*
 * The PostgreSQL backend (backend.h): the only file in bringup that calls
 * libpq. Statements are prepared on the server (PQprepare) under a name of
 * their own, their ?/?N parameters renumbered to $N, and run with text
 * parameters and text results (PQexecPrepared); a statement's rows are the
 * whole result, read one by one by step. The schema version is a row of
 * its own table (bringup_schema), since PostgreSQL has no user_version.
 *
 * Who may connect how is libpq's: a URI (postgresql://, postgres://) or a
 * keyword string ("service=inventory"), with libpq's environment,
 * service file and password file. This file adds two rules on top
 * (invb_pg_check_conninfo): a password written into the connection string
 * is refused, since the string travels in argv and logs, and a TCP
 * connection verifies the server's certificate and name (sslmode
 * verify-full) unless the connection string, a service file or
 * PGSSLMODE says otherwise.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <libpq-fe.h>

#include "backend.h"
#include "inventory.h"

/* The one advisory lock every writer takes ("bringup" in ASCII). */
#define PG_WRITE_LOCK_KEY "27710089590494576"
#define PG_ERRMSG_MAX 1024

struct pg_conn {
	struct invb_conn base;
	PGconn *pg;
	int64_t changes;
	unsigned next_stmt; /* names the next prepared statement */
	char errmsg[PG_ERRMSG_MAX];
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
	int reads; /* a SELECT: needs no savepoint (run_prepared) */
};

static const struct invb_ops *ops(void)
{
	return &invb_pg_ops;
}

static struct pg_conn *conn_of(struct invb_conn *c)
{
	return (struct pg_conn *)c;
}

static struct pg_stmt *stmt_of(struct invb_stmt *st)
{
	return (struct pg_stmt *)st;
}

/* Keep msg (libpq's, ending in a newline) as the connection's last error. */
static void set_error(struct pg_conn *c, const char *msg)
{
	size_t len;

	snprintf(c->errmsg, sizeof(c->errmsg), "%s", msg && *msg ? msg : "unknown PostgreSQL error");
	len = strlen(c->errmsg);
	while (len && (c->errmsg[len - 1] == '\n' || c->errmsg[len - 1] == ' '))
		c->errmsg[--len] = '\0';
}

/* What a failed result means to the callers, by its SQLSTATE: class 23
 * (integrity constraint violation: unique, not null, check, foreign key)
 * is a constraint; a lock not had within lock_timeout (55P03), a
 * serialization failure (40001), a deadlock (40P01) or a cancelled
 * statement (57014) is another connection in the way. */
static enum invb_step failure_of(struct pg_conn *c, const PGresult *res)
{
	const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;

	set_error(c, res ? PQresultErrorMessage(res) : PQerrorMessage(c->pg));
	if (!state)
		return INVB_ERROR;
	if (!strncmp(state, "23", 2))
		return INVB_CONSTRAINT;
	if (!strcmp(state, "55P03") || !strcmp(state, "40001") || !strcmp(state, "40P01") ||
	    !strcmp(state, "57014"))
		return INVB_BUSY;
	return INVB_ERROR;
}

/* Run sql (no parameters, any number of statements); 0 or -1 with the
 * error kept. */
static int pg_run(struct pg_conn *c, const char *sql)
{
	PGresult *res = PQexec(c->pg, sql);
	ExecStatusType status = PQresultStatus(res);
	int rc = 0;

	if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK && status != PGRES_EMPTY_QUERY) {
		failure_of(c, res);
		rc = -1;
	}
	PQclear(res);
	return rc;
}

static int pg_exec(struct invb_conn *conn, const char *sql)
{
	/* A plain BEGIN is a reader's (inventory/batch.c reads a rack's checks
	 * in one): on SQLite its first read takes a snapshot the whole
	 * transaction sees, which is PostgreSQL's REPEATABLE READ, not its
	 * default READ COMMITTED (a snapshot per statement). A write after
	 * another writer committed fails on both (SQLITE_BUSY_SNAPSHOT,
	 * SQLSTATE 40001: busy). */
	if (!strcasecmp(sql, "BEGIN"))
		sql = "BEGIN ISOLATION LEVEL REPEATABLE READ";
	return pg_run(conn_of(conn), sql);
}

static void pg_close(struct invb_conn *conn)
{
	if (!conn)
		return;
	PQfinish(conn_of(conn)->pg);
	free(conn);
}

int invb_pg_check_conninfo(const char *where, struct br_err *err)
{
	char *perr = NULL;
	PQconninfoOption *opts = PQconninfoParse(where, &perr);
	int rc = 0;

	if (!opts) {
		/* libpq's own message quotes the part it could not read, which
		 * may be a password written without its keyword: not shown. */
		rc = br_errf(err, BR_E_INVAL,
			     "--db: libpq cannot read it as a PostgreSQL connection string "
			     "(a postgresql:// URI, or keyword=value pairs such as service=NAME)%s",
			     perr ? "" : ": out of memory");
		PQfreemem(perr);
		return rc;
	}
	for (PQconninfoOption *o = opts; o->keyword; o++) {
		if (!o->val || !*o->val)
			continue;
		if (!strcmp(o->keyword, "password")) {
			rc = br_errf(err, BR_E_INVAL,
				     "--db: the connection string holds a password (the 'password' option); "
				     "give it in a password file (PGPASSFILE, ~/.pgpass) or a service file "
				     "(PGSERVICEFILE), never on the command line");
			break;
		}
	}
	PQconninfoFree(opts);
	return rc;
}

/* Defaults of bringup's own, given as libpq's environment variables,
 * which libpq ranks below the connection string and a service file, so
 * either still wins:
 * - the server's certificate and name are verified: libpq's default
 *   (prefer) takes any server, unencrypted or not; libpq uses no TLS on
 *   a Unix socket whatever the mode;
 * - a connection attempt ends after 10 s: libpq's default is to wait
 *   for ever, and a server that drops packets held a stage with it. */
static void set_default(const char *name, const char *value)
{
	const char *now = getenv(name);

	if (!now || !*now)
		setenv(name, value, 1);
}

/* The server's warnings go to bringup's log, not straight to stderr as
 * libpq's own processor would print them. */
static void on_notice(void *ctx, const char *message)
{
	size_t len = strlen(message);

	(void)ctx;
	while (len && message[len - 1] == '\n')
		len--;
	br_warn("inventory", "PostgreSQL: %.*s", (int)len, message);
}

static int pg_open(const char *where, struct invb_conn **ret_conn, struct br_err *err)
{
	struct pg_conn *c;
	char set[96];
	int rc;

	*ret_conn = NULL;
	rc = invb_pg_check_conninfo(where, err);
	if (rc)
		return rc;
	set_default("PGSSLMODE", "verify-full");
	set_default("PGCONNECT_TIMEOUT", "10");
	c = br_xcalloc(1, sizeof(*c));
	c->base.ops = ops();
	c->pg = PQconnectdb(where);
	if (!c->pg || PQstatus(c->pg) != CONNECTION_OK) {
		set_error(c, c->pg ? PQerrorMessage(c->pg) : "out of memory");
		br_errf(err, BR_E_DB, "inventory %s: cannot connect: %s", where, c->errmsg);
		pg_close(&c->base);
		return BR_E_DB;
	}
	PQsetNoticeProcessor(c->pg, on_notice, NULL);
	/* Every wait on a lock, the writers' one included (pg_begin_write),
	 * ends after the busy timeout as SQLite's busy handler does; notices
	 * (an IF NOT EXISTS that found it) are not the operator's business. */
	snprintf(set, sizeof(set), "SET lock_timeout = %d; SET client_min_messages = warning",
		 INV_BUSY_TIMEOUT_MS);
	if (pg_run(c, set)) {
		br_errf(err, BR_E_DB, "inventory %s: %s", where, c->errmsg);
		pg_close(&c->base);
		return BR_E_DB;
	}
	*ret_conn = &c->base;
	return 0;
}

static const char *pg_errmsg(struct invb_conn *conn)
{
	struct pg_conn *c = conn_of(conn);

	return c->errmsg[0] ? c->errmsg : "no error";
}

/* SQLite's BEGIN IMMEDIATE takes the database's one write lock before the
 * first statement, so a writer that starts never meets another half way
 * (its reads then writes see no one else's writes between them, and no
 * unique key two writers both found free fails the second at its
 * insert). PostgreSQL's row locks come statement by statement, under
 * READ COMMITTED: two writers could both read a node's lease as free and
 * the second fail at its INSERT. One transaction-scoped advisory lock,
 * the same key for every writer, gives back SQLite's guarantee: writers
 * run one at a time, readers never wait, and the lock goes with COMMIT or
 * ROLLBACK (a killed writer's too). Waiting for it is bounded by
 * lock_timeout (INV_BUSY_TIMEOUT_MS, set at open). */
static int pg_begin_write(struct invb_conn *conn)
{
	struct pg_conn *c = conn_of(conn);

	if (pg_run(c, "BEGIN; SELECT pg_advisory_xact_lock(" PG_WRITE_LOCK_KEY ")")) {
		char kept[PG_ERRMSG_MAX];

		memcpy(kept, c->errmsg, sizeof(kept));
		pg_run(c, "ROLLBACK");
		memcpy(c->errmsg, kept, sizeof(kept));
		return -1;
	}
	return 0;
}

static int pg_in_transaction(struct invb_conn *conn)
{
	return PQtransactionStatus(conn_of(conn)->pg) != PQTRANS_IDLE;
}

static int pg_commit(struct invb_conn *conn)
{
	return pg_run(conn_of(conn), "COMMIT");
}

static void pg_rollback(struct invb_conn *conn)
{
	if (pg_in_transaction(conn))
		pg_run(conn_of(conn), "ROLLBACK");
}

int invb_pg_renumber(const char *sql, char **ret_sql, int *ret_nparams)
{
	struct br_buf out;
	int max = 0, rc = 0;
	const char *p = sql;

	br_buf_init(&out, 0);
	while (*p && !rc) {
		if (*p == '\'' || *p == '"') {
			/* A literal or a quoted name, its doubled quotes included:
			 * a '?' inside is text, not a parameter. */
			char q = *p;
			const char *end = p + 1;

			while (*end && !(*end == q && end[1] != q))
				end += *end == q ? 2 : 1;
			if (*end)
				end++;
			rc = br_buf_add(&out, p, (size_t)(end - p));
			p = end;
		} else if (p[0] == '-' && p[1] == '-') {
			size_t len = strcspn(p, "\n");

			rc = br_buf_add(&out, p, len);
			p += len;
		} else if (*p == '?') {
			long n;

			p++;
			if (*p >= '0' && *p <= '9') {
				char *end;

				errno = 0;
				n = strtol(p, &end, 10);
				if (errno || n < 1 || n > 32766)
					rc = -1;
				p = end;
			} else {
				/* SQLite gives a bare ? one more than the largest
				 * number used so far. */
				n = max + 1;
			}
			if (!rc) {
				if (n > max)
					max = (int)n;
				rc = br_buf_addf(&out, "$%ld", n);
			}
		} else {
			size_t len = strcspn(p, "'\"-?");

			rc = br_buf_add(&out, p, len ? len : 1);
			p += len ? len : 1;
		}
	}
	if (rc) {
		br_buf_release(&out);
		return -1;
	}
	*ret_sql = br_buf_detach(&out);
	*ret_nparams = max;
	return 0;
}

static int pg_prepare(struct invb_conn *conn, const char *sql, int keep, struct invb_stmt **ret_stmt)
{
	struct pg_conn *c = conn_of(conn);
	struct pg_stmt *st;
	char *text;
	int nparams;
	PGresult *res;

	(void)keep; /* every statement is prepared on the server alike */
	if (invb_pg_renumber(sql, &text, &nparams)) {
		set_error(c, "bad parameter number in statement");
		return -1;
	}
	st = br_xcalloc(1, sizeof(*st));
	st->base.ops = ops();
	st->c = c;
	snprintf(st->name, sizeof(st->name), "br%u", c->next_stmt++);
	res = PQprepare(c->pg, st->name, text, 0, NULL);
	free(text);
	if (PQresultStatus(res) != PGRES_COMMAND_OK) {
		failure_of(c, res);
		PQclear(res);
		free(st);
		return -1;
	}
	PQclear(res);
	st->nparams = nparams;
	if (nparams) {
		st->values = br_xcalloc((size_t)nparams, sizeof(*st->values));
		st->lengths = br_xcalloc((size_t)nparams, sizeof(*st->lengths));
		st->formats = br_xcalloc((size_t)nparams, sizeof(*st->formats));
		st->owned = br_xcalloc((size_t)nparams, sizeof(*st->owned));
	}
	st->row = -1;
	st->reads = !strncasecmp(sql + strspn(sql, " \t\n"), "SELECT", 6);
	*ret_stmt = &st->base;
	return 0;
}

static void pg_reset(struct invb_stmt *stmt)
{
	struct pg_stmt *st = stmt_of(stmt);

	PQclear(st->res);
	st->res = NULL;
	st->row = -1;
}

static void unbind(struct pg_stmt *st, int i)
{
	if (st->owned[i])
		free(st->values[i]);
	st->values[i] = NULL;
	st->owned[i] = 0;
	st->lengths[i] = 0;
	st->formats[i] = 0;
}

static void pg_clear_bindings(struct invb_stmt *stmt)
{
	struct pg_stmt *st = stmt_of(stmt);

	for (int i = 0; i < st->nparams; i++)
		unbind(st, i);
}

static void pg_finalize(struct invb_stmt *stmt)
{
	struct pg_stmt *st = stmt_of(stmt);
	char sql[64];

	pg_reset(stmt);
	pg_clear_bindings(stmt);
	/* A statement lives as long as the session; one that is not kept
	 * would pile up in the server's memory. Inside a transaction that
	 * already failed the server refuses even this, and forgets nothing
	 * until the session ends: harmless. */
	if (PQstatus(st->c->pg) == CONNECTION_OK && PQtransactionStatus(st->c->pg) != PQTRANS_INERROR) {
		snprintf(sql, sizeof(sql), "DEALLOCATE %s", st->name);
		PQclear(PQexec(st->c->pg, sql));
	}
	free(st->values);
	free(st->lengths);
	free(st->formats);
	free(st->owned);
	free(st);
}

static int bind_slot(struct pg_stmt *st, int idx)
{
	if (idx < 1 || idx > st->nparams)
		return -1;
	unbind(st, idx - 1);
	return idx - 1;
}

static int pg_bind_null(struct invb_stmt *stmt, int idx)
{
	return bind_slot(stmt_of(stmt), idx) < 0 ? -1 : 0;
}

static int bind_copy(struct pg_stmt *st, int idx, const char *data, size_t len, int binary)
{
	int i = bind_slot(st, idx);

	if (i < 0 || len > (size_t)INT32_MAX)
		return -1;
	st->values[i] = br_xmalloc(len + 1);
	memcpy(st->values[i], data, len);
	st->values[i][len] = '\0';
	st->owned[i] = 1;
	st->lengths[i] = (int)len;
	st->formats[i] = binary;
	return 0;
}

static int pg_bind_int64(struct invb_stmt *stmt, int idx, int64_t v)
{
	char text[32];
	int len = snprintf(text, sizeof(text), "%lld", (long long)v);

	return bind_copy(stmt_of(stmt), idx, text, (size_t)len, 0);
}

static int pg_bind_double(struct invb_stmt *stmt, int idx, double v)
{
	char text[40];
	int len = snprintf(text, sizeof(text), "%.17g", v);

	return bind_copy(stmt_of(stmt), idx, text, (size_t)len, 0);
}

static int pg_bind_text(struct invb_stmt *stmt, int idx, const char *s, int borrow)
{
	struct pg_stmt *st = stmt_of(stmt);
	int i;

	if (!borrow)
		return bind_copy(st, idx, s, strlen(s), 0);
	i = bind_slot(st, idx);
	if (i < 0)
		return -1;
	st->values[i] = (char *)(uintptr_t)s;
	return 0;
}

static int pg_bind_blob(struct invb_stmt *stmt, int idx, const void *data, size_t len)
{
	return bind_copy(stmt_of(stmt), idx, data, len, 1);
}

/* Whether a command's status names a statement that changes rows:
 * SQLite's changes() counts only INSERT, UPDATE and DELETE. */
static int changes_rows(const char *status)
{
	return !strncmp(status, "INSERT ", 7) || !strncmp(status, "UPDATE ", 7) ||
	       !strncmp(status, "DELETE ", 7);
}

/* The results of a pipeline of n queries up to its sync: the one of query
 * keep is the statement's, kept in *ret_res when it succeeded. The first
 * failure (a query before it, its own, or one after it) is recorded on c
 * and returned as a step answer, *ret_res then NULL; 0: none. */
static enum invb_step drain_pipeline(struct pg_conn *c, int n, int keep, PGresult **ret_res)
{
	enum invb_step why = 0;
	int query = 0;

	*ret_res = NULL;
	for (;;) {
		PGresult *res = PQgetResult(c->pg);
		ExecStatusType status;

		if (!res) {
			/* one NULL ends each query's results, then the sync */
			if (++query > n) {
				if (!why) {
					set_error(c, PQerrorMessage(c->pg));
					why = INVB_ERROR;
				}
				break;
			}
			continue;
		}
		status = PQresultStatus(res);
		if (status == PGRES_PIPELINE_SYNC) {
			PQclear(res);
			break;
		}
		if (status == PGRES_FATAL_ERROR && !why)
			why = failure_of(c, res);
		if (query == keep && !*ret_res && (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK))
			*ret_res = res;
		else
			PQclear(res);
	}
	if (why) {
		PQclear(*ret_res);
		*ret_res = NULL;
	}
	return why;
}

/* Run the statement; its result, or NULL with *ret_why (the error kept on
 * the connection). A statement that writes is sent in one pipeline (one
 * round trip) with what gives it SQLite's semantics:
 * - inside a transaction, in a savepoint, rolled back to on failure:
 *   SQLite undoes a failed statement alone and the transaction goes on
 *   (a caller may meet a constraint and carry on), where PostgreSQL would
 *   fail the whole transaction;
 * - outside one, in a transaction of its own under the writers' advisory
 *   lock (pg_begin_write): on SQLite a lone write too waits for the
 *   database's one write lock, so it never lands between another
 *   writer's reads and writes.
 * A SELECT runs bare: it fails only on a real error (a read meets no
 * constraint), which every caller answers by rolling back, and each
 * savepoint is a subtransaction the server keeps until the commit. */
static PGresult *run_prepared(struct pg_stmt *st, enum invb_step *ret_why)
{
	static const char *const in_tx[] = { "SAVEPOINT invb_step", "RELEASE SAVEPOINT invb_step" };
	static const char *const alone[] = { "BEGIN", "SELECT pg_advisory_xact_lock(" PG_WRITE_LOCK_KEY ")",
					     "COMMIT" };
	struct pg_conn *c = st->c;
	PGconn *pg = c->pg;
	const char *const *values = (const char *const *)st->values;
	PGTransactionStatusType tx = PQtransactionStatus(pg);
	const char *const *around = tx == PQTRANS_INTRANS ? in_tx : alone;
	int before = tx == PQTRANS_INTRANS ? 1 : 2, sent = 1;
	PGresult *res;

	if (st->reads || (tx != PQTRANS_INTRANS && tx != PQTRANS_IDLE)) {
		res = PQexecPrepared(pg, st->name, st->nparams, values, st->lengths, st->formats, 0);
		if (PQresultStatus(res) == PGRES_COMMAND_OK || PQresultStatus(res) == PGRES_TUPLES_OK)
			return res;
		*ret_why = failure_of(c, res);
		PQclear(res);
		return NULL;
	}
	if (!PQenterPipelineMode(pg)) {
		*ret_why = failure_of(c, NULL);
		return NULL;
	}
	for (int i = 0; sent && i < before; i++)
		sent = PQsendQueryParams(pg, around[i], 0, NULL, NULL, NULL, NULL, 0);
	sent = sent && PQsendQueryPrepared(pg, st->name, st->nparams, values, st->lengths, st->formats, 0) &&
	       PQsendQueryParams(pg, around[before], 0, NULL, NULL, NULL, NULL, 0) && PQpipelineSync(pg);
	*ret_why = sent ? drain_pipeline(c, before + 2, before, &res) : failure_of(c, NULL);
	if (!sent)
		res = NULL;
	PQexitPipelineMode(pg);
	if (PQtransactionStatus(pg) != tx) /* the statement failed: undo it alone */
		PQclear(PQexec(pg, tx == PQTRANS_INTRANS
				       ? "ROLLBACK TO SAVEPOINT invb_step; RELEASE SAVEPOINT invb_step"
				       : "ROLLBACK"));
	return res;
}

static enum invb_step pg_step(struct invb_stmt *stmt)
{
	struct pg_stmt *st = stmt_of(stmt);

	if (!st->res) {
		enum invb_step why = INVB_ERROR;

		st->res = run_prepared(st, &why);
		if (!st->res)
			return why;
		if (changes_rows(PQcmdStatus(st->res)))
			st->c->changes = strtoll(PQcmdTuples(st->res), NULL, 10);
	}
	if (st->row + 1 < PQntuples(st->res)) {
		st->row++;
		return INVB_ROW;
	}
	st->row = PQntuples(st->res);
	return INVB_DONE;
}

static int on_row(struct pg_stmt *st, int col)
{
	return st->res && st->row >= 0 && st->row < PQntuples(st->res) && col >= 0 &&
	       col < PQnfields(st->res);
}

static int pg_column_is_null(struct invb_stmt *stmt, int col)
{
	struct pg_stmt *st = stmt_of(stmt);

	return !on_row(st, col) || PQgetisnull(st->res, st->row, col);
}

static const char *pg_column_text(struct invb_stmt *stmt, int col)
{
	struct pg_stmt *st = stmt_of(stmt);

	return pg_column_is_null(stmt, col) ? NULL : PQgetvalue(st->res, st->row, col);
}

static size_t pg_column_bytes(struct invb_stmt *stmt, int col)
{
	struct pg_stmt *st = stmt_of(stmt);

	return pg_column_is_null(stmt, col) ? 0 : (size_t)PQgetlength(st->res, st->row, col);
}

/* Numbers come as text; a boolean (t or f) reads as 1 or 0, as SQLite's
 * integers do. */
static int64_t pg_column_int64(struct invb_stmt *stmt, int col)
{
	const char *s = pg_column_text(stmt, col);

	if (!s)
		return 0;
	if (!strcmp(s, "t"))
		return 1;
	return strtoll(s, NULL, 10);
}

static double pg_column_double(struct invb_stmt *stmt, int col)
{
	const char *s = pg_column_text(stmt, col);

	return s ? strtod(s, NULL) : 0;
}

static int64_t pg_changes(struct invb_conn *conn)
{
	return conn_of(conn)->changes;
}

/* bringup_schema holds one row; a database without the table is new.
 * Two queries: a statement naming a table that is not there fails at
 * parse time, whatever guards it. */
static int pg_schema_version(struct invb_conn *conn)
{
	struct pg_conn *c = conn_of(conn);
	PGresult *res = PQexec(c->pg, "SELECT to_regclass('bringup_schema') IS NOT NULL");
	int v = -1;

	if (PQresultStatus(res) == PGRES_TUPLES_OK && PQntuples(res) == 1 &&
	    strcmp(PQgetvalue(res, 0, 0), "t")) {
		PQclear(res);
		return 0;
	}
	if (PQresultStatus(res) == PGRES_TUPLES_OK) {
		PQclear(res);
		res = PQexec(c->pg, "SELECT COALESCE(max(version), 0) FROM bringup_schema");
	}
	if (PQresultStatus(res) == PGRES_TUPLES_OK && PQntuples(res) == 1)
		v = atoi(PQgetvalue(res, 0, 0));
	else
		failure_of(c, res);
	PQclear(res);
	return v;
}

static int pg_set_schema_version(struct invb_conn *conn, int version)
{
	char sql[160];

	snprintf(sql, sizeof(sql),
		 "CREATE TABLE IF NOT EXISTS bringup_schema (version INTEGER NOT NULL);"
		 "DELETE FROM bringup_schema; INSERT INTO bringup_schema VALUES (%d)",
		 version);
	return pg_exec(conn, sql);
}

/* PostgreSQL keeps its own write-ahead log. */
static int pg_checkpoint(struct invb_conn *conn)
{
	return 0;
}

static int pg_set_autocheckpoint(struct invb_conn *conn, int pages)
{
	return 0;
}

/* SQLite's json_each, as hwpart.c reads it: the type names of SQLite's
 * json_each (integer and real apart, true and false as types) and the
 * value as JSON text for containers, the scalar itself else. */
#define FACTS_MEMBERS_SQL                                                                                    \
	"SELECT j.key, CASE jsonb_typeof(j.value)"                                                           \
	"  WHEN 'boolean' THEN j.value #>> '{}'"                                                             \
	"  WHEN 'number' THEN CASE WHEN j.value #>> '{}' ~ '^-?[0-9]+$' THEN 'integer' ELSE 'real' END"      \
	"  WHEN 'string' THEN 'text' ELSE jsonb_typeof(j.value) END,"                                        \
	"  CASE WHEN jsonb_typeof(j.value) IN ('object', 'array') THEN j.value::text"                        \
	"  ELSE j.value #>> '{}' END"                                                                        \
	" FROM hw_facts f, jsonb_each(f.facts) j WHERE f.node_id = ?1 AND j.key IN (?2, ?3)"

const struct invb_ops invb_pg_ops = {
	.name = "postgresql",
	.open = pg_open,
	.close = pg_close,
	.errmsg = pg_errmsg,
	.exec = pg_exec,
	.begin_write = pg_begin_write,
	.commit = pg_commit,
	.rollback = pg_rollback,
	.in_transaction = pg_in_transaction,
	.prepare = pg_prepare,
	.reset = pg_reset,
	.clear_bindings = pg_clear_bindings,
	.finalize = pg_finalize,
	.bind_null = pg_bind_null,
	.bind_int64 = pg_bind_int64,
	.bind_double = pg_bind_double,
	.bind_text = pg_bind_text,
	.bind_blob = pg_bind_blob,
	.step = pg_step,
	.column_is_null = pg_column_is_null,
	.column_text = pg_column_text,
	.column_bytes = pg_column_bytes,
	.column_int64 = pg_column_int64,
	.column_double = pg_column_double,
	.changes = pg_changes,
	.schema_version = pg_schema_version,
	.set_schema_version = pg_set_schema_version,
	.checkpoint = pg_checkpoint,
	.set_autocheckpoint = pg_set_autocheckpoint,
	.migrations = invb_pg_migrations,
	.sql_facts_members = FACTS_MEMBERS_SQL,
};
