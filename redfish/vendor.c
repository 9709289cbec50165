/*
 * vendor — which BMC we talk to, decided from the ServiceRoot ("Vendor",
 * Redfish 1.5+, or the key under "Oem"), else from the System's
 * Manufacturer. Each vendor's quirks live in its own vendor_NAME.c; this
 * table is the only place that lists them.
 */
#include <string.h>
#include <strings.h>

#include "rf_private.h"

static const struct rf_vendor *const vendors[] = { &rf_vendor_dell, &rf_vendor_hpe };
#define N_VENDORS (sizeof(vendors) / sizeof(vendors[0]))

const struct rf_vendor *rf_vendor_from_root(json_t *root)
{
	const char *name = br_json_str(root, "Vendor");
	json_t *oem = br_json_path(root, "Oem"), *v;
	const char *key;

	for (size_t i = 0; i < N_VENDORS; i++) {
		if (name && !strcasecmp(name, vendors[i]->root_key))
			return vendors[i];
		if (json_is_object(oem))
			json_object_foreach(oem, key,
					    v) if (!strcasecmp(key, vendors[i]->root_key)) return vendors[i];
	}
	return NULL;
}

const struct rf_vendor *rf_vendor_from_manufacturer(const char *manufacturer)
{
	for (size_t i = 0; manufacturer && i < N_VENDORS; i++)
		if (!strncasecmp(manufacturer, vendors[i]->manufacturer, strlen(vendors[i]->manufacturer)))
			return vendors[i];
	return NULL;
}
