/* Reading back only a node's firmware inventory and the facts' source,
 * for configure's firmware policy: SQLite's JSON functions pick them out
 * of the stored document, where inv_load_hw parses all of it (tens of KiB
 * per node: a millisecond each, most of configure's start on a rack). */
#include <stdlib.h>
#include <string.h>

#include "inv_private.h"

/* json_each over the stored array, in its order; one row with the
 * firmware columns NULL when the node has none. A member's field is kept
 * only when it is a JSON string (true for updateable), as br_hw_from_json
 * does; o is the member only when it is an object, as json_type() refuses
 * a bare string's text. */
#define FIRMWARE_SQL                                                                                         \
	"SELECT src_type, src, fw_type, type, iif(json_type(o, '$.id') = 'text', o ->> '$.id', NULL),"       \
	" iif(json_type(o, '$.name') = 'text', o ->> '$.name', NULL),"                                       \
	" iif(json_type(o, '$.version') = 'text', o ->> '$.version', NULL),"                                 \
	" json_type(o, '$.updateable') = 'true'"                                                             \
	" FROM (SELECT json_type(f.facts, '$.source') AS src_type, f.facts ->> '$.source' AS src,"           \
	"  json_type(f.facts, '$.firmware') AS fw_type, j.id AS jid, j.type AS type,"                        \
	"  iif(j.type = 'object', j.value, NULL) AS o"                                                       \
	"  FROM hw_facts f LEFT JOIN json_each(f.facts, '$.firmware') j WHERE f.node_id = ?)"                \
	" ORDER BY jid"

static char *text_or_null(sqlite3_stmt *st, int col)
{
	const char *s = (const char *)sqlite3_column_text(st, col);

	return s && sqlite3_column_type(st, col) == SQLITE_TEXT ? br_xstrdup(s) : NULL;
}

/* One row: the source once, then the firmware member it carries. */
static int take_row(sqlite3_stmt *st, struct br_hw *hw, size_t row, struct br_err *err)
{
	const char *fw_type = (const char *)sqlite3_column_text(st, 2);
	const char *type = (const char *)sqlite3_column_text(st, 3);
	const char *src_type = (const char *)sqlite3_column_text(st, 0);
	struct br_firmware *f;

	if (row == 0 && src_type && !strcmp(src_type, "text"))
		hw->source = text_or_null(st, 1);
	if (fw_type && strcmp(fw_type, "array"))
		return br_errf(err, BR_E_INVAL, "hw JSON: 'firmware' is not an array");
	if (!type)
		return 0; /* no firmware */
	if (strcmp(type, "object"))
		return br_errf(err, BR_E_INVAL, "hw JSON: firmware[%zu] is not an object", row);
	f = br_hw_add_firmware(hw);
	f->id = text_or_null(st, 4);
	f->name = text_or_null(st, 5);
	f->version = text_or_null(st, 6);
	f->updateable = sqlite3_column_int(st, 7) != 0;
	return 0;
}

int inv_load_hw_firmware(struct inv *inv, const char *hostname, struct br_hw *hw, struct br_err *err)
{
	sqlite3_stmt *st;
	size_t row = 0;
	int64_t id;
	int rc;

	br_hw_init(hw);
	rc = inv_node_id(inv, hostname, &id, NULL, err);
	if (rc)
		return rc;
	rc = inv_prepare(inv, FIRMWARE_SQL, &st, err);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		if ((rc = take_row(st, hw, row++, err)))
			break;
	if (rc == SQLITE_DONE)
		rc = 0; /* no rows: never discovered, nothing known */
	else if (rc > 0)
		rc = inv_dberr(inv, err, "read stored firmware");
	inv_finalize(inv, st);
	if (rc) {
		br_err_prefix(err, "inventory %s: stored facts of %s", inv->path, hostname);
		br_hw_release(hw);
		br_hw_init(hw);
	}
	return rc;
}
