/* Unit tests for the IPMI fallback's parsers, over ipmitool output captured
 * from ipmi_sim (tests/fixtures/ipmi/README says how). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common.h"
#include "redfish/ipmi_private.h"

static char *fixture(const char *name)
{
	const char *top = getenv("BR_TOP");
	char *path = br_xasprintf("%s/tests/fixtures/ipmi/%s", top ? top : ".", name);
	char *data = NULL;
	size_t len;

	if (br_read_file(path, 1 << 20, &data, &len, NULL))
		fail_msg("cannot read fixture %s (is BR_TOP set?)", path);
	free(path);
	return data;
}

/* Run parser over a fixture into a fresh hw. */
static int parse_fixture(int (*parse)(const char *, struct br_hw *), const char *name, struct br_hw *hw)
{
	char *text = fixture(name);
	int rc;

	br_hw_init(hw);
	rc = parse(text, hw);
	free(text);
	return rc;
}

static void test_power(void **state)
{
	struct br_hw hw;

	(void)state;
	assert_int_equal(parse_fixture(br_ipmi_parse_power, "power-status.out", &hw), 0);
	assert_string_equal(hw.power_state, "Off");
	br_hw_release(&hw);
	br_hw_init(&hw);
	assert_int_equal(br_ipmi_parse_power("Chassis Power is on\n", &hw), 0);
	assert_string_equal(hw.power_state, "On");
	assert_int_equal(br_ipmi_parse_power("Chassis Power Control: Up/On\n", &hw), BR_E_PROTO);
	br_hw_release(&hw);
}

static void test_mc_info_guid(void **state)
{
	struct br_hw hw;

	(void)state;
	assert_int_equal(parse_fixture(br_ipmi_parse_mc_info, "mc-info.out", &hw), 0);
	assert_string_equal(hw.bmc_firmware, "9.08");
	assert_int_equal(br_ipmi_parse_mc_guid("System GUID  : 00000000-0000-0000-0000-000000000000\n", &hw),
			 BR_E_PROTO);
	assert_null(hw.uuid);
	br_hw_release(&hw);
	assert_int_equal(parse_fixture(br_ipmi_parse_mc_guid, "mc-guid.out", &hw), 0);
	assert_string_equal(hw.uuid, "efcdab89-6745-23a1-efcd-ab89674523a1");
	br_hw_release(&hw);
}

static void test_fru(void **state)
{
	struct br_hw hw;

	(void)state;
	assert_int_equal(parse_fixture(br_ipmi_parse_fru, "fru-print.out", &hw), 0);
	assert_string_equal(hw.system_serial, "SN-IPMI-0001");
	assert_string_equal(hw.model, "PowerEdge XE9680");
	assert_string_equal(hw.manufacturer, "Dell Inc.");
	br_hw_release(&hw);
	/* White boxes leave the product area as placeholders: fall back to
	 * chassis and board. */
	br_hw_init(&hw);
	assert_int_equal(br_ipmi_parse_fru(" Chassis Serial        : CHS-1\n"
					   " Board Mfg             : Supermicro\n"
					   " Board Product         : X13DEG-OAD\n"
					   " Product Name          : To Be Filled By O.E.M.\n"
					   " Product Serial        : Not Specified\n",
					   &hw),
			 0);
	assert_string_equal(hw.system_serial, "CHS-1");
	assert_string_equal(hw.model, "X13DEG-OAD");
	assert_string_equal(hw.manufacturer, "Supermicro");
	assert_int_equal(hw.n_nics, 0); /* no Extra field: no host MAC */
	br_hw_release(&hw);
	/* Host NIC MACs in Extra fields (written by hand, in the shapes
	 * integrators use): separated, or bare where the line says MAC; a
	 * numeric serial in an Extra field is no MAC. */
	br_hw_init(&hw);
	assert_int_equal(br_ipmi_parse_fru(" Board Serial          : BRD-7\n"
					   " Board Extra           : MAC1=3CECEF123456\n"
					   " Product Extra         : 3c:ec:ef:12:34:57, 3C-EC-EF-12-34-56\n"
					   " Chassis Extra         : 123456789012\n"
					   " Product Asset Tag     : 3c:ec:ef:00:00:01\n",
					   &hw),
			 0);
	assert_int_equal(hw.n_nics, 2);
	assert_string_equal(hw.nics[0].mac, "3c:ec:ef:12:34:56");
	assert_string_equal(hw.nics[1].mac, "3c:ec:ef:12:34:57");
	assert_string_equal(hw.nics[0].source, "ipmi-fru");
	br_hw_release(&hw);
	assert_int_equal(parse_fixture(br_ipmi_parse_fru, "fru-missing.out", &hw), BR_E_PROTO);
	assert_null(hw.system_serial);
	br_hw_release(&hw);
}

static void test_lan(void **state)
{
	struct br_hw hw;

	(void)state;
	assert_int_equal(parse_fixture(br_ipmi_parse_lan, "lan-print.out", &hw), 0);
	assert_string_equal(hw.bmc_mac, "52:54:00:ab:cd:ef");
	assert_int_equal(hw.n_nics, 0); /* the BMC's own port is no host NIC */
	br_hw_release(&hw);
	br_hw_init(&hw);
	assert_int_equal(br_ipmi_parse_lan("MAC Address             : 00:00:00:00:00:00\n", &hw), BR_E_PROTO);
	assert_null(hw.bmc_mac);
	br_hw_release(&hw);
}

static const struct br_sensor *sensor(const struct br_hw *hw, const char *name)
{
	for (size_t i = 0; i < hw->n_sensors; i++)
		if (!strcmp(hw->sensors[i].name, name))
			return &hw->sensors[i];
	fail_msg("no sensor %s", name);
	return NULL;
}

static void test_sensors(void **state)
{
	const struct br_sensor *s;
	struct br_hw hw;
	char *psu;

	(void)state;
	assert_int_equal(parse_fixture(br_ipmi_parse_sensor_list, "sensor-list.out", &hw), 0);
	assert_int_equal(hw.n_sensors, 4); /* the discrete PSU lines wait for the SDR */
	s = sensor(&hw, "Inlet Temp");
	assert_int_equal(s->kind, BR_SENSOR_TEMP);
	assert_string_equal(s->units, "Cel");
	assert_true(s->reading == 24.0);
	assert_true(s->upper_critical == 42.0);
	assert_true(isnan(s->lower_critical));
	assert_string_equal(s->health, "OK");
	s = sensor(&hw, "Fan1A");
	assert_int_equal(s->kind, BR_SENSOR_FAN);
	assert_string_equal(s->units, "RPM");
	assert_true(s->reading == 7200.0);
	assert_true(s->lower_critical == 600.0);
	assert_true(isnan(s->upper_critical));

	psu = fixture("sdr-psu.out");
	assert_int_equal(br_ipmi_parse_sdr_psu(psu, &hw), 0);
	free(psu);
	assert_int_equal(hw.n_sensors, 6);
	s = sensor(&hw, "PS1 Status");
	assert_int_equal(s->kind, BR_SENSOR_PSU);
	assert_string_equal(s->health, "OK");
	assert_string_equal(s->state, "Enabled");
	/* ipmitool's status column says "ok"; the state text says failed. */
	s = sensor(&hw, "PS2 Status");
	assert_string_equal(s->health, "Critical");
	br_hw_release(&hw);
}

/* Two real BMCs' SDR (tests/fixtures/ipmi/README): a redundancy sensor is
 * kept as one, never a supply; Dell's two supplies both named "Status"
 * stay two; the DGX-1's event-only "PSU Alert" is no supply. */
static void test_sdr_psu_real(void **state)
{
	struct br_hw hw;
	char *out;
	size_t psus = 0;

	(void)state;
	br_hw_init(&hw);
	out = fixture("sdr-psu-dell-r740xd.out");
	assert_int_equal(br_ipmi_parse_sdr_psu(out, &hw), 0);
	free(out);
	assert_int_equal(hw.n_sensors, 3);
	assert_int_equal(sensor(&hw, "PS Redundancy")->kind, BR_SENSOR_PSU_REDUNDANCY);
	assert_string_equal(sensor(&hw, "PS Redundancy")->state, "Fully Redundant");
	assert_string_equal(sensor(&hw, "PS Redundancy")->health, "OK");
	assert_int_equal(sensor(&hw, "Status (entity 10.1)")->kind, BR_SENSOR_PSU);
	assert_int_equal(sensor(&hw, "Status (entity 10.2)")->kind, BR_SENSOR_PSU);
	assert_string_equal(sensor(&hw, "Status (entity 10.2)")->health, "OK");
	br_hw_release(&hw);

	br_hw_init(&hw);
	out = fixture("sdr-psu-dgx1.out");
	assert_int_equal(br_ipmi_parse_sdr_psu(out, &hw), 0);
	free(out);
	for (size_t i = 0; i < hw.n_sensors; i++) {
		psus += hw.sensors[i].kind == BR_SENSOR_PSU;
		assert_string_not_equal(hw.sensors[i].name, "PSU Alert");
	}
	assert_int_equal(psus, 4);
	assert_int_equal(sensor(&hw, "PSU Redundancy")->kind, BR_SENSOR_PSU_REDUNDANCY);
	assert_string_equal(sensor(&hw, "PSU Redundancy")->state, "Non-Redundant: Insufficient Resources");
	assert_string_equal(sensor(&hw, "PSU Redundancy")->health, "Critical");
	assert_string_equal(sensor(&hw, "PSU1 Status")->health, "Critical"); /* AC lost */
	assert_string_equal(sensor(&hw, "PSU3 Status")->health, "OK");
	br_hw_release(&hw);
}

static void test_sensor_oddities(void **state)
{
	struct br_hw hw;

	(void)state;
	br_hw_init(&hw);
	assert_int_equal(
	    br_ipmi_parse_sensor_list(
		"CPU2 Temp        | na         | degrees C  | ns    | na | na | na | 85.000 | 90.000 | na\n"
		"12V              | 12.180     | Volts      | nc    | na | 10.1 | na | na | 13.2 | na\n"
		"Fan7 Duty        | 35.000     | percent    | cr    | na | na | na | na | na | na\n"
		"garbage line without pipes\n"
		"| | |\n",
		&hw),
	    0);
	assert_int_equal(hw.n_sensors, 3);
	assert_true(isnan(hw.sensors[0].reading));
	assert_string_equal(hw.sensors[0].state, "Absent");
	assert_null(hw.sensors[0].health);
	assert_int_equal(hw.sensors[1].kind, BR_SENSOR_VOLTAGE);
	assert_string_equal(hw.sensors[1].health, "Warning");
	assert_int_equal(hw.sensors[2].kind, BR_SENSOR_FAN);
	assert_string_equal(hw.sensors[2].units, "Percent");
	assert_string_equal(hw.sensors[2].health, "Critical");
	br_hw_release(&hw);
}

static int parse_sel_all(const char *out, struct br_hw *hw)
{
	return br_ipmi_parse_sel(out, BR_IPMI_SEL_MAX, hw);
}

static void test_sel_fixture(void **state)
{
	struct br_hw hw;

	(void)state;
	assert_int_equal(parse_fixture(parse_sel_all, "sel-elist.out", &hw), 0);
	assert_int_equal(hw.n_sel, 3);
	assert_string_equal(hw.sel[0].id, "1");
	assert_string_equal(hw.sel[0].severity, "Critical");
	assert_non_null(strstr(hw.sel[0].message, "CPU1 Temp"));
	assert_non_null(strstr(hw.sel[0].message, "Upper Critical going high"));
	assert_string_equal(hw.sel[1].severity, "Critical");
	assert_string_equal(hw.sel[2].severity, "OK"); /* deasserted */
	assert_string_equal(hw.sel[0].created, "Pre-Init 0000000669");
	br_hw_release(&hw);
}

static void test_sel_dates_and_cap(void **state)
{
	const char *text =
	    "   a | 11/29/2026 | 22:18:57 | Fan #0x30 | Lower Non-critical going low  | Asserted\n"
	    "   b | 11/29/2026 | 22:19:01 | Power Supply #0x50 | Power Supply AC lost | Asserted\n"
	    "   c | 11/30/2026 | 01:00:00 | System Event #0x83 | OEM System boot event | Asserted\n"
	    "SEL has no entries\n";
	struct br_hw hw;

	(void)state;
	br_hw_init(&hw);
	assert_int_equal(br_ipmi_parse_sel(text, 2, &hw), 0);
	assert_int_equal(hw.n_sel, 2); /* the newest two */
	assert_string_equal(hw.sel[0].id, "b");
	assert_string_equal(hw.sel[0].created, "2026-11-29T22:19:01");
	assert_string_equal(hw.sel[0].severity, "Critical");
	assert_string_equal(hw.sel[1].severity, "OK");
	br_hw_release(&hw);
	br_hw_init(&hw);
	assert_int_equal(br_ipmi_parse_sel(text, 10, &hw), 0);
	assert_string_equal(hw.sel[0].severity, "Warning");
	br_hw_release(&hw);
	br_hw_init(&hw);
	assert_int_equal(br_ipmi_parse_sel("SEL has no entries\n", 10, &hw), BR_E_PROTO);
	assert_int_equal(hw.n_sel, 0);
	br_hw_release(&hw);
}

static void test_classify(void **state)
{
	char *auth = fixture("auth-fail.err"), *unreach = fixture("unreachable.err");
	char *slow = fixture("power-status-nocipher.err"), *missing = fixture("fru-missing.out");

	(void)state;
	assert_int_equal(br_ipmi_classify_failure(auth), BR_IPMI_FAIL_AUTH);
	assert_int_equal(br_ipmi_classify_failure("RAKP 2 message indicates an error : unauthorized name\n"
						  "Error: Unable to establish IPMI v2 / RMCP+ session\n"),
			 BR_IPMI_FAIL_AUTH);
	assert_int_equal(br_ipmi_classify_failure("Error: Unable to establish LAN session\n"),
			 BR_IPMI_FAIL_AUTH);
	assert_int_equal(
	    br_ipmi_classify_failure("Get Auth Capabilities error\n"
				     "Error issuing Get Channel Authentication Capabilities request\n"
				     "Error: Unable to establish IPMI v2 / RMCP+ session\n"),
	    BR_IPMI_FAIL_UNREACHABLE);
	/* ipmitool killed mid-retry has said nothing decisive yet. */
	assert_int_equal(br_ipmi_classify_failure(unreach), BR_IPMI_FAIL_OTHER);
	assert_int_equal(br_ipmi_classify_failure(missing), BR_IPMI_FAIL_OTHER);
	assert_int_equal(br_ipmi_classify_failure(slow), BR_IPMI_FAIL_OTHER);
	assert_true(br_ipmi_cipher_fallback_seen(slow));
	assert_false(br_ipmi_cipher_fallback_seen(auth));
	free(auth);
	free(unreach);
	free(slow);
	free(missing);
}

static void test_kv(void **state)
{
	char *v;

	(void)state;
	v = br_ipmi_kv_get("A : 1\nMAC Address   :  aa:bb:cc:dd:ee:ff  \n", "MAC Address");
	assert_string_equal(v, "aa:bb:cc:dd:ee:ff");
	free(v);
	assert_null(br_ipmi_kv_get("MAC Addressing : x\nno colon here\n", "MAC Address"));
	assert_null(br_ipmi_kv_get("", "A"));
}

/* The account commands credentials rotation runs (redfish/ipmi_user.c). */
static void test_user_list(void **state)
{
	char *list = fixture("user-list.out"), *set = fixture("user-set-password.out");
	char *bad_id = fixture("user-set-password-bad-id.err");
	int id = -1;

	(void)state;
	assert_int_equal(ipmi_parse_user_id(list, "admin", &id), 0);
	assert_int_equal(id, 2);
	/* an empty slot is no user named "", a prefix no match */
	id = -1;
	assert_int_equal(ipmi_parse_user_id(list, "", &id), BR_E_NOTFOUND);
	assert_int_equal(ipmi_parse_user_id(list, "adm", &id), BR_E_NOTFOUND);
	assert_int_equal(ipmi_parse_user_id(list, "root", &id), BR_E_NOTFOUND);
	assert_int_equal(id, -1);
	/* not a user list at all: a refusal's text, nothing */
	assert_int_equal(ipmi_parse_user_id(bad_id, "admin", &id), BR_E_PROTO);
	assert_int_equal(ipmi_parse_user_id("", "admin", &id), BR_E_PROTO);
	assert_int_equal(ipmi_parse_user_id("70,admin,true,false,true,ADMINISTRATOR\n", "admin", &id),
			 BR_E_PROTO);
	assert_int_equal(ipmi_parse_set_password(set, NULL), 0);
	assert_int_equal(ipmi_parse_set_password(bad_id, NULL), BR_E_PROTO);
	free(list);
	free(set);
	free(bad_id);
}

static void test_user_password_script(void **state)
{
	struct br_err err = { 0 };
	char *line;

	(void)state;
	line = ipmi_user_password_script(2, "Abc123def456GHI7", &err);
	assert_non_null(line);
	assert_string_equal(line, "user set password 2 Abc123def456GHI7\n");
	br_secret_free(line);
	/* what ipmitool's exec would split or read as a comment, too long, no ID */
	assert_null(ipmi_user_password_script(2, "two words", &err));
	assert_non_null(strstr(err.msg, "blank"));
	assert_null(ipmi_user_password_script(2, "pass#word", &err));
	assert_null(ipmi_user_password_script(2, "quo\"te", &err));
	assert_null(ipmi_user_password_script(2, "Abc123def456GHI78", &err));
	assert_non_null(strstr(err.msg, "1-16"));
	assert_null(ipmi_user_password_script(2, "", &err));
	assert_null(ipmi_user_password_script(0, "Abc123", &err));
	assert_null(ipmi_user_password_script(64, "Abc123", &err));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_power),
		cmocka_unit_test(test_mc_info_guid),
		cmocka_unit_test(test_fru),
		cmocka_unit_test(test_lan),
		cmocka_unit_test(test_sensors),
		cmocka_unit_test(test_sensor_oddities),
		cmocka_unit_test(test_sdr_psu_real),
		cmocka_unit_test(test_sel_fixture),
		cmocka_unit_test(test_sel_dates_and_cap),
		cmocka_unit_test(test_classify),
		cmocka_unit_test(test_kv),
		cmocka_unit_test(test_user_list),
		cmocka_unit_test(test_user_password_script),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
