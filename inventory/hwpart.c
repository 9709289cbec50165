/*
 * Reading back part of a node's stored facts. A stored document is tens
 * of KiB (BIOS attributes, sensors, SEL entries); configure needs only the
 * source and firmware, enlist only the drives and volumes, and parsing the
 * whole document for them cost a 512-node rack most of a second before
 * the first request. The backend's statement (invb_ops.sql_facts_members:
 * SQLite's json_each) picks the named top-level members out of the stored
 * text in one read of it, and only they are parsed, by the same br_hw_from_json as a whole document: the same
 * results and the same errors as inv_load_hw, for those members.
 */
#include <stdlib.h>
#include <string.h>

#include "hwjson.h"
#include "inv_private.h"

/* The same bound as a whole stored document (hwload.c): anything near it
 * is damage, not a server. */
#define INV_PART_JSON_MAX (64u * 1024 * 1024)

/* One member row (key, type, value) as a jansson value. */
static json_t *member_value(struct invb_stmt *st, struct br_err *err)
{
	const char *type = invb_column_text(st, 1);
	const char *text = invb_column_text(st, 2);

	if (!type)
		return json_null();
	if (!strcmp(type, "object") || !strcmp(type, "array"))
		return br_json_parse(text ? text : "", (size_t)invb_column_bytes(st, 2), INV_PART_JSON_MAX,
				     err);
	if (!strcmp(type, "text"))
		return json_string(text ? text : "");
	if (!strcmp(type, "integer"))
		return json_integer(invb_column_int64(st, 2));
	if (!strcmp(type, "real"))
		return json_real(invb_column_double(st, 2));
	if (!strcmp(type, "true"))
		return json_true();
	if (!strcmp(type, "false"))
		return json_false();
	return json_null();
}

/* The two members named, into hw (initialised here; released with
 * br_hw_release). A node never discovered has nothing known and no error. */
static int load_part(struct inv *inv, const char *hostname, const char *name, const char *other_name,
		     struct br_hw *hw, struct br_err *err)
{
	json_t *doc = json_object();
	struct invb_stmt *st = NULL;
	int64_t id;
	int rc, step = INVB_DONE;

	br_hw_init(hw);
	rc = inv_node_id(inv, hostname, &id, NULL, err);
	if (!rc)
		rc = inv_prepare(inv, inv->db->ops->sql_facts_members, &st, err);
	if (!rc) {
		invb_bind_int64(st, 1, id);
		inv_bind_text(st, 2, name);
		inv_bind_text(st, 3, other_name);
		while (!rc && (step = invb_step(st)) == INVB_ROW) {
			const char *key = invb_column_text(st, 0);
			json_t *v = member_value(st, err);

			if (!v)
				rc = err ? err->code : BR_E_INVAL;
			else
				json_object_set_new(doc, key ? key : "", v);
		}
		if (!rc && step != INVB_DONE)
			rc = inv_dberr(inv, err, "read stored facts");
		inv_finalize(inv, st);
	}
	if (!rc)
		rc = br_hw_from_json(doc, hw, err);
	json_decref(doc);
	if (rc && rc != BR_E_NOTFOUND) {
		br_err_prefix(err, "inventory %s: stored facts of %s", inv->path, hostname);
		br_hw_release(hw);
		br_hw_init(hw);
	}
	return rc;
}

int inv_load_hw_disks(struct inv *inv, const char *hostname, struct br_hw *hw, struct br_err *err)
{
	return load_part(inv, hostname, "drives", "volumes", hw, err);
}

int inv_load_hw_firmware(struct inv *inv, const char *hostname, struct br_hw *hw, struct br_err *err)
{
	return load_part(inv, hostname, "source", "firmware", hw, err);
}

int inv_load_hw_nics(struct inv *inv, const char *hostname, struct br_hw *hw, struct br_err *err)
{
	return load_part(inv, hostname, "nics", "unreadable", hw, err);
}

/* ---- the facts' source alone ---------------------------------------------- */

/* nodes.hw_source is written in the same transaction as the facts document
 * (hwstore.c: update_node beside put_facts), and the document of schema
 * step 4 was built from it: the column is the document's "source" without
 * reading the document. */
int inv_hw_source(struct inv *inv, const char *hostname, char **ret_source, struct br_err *err)
{
	struct invb_stmt *st;
	int rc;

	rc = inv_prepare(inv, "SELECT hw_source FROM nodes WHERE hostname = ?", &st, err);
	if (rc)
		return rc;
	inv_bind_text(st, 1, hostname);
	rc = invb_step(st);
	if (rc == INVB_ROW) {
		*ret_source = inv_col_dup(st, 0);
		rc = 0;
	} else if (rc == INVB_DONE) {
		rc = br_errf(err, BR_E_NOTFOUND, "no node named '%s' in the inventory", hostname);
	} else {
		rc = inv_dberr(inv, err, "read the facts' source");
	}
	inv_finalize(inv, st);
	return rc;
}

int inv_load_hw_neighbors(struct inv *inv, const char *hostname, struct br_hw *hw, struct br_err *err)
{
	return load_part(inv, hostname, "neighbors", "neighbor_source", hw, err);
}
