/* The HTML report (stages/report.c): inventory text escaped for HTML
 * after the terminal escaping, the default path beside the database, and
 * a page rendered from an in-memory inventory whose reasons hold markup. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "stages/report.h"

static char *escaped(const char *text, const char *fallback)
{
	struct br_buf b;
	struct stg_report_page p = { &b, 0 };

	br_buf_init(&b, 0);
	stg_report_text(&p, text, fallback);
	assert_int_equal(p.rc, 0);
	return br_buf_detach(&b);
}

static void test_text(void **state)
{
	char *s;

	(void)state;
	s = escaped("<script>alert('x')</script> & \"q\"", NULL);
	assert_string_equal(s, "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;q&quot;");
	free(s);
	/* Control bytes and broken UTF-8 as \xNN, text kept. */
	s = escaped("a\x1b[2J\x07"
		    "b\xff é",
		    NULL);
	assert_string_equal(s, "a\\x1b[2J\\x07b\\xff é");
	free(s);
	s = escaped(NULL, "<none>");
	assert_string_equal(s, "&lt;none&gt;");
	free(s);
	s = escaped(NULL, NULL);
	assert_true(!s || !*s);
	free(s);
}

static void test_default_path(void **state)
{
	char *s;

	(void)state;
	s = stg_report_default_path("/var/lib/bringup/bringup.db");
	assert_string_equal(s, "/var/lib/bringup/bringup.html");
	free(s);
	s = stg_report_default_path("inventory");
	assert_string_equal(s, "inventory.html");
	free(s);
	assert_null(stg_report_default_path(":memory:"));
	assert_null(stg_report_default_path(""));
}

static void test_render(void **state)
{
	const struct inv_manifest_row rows[] = {
		{ "gpu-r01-u03", "r01", 3, "10.0.0.3", "root", "env:P", "xe9680", "redfish", NULL,
		  "<b>note</b>", 2, NULL, NULL, NULL, NULL },
		{ "gpu-r01-u10", "r01", 10, "10.0.0.10", "root", "env:P", "xe9680", "redfish", NULL, NULL, 3,
		  NULL, NULL, NULL, NULL },
		{ "gpu-r02-u03", "r02\"><script>", 3, "10.0.0.4", "root", "env:P", "xe9680", "redfish", NULL,
		  NULL, 4, NULL, NULL, NULL, NULL },
	};
	struct inv *inv;
	struct inv_node *nodes;
	struct inv_import_stats stats;
	struct br_err err = { 0 };
	struct stg_report_stats rs;
	struct br_buf html;
	size_t n;
	const char *s;

	(void)state;
	assert_int_equal(inv_open(":memory:", &inv, &err), 0);
	assert_int_equal(inv_import(inv, rows, 3, "rack.csv", &stats, &err), 0);
	assert_int_equal(inv_node_set_state(inv, "gpu-r01-u10", INV_NEW, INV_FAILED,
					    "MAAS: <img src=x onerror=alert(1)>", &err),
			 0);
	assert_int_equal(inv_nodes_list(inv, &nodes, &n, &err), 0);
	br_buf_init(&html, STG_REPORT_HTML_MAX);
	assert_int_equal(stg_report_render(inv, nodes, n, &html, &rs, &err), 0);
	s = br_buf_str(&html);
	assert_int_equal(rs.nodes, 3);
	assert_int_equal(rs.per_state[INV_FAILED], 1);
	assert_int_equal(rs.bytes, html.len);
	/* Two racks, one box per node in its state's class. */
	assert_non_null(strstr(s, "<h3>rack r01</h3>"));
	assert_non_null(strstr(s, "<h3>rack r02&quot;&gt;&lt;script&gt;</h3>"));
	assert_non_null(strstr(s, "class=\"node st-failed\""));
	assert_non_null(strstr(s, "MAAS: &lt;img src=x onerror=alert(1)&gt;"));
	assert_non_null(strstr(s, "&lt;b&gt;note&lt;/b&gt;"));
	/* No markup from the inventory: the page has no script or img of its own. */
	assert_null(strstr(s, "<script"));
	assert_null(strstr(s, "<img"));
	assert_null(strstr(s, "<b>note"));
	assert_non_null(strstr(s, "No open tickets."));
	br_buf_release(&html);
	inv_nodes_free(nodes, n);
	inv_close(inv);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_default_path),
		cmocka_unit_test(test_render),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
