/* What bringup-probe reported from the node itself: one document a node. */
#include <stdlib.h>

#include "inv_private.h"

int inv_store_probe(struct inv *inv, const char *hostname, const char *doc, struct br_err *err)
{
	sqlite3_stmt *st = NULL;
	int64_t id;
	int rc = inv_node_id(inv, hostname, &id, NULL, err);

	if (!rc)
		rc = inv_prepare(inv,
				 "INSERT INTO probe_facts(node_id, doc, collected_at)"
				 " VALUES (?1, ?2, strftime('%Y-%m-%dT%H:%M:%fZ','now'))"
				 " ON CONFLICT(node_id) DO UPDATE SET doc=excluded.doc, "
				 "collected_at=excluded.collected_at",
				 &st, err);
	if (!rc) {
		sqlite3_bind_int64(st, 1, id);
		inv_bind_text(st, 2, doc);
		if (sqlite3_step(st) != SQLITE_DONE)
			rc = inv_dberr(inv, err, "store probe facts");
	}
	inv_finalize(inv, st);
	return rc;
}

int inv_load_probe(struct inv *inv, const char *hostname, char **ret_doc, struct br_err *err)
{
	sqlite3_stmt *st = NULL;
	int64_t id;
	int rc = inv_node_id(inv, hostname, &id, NULL, err);

	if (!rc)
		rc = inv_prepare(inv, "SELECT doc FROM probe_facts WHERE node_id=?", &st, err);
	if (!rc) {
		sqlite3_bind_int64(st, 1, id);
		switch (sqlite3_step(st)) {
		case SQLITE_ROW:
			*ret_doc = inv_col_dup(st, 0);
			break;
		case SQLITE_DONE:
			rc = br_errf(err, BR_E_NOTFOUND, "%s: no probe facts stored", hostname);
			break;
		default:
			rc = inv_dberr(inv, err, "read probe facts");
		}
	}
	inv_finalize(inv, st);
	return rc;
}

int inv_node_set_installed_disk(struct inv *inv, const char *hostname, const char *serial, struct br_err *err)
{
	sqlite3_stmt *st = NULL;
	int rc = inv_prepare(inv, "UPDATE nodes SET installed_disk_serial=?2 WHERE hostname=?1", &st, err);

	if (!rc) {
		inv_bind_text(st, 1, hostname);
		inv_bind_text(st, 2, serial);
		if (sqlite3_step(st) != SQLITE_DONE)
			rc = inv_dberr(inv, err, "record the installed disk");
		else if (!sqlite3_changes(inv->db))
			rc = br_errf(err, BR_E_NOTFOUND, "no node '%s' in the inventory", hostname);
	}
	inv_finalize(inv, st);
	return rc;
}

int inv_node_installed_disk(struct inv *inv, const char *hostname, char **ret_serial, struct br_err *err)
{
	sqlite3_stmt *st = NULL;
	int rc = inv_prepare(inv, "SELECT installed_disk_serial FROM nodes WHERE hostname=?", &st, err);

	if (!rc) {
		inv_bind_text(st, 1, hostname);
		switch (sqlite3_step(st)) {
		case SQLITE_ROW:
			*ret_serial = inv_col_dup(st, 0);
			break;
		case SQLITE_DONE:
			rc = br_errf(err, BR_E_NOTFOUND, "no node '%s' in the inventory", hostname);
			break;
		default:
			rc = inv_dberr(inv, err, "read the installed disk");
		}
	}
	inv_finalize(inv, st);
	return rc;
}
