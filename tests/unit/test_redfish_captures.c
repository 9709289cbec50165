/* Unit tests on real BMC answers: captures of HPE iLO 5, Lenovo XCC,
 * Supermicro, NVIDIA DGX H100 (AMI firmware), NVIDIA BlueField and GB200
 * (OpenBMC), Dell iDRAC9 (PowerEdge R750), Gigabyte H262-Z63 (AMI
 * MegaRAC) and Intel S2600BPB (Intel's BMC firmware)
 * under tests/fixtures/redfish/{family}/{source}/ (README.md there says
 * where each came from, its licence and what was trimmed) fed to the parse
 * layer. Each test asserts what discovery must take from that BMC: host
 * MACs with their source and role, the BMC's USB link kept out, serials,
 * PCIe links, which System is the host. No network. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "profile/profile.h"
#include "redfish/rf_firmware.h"
#include "redfish/rf_private.h"
#include "validators/rules.h"

static json_t *capture(const char *name)
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

/* Feed one capture to a parser that takes (hw, doc). */
#define FEED(fn, hw, name)                                                                                   \
	do {                                                                                                 \
		json_t *doc_ = capture(name);                                                                \
		fn(hw, doc_);                                                                                \
		json_decref(doc_);                                                                           \
	} while (0)

static const struct br_nic *nic(const struct br_hw *hw, const char *mac)
{
	for (size_t i = 0; i < hw->n_nics; i++)
		if (!strcmp(hw->nics[i].mac, mac))
			return &hw->nics[i];
	fail_msg("no NIC %s", mac);
	return NULL;
}

/* Every System of these captures is a host (a GPU baseboard System is
 * not); their Ids are "1", "DGX", "Bluefield". */
static void assert_host_system(const char *name)
{
	json_t *doc = capture(name);

	assert_true(rf_system_is_host(doc));
	json_decref(doc);
}

/* HPE iLO 5, ProLiant DL385 Gen10 Plus v2: one MAC in the standard
 * EthernetInterfaces, the rest only in BaseNetworkAdapters (OEM) or a
 * Chassis NetworkDeviceFunction; the CPU model padded to 48 columns. */
static void test_hpe_ilo5(void **state)
{
	struct br_hw hw;
	const struct br_nic *n;

	br_hw_init(&hw);
	FEED(rf_parse_system, &hw, "hpe/libredfish/system.json");
	assert_string_equal(hw.manufacturer, "HPE");
	assert_string_equal(hw.model, "ProLiant DL385 Gen10 Plus v2");
	assert_string_equal(hw.system_serial, "MXQ302099Z");
	assert_string_equal(hw.health, "OK");
	assert_string_equal(hw.cpu_model, "AMD EPYC 7763 64-Core Processor");
	assert_int_equal(hw.cpu_count, 2);
	assert_int_equal(hw.memory_gib, 1024);
	assert_int_equal(hw.n_boot_order, 31);
	assert_host_system("hpe/libredfish/system.json");

	FEED(rf_parse_ethernet_interface, &hw, "hpe/libredfish/eth_1.json");
	FEED(rf_hpe_parse_network_adapter, &hw, "hpe/libredfish/base_network_adapter_1.json");
	FEED(rf_hpe_parse_network_adapter, &hw, "hpe/libredfish/base_network_adapter_2.json");
	FEED(rf_parse_network_device_function, &hw, "hpe/libredfish/ndf_de083000_0.json");
	/* a disk's boot entry names no MAC */
	FEED(rf_parse_boot_option, &hw, "hpe/libredfish/boot_option_1.json");
	assert_int_equal(hw.n_nics, 6);
	assert_int_equal(br_hw_host_nics(&hw), 6);
	/* the port both views show keeps the standard one ("Name": "" there:
	 * the Id names it) */
	n = nic(&hw, "50:7c:6f:14:ad:14");
	assert_string_equal(n->source, "EthernetInterfaces");
	assert_string_equal(n->name, "1");
	n = nic(&hw, "50:7c:6f:14:ad:17");
	assert_string_equal(n->source, "HpeBaseNetworkAdapter");
	assert_string_equal(n->name, "1.4");
	assert_string_equal(n->role, BR_NIC_ROLE_HOST);
	assert_string_equal(nic(&hw, "88:e9:a4:83:ed:d0")->source, "HpeBaseNetworkAdapter");
	n = nic(&hw, "88:e9:a4:87:62:38");
	assert_string_equal(n->source, "NetworkDeviceFunctions");
	assert_int_equal(n->permanent, 1);
	br_hw_release(&hw);
}

/* HPE iLO 5, ProLiant DL180 Gen10 with no serial set: SerialNumber is 16
 * blanks, which is no serial; its PCI device shows no link width, so it
 * gives no PCIe hint. */
static void test_hpe_ilo5_blank_serial(void **state)
{
	struct rf_bmc bmc;
	json_t *pci = capture("hpe/proliantutils/pci_device_1.json");

	memset(&bmc, 0, sizeof(bmc));
	br_hw_init(&bmc.hw);
	FEED(rf_parse_system, &bmc.hw, "hpe/proliantutils/system_blank_serial.json");
	assert_null(bmc.hw.system_serial);
	assert_string_equal(bmc.hw.model, "ProLiant DL180 Gen10");
	assert_host_system("hpe/proliantutils/system_blank_serial.json");
	rf_pcie_hint_hpe(&bmc, pci);
	assert_null(bmc.pcie_hints);
	json_decref(pci);
	br_hw_release(&bmc.hw);
}

/* Lenovo XCC, ThinkSystem SR670 V2: the System's only EthernetInterface is
 * the USB link to the XCC, the adapters have no NetworkDeviceFunctions and
 * the boot entries no MAC: no host MAC at all, so discovery must refuse the
 * node (discover.c) instead of taking ToManager for its PXE NIC. */
static void test_lenovo_xcc_macless(void **state)
{
	struct br_hw hw;
	json_t *ndfs = capture("lenovo/libredfish/ndf_collection_slot3.json");

	br_hw_init(&hw);
	FEED(rf_parse_system, &hw, "lenovo/libredfish/system.json");
	assert_string_equal(hw.system_serial, "J101RZ43");
	assert_string_equal(hw.model, "ThinkSystem SR670 V2");
	assert_host_system("lenovo/libredfish/system.json");
	FEED(rf_parse_ethernet_interface, &hw, "lenovo/libredfish/eth_tomanager.json");
	FEED(rf_parse_boot_option, &hw, "lenovo/libredfish/boot_option_0003.json");
	assert_int_equal(json_array_size(json_object_get(ndfs, "Members")), 0);
	assert_int_equal(hw.n_nics, 1);
	assert_string_equal(hw.nics[0].mac, "7e:8a:e1:d5:a2:77");
	assert_string_equal(hw.nics[0].role, BR_NIC_ROLE_BMC_USB);
	assert_int_equal(br_hw_host_nics(&hw), 0);
	json_decref(ndfs);
	br_hw_release(&hw);
}

/* Lenovo's PCIeDevice: the link on the device, the slot label only under
 * Oem.Lenovo.Location. */
static void test_lenovo_xcc_pcie(void **state)
{
	struct br_hw hw;
	long i;
	json_t *doc = capture("lenovo/libredfish/pcie_device_slot_3.json");

	br_hw_init(&hw);
	i = rf_parse_pcie_device(&hw, doc);
	assert_int_equal(i, 0);
	assert_int_equal(hw.pcie[0].lanes_in_use, 16);
	assert_int_equal(hw.pcie[0].max_lanes, 16);
	assert_string_equal(hw.pcie[0].pcie_type, "Gen4");
	assert_string_equal(hw.pcie[0].slot, "PCIe 3");
	assert_null(hw.pcie[0].serial);
	json_decref(doc);
	br_hw_release(&hw);
}

/* Supermicro SYS-821GE-TNHR (8x H100): the Host Interface "ToManager" is
 * the BMC's; the add-in NIC's MAC is in EthernetInterfaces (lower case) and
 * its NetworkDeviceFunction (upper case), one NIC. */
static void test_supermicro_macs(void **state)
{
	struct br_hw hw;
	const struct br_nic *n;

	br_hw_init(&hw);
	FEED(rf_parse_system, &hw, "supermicro/libredfish/system.json");
	assert_string_equal(hw.system_serial, "S889914X3710910");
	assert_string_equal(hw.manufacturer, "Supermicro");
	assert_int_equal(hw.memory_gib, 2048);
	assert_host_system("supermicro/libredfish/system.json");
	/* ProcessorSummary names the family only; the Processor the part */
	assert_string_equal(hw.cpu_model, "Intel(R) Xeon(R) processor");
	assert_int_equal(hw.cpu_max_mhz, -1);
	FEED(rf_parse_processor, &hw, "supermicro/libredfish/processor_1.json");
	assert_string_equal(hw.cpu_model, "Intel(R) Xeon(R) Platinum 8462Y+");
	assert_int_equal(hw.cpu_max_mhz, 2800);
	FEED(rf_parse_ethernet_interface, &hw, "supermicro/libredfish/eth_tomanager.json");
	FEED(rf_parse_network_device_function, &hw, "supermicro/libredfish/ndf_1_1.json");
	FEED(rf_parse_ethernet_interface, &hw, "supermicro/libredfish/eth_1.json");
	assert_int_equal(hw.n_nics, 2);
	n = nic(&hw, "be:3a:f2:b6:05:9f");
	assert_string_equal(n->role, BR_NIC_ROLE_BMC_USB);
	assert_int_equal(n->permanent, 1);
	n = nic(&hw, "94:6d:ae:91:fb:22");
	assert_string_equal(n->role, BR_NIC_ROLE_HOST);
	assert_string_equal(n->source, "NetworkDeviceFunctions");
	assert_int_equal(br_hw_host_nics(&hw), 1);
	br_hw_release(&hw);
}

/* Supermicro's NVMe drives live under a backplane Chassis, linked from
 * the System's Storage: one drive however often it is read; the bay is
 * only in its Name. */
static void test_supermicro_drive(void **state)
{
	struct br_hw hw;

	br_hw_init(&hw);
	FEED(rf_parse_drive, &hw, "supermicro/libredfish/drive_bay_0.json");
	FEED(rf_parse_drive, &hw, "supermicro/libredfish/drive_bay_0.json");
	assert_int_equal(hw.n_drives, 1);
	assert_string_equal(hw.drives[0].serial, "S6CKNN0W502286");
	assert_string_equal(hw.drives[0].model, "MZQL27T6HBLA-00A07");
	assert_string_equal(hw.drives[0].name, "Disk.Bay.0");
	assert_true(hw.drives[0].capacity_bytes == 7681501126656ULL);
	assert_null(hw.drives[0].protocol);
	br_hw_release(&hw);
}

/* Supermicro's GPUs on the HGX board: PCIeInterface is there, with
 * "Gen-1", "Gen0" and -1 for "not known". Those are no link; the NIC's
 * Gen5 x16 is, and the Chassis' PCIeSlots confirm it (a standard value
 * wins, a slot for a device not seen adds none). */
static void test_supermicro_pcie(void **state)
{
	struct rf_bmc bmc;
	json_t *gpu = capture("supermicro/libredfish/pcie_gpu1.json");
	json_t *fn = capture("supermicro/libredfish/pcie_gpu1_function_1.json");
	json_t *nic1 = capture("supermicro/libredfish/pcie_nic1.json");
	json_t *slots = capture("supermicro/libredfish/pcie_slots.json");
	long g;

	memset(&bmc, 0, sizeof(bmc));
	br_hw_init(&bmc.hw);
	g = rf_parse_pcie_device(&bmc.hw, gpu);
	rf_parse_pcie_function(&bmc.hw, g, fn);
	rf_parse_pcie_device(&bmc.hw, nic1);
	rf_pcie_hint_slots(&bmc, slots);
	rf_pcie_hints_merge(&bmc);
	assert_int_equal(bmc.hw.n_pcie, 2);
	assert_string_equal(bmc.hw.pcie[0].id, "GPU1");
	assert_string_equal(bmc.hw.pcie[0].device_class, "DisplayController");
	assert_string_equal(bmc.hw.pcie[0].serial, "1652323019599");
	assert_int_equal(bmc.hw.pcie[0].lanes_in_use, -1);
	assert_int_equal(bmc.hw.pcie[0].max_lanes, -1);
	assert_null(bmc.hw.pcie[0].pcie_type);
	assert_null(bmc.hw.pcie[0].max_pcie_type);
	assert_int_equal(bmc.hw.pcie[1].lanes_in_use, 16);
	assert_string_equal(bmc.hw.pcie[1].pcie_type, "Gen5");
	assert_string_equal(bmc.hw.pcie[1].max_pcie_type, "Gen5");
	json_decref(gpu);
	json_decref(fn);
	json_decref(nic1);
	json_decref(slots);
	br_hw_release(&bmc.hw);
}

/* A GPU whose PCIeInterface says "Gen-1" still takes the link from the
 * slot that holds it: the sentinel must not count as known. */
static void test_supermicro_sentinel_takes_slot_hint(void **state)
{
	struct rf_bmc bmc;
	json_t *gpu = capture("supermicro/libredfish/pcie_gpu1.json");
	json_t *slot =
	    json_pack("{s:[{s:i, s:s, s:{s:[{s:s}]}}]}", "Slots", "Lanes", 16, "PCIeType", "Gen5", "Links",
		      "PCIeDevice", "@odata.id", "/redfish/v1/Chassis/1/PCIeDevices/GPU1");

	memset(&bmc, 0, sizeof(bmc));
	br_hw_init(&bmc.hw);
	rf_parse_pcie_device(&bmc.hw, gpu);
	rf_pcie_hint_slots(&bmc, slot);
	rf_pcie_hints_merge(&bmc);
	assert_int_equal(bmc.hw.pcie[0].lanes_in_use, 16);
	assert_string_equal(bmc.hw.pcie[0].pcie_type, "Gen5");
	json_decref(gpu);
	json_decref(slot);
	br_hw_release(&bmc.hw);
}

/* NVIDIA DGX H100 on AMI's Redfish server: System "DGX" beside
 * "HGX_Baseboard_0"; the PXE boot entry names the host NIC's MAC the
 * EthernetInterface has too, and the standard view names it, whichever
 * came first. No Dell or HPE quirks apply. */
static void test_ami_dgx(void **state)
{
	struct br_hw hw;
	json_t *root = capture("ami/libredfish/service_root.json");
	json_t *systems = capture("ami/libredfish/systems.json");
	const struct br_nic *n;

	assert_null(rf_vendor_from_root(root));
	assert_int_equal(json_array_size(json_object_get(systems, "Members")), 2);
	br_hw_init(&hw);
	FEED(rf_parse_system, &hw, "ami/libredfish/system_dgx.json");
	assert_null(rf_vendor_from_manufacturer(hw.manufacturer));
	assert_string_equal(hw.system_serial, "1663423610138");
	assert_string_equal(hw.model, "DGXH100");
	assert_null(hw.cpu_model);
	assert_int_equal(hw.cpu_count, 2);
	assert_host_system("ami/libredfish/system_dgx.json");
	FEED(rf_parse_boot_option, &hw, "ami/libredfish/boot_option_0003.json");
	assert_string_equal(hw.nics[0].source, "BootOptions");
	FEED(rf_parse_ethernet_interface, &hw, "ami/libredfish/eth_0.json");
	assert_int_equal(hw.n_nics, 1);
	n = nic(&hw, "5c:ff:35:fe:07:4e");
	assert_string_equal(n->source, "EthernetInterfaces");
	assert_string_equal(n->name, "EthernetInterface0");
	assert_string_equal(n->role, BR_NIC_ROLE_HOST);
	assert_int_equal(n->permanent, 1);
	json_decref(root);
	json_decref(systems);
	br_hw_release(&hw);
}

/* The DGX's Storage lists the BMC's virtual media (USB "Virtual Cdrom
 * Device", one serial for all) beside the NVMe drives: only the NVMe
 * drive is the host's, once however often it is linked. */
static void test_ami_dgx_drives(void **state)
{
	struct br_hw hw;

	br_hw_init(&hw);
	FEED(rf_parse_drive, &hw, "ami/libredfish/drive_usb_2.json");
	FEED(rf_parse_drive, &hw, "ami/libredfish/drive_nvme_1.json");
	FEED(rf_parse_drive, &hw, "ami/libredfish/drive_usb_4.json");
	FEED(rf_parse_drive, &hw, "ami/libredfish/drive_nvme_1.json");
	assert_int_equal(hw.n_drives, 1);
	assert_string_equal(hw.drives[0].serial, "S666NN0W308224");
	assert_string_equal(hw.drives[0].protocol, "NVMe");
	assert_true(hw.drives[0].capacity_bytes == 1920383410176ULL);
	br_hw_release(&hw);
}

/* The BMC's own port, not its end of the USB link to the host nor a
 * disabled port, is the BMC's MAC, whichever answer arrives first: a DGX's
 * "usb0", a Supermicro's "ToHost" (Id "1" and Name as its real port; only
 * the link to the Host Interface tells), iLO's shared port. */
static void test_bmc_mac_not_usb_link(void **state)
{
	struct br_hw hw;

	br_hw_init(&hw);
	FEED(rf_parse_manager_ethernet, &hw, "ami/libredfish/manager_eth_usb0.json");
	assert_null(hw.bmc_mac);
	FEED(rf_parse_manager_ethernet, &hw, "ami/libredfish/manager_eth_eth0.json");
	assert_string_equal(hw.bmc_mac, "5c:ff:35:fb:eb:33");
	br_hw_release(&hw);

	br_hw_init(&hw);
	FEED(rf_parse_manager_ethernet, &hw, "supermicro/libredfish/manager_eth_tohost.json");
	FEED(rf_parse_manager_ethernet, &hw, "supermicro/libredfish/manager_eth_1.json");
	assert_string_equal(hw.bmc_mac, "7c:c2:55:50:a8:ff");
	br_hw_release(&hw);

	/* iLO's disabled shared port is not the BMC's MAC either */
	br_hw_init(&hw);
	FEED(rf_parse_manager_ethernet, &hw, "hpe/libredfish/manager_eth_2.json");
	FEED(rf_parse_manager_ethernet, &hw, "hpe/libredfish/manager_eth_1.json");
	assert_string_equal(hw.bmc_mac, "5c:ed:8c:34:c2:94");
	br_hw_release(&hw);
}

/* NVIDIA BlueField-3 DPU on OpenBMC: the System has no SerialNumber and
 * links no EthernetInterfaces, so the walk sees MACs only in BootOptions
 * (a device path that starts with MAC()); the interfaces, where listed,
 * are the Arm host's ports, one with a locally administered MAC. */
static void test_openbmc_bluefield(void **state)
{
	struct br_hw hw;
	json_t *sys = capture("openbmc/libredfish/system.json");

	br_hw_init(&hw);
	rf_parse_system(&hw, sys);
	assert_null(hw.system_serial);
	assert_null(json_object_get(sys, "EthernetInterfaces"));
	assert_int_equal(hw.n_boot_order, 5);
	assert_host_system("openbmc/libredfish/system.json");
	FEED(rf_parse_boot_option, &hw, "openbmc/libredfish/boot_option_0001.json");
	assert_int_equal(hw.n_nics, 1);
	assert_string_equal(hw.nics[0].mac, "94:6d:ae:51:97:98");
	assert_string_equal(hw.nics[0].source, "BootOptions");
	FEED(rf_parse_network_device_function, &hw, "openbmc/libredfish/ndf_oob0f0.json");
	FEED(rf_parse_ethernet_interface, &hw, "openbmc/libredfish/eth_oob0.json");
	FEED(rf_parse_ethernet_interface, &hw, "openbmc/libredfish/eth_eth0.json");
	/* oob0 in its NetworkDeviceFunction and its EthernetInterface: one */
	assert_int_equal(br_hw_host_nics(&hw), 3);
	assert_string_equal(nic(&hw, "02:3b:47:35:33:ea")->role, BR_NIC_ROLE_HOST);
	assert_string_equal(nic(&hw, "a0:88:c2:08:80:70")->name, "oob0f0");
	assert_string_equal(nic(&hw, "a0:88:c2:08:80:70")->source, "NetworkDeviceFunctions");
	json_decref(sys);
	br_hw_release(&hw);
}

/* Dell iDRAC9, PowerEdge R750 (15G): serial and service tag; the
 * integrated port's MAC from EthernetInterfaces; the BlueField-2 port in
 * slot 5, which iDRAC lists with NetDevFuncType "Disabled" (no
 * personality it can set) and InterfaceEnabled false, is a host port all
 * the same (its UefiDevicePath PXE-boots through it); the iDRAC's own
 * port is kept as the BMC's; a disk boot entry adds no MAC. */
/* Dell iDRAC 9, PowerEdge R7615 (understack): Connection View. Every host
 * port is kept with its switch end; the iDRAC's own port is not a host
 * port; "No Link" is a port without a neighbour, never a switch named
 * "No Link"; the chassis MACs come out in the form the switches file and
 * LLDP use. */
static void test_dell_connection_view_r7615(void **state)
{
	struct br_hw hw;
	const struct br_neighbor *nb;
	json_t *attrs = capture("dell/understack/dell_attributes.json");

	(void)state;
	br_hw_init(&hw);
	FEED(rf_parse_dell_switch_connections, &hw, "dell/understack/switch_connections.json");
	assert_string_equal(hw.neighbor_source, "DellSwitchConnections");
	assert_int_equal(hw.n_neighbors, 8);
	assert_null(br_hw_neighbor_of(&hw, "iDRAC.Embedded.1"));
	nb = br_hw_neighbor_of(&hw, "NIC.Embedded.1-1-1");
	assert_non_null(nb);
	assert_int_equal(nb->link, 0);
	assert_null(nb->chassis_id);
	assert_null(nb->port_id);
	nb = br_hw_neighbor_of(&hw, "NIC.Integrated.1-1-1");
	assert_int_equal(nb->link, 1);
	assert_int_equal(nb->stale, 0);
	assert_string_equal(nb->chassis_id, "c4:7e:e0:e4:10:7f");
	assert_string_equal(nb->chassis_id_subtype, "MacAddr");
	assert_string_equal(nb->port_id, "Ethernet1/5");
	assert_string_equal(nb->source, "DellSwitchConnection");
	/* the two ports of one card go to the two switches of a pair */
	nb = br_hw_neighbor_of(&hw, "NIC.Integrated.1-2-1");
	assert_string_equal(nb->chassis_id, "c4:7e:e0:e4:32:df");
	assert_string_equal(nb->port_id, "Ethernet1/5");
	nb = br_hw_neighbor_of(&hw, "NIC.Slot.2-2-1");
	assert_string_equal(nb->port_id, "Ethernet1/7");
	/* the attribute a disabled view is switched on by, as the iDRAC names it */
	assert_string_equal(br_json_str(attrs, "Attributes/SwitchConnectionView.1.Enable"), "Enabled");
	json_decref(attrs);
	br_hw_release(&hw);
}

static void test_dell_idrac9_r750(void **state)
{
	struct br_hw hw;
	const struct br_nic *n;
	json_t *ndf = capture("dell/libredfish/ndf_slot_5_1.json");

	br_hw_init(&hw);
	FEED(rf_parse_system, &hw, "dell/libredfish/system.json");
	assert_string_equal(hw.manufacturer, "Dell Inc.");
	assert_string_equal(hw.model, "PowerEdge R750");
	assert_string_equal(hw.system_serial, "CNIVC0014R0076");
	assert_int_equal(hw.memory_gib, 512);
	assert_int_equal(hw.cpu_count, 2);
	assert_host_system("dell/libredfish/system.json");
	assert_false(rf_ndf_is_disabled(ndf));
	FEED(rf_parse_ethernet_interface, &hw, "dell/libredfish/eth_integrated_1_1_1.json");
	FEED(rf_parse_ethernet_interface, &hw, "dell/libredfish/eth_slot_5_1.json");
	rf_parse_network_device_function(&hw, ndf);
	FEED(rf_parse_boot_option, &hw, "dell/libredfish/boot_option_0004.json");
	FEED(rf_parse_manager_ethernet, &hw, "dell/libredfish/manager_eth_nic1.json");
	rf_macs_settle(&hw);
	assert_int_equal(hw.n_nics, 3);
	assert_int_equal(br_hw_host_nics(&hw), 2);
	n = nic(&hw, "e4:3d:1a:6e:21:60");
	assert_string_equal(n->role, BR_NIC_ROLE_HOST);
	assert_string_equal(n->name, "NIC.Integrated.1-1-1");
	n = nic(&hw, "b8:3f:d2:90:95:d4");
	assert_string_equal(n->role, BR_NIC_ROLE_HOST);
	assert_int_equal(n->permanent, 1);
	n = nic(&hw, "b0:7b:25:d6:ea:fa");
	assert_string_equal(n->role, BR_NIC_ROLE_BMC);
	assert_string_equal(hw.bmc_mac, "b0:7b:25:d6:ea:fa");
	json_decref(ndf);
	br_hw_release(&hw);
}

/* NVIDIA GB200 NVL (OpenBMC): System_0 has no SerialNumber, no
 * Manufacturer and links no EthernetInterfaces; it is the host (it boots,
 * two Grace CPUs); the only MAC is the BMC's eth0. Discovery shows no
 * host MAC, and what names the machine (its BMC's MAC, the UUID) is what
 * a failed node keeps. */
static void test_nvidia_gb200_openbmc(void **state)
{
	struct br_hw hw;

	br_hw_init(&hw);
	FEED(rf_parse_system, &hw, "openbmc/libredfish/gb200_system.json");
	assert_null(hw.system_serial);
	assert_null(hw.manufacturer);
	assert_string_equal(hw.uuid, "501f2928-84ea-8579-cf52-dc2dbd2e4656");
	assert_int_equal(hw.cpu_count, 2);
	assert_int_equal(hw.memory_gib, 960);
	assert_int_equal(hw.n_boot_order, 16);
	assert_host_system("openbmc/libredfish/gb200_system.json");
	FEED(rf_parse_manager_ethernet, &hw, "openbmc/libredfish/gb200_manager_eth0.json");
	rf_macs_settle(&hw);
	assert_string_equal(hw.bmc_mac, "3c:6d:66:0e:db:dc");
	assert_int_equal(br_hw_host_nics(&hw), 0);
	br_hw_keep_identity(&hw);
	assert_true(br_hw_has_identity(&hw));
	assert_string_equal(hw.bmc_mac, "3c:6d:66:0e:db:dc");
	assert_string_equal(hw.uuid, "501f2928-84ea-8579-cf52-dc2dbd2e4656");
	assert_int_equal(hw.n_nics, 1); /* the BMC's port, as the BMC's */
	assert_int_equal(hw.n_boot_order, 0);
	br_hw_release(&hw);
}

/* The DGX H100's BMC lists HGX_Baseboard_0 beside the host (systems.json):
 * a System with a Boot object of its own, which the host choice must not
 * take (hand-written after that member's name and DSP0268's
 * ComputerSystem; the real document is not in the capture). */
static void test_ami_dgx_host_choice(void **state)
{
	json_t *systems = json_array(), *host;
	struct br_err err = { 0 };

	json_array_append_new(systems, capture("ami/libredfish/system_dgx.json"));
	json_array_append_new(systems, capture("ami/system_hgx_baseboard.json"));
	assert_string_equal(rf_system_not_host(json_array_get(systems, 1)), "a GPU baseboard (by its Id)");
	host = rf_choose_host(systems, NULL, &err);
	assert_non_null(host);
	assert_string_equal(br_json_str(host, "Id"), "DGX");
	/* named by @odata.id, the baseboard is what the operator asked for */
	host = rf_choose_host(systems, "/redfish/v1/Systems/HGX_Baseboard_0", &err);
	assert_non_null(host);
	assert_string_equal(br_json_str(host, "Id"), "HGX_Baseboard_0");
	assert_null(rf_choose_host(systems, "Node_9", &err));
	assert_string_equal(err.msg,
			    "the manifest's system 'Node_9' is not among the BMC's Systems: DGX (a host), "
			    "HGX_Baseboard_0 (a GPU baseboard (by its Id))");
	json_decref(systems);
}

/* Gigabyte H262-Z63-00 (AMD EPYC 7702) on AMI MegaRAC ("AMI Redfish
 * Server", System and Manager "Self"), recorded in a Cray lab. Its root
 * offers $expand up to 5 levels. Three EthernetInterfaces for two ports:
 * Lan3 repeats Lan2's MAC; the boot entries PXE-boot through the same two
 * (the I350's functions 0 and 1). The Manager's usb0 is its end of the
 * Host Interface (a locally administered MAC), bond0 its own port. */
static void test_gigabyte_ami(void **state)
{
	struct br_hw hw;
	json_t *root = capture("gigabyte/cray_rie/service_root.json");
	json_t *adapters = capture("gigabyte/cray_rie/network_adapters.json");
	char *expand = rf_expand_query(root);
	const struct br_nic *n;
	char name[64];

	assert_string_equal(expand, "$expand=.($levels=1)");
	free(expand);
	assert_null(rf_vendor_from_root(root));
	br_hw_init(&hw);
	FEED(rf_parse_system, &hw, "gigabyte/cray_rie/system.json");
	assert_string_equal(hw.manufacturer, "GIGABYTE");
	assert_null(rf_vendor_from_manufacturer(hw.manufacturer));
	assert_string_equal(hw.model, "H262-Z63-00");
	assert_string_equal(hw.system_serial, "GJG9NF512A000302");
	assert_string_equal(hw.uuid, "e9184000-7983-11ec-8000-b42e99bade15");
	assert_string_equal(hw.cpu_model, "AMD EPYC 7702 64-Core Processor");
	assert_int_equal(hw.cpu_count, 2);
	assert_int_equal(hw.memory_gib, 244);
	assert_int_equal(hw.n_boot_order, 7);
	assert_host_system("gigabyte/cray_rie/system.json");
	FEED(rf_parse_processor, &hw, "gigabyte/cray_rie/processor_1.json");
	assert_string_equal(hw.cpu_model, "AMD EPYC 7702 64-Core Processor");
	assert_int_equal(hw.cpu_max_mhz, 3350);
	/* in the collection's order: 3, 2, 1 */
	FEED(rf_parse_ethernet_interface, &hw, "gigabyte/cray_rie/eth_3.json");
	FEED(rf_parse_ethernet_interface, &hw, "gigabyte/cray_rie/eth_2.json");
	FEED(rf_parse_ethernet_interface, &hw, "gigabyte/cray_rie/eth_1.json");
	for (int i = 2; i <= 7; i++) {
		snprintf(name, sizeof(name), "gigabyte/cray_rie/boot_option_%04d.json", i);
		FEED(rf_parse_boot_option, &hw, name);
	}
	assert_int_equal(json_array_size(json_object_get(adapters, "Members")), 0);
	FEED(rf_parse_manager_ethernet, &hw, "gigabyte/cray_rie/manager_eth_usb0.json");
	assert_null(hw.bmc_mac);
	FEED(rf_parse_manager_ethernet, &hw, "gigabyte/cray_rie/manager_eth_bond0.json");
	rf_macs_settle(&hw);
	assert_int_equal(br_hw_host_nics(&hw), 2);
	n = nic(&hw, "b4:2e:99:ba:de:15");
	assert_string_equal(n->role, BR_NIC_ROLE_HOST);
	assert_string_equal(n->source, "EthernetInterfaces");
	assert_string_equal(n->name, "1");
	n = nic(&hw, "b4:2e:99:ba:de:16");
	assert_string_equal(n->role, BR_NIC_ROLE_HOST);
	assert_string_equal(n->source, "EthernetInterfaces");
	assert_string_equal(hw.bmc_mac, "b4:2e:99:ba:de:17");
	assert_string_equal(nic(&hw, "b4:2e:99:ba:de:17")->role, BR_NIC_ROLE_BMC);
	assert_string_equal(nic(&hw, "46:d5:fa:9a:bf:1a")->role, BR_NIC_ROLE_BMC_USB);
	assert_int_equal(hw.n_nics, 4);
	json_decref(adapters);
	json_decref(root);
	br_hw_release(&hw);
}

/* Intel S2600BPB (Xeon Silver 4112) under Intel's own BMC firmware,
 * Redfish 1.1, recorded in a Cray lab (SMBIOS says "Cray Inc."): no
 * ProtocolFeaturesSupported, an empty EthernetInterfaces collection and no
 * BootOptions, so no host MAC at all; its first two Manager ports are
 * disabled ("State": "Disabled", InterfaceEnabled false) and the third,
 * on DHCP, is the BMC's; the Chassis the System names answers an error
 * document. ProcessorSummary's model is "Central Processor" and the
 * Processor's "Intel Xeon processor": placeholders both; the part (Xeon
 * Silver 4112) is only in ProcessorId.VendorId, where DSP0268 puts the
 * CPUID vendor ("GenuineIntel"), so it is not taken from there. */
static void test_intel_s2600bpb(void **state)
{
	struct br_hw hw;
	json_t *root = capture("intel/cray_rie/service_root.json");
	json_t *eths = capture("intel/cray_rie/eth_collection.json");
	json_t *chassis = capture("intel/cray_rie/chassis_rackmount_error.json");
	struct br_buf reason;
	char *body;

	assert_null(rf_expand_query(root));
	assert_null(rf_vendor_from_root(root));
	br_hw_init(&hw);
	FEED(rf_parse_system, &hw, "intel/cray_rie/system.json");
	assert_string_equal(hw.system_serial, "QSBP74100021");
	assert_string_equal(hw.model, "S2600BPB");
	assert_string_equal(hw.manufacturer, "Cray Inc.");
	assert_string_equal(hw.uuid, "3504bf7d-ae5b-11e7-ab21-a4bf012890a8");
	assert_int_equal(hw.cpu_count, 2);
	assert_int_equal(hw.memory_gib, 48);
	assert_host_system("intel/cray_rie/system.json");
	/* the Processor's placeholder is still the Processor's; its clock is
	 * what the BMC says (4000 for a part rated 2.6 GHz, 3.0 turbo) */
	FEED(rf_parse_processor, &hw, "intel/cray_rie/processor_cpu1.json");
	assert_string_equal(hw.cpu_model, "Intel Xeon processor");
	assert_int_equal(hw.cpu_max_mhz, 4000);
	assert_int_equal(json_array_size(json_object_get(eths, "Members")), 0);
	/* what the node's unreadable facts say of that Chassis */
	body = json_dumps(chassis, 0);
	br_buf_init(&reason, 0);
	rf_http_error_reason(&reason, 404, "https://bmc/redfish/v1/Chassis/RackMount", body, strlen(body),
			     NULL);
	assert_string_equal(
	    br_buf_str(&reason),
	    "HTTP 404 on https://bmc/redfish/v1/Chassis/RackMount: Base.1.1.0.ResourceMissingAtURI");
	br_buf_release(&reason);
	free(body);
	FEED(rf_parse_manager_ethernet, &hw, "intel/cray_rie/manager_eth_1.json");
	FEED(rf_parse_manager_ethernet, &hw, "intel/cray_rie/manager_eth_2.json");
	assert_null(hw.bmc_mac);
	FEED(rf_parse_manager_ethernet, &hw, "intel/cray_rie/manager_eth_3.json");
	assert_string_equal(hw.bmc_mac, "a4:bf:01:28:90:ac");
	rf_macs_settle(&hw);
	assert_int_equal(br_hw_host_nics(&hw), 0);
	br_hw_keep_identity(&hw);
	assert_true(br_hw_has_identity(&hw));
	assert_string_equal(hw.system_serial, "QSBP74100021");
	assert_string_equal(hw.bmc_mac, "a4:bf:01:28:90:ac");
	json_decref(chassis);
	json_decref(eths);
	json_decref(root);
	br_hw_release(&hw);
}

/* How many of hw's sensors are of kind. */
static size_t sensors_of(const struct br_hw *hw, int kind)
{
	size_t n = 0;

	for (size_t i = 0; i < hw->n_sensors; i++)
		n += (int)hw->sensors[i].kind == kind;
	return n;
}

/* The psu and fans checks of profile NAME on what discovery took from a
 * real BMC's sensors: *psu and *fans get each check's result, the details
 * printed with RULES_VERBOSE. */
static void judge_sensors(const char *profile, const struct br_hw *hw, enum val_result *psu,
			  enum val_result *fans)
{
	const char *top = getenv("BR_TOP");
	char *dir = br_xasprintf("%s/templates", top ? top : ".");
	struct prof_profile p;
	struct br_err err = { 0 };
	struct val_node_facts f = { 0 };
	struct val_check *checks = NULL;
	size_t n = 0;

	assert_int_equal(prof_load(dir, profile, &p, &err), 0);
	f.bmc = hw;
	val_judge_node(&p, &f, &checks, &n);
	*psu = *fans = VAL_UNKNOWN;
	for (size_t i = 0; i < n; i++) {
		if (getenv("RULES_VERBOSE"))
			printf("%s: %s %s: %s\n", profile, checks[i].name, val_result_name(checks[i].result),
			       checks[i].detail);
		if (!strcmp(checks[i].name, "psu"))
			*psu = checks[i].result;
		if (!strcmp(checks[i].name, "fans"))
			*fans = checks[i].result;
	}
	val_checks_free(checks, n);
	prof_release(&p);
	free(dir);
}

/* The X13 of a SYS-821GE-TNHR as it is: its Power lists 8 supplies (six
 * PWS-3K06G-2R of 3000 W, two PWS-DF009-2F that report no capacity),
 * each Enabled and OK, and its Thermal 6 Fans members (FAN9, FAN10 and
 * four readings that stand for groups of fans: front, rear, the supplies'
 * 1-4 and 5-8). The profile's counts are these: a healthy machine passes,
 * and one supply or fan short fails. */
static void test_supermicro_sensors_judged(void **state)
{
	struct br_hw hw;
	enum val_result psu, fans;

	(void)state;
	br_hw_init(&hw);
	FEED(rf_parse_power, &hw, "supermicro/libredfish/power.json");
	FEED(rf_parse_thermal, &hw, "supermicro/libredfish/thermal.json");
	assert_int_equal(sensors_of(&hw, BR_SENSOR_PSU), 8);
	assert_int_equal(sensors_of(&hw, BR_SENSOR_FAN), 6);
	judge_sensors("sys-821ge", &hw, &psu, &fans);
	assert_int_equal(psu, VAL_PASS);
	assert_int_equal(fans, VAL_PASS);
	/* the last sensor read is a fan: without it, one fan is missing */
	assert_int_equal(hw.sensors[hw.n_sensors - 1].kind, BR_SENSOR_FAN);
	hw.n_sensors--;
	judge_sensors("sys-821ge", &hw, &psu, &fans);
	assert_int_equal(fans, VAL_FAIL);
	hw.n_sensors++;
	br_hw_release(&hw);
}

/* The DGX H100's Thermal lists 36 fans: a front and a rear rotor of each
 * of 12 system fans and of each of the 6 supplies' fans, all turning. Its
 * supplies are only in PowerSubsystem (6 members), and none of their
 * documents carries a Status (nor does their Metrics): the psu check
 * cannot call them healthy and says so (unknown: the gate blocks), never
 * pass. */
static void test_ami_dgx_sensors_judged(void **state)
{
	static const char *const supplies[] = { "ami/libredfish/power_supply_psu0.json",
						"ami/libredfish/power_supply_psu4.json",
						"ami/libredfish/power_supply_psu5.json" };
	json_t *coll = capture("ami/libredfish/power_supplies.json");
	struct br_hw hw;
	enum val_result psu, fans;

	(void)state;
	assert_int_equal(json_integer_value(json_object_get(coll, "Members@odata.count")), 6);
	json_decref(coll);
	br_hw_init(&hw);
	FEED(rf_parse_power, &hw, "ami/libredfish/power.json");
	FEED(rf_parse_thermal, &hw, "ami/libredfish/thermal.json");
	assert_int_equal(sensors_of(&hw, BR_SENSOR_FAN), 36);
	for (size_t i = 0; i < sizeof(supplies) / sizeof(supplies[0]); i++)
		FEED(rf_parse_power_supply, &hw, supplies[i]);
	judge_sensors("dgx-h100", &hw, &psu, &fans);
	assert_int_equal(fans, VAL_PASS);
	assert_int_not_equal(psu, VAL_PASS);
	br_hw_release(&hw);
}

/* HPE iLO 5 v2.55, ProLiant XL675d Gen10 Plus (an Apollo 6500 with A40s,
 * cray_rie): the host's MACs in EthernetInterfaces (94:40:c9:6a:42:da,
 * b4:7a:f1:12:fb:70), the first also in a BaseNetworkAdapter and a
 * NetworkDeviceFunction (upper case there: one NIC); iLO's dedicated port
 * is the BMC's MAC, its Host Interface (0a:ca:fe:f0:0d:04, a locally
 * administered address on the host's virtual NIC) is not. Its Power lists
 * 6 bays, 4 supplies and 2 Absent bays whose Health says Warning, its
 * Thermal 15 fans reading in Percent: xl675d's counts (4, 15) pass it. */
/* The UpdateServices the firmware stage meets: the XL675d's iLO 5 2.55
 * offers SimpleUpdate and its own HttpPushUri, no multipart push, and
 * keeps an earlier update's failure (State Error, Result
 * iLO.2.14.UpdateFailed); the Gigabyte's AMI MegaRAC only SimpleUpdate. */
static void test_update_services(void **state)
{
	json_t *ilo = capture("hpe/cray_rie/update_service.json");
	json_t *ami = capture("gigabyte/cray_rie/update_service.json");
	char *result = rf_fw_ilo_result(br_json_path(ilo, "Oem/Hpe"));

	(void)state;
	assert_null(json_object_get(ilo, "MultipartHttpPushUri"));
	assert_string_equal(br_json_str(ilo, "Actions/#UpdateService.SimpleUpdate/target"),
			    "/redfish/v1/UpdateService/Actions/UpdateService.SimpleUpdate");
	assert_string_equal(rf_fw_ilo_push(ilo), "/cgi-bin/uploadFile");
	assert_string_equal(result, "iLO.2.14.UpdateFailed (50)");
	assert_true(rf_fw_ilo_idle(br_json_str(ilo, "Oem/Hpe/State")));
	assert_false(rf_fw_ilo_idle("Updating"));
	assert_null(rf_fw_ilo_push(ami));
	assert_null(json_object_get(ami, "MultipartHttpPushUri"));
	assert_string_equal(br_json_str(ami, "Actions/#UpdateService.SimpleUpdate/target"),
			    "/redfish/v1/UpdateService/Actions/SimpleUpdate");
	free(result);
	json_decref(ilo);
	json_decref(ami);
}

static void test_hpe_xl675d(void **state)
{
	struct br_hw hw;
	const struct br_nic *n;
	enum val_result psu, fans;

	(void)state;
	br_hw_init(&hw);
	FEED(rf_parse_system, &hw, "hpe/cray_rie/system.json");
	assert_string_equal(hw.system_serial, "JS05NP1072");
	assert_string_equal(hw.model, "ProLiant XL675d Gen10 Plus");
	assert_host_system("hpe/cray_rie/system.json");
	FEED(rf_parse_ethernet_interface, &hw, "hpe/cray_rie/eth_1.json");
	FEED(rf_parse_ethernet_interface, &hw, "hpe/cray_rie/eth_3.json");
	FEED(rf_hpe_parse_network_adapter, &hw, "hpe/cray_rie/base_network_adapter_2.json");
	FEED(rf_parse_network_device_function, &hw, "hpe/cray_rie/ndf_dc092000_1.json");
	n = nic(&hw, "94:40:c9:6a:42:da");
	assert_string_equal(n->source, "EthernetInterfaces");
	assert_string_equal(n->role, BR_NIC_ROLE_HOST);
	assert_string_equal(nic(&hw, "b4:7a:f1:12:fb:70")->role, BR_NIC_ROLE_HOST);
	for (size_t i = 0; i < hw.n_nics; i++)
		assert_string_not_equal(hw.nics[i].mac, "0a:ca:fe:f0:0d:04");
	FEED(rf_parse_manager_ethernet, &hw, "hpe/cray_rie/manager_eth_3.json");
	assert_null(hw.bmc_mac);
	FEED(rf_parse_manager_ethernet, &hw, "hpe/cray_rie/manager_eth_1.json");
	assert_string_equal(hw.bmc_mac, "94:40:c9:41:f8:ea");

	FEED(rf_parse_power, &hw, "hpe/cray_rie/power.json");
	FEED(rf_parse_thermal, &hw, "hpe/cray_rie/thermal.json");
	assert_int_equal(sensors_of(&hw, BR_SENSOR_PSU), 6);
	assert_int_equal(sensors_of(&hw, BR_SENSOR_FAN), 15);
	judge_sensors("xl675d", &hw, &psu, &fans);
	assert_int_equal(psu, VAL_PASS);
	assert_int_equal(fans, VAL_PASS);
	br_hw_release(&hw);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hpe_ilo5),
		cmocka_unit_test(test_hpe_ilo5_blank_serial),
		cmocka_unit_test(test_lenovo_xcc_macless),
		cmocka_unit_test(test_lenovo_xcc_pcie),
		cmocka_unit_test(test_supermicro_macs),
		cmocka_unit_test(test_supermicro_drive),
		cmocka_unit_test(test_supermicro_pcie),
		cmocka_unit_test(test_supermicro_sentinel_takes_slot_hint),
		cmocka_unit_test(test_ami_dgx),
		cmocka_unit_test(test_ami_dgx_drives),
		cmocka_unit_test(test_bmc_mac_not_usb_link),
		cmocka_unit_test(test_openbmc_bluefield),
		cmocka_unit_test(test_dell_idrac9_r750),
		cmocka_unit_test(test_dell_connection_view_r7615),
		cmocka_unit_test(test_nvidia_gb200_openbmc),
		cmocka_unit_test(test_ami_dgx_host_choice),
		cmocka_unit_test(test_gigabyte_ami),
		cmocka_unit_test(test_intel_s2600bpb),
		cmocka_unit_test(test_supermicro_sensors_judged),
		cmocka_unit_test(test_ami_dgx_sensors_judged),
		cmocka_unit_test(test_hpe_xl675d),
		cmocka_unit_test(test_update_services),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
