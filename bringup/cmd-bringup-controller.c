/*
 * bringup controller: bringup run's flow as a long-lived service. A pass
 * is one bringup run (bringup/run.c: every stage at once, each node moving
 * on as it is done, then tickets); between passes it waits for the
 * inventory's events (inv_events_wait: PostgreSQL's NOTIFY, or a poll on
 * SQLite) and starts the next pass when nodes became ready (imported,
 * reprovisioned, unretired). Nodes at rest (golden, quarantined, failed)
 * are never taken again by a pass: the flow's stages are told so in their
 * go ahead, so a dead BMC is not retried every pass; an operator action
 * (bringup reprovision, unretire, a re-import) that moves one back makes
 * it ready again. SIGTERM or SIGINT: no new pass, the stages of the one
 * running wind down (leases given back, BMC sessions logged out), exit 0.
 */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bringup/run.h"
#include "stages/stages.h"
#include "loop.h"

#define CTL_INTERVAL_DEFAULT 60
/* The longest one wait for events lasts: a signal is looked at after it. */
#define CTL_WAIT_MS 500

static void usage(FILE *f)
{
	fprintf(f,
		"usage: bringup controller [--json] [--interval SECONDS] [--metrics-file PATH]\n"
		"                          [stage-options]\n\n"
		"Run bringup run's flow as a service: a pass over the nodes ready for a stage, then\n"
		"wait for the inventory's events (or the interval) and run again for the nodes that\n"
		"became ready: imported, reprovisioned, unretired. Golden, quarantined and failed\n"
		"nodes are left alone until an operator action moves them back (bringup reprovision).\n"
		"SIGTERM or SIGINT: no new pass; the stages running give their nodes back and log\n"
		"out of their BMCs; exit 0. A second signal stops the stages at once.\n\n"
		"options:\n"
		"  %-28s %s\n  %-28s %s\n  %-28s %s\n  %-28s %s\n  %-28s %s\n  %-28s %s\n\n"
		"Every other option goes to every stage that takes it, as bringup run does (--db,\n"
		"--zone, --skip-configure, MAAS, SSH, wiring, -q). Settings come from bringup.conf\n"
		"(controller.interval is $BRINGUP_CONTROLLER_INTERVAL). See bringup-controller(1).\n",
		"    --json", "one JSON object a line per pass on stdout (the stages' output on stderr)",
		"    --interval SECONDS",
		"a pass at least this often while nodes wait, events or not (default 60)",
		"    --metrics-file PATH", "write Prometheus metrics there after each pass", "    --db PATH",
		"inventory database (default $BRINGUP_DB or ./bringup.db)", "-h, --help",
		"show this help and exit", "    --version", "print the version and exit");
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int is_rest(enum inv_state s)
{
	return s == INV_GOLDEN || s == INV_QUARANTINED || s == INV_FAILED;
}

/* Where the nodes of the controller's zone stand: ready (in a stage's
 * states and not at rest), as sorted "HOST STATE" words to compare one
 * look with another, and at rest, as host names for the flow to skip. */
struct look {
	struct br_strlist ready;
	struct br_strlist rest;
};

static void look_release(struct look *l)
{
	br_strlist_release(&l->ready);
	br_strlist_release(&l->rest);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int same_ready(const struct look *a, const struct look *b)
{
	if (a->ready.n != b->ready.n)
		return 0;
	for (size_t i = 0; i < a->ready.n; i++)
		if (strcmp(a->ready.items[i], b->ready.items[i]))
			return 0;
	return 1;
}

static int look_at(struct inv *inv, const char *zone, struct look *l, struct br_err *err)
{
	struct inv_node *nodes = NULL;
	size_t n = 0;

	memset(l, 0, sizeof(*l));
	if (inv_nodes_list(inv, &nodes, &n, err))
		return -1;
	for (size_t i = 0; i < n; i++) {
		const struct inv_node *node = &nodes[i];

		if (!br_zones_have(zone, node->zone))
			continue;
		if (is_rest(node->state)) {
			br_strlist_add(&l->rest, node->hostname);
		} else if (node->state != INV_RETIRED && node->state < INV_STATE_COUNT) {
			char *word = br_xasprintf("%s %s", node->hostname, inv_state_name(node->state));

			br_strlist_add(&l->ready, word);
			free(word);
		}
	}
	if (l->ready.n)
		qsort(l->ready.items, l->ready.n, sizeof(*l->ready.items), cmp_str);
	inv_nodes_free(nodes, n);
	return 0;
}

/* The pass's line: its summary (drv_run_pass) within the controller's own
 * fields (docs/schema/controller.schema.json), one compact JSON object
 * (--json), or on a terminal a short line. */
static void report_pass(json_t *run, long pass, const struct look *l, const char *why, int json)
{
	json_t *doc =
	    json_pack("{s:i, s:i, s:s, s:I, s:I}", "schema_version", STG_SCHEMA_CONTROLLER, "pass", (int)pass,
		      "why", why, "ready", (json_int_t)l->ready.n, "at_rest", (json_int_t)l->rest.n);

	if (drv_run_signal())
		json_object_set_new(doc, "signal", json_string(br_signal_name(drv_run_signal())));
	json_object_set(doc, "run", run);
	if (json) {
		char *line = json_dumps(doc, JSON_COMPACT | JSON_PRESERVE_ORDER);

		if (line)
			printf("%s\n", line);
		free(line);
		fflush(stdout);
	} else if (isatty(STDOUT_FILENO)) {
		const char *key;
		json_t *v;

		printf("pass %ld (%s): %zu ready, %.1f s, exit %lld; states:", pass, why, l->ready.n,
		       json_real_value(json_object_get(run, "seconds")),
		       (long long)json_integer_value(json_object_get(run, "exit")));
		json_object_foreach(json_object_get(run, "states"), key, v)
		    printf(" %s %lld", key, (long long)json_integer_value(v));
		printf("\n");
		fflush(stdout);
	}
	br_info("controller", "pass %ld (%s): %zu ready, exit %lld", pass, why, l->ready.n,
		(long long)json_integer_value(json_object_get(run, "exit")));
	json_decref(doc);
}

/* --interval SECONDS (or =SECONDS) taken out of argv; else
 * $BRINGUP_CONTROLLER_INTERVAL; else the default. 0 or STG_EXIT_USAGE. */
static int take_interval(int *argc, char **argv, int *ret)
{
	const char *value = getenv("BRINGUP_CONTROLLER_INTERVAL"), *from = "BRINGUP_CONTROLLER_INTERVAL";
	int k = 0;
	char *end;
	long v;

	for (int i = 0; i < *argc; i++) {
		if (!strcmp(argv[i], "--")) {
			while (i < *argc)
				argv[k++] = argv[i++];
			break;
		}
		if (!strcmp(argv[i], "--interval")) {
			if (i + 1 >= *argc) {
				fprintf(stderr, "bringup controller: missing argument for '--interval'\n");
				return STG_EXIT_USAGE;
			}
			value = argv[++i];
			from = "--interval";
			continue;
		}
		if (!strncmp(argv[i], "--interval=", 11)) {
			value = argv[i] + 11;
			from = "--interval";
			continue;
		}
		argv[k++] = argv[i];
	}
	*argc = k;
	argv[k] = NULL;
	*ret = CTL_INTERVAL_DEFAULT;
	if (!value || !*value)
		return 0;
	errno = 0;
	v = strtol(value, &end, 10);
	if (errno || *end || v < 1 || v > 86400) {
		fprintf(stderr, "bringup controller: %s '%s': want whole seconds from 1 to 86400\n", from,
			value);
		return STG_EXIT_USAGE;
	}
	*ret = (int)v;
	return 0;
}

/* Whether an event after id after is of a node of zones (NULL: every
 * zone): 1, 0, or -1 on a database error. Other halls' events wake every
 * controller of a site; only its own make it read the nodes again. */
static int events_of_zones(struct inv *inv, int64_t after, const char *zones, struct br_err *err)
{
	struct inv_event *ev = NULL;
	char **names = NULL;
	size_t n = 0, n_names;
	int rc;

	if (!zones)
		return 1;
	n_names = stg_zones_split(zones, &names);
	rc = inv_events_after(inv, after, names, n_names, 1, &ev, &n, err) ? -1 : n > 0;
	inv_events_free(ev, n);
	for (size_t i = 0; i < n_names; i++)
		free(names[i]);
	free(names);
	return rc;
}

/* Wait until the inventory records events of the zones or the time is up;
 * 1 on events, 0 when the time ran out (or a signal came), -1 on a
 * database error. */
static int wait_events(struct inv *inv, const char *zones, int64_t *last, double until, struct br_err *err)
{
	while (!drv_run_signal()) {
		double left = until - now_s();
		int64_t id = 0;
		int ours;

		if (left <= 0)
			return 0;
		if (inv_events_wait(inv, left * 1000 < CTL_WAIT_MS ? (int)(left * 1000) + 1 : CTL_WAIT_MS,
				    err) < 0 ||
		    inv_events_last(inv, &id, err))
			return -1;
		if (id == *last)
			continue;
		if ((ours = events_of_zones(inv, *last, zones, err)) < 0)
			return -1;
		if (!ours)
			br_debug("controller", "events #%lld to #%lld: none of zone %s", (long long)*last + 1,
				 (long long)id, zones);
		*last = id;
		if (ours)
			return 1;
	}
	return 0;
}

/* The inventory opened and subscribed to its events, *last where they
 * stand. 0 or -1 with err. */
static int open_watch(const char *db, struct inv **inv, int64_t *last, struct br_err *err)
{
	if (stg_stage_open_inventory(db, inv))
		return br_errf(err, BR_E_DB, "%s: cannot open the inventory", db), -1;
	if (inv_events_wait(*inv, 0, err) < 0 || inv_events_last(*inv, last, err)) {
		inv_close(*inv);
		*inv = NULL;
		return -1;
	}
	return 0;
}

static int serve(struct drv_run *r, int interval)
{
	const char *db = drv_run_db(r), *zone = drv_run_zone(r);
	struct look before = { 0 };
	struct br_err err = { 0 };
	struct inv *inv = NULL;
	int64_t last = 0;
	double next_poll = 0;
	long passes = 0;
	int rc = STG_EXIT_OK, woke = 0;

	br_info("controller", "serving %s%s%s, a look every %d s at the latest", db, zone ? " zone " : "",
		zone ? zone : "", interval);
	while (!drv_run_signal()) {
		struct look now;
		const char *why;
		json_t *doc;
		int pass_rc;

		if (!inv && open_watch(db, &inv, &last, &err)) {
			br_error("controller", "%s", err.msg);
			rc = STG_EXIT_UNREACHABLE;
			break;
		}
		if (look_at(inv, zone, &now, &err)) {
			br_error("controller", "%s: %s", db, err.msg);
			rc = STG_EXIT_UNREACHABLE;
			break;
		}
		/* A pass when nodes are ready and they are not the ones the
		 * last pass began with (that pass left those where they were:
		 * held elsewhere, say), or the interval is up. */
		why = !now.ready.n		   ? NULL
		      : !passes			   ? "start"
		      : !same_ready(&now, &before) ? (woke ? "events" : "moved")
		      : now_s() >= next_poll	   ? "interval"
						   : NULL;
		if (!why) {
			look_release(&now);
			woke =
			    wait_events(inv, zone, &last, now.ready.n ? next_poll : now_s() + interval, &err);
			if (woke < 0) {
				br_error("controller", "%s: %s", db, err.msg);
				rc = STG_EXIT_UNREACHABLE;
				break;
			}
			continue;
		}
		/* The stages open the inventory themselves: this connection
		 * is not carried over their fork (SQLite), nor kept idle. */
		inv_close(inv);
		inv = NULL;
		doc = json_object();
		pass_rc = drv_run_pass(r, now.rest.items, now.rest.n, doc);
		stg_metrics_after_run(db, doc, pass_rc);
		report_pass(doc, ++passes, &now, why, drv_run_json(r));
		json_decref(doc);
		look_release(&before);
		before = now;
		next_poll = now_s() + interval;
		woke = 0;
		if (drv_run_signal())
			break;
		if (pass_rc == STG_EXIT_USAGE) {
			/* an operator mistake the stages found: no pass will do better */
			rc = pass_rc;
			break;
		}
		if (pass_rc > STG_EXIT_USAGE)
			br_warn("controller", "pass %ld ended with exit %d; the next in %d s at the latest",
				passes, pass_rc, interval);
	}
	if (drv_run_signal()) {
		br_info("controller", "%s: stopped after %ld passes", br_signal_name(drv_run_signal()),
			passes);
		rc = STG_EXIT_OK;
	}
	look_release(&before);
	if (inv)
		inv_close(inv);
	return rc;
}

int main(int argc, char **argv)
{
	struct br_err err = { 0 };
	struct drv_run *r = NULL;
	int interval, rc;

	br_log_init(argv[0], BR_LOG_WARN);
	stg_journal_install();
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			usage(stdout);
			return STG_EXIT_OK;
		}
		if (!strcmp(argv[i], "--version")) {
			printf("bringup-controller %s\n", br_version());
			return STG_EXIT_OK;
		}
	}
	if (stg_config_apply(&err)) {
		fprintf(stderr, "%s\nbringup controller: bringup.conf: nothing done\n", err.msg);
		return STG_EXIT_USAGE;
	}
	for (int i = 1; i + 1 < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--log-format"))
			setenv("BRINGUP_LOG_FORMAT", argv[i + 1], 1);
	br_log_init(argv[0], BR_LOG_WARN);
	stg_journal_install();
	/* its own lines as verbose as its stages' (-v, -q: passed on) */
	br_opt_log_level(argc, argv);
	argc--;
	argv++;
	if (take_interval(&argc, argv, &interval))
		return STG_EXIT_USAGE;
	if (stg_metrics_take_option(&argc, argv, &err)) {
		fprintf(stderr, "bringup controller: %s\n", err.msg);
		return STG_EXIT_USAGE;
	}
	rc = drv_run_open("bringup controller", drv_pipeline, drv_pipeline_n, drv_find_stage, argc, argv, &r);
	if (rc)
		return rc;
	if (!drv_run_flows(r)) {
		fprintf(stderr, "bringup controller: --only, host names and --firmware are bringup run's: "
				"the controller serves every ready node of its zone\n");
		drv_run_close(r);
		return STG_EXIT_USAGE;
	}
	drv_run_stages_to_stderr(r);
	rc = serve(r, interval);
	drv_run_close(r);
	return rc;
}
