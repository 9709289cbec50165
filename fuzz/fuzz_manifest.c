/* The rack manifest (stages/manifest.c), checked against the real
 * templates/ so profile names are looked up too. */
#include "fuzz/fuzz.h"

#include "common.h"
#include "stages/manifest.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file(data, size, ".csv");
	struct stg_manifest m;
	struct br_strlist problems = { 0 };
	struct br_err err = { 0 };

	if (stg_manifest_load(path, fuzz_templates(), &m, &problems, &err) == 0)
		stg_manifest_release(&m);
	br_strlist_release(&problems);
	return 0;
}
