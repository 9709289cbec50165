/* Unit tests for bringup-probe's parsers and collectors over real captures
 * (tests/fixtures/hw/h200-vm, tests/fixtures/probe; their READMEs say where
 * each came from). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common.h"
#include "validators/probe_private.h"

static char *fixture_path(const char *name)
{
	const char *top = getenv("BR_TOP");

	return br_xasprintf("%s/tests/fixtures/%s", top ? top : ".", name);
}

static char *fixture(const char *name, size_t *ret_len)
{
	char *path = fixture_path(name);
	char *data = NULL;

	if (br_read_file(path, 64 << 20, &data, ret_len, NULL))
		fail_msg("cannot read fixture %s (is BR_TOP set?)", path);
	free(path);
	return data;
}

static void test_nvsmi_h200(void **state)
{
	struct br_err err = { 0 };
	json_t *s = NULL, *gpu;
	size_t len;
	char *xml = fixture("hw/h200-vm/nvidia-smi-q.xml", &len);

	(void)state;
	assert_int_equal(val_nvsmi_parse(xml, len, &s, &err), 0);
	assert_int_equal(br_json_int(s, "count", -1), 1);
	assert_string_equal(br_json_str(s, "driver_version"), "580.159.04");
	gpu = json_array_get(json_object_get(s, "gpus"), 0);
	assert_string_equal(br_json_str(gpu, "bus_id"), "00000000:00:06.0");
	assert_string_equal(br_json_str(gpu, "bdf"), "0000:00:06.0");
	assert_string_equal(br_json_str(gpu, "serial"), "1654024028695");
	assert_string_equal(br_json_str(gpu, "uuid"), "GPU-ace3bc9e-ca69-fbae-0685-8ffdb5391f18");
	assert_int_equal(br_json_int(gpu, "pcie/gen_current", -1), 5);
	assert_int_equal(br_json_int(gpu, "pcie/gen_max", -1), 5);
	assert_int_equal(br_json_int(gpu, "pcie/width_current", -1), 16);
	assert_int_equal(br_json_int(gpu, "pcie/width_max", -1), 16);
	/* "N/A" is null, never 0. */
	assert_true(json_is_null(br_json_path(gpu, "pcie/gen_max_host")));
	assert_true(json_is_null(br_json_path(gpu, "retired_pages/double_bit")));
	assert_int_equal(br_json_int(gpu, "temperature_c", -1), 38);
	assert_true(br_json_num(gpu, "power_draw_w", 0) > 83.4 && br_json_num(gpu, "power_draw_w", 0) < 83.5);
	assert_string_equal(br_json_str(gpu, "ecc_mode/current"), "Enabled");
	assert_int_equal(br_json_int(gpu, "remapped_rows/remapped_row_unc", -1), 0);
	assert_string_equal(br_json_str(gpu, "remapped_rows/remapped_row_failure"), "No");
	assert_int_equal(br_json_int(gpu, "ecc_errors/aggregate/dram_uncorrectable", -1), 0);
	json_decref(s);
	free(xml);
}

static void test_nvsmi_bad(void **state)
{
	struct br_err err = { 0 };
	json_t *s = NULL;

	(void)state;
	assert_int_equal(val_nvsmi_parse("<nvidia_smi_log><gpu>", 21, &s, &err), BR_E_PROTO);
	assert_non_null(strstr(err.msg, "nvidia-smi -q -x: not XML: line 1"));
	assert_null(s);
	assert_int_equal(val_nvsmi_parse("", 0, &s, &err), BR_E_PROTO);
	assert_int_equal(val_nvsmi_parse("<x/>", 4, &s, &err), BR_E_PROTO);
	assert_non_null(strstr(err.msg, "root element is <x>"));
	/* Readings no integer can hold, or no number at all (fuzz_nvsmi found
	 * "3e57" converted to long long, undefined): a real, or null. */
	{
		static const char odd[] =
		    "<nvidia_smi_log><attached_gpus>1</attached_gpus><gpu id=\"00000000:00:06.0\">"
		    "<temperature><gpu_temp>3e57 C</gpu_temp><memory_temp>nan C</memory_temp>"
		    "</temperature></gpu></nvidia_smi_log>";
		json_t *gpu;

		assert_int_equal(val_nvsmi_parse(odd, sizeof(odd) - 1, &s, &err), 0);
		gpu = json_array_get(json_object_get(s, "gpus"), 0);
		assert_true(json_is_real(br_json_path(gpu, "temperature_c")));
		assert_true(json_is_null(br_json_path(gpu, "memory_temperature_c")));
		json_decref(s);
	}
}

static void test_lldp(void **state)
{
	struct br_err err = { 0 };
	json_t *n = NULL, *first;
	size_t len;
	char *xml = fixture("probe/lldp/lldpctl-two-ports.xml", &len);

	(void)state;
	assert_int_equal(val_lldp_parse(xml, len, &n, &err), 0);
	assert_int_equal(json_array_size(n), 2);
	first = json_array_get(n, 0);
	assert_string_equal(br_json_str(first, "local_port"), "veth-h1");
	assert_string_equal(br_json_str(first, "chassis_id"), "f6:78:9a:5c:02:43");
	assert_string_equal(br_json_str(first, "chassis_id_type"), "mac");
	assert_string_equal(br_json_str(first, "system_name"), "switch01");
	assert_string_equal(br_json_str(first, "port_id"), "swp1");
	assert_string_equal(br_json_str(first, "port_id_type"), "ifname");
	assert_string_equal(br_json_str(first, "port_description"), "uplink to node1");
	assert_int_equal(json_array_size(json_object_get(first, "mgmt_ip")), 1);
	assert_string_equal(br_json_str(json_array_get(n, 1), "port_id"), "swp2");
	json_decref(n);
	free(xml);

	xml = fixture("probe/lldp/lldpctl-no-neighbors.xml", &len);
	assert_int_equal(val_lldp_parse(xml, len, &n, &err), 0);
	assert_int_equal(json_array_size(n), 0);
	json_decref(n);
	free(xml);

	n = NULL;
	xml = fixture("probe/lldp/garbage-truncated.xml", &len);
	assert_int_equal(val_lldp_parse(xml, len, &n, &err), BR_E_PROTO);
	assert_non_null(strstr(err.msg, "lldpctl -f xml: not XML: line 8"));
	assert_null(n);
	free(xml);
}

/* lldpctl's three outputs of the same neighbours, captured together
 * (tests/fixtures/probe/README.md): -f json and -f json0 give exactly what
 * -f xml gives (their age aside: each read its own second); one neighbour
 * is -f json's single-object shape. */
static void test_lldp_json(void **state)
{
	static const char *const files[] = { "probe/lldp/lldpctl-two-ports.json",
					     "probe/lldp/lldpctl-two-ports.json0" };
	struct br_err err = { 0 };
	json_t *want = NULL, *got = NULL;
	size_t len, i;
	char *text = fixture("probe/lldp/lldpctl-two-ports-netns.xml", &len);
	json_t *v;

	(void)state;
	assert_int_equal(val_lldp_parse(text, len, &want, &err), 0);
	free(text);
	assert_int_equal(json_array_size(want), 2);
	json_array_foreach(want, i, v) json_object_del(v, "age");
	assert_string_equal(br_json_str(json_array_get(want, 1), "local_port"), "enp60s0np0");
	assert_string_equal(br_json_str(json_array_get(want, 1), "system_name"), "leaf-su01-rail1");
	assert_string_equal(br_json_str(json_array_get(want, 1), "port_id"), "swp2");
	for (size_t f = 0; f < 2; f++) {
		text = fixture(files[f], &len);
		assert_int_equal(val_lldp_parse_json(text, len, &got, &err), 0);
		free(text);
		json_array_foreach(got, i, v) json_object_del(v, "age");
		if (!json_equal(got, want)) {
			char *a = json_dumps(got, JSON_COMPACT), *b = json_dumps(want, JSON_COMPACT);

			fail_msg("%s: %s\nwant %s", files[f], a, b);
		}
		json_decref(got);
	}
	text = fixture("probe/lldp/lldpctl-one-port.json", &len);
	assert_int_equal(val_lldp_parse_json(text, len, &got, &err), 0);
	free(text);
	assert_int_equal(json_array_size(got), 1);
	json_object_del(json_array_get(got, 0), "age");
	assert_true(json_equal(json_array_get(got, 0), json_array_get(want, 0)));
	json_decref(got);
	json_decref(want);
	got = NULL;
	assert_int_equal(val_lldp_parse_json("{\"lldp\": 3}", strlen("{\"lldp\": 3}"), &got, &err),
			 BR_E_PROTO);
	assert_non_null(strstr(err.msg, "no \"lldp\" member"));
	assert_null(got);
}

/* Carrier changes as mlx5e prints them (netdev_info: "DRIVER BUS IFNAME:
 * Link down"), in dmesg's and in kern.log's form: down time is summed from
 * each down to the next up, a link still down counts to the log's end. */
static void test_dmesg_link_flaps(void **state)
{
	static const char log[] =
	    "[    5.101000] mlx5_core 0000:1a:00.0 enp26s0np0: Link up\n"
	    "[  100.000000] mlx5_core 0000:1a:00.0 enp26s0np0: Link down\n"
	    "[  112.500000] mlx5_core 0000:1a:00.0 enp26s0np0: Link up\n"
	    "Dec  2 04:00:00 gpu01 kernel: [  200.000000] mlx5_core 0000:3c:00.0 enp60s0np0: Link down\n"
	    "Dec  2 04:00:30 gpu01 kernel: [  230.000000] mlx5_core 0000:3c:00.0 enp60s0np0: Link up\n"
	    "[  250.000000] mlx5_core 0000:1a:00.0 enp26s0np0: Link down\n"
	    "[  251.000000] mlx5_core 0000:1a:00.0 enp26s0np0: Link up\n"
	    "[  300.000000] mlx5_core 0000:4d:00.0 enp77s0np0: Link down\n"
	    "[  320.000000] systemd[1]: Started Daily apt upgrade and clean activities.\n";
	json_t *scan = val_dmesg_scan(log, sizeof(log) - 1), *flaps = json_object_get(scan, "link_flaps"), *f;
	size_t i;
	int seen = 0;

	(void)state;
	assert_int_equal(json_array_size(flaps), 3);
	json_array_foreach(flaps, i, f)
	{
		const char *bdf = br_json_str(f, "pci_bdf");

		if (!strcmp(bdf, "0000:1a:00.0")) {
			assert_string_equal(br_json_str(f, "ifname"), "enp26s0np0");
			assert_int_equal(json_integer_value(json_object_get(f, "downs")), 2);
			assert_true(fabs(br_json_num(f, "down_s", -1) - 13.5) < 1e-6);
			assert_false(json_is_true(json_object_get(f, "down_at_end")));
			seen |= 1;
		} else if (!strcmp(bdf, "0000:3c:00.0")) {
			assert_true(fabs(br_json_num(f, "down_s", -1) - 30.0) < 1e-6);
			seen |= 2;
		} else if (!strcmp(bdf, "0000:4d:00.0")) {
			assert_true(json_is_true(json_object_get(f, "down_at_end")));
			assert_true(fabs(br_json_num(f, "down_s", -1) - 20.0) < 1e-6);
			seen |= 4;
		}
	}
	assert_int_equal(seen, 7);
	json_decref(scan);
}

static void test_dmesg(void **state)
{
	size_t len;
	char *text = fixture("probe/dmesg/kern.log", &len);
	json_t *d = val_dmesg_scan(text, len);
	struct br_buf many;

	(void)state;
	assert_int_equal(br_json_int(d, "lines", -1), 14);
	assert_int_equal(br_json_int(d, "counts/pcie_aer", -1), 2);
	assert_int_equal(br_json_int(d, "counts/pcie_link_limited", -1), 1);
	assert_int_equal(br_json_int(d, "counts/nvme_timeout", -1), 1);
	assert_int_equal(br_json_int(d, "counts/nvidia_xid", -1), 1);
	assert_int_equal(br_json_int(d, "counts/thermal_throttle", -1), 1);
	json_decref(d);
	free(text);

	text = fixture("hw/h200-vm/dmesg.txt", &len);
	d = val_dmesg_scan(text, len);
	assert_int_equal(br_json_int(d, "count", -1), 0);
	json_decref(d);
	free(text);

	/* The match list is capped; the count is not. */
	br_buf_init(&many, 0);
	for (int i = 0; i < VAL_DMESG_MATCHES_MAX + 100; i++)
		br_buf_addf(
		    &many,
		    "[ %d.0] NVRM: Xid (PCI:0000:1b:00): 48, pid=1, An uncorrectable double bit error\n", i);
	d = val_dmesg_scan(many.data, many.len);
	assert_int_equal(br_json_int(d, "count", -1), VAL_DMESG_MATCHES_MAX + 100);
	assert_int_equal(json_array_size(json_object_get(d, "matches")), VAL_DMESG_MATCHES_MAX);
	assert_true(json_is_true(json_object_get(d, "truncated")));
	assert_int_equal(br_json_int(json_array_get(json_object_get(d, "matches"), 0), "xid", -1), 48);
	json_decref(d);
	br_buf_release(&many);

	d = val_dmesg_scan(NULL, 0);
	assert_int_equal(br_json_int(d, "lines", -1), 0);
	json_decref(d);
}

static void test_speed_codes(void **state)
{
	(void)state;
	assert_true(val_pcie_speed_gts(1) == 2.5);
	assert_true(val_pcie_speed_gts(4) == 16.0);
	assert_true(val_pcie_speed_gts(5) == 32.0);
	assert_true(val_pcie_speed_gts(6) == 64.0);
	assert_true(val_pcie_speed_gts(0) == 0);
	assert_true(val_pcie_speed_gts(15) == 0);
}

/* The whole probe over the H200's tree: libpci reads the GPU's config
 * space from the fixture's sysfs and finds Gen5 x16. */
static void test_probe_h200_tree(void **state)
{
	char *root = fixture_path("hw/h200-vm");
	struct val_probe_opts opts = { .root = root };
	struct br_err err = { 0 };
	json_t *doc = NULL, *dev;

	(void)state;
	assert_int_equal(val_probe_run(&opts, &doc, &err), 0);
	assert_int_equal(br_json_int(doc, "probe_version", -1), VAL_PROBE_VERSION);
	assert_int_equal(br_json_int(doc, "pcie/count", -1), 1);
	dev = json_array_get(br_json_path(doc, "pcie/devices"), 0);
	assert_string_equal(br_json_str(dev, "bdf"), "0000:00:06.0");
	assert_string_equal(br_json_str(dev, "express/port_type"), "endpoint");
	assert_int_equal(br_json_int(dev, "express/link_status/width", -1), 16);
	assert_int_equal(br_json_int(dev, "express/link_cap/speed_code", -1), 5);
	assert_true(br_json_num(dev, "link/speed_current_gts", 0) == 32.0);
	assert_true(json_is_true(br_json_path(dev, "link/sysfs_agrees")));
	assert_string_equal(br_json_str(doc, "gpus/status"), "skipped");
	/* Its network interfaces: eth0, a virtio NIC on PCI function
	 * 0000:00:03.0; lo and ifb0 are no devices. */
	assert_int_equal(json_array_size(br_json_path(doc, "net/interfaces")), 1);
	dev = json_array_get(br_json_path(doc, "net/interfaces"), 0);
	assert_string_equal(br_json_str(dev, "ifname"), "eth0");
	assert_string_equal(br_json_str(dev, "device"), "virtio2");
	assert_string_equal(br_json_str(dev, "pci_bdf"), "0000:00:03.0");
	assert_string_equal(br_json_str(dev, "address"), "02:fc:00:00:00:01");
	assert_string_equal(br_json_str(dev, "operstate"), "up");
	json_decref(doc);
	free(root);

	opts.root = "/nonexistent-root-for-probe";
	assert_int_equal(val_probe_run(&opts, &doc, &err), BR_E_INVAL);
	assert_non_null(strstr(err.msg, "/nonexistent-root-for-probe"));
}

/* Tools run without a shell, killed at the deadline, capped, and their own
 * words kept for the message. */
static void test_exec(void **state)
{
	static const char *const sleeper[] = { "sleep", "5", NULL };
	static const char *const missing[] = { "no-such-tool-for-probe", NULL };
	static const char *const failing[] = { "sh", "-c", "echo driver not loaded; exit 3", NULL };
	static const char *const chatty[] = { "yes", NULL };
	static const char *const ok[] = { "printf", "a b", NULL };
	struct br_err err = { 0 };
	char *out = NULL;
	size_t len = 0;
	int64_t start = br_now_ms();

	(void)state;
	assert_int_equal(val_exec(sleeper, 200, 1024, &out, &len, &err), BR_E_TIMEOUT);
	assert_true(br_now_ms() - start < 2000);
	assert_non_null(strstr(err.msg, "sleep: no answer within 200 ms"));
	assert_int_equal(val_exec(missing, 1000, 1024, &out, &len, &err), BR_E_NOTFOUND);
	assert_non_null(strstr(err.msg, "not installed"));
	assert_int_equal(val_exec(failing, 5000, 1024, &out, &len, &err), BR_E_IO);
	assert_string_equal(err.msg, "sh: exited with status 3: driver not loaded");
	assert_int_equal(val_exec(chatty, 5000, 1000, &out, &len, &err), BR_E_TOOBIG);
	assert_int_equal(val_exec(ok, 5000, 1024, &out, &len, &err), 0);
	assert_string_equal(out, "a b");
	assert_int_equal(len, 3);
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nvsmi_h200),
		cmocka_unit_test(test_nvsmi_bad),
		cmocka_unit_test(test_lldp),
		cmocka_unit_test(test_lldp_json),
		cmocka_unit_test(test_dmesg_link_flaps),
		cmocka_unit_test(test_dmesg),
		cmocka_unit_test(test_speed_codes),
		cmocka_unit_test(test_probe_h200_tree),
		cmocka_unit_test(test_exec),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
