/* Opening the inventory: the backend, transactions, statement helpers,
 * migrations. */
#define _DEFAULT_SOURCE
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "inv_private.h"

int invb_is_pg(const char *where)
{
	size_t key;

	if (!strncmp(where, "postgresql://", 13) || !strncmp(where, "postgres://", 11))
		return 1;
	/* libpq's keyword form: it begins with a keyword and '='. */
	key = strspn(where, "abcdefghijklmnopqrstuvwxyz_");
	while (key && where[key] == ' ')
		key++;
	return key && where[key] == '=';
}

const struct invb_ops *invb_for(const char *where)
{
	return invb_is_pg(where) ? &invb_pg_ops : &invb_sqlite_ops;
}

int inv_check_where(const char *path, struct br_err *err)
{
	return invb_is_pg(path) ? invb_pg_check_conninfo(path, err) : 0;
}

int inv_dberr(struct inv *inv, struct br_err *err, const char *what)
{
	return br_errf(err, invb_refused(inv->db) ? BR_E_REFUSED : BR_E_DB, "inventory %s: %s: %s", inv->path,
		       what, invb_errmsg(inv->db));
}

int inv_exec(struct inv *inv, const char *sql, struct br_err *err)
{
	if (invb_exec(inv->db, sql))
		return br_errf(err, invb_refused(inv->db) ? BR_E_REFUSED : BR_E_DB, "inventory %s: %s",
			       inv->path, invb_errmsg(inv->db));
	return 0;
}

int inv_prepare(struct inv *inv, const char *sql, struct invb_stmt **ret_stmt, struct br_err *err)
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
		invb_reset(s->st);
		invb_clear_bindings(s->st);
		s->in_use = 1;
		*ret_stmt = s->st;
		return 0;
	}
	/* Every statement text once per connection, for scripts/pg-check-sql
	 * (-vv): the statements a run sends, checked against PostgreSQL. */
	br_debug("inventory", "prepare: %s", sql);
	if (invb_prepare(inv->db, sql, cache, ret_stmt))
		return inv_dberr(inv, err, "prepare");
	if (cache) {
		inv->stmts = br_xrealloc(inv->stmts, (inv->n_stmts + 1) * sizeof(*inv->stmts));
		inv->stmts[inv->n_stmts++] = (struct inv_stmt){ br_xstrdup(sql), *ret_stmt, 1 };
	}
	return 0;
}

void inv_finalize(struct inv *inv, struct invb_stmt *st)
{
	if (!st)
		return;
	for (size_t i = 0; i < inv->n_stmts; i++)
		if (inv->stmts[i].st == st) {
			invb_reset(st);
			inv->stmts[i].in_use = 0;
			return;
		}
	invb_finalize(st);
}

int inv_tx_begin(struct inv *inv, struct br_err *err)
{
	if (invb_begin_write(inv->db))
		return br_errf(err, BR_E_DB, "inventory %s: %s", inv->path, invb_errmsg(inv->db));
	return 0;
}

int inv_tx_commit(struct inv *inv, struct br_err *err)
{
	if (invb_commit(inv->db))
		return br_errf(err, BR_E_DB, "inventory %s: %s", inv->path, invb_errmsg(inv->db));
	return 0;
}

void inv_tx_rollback(struct inv *inv)
{
	invb_rollback(inv->db);
}

void inv_now(char out[INV_TIME_LEN])
{
	struct timespec ts;
	struct tm tm;
	size_t len;

	clock_gettime(CLOCK_REALTIME, &ts);
	len = gmtime_r(&ts.tv_sec, &tm) ? strftime(out, INV_TIME_LEN, "%Y-%m-%dT%H:%M:%S", &tm) : 0;
	if (!len) {
		snprintf(out, INV_TIME_LEN, "1970-01-01T00:00:00.000Z");
		return;
	}
	snprintf(out + len, INV_TIME_LEN - len, ".%03dZ", (int)(ts.tv_nsec / 1000000L));
}

int inv_bind_now(struct invb_stmt *st, int idx)
{
	char now[INV_TIME_LEN];

	inv_now(now);
	return invb_bind_text(st, idx, now);
}

char *inv_col_dup(struct invb_stmt *st, int col)
{
	const char *s = invb_column_text(st, col);

	return s ? br_xstrdup(s) : NULL;
}

char *inv_reason_as_stored(const char *reason)
{
	char *clean = br_redact(reason), *capped = br_xstrdup_capped(clean, INV_REASON_MAX);

	free(clean);
	return capped;
}

int inv_bind_reason(struct invb_stmt *st, int idx, const char *reason)
{
	char *capped = inv_reason_as_stored(reason);
	int rc = invb_bind_text(st, idx, capped);

	free(capped);
	return rc;
}

int inv_bind_text(struct invb_stmt *st, int idx, const char *s)
{
	return invb_bind_text(st, idx, s);
}

/* A read-only open migrates nothing: a database behind this bringup's
 * schema is one a writing command has to bring forward first. */
static int check_version(struct inv *inv, struct br_err *err)
{
	int version = inv_schema_version(inv);

	if (version < 0)
		return inv_dberr(inv, err, "read schema version");
	if (version == 0)
		return br_errf(err, BR_E_DB, "inventory %s: not a bringup inventory (no schema)", inv->path);
	if (version > INV_SCHEMA_VERSION)
		return br_errf(
		    err, BR_E_DB,
		    "inventory %s: schema version %d is newer than this bringup (%d); upgrade bringup",
		    inv->path, version, INV_SCHEMA_VERSION);
	if (version < INV_SCHEMA_VERSION)
		return br_errf(err, BR_E_STATE,
			       "inventory %s: schema version %d, this bringup reads %d: a command that "
			       "writes (bringup import, any stage) migrates it; a read-only one cannot",
			       inv->path, version, INV_SCHEMA_VERSION);
	return 0;
}

/* The zones this process writes for (inv_set_writer_zones); a forked
 * worker has its parent's. */
static char *writer_zones;

void inv_set_writer_zones(const char *zones)
{
	free(writer_zones);
	writer_zones = zones && *zones ? br_xstrdup(zones) : NULL;
}

int inv_zoned(const struct inv *inv)
{
	return inv->zoned;
}

int inv_try_zone(struct inv *inv, const char *zone, struct br_err *err)
{
	int rc = inv_zoned(inv) ? inv->db->ops->try_zone(inv->db, zone) : 1;

	if (rc < 0)
		inv_dberr(inv, err, "take a zone's write lock");
	return rc;
}

int inv_open_with(const char *path, unsigned flags, struct inv **ret_inv, struct br_err *err)
{
	struct inv *inv = br_xcalloc(1, sizeof(*inv));
	int rc;

	invb_counts_init();
	inv->path = br_xstrdup(path);
	inv->flags = flags;
	rc = invb_for(path)->open(path, flags, &inv->db, err);
	if (rc)
		goto fail;
	rc = flags & INV_OPEN_READONLY ? check_version(inv, err) : inv_migrate(inv, err);
	if (rc)
		goto fail;
	/* after the migration, which writes alone */
	if (writer_zones && inv->db->ops->set_zones && !(flags & INV_OPEN_READONLY)) {
		if (inv->db->ops->set_zones(inv->db, writer_zones)) {
			rc = br_errf(err, BR_E_INVAL, "inventory %s: zones %s: %s", inv->path, writer_zones,
				     invb_errmsg(inv->db));
			goto fail;
		}
		inv->zoned = 1;
	}
	*ret_inv = inv;
	return 0;
fail:
	inv_close(inv);
	return rc;
}

int inv_open(const char *path, struct inv **ret_inv, struct br_err *err)
{
	return inv_open_with(path, 0, ret_inv, err);
}

int inv_readonly(const struct inv *inv)
{
	return !!(inv->flags & INV_OPEN_READONLY);
}

void inv_close(struct inv *inv)
{
	if (!inv)
		return;
	for (size_t i = 0; i < inv->n_stmts; i++) {
		invb_finalize(inv->stmts[i].st);
		free(inv->stmts[i].sql);
	}
	free(inv->stmts);
	if (inv->db)
		inv->db->ops->close(inv->db);
	free(inv->path);
	free(inv);
}

const char *inv_path(const struct inv *inv)
{
	return inv->path;
}

const char *inv_backend_name(const struct inv *inv)
{
	return inv->db->ops->name;
}

int inv_schema_version(struct inv *inv)
{
	return inv->db->ops->schema_version(inv->db);
}

int inv_node_lookup(struct inv *inv, const char *hostname, int64_t *ret_id, enum inv_state *ret_state,
		    char **ret_reason, struct br_err *err)
{
	struct invb_stmt *st;
	int rc;

	rc = inv_prepare(inv, "SELECT id, state, reason FROM nodes WHERE hostname = ?", &st, err);
	if (rc)
		return rc;
	inv_bind_text(st, 1, hostname);
	rc = invb_step(st);
	if (rc == INVB_ROW) {
		const char *state = invb_column_text(st, 1);

		rc = 0;
		if (ret_state && inv_state_parse(state, ret_state))
			rc = br_errf(err, BR_E_INVAL,
				     "inventory %s: node '%s': state: '%s' is not a state (a corrupted row)",
				     inv->path, hostname, state ? state : "NULL");
		*ret_id = invb_column_int64(st, 0);
		if (!rc && ret_reason)
			*ret_reason = inv_col_dup(st, 2);
	} else if (rc == INVB_DONE) {
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
	struct invb_stmt *st;
	int rc;

	/* Every state change and note of a node comes here: the fence of a
	 * stage's writes under its lease (lease.c). */
	rc = inv_lease_fence(inv, node_id, err);
	if (rc)
		return rc;
	rc = inv_prepare(inv,
			 "INSERT INTO events(node_id, from_state, to_state, reason, at) "
			 "VALUES (?, ?, ?, ?, ?)",
			 &st, err);
	if (rc)
		return rc;
	invb_bind_int64(st, 1, node_id);
	inv_bind_text(st, 2, from_state);
	inv_bind_text(st, 3, to_state);
	if (forced(node_id))
		noted = reason ? br_xasprintf("%s: %s", INV_FORCED, reason) : br_xstrdup(INV_FORCED);
	inv_bind_reason(st, 4, noted ? noted : reason);
	inv_bind_now(st, 5);
	rc = invb_step(st) == INVB_DONE ? 0 : inv_dberr(inv, err, "record event");
	inv_finalize(inv, st);
	free(noted);
	return rc;
}

/* ---- checkpoints ------------------------------------------------------------ */

int inv_checkpoint(struct inv *inv, struct br_err *err)
{
	if (inv->db->ops->checkpoint(inv->db))
		return inv_dberr(inv, err, "checkpoint");
	return 0;
}

int inv_set_autocheckpoint(struct inv *inv, int pages, struct br_err *err)
{
	if (inv->db->ops->set_autocheckpoint(inv->db, pages))
		return inv_dberr(inv, err, "set the automatic checkpoint");
	return 0;
}

/* ---- migrations ------------------------------------------------------------- */

/* Every step after the database's version, each in its own transaction. */
int inv_migrate(struct inv *inv, struct br_err *err)
{
	const struct invb_ops *ops = inv->db->ops;
	int version = inv_schema_version(inv);
	int rc;

	if (version < 0)
		return inv_dberr(inv, err, "read schema version");
	if (version > INV_SCHEMA_VERSION)
		return br_errf(
		    err, BR_E_DB,
		    "inventory %s: schema version %d is newer than this bringup (%d); upgrade bringup",
		    inv->path, version, INV_SCHEMA_VERSION);
	for (int v = version; v < INV_SCHEMA_VERSION; v++) {
		rc = inv_tx_begin(inv, err);
		if (rc)
			return rc;
		/* Re-read under the write lock: another process may have migrated. */
		if (inv_schema_version(inv) > v) {
			inv_tx_rollback(inv);
			continue;
		}
		rc = inv_exec(inv, ops->migrations[v], err);
		if (!rc && ops->set_schema_version(inv->db, v + 1))
			rc = inv_dberr(inv, err, "set schema version");
		if (!rc)
			rc = inv_tx_commit(inv, err);
		if (rc) {
			inv_tx_rollback(inv);
			return br_err_prefix(err, "migration to schema version %d", v + 1);
		}
		if (v > 0)
			br_info("inventory", "%s: migrated schema to version %d", inv->path, v + 1);
	}
	return 0;
}
