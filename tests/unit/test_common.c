/* Unit tests for common/ helpers and the manifest address parser. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "stages/manifest.h"
#include "common.h"
#include "http.h"

static void test_mac_normalize(void **state)
{
	char out[18];

	(void)state;
	assert_int_equal(br_mac_normalize("B0:7B:25:DE:AD:01", out), 0);
	assert_string_equal(out, "b0:7b:25:de:ad:01");
	assert_int_equal(br_mac_normalize("b0-7b-25-de-ad-01", out), 0);
	assert_string_equal(out, "b0:7b:25:de:ad:01");
	assert_int_equal(br_mac_normalize("b07b25dead01", out), 0);
	assert_string_equal(out, "b0:7b:25:de:ad:01");
	assert_int_equal(br_mac_normalize("b0:7b:25:de:ad", out), BR_E_INVAL);
	assert_int_equal(br_mac_normalize("b0:7b:25:de:ad:01:02", out), BR_E_INVAL);
	assert_int_equal(br_mac_normalize("b0:7b-25:de:ad:01", out), BR_E_INVAL);
	assert_int_equal(br_mac_normalize("g0:7b:25:de:ad:01", out), BR_E_INVAL);
	assert_int_equal(br_mac_normalize("", out), BR_E_INVAL);
	assert_int_equal(br_mac_normalize(NULL, out), BR_E_INVAL);
}

static void test_buf_cap(void **state)
{
	struct br_buf b;

	(void)state;
	br_buf_init(&b, 8);
	assert_int_equal(br_buf_adds(&b, "12345"), 0);
	assert_int_equal(br_buf_addf(&b, "%d", 678), 0);
	assert_string_equal(br_buf_str(&b), "12345678");
	assert_int_equal(br_buf_adds(&b, "9"), BR_E_TOOBIG);
	assert_string_equal(br_buf_str(&b), "12345678");
	assert_int_equal(b.len, 8);
	br_buf_reset(&b);
	assert_string_equal(br_buf_str(&b), "");
	br_buf_release(&b);
}

static void test_parse_long(void **state)
{
	long v = 7;

	(void)state;
	assert_int_equal(br_parse_long("42", 1, 60, &v), 0);
	assert_int_equal(v, 42);
	assert_int_equal(br_parse_long("61", 1, 60, &v), BR_E_INVAL);
	assert_int_equal(br_parse_long("4x", 1, 60, &v), BR_E_INVAL);
	assert_int_equal(br_parse_long("", 1, 60, &v), BR_E_INVAL);
	assert_int_equal(br_parse_long("99999999999999999999", 0, 10, &v), BR_E_INVAL);
	assert_int_equal(v, 42);
}

static void test_secret_refs(void **state)
{
	struct br_err err = { 0 };
	char *secret = NULL;

	(void)state;
	assert_true(br_secret_ref_valid("env:IDRAC_PW"));
	assert_true(br_secret_ref_valid("file:/etc/pw"));
	assert_false(br_secret_ref_valid("hunter2"));
	assert_false(br_secret_ref_valid("env:"));
	assert_false(br_secret_ref_valid("env:1BAD"));
	assert_false(br_secret_ref_valid("env:A-B"));
	assert_int_equal(br_secret_resolve("calvin", &secret, &err), BR_E_INVAL);
	assert_null(strstr(err.msg, "calvin"));
	setenv("BR_TEST_PW", "s3cret", 1);
	assert_int_equal(br_secret_resolve("env:BR_TEST_PW", &secret, &err), 0);
	assert_string_equal(secret, "s3cret");
	br_secret_free(secret);
	unsetenv("BR_TEST_PW");
	assert_int_equal(br_secret_resolve("env:BR_TEST_PW", &secret, &err), BR_E_NOTFOUND);
	assert_non_null(strstr(err.msg, "BR_TEST_PW"));
	assert_int_equal(br_secret_resolve("file:/nonexistent/pw", &secret, &err), BR_E_NOTFOUND);
	assert_non_null(strstr(err.msg, "/nonexistent/pw"));
}

/* The pre-parse scan counts and never parses: Members elements of the
 * top-level object only, strings opaque (brackets, commas, quotes in them),
 * nesting, and the values a parse would make. */
static void test_json_shape(void **state)
{
	static const char doc[] = "{\"Name\":\"a,[b]\\\"c\",\"Members\":[{\"x\":[1,2]},\"s,t\",{},[[]]],"
				  "\"Oem\":{\"Members\":[1,2,3,4,5]}}";
	struct br_json_shape sh;

	br_json_shape(doc, sizeof(doc) - 1, "Members", &sh);
	assert_int_equal(sh.key_elems, 4);
	assert_int_equal(sh.depth, 4);
	assert_true(sh.values >= 12);
	br_json_shape("{\"Members\":[]}", 14, "Members", &sh);
	assert_int_equal(sh.key_elems, 0);
	br_json_shape("{\"Members\":5,\"A\":[1,2]}", 24, "Members", &sh);
	assert_int_equal(sh.key_elems, -1);
	br_json_shape("[[[[[[]]]]]]", 12, NULL, &sh);
	assert_int_equal(sh.depth, 6);
	assert_int_equal(sh.key_elems, -1);
}

static void test_json_caps(void **state)
{
	struct br_err err = { 0 };
	struct br_buf deep;
	json_t *doc;

	(void)state;
	doc = br_json_parse("{\"a\":{\"b\":\"c\",\"n\":5}}", 21, 1024, &err);
	assert_non_null(doc);
	assert_string_equal(br_json_str(doc, "a/b"), "c");
	assert_int_equal(br_json_int(doc, "a/n", -1), 5);
	assert_null(br_json_str(doc, "a/n"));
	assert_int_equal(br_json_int(doc, "a/b", -1), -1);
	assert_null(br_json_path(doc, "a/b/c"));
	json_decref(doc);
	/* A real beyond int64_t has no integer value (fuzz_redfish found
	 * CapacityBytes 8.9e122 converted, undefined): the fallback. */
	doc = br_json_parse("{\"big\":8.9e122,\"neg\":-1e300,\"ok\":12.7}", 38, 1024, &err);
	assert_non_null(doc);
	assert_int_equal(br_json_int(doc, "big", -1), -1);
	assert_int_equal(br_json_int(doc, "neg", -1), -1);
	assert_int_equal(br_json_int(doc, "ok", -1), 12);
	json_decref(doc);
	assert_null(br_json_parse("{\"a\":", 5, 1024, &err));
	assert_int_equal(err.code, BR_E_PROTO);
	/* Counted before parsing: values and depth. */
	doc = br_json_parse_bounded("[1,2,3]", 7, 1024, 4, &err);
	assert_non_null(doc);
	json_decref(doc);
	assert_null(br_json_parse_bounded("[1,2,3,4]", 9, 1024, 4, &err));
	assert_int_equal(err.code, BR_E_TOOBIG);
	assert_null(br_json_parse_bounded("[1,2,3]", 7, 4, 100, &err));
	assert_int_equal(err.code, BR_E_TOOBIG);
	assert_null(br_json_parse("[1,2,3]", 7, 4, &err));
	assert_int_equal(err.code, BR_E_TOOBIG);
	br_buf_init(&deep, 0);
	for (int i = 0; i < 200; i++)
		br_buf_adds(&deep, "[");
	for (int i = 0; i < 200; i++)
		br_buf_adds(&deep, "]");
	assert_null(br_json_parse(deep.data, deep.len, 0, &err));
	assert_int_equal(err.code, BR_E_TOOBIG);
	br_buf_release(&deep);
}

static void test_bmc_address(void **state)
{
	char *host = NULL;
	int port = -1;

	(void)state;
	assert_int_equal(stg_bmc_address_parse("10.0.0.1", &host, &port), 0);
	assert_string_equal(host, "10.0.0.1");
	assert_int_equal(port, 0);
	free(host);
	assert_int_equal(stg_bmc_address_parse("idrac-r01-u03.mgmt:8443", &host, &port), 0);
	assert_string_equal(host, "idrac-r01-u03.mgmt");
	assert_int_equal(port, 8443);
	free(host);
	assert_int_equal(stg_bmc_address_parse("[fd00::5]:443", &host, &port), 0);
	assert_string_equal(host, "fd00::5");
	assert_int_equal(port, 443);
	free(host);
	assert_int_equal(stg_bmc_address_parse("fd00::5", &host, &port), BR_E_INVAL);
	assert_int_equal(stg_bmc_address_parse("10.0.0.256", &host, &port), BR_E_INVAL);
	assert_int_equal(stg_bmc_address_parse("10.0.0.1:0", &host, &port), BR_E_INVAL);
	assert_int_equal(stg_bmc_address_parse("10.0.0.1:", &host, &port), BR_E_INVAL);
	assert_int_equal(stg_bmc_address_parse("-x-:80", &host, &port), BR_E_INVAL);
}

static void test_errf(void **state)
{
	struct br_err err = { 0 };

	(void)state;
	assert_int_equal(br_errf(&err, BR_E_IO, "GET '%s': HTTP %d", "/x", 500), BR_E_IO);
	assert_string_equal(err.msg, "GET '/x': HTTP 500");
	br_err_prefix(&err, "bmc %s", "10.0.0.1");
	assert_string_equal(err.msg, "bmc 10.0.0.1: GET '/x': HTTP 500");
	assert_int_equal(br_errf(NULL, BR_E_IO, "ignored"), BR_E_IO);
	assert_string_equal(br_strerror(BR_E_AUTH), "authentication failed");
}

/* Text from outside is cut at a named cap, never inside a UTF-8 character,
 * and marked as cut. */
static void test_strdup_capped(void **state)
{
	char *p;

	(void)state;
	p = br_xstrdup_capped("short", 16);
	assert_string_equal(p, "short");
	free(p);
	p = br_xstrdup_capped("0123456789", 10);
	assert_string_equal(p, "0123456789");
	free(p);
	p = br_xstrdup_capped("0123456789abc", 10);
	assert_string_equal(p, "0123456\xe2\x80\xa6");
	free(p);
	/* "é" is two bytes at offsets 6-7: keeping 7 bytes would split it. */
	p = br_xstrdup_capped("012345\xc3\xa9"
			      "89abc",
			      10);
	assert_string_equal(p, "012345\xe2\x80\xa6");
	free(p);
	p = br_hw_strdup(NULL);
	assert_null(p);
	{
		char *big = malloc(BR_HW_STR_MAX * 4 + 1);

		memset(big, 'x', BR_HW_STR_MAX * 4);
		big[BR_HW_STR_MAX * 4] = '\0';
		p = br_hw_strdup(big);
		assert_int_equal(strlen(p), BR_HW_STR_MAX);
		free(p);
		free(big);
	}
}

static void test_escape(void **state)
{
	char *p;

	(void)state;
	p = br_escape("ok \x1b[2J\rX\x07\x7f\t\n caf\xc3\xa9 \xc2\x9b"
		      "1m \xff");
	assert_string_equal(p, "ok \\x1b[2J\\x0dX\\x07\\x7f\\x09\\x0a caf\xc3\xa9 \\xc2\\x9b1m \\xff");
	free(p);
	/* A lead byte without its continuation, an overlong form. */
	p = br_escape("a\xc3"
		      "b\xc0\xaf");
	assert_string_equal(p, "a\\xc3b\\xc0\\xaf");
	free(p);
	assert_null(br_escape(NULL));
	p = br_escape("");
	assert_string_equal(p, "");
	free(p);
}

/* Secrets come back raw or percent-encoded; short ones are left alone. */
static void test_redact(void **state)
{
	char *p;
	json_t *doc;

	(void)state;
	br_redact_add("s3cr+t/pw");
	br_redact_add("abc");
	p = br_redact("pass=s3cr+t/pw; form pass=s3cr%2Bt%2Fpw, lower s3cr%2bt%2fpw, abc");
	assert_string_equal(p, "pass=<redacted>; form pass=<redacted>, lower <redacted>, abc");
	free(p);
	doc = json_pack("{s:[s], s:i}", "reason", "MAAS said s3cr+t/pw", "n", 1);
	br_redact_json(doc);
	assert_string_equal(json_string_value(json_array_get(json_object_get(doc, "reason"), 0)),
			    "MAAS said <redacted>");
	json_decref(doc);
	p = br_escape("echo \x1bs3cr+t/pw");
	assert_string_equal(p, "echo \\x1b<redacted>");
	free(p);
}

/* Issue 29: the table held 2,048 strings and dropped the rest silently, so
 * on a large rack the later BMCs' passwords were stored in clear. Every one
 * of 5,000 distinct passwords (15,000 strings with their encodings) is
 * redacted, and a registration is undone only as often as it was made. */
static void test_redact_unbounded(void **state)
{
	size_t before = br_redact_count();
	char pw[32], text[96], *p;

	(void)state;
	for (int i = 0; i < 5000; i++) {
		snprintf(pw, sizeof(pw), "Bmc-pw/%05d", i);
		br_redact_add(pw);
	}
	assert_true(br_redact_count() >= before + 15000);
	for (int i = 0; i < 5000; i += 499) {
		snprintf(pw, sizeof(pw), "Bmc-pw/%05d", i);
		snprintf(text, sizeof(text), "power_pass=%s&x=Bmc-pw%%2F%05d", pw, i);
		p = br_redact(text);
		assert_string_equal(p, "power_pass=<redacted>&x=<redacted>");
		free(p);
	}
	/* The last one registered, twice: one removal keeps it. */
	br_redact_add("Bmc-pw/04999");
	br_redact_remove("Bmc-pw/04999");
	p = br_redact("Bmc-pw/04999");
	assert_string_equal(p, "<redacted>");
	free(p);
	br_redact_remove("Bmc-pw/04999");
	p = br_redact("Bmc-pw/04999 Bmc-pw/04998");
	assert_string_equal(p, "Bmc-pw/04999 <redacted>");
	free(p);
	assert_false(br_redact_needed("Bmc-pw%2F04999"));
	for (int i = 0; i < 4999; i++) {
		snprintf(pw, sizeof(pw), "Bmc-pw/%05d", i);
		br_redact_remove(pw);
	}
	assert_int_equal(br_redact_count(), before);
	assert_false(br_redact_needed("Bmc-pw/00000"));
}

/* The manifest's serial against a BMC's: either of its identities,
 * padding and case ignored; nothing to compare is not a mismatch. */
static void test_serial_matches(void **state)
{
	struct br_hw hw;

	(void)state;
	br_hw_init(&hw);
	assert_int_equal(br_hw_serial_matches(&hw, "CN123"), -1); /* the BMC said nothing */
	hw.system_serial = br_xstrdup("CN123   ");		  /* padded, as some BMCs send it */
	hw.service_tag = br_xstrdup("7XQ2K3");
	assert_int_equal(br_hw_serial_matches(&hw, NULL), -1);
	assert_int_equal(br_hw_serial_matches(&hw, ""), -1);
	assert_int_equal(br_hw_serial_matches(&hw, "  "), -1);
	assert_int_equal(br_hw_serial_matches(&hw, "CN123"), 1);
	assert_int_equal(br_hw_serial_matches(&hw, "cn123"), 1);
	assert_int_equal(br_hw_serial_matches(&hw, " CN123 "), 1);
	assert_int_equal(br_hw_serial_matches(&hw, "7xq2k3"), 1); /* the service tag */
	assert_int_equal(br_hw_serial_matches(&hw, "CN1234"), 0);
	assert_int_equal(br_hw_serial_matches(&hw, "CN12"), 0);
	assert_int_equal(br_hw_serial_matches(&hw, "7XQ2K"), 0);
	free(hw.service_tag);
	hw.service_tag = br_xstrdup("   "); /* a blank tag is none */
	assert_int_equal(br_hw_serial_matches(&hw, "CN999"), 0);
	free(hw.system_serial);
	hw.system_serial = NULL;
	assert_int_equal(br_hw_serial_matches(&hw, "CN999"), -1);
	br_hw_release(&hw);
}

/* A webhook URL as shown: userinfo and query values masked, the rest as
 * given (issue 29, finding 4). */
/* br_groups_number: equal names one group, numbered in name order; NULL
 * and "" in none; a stride writes every stride-th slot only. */
static const char *const group_names[] = { "pdu-b", NULL, "pdu-a", "pdu-b", "", "pdu-c", "pdu-a" };

static const char *group_name_at(size_t i, const void *ctx)
{
	return ((const char *const *)ctx)[i];
}

static void test_groups_number(void **state)
{
	size_t of[14], n;

	(void)state;
	memset(of, 0x5a, sizeof(of));
	n = br_groups_number(7, group_name_at, group_names, of, 2);
	assert_int_equal(n, 3);
	/* pdu-a 0, pdu-b 1, pdu-c 2 */
	assert_int_equal(of[0], 1);
	assert_int_equal(of[2], SIZE_MAX);
	assert_int_equal(of[4], 0);
	assert_int_equal(of[6], 1);
	assert_int_equal(of[8], SIZE_MAX);
	assert_int_equal(of[10], 2);
	assert_int_equal(of[12], 0);
	for (size_t i = 1; i < 14; i += 2)
		assert_int_equal(of[i], 0x5a5a5a5a5a5a5a5aull); /* the stride's other slots untouched */
	assert_int_equal(br_groups_number(2, group_name_at, (const char *const[]){ NULL, "" }, of, 1), 0);
	assert_int_equal(of[0], SIZE_MAX);
	assert_int_equal(of[1], SIZE_MAX);
	assert_int_equal(br_groups_number(0, group_name_at, group_names, of, 1), 0);
}

static void test_url_masked(void **state)
{
	static const char *const cases[][2] = {
		{ "https://hooks.example.com/tickets", "https://hooks.example.com/tickets" },
		{ "http://user:pw@127.0.0.1:8080/hook?token=abc&x",
		  "http://<redacted>:<redacted>@127.0.0.1:8080/hook?token=<redacted>&x" },
		{ "https://bot@[::1]:443/h?a=1&b=2",
		  "https://<redacted>@[::1]:443/h?a=<redacted>&b=<redacted>" },
		{ "http://h/p?k=%41%26", "http://h/p?k=<redacted>" },
		{ "not a url", "(a URL that cannot be parsed)" },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *m = br_url_masked(cases[i][0]);

		assert_string_equal(m, cases[i][1]);
		free(m);
	}
	assert_false(br_url_has_credentials("https://hooks.example.com/tickets"));
	assert_true(br_url_has_credentials("https://u@h/"));
	assert_true(br_url_has_credentials("https://h/?t=1"));
}

/* A log line in each format: text as every stage has written it, one
 * JSON object with its fields, journald's "<PRIO>" prefix; the message,
 * node and BMC escaped and a registered secret redacted in each. */
static void test_log_format_line(void **state)
{
	const char *ts = "2026-01-02T03:04:05Z";
	struct br_buf b;
	json_t *doc;
	enum br_log_format f = BR_LOG_TEXT;

	(void)state;
	br_redact_add("L0g-s3cret");
	br_buf_init(&b, 0);
	br_log_format_line(&b, BR_LOG_TEXT, "bringup-discover", ts, BR_LOG_WARN, "discover", "gpu-r01-u02",
			   "10.0.0.7", "refused L0g-s3cret\n\x1b[2J");
	assert_string_equal(br_buf_str(&b), "2026-01-02T03:04:05Z bringup-discover: warning[discover] "
					    "gpu-r01-u02: refused <redacted>\\x0a\\x1b[2J");
	br_buf_reset(&b);
	br_log_format_line(&b, BR_LOG_JSON, "bringup-discover", ts, BR_LOG_INFO, "discover", "gpu-r01-u02",
			   "10.0.0.7", "pw L0g-s3cret");
	doc = json_loads(br_buf_str(&b), 0, NULL);
	assert_non_null(doc);
	assert_null(strchr(br_buf_str(&b), '\n'));
	assert_string_equal(br_json_str(doc, "time"), ts);
	assert_string_equal(br_json_str(doc, "level"), "info");
	assert_string_equal(br_json_str(doc, "stage"), "discover");
	assert_string_equal(br_json_str(doc, "node"), "gpu-r01-u02");
	assert_string_equal(br_json_str(doc, "bmc"), "10.0.0.7");
	assert_string_equal(br_json_str(doc, "msg"), "pw <redacted>");
	json_decref(doc);
	/* Not a node's line, not a stage's program: nulls. */
	br_buf_reset(&b);
	br_log_format_line(&b, BR_LOG_JSON, "bringup", ts, BR_LOG_ERROR, NULL, NULL, NULL, "x");
	doc = json_loads(br_buf_str(&b), 0, NULL);
	assert_non_null(doc);
	assert_true(json_is_null(json_object_get(doc, "stage")));
	assert_true(json_is_null(json_object_get(doc, "node")));
	assert_true(json_is_null(json_object_get(doc, "bmc")));
	json_decref(doc);
	/* journald: the syslog priority of each level, no time of our own. */
	{
		static const struct {
			enum br_log_level level;
			const char *prefix;
		} want[] = { { BR_LOG_ERROR, "<3>" },
			     { BR_LOG_WARN, "<4>" },
			     { BR_LOG_INFO, "<6>" },
			     { BR_LOG_DEBUG, "<7>" } };

		for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
			br_buf_reset(&b);
			br_log_format_line(&b, BR_LOG_JOURNAL, "bringup-validate", ts, want[i].level, "ssh",
					   NULL, NULL, "m");
			assert_int_equal(strncmp(br_buf_str(&b), want[i].prefix, 3), 0);
			assert_string_equal(br_buf_str(&b) + 3, "bringup-validate: [ssh] m");
		}
	}
	br_buf_reset(&b);
	br_log_format_line(&b, BR_LOG_JOURNAL, "bringup-discover", ts, BR_LOG_WARN, "discover", "gpu-r01-u02",
			   "10.0.0.7", "refused L0g-s3cret\r");
	assert_string_equal(
	    br_buf_str(&b),
	    "<4>bringup-discover: [discover] gpu-r01-u02 (bmc 10.0.0.7): refused <redacted>\\x0d");
	br_buf_release(&b);
	assert_int_equal(br_log_format_parse("journal", &f), 0);
	assert_int_equal(f, BR_LOG_JOURNAL);
	assert_int_equal(br_log_format_parse("syslog", &f), BR_E_INVAL);
	assert_int_equal(f, BR_LOG_JOURNAL);
	br_redact_remove("L0g-s3cret");
}

/* $JOURNAL_STREAM names fd 2's device and inode, or it is not the journal. */
static void test_log_stderr_is_journal(void **state)
{
	struct stat st;
	char v[64];

	(void)state;
	assert_int_equal(fstat(STDERR_FILENO, &st), 0);
	unsetenv("JOURNAL_STREAM");
	assert_false(br_log_stderr_is_journal());
	snprintf(v, sizeof(v), "%llu:%llu", (unsigned long long)st.st_dev, (unsigned long long)st.st_ino);
	setenv("JOURNAL_STREAM", v, 1);
	assert_true(br_log_stderr_is_journal());
	snprintf(v, sizeof(v), "%llu:%llu", (unsigned long long)st.st_dev, (unsigned long long)st.st_ino + 1);
	setenv("JOURNAL_STREAM", v, 1);
	assert_false(br_log_stderr_is_journal());
	snprintf(v, sizeof(v), "%llu:%llux", (unsigned long long)st.st_dev, (unsigned long long)st.st_ino);
	setenv("JOURNAL_STREAM", v, 1);
	assert_false(br_log_stderr_is_journal());
	setenv("JOURNAL_STREAM", "garbage", 1);
	assert_false(br_log_stderr_is_journal());
	unsetenv("JOURNAL_STREAM");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mac_normalize),
		cmocka_unit_test(test_buf_cap),
		cmocka_unit_test(test_groups_number),
		cmocka_unit_test(test_parse_long),
		cmocka_unit_test(test_secret_refs),
		cmocka_unit_test(test_json_caps),
		cmocka_unit_test(test_json_shape),
		cmocka_unit_test(test_bmc_address),
		cmocka_unit_test(test_errf),
		cmocka_unit_test(test_strdup_capped),
		cmocka_unit_test(test_escape),
		cmocka_unit_test(test_redact),
		cmocka_unit_test(test_redact_unbounded),
		cmocka_unit_test(test_serial_matches),
		cmocka_unit_test(test_url_masked),
		cmocka_unit_test(test_log_format_line),
		cmocka_unit_test(test_log_stderr_is_journal),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
