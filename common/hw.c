/* The hardware-facts record: growth and release. */
#include <math.h>
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
	[BR_SENSOR_FAN] = "fan",	 [BR_SENSOR_TEMP] = "temperature", [BR_SENSOR_PSU] = "psu",
	[BR_SENSOR_VOLTAGE] = "voltage", [BR_SENSOR_OTHER] = "other",
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

void br_hw_release(struct br_hw *hw)
{
	free(hw->source);
	free(hw->manufacturer);
	free(hw->model);
	free(hw->system_serial);
	free(hw->service_tag);
	free(hw->uuid);
	free(hw->bios_version);
	free(hw->bmc_firmware);
	free(hw->bmc_mac);
	free(hw->power_state);
	free(hw->cpu_model);
	free(hw->boot_mode);
	free(hw->boot_override_target);
	free(hw->boot_override_enabled);
	for (size_t i = 0; i < hw->n_boot_order; i++)
		free(hw->boot_order[i]);
	free(hw->boot_order);
	for (size_t i = 0; i < hw->n_nics; i++) {
		free(hw->nics[i].mac);
		free(hw->nics[i].name);
		free(hw->nics[i].source);
		free(hw->nics[i].link_status);
		free(hw->nics[i].role);
	}
	free(hw->nics);
	for (size_t i = 0; i < hw->n_bios; i++) {
		free(hw->bios[i].key);
		free(hw->bios[i].value);
	}
	free(hw->bios);
	for (size_t i = 0; i < hw->n_firmware; i++) {
		free(hw->firmware[i].id);
		free(hw->firmware[i].name);
		free(hw->firmware[i].version);
	}
	free(hw->firmware);
	for (size_t i = 0; i < hw->n_pcie; i++) {
		struct br_pcie *p = &hw->pcie[i];

		free(p->id);
		free(p->address);
		free(p->name);
		free(p->manufacturer);
		free(p->device_class);
		free(p->slot);
		free(p->serial);
		free(p->pcie_type);
		free(p->max_pcie_type);
		free(p->health);
	}
	free(hw->pcie);
	for (size_t i = 0; i < hw->n_drives; i++) {
		struct br_drive *d = &hw->drives[i];

		free(d->id);
		free(d->name);
		free(d->serial);
		free(d->model);
		free(d->protocol);
		free(d->media);
		free(d->location);
		free(d->health);
	}
	free(hw->drives);
	for (size_t i = 0; i < hw->n_volumes; i++) {
		struct br_volume *v = &hw->volumes[i];

		free(v->id);
		free(v->name);
		free(v->controller);
		free(v->raid_type);
		free(v->durable_name);
		free(v->durable_name_format);
		free(v->health);
		for (size_t k = 0; k < v->n_drive_ids; k++)
			free(v->drive_ids[k]);
		free(v->drive_ids);
	}
	free(hw->volumes);
	for (size_t i = 0; i < hw->n_sensors; i++) {
		struct br_sensor *s = &hw->sensors[i];

		free(s->name);
		free(s->units);
		free(s->health);
		free(s->state);
		free(s->serial);
	}
	free(hw->sensors);
	for (size_t i = 0; i < hw->n_sel; i++) {
		struct br_sel_entry *e = &hw->sel[i];

		free(e->id);
		free(e->created);
		free(e->severity);
		free(e->message);
		free(e->message_id);
	}
	free(hw->sel);
	for (size_t i = 0; i < hw->n_unreadable; i++) {
		free(hw->unreadable[i].url);
		free(hw->unreadable[i].reason);
	}
	free(hw->unreadable);
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
