/* Unit tests for bringup/hwjson: br_hw_from_json reads back every field
 * br_hw_to_json writes (bringup-bmc --json prints br_hw this way). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/hwjson.h"
#include "common.h"

static void fill(struct br_hw *hw)
{
	struct br_nic *nic;
	struct br_kv *kv;
	struct br_firmware *fw;
	struct br_pcie *p;
	struct br_drive *d;
	struct br_sensor *s;
	struct br_sel_entry *e;

	br_hw_init(hw);
	hw->source = br_xstrdup("redfish");
	hw->manufacturer = br_xstrdup("Dell Inc.");
	hw->model = br_xstrdup("PowerEdge XE9680");
	hw->system_serial = br_xstrdup("CN7475158B0042");
	hw->service_tag = br_xstrdup("7XK3Q93");
	hw->uuid = br_xstrdup("4c4c4544-0058-4b10-8033-b7c04f513933");
	hw->bios_version = br_xstrdup("2.19.1");
	hw->bmc_firmware = br_xstrdup("7.00.00.171");
	hw->bmc_mac = br_xstrdup("b0:7b:25:de:ad:01");
	hw->power_state = br_xstrdup("On");
	hw->cpu_model = br_xstrdup("Intel(R) Xeon(R) Platinum 8480+");
	hw->cpu_count = 2;
	hw->cpu_max_mhz = 3800;
	hw->memory_gib = 2048;
	hw->boot_mode = br_xstrdup("Uefi");
	hw->boot_override_target = br_xstrdup("Pxe");
	hw->boot_override_enabled = br_xstrdup("Once");
	br_hw_add_boot(hw, "NIC.PxeDevice.1-1");
	br_hw_add_boot(hw, "Disk.Bay.0");
	nic = br_hw_add_nic(hw);
	nic->mac = br_xstrdup("b0:7b:25:00:00:01");
	nic->name = br_xstrdup("NIC.Slot.3-1-1");
	nic->source = br_xstrdup("NetworkDeviceFunctions");
	nic->link_status = br_xstrdup("LinkUp");
	nic->permanent = 1;
	nic = br_hw_add_nic(hw);
	nic->mac = br_xstrdup("b0:7b:25:00:00:02");
	nic->source = br_xstrdup("EthernetInterfaces");
	kv = br_hw_add_bios(hw);
	kv->key = br_xstrdup("LogicalProc");
	kv->value = br_xstrdup("Enabled");
	kv = br_hw_add_bios(hw);
	kv->key = br_xstrdup("SriovGlobalEnable");
	kv->value = br_xstrdup("true");
	fw = br_hw_add_firmware(hw);
	fw->id = br_xstrdup("Installed-25227-2.19.1__BIOS.Setup.1-1");
	fw->name = br_xstrdup("BIOS");
	fw->version = br_xstrdup("2.19.1");
	fw->updateable = 1;
	p = br_hw_add_pcie(hw);
	p->id = br_xstrdup("3-0");
	p->address = br_xstrdup("0000:1b:00.0");
	p->name = br_xstrdup("H100 SXM5");
	p->manufacturer = br_xstrdup("NVIDIA");
	p->device_class = br_xstrdup("DisplayController");
	p->slot = br_xstrdup("SXM 1");
	p->serial = br_xstrdup("1654922001234");
	p->lanes_in_use = 16;
	p->max_lanes = 16;
	p->pcie_type = br_xstrdup("Gen5");
	p->max_pcie_type = br_xstrdup("Gen5");
	p->health = br_xstrdup("OK");
	br_hw_add_pcie(hw)->id = br_xstrdup("unknown-lanes");
	d = br_hw_add_drive(hw);
	d->id = br_xstrdup("Disk.Bay.0");
	d->name = br_xstrdup("PCIe SSD in Slot 0");
	d->serial = br_xstrdup("S6CKNE0T123456");
	d->model = br_xstrdup("Dell Ent NVMe PM1733a");
	d->protocol = br_xstrdup("NVMe");
	d->media = br_xstrdup("SSD");
	d->location = br_xstrdup("Bay 0");
	d->health = br_xstrdup("OK");
	d->capacity_bytes = 3840755982336ull;
	{
		struct br_volume *v = br_hw_add_volume(hw);

		v->id = br_xstrdup("Disk.Virtual.0:BOSS.SL.14-1");
		v->name = br_xstrdup("BOSS_VD");
		v->controller = br_xstrdup("BOSS.SL.14-1");
		v->raid_type = br_xstrdup("RAID1");
		v->durable_name = br_xstrdup("5F4EE0801234ABCD");
		v->durable_name_format = br_xstrdup("NAA");
		v->health = br_xstrdup("OK");
		v->capacity_bytes = 960197124096ull;
		br_volume_add_drive(v, "Disk.Direct.0-0:BOSS.SL.14-1");
		br_volume_add_drive(v, "Disk.Direct.1-1:BOSS.SL.14-1");
		br_hw_add_volume(hw)->id = br_xstrdup("no-members");
	}
	s = br_hw_add_sensor(hw);
	s->kind = BR_SENSOR_PSU;
	s->name = br_xstrdup("PS1 Status");
	s->units = br_xstrdup("W");
	s->health = br_xstrdup("OK");
	s->state = br_xstrdup("Enabled");
	s->serial = br_xstrdup("CNLOD0012345");
	s->reading = 812.5;
	s->upper_critical = 2800.0;
	s->lower_critical = 0.1;
	s = br_hw_add_sensor(hw);
	s->kind = BR_SENSOR_FAN;
	s->name = br_xstrdup("Fan1A");
	e = br_hw_add_sel(hw);
	e->id = br_xstrdup("1");
	e->created = br_xstrdup("2026-11-29T22:18:57Z");
	e->severity = br_xstrdup("Warning");
	e->message = br_xstrdup("The system inlet temperature is greater than the upper warning threshold.");
	e->message_id = br_xstrdup("TMP0118");
	br_hw_add_unreadable(
	    hw, "https://10.0.0.5/redfish/v1/Managers/iDRAC.Embedded.1/LogServices", 404,
	    "GET https://10.0.0.5/redfish/v1/Managers/iDRAC.Embedded.1/LogServices: HTTP 404");
	br_hw_add_unreadable(hw, "https://10.0.0.5/redfish/v1/Chassis/System.Embedded.1/Thermal", 0,
			     "after 2 attempts: GET .../Thermal: timed out");
}

static void assert_str(const char *a, const char *b)
{
	if (!a || !b)
		assert_ptr_equal(a, b);
	else
		assert_string_equal(a, b);
}

static void assert_num(double a, double b)
{
	if (isnan(a) || isnan(b))
		assert_true(isnan(a) && isnan(b));
	else
		assert_true(a == b);
}

static void compare_lists(const struct br_hw *a, const struct br_hw *b)
{
	assert_int_equal(a->n_boot_order, b->n_boot_order);
	for (size_t i = 0; i < a->n_boot_order; i++)
		assert_str(a->boot_order[i], b->boot_order[i]);
	assert_int_equal(a->n_nics, b->n_nics);
	for (size_t i = 0; i < a->n_nics; i++) {
		assert_str(a->nics[i].mac, b->nics[i].mac);
		assert_str(a->nics[i].name, b->nics[i].name);
		assert_str(a->nics[i].source, b->nics[i].source);
		assert_str(a->nics[i].link_status, b->nics[i].link_status);
		assert_int_equal(a->nics[i].permanent, b->nics[i].permanent);
	}
	assert_int_equal(a->n_bios, b->n_bios);
	for (size_t i = 0; i < a->n_bios; i++) {
		assert_str(a->bios[i].key, b->bios[i].key);
		assert_str(a->bios[i].value, b->bios[i].value);
	}
	assert_int_equal(a->n_firmware, b->n_firmware);
	for (size_t i = 0; i < a->n_firmware; i++) {
		assert_str(a->firmware[i].id, b->firmware[i].id);
		assert_str(a->firmware[i].name, b->firmware[i].name);
		assert_str(a->firmware[i].version, b->firmware[i].version);
		assert_int_equal(a->firmware[i].updateable, b->firmware[i].updateable);
	}
}

static void compare_devices(const struct br_hw *a, const struct br_hw *b)
{
	assert_int_equal(a->n_pcie, b->n_pcie);
	for (size_t i = 0; i < a->n_pcie; i++) {
		const struct br_pcie *x = &a->pcie[i], *y = &b->pcie[i];

		assert_str(x->id, y->id);
		assert_str(x->address, y->address);
		assert_str(x->name, y->name);
		assert_str(x->manufacturer, y->manufacturer);
		assert_str(x->device_class, y->device_class);
		assert_str(x->slot, y->slot);
		assert_str(x->serial, y->serial);
		assert_int_equal(x->lanes_in_use, y->lanes_in_use);
		assert_int_equal(x->max_lanes, y->max_lanes);
		assert_str(x->pcie_type, y->pcie_type);
		assert_str(x->max_pcie_type, y->max_pcie_type);
		assert_str(x->health, y->health);
	}
	assert_int_equal(a->n_drives, b->n_drives);
	for (size_t i = 0; i < a->n_drives; i++) {
		const struct br_drive *x = &a->drives[i], *y = &b->drives[i];

		assert_str(x->id, y->id);
		assert_str(x->name, y->name);
		assert_str(x->serial, y->serial);
		assert_str(x->model, y->model);
		assert_str(x->protocol, y->protocol);
		assert_str(x->media, y->media);
		assert_str(x->location, y->location);
		assert_str(x->health, y->health);
		assert_true(x->capacity_bytes == y->capacity_bytes);
	}
	assert_int_equal(a->n_volumes, b->n_volumes);
	for (size_t i = 0; i < a->n_volumes; i++) {
		const struct br_volume *x = &a->volumes[i], *y = &b->volumes[i];

		assert_str(x->id, y->id);
		assert_str(x->name, y->name);
		assert_str(x->controller, y->controller);
		assert_str(x->raid_type, y->raid_type);
		assert_str(x->durable_name, y->durable_name);
		assert_str(x->durable_name_format, y->durable_name_format);
		assert_str(x->health, y->health);
		assert_true(x->capacity_bytes == y->capacity_bytes);
		assert_int_equal(x->n_drive_ids, y->n_drive_ids);
		for (size_t k = 0; k < x->n_drive_ids; k++)
			assert_str(x->drive_ids[k], y->drive_ids[k]);
	}
	assert_int_equal(a->n_sensors, b->n_sensors);
	for (size_t i = 0; i < a->n_sensors; i++) {
		const struct br_sensor *x = &a->sensors[i], *y = &b->sensors[i];

		assert_int_equal(x->kind, y->kind);
		assert_str(x->name, y->name);
		assert_str(x->units, y->units);
		assert_str(x->health, y->health);
		assert_str(x->state, y->state);
		assert_str(x->serial, y->serial);
		assert_num(x->reading, y->reading);
		assert_num(x->upper_critical, y->upper_critical);
		assert_num(x->lower_critical, y->lower_critical);
	}
	assert_int_equal(a->n_sel, b->n_sel);
	for (size_t i = 0; i < a->n_sel; i++) {
		assert_str(a->sel[i].id, b->sel[i].id);
		assert_str(a->sel[i].created, b->sel[i].created);
		assert_str(a->sel[i].severity, b->sel[i].severity);
		assert_str(a->sel[i].message, b->sel[i].message);
		assert_str(a->sel[i].message_id, b->sel[i].message_id);
	}
}

static void compare(const struct br_hw *a, const struct br_hw *b)
{
	assert_str(a->source, b->source);
	assert_str(a->manufacturer, b->manufacturer);
	assert_str(a->model, b->model);
	assert_str(a->system_serial, b->system_serial);
	assert_str(a->service_tag, b->service_tag);
	assert_str(a->uuid, b->uuid);
	assert_str(a->bios_version, b->bios_version);
	assert_str(a->bmc_firmware, b->bmc_firmware);
	assert_str(a->bmc_mac, b->bmc_mac);
	assert_str(a->power_state, b->power_state);
	assert_str(a->cpu_model, b->cpu_model);
	assert_int_equal(a->cpu_count, b->cpu_count);
	assert_int_equal(a->cpu_max_mhz, b->cpu_max_mhz);
	assert_int_equal(a->memory_gib, b->memory_gib);
	assert_str(a->boot_mode, b->boot_mode);
	assert_str(a->boot_override_target, b->boot_override_target);
	assert_str(a->boot_override_enabled, b->boot_override_enabled);
	compare_lists(a, b);
	compare_devices(a, b);
	assert_int_equal(a->n_unreadable, b->n_unreadable);
	for (size_t i = 0; i < a->n_unreadable; i++) {
		assert_str(a->unreadable[i].url, b->unreadable[i].url);
		assert_int_equal(a->unreadable[i].status, b->unreadable[i].status);
		assert_str(a->unreadable[i].reason, b->unreadable[i].reason);
	}
	assert_int_equal(a->unreadable_dropped, b->unreadable_dropped);
}

/* Through text, as the pipe carries it. */
static void round_trip(const struct br_hw *in, struct br_hw *out)
{
	json_t *doc = br_hw_to_json(in), *back;
	char *text = json_dumps(doc, JSON_COMPACT);
	struct br_err err = { 0 };

	assert_non_null(text);
	back = br_json_parse(text, strlen(text), 1u << 24, &err);
	assert_non_null(back);
	assert_int_equal(br_hw_from_json(back, out, &err), 0);
	json_decref(back);
	json_decref(doc);
	free(text);
}

static void test_round_trip_full(void **state)
{
	struct br_hw in, out;

	(void)state;
	fill(&in);
	round_trip(&in, &out);
	compare(&in, &out);
	br_hw_release(&in);
	br_hw_release(&out);
}

static void test_round_trip_empty(void **state)
{
	struct br_hw in, out;

	(void)state;
	br_hw_init(&in);
	round_trip(&in, &out);
	compare(&in, &out);
	assert_int_equal(out.cpu_count, -1);
	br_hw_release(&in);
	br_hw_release(&out);
}

static void test_bad_input(void **state)
{
	struct br_err err = { 0 };
	struct br_hw hw;
	json_t *doc;

	(void)state;
	doc = json_pack("{s:s}", "nics", "not a list");
	assert_int_equal(br_hw_from_json(doc, &hw, &err), BR_E_INVAL);
	assert_non_null(strstr(err.msg, "nics"));
	json_decref(doc);
	doc = json_pack("{s:[{s:s}]}", "sensors", "kind", "warp-core");
	assert_int_equal(br_hw_from_json(doc, &hw, &err), BR_E_INVAL);
	assert_non_null(strstr(err.msg, "warp-core"));
	json_decref(doc);
	doc = json_string("x");
	assert_int_equal(br_hw_from_json(doc, &hw, &err), BR_E_INVAL);
	json_decref(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip_full),
		cmocka_unit_test(test_round_trip_empty),
		cmocka_unit_test(test_bad_input),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
