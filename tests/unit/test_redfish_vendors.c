/* Unit tests for discovery across BMC families: captures and shapes under
 * tests/fixtures/redfish/{dmtf,openbmc,lenovo,supermicro,ami}/ (see the
 * README there for where each came from) fed to the parse layer: the BMC's
 * USB link told from host NICs, MACs from BootOptions and from BIOS
 * attributes, the more standard source kept, padded serials, a drive seen
 * twice. No network. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
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

static void parse_eth(struct br_hw *hw, const char *name)
{
	json_t *doc = fixture(name);

	rf_parse_ethernet_interface(hw, doc);
	json_decref(doc);
}

static void parse_boot(struct br_hw *hw, const char *name)
{
	json_t *doc = fixture(name);

	rf_parse_boot_option(hw, doc);
	json_decref(doc);
}

/* DMTF's public-rackmount1 mockup: ToManager is the USB link, the NIC is a
 * host NIC although its MAC is locally administered (0x12: the MAC alone
 * cannot tell). */
static void test_dmtf_usb_link(void **state)
{
	struct br_hw hw;

	br_hw_init(&hw);
	parse_eth(&hw, "dmtf/eth_tomanager.json");
	parse_eth(&hw, "dmtf/eth_host_nic.json");
	assert_int_equal(hw.n_nics, 2);
	assert_string_equal(hw.nics[0].mac, "aa:bb:cc:dd:ee:fe");
	assert_string_equal(hw.nics[0].role, BR_NIC_ROLE_BMC_USB);
	assert_string_equal(hw.nics[1].mac, "12:44:6a:3b:04:11");
	assert_string_equal(hw.nics[1].role, BR_NIC_ROLE_HOST);
	assert_string_equal(hw.nics[1].source, "EthernetInterfaces");
	assert_int_equal(br_hw_host_nics(&hw), 1);
	br_hw_release(&hw);
}

/* Supermicro's Host Interface, known by its name (MAC with dashes); AMI's
 * host NIC in mixed case is a host NIC, normalised. */
static void test_usb_link_by_name_and_mac(void **state)
{
	struct br_hw hw;

	br_hw_init(&hw);
	parse_eth(&hw, "supermicro/eth_hostusb.json");
	parse_eth(&hw, "ami/eth_host_nic_mixed_case.json");
	assert_int_equal(hw.n_nics, 2);
	assert_string_equal(hw.nics[0].mac, "be:3a:f2:b6:05:9f");
	assert_string_equal(hw.nics[0].role, BR_NIC_ROLE_BMC_USB);
	assert_string_equal(hw.nics[1].mac, "3c:ec:ef:1a:2b:3c");
	assert_string_equal(hw.nics[1].role, BR_NIC_ROLE_HOST);
	br_hw_release(&hw);
}

/* MACs in UEFI device paths and display names; a disk entry gives none;
 * a MAC the standard resources also show takes their source, whichever
 * came first. */
static void test_boot_options(void **state)
{
	struct br_hw hw;

	br_hw_init(&hw);
	parse_boot(&hw, "openbmc/boot_option_uefi_path.json");
	parse_boot(&hw, "openbmc/boot_option_display_name.json");
	parse_boot(&hw, "openbmc/boot_option_disk.json");
	assert_int_equal(hw.n_nics, 2);
	assert_string_equal(hw.nics[0].mac, "3c:ec:ef:1a:2b:3c");
	assert_string_equal(hw.nics[0].source, "BootOptions");
	assert_string_equal(hw.nics[1].mac, "b8:3f:d2:c0:ff:ee");
	assert_string_equal(hw.nics[1].role, BR_NIC_ROLE_HOST);
	parse_eth(&hw, "ami/eth_host_nic_mixed_case.json");
	assert_int_equal(hw.n_nics, 2);
	assert_string_equal(hw.nics[0].source, "EthernetInterfaces");
	assert_string_equal(hw.nics[0].name, "EthernetInterface0");
	/* and a boot entry read later does not take it back */
	parse_boot(&hw, "openbmc/boot_option_uefi_path.json");
	assert_string_equal(hw.nics[0].source, "EthernetInterfaces");
	br_hw_release(&hw);
}

/* Lenovo XCC: an add-in NIC the BMC does not manage shows its ports only
 * as BIOS attributes "..._MACAddress". Their values are host MACs
 * (source "Bios"); decoys are not; a MAC the standard resources also show
 * keeps their source, read before or after. */
static void test_bios_attribute_macs(void **state)
{
	struct br_hw hw;
	json_t *doc = fixture("lenovo/bios_nic_macs.json");

	br_hw_init(&hw);
	rf_parse_bios(&hw, doc);
	assert_int_equal(hw.n_bios, 11);
	assert_int_equal(hw.n_nics, 3);
	assert_int_equal(br_hw_host_nics(&hw), 3);
	assert_string_equal(hw.nics[0].mac, "3c:ec:ef:aa:10:01");
	assert_string_equal(hw.nics[0].source, "Bios");
	assert_string_equal(hw.nics[0].role, BR_NIC_ROLE_HOST);
	assert_string_equal(hw.nics[0].name, "NvidiaNetworkAdapter_3CECEFAA1001__Slot3");
	assert_string_equal(hw.nics[1].mac, "3c:ec:ef:aa:10:02");
	assert_string_equal(hw.nics[1].source, "Bios");
	assert_string_equal(hw.nics[2].mac, "3c:ec:ef:1a:2b:3c");
	assert_string_equal(hw.nics[2].source, "Bios");
	/* the standard resource read after takes the MAC over */
	parse_eth(&hw, "ami/eth_host_nic_mixed_case.json");
	assert_int_equal(hw.n_nics, 3);
	assert_string_equal(hw.nics[2].source, "EthernetInterfaces");
	assert_string_equal(hw.nics[2].name, "EthernetInterface0");
	br_hw_release(&hw);

	/* and keeps it when the Bios is read after it */
	br_hw_init(&hw);
	parse_eth(&hw, "ami/eth_host_nic_mixed_case.json");
	rf_parse_bios(&hw, doc);
	assert_int_equal(hw.n_nics, 3);
	assert_string_equal(hw.nics[0].mac, "3c:ec:ef:1a:2b:3c");
	assert_string_equal(hw.nics[0].source, "EthernetInterfaces");
	assert_string_equal(hw.nics[1].source, "Bios");
	br_hw_release(&hw);
	json_decref(doc);
}

/* Only RF_BIOS_MACS_MAX attributes are taken, and the BMC's own MAC,
 * known first, is not a host port. */
static void test_bios_attribute_macs_capped(void **state)
{
	struct br_hw hw;
	json_t *doc = json_object(), *attrs = json_object();

	for (int i = 0; i < RF_BIOS_MACS_MAX + 10; i++) {
		char key[64], mac[18];

		snprintf(key, sizeof(key), "Nic_Slot%d_MACAddress", i);
		snprintf(mac, sizeof(mac), "3c:ec:ef:00:%02x:%02x", i / 256, i % 256);
		json_object_set_new(attrs, key, json_string(mac));
	}
	json_object_set_new(doc, "Attributes", attrs);
	br_hw_init(&hw);
	hw.bmc_mac = br_xstrdup("3c:ec:ef:00:00:00");
	rf_parse_bios(&hw, doc);
	assert_int_equal(hw.n_bios, RF_BIOS_MACS_MAX + 10);
	assert_int_equal(hw.n_nics, RF_BIOS_MACS_MAX);
	assert_null(br_hw_find_nic(&hw, "3c:ec:ef:00:00:00"));
	br_hw_release(&hw);
	json_decref(doc);
}

static void test_padded_serial_and_twice_seen_drive(void **state)
{
	struct br_hw hw;
	json_t *sys = fixture("lenovo/system_padded.json"), *drive = fixture("ami/drive.json");

	br_hw_init(&hw);
	rf_parse_system(&hw, sys);
	assert_string_equal(hw.system_serial, "J1009ZXY");
	rf_parse_drive(&hw, drive);
	rf_parse_drive(&hw, drive);
	assert_int_equal(hw.n_drives, 1);
	assert_string_equal(hw.drives[0].serial, "S6CRNA0W123456");
	json_decref(sys);
	json_decref(drive);
	br_hw_release(&hw);
}

/* Links to one resource differing in case or a trailing '/' are one URL. */
static void test_urlset_redfish_ids(void **state)
{
	struct rf_urlset s = { 0 };

	assert_int_equal(rf_urlset_add(&s, "https://b/redfish/v1/Systems/1/"), 1);
	assert_int_equal(rf_urlset_add(&s, "https://b/redfish/v1/systems/1"), 0);
	assert_int_equal(rf_urlset_add(&s, "https://b/redfish/v1/Systems/1/Drives?$skip=3"), 1);
	assert_int_equal(rf_urlset_add(&s, "https://b/redfish/v1/Systems/1/Drives/?$skip=3"), 0);
	rf_urlset_release(&s);
}

/* PCIe links outside PCIeDevice: HPE's PCIDevices (by slot label) and a
 * Chassis' PCIeSlots (by the device link), merged at the walk's end; a
 * standard value wins, a hint for no device adds none. */
static void test_pcie_link_hints(void **state)
{
	struct rf_bmc bmc;
	json_t *hpe = fixture("hpe_pci_device.json"), *slots = fixture("supermicro/pcie_slots.json");
	struct br_pcie *gpu3, *gpu1, *nic7, *std;

	memset(&bmc, 0, sizeof(bmc));
	br_hw_init(&bmc.hw);
	gpu3 = br_hw_add_pcie(&bmc.hw);
	gpu3->id = br_hw_strdup("1");
	gpu3->slot = br_hw_strdup("PCI-E Slot 3");
	gpu3->lanes_in_use = gpu3->max_lanes = -1;
	gpu1 = br_hw_add_pcie(&bmc.hw);
	gpu1->id = br_hw_strdup("GPU1");
	gpu1->lanes_in_use = gpu1->max_lanes = -1;
	nic7 = br_hw_add_pcie(&bmc.hw);
	nic7->id = br_hw_strdup("NIC7");
	nic7->lanes_in_use = nic7->max_lanes = -1;
	std = br_hw_add_pcie(&bmc.hw);
	std->id = br_hw_strdup("PCI.Slot.3.1");
	std->lanes_in_use = 2;
	std->pcie_type = br_hw_strdup("Gen3");
	rf_pcie_hint_hpe(&bmc, hpe);
	rf_pcie_hint_slots(&bmc, slots);
	rf_pcie_hints_merge(&bmc);
	assert_null(bmc.pcie_hints);
	gpu3 = &bmc.hw.pcie[0];
	assert_int_equal(gpu3->lanes_in_use, 8);
	assert_string_equal(gpu3->pcie_type, "Gen4");
	assert_int_equal(bmc.hw.pcie[1].lanes_in_use, 16);
	assert_string_equal(bmc.hw.pcie[1].pcie_type, "Gen5");
	assert_int_equal(bmc.hw.pcie[2].lanes_in_use, 4);
	assert_string_equal(bmc.hw.pcie[2].pcie_type, "Gen4");
	/* standard values kept */
	assert_int_equal(bmc.hw.pcie[3].lanes_in_use, 2);
	assert_string_equal(bmc.hw.pcie[3].pcie_type, "Gen3");
	assert_int_equal(bmc.hw.n_pcie, 4);
	br_hw_release(&bmc.hw);
	json_decref(hpe);
	json_decref(slots);
}

/* A NIC partition switched off (NPAR partition 2 of 4 that could be
 * Ethernet, iSCSI or FCoE): disabled, never a host MAC; DeviceEnabled
 * false the same. */
static void test_ndf_disabled_partition(void **state)
{
	struct br_hw hw;
	json_t *doc = fixture("dell_ndf_partition_disabled.json");

	br_hw_init(&hw);
	assert_true(rf_ndf_is_disabled(doc));
	rf_parse_network_device_function(&hw, doc);
	assert_int_equal(hw.n_nics, 1);
	assert_string_equal(hw.nics[0].role, BR_NIC_ROLE_DISABLED);
	assert_int_equal(br_hw_host_nics(&hw), 0);
	json_object_set_new(doc, "NetDevFuncType", json_string("Ethernet"));
	assert_false(rf_ndf_is_disabled(doc));
	json_object_set_new(doc, "DeviceEnabled", json_false());
	assert_true(rf_ndf_is_disabled(doc));
	json_decref(doc);
	br_hw_release(&hw);
}

/* PXE over the BMC's LAN-over-USB: the device path runs through USB()
 * nodes; its MAC (universally administered here, on purpose) is the
 * BMC's whatever else lists it. A boot entry's locally administered MAC
 * that no NIC resource lists is the BMC's too; the same MAC in a host
 * EthernetInterface stays a host MAC. */
static void test_boot_option_bmc_link(void **state)
{
	struct br_hw hw, hw2;
	json_t *usb = fixture("lenovo/boot_option_usb_lan.json");
	json_t *laa = fixture("lenovo/boot_option_laa.json");

	br_hw_init(&hw);
	assert_true(rf_boot_path_is_usb(usb));
	assert_false(rf_boot_path_is_usb(laa));
	rf_parse_boot_option(&hw, usb);
	rf_parse_boot_option(&hw, laa);
	assert_int_equal(hw.n_nics, 2);
	assert_string_equal(hw.nics[0].mac, "3c:ec:ef:00:11:22");
	assert_string_equal(hw.nics[0].role, BR_NIC_ROLE_BMC_USB);
	assert_string_equal(hw.nics[1].role, BR_NIC_ROLE_HOST);
	/* a standard view of the USB link's MAC naming it a host port loses */
	rf_add_mac(&hw, "3c:ec:ef:00:11:22", "eth9", "EthernetInterfaces", 1, NULL);
	assert_string_equal(hw.nics[0].role, BR_NIC_ROLE_BMC_USB);
	rf_macs_settle(&hw);
	assert_string_equal(hw.nics[1].role, BR_NIC_ROLE_BMC_USB);
	assert_int_equal(br_hw_host_nics(&hw), 0);

	br_hw_init(&hw2);
	rf_parse_boot_option(&hw2, laa);
	rf_add_mac(&hw2, "0a:1b:2c:3d:4e:5f", "eth0", "EthernetInterfaces", 1, NULL);
	rf_macs_settle(&hw2);
	assert_string_equal(hw2.nics[0].role, BR_NIC_ROLE_HOST);
	json_decref(usb);
	json_decref(laa);
	br_hw_release(&hw);
	br_hw_release(&hw2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dmtf_usb_link),
		cmocka_unit_test(test_usb_link_by_name_and_mac),
		cmocka_unit_test(test_boot_options),
		cmocka_unit_test(test_bios_attribute_macs),
		cmocka_unit_test(test_bios_attribute_macs_capped),
		cmocka_unit_test(test_padded_serial_and_twice_seen_drive),
		cmocka_unit_test(test_urlset_redfish_ids),
		cmocka_unit_test(test_pcie_link_hints),
		cmocka_unit_test(test_ndf_disabled_partition),
		cmocka_unit_test(test_boot_option_bmc_link),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
