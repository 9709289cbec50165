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

		json_object_foreach(v, key, child)
		{
			d = json_depth(child, limit - 1);
			if (d > deepest)
				deepest = d;
		}
		return deepest + 1;
	}
	if (json_is_array(v)) {
		size_t i;
		json_t *child;

		json_array_foreach(v, i, child)
		{
			d = json_depth(child, limit - 1);
			if (d > deepest)
				deepest = d;
		}
		return deepest + 1;
	}
	return 0;
}

json_t *br_json_parse_shaped(const char *data, size_t len, size_t max, struct br_err *err)
{
	json_error_t jerr;
	json_t *doc;

	if (max && len > max) {
		br_errf(err, BR_E_TOOBIG, "JSON document of %zu bytes exceeds the %zu-byte cap", len, max);
		return NULL;
	}
	doc = json_loadb(data, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!doc)
		br_errf(err, BR_E_PROTO, "invalid JSON at line %d column %d: %s", jerr.line, jerr.column,
			jerr.text);
	return doc;
}

json_t *br_json_parse(const char *data, size_t len, size_t max, struct br_err *err)
{
	json_t *doc = br_json_parse_shaped(data, len, max, err);

	if (!doc)
		return NULL;
	if (json_depth(doc, BR_JSON_DEPTH_MAX + 1) > BR_JSON_DEPTH_MAX) {
		json_decref(doc);
		br_errf(err, BR_E_TOOBIG, "JSON nested deeper than %d levels", BR_JSON_DEPTH_MAX);
		return NULL;
	}
	return doc;
}

json_t *br_json_parse_bounded(const char *data, size_t len, size_t max_bytes, size_t max_values,
			      struct br_err *err)
{
	struct br_json_shape shape;

	if (max_bytes && len > max_bytes) {
		br_errf(err, BR_E_TOOBIG, "JSON document of %zu bytes exceeds the %zu-byte cap", len,
			max_bytes);
		return NULL;
	}
	br_json_shape(data, len, NULL, &shape);
	if (shape.values > max_values) {
		br_errf(err, BR_E_TOOBIG, "JSON document holds more than %zu values", max_values);
		return NULL;
	}
	if (shape.depth > BR_JSON_DEPTH_MAX) {
		br_errf(err, BR_E_TOOBIG, "JSON nested deeper than %d levels", BR_JSON_DEPTH_MAX);
		return NULL;
	}
	return br_json_parse_shaped(data, len, max_bytes, err);
}

/* The scan's place in the top-level object's key of interest. */
enum shape_key { KEY_NONE, KEY_NAMED, KEY_ARRAY };

void br_json_shape(const char *data, size_t len, const char *key, struct br_json_shape *ret)
{
	size_t key_len = key ? strlen(key) : 0, str_start = 0, str_len = 0;
	enum shape_key at_key = KEY_NONE;
	int depth = 0, in_string = 0, escaped = 0, elem_open = 0, last_str_at_1 = 0;

	*ret = (struct br_json_shape){ 1, 0, -1 };
	for (size_t i = 0; i < len; i++) {
		char c = data[i];

		if (in_string) {
			if (escaped)
				escaped = 0;
			else if (c == '\\')
				escaped = 1;
			else if (c == '"') {
				in_string = 0;
				str_len = i - str_start;
			}
			continue;
		}
		if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
			continue;
		if (at_key == KEY_ARRAY && depth == 2 && !elem_open && c != ']') {
			elem_open = 1; /* an element of the array begins */
			ret->key_elems++;
		}
		switch (c) {
		case '"':
			in_string = 1;
			str_start = i + 1;
			last_str_at_1 = depth == 1;
			break;
		case ':':
			/* a key of the top-level object just ended */
			if (depth == 1)
				at_key = last_str_at_1 && key && str_len == key_len &&
						 !memcmp(data + str_start, key, key_len)
					     ? KEY_NAMED
					     : KEY_NONE;
			break;
		case '{':
		case '[':
			ret->values++;
			if (++depth > ret->depth)
				ret->depth = depth;
			if (depth == 2 && at_key == KEY_NAMED && c == '[') {
				at_key = KEY_ARRAY;
				ret->key_elems = 0;
				elem_open = 0;
			} else if (depth == 2 && at_key == KEY_NAMED) {
				at_key = KEY_NONE;
			}
			break;
		case '}':
		case ']':
			if (depth == 2 && at_key == KEY_ARRAY)
				at_key = KEY_NONE;
			depth--;
			break;
		case ',':
			ret->values++;
			if (depth == 2 && at_key == KEY_ARRAY)
				elem_open = 0;
			break;
		default:
			break;
		}
	}
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
	/* A real out of int64_t's range (1e300 from a BMC) has no integer
	 * value: converting it would be undefined, so it is the fallback. */
	if (json_is_real(v) && json_real_value(v) >= -9.2e18 && json_real_value(v) <= 9.2e18)
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
