/*
 * Unit tests for what enlist takes from templates/: the cloud-init
 * user-data rendering, plus base64 against RFC 4648's vectors. (The
 * boot-disk rule is validators' now: test_rules.c.)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "bringup/enlist.h"
#include "common.h"

static char *tree_path(const char *rel)
{
	const char *top = getenv("BR_TOP");

	return br_xasprintf("%s/%s", top ? top : ".", rel);
}

static void test_render_userdata(void **state)
{
	char *tpl = tree_path("templates/cloud-init/user-data"), *text = NULL;
	struct br_strlist ntp = { 0 }, pkgs = { 0 };
	struct enlist_userdata_vars v = { "gpu-r01-u03", "ssh-ed25519 AAAAkey validator@bringup", &ntp, &pkgs };
	struct br_err err = { 0 };

	(void)state;
	br_strlist_add(&ntp, "10.0.0.1");
	br_strlist_add(&ntp, "ntp \"two\"");
	br_strlist_add(&pkgs, "lldpd");
	assert_int_equal(enlist_render_userdata(tpl, &v, &text, &err), 0);
	assert_int_equal(strncmp(text, "#cloud-config\n", 14), 0);
	assert_non_null(strstr(text, "hostname: gpu-r01-u03\n"));
	/* List items keep the placeholder's indentation; values are quoted. */
	assert_non_null(strstr(text, "  servers:\n    - \"10.0.0.1\"\n    - \"ntp \\\"two\\\"\"\n"));
	assert_non_null(strstr(text, "ssh_authorized_keys:\n  - \"ssh-ed25519 AAAAkey validator@bringup\"\n"));
	assert_non_null(strstr(text, "packages:\n  - \"lldpd\"\n"));
	assert_non_null(strstr(text, "'pool 10.0.0.1 iburst'"));
	for (const char *const *ph = (const char *const[]){ "@HOSTNAME@", "@NTP_FIRST@", "@NTP_SERVERS@",
							   "@SSH_AUTHORIZED_KEYS@", "@PACKAGES@", NULL };
	     *ph; ph++)
		assert_null(strstr(text, *ph));
	free(text);
	/* No key: an empty list, still valid YAML. */
	v.ssh_pubkey = NULL;
	assert_int_equal(enlist_render_userdata(tpl, &v, &text, &err), 0);
	assert_non_null(strstr(text, "ssh_authorized_keys:\n  []\n"));
	free(text);
	br_strlist_release(&ntp);
	br_strlist_release(&pkgs);
	free(tpl);
}

static void test_base64(void **state)
{
	static const char *const vectors[][2] = {
		{ "", "" },	    { "f", "Zg==" },	     { "fo", "Zm8=" },		{ "foo", "Zm9v" },
		{ "foob", "Zm9vYg==" }, { "fooba", "Zm9vYmE=" }, { "foobar", "Zm9vYmFy" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(vectors) / sizeof(vectors[0]); i++) {
		char *b = enlist_base64(vectors[i][0], strlen(vectors[i][0]));

		assert_string_equal(b, vectors[i][1]);
		free(b);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_render_userdata),
		cmocka_unit_test(test_base64),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
