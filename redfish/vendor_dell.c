/*
 * Dell iDRAC (8/9) specifics.
 *  - The System's SKU is the service tag (the tag on the pull-out label and
 *    in Dell's support portal); older firmware has it only under
 *    Oem.Dell.DellSystem.ChassisServiceTag.
 *  - RAC0218 "The maximum number of user sessions is reached": on a login
 *    it is not retried (session.c reads the BMC with basic auth: leaked
 *    sessions take 30 minutes to expire); on other requests, retry.
 *  - SYS518 "iDRAC is not ready ... retry the operation after 30 seconds",
 *    seen right after an iDRAC reset.
 */
#include <string.h>

#include "rf_private.h"

static void dell_on_system(struct rf_bmc *bmc, json_t *system)
{
	const char *tag = br_json_str(system, "SKU");

	if (!tag)
		tag = br_json_str(system, "Oem/Dell/DellSystem/ChassisServiceTag");
	if (tag && !bmc->hw.service_tag)
		bmc->hw.service_tag = br_hw_strdup(tag);
}

/* MessageIds come bare ("RAC0218") or registry-qualified
 * ("IDRAC.2.8.RAC0218"). */
static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix) && (n == m || s[n - m - 1] == '.');
}

static int dell_retry_hint(const char *message_id, long *ret_delay_ms)
{
	if (ends_with(message_id, "RAC0218")) {
		*ret_delay_ms = 0;
		return 1;
	}
	if (ends_with(message_id, "SYS518")) {
		*ret_delay_ms = 30000;
		return 1;
	}
	return 0;
}

const struct rf_vendor rf_vendor_dell = {
	.name = "dell",
	.root_key = "Dell",
	.manufacturer = "Dell",
	.on_system = dell_on_system,
	.retry_hint = dell_retry_hint,
};
