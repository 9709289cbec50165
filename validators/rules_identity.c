/* Whether a probe document is the node's own (rules.h,
 * val_identity_mismatch). A node's address that leads to another machine
 * (an ssh_config entry or a MAAS IP pointing at the wrong host, two
 * entries at one host) gives a document that is healthy or broken in
 * another machine's way: judged as the node's it filed the other
 * machine's faults against it, five hardware tickets for one wrong
 * address. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "rules.h"

/* The name up to its first dot: a probe may report an FQDN. */
static size_t short_len(const char *name)
{
	return strcspn(name, ".");
}

int val_identity_mismatch(json_t *probe, const char *hostname, const struct br_hw *bmc, char **ret_why)
{
	json_t *host = json_object_get(probe, "host");
	const char *seen_name = json_string_value(json_object_get(host, "hostname"));
	const char *seen_serial = json_string_value(json_object_get(host, "product_serial"));
	int serial = bmc && seen_serial && *seen_serial ? br_hw_serial_matches(bmc, seen_serial) : -1;

	*ret_why = NULL;
	if (serial == 1)
		return 0;
	/* The node's own hostname, as MAAS deployed it: not a wrong machine,
	 * whatever its serial says (vendors put the chassis, board or system
	 * serial in one place or the other, some a placeholder such as "To
	 * Be Filled By O.E.M."). */
	if (seen_name && *seen_name && hostname && short_len(seen_name) == short_len(hostname) &&
	    !strncasecmp(seen_name, hostname, short_len(hostname)))
		return 0;
	if (serial == 0) {
		*ret_why = br_xasprintf(
		    "the wrong machine answered: its system serial is %s (hostname %s), this node's BMC "
		    "reports %s%s%s: check the address this node is reached at (ssh_config, MAAS)",
		    seen_serial, seen_name ? seen_name : "unknown",
		    bmc->system_serial ? bmc->system_serial : "",
		    bmc->system_serial && bmc->service_tag ? ", service tag " : "",
		    bmc->service_tag ? bmc->service_tag : "");
		return 1;
	}
	if (!seen_name || !*seen_name || !hostname)
		return 0;
	*ret_why = br_xasprintf("the wrong machine answered: its hostname is %s, not %s (no system serial to "
				"compare): check the address this node is reached at (ssh_config, MAAS)",
				seen_name, hostname);
	return 1;
}
