/* configure's pure half (redfish/config_diff.c): the BIOS diff against a
 * baseline, the typed PATCH body, the boot plan (persistent BootOrder or a
 * one-time override), and the readers of ipmitool's configure answers
 * (redfish/config_ipmi.c). Documents are iDRAC9-shaped (7.10, as the
 * simulator serves them). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "redfish/ipmi_private.h"
#include "redfish/rf_private.h"

static const struct br_kv baseline[] = {
	{ "BootMode", "Uefi" },	       { "SysProfile", "PerfOptimized" },
	{ "PxeDev1EnDis", "Enabled" }, { "PxeDev1Interface", "NIC.Embedded.1-1-1" },
	{ "PxeDev1VlanId", "0" },
};

static const struct rf_config_spec spec = { baseline, 5, "NIC.Embedded.1-1-1", RF_BOOT_PERSISTENT };

static json_t *attrs_of(const char *json)
{
	json_t *a = json_loads(json, 0, NULL);

	assert_non_null(a);
	return a;
}

static void test_bios_diff(void **state)
{
	json_t *a = attrs_of(
	    "{\"BootMode\":\"Uefi\",\"SysProfile\":\"PerfPerWattOptimizedDapc\","
	    "\"PxeDev1EnDis\":\"Enabled\",\"PxeDev1Interface\":\"NIC.Embedded.1-1-1\",\"PxeDev1VlanId\":7}");
	struct rf_config_change *c = NULL;
	size_t n = 0;

	rf_cfg_bios_diff(a, &spec, &c, &n);
	assert_int_equal(n, 2);
	assert_string_equal(c[0].name, "SysProfile");
	assert_string_equal(c[0].current, "PerfPerWattOptimizedDapc");
	assert_string_equal(c[0].wanted, "PerfOptimized");
	/* a number compares by its JSON text */
	assert_string_equal(c[1].name, "PxeDev1VlanId");
	assert_string_equal(c[1].current, "7");
	rf_cfg_changes_free(c, n);
	json_decref(a);

	/* on baseline: nothing; an absent attribute is a change with no current */
	a = attrs_of("{\"BootMode\":\"Uefi\",\"SysProfile\":\"PerfOptimized\",\"PxeDev1EnDis\":\"Enabled\","
		     "\"PxeDev1Interface\":\"NIC.Embedded.1-1-1\",\"PxeDev1VlanId\":0}");
	rf_cfg_bios_diff(a, &spec, &c, &n);
	assert_int_equal(n, 0);
	rf_cfg_changes_free(c, n);
	json_object_del(a, "BootMode");
	rf_cfg_bios_diff(a, &spec, &c, &n);
	assert_int_equal(n, 1);
	assert_null(c[0].current);
	rf_cfg_changes_free(c, n);
	json_decref(a);
}

static void test_bios_patch(void **state)
{
	json_t *a = attrs_of("{\"SysProfile\":\"Custom\",\"PxeDev1VlanId\":7,\"SecureBoot\":true}");
	struct rf_config_change c[] = { { "SysProfile", "Custom", "PerfOptimized" },
					{ "PxeDev1VlanId", "7", "0" },
					{ "SecureBoot", "true", "false" } };
	struct br_err err = { 0 };
	json_t *body = rf_cfg_bios_patch(a, c, 3, &err);
	char *text;

	assert_non_null(body);
	text = json_dumps(body, JSON_COMPACT | JSON_SORT_KEYS);
	assert_string_equal(text,
			    "{\"@Redfish.SettingsApplyTime\":{\"ApplyTime\":\"OnReset\"},\"Attributes\":"
			    "{\"PxeDev1VlanId\":0,\"SecureBoot\":false,\"SysProfile\":\"PerfOptimized\"}}");
	free(text);
	json_decref(body);
	/* a number the baseline spells as text is refused before any request */
	c[1].wanted = "zero";
	assert_null(rf_cfg_bios_patch(a, c, 3, &err));
	assert_non_null(strstr(err.msg, "PxeDev1VlanId is a number"));
	json_decref(a);
}

static json_t *system_with(const char *boot)
{
	char *doc =
	    br_xasprintf("{\"@odata.id\":\"/redfish/v1/Systems/System.Embedded.1\",\"Boot\":%s}", boot);
	json_t *s = json_loads(doc, 0, NULL);

	free(doc);
	assert_non_null(s);
	return s;
}

static void test_boot_persistent(void **state)
{
	json_t *a = attrs_of("{\"PxeDev1EnDis\":\"Enabled\",\"PxeDev1Interface\":\"NIC.Embedded.1-1-1\"}");
	json_t *s = system_with("{\"BootOrder\":[\"Disk.Direct.0-0:BOSS.SL.14-1\",\"NIC.PxeDevice.1-1\","
				"\"NIC.PxeDevice.2-1\"]}");
	json_t *patch = NULL;
	char *cur = NULL, *want = NULL, *text;
	struct br_err err = { 0 };

	assert_int_equal(rf_cfg_boot_plan(s, a, &spec, &patch, &cur, &want, &err), 1);
	assert_string_equal(cur,
			    "BootOrder Disk.Direct.0-0:BOSS.SL.14-1,NIC.PxeDevice.1-1,NIC.PxeDevice.2-1");
	assert_string_equal(want,
			    "BootOrder NIC.PxeDevice.1-1,Disk.Direct.0-0:BOSS.SL.14-1,NIC.PxeDevice.2-1");
	text = json_dumps(patch, JSON_COMPACT);
	assert_string_equal(
	    text, "{\"Boot\":{\"BootOrder\":[\"NIC.PxeDevice.1-1\",\"Disk.Direct.0-0:BOSS.SL.14-1\","
		  "\"NIC.PxeDevice.2-1\"]}}");
	free(text);
	json_decref(patch);
	free(cur);
	free(want);
	json_decref(s);

	/* already first: nothing to do */
	s = system_with("{\"BootOrder\":[\"NIC.PxeDevice.1-1\",\"Disk.Direct.0-0:BOSS.SL.14-1\"]}");
	assert_int_equal(rf_cfg_boot_plan(s, a, &spec, &patch, &cur, &want, &err), 0);
	json_decref(s);

	/* the NIC is PXE device 2 once the baseline is applied */
	struct br_kv b2[] = { { "PxeDev2EnDis", "Enabled" },
			      { "PxeDev2Interface", "NIC.Embedded.1-1-1" },
			      { "PxeDev1Interface", "NIC.Slot.31-1-1" } };
	struct rf_config_spec spec2 = { b2, 3, "NIC.Embedded.1-1-1", RF_BOOT_PERSISTENT };

	s = system_with("{\"BootOrder\":[\"NIC.PxeDevice.1-1\",\"NIC.PxeDevice.2-1\"]}");
	assert_int_equal(rf_cfg_boot_plan(s, a, &spec2, &patch, &cur, &want, &err), 1);
	assert_string_equal(want, "BootOrder NIC.PxeDevice.2-1,NIC.PxeDevice.1-1");
	json_decref(patch);
	free(cur);
	free(want);
	json_decref(s);

	/* no PXE device on the NIC: a clear error */
	struct rf_config_spec spec3 = { baseline, 0, "NIC.Slot.38-1-1", RF_BOOT_PERSISTENT };

	s = system_with("{\"BootOrder\":[\"NIC.PxeDevice.1-1\"]}");
	assert_true(rf_cfg_boot_plan(s, a, &spec3, &patch, &cur, &want, &err) < 0);
	assert_non_null(strstr(err.msg, "no enabled PXE device uses NIC.Slot.38-1-1"));
	json_decref(s);
	json_decref(a);
}

static void test_boot_once(void **state)
{
	json_t *a = attrs_of("{\"PxeDev1EnDis\":\"Enabled\",\"PxeDev1Interface\":\"NIC.Embedded.1-1-1\"}");
	struct rf_config_spec once = spec;
	json_t *s =
	    system_with("{\"BootSourceOverrideTarget\":\"None\",\"BootSourceOverrideEnabled\":\"Disabled\"}");
	json_t *patch = NULL;
	char *cur = NULL, *want = NULL, *text;
	struct br_err err = { 0 };

	once.boot_mode = RF_BOOT_ONCE;
	assert_int_equal(rf_cfg_boot_plan(s, a, &once, &patch, &cur, &want, &err), 1);
	assert_string_equal(cur, "BootSourceOverride None/Disabled");
	text = json_dumps(patch, JSON_COMPACT | JSON_SORT_KEYS);
	assert_string_equal(
	    text, "{\"Boot\":{\"BootSourceOverrideEnabled\":\"Once\",\"BootSourceOverrideTarget\":\"Pxe\"}}");
	free(text);
	json_decref(patch);
	free(cur);
	free(want);
	json_decref(s);
	s = system_with("{\"BootSourceOverrideTarget\":\"Pxe\",\"BootSourceOverrideEnabled\":\"Once\"}");
	assert_int_equal(rf_cfg_boot_plan(s, a, &once, &patch, &cur, &want, &err), 0);
	json_decref(s);
	json_decref(a);
}

/* A BIOS without iDRAC's PxeDevN attributes (iLO, XCC, Supermicro,
 * OpenBMC, AMI): the next boot goes to PXE by the override; a persistent
 * order, or an override the System does not list, is refused as
 * unsupported, before anything is written. */
static void test_boot_other_families(void **state)
{
	static const struct br_kv hpe_baseline[] = { { "WorkloadProfile", "HighPerformanceCompute" } };
	struct rf_config_spec fam = { hpe_baseline, 1, "NIC.LOM.1.1", RF_BOOT_ONCE };
	json_t *a = attrs_of("{\"WorkloadProfile\":\"GeneralPowerEfficientCompute\",\"Sriov\":\"Enabled\"}");
	json_t *s =
	    system_with("{\"BootSourceOverrideTarget\":\"None\",\"BootSourceOverrideEnabled\":\"Disabled\"}");
	json_t *patch = NULL;
	char *cur = NULL, *want = NULL;
	struct br_err err = { 0 };

	assert_int_equal(rf_cfg_boot_plan(s, a, &fam, &patch, &cur, &want, &err), 1);
	assert_string_equal(want, "BootSourceOverride Pxe/Once");
	json_decref(patch);
	free(cur);
	free(want);
	json_decref(s);
	s = system_with("{\"BootSourceOverrideTarget\":\"None\",\"BootSourceOverrideEnabled\":\"Disabled\","
			"\"BootSourceOverrideTarget@Redfish.AllowableValues\":[\"None\",\"Hdd\",\"Cd\"]}");
	assert_int_equal(rf_cfg_boot_plan(s, a, &fam, &patch, &cur, &want, &err), BR_E_UNSUPPORTED);
	assert_non_null(strstr(err.msg, "unsupported on this BMC: Pxe is not among"));
	fam.boot_mode = RF_BOOT_PERSISTENT;
	assert_int_equal(rf_cfg_boot_plan(s, a, &fam, &patch, &cur, &want, &err), BR_E_UNSUPPORTED);
	assert_true(!strncmp(err.msg, "unsupported on this BMC: a persistent PXE boot order", 52));
	json_decref(s);
	json_decref(a);
}

/* Captured from ipmitool 1.8.19 against ipmi_sim with a chassis_control
 * program (tests/fixtures/ipmi/sim.sh ... chassis). */
static void test_ipmi_answers(void **state)
{
	static const char bootparam[] = "Boot parameter version: 1\n"
					"Boot parameter 5 is valid/unlocked\n"
					"Boot parameter data: 0004000000\n"
					" Boot Flags :\n"
					"   - Boot Flag Invalid\n"
					"   - Options apply to only next boot\n"
					"   - BIOS PC Compatible (legacy) boot \n"
					"   - Boot Device Selector : Force PXE\n"
					"   - BIOS verbosity : System Default\n";
	struct br_hw hw;

	br_hw_init(&hw);
	assert_int_equal(ipmi_parse_bootdev_set("Set Boot Device to pxe\n", &hw), 0);
	assert_int_not_equal(ipmi_parse_bootdev_set("", &hw), 0);
	assert_int_equal(ipmi_parse_bootdev_pxe(bootparam, &hw), 0);
	assert_string_equal(hw.boot_override_target, "Pxe");
	assert_string_equal(hw.boot_override_enabled, "Once");
	assert_string_equal(hw.boot_mode, "Legacy");
	assert_int_not_equal(
	    ipmi_parse_bootdev_pxe("   - Boot Device Selector : Force Boot from default Hard-Drive\n", &hw),
	    0);
	assert_int_equal(ipmi_parse_power_control("Chassis Power Control: Cycle\n", &hw), 0);
	assert_int_equal(ipmi_parse_power_control("Chassis Power Control: Up/On\n", &hw), 0);
	assert_int_not_equal(
	    ipmi_parse_power_control(
		"Set Chassis Power Control to Cycle failed: Command not supported in present state\n", &hw),
	    0);
	br_hw_release(&hw);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bios_diff),	cmocka_unit_test(test_bios_patch),
		cmocka_unit_test(test_boot_persistent), cmocka_unit_test(test_boot_once),
		cmocka_unit_test(test_ipmi_answers),	cmocka_unit_test(test_boot_other_families),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
