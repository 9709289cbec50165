/* NetBox's devices and cables as manifest rows and a wiring list
 * (stages/netbox_map.c), on answers shaped as NetBox 4.6 serialises them
 * (tests/fixtures/netbox/README.md). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common.h"
#include "stages/netbox.h"
#include "stages/netboxopts.h"

static json_t *fixture(const char *name)
{
	const char *top = getenv("BR_TOP");
	char *path = br_xasprintf("%s/tests/fixtures/netbox/%s", top ? top : ".", name);
	struct br_err err = { 0 };
	json_t *doc = br_json_load_file(path, 1 << 20, &err);

	if (!doc)
		fail_msg("%s: %s", path, err.msg);
	free(path);
	return doc;
}

static int has(const struct br_strlist *l, const char *needle)
{
	for (size_t i = 0; i < l->n; i++)
		if (strstr(l->items[i], needle))
			return 1;
	for (size_t i = 0; i < l->n; i++)
		print_message("  have: %s\n", l->items[i]);
	return 0;
}

static json_t *results(const char *name)
{
	json_t *page = fixture(name), *objects = json_array();
	struct br_err err = { 0 };
	char *next = (char *)"unset";

	assert_int_equal(stg_netbox_page_take("fixture", page, objects, &next, &err), 0);
	assert_null(next);
	json_decref(page);
	return objects;
}

static const struct stg_netbox_options defaults = { .url = "https://netbox.example.net/" };

static void test_devices_to_rows(void **state)
{
	json_t *devices = results("devices.json");
	struct stg_manifest m = { 0 };
	struct br_strlist problems = { 0 };
	struct br_err err = { 0 };

	(void)state;
	assert_int_equal(stg_netbox_devices_map(devices, &defaults, &m, &problems), BR_E_INVAL);
	assert_int_equal(m.n, 5);
	/* A whole position, an IPv4 OOB IP without its prefix length. */
	assert_string_equal(m.rows[0].hostname, "gpu-r07-u03");
	assert_string_equal(m.rows[0].rack, "r07");
	assert_int_equal(m.rows[0].unit, 3);
	assert_string_equal(m.rows[0].bmc, "10.20.7.3");
	assert_string_equal(m.rows[0].serial, "7XQ2K31");
	assert_string_equal(m.rows[0].profile, "xe9680");
	assert_string_equal(m.rows[0].bmc_password, "env:IDRAC_PASSWORD");
	assert_string_equal(m.rows[0].boot_disk_serial, "S6CKNE0W700123");
	assert_null(m.rows[0].bmc_type);
	/* zone and power domain from their custom fields, none where unset */
	assert_string_equal(m.rows[0].zone, "hall-a");
	assert_string_equal(m.rows[0].power_domain, "pdu-r07-a");
	assert_null(m.rows[1].zone);
	assert_null(m.rows[1].power_domain);
	/* IPv6 in brackets, with the port custom field. */
	assert_string_equal(m.rows[1].bmc, "[2001:db8:7::5]:8443");
	/* Each problem names the device and NetBox's field. */
	assert_true(has(&problems, "netbox device 'gpu-r07-u07' (id 103): position: not set"));
	assert_true(
	    has(&problems, "netbox device 'gpu-r07-u09' (id 104): position: 9.5 is not a whole rack unit"));
	assert_true(has(&problems, "netbox device 'gpu-r07-u09' (id 104): oob_ip: not set"));
	assert_true(has(&problems,
			"netbox device 'gpu-r07-u11' (id 105): custom_fields.bringup_profile: not a "
			"text value"));
	assert_int_equal(problems.n, 4);
	br_strlist_release(&problems);
	/* The manifest's own checks, in NetBox's words: the literal password,
	 * and the profile the number left missing. */
	assert_int_equal(stg_manifest_check(&m, NULL, &stg_netbox_labels, &problems, &err), BR_E_INVAL);
	assert_true(has(&problems,
			"netbox device 'gpu-r07-u11' (id 105): custom_fields.bringup_bmc_password: a "
			"literal password is refused"));
	assert_true(
	    has(&problems, "netbox device 'gpu-r07-u11' (id 105): custom_fields.bringup_profile: missing"));
	assert_true(has(&problems,
			"netbox device 'gpu-r07-u11' (id 105): custom_fields.bringup_zone: 'hall 7' "
			"is not a zone name"));
	stg_manifest_release(&m);
	br_strlist_release(&problems);

	/* primary_ip instead, and a default profile for a device without one. */
	{
		struct stg_netbox_options o = defaults;

		o.bmc_ip_primary = 1;
		o.profile = "r760xa";
		assert_int_equal(stg_netbox_devices_map(devices, &o, &m, &problems), BR_E_INVAL);
		assert_string_equal(m.rows[0].bmc, "10.30.7.3");
		assert_string_equal(m.rows[3].bmc, "10.30.7.9");
		assert_string_equal(m.rows[0].profile, "xe9680");
		assert_string_equal(m.rows[4].profile, "r760xa");
		assert_true(has(&problems, "(id 102): primary_ip: not set"));
		stg_manifest_release(&m);
		br_strlist_release(&problems);
	}
	json_decref(devices);
}

static void test_cables_to_wiring(void **state)
{
	json_t *devices = results("devices.json"), *cables = results("cables.json");
	struct stg_netbox_import imp = { 0 };
	struct br_strlist problems = { 0 };

	(void)state;
	stg_netbox_devices_map(devices, &defaults, &imp.manifest, &problems);
	stg_netbox_cables_map(cables, &imp.manifest, &imp);
	/* Host to switch from either end, once although listed twice; the
	 * switch-to-switch cable is not the rack's. */
	assert_int_equal(imp.n_wiring, 2);
	assert_string_equal(imp.wiring[0].hostname, "gpu-r07-u03");
	assert_string_equal(imp.wiring[0].host_port, "eno8303");
	assert_string_equal(imp.wiring[0].sw, "leaf-r07");
	assert_string_equal(imp.wiring[0].switch_port, "swp3");
	assert_string_equal(imp.wiring[1].hostname, "gpu-r07-u05");
	assert_string_equal(imp.wiring[1].sw, "leaf-r07");
	assert_string_equal(imp.wiring[1].switch_port, "swp5");
	/* A patch panel is said, not followed. */
	assert_int_equal(imp.warnings.n, 1);
	assert_true(has(&imp.warnings, "netbox cable #503: gpu-r07-u03 eno8403 ends at 1 dcim.frontport"));
	stg_netbox_import_release(&imp);
	br_strlist_release(&problems);
	json_decref(devices);
	json_decref(cables);
}

static void test_page_shape(void **state)
{
	json_t *objects = json_array(), *page;
	struct br_err err = { 0 };
	char *next = NULL;

	(void)state;
	page = json_pack("{s:i, s:s, s:n, s:[{s:i}]}", "count", 3, "next",
			 "https://netbox.example.net/api/dcim/devices/?limit=1&offset=1", "previous",
			 "results", "id", 1);
	assert_int_equal(stg_netbox_page_take("u", page, objects, &next, &err), 0);
	assert_string_equal(next, "https://netbox.example.net/api/dcim/devices/?limit=1&offset=1");
	assert_int_equal(json_array_size(objects), 1);
	free(next);
	json_decref(page);
	/* A single object (a detail URL given by mistake) is not a list. */
	page = json_pack("{s:i, s:s}", "id", 1, "name", "gpu-r07-u03");
	assert_int_equal(stg_netbox_page_take("u", page, objects, &next, &err), BR_E_PROTO);
	assert_non_null(strstr(err.msg, "not a NetBox list"));
	json_decref(page);
	json_decref(objects);
}

static void test_query_check(void **state)
{
	struct br_err err = { 0 };

	(void)state;
	assert_int_equal(stg_netbox_query_check("site=dc1&role=gpu-server&rack_id=17", &err), 0);
	assert_int_equal(stg_netbox_query_check(NULL, &err), 0);
	/* NetBox ignores a filter it does not know: the whole site would come. */
	assert_int_equal(stg_netbox_query_check("site=dc1&rack=r07", &err), BR_E_INVAL);
	assert_non_null(strstr(err.msg, "'rack' is not a device filter"));
	assert_int_equal(stg_netbox_query_check("site", &err), BR_E_INVAL);
	assert_non_null(strstr(err.msg, "'site' is not FILTER=VALUE"));
	assert_int_equal(stg_netbox_query_check("site=", &err), BR_E_INVAL);
}

/* The option block import and export share (stages/netboxopts.h), parsed
 * as their command lines are, into the client's options. */
static void test_netbox_opts(void **state)
{
	struct stg_netbox_opts o = { 0 };
	const struct br_option options[] = { STG_NETBOX_OPTIONS(&o), { 0 } };
	const struct br_command cmd = { "test-netbox", "", "", options, NULL };
	char *argv[] = { "test-netbox",	       "--netbox",	    "https://netbox.example.com/",
			 "--netbox-token",     "env:TEST_NB_TOKEN", "--netbox-query",
			 "site=dc1&rack_id=4", "--netbox-ca-file",  "/etc/nb-ca.pem",
			 "--netbox-insecure" };
	struct stg_netbox_options no = { .bmc_ip_primary = 1 };
	struct br_err err = { 0 };
	int argi = 0;

	(void)state;
	assert_int_equal(br_opt_parse(&cmd, 10, argv, &argi), BR_OPT_OK);
	assert_int_equal(argi, 10);
	unsetenv("TEST_NB_TOKEN");
	assert_int_not_equal(stg_netbox_opts_finish(&o, &err), 0);
	assert_non_null(strstr(err.msg, "--netbox-token: "));
	assert_null(o.token);
	setenv("TEST_NB_TOKEN", "nbt_key.secret", 1);
	assert_int_equal(stg_netbox_opts_finish(&o, &err), 0);
	assert_string_equal(o.token, "nbt_key.secret");
	stg_netbox_opts_apply(&o, &no);
	assert_string_equal(no.url, "https://netbox.example.com/");
	assert_string_equal(no.token, "nbt_key.secret");
	assert_string_equal(no.query, "site=dc1&rack_id=4");
	assert_string_equal(no.ca_file, "/etc/nb-ca.pem");
	assert_int_equal(no.insecure, 1);
	assert_int_equal(no.bmc_ip_primary, 1); /* import's own, left as it was */
	/* A filter NetBox would ignore is refused before the token is read. */
	o.query = "site=dc1&rack=r07";
	stg_netbox_opts_release(&o);
	assert_int_equal(stg_netbox_opts_finish(&o, &err), BR_E_INVAL);
	assert_non_null(strstr(err.msg, "'rack' is not a device filter"));
	assert_null(o.token);
	stg_netbox_opts_release(&o);
	unsetenv("TEST_NB_TOKEN");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_devices_to_rows), cmocka_unit_test(test_cables_to_wiring),
		cmocka_unit_test(test_page_shape),	cmocka_unit_test(test_query_check),
		cmocka_unit_test(test_netbox_opts),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
