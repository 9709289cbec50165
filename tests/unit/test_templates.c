/* Profile templates: the INI parser's messages (FILE:LINE), what each
 * section accepts, version comparison, and the firmware policy judged
 * against an inventory shaped like iDRAC's (Installed-/Previous- ids). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bringup/templates.h"

static int parse(const char *text, const char *kind, struct br_tpl_profile *p, struct br_err *err)
{
	memset(p, 0, sizeof(*p));
	memset(err, 0, sizeof(*err));
	return br_tpl_parse_text("t.conf", text, kind, p, err);
}

static void test_bios_ok(void **state)
{
	struct br_tpl_profile p;
	struct br_err err;

	assert_int_equal(parse("# comment\n; another\n\n[bios]\n  BootMode = Uefi ; inline\nSysProfile=PerfOptimized\n"
			       "PxeDev1VlanId = 0\n[boot]\npxe_nic = NIC.Embedded.1-1-1\nmode = once\n",
			       "bios", &p, &err),
			 0);
	assert_int_equal(p.n_bios, 3);
	assert_string_equal(p.bios[0].key, "BootMode");
	assert_string_equal(p.bios[0].value, "Uefi");
	assert_string_equal(p.bios[1].value, "PerfOptimized");
	assert_string_equal(p.bios[2].value, "0");
	assert_string_equal(p.pxe_nic, "NIC.Embedded.1-1-1");
	assert_int_equal(p.boot_mode, BR_TPL_BOOT_ONCE);
	br_tpl_profile_release(&p);
}

/* Every message names the file and the line of the first problem. */
static void test_bios_errors(void **state)
{
	static const struct {
		const char *text, *want;
	} cases[] = {
		{ "[bios]\nBootMode = Uefi\nthis line has no equals\n", "t.conf:3: expected '[section]' or 'name = value'" },
		{ "[bios\nBootMode = Uefi\n", "t.conf:1: expected" },
		{ "BootMode = Uefi\n", "t.conf:1: 'BootMode' outside a section" },
		{ "[bios]\nBootMode = Uefi\n\n[biso]\nX = 1\n", "t.conf:4: unknown section [biso]" },
		{ "[bios]\nBootMode = Uefi\nBootMode = Bios\n", "t.conf:3: BootMode set twice" },
		{ "[bios]\nBoot Mode = Uefi\n", "t.conf:2: 'Boot Mode' is not a BIOS attribute name" },
		{ "[bios]\nBootMode =\n", "t.conf:2: BootMode: empty value" },
		{ "[boot]\nmode = sometimes\n", "t.conf:2: mode 'sometimes': must be persistent or once" },
		{ "[boot]\npxe_nic = eth0\n", "t.conf:2: pxe_nic 'eth0' is not a NIC FQDD" },
		{ "[boot]\npxe = NIC.Embedded.1-1-1\n", "t.conf:2: unknown setting 'pxe' in [boot]" },
		/* our own problem on line 2 comes after inih's on line ... none: order kept */
		{ "[bios]\nA = 1\nB = 2\nnot a pair\nA = 3\n", "t.conf:4: expected" },
		{ "[bios]\nA = 1\nA = 3\nnot a pair\n", "t.conf:3: A set twice" },
		{ "[firmware]\nNIC.Slot.* = 1\n", "t.conf:1: unknown section [firmware]" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct br_tpl_profile p;
		struct br_err err;

		assert_int_equal(parse(cases[i].text, "bios", &p, &err), BR_E_INVAL);
		if (!strstr(err.msg, cases[i].want))
			fail_msg("case %zu: '%s' not in '%s'", i, cases[i].want, err.msg);
		br_tpl_profile_release(&p);
	}
}

static void test_long_line(void **state)
{
	struct br_tpl_profile p;
	struct br_err err;
	char *text = malloc(2000);

	memcpy(text, "[bios]\nA = ", 11);
	memset(text + 11, 'x', 1500);
	memcpy(text + 1511, "\nB = 1\n", 8);
	assert_int_equal(parse(text, "bios", &p, &err), BR_E_INVAL);
	assert_non_null(strstr(err.msg, "t.conf:2: line longer than"));
	br_tpl_profile_release(&p);
	free(text);
}

static void test_firmware_parse(void **state)
{
	struct br_tpl_profile p;
	struct br_err err;

	assert_int_equal(parse("[firmware]\nBIOS.Setup.1-1 = 2.3.5\nNIC.Slot.* = 28.39.1002\n", "firmware", &p, &err),
			 0);
	assert_int_equal(p.n_firmware, 2);
	assert_string_equal(p.firmware[1].component, "NIC.Slot.*");
	assert_string_equal(p.firmware[1].min_version, "28.39.1002");
	br_tpl_profile_release(&p);
	assert_int_equal(parse("[firmware]\nNIC.Slot.* = latest\n", "firmware", &p, &err), BR_E_INVAL);
	assert_non_null(strstr(err.msg, "t.conf:2: NIC.Slot.*: 'latest' is not a version"));
	br_tpl_profile_release(&p);
	assert_int_equal(parse("[bios]\nA = 1\n", "firmware", &p, &err), BR_E_INVAL);
	assert_non_null(strstr(err.msg, "t.conf:1: unknown section [bios]"));
	br_tpl_profile_release(&p);
}

static void test_version_cmp(void **state)
{
	assert_true(br_tpl_version_cmp("28.33.0800", "28.39.1002") < 0);
	assert_true(br_tpl_version_cmp("28.39.1002", "28.39.1002") == 0);
	assert_true(br_tpl_version_cmp("28.39.1002", "28.39.0999") > 0);
	/* numeric, not textual: 10 > 9, leading zeros do not matter */
	assert_true(br_tpl_version_cmp("2.10.0", "2.9.9") > 0);
	assert_true(br_tpl_version_cmp("7.10.50.00", "7.10.050.0") == 0);
	/* a missing component is less */
	assert_true(br_tpl_version_cmp("2.3", "2.3.5") < 0);
	assert_true(br_tpl_version_cmp("2.3.5.1", "2.3.5") > 0);
	/* hex-looking GPU firmware: text compared without case */
	assert_true(br_tpl_version_cmp("96.00.A5.00.01", "96.00.a5.00.01") == 0);
	assert_true(br_tpl_version_cmp("96.00.A5.00.01", "96.00.B1.00.00") < 0);
	/* huge components do not overflow */
	assert_true(br_tpl_version_cmp("1.99999999999999999999999", "1.100000000000000000000000") < 0);
}

static void fw(struct br_hw *hw, const char *id, const char *version)
{
	struct br_firmware *f = br_hw_add_firmware(hw);

	f->id = strdup(id);
	f->version = version ? strdup(version) : NULL;
}

static const struct inv_check *find(const struct inv_check *c, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(c[i].name, name))
			return &c[i];
	return NULL;
}

static void test_firmware_judge(void **state)
{
	struct br_tpl_profile p;
	struct br_err err;
	struct br_hw hw;
	struct inv_check *checks = NULL;
	const struct inv_check *c;
	size_t n = 0;

	assert_int_equal(parse("[firmware]\nBIOS.Setup.1-1 = 2.3.5\nNIC.Slot.* = 28.39.1002\nCPLD.* = 1.0\n",
			       "firmware", &p, &err),
			 0);
	br_hw_init(&hw);
	fw(&hw, "Installed-159-2.3.5__BIOS.Setup.1-1", "2.3.5");
	fw(&hw, "Previous-159-2.2.7__BIOS.Setup.1-1", "2.2.7"); /* history: ignored */
	fw(&hw, "Installed-104327-28.39.1002__NIC.Slot.31-1-1", "28.39.1002");
	fw(&hw, "Installed-104327-28.33.0800__NIC.Slot.33-1-1", "28.33.0800");
	fw(&hw, "Previous-104327-20.1.1__NIC.Slot.34-1-1", "20.1.1");
	assert_int_equal(br_tpl_firmware_judge(&p, &hw, &checks, &n), 0);
	assert_int_equal(n, 4);
	c = find(checks, n, "firmware:BIOS.Setup.1-1");
	assert_non_null(c);
	assert_int_equal(c->result, INV_CHECK_PASS);
	c = find(checks, n, "firmware:NIC.Slot.31-1-1");
	assert_non_null(c);
	assert_int_equal(c->result, INV_CHECK_PASS);
	c = find(checks, n, "firmware:NIC.Slot.33-1-1");
	assert_non_null(c);
	assert_int_equal(c->result, INV_CHECK_FAIL);
	assert_string_equal(c->detail, "NIC.Slot.33-1-1: 28.33.0800 < 28.39.1002 — update firmware");
	assert_null(find(checks, n, "firmware:NIC.Slot.34-1-1"));
	c = find(checks, n, "firmware:CPLD.*");
	assert_non_null(c);
	assert_int_equal(c->result, INV_CHECK_UNKNOWN);
	inv_checks_free(checks, n);
	br_hw_release(&hw);
	br_tpl_profile_release(&p);
}

/* The shipped xe9680 profile loads, and an unknown one is refused. */
static void test_profile_load(void **state)
{
	const char *top = getenv("BR_TOP");
	char *dir = NULL;
	struct br_tpl_profile p;
	struct br_err err = { 0 };

	if (!top)
		top = ".";
	dir = br_xasprintf("%s/templates", top);
	assert_int_equal(br_tpl_profile_load(dir, "xe9680", &p, &err), 0);
	assert_true(p.n_bios >= 8);
	assert_string_equal(p.pxe_nic, "NIC.Embedded.1-1-1");
	assert_int_equal(p.boot_mode, BR_TPL_BOOT_PERSISTENT);
	assert_true(p.n_firmware >= 3);
	br_tpl_profile_release(&p);
	assert_int_equal(br_tpl_profile_load(dir, "nosuch", &p, &err), BR_E_NOTFOUND);
	assert_non_null(strstr(err.msg, "profile 'nosuch'"));
	assert_int_equal(br_tpl_profile_load(dir, "../etc", &p, &err), BR_E_INVAL);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bios_ok),		cmocka_unit_test(test_bios_errors),
		cmocka_unit_test(test_long_line),	cmocka_unit_test(test_firmware_parse),
		cmocka_unit_test(test_version_cmp),	cmocka_unit_test(test_firmware_judge),
		cmocka_unit_test(test_profile_load),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
