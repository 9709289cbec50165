/* The rack manifest parser (bringup/manifest.c): inputs the fuzzer
 * (fuzz/fuzz_manifest.c) found mishandled. Leaks show under the ASan
 * suite (build/asan), where LeakSanitizer fails the test. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "common.h"
#include "bringup/manifest.h"

static char *write_tmp(const char *text)
{
	char *path = br_xstrdup("/tmp/test_manifest-XXXXXX");
	int fd = mkstemp(path);
	size_t len = strlen(text);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, len), (ssize_t)len);
	close(fd);
	return path;
}

static int has_problem(const struct br_strlist *l, const char *needle)
{
	for (size_t i = 0; i < l->n; i++)
		if (strstr(l->items[i], needle))
			return 1;
	return 0;
}

/* A column named twice: both cells of a row mapped to the same field, and
 * the second overwrote (leaked) the first's copy. */
static void test_duplicate_column_no_leak(void **state)
{
	char *path = write_tmp("hostname,rack,unit,rack,bmc,bmc_user,bmc_password,profile\n"
			       "gpu-a,r01,1,r02,10.0.0.1,root,env:PW,xe9680\n");
	struct br_manifest m;
	struct br_strlist problems = { 0 };
	struct br_err err = { 0 };

	(void)state;
	assert_int_equal(br_manifest_load(path, NULL, &m, &problems, &err), BR_E_INVAL);
	assert_true(has_problem(&problems, "column appears twice in the header"));
	br_strlist_release(&problems);
	unlink(path);
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_duplicate_column_no_leak),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
