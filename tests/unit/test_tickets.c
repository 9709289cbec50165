/* Ticket text (stages/tickets.c) and the gate's verdict (stages/gate.c):
 * actions.conf parsing and its messages, placeholders filled from the
 * node and the evidence, patterns and the default, failed-stage causes
 * named from the stages' own reasons, required checks from the profile. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "stages/gate.h"
#include "stages/tickets.h"
#include "validators/rules.h"

static const char actions_text[] =
    "# comment\n"
    "\n"
    "psu = Replace {part} in {hostname} ({location})\n"
    "firmware:* = Update {component} on {hostname}: {evidence}\n"
    "cabling = Swap the cables: {evidence} {nosuch}\n"
    "default = Inspect {hostname} for {fault}; serial {serial}, tag {service_tag}, BMC {bmc}\n";

static struct stg_tickets_vars vars(const char *fault, const char *evidence)
{
	return (struct stg_tickets_vars){ "gpu-r01-u17", "r01", "10.0.0.17:443", "CN123",
					  "XPX1",	 fault, evidence,	 17 };
}

static void test_render(void **state)
{
	struct stg_tickets_actions a;
	struct br_err err = { 0 };
	struct stg_tickets_vars v;
	char *s;

	(void)state;
	assert_int_equal(stg_tickets_actions_parse("actions.conf", actions_text, &a, &err), 0);
	assert_int_equal(a.n, 4);
	v = vars("psu", "PSU.Slot.2: health Critical, expected OK");
	s = stg_tickets_render(&a, &v);
	assert_string_equal(s, "Replace PSU.Slot.2 in gpu-r01-u17 (rack r01 U17)");
	free(s);
	v = vars("firmware:NIC.Slot.31-1-1", "NIC.Slot.31-1-1: 28.1 < 28.39.1002 — update firmware");
	s = stg_tickets_render(&a, &v);
	assert_string_equal(
	    s, "Update NIC.Slot.31-1-1 on gpu-r01-u17: NIC.Slot.31-1-1: 28.1 < 28.39.1002 — update firmware");
	free(s);
	/* An unknown placeholder is kept as written, for the author to see. */
	v = vars("cabling", "swp1 and swp2");
	s = stg_tickets_render(&a, &v);
	assert_string_equal(s, "Swap the cables: swp1 and swp2 {nosuch}");
	free(s);
	v = vars("clock", "off by 300 s");
	s = stg_tickets_render(&a, &v);
	assert_string_equal(s, "Inspect gpu-r01-u17 for clock; serial CN123, tag XPX1, BMC 10.0.0.17:443");
	free(s);
	/* Nothing known about the node: "?" rather than "(null)". */
	v = (struct stg_tickets_vars){ NULL, NULL, NULL, NULL, NULL, "clock", NULL, 0 };
	s = stg_tickets_render(&a, &v);
	assert_string_equal(s, "Inspect ? for clock; serial ?, tag ?, BMC ?");
	free(s);
	stg_tickets_actions_release(&a);
}

static void test_render_no_default(void **state)
{
	struct stg_tickets_actions a;
	struct stg_tickets_vars v = vars("thermal", "Fan 3: 0 RPM");
	char *s;

	(void)state;
	assert_int_equal(stg_tickets_actions_parse("a", "psu = x\n", &a, NULL), 0);
	s = stg_tickets_render(&a, &v);
	assert_string_equal(s, "inspect gpu-r01-u17 for thermal");
	free(s);
	stg_tickets_actions_release(&a);
}

static void test_parse_errors(void **state)
{
	struct stg_tickets_actions a;
	struct br_err err = { 0 };

	(void)state;
	assert_int_equal(stg_tickets_actions_parse("actions.conf", "psu = ok\nno equals sign\n", &a, &err),
			 BR_E_INVAL);
	assert_string_equal(err.msg, "actions.conf:2: want 'fault = action text'");
	assert_int_equal(stg_tickets_actions_parse("actions.conf", " = text\n", &a, &err), BR_E_INVAL);
	assert_int_equal(stg_tickets_actions_parse("actions.conf", "psu =\n", &a, &err), BR_E_INVAL);
}

/* The shipped actions.conf names every fault kind a technician meets. */
static void test_shipped_actions(void **state)
{
	static const char *const faults[] = {
		"bmc_unreachable", "bmc_auth", "commission_failed", "pcie",
		"cabling",	   "psu",      "thermal",	    "firmware:BIOS.Setup.1-1",
		"default"
	};
	char *dir = br_xasprintf("%s/templates", getenv("BR_TOP") ? getenv("BR_TOP") : ".");
	struct stg_tickets_actions a;
	struct br_err err = { 0 };

	(void)state;
	assert_int_equal(stg_tickets_actions_load(dir, &a, &err), 0);
	for (size_t i = 0; i < sizeof(faults) / sizeof(faults[0]); i++) {
		struct stg_tickets_vars v = vars(faults[i], "E: x");
		char *s = stg_tickets_render(&a, &v);

		assert_null(strstr(s, "{"));
		assert_non_null(strstr(s, "gpu-r01-u17"));
		free(s);
	}
	stg_tickets_actions_release(&a);
	free(dir);
}

/* Every failure kind a stage can type has its own line in the shipped
 * actions.conf (never the default): a technician is told what to do
 * about exactly that; and a node failed before kinds were kept is
 * stage_failed. */
static void test_failure_fault(void **state)
{
	const char *top = getenv("BR_TOP");
	char *dir = br_xasprintf("%s/templates", top ? top : ".");
	struct stg_tickets_actions a = { 0 };
	struct br_err err = { 0 };
	struct inv_node node = { 0 };

	(void)state;
	assert_int_equal(stg_tickets_actions_load(dir, &a, &err), 0);
	for (int k = BR_FAIL_STAGE; k < BR_FAIL_COUNT; k++) {
		const char *name = br_fail_kind_name((enum br_fail_kind)k);
		enum br_fail_kind back = BR_FAIL_NONE;
		int found = 0;

		assert_int_equal(br_fail_kind_parse(name, &back), 0);
		assert_int_equal(back, k);
		for (size_t i = 0; i < a.n && !found; i++)
			found = !strcmp(a.items[i].fault, name);
		if (!found)
			fail_msg("no line for failure kind %s in actions.conf", name);
		node.failure_kind = (enum br_fail_kind)k;
		assert_string_equal(stg_tickets_failure_fault(&node), name);
	}
	node.failure_kind = BR_FAIL_NONE;
	assert_string_equal(stg_tickets_failure_fault(&node), "stage_failed");
	assert_int_equal(br_fail_kind_parse("bmc_down", &node.failure_kind), BR_E_INVAL);
	stg_tickets_actions_release(&a);
	free(dir);
}

static void test_gate_failing(void **state)
{
	struct inv_check checks[] = {
		{ "cabling", INV_CHECK_UNKNOWN, "no LLDP neighbours", NULL, NULL },
		{ "firmware:NIC.Slot.31-1-1", INV_CHECK_FAIL, "28.1 < 28.39", NULL, NULL },
		{ "pcie", INV_CHECK_PASS, "ok", NULL, NULL },
		{ "thermal", INV_CHECK_FAIL, "Inlet: 900 C", NULL, NULL },
	};
	struct val_check *view = stg_checks_view_val(checks, 4);
	struct prof_profile p;
	int failing[4];
	char *missing, *reason;

	(void)state;
	prof_init(&p);
	/* Empty required set: every check counts, and every check the
	 * profile's expectations give must have run (fail closed). */
	assert_int_equal(val_gate_failing(&p, view, 4, failing, &missing), 4);
	assert_string_equal(missing, "boot_disk, cpufreq, psu, dmesg, gpu_health");
	reason = stg_gate_reason(checks, 4, failing, missing);
	assert_string_equal(
	    reason,
	    "failed checks: cabling unknown: no LLDP neighbours; firmware:NIC.Slot.31-1-1: "
	    "28.1 < 28.39; thermal: Inlet: 900 C; not checked: boot_disk, cpufreq, psu, dmesg, gpu_health");
	free(reason);
	free(missing);
	/* A stated count makes its check required: gpu_count never ran. */
	p.hw.gpus = 8;
	assert_int_equal(val_gate_failing(&p, view, 4, failing, &missing), 4);
	assert_string_equal(missing, "gpu_count, boot_disk, cpufreq, psu, dmesg, gpu_health");
	free(missing);
	p.hw.gpus = -1;
	/* A [gate] required list adds to the expected checks and cannot drop
	 * one: cabling (unknown) and thermal (failed) still block, and what
	 * never ran is named. */
	br_strlist_add(&p.hw.gate_required, "firmware:*");
	br_strlist_add(&p.hw.gate_required, "nvlink");
	assert_int_equal(val_gate_failing(&p, view, 4, failing, &missing), 4);
	assert_int_equal(failing[0], 1);
	assert_int_equal(failing[1], 1);
	assert_int_equal(failing[2], 0);
	assert_int_equal(failing[3], 1);
	assert_string_equal(missing, "boot_disk, cpufreq, psu, dmesg, gpu_health, nvlink");
	reason = stg_gate_reason(checks, 4, failing, missing);
	assert_string_equal(reason,
			    "failed checks: cabling unknown: no LLDP neighbours; firmware:NIC.Slot.31-1-1: "
			    "28.1 < 28.39; thermal: Inlet: 900 C; not checked: boot_disk, cpufreq, psu, "
			    "dmesg, gpu_health, nvlink");
	free(reason);
	free(missing);
	prof_release(&p);
	/* No verdicts at all prove nothing. */
	prof_init(&p);
	assert_int_equal(val_gate_failing(&p, NULL, 0, failing, &missing), 1);
	assert_string_equal(missing, "cabling, pcie, boot_disk, thermal, cpufreq, psu, dmesg, gpu_health");
	free(missing);
	assert_int_equal(val_gate_failing(NULL, NULL, 0, failing, &missing), 1);
	assert_string_equal(missing, "no check results");
	free(missing);
	prof_release(&p);
	free(view);
}

/* The inventory keeps one ticket per (node, fault) across runs. */
static void test_ticket_store(void **state)
{
	const struct inv_manifest_row row = { "gpu-01", "r01",	  3,	     "10.0.0.3", "root",
					      "env:X",	"xe9680", "redfish", NULL,	 NULL,
					      0,	NULL,	  NULL,	     NULL,	 NULL };
	struct inv_fault faults[2] = {
		{ "bmc_unreachable", "timed out after 15001 ms", "check the cable", 1 },
		{ "psu", "PSU.Slot.2: Critical", "replace PSU.Slot.2", 0 },
	};
	struct inv_ticket_stats st = { 0 };
	struct inv_ticket *t;
	struct inv *inv;
	size_t n;

	(void)state;
	assert_int_equal(inv_open(":memory:", &inv, NULL), 0);
	assert_int_equal(inv_import(inv, &row, 1, "t", NULL, NULL), 0);
	assert_int_equal(inv_tickets_sync(inv, "gpu-01", faults, 2, &st, NULL), 0);
	assert_int_equal(st.opened, 2);
	/* The same again, timings aside: nothing changes. */
	faults[0].evidence = "timed out after 15002 ms";
	memset(&st, 0, sizeof(st));
	assert_int_equal(inv_tickets_sync(inv, "gpu-01", faults, 2, &st, NULL), 0);
	assert_int_equal(st.unchanged, 2);
	/* Digits are the evidence itself for a check: a change. */
	faults[1].evidence = "PSU.Slot.3: Critical";
	memset(&st, 0, sizeof(st));
	assert_int_equal(inv_tickets_sync(inv, "gpu-01", faults, 2, &st, NULL), 0);
	assert_int_equal(st.changed, 1);
	/* The PSU replaced: its ticket closes; back again: the same one reopens. */
	memset(&st, 0, sizeof(st));
	assert_int_equal(inv_tickets_sync(inv, "gpu-01", faults, 1, &st, NULL), 0);
	assert_int_equal(st.closed, 1);
	assert_int_equal(inv_tickets_list(inv, 0, &t, &n, NULL), 0);
	assert_int_equal(n, 1);
	inv_tickets_free(t, n);
	memset(&st, 0, sizeof(st));
	assert_int_equal(inv_tickets_sync(inv, "gpu-01", faults, 2, &st, NULL), 0);
	assert_int_equal(st.opened, 1);
	assert_int_equal(inv_tickets_list(inv, 1, &t, &n, NULL), 0);
	assert_int_equal(n, 2);
	assert_string_equal(t[1].fault, "psu");
	assert_int_equal(t[1].version, 4);
	assert_false(t[1].closed);
	assert_null(t[1].closed_at);
	assert_int_equal(inv_ticket_posted(inv, t[1].id, 4, NULL), 0);
	inv_tickets_free(t, n);
	assert_int_equal(inv_tickets_close_node(inv, "gpu-01", &n, NULL), 0);
	assert_int_equal(n, 2);
	assert_int_equal(inv_tickets_list(inv, 1, &t, &n, NULL), 0);
	assert_true(t[0].closed && t[1].closed);
	assert_int_equal(t[1].posted_version, 4);
	inv_tickets_free(t, n);
	inv_close(inv);
}

/* The serial a ticket shows: the BMC's, else the manifest's (a BMC that
 * never answered reported none), else none. */
static void test_node_serial(void **state)
{
	struct inv_node node = { 0 };
	char bmc[] = "CN-BMC", manifest[] = "CN-MANIFEST", empty[] = "";

	(void)state;
	assert_null(stg_tickets_node_serial(NULL));
	assert_null(stg_tickets_node_serial(&node));
	node.expected_serial = manifest;
	assert_string_equal(stg_tickets_node_serial(&node), "CN-MANIFEST");
	node.system_serial = empty;
	assert_string_equal(stg_tickets_node_serial(&node), "CN-MANIFEST");
	node.system_serial = bmc;
	assert_string_equal(stg_tickets_node_serial(&node), "CN-BMC");
	node.expected_serial = empty;
	node.system_serial = NULL;
	assert_null(stg_tickets_node_serial(&node));
}

/* Every shipped profile can prove a node (prof_check_provable), and its
 * [gate] required list leaves out no check its own expectations give: a
 * rule added later (gpu_health) that a list forgot would let a node with
 * that fault go golden. */
static void test_shipped_profiles_closed(void **state)
{
	static const char *const names[] = {
		"xe9680", "xl675d", "sr675v3", "sys-821ge", "gh200", "dgx-h100"
	};
	const char *top = getenv("BR_TOP");
	char *dir = br_xasprintf("%s/templates", top ? top : ".");

	(void)state;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct prof_profile p;
		struct br_strlist expected = { 0 };
		struct br_err err = { 0 };

		assert_int_equal(prof_load(dir, names[i], &p, &err), 0);
		if (prof_check_provable(&p, &err))
			fail_msg("%s", err.msg);
		val_checks_expected(&p, &expected);
		for (size_t k = 0; k < expected.n; k++)
			if (!val_gate_is_required(&p, expected.items[k]))
				fail_msg("profile %s: [gate] required leaves out %s", names[i],
					 expected.items[k]);
		br_strlist_release(&expected);
		prof_release(&p);
	}
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_render),
		cmocka_unit_test(test_render_no_default),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_shipped_actions),
		cmocka_unit_test(test_failure_fault),
		cmocka_unit_test(test_gate_failing),
		cmocka_unit_test(test_shipped_profiles_closed),
		cmocka_unit_test(test_ticket_store),
		cmocka_unit_test(test_node_serial),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
