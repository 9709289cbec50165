/*
 * The passwords credentials rotate generates (stages/credentials.c): the
 * length the BMC's AccountService policy allows, letters and digits with
 * each kind present, different every time, and a policy that leaves no
 * length refused.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "stages/credentials.h"

static void assert_kinds(const char *pw)
{
	int upper = 0, lower = 0, digit = 0;

	for (const char *p = pw; *p; p++) {
		upper |= *p >= 'A' && *p <= 'Z';
		lower |= *p >= 'a' && *p <= 'z';
		digit |= *p >= '0' && *p <= '9';
		assert_true((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9'));
	}
	assert_true(upper && lower && digit);
}

static void test_lengths(void **state)
{
	static const struct {
		int wanted, min, max, length;
	} cases[] = {
		{ 0, 0, 0, STG_PASSWORD_LENGTH }, /* no policy: the default */
		{ 32, 8, 20, 20 },		  /* the BMC's maximum wins */
		{ 10, 16, 40, 16 },		  /* ... and its minimum */
		{ 24, 0, 0, 24 },		  /* asked for, no policy */
		{ 20, 20, 20, 20 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct br_err err = { 0 };
		char *pw = stg_password_generate(cases[i].wanted, cases[i].min, cases[i].max, &err);

		assert_non_null(pw);
		assert_int_equal(strlen(pw), cases[i].length);
		assert_kinds(pw);
		br_secret_free(pw);
	}
}

static void test_random(void **state)
{
	struct br_err err = { 0 };
	char *a = stg_password_generate(20, 0, 0, &err), *b = stg_password_generate(20, 0, 0, &err);

	assert_non_null(a);
	assert_non_null(b);
	assert_string_not_equal(a, b);
	br_secret_free(a);
	br_secret_free(b);
}

static void test_no_length(void **state)
{
	struct br_err err = { 0 };

	assert_null(stg_password_generate(20, 30, 10, &err));
	assert_non_null(strstr(err.msg, "30-10"));
	assert_null(stg_password_generate(0, 0, 2, &err)); /* too short to hold the three kinds */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lengths),
		cmocka_unit_test(test_random),
		cmocka_unit_test(test_no_length),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
