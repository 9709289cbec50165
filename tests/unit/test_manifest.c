/* The rack manifest parser (stages/manifest.c): inputs the fuzzer
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
#include "stages/manifest.h"

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
	struct stg_manifest m;
	struct br_strlist problems = { 0 };
	struct br_err err = { 0 };

	(void)state;
	assert_int_equal(stg_manifest_load(path, NULL, &m, &problems, &err), BR_E_INVAL);
	assert_true(has_problem(&problems, "column appears twice in the header"));
	br_strlist_release(&problems);
	unlink(path);
	free(path);
}

/* The optional serial column: kept as written, absent or empty is none,
 * and a value no BMC could report is refused naming the line. */
static void test_serial_column(void **state)
{
	char *path = write_tmp("hostname,rack,unit,bmc,bmc_user,bmc_password,profile,serial\n"
			       "gpu-a,r01,1,10.0.0.1,root,env:PW,xe9680,CNIVC0001234567\n"
			       "gpu-b,r01,2,10.0.0.2,root,env:PW,xe9680,\n");
	char *bad = write_tmp("hostname,rack,unit,bmc,bmc_user,bmc_password,profile,serial\n"
			      "gpu-a,r01,1,10.0.0.1,root,env:PW,xe9680,\"ABC,123\"\n"
			      "gpu-b,r01,2,10.0.0.2,root,env:PW,xe9680,"
			      "X12345678901234567890123456789012345678901234567890123456789012345\n"
			      "gpu-c,r01,3,10.0.0.3,root,env:PW,xe9680,ok-1/2.3_4\n"
			      "gpu-d,r01,4,10.0.0.4,root,env:PW,xe9680,tag \x1b[2J\n");
	struct stg_manifest m;
	struct br_strlist problems = { 0 };
	struct br_err err = { 0 };
	char want[128];

	(void)state;
	assert_int_equal(stg_manifest_load(path, NULL, &m, &problems, &err), 0);
	assert_int_equal(m.n, 2);
	assert_string_equal(m.rows[0].serial, "CNIVC0001234567");
	assert_string_equal(m.rows[1].serial, "");
	stg_manifest_release(&m);
	br_strlist_release(&problems);

	assert_int_equal(stg_manifest_load(bad, NULL, &m, &problems, &err), BR_E_INVAL);
	assert_int_equal(problems.n, 3);
	snprintf(want, sizeof(want), "%s:2: serial: 'ABC,123' is not a serial", bad);
	assert_non_null(strstr(problems.items[0], want));
	snprintf(want, sizeof(want), "%s:3: serial: ", bad);
	assert_non_null(strstr(problems.items[1], want));
	assert_non_null(strstr(problems.items[1], "at most 64"));
	snprintf(want, sizeof(want), "%s:5: serial: ", bad);
	assert_non_null(strstr(problems.items[2], want));
	br_strlist_release(&problems);
	unlink(path);
	unlink(bad);
	free(path);
	free(bad);
}

/* An unknown column is still refused, and the message lists serial. */
static void test_unknown_column_lists_serial(void **state)
{
	char *path = write_tmp("hostname,rack,unit,bmc,bmc_user,bmc_password,profile,serial_number\n"
			       "gpu-a,r01,1,10.0.0.1,root,env:PW,xe9680,X\n");
	struct stg_manifest m;
	struct br_strlist problems = { 0 };
	struct br_err err = { 0 };

	(void)state;
	assert_int_equal(stg_manifest_load(path, NULL, &m, &problems, &err), BR_E_INVAL);
	assert_true(has_problem(&problems, ":1: serial_number: unknown column"));
	assert_true(has_problem(&problems, "notes, serial, system, zone, power_domain)"));
	br_strlist_release(&problems);
	unlink(path);
	free(path);
}

/* The system column names a Redfish System by Id or @odata.id; a value
 * with a blank or a comma is refused naming the row. */
static void test_system_column(void **state)
{
	char *path = write_tmp("hostname,rack,unit,bmc,bmc_user,bmc_password,profile,system\n"
			       "gpu-a,r01,1,10.0.0.1,root,env:PW,xe9680,System.Embedded.2\n"
			       "gpu-b,r01,2,10.0.0.1:444,root,env:PW,xe9680,/redfish/v1/Systems/Node_2\n"
			       "gpu-c,r01,3,10.0.0.3,root,env:PW,xe9680,\n");
	char *bad = write_tmp("hostname,rack,unit,bmc,bmc_user,bmc_password,profile,system\n"
			      "gpu-a,r01,1,10.0.0.1,root,env:PW,xe9680,\"node 2\"\n");
	struct stg_manifest m;
	struct br_strlist problems = { 0 };
	struct br_err err = { 0 };

	(void)state;
	assert_int_equal(stg_manifest_load(path, NULL, &m, &problems, &err), 0);
	assert_int_equal(m.n, 3);
	assert_string_equal(m.rows[0].system, "System.Embedded.2");
	assert_string_equal(m.rows[1].system, "/redfish/v1/Systems/Node_2");
	assert_string_equal(m.rows[2].system, "");
	stg_manifest_release(&m);
	br_strlist_release(&problems);
	assert_int_equal(stg_manifest_load(bad, NULL, &m, &problems, &err), BR_E_INVAL);
	assert_true(has_problem(&problems, ":2: system: 'node 2' is not a Redfish System"));
	br_strlist_release(&problems);
	unlink(path);
	unlink(bad);
	free(path);
	free(bad);
}

/* The zone column names a management network or hall: letters, digits,
 * '.', '_', '-', at most 64; anything else is refused naming the row. */
static void test_zone_column(void **state)
{
	char *path = write_tmp("hostname,rack,unit,bmc,bmc_user,bmc_password,profile,zone\n"
			       "gpu-a,r01,1,10.0.0.1,root,env:PW,xe9680,hall-1.row_b\n"
			       "gpu-b,r01,2,10.0.0.2,root,env:PW,xe9680,\n");
	char *bad = write_tmp("hostname,rack,unit,bmc,bmc_user,bmc_password,profile,zone\n"
			      "gpu-a,r01,1,10.0.0.1,root,env:PW,xe9680,hall/1\n"
			      "gpu-b,r01,2,10.0.0.2,root,env:PW,xe9680,"
			      "z1234567890123456789012345678901234567890123456789012345678901234\n");
	struct stg_manifest m;
	struct br_strlist problems = { 0 };
	struct br_err err = { 0 };

	(void)state;
	assert_int_equal(stg_manifest_load(path, NULL, &m, &problems, &err), 0);
	assert_int_equal(m.n, 2);
	assert_string_equal(m.rows[0].zone, "hall-1.row_b");
	assert_string_equal(m.rows[1].zone, "");
	stg_manifest_release(&m);
	br_strlist_release(&problems);
	assert_int_equal(stg_manifest_load(bad, NULL, &m, &problems, &err), BR_E_INVAL);
	assert_int_equal(problems.n, 2);
	assert_true(has_problem(&problems, ":2: zone: 'hall/1' is not a zone name"));
	assert_true(has_problem(&problems, ":3: zone: 'z1234"));
	assert_true(stg_zone_valid("a"));
	assert_false(stg_zone_valid(""));
	assert_false(stg_zone_valid("a b"));
	/* --zone's lists: names separated by commas, each a zone's */
	assert_true(stg_zones_valid("hall-a"));
	assert_true(stg_zones_valid("hall-a,hall-b"));
	assert_false(stg_zones_valid("hall-a,"));
	assert_false(stg_zones_valid(",hall-a"));
	assert_false(stg_zones_valid("hall-a,,hall-b"));
	assert_false(stg_zones_valid("hall-a,hall b"));
	assert_false(stg_zones_valid(""));
	assert_true(stg_zones_valid("a,b,c,d,e,f,g,h,i,j,k,l,m,n,o,p"));
	assert_false(stg_zones_valid("a,b,c,d,e,f,g,h,i,j,k,l,m,n,o,p,q"));
	assert_true(br_zones_have(NULL, NULL));
	assert_true(br_zones_have(NULL, "hall-a"));
	assert_true(br_zones_have("hall-a,hall-b", "hall-b"));
	assert_true(br_zones_have("hall-a,hall-b", "hall-a"));
	assert_false(br_zones_have("hall-a,hall-b", "hall"));
	assert_false(br_zones_have("hall-a,hall-b", "hall-a,hall-b"));
	assert_false(br_zones_have("hall-a", "hall-ab"));
	assert_false(br_zones_have("hall-a", NULL));
	assert_false(br_zones_have("hall-a", ""));
	br_strlist_release(&problems);
	unlink(path);
	unlink(bad);
	free(path);
	free(bad);
}

/* The power_domain column: a feed's name, stored as given; a blank or a
 * slash is a typo named with its line. */
static void test_power_domain_column(void **state)
{
	struct stg_manifest m;
	struct br_strlist problems = { 0 };
	struct br_err err = { 0 };
	char *path;

	(void)state;
	path = write_tmp("hostname,rack,unit,bmc,bmc_user,bmc_password,profile,zone,power_domain\n"
			 "gpu-a,r01,1,10.0.0.1,root,env:PW,xe9680,hall-1,pdu-r01-a\n"
			 "gpu-b,r01,2,10.0.0.2,root,env:PW,xe9680,hall-1,\n");
	assert_int_equal(stg_manifest_load(path, NULL, &m, &problems, &err), 0);
	assert_string_equal(m.rows[0].power_domain, "pdu-r01-a");
	assert_string_equal(m.rows[0].zone, "hall-1");
	assert_string_equal(m.rows[1].power_domain, "");
	stg_manifest_release(&m);
	unlink(path);
	free(path);
	path = write_tmp("hostname,rack,unit,bmc,bmc_user,bmc_password,profile,power_domain\n"
			 "gpu-a,r01,1,10.0.0.1,root,env:PW,xe9680,pdu a\n"
			 "gpu-b,r01,2,10.0.0.2,root,env:PW,xe9680,busway/2\n");
	assert_int_equal(stg_manifest_load(path, NULL, &m, &problems, &err), BR_E_INVAL);
	assert_int_equal(problems.n, 2);
	assert_true(has_problem(&problems, ":2: power_domain: 'pdu a' is not a power domain's name"));
	assert_true(has_problem(&problems, ":3: power_domain: 'busway/2' is not a power domain's name"));
	br_strlist_release(&problems);
	unlink(path);
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_duplicate_column_no_leak),
		cmocka_unit_test(test_serial_column),
		cmocka_unit_test(test_unknown_column_lists_serial),
		cmocka_unit_test(test_system_column),
		cmocka_unit_test(test_zone_column),
		cmocka_unit_test(test_power_domain_column),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
