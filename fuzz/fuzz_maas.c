/* MAAS answers (maas/machine.c, storage, events, errors): one body, read
 * as every answer the client parses. */
#include "fuzz/fuzz.h"

#include "common.h"
#include "maas/maas.h"

static void machine(json_t *obj)
{
	struct maas_machine m;
	struct br_err err = { 0 };

	if (maas_machine_parse(obj, &m, &err) == 0)
		maas_machine_release(&m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct br_err err = { 0 };
	json_t *doc, *v;
	size_t i, n = 0;
	struct maas_blockdevice *devs = NULL;
	char *text = fuzz_cstr(data, size);
	struct maas_key key;

	/* An error answer's body, for each status class the client sees. */
	(void)maas_error_from_response(400, (const char *)data, size, "fuzz", &err);
	(void)maas_error_from_response(503, (const char *)data, size, "fuzz", &err);
	if (maas_key_parse(text, &key, &err) == 0)
		maas_key_release(&key);
	free(text);

	doc = br_json_parse((const char *)data, size, 1 << 20, &err);
	if (!doc)
		return 0;
	machine(doc);
	json_array_foreach(doc, i, v) machine(v);
	if (maas_blockdevices_parse(doc, &devs, &n, &err) == 0)
		maas_blockdevices_free(devs, n);
	(void)maas_events_failure(doc);
	json_decref(doc);
	return 0;
}
