/*
 * bringup run: the pipeline stages over one inventory, timed, and what the
 * inventory says at the end. Each stage is asked for its option table
 * (--options-json) and given only the options it takes; an option no stage
 * takes stops the run (exit 2) before any node is touched. Without --only
 * the stages run at once, each in follow mode (--follow-fd): a node moves
 * to its next stage as soon as it is done with one (docs/operating.md);
 * with --only, stage after stage over the named nodes.
 */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "profile/profile.h"
#include "stages/stages.h"
#include "subproc.h"
#include "run.h"

#define RUN_STAGES_MAX 8
#define RUN_OPTIONS_JSON_MAX (1 << 20)

/* Names the command in its messages: bringup run, bringup controller. */
static const char *run_who = "bringup run";

const char *const drv_pipeline[] = { "discover", "firmware", "configure", "enlist",
				     "validate", "gate",     "tickets" };
const size_t drv_pipeline_n = sizeof(drv_pipeline) / sizeof(drv_pipeline[0]);

/* Path of bringup-NAME: beside this executable first (the build tree),
 * then where make install puts the stages (PREFIX/libexec/bringup, beside
 * PREFIX/bin), then PATH. */
char *drv_find_stage(const char *name)
{
	static const char *const rel[] = { "", "/../libexec/bringup" };
	char *dir = br_self_dir(), *path = NULL;
	const char *env = getenv("PATH");

	for (size_t i = 0; dir && i < sizeof(rel) / sizeof(rel[0]); i++) {
		path = br_xasprintf("%s%s/bringup-%s", dir, rel[i], name);
		if (!access(path, X_OK)) {
			free(dir);
			return path;
		}
		free(path);
	}
	free(dir);
	while (env && *env) {
		const char *colon = strchr(env, ':');
		size_t len = colon ? (size_t)(colon - env) : strlen(env);

		path = br_xasprintf("%.*s/bringup-%s", (int)len, env, name);
		if (len && !access(path, X_OK))
			return path;
		free(path);
		env = colon ? colon + 1 : NULL;
	}
	return NULL;
}

struct stage_opt {
	const char *name; /* borrowed from the table document */
	int short_name;
	int argument;
};

struct stage {
	const char *name;
	char *path; /* NULL: not installed */
	json_t *table;
	struct stage_opt *opts;
	size_t nopts;
	char **args; /* the options routed to it (borrowed) */
	size_t nargs;
	pid_t pid;
	int fd; /* follow mode: the driver's end of the stage's socket; -1 closed */
	int rc, done, ready;
	double t0, t1;
};

struct drv_run {
	const char *who; /* "bringup run", "bringup controller": names it in messages */
	struct stage st[RUN_STAGES_MAX];
	size_t n;
	char **operands; /* host names given to every stage (borrowed) */
	size_t noperands;
	char **only; /* --only hosts (borrowed) */
	size_t nonly;
	struct br_strlist made; /* "-x" words split from clusters */
	const char *db;
	const char *zone; /* --zone, passed on: the run's summary counts that zone's nodes */
	int json;
	int help;	    /* --help went to every stage: each prints its own, in order */
	int skip_configure; /* --skip-configure went to enlist: configure is not run */
	int firmware;	    /* --firmware: stage by stage, firmware between discover and configure */
	int force;	    /* --force is passed on: every stage takes every host */
	char *const *skip;  /* this pass: nodes no stage of the flow takes (borrowed) */
	size_t nskip;
	char **hosts;	      /* room for the hosts of a stage run in order */
	int stages_to_stderr; /* the stages' stdout goes to stderr, --json or not */
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The stage's option table, from the stage itself. */
static int load_table(struct stage *s)
{
	char flag[] = "--options-json";
	char *args[] = { s->path, flag, NULL };
	struct br_buf out;
	struct br_err err = { 0 };
	json_t *list, *o;
	size_t i;
	int rc = br_spawn_read(s->path, args, RUN_OPTIONS_JSON_MAX, &out, &err);

	if (rc > 0)
		br_errf(&err, BR_E_INVAL, "%s --options-json exited %d", s->path, rc);
	if (!rc)
		s->table = br_json_parse(out.data ? out.data : "", out.len, RUN_OPTIONS_JSON_MAX, &err);
	br_buf_release(&out);
	list = s->table ? json_object_get(s->table, "options") : NULL;
	if (!json_is_array(list)) {
		fprintf(stderr, "%s: cannot read the options of %s: %s\n", run_who, s->path,
			err.msg[0] ? err.msg : "no \"options\" list");
		return STG_EXIT_UNREACHABLE;
	}
	s->opts = br_xcalloc(json_array_size(list) + 1, sizeof(*s->opts));
	json_array_foreach(list, i, o)
	{
		const char *name = json_string_value(json_object_get(o, "name"));
		const char *short_name = json_string_value(json_object_get(o, "short"));

		if (!name)
			continue;
		s->opts[s->nopts++] = (struct stage_opt){ name, short_name ? short_name[0] : 0,
							  json_is_true(json_object_get(o, "argument")) };
	}
	return 0;
}

static const struct stage_opt *find_opt(const struct stage *s, const char *name, size_t len, int short_name)
{
	for (size_t i = 0; i < s->nopts; i++) {
		const struct stage_opt *o = &s->opts[i];

		if (short_name ? o->short_name == short_name
			       : strlen(o->name) == len && !strncmp(o->name, name, len))
			return o;
	}
	return NULL;
}

static void add_arg(struct stage *s, char *arg)
{
	s->args[s->nargs++] = arg;
}

/* One option (--name, --name=value or -c; value NULL when none was joined
 * to it) to every stage that takes it; *i moves past a separate value.
 * 0, or STG_EXIT_USAGE after naming what is wrong. */
static int route(struct drv_run *a, int argc, char **argv, int *i, char *word, const char *name, size_t len,
		 int short_name, char *joined)
{
	const struct stage_opt *first = NULL;
	char *value = NULL;

	for (size_t k = 0; k < a->n; k++) {
		const struct stage_opt *o = a->st[k].path ? find_opt(&a->st[k], name, len, short_name) : NULL;

		if (o && first && o->argument != first->argument) {
			fprintf(stderr, "%s: %s takes a value in one stage and not in another\n", run_who,
				word);
			return STG_EXIT_USAGE;
		}
		if (o)
			first = o;
	}
	if (!first) {
		if (short_name)
			fprintf(stderr, "%s: unknown option '-%c': no stage takes it\n", run_who, short_name);
		else
			fprintf(stderr, "%s: unknown option '--%.*s': no stage takes it\n", run_who, (int)len,
				name);
		fprintf(stderr, "%s: try 'bringup STAGE --help' for a stage's options\n", run_who);
		return STG_EXIT_USAGE;
	}
	if (first->argument && !joined) {
		if (*i + 1 >= argc) {
			fprintf(stderr, "%s: missing argument for '%s'\n", run_who, word);
			return STG_EXIT_USAGE;
		}
		value = argv[++*i];
	}
	if (!first->argument && joined && !short_name) {
		fprintf(stderr, "%s: '%s' takes no value\n", run_who, word);
		return STG_EXIT_USAGE;
	}
	if (!strcmp(first->name, "skip-configure"))
		a->skip_configure = 1;
	if (!strcmp(first->name, "force"))
		a->force = 1;
	if (!strcmp(first->name, "db"))
		a->db = joined ? joined : value;
	if (!strcmp(first->name, "zone"))
		a->zone = joined ? joined : value;
	for (size_t k = 0; k < a->n; k++) {
		if (!a->st[k].path || !find_opt(&a->st[k], name, len, short_name))
			continue;
		add_arg(&a->st[k], word);
		if (value)
			add_arg(&a->st[k], value);
	}
	return 0;
}

/* Split run's own options (--json, --only HOST...) from the stages', each
 * stage's to it alone. --only takes every following word up to the next
 * option. 0 or STG_EXIT_USAGE. */
static int parse(int argc, char **argv, struct drv_run *a)
{
	a->only = br_xcalloc((size_t)argc + 1, sizeof(*a->only));
	a->operands = br_xcalloc((size_t)argc + 1, sizeof(*a->operands));
	for (size_t k = 0; k < a->n; k++)
		a->st[k].args = br_xcalloc(2 * (size_t)argc + 8, sizeof(*a->st[k].args));
	for (int i = 0; i < argc; i++) {
		char *arg = argv[i];
		int rc = 0;

		if (!strcmp(arg, "--json")) {
			a->json = 1;
		} else if (!strcmp(arg, "--firmware")) {
			a->firmware = 1;
		} else if (!strcmp(arg, "--only")) {
			while (i + 1 < argc && argv[i + 1][0] != '-')
				a->only[a->nonly++] = argv[++i];
		} else if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
			a->help = 1;
			for (size_t k = 0; k < a->n; k++)
				add_arg(&a->st[k], arg);
		} else if (!strcmp(arg, "--")) {
			while (i + 1 < argc)
				a->operands[a->noperands++] = argv[++i];
		} else if (arg[0] != '-' || !arg[1]) {
			a->operands[a->noperands++] = arg;
		} else if (arg[1] == '-') {
			char *eq = strchr(arg + 2, '=');

			rc = route(a, argc, argv, &i, arg, arg + 2,
				   eq ? (size_t)(eq - arg - 2) : strlen(arg + 2), 0, eq ? eq + 1 : NULL);
		} else {
			/* -kv, -t5: one word per option, a value joined to the last */
			for (char *c = arg + 1; *c && !rc; c++) {
				char *word, *joined = NULL;
				int takes = 0;

				for (size_t k = 0; k < a->n; k++) {
					const struct stage_opt *o =
					    a->st[k].path ? find_opt(&a->st[k], "", 0, *c) : NULL;

					takes |= o && o->argument;
				}
				if (takes && c[1]) {
					word = br_xasprintf("-%c%s", *c, c + 1);
					joined = word + 2;
				} else {
					word = br_xasprintf("-%c", *c);
				}
				br_strlist_add(&a->made, word);
				free(word);
				word = a->made.items[a->made.n - 1];
				rc = route(a, argc, argv, &i, word, "", 0, *c, joined ? word + 2 : NULL);
				if (takes)
					break;
			}
		}
		if (rc)
			return rc;
	}
	return 0;
}

/* SIGTERM, SIGINT or SIGHUP sent to the driver alone (a service manager, a
 * kill from another shell) would leave the stages it runs going on without
 * it: pass the signal on, so each winds down (logs out of its BMCs, exits
 * 128 + signal) and the run stops there. kill() is async-signal-safe; a
 * slot holds a pid only while its stage runs. */
static volatile sig_atomic_t stage_pids[RUN_STAGES_MAX];
static volatile sig_atomic_t caught_signal;

static void forward_signal(int signo)
{
	int saved = errno;

	caught_signal = signo;
	for (size_t i = 0; i < RUN_STAGES_MAX; i++)
		if (stage_pids[i] > 0)
			kill((pid_t)stage_pids[i], signo);
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

static const char *db_path(const struct drv_run *a)
{
	const char *env = getenv("BRINGUP_DB");

	return a->db ? a->db : env && *env ? env : "bringup.db";
}

/* The --only hosts `stage` takes as the inventory stands now (an earlier
 * stage moved some on), into hosts (borrowed); how many. A stage refuses
 * a named node out of turn, so each node starts at the stage it stands
 * at. A host the inventory lacks, or an inventory that cannot be read, is
 * passed on for the stage to refuse. */
static size_t hosts_for(const char *stage, const struct drv_run *a, char **hosts)
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

/* A stage now running (slot ctx), for the signal handler; a signal that
 * came between the fork and now is passed on at once. */
static void stage_started(pid_t pid, void *ctx)
{
	size_t slot = (size_t)(*(const size_t *)ctx);

	stage_pids[slot] = pid;
	if (pid > 0 && caught_signal)
		kill(pid, caught_signal);
}

/* The stage's argument vector: path, its options, extra (NULL-ended),
 * then the hosts. */
static char **stage_argv(struct stage *s, char **extra, char **hosts, size_t nhosts)
{
	size_t nextra = 0, k = 0;
	char **args;

	while (extra && extra[nextra])
		nextra++;
	args = br_xcalloc(s->nargs + nextra + nhosts + 2, sizeof(*args));
	args[k++] = s->path;
	for (size_t i = 0; i < s->nargs; i++)
		args[k++] = s->args[i];
	for (size_t i = 0; i < nextra; i++)
		args[k++] = extra[i];
	for (size_t i = 0; i < nhosts; i++)
		args[k++] = hosts[i];
	return args;
}

/* One stage to its end: its options, then the hosts. With --json the
 * stage's stdout goes to stderr, so stdout holds one document. */
static int run_one(struct drv_run *a, size_t slot, char **hosts, size_t nhosts)
{
	char **args = stage_argv(&a->st[slot], NULL, hosts, nhosts);
	const struct br_spawn_opts so = { "bringup", a->json || a->stages_to_stderr, stage_started, &slot };
	int rc;

	fflush(stdout);
	rc = br_spawn_wait(a->st[slot].path, args, &so, NULL);
	stage_pids[slot] = 0;
	free(args);
	return rc < 0 ? STG_EXIT_UNREACHABLE : rc;
}

static int picked(const struct drv_run *a, const char *hostname)
{
	if (!a->nonly)
		return 1;
	for (size_t i = 0; i < a->nonly; i++)
		if (!strcmp(a->only[i], hostname))
			return 1;
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The run's zone (--zone, else $BRINGUP_ZONE); NULL: every zone. */
static const char *run_zone(const struct drv_run *a)
{
	const char *env = getenv("BRINGUP_ZONE");

	return a->zone ? a->zone : env && *env ? env : NULL;
}

/* The host names of the run's zone among nodes, sorted for bsearch
 * (borrowed from nodes); NULL when the run has no zone. */
static const char **zone_hosts(const struct drv_run *a, const struct inv_node *nodes, size_t nn,
			       size_t *ret_n)
{
	const char *zone = run_zone(a), **hosts;
	size_t n = 0;

	*ret_n = 0;
	if (!zone)
		return NULL;
	hosts = br_xcalloc(nn ? nn : 1, sizeof(*hosts));
	for (size_t i = 0; i < nn; i++)
		if (br_zones_have(zone, nodes[i].zone))
			hosts[n++] = nodes[i].hostname;
	qsort(hosts, n, sizeof(*hosts), cmp_str);
	*ret_n = n;
	return hosts;
}

/* Whether hostname counts in this run's summary: one of --only's (if
 * given) and of the run's zone (zone_hosts' list; NULL: no zone). */
static int counted(const struct drv_run *a, const char **zone, size_t nzone, const char *hostname)
{
	if (!picked(a, hostname))
		return 0;
	return !zone || bsearch(&hostname, zone, nzone, sizeof(*zone), cmp_str);
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
static int summarize(const struct drv_run *a, json_t *doc)
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
	size_t nzone = 0, ncounted = 0;
	const char **zone = rc ? NULL : zone_hosts(a, nodes, nn, &nzone);

	if (rc)
		br_error("run", "summary: %s: %s", path, err.msg);
	for (size_t i = 0; !rc && i < nn; i++) {
		if (nodes[i].state >= INV_STATE_COUNT)
			continue;
		count_all[nodes[i].state]++;
		if (counted(a, zone, nzone, nodes[i].hostname)) {
			ncounted++;
			count[nodes[i].state]++;
			add_timed_out(timed_out, &nodes[i]);
		}
	}
	for (size_t i = 0; !rc && i < nt; i++) {
		if (tickets[i].closed)
			continue;
		open_all++;
		if (!counted(a, zone, nzone, tickets[i].hostname))
			continue;
		open++;
		count_kind(faults, tickets[i].fault);
	}
	json_object_set_new(doc, "nodes", json_integer((json_int_t)(a->nonly ? a->nonly : ncounted)));
	json_object_set_new(doc, "states", states_json(count));
	json_object_set_new(doc, "faults", faults);
	json_object_set_new(doc, "timed_out", timed_out);
	json_object_set_new(doc, "tickets_open", json_integer((json_int_t)open));
	json_object_set_new(doc, "inventory",
			    json_pack("{s:I, s:o, s:I}", "nodes", (json_int_t)nn, "states",
				      states_json(count_all), "tickets_open", (json_int_t)open_all));
	free(zone);
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

static size_t slots[RUN_STAGES_MAX] = { 0, 1, 2, 3, 4, 5, 6, 7 };

static int is_follower(const char *name)
{
	return strcmp(name, "tickets") != 0;
}

/* Stage after stage (--only, host names): each given the named nodes it
 * takes as the inventory stands when it starts. */
static int run_in_order(struct drv_run *a, char **hosts, json_t *times)
{
	int worst = STG_EXIT_OK;

	for (size_t i = 0; i < a->n && !caught_signal; i++) {
		struct stage *s = &a->st[i];
		json_t *t = json_pack("{s:s}", "name", s->name);
		double t0 = now_s();
		size_t nhosts = a->noperands;
		int rc;

		json_array_append_new(times, t);
		if (a->nonly)
			nhosts = hosts_for(s->name, a, hosts);
		else
			memcpy(hosts, a->operands, a->noperands * sizeof(*hosts));
		if (!s->path || (a->nonly && !nhosts) ||
		    (a->skip_configure && !strcmp(s->name, "configure")) ||
		    (!a->firmware && !strcmp(s->name, "firmware"))) {
			if (!s->path)
				br_info("run", "stage %s is not installed; skipped", s->name);
			else if (!strcmp(s->name, "firmware"))
				br_info("run", "firmware updates only with bringup run --firmware; skipped");
			else if (a->nonly && !nhosts)
				br_info("run", "stage %s takes none of the named nodes; skipped", s->name);
			json_object_set_new(t, "skipped", json_true());
			continue;
		}
		rc = run_one(a, i, hosts, nhosts);
		json_object_set_new(t, "seconds", json_real(now_s() - t0));
		json_object_set_new(t, "exit", json_integer(rc));
		if (rc > worst)
			worst = rc;
		if (rc >= STG_EXIT_USAGE || caught_signal) {
			fprintf(stderr, "%s: stage %s exited %d; stopping\n", run_who, s->name, rc);
			break;
		}
	}
	return worst;
}

/* Whether stage i is running in the flow. */
static int flowing(const struct drv_run *a, size_t i)
{
	const struct stage *s = &a->st[i];

	return s->path && is_follower(s->name) && !(a->skip_configure && !strcmp(s->name, "configure")) &&
	       strcmp(s->name, "firmware") != 0;
}

/* The nodes a stage of the flow is not to take in this run (bringup
 * controller: the nodes at rest), sent as soon as it starts: a line
 * "-HOST" each, then "." (stage.c reads it before it selects any node). The
 * stage reads it first, so this blocks only while it starts; one that
 * ended fails it (no SIGPIPE). 0 when sent. */
static int send_skip(int fd, char *const *skip, size_t nskip)
{
	struct br_buf msg = { 0 };
	size_t off = 0;
	int rc = 0;

	for (size_t i = 0; i < nskip; i++)
		br_buf_addf(&msg, "-%s\n", skip[i]);
	br_buf_adds(&msg, ".\n");
	while (off < msg.len) {
		ssize_t put = send(fd, msg.data + off, msg.len - off, MSG_NOSIGNAL);

		if (put < 0 && errno == EINTR)
			continue;
		if (put <= 0) {
			rc = -1;
			break;
		}
		off += (size_t)put;
	}
	br_buf_release(&msg);
	return rc;
}

/* Start stage i in follow mode, its end of a socket pair as --follow-fd. */
static int start_follower(struct drv_run *a, size_t i)
{
	struct stage *s = &a->st[i];
	const struct br_spawn_opts so = { "bringup", a->json || a->stages_to_stderr, stage_started,
					  &slots[i] };
	struct br_err err = { 0 };
	char flag[] = "--follow-fd", fdarg[16];
	char *extra[] = { flag, fdarg, NULL };
	char **args;
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
		fprintf(stderr, "%s: socketpair: %s\n", run_who, strerror(errno));
		return -1;
	}
	snprintf(fdarg, sizeof(fdarg), "%d", sv[1]);
	args = stage_argv(s, extra, NULL, 0);
	fflush(stdout);
	s->t0 = now_s();
	s->pid = br_spawn_start(s->path, args, &so, sv[1], &err);
	free(args);
	close(sv[1]);
	if (s->pid < 0) {
		fprintf(stderr, "%s: %s\n", run_who, err.msg);
		close(sv[0]);
		return -1;
	}
	s->fd = sv[0];
	/* a stage that ended at once fails it: await_ready then says so */
	(void)send_skip(s->fd, a->skip, a->nskip);
	return 0;
}

/* Its "ready" line: the stage checked its options and opened the
 * inventory. 0 when it came, -1 when the stage ended first. */
static int await_ready(struct stage *s)
{
	char c;
	ssize_t got;

	for (;;) {
		got = read(s->fd, &c, 1);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return -1;
		if (c == '\n')
			return 0;
	}
}

static void close_fd(struct stage *s)
{
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
}

/* Each stage whose upstream stages have all ended is told so: its socket
 * closed (the first stage's at once). */
static void tell_upstream_ended(struct drv_run *a)
{
	int upstream_live = 0;

	for (size_t j = 0; j < a->n; j++) {
		if (!flowing(a, j))
			continue;
		if (!upstream_live && a->st[j].fd >= 0 && !a->st[j].done)
			close_fd(&a->st[j]);
		upstream_live |= !a->st[j].done;
	}
}

/* Every pipeline stage at once, each in follow mode: a stage whose
 * upstream stages have all ended is told so (its socket closed), and ends
 * once nothing more is ready for it. First every stage says it is ready
 * (its options checked): one that stops there stops the run before any
 * node is touched. Then tickets, over what the flow left. */
static int run_flow(struct drv_run *a, json_t *times)
{
	int worst = STG_EXIT_OK, all_ready = 1;
	size_t live = 0;

	for (size_t i = 0; i < a->n; i++) {
		a->st[i].fd = -1;
		if (!flowing(a, i))
			continue;
		if (start_follower(a, i)) {
			worst = STG_EXIT_UNREACHABLE;
			all_ready = 0;
			break;
		}
		live++;
	}
	for (size_t i = 0; i < a->n; i++)
		if (a->st[i].fd >= 0 && !(a->st[i].ready = !await_ready(&a->st[i])))
			all_ready = 0;
	for (size_t i = 0; i < a->n; i++) {
		struct stage *s = &a->st[i];

		if (s->fd < 0)
			continue;
		if (!all_ready || caught_signal)
			close_fd(s); /* each one waiting for the go ahead ends untouched */
		else if (write(s->fd, "g", 1) != 1)
			close_fd(s);
	}
	tell_upstream_ended(a);
	while (live) {
		int status;
		pid_t pid = waitpid(-1, &status, 0);
		size_t i;

		if (pid < 0 && errno == EINTR)
			continue;
		if (pid < 0)
			break;
		for (i = 0; i < a->n && !(a->st[i].pid == pid && !a->st[i].done); i++)
			;
		if (i == a->n)
			continue;
		stage_pids[i] = 0;
		a->st[i].done = 1;
		a->st[i].t1 = now_s();
		a->st[i].rc = br_spawn_status(status);
		close_fd(&a->st[i]);
		live--;
		if (a->st[i].rc > worst)
			worst = a->st[i].rc;
		if (a->st[i].rc >= STG_EXIT_USAGE && a->st[i].ready)
			fprintf(stderr, "%s: stage %s exited %d\n", run_who, a->st[i].name, a->st[i].rc);
		tell_upstream_ended(a);
	}
	for (size_t i = 0; i < a->n; i++) {
		struct stage *s = &a->st[i];
		json_t *t = json_pack("{s:s}", "name", s->name);

		if (!is_follower(s->name) && strcmp(s->name, "firmware") && s->path && all_ready &&
		    worst < STG_EXIT_USAGE && !caught_signal) {
			s->t0 = now_s();
			s->rc = run_one(a, i, NULL, 0);
			s->t1 = now_s();
			s->done = 1;
			if (s->rc > worst)
				worst = s->rc;
		}
		json_array_append_new(times, t);
		if (!s->done) {
			if (!s->path)
				br_info("run", "stage %s is not installed; skipped", s->name);
			else if (!strcmp(s->name, "firmware"))
				br_info(
				    "run",
				    "firmware updates are not part of the flow: bringup run --firmware "
				    "runs the stages one after another with them, or run bringup firmware");
			json_object_set_new(t, "skipped", json_true());
			continue;
		}
		json_object_set_new(t, "seconds", json_real(s->t1 - s->t0));
		json_object_set_new(t, "exit", json_integer(s->rc));
	}
	return worst;
}

static void release_args(struct drv_run *a)
{
	for (size_t i = 0; i < a->n; i++) {
		free(a->st[i].path);
		free(a->st[i].opts);
		free(a->st[i].args);
		json_decref(a->st[i].table);
	}
	br_strlist_release(&a->made);
	free(a->only);
	free(a->operands);
}

int drv_run_open(const char *who, const char *const *stages, size_t n, drv_find_fn find, int argc,
		 char **argv, struct drv_run **ret)
{
	struct drv_run *a = br_xcalloc(1, sizeof(*a));
	int worst = STG_EXIT_OK;

	*ret = NULL;
	run_who = who;
	a->who = who;
	a->hosts = br_xcalloc((size_t)argc + 1, sizeof(*a->hosts));
	for (size_t i = 0; i < n && i < RUN_STAGES_MAX && !worst; i++) {
		a->st[a->n].name = stages[i];
		a->st[a->n].path = find(stages[i]);
		if (a->st[a->n].path)
			worst = load_table(&a->st[a->n]);
		a->n++;
	}
	if (!worst)
		worst = parse(argc, argv, a);
	if (!worst && !a->help) {
		/* A --db refused before any stage runs (and is handed it in argv). */
		struct br_err err = { 0 };

		if (inv_check_where(db_path(a), &err)) {
			fprintf(stderr, "%s: %s\n", run_who, err.msg);
			worst = STG_EXIT_USAGE;
		}
	}
	if (worst) {
		drv_run_close(a);
		return worst;
	}
	forward_signals();
	*ret = a;
	return STG_EXIT_OK;
}

int drv_run_flows(const struct drv_run *a)
{
	return !(a->nonly || a->noperands || a->help || a->firmware);
}

const char *drv_run_db(const struct drv_run *a)
{
	return db_path(a);
}

const char *drv_run_zone(const struct drv_run *a)
{
	return run_zone(a);
}

int drv_run_json(const struct drv_run *a)
{
	return a->json;
}

int drv_run_skip_configure(const struct drv_run *a)
{
	return a->skip_configure;
}

void drv_run_stages_to_stderr(struct drv_run *a)
{
	a->stages_to_stderr = 1;
}

int drv_run_signal(void)
{
	return caught_signal;
}

int drv_run_pass(struct drv_run *a, char *const *skip, size_t nskip, json_t *doc)
{
	json_t *times = json_array();
	double start = now_s();
	int worst;

	for (size_t i = 0; i < a->n; i++) {
		struct stage *s = &a->st[i];

		s->pid = 0;
		s->fd = -1;
		s->rc = s->done = s->ready = 0;
		s->t0 = s->t1 = 0;
	}
	a->skip = skip;
	a->nskip = nskip;
	json_object_set_new(doc, "schema_version", json_integer(STG_SCHEMA_RUN));
	/* Firmware updates change what every later stage reads (a BMC that
	 * restarts, a BIOS that resets): with --firmware the stages run one
	 * after another, firmware between discover and configure, as the flow
	 * cannot yet keep configure off a node firmware still updates. */
	if (!drv_run_flows(a))
		worst = run_in_order(a, a->hosts, times);
	else
		worst = run_flow(a, times);
	a->skip = NULL;
	a->nskip = 0;
	if (caught_signal && worst < 128 + caught_signal)
		worst = 128 + caught_signal;
	json_object_set_new(doc, "stages", times);
	json_object_set_new(doc, "seconds", json_real(now_s() - start));
	if (worst < STG_EXIT_USAGE && summarize(a, doc) && worst < STG_EXIT_UNREACHABLE)
		worst = STG_EXIT_UNREACHABLE;
	json_object_set_new(doc, "exit", json_integer(worst));
	return worst;
}

void drv_run_close(struct drv_run *a)
{
	if (!a)
		return;
	release_args(a);
	free(a->hosts);
	free(a);
}

int drv_run_pipeline(const char *const *stages, size_t n, drv_find_fn find, int argc, char **argv)
{
	struct drv_run *a = NULL;
	json_t *doc;
	int worst = drv_run_open("bringup run", stages, n, find, argc, argv, &a);

	if (worst)
		return worst;
	doc = json_object();
	worst = drv_run_pass(a, NULL, 0, doc);
	worst = stg_metrics_after_run(db_path(a), doc, worst);
	if (a->json) {
		char *text = json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER);

		if (text)
			printf("%s\n", text);
		free(text);
	} else if (worst < STG_EXIT_USAGE) {
		print_summary(doc);
	}
	json_decref(doc);
	drv_run_close(a);
	return worst;
}
