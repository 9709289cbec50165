/*
 * The PostgreSQL backend's statements (backend_pg.h): prepared on the
 * server under a name of their own, their ?/?N parameters renumbered to
 * $N, bound as text (a blob as bytes), run whole at the first step and
 * their rows read one by one; a write sent with what gives it SQLite's
 * semantics (run_prepared).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "backend_pg.h"
#include "inventory.h"

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

int invb_pg_prepare(struct invb_conn *conn, const char *sql, int keep, struct invb_stmt **ret_stmt)
{
	struct pg_conn *c = conn_of(conn);
	struct pg_stmt *st;
	char *text;
	int nparams;
	PGresult *res;

	(void)keep; /* every statement is prepared on the server alike */
	if (invb_pg_renumber(sql, &text, &nparams)) {
		invb_pg_set_error(c, "bad parameter number in statement");
		return -1;
	}
	st = br_xcalloc(1, sizeof(*st));
	st->base.ops = &invb_pg_ops;
	st->c = c;
	snprintf(st->name, sizeof(st->name), "br%u", c->next_stmt++);
	res = PQprepare(c->pg, st->name, text, 0, NULL);
	invb_count(INVB_ROUND_TRIPS, 1);
	free(text);
	if (PQresultStatus(res) != PGRES_COMMAND_OK) {
		invb_pg_failure(c, res);
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
	st->unlocked = !strncmp(sql, INVB_SQL_UNLOCKED, strlen(INVB_SQL_UNLOCKED));
	*ret_stmt = &st->base;
	return 0;
}

void invb_pg_reset(struct invb_stmt *stmt)
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

void invb_pg_clear_bindings(struct invb_stmt *stmt)
{
	struct pg_stmt *st = stmt_of(stmt);

	for (int i = 0; i < st->nparams; i++)
		unbind(st, i);
}

void invb_pg_finalize(struct invb_stmt *stmt)
{
	struct pg_stmt *st = stmt_of(stmt);
	char sql[64];

	invb_pg_reset(stmt);
	invb_pg_clear_bindings(stmt);
	/* A statement lives as long as the session; one that is not kept
	 * would pile up in the server's memory. Inside a transaction that
	 * already failed the server refuses even this, and forgets nothing
	 * until the session ends: harmless. */
	if (PQstatus(st->c->pg) == CONNECTION_OK && PQtransactionStatus(st->c->pg) != PQTRANS_INERROR) {
		snprintf(sql, sizeof(sql), "DEALLOCATE %s", st->name);
		PQclear(PQexec(st->c->pg, sql));
		invb_count(INVB_ROUND_TRIPS, 1);
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

int invb_pg_bind_null(struct invb_stmt *stmt, int idx)
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

int invb_pg_bind_int64(struct invb_stmt *stmt, int idx, int64_t v)
{
	char text[32];
	int len = snprintf(text, sizeof(text), "%lld", (long long)v);

	return bind_copy(stmt_of(stmt), idx, text, (size_t)len, 0);
}

int invb_pg_bind_double(struct invb_stmt *stmt, int idx, double v)
{
	char text[40];
	int len = snprintf(text, sizeof(text), "%.17g", v);

	return bind_copy(stmt_of(stmt), idx, text, (size_t)len, 0);
}

int invb_pg_bind_text(struct invb_stmt *stmt, int idx, const char *s, int borrow)
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

int invb_pg_bind_blob(struct invb_stmt *stmt, int idx, const void *data, size_t len)
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
					invb_pg_set_error(c, PQerrorMessage(c->pg));
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
			why = invb_pg_failure(c, res);
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
 * savepoint is a subtransaction the server keeps until the commit. So
 * does an INVB_SQL_UNLOCKED write outside a transaction: one round trip,
 * committed by the server on its own, never queued behind another
 * process's transaction. */
static PGresult *run_prepared(struct pg_stmt *st, enum invb_step *ret_why)
{
	static const char *const in_tx[] = { "SAVEPOINT invb_step", "RELEASE SAVEPOINT invb_step" };
	struct pg_conn *c = st->c;
	const char *const alone[] = { "BEGIN", c->lock_sql, "COMMIT" };
	PGconn *pg = c->pg;
	const char *const *values = (const char *const *)st->values;
	PGTransactionStatusType tx = PQtransactionStatus(pg);
	const char *const *around = tx == PQTRANS_INTRANS ? in_tx : alone;
	int before = tx == PQTRANS_INTRANS ? 1 : 2, sent = 1;
	PGresult *res;

	if (st->reads || (st->unlocked && tx == PQTRANS_IDLE) ||
	    (tx != PQTRANS_INTRANS && tx != PQTRANS_IDLE)) {
		res = PQexecPrepared(pg, st->name, st->nparams, values, st->lengths, st->formats, 0);
		invb_count(INVB_ROUND_TRIPS, 1);
		if (PQresultStatus(res) == PGRES_COMMAND_OK || PQresultStatus(res) == PGRES_TUPLES_OK)
			return res;
		*ret_why = invb_pg_failure(c, res);
		PQclear(res);
		return NULL;
	}
	if (!PQenterPipelineMode(pg)) {
		*ret_why = invb_pg_failure(c, NULL);
		return NULL;
	}
	for (int i = 0; sent && i < before; i++)
		sent = PQsendQueryParams(pg, around[i], 0, NULL, NULL, NULL, NULL, 0);
	sent = sent && PQsendQueryPrepared(pg, st->name, st->nparams, values, st->lengths, st->formats, 0) &&
	       PQsendQueryParams(pg, around[before], 0, NULL, NULL, NULL, NULL, 0) && PQpipelineSync(pg);
	*ret_why = sent ? drain_pipeline(c, before + 2, before, &res) : invb_pg_failure(c, NULL);
	if (!sent)
		res = NULL;
	invb_count(INVB_ROUND_TRIPS, 1); /* the pipeline: one wait for its sync */
	PQexitPipelineMode(pg);
	if (PQtransactionStatus(pg) != tx) { /* the statement failed: undo it alone */
		PQclear(PQexec(pg, tx == PQTRANS_INTRANS
				       ? "ROLLBACK TO SAVEPOINT invb_step; RELEASE SAVEPOINT invb_step"
				       : "ROLLBACK"));
		invb_count(INVB_ROUND_TRIPS, 1);
	} else if (res && tx == PQTRANS_IDLE) {
		invb_count(INVB_COMMITS, 1); /* a lone write, its own transaction */
	}
	return res;
}

enum invb_step invb_pg_step(struct invb_stmt *stmt)
{
	struct pg_stmt *st = stmt_of(stmt);

	if (!st->res) {
		enum invb_step why = INVB_ERROR;

		st->res = run_prepared(st, &why);
		if (!st->res)
			return why;
		if (changes_rows(PQcmdStatus(st->res))) {
			st->c->changes = strtoll(PQcmdTuples(st->res), NULL, 10);
			invb_count(INVB_ROWS_CHANGED, st->c->changes);
		}
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

int invb_pg_column_is_null(struct invb_stmt *stmt, int col)
{
	struct pg_stmt *st = stmt_of(stmt);

	return !on_row(st, col) || PQgetisnull(st->res, st->row, col);
}

const char *invb_pg_column_text(struct invb_stmt *stmt, int col)
{
	struct pg_stmt *st = stmt_of(stmt);

	return invb_pg_column_is_null(stmt, col) ? NULL : PQgetvalue(st->res, st->row, col);
}

size_t invb_pg_column_bytes(struct invb_stmt *stmt, int col)
{
	struct pg_stmt *st = stmt_of(stmt);

	return invb_pg_column_is_null(stmt, col) ? 0 : (size_t)PQgetlength(st->res, st->row, col);
}

/* Numbers come as text; a boolean (t or f) reads as 1 or 0, as SQLite's
 * integers do. */
int64_t invb_pg_column_int64(struct invb_stmt *stmt, int col)
{
	const char *s = invb_pg_column_text(stmt, col);

	if (!s)
		return 0;
	if (!strcmp(s, "t"))
		return 1;
	return strtoll(s, NULL, 10);
}

double invb_pg_column_double(struct invb_stmt *stmt, int col)
{
	const char *s = invb_pg_column_text(stmt, col);

	return s ? strtod(s, NULL) : 0;
}
