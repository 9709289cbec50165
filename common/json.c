/* JSON helpers over jansson: capped parsing and borrowed path lookups. */
#include <math.h>
#include <string.h>

#include "common.h"

static size_t json_depth(json_t *v, size_t limit)
{
	size_t deepest = 0, d;

	if (limit == 0)
		return 1;
	if (json_is_object(v)) {
		const char *key;
		json_t *child;

		json_object_foreach(v, key, child) {
			d = json_depth(child, limit - 1);
			if (d > deepest)
				deepest = d;
		}
		return deepest + 1;
	}
	if (json_is_array(v)) {
		size_t i;
		json_t *child;

		json_array_foreach(v, i, child) {
			d = json_depth(child, limit - 1);
			if (d > deepest)
				deepest = d;
		}
		return deepest + 1;
	}
	return 0;
}

json_t *br_json_parse(const char *data, size_t len, size_t max, struct br_err *err)
{
	json_error_t jerr;
	json_t *doc;

	if (max && len > max) {
		br_errf(err, BR_E_TOOBIG, "JSON document of %zu bytes exceeds the %zu-byte cap", len, max);
		return NULL;
	}
	doc = json_loadb(data, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!doc) {
		br_errf(err, BR_E_PROTO, "invalid JSON at line %d column %d: %s", jerr.line, jerr.column,
			jerr.text);
		return NULL;
	}
	if (json_depth(doc, BR_JSON_DEPTH_MAX + 1) > BR_JSON_DEPTH_MAX) {
		json_decref(doc);
		br_errf(err, BR_E_TOOBIG, "JSON nested deeper than %d levels", BR_JSON_DEPTH_MAX);
		return NULL;
	}
	return doc;
}

json_t *br_json_load_file(const char *path, size_t max, struct br_err *err)
{
	char *data = NULL;
	size_t len = 0;
	json_t *doc;

	if (br_read_file(path, max, &data, &len, err))
		return NULL;
	doc = br_json_parse(data, len, max, err);
	if (!doc)
		br_err_prefix(err, "%s", path);
	free(data);
	return doc;
}

json_t *br_json_path(json_t *root, const char *path)
{
	json_t *cur = root;
	const char *p = path;

	while (cur && p && *p) {
		const char *slash = strchr(p, '/');
		size_t n = slash ? (size_t)(slash - p) : strlen(p);

		if (!json_is_object(cur))
			return NULL;
		cur = json_object_getn(cur, p, n);
		p = slash ? slash + 1 : NULL;
	}
	return cur;
}

const char *br_json_str(json_t *obj, const char *path)
{
	json_t *v = br_json_path(obj, path);

	return json_is_string(v) ? json_string_value(v) : NULL;
}

int64_t br_json_int(json_t *obj, const char *path, int64_t fallback)
{
	json_t *v = br_json_path(obj, path);

	if (json_is_integer(v))
		return (int64_t)json_integer_value(v);
	if (json_is_real(v) && isfinite(json_real_value(v)))
		return (int64_t)json_real_value(v);
	return fallback;
}

double br_json_num(json_t *obj, const char *path, double fallback)
{
	json_t *v = br_json_path(obj, path);

	return json_is_number(v) ? json_number_value(v) : fallback;
}

int br_json_print(FILE *f, json_t *doc)
{
	br_redact_json(doc); /* documents carry server text (reasons) */
	if (json_dumpf(doc, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15)) < 0)
		return BR_E_IO;
	fputc('\n', f);
	return 0;
}

json_t *br_json_string_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}
