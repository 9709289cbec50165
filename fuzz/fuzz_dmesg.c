/* The kernel log scanner (validators val_dmesg_scan). */
#include "fuzz/fuzz.h"

#include "common.h"
#include "validators/validators.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_decref(val_dmesg_scan((const char *)data, size));
	return 0;
}
