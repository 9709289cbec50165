/* The Redfish sessions stages hold on BMCs (inventory.h, schema step 16). */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "inv_private.h"

/* Recorded the moment the BMC answered the login, and before the session's
 * first use: until this commits, a kill leaves a session nobody knows of.
 * One statement (the node's id looked up inside it) that waits for no other
 * writer (INVB_SQL_UNLOCKED): on PostgreSQL a write under the writers' lock
 * queued behind the stages running beside this one (configure, enlist) and
 * a rack's logins, answered at once, were recorded one after another, ~4 ms
 * each; a kill 16 ms after the answers found 3 of 7 not yet recorded, left
 * open on their BMCs by every later run (t6005). */
int inv_bmc_session_add(struct inv *inv, const char *hostname, const char *uri, struct br_err *err)
{
	char host[INV_HOST_MAX];
	struct invb_stmt *st;
	int rc;

	inv_this_host(host);
	rc = inv_prepare(inv,
			 INVB_SQL_UNLOCKED
			 "INSERT INTO bmc_sessions(node_id, uri, pid, host, pid_start, opened_at)"
			 " SELECT id, ?, ?, ?, ?, ? FROM nodes WHERE hostname = ?"
			 " ON CONFLICT (node_id, uri) DO UPDATE SET pid=excluded.pid,"
			 " host=excluded.host, pid_start=excluded.pid_start, opened_at=excluded.opened_at",
			 &st, err);
	if (rc)
		return rc;
	inv_bind_text(st, 1, uri);
	invb_bind_int64(st, 2, (int64_t)getpid());
	inv_bind_text(st, 3, host);
	invb_bind_int64(st, 4, inv_self_start());
	invb_bind_int64(st, 5, (int64_t)time(NULL));
	inv_bind_text(st, 6, hostname);
	rc = invb_step(st) == INVB_DONE ? 0 : inv_dberr(inv, err, "record BMC session");
	if (!rc && invb_changes(inv->db) == 0)
		rc = br_errf(err, BR_E_NOTFOUND, "no node named '%s' in the inventory", hostname);
	inv_finalize(inv, st);
	return rc;
}

int inv_bmc_session_remove(struct inv *inv, const char *hostname, const char *uri, struct br_err *err)
{
	struct invb_stmt *st;
	int rc;

	rc = inv_prepare(
	    inv,
	    INVB_SQL_UNLOCKED
	    "DELETE FROM bmc_sessions WHERE uri=? AND node_id=(SELECT id FROM nodes WHERE hostname=?)",
	    &st, err);
	if (rc)
		return rc;
	inv_bind_text(st, 1, uri);
	inv_bind_text(st, 2, hostname);
	rc = invb_step(st) == INVB_DONE ? 0 : inv_dberr(inv, err, "forget BMC session");
	inv_finalize(inv, st);
	return rc;
}

void inv_bmc_sessions_free(struct inv_bmc_session *s, size_t n)
{
	for (size_t i = 0; s && i < n; i++) {
		free(s[i].hostname);
		free(s[i].uri);
	}
	free(s);
}

static int drop_expired(struct inv *inv, int64_t before, struct br_err *err)
{
	struct invb_stmt *st;
	int rc = inv_prepare(inv, "DELETE FROM bmc_sessions WHERE opened_at < ?", &st, err);

	if (rc)
		return rc;
	invb_bind_int64(st, 1, before);
	rc = invb_step(st) == INVB_DONE ? 0 : inv_dberr(inv, err, "drop expired BMC sessions");
	inv_finalize(inv, st);
	return rc;
}

int inv_bmc_sessions_orphaned(struct inv *inv, struct inv_bmc_session **ret, size_t *ret_n,
			      struct br_err *err)
{
	struct inv_bmc_session *out = NULL;
	size_t n = 0, cap = 0;
	char host[INV_HOST_MAX];
	struct invb_stmt *st;
	int rc, step;

	*ret = NULL;
	*ret_n = 0;
	inv_this_host(host);
	if ((rc = drop_expired(inv, (int64_t)time(NULL) - INV_BMC_SESSION_MAX_AGE_S, err)))
		return rc;
	rc = inv_prepare(inv,
			 "SELECT s.id, n.hostname, s.uri, s.pid, s.host, s.pid_start, s.opened_at"
			 " FROM bmc_sessions s JOIN nodes n ON n.id = s.node_id WHERE s.host = ?"
			 " ORDER BY n.hostname, s.id",
			 &st, err);
	if (rc)
		return rc;
	inv_bind_text(st, 1, host);
	while ((step = invb_step(st)) == INVB_ROW) {
		const char *holder = invb_column_text(st, 4);

		if (inv_holder_alive((long)invb_column_int64(st, 3), invb_column_int64(st, 5),
				     holder ? holder : "", host))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 16;
			out = br_xrealloc(out, cap * sizeof(*out));
		}
		out[n].id = invb_column_int64(st, 0);
		out[n].hostname = inv_col_dup(st, 1);
		out[n].uri = inv_col_dup(st, 2);
		out[n].opened_at = invb_column_int64(st, 6);
		if (!out[n].hostname || !out[n].uri) {
			free(out[n].hostname);
			free(out[n].uri);
			continue;
		}
		n++;
	}
	rc = step == INVB_DONE ? 0 : inv_dberr(inv, err, "read BMC sessions");
	inv_finalize(inv, st);
	if (rc) {
		inv_bmc_sessions_free(out, n);
		return rc;
	}
	*ret = out;
	*ret_n = n;
	return 0;
}
