/* The Redfish sessions stages hold on BMCs (inventory.h, schema step 16). */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "inv_private.h"

int inv_bmc_session_add(struct inv *inv, const char *hostname, const char *uri, struct br_err *err)
{
	char host[INV_HOST_MAX];
	struct invb_stmt *st;
	int64_t id;
	int rc;

	inv_this_host(host);
	if ((rc = inv_node_id(inv, hostname, &id, NULL, err)))
		return rc;
	rc = inv_prepare(inv,
			 "INSERT INTO bmc_sessions(node_id, uri, pid, host, pid_start, opened_at)"
			 " VALUES (?,?,?,?,?,?) ON CONFLICT (node_id, uri) DO UPDATE SET pid=excluded.pid,"
			 " host=excluded.host, pid_start=excluded.pid_start, opened_at=excluded.opened_at",
			 &st, err);
	if (rc)
		return rc;
	invb_bind_int64(st, 1, id);
	inv_bind_text(st, 2, uri);
	invb_bind_int64(st, 3, (int64_t)getpid());
	inv_bind_text(st, 4, host);
	invb_bind_int64(st, 5, inv_self_start());
	invb_bind_int64(st, 6, (int64_t)time(NULL));
	rc = invb_step(st) == INVB_DONE ? 0 : inv_dberr(inv, err, "record BMC session");
	inv_finalize(inv, st);
	return rc;
}

int inv_bmc_session_remove(struct inv *inv, const char *hostname, const char *uri, struct br_err *err)
{
	struct invb_stmt *st;
	int rc;

	rc = inv_prepare(
	    inv, "DELETE FROM bmc_sessions WHERE uri=? AND node_id=(SELECT id FROM nodes WHERE hostname=?)",
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
