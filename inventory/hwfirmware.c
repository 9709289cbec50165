/* Reading back only a node's firmware inventory and the facts' source,
 * for configure's firmware policy: SQLite's JSON functions pick them out
 * of the stored document, where inv_load_hw parses all of it (tens of KiB
 * per node: a millisecond each, most of configure's start on a rack). */
#include <stdlib.h>
#include <string.h>

#include "inv_private.h"

/* The document's top-level members configure needs, in one read of it:
 * the facts are tens of KiB in overflow pages, and every mention of the
 * column in a statement copies them out again. */
#define TOP_SQL                                                                                              \
	"SELECT j.key, j.type, j.value FROM hw_facts f, json_each(f.facts) j"                                \
	" WHERE f.node_id = ? AND j.key IN ('source', 'firmware')"
/* Each member of the firmware array (its text, bound), in order. A field
 * is kept only when it is a JSON string (true for updateable), as
 * br_hw_from_json does; o is the member only when it is an object, as
 * json_type() refuses a bare string's text. */
#define MEMBERS_SQL                                                                                          \
	"SELECT type, iif(json_type(o, '$.id') = 'text', o ->> '$.id', NULL),"                               \
	" iif(json_type(o, '$.name') = 'text', o ->> '$.name', NULL),"                                       \
	" iif(json_type(o, '$.version') = 'text', o ->> '$.version', NULL),"                                 \
	" json_type(o, '$.updateable') = 'true'"                                                             \
	" FROM (SELECT j.id AS jid, j.type AS type, iif(j.type = 'object', j.value, NULL) AS o"              \
	"  FROM json_each(?) j) ORDER BY jid"

static char *text_or_null(sqlite3_stmt *st, int col)
{
	const char *s = (const char *)sqlite3_column_text(st, col);

	return s && sqlite3_column_type(st, col) == SQLITE_TEXT ? br_xstrdup(s) : NULL;
}

/* hw->source and the firmware array's text (*ret_fw, NULL when absent). */
static int read_top(struct inv *inv, int64_t id, struct br_hw *hw, char **ret_fw, struct br_err *err)
{
	sqlite3_stmt *st;
	int rc, step;

	rc = inv_prepare(inv, TOP_SQL, &st, err);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, id);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		const char *key = (const char *)sqlite3_column_text(st, 0);
		const char *type = (const char *)sqlite3_column_text(st, 1);
		char **field = key && !strcmp(key, "source") ? &hw->source : ret_fw;

		free(*field);
		*field = NULL;
		if (field == ret_fw && type && strcmp(type, "array")) {
			rc = br_errf(err, BR_E_INVAL, "hw JSON: 'firmware' is not an array");
			break;
		}
		if (type && (field == ret_fw || !strcmp(type, "text")))
			*field = text_or_null(st, 2);
	}
	if (!rc && step != SQLITE_DONE)
		rc = inv_dberr(inv, err, "read stored facts");
	inv_finalize(inv, st);
	return rc;
}

static int read_members(struct inv *inv, const char *fw, struct br_hw *hw, struct br_err *err)
{
	sqlite3_stmt *st;
	size_t row = 0;
	int rc, step;

	rc = inv_prepare(inv, MEMBERS_SQL, &st, err);
	if (rc)
		return rc;
	inv_bind_text(st, 1, fw);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		const char *type = (const char *)sqlite3_column_text(st, 0);
		struct br_firmware *f;

		if (!type || strcmp(type, "object")) {
			rc = br_errf(err, BR_E_INVAL, "hw JSON: firmware[%zu] is not an object", row);
			break;
		}
		f = br_hw_add_firmware(hw);
		f->id = text_or_null(st, 1);
		f->name = text_or_null(st, 2);
		f->version = text_or_null(st, 3);
		f->updateable = sqlite3_column_int(st, 4) != 0;
		row++;
	}
	if (!rc && step != SQLITE_DONE)
		rc = inv_dberr(inv, err, "read stored firmware");
	inv_finalize(inv, st);
	return rc;
}

int inv_load_hw_firmware(struct inv *inv, const char *hostname, struct br_hw *hw, struct br_err *err)
{
	char *fw = NULL;
	int64_t id;
	int rc;

	br_hw_init(hw);
	rc = inv_node_id(inv, hostname, &id, NULL, err);
	if (!rc)
		rc = read_top(inv, id, hw, &fw, err);
	if (!rc && fw) /* no row at all: never discovered, nothing known */
		rc = read_members(inv, fw, hw, err);
	free(fw);
	if (rc && rc != BR_E_NOTFOUND) {
		br_err_prefix(err, "inventory %s: stored facts of %s", inv->path, hostname);
		br_hw_release(hw);
		br_hw_init(hw);
	}
	return rc;
}
