/* What bringup-probe reported from the node itself: one document a node. */
#include <stdlib.h>

#include "inv_private.h"

/* The probe document, within the caller's transaction (the fence and the
 * write see the same lease: inventory.h, fencing). */
int inv_probe_write(struct inv *inv, const char *hostname, const char *doc, struct br_err *err)
{
	struct invb_stmt *st = NULL;
	int64_t id;
	int rc = inv_node_id(inv, hostname, &id, NULL, err);

	if (!rc)
		rc = inv_lease_fence(inv, id, err);
	if (!rc)
		rc = inv_prepare(inv,
				 "INSERT INTO probe_facts(node_id, doc, collected_at)"
				 " VALUES (?1, ?2, ?3)"
				 " ON CONFLICT(node_id) DO UPDATE SET doc=excluded.doc, "
				 "collected_at=excluded.collected_at",
				 &st, err);
	if (!rc) {
		invb_bind_int64(st, 1, id);
		inv_bind_text(st, 2, doc);
		inv_bind_now(st, 3);
		if (invb_step(st) != INVB_DONE)
			rc = inv_dberr(inv, err, "store probe facts");
	}
	inv_finalize(inv, st);
	return rc;
}

int inv_store_probe(struct inv *inv, const char *hostname, const char *doc, struct br_err *err)
{
	int rc = inv_tx_begin(inv, err);

	if (!rc)
		rc = inv_probe_write(inv, hostname, doc, err);
	if (!rc)
		rc = inv_tx_commit(inv, err);
	if (rc)
		inv_tx_rollback(inv);
	return rc;
}

int inv_load_probe(struct inv *inv, const char *hostname, char **ret_doc, struct br_err *err)
{
	struct invb_stmt *st = NULL;
	int64_t id;
	int rc = inv_node_id(inv, hostname, &id, NULL, err);

	if (!rc)
		rc = inv_prepare(inv, "SELECT doc FROM probe_facts WHERE node_id=?", &st, err);
	if (!rc) {
		invb_bind_int64(st, 1, id);
		switch (invb_step(st)) {
		case INVB_ROW:
			*ret_doc = inv_col_dup(st, 0);
			break;
		case INVB_DONE:
			rc = br_errf(err, BR_E_NOTFOUND, "%s: no probe facts stored", hostname);
			break;
		default:
			rc = inv_dberr(inv, err, "read probe facts");
		}
	}
	inv_finalize(inv, st);
	return rc;
}

static int set_installed_disk(struct inv *inv, const char *hostname, const char *serial, struct br_err *err)
{
	struct invb_stmt *st = NULL;
	int64_t id;
	int rc = inv_node_id(inv, hostname, &id, NULL, err);

	if (!rc)
		rc = inv_lease_fence(inv, id, err);
	if (!rc)
		rc =
		    inv_prepare(inv, "UPDATE nodes SET installed_disk_serial=?2 WHERE hostname=?1", &st, err);

	if (!rc) {
		inv_bind_text(st, 1, hostname);
		inv_bind_text(st, 2, serial);
		if (invb_step(st) != INVB_DONE)
			rc = inv_dberr(inv, err, "record the installed disk");
		else if (!invb_changes(inv->db))
			rc = br_errf(err, BR_E_NOTFOUND, "no node '%s' in the inventory", hostname);
	}
	inv_finalize(inv, st);
	return rc;
}

int inv_node_set_installed_disk(struct inv *inv, const char *hostname, const char *serial, struct br_err *err)
{
	int rc = inv_tx_begin(inv, err);

	if (!rc)
		rc = set_installed_disk(inv, hostname, serial, err);
	if (!rc)
		rc = inv_tx_commit(inv, err);
	if (rc)
		inv_tx_rollback(inv);
	return rc;
}

int inv_node_installed_disk(struct inv *inv, const char *hostname, char **ret_serial, struct br_err *err)
{
	struct invb_stmt *st = NULL;
	int rc = inv_prepare(inv, "SELECT installed_disk_serial FROM nodes WHERE hostname=?", &st, err);

	if (!rc) {
		inv_bind_text(st, 1, hostname);
		switch (invb_step(st)) {
		case INVB_ROW:
			*ret_serial = inv_col_dup(st, 0);
			break;
		case INVB_DONE:
			rc = br_errf(err, BR_E_NOTFOUND, "no node '%s' in the inventory", hostname);
			break;
		default:
			rc = inv_dberr(inv, err, "read the installed disk");
		}
	}
	inv_finalize(inv, st);
	return rc;
}
