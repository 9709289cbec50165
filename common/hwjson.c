/* struct br_hw ↔ JSON, field for field (keys are the C field names). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hwjson.h"

/* BMCs send Latin-1 and garbage in FRU fields; jansson refuses invalid
 * UTF-8, so such strings come out with '?' for every non-ASCII byte. */
static json_t *str(const char *s)
{
	json_t *j = br_json_string_or_null(s);
	char *copy;

	if (j)
		return j;
	copy = br_xstrdup(s);
	for (char *p = copy; *p; p++)
		if ((unsigned char)*p >= 0x80)
			*p = '?';
	j = json_string(copy);
	free(copy);
	return j ? j : json_null();
}

/* -1 is hw.h's "unknown". */
static json_t *count(long long v)
{
	return v < 0 ? json_null() : json_integer(v);
}

static json_t *num(double v)
{
	return isnan(v) || isinf(v) ? json_null() : json_real(v);
}

/* One record as an object, by its field table. */
static json_t *record_json(const struct br_record *r, const void *item)
{
	json_t *o = json_object();

	for (size_t i = 0; i < r->n_fields; i++) {
		const struct br_field *f = &r->fields[i];
		const char *p = (const char *)item + f->offset;
		json_t *v = NULL;
		uint64_t u;
		double d;

		switch (f->type) {
		case BR_FT_STR:
			v = str(*(char *const *)p ? *(char *const *)p : f->dflt);
			break;
		case BR_FT_INT:
			v = count(*(const int *)p);
			break;
		case BR_FT_LONG:
			v = *(const long *)p > 0 ? json_integer(*(const long *)p) : json_null();
			break;
		case BR_FT_NUM:
			memcpy(&d, p, sizeof(d));
			v = num(d);
			break;
		case BR_FT_BOOL:
			v = json_boolean(*(const int *)p);
			break;
		case BR_FT_U64:
			u = *(const uint64_t *)p;
			v = json_integer((json_int_t)(u > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)u));
			break;
		}
		json_object_set_new(o, f->name, v);
	}
	return o;
}

/* What a list's table cannot say: a sensor's kind, a volume's members. */
static void list_extras_json(const struct br_hw_list *l, const void *item, json_t *o)
{
	if (!strcmp(l->name, "sensors")) {
		json_object_set_new(o, "kind",
				    json_string(br_sensor_kind_name(((const struct br_sensor *)item)->kind)));
	} else if (!strcmp(l->name, "volumes")) {
		const struct br_volume *v = item;
		json_t *members = json_array();

		for (size_t i = 0; i < v->n_drive_ids; i++)
			json_array_append_new(members, str(v->drive_ids[i]));
		json_object_set_new(o, "drives", members);
	}
}

json_t *br_hw_to_json(const struct br_hw *hw)
{
	json_t *doc = record_json(&br_hw_scalars, hw), *boot = json_array(), *bios = json_object();

	for (size_t i = 0; i < hw->n_boot_order; i++)
		json_array_append_new(boot, str(hw->boot_order[i]));
	json_object_set_new(doc, "boot_order", boot);
	for (size_t i = 0; i < hw->n_bios; i++)
		if (hw->bios[i].key)
			json_object_set_new(bios, hw->bios[i].key, str(hw->bios[i].value));
	json_object_set_new(doc, "bios", bios);
	for (size_t l = 0; l < br_hw_n_lists; l++) {
		const struct br_hw_list *list = &br_hw_lists[l];
		const char *items = *(char *const *)((const char *)hw + list->items);
		size_t n = *(const size_t *)((const char *)hw + list->count);
		json_t *a = json_array();

		for (size_t i = 0; i < n; i++) {
			json_t *o = record_json(list->record, items + i * list->size);

			list_extras_json(list, items + i * list->size, o);
			json_array_append_new(a, o);
		}
		json_object_set_new(doc, list->name, a);
	}
	if (hw->unreadable_dropped)
		json_object_set_new(doc, "unreadable_dropped",
				    json_integer((json_int_t)hw->unreadable_dropped));
	return doc;
}

/* ---- JSON → struct br_hw ---------------------------------------------- */

static void record_from(const struct br_record *r, void *item, json_t *o)
{
	for (size_t i = 0; i < r->n_fields; i++) {
		const struct br_field *f = &r->fields[i];
		char *p = (char *)item + f->offset;
		json_t *v = json_object_get(o, f->name);
		double d;

		switch (f->type) {
		case BR_FT_STR:
			*(char **)p = json_is_string(v) ? br_xstrdup(json_string_value(v)) : NULL;
			break;
		case BR_FT_INT:
			*(int *)p = json_is_integer(v) ? (int)json_integer_value(v) : -1;
			break;
		case BR_FT_LONG:
			*(long *)p = json_is_integer(v) ? (long)json_integer_value(v) : 0;
			break;
		case BR_FT_NUM:
			d = json_is_number(v) ? json_number_value(v) : NAN;
			memcpy(p, &d, sizeof(d));
			break;
		case BR_FT_BOOL:
			*(int *)p = json_is_true(v);
			break;
		case BR_FT_U64:
			*(uint64_t *)p = json_is_integer(v) && json_integer_value(v) > 0
					     ? (uint64_t)json_integer_value(v)
					     : 0;
			break;
		}
	}
}

/* Each array member must be an object; the caller names the field. */
static int check_array(json_t *doc, const char *key, int of_objects, struct br_err *err)
{
	json_t *a = json_object_get(doc, key);
	size_t i;
	json_t *v;

	if (!a)
		return 0;
	if (!json_is_array(a))
		return br_errf(err, BR_E_INVAL, "hw JSON: '%s' is not an array", key);
	json_array_foreach(a, i, v) if (of_objects && !json_is_object(v)) return br_errf(
	    err, BR_E_INVAL, "hw JSON: %s[%zu] is not an object", key, i);
	return 0;
}

static int list_from(struct br_hw *hw, const struct br_hw_list *l, json_t *a, struct br_err *err)
{
	json_t *o, *m;
	size_t i, k;

	json_array_foreach(a, i, o)
	{
		const char *kind_name = json_string_value(json_object_get(o, "kind"));
		enum br_sensor_kind kind = BR_SENSOR_OTHER;
		void *item;

		if (!strcmp(l->name, "sensors") && (!kind_name || br_sensor_kind_parse(kind_name, &kind)))
			return br_errf(err, BR_E_INVAL, "hw JSON: sensors[%zu]: unknown kind '%s'", i,
				       kind_name ? kind_name : "(none)");
		item = br_hw_list_add(hw, l);
		record_from(l->record, item, o);
		if (!strcmp(l->name, "sensors"))
			((struct br_sensor *)item)->kind = kind;
		/* documents stored before volumes were read have none */
		if (!strcmp(l->name, "volumes"))
			json_array_foreach(json_object_get(o, "drives"), k, m) if (json_is_string(m))
			    br_volume_add_drive(item, json_string_value(m));
	}
	return 0;
}

static int arrays_from(struct br_hw *hw, json_t *doc, struct br_err *err)
{
	json_t *bios = json_object_get(doc, "bios"), *v;
	const char *key;
	size_t i;

	if (check_array(doc, "boot_order", 0, err))
		return BR_E_INVAL;
	for (i = 0; i < br_hw_n_lists; i++)
		if (check_array(doc, br_hw_lists[i].name, 1, err))
			return BR_E_INVAL;
	if (bios && !json_is_object(bios))
		return br_errf(err, BR_E_INVAL, "hw JSON: 'bios' is not an object");
	json_array_foreach(json_object_get(doc, "boot_order"), i, v) if (json_is_string(v))
	    br_hw_add_boot(hw, json_string_value(v));
	json_object_foreach(bios, key, v)
	{
		struct br_kv *kv = br_hw_add_bios(hw);

		kv->key = br_xstrdup(key);
		kv->value = json_is_string(v) ? br_xstrdup(json_string_value(v)) : NULL;
	}
	for (i = 0; i < br_hw_n_lists; i++)
		if (list_from(hw, &br_hw_lists[i], json_object_get(doc, br_hw_lists[i].name), err))
			return BR_E_INVAL;
	v = json_object_get(doc, "unreadable_dropped");
	hw->unreadable_dropped =
	    json_is_integer(v) && json_integer_value(v) > 0 ? (size_t)json_integer_value(v) : 0;
	return 0;
}

int br_hw_from_json(json_t *doc, struct br_hw *ret_hw, struct br_err *err)
{
	struct br_hw hw;

	if (!json_is_object(doc))
		return br_errf(err, BR_E_INVAL, "hw JSON: not an object");
	br_hw_init(&hw);
	record_from(&br_hw_scalars, &hw, doc);
	if (arrays_from(&hw, doc, err)) {
		br_hw_release(&hw);
		return BR_E_INVAL;
	}
	*ret_hw = hw;
	return 0;
}
