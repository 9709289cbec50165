/*
 * The PostgreSQL backend (backend.h), with backend_pg_stmt.c the only
 * files in bringup that call libpq (backend_pg.h). Statements are prepared on the server (PQprepare) under a
 * name of their own, their ?/?N parameters renumbered to $N, and run with text parameters and text results
 * (PQexecPrepared); a statement's rows are the whole result, read one by one by step. The schema version is a
 * row of its own table (bringup_schema), since PostgreSQL has no user_version.
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
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "backend_pg.h"
#include "inventory.h"

static const struct invb_ops *ops(void)
{
	return &invb_pg_ops;
}

void invb_pg_set_error(struct pg_conn *c, const char *msg)
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
enum invb_step invb_pg_failure(struct pg_conn *c, const PGresult *res)
{
	const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;

	invb_pg_set_error(c, res ? PQresultErrorMessage(res) : PQerrorMessage(c->pg));
	c->refused = state && !strncmp(state, "23", 2);
	if (!state)
		return INVB_ERROR;
	if (c->refused)
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

	invb_count(INVB_ROUND_TRIPS, 1);
	ExecStatusType status = PQresultStatus(res);
	int rc = 0;

	if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK && status != PGRES_EMPTY_QUERY) {
		invb_pg_failure(c, res);
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

/* The writers' lock statement (taken): "BEGIN; " before it, built once. */
static void set_lock(struct pg_conn *c, char *lock)
{
	free(c->begin_sql);
	c->begin_sql = br_xasprintf("BEGIN; %s", lock);
	c->lock_sql = c->begin_sql + strlen("BEGIN; ");
	free(lock);
}

static void pg_close(struct invb_conn *conn)
{
	if (!conn)
		return;
	PQfinish(conn_of(conn)->pg);
	free(conn_of(conn)->zones);
	free(conn_of(conn)->begin_sql);
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

static int pg_open(const char *where, unsigned flags, struct invb_conn **ret_conn, struct br_err *err)
{
	struct pg_conn *c;
	char set[160];
	int rc;

	*ret_conn = NULL;
	rc = invb_pg_check_conninfo(where, err);
	if (rc)
		return rc;
	set_default("PGSSLMODE", "verify-full");
	set_default("PGCONNECT_TIMEOUT", "10");
	c = br_xcalloc(1, sizeof(*c));
	c->base.ops = ops();
	set_lock(c, br_xstrdup(PG_WRITE_LOCK_SQL));
	c->pg = PQconnectdb(where);
	if (!c->pg || PQstatus(c->pg) != CONNECTION_OK) {
		invb_pg_set_error(c, c->pg ? PQerrorMessage(c->pg) : "out of memory");
		br_errf(err, BR_E_DB, "inventory %s: cannot connect: %s", where, c->errmsg);
		pg_close(&c->base);
		return BR_E_DB;
	}
	PQsetNoticeProcessor(c->pg, on_notice, NULL);
	/* Every wait on a lock, the writers' one included (pg_begin_write),
	 * ends after the busy timeout as SQLite's busy handler does; notices
	 * (an IF NOT EXISTS that found it) are not the operator's business. */
	/* A viewer (INV_OPEN_READONLY) writes nothing: the server refuses any
	 * write its transactions try, whatever the role may do. PostgreSQL
	 * never creates the database itself, so a missing one is an error
	 * either way. */
	snprintf(set, sizeof(set), "SET lock_timeout = %d; SET client_min_messages = warning%s",
		 INV_BUSY_TIMEOUT_MS,
		 flags & INV_OPEN_READONLY ? "; SET default_transaction_read_only = on" : "");
	if (pg_run(c, set)) {
		br_errf(err, BR_E_DB, "inventory %s: %s", where, c->errmsg);
		pg_close(&c->base);
		return BR_E_DB;
	}
	*ret_conn = &c->base;
	return 0;
}

static int pg_refused(struct invb_conn *conn)
{
	return conn_of(conn)->refused;
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

	if (pg_run(c, c->begin_sql)) {
		char kept[PG_ERRMSG_MAX];

		memcpy(kept, c->errmsg, sizeof(kept));
		pg_run(c, "ROLLBACK");
		memcpy(c->errmsg, kept, sizeof(kept));
		return -1;
	}
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Zone names are checked where they are read (letters, digits, '.', '_',
 * '-'): one with anything else here is a caller's bug, refused. */
static int zone_name_ok(const char *z)
{
	return *z &&
	       strspn(z, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") == strlen(z);
}

/* Writers of zones (backend.h): the writers' lock shared, then each zone's
 * alone, in name order (every writer takes them in that order: none waits
 * on another that waits on it). */
static int pg_set_zones(struct invb_conn *conn, const char *zones)
{
	struct pg_conn *c = conn_of(conn);
	char *copy = br_xstrdup(zones ? zones : ""), **names = NULL, *save = NULL;
	size_t n = 0;
	struct br_buf sql, list;

	for (char *z = strtok_r(copy, ",", &save); z; z = strtok_r(NULL, ",", &save)) {
		if (!zone_name_ok(z)) {
			snprintf(c->errmsg, sizeof(c->errmsg), "'%s' is not a zone's name", z);
			free(names);
			free(copy);
			return -1;
		}
		names = br_xrealloc(names, (n + 1) * sizeof(*names));
		names[n++] = z;
	}
	free(c->zones);
	c->zones = NULL;
	if (!n) {
		set_lock(c, br_xstrdup(PG_WRITE_LOCK_SQL));
		free(copy);
		return 0;
	}
	qsort(names, n, sizeof(*names), cmp_str);
	br_buf_init(&sql, 0);
	br_buf_init(&list, 0);
	br_buf_addf(&sql, "SELECT pg_advisory_xact_lock_shared(" PG_WRITE_LOCK_KEY ")");
	for (size_t i = 0; i < n; i++) {
		if (i && !strcmp(names[i], names[i - 1]))
			continue;
		br_buf_addf(&sql, ", pg_advisory_xact_lock(" PG_ZONE_LOCK_CLASS ", hashtext('%s'))",
			    names[i]);
		br_buf_addf(&list, "%s%s", list.len ? "," : "", names[i]);
	}
	set_lock(c, br_buf_detach(&sql));
	c->zones = br_buf_detach(&list);
	br_buf_release(&sql);
	br_buf_release(&list);
	free(names);
	free(copy);
	return 0;
}

static int pg_try_zone(struct invb_conn *conn, const char *zone)
{
	struct pg_conn *c = conn_of(conn);
	char sql[160];
	PGresult *res;
	int rc;

	/* a writer of no zone, or of this one, holds what it needs; a node of
	 * no zone only writers of no zone write, and they are excluded now */
	if (!c->zones || !zone || !*zone || br_zones_have(c->zones, zone))
		return 1;
	if (!zone_name_ok(zone))
		return 0;
	snprintf(sql, sizeof(sql), "SELECT pg_try_advisory_xact_lock(" PG_ZONE_LOCK_CLASS ", hashtext('%s'))",
		 zone);
	res = PQexec(c->pg, sql);
	invb_count(INVB_ROUND_TRIPS, 1);
	if (PQresultStatus(res) != PGRES_TUPLES_OK || PQntuples(res) != 1) {
		invb_pg_failure(c, res);
		PQclear(res);
		return -1;
	}
	rc = !strcmp(PQgetvalue(res, 0, 0), "t");
	PQclear(res);
	return rc;
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

	invb_count(INVB_ROUND_TRIPS, 1);
	if (PQresultStatus(res) == PGRES_TUPLES_OK && PQntuples(res) == 1 &&
	    strcmp(PQgetvalue(res, 0, 0), "t")) {
		PQclear(res);
		return 0;
	}
	if (PQresultStatus(res) == PGRES_TUPLES_OK) {
		PQclear(res);
		res = PQexec(c->pg, "SELECT COALESCE(max(version), 0) FROM bringup_schema");
		invb_count(INVB_ROUND_TRIPS, 1);
	}
	if (PQresultStatus(res) == PGRES_TUPLES_OK && PQntuples(res) == 1)
		v = atoi(PQgetvalue(res, 0, 0));
	else
		invb_pg_failure(c, res);
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

/* The events table's trigger (schema_pg.c step 17) sends NOTIFY
 * bringup_events once per statement that records events; a follower
 * LISTENs on its own connection and sleeps on the socket until one comes.
 * Notifications already read off the socket are drained first. */
static int drain_notifies(struct pg_conn *c)
{
	PGnotify *n;
	int got = 0;

	while ((n = PQnotifies(c->pg))) {
		got = 1;
		PQfreemem(n);
	}
	return got;
}

static int pg_wait_event(struct invb_conn *conn, int timeout_ms)
{
	struct pg_conn *c = conn_of(conn);
	struct pollfd p = { 0 };
	int rc;

	if (!c->listening) {
		if (pg_run(c, "LISTEN bringup_events"))
			return -1;
		c->listening = 1;
	}
	if (!PQconsumeInput(c->pg)) {
		invb_pg_set_error(c, PQerrorMessage(c->pg));
		return -1;
	}
	if (drain_notifies(c))
		return 1;
	if (timeout_ms <= 0)
		return 0;
	p.fd = PQsocket(c->pg);
	p.events = POLLIN;
	rc = poll(&p, 1, timeout_ms);
	if (rc < 0 && errno != EINTR) {
		invb_pg_set_error(c, strerror(errno));
		return -1;
	}
	if (rc <= 0)
		return 0;
	if (!PQconsumeInput(c->pg)) {
		invb_pg_set_error(c, PQerrorMessage(c->pg));
		return -1;
	}
	return drain_notifies(c);
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
	.refused = pg_refused,
	.close = pg_close,
	.errmsg = pg_errmsg,
	.exec = pg_exec,
	.begin_write = pg_begin_write,
	.commit = pg_commit,
	.rollback = pg_rollback,
	.in_transaction = pg_in_transaction,
	.prepare = invb_pg_prepare,
	.reset = invb_pg_reset,
	.clear_bindings = invb_pg_clear_bindings,
	.finalize = invb_pg_finalize,
	.bind_null = invb_pg_bind_null,
	.bind_int64 = invb_pg_bind_int64,
	.bind_double = invb_pg_bind_double,
	.bind_text = invb_pg_bind_text,
	.bind_blob = invb_pg_bind_blob,
	.step = invb_pg_step,
	.column_is_null = invb_pg_column_is_null,
	.column_text = invb_pg_column_text,
	.column_bytes = invb_pg_column_bytes,
	.column_int64 = invb_pg_column_int64,
	.column_double = invb_pg_column_double,
	.changes = pg_changes,
	.schema_version = pg_schema_version,
	.set_schema_version = pg_set_schema_version,
	.checkpoint = pg_checkpoint,
	.set_autocheckpoint = pg_set_autocheckpoint,
	.migrations = invb_pg_migrations,
	.sql_facts_members = FACTS_MEMBERS_SQL,
	.wait_event = pg_wait_event,
	.set_zones = pg_set_zones,
	.try_zone = pg_try_zone,
	.sql_lock_node_macs = "SELECT pg_advisory_xact_lock(" PG_NAME_LOCK_CLASS ", k) FROM (SELECT DISTINCT"
			      " hashtext(mac) AS k FROM nics WHERE node_id = ?1 ORDER BY 1) s",
};
