/*
 * bringup run: the stages in order, timed, and what the inventory says at
 * the end. The driver knows no stage's options: everything but --json and
 * --only goes to every stage unchanged.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "profile/profile.h"
#include "subproc.h"
#include "run.h"

struct run_args {
	char **pass; /* options for every stage (borrowed) */
	size_t npass;
	char **only; /* --only hosts (borrowed) */
	size_t nonly;
	const char *db;
	int json;
	int skip_configure; /* --skip-configure is passed on: enlist takes discovered nodes */
	int force;	    /* --force is passed on: every stage takes every host */
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Split run's own options from the stages'. --only takes every following
 * word up to the next option. */
static void parse(int argc, char **argv, struct run_args *a)
{
	a->pass = br_xcalloc((size_t)argc + 1, sizeof(*a->pass));
	a->only = br_xcalloc((size_t)argc + 1, sizeof(*a->only));
	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--json")) {
			a->json = 1;
			continue;
		}
		if (!strcmp(argv[i], "--only")) {
			while (i + 1 < argc && argv[i + 1][0] != '-')
				a->only[a->nonly++] = argv[++i];
			continue;
		}
		a->skip_configure |= !strcmp(argv[i], "--skip-configure");
		a->force |= !strcmp(argv[i], "--force");
		if (!strcmp(argv[i], "--db") && i + 1 < argc)
			a->db = argv[i + 1];
		else if (!strncmp(argv[i], "--db=", 5))
			a->db = argv[i] + 5;
		a->pass[a->npass++] = argv[i];
	}
}

/* SIGTERM, SIGINT or SIGHUP sent to the driver alone (a service manager, a
 * kill from another shell) would leave the stage it runs going on without
 * it: pass the signal on, so the stage winds down (logs out of its BMCs,
 * exits 128 + signal) and the loop below stops there. kill() is
 * async-signal-safe; the pid is set only while a stage runs. */
static volatile sig_atomic_t stage_pid;
static volatile sig_atomic_t caught_signal;

static void forward_signal(int signo)
{
	int saved = errno;

	caught_signal = signo;
	if (stage_pid > 0)
		kill((pid_t)stage_pid, signo);
	errno = saved;
}

static void forward_signals(void)
{
	static const int signals[] = { SIGTERM, SIGINT, SIGHUP };
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = forward_signal;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(signals) / sizeof(signals[0]); i++)
		sigaction(signals[i], &sa, NULL);
}

static const char *db_path(const struct run_args *a)
{
	const char *env = getenv("BRINGUP_DB");

	return a->db ? a->db : env && *env ? env : "bringup.db";
}

/* The --only hosts `stage` takes as the inventory stands now (an earlier
 * stage moved some on), into hosts (borrowed); how many. A stage refuses
 * a named node out of turn, so each node starts at the stage it stands
 * at. A host the inventory lacks, or an inventory that cannot be read, is
 * passed on for the stage to refuse. */
static size_t hosts_for(const char *stage, const struct run_args *a, char **hosts)
{
	const int *states = stg_stage_states(stage, a->skip_configure);
	struct inv *inv = NULL;
	size_t n = 0;

	if (a->force || inv_open(db_path(a), &inv, NULL)) {
		memcpy(hosts, a->only, a->nonly * sizeof(*hosts));
		return a->nonly;
	}
	for (size_t i = 0; i < a->nonly; i++) {
		struct inv_node node;

		if (inv_node_get(inv, a->only[i], &node, NULL)) {
			hosts[n++] = a->only[i];
			continue;
		}
		if (stg_stage_takes(inv, stage, states, &node))
			hosts[n++] = a->only[i];
		inv_node_release(&node);
	}
	inv_close(inv);
	return n;
}

/* The stage now running, for the signal handler; a signal that came
 * between the fork and now is passed on at once. */
static void stage_started(pid_t pid, void *ctx)
{
	stage_pid = pid;
	if (pid > 0 && caught_signal)
		kill(pid, caught_signal);
}

/* One stage: path, the shared options, then the hosts. With --json the
 * stage's stdout goes to stderr, so stdout holds one document. */
static int run_one(char *path, const struct run_args *a, char **hosts, size_t nhosts)
{
	char **args = br_xcalloc(a->npass + nhosts + 2, sizeof(*args));
	const struct br_spawn_opts so = { "bringup", a->json, stage_started, NULL };
	size_t k = 0;
	int rc;

	args[k++] = path;
	for (size_t i = 0; i < a->npass; i++)
		args[k++] = a->pass[i];
	for (size_t i = 0; i < nhosts; i++)
		args[k++] = hosts[i];
	fflush(stdout);
	rc = br_spawn_wait(path, args, &so, NULL);
	free(args);
	return rc < 0 ? STG_EXIT_UNREACHABLE : rc;
}

static int picked(const struct run_args *a, const char *hostname)
{
	if (!a->nonly)
		return 1;
	for (size_t i = 0; i < a->nonly; i++)
		if (!strcmp(a->only[i], hostname))
			return 1;
	return 0;
}

/* A ticket's kind: its fault up to the first ':' (firmware:BIOS is a
 * firmware fault). */
static void count_kind(json_t *faults, const char *fault)
{
	const char *colon = strchr(fault, ':');
	char *kind = colon ? br_xasprintf("%.*s", (int)(colon - fault), fault) : br_xstrdup(fault);
	json_t *n = json_object_get(faults, kind);

	json_object_set_new(faults, kind, json_integer((n ? json_integer_value(n) : 0) + 1));
	free(kind);
}

/* A failed node past a stage's time limit: named with the stage it was
 * stuck in, so a hung node is never only a count. */
static void add_timed_out(json_t *list, const struct inv_node *node)
{
	const char *at =
	    node->state == INV_FAILED && node->reason ? strstr(node->reason, PROF_PAST_LIMIT) : NULL;
	char *stage;

	if (!at)
		return;
	stage = br_xstrndup(node->reason, (size_t)(at - node->reason));
	json_array_append_new(list, json_pack("{s:s, s:s, s:s}", "hostname", node->hostname, "stage", stage,
					      "reason", node->reason));
	free(stage);
}

/* Nodes per state as a JSON object of the non-zero counts. */
static json_t *states_json(const size_t *count)
{
	json_t *states = json_object();

	for (int s = 0; s < INV_STATE_COUNT; s++)
		if (count[s])
			json_object_set_new(states, inv_state_name((enum inv_state)s),
					    json_integer((json_int_t)count[s]));
	return states;
}

/* Nodes per state and open tickets by fault kind, of the picked hosts, into
 * doc; and under "inventory" the same counts over every node, so a run of
 * a few hosts never hides what is open elsewhere. Logs and returns nonzero
 * when the inventory cannot be read. */
static int summarize(const struct run_args *a, json_t *doc)
{
	const char *path = db_path(a);
	struct br_err err = { 0 };
	struct inv *inv = NULL;
	struct inv_node *nodes = NULL;
	struct inv_ticket *tickets = NULL;
	size_t nn = 0, nt = 0, open = 0, open_all = 0;
	json_t *faults = json_object(), *timed_out = json_array();
	size_t count[INV_STATE_COUNT] = { 0 }, count_all[INV_STATE_COUNT] = { 0 };
	int rc = inv_open(path, &inv, &err) || inv_nodes_list(inv, &nodes, &nn, &err) ||
		 inv_tickets_list(inv, 0, &tickets, &nt, &err);

	if (rc)
		br_error("run", "summary: %s: %s", path, err.msg);
	for (size_t i = 0; !rc && i < nn; i++) {
		if (nodes[i].state >= INV_STATE_COUNT)
			continue;
		count_all[nodes[i].state]++;
		if (picked(a, nodes[i].hostname)) {
			count[nodes[i].state]++;
			add_timed_out(timed_out, &nodes[i]);
		}
	}
	for (size_t i = 0; !rc && i < nt; i++) {
		if (tickets[i].closed)
			continue;
		open_all++;
		if (!picked(a, tickets[i].hostname))
			continue;
		open++;
		count_kind(faults, tickets[i].fault);
	}
	json_object_set_new(doc, "nodes", json_integer((json_int_t)(a->nonly ? a->nonly : nn)));
	json_object_set_new(doc, "states", states_json(count));
	json_object_set_new(doc, "faults", faults);
	json_object_set_new(doc, "timed_out", timed_out);
	json_object_set_new(doc, "tickets_open", json_integer((json_int_t)open));
	json_object_set_new(doc, "inventory",
			    json_pack("{s:I, s:o, s:I}", "nodes", (json_int_t)nn, "states",
				      states_json(count_all), "tickets_open", (json_int_t)open_all));
	inv_tickets_free(tickets, nt);
	inv_nodes_free(nodes, nn);
	if (inv)
		inv_close(inv);
	return rc;
}

static void print_summary(json_t *doc)
{
	const char *key;
	json_t *v, *inventory;
	size_t i;

	printf("\n== bringup run: %lld nodes in %.1f s\nstates:",
	       (long long)json_integer_value(json_object_get(doc, "nodes")),
	       json_real_value(json_object_get(doc, "seconds")));
	json_object_foreach(json_object_get(doc, "states"), key, v)
	    printf(" %s %lld", key, (long long)json_integer_value(v));
	printf("\nfaults:");
	if (!json_object_size(json_object_get(doc, "faults")))
		printf(" none");
	json_object_foreach(json_object_get(doc, "faults"), key, v)
	    printf(" %s %lld", key, (long long)json_integer_value(v));
	json_array_foreach(json_object_get(doc, "timed_out"), i, v) printf(
	    "%s %s (%s)", i ? "," : "\npast a time limit:", json_string_value(json_object_get(v, "hostname")),
	    json_string_value(json_object_get(v, "stage")));
	printf("\ntickets open: %lld", (long long)json_integer_value(json_object_get(doc, "tickets_open")));
	inventory = json_object_get(doc, "inventory");
	printf("\ninventory: %lld nodes:",
	       (long long)json_integer_value(json_object_get(inventory, "nodes")));
	json_object_foreach(json_object_get(inventory, "states"), key, v)
	    printf(" %s %lld", key, (long long)json_integer_value(v));
	printf("; tickets open: %lld\nstages:",
	       (long long)json_integer_value(json_object_get(inventory, "tickets_open")));
	json_array_foreach(json_object_get(doc, "stages"), i, v)
	{
		if (json_is_true(json_object_get(v, "skipped")))
			printf(" %s skipped", json_string_value(json_object_get(v, "name")));
		else
			printf(" %s %.1f s (exit %lld)", json_string_value(json_object_get(v, "name")),
			       json_real_value(json_object_get(v, "seconds")),
			       (long long)json_integer_value(json_object_get(v, "exit")));
	}
	printf("\n");
}

int drv_run_pipeline(const char *const *stages, size_t n, drv_find_fn find, int argc, char **argv)
{
	struct run_args a = { 0 };
	json_t *doc = json_object(), *times = json_array();
	double start = now_s();
	int worst = STG_EXIT_OK;
	char **hosts = br_xcalloc((size_t)argc + 1, sizeof(*hosts));

	json_object_set_new(doc, "schema_version", json_integer(STG_SCHEMA_RUN));
	parse(argc, argv, &a);
	forward_signals();
	for (size_t i = 0; i < n && !caught_signal; i++) {
		char *path = find(stages[i]);
		json_t *t = json_pack("{s:s}", "name", stages[i]);
		double t0 = now_s();
		size_t nhosts = a.nonly ? hosts_for(stages[i], &a, hosts) : 0;
		int rc;

		json_array_append_new(times, t);
		if (!path || (a.nonly && !nhosts)) {
			if (path)
				br_info("run", "stage %s takes none of the named nodes; skipped", stages[i]);
			else
				br_info("run", "stage %s is not installed; skipped", stages[i]);
			json_object_set_new(t, "skipped", json_true());
			free(path);
			continue;
		}
		rc = run_one(path, &a, hosts, nhosts);
		free(path);
		json_object_set_new(t, "seconds", json_real(now_s() - t0));
		json_object_set_new(t, "exit", json_integer(rc));
		if (rc > worst)
			worst = rc;
		if (rc >= STG_EXIT_USAGE || caught_signal) {
			fprintf(stderr, "bringup run: stage %s exited %d; stopping\n", stages[i], rc);
			break;
		}
	}
	if (caught_signal && worst < 128 + caught_signal)
		worst = 128 + caught_signal;
	json_object_set_new(doc, "stages", times);
	json_object_set_new(doc, "seconds", json_real(now_s() - start));
	if (worst < STG_EXIT_USAGE && summarize(&a, doc) && worst < STG_EXIT_UNREACHABLE)
		worst = STG_EXIT_UNREACHABLE;
	json_object_set_new(doc, "exit", json_integer(worst));
	worst = stg_metrics_after_run(db_path(&a), doc, worst);
	if (a.json) {
		char *text = json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER);

		if (text)
			printf("%s\n", text);
		free(text);
	} else if (worst < STG_EXIT_USAGE) {
		print_summary(doc);
	}
	json_decref(doc);
	free(a.pass);
	free(a.only);
	free(hosts);
	return worst;
}
