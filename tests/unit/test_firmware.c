/* The firmware stage's pure parts: the catalogue (firmware-images.conf)
 * and its messages, the plan of a node (what is below the policy, which
 * image, in which order, what is refused), and the rack's versions side
 * by side. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "stages/firmware.h"

#define SHA "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

static const char catalogue[] =
    "[update]\nmax_per_rack = 2\nmax_per_power_domain = 3\n"
    "[image nic-new]\ncomponent = NIC.Slot.*\nclass = nic\n"
    "models = PowerEdge XE9680, PowerEdge XE8640\nversion = 28.40.1000\n"
    "file = cx7-new.bin\nsha256 = " SHA "\n"
    "[image nic]\ncomponent = NIC.Slot.*\nclass = nic\nmodels = PowerEdge XE9680\n"
    "version = 28.39.1002\nfile = /abs/cx7.bin\nsha256 = " SHA "\n"
    "[image idrac]\ncomponent = iDRAC.Embedded.1-1\nclass = bmc\n"
    "models = poweredge xe9680\nversion = 7.10.50.00\nfile = idrac.d9\nsha256 = " SHA "\n"
    "compsig = idrac.compsig\ncompsig_sha256 = " SHA "\n"
    "[image bios-other]\ncomponent = BIOS.Setup.1-1\nclass = bios\n"
    "models = PowerEdge R760xa\nversion = 2.3.5\nfile = bios.exe\nsha256 = " SHA "\n";

static void load(struct prof_profile *p, const char *images, const char *policy)
{
	struct br_err err = { 0 };

	prof_init(p);
	assert_int_equal(prof_parse_text("/t/profiles/x/firmware.conf", policy, PROF_FILE_FIRMWARE, p, &err),
			 0);
	assert_int_equal(
	    prof_parse_text("/t/profiles/x/firmware-images.conf", images, PROF_FILE_IMAGES, p, &err), 0);
}

static void test_catalogue(void **state)
{
	struct prof_profile p;

	load(&p, catalogue, "[firmware]\nNIC.Slot.* = 28.39.1002\n");
	assert_int_equal(p.n_images, 4);
	assert_int_equal(p.fw_max_per_rack, 2);
	assert_int_equal(p.fw_max_per_power_domain, 3);
	assert_string_equal(p.images[0].name, "nic-new");
	assert_int_equal(p.images[0].fw_class, PROF_FW_NIC);
	assert_int_equal(p.images[0].models.n, 2);
	assert_string_equal(p.images[0].models.items[1], "PowerEdge XE8640");
	/* relative to the profile's directory; absolute as written */
	assert_string_equal(p.images[0].file, "/t/profiles/x/cx7-new.bin");
	assert_string_equal(p.images[1].file, "/abs/cx7.bin");
	assert_int_equal(p.images[2].fw_class, PROF_FW_BMC);
	assert_string_equal(p.images[2].compsig, "/t/profiles/x/idrac.compsig");
	assert_string_equal(p.images[2].compsig_sha256, SHA);
	assert_null(p.images[1].compsig);
	prof_release(&p);
}

#define H64 "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

static void test_catalogue_errors(void **state)
{
	static const struct {
		const char *text, *want;
	} cases[] = {
		{ "[image a]\ncomponent = X\nclass = nic\nmodels = M\nversion = 1.0\nfile = f\n",
		  "t.conf:2: [image a]: sha256: not set" },
		{ "[image a]\nsha256 = ABC\n", "t.conf:2: sha256: not 64 lowercase hexadecimal digits" },
		{ "[image a]\ncomponent = X\nclass = bmc\nmodels = M\nversion = 1.0\nfile = f\nsha256 = " H64
		  "\ncompsig = f.compsig\n",
		  "t.conf:2: [image a]: compsig_sha256: not set" },
		{ "[image a]\ncomponent = X\nclass = bmc\nmodels = M\nversion = 1.0\nfile = f\nsha256 = " H64
		  "\ncompsig_sha256 = " H64 "\n",
		  "t.conf:2: [image a]: compsig: not set" },
		{ "[image a]\ncompsig_sha256 = 12\n",
		  "t.conf:2: compsig_sha256: not 64 lowercase hexadecimal" },
		{ "[image a]\ncompsig =\n", "t.conf:2: compsig: empty" },
		{ "[image a]\nclass = psu\n", "t.conf:2: class: 'psu' is not bmc, bios" },
		{ "[image a]\nversion = new\n", "t.conf:2: version: 'new' is not a version" },
		{ "[image a]\nmodels = ,\n", "t.conf:2: models: no model named" },
		{ "[image a]\ncolour = red\n", "t.conf:2: colour: unknown setting of an image" },
		{ "[image a]\nfile = f\nfile = g\n", "t.conf:3: file: set twice" },
		{ "[image a]\nfile = f\n[image b]\nfile = g\n[image a]\nfile = h\n",
		  "t.conf:6: [image a] given twice (first on line 2)" },
		{ "[update]\nmax_per_rack = 0\n", "t.conf:2: max_per_rack: '0' is not a count" },
		{ "[update]\nmax_per_power_domain = x\n",
		  "t.conf:2: max_per_power_domain: 'x' is not a count" },
		{ "[update]\nmax_per_power_domain = 1\nmax_per_power_domain = 2\n",
		  "t.conf:3: max_per_power_domain: set twice" },
		{ "[update]\nmax_per_pdu = 1\n",
		  "t.conf:2: max_per_pdu: unknown setting of [update] (max_per_rack, max_per_power_domain)" },
		{ "[images]\nfile = f\n", "t.conf:1: unknown section [images] ([update] or [image NAME])" },
		{ "[image a/b]\nfile = f\n", "t.conf:2: [image a/b]: a name of letters" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct prof_profile p;
		struct br_err err = { 0 };

		prof_init(&p);
		assert_int_equal(prof_parse_text("t.conf", cases[i].text, PROF_FILE_IMAGES, &p, &err),
				 BR_E_INVAL);
		if (!strstr(err.msg, cases[i].want))
			fail_msg("case %zu: '%s' lacks '%s'", i, err.msg, cases[i].want);
		prof_release(&p);
	}
}

static void add_fw(struct br_hw *hw, const char *id, const char *version)
{
	struct br_firmware *f = br_hw_add_firmware(hw);

	f->id = br_xstrdup(id);
	f->version = br_xstrdup(version);
}

/* What is below the policy gets the highest image for the model at or
 * above the minimum, BMC first; what is at the policy, a Previous- entry
 * and a component no rule names are left alone. */
static void test_plan(void **state)
{
	struct prof_profile p;
	struct stg_fw_plan plan;
	struct br_hw hw;

	load(&p, catalogue,
	     "[firmware]\nNIC.Slot.* = 28.39.1002\niDRAC.Embedded.1-1 = 7.10.50.00\nCPLD.Embedded.1 = 1.0\n");
	br_hw_init(&hw);
	add_fw(&hw, "Installed-104327-28.33.0800__NIC.Slot.31-1-1", "28.33.0800");
	add_fw(&hw, "Installed-104327-28.39.1002__NIC.Slot.32-1-1", "28.39.1002");
	add_fw(&hw, "Previous-25227-7.00.60.00__iDRAC.Embedded.1-1", "7.00.60.00");
	add_fw(&hw, "Installed-25227-7.00.60.00__iDRAC.Embedded.1-1", "7.00.60.00");
	add_fw(&hw, "Installed-0-1.1.4__CPLD.Embedded.1", "1.1.4");
	add_fw(&hw, "Installed-0-1.60__Enclosure.Internal.0-1", "1.60");
	stg_fw_plan_node(&p, &hw, "PowerEdge XE9680", &plan);
	assert_int_equal(plan.n, 2);
	assert_int_equal(plan.refused, 0);
	assert_string_equal(plan.items[0].component, "iDRAC.Embedded.1-1");
	assert_string_equal(plan.items[0].from, "7.00.60.00");
	assert_string_equal(plan.items[0].image->name, "idrac"); /* models compared in any case */
	assert_string_equal(plan.items[1].component, "NIC.Slot.31-1-1");
	assert_string_equal(plan.items[1].image->name, "nic-new"); /* the highest */
	stg_fw_plan_release(&plan);

	/* Another model: the XE8640 has only the newer NIC image and no iDRAC image. */
	stg_fw_plan_node(&p, &hw, "PowerEdge XE8640", &plan);
	assert_int_equal(plan.n, 2);
	assert_int_equal(plan.refused, 1);
	assert_string_equal(plan.items[0].component, "NIC.Slot.31-1-1");
	assert_string_equal(plan.items[0].image->name, "nic-new");
	assert_null(plan.items[1].image);
	assert_string_equal(plan.items[1].refused,
			    "refused: the catalogue has no image of iDRAC.Embedded.1-1 for "
			    "model 'PowerEdge XE8640' at or above 7.10.50.00");
	stg_fw_plan_release(&plan);
	br_hw_release(&hw);
	prof_release(&p);
}

/* An image below the policy is no image for it; a component no image
 * names at all says so. */
static void test_plan_refused(void **state)
{
	struct prof_profile p;
	struct stg_fw_plan plan;
	struct br_hw hw;

	load(&p, catalogue, "[firmware]\nNIC.Slot.* = 28.41.0000\nGPU.SXM.* = 97.0\n");
	br_hw_init(&hw);
	add_fw(&hw, "Installed-104327-28.39.1002__NIC.Slot.31-1-1", "28.39.1002");
	add_fw(&hw, "Installed-0-96.00.A5.00.01__GPU.SXM.1", "96.00.A5.00.01");
	stg_fw_plan_node(&p, &hw, "PowerEdge XE9680", &plan);
	assert_int_equal(plan.n, 2);
	assert_int_equal(plan.refused, 2);
	assert_string_equal(plan.items[0].refused, "refused: the catalogue has no image of GPU.SXM.1");
	assert_non_null(strstr(plan.items[1].refused, "at or above 28.41.0000"));
	stg_fw_plan_release(&plan);
	prof_release(&p);

	/* no catalogue at all: said so, naming the profile */
	load(&p, "", "[firmware]\nNIC.Slot.* = 28.41.0000\n");
	p.name = br_xstrdup("xe9680");
	stg_fw_plan_node(&p, &hw, "PowerEdge XE9680", &plan);
	assert_int_equal(plan.refused, 1);
	assert_string_equal(plan.items[0].refused,
			    "refused: NIC.Slot.31-1-1 is below 28.41.0000, and profile xe9680 "
			    "has no catalogue of images (firmware-images.conf)");
	stg_fw_plan_release(&plan);
	br_hw_release(&hw);
	prof_release(&p);
}

static void test_consistency(void **state)
{
	struct stg_fw_seen seen[] = {
		{ "XE9680", "BIOS.Setup.1-1", "2.3.5", "n1" },
		{ "XE9680", "BIOS.Setup.1-1", "2.2.7", "n2" },
		{ "XE9680", "BIOS.Setup.1-1", "2.3.5", "n3" },
		{ "XE9680", "CPLD.Embedded.1", "1.1.4", "n1" },
		{ "XE9680", "CPLD.Embedded.1", "1.1.4", "n2" },
		{ "R760", "BIOS.Setup.1-1", "1.0", "n4" },
	};
	json_t *all = stg_fw_consistency(seen, 6, 0), *diff = stg_fw_consistency(seen, 6, 1);
	char *text = json_dumps(diff, JSON_COMPACT | JSON_SORT_KEYS);

	assert_int_equal(json_array_size(json_object_get(all, "components")), 3);
	assert_string_equal(
	    text, "{\"components\":[{\"component\":\"BIOS.Setup.1-1\",\"differ\":[\"n2\"],\"model\":"
		  "\"XE9680\",\"versions\":[{\"nodes\":[\"n1\",\"n3\"],\"version\":\"2.3.5\"},{\"nodes\":"
		  "[\"n2\"],\"version\":\"2.2.7\"}]}]}");
	free(text);
	json_decref(all);
	json_decref(diff);
	/* a rack with no firmware facts at all (nothing discovered yet) */
	all = stg_fw_consistency(NULL, 0, 1);
	assert_int_equal(json_array_size(json_object_get(all, "components")), 0);
	json_decref(all);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_catalogue),   cmocka_unit_test(test_catalogue_errors),
		cmocka_unit_test(test_plan),	    cmocka_unit_test(test_plan_refused),
		cmocka_unit_test(test_consistency),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
