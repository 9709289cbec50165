/* Unit tests for redfish/ parsing: fixtures (tests/fixtures/redfish/, see its
 * README) fed to the parse layer, the vendor quirks, the link follower's
 * queueing, error reasons, backoff and the URL set. No network. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "redfish/rf_private.h"

static json_t *fixture(const char *name)
{
	const char *top = getenv("BR_TOP");
	struct br_err err = { 0 };
	char *path = br_xasprintf("%s/tests/fixtures/redfish/%s", top ? top : ".", name);
	json_t *doc = br_json_load_file(path, RF_BODY_MAX, &err);

	if (!doc)
		fail_msg("%s", err.msg);
	free(path);
	return doc;
}

#define WITH_FIXTURE(var, name, ...)                                                                         \
	do {                                                                                                 \
		json_t *var = fixture(name);                                                                 \
		__VA_ARGS__;                                                                                 \
		json_decref(var);                                                                            \
	} while (0)

/* A BMC that is never started: rf_follow only queues onto it. */
struct fake {
	struct rf_options opts;
	struct rf_http http;
	struct rf_bmc bmc;
	struct rf_target target;
};

static void fake_init(struct fake *f, const char *base)
{
	memset(f, 0, sizeof(*f));
	rf_options_init(&f->opts);
	assert_int_equal(rf_http_init(&f->http, &f->opts, 1, NULL), 0);
	f->target.name = "node-01";
	f->target.base_url = base;
	f->bmc.target = &f->target;
	f->bmc.http = &f->http;
	f->bmc.base = br_xstrdup(base);
	rf_http_host_init(&f->http, &f->bmc);
	br_hw_init(&f->bmc.hw);
}

static void fake_release(struct fake *f)
{
	rf_http_cancel_bmc(&f->http, &f->bmc);
	rf_urlset_release(&f->bmc.seen);
	br_hw_release(&f->bmc.hw);
	free(f->bmc.base);
	free(f->bmc.expand);
	rf_http_release(&f->http);
}

static size_t queued(const struct fake *f, const char *url)
{
	size_t n = 0;

	for (const struct br_http_req *h = f->bmc.host.queue; h; h = h->next)
		if (!url || !strcmp(h->url, url))
			n++;
	return n;
}

static void test_system_dell(void **state)
{
	struct fake f;

	(void)state;
	fake_init(&f, "https://10.0.0.5");
	WITH_FIXTURE(doc, "dell_system.json", {
		rf_parse_system(&f.bmc.hw, doc);
		f.bmc.vendor = rf_vendor_from_manufacturer(br_json_str(doc, "Manufacturer"));
		assert_ptr_equal(f.bmc.vendor, &rf_vendor_dell);
		f.bmc.vendor->on_system(&f.bmc.hw, doc);
		rf_follow_vendor_links(&f.bmc, doc);
	});
	struct br_hw *hw = &f.bmc.hw;

	assert_string_equal(hw->manufacturer, "Dell Inc.");
	assert_string_equal(hw->model, "PowerEdge XE9680");
	assert_string_equal(hw->system_serial, "CNIVC0012B0045");
	assert_string_equal(hw->service_tag, "7XK2ZZ3");
	assert_string_equal(hw->uuid, "4c4c4544-0058-4b10-8032-b7c04f5a5a33");
	assert_string_equal(hw->bios_version, "1.6.9");
	assert_string_equal(hw->power_state, "On");
	assert_string_equal(hw->health, "OK"); /* Status.Health, not HealthRollup */
	assert_string_equal(hw->cpu_model, "Intel(R) Xeon(R) Platinum 8480+");
	assert_int_equal(hw->cpu_count, 2);
	assert_int_equal(hw->memory_gib, 2048);
	/* the integer in BootOrder is skipped, not printed */
	assert_int_equal(hw->n_boot_order, 2);
	assert_string_equal(hw->boot_order[0], "NIC.PxeDevice.1-1");
	assert_string_equal(hw->boot_override_target, "None");
	assert_string_equal(hw->boot_override_enabled, "Disabled");
	assert_string_equal(hw->boot_mode, "UEFI");
	fake_release(&f);
}

static void test_system_links_queued(void **state)
{
	struct fake f;

	(void)state;
	fake_init(&f, "https://10.0.0.5");
	f.bmc.expand = br_xstrdup("$expand=.($levels=1)");
	WITH_FIXTURE(doc, "dell_system.json", {
		rf_follow(&f.bmc, doc, "PCIeDevices", RF_K_PCIE_DEVICE, 1, -1);
		rf_follow(&f.bmc, doc, "Storage", RF_K_STORAGE, 1, -1);
		rf_follow(&f.bmc, doc, "Bios", RF_K_BIOS, 0, -1);
		/* the same links again: already requested, nothing new */
		rf_follow(&f.bmc, doc, "PCIeDevices", RF_K_PCIE_DEVICE, 1, -1);
		rf_follow(&f.bmc, doc, "Storage", RF_K_STORAGE, 1, -1);
	});
	assert_int_equal(queued(&f, NULL), 4);
	assert_int_equal(f.bmc.host.pending, 4);
	/* an array of links is read member by member, never expanded */
	assert_int_equal(queued(&f, "https://10.0.0.5/redfish/v1/Chassis/System.Embedded.1/PCIeDevices/25-0"),
			 1);
	/* a collection gets $expand */
	assert_int_equal(
	    queued(&f, "https://10.0.0.5/redfish/v1/Systems/System.Embedded.1/Storage?$expand=.($levels=1)"),
	    1);
	assert_int_equal(queued(&f, "https://10.0.0.5/redfish/v1/Systems/System.Embedded.1/Bios"), 1);
	/* the longest chain ahead goes first: Storage -> Storage member -> Drive */
	assert_int_equal(((struct rf_req *)f.bmc.host.queue)->kind, RF_K_COLLECTION);
	assert_int_equal(((struct rf_req *)f.bmc.host.queue)->member_kind, RF_K_STORAGE);
	fake_release(&f);
}

static void test_resolve(void **state)
{
	struct fake f;
	char *u;

	(void)state;
	fake_init(&f, "http://127.0.0.1:18003");
	u = rf_resolve(&f.bmc, "/redfish/v1/Systems");
	assert_string_equal(u, "http://127.0.0.1:18003/redfish/v1/Systems");
	free(u);
	u = rf_resolve(&f.bmc, "http://127.0.0.1:18003/redfish/v1/Managers");
	assert_string_equal(u, "http://127.0.0.1:18003/redfish/v1/Managers");
	free(u);
	/* credentials never go to another host */
	assert_null(rf_resolve(&f.bmc, "http://127.0.0.1:18004/redfish/v1"));
	assert_null(rf_resolve(&f.bmc, "http://127.0.0.1:180031/redfish/v1"));
	assert_null(rf_resolve(&f.bmc, "//evil.example/redfish/v1"));
	assert_null(rf_resolve(&f.bmc, "redfish/v1"));
	fake_release(&f);
}

static void test_macs_both_views(void **state)
{
	struct br_hw hw;

	(void)state;
	br_hw_init(&hw);
	WITH_FIXTURE(doc, "dell_ethernet_interface.json", rf_parse_ethernet_interface(&hw, doc));
	WITH_FIXTURE(doc, "dell_network_device_function.json", rf_parse_network_device_function(&hw, doc));
	WITH_FIXTURE(doc, "dell_network_device_function_2.json", rf_parse_network_device_function(&hw, doc));
	assert_int_equal(hw.n_nics, 2);
	/* the permanent MAC, once, with the first view's source */
	assert_string_equal(hw.nics[0].mac, "b0:7b:25:de:ad:01");
	assert_string_equal(hw.nics[0].source, "EthernetInterfaces");
	assert_string_equal(hw.nics[0].name, "NIC.Slot.31-1-1");
	assert_string_equal(hw.nics[0].link_status, "LinkUp");
	assert_int_equal(hw.nics[0].permanent, 1);
	/* PermanentMACAddress null: MACAddress, not permanent */
	assert_string_equal(hw.nics[1].mac, "b0:7b:25:de:ad:02");
	assert_string_equal(hw.nics[1].source, "NetworkDeviceFunctions");
	assert_int_equal(hw.nics[1].permanent, 0);
	/* a later permanent sighting upgrades the flag, keeps the source */
	assert_int_equal(rf_add_mac(&hw, "B0:7B:25:DE:AD:02", "x", "ipmi", 1, NULL), 0);
	assert_int_equal(hw.nics[1].permanent, 1);
	assert_string_equal(hw.nics[1].source, "NetworkDeviceFunctions");
	/* junk and all-zero MACs are not NICs */
	assert_int_equal(rf_add_mac(&hw, "00:00:00:00:00:00", "x", "y", 0, NULL), 0);
	assert_int_equal(rf_add_mac(&hw, "not a mac", "x", "y", 0, NULL), 0);
	assert_int_equal(hw.n_nics, 2);
	br_hw_release(&hw);
}

static void test_pcie(void **state)
{
	struct br_hw hw;
	long gpu, nic;

	(void)state;
	br_hw_init(&hw);
	WITH_FIXTURE(doc, "dell_pcie_device.json", gpu = rf_parse_pcie_device(&hw, doc));
	WITH_FIXTURE(doc, "dell_pcie_device_legacy.json", nic = rf_parse_pcie_device(&hw, doc));
	WITH_FIXTURE(doc, "dell_pcie_function.json", rf_parse_pcie_function(&hw, nic, doc));
	assert_int_equal(gpu, 0);
	assert_int_equal(nic, 1);
	assert_int_equal(hw.n_pcie, 2);
	assert_string_equal(hw.pcie[0].id, "25-0");
	assert_string_equal(hw.pcie[0].name, "GH100 [H100 SXM5 80GB]");
	assert_string_equal(hw.pcie[0].manufacturer, "NVIDIA Corporation");
	assert_string_equal(hw.pcie[0].serial, "1654922005814");
	assert_string_equal(hw.pcie[0].slot, "Slot 31");
	assert_int_equal(hw.pcie[0].lanes_in_use, 4);
	assert_int_equal(hw.pcie[0].max_lanes, 16);
	assert_string_equal(hw.pcie[0].pcie_type, "Gen5");
	assert_string_equal(hw.pcie[0].max_pcie_type, "Gen5");
	assert_string_equal(hw.pcie[0].health, "Warning");
	assert_null(hw.pcie[0].device_class);
	/* the legacy device's class and link come from its function */
	assert_string_equal(hw.pcie[1].device_class, "NetworkController");
	assert_int_equal(hw.pcie[1].lanes_in_use, 16);
	assert_int_equal(hw.pcie[1].max_lanes, 16);
	assert_string_equal(hw.pcie[1].serial, "MT2245X01234");
	assert_null(hw.pcie[1].slot);
	/* the same device seen again (System and Chassis views) is one record */
	WITH_FIXTURE(doc, "dell_pcie_device.json", assert_int_equal(rf_parse_pcie_device(&hw, doc), 0));
	assert_int_equal(hw.n_pcie, 2);
	/* a function whose parent is unknown is ignored */
	WITH_FIXTURE(doc, "dell_pcie_function.json", rf_parse_pcie_function(&hw, 7, doc));
	WITH_FIXTURE(doc, "dell_pcie_function.json", rf_parse_pcie_function(&hw, -1, doc));
	br_hw_release(&hw);
}

static void test_drives(void **state)
{
	struct br_hw hw;

	(void)state;
	br_hw_init(&hw);
	WITH_FIXTURE(doc, "dell_drive.json", rf_parse_drive(&hw, doc));
	WITH_FIXTURE(doc, "dell_drive_legacy.json", rf_parse_drive(&hw, doc));
	assert_int_equal(hw.n_drives, 2);
	assert_string_equal(hw.drives[0].id, "Disk.Bay.0:Enclosure.Internal.0-1");
	assert_string_equal(hw.drives[0].serial, "Y2B0A0ZKT3R8");
	assert_string_equal(hw.drives[0].model, "Dell Ent NVMe CM6 RI 3.84TB");
	assert_string_equal(hw.drives[0].protocol, "NVMe");
	assert_string_equal(hw.drives[0].media, "SSD");
	assert_string_equal(hw.drives[0].location, "Bay 0");
	assert_string_equal(hw.drives[0].health, "OK");
	assert_true(hw.drives[0].capacity_bytes == 3840755982336ull);
	assert_string_equal(hw.drives[1].location, "Bay 1");
	assert_string_equal(hw.drives[1].protocol, "SATA");
	br_hw_release(&hw);
}

/* Storage Volumes: a BOSS RAID1 and its members (issue 12 point 6). */
static void test_volumes(void **state)
{
	struct br_hw hw;

	(void)state;
	br_hw_init(&hw);
	WITH_FIXTURE(doc, "dell_volume_boss.json", rf_parse_volume(&hw, doc));
	/* linked twice (a collection read again): kept once */
	WITH_FIXTURE(doc, "dell_volume_boss.json", rf_parse_volume(&hw, doc));
	WITH_FIXTURE(doc, "dell_volume_legacy.json", rf_parse_volume(&hw, doc));
	assert_int_equal(hw.n_volumes, 2);
	assert_string_equal(hw.volumes[0].id, "Disk.Virtual.0:BOSS.SL.14-1");
	assert_string_equal(hw.volumes[0].controller, "BOSS.SL.14-1");
	assert_string_equal(hw.volumes[0].raid_type, "RAID1");
	assert_string_equal(hw.volumes[0].durable_name, "5F4EE0801234ABCD");
	assert_string_equal(hw.volumes[0].durable_name_format, "NAA");
	assert_string_equal(hw.volumes[0].health, "OK");
	assert_true(hw.volumes[0].capacity_bytes == 960197124096ull);
	assert_int_equal(hw.volumes[0].n_drive_ids, 2);
	assert_string_equal(hw.volumes[0].drive_ids[1], "Disk.Direct.1-1:BOSS.SL.14-1");
	assert_ptr_equal(br_hw_volume_of_drive(&hw, "Disk.Direct.0-0:BOSS.SL.14-1"), &hw.volumes[0]);
	assert_null(br_hw_volume_of_drive(&hw, "Disk.Bay.0:Enclosure.Internal.0-1"));
	/* Volume.v1_0: Mirrored is RAID1; the first identifier with a name */
	assert_string_equal(hw.volumes[1].raid_type, "RAID1");
	assert_string_equal(hw.volumes[1].controller, "RAID.Integrated.1-1");
	assert_string_equal(hw.volumes[1].durable_name, "6F4EE080ABCDEF0012345678");
	assert_string_equal(hw.volumes[1].durable_name_format, "UUID");
	assert_int_equal(hw.volumes[1].n_drive_ids, 1);
	br_hw_release(&hw);
}

/* The supplies' redundancy groups are sensors of their own, never
 * supplies (tests/fixtures/redfish/README.md). */
static void test_power_redundancy(void **state)
{
	struct br_hw hw;
	size_t psus = 0, groups = 0;

	(void)state;
	br_hw_init(&hw);
	WITH_FIXTURE(doc, "dmtf_power_redundancy.json", rf_parse_power(&hw, doc));
	WITH_FIXTURE(doc, "dmtf_power_subsystem.json", rf_parse_power_subsystem(&hw, doc));
	for (size_t i = 0; i < hw.n_sensors; i++) {
		psus += hw.sensors[i].kind == BR_SENSOR_PSU;
		groups += hw.sensors[i].kind == BR_SENSOR_PSU_REDUNDANCY;
	}
	assert_int_equal(psus, 2);
	assert_int_equal(groups, 2);
	assert_int_equal(hw.sensors[2].kind, BR_SENSOR_PSU_REDUNDANCY);
	assert_string_equal(hw.sensors[2].name, "PowerSupply Redundancy Group 1");
	assert_string_equal(hw.sensors[2].health, "Critical");
	assert_string_equal(hw.sensors[3].name, "power supply redundancy"); /* a group has no Name */
	assert_string_equal(hw.sensors[3].health, "OK");
	br_hw_release(&hw);
}

static void test_sensors(void **state)
{
	struct br_hw hw;
	struct br_sensor *s;

	(void)state;
	br_hw_init(&hw);
	WITH_FIXTURE(doc, "dell_thermal.json", rf_parse_thermal(&hw, doc));
	WITH_FIXTURE(doc, "dell_power.json", rf_parse_power(&hw, doc));
	WITH_FIXTURE(doc, "dmtf_fan.json", rf_parse_fan(&hw, doc));
	WITH_FIXTURE(doc, "dmtf_power_supply.json", rf_parse_power_supply(&hw, doc));
	assert_int_equal(hw.n_sensors, 9);
	s = &hw.sensors[0];
	assert_int_equal(s->kind, BR_SENSOR_FAN);
	assert_string_equal(s->name, "System Board Fan1A");
	assert_true(s->reading == 14040);
	assert_string_equal(s->units, "RPM");
	assert_true(s->lower_critical == 480);
	assert_true(isnan(s->upper_critical));
	s = &hw.sensors[1]; /* legacy ReadingRPM + FanName */
	assert_string_equal(s->name, "Fan 2");
	assert_true(s->reading == 9000);
	assert_string_equal(s->units, "RPM");
	s = &hw.sensors[2];
	assert_int_equal(s->kind, BR_SENSOR_TEMP);
	assert_string_equal(s->name, "System Board Inlet Temp");
	assert_true(s->reading == 23 && s->upper_critical == 47 && s->lower_critical == -7);
	assert_string_equal(s->units, "Cel");
	s = &hw.sensors[3];
	assert_true(s->reading == 127.5);
	assert_string_equal(s->health, "Critical");
	s = &hw.sensors[5];
	assert_int_equal(s->kind, BR_SENSOR_PSU);
	assert_string_equal(s->name, "PS2 Status");
	assert_string_equal(s->serial, "CNLOD0023A00AC");
	assert_string_equal(s->health, "Critical");
	assert_string_equal(s->state, "Enabled");
	assert_true(s->reading == 2800);
	assert_string_equal(s->units, "W");
	assert_int_equal(hw.sensors[6].kind, BR_SENSOR_VOLTAGE);
	s = &hw.sensors[7]; /* ThermalSubsystem Fan: RPM preferred over percent */
	assert_int_equal(s->kind, BR_SENSOR_FAN);
	assert_true(s->reading == 2200);
	assert_string_equal(s->units, "RPM");
	s = &hw.sensors[8];
	assert_int_equal(s->kind, BR_SENSOR_PSU);
	assert_string_equal(s->serial, "3488247");
	assert_true(s->reading == 1400);
	br_hw_release(&hw);
}

static const char *bios_value(struct br_hw *hw, const char *key)
{
	for (size_t i = 0; i < hw->n_bios; i++)
		if (!strcmp(hw->bios[i].key, key))
			return hw->bios[i].value;
	return NULL;
}

static void test_bios_firmware_manager_sel(void **state)
{
	struct br_hw hw;

	(void)state;
	br_hw_init(&hw);
	WITH_FIXTURE(doc, "dell_bios.json", rf_parse_bios(&hw, doc));
	assert_int_equal(hw.n_bios, 8);
	assert_string_equal(bios_value(&hw, "BootMode"), "Uefi");
	assert_string_equal(bios_value(&hw, "NumaNodesPerSocket"), "1");
	assert_string_equal(bios_value(&hw, "SriovGlobalEnable"), "true");
	assert_string_equal(bios_value(&hw, "AcPwrRcvryUserDelay"), "60.5");
	assert_string_equal(bios_value(&hw, "AssetTag"), "null");

	WITH_FIXTURE(doc, "dell_firmware.json", rf_parse_firmware(&hw, doc));
	assert_int_equal(hw.n_firmware, 1);
	assert_string_equal(hw.firmware[0].id, "Installed-159-1.6.9__BIOS.Setup.1-1");
	assert_string_equal(hw.firmware[0].name, "BIOS");
	assert_string_equal(hw.firmware[0].version, "1.6.9");
	assert_int_equal(hw.firmware[0].updateable, 1);

	WITH_FIXTURE(doc, "dell_manager.json", rf_parse_manager(&hw, doc));
	WITH_FIXTURE(doc, "dell_manager_ethernet.json", rf_parse_manager_ethernet(&hw, doc));
	assert_string_equal(hw.bmc_firmware, "7.00.00.171");
	assert_string_equal(hw.bmc_mac, "c8:4b:d6:00:aa:01");
	/* the BMC's port, kept as the BMC's: never a host NIC */
	assert_int_equal(hw.n_nics, 1);
	assert_string_equal(hw.nics[0].role, BR_NIC_ROLE_BMC);
	assert_string_equal(hw.nics[0].source, "ManagerEthernetInterfaces");
	assert_int_equal(br_hw_host_nics(&hw), 0);

	WITH_FIXTURE(doc, "dell_log_service_sel.json", assert_true(rf_log_service_is_sel(doc)));
	WITH_FIXTURE(doc, "dell_manager.json", assert_false(rf_log_service_is_sel(doc)));
	WITH_FIXTURE(doc, "dell_sel_entries.json", {
		json_t *m = json_object_get(doc, "Members"), *e;
		size_t i;

		json_array_foreach(m, i, e) rf_parse_sel_entry(&hw, e);
		/* the Manager's and the System's SEL are the same log */
		json_array_foreach(m, i, e) rf_parse_sel_entry(&hw, e);
	});
	assert_int_equal(hw.n_sel, 2);
	assert_string_equal(hw.sel[0].id, "1");
	assert_string_equal(hw.sel[0].created, "2026-11-02T09:14:27-05:00");
	assert_string_equal(hw.sel[0].severity, "Critical");
	assert_string_equal(hw.sel[0].message_id, "IDRAC.2.9.SEC0033");
	assert_string_equal(hw.sel[1].message, "Power supply redundancy is lost.");
	br_hw_release(&hw);
}

static void test_hpe_oem_macs(void **state)
{
	struct fake f;

	(void)state;
	fake_init(&f, "https://10.0.0.9");
	WITH_FIXTURE(doc, "hpe_system.json", {
		rf_parse_system(&f.bmc.hw, doc);
		f.bmc.vendor = rf_vendor_from_manufacturer(f.bmc.hw.manufacturer);
		assert_ptr_equal(f.bmc.vendor, &rf_vendor_hpe);
		assert_null(f.bmc.vendor->on_system);
		rf_follow_vendor_links(&f.bmc, doc);
	});
	assert_null(f.bmc.hw.service_tag); /* SKU is a part number on HPE */
	assert_int_equal(queued(&f, "https://10.0.0.9/redfish/v1/Systems/1/BaseNetworkAdapters/"), 1);
	assert_int_equal(((struct rf_req *)f.bmc.host.queue)->member_kind, RF_K_HPE_ADAPTER);
	WITH_FIXTURE(doc, "hpe_base_network_adapter.json", rf_hpe_parse_network_adapter(&f.bmc.hw, doc));
	assert_int_equal(f.bmc.hw.n_nics, 2);
	assert_string_equal(f.bmc.hw.nics[0].mac, "48:df:37:a0:11:20");
	assert_string_equal(f.bmc.hw.nics[0].name, "1.1");
	assert_string_equal(f.bmc.hw.nics[1].mac, "48:df:37:a0:11:21");
	assert_string_equal(f.bmc.hw.nics[1].link_status, "Up");
	assert_string_equal(f.bmc.hw.nics[1].source, "HpeBaseNetworkAdapter");
	fake_release(&f);
}

static void test_vendor_from_root(void **state)
{
	json_t *r;

	(void)state;
	r = json_pack("{s:s}", "Vendor", "Dell");
	assert_ptr_equal(rf_vendor_from_root(r), &rf_vendor_dell);
	json_decref(r);
	r = json_pack("{s:{s:{}}}", "Oem", "Hpe");
	assert_ptr_equal(rf_vendor_from_root(r), &rf_vendor_hpe);
	json_decref(r);
	r = json_pack("{s:i, s:[]}", "Vendor", 3, "Oem");
	assert_null(rf_vendor_from_root(r));
	json_decref(r);
	assert_null(rf_vendor_from_manufacturer("Contoso"));
	assert_null(rf_vendor_from_manufacturer(NULL));
}

/* Every parser, fed members of the wrong type, must treat them as absent. */
static void test_wrong_types(void **state)
{
	struct fake f;
	struct br_hw *hw;

	(void)state;
	fake_init(&f, "https://10.0.0.5");
	hw = &f.bmc.hw;
	WITH_FIXTURE(doc, "wrong_types.json", {
		rf_parse_system(hw, doc);
		rf_parse_processor(hw, doc);
		rf_parse_ethernet_interface(hw, doc);
		rf_parse_network_device_function(hw, doc);
		assert_int_equal(rf_parse_pcie_device(hw, doc), 0);
		rf_parse_pcie_function(hw, 0, doc);
		rf_parse_drive(hw, doc);
		rf_parse_volume(hw, doc);
		rf_parse_bios(hw, doc);
		rf_parse_thermal(hw, doc);
		rf_parse_fan(hw, doc);
		rf_parse_power(hw, doc);
		rf_parse_power_supply(hw, doc);
		rf_parse_manager(hw, doc);
		rf_parse_manager_ethernet(hw, doc);
		rf_parse_sel_entry(hw, doc);
		rf_parse_firmware(hw, doc);
		rf_hpe_parse_network_adapter(hw, doc);
		rf_vendor_dell.on_system(&f.bmc.hw, doc);
		f.bmc.vendor = &rf_vendor_hpe;
		rf_follow_vendor_links(&f.bmc, doc);
		assert_false(rf_log_service_is_sel(doc));
		rf_follow(&f.bmc, doc, "Members", RF_K_SYSTEM, 1, -1);
		rf_follow(&f.bmc, doc, "Id", RF_K_SYSTEM, 1, -1);
		rf_follow(&f.bmc, doc, "@odata.id", RF_K_SYSTEM, 1, -1);
		char *body = json_dumps(doc, 0);

		assert_null(rf_error_message_id(body, strlen(body)));
		free(body);
	});
	assert_int_equal(hw->n_volumes, 1);
	assert_null(hw->volumes[0].raid_type);
	assert_null(hw->volumes[0].durable_name);
	assert_null(hw->volumes[0].controller);
	assert_int_equal(hw->volumes[0].n_drive_ids, 0);
	assert_null(hw->manufacturer);
	assert_null(hw->model);
	assert_null(hw->system_serial);
	assert_null(hw->uuid);
	assert_null(hw->power_state);
	assert_int_equal(hw->cpu_count, -1);
	assert_int_equal(hw->cpu_max_mhz, -1);
	assert_int_equal(hw->memory_gib, -1);
	assert_int_equal(hw->n_boot_order, 0);
	assert_null(hw->boot_override_target);
	assert_int_equal(hw->n_nics, 0);
	assert_int_equal(hw->n_bios, 0);
	assert_null(hw->bmc_firmware);
	assert_null(hw->bmc_mac);
	assert_int_equal(hw->n_pcie, 1);
	assert_null(hw->pcie[0].id);
	assert_int_equal(hw->pcie[0].lanes_in_use, -1);
	assert_null(hw->pcie[0].slot);
	assert_int_equal(hw->n_drives, 1);
	assert_true(hw->drives[0].capacity_bytes == 0);
	assert_null(hw->drives[0].location);
	/* two Temperatures entries are not objects; the third reads as NaN */
	assert_int_equal(hw->n_sensors, 3);
	assert_true(isnan(hw->sensors[0].reading));
	assert_int_equal(hw->n_firmware, 1);
	assert_int_equal(hw->firmware[0].updateable, 0);
	assert_null(hw->service_tag);
	assert_int_equal(queued(&f, NULL), 0);
	fake_release(&f);
}

static void test_error_reason(void **state)
{
	const char *url = "http://127.0.0.1:18003/redfish/v1/SessionService/Sessions";
	struct br_buf b;
	char *body;

	(void)state;
	br_buf_init(&b, 0);
	WITH_FIXTURE(doc, "error_privilege.json", {
		body = json_dumps(doc, 0);
		rf_http_error_reason(&b, 401, url, body, strlen(body), "Unauthorized");
		free(body);
	});
	assert_string_equal(br_buf_str(&b), "HTTP 401 on http://127.0.0.1:18003/redfish/v1/"
					    "SessionService/Sessions: Base.1.12.InsufficientPrivilege");
	br_buf_reset(&b);
	WITH_FIXTURE(doc, "error_code_only.json", {
		body = json_dumps(doc, 0);
		rf_http_error_reason(&b, 503, url, body, strlen(body), NULL);
		free(body);
	});
	assert_string_equal(br_buf_str(&b), "HTTP 503 on http://127.0.0.1:18003/redfish/v1/"
					    "SessionService/Sessions: iLO.0.10.SessionLimitReached");
	br_buf_reset(&b);
	rf_http_error_reason(&b, 404, "http://h/x", "<html>nope", 10, "Not Here");
	assert_string_equal(br_buf_str(&b), "HTTP 404 on http://h/x: Not Here");
	br_buf_reset(&b);
	rf_http_error_reason(&b, 405, "http://h/x", NULL, 0, NULL);
	assert_string_equal(br_buf_str(&b), "HTTP 405 on http://h/x: Method Not Allowed");
	br_buf_reset(&b);
	rf_http_error_reason(&b, 599, "http://h/x", "{\"error\":", 9, NULL);
	assert_string_equal(br_buf_str(&b), "HTTP 599 on http://h/x");
	br_buf_release(&b);
}

static void test_retry_hints(void **state)
{
	long delay = -1;

	(void)state;
	assert_true(rf_retry_hint("RAC0218", &delay));
	assert_int_equal(delay, 0);
	assert_true(rf_retry_hint("IDRAC.2.8.SYS518", &delay));
	assert_int_equal(delay, 30000);
	assert_false(rf_retry_hint("IDRAC.2.8.XSYS518", &delay));
	assert_false(rf_retry_hint("Base.1.12.InsufficientPrivilege", &delay));
	assert_false(rf_retry_hint(NULL, &delay));
}

static void test_backoff(void **state)
{
	struct rf_options o;
	uint64_t rng = 42;

	(void)state;
	rf_options_init(&o);
	for (int round = 0; round < 50; round++) {
		long d0 = br_http_backoff_ms(o.backoff_ms, o.backoff_max_ms, 0, &rng);
		long d3 = br_http_backoff_ms(o.backoff_ms, o.backoff_max_ms, 3, &rng);
		long d20 = br_http_backoff_ms(o.backoff_ms, o.backoff_max_ms, 20, &rng);

		assert_in_range(d0, 250, 500);
		assert_in_range(d3, 2000, 4000);
		assert_in_range(d20, 15000, 30000);
	}
}

static void test_urlset(void **state)
{
	struct rf_urlset s = { 0 };
	char url[64];

	(void)state;
	for (int i = 0; i < 500; i++) {
		snprintf(url, sizeof(url), "/redfish/v1/Things/%d", i);
		assert_int_equal(rf_urlset_add(&s, url), 1);
	}
	for (int i = 0; i < 500; i += 7) {
		snprintf(url, sizeof(url), "/redfish/v1/Things/%d", i);
		assert_int_equal(rf_urlset_add(&s, url), 0);
	}
	assert_int_equal(s.n, 500);
	rf_urlset_release(&s);
}

/* Connection View's edge cases: a stale member with an unpadded chassis
 * MAC, a SwitchConnectionID that is no MAC (kept as sent), members of the
 * wrong types skipped. A Port's LLDPReceive: the chassis MAC normalised,
 * a PortId sent as hex octets read as the name it spells, the system name,
 * management address and VLAN; a port that is down has no neighbour. */
static void test_neighbors(void **state)
{
	struct br_hw hw;
	const struct br_neighbor *nb;
	size_t links;

	(void)state;
	br_hw_init(&hw);
	WITH_FIXTURE(doc, "dell_switch_connections_stale.json", rf_parse_dell_switch_connections(&hw, doc));
	assert_int_equal(hw.n_neighbors, 2);
	nb = br_hw_neighbor_of(&hw, "NIC.Embedded.1-1-1");
	assert_int_equal(nb->stale, 1);
	assert_string_equal(nb->chassis_id, "02:1c:73:f1:03:c8");
	nb = br_hw_neighbor_of(&hw, "NIC.Slot.31-1-1");
	assert_string_equal(nb->chassis_id, "not-a-mac");
	assert_null(nb->chassis_id_subtype);
	assert_int_equal(rf_neighbors_stale(&hw, &links), 1);
	assert_int_equal(links, 2);
	rf_neighbors_clear(&hw);
	assert_int_equal(hw.n_neighbors, 0);
	br_hw_release(&hw);

	br_hw_init(&hw);
	WITH_FIXTURE(doc, "dmtf_port_lldp.json", rf_parse_port(&hw, doc));
	WITH_FIXTURE(doc, "dmtf_port_lldp_down.json", rf_parse_port(&hw, doc));
	assert_string_equal(hw.neighbor_source, "LLDPReceive");
	assert_int_equal(hw.n_neighbors, 2);
	nb = br_hw_neighbor_of(&hw, "DE083000/1");
	assert_non_null(nb);
	assert_int_equal(nb->link, 1);
	assert_string_equal(nb->mac, "b8:83:03:4a:12:90");
	assert_string_equal(nb->chassis_id, "0c:42:a1:11:22:33");
	assert_string_equal(nb->port_id, "swp12");
	assert_string_equal(nb->port_id_subtype, "IfName");
	assert_string_equal(nb->system_name, "leaf01");
	assert_string_equal(nb->mgmt_address, "10.0.0.11");
	assert_int_equal(nb->vlan, 4094);
	nb = br_hw_neighbor_of(&hw, "DE083000/2");
	assert_int_equal(nb->link, 0);
	assert_null(nb->chassis_id);
	assert_int_equal(nb->vlan, -1);
	br_hw_release(&hw);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_system_dell),
		cmocka_unit_test(test_neighbors),
		cmocka_unit_test(test_system_links_queued),
		cmocka_unit_test(test_resolve),
		cmocka_unit_test(test_macs_both_views),
		cmocka_unit_test(test_pcie),
		cmocka_unit_test(test_drives),
		cmocka_unit_test(test_volumes),
		cmocka_unit_test(test_power_redundancy),
		cmocka_unit_test(test_sensors),
		cmocka_unit_test(test_bios_firmware_manager_sel),
		cmocka_unit_test(test_hpe_oem_macs),
		cmocka_unit_test(test_vendor_from_root),
		cmocka_unit_test(test_wrong_types),
		cmocka_unit_test(test_error_reason),
		cmocka_unit_test(test_retry_hints),
		cmocka_unit_test(test_backoff),
		cmocka_unit_test(test_urlset),
	};

	br_log_init("test_redfish_parse", BR_LOG_ERROR);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
