/*
 * The retirement rules (stages/lifecycle.c): which events are attempts,
 * the short cause of each, the summary a retired node keeps as its reason
 * and the history its ticket lists, counted since it was last unretired.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "stages/lifecycle.h"

static void test_cause(void **state)
{
	static const struct {
		const char *reason, *cause;
	} cases[] = {
		{ "failed checks: psu: PS4 Status (serial CN1): health Critical", "psu" },
		{ "failed checks: pcie unknown: riser; psu: PS1", "pcie unknown" },
		{ "failed checks: not checked: cabling", "not checked" },
		{ "BMC 10.0.0.1: connection refused", "BMC 10.0.0.1" },
		{ "", "no reason" },
		{ NULL, "no reason" },
		/* cut at CAUSE_MAX (40) */
		{ "a reason far longer than forty characters with no colon at all",
		  "a reason far longer than forty character" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *c = stg_lifecycle_cause(cases[i].reason);

		assert_string_equal(c, cases[i].cause);
		free(c);
	}
}

#define EV(from, to, reason, at)                                                                             \
	{                                                                                                    \
		0, (char *)(from), (char *)(to), (char *)(reason), (char *)(at), NULL                        \
	}

/* Two attempts before an unretire (not counted), then three over nine
 * days; re-judging a quarantined node (quarantined -> quarantined) and
 * the retirement itself are no attempts. */
static void test_summary_history(void **state)
{
	struct inv_event ev[] = {
		EV(NULL, "new", "imported", "2026-01-01T00:00:00.000Z"),
		EV("new", "failed", "BMC down: refused", "2026-01-01T01:00:00.000Z"),
		EV("failed", "quarantined", "failed checks: pcie: x16 at x8", "2026-01-02T00:00:00.000Z"),
		EV("quarantined", "retired", "retired by operator: swap", "2026-01-03T00:00:00.000Z"),
		EV("retired", "new", "unretired by operator", "2026-01-04T00:00:00.000Z"),
		EV("validated", "quarantined", "failed checks: psu: PS4 Critical",
		   "2026-02-01T00:00:00.000Z"),
		EV("quarantined", "quarantined", "failed checks: psu: PS4 Critical; pcie",
		   "2026-02-01T01:00:00.000Z"),
		EV("configured", "quarantined", "failed checks: psu: PS4 Critical",
		   "2026-02-05T00:00:00.000Z"),
		EV("validated", "quarantined", "failed checks: psu: PS4 Critical",
		   "2026-02-09T12:00:00.000Z"),
	};
	size_t n = sizeof(ev) / sizeof(ev[0]);
	char *s = stg_lifecycle_summary(ev, n, 3);
	char *h = stg_lifecycle_history(ev, n);

	assert_string_equal(s, "3rd failure in 9 days (psu; psu; psu)");
	assert_string_equal(h, "2026-02-01 quarantined (psu); 2026-02-05 quarantined (psu); "
			       "2026-02-09 quarantined (psu)");
	free(s);
	free(h);
	/* one attempt on one day; none at all */
	s = stg_lifecycle_summary(ev, 2, 1);
	assert_string_equal(s, "1st failure in 1 day (BMC down)");
	free(s);
	s = stg_lifecycle_summary(ev, 1, 12);
	assert_string_equal(s, "12th failure in 1 day");
	free(s);
	assert_null(stg_lifecycle_history(ev, 1));
}

static void test_due(void **state)
{
	struct inv_node node = { 0 };

	node.state = INV_QUARANTINED;
	node.attempts = 2;
	assert_false(stg_lifecycle_due(&node, 3));
	node.attempts = 3;
	assert_true(stg_lifecycle_due(&node, 3));
	node.state = INV_FAILED;
	assert_true(stg_lifecycle_due(&node, 2));
	/* only a node that ended this attempt badly: a golden or retired one is not */
	node.state = INV_GOLDEN;
	assert_false(stg_lifecycle_due(&node, 3));
	node.state = INV_RETIRED;
	assert_false(stg_lifecycle_due(&node, 3));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cause),
		cmocka_unit_test(test_summary_history),
		cmocka_unit_test(test_due),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
