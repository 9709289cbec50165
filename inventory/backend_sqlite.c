/*
 * The SQLite backend (backend.h): the only file in bringup that calls
 * SQLite. A connection runs in WAL mode, so readers (bringup status) never
 * block a running stage, and waits for another writer by polling (busy_wait).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "backend.h"
#include "inventory.h"

struct sq_conn {
	struct invb_conn base;
	sqlite3 *db;
	int64_t busy_deadline_ms; /* while waiting for another writer */
	int64_t changes_counted;  /* of sqlite3_total_changes64, counted so far */
	char msg[320];		  /* sq_message's text */
};

/* SQLite's text of c's last error, and where the system said why (an
 * I/O error or a full database: "disk I/O error" alone does not say the
 * disk is full), the system's text after it. */
static const char *sq_message(struct sq_conn *c)
{
	int code, sys;

	if (!c->db)
		return "out of memory";
	code = sqlite3_extended_errcode(c->db) & 0xff;
	sys = sqlite3_system_errno(c->db);
	if (sys && (code == SQLITE_IOERR || code == SQLITE_FULL || code == SQLITE_CANTOPEN)) {
		snprintf(c->msg, sizeof(c->msg), "%s (%s)", sqlite3_errmsg(c->db), strerror(sys));
		return c->msg;
	}
	return sqlite3_errmsg(c->db);
}

struct sq_stmt {
	struct invb_stmt base;
	sqlite3_stmt *st;
	struct sq_conn *c;
	int running; /* stepped since its last reset */
};

static sqlite3 *db_of(struct invb_conn *c)
{
	return ((struct sq_conn *)c)->db;
}

static sqlite3_stmt *st_of(struct invb_stmt *st)
{
	return ((struct sq_stmt *)st)->st;
}

/* Another connection holds the write lock. SQLite's own busy timeout sleeps
 * in steps of up to 100 ms; a stage whose workers each store a node in a
 * millisecond would spend its time asleep. Poll every 0.2-2 ms instead,
 * up to INV_BUSY_TIMEOUT_MS in all. */
static int busy_wait(void *ctx, int count)
{
	struct sq_conn *c = ctx;
	int64_t now = br_now_ms();
	long us = count < 10 ? 200L * (count + 1) : 2000L;

	if (count == 0)
		c->busy_deadline_ms = now + INV_BUSY_TIMEOUT_MS;
	if (now >= c->busy_deadline_ms)
		return 0;
	nanosleep(&(struct timespec){ 0, us * 1000L }, NULL);
	return 1;
}

static const struct invb_ops *ops(void)
{
	return &invb_sqlite_ops;
}

/* Count the rows changed since the last count (backend.h's invb_count):
 * the connection's total, triggers' rows included. */
static void count_changes(struct sq_conn *c)
{
	int64_t total = sqlite3_total_changes64(c->db);

	if (total > c->changes_counted)
		invb_count(INVB_ROWS_CHANGED, total - c->changes_counted);
	c->changes_counted = total;
}

static void sq_close(struct invb_conn *conn)
{
	if (!conn)
		return;
	sqlite3_close_v2(db_of(conn));
	free(conn);
}

static int sq_exec(struct invb_conn *conn, const char *sql)
{
	int rc = sqlite3_exec(db_of(conn), sql, NULL, NULL, NULL);

	invb_count(INVB_ROUND_TRIPS, 1);
	count_changes((struct sq_conn *)conn);
	return rc == SQLITE_OK ? 0 : -1;
}

/* "file:" URI of path with immutable=1: every byte outside the
 * unreserved set percent-encoded (RFC 3986), so a '?' or '#' in a path
 * stays part of it. Caller frees. */
static char *immutable_uri(const char *path)
{
	struct br_buf b;
	char *out;

	br_buf_init(&b, 0);
	br_buf_adds(&b, "file:");
	for (const unsigned char *p = (const unsigned char *)path; *p; p++)
		if ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
		    strchr("/-._~", *p))
			br_buf_addf(&b, "%c", *p);
		else
			br_buf_addf(&b, "%%%02X", *p);
	br_buf_adds(&b, "?immutable=1");
	out = br_xstrdup(br_buf_str(&b));
	br_buf_release(&b);
	return out;
}

/* Read-only: nothing created, no journal mode set. A WAL database needs
 * its -shm file, which SQLite creates beside it; in a directory this user
 * cannot write, with no -wal file there (no writer at work, none left
 * unfinished), the file is read as it stands (immutable). */
static int sq_open_readonly(struct sq_conn *c, const char *where, struct br_err *err)
{
	struct stat sb;
	char *wal, *uri;
	int wal_there, rc;

	if (strcmp(where, ":memory:") && stat(where, &sb))
		return br_errf(err, errno == ENOENT ? BR_E_NOTFOUND : BR_E_DB,
			       "inventory %s: cannot open: %s%s", where, strerror(errno),
			       errno == ENOENT ? " (a command that only reads creates no inventory: check "
						 "--db and BRINGUP_DB, or import a manifest first)"
					       : "");
	if (sqlite3_open_v2(where, &c->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK)
		return br_errf(err, BR_E_DB, "inventory %s: cannot open: %s", where, sq_message(c));
	rc = sqlite3_exec(c->db, "SELECT count(*) FROM sqlite_master", NULL, NULL, NULL);
	if (rc == SQLITE_OK)
		return 0;
	if ((rc & 0xff) != SQLITE_READONLY && (rc & 0xff) != SQLITE_CANTOPEN)
		return br_errf(err, BR_E_DB, "inventory %s: cannot read: %s", where, sq_message(c));
	wal = br_xasprintf("%s-wal", where);
	wal_there = !access(wal, F_OK);
	free(wal);
	if (wal_there)
		return br_errf(err, BR_E_DB,
			       "inventory %s: cannot read: a writer's log (%s-wal) is there and this user "
			       "cannot create %s-shm beside it (read it as its owner, or let this user "
			       "write the directory)",
			       where, where, where);
	sqlite3_close_v2(c->db);
	c->db = NULL;
	uri = immutable_uri(where);
	rc = sqlite3_open_v2(uri, &c->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI, NULL);
	free(uri);
	if (rc != SQLITE_OK)
		return br_errf(err, BR_E_DB, "inventory %s: cannot open: %s", where, sq_message(c));
	return 0;
}

static int sq_open(const char *where, unsigned flags, struct invb_conn **ret_conn, struct br_err *err)
{
	struct sq_conn *c = br_xcalloc(1, sizeof(*c));

	*ret_conn = NULL;
	c->base.ops = ops();
	if (flags & INV_OPEN_READONLY) {
		int rc = sq_open_readonly(c, where, err);

		if (rc) {
			sq_close(&c->base);
			return rc;
		}
		sqlite3_busy_handler(c->db, busy_wait, c);
		sqlite3_extended_result_codes(c->db, 1);
		*ret_conn = &c->base;
		return 0;
	}
	if (sqlite3_open_v2(where, &c->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
			    NULL) != SQLITE_OK) {
		br_errf(err, BR_E_DB, "inventory %s: cannot open: %s", where, sq_message(c));
		sq_close(&c->base);
		return BR_E_DB;
	}
	sqlite3_busy_handler(c->db, busy_wait, c);
	sqlite3_extended_result_codes(c->db, 1);
	/* WAL: readers (bringup status) never block a running stage. */
	if (sq_exec(&c->base,
		    "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON;")) {
		br_errf(err, BR_E_DB, "inventory %s: %s", where, sq_message(c));
		sq_close(&c->base);
		return BR_E_DB;
	}
	*ret_conn = &c->base;
	return 0;
}

static const char *sq_errmsg(struct invb_conn *conn)
{
	return sq_message((struct sq_conn *)conn);
}

/* BEGIN IMMEDIATE takes the write lock at once, so a writer waits for the
 * busy handler at the start rather than failing half way through. */
static int sq_begin_write(struct invb_conn *conn)
{
	return sq_exec(conn, "BEGIN IMMEDIATE");
}

static int sq_commit(struct invb_conn *conn)
{
	return sq_exec(conn, "COMMIT");
}

static int sq_in_transaction(struct invb_conn *conn)
{
	return !sqlite3_get_autocommit(db_of(conn));
}

static void sq_rollback(struct invb_conn *conn)
{
	if (sq_in_transaction(conn))
		sqlite3_exec(db_of(conn), "ROLLBACK", NULL, NULL, NULL);
}

static int sq_prepare(struct invb_conn *conn, const char *sql, int keep, struct invb_stmt **ret_stmt)
{
	sqlite3_stmt *raw;
	struct sq_stmt *st;

	invb_count(INVB_ROUND_TRIPS, 1);
	if (sqlite3_prepare_v3(db_of(conn), sql, -1, keep ? SQLITE_PREPARE_PERSISTENT : 0, &raw, NULL) !=
	    SQLITE_OK)
		return -1;
	st = br_xcalloc(1, sizeof(*st));
	st->base.ops = ops();
	st->st = raw;
	st->c = (struct sq_conn *)conn;
	*ret_stmt = &st->base;
	return 0;
}

static void sq_reset(struct invb_stmt *st)
{
	struct sq_stmt *s = (struct sq_stmt *)st;

	sqlite3_reset(s->st);
	s->running = 0;
	count_changes(s->c);
}

static void sq_clear_bindings(struct invb_stmt *st)
{
	sqlite3_clear_bindings(st_of(st));
}

static void sq_finalize(struct invb_stmt *st)
{
	sqlite3_finalize(st_of(st));
	free(st);
}

static int ok(int sqlite_rc)
{
	return sqlite_rc == SQLITE_OK ? 0 : -1;
}

static int sq_bind_null(struct invb_stmt *st, int idx)
{
	return ok(sqlite3_bind_null(st_of(st), idx));
}

static int sq_bind_int64(struct invb_stmt *st, int idx, int64_t v)
{
	return ok(sqlite3_bind_int64(st_of(st), idx, v));
}

static int sq_bind_double(struct invb_stmt *st, int idx, double v)
{
	return ok(sqlite3_bind_double(st_of(st), idx, v));
}

static int sq_bind_text(struct invb_stmt *st, int idx, const char *s, int borrow)
{
	return ok(sqlite3_bind_text(st_of(st), idx, s, -1, borrow ? SQLITE_STATIC : SQLITE_TRANSIENT));
}

static int sq_bind_blob(struct invb_stmt *st, int idx, const void *data, size_t len)
{
	return ok(sqlite3_bind_blob64(st_of(st), idx, data, (sqlite3_uint64)len, SQLITE_TRANSIENT));
}

static enum invb_step sq_step(struct invb_stmt *st)
{
	struct sq_stmt *s = (struct sq_stmt *)st;
	int lone_write = 0, rc;

	if (!s->running) {
		s->running = 1;
		invb_count(INVB_ROUND_TRIPS, 1);
		/* a write outside a transaction commits on its own */
		lone_write = !sqlite3_stmt_readonly(s->st) && sqlite3_get_autocommit(s->c->db);
	}
	rc = sqlite3_step(s->st);
	count_changes(s->c);
	if (lone_write && ((rc & 0xff) == SQLITE_ROW || (rc & 0xff) == SQLITE_DONE))
		invb_count(INVB_COMMITS, 1);

	switch (rc & 0xff) {
	case SQLITE_ROW:
		return INVB_ROW;
	case SQLITE_DONE:
		return INVB_DONE;
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return INVB_BUSY;
	case SQLITE_CONSTRAINT:
		return INVB_CONSTRAINT;
	default:
		return INVB_ERROR;
	}
}

static int sq_column_is_null(struct invb_stmt *st, int col)
{
	return sqlite3_column_type(st_of(st), col) == SQLITE_NULL;
}

static const char *sq_column_text(struct invb_stmt *st, int col)
{
	return (const char *)sqlite3_column_text(st_of(st), col);
}

static size_t sq_column_bytes(struct invb_stmt *st, int col)
{
	return (size_t)sqlite3_column_bytes(st_of(st), col);
}

static int64_t sq_column_int64(struct invb_stmt *st, int col)
{
	return sqlite3_column_int64(st_of(st), col);
}

static double sq_column_double(struct invb_stmt *st, int col)
{
	return sqlite3_column_double(st_of(st), col);
}

static int sq_refused(struct invb_conn *conn)
{
	return (sqlite3_errcode(db_of(conn)) & 0xff) == SQLITE_CONSTRAINT;
}

static int64_t sq_changes(struct invb_conn *conn)
{
	return sqlite3_changes64(db_of(conn));
}

/* The version lives in the database header (PRAGMA user_version), where
 * every release so far kept it. */
static int sq_schema_version(struct invb_conn *conn)
{
	sqlite3_stmt *st;
	int v = -1;

	invb_count(INVB_ROUND_TRIPS, 1);
	if (sqlite3_prepare_v2(db_of(conn), "PRAGMA user_version", -1, &st, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return v;
}

static int sq_set_schema_version(struct invb_conn *conn, int version)
{
	char pragma[64];

	snprintf(pragma, sizeof(pragma), "PRAGMA user_version=%d", version);
	return sq_exec(conn, pragma);
}

static int sq_checkpoint(struct invb_conn *conn)
{
	return ok(sqlite3_wal_checkpoint_v2(db_of(conn), NULL, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL));
}

static int sq_set_autocheckpoint(struct invb_conn *conn, int pages)
{
	return ok(sqlite3_wal_autocheckpoint(db_of(conn), pages));
}

/* The names are bound one by one: with them as a JSON array unpacked by a
 * second json_each (IN (SELECT value FROM json_each(?))) the statement cost
 * twenty times as much per node (SQLite 3.40: 1.1 ms against 0.06 for a
 * 32 KiB document), most of configure's wait before its first request.
 * json_each reads the stored text once (every mention of the column in a
 * statement copies its overflow pages out again). */
#define FACTS_MEMBERS_SQL                                                                                    \
	"SELECT j.key, j.type, j.value FROM hw_facts f, json_each(f.facts) j"                                \
	" WHERE f.node_id = ?1 AND j.key IN (?2, ?3)"

const struct invb_ops invb_sqlite_ops = {
	.name = "sqlite",
	.open = sq_open,
	.close = sq_close,
	.errmsg = sq_errmsg,
	.exec = sq_exec,
	.begin_write = sq_begin_write,
	.commit = sq_commit,
	.rollback = sq_rollback,
	.in_transaction = sq_in_transaction,
	.prepare = sq_prepare,
	.reset = sq_reset,
	.clear_bindings = sq_clear_bindings,
	.finalize = sq_finalize,
	.bind_null = sq_bind_null,
	.bind_int64 = sq_bind_int64,
	.bind_double = sq_bind_double,
	.bind_text = sq_bind_text,
	.bind_blob = sq_bind_blob,
	.step = sq_step,
	.column_is_null = sq_column_is_null,
	.column_text = sq_column_text,
	.column_bytes = sq_column_bytes,
	.column_int64 = sq_column_int64,
	.column_double = sq_column_double,
	.changes = sq_changes,
	.refused = sq_refused,
	.schema_version = sq_schema_version,
	.set_schema_version = sq_set_schema_version,
	.checkpoint = sq_checkpoint,
	.set_autocheckpoint = sq_set_autocheckpoint,
	.migrations = invb_sqlite_migrations,
	.sql_facts_members = FACTS_MEMBERS_SQL,
};
