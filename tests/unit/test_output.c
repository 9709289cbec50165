/* Unit tests for what the operator reads (issue 28 point C): the progress
 * line (stage, done/failed/left, the nodes out longest, an ETA only when
 * one means something), text cut to the terminal, tables fitted to it,
 * and "did you mean". Times are given, never waited for. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common.h"

static char names[64][16];

/* 64 nodes, started at 0; the first 63 done one every 50 ms. */
static void rack_of_64(struct br_progress *p, size_t n_done)
{
	memset(p, 0, sizeof(*p));
	p->label = "discover";
	p->total = 64;
	for (size_t i = 0; i < 64; i++) {
		snprintf(names[i], sizeof(names[i]), "gpu-%02zu", i);
		br_progress_item(p, i, names[i]);
		p->started_ms[i] = 0;
	}
	for (size_t i = 0; i < n_done; i++) {
		p->started_ms[i] = -1;
		p->done++;
		p->last_done_ms = (int64_t)(i + 1) * 50;
	}
}

static char *line_at(const struct br_progress *p, int64_t now_ms, size_t columns)
{
	struct br_buf b;
	char *s;

	br_buf_init(&b, 0);
	br_progress_format(p, now_ms, columns, &b);
	s = br_xstrdup(br_buf_str(&b));
	br_buf_release(&b);
	return s;
}

static void test_progress_names_the_stragglers(void **state)
{
	struct br_progress p;
	char *s;

	(void)state;
	rack_of_64(&p, 63);
	p.failed = 2;
	/* Just after the 63rd: still finishing, so an ETA. */
	s = line_at(&p, 3200, 0);
	assert_non_null(strstr(s, "discover  63/64 done  2 failed  1 left: gpu-63 (4s)"));
	assert_non_null(strstr(s, "ETA "));
	free(s);
	/* A minute on, nothing more finished: the straggler named with how
	 * long it has been out, and no ETA ("63/64 ETA 1s" for 60 s before). */
	s = line_at(&p, 63150, 0);
	assert_non_null(strstr(s, "1 left: gpu-63 (64s)"));
	assert_null(strstr(s, "ETA"));
	assert_non_null(strstr(s, "nothing finished for 60s"));
	free(s);
	br_progress_release(&p);
}

static void test_progress_longest_out_first(void **state)
{
	struct br_progress p;
	char *s;

	(void)state;
	rack_of_64(&p, 10);
	/* Of the 54 out, three started earliest: 40, then 12, then 30. */
	for (size_t i = 10; i < 64; i++)
		p.started_ms[i] = 1000;
	p.started_ms[30] = 300;
	p.started_ms[12] = 200;
	p.started_ms[40] = 100;
	s = line_at(&p, 2000, 0);
	assert_non_null(strstr(s, "54 left: gpu-40 (2s), gpu-12 (2s), gpu-30 (2s) +51 more"));
	free(s);
	br_progress_release(&p);
}

static void test_progress_eta_only_when_meaningful(void **state)
{
	struct br_progress p;
	char *s;

	(void)state;
	rack_of_64(&p, 0);
	s = line_at(&p, 500, 0);
	assert_null(strstr(s, "ETA")); /* nothing done: no rate to go by */
	free(s);
	br_progress_release(&p);
	/* Finished, nothing left: no ETA and nobody named. */
	rack_of_64(&p, 64);
	s = line_at(&p, 4000, 0);
	assert_string_equal(s, "discover  64/64 done");
	free(s);
	br_progress_release(&p);
	/* Unnamed items (a caller that only counts) still get counts. */
	memset(&p, 0, sizeof(p));
	p.label = "gate";
	p.total = 4;
	p.done = 2;
	p.last_done_ms = 100;
	s = line_at(&p, 150, 0);
	assert_string_equal(s, "gate  2/4 done  2 left  ETA 1s");
	free(s);
}

static void test_progress_fits_the_terminal(void **state)
{
	struct br_progress p;
	char *s;

	(void)state;
	setenv("LANG", "C", 1);
	rack_of_64(&p, 10);
	s = line_at(&p, 2000, 40);
	assert_int_equal(strlen(s), 39);
	assert_string_equal(s + 36, "...");
	free(s);
	br_progress_release(&p);
}

static void test_text_cut(void **state)
{
	char *s;

	(void)state;
	setenv("LANG", "C", 1);
	s = br_text_cut("gpu-r01-u03 failed: BMC unreachable", 12);
	assert_string_equal(s, "gpu-r01-u...");
	free(s);
	s = br_text_cut("short", 12);
	assert_string_equal(s, "short");
	free(s);
	setenv("LANG", "en_US.UTF-8", 1);
	/* UTF-8: whole characters, "…" one column. */
	s = br_text_cut("caf\xc3\xa9 cr\xc3\xa8me br\xc3\xbbl\xc3\xa9"
			"e",
			7);
	assert_string_equal(s, "caf\xc3\xa9 c\xe2\x80\xa6");
	assert_int_equal(br_text_columns(s), 7);
	free(s);
	unsetenv("LANG");
}

static void test_term_columns(void **state)
{
	(void)state;
	setenv("COLUMNS", "72", 1);
	assert_int_equal(br_term_columns(-1), 72);
	setenv("COLUMNS", "wide", 1);
	assert_int_equal(br_term_columns(-1), 0); /* not a number, not a terminal */
	unsetenv("COLUMNS");
}

static void test_table_fit(void **state)
{
	static const char *const headers[] = { "HOSTNAME", "STATE", "REASON" };
	char long_reason[1200];
	struct br_table t;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	setenv("LANG", "C", 1);
	memset(long_reason, 'x', sizeof(long_reason) - 1);
	long_reason[sizeof(long_reason) - 1] = '\0';
	br_table_init(&t, 3, headers);
	br_table_add(&t, (const char *const[]){ "gpu-r01-u03", "failed", long_reason });
	br_table_add(&t, (const char *const[]){ "gpu-r01-u05", "golden", NULL });
	f = open_memstream(&buf, &len);
	br_table_print_fit(&t, 60, f);
	fclose(f);
	/* Every line within 60 columns, the long reason cut with "...". */
	for (char *line = buf, *nl; (nl = strchr(line, '\n')); line = nl + 1) {
		assert_true((size_t)(nl - line) <= 60);
		if (!strncmp(line, "gpu-r01-u03", 11)) {
			assert_int_equal(nl - line, 60);
			assert_memory_equal(nl - 3, "...", 3);
		}
	}
	assert_non_null(strstr(buf, "gpu-r01-u05  golden  -\n"));
	free(buf);
	/* CSV: every byte of every cell, quoted by libcsv. */
	buf = NULL;
	f = open_memstream(&buf, &len);
	br_table_print_csv(&t, f);
	fclose(f);
	assert_true(strlen(buf) > 1200);
	assert_non_null(strstr(buf, "\"HOSTNAME\",\"STATE\",\"REASON\"\n\"gpu-r01-u03\",\"failed\",\"xxx"));
	free(buf);
	br_table_release(&t);
}

static void test_did_you_mean(void **state)
{
	static const char *const opts[] = { "json", "db", "verbose", "quiet", "force", "manifest" };

	(void)state;
	assert_string_equal(br_did_you_mean("jsno", opts, 6), "json");
	assert_string_equal(br_did_you_mean("manfest", opts, 6), "manifest");
	assert_string_equal(br_did_you_mean("verbse", opts, 6), "verbose");
	assert_null(br_did_you_mean("zzzzzz", opts, 6));
	assert_null(br_did_you_mean("x", opts, 6)); /* one letter is no evidence */
}

/* run and controller pass their options on, and set their own logging
 * from the common flags among them. */
static void test_opt_log_level(void **state)
{
	char *plain[] = { "run", "--wiring", "w.csv" };
	char *v[] = { "run", "-v", "--max-resets", "1" };
	char *vv[] = { "run", "-vv" };
	char *twice[] = { "run", "--verbose", "-v" };
	char *q[] = { "run", "-v", "--quiet" };
	char *cluster[] = { "run", "-qv" };
	char *after[] = { "run", "--", "-vv" };
	char *valued[] = { "run", "-vk" };

	(void)state;
	br_opt_log_level(3, plain);
	assert_int_equal(br_log_get_level(), BR_LOG_WARN);
	br_opt_log_level(4, v);
	assert_int_equal(br_log_get_level(), BR_LOG_INFO);
	br_opt_log_level(2, vv);
	assert_int_equal(br_log_get_level(), BR_LOG_DEBUG);
	br_opt_log_level(3, twice);
	assert_int_equal(br_log_get_level(), BR_LOG_DEBUG);
	br_opt_log_level(3, q);
	assert_int_equal(br_log_get_level(), BR_LOG_ERROR);
	br_opt_log_level(2, cluster);
	assert_int_equal(br_log_get_level(), BR_LOG_ERROR);
	br_opt_log_level(3, after);
	assert_int_equal(br_log_get_level(), BR_LOG_WARN);
	br_opt_log_level(2, valued);
	assert_int_equal(br_log_get_level(), BR_LOG_WARN);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_progress_names_the_stragglers),
		cmocka_unit_test(test_progress_longest_out_first),
		cmocka_unit_test(test_progress_eta_only_when_meaningful),
		cmocka_unit_test(test_progress_fits_the_terminal),
		cmocka_unit_test(test_text_cut),
		cmocka_unit_test(test_term_columns),
		cmocka_unit_test(test_table_fit),
		cmocka_unit_test(test_did_you_mean),
		cmocka_unit_test(test_opt_log_level),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
