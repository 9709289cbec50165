/* Opening the inventory: pragmas, transactions, statement helpers. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "inv_private.h"

int inv_dberr(struct inv *inv, struct br_err *err, const char *what)
{
	return br_errf(err, BR_E_DB, "inventory %s: %s: %s", inv->path, what, sqlite3_errmsg(inv->db));
}

int inv_exec(struct inv *inv, const char *sql, struct br_err *err)
{
	char *msg = NULL;

	if (sqlite3_exec(inv->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		br_errf(err, BR_E_DB, "inventory %s: %s", inv->path, msg ? msg : sqlite3_errmsg(inv->db));
		sqlite3_free(msg);
		return BR_E_DB;
	}
	return 0;
}

int inv_prepare(struct inv *inv, const char *sql, sqlite3_stmt **ret_stmt, struct br_err *err)
{
	int cache = inv->n_stmts < INV_STMT_CACHE_MAX;

	for (size_t i = 0; i < inv->n_stmts; i++) {
		struct inv_stmt *s = &inv->stmts[i];

		if (strcmp(s->sql, sql))
			continue;
		if (s->in_use) { /* nested use of the same text: a private copy */
			cache = 0;
			break;
		}
		sqlite3_reset(s->st);
		sqlite3_clear_bindings(s->st);
		s->in_use = 1;
		*ret_stmt = s->st;
		return 0;
	}
	if (sqlite3_prepare_v3(inv->db, sql, -1, cache ? SQLITE_PREPARE_PERSISTENT : 0, ret_stmt, NULL) !=
	    SQLITE_OK)
		return inv_dberr(inv, err, "prepare");
	if (cache) {
		inv->stmts = br_xrealloc(inv->stmts, (inv->n_stmts + 1) * sizeof(*inv->stmts));
		inv->stmts[inv->n_stmts++] = (struct inv_stmt){ br_xstrdup(sql), *ret_stmt, 1 };
	}
	return 0;
}

void inv_finalize(struct inv *inv, sqlite3_stmt *st)
{
	if (!st)
		return;
	for (size_t i = 0; i < inv->n_stmts; i++)
		if (inv->stmts[i].st == st) {
			sqlite3_reset(st);
			inv->stmts[i].in_use = 0;
			return;
		}
	sqlite3_finalize(st);
}

/* Another connection holds the write lock. SQLite's own busy timeout sleeps
 * in steps of up to 100 ms; a stage whose workers each store a node in a
 * millisecond would spend its time asleep. Poll every 0.2-2 ms instead,
 * up to INV_BUSY_TIMEOUT_MS in all. */
static int busy_wait(void *ctx, int count)
{
	struct inv *inv = ctx;
	int64_t now = br_now_ms();
	long us = count < 10 ? 200L * (count + 1) : 2000L;

	if (count == 0)
		inv->busy_deadline_ms = now + INV_BUSY_TIMEOUT_MS;
	if (now >= inv->busy_deadline_ms)
		return 0;
	nanosleep(&(struct timespec){ 0, us * 1000L }, NULL);
	return 1;
}

int inv_tx_begin(struct inv *inv, struct br_err *err)
{
	return inv_exec(inv, "BEGIN IMMEDIATE", err);
}

int inv_tx_commit(struct inv *inv, struct br_err *err)
{
	return inv_exec(inv, "COMMIT", err);
}

void inv_tx_rollback(struct inv *inv)
{
	if (!sqlite3_get_autocommit(inv->db))
		sqlite3_exec(inv->db, "ROLLBACK", NULL, NULL, NULL);
}

char *inv_col_dup(sqlite3_stmt *st, int col)
{
	const unsigned char *s = sqlite3_column_text(st, col);

	return s ? br_xstrdup((const char *)s) : NULL;
}

char *inv_reason_as_stored(const char *reason)
{
	char *clean = br_redact(reason), *capped = br_xstrdup_capped(clean, INV_REASON_MAX);

	free(clean);
	return capped;
}

int inv_bind_reason(sqlite3_stmt *st, int idx, const char *reason)
{
	char *capped = inv_reason_as_stored(reason);

	if (!capped)
		return sqlite3_bind_null(st, idx);
	return sqlite3_bind_text(st, idx, capped, -1, free);
}

int inv_bind_text(sqlite3_stmt *st, int idx, const char *s)
{
	if (!s)
		return sqlite3_bind_null(st, idx);
	return sqlite3_bind_text(st, idx, s, -1, SQLITE_TRANSIENT);
}

int inv_open(const char *path, struct inv **ret_inv, struct br_err *err)
{
	struct inv *inv = br_xcalloc(1, sizeof(*inv));
	int rc;

	inv->path = br_xstrdup(path);
	if (sqlite3_open_v2(path, &inv->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
			    NULL) != SQLITE_OK) {
		rc = br_errf(err, BR_E_DB, "inventory %s: cannot open: %s", path,
			     inv->db ? sqlite3_errmsg(inv->db) : "out of memory");
		goto fail;
	}
	sqlite3_busy_handler(inv->db, busy_wait, inv);
	sqlite3_extended_result_codes(inv->db, 1);
	/* WAL: readers (bringup status) never block a running stage. */
	rc =
	    inv_exec(inv, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON;", err);
	if (rc)
		goto fail;
	rc = inv_migrate(inv, err);
	if (rc)
		goto fail;
	*ret_inv = inv;
	return 0;
fail:
	inv_close(inv);
	return rc;
}

void inv_close(struct inv *inv)
{
	if (!inv)
		return;
	for (size_t i = 0; i < inv->n_stmts; i++) {
		sqlite3_finalize(inv->stmts[i].st);
		free(inv->stmts[i].sql);
	}
	free(inv->stmts);
	sqlite3_close_v2(inv->db);
	free(inv->path);
	free(inv);
}

const char *inv_path(const struct inv *inv)
{
	return inv->path;
}

int inv_schema_version(struct inv *inv)
{
	sqlite3_stmt *st;
	int v = -1;

	if (sqlite3_prepare_v2(inv->db, "PRAGMA user_version", -1, &st, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return v;
}

int inv_node_lookup(struct inv *inv, const char *hostname, int64_t *ret_id, enum inv_state *ret_state,
		    char **ret_reason, struct br_err *err)
{
	sqlite3_stmt *st;
	int rc;

	rc = inv_prepare(inv, "SELECT id, state, reason FROM nodes WHERE hostname = ?", &st, err);
	if (rc)
		return rc;
	inv_bind_text(st, 1, hostname);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*ret_id = sqlite3_column_int64(st, 0);
		if (ret_state && inv_state_parse((const char *)sqlite3_column_text(st, 1), ret_state))
			*ret_state = INV_FAILED;
		if (ret_reason)
			*ret_reason = inv_col_dup(st, 2);
		rc = 0;
	} else if (rc == SQLITE_DONE) {
		rc = br_errf(err, BR_E_NOTFOUND, "no node named '%s' in the inventory", hostname);
	} else {
		rc = inv_dberr(inv, err, "look up node");
	}
	inv_finalize(inv, st);
	return rc;
}

int inv_node_id(struct inv *inv, const char *hostname, int64_t *ret_id, enum inv_state *ret_state,
		struct br_err *err)
{
	return inv_node_lookup(inv, hostname, ret_id, ret_state, NULL, err);
}

/* The nodes this process was told to take out of turn (--force). Kept per
 * process, not per connection: a stage's workers are forked after it
 * selects its nodes and open connections of their own, and their events
 * must say it too. */
static int64_t *forced_ids;
static size_t n_forced;

int inv_node_forced(struct inv *inv, const char *hostname, struct br_err *err)
{
	int64_t id;
	int rc = inv_node_id(inv, hostname, &id, NULL, err);

	if (rc)
		return rc;
	forced_ids = br_xrealloc(forced_ids, (n_forced + 1) * sizeof(*forced_ids));
	forced_ids[n_forced++] = id;
	return 0;
}

static int forced(int64_t node_id)
{
	for (size_t i = 0; i < n_forced; i++)
		if (forced_ids[i] == node_id)
			return 1;
	return 0;
}

int inv_event_add(struct inv *inv, int64_t node_id, const char *from_state, const char *to_state,
		  const char *reason, struct br_err *err)
{
	char *noted = NULL;
	sqlite3_stmt *st;
	int rc;

	rc = inv_prepare(inv,
			 "INSERT INTO events(node_id, from_state, to_state, reason, at) "
			 "VALUES (?, ?, ?, ?, strftime('%Y-%m-%dT%H:%M:%fZ','now'))",
			 &st, err);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, node_id);
	inv_bind_text(st, 2, from_state);
	inv_bind_text(st, 3, to_state);
	if (forced(node_id))
		noted = reason ? br_xasprintf("%s: %s", INV_FORCED, reason) : br_xstrdup(INV_FORCED);
	inv_bind_reason(st, 4, noted ? noted : reason);
	rc = sqlite3_step(st) == SQLITE_DONE ? 0 : inv_dberr(inv, err, "record event");
	inv_finalize(inv, st);
	free(noted);
	return rc;
}

/* ---- checkpoints ------------------------------------------------------------ */

int inv_checkpoint(struct inv *inv, struct br_err *err)
{
	if (sqlite3_wal_checkpoint_v2(inv->db, NULL, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL) != SQLITE_OK)
		return inv_dberr(inv, err, "checkpoint");
	return 0;
}

int inv_set_autocheckpoint(struct inv *inv, int pages, struct br_err *err)
{
	if (sqlite3_wal_autocheckpoint(inv->db, pages) != SQLITE_OK)
		return inv_dberr(inv, err, "set the automatic checkpoint");
	return 0;
}
