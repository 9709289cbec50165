/* Check results: what each stage judged about a node. */
#include <stdlib.h>
#include <string.h>

#include "inv_private.h"

static const char *const result_names[] = {
	[INV_CHECK_PASS] = "pass",
	[INV_CHECK_FAIL] = "fail",
	[INV_CHECK_UNKNOWN] = "unknown",
};

const char *inv_check_result_name(enum inv_check_result r)
{
	return (unsigned)r <= INV_CHECK_UNKNOWN ? result_names[r] : "unknown";
}

static enum inv_check_result result_parse(const char *s)
{
	for (unsigned i = 0; i <= INV_CHECK_UNKNOWN; i++)
		if (s && !strcmp(s, result_names[i]))
			return (enum inv_check_result)i;
	return INV_CHECK_UNKNOWN;
}

void inv_checks_free(struct inv_check *checks, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(checks[i].name);
		free(checks[i].detail);
		free(checks[i].at);
		free(checks[i].component);
	}
	free(checks);
}

static int checks_insert(struct inv *inv, int64_t id, const char *stage, const struct inv_check *checks,
			 size_t n, struct br_err *err)
{
	struct invb_stmt *ins = NULL;
	int rc = inv_prepare(inv,
			     "INSERT INTO check_results(node_id, stage, name, result, detail, component, at)"
			     " VALUES (?,?,?,?,?,?,?) ON CONFLICT (node_id, name) DO UPDATE SET"
			     " stage=excluded.stage, result=excluded.result, detail=excluded.detail,"
			     " component=excluded.component, at=excluded.at",
			     &ins, err);
	for (size_t i = 0; i < n && !rc; i++) {
		invb_reset(ins);
		invb_bind_int64(ins, 1, id);
		inv_bind_text(ins, 2, stage);
		inv_bind_text(ins, 3, checks[i].name);
		inv_bind_text(ins, 4, inv_check_result_name(checks[i].result));
		inv_bind_text(ins, 5, checks[i].detail);
		inv_bind_text(ins, 6, checks[i].component);
		inv_bind_now(ins, 7);
		if (invb_step(ins) != INVB_DONE)
			rc = inv_dberr(inv, err, "store check result");
	}
	inv_finalize(inv, ins);
	return rc;
}

int inv_checks_write(struct inv *inv, int64_t id, const char *stage, const struct inv_check *checks, size_t n,
		     struct br_err *err)
{
	struct invb_stmt *del = NULL;
	int rc = inv_lease_fence(inv, id, err);

	if (rc)
		return rc;
	rc = inv_prepare(inv, "DELETE FROM check_results WHERE node_id=? AND stage=?", &del, err);

	if (!rc) {
		invb_bind_int64(del, 1, id);
		inv_bind_text(del, 2, stage);
		if (invb_step(del) != INVB_DONE)
			rc = inv_dberr(inv, err, "clear check results");
	}
	inv_finalize(inv, del);
	return rc ? rc : checks_insert(inv, id, stage, checks, n, err);
}

int inv_check_replace(struct inv *inv, const char *hostname, const char *stage, const struct inv_check *check,
		      struct br_err *err)
{
	int64_t id;
	int rc = inv_tx_begin(inv, err);

	if (rc)
		return rc;
	rc = inv_node_id(inv, hostname, &id, NULL, err);
	if (!rc)
		rc = inv_lease_fence(inv, id, err);
	if (!rc)
		rc = checks_insert(inv, id, stage, check, 1, err);
	if (!rc)
		rc = inv_tx_commit(inv, err);
	if (rc)
		inv_tx_rollback(inv);
	return rc;
}

int inv_checks_put(struct inv *inv, const char *hostname, const char *stage, const struct inv_check *checks,
		   size_t n, struct br_err *err)
{
	int64_t id;
	int rc;

	rc = inv_tx_begin(inv, err);
	if (rc)
		return rc;
	rc = inv_node_id(inv, hostname, &id, NULL, err);
	if (!rc)
		rc = inv_checks_write(inv, id, stage, checks, n, err);
	if (!rc)
		rc = inv_tx_commit(inv, err);
	if (rc)
		inv_tx_rollback(inv);
	return rc;
}

int inv_node_checks(struct inv *inv, int64_t node_id, struct inv_check **ret_checks, size_t *ret_n,
		    struct br_err *err)
{
	struct inv_check *c = NULL;
	size_t n = 0;
	struct invb_stmt *st;
	int rc;

	rc = inv_prepare(
	    inv,
	    "SELECT name, result, detail, at, component FROM check_results WHERE node_id=? ORDER BY name",
	    &st, err);
	if (rc)
		return rc;
	invb_bind_int64(st, 1, node_id);
	while ((rc = invb_step(st)) == INVB_ROW) {
		c = br_xrealloc(c, (n + 1) * sizeof(*c));
		c[n].name = inv_col_dup(st, 0);
		c[n].result = result_parse(invb_column_text(st, 1));
		c[n].detail = inv_col_dup(st, 2);
		c[n].at = inv_col_dup(st, 3);
		c[n].component = inv_col_dup(st, 4);
		n++;
	}
	rc = rc == INVB_DONE ? 0 : inv_dberr(inv, err, "read check results");
	inv_finalize(inv, st);
	if (rc) {
		inv_checks_free(c, n);
		return rc;
	}
	*ret_checks = c;
	*ret_n = n;
	return 0;
}
