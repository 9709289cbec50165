/*
 * The MAAS client's parsers (maas/machine.c) fed answers shaped exactly as
 * MAAS's published API examples (canonical/maas,
 * src/maasserver/api/examples/, one .json per handler): the fixtures under
 * tests/fixtures/maas/ follow them field for field, nulls included (its
 * README names the example each follows). What the parsers read must come
 * out; what MAAS leaves null must read as absent, not as a crash or "".
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common.h"
#include "maas/maas.h"

static json_t *fixture(const char *name)
{
	const char *top = getenv("BR_TOP");
	char *path = br_xasprintf("%s/tests/fixtures/maas/%s", top ? top : ".", name);
	json_error_t jerr;
	json_t *doc = json_load_file(path, 0, &jerr);

	if (!doc)
		fail_msg("%s: %s (line %d)", path, jerr.text, jerr.line);
	free(path);
	return doc;
}

/* machines.json "machines-update": an Allocated machine. */
static void test_machine_allocated(void **state)
{
	json_t *doc = fixture("machine-allocated.json");
	struct maas_machine m = { 0 };
	struct br_err err = { 0 };

	(void)state;
	assert_int_equal(maas_machine_parse(doc, &m, &err), 0);
	assert_string_equal(m.system_id, "k7p2xq");
	/* MAAS splits an FQDN: hostname the first label, fqdn the whole */
	assert_string_equal(m.hostname, "gpu-r01-u03");
	assert_string_equal(m.fqdn, "gpu-r01-u03.lab.example");
	assert_int_equal(m.status, MAAS_ALLOCATED);
	assert_string_equal(m.status_name, "Allocated");
	assert_string_equal(maas_status_name(m.status), m.status_name);
	assert_string_equal(m.status_message, "Allocated to bringup");
	/* the boot disk is an object of its own, its serial as the OS sees it */
	assert_string_equal(m.boot_disk_serial, "BOSS0A1B2C3D4E5F");
	assert_null(m.ip); /* ip_addresses: [] */
	assert_string_equal(m.power_state, "off");
	assert_int_equal(m.macs.n, 2);
	assert_string_equal(m.macs.items[0], "b0:7b:25:de:ad:01");
	assert_string_equal(m.macs.items[1], "a0:88:c2:12:34:56");
	assert_int_equal(m.tags.n, 2);
	assert_string_equal(m.tags.items[0], "bringup-golden");
	maas_machine_release(&m);
	json_decref(doc);
}

/* The same shape before commissioning: MAAS's nulls. */
static void test_machine_new(void **state)
{
	json_t *doc = fixture("machine-new.json");
	struct maas_machine m = { 0 };
	struct br_err err = { 0 };

	(void)state;
	assert_int_equal(maas_machine_parse(doc, &m, &err), 0);
	assert_int_equal(m.status, MAAS_NEW);
	assert_string_equal(maas_status_name(m.status), "New");
	assert_null(m.status_message);	 /* null */
	assert_null(m.boot_disk_serial); /* boot_disk: null */
	assert_string_equal(m.fqdn, "gpu-r01-u10.maas");
	/* MAAS writes MACs as given; the bond's mac_address is null */
	assert_int_equal(m.macs.n, 1);
	assert_string_equal(m.macs.items[0], "b0:7b:25:de:ad:10");
	assert_int_equal(m.tags.n, 0);
	maas_machine_release(&m);
	json_decref(doc);
}

/* machines.json "blockdevice_set" entries, as nodes/{id}/blockdevices/ lists them. */
static void test_blockdevices(void **state)
{
	json_t *doc = fixture("blockdevices.json");
	struct maas_blockdevice *devs = NULL;
	struct br_err err = { 0 };
	size_t n = 0;

	(void)state;
	assert_int_equal(maas_blockdevices_parse(doc, &devs, &n, &err), 0);
	assert_int_equal(n, 2);
	assert_int_equal(devs[0].id, 41);
	assert_string_equal(devs[0].name, "sda");
	assert_string_equal(devs[0].serial, "BOSS0A1B2C3D4E5F");
	assert_string_equal(devs[0].model, "DELLBOSS VD");
	assert_string_equal(devs[0].id_path, "/dev/disk/by-id/ata-DELLBOSS_VD_BOSS0A1B2C3D4E5F");
	assert_true(devs[0].size == 479559942144ULL);
	assert_int_equal(devs[1].id, 42);
	assert_string_equal(devs[1].serial, "S6EWNE0R812345");
	assert_null(devs[1].id_path); /* null */
	assert_true(devs[1].size == 7681501126656ULL);
	maas_blockdevices_free(devs, n);
	/* A machine's block devices read the same way from its document. */
	json_decref(doc);
	doc = fixture("machine-allocated.json");
	assert_int_equal(
	    maas_blockdevices_parse(json_object_get(doc, "physicalblockdevice_set"), &devs, &n, &err), 0);
	assert_int_equal(n, 2);
	assert_string_equal(devs[0].serial, "BOSS0A1B2C3D4E5F");
	maas_blockdevices_free(devs, n);
	json_decref(doc);
}

/* events.json "events-query": newest first, MAAS's own created format. */
static void test_events(void **state)
{
	json_t *doc = fixture("events.json");

	(void)state;
	/* the newest failure wins over the older power one */
	assert_string_equal(maas_events_failure(doc), "Script 20-maas-03-machine-resources failed");
	/* with only the older one left, that one, with MAAS's text */
	json_array_remove(json_object_get(doc, "events"), 1);
	assert_non_null(strstr(maas_events_failure(doc), "Aborting COMMISSIONING and reverting to NEW"));
	json_decref(doc);
}

/* tags.json "get-tags": the names MAAS lists are names the client accepts,
 * and a machine's tag_names read as its tags. */
static void test_tags(void **state)
{
	json_t *doc = fixture("tags.json"), *t;
	size_t i;

	(void)state;
	assert_int_equal(json_array_size(doc), 2);
	json_array_foreach(doc, i, t)
	{
		const char *name = br_json_str(t, "name");
		const char *uri = br_json_str(t, "resource_uri");

		assert_non_null(name);
		assert_true(maas_tag_name_valid(name));
		assert_non_null(uri);
		assert_non_null(strstr(uri, name));
	}
	assert_false(maas_tag_name_valid("no spaces"));
	json_decref(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_machine_allocated),
		cmocka_unit_test(test_machine_new),
		cmocka_unit_test(test_blockdevices),
		cmocka_unit_test(test_events),
		cmocka_unit_test(test_tags),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
