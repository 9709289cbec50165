/* The Prometheus text file (metrics.h). Format: the text exposition
 * format 0.0.4 (prometheus.io/docs/instrumenting/exposition_formats):
 * "# HELP name text" and "# TYPE name gauge" once per metric before its
 * samples, label values with \\, \" and \n escaped, one sample a line. */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "stages/metrics.h"
#include "stages/stage.h"

/* Past this many distinct check names only the first are listed: a
 * check's name is ours, so this is never reached in practice. */
#define METRICS_CHECKS_MAX 1024

struct count {
	char *name;
	size_t n;
};

struct counts {
	struct count *items;
	size_t n, cap;
};

static void counts_add(struct counts *c, const char *name)
{
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->items[i].name, name)) {
			c->items[i].n++;
			return;
		}
	if (c->n == METRICS_CHECKS_MAX)
		return;
	if (c->n == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 16;
		c->items = br_xrealloc(c->items, c->cap * sizeof(*c->items));
	}
	c->items[c->n++] = (struct count){ br_xstrdup(name), 1 };
}

static int count_cmp(const void *a, const void *b)
{
	return strcmp(((const struct count *)a)->name, ((const struct count *)b)->name);
}

static void counts_release(struct counts *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->items[i].name);
	free(c->items);
}

static void header(struct br_buf *b, const char *name, const char *help)
{
	br_buf_addf(b, "# HELP %s %s\n# TYPE %s gauge\n", name, help, name);
}

/* name{label="value"} number: the value escaped as the format asks. */
static void sample(struct br_buf *b, const char *name, const char *label, const char *value, double v)
{
	br_buf_adds(b, name);
	if (label) {
		br_buf_addf(b, "{%s=\"", label);
		for (const char *p = value; *p; p++) {
			if (*p == '\\' || *p == '"')
				br_buf_addf(b, "\\%c", *p);
			else if (*p == '\n')
				br_buf_adds(b, "\\n");
			else
				br_buf_add(b, p, 1);
		}
		br_buf_adds(b, "\"}");
	}
	/* %.17g keeps every bit of a double; integers print as integers */
	if (isnan(v))
		br_buf_adds(b, " NaN\n");
	else
		br_buf_addf(b, " %.17g\n", v);
}

static int is_bmc_kind(enum br_fail_kind k)
{
	return k == BR_FAIL_BMC_UNREACHABLE || k == BR_FAIL_BMC_AUTH || k == BR_FAIL_BMC_DEADLINE ||
	       k == BR_FAIL_BMC_TLS || k == BR_FAIL_BMC_PROTOCOL;
}

/* Nodes per state, checks failing, failed nodes by kind, tickets open. */
static int inventory_metrics(struct inv *inv, struct br_buf *b, struct br_err *err)
{
	struct inv_node *nodes = NULL;
	struct inv_ticket *tickets = NULL;
	size_t nn = 0, nt = 0, open = 0;
	size_t per_state[INV_STATE_COUNT] = { 0 }, per_kind[BR_FAIL_COUNT] = { 0 };
	struct counts failing = { 0 };
	int rc = inv_nodes_list(inv, &nodes, &nn, err) || inv_tickets_list(inv, 0, &tickets, &nt, err);

	for (size_t i = 0; !rc && i < nn; i++) {
		struct inv_check *checks = NULL;
		size_t nc = 0;

		if (nodes[i].state < INV_STATE_COUNT)
			per_state[nodes[i].state]++;
		if (nodes[i].state == INV_FAILED && nodes[i].failure_kind < BR_FAIL_COUNT)
			per_kind[nodes[i].failure_kind]++;
		if (inv_node_checks(inv, nodes[i].id, &checks, &nc, err)) {
			rc = -1;
			break;
		}
		for (size_t k = 0; k < nc; k++)
			if (checks[k].result == INV_CHECK_FAIL)
				counts_add(&failing, checks[k].name);
		inv_checks_free(checks, nc);
	}
	for (size_t i = 0; !rc && i < nt; i++)
		open += !tickets[i].closed;
	if (!rc) {
		header(b, "bringup_nodes", "Nodes in the inventory, by state.");
		for (int s = 0; s < INV_STATE_COUNT; s++)
			sample(b, "bringup_nodes", "state", inv_state_name((enum inv_state)s),
			       (double)per_state[s]);
		header(b, "bringup_checks_failed",
		       "Nodes whose latest result of a check is a failure, by check.");
		qsort(failing.items, failing.n, sizeof(*failing.items), count_cmp);
		for (size_t i = 0; i < failing.n; i++)
			sample(b, "bringup_checks_failed", "check", failing.items[i].name,
			       (double)failing.items[i].n);
		header(b, "bringup_nodes_failed", "Failed nodes, by the kind of failure.");
		for (int k = BR_FAIL_STAGE; k < BR_FAIL_COUNT; k++)
			sample(b, "bringup_nodes_failed", "kind", br_fail_kind_name((enum br_fail_kind)k),
			       (double)per_kind[k]);
		header(b, "bringup_bmc_errors",
		       "Nodes failed by their BMC (unreachable, credentials, deadline, TLS, protocol), by "
		       "kind.");
		for (int k = BR_FAIL_STAGE; k < BR_FAIL_COUNT; k++)
			if (is_bmc_kind((enum br_fail_kind)k))
				sample(b, "bringup_bmc_errors", "kind",
				       br_fail_kind_name((enum br_fail_kind)k), (double)per_kind[k]);
		header(b, "bringup_tickets_open", "Open tickets.");
		sample(b, "bringup_tickets_open", NULL, NULL, (double)open);
	}
	counts_release(&failing);
	inv_tickets_free(tickets, nt);
	inv_nodes_free(nodes, nn);
	return rc ? -1 : 0;
}

/* The run's stages: wall time and exit code of each that ran. */
static void run_metrics(const json_t *run, struct br_buf *b)
{
	const json_t *stages = json_object_get(run, "stages"), *st;
	size_t i;

	header(b, "bringup_stage_duration_seconds", "Wall time of each stage in the last bringup run.");
	json_array_foreach(stages, i, st) if (json_is_number(json_object_get(st, "seconds"))) sample(
	    b, "bringup_stage_duration_seconds", "stage", json_string_value(json_object_get(st, "name")),
	    json_number_value(json_object_get(st, "seconds")));
	header(b, "bringup_stage_exit_code", "Exit status of each stage in the last bringup run.");
	json_array_foreach(stages, i, st) if (json_is_integer(json_object_get(st, "exit")))
	    sample(b, "bringup_stage_exit_code", "stage", json_string_value(json_object_get(st, "name")),
		   (double)json_integer_value(json_object_get(st, "exit")));
	header(b, "bringup_run_duration_seconds", "Wall time of the last bringup run.");
	sample(b, "bringup_run_duration_seconds", NULL, NULL,
	       json_number_value(json_object_get(run, "seconds")));
	header(b, "bringup_run_exit_code", "Exit status of the last bringup run.");
	sample(b, "bringup_run_exit_code", NULL, NULL,
	       (double)json_integer_value(json_object_get(run, "exit")));
	header(b, "bringup_run_end_timestamp_seconds",
	       "When the last bringup run ended, in seconds since the epoch.");
	sample(b, "bringup_run_end_timestamp_seconds", NULL, NULL, (double)time(NULL));
}

/* text to path by a temporary file beside it, renamed over it. */
static int write_atomically(const char *path, const char *text, size_t len, struct br_err *err)
{
	char *tmp = br_xasprintf("%s.tmp.XXXXXX", path);
	int fd = mkstemp(tmp), rc = 0;
	size_t off = 0;

	if (fd < 0) {
		rc = br_errf(err, BR_E_IO, "metrics file %s: cannot create %s: %s", path, tmp,
			     strerror(errno));
		free(tmp);
		return rc;
	}
	/* mkstemp's 0600 would keep node_exporter, another user, out */
	if (fchmod(fd, 0644))
		rc = br_errf(err, BR_E_IO, "metrics file %s: chmod %s: %s", path, tmp, strerror(errno));
	while (!rc && off < len) {
		ssize_t w = write(fd, text + off, len - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			rc = br_errf(err, BR_E_IO, "metrics file %s: write %s: %s", path, tmp,
				     strerror(errno));
		else
			off += (size_t)w;
	}
	if (!rc && fsync(fd))
		rc = br_errf(err, BR_E_IO, "metrics file %s: fsync %s: %s", path, tmp, strerror(errno));
	if (close(fd) && !rc)
		rc = br_errf(err, BR_E_IO, "metrics file %s: close %s: %s", path, tmp, strerror(errno));
	if (!rc && rename(tmp, path))
		rc = br_errf(err, BR_E_IO, "metrics file %s: rename %s: %s", path, tmp, strerror(errno));
	if (rc)
		unlink(tmp);
	free(tmp);
	return rc;
}

int stg_metrics_write(struct inv *inv, const json_t *run, const char *path, struct br_err *err)
{
	struct br_buf b;
	int rc;

	br_buf_init(&b, 0);
	rc = inventory_metrics(inv, &b, err);
	if (rc)
		br_err_prefix(err, "metrics file %s", path);
	if (!rc && run)
		run_metrics(run, &b);
	if (!rc)
		rc = write_atomically(path, br_buf_str(&b), strlen(br_buf_str(&b)), err);
	br_buf_release(&b);
	return rc;
}

const char *stg_metrics_path(void)
{
	const char *p = getenv(STG_METRICS_ENV);

	return p && *p ? p : NULL;
}

int stg_metrics_path_check(const char *path, struct br_err *err)
{
	char *copy = br_xstrdup(path), *dir = dirname(copy);
	struct stat sb;
	int rc = 0;

	if (!*path)
		rc = br_errf(err, BR_E_INVAL, "metrics file: an empty path");
	else if (!stat(path, &sb) && S_ISDIR(sb.st_mode))
		rc = br_errf(err, BR_E_INVAL, "metrics file %s: is a directory", path);
	else if (stat(dir, &sb) || !S_ISDIR(sb.st_mode))
		rc = br_errf(err, BR_E_INVAL, "metrics file %s: no directory %s", path, dir);
	else if (access(dir, W_OK | X_OK))
		rc = br_errf(err, BR_E_INVAL, "metrics file %s: cannot write in %s: %s", path, dir,
			     strerror(errno));
	free(copy);
	return rc;
}

int stg_metrics_take_option(int *argc, char **argv, struct br_err *err)
{
	const char *path = NULL;
	int out = 0, i;

	for (i = 0; i < *argc && strcmp(argv[i], "--"); i++) {
		if (!strcmp(argv[i], "--metrics-file")) {
			if (i + 1 >= *argc)
				return br_errf(err, BR_E_INVAL, "--metrics-file needs a PATH");
			path = argv[++i];
		} else if (!strncmp(argv[i], "--metrics-file=", 15)) {
			path = argv[i] + 15;
		} else {
			argv[out++] = argv[i];
		}
	}
	for (; i < *argc; i++)
		argv[out++] = argv[i];
	*argc = out;
	argv[out] = NULL;
	if (!path)
		path = stg_metrics_path();
	if (!path)
		return 0;
	if (stg_metrics_path_check(path, err))
		return BR_E_INVAL;
	setenv(STG_METRICS_ENV, path, 1);
	return 0;
}

int stg_metrics_after_run(const char *db, json_t *run, int exit_code)
{
	const char *path = stg_metrics_path();
	struct br_err err = { 0 };
	struct inv *inv = NULL;
	int rc;

	if (!path)
		return exit_code;
	rc = inv_open_with(db, INV_OPEN_READONLY, &inv, &err) || stg_metrics_write(inv, run, path, &err);
	if (inv)
		inv_close(inv);
	if (!rc)
		return exit_code;
	br_error("run", "%s", err.msg);
	if (exit_code < STG_EXIT_UNREACHABLE)
		exit_code = STG_EXIT_UNREACHABLE;
	json_object_set_new(run, "exit", json_integer(exit_code));
	return exit_code;
}
