/* Unit tests for the IPMI fallback's process runner, against a fake
 * ipmitool (tests/fixtures/ipmi/fake-ipmitool) chosen with BR_IPMITOOL.
 * test: alone (a 1 s timeout each good call must beat, under ASan too) */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "common.h"
#include "redfish/ipmi_private.h"
#include "redfish/redfish.h"

struct outcome {
	int rc;
	char reason[BR_ERR_MSG_MAX];
	char *serial;
	size_t n_sel;
	int64_t at_ms;
};

static void on_done(const struct rf_ipmi_target *t, int rc, struct br_hw *hw, const struct br_err *err,
		    void *ctx)
{
	struct outcome *o = (struct outcome *)ctx + (intptr_t)t->user_data;

	o->rc = rc;
	o->at_ms = br_now_ms();
	if (rc)
		snprintf(o->reason, sizeof(o->reason), "%s", err->msg);
	o->serial = br_xstrdup(hw->system_serial);
	o->n_sel = hw->n_sel;
}

static char *log_path;

static int setup(void **state)
{
	const char *top = getenv("BR_TOP");
	char *tool = br_xasprintf("%s/tests/fixtures/ipmi/fake-ipmitool", top ? top : ".");
	char tmpl[] = "/tmp/test_ipmi_run.XXXXXX";
	int fd = mkstemp(tmpl);

	(void)state;
	if (fd < 0)
		return -1;
	close(fd);
	log_path = br_xstrdup(tmpl);
	setenv("BR_IPMITOOL", tool, 1);
	setenv("FAKE_IPMI_LOG", log_path, 1);
	free(tool);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(log_path);
	free(log_path);
	return 0;
}

static void run(const char *const *hosts, size_t n, int parallel, int timeout_s, struct outcome *out)
{
	struct rf_ipmi_target t[8];
	struct br_err err = { 0 };

	assert_true(n <= 8);
	for (size_t i = 0; i < n; i++)
		t[i] = (struct rf_ipmi_target){ hosts[i], hosts[i],    6230,
						"admin",  "s3cret-pw", (void *)(intptr_t)i };
	memset(out, 0, n * sizeof(*out));
	assert_int_equal(rf_ipmi_discover_all(t, n, parallel, timeout_s, on_done, out, &err), 0);
}

static void release(struct outcome *out, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(out[i].serial);
}

static void test_ok_auth_and_password(void **state)
{
	static const char *const hosts[] = { "ok", "auth" };
	struct outcome out[2];
	char *log = NULL;
	size_t len;

	(void)state;
	run(hosts, 2, 2, 5, out);
	assert_int_equal(out[0].rc, 0);
	assert_string_equal(out[0].serial, "SN-IPMI-0001");
	assert_int_equal(out[0].n_sel, 3);
	assert_int_equal(out[1].rc, BR_E_AUTH);
	assert_string_equal(out[1].reason,
			    "bmc auth:6230: IPMI authentication failed (check bmc_user/bmc_password)");
	/* The password went through the environment, never argv. */
	assert_int_equal(br_read_file(log_path, 1 << 20, &log, &len, NULL), 0);
	assert_non_null(strstr(log, "env: s3cret-pw"));
	assert_non_null(strstr(log, "argv: -I lanplus -H ok -p 6230 -U admin -E -v chassis power status"));
	assert_non_null(strstr(log, "-E sdr type Power Supply"));
	for (char *p = log; (p = strstr(p, "argv: ")); p++) {
		char *line = br_xstrndup(p, strcspn(p, "\n"));

		assert_null(strstr(line, "s3cret"));
		free(line);
	}
	free(log);
	release(out, 2);
}

static void test_hang_is_killed(void **state)
{
	static const char *const hosts[] = { "hang", "ok", "ok" };
	struct outcome out[3];
	int64_t start = br_now_ms();

	(void)state;
	run(hosts, 3, 3, 1, out);
	assert_int_equal(out[0].rc, BR_E_UNREACHABLE);
	assert_non_null(strstr(out[0].reason, "bmc hang:6230: no IPMI answer within 1 s"));
	assert_true(out[0].at_ms - start < 3000);
	assert_int_equal(out[1].rc, 0);
	assert_int_equal(out[2].rc, 0);
	release(out, 3);
}

static void test_serial_with_one_slot(void **state)
{
	static const char *const hosts[] = { "ok", "nobody", "ok" };
	struct outcome out[3];

	(void)state;
	run(hosts, 3, 1, 5, out);
	assert_int_equal(out[0].rc, 0);
	assert_int_equal(out[1].rc, BR_E_AUTH); /* ipmitool's bare message, per the brief */
	assert_int_equal(out[2].rc, 0);
	/* One slot: completion in order. */
	assert_true(out[0].at_ms <= out[1].at_ms && out[1].at_ms <= out[2].at_ms);
	release(out, 3);
}

static void test_flood_is_capped(void **state)
{
	static const char *const hosts[] = { "flood" };
	struct outcome out[1];

	(void)state;
	run(hosts, 1, 1, 10, out);
	assert_int_equal(out[0].rc, 0);
	assert_int_equal(out[0].n_sel, BR_IPMI_SEL_MAX);
	release(out, 1);
}

/* Power cycles rationed by group (configure's power domains): three BMCs
 * of pdu-a, two of pdu-b, one of none, four at once but one per group.
 * The fake logs each call's argv as it starts and "done: HOST" at the end
 * of its power cycle or power on, the node's last call: a group never has two nodes
 * between their first call and that, and the groups still overlap. */
static const char *const pxe_groups[] = { "pdu-a", "pdu-a", "pdu-b", "pdu-a", "pdu-b", NULL };

static const char *pxe_group(const struct rf_ipmi_target *t)
{
	return pxe_groups[(intptr_t)t->user_data];
}

static void test_pxe_groups(void **state)
{
	static const char *const hosts[] = {
		"slow-a1", "slow-a2", "slow-b1", "slow-a3", "slow-b2", "slow-n1"
	};
	const size_t n = 6;
	struct rf_ipmi_target t[6];
	struct outcome out[6] = { 0 };
	const struct rf_ipmi_options o = { 4, 5, NULL, 1, pxe_group };
	struct br_err err = { 0 };
	int open[6] = { 0 }, seen[6] = { 0 }, most = 0, now = 0;
	char *log = NULL, *line;
	size_t len;

	(void)state;
	assert_int_equal(truncate(log_path, 0), 0);
	for (size_t i = 0; i < n; i++)
		t[i] =
		    (struct rf_ipmi_target){ hosts[i], hosts[i], 6230, "admin", "pw", (void *)(intptr_t)i };
	assert_int_equal(rf_ipmi_pxe_opts(t, n, &o, on_done, out, &err), 0);
	for (size_t i = 0; i < n; i++) {
		if (out[i].rc)
			fail_msg("%s: %s", hosts[i], out[i].reason);
	}
	assert_int_equal(br_read_file(log_path, 1 << 20, &log, &len, NULL), 0);
	for (line = strtok(log, "\n"); line; line = strtok(NULL, "\n")) {
		for (size_t i = 0; i < n; i++) {
			char start[64], done[64];

			snprintf(start, sizeof(start), "-H %s ", hosts[i]);
			snprintf(done, sizeof(done), "done: %s", hosts[i]);
			if (!strncmp(line, "argv: ", 6) && strstr(line, start) && !seen[i]) {
				seen[i] = open[i] = 1;
				now++;
				for (size_t j = 0; j < n; j++)
					if (j != i && open[j] && pxe_groups[i] && pxe_groups[j] &&
					    !strcmp(pxe_groups[i], pxe_groups[j]))
						fail_msg("%s started while %s of %s was cycling", hosts[i],
							 hosts[j], pxe_groups[i]);
			} else if (!strcmp(line, done)) {
				assert_true(open[i]);
				open[i] = 0;
				now--;
			}
		}
		if (now > most)
			most = now;
	}
	for (size_t i = 0; i < n; i++)
		assert_true(seen[i] && !open[i]);
	assert_true(most >= 2); /* the groups ran side by side */
	assert_true(most <= 4);
	free(log);
	release(out, n);
}

static void test_missing_tool(void **state)
{
	struct rf_ipmi_target t = { "x", "ok", 623, "admin", "pw", NULL };
	struct br_err err = { 0 };
	char *saved = br_xstrdup(getenv("BR_IPMITOOL"));

	(void)state;
	setenv("BR_IPMITOOL", "/nonexistent/ipmitool", 1);
	assert_int_equal(rf_ipmi_discover_all(&t, 1, 1, 1, on_done, NULL, &err), BR_E_NOTFOUND);
	assert_non_null(strstr(err.msg, "/nonexistent/ipmitool"));
	setenv("BR_IPMITOOL", saved, 1);
	free(saved);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ok_auth_and_password), cmocka_unit_test(test_hang_is_killed),
		cmocka_unit_test(test_serial_with_one_slot), cmocka_unit_test(test_flood_is_capped),
		cmocka_unit_test(test_missing_tool),	     cmocka_unit_test(test_pxe_groups),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
