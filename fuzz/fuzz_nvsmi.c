/* nvidia-smi -q -x output (validators/probe_xml.c). */
#include "fuzz/fuzz.h"

#include "common.h"
#include "validators/validators.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct br_err err = { 0 };
	json_t *out = NULL;

	if (val_nvsmi_parse((const char *)data, size, &out, &err) == 0)
		json_decref(out);
	return 0;
}
