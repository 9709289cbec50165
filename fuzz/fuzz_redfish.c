/* Redfish resource parsers (redfish/parse.c and the vendor parsers): one
 * JSON document, as a BMC would send it, fed to every parser in turn, since
 * a hostile BMC may answer any URL with any document. */
#include "fuzz/fuzz.h"

#include "common.h"
#include "redfish/rf_private.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct br_err err = { 0 };
	struct br_hw hw;
	struct br_json_shape shape;
	json_t *doc = br_json_parse((const char *)data, size, 1 << 20, &err), *members;
	long idx;

	/* The pre-parse scan (what rf_req_json checks caps with) must count
	 * what jansson then finds: a Members it saw has that many elements
	 * (one it missed, behind an escaped key, is left to the caps after
	 * the parse). */
	br_json_shape((const char *)data, size, "Members", &shape);
	members = json_object_get(doc, "Members");
	if (doc && shape.key_elems >= 0 && json_is_array(members) &&
	    (size_t)shape.key_elems != json_array_size(members))
		__builtin_trap();
	if (!doc)
		return 0;
	br_hw_init(&hw);
	rf_parse_system(&hw, doc);
	rf_parse_processor(&hw, doc);
	rf_parse_ethernet_interface(&hw, doc);
	rf_parse_network_device_function(&hw, doc);
	idx = rf_parse_pcie_device(&hw, doc);
	rf_parse_pcie_function(&hw, idx, doc);
	/* A second device with the same Id must find the first. */
	idx = rf_parse_pcie_device(&hw, doc);
	rf_parse_pcie_function(&hw, idx, doc);
	rf_parse_drive(&hw, doc);
	rf_parse_drive(&hw, doc);
	rf_parse_boot_option(&hw, doc);
	rf_parse_bios(&hw, doc);
	rf_parse_thermal(&hw, doc);
	rf_parse_fan(&hw, doc);
	rf_parse_power(&hw, doc);
	rf_parse_power_supply(&hw, doc);
	rf_parse_manager(&hw, doc);
	rf_parse_manager_ethernet(&hw, doc);
	(void)rf_log_service_is_sel(doc);
	rf_parse_sel_entry(&hw, doc);
	rf_parse_firmware(&hw, doc);
	rf_hpe_parse_network_adapter(&hw, doc);
	(void)rf_vendor_from_root(doc);
	free(rf_dup(doc, "Id"));
	br_hw_release(&hw);
	json_decref(doc);
	return 0;
}
