/*
 * config_ipmi — reading ipmitool's answers to the configure commands
 * (redfish/ipmi.c runs them). Captured from ipmitool 1.8.19 against
 * ipmi_sim with a chassis_control program (tests/fixtures/ipmi/sim.sh):
 *
 *   chassis bootdev pxe options=persistent,efiboot
 *     Set Boot Device to pxe
 *   chassis bootparam get 5
 *      Boot Flags :
 *        - Boot Flag Valid
 *        - Options apply to all future boots
 *        - BIOS EFI boot
 *        - Boot Device Selector : Force PXE
 *   chassis power cycle | on
 *     Chassis Power Control: Cycle | Up/On
 */
#include <stdlib.h>
#include <string.h>

#include "ipmi_private.h"

int ipmi_parse_bootdev_set(const char *out, struct br_hw *hw)
{
	return strstr(out, "Set Boot Device to pxe") ? 0 : BR_E_PROTO;
}

int ipmi_parse_bootdev_pxe(const char *out, struct br_hw *hw)
{
	char *dev = br_ipmi_kv_get(out, "- Boot Device Selector");
	int pxe = dev && !strcmp(dev, "Force PXE");

	free(dev);
	if (!pxe)
		return BR_E_PROTO;
	free(hw->boot_override_target);
	hw->boot_override_target = br_xstrdup("Pxe");
	free(hw->boot_override_enabled);
	hw->boot_override_enabled = br_xstrdup(strstr(out, "all future boots") ? "Continuous" : "Once");
	free(hw->boot_mode);
	hw->boot_mode = br_xstrdup(strstr(out, "BIOS EFI boot") ? "UEFI" : "Legacy");
	return 0;
}

int ipmi_parse_power_control(const char *out, struct br_hw *hw)
{
	return strstr(out, "Chassis Power Control: Cycle") || strstr(out, "Chassis Power Control: Up/On")
		   ? 0
		   : BR_E_PROTO;
}
