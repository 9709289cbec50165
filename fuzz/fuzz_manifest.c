/* The rack manifest (bringup/manifest.c), checked against the real
 * templates/ so profile names are looked up too. */
#include "fuzz/fuzz.h"

#include "common.h"
#include "bringup/manifest.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file(data, size, ".csv");
	struct br_manifest m;
	struct br_strlist problems = { 0 };
	struct br_err err = { 0 };

	if (br_manifest_load(path, fuzz_templates(), &m, &problems, &err) == 0)
		br_manifest_release(&m);
	br_strlist_release(&problems);
	return 0;
}
