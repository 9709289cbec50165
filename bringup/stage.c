/* Helpers every stage executable shares, and the stage skeleton. */
#define _DEFAULT_SOURCE
#include <stdlib.h>
#include <string.h>
#include <stdarg.h>
#include <sys/stat.h>

#include "lifecycle.h"
#include "loop.h"
#include "stage.h"

char *br_templates_dir(void)
{
	/* Relative to the executable: installed (PREFIX/bin), build/bin,
	 * build/asan/bin. */
	static const char *const rel[] = { "../share/bringup/templates", "../../templates",
					   "../../../templates" };
	const char *env = getenv("BRINGUP_TEMPLATES");
	char *self, *found = NULL;

	if (env && *env)
		return br_xstrdup(env);
	self = br_self_dir();
	if (!self)
		return NULL;
	for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]) && !found; i++) {
		char *p = br_xasprintf("%s/%s", self, rel[i]);

		char *real = br_is_dir(p) ? realpath(p, NULL) : NULL;

		free(p);
		found = real;
	}
	free(self);
	return found;
}

int br_stage_open_inventory(const char *path, struct inv **ret_inv)
{
	struct br_err err = { 0 };

	if (inv_open(path, ret_inv, &err)) {
		br_error("inventory", "%s", err.msg);
		return BR_EXIT_UNREACHABLE;
	}
	return 0;
}

const int br_states_all[] = {
	INV_NEW,    INV_DISCOVERED, INV_CONFIGURED,  INV_ENLISTED, INV_DEPLOYED, INV_VALIDATED,
	INV_GOLDEN, INV_FAILED,	    INV_QUARANTINED, INV_RETIRED,  -1,
};

int br_stage_select(struct inv *inv, int argc, char **argv, int argi, const int *states,
		    struct inv_node **ret_nodes, size_t *ret_n)
{
	struct br_err err = { 0 };
	struct inv_node *all = NULL, *pick;
	size_t n_all = 0, n = 0;

	if (inv_nodes_list(inv, &all, &n_all, &err)) {
		br_error("inventory", "%s", err.msg);
		return BR_EXIT_UNREACHABLE;
	}
	pick = br_xcalloc(n_all ? n_all : 1, sizeof(*pick));
	if (argi < argc) {
		for (int a = argi; a < argc; a++) {
			size_t i;

			for (i = 0; i < n_all; i++)
				if (all[i].hostname && !strcmp(all[i].hostname, argv[a]))
					break;
			if (i == n_all) {
				br_error("select", "no node named '%s' in the inventory", argv[a]);
				inv_nodes_free(all, n_all);
				inv_nodes_free(pick, n);
				return BR_EXIT_USAGE;
			}
			if (all[i].hostname) {
				pick[n++] = all[i];
				memset(&all[i], 0, sizeof(all[i]));
			}
		}
	} else {
		for (size_t i = 0; i < n_all; i++)
			for (const int *s = states; *s >= 0; s++)
				if ((int)all[i].state == *s) {
					pick[n++] = all[i];
					memset(&all[i], 0, sizeof(all[i]));
					break;
				}
	}
	inv_nodes_free(all, n_all);
	*ret_nodes = pick;
	*ret_n = n;
	return 0;
}

struct inv_check *br_checks_from_val(const struct val_check *checks, size_t n)
{
	static const enum inv_check_result result[] = {
		[VAL_PASS] = INV_CHECK_PASS, [VAL_FAIL] = INV_CHECK_FAIL, [VAL_UNKNOWN] = INV_CHECK_UNKNOWN
	};
	struct inv_check *out = br_xcalloc(n ? n : 1, sizeof(*out));

	for (size_t i = 0; i < n; i++)
		out[i] = (struct inv_check){ br_xstrdup(checks[i].name), result[checks[i].result],
					     checks[i].detail ? br_xstrdup(checks[i].detail) : NULL, NULL };
	return out;
}

/* ---- the stage skeleton ------------------------------------------------------ */

int br_stage_parse(struct br_stage *st, const struct br_command *cmd, int argc, char **argv)
{
	int rc;

	st->cmd = cmd;
	st->argc = argc;
	st->argv = argv;
	br_log_init(argv[0], BR_LOG_WARN);
	rc = br_opt_parse(cmd, argc, argv, &st->argi);
	if (rc)
		st->exit = rc == BR_OPT_EXIT_OK ? BR_EXIT_OK : BR_EXIT_USAGE;
	return rc;
}

int br_stage_open(struct br_stage *st, const int *states)
{
	int rc = br_stage_open_inventory(st->common.db, &st->inv);

	if (!rc && states)
		rc = br_stage_select(st->inv, st->argc, st->argv, st->argi, states, &st->nodes, &st->n);
	/* A retired node is out of the flow until a person says otherwise:
	 * naming one to a stage is a mistake, not a request. */
	for (size_t i = 0; !rc && !st->allow_retired && i < st->n; i++)
		if (st->nodes[i].state == INV_RETIRED) {
			br_error("select", "%s: retired: bringup unretire %s first", st->nodes[i].hostname,
				 st->nodes[i].hostname);
			rc = BR_EXIT_USAGE;
		}
	/* Named nodes are worked whatever their state; nodes picked by state
	 * must still be in one of them under the lease. */
	if (!rc && states && !st->no_lease)
		rc = br_stage_lease(st->inv, st->cmd->name, st->argi < st->argc ? NULL : states, st->nodes,
				    &st->n);
	st->exit = rc;
	return rc;
}

int br_stage_usage(struct br_stage *st, const char *fmt, ...)
{
	struct br_buf msg;
	char *safe;
	va_list ap;

	/* Messages may quote a server (MAAS's own words): shown escaped. */
	br_buf_init(&msg, 0);
	va_start(ap, fmt);
	br_buf_vaddf(&msg, fmt, ap);
	va_end(ap);
	safe = br_escape(br_buf_str(&msg));
	fprintf(stderr, "%s: %s\n", st->cmd->name, safe);
	free(safe);
	br_buf_release(&msg);
	st->exit = BR_EXIT_USAGE;
	return st->exit;
}

int br_stage_fail(struct br_stage *st, int exit_code, const char *fmt, ...)
{
	const char *name = st->cmd->name;
	va_list ap;

	/* "bringup-configure" logs as "configure", as the stage's own lines do */
	if (!strncmp(name, "bringup-", 8))
		name += 8;
	va_start(ap, fmt);
	br_vlog(BR_LOG_ERROR, name, fmt, ap);
	va_end(ap);
	st->exit = exit_code;
	return exit_code;
}

void br_stage_report(struct br_stage *st, json_t *(*to_json)(const void *run), void (*print)(const void *run),
		     const void *run, size_t failed)
{
	if (st->common.json) {
		json_t *doc = to_json(run);

		br_json_print(stdout, doc);
		json_decref(doc);
	} else if (!st->common.quiet) {
		print(run);
	}
	st->exit = failed ? BR_EXIT_NODES : BR_EXIT_OK;
}

int br_stage_catch_signals(struct br_stage *st)
{
	struct br_err err = { 0 };

	if (br_signals_catch(&err))
		return br_stage_fail(st, BR_EXIT_USAGE, "%s", err.msg);
	return 0;
}

void br_stage_interrupted(struct br_stage *st)
{
	int signo = br_signal_caught();

	if (!signo)
		return;
	br_stage_fail(st, 128 + signo,
		      "interrupted by %s: BMC sessions logged out, unfinished nodes left as they were",
		      br_signal_name(signo));
}

int br_stage_close(struct br_stage *st)
{
	/* Retirement is judged here, once for every stage, after the stage
	 * recorded its outcomes: the inventory counts attempts, the profile
	 * (which the inventory does not know) says how many are too many. */
	if (st->inv && st->n && !st->no_lease && !st->allow_retired) {
		struct br_profiles profiles = { 0 };

		br_lifecycle_retire_due(st->inv, &profiles, st->nodes, st->n);
		br_profiles_release(&profiles);
	}
	inv_nodes_free(st->nodes, st->n);
	br_stage_release(st->inv);
	inv_close(st->inv);
	st->nodes = NULL;
	st->n = 0;
	st->inv = NULL;
	return st->exit;
}

const struct prof_profile *br_profiles_get(struct br_profiles *ps, const char *name, struct br_err *err)
{
	struct prof_profile *p;

	for (size_t i = 0; i < ps->n; i++)
		if (!strcmp(ps->items[i]->name, name))
			return ps->items[i];
	if (!ps->templates && !(ps->templates = br_templates_dir())) {
		br_errf(err, BR_E_NOTFOUND, "no templates directory (set BRINGUP_TEMPLATES)");
		return NULL;
	}
	p = br_xmalloc(sizeof(*p));
	if (prof_load(ps->templates, name, p, err)) {
		free(p);
		return NULL;
	}
	ps->items = br_xrealloc(ps->items, (ps->n + 1) * sizeof(*ps->items));
	ps->items[ps->n++] = p;
	return p;
}

void br_profiles_release(struct br_profiles *ps)
{
	for (size_t i = 0; i < ps->n; i++) {
		prof_release(ps->items[i]);
		free(ps->items[i]);
	}
	free(ps->items);
	free(ps->templates);
	memset(ps, 0, sizeof(*ps));
}

static int state_in(enum inv_state state, const int *states)
{
	for (const int *s = states; *s >= 0; s++)
		if ((int)state == *s)
			return 1;
	return 0;
}

struct lease_pass {
	const int *states;
	struct inv_node *nodes;
	size_t kept, seen;
};

static void on_lease(void *ctx, size_t i, int rc, struct inv_node *fresh, const struct br_err *why)
{
	struct lease_pass *lp = ctx;

	lp->seen = i + 1;
	if (rc) {
		br_warn("lease", "%s; skipped", why->msg);
	} else if (lp->states && !state_in(fresh->state, lp->states)) {
		br_info("lease", "%s: now '%s' (another run moved it); skipped", fresh->hostname,
			inv_state_name(fresh->state));
		inv_node_release(fresh);
	} else {
		/* kept <= i: the slot written was read already */
		inv_node_release(&lp->nodes[i]);
		lp->nodes[lp->kept++] = *fresh;
		return;
	}
	inv_node_release(&lp->nodes[i]);
}

int br_stage_lease(struct inv *inv, const char *stage, const int *states, struct inv_node *nodes, size_t *n)
{
	const char **names = br_xcalloc(*n ? *n : 1, sizeof(*names));
	struct lease_pass lp = { states, nodes, 0, 0 };
	struct br_err err = { 0 };
	int rc = 0;

	for (size_t i = 0; i < *n; i++)
		names[i] = nodes[i].hostname;
	if (inv_leases_take(inv, names, *n, stage, INV_LEASE_TTL_S, on_lease, &lp, &err)) {
		br_error("inventory", "%s", err.msg);
		rc = BR_EXIT_UNREACHABLE;
	}
	free(names);
	/* nodes past the last batch taken (an error stopped it) are dropped */
	for (size_t i = lp.seen; i < *n; i++)
		inv_node_release(&nodes[i]);
	*n = lp.kept;
	return rc;
}

void br_stage_release(struct inv *inv)
{
	struct br_err err = { 0 };

	if (inv && inv_leases_give_back(inv, &err))
		br_error("inventory", "%s", err.msg);
}
