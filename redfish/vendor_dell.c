/*
 * Dell iDRAC (8/9) specifics.
 *  - The System's SKU is the service tag (the tag on the pull-out label and
 *    in Dell's support portal); older firmware has it only under
 *    Oem.Dell.DellSystem.ChassisServiceTag.
 *  - Its "busy" MessageIds (RAC0218 sessions full, SYS518 not ready) are
 *    in classify.c, which the transport asks without knowing vendors.
 */
#include <string.h>

#include "rf_private.h"

static void dell_on_system(struct br_hw *hw, json_t *system)
{
	const char *tag = br_json_str(system, "SKU");

	if (!tag)
		tag = br_json_str(system, "Oem/Dell/DellSystem/ChassisServiceTag");
	if (tag && !hw->service_tag)
		hw->service_tag = br_hw_strdup(tag);
}

const struct rf_vendor rf_vendor_dell = {
	.name = "dell",
	.root_key = "Dell",
	.manufacturer = "Dell",
	.on_system = dell_on_system,
	.system_links = NULL,
	.dell_switch_connections = 1,
};
