/* struct br_hw → JSON, field for field (keys are the C field names). */
#include <math.h>
#include <stdlib.h>

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
	return json_pack("{s:o, s:o, s:o, s:o, s:b}", "mac", str(n->mac), "name", str(n->name), "source",
			 str(n->source), "link_status", str(n->link_status), "permanent", n->permanent);
}

static json_t *firmware_json(const struct br_firmware *f)
{
	return json_pack("{s:o, s:o, s:o, s:b}", "id", str(f->id), "name", str(f->name), "version",
			 str(f->version), "updateable", f->updateable);
}

static json_t *pcie_json(const struct br_pcie *p)
{
	return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "id", str(p->id),
			 "address", str(p->address), "name", str(p->name), "manufacturer", str(p->manufacturer),
			 "device_class", str(p->device_class), "slot", str(p->slot), "serial", str(p->serial),
			 "lanes_in_use", count(p->lanes_in_use), "max_lanes", count(p->max_lanes), "pcie_type",
			 str(p->pcie_type), "max_pcie_type", str(p->max_pcie_type), "health", str(p->health));
}

static json_t *drive_json(const struct br_drive *d)
{
	return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:I}", "id", str(d->id), "name", str(d->name),
			 "serial", str(d->serial), "model", str(d->model), "protocol", str(d->protocol), "media",
			 str(d->media), "location", str(d->location), "health", str(d->health), "capacity_bytes",
			 (json_int_t)(d->capacity_bytes > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)d->capacity_bytes));
}

static json_t *sensor_json(const struct br_sensor *s)
{
	return json_pack("{s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "kind", br_sensor_kind_name(s->kind),
			 "name", str(s->name), "units", str(s->units), "health", str(s->health), "state",
			 str(s->state), "serial", str(s->serial), "reading", num(s->reading), "upper_critical",
			 num(s->upper_critical), "lower_critical", num(s->lower_critical));
}

static json_t *sel_json(const struct br_sel_entry *e)
{
	return json_pack("{s:o, s:o, s:o, s:o, s:o}", "id", str(e->id), "created", str(e->created), "severity",
			 str(e->severity), "message", str(e->message), "message_id", str(e->message_id));
}

json_t *br_hw_to_json(const struct br_hw *hw)
{
	json_t *doc, *boot = json_array(), *bios = json_object();
	json_t *nics = json_array(), *fw = json_array(), *pcie = json_array();
	json_t *drives = json_array(), *sensors = json_array(), *sel = json_array();

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
	for (size_t i = 0; i < hw->n_sensors; i++)
		json_array_append_new(sensors, sensor_json(&hw->sensors[i]));
	for (size_t i = 0; i < hw->n_sel; i++)
		json_array_append_new(sel, sel_json(&hw->sel[i]));
	doc = json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
			"source", str(hw->source), "manufacturer", str(hw->manufacturer), "model", str(hw->model),
			"system_serial", str(hw->system_serial), "service_tag", str(hw->service_tag), "uuid",
			str(hw->uuid), "bios_version", str(hw->bios_version), "bmc_firmware", str(hw->bmc_firmware),
			"bmc_mac", str(hw->bmc_mac), "power_state", str(hw->power_state), "cpu_model",
			str(hw->cpu_model), "cpu_count", count(hw->cpu_count), "cpu_max_mhz", count(hw->cpu_max_mhz),
			"memory_gib", count(hw->memory_gib), "boot_mode", str(hw->boot_mode), "boot_override_target",
			str(hw->boot_override_target), "boot_override_enabled", str(hw->boot_override_enabled));
	json_object_set_new(doc, "boot_order", boot);
	json_object_set_new(doc, "nics", nics);
	json_object_set_new(doc, "bios", bios);
	json_object_set_new(doc, "firmware", fw);
	json_object_set_new(doc, "pcie", pcie);
	json_object_set_new(doc, "drives", drives);
	json_object_set_new(doc, "sensors", sensors);
	json_object_set_new(doc, "sel", sel);
	return doc;
}
