/* struct br_hw ↔ JSON, field for field (keys are the C field names). */
#include <math.h>
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

static json_t *nic_json(const struct br_nic *n)
{
	return json_pack("{s:o, s:o, s:o, s:o, s:o, s:b}", "mac", str(n->mac), "name", str(n->name), "source",
			 str(n->source), "link_status", str(n->link_status), "role",
			 str(n->role ? n->role : BR_NIC_ROLE_HOST), "permanent", n->permanent);
}

static json_t *firmware_json(const struct br_firmware *f)
{
	return json_pack("{s:o, s:o, s:o, s:b}", "id", str(f->id), "name", str(f->name), "version",
			 str(f->version), "updateable", f->updateable);
}

static json_t *pcie_json(const struct br_pcie *p)
{
	return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "id", str(p->id),
			 "address", str(p->address), "name", str(p->name), "manufacturer",
			 str(p->manufacturer), "device_class", str(p->device_class), "slot", str(p->slot),
			 "serial", str(p->serial), "lanes_in_use", count(p->lanes_in_use), "max_lanes",
			 count(p->max_lanes), "pcie_type", str(p->pcie_type), "max_pcie_type",
			 str(p->max_pcie_type), "health", str(p->health));
}

static json_t *drive_json(const struct br_drive *d)
{
	return json_pack(
	    "{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:I}", "id", str(d->id), "name", str(d->name), "serial",
	    str(d->serial), "model", str(d->model), "protocol", str(d->protocol), "media", str(d->media),
	    "location", str(d->location), "health", str(d->health), "capacity_bytes",
	    (json_int_t)(d->capacity_bytes > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)d->capacity_bytes));
}

static json_t *volume_json(const struct br_volume *v)
{
	json_t *members = json_array();

	for (size_t i = 0; i < v->n_drive_ids; i++)
		json_array_append_new(members, str(v->drive_ids[i]));
	return json_pack(
	    "{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:I}", "id", str(v->id), "name", str(v->name),
	    "controller", str(v->controller), "raid_type", str(v->raid_type), "durable_name",
	    str(v->durable_name), "durable_name_format", str(v->durable_name_format), "health",
	    str(v->health), "drives", members, "capacity_bytes",
	    (json_int_t)(v->capacity_bytes > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)v->capacity_bytes));
}

static json_t *sensor_json(const struct br_sensor *s)
{
	return json_pack("{s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "kind",
			 br_sensor_kind_name(s->kind), "name", str(s->name), "units", str(s->units), "health",
			 str(s->health), "state", str(s->state), "serial", str(s->serial), "reading",
			 num(s->reading), "upper_critical", num(s->upper_critical), "lower_critical",
			 num(s->lower_critical));
}

static json_t *sel_json(const struct br_sel_entry *e)
{
	return json_pack("{s:o, s:o, s:o, s:o, s:o}", "id", str(e->id), "created", str(e->created),
			 "severity", str(e->severity), "message", str(e->message), "message_id",
			 str(e->message_id));
}

static json_t *unreadable_json(const struct br_unreadable *u)
{
	return json_pack("{s:o, s:o, s:o}", "url", str(u->url), "status",
			 u->status > 0 ? json_integer(u->status) : json_null(), "reason", str(u->reason));
}

json_t *br_hw_to_json(const struct br_hw *hw)
{
	json_t *doc, *boot = json_array(), *bios = json_object();
	json_t *nics = json_array(), *fw = json_array(), *pcie = json_array();
	json_t *drives = json_array(), *sensors = json_array(), *sel = json_array();
	json_t *volumes = json_array(), *unreadable = json_array();

	for (size_t i = 0; i < hw->n_boot_order; i++)
		json_array_append_new(boot, str(hw->boot_order[i]));
	for (size_t i = 0; i < hw->n_nics; i++)
		json_array_append_new(nics, nic_json(&hw->nics[i]));
	for (size_t i = 0; i < hw->n_bios; i++)
		if (hw->bios[i].key)
			json_object_set_new(bios, hw->bios[i].key, str(hw->bios[i].value));
	for (size_t i = 0; i < hw->n_firmware; i++)
		json_array_append_new(fw, firmware_json(&hw->firmware[i]));
	for (size_t i = 0; i < hw->n_pcie; i++)
		json_array_append_new(pcie, pcie_json(&hw->pcie[i]));
	for (size_t i = 0; i < hw->n_drives; i++)
		json_array_append_new(drives, drive_json(&hw->drives[i]));
	for (size_t i = 0; i < hw->n_volumes; i++)
		json_array_append_new(volumes, volume_json(&hw->volumes[i]));
	for (size_t i = 0; i < hw->n_sensors; i++)
		json_array_append_new(sensors, sensor_json(&hw->sensors[i]));
	for (size_t i = 0; i < hw->n_sel; i++)
		json_array_append_new(sel, sel_json(&hw->sel[i]));
	for (size_t i = 0; i < hw->n_unreadable; i++)
		json_array_append_new(unreadable, unreadable_json(&hw->unreadable[i]));
	doc = json_pack(
	    "{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "source",
	    str(hw->source), "manufacturer", str(hw->manufacturer), "model", str(hw->model), "system_serial",
	    str(hw->system_serial), "service_tag", str(hw->service_tag), "uuid", str(hw->uuid),
	    "bios_version", str(hw->bios_version), "bmc_firmware", str(hw->bmc_firmware), "bmc_mac",
	    str(hw->bmc_mac), "power_state", str(hw->power_state), "cpu_model", str(hw->cpu_model),
	    "cpu_count", count(hw->cpu_count), "cpu_max_mhz", count(hw->cpu_max_mhz), "memory_gib",
	    count(hw->memory_gib), "boot_mode", str(hw->boot_mode), "boot_override_target",
	    str(hw->boot_override_target), "boot_override_enabled", str(hw->boot_override_enabled));
	json_object_set_new(doc, "boot_order", boot);
	json_object_set_new(doc, "nics", nics);
	json_object_set_new(doc, "bios", bios);
	json_object_set_new(doc, "firmware", fw);
	json_object_set_new(doc, "pcie", pcie);
	json_object_set_new(doc, "drives", drives);
	json_object_set_new(doc, "volumes", volumes);
	json_object_set_new(doc, "sensors", sensors);
	json_object_set_new(doc, "sel", sel);
	json_object_set_new(doc, "unreadable", unreadable);
	if (hw->unreadable_dropped)
		json_object_set_new(doc, "unreadable_dropped",
				    json_integer((json_int_t)hw->unreadable_dropped));
	return doc;
}

/* ---- JSON → struct br_hw ---------------------------------------------- */

static char *get_str(json_t *obj, const char *key)
{
	const char *s = json_string_value(json_object_get(obj, key));

	return s ? br_xstrdup(s) : NULL;
}

static int get_count(json_t *obj, const char *key)
{
	json_t *v = json_object_get(obj, key);

	return json_is_integer(v) ? (int)json_integer_value(v) : -1;
}

static double get_num(json_t *obj, const char *key)
{
	json_t *v = json_object_get(obj, key);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

static int get_bool(json_t *obj, const char *key)
{
	return json_is_true(json_object_get(obj, key));
}

/* Each array member must be an object; the caller names the field. */
static int check_array(json_t *doc, const char *key, struct br_err *err)
{
	json_t *a = json_object_get(doc, key);
	size_t i;
	json_t *v;

	if (!a)
		return 0;
	if (!json_is_array(a))
		return br_errf(err, BR_E_INVAL, "hw JSON: '%s' is not an array", key);
	json_array_foreach(a, i, v) if (!json_is_object(v) && strcmp(key, "boot_order")) return br_errf(
	    err, BR_E_INVAL, "hw JSON: %s[%zu] is not an object", key, i);
	return 0;
}

static void nic_from(struct br_hw *hw, json_t *o)
{
	struct br_nic *n = br_hw_add_nic(hw);

	n->mac = get_str(o, "mac");
	n->name = get_str(o, "name");
	n->source = get_str(o, "source");
	n->link_status = get_str(o, "link_status");
	n->role = get_str(o, "role");
	n->permanent = get_bool(o, "permanent");
}

static void firmware_from(struct br_hw *hw, json_t *o)
{
	struct br_firmware *f = br_hw_add_firmware(hw);

	f->id = get_str(o, "id");
	f->name = get_str(o, "name");
	f->version = get_str(o, "version");
	f->updateable = get_bool(o, "updateable");
}

static void pcie_from(struct br_hw *hw, json_t *o)
{
	struct br_pcie *p = br_hw_add_pcie(hw);

	p->id = get_str(o, "id");
	p->address = get_str(o, "address");
	p->name = get_str(o, "name");
	p->manufacturer = get_str(o, "manufacturer");
	p->device_class = get_str(o, "device_class");
	p->slot = get_str(o, "slot");
	p->serial = get_str(o, "serial");
	p->lanes_in_use = get_count(o, "lanes_in_use");
	p->max_lanes = get_count(o, "max_lanes");
	p->pcie_type = get_str(o, "pcie_type");
	p->max_pcie_type = get_str(o, "max_pcie_type");
	p->health = get_str(o, "health");
}

static void drive_from(struct br_hw *hw, json_t *o)
{
	struct br_drive *d = br_hw_add_drive(hw);
	json_int_t capacity = json_integer_value(json_object_get(o, "capacity_bytes"));

	d->id = get_str(o, "id");
	d->name = get_str(o, "name");
	d->serial = get_str(o, "serial");
	d->model = get_str(o, "model");
	d->protocol = get_str(o, "protocol");
	d->media = get_str(o, "media");
	d->location = get_str(o, "location");
	d->health = get_str(o, "health");
	d->capacity_bytes = capacity > 0 ? (uint64_t)capacity : 0;
}

/* Documents stored before volumes were read have no "volumes": none. */
static void volume_from(struct br_hw *hw, json_t *o)
{
	struct br_volume *v = br_hw_add_volume(hw);
	json_int_t capacity = json_integer_value(json_object_get(o, "capacity_bytes"));
	json_t *m;
	size_t i;

	v->id = get_str(o, "id");
	v->name = get_str(o, "name");
	v->controller = get_str(o, "controller");
	v->raid_type = get_str(o, "raid_type");
	v->durable_name = get_str(o, "durable_name");
	v->durable_name_format = get_str(o, "durable_name_format");
	v->health = get_str(o, "health");
	json_array_foreach(json_object_get(o, "drives"), i, m) if (json_is_string(m))
	    br_volume_add_drive(v, json_string_value(m));
	v->capacity_bytes = capacity > 0 ? (uint64_t)capacity : 0;
}

static int sensor_from(struct br_hw *hw, json_t *o, size_t i, struct br_err *err)
{
	const char *kind_name = json_string_value(json_object_get(o, "kind"));
	enum br_sensor_kind kind;
	struct br_sensor *s;

	if (!kind_name || br_sensor_kind_parse(kind_name, &kind))
		return br_errf(err, BR_E_INVAL, "hw JSON: sensors[%zu]: unknown kind '%s'", i,
			       kind_name ? kind_name : "(none)");
	s = br_hw_add_sensor(hw);
	s->kind = kind;
	s->name = get_str(o, "name");
	s->units = get_str(o, "units");
	s->health = get_str(o, "health");
	s->state = get_str(o, "state");
	s->serial = get_str(o, "serial");
	s->reading = get_num(o, "reading");
	s->upper_critical = get_num(o, "upper_critical");
	s->lower_critical = get_num(o, "lower_critical");
	return 0;
}

static void sel_from(struct br_hw *hw, json_t *o)
{
	struct br_sel_entry *e = br_hw_add_sel(hw);

	e->id = get_str(o, "id");
	e->created = get_str(o, "created");
	e->severity = get_str(o, "severity");
	e->message = get_str(o, "message");
	e->message_id = get_str(o, "message_id");
}

static void unreadable_from(struct br_hw *hw, json_t *o)
{
	json_t *status = json_object_get(o, "status");

	br_hw_add_unreadable(hw, json_string_value(json_object_get(o, "url")),
			     json_is_integer(status) ? (long)json_integer_value(status) : 0,
			     json_string_value(json_object_get(o, "reason")));
}

static int arrays_from(struct br_hw *hw, json_t *doc, struct br_err *err)
{
	static const char *const arrays[] = { "boot_order", "nics", "firmware", "pcie",	     "drives",
					      "sensors",    "sel",  "volumes",	"unreadable" };
	json_t *bios = json_object_get(doc, "bios"), *v;
	const char *key;
	size_t i;

	for (i = 0; i < sizeof(arrays) / sizeof(arrays[0]); i++)
		if (check_array(doc, arrays[i], err))
			return BR_E_INVAL;
	if (bios && !json_is_object(bios))
		return br_errf(err, BR_E_INVAL, "hw JSON: 'bios' is not an object");
	json_array_foreach(json_object_get(doc, "boot_order"), i, v) if (json_is_string(v))
	    br_hw_add_boot(hw, json_string_value(v));
	json_array_foreach(json_object_get(doc, "nics"), i, v) nic_from(hw, v);
	json_object_foreach(bios, key, v)
	{
		struct br_kv *kv = br_hw_add_bios(hw);

		kv->key = br_xstrdup(key);
		kv->value = json_is_string(v) ? br_xstrdup(json_string_value(v)) : NULL;
	}
	json_array_foreach(json_object_get(doc, "firmware"), i, v) firmware_from(hw, v);
	json_array_foreach(json_object_get(doc, "pcie"), i, v) pcie_from(hw, v);
	json_array_foreach(json_object_get(doc, "drives"), i, v) drive_from(hw, v);
	json_array_foreach(json_object_get(doc, "volumes"), i, v) volume_from(hw, v);
	json_array_foreach(json_object_get(doc, "sensors"), i,
			   v) if (sensor_from(hw, v, i, err)) return BR_E_INVAL;
	json_array_foreach(json_object_get(doc, "sel"), i, v) sel_from(hw, v);
	json_array_foreach(json_object_get(doc, "unreadable"), i, v) unreadable_from(hw, v);
	v = json_object_get(doc, "unreadable_dropped");
	hw->unreadable_dropped +=
	    json_is_integer(v) && json_integer_value(v) > 0 ? (size_t)json_integer_value(v) : 0;
	return 0;
}

int br_hw_from_json(json_t *doc, struct br_hw *ret_hw, struct br_err *err)
{
	struct br_hw hw;

	if (!json_is_object(doc))
		return br_errf(err, BR_E_INVAL, "hw JSON: not an object");
	br_hw_init(&hw);
	hw.source = get_str(doc, "source");
	hw.manufacturer = get_str(doc, "manufacturer");
	hw.model = get_str(doc, "model");
	hw.system_serial = get_str(doc, "system_serial");
	hw.service_tag = get_str(doc, "service_tag");
	hw.uuid = get_str(doc, "uuid");
	hw.bios_version = get_str(doc, "bios_version");
	hw.bmc_firmware = get_str(doc, "bmc_firmware");
	hw.bmc_mac = get_str(doc, "bmc_mac");
	hw.power_state = get_str(doc, "power_state");
	hw.cpu_model = get_str(doc, "cpu_model");
	hw.cpu_count = get_count(doc, "cpu_count");
	hw.cpu_max_mhz = get_count(doc, "cpu_max_mhz");
	hw.memory_gib = get_count(doc, "memory_gib");
	hw.boot_mode = get_str(doc, "boot_mode");
	hw.boot_override_target = get_str(doc, "boot_override_target");
	hw.boot_override_enabled = get_str(doc, "boot_override_enabled");
	if (arrays_from(&hw, doc, err)) {
		br_hw_release(&hw);
		return BR_E_INVAL;
	}
	*ret_hw = hw;
	return 0;
}
