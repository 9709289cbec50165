/* NetBox's answers as bringup import --netbox reads them
 * (stages/netbox_map.c): a devices page and a cables page, each through
 * the list check, the devices into manifest rows checked as a manifest's
 * are, the cables into the wiring list, written as CSV. Input: the
 * devices page's JSON, a line "%%", the cables page's. */
#include "fuzz/fuzz.h"

#include "common.h"
#include "stages/netbox.h"

static char wiring_path[80];

static json_t *page_results(const uint8_t *data, size_t len)
{
	json_t *page = br_json_parse_bounded((const char *)data, len, STG_NETBOX_BODY_MAX, 100000, NULL);
	json_t *objects = json_array();
	char *next = NULL;

	if (page && stg_netbox_page_take("fuzz", page, objects, &next, NULL) == 0)
		free(next);
	json_decref(page);
	return objects;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct stg_netbox_options o = { .url = "https://netbox.example.net/", .bmc_user = "root" };
	const uint8_t *sep = NULL, *cables_at;
	struct stg_netbox_import imp = { 0 };
	struct br_strlist problems = { 0 };
	json_t *devices, *cables;

	for (size_t i = 0; i + 3 <= size && !sep; i++)
		if (!memcmp(data + i, "%%\n", 3) && (i == 0 || data[i - 1] == '\n'))
			sep = data + i;
	if (!sep)
		return 0;
	cables_at = sep + 3;
	devices = page_results(data, (size_t)(sep - data));
	cables = page_results(cables_at, size - (size_t)(cables_at - data));
	if (stg_netbox_devices_map(devices, &o, &imp.manifest, &problems) == 0 &&
	    stg_manifest_check(&imp.manifest, fuzz_templates(), &stg_netbox_labels, &problems, NULL) == 0) {
		stg_netbox_cables_map(cables, &imp.manifest, &imp);
		if (!wiring_path[0])
			snprintf(wiring_path, sizeof(wiring_path), "/tmp/brfuzz-nbwiring-%ld.csv",
				 (long)getpid());
		if (stg_wiring_write(imp.wiring, imp.n_wiring, wiring_path, NULL) == 0)
			unlink(wiring_path);
	}
	stg_netbox_import_release(&imp);
	br_strlist_release(&problems);
	json_decref(devices);
	json_decref(cables);
	return 0;
}
