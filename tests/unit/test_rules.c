/* The rules (validators/rules.h): version comparison, the firmware policy
 * judged against an inventory shaped like iDRAC's (Installed-/Previous-
 * ids), and the boot-disk rule over discovered drives, with the shipped
 * xe9680 profile. Pure functions: facts and a profile in, checks out. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "validators/rules.h"

static int parse(const char *text, struct prof_profile *p)
{
	struct br_err err = { 0 };

	prof_init(p);
	return prof_parse_text("t.conf", text, PROF_FILE_FIRMWARE, p, &err);
}

/* A boot-disk rule as its own file (prof_load names the file it read). */
static int parse_boot_disk(const char *text, struct prof_profile *p)
{
	struct br_err err = { 0 };
	int rc;

	prof_init(p);
	rc = prof_parse_text("t.conf", text, PROF_FILE_BOOT_DISK, p, &err);
	p->boot_disk_file = br_xstrdup("t.conf");
	return rc;
}

static void load_xe9680(struct prof_profile *p)
{
	const char *top = getenv("BR_TOP");
	char *dir = br_xasprintf("%s/templates", top ? top : ".");
	struct br_err err = { 0 };

	assert_int_equal(prof_load(dir, "xe9680", p, &err), 0);
	free(dir);
}

static void test_version_cmp(void **state)
{
	assert_true(val_version_cmp("28.33.0800", "28.39.1002") < 0);
	assert_true(val_version_cmp("28.39.1002", "28.39.1002") == 0);
	assert_true(val_version_cmp("28.39.1002", "28.39.0999") > 0);
	/* numeric, not textual: 10 > 9, leading zeros do not matter */
	assert_true(val_version_cmp("2.10.0", "2.9.9") > 0);
	assert_true(val_version_cmp("7.10.50.00", "7.10.050.0") == 0);
	/* a missing component is less */
	assert_true(val_version_cmp("2.3", "2.3.5") < 0);
	assert_true(val_version_cmp("2.3.5.1", "2.3.5") > 0);
	/* hex-looking GPU firmware: text compared without case */
	assert_true(val_version_cmp("96.00.A5.00.01", "96.00.a5.00.01") == 0);
	assert_true(val_version_cmp("96.00.A5.00.01", "96.00.B1.00.00") < 0);
	/* huge components do not overflow */
	assert_true(val_version_cmp("1.99999999999999999999999", "1.100000000000000000000000") < 0);
}

static void fw(struct br_hw *hw, const char *id, const char *version)
{
	struct br_firmware *f = br_hw_add_firmware(hw);

	f->id = strdup(id);
	f->version = version ? strdup(version) : NULL;
}

static const struct val_check *find(const struct val_check *c, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(c[i].name, name))
			return &c[i];
	return NULL;
}

static void test_firmware_judge(void **state)
{
	struct prof_profile p;
	struct br_hw hw;
	struct val_check *checks = NULL;
	const struct val_check *c;
	size_t n = 0;

	assert_int_equal(
	    parse("[firmware]\nBIOS.Setup.1-1 = 2.3.5\nNIC.Slot.* = 28.39.1002\nCPLD.* = 1.0\n", &p), 0);
	br_hw_init(&hw);
	fw(&hw, "Installed-159-2.3.5__BIOS.Setup.1-1", "2.3.5");
	fw(&hw, "Previous-159-2.2.7__BIOS.Setup.1-1", "2.2.7"); /* history: ignored */
	fw(&hw, "Installed-104327-28.39.1002__NIC.Slot.31-1-1", "28.39.1002");
	fw(&hw, "Installed-104327-28.33.0800__NIC.Slot.33-1-1", "28.33.0800");
	fw(&hw, "Previous-104327-20.1.1__NIC.Slot.34-1-1", "20.1.1");
	val_firmware_judge(&p, &hw, &checks, &n);
	assert_int_equal(n, 4);
	c = find(checks, n, "firmware:BIOS.Setup.1-1");
	assert_non_null(c);
	assert_int_equal(c->result, VAL_PASS);
	c = find(checks, n, "firmware:NIC.Slot.31-1-1");
	assert_non_null(c);
	assert_int_equal(c->result, VAL_PASS);
	c = find(checks, n, "firmware:NIC.Slot.33-1-1");
	assert_non_null(c);
	assert_int_equal(c->result, VAL_FAIL);
	assert_string_equal(c->detail, "NIC.Slot.33-1-1: 28.33.0800 < 28.39.1002 — update firmware");
	assert_null(find(checks, n, "firmware:NIC.Slot.34-1-1"));
	c = find(checks, n, "firmware:CPLD.*");
	assert_non_null(c);
	assert_int_equal(c->result, VAL_UNKNOWN);
	val_checks_free(checks, n);
	br_hw_release(&hw);
	prof_release(&p);
}

/* IPMI facts carry no firmware inventory: one unknown, not one per rule. */
static void test_firmware_ipmi(void **state)
{
	struct prof_profile p;
	struct br_hw hw;
	struct val_check *checks = NULL;
	size_t n = 0;

	assert_int_equal(parse("[firmware]\nBIOS.Setup.1-1 = 2.3.5\nNIC.Slot.* = 28.39.1002\n", &p), 0);
	br_hw_init(&hw);
	hw.source = strdup("ipmi");
	val_firmware_judge(&p, &hw, &checks, &n);
	assert_int_equal(n, 1);
	assert_string_equal(checks[0].name, "firmware");
	assert_int_equal(checks[0].result, VAL_UNKNOWN);
	assert_string_equal(val_result_name(checks[0].result), "unknown");
	val_checks_free(checks, n);
	prof_release(&p);
	/* no policy, no checks */
	prof_init(&p);
	val_firmware_judge(&p, &hw, &checks, &n);
	assert_int_equal(n, 0);
	val_checks_free(checks, n);
	br_hw_release(&hw);
}

static void drive(struct br_hw *hw, const char *serial, const char *model, const char *protocol,
		  uint64_t size)
{
	struct br_drive *d = br_hw_add_drive(hw);

	d->serial = serial ? br_xstrdup(serial) : NULL;
	d->model = br_xstrdup(model);
	d->protocol = br_xstrdup(protocol);
	d->capacity_bytes = size;
}

static void test_boot_disk_rule(void **state)
{
	char *serial = NULL, *why = NULL;
	struct br_err err = { 0 };
	struct prof_profile p;
	struct br_hw hw;

	(void)state;
	load_xe9680(&p);
	/* Data drives listed first, as a BMC may: the BOSS card still wins. */
	br_hw_init(&hw);
	drive(&hw, "S6CRNA0W000002", "Dell Ent NVMe PM1733a RI 3.84TB", "NVMe", 3840755982336ULL);
	drive(&hw, "S6CRNA0W000001", "Dell Ent NVMe PM1733a RI 3.84TB", "NVMe", 3840755982336ULL);
	drive(&hw, "23173A000007", "Dell BOSS-N1 960GB", "NVMe", 960197124096ULL);
	assert_int_equal(val_pick_boot_disk(&p, &hw, &serial, &why, &err), 0);
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
	assert_int_equal(val_pick_boot_disk(&p, &hw, &serial, &why, &err), 0);
	assert_string_equal(serial, "A-small-1");
	assert_non_null(strstr(why, "smallest = NVMe"));
	free(serial);
	free(why);
	br_hw_release(&hw);

	/* Nothing matches: an error naming the rule. */
	br_hw_init(&hw);
	drive(&hw, "Z-sata", "Micron 5400 240GB", "SATA", 240057409536ULL);
	assert_int_equal(val_pick_boot_disk(&p, &hw, &serial, &why, &err), BR_E_NOTFOUND);
	assert_non_null(strstr(err.msg, "boot-disk"));
	br_hw_release(&hw);
	prof_release(&p);

	/* A profile without a rule says so. */
	prof_init(&p);
	br_hw_init(&hw);
	drive(&hw, "S1", "x", "NVMe", 1);
	assert_int_equal(val_pick_boot_disk(&p, &hw, &serial, &why, &err), BR_E_NOTFOUND);
	assert_non_null(strstr(err.msg, "no boot-disk rule"));
	br_hw_release(&hw);
}

static struct br_drive *drive_id(struct br_hw *hw, const char *id, const char *serial, const char *model,
				 uint64_t size)
{
	drive(hw, serial, model, "NVMe", size);
	hw->drives[hw->n_drives - 1].id = br_xstrdup(id);
	return &hw->drives[hw->n_drives - 1];
}

static struct br_volume *volume(struct br_hw *hw, const char *id, const char *controller, const char *raid,
				const char *durable, uint64_t size, const char *m1, const char *m2)
{
	struct br_volume *v = br_hw_add_volume(hw);

	v->id = br_xstrdup(id);
	v->controller = br_xstrdup(controller);
	v->raid_type = br_xstrdup(raid);
	v->durable_name = durable ? br_xstrdup(durable) : NULL;
	v->durable_name_format = br_xstrdup("NAA");
	v->capacity_bytes = size;
	br_volume_add_drive(v, m1);
	br_volume_add_drive(v, m2);
	return v;
}

/* A BOSS RAID1 (issue 12 point 6): the OS sees the volume, so the rule
 * picks it by its identity and never one of its M.2 member drives, even
 * where a drive clause would match a member (the smallest NVMe). */
static void test_boot_disk_volume(void **state)
{
	char *serial = NULL, *why = NULL;
	struct br_err err = { 0 };
	struct prof_profile p;
	struct br_hw hw;

	(void)state;
	load_xe9680(&p);
	br_hw_init(&hw);
	drive_id(&hw, "Disk.Bay.0:Enclosure.Internal.0-1", "S6CRNA0W000001",
		 "Dell Ent NVMe PM1733a RI 3.84TB", 3840755982336ULL);
	drive_id(&hw, "Disk.Direct.0-0:BOSS.SL.14-1", "23173A000007", "Dell NVMe 7450 RI M.2 960GB",
		 960197124096ULL);
	drive_id(&hw, "Disk.Direct.1-1:BOSS.SL.14-1", "23173B000007", "Dell NVMe 7450 RI M.2 960GB",
		 960197124096ULL);
	volume(&hw, "Disk.Virtual.0:BOSS.SL.14-1", "BOSS.SL.14-1", "RAID1", "5F4EE08000000AB1",
	       960197124096ULL, "Disk.Direct.0-0:BOSS.SL.14-1", "Disk.Direct.1-1:BOSS.SL.14-1");
	assert_int_equal(val_pick_boot_disk(&p, &hw, &serial, &why, &err), 0);
	assert_string_equal(serial, "5F4EE08000000AB1");
	/* model_contains = BOSS names the volume by its controller */
	assert_non_null(strstr(why, "model_contains = BOSS"));
	assert_non_null(strstr(why, "Disk.Virtual.0:BOSS.SL.14-1"));
	assert_non_null(strstr(why, "Disk.Direct.1-1:BOSS.SL.14-1"));
	assert_non_null(strstr(why, "NAA 5F4EE08000000AB1"));
	free(serial);
	free(why);
	prof_release(&p);

	/* volume = RAID1 alone; a volume without an identity is never picked */
	assert_int_equal(parse_boot_disk("volume = RAID1\n", &p), 0);
	free(hw.volumes[0].durable_name);
	hw.volumes[0].durable_name = NULL;
	assert_int_equal(val_pick_boot_disk(&p, &hw, &serial, &why, &err), BR_E_NOTFOUND);
	assert_non_null(strstr(err.msg, "1 volumes"));
	hw.volumes[0].durable_name = br_xstrdup("5F4EE08000000AB1");
	assert_int_equal(val_pick_boot_disk(&p, &hw, &serial, &why, &err), 0);
	assert_string_equal(serial, "5F4EE08000000AB1");
	assert_non_null(strstr(why, "volume = RAID1"));
	free(serial);
	free(why);
	prof_release(&p);

	/* smallest = NVMe skips the members and takes the data drive */
	assert_int_equal(parse_boot_disk("smallest = NVMe\n", &p), 0);
	assert_int_equal(val_pick_boot_disk(&p, &hw, &serial, &why, &err), 0);
	assert_string_equal(serial, "S6CRNA0W000001");
	free(serial);
	free(why);
	prof_release(&p);
	br_hw_release(&hw);
}

/* How the OS names the disk: MAAS's serial and id_path for it. */
static void test_disk_identity(void **state)
{
	(void)state;
	/* the volume's NAA name as the OS prints it: lower case, a prefix */
	assert_true(val_disk_identity_eq("5F4EE08000000AB1", "5f4ee08000000ab1", NULL));
	assert_true(val_disk_identity_eq("5F4EE08000000AB1", " naa.5f4ee08000000ab1 ", NULL));
	assert_true(val_disk_identity_eq("0x5F4EE08000000AB1", "5f4ee08000000ab1", NULL));
	/* only in udev's by-id name: wwn-0x..., or the trailing _serial */
	assert_true(val_disk_identity_eq("5F4EE08000000AB1", NULL, "/dev/disk/by-id/wwn-0x5f4ee08000000ab1"));
	assert_true(
	    val_disk_identity_eq("a2d4c1e3b5f60010", "", "/dev/disk/by-id/ata-DELLBOSS_VD_a2d4c1e3b5f60010"));
	/* plain drive serials still match exactly */
	assert_true(
	    val_disk_identity_eq("23173A000007", "23173A000007", "/dev/disk/by-id/nvme-x_23173A000007"));
	assert_false(
	    val_disk_identity_eq("23173A000007", "23173A000008", "/dev/disk/by-id/nvme-x_23173A000008"));
	/* an M.2 member's serial is not the volume, nor a prefix of one */
	assert_false(val_disk_identity_eq("5F4EE08000000AB1", "5f4ee08000000ab", NULL));
	assert_false(
	    val_disk_identity_eq("5F4EE08000000AB1", "23173A000007", "/dev/disk/by-id/nvme-Dell_BOSS-N1_x"));
	assert_false(val_disk_identity_eq("", "", ""));
	assert_false(val_disk_identity_eq(NULL, "x", NULL));
	assert_false(val_disk_identity_eq("x", NULL, NULL));
}

/* The gate (rules_gate.c): [gate] optional excuses an unknown, never a failure; a required pattern
 * needs at least one check of it. */
static void test_gate_optional(void **state)
{
	struct val_check checks[] = {
		{ "cabling", VAL_PASS, "ok", NULL },
		{ "clock", VAL_UNKNOWN, "no RTC", NULL },
		{ "thermal", VAL_FAIL, "Inlet: 900 C", NULL },
	};
	struct prof_profile p;
	int failing[3];
	char *missing, *excused;

	(void)state;
	prof_init(&p);
	br_strlist_add(&p.hw.gate_required, "cabling");
	br_strlist_add(&p.hw.gate_required, "clock");
	br_strlist_add(&p.hw.gate_required, "thermal");
	br_strlist_add(&p.hw.gate_required, "firmware:*");
	assert_int_equal(val_gate_failing(&p, checks, 3, failing, &missing), 3);
	assert_int_equal(failing[1], 1);
	/* what the list names and what the expectations give */
	assert_string_equal(missing, "pcie, boot_disk, cpufreq, psu, dmesg, gpu_health, firmware:*");
	free(missing);
	br_strlist_add(&p.hw.gate_optional, "clock");
	br_strlist_add(&p.hw.gate_optional, "thermal");
	br_strlist_add(&p.hw.gate_optional, "firmware:*");
	br_strlist_add(&p.hw.gate_optional, "pcie");
	br_strlist_add(&p.hw.gate_optional, "boot_disk");
	br_strlist_add(&p.hw.gate_optional, "cpufreq");
	br_strlist_add(&p.hw.gate_optional, "psu");
	br_strlist_add(&p.hw.gate_optional, "dmesg");
	br_strlist_add(&p.hw.gate_optional, "gpu_health");
	assert_int_equal(val_gate_failing(&p, checks, 3, failing, &missing), 1);
	assert_int_equal(failing[0], 0);
	assert_int_equal(failing[1], 0);
	assert_int_equal(failing[2], 1);
	assert_null(missing);
	excused = val_gate_optional_unknown(&p, checks, 3);
	assert_string_equal(excused, "clock");
	free(excused);
	prof_release(&p);
}

/* The gate with no [gate] required: every check counts, and every check
 * the profile's expectations give must have run (fail closed); no checks
 * at all prove nothing. */
static void test_gate_expected(void **state)
{
	struct val_check checks[] = {
		{ "pcie", VAL_PASS, "ok", NULL },
		{ "thermal", VAL_UNKNOWN, "no sensors", NULL },
	};
	struct prof_profile p;
	int failing[2];
	char *missing;

	(void)state;
	prof_init(&p);
	assert_true(val_gate_is_required(&p, "anything"));
	assert_false(val_gate_is_optional(&p, "thermal"));
	assert_int_equal(val_gate_failing(&p, checks, 2, failing, &missing), 2);
	assert_int_equal(failing[0], 0);
	assert_int_equal(failing[1], 1);
	assert_string_equal(missing, "cabling, boot_disk, cpufreq, psu, dmesg, gpu_health");
	free(missing);
	assert_int_equal(val_gate_failing(NULL, NULL, 0, failing, &missing), 1);
	assert_string_equal(missing, "no check results");
	free(missing);
	assert_null(val_gate_optional_unknown(&p, checks, 2));
	prof_release(&p);
}

/* A [gate] required list adds checks but cannot drop one the profile's
 * expectations give: with [gpu] count = 8 and only "cabling" listed, a
 * failed gpu_count still blocks and a missing one is not checked; a
 * failure blocks even where no list names it. */
static void test_gate_required_adds(void **state)
{
	struct val_check checks[] = {
		{ "cabling", VAL_PASS, "ok", NULL },
		{ "gpu_count", VAL_FAIL, "7 of 8 GPUs", NULL },
		{ "extra", VAL_UNKNOWN, "not read", NULL },
		{ "other", VAL_FAIL, "broken", NULL },
	};
	struct prof_profile p;
	int failing[4];
	char *missing;

	(void)state;
	prof_init(&p);
	p.hw.gpus = 8;
	br_strlist_add(&p.hw.gate_required, "cabling");
	assert_true(val_gate_is_required(&p, "gpu_count"));
	assert_true(val_gate_is_required(&p, "psu"));
	assert_false(val_gate_is_required(&p, "extra"));
	assert_int_equal(val_gate_failing(&p, checks, 4, failing, &missing), 3);
	assert_int_equal(failing[0], 0);
	assert_int_equal(failing[1], 1);
	assert_int_equal(failing[2], 0);
	assert_int_equal(failing[3], 1);
	assert_non_null(strstr(missing, "boot_disk"));
	assert_null(strstr(missing, "gpu_count"));
	assert_null(strstr(missing, "cabling"));
	free(missing);
	assert_int_equal(val_gate_failing(&p, checks, 1, failing, &missing), 1);
	assert_non_null(strstr(missing, "gpu_count"));
	free(missing);
	prof_release(&p);
}

/* Whose document it is (issue 29, finding 10): the DMI serial decides
 * against the BMC's serial or service tag; without one, the short
 * hostname; nothing to compare tells nothing. */
static void test_identity_mismatch(void **state)
{
	struct br_hw hw;
	char *why = NULL;
	json_t *doc = json_pack("{s:{s:s, s:s}}", "host", "hostname", "gpu-b.lab", "product_serial", "TAG2");

	(void)state;
	br_hw_init(&hw);
	hw.system_serial = strdup("CN000001");
	hw.service_tag = strdup("TAG1");
	assert_int_equal(val_identity_mismatch(doc, "gpu-a", &hw, &why), 1);
	assert_non_null(strstr(why, "its system serial is TAG2 (hostname gpu-b.lab)"));
	assert_non_null(strstr(why, "CN000001, service tag TAG1"));
	free(why);
	/* its own hostname: the serial in another field, or a placeholder */
	assert_int_equal(val_identity_mismatch(doc, "gpu-b", &hw, &why), 0);
	assert_null(why);
	/* the serial is the node's: a hostname set otherwise is not a wrong node */
	free(hw.service_tag);
	hw.service_tag = strdup("tag2");
	assert_int_equal(val_identity_mismatch(doc, "gpu-a", &hw, &why), 0);
	assert_null(why);
	/* no BMC facts: the hostname, short names compared */
	assert_int_equal(val_identity_mismatch(doc, "gpu-b", NULL, &why), 0);
	assert_int_equal(val_identity_mismatch(doc, "gpu-a", NULL, &why), 1);
	assert_non_null(strstr(why, "its hostname is gpu-b.lab, not gpu-a"));
	free(why);
	json_decref(doc);
	doc = json_pack("{s:{}}", "host");
	assert_int_equal(val_identity_mismatch(doc, "gpu-a", &hw, &why), 0);
	json_decref(doc);
	br_hw_release(&hw);
}

/* cabling_bmc, judged before PXE: its failure counts though [gate]
 * required does not list it, and the in-band checks the node never reached
 * are not missing; its unknown alone blocks nothing (cabling decides). */
static void test_gate_cabling_bmc(void **state)
{
	struct val_check failed[] = { { "cabling_bmc", VAL_FAIL, "eno8303: no LLDP neighbour", NULL } };
	struct val_check unknown[] = {
		{ "cabling", VAL_PASS, "10 of 10", NULL },
		{ "cabling_bmc", VAL_UNKNOWN, "the BMC shows no switch neighbours", NULL },
		{ "thermal", VAL_PASS, "ok", NULL },
	};
	struct prof_profile p;
	int failing[3];
	char *missing;

	(void)state;
	prof_init(&p);
	br_strlist_add(&p.hw.gate_required, "cabling");
	br_strlist_add(&p.hw.gate_required, "thermal");
	assert_int_equal(val_gate_failing(&p, failed, 1, failing, &missing), 1);
	assert_int_equal(failing[0], 1);
	assert_null(missing);
	assert_true(val_gate_early_failure(failed, 1));
	/* the early unknown is not failing; what never ran still is missing */
	val_gate_failing(&p, unknown, 3, failing, &missing);
	assert_int_equal(failing[0], 0);
	assert_int_equal(failing[1], 0);
	assert_int_equal(failing[2], 0);
	assert_null(strstr(missing, "cabling"));
	free(missing);
	assert_false(val_gate_early_failure(unknown, 3));
	prof_release(&p);
	/* with no [gate] required every check counts, but not an early unknown */
	prof_init(&p);
	val_gate_failing(&p, unknown, 3, failing, &missing);
	assert_int_equal(failing[1], 0);
	free(missing);
	prof_release(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_version_cmp),	 cmocka_unit_test(test_gate_optional),
		cmocka_unit_test(test_gate_expected),	 cmocka_unit_test(test_gate_required_adds),
		cmocka_unit_test(test_firmware_judge),	 cmocka_unit_test(test_firmware_ipmi),
		cmocka_unit_test(test_boot_disk_rule),	 cmocka_unit_test(test_boot_disk_volume),
		cmocka_unit_test(test_disk_identity),	 cmocka_unit_test(test_identity_mismatch),
		cmocka_unit_test(test_gate_cabling_bmc),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
