/* The active checks' judgement (validators/rules_active.c): dcgmi diag's
 * JSON test by test, ib_write_bw's report against the floor, and what a
 * node without the tool, a run past its limit or output that is not the
 * tool's gives. Inputs are the fixtures of tests/fixtures/active/ (see its
 * README), changed in one place for a fault. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "validators/rules.h"
#include "validators/validators.h"

static char *fixture(const char *rel, size_t *ret_len)
{
	const char *top = getenv("BR_TOP");
	char *path = br_xasprintf("%s/tests/fixtures/%s", top ? top : ".", rel), *text = NULL;
	struct br_err err = { 0 };
	size_t len = 0;

	if (br_read_file(path, 1 << 20, &text, &len, &err))
		fail_msg("%s: %s", path, err.msg);
	free(path);
	if (ret_len)
		*ret_len = len;
	return text;
}

static void profile(struct prof_profile *p, const char *hardware)
{
	struct br_err err = { 0 };

	prof_init(p);
	if (prof_parse_text("hardware.conf", hardware, PROF_FILE_HARDWARE, p, &err))
		fail_msg("profile: %s", err.msg);
}

/* The check the rule gave, with its detail holding each of says. */
static void expect(const struct val_check *c, size_t n, const char *name, enum val_result want,
		   const char *const *says)
{
	assert_int_equal(n, 1);
	assert_string_equal(c[0].name, name);
	if (getenv("RULES_VERBOSE"))
		printf("%s %s: %s\n", c[0].name, val_result_name(c[0].result), c[0].detail);
	if (c[0].result != want)
		fail_msg("%s: %s, want %s: %s", name, val_result_name(c[0].result), val_result_name(want),
			 c[0].detail);
	for (; *says; says++)
		if (!strstr(c[0].detail, *says))
			fail_msg("%s: '%s' not in '%s'", name, *says, c[0].detail);
}

/* NVIDIA's schema for dcgmi diag -j asks for these members; the fixture has them. */
static void assert_dcgm_schema(json_t *doc)
{
	json_t *cat, *test, *res;
	size_t i, k, j;

	assert_non_null(json_object_get(doc, "DCGM Diagnostic"));
	assert_non_null(br_json_str(json_object_get(doc, "metadata"), "version"));
	json_array_foreach(br_json_path(doc, "DCGM Diagnostic/test_categories"), i, cat)
	{
		assert_non_null(br_json_str(cat, "category"));
		json_array_foreach(json_object_get(cat, "tests"), k, test)
		{
			assert_non_null(br_json_str(test, "name"));
			assert_non_null(br_json_str(json_object_get(test, "test_summary"), "status"));
			json_array_foreach(json_object_get(test, "results"), j, res)
			{
				assert_non_null(br_json_str(res, "entity_group"));
				assert_true(json_is_integer(json_object_get(res, "entity_group_id")));
				assert_true(json_is_integer(json_object_get(res, "entity_id")));
				assert_non_null(br_json_str(res, "status"));
			}
		}
	}
}

static json_t *dcgm_doc(void)
{
	size_t len;
	char *text = fixture("active/dcgmi-diag-r2-h100.json", &len);
	json_error_t jerr;
	json_t *doc = json_loadb(text, len, 0, &jerr);

	if (!doc)
		fail_msg("dcgmi-diag-r2-h100.json: %s", jerr.text);
	free(text);
	assert_dcgm_schema(doc);
	return doc;
}

/* A probe document whose nvidia-smi -q -x lists two GPUs (index order). */
static json_t *two_gpus_probe(void)
{
	return json_pack("{s:{s:s, s:[{s:s, s:s}, {s:s, s:s}]}}", "gpus", "status", "ok", "gpus", "bdf",
			 "0000:18:00.0", "serial", "1654522012345", "bdf", "0000:2a:00.0", "serial",
			 "1654522012346");
}

static void judge_dcgm(json_t *doc, int exit_status, enum val_result want, const char *const *says)
{
	struct prof_profile p;
	struct val_check *c = NULL;
	size_t n = 0;
	char *out = doc ? json_dumps(doc, JSON_INDENT(2)) : NULL;
	json_t *probe = two_gpus_probe();
	struct val_active_run r = { .ran = 1,
				    .exit_status = exit_status,
				    .out = out,
				    .out_len = out ? strlen(out) : 0,
				    .err = "",
				    .limit_s = 600 };

	profile(&p, "[active]\ndcgm_diag = 2\n");
	val_judge_dcgm_diag(&p, probe, &r, &c, &n);
	expect(c, n, "dcgm_diag", want, says);
	val_checks_free(c, n);
	json_decref(probe);
	prof_release(&p);
	free(out);
}

static json_t *result_of(json_t *doc, size_t cat, size_t gpu)
{
	return json_array_get(
	    json_object_get(
		json_array_get(json_object_get(json_array_get(br_json_path(doc, "DCGM Diagnostic/"
										"test_categories"),
							      cat),
					       "tests"),
			       0),
		"results"),
	    gpu);
}

static void test_dcgm_pass(void **state)
{
	json_t *doc = dcgm_doc();
	const char *says[] = { "dcgmi diag -r 2 -j: 3 tests, 6 results passed (0 warned, 0 skipped)", NULL };

	(void)state;
	judge_dcgm(doc, 0, VAL_PASS, says);
	json_decref(doc);
}

/* The memory test failing on GPU 1, with DCGM's warning (dcgmi exits 226 then). */
static void test_dcgm_memory_fail(void **state)
{
	json_t *doc = dcgm_doc(), *res = result_of(doc, 2, 1);
	const char *says[] = { "test 'memory' failed on GPU 1 (serial 1654522012346) at 0000:2a:00.0",
			       "A memory mismatch was detected on GPU 1", NULL };
	struct prof_profile p;
	struct val_check *c = NULL;
	size_t n = 0;
	char *out;
	json_t *probe = two_gpus_probe();
	struct val_active_run r = { .ran = 1, .exit_status = 226, .err = "", .limit_s = 600 };

	(void)state;
	json_object_set_new(res, "status", json_string("Fail"));
	json_object_set_new(res, "warnings",
			    json_pack("[{s:i, s:i, s:i, s:s}]", "error_category", 3, "error_id", 64,
				      "error_severity", 4, "warning",
				      "A memory mismatch was detected on GPU 1, but no error was reported by "
				      "CUDA or NVML."));
	out = json_dumps(doc, 0);
	r.out = out;
	r.out_len = strlen(out);
	profile(&p, "[active]\ndcgm_diag = 2\n");
	val_judge_dcgm_diag(&p, probe, &r, &c, &n);
	expect(c, n, "dcgm_diag", VAL_FAIL, says);
	assert_string_equal(c[0].component, "pci:0000:2a:00.0");
	val_checks_free(c, n);
	prof_release(&p);
	json_decref(probe);
	json_decref(doc);
	free(out);
}

/* DCGM 3.x: "DCGM GPU Diagnostic", results by gpu_ids (a string). */
static void test_dcgm_3x_shape(void **state)
{
	json_t *doc = dcgm_doc(), *root = json_object_get(doc, "DCGM Diagnostic"), *res;
	const char *says[] = { "test 'pcie' failed on GPU 0 (serial 1654522012345) at 0000:18:00.0", NULL };

	(void)state;
	json_incref(root);
	json_object_del(doc, "DCGM Diagnostic");
	json_object_del(doc, "entity_groups");
	json_object_set_new(doc, "DCGM GPU Diagnostic", root);
	res = json_array_get(
	    json_object_get(
		json_array_get(
		    json_object_get(json_array_get(json_object_get(root, "test_categories"), 1), "tests"), 0),
		"results"),
	    0);
	json_object_del(res, "entity_id");
	json_object_del(res, "entity_group");
	json_object_set_new(res, "gpu_ids", json_string("0"));
	json_object_set_new(res, "status", json_string("Fail"));
	judge_dcgm(doc, 226, VAL_FAIL, says);
	json_decref(doc);
}

static void test_dcgm_not_installed(void **state)
{
	const char *says[] = { "dcgmi is not installed on the node (exit 127", "dcgmi: command not found",
			       "bringup installs nothing", NULL };
	struct prof_profile p;
	struct val_check *c = NULL;
	size_t n = 0;
	struct val_active_run r = { .ran = 1,
				    .exit_status = 127,
				    .out = "",
				    .err = "bash: line 1: dcgmi: command not found\n",
				    .limit_s = 600 };

	(void)state;
	profile(&p, "[active]\ndcgm_diag = 2\n");
	val_judge_dcgm_diag(&p, NULL, &r, &c, &n);
	expect(c, n, "dcgm_diag", VAL_UNKNOWN, says);
	val_checks_free(c, n);
	prof_release(&p);
}

static void test_dcgm_past_limit_and_garbage(void **state)
{
	const char *limit[] = { "did not finish within its time limit of 90 s", "dcgm_diag_time_limit",
				NULL };
	const char *garbage[] = { "not DCGM's JSON", "Error: unable to establish a connection", NULL };
	struct prof_profile p;
	struct val_check *c = NULL;
	size_t n = 0;
	struct val_active_run r = { .ran = 0, .past_limit = 1, .limit_s = 90 };

	(void)state;
	profile(&p, "[active]\ndcgm_diag = 2\ndcgm_diag_time_limit = 90s\n");
	val_judge_dcgm_diag(&p, NULL, &r, &c, &n);
	expect(c, n, "dcgm_diag", VAL_UNKNOWN, limit);
	val_checks_free(c, n);
	c = NULL;
	n = 0;
	r = (struct val_active_run){
		.ran = 1,
		.exit_status = 255,
		.out = "",
		.err = "Error: unable to establish a connection to the specified host: localhost\n",
		.limit_s = 90
	};
	val_judge_dcgm_diag(&p, NULL, &r, &c, &n);
	expect(c, n, "dcgm_diag", VAL_UNKNOWN, garbage);
	val_checks_free(c, n);
	prof_release(&p);
}

static void judge_bw(const char *out, const char *hardware, enum val_result want, const char *const *says)
{
	struct prof_profile p;
	struct val_check *c = NULL;
	size_t n = 0;
	struct val_active_run r = { .ran = 1, .out = out, .out_len = strlen(out), .err = "", .limit_s = 60 };

	profile(&p, hardware);
	val_judge_rdma_bw(&p, "mlx5_0 to mlx5_1", &r, &c, &n);
	expect(c, n, "rdma_bw", want, says);
	val_checks_free(c, n);
	prof_release(&p);
}

static void test_rdma_bw(void **state)
{
	char *out = fixture("active/ib_write_bw-report-gbits.txt", NULL), *fast, *mb;
	const char *slow[] = { "ib_write_bw mlx5_0 to mlx5_1: 0.48 Gb/s average, expected 350 Gb/s or more",
			       NULL };
	const char *fine[] = { "391.20 Gb/s average, at least 350 Gb/s", NULL };
	const char *unit[] = { "no \"BW average[Gb/sec]\" result", NULL };
	char *at;

	(void)state;
	judge_bw(out, "[active]\nrdma_bw_gbps = 350\n", VAL_FAIL, slow);
	fast = br_xstrdup(out);
	at = strstr(fast, "0.48   ");
	assert_non_null(at);
	memcpy(at - 2, "391.20", 6);
	judge_bw(fast, "[active]\nrdma_bw_gbps = 350\n", VAL_PASS, fine);
	/* Without --report_gbits the columns are MB/sec: not the unit judged. */
	mb = br_xstrdup(out);
	at = strstr(mb, "BW average[Gb/sec]");
	memcpy(at + 11, "MB/sec", 6);
	judge_bw(mb, "[active]\nrdma_bw_gbps = 350\n", VAL_UNKNOWN, unit);
	free(out);
	free(fast);
	free(mb);
}

static void test_expected(void **state)
{
	struct prof_profile p;
	struct br_strlist names = { 0 };
	int dcgm = 0, bw = 0;

	(void)state;
	profile(&p, "[active]\ndcgm_diag = 1\nrdma_bw_gbps = 350\n");
	val_checks_expected(&p, &names);
	for (size_t i = 0; i < names.n; i++) {
		dcgm |= !strcmp(names.items[i], "dcgm_diag");
		bw |= !strcmp(names.items[i], "rdma_bw");
	}
	assert_true(dcgm && bw);
	br_strlist_release(&names);
	prof_release(&p);
	{
		struct br_err err = { 0 };

		prof_init(&p);
		assert_int_not_equal(prof_parse_text("hardware.conf", "[active]\ndcgm_diag = 5\n",
						     PROF_FILE_HARDWARE, &p, &err),
				     0);
		assert_non_null(strstr(
		    err.msg, "hardware.conf:2: active.dcgm_diag: '5' is not a dcgmi diag run level (1-4)"));
		prof_release(&p);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dcgm_pass),
		cmocka_unit_test(test_dcgm_memory_fail),
		cmocka_unit_test(test_dcgm_3x_shape),
		cmocka_unit_test(test_dcgm_not_installed),
		cmocka_unit_test(test_dcgm_past_limit_and_garbage),
		cmocka_unit_test(test_rdma_bw),
		cmocka_unit_test(test_expected),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
