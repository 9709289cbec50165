/* The wiring list (validators/wiring.c). */
#include "fuzz/fuzz.h"

#include "common.h"
#include "validators/cabling.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file(data, size, ".csv");
	struct val_wiring w;
	struct br_strlist problems = { 0 };
	struct br_err err = { 0 };

	if (val_wiring_load(path, &w, &problems, &err) == 0) {
		(void)val_wiring_components(&w);
		val_wiring_release(&w);
	}
	br_strlist_release(&problems);
	return 0;
}
