/*
 * Unit tests for what enlist takes from templates/: the xe9680 boot-disk rule
 * over discovered drives (the real rule file from the tree) and the
 * cloud-init user-data rendering, plus base64 against RFC 4648's vectors.
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

static void drive(struct br_hw *hw, const char *serial, const char *model, const char *protocol, uint64_t size)
{
	struct br_drive *d = br_hw_add_drive(hw);

	d->serial = serial ? br_xstrdup(serial) : NULL;
	d->model = br_xstrdup(model);
	d->protocol = br_xstrdup(protocol);
	d->capacity_bytes = size;
}

static void test_boot_disk_rule(void **state)
{
	char *rule = tree_path("templates/profiles/xe9680/boot-disk"), *serial = NULL, *why = NULL;
	struct br_err err = { 0 };
	struct br_hw hw;

	(void)state;
	/* Data drives listed first, as a BMC may: the BOSS card still wins. */
	br_hw_init(&hw);
	drive(&hw, "S6CRNA0W000002", "Dell Ent NVMe PM1733a RI 3.84TB", "NVMe", 3840755982336ULL);
	drive(&hw, "S6CRNA0W000001", "Dell Ent NVMe PM1733a RI 3.84TB", "NVMe", 3840755982336ULL);
	drive(&hw, "23173A000007", "Dell BOSS-N1 960GB", "NVMe", 960197124096ULL);
	assert_int_equal(enlist_pick_boot_disk(rule, &hw, &serial, &why, &err), 0);
	assert_string_equal(serial, "23173A000007");
	assert_non_null(strstr(why, "model_contains = BOSS"));
	free(serial);
	free(why);
	br_hw_release(&hw);

	/* No BOSS card: the smallest NVMe drive, ties by lowest serial. */
	br_hw_init(&hw);
	drive(&hw, "B-big", "Dell Ent NVMe 7.68TB", "NVMe", 7681501126656ULL);
	drive(&hw, "A-small-2", "Dell Ent NVMe 1.92TB", "NVMe", 1920383410176ULL);
	drive(&hw, "A-small-1", "Dell Ent NVMe 1.92TB", "NVMe", 1920383410176ULL);
	drive(&hw, "Z-sata", "Micron 5400 240GB", "SATA", 240057409536ULL);
	drive(&hw, NULL, "Dell BOSS-N1 no serial", "NVMe", 1);
	assert_int_equal(enlist_pick_boot_disk(rule, &hw, &serial, &why, &err), 0);
	assert_string_equal(serial, "A-small-1");
	assert_non_null(strstr(why, "smallest = NVMe"));
	free(serial);
	free(why);
	br_hw_release(&hw);

	/* Nothing matches: an error naming the rule. */
	br_hw_init(&hw);
	drive(&hw, "Z-sata", "Micron 5400 240GB", "SATA", 240057409536ULL);
	assert_int_equal(enlist_pick_boot_disk(rule, &hw, &serial, &why, &err), BR_E_NOTFOUND);
	assert_non_null(strstr(err.msg, "boot-disk"));
	br_hw_release(&hw);
	free(rule);
}

static void test_bad_rule(void **state)
{
	char path[] = "/tmp/br-rule-XXXXXX", *serial = NULL, *why = NULL;
	struct br_err err = { 0 };
	struct br_hw hw;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "# c\nlargest = NVMe\n", 19), 19);
	close(fd);
	br_hw_init(&hw);
	drive(&hw, "S1", "x", "NVMe", 1);
	assert_int_equal(enlist_pick_boot_disk(path, &hw, &serial, &why, &err), BR_E_INVAL);
	assert_non_null(strstr(err.msg, ":2: unknown clause 'largest'"));
	br_hw_release(&hw);
	unlink(path);
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
		cmocka_unit_test(test_boot_disk_rule),
		cmocka_unit_test(test_bad_rule),
		cmocka_unit_test(test_render_userdata),
		cmocka_unit_test(test_base64),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
