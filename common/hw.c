/* The hardware-facts record: growth and release. */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common.h"

char *br_hw_strdup(const char *s)
{
	return br_xstrdup_capped(s, BR_HW_STR_MAX);
}

char *br_hw_strndup(const char *s, size_t n)
{
	return br_xstrndup_capped(s, n, BR_HW_STR_MAX);
}

void br_hw_init(struct br_hw *hw)
{
	memset(hw, 0, sizeof(*hw));
	hw->cpu_count = -1;
	hw->cpu_max_mhz = -1;
	hw->memory_gib = -1;
}

static void *grow(void *arr, size_t *n, size_t elem)
{
	char *p = br_xrealloc(arr, (*n + 1) * elem);

	memset(p + *n * elem, 0, elem);
	(*n)++;
	return p;
}

#define HW_ADD(hw, field, count)                                                                             \
	((hw)->field = grow((hw)->field, &(hw)->count, sizeof(*(hw)->field)), &(hw)->field[(hw)->count - 1])

struct br_nic *br_hw_add_nic(struct br_hw *hw)
{
	return HW_ADD(hw, nics, n_nics);
}
struct br_kv *br_hw_add_bios(struct br_hw *hw)
{
	return HW_ADD(hw, bios, n_bios);
}
struct br_firmware *br_hw_add_firmware(struct br_hw *hw)
{
	return HW_ADD(hw, firmware, n_firmware);
}
struct br_drive *br_hw_add_drive(struct br_hw *hw)
{
	return HW_ADD(hw, drives, n_drives);
}
struct br_volume *br_hw_add_volume(struct br_hw *hw)
{
	return HW_ADD(hw, volumes, n_volumes);
}

struct br_neighbor *br_hw_add_neighbor(struct br_hw *hw)
{
	struct br_neighbor *nb = HW_ADD(hw, neighbors, n_neighbors);

	nb->vlan = -1;
	return nb;
}

const struct br_neighbor *br_hw_neighbor_of(const struct br_hw *hw, const char *port)
{
	for (size_t i = 0; port && i < hw->n_neighbors; i++)
		if (hw->neighbors[i].port && !strcasecmp(hw->neighbors[i].port, port))
			return &hw->neighbors[i];
	return NULL;
}

void br_volume_add_drive(struct br_volume *v, const char *drive_id)
{
	v->drive_ids = br_xrealloc(v->drive_ids, (v->n_drive_ids + 1) * sizeof(char *));
	v->drive_ids[v->n_drive_ids++] = br_hw_strdup(drive_id);
}

const struct br_volume *br_hw_volume_of_drive(const struct br_hw *hw, const char *drive_id)
{
	for (size_t i = 0; drive_id && i < hw->n_volumes; i++)
		for (size_t k = 0; k < hw->volumes[i].n_drive_ids; k++)
			if (hw->volumes[i].drive_ids[k] && !strcmp(hw->volumes[i].drive_ids[k], drive_id))
				return &hw->volumes[i];
	return NULL;
}

struct br_sel_entry *br_hw_add_sel(struct br_hw *hw)
{
	return HW_ADD(hw, sel, n_sel);
}

struct br_pcie *br_hw_add_pcie(struct br_hw *hw)
{
	struct br_pcie *p = HW_ADD(hw, pcie, n_pcie);

	p->lanes_in_use = -1;
	p->max_lanes = -1;
	return p;
}

struct br_sensor *br_hw_add_sensor(struct br_hw *hw)
{
	struct br_sensor *s = HW_ADD(hw, sensors, n_sensors);

	s->reading = NAN;
	s->upper_critical = NAN;
	s->lower_critical = NAN;
	return s;
}

void br_hw_add_boot(struct br_hw *hw, const char *entry)
{
	hw->boot_order = br_xrealloc(hw->boot_order, (hw->n_boot_order + 1) * sizeof(char *));
	hw->boot_order[hw->n_boot_order++] = br_hw_strdup(entry);
}

void br_hw_add_unreadable(struct br_hw *hw, const char *url, long status, const char *reason)
{
	struct br_unreadable *u;

	if (hw->n_unreadable >= BR_HW_UNREADABLE_MAX) {
		hw->unreadable_dropped++;
		return;
	}
	u = HW_ADD(hw, unreadable, n_unreadable);
	u->url = br_hw_strdup(url);
	u->status = status;
	u->reason = br_hw_strdup(reason);
}

struct br_nic *br_hw_find_nic(struct br_hw *hw, const char *mac)
{
	for (size_t i = 0; i < hw->n_nics; i++)
		if (hw->nics[i].mac && !strcmp(hw->nics[i].mac, mac))
			return &hw->nics[i];
	return NULL;
}

static const char *const sensor_kind_names[] = {
	[BR_SENSOR_FAN] = "fan",
	[BR_SENSOR_TEMP] = "temperature",
	[BR_SENSOR_PSU] = "psu",
	[BR_SENSOR_VOLTAGE] = "voltage",
	[BR_SENSOR_PSU_REDUNDANCY] = "psu_redundancy",
	[BR_SENSOR_OTHER] = "other",
};

const char *br_sensor_kind_name(enum br_sensor_kind kind)
{
	return (unsigned)kind <= BR_SENSOR_OTHER ? sensor_kind_names[kind] : "other";
}

int br_sensor_kind_parse(const char *name, enum br_sensor_kind *ret_kind)
{
	for (unsigned i = 0; i <= BR_SENSOR_OTHER; i++)
		if (name && !strcmp(name, sensor_kind_names[i])) {
			*ret_kind = (enum br_sensor_kind)i;
			return 0;
		}
	return BR_E_INVAL;
}

#define F(T, m, t)                                                                                           \
	{                                                                                                    \
#m, t, offsetof(T, m), NULL                                                                  \
	}
#define RECORD(a)                                                                                            \
	{                                                                                                    \
		a, sizeof(a) / sizeof(a[0])                                                                  \
	}

static const struct br_field hw_fields[] = {
	F(struct br_hw, source, BR_FT_STR),
	F(struct br_hw, manufacturer, BR_FT_STR),
	F(struct br_hw, model, BR_FT_STR),
	F(struct br_hw, system_serial, BR_FT_STR),
	F(struct br_hw, service_tag, BR_FT_STR),
	F(struct br_hw, uuid, BR_FT_STR),
	F(struct br_hw, bios_version, BR_FT_STR),
	F(struct br_hw, bmc_firmware, BR_FT_STR),
	F(struct br_hw, bmc_mac, BR_FT_STR),
	F(struct br_hw, power_state, BR_FT_STR),
	F(struct br_hw, health, BR_FT_STR),
	F(struct br_hw, cpu_model, BR_FT_STR),
	F(struct br_hw, cpu_count, BR_FT_INT),
	F(struct br_hw, cpu_max_mhz, BR_FT_INT),
	F(struct br_hw, memory_gib, BR_FT_INT),
	F(struct br_hw, boot_mode, BR_FT_STR),
	F(struct br_hw, boot_override_target, BR_FT_STR),
	F(struct br_hw, boot_override_enabled, BR_FT_STR),
	F(struct br_hw, neighbor_source, BR_FT_STR),
};
static const struct br_field nic_fields[] = {
	F(struct br_nic, mac, BR_FT_STR),
	F(struct br_nic, name, BR_FT_STR),
	F(struct br_nic, source, BR_FT_STR),
	F(struct br_nic, link_status, BR_FT_STR),
	/* facts stored before roles have none: a host NIC's */
	{ "role", BR_FT_STR, offsetof(struct br_nic, role), BR_NIC_ROLE_HOST },
	F(struct br_nic, permanent, BR_FT_BOOL),
};
static const struct br_field firmware_fields[] = {
	F(struct br_firmware, id, BR_FT_STR),
	F(struct br_firmware, name, BR_FT_STR),
	F(struct br_firmware, version, BR_FT_STR),
	F(struct br_firmware, updateable, BR_FT_BOOL),
};
static const struct br_field pcie_fields[] = {
	F(struct br_pcie, id, BR_FT_STR),
	F(struct br_pcie, address, BR_FT_STR),
	F(struct br_pcie, name, BR_FT_STR),
	F(struct br_pcie, manufacturer, BR_FT_STR),
	F(struct br_pcie, device_class, BR_FT_STR),
	F(struct br_pcie, slot, BR_FT_STR),
	F(struct br_pcie, serial, BR_FT_STR),
	F(struct br_pcie, lanes_in_use, BR_FT_INT),
	F(struct br_pcie, max_lanes, BR_FT_INT),
	F(struct br_pcie, pcie_type, BR_FT_STR),
	F(struct br_pcie, max_pcie_type, BR_FT_STR),
	F(struct br_pcie, health, BR_FT_STR),
};
static const struct br_field drive_fields[] = {
	F(struct br_drive, id, BR_FT_STR),
	F(struct br_drive, name, BR_FT_STR),
	F(struct br_drive, serial, BR_FT_STR),
	F(struct br_drive, model, BR_FT_STR),
	F(struct br_drive, protocol, BR_FT_STR),
	F(struct br_drive, media, BR_FT_STR),
	F(struct br_drive, location, BR_FT_STR),
	F(struct br_drive, health, BR_FT_STR),
	F(struct br_drive, capacity_bytes, BR_FT_U64),
};
/* and "drives", the member drive Ids (hwjson.c) */
static const struct br_field volume_fields[] = {
	F(struct br_volume, id, BR_FT_STR),	      F(struct br_volume, name, BR_FT_STR),
	F(struct br_volume, controller, BR_FT_STR),   F(struct br_volume, raid_type, BR_FT_STR),
	F(struct br_volume, durable_name, BR_FT_STR), F(struct br_volume, durable_name_format, BR_FT_STR),
	F(struct br_volume, health, BR_FT_STR),	      F(struct br_volume, capacity_bytes, BR_FT_U64),
};
/* and "kind", by name (hwjson.c) */
static const struct br_field sensor_fields[] = {
	F(struct br_sensor, name, BR_FT_STR),		F(struct br_sensor, units, BR_FT_STR),
	F(struct br_sensor, health, BR_FT_STR),		F(struct br_sensor, state, BR_FT_STR),
	F(struct br_sensor, serial, BR_FT_STR),		F(struct br_sensor, reading, BR_FT_NUM),
	F(struct br_sensor, upper_critical, BR_FT_NUM), F(struct br_sensor, lower_critical, BR_FT_NUM),
};
static const struct br_field sel_fields[] = {
	F(struct br_sel_entry, id, BR_FT_STR),	       F(struct br_sel_entry, created, BR_FT_STR),
	F(struct br_sel_entry, severity, BR_FT_STR),   F(struct br_sel_entry, message, BR_FT_STR),
	F(struct br_sel_entry, message_id, BR_FT_STR),
};
static const struct br_field neighbor_fields[] = {
	F(struct br_neighbor, port, BR_FT_STR),
	F(struct br_neighbor, mac, BR_FT_STR),
	F(struct br_neighbor, chassis_id, BR_FT_STR),
	F(struct br_neighbor, chassis_id_subtype, BR_FT_STR),
	F(struct br_neighbor, system_name, BR_FT_STR),
	F(struct br_neighbor, port_id, BR_FT_STR),
	F(struct br_neighbor, port_id_subtype, BR_FT_STR),
	F(struct br_neighbor, mgmt_address, BR_FT_STR),
	F(struct br_neighbor, source, BR_FT_STR),
	F(struct br_neighbor, vlan, BR_FT_INT),
	F(struct br_neighbor, link, BR_FT_BOOL),
	F(struct br_neighbor, stale, BR_FT_BOOL),
};
static const struct br_field unreadable_fields[] = {
	F(struct br_unreadable, url, BR_FT_STR),
	F(struct br_unreadable, status, BR_FT_LONG),
	F(struct br_unreadable, reason, BR_FT_STR),
};

static const struct br_record nic_record = RECORD(nic_fields), firmware_record = RECORD(firmware_fields),
			      pcie_record = RECORD(pcie_fields), drive_record = RECORD(drive_fields),
			      volume_record = RECORD(volume_fields), sensor_record = RECORD(sensor_fields),
			      sel_record = RECORD(sel_fields), unreadable_record = RECORD(unreadable_fields),
			      neighbor_record = RECORD(neighbor_fields);
const struct br_record br_hw_scalars = RECORD(hw_fields);

#define LIST(name, rec)                                                                                      \
	{                                                                                                    \
#name, offsetof(struct br_hw, name), offsetof(struct br_hw, n_##name),                       \
		    sizeof(*((struct br_hw *)0)->name), &rec                                                 \
	}
const struct br_hw_list br_hw_lists[] = {
	LIST(nics, nic_record),	    LIST(firmware, firmware_record),	 LIST(pcie, pcie_record),
	LIST(drives, drive_record), LIST(volumes, volume_record),	 LIST(sensors, sensor_record),
	LIST(sel, sel_record),	    LIST(unreadable, unreadable_record), LIST(neighbors, neighbor_record),
};
const size_t br_hw_n_lists = sizeof(br_hw_lists) / sizeof(br_hw_lists[0]);

void br_record_release(const struct br_record *r, void *item)
{
	for (size_t i = 0; i < r->n_fields; i++)
		if (r->fields[i].type == BR_FT_STR)
			free(*(char **)((char *)item + r->fields[i].offset));
}

void *br_hw_list_add(struct br_hw *hw, const struct br_hw_list *l)
{
	void **items = (void **)((char *)hw + l->items);
	size_t *count = (size_t *)((char *)hw + l->count);
	char *item;

	*items = grow(*items, count, l->size);
	item = (char *)*items + (*count - 1) * l->size;
	for (size_t i = 0; i < l->record->n_fields; i++) {
		const struct br_field *f = &l->record->fields[i];

		if (f->type == BR_FT_INT)
			*(int *)(item + f->offset) = -1;
		else if (f->type == BR_FT_NUM) {
			double unknown = NAN;

			memcpy(item + f->offset, &unknown, sizeof(unknown));
		}
	}
	return item;
}

void br_hw_release(struct br_hw *hw)
{
	br_record_release(&br_hw_scalars, hw);
	for (size_t i = 0; i < hw->n_boot_order; i++)
		free(hw->boot_order[i]);
	free(hw->boot_order);
	for (size_t i = 0; i < hw->n_bios; i++) {
		free(hw->bios[i].key);
		free(hw->bios[i].value);
	}
	free(hw->bios);
	for (size_t i = 0; i < hw->n_volumes; i++) {
		for (size_t k = 0; k < hw->volumes[i].n_drive_ids; k++)
			free(hw->volumes[i].drive_ids[k]);
		free(hw->volumes[i].drive_ids);
	}
	for (size_t l = 0; l < br_hw_n_lists; l++) {
		const struct br_hw_list *list = &br_hw_lists[l];
		char *items = *(char **)((char *)hw + list->items);
		size_t count = *(size_t *)((char *)hw + list->count);

		for (size_t i = 0; i < count; i++)
			br_record_release(list->record, items + i * list->size);
		free(items);
	}
	br_hw_init(hw);
}

int br_hw_has_identity(const struct br_hw *hw)
{
	return hw->system_serial || hw->service_tag || hw->model || hw->bmc_mac;
}

void br_hw_keep_identity(struct br_hw *hw)
{
	struct br_hw keep;

	br_hw_init(&keep);
	keep.source = hw->source;
	keep.manufacturer = hw->manufacturer;
	keep.model = hw->model;
	keep.system_serial = hw->system_serial;
	keep.service_tag = hw->service_tag;
	keep.uuid = hw->uuid;
	keep.bios_version = hw->bios_version;
	keep.bmc_firmware = hw->bmc_firmware;
	keep.bmc_mac = hw->bmc_mac;
	keep.unreadable = hw->unreadable;
	keep.n_unreadable = hw->n_unreadable;
	keep.unreadable_dropped = hw->unreadable_dropped;
	hw->source = hw->manufacturer = hw->model = hw->system_serial = hw->service_tag = NULL;
	hw->uuid = hw->bios_version = hw->bmc_firmware = hw->bmc_mac = NULL;
	hw->unreadable = NULL;
	hw->n_unreadable = 0;
	/* the BMC's links and disabled ports: evidence, never a MAAS interface */
	for (size_t i = 0; i < hw->n_nics; i++) {
		struct br_nic *from = &hw->nics[i], *to;

		if (br_nic_is_host(from))
			continue;
		to = br_hw_add_nic(&keep);
		*to = *from;
		memset(from, 0, sizeof(*from));
	}
	br_hw_release(hw);
	*hw = keep;
}

/* Stronger first: a MAC any view shows disabled or as the BMC's is not a
 * host NIC, whatever a boot entry says. */
static int role_rank(const char *role)
{
	static const char *const order[] = { BR_NIC_ROLE_DISABLED, BR_NIC_ROLE_BMC_USB, BR_NIC_ROLE_BMC,
					     BR_NIC_ROLE_OTHER_SYSTEM };

	for (size_t i = 0; role && i < sizeof(order) / sizeof(order[0]); i++)
		if (!strcmp(role, order[i]))
			return (int)(sizeof(order) / sizeof(order[0]) - i);
	return 0;
}

const char *br_nic_role_stronger(const char *a, const char *b)
{
	return role_rank(b) > role_rank(a) ? b : a;
}

int br_nic_is_host(const struct br_nic *nic)
{
	return !nic->role || !strcmp(nic->role, BR_NIC_ROLE_HOST);
}

size_t br_hw_host_nics(const struct br_hw *hw)
{
	size_t n = 0;

	for (size_t i = 0; i < hw->n_nics; i++)
		n += br_nic_is_host(&hw->nics[i]);
	return n;
}

static int blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* s without its leading and trailing blanks: *ret_len bytes from the return. */
static const char *trimmed(const char *s, size_t *ret_len)
{
	size_t n;

	while (blank(*s))
		s++;
	n = strlen(s);
	while (n && blank(s[n - 1]))
		n--;
	*ret_len = n;
	return s;
}

static int serial_eq(const char *reported, const char *want, size_t want_len)
{
	size_t len;
	const char *r = trimmed(reported, &len);

	return len == want_len && !strncasecmp(r, want, len);
}

int br_hw_serial_matches(const struct br_hw *hw, const char *expected)
{
	size_t want_len, len;
	const char *want = expected ? trimmed(expected, &want_len) : NULL;
	int reported = 0;
	const char *const seen[] = { hw->system_serial, hw->service_tag };

	if (!want || !want_len)
		return -1;
	for (size_t i = 0; i < sizeof(seen) / sizeof(seen[0]); i++) {
		if (!seen[i])
			continue;
		trimmed(seen[i], &len);
		if (!len)
			continue;
		reported = 1;
		if (serial_eq(seen[i], want, want_len))
			return 1;
	}
	return reported ? 0 : -1;
}
