/* Helpers shared by the libFuzzer targets (fuzz/fuzz_*.c).
 *
 * The parsers take NUL-terminated text or a path, while libFuzzer hands over
 * bytes: these turn one into the other. Everything is static so each target
 * stays one translation unit. */
#ifndef BRINGUP_FUZZ_H
#define BRINGUP_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A NUL-terminated copy; embedded NULs stay, so parsers see a short string
 * exactly as they would from a file with a NUL in it. */
static inline char *fuzz_cstr(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();
	if (size)
		memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/* The input written to a per-process file, for parsers that read a path.
 * One file per process, rewritten each run, removed at exit. */
static char fuzz_path_buf[64];

static inline void fuzz_unlink(void)
{
	if (fuzz_path_buf[0])
		unlink(fuzz_path_buf);
}

static inline const char *fuzz_file(const uint8_t *data, size_t size, const char *suffix)
{
	FILE *f;

	if (!fuzz_path_buf[0]) {
		const char *dir = getenv("TMPDIR");

		snprintf(fuzz_path_buf, sizeof fuzz_path_buf, "%s/brfuzz-%ld%s",
			 dir && strlen(dir) < 32 ? dir : "/tmp", (long)getpid(), suffix);
		atexit(fuzz_unlink);
	}
	f = fopen(fuzz_path_buf, "wb");
	if (!f)
		abort();
	if (size && fwrite(data, 1, size, f) != size)
		abort();
	if (fclose(f) != 0)
		abort();
	return fuzz_path_buf;
}

/* The repository's templates/ (profiles): $BR_TOP/templates, else ./templates
 * (make fuzz runs from the top of the tree). */
static inline const char *fuzz_templates(void)
{
	static char dir[4096];
	const char *top = getenv("BR_TOP");

	if (!dir[0])
		snprintf(dir, sizeof dir, "%s/templates", top && strlen(top) < 4000 ? top : ".");
	return dir;
}

#endif
