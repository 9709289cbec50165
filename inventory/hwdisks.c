/*
 * Reading back only a node's drives and volumes. The boot-disk rule needs
 * nothing else, and enlist asks for them once per node before its first
 * MAAS request: building the whole stored document (tens of KiB of BIOS
 * attributes, sensors and SEL entries) cost a 512-node rack most of a
 * second there. SQLite picks the two arrays out of the stored text; only
 * they are parsed into a struct br_hw.
 */
#include <stdlib.h>
#include <string.h>

#include "hwjson.h"
#include "inv_private.h"

/* The same bound as a whole stored document (hwload.c): anything near it
 * is damage, not a server. */
#define INV_DISKS_JSON_MAX (64u * 1024 * 1024)

/* Column col (JSON text or NULL) as doc's member name. */
static int add_array(json_t *doc, sqlite3_stmt *st, int col, const char *name, struct br_err *err)
{
	const char *text = (const char *)sqlite3_column_text(st, col);
	json_t *v;

	if (!text)
		return 0;
	v = br_json_parse(text, (size_t)sqlite3_column_bytes(st, col), INV_DISKS_JSON_MAX, err);
	if (!v)
		return err ? err->code : BR_E_INVAL;
	json_object_set_new(doc, name, v);
	return 0;
}

int inv_load_hw_disks(struct inv *inv, const char *hostname, struct br_hw *hw, struct br_err *err)
{
	sqlite3_stmt *st;
	int64_t id;
	int rc;

	br_hw_init(hw);
	rc = inv_node_id(inv, hostname, &id, NULL, err);
	if (rc)
		return rc;
	rc = inv_prepare(inv,
			 "SELECT json_extract(facts, '$.drives'), json_extract(facts, '$.volumes')"
			 " FROM hw_facts WHERE node_id=?",
			 &st, err);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		json_t *doc = json_object();

		rc = add_array(doc, st, 0, "drives", err);
		if (!rc)
			rc = add_array(doc, st, 1, "volumes", err);
		if (!rc)
			rc = br_hw_from_json(doc, hw, err);
		json_decref(doc);
		if (rc)
			br_err_prefix(err, "inventory %s: stored facts of %s", inv->path, hostname);
	} else if (rc == SQLITE_DONE) {
		rc = 0; /* never discovered: nothing known */
	} else {
		rc = inv_dberr(inv, err, "read stored drives");
	}
	inv_finalize(inv, st);
	return rc;
}
