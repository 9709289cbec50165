/* Profile files (profile/parse.c, catalogue.c): one text read as each of
 * the five files a profile directory holds. */
#include "fuzz/fuzz.h"

#include "common.h"
#include "profile/profile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum prof_file kinds[] = { PROF_FILE_BIOS, PROF_FILE_FIRMWARE, PROF_FILE_BOOT_DISK,
						PROF_FILE_HARDWARE, PROF_FILE_IMAGES };
	char *text = fuzz_cstr(data, size);
	size_t i;

	for (i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
		struct prof_profile p;
		struct br_err err = { 0 };

		prof_init(&p);
		(void)prof_parse_text("fuzz.conf", text, kinds[i], &p, &err);
		prof_release(&p);
	}
	free(text);
	return 0;
}
