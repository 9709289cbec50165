/*
 * The stages' runs (stages/discover.c, configure_run.c, enlist_stage.c):
 * their option checks and plans, and runs that end before any network
 * request, over an in-memory inventory.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "stages/stages.h"
#include "inventory/inv_private.h" /* the connection, to cap its pages */

struct fixture {
	struct stg_stage st;
	struct br_command cmd;
};

/* One node, gpu-a, in state new, its password behind an unset variable. */
static int setup(void **state)
{
	const struct inv_manifest_row row = { "gpu-a",
					      "r01",
					      1,
					      "127.0.0.1:1",
					      "root",
					      "env:STG_TEST_UNSET_PASSWORD",
					      "no-such-profile",
					      "redfish",
					      NULL,
					      NULL,
					      2,
					      NULL,
					      NULL,
					      NULL,
					      NULL };
	struct fixture *f = br_xcalloc(1, sizeof(*f));
	struct br_err err = { 0 };

	unsetenv("STG_TEST_UNSET_PASSWORD");
	f->cmd = (struct br_command){ "bringup-test", "", "", NULL, NULL };
	f->st.cmd = &f->cmd;
	assert_int_equal(inv_open(":memory:", &f->st.inv, &err), 0);
	assert_int_equal(inv_import(f->st.inv, &row, 1, "rack.csv", NULL, &err), 0);
	assert_int_equal(inv_nodes_list(f->st.inv, &f->st.nodes, &f->st.n, &err), 0);
	assert_int_equal(f->st.n, 1);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	inv_nodes_free(f->st.nodes, f->st.n);
	inv_close(f->st.inv);
	free(f);
	return 0;
}

static enum inv_state state_of(struct inv *inv, const char *hostname)
{
	struct inv_node node;
	enum inv_state s;

	assert_int_equal(inv_node_get(inv, hostname, &node, NULL), 0);
	s = node.state;
	inv_node_release(&node);
	return s;
}

static void test_discover_options(void **state)
{
	struct fixture *f = *state;
	struct stg_discover_options o = { 0 };

	assert_int_equal(stg_bmc_opts_init(&o.bmc, "bringup-test"), 0);
	o.workers = -1;
	assert_int_not_equal(stg_discover_options_check(&f->st, &o), 0);
	assert_int_equal(f->st.exit, STG_EXIT_USAGE);
	f->st.exit = 0;
	o.workers = 4;
	assert_int_equal(stg_discover_options_check(&f->st, &o), 0);
}

/* A node whose password reference does not resolve fails before any
 * request, with the reason naming the variable; the run's document says so. */
static void test_discover_unresolved_password(void **state)
{
	struct fixture *f = *state;
	struct stg_discover_options o = { 0 };
	struct stg_discover_run run = { 0 };
	json_t *doc;

	assert_int_equal(stg_bmc_opts_init(&o.bmc, "bringup-test"), 0);
	assert_int_equal(stg_discover_options_check(&f->st, &o), 0);
	assert_int_equal(stg_discover_run(&f->st, &o, &run), 0);
	assert_int_equal(run.n_jobs, 1);
	assert_int_equal(run.failed, 1);
	assert_false(run.jobs[0].ok);
	assert_non_null(strstr(run.jobs[0].reason, "STG_TEST_UNSET_PASSWORD"));
	assert_int_equal(state_of(f->st.inv, "gpu-a"), INV_FAILED);
	doc = stg_discover_json(&run);
	assert_int_equal(json_integer_value(json_object_get(doc, "failed")), 1);
	assert_int_equal(json_integer_value(json_object_get(doc, "discovered")), 0);
	assert_string_equal(
	    json_string_value(json_object_get(json_array_get(json_object_get(doc, "nodes"), 0), "result")),
	    "failed");
	json_decref(doc);
	stg_discover_run_release(&run);
}

/* Worker processes: --workers, capped by the reset slots (not in a dry
 * run) and by the BMCs, at least one. */
static void test_configure_workers(void **state)
{
	struct stg_configure_options o = { .workers = 5, .max_resets = 3 };

	assert_int_equal(stg_configure_workers(&o, 100), 3);
	o.dry_run = 1;
	assert_int_equal(stg_configure_workers(&o, 100), 5);
	assert_int_equal(stg_configure_workers(&o, 2), 2);
	o.workers = 0;
	assert_int_equal(stg_configure_workers(&o, 0), 1);
}

static void test_configure_options(void **state)
{
	struct fixture *f = *state;
	struct stg_configure_options o = { .max_resets = 8, .poll_ms = 5000, .job_timeout_s = 1800 };

	assert_int_equal(stg_bmc_opts_init(&o.bmc, "bringup-test"), 0);
	o.max_resets = 0;
	assert_int_not_equal(stg_configure_options_check(&f->st, &o), 0);
	assert_int_equal(f->st.exit, STG_EXIT_USAGE);
	f->st.exit = 0;
	o.max_resets = 8;
	o.dry_run = 1;
	assert_int_equal(stg_configure_options_check(&f->st, &o), 0);
	assert_true(f->st.no_lease); /* a dry run changes nothing */
	assert_false(o.rf.use_expand);
}

/* A profile that does not load stops the run (exit 2) before any node is
 * touched. */
static void test_configure_bad_profile(void **state)
{
	struct fixture *f = *state;
	struct stg_configure_options o = { .max_resets = 8, .poll_ms = 5000, .job_timeout_s = 1800 };
	struct stg_configure_run run = { 0 };
	char *templates = br_xasprintf("%s/templates", getenv("BR_TOP") ? getenv("BR_TOP") : ".");

	setenv("BRINGUP_TEMPLATES", templates, 1);
	assert_int_equal(stg_bmc_opts_init(&o.bmc, "bringup-test"), 0);
	assert_int_equal(stg_configure_options_check(&f->st, &o), 0);
	assert_int_not_equal(stg_configure_run(&f->st, &o, NULL, &run), 0);
	assert_int_equal(f->st.exit, STG_EXIT_USAGE);
	assert_int_equal(run.done, 0);
	assert_int_equal(state_of(f->st.inv, "gpu-a"), INV_NEW);
	stg_configure_run_release(&run);
	unsetenv("BRINGUP_TEMPLATES");
	free(templates);
}

/* The inputs the check loaded are the run's: a profile and a wiring list
 * gone between the check and the run (an edit, a botched deploy of the
 * site's files) change nothing of this round's run, which would otherwise
 * stop on them; the next round's check sees them gone. */
static void test_configure_inputs_handed_over(void **state)
{
	struct fixture *f = *state;
	struct stg_configure_options o = { .max_resets = 8, .poll_ms = 5000, .job_timeout_s = 1800 };
	struct stg_configure_inputs in = { .o = &o };
	struct stg_configure_run run = { 0 };
	const char *top = getenv("BR_TOP") ? getenv("BR_TOP") : ".";
	char dir[] = "/tmp/test_stages.XXXXXX", *cmd, *wiring, *templates;

	assert_non_null(mkdtemp(dir));
	templates = br_xasprintf("%s/templates", dir);
	wiring = br_xasprintf("%s/wiring.csv", dir);
	/* the fixture's node names profile no-such-profile: here it is one */
	cmd = br_xasprintf(
	    "mkdir -p %s/profiles && cp -R %s/templates/profiles/xe9680 %s/profiles/no-such-profile "
	    "&& printf 'hostname,host_port,switch,switch_port\ngpu-a,NIC.Slot.1-1,leaf-1,1\n' > %s",
	    templates, top, templates, wiring);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	setenv("BRINGUP_TEMPLATES", templates, 1);
	o.wiring = wiring;
	assert_int_equal(stg_bmc_opts_init(&o.bmc, "bringup-test"), 0);
	assert_int_equal(stg_configure_options_check(&f->st, &o), 0);
	assert_int_equal(stg_configure_inputs_check(f->st.nodes, f->st.n, &in), 0);
	assert_int_equal(in.profiles.n, 1);
	assert_true(in.have_wiring);

	cmd = br_xasprintf("rm -rf %s/profiles %s", templates, wiring);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	/* the run goes on (its node fails on its unset password, alone) */
	assert_int_equal(stg_configure_run(&f->st, &o, &in, &run), 0);
	assert_int_not_equal(f->st.exit, STG_EXIT_USAGE);
	assert_int_equal(run.n_jobs, 1);
	assert_non_null(run.jobs[0].profile);
	assert_true(run.inputs.have_wiring);
	assert_int_equal(in.profiles.n, 0); /* handed over, not copied */
	assert_false(in.have_wiring);
	stg_configure_run_release(&run);
	/* the next round's check reads them again */
	assert_int_equal(stg_configure_inputs_check(f->st.nodes, f->st.n, &in), STG_EXIT_USAGE);
	stg_configure_inputs_release(&in);

	cmd = br_xasprintf("rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	unsetenv("BRINGUP_TEMPLATES");
	free(templates);
	free(wiring);
}

static void test_maas_url(void **state)
{
	assert_true(stg_maas_url_is_api_root("http://maas:5240/MAAS/"));
	assert_true(stg_maas_url_is_api_root("http://maas:5240/MAAS"));
	assert_true(stg_maas_url_is_api_root("https://10.0.0.1/MAAS/"));
	assert_false(stg_maas_url_is_api_root("http://maas:5240/"));
	assert_false(stg_maas_url_is_api_root("http://maas:5240/MAAS/api/2.0/"));
	assert_false(stg_maas_url_is_api_root("maas/MAAS/"));
	assert_false(stg_maas_url_is_api_root(""));
}

/* Picked by state, a node that failed before MAAS saw it is not enlist's;
 * named, it is. */
static void test_enlist_takes(void **state)
{
	struct stg_stage st = { 0 };
	struct inv_node node = { .state = INV_FAILED };
	char *argv[] = { "bringup-enlist", "gpu-a" };

	st.argc = 2;
	st.argv = argv;
	st.argi = 2;
	assert_false(stg_enlist_stage_takes(&st, &node));
	node.maas_system_id = "abc123";
	assert_true(stg_enlist_stage_takes(&st, &node));
	node.maas_system_id = NULL;
	node.state = INV_CONFIGURED;
	assert_true(stg_enlist_stage_takes(&st, &node));
	node.state = INV_FAILED;
	st.argi = 1;
	assert_true(stg_enlist_stage_takes(&st, &node));
}

static void test_enlist_options(void **state)
{
	struct fixture *f = *state;
	struct stg_enlist_stage_options o = {
		.maas.timeout_s = 30, .max_parallel = 64, .max_inflight = 32, .poll_ms = 1000, .retries = 5
	};
	struct stg_enlist_stage run = { 0 };

	o.poll_ms = 5;
	assert_int_not_equal(stg_enlist_stage_check(&f->st, &o), 0);
	assert_int_equal(f->st.exit, STG_EXIT_USAGE);
	f->st.exit = 0;
	o.poll_ms = 1000; /* no SSH key and no --no-ssh-key: nobody could validate the nodes */
	assert_int_not_equal(stg_enlist_stage_check(&f->st, &o), 0);
	assert_int_equal(f->st.exit, STG_EXIT_USAGE);
	stg_enlist_stage_release(&run, &o);
}

/* Issue 29, finding 1: a gate whose verdicts the inventory refuses (its
 * database cannot grow: SQLite's max_page_count, as a full disk) says so
 * per node with the inventory's message, and the stage ends with exit 3,
 * not 1 with empty "inventory: " lines. */
static void test_gate_inventory_full(void **state)
{
	enum { N = 24 };
	struct stg_stage st = { 0 };
	struct br_command cmd = { "bringup-gate", "", "", NULL, NULL };
	struct inv_manifest_row rows[N];
	char names[N][16], bmcs[N][24];
	struct stg_gate_options o = { .no_maas = 1 };
	struct stg_gate_run run = { 0 };
	struct br_err err = { 0 };
	char *templates = br_xasprintf("%s/templates", getenv("BR_TOP") ? getenv("BR_TOP") : ".");
	char detail[300];

	(void)state;
	setenv("BRINGUP_TEMPLATES", templates, 1);
	memset(detail, 'x', sizeof(detail) - 1);
	detail[sizeof(detail) - 1] = 0;
	for (int i = 0; i < N; i++) {
		snprintf(names[i], sizeof(names[i]), "gpu-%02d", i);
		snprintf(bmcs[i], sizeof(bmcs[i]), "127.0.0.1:%d", 1000 + i);
		rows[i] = (struct inv_manifest_row){ .hostname = names[i],
						     .rack = "r01",
						     .unit = i + 1,
						     .bmc = bmcs[i],
						     .bmc_user = "root",
						     .bmc_password_ref = "env:X",
						     .profile = "xe9680",
						     .bmc_type = "redfish",
						     .line = i + 2 };
	}
	st.cmd = &cmd;
	assert_int_equal(inv_open(":memory:", &st.inv, &err), 0);
	if (inv_import(st.inv, rows, N, "rack.csv", NULL, &err))
		fail_msg("%s", err.msg);
	for (int i = 0; i < N; i++) {
		struct inv_check check = { "pcie", INV_CHECK_FAIL, detail, NULL, NULL };

		assert_int_equal(inv_node_set_state(st.inv, names[i], INV_NEW, INV_VALIDATED, "test", &err),
				 0);
		assert_int_equal(inv_checks_put(st.inv, names[i], "validate", &check, 1, &err), 0);
	}
	assert_int_equal(inv_nodes_list(st.inv, &st.nodes, &st.n, &err), 0);
	/* no page more than it has now */
	assert_int_equal(invb_exec(st.inv->db, "PRAGMA max_page_count = 1"), 0);
	assert_int_equal(stg_gate_run(&st, &o, &run), 0);
	stg_stage_report(&st, stg_gate_json, stg_gate_print, &run, run.errors);
	assert_int_equal(run.quarantined, 0);
	assert_int_equal(run.errors, N);
	for (size_t i = 0; i < run.n; i++) {
		assert_int_equal(run.jobs[i].target, INV_VALIDATED);
		assert_non_null(strstr(br_buf_str(&run.jobs[i].maas_error), "inventory: inventory :memory:"));
	}
	assert_non_null(st.inventory_error);
	assert_int_equal(st.unrecorded, N);
	assert_int_equal(stg_stage_close(&st), STG_EXIT_UNREACHABLE);
	stg_gate_run_release(&run);
	unsetenv("BRINGUP_TEMPLATES");
	free(templates);
}

/* The metrics file (stages/metrics.c): a check name the exposition format
 * must escape (backslash, double quote, newline), written by a rename
 * that leaves no temporary file, and a directory that is not there named
 * in the error. */
static void test_metrics_file(void **state)
{
	struct fixture *f = *state;
	const struct inv_check checks[] = {
		{ "we\"ird\\na\nme", INV_CHECK_FAIL, "detail", NULL, NULL },
		{ "pcie", INV_CHECK_PASS, NULL, NULL, NULL },
	};
	char dir[] = "/tmp/test_metrics.XXXXXX";
	struct br_err err = { 0 };
	char *path, *text = NULL, *missing;
	size_t len = 0;
	FILE *fp;

	assert_non_null(mkdtemp(dir));
	path = br_xasprintf("%s/bringup.prom", dir);
	assert_int_equal(inv_checks_put(f->st.inv, "gpu-a", "validate", checks, 2, &err), 0);
	assert_int_equal(stg_metrics_write(f->st.inv, NULL, path, &err), 0);
	fp = fopen(path, "r");
	assert_non_null(fp);
	assert_true(getdelim(&text, &len, '\0', fp) > 0);
	fclose(fp);
	assert_non_null(strstr(text, "# TYPE bringup_nodes gauge\n"));
	assert_non_null(strstr(text, "\nbringup_nodes{state=\"new\"} 1\n"));
	assert_non_null(strstr(text, "\nbringup_checks_failed{check=\"we\\\"ird\\\\na\\nme\"} 1\n"));
	assert_null(strstr(text, "check=\"pcie\""));
	assert_null(strstr(text, "bringup_stage_duration_seconds")); /* no run given */
	free(text);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(rmdir(dir), 0); /* empty: no temporary file left */
	missing = br_xasprintf("%s/no/such/dir/bringup.prom", dir);
	assert_int_not_equal(stg_metrics_write(f->st.inv, NULL, missing, &err), 0);
	assert_non_null(strstr(err.msg, missing));
	assert_int_not_equal(stg_metrics_path_check(missing, &err), 0);
	assert_non_null(strstr(err.msg, "no directory"));
	free(missing);
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_discover_options, setup, teardown),
		cmocka_unit_test_setup_teardown(test_discover_unresolved_password, setup, teardown),
		cmocka_unit_test(test_configure_workers),
		cmocka_unit_test_setup_teardown(test_configure_options, setup, teardown),
		cmocka_unit_test_setup_teardown(test_configure_bad_profile, setup, teardown),
		cmocka_unit_test_setup_teardown(test_configure_inputs_handed_over, setup, teardown),
		cmocka_unit_test(test_maas_url),
		cmocka_unit_test(test_gate_inventory_full),
		cmocka_unit_test(test_enlist_takes),
		cmocka_unit_test_setup_teardown(test_enlist_options, setup, teardown),
		cmocka_unit_test_setup_teardown(test_metrics_file, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
