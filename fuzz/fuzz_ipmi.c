/* ipmitool output parsers (redfish/ipmi_parse.c): one text, as a BMC's
 * ipmitool answer would come back, fed to every parser in turn. */
#include "fuzz/fuzz.h"

#include "common.h"
#include "redfish/ipmi_private.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *out = fuzz_cstr(data, size);
	struct br_hw hw;

	br_hw_init(&hw);
	(void)br_ipmi_parse_power(out, &hw);
	(void)br_ipmi_parse_mc_info(out, &hw);
	(void)br_ipmi_parse_mc_guid(out, &hw);
	(void)br_ipmi_parse_fru(out, &hw);
	(void)br_ipmi_parse_lan(out, &hw);
	(void)br_ipmi_parse_sensor_list(out, &hw);
	(void)br_ipmi_parse_sdr_psu(out, &hw);
	(void)br_ipmi_parse_sel(out, 64, &hw);
	(void)ipmi_parse_bootdev_set(out, &hw);
	(void)ipmi_parse_bootdev_pxe(out, &hw);
	(void)ipmi_parse_power_control(out, &hw);
	br_hw_release(&hw);
	free(out);
	return 0;
}
