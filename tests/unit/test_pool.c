/*
 * Unit tests for the worker pool (common/pool.c) and the inventory's part
 * of it (inventory/fork.c, through stages/workers.c): every target's line
 * reaches done once, in forked workers and in this process; a worker
 * killed mid-batch fails exactly the targets it had not reported, with the
 * reason; the one worker-count rule; each hook runs in the process it is
 * for; a worker whose start fails stops the run; each worker stores
 * through a connection of its own. Forked workers never assert: they
 * report, and this process checks.
 */
#define _DEFAULT_SOURCE
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "stages/workers.h"
#include "common.h"
#include "common/pool.h"
#include "inventory/inventory.h"

#define TARGETS 12

struct seen {
	int lines[TARGETS];  /* lines heard per target */
	int lost[TARGETS];   /* targets failed without a line */
	long value[TARGETS]; /* the line's "v" */
	long pid[TARGETS];   /* the process that worked it */
	int rc[TARGETS];
	char why[TARGETS][256];
	size_t victim; /* a worker whose slice holds this target dies mid-batch; TARGETS: none */
};

static void on_done(size_t i, json_t *line, int rc, const char *why, void *ctx)
{
	struct seen *s = ctx;

	if (!line) {
		s->lost[i]++;
		s->rc[i] = rc;
		snprintf(s->why[i], sizeof(s->why[i]), "%s", why ? why : "");
		return;
	}
	s->lines[i]++;
	s->value[i] = (long)json_integer_value(json_object_get(line, "v"));
	s->pid[i] = (long)json_integer_value(json_object_get(line, "pid"));
}

/* Each target's square; the victim's worker reports the targets before
 * the victim and is then killed, as the OOM killer or an operator would. */
static int square_work(struct br_pool_worker *w, size_t first, size_t count, void *ctx, struct br_err *err)
{
	const struct seen *s = ctx;

	for (size_t i = first; i < first + count; i++) {
		if (i == s->victim)
			raise(SIGKILL);
		br_pool_send(w, i,
			     json_pack("{s:I, s:I}", "v", (json_int_t)(i * i), "pid", (json_int_t)getpid()));
	}
	return 0;
}

static void run_squares(int n_workers, size_t victim, struct seen *s)
{
	const struct br_pool pool = { "test", "test", TARGETS, n_workers, 0, square_work, on_done, s, NULL };
	struct br_err err = { 0 };

	memset(s, 0, sizeof(*s));
	s->victim = victim;
	assert_int_equal(br_pool_exec(&pool, NULL, NULL, &err), 0);
}

/* Joined runs (configure's power domains): targets 1-5 and 7-8 each one
 * run. Four workers would cut at 3, 6 and 9: the first cut moves past the
 * run to 6, the second then has nothing and goes, the third cuts at 9.
 * Three workers, each run whole in one. */
static int joined_runs(size_t i, void *ctx)
{
	(void)ctx;
	return (i >= 2 && i <= 5) || i == 8;
}

static void test_joined_runs_stay_whole(void **state)
{
	static struct seen s;
	const struct br_pool pool = { "test", "test", TARGETS, 4, 0, square_work, on_done, &s, joined_runs };
	struct br_err err = { 0 };
	long pids[TARGETS];
	size_t n_pids = 0;

	(void)state;
	memset(&s, 0, sizeof(s));
	s.victim = TARGETS;
	assert_int_equal(br_pool_exec(&pool, NULL, NULL, &err), 0);
	for (size_t i = 0; i < TARGETS; i++) {
		int known = 0;

		assert_int_equal(s.lines[i], 1);
		assert_int_equal(s.value[i], (long)(i * i));
		for (size_t k = 0; k < n_pids; k++)
			known |= pids[k] == s.pid[i];
		if (!known)
			pids[n_pids++] = s.pid[i];
	}
	assert_int_equal(n_pids, 3);
	for (size_t i = 1; i < TARGETS; i++)
		if (joined_runs(i, NULL))
			assert_int_equal(s.pid[i], s.pid[i - 1]);
	/* the cuts: [0, 6), [6, 9), [9, 12) */
	assert_int_equal(s.pid[5], s.pid[0]);
	assert_int_not_equal(s.pid[6], s.pid[5]);
	assert_int_equal(s.pid[8], s.pid[6]);
	assert_int_not_equal(s.pid[9], s.pid[8]);
	assert_int_equal(s.pid[11], s.pid[9]);
}

static void test_results_per_target(void **state)
{
	struct seen s;
	long workers[4] = { 0 };
	int n_pids = 0;

	(void)state;
	run_squares(4, TARGETS, &s);
	for (size_t i = 0; i < TARGETS; i++) {
		int known = 0;

		assert_int_equal(s.lines[i], 1);
		assert_int_equal(s.lost[i], 0);
		assert_int_equal(s.value[i], (long)(i * i));
		assert_int_not_equal(s.pid[i], (long)getpid());
		for (int k = 0; k < n_pids; k++)
			known |= workers[k] == s.pid[i];
		if (!known) {
			assert_true(n_pids < 4);
			workers[n_pids++] = s.pid[i];
		}
	}
	assert_int_equal(n_pids, 4);
	/* contiguous slices of 3 */
	for (size_t i = 0; i < TARGETS; i++)
		assert_int_equal(s.pid[i], s.pid[i / 3 * 3]);

	run_squares(1, TARGETS, &s);
	for (size_t i = 0; i < TARGETS; i++) {
		assert_int_equal(s.lines[i], 1);
		assert_int_equal(s.value[i], (long)(i * i));
		assert_int_equal(s.pid[i], (long)getpid());
	}
}

static void test_worker_killed(void **state)
{
	struct seen s;

	(void)state;
	/* 3 workers of 4 targets: the second holds 4..7 and dies at 6 */
	run_squares(3, 6, &s);
	for (size_t i = 0; i < TARGETS; i++) {
		int unreported = i == 6 || i == 7;

		assert_int_equal(s.lines[i] + s.lost[i], 1);
		assert_int_equal(s.lost[i], unreported);
		if (unreported) {
			assert_int_equal(s.rc[i], BR_E_IO);
			assert_string_equal(s.why[i], "test worker exited with status 137 (signal 9)");
		} else {
			assert_int_equal(s.value[i], (long)(i * i));
		}
	}
}

static void test_workers_auto(void **state)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int most = cpus < 1 ? 1 : (int)cpus;

	(void)state;
	assert_int_equal(br_pool_workers_auto(0, 8, 64), 1);
	assert_int_equal(br_pool_workers_auto(7, 8, 64), 1);
	/* at most one per 8: 15 targets are worth one worker, not two */
	assert_int_equal(br_pool_workers_auto(15, 8, 64), 1);
	assert_int_equal(br_pool_workers_auto(16, 8, 64), most < 2 ? most : 2);
	assert_int_equal(br_pool_workers_auto(1000000, 8, 3), most < 3 ? most : 3);
	assert_int_equal(br_pool_workers_auto(1000000, 1, 1 << 20), most);
	/* the stages' and validate's counts are the same rule */
	assert_int_equal(stg_workers_auto(127), 1);
	assert_int_equal(stg_workers_auto(128), most < 2 ? most : 2);
}

/* ---- hooks ----------------------------------------------------------------- */

struct hooked {
	struct seen seen;
	pid_t parent;
	int before, after, fail_start;
	size_t reported, last_n_reported;
	int order_ok;
	int report_fd; /* write end: each worker_end writes its pid and forked flag */
	long data;     /* what worker_start hands the work */
};

static int before_fork(void *ctx, struct br_err *err)
{
	struct hooked *h = ctx;

	h->before += getpid() == h->parent;
	return 0;
}

static int after_fork(void *ctx, struct br_err *err)
{
	struct hooked *h = ctx;

	h->after += getpid() == h->parent;
	return 0;
}

static int worker_start(void *ctx, int forked, void **ret_data, struct br_err *err)
{
	struct hooked *h = ctx;

	if (h->fail_start && forked)
		return br_errf(err, BR_E_IO, "cannot start in %s",
			       getpid() == h->parent ? "parent" : "worker");
	h->data = getpid() * 2L + forked;
	*ret_data = &h->data;
	return 0;
}

static void worker_end(void *ctx, int forked, void *data)
{
	struct hooked *h = ctx;
	long note[2] = { (long)getpid(), forked + 2L * (data == &h->data) };

	if (write(h->report_fd, note, sizeof(note)) != (ssize_t)sizeof(note))
		_exit(5);
}

static void reported(void *ctx, size_t n_reported, size_t n)
{
	struct hooked *h = ctx;

	h->reported += getpid() == h->parent;
	h->order_ok &= n_reported == h->last_n_reported + 1 && n == TARGETS;
	h->last_n_reported = n_reported;
}

/* The line carries what worker_start gave, as the work sees it. */
static int data_work(struct br_pool_worker *w, size_t first, size_t count, void *ctx, struct br_err *err)
{
	const long *data = br_pool_worker_data(w);

	for (size_t i = first; i < first + count; i++)
		br_pool_send(w, i,
			     json_pack("{s:I, s:I}", "v", (json_int_t)(data ? *data : -1), "pid",
				       (json_int_t)(br_pool_worker_forked(w) ? getpid() : 0)));
	return 0;
}

static void done_hooked(size_t i, json_t *line, int rc, const char *why, void *ctx)
{
	on_done(i, line, rc, why, &((struct hooked *)ctx)->seen);
}

static int run_hooked(struct hooked *h, int n_workers, struct br_err *err)
{
	const struct br_pool pool = {
		"test", "test", TARGETS, n_workers, 0, data_work, done_hooked, h, NULL
	};
	const struct br_pool_fork_hooks hooks = { before_fork, after_fork, worker_start,
						  worker_end,  reported,   NULL,
						  h,	       0,	   0 };
	int fds[2], rc;

	memset(h, 0, sizeof(*h));
	h->parent = getpid();
	h->order_ok = 1;
	assert_int_equal(pipe(fds), 0);
	h->report_fd = fds[1];
	rc = br_pool_exec(&pool, &hooks, NULL, err);
	close(fds[1]);
	h->report_fd = fds[0];
	return rc;
}

static void test_hooks_processes(void **state)
{
	struct hooked h;
	struct br_err err = { 0 };
	long note[2];
	int ends = 0;

	(void)state;
	assert_int_equal(run_hooked(&h, 3, &err), 0);
	assert_int_equal(h.before, 1);
	assert_int_equal(h.after, 1);
	assert_int_equal(h.reported, TARGETS);
	assert_true(h.order_ok);
	assert_int_equal(h.last_n_reported, TARGETS);
	/* worker_start ran in the worker (its pid, forked) and its data
	 * reached the work there */
	for (size_t i = 0; i < TARGETS; i++) {
		assert_int_equal(h.seen.lines[i], 1);
		assert_int_not_equal(h.seen.pid[i], (long)getpid());
		assert_int_equal(h.seen.value[i], h.seen.pid[i] * 2 + 1);
	}
	/* worker_end: once in each worker, with its data */
	while (read(h.report_fd, note, sizeof(note)) == (ssize_t)sizeof(note)) {
		assert_int_not_equal(note[0], (long)getpid());
		assert_int_equal(note[1], 1 + 2);
		ends++;
	}
	close(h.report_fd);
	assert_int_equal(ends, 3);
	assert_int_equal(h.data, 0); /* nothing started here */

	/* one worker: start and end here, the fork's hooks never */
	assert_int_equal(run_hooked(&h, 1, &err), 0);
	assert_int_equal(h.before + h.after, 0);
	assert_int_equal(h.reported, 0);
	for (size_t i = 0; i < TARGETS; i++)
		assert_int_equal(h.seen.value[i], (long)getpid() * 2);
	assert_int_equal(read(h.report_fd, note, sizeof(note)), (ssize_t)sizeof(note));
	assert_int_equal(note[0], (long)getpid());
	assert_int_equal(note[1], 0 + 2);
	close(h.report_fd);
}

static void test_worker_start_fails(void **state)
{
	struct hooked h;
	const struct br_pool pool = { "test", "test", TARGETS, 2, 0, data_work, done_hooked, &h, NULL };
	const struct br_pool_fork_hooks hooks = { NULL, NULL, worker_start, NULL, NULL, NULL, &h, 0, 0 };
	struct br_err err = { 0 };

	(void)state;
	memset(&h, 0, sizeof(h));
	h.parent = getpid();
	h.fail_start = 1;
	assert_int_equal(br_pool_exec(&pool, &hooks, NULL, &err), BR_E_IO);
	assert_string_equal(err.msg, "cannot start in worker");
	for (size_t i = 0; i < TARGETS; i++)
		assert_int_equal(h.seen.lines[i], 0);
}

/* ---- the inventory's part ----------------------------------------------------- */

static const char *const node_names[TARGETS] = { "n00", "n01", "n02", "n03", "n04", "n05",
						 "n06", "n07", "n08", "n09", "n10", "n11" };

/* Each target's node gets a probe document naming the process that stored
 * it, through the worker's connection. */
static int inv_work(struct br_pool_worker *w, size_t first, size_t count, void *ctx, struct br_err *err)
{
	struct inv *inv = stg_pool_inv(w);

	for (size_t i = first; i < first + count; i++) {
		char doc[64];
		struct br_err store_err = { 0 };
		int rc;

		snprintf(doc, sizeof(doc), "{\"pid\":%ld}", (long)getpid());
		rc = inv ? inv_store_probe(inv, node_names[i], doc, &store_err) : -1;
		br_pool_send(w, i, json_pack("{s:i, s:I}", "v", rc, "pid", (json_int_t)getpid()));
	}
	return 0;
}

static void test_inventory_across_fork(void **state)
{
	char dir[] = "/tmp/test_pool.XXXXXX";
	struct inv_manifest_row rows[TARGETS];
	char *bmcs[TARGETS];
	struct br_err err = { 0 };
	struct inv *inv = NULL;
	struct seen s;
	char *path, *cmd;

	(void)state;
	assert_non_null(mkdtemp(dir));
	path = br_xasprintf("%s/inv.db", dir);
	assert_int_equal(inv_open(path, &inv, &err), 0);
	for (size_t i = 0; i < TARGETS; i++) {
		bmcs[i] = br_xasprintf("127.0.0.1:%zu", i + 1);
		rows[i] = (struct inv_manifest_row){ node_names[i], "r01",    (int)i + 1, bmcs[i],
						     "root",	    "env:PW", "xe9680",	  "redfish",
						     NULL,	    NULL,     0,	  NULL,
						     NULL,	    NULL,     NULL };
	}
	assert_int_equal(inv_import(inv, rows, TARGETS, "rack.csv", NULL, &err), 0);
	for (int n_workers = 1; n_workers <= 3; n_workers += 2) {
		const struct br_pool pool = { "test",	"test",	 TARGETS, n_workers, 0,
					      inv_work, on_done, &s,	  NULL };

		memset(&s, 0, sizeof(s));
		assert_int_equal(stg_pool_run(&inv, &pool, &err), 0);
		assert_non_null(inv); /* reopened */
		assert_string_equal(inv_path(inv), path);
		for (size_t i = 0; i < TARGETS; i++) {
			char *doc = NULL, *want = br_xasprintf("{\"pid\":%ld}", s.pid[i]);

			assert_int_equal(s.lines[i], 1);
			assert_int_equal(s.value[i], 0);
			/* this process with one worker, else a worker of its own */
			if (n_workers == 1)
				assert_int_equal(s.pid[i], (long)getpid());
			else
				assert_int_not_equal(s.pid[i], (long)getpid());
			/* what it stored is on this process's reopened connection */
			assert_int_equal(inv_load_probe(inv, node_names[i], &doc, &err), 0);
			assert_string_equal(doc, want);
			free(doc);
			free(want);
		}
	}
	for (size_t i = 0; i < TARGETS; i++)
		free(bmcs[i]);
	inv_close(inv);
	free(path);
	cmd = br_xasprintf("rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
	free(cmd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_results_per_target),    cmocka_unit_test(test_joined_runs_stay_whole),
		cmocka_unit_test(test_worker_killed),	      cmocka_unit_test(test_workers_auto),
		cmocka_unit_test(test_hooks_processes),	      cmocka_unit_test(test_worker_start_fails),
		cmocka_unit_test(test_inventory_across_fork),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
