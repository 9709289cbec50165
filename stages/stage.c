/* Helpers every stage executable shares, and the stage skeleton. */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <libgen.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <stdarg.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bmcopts.h"
#include "config.h"
#include "lifecycle.h"
#include "loop.h"
#include "manifest.h"
#include "journal.h"
#include "stage.h"

char *stg_templates_dir(void)
{
	/* Relative to the executable: installed (PREFIX/bin, or a stage in
	 * PREFIX/libexec/bringup), build/bin, build/asan/bin. */
	static const char *const rel[] = { "../share/bringup/templates", "../../share/bringup/templates",
					   "../../templates", "../../../templates" };
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

int stg_stage_open_inventory(const char *path, struct inv **ret_inv)
{
	return stg_stage_open_inventory_with(path, 0, ret_inv);
}

int stg_inventory_readonly_here(const char *path)
{
	struct stat sb;
	char *dir;
	int ro;

	if (!path || strstr(path, "://") || !strcmp(path, ":memory:"))
		return 0;
	if (stat(path, &sb))
		return errno == ENOENT;
	if (!S_ISREG(sb.st_mode))
		return 0;
	if (access(path, W_OK))
		return 1;
	dir = br_xstrdup(path);
	ro = access(dirname(dir), W_OK) != 0;
	free(dir);
	return ro;
}

int stg_stage_open_inventory_with(const char *path, unsigned flags, struct inv **ret_inv)
{
	struct br_err err = { 0 };
	int rc = inv_open_with(path, flags, ret_inv, &err);

	/* A viewer that may write brings an older inventory forward, as
	 * every command did before viewers opened it read-only; one that
	 * may not is told which command does. */
	if (rc == BR_E_STATE && (flags & INV_OPEN_READONLY) && !stg_inventory_readonly_here(path)) {
		br_info("inventory", "%s: an older schema: opened to migrate it", path);
		err = (struct br_err){ 0 };
		rc = inv_open(path, ret_inv, &err);
	}
	if (rc) {
		br_error("inventory", "%s", err.msg);
		/* A path that names no database (a typo in --db), or a --db
		 * written wrong (a password in it), is the operator's slip,
		 * not an inventory out of reach. */
		return err.code == BR_E_NOTFOUND || err.code == BR_E_INVAL ? STG_EXIT_USAGE
									   : STG_EXIT_UNREACHABLE;
	}
	return 0;
}

static int in_zone(const struct inv_node *node, const char *zones)
{
	return br_zones_have(zones, node->zone);
}

int stg_stage_select(struct inv *inv, int argc, char **argv, int argi, const int *states, const char *zone,
		     struct inv_node **ret_nodes, size_t *ret_n)
{
	struct br_err err = { 0 };
	struct inv_node *all = NULL, *pick;
	size_t n_all = 0, n = 0;

	if (inv_nodes_list(inv, &all, &n_all, &err)) {
		br_error("inventory", "%s", err.msg);
		return STG_EXIT_UNREACHABLE;
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
				return STG_EXIT_USAGE;
			}
			/* A node of another zone is another controller's: naming
			 * it here is a slip (a BMC this one may not reach). */
			if (all[i].hostname && !in_zone(&all[i], zone)) {
				br_error("select", "%s is in %s%s, not in %s %s: run it with --zone %s",
					 argv[a], all[i].zone ? "zone " : "no zone",
					 all[i].zone ? all[i].zone : "", strchr(zone, ',') ? "zones" : "zone",
					 zone, all[i].zone ? all[i].zone : "''");
				inv_nodes_free(all, n_all);
				inv_nodes_free(pick, n);
				return STG_EXIT_USAGE;
			}
			if (all[i].hostname) {
				pick[n++] = all[i];
				memset(&all[i], 0, sizeof(all[i]));
			}
		}
	} else {
		for (size_t i = 0; i < n_all; i++)
			for (const int *s = states; *s >= 0 && in_zone(&all[i], zone); s++)
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

struct inv_check *stg_checks_from_val(const struct val_check *checks, size_t n)
{
	static const enum inv_check_result result[] = {
		[VAL_PASS] = INV_CHECK_PASS, [VAL_FAIL] = INV_CHECK_FAIL, [VAL_UNKNOWN] = INV_CHECK_UNKNOWN
	};
	struct inv_check *out = br_xcalloc(n ? n : 1, sizeof(*out));

	for (size_t i = 0; i < n; i++)
		out[i] = (struct inv_check){ br_xstrdup(checks[i].name), result[checks[i].result],
					     checks[i].detail ? br_xstrdup(checks[i].detail) : NULL, NULL,
					     checks[i].component ? br_xstrdup(checks[i].component) : NULL };
	return out;
}

struct val_check *stg_checks_view_val(const struct inv_check *checks, size_t n)
{
	static const enum val_result result[] = {
		[INV_CHECK_PASS] = VAL_PASS, [INV_CHECK_FAIL] = VAL_FAIL, [INV_CHECK_UNKNOWN] = VAL_UNKNOWN
	};
	struct val_check *out = br_xcalloc(n ? n : 1, sizeof(*out));

	for (size_t i = 0; i < n; i++)
		out[i] = (struct val_check){ checks[i].name, result[checks[i].result], checks[i].detail,
					     checks[i].component };
	return out;
}

/* ---- the stage skeleton ------------------------------------------------------ */

int stg_stage_parse(struct stg_stage *st, const struct br_command *cmd, int argc, char **argv)
{
	struct br_err err = { 0 };
	int rc, config_rc;

	st->cmd = cmd;
	st->argc = argc;
	st->argv = argv;
	br_log_init(argv[0], BR_LOG_WARN);
	stg_journal_install();
	if (argc == 2 && !strcmp(argv[1], "--options-json")) {
		json_t *doc = br_opt_table_json(cmd);

		br_json_print(stdout, doc);
		json_decref(doc);
		st->exit = STG_EXIT_OK;
		return 1;
	}
	/* Before the options: bringup.conf's settings become the
	 * environment's defaults, which --db and the rest then beat. */
	config_rc = stg_config_apply(&err);
	rc = br_opt_parse(cmd, argc, argv, &st->argi);
	if (!rc && config_rc) {
		fprintf(stderr, "%s\n%s: bringup.conf: nothing done\n", err.msg, cmd->name);
		rc = BR_OPT_EXIT_USAGE;
	}
	if (rc) {
		st->exit = rc == BR_OPT_EXIT_OK ? STG_EXIT_OK : STG_EXIT_USAGE;
		return rc;
	}
	if (st->follow_fd && (st->follow_fd < 3 || fcntl(st->follow_fd, F_GETFD) < 0))
		return stg_stage_usage(st, "--follow-fd %d: not an open descriptor of bringup run's",
				       st->follow_fd);
	if (st->follow_fd && st->argi < argc)
		return stg_stage_usage(
		    st, "--follow-fd takes no host names (bringup run --only runs stage by stage)");
	return 0;
}

/* ---- which stage takes which node -------------------------------------------- */

static const int discover_states[] = { INV_NEW, INV_FAILED, -1 };
static const int firmware_states[] = { INV_DISCOVERED, INV_FAILED, -1 };
static const int configure_states[] = { INV_DISCOVERED, -1 };
static const int enlist_states[] = { INV_CONFIGURED, INV_ENLISTED, INV_FAILED, -1 };
static const int enlist_skip_states[] = { INV_CONFIGURED, INV_ENLISTED, INV_FAILED, INV_DISCOVERED, -1 };
static const int validate_states[] = { INV_DEPLOYED, -1 };
static const int gate_states[] = { INV_VALIDATED, INV_GOLDEN, INV_QUARANTINED, -1 };
/* Named, a node may also be run again where that converges: configure
 * over a configured node, validate over one validated or judged (a
 * repaired node re-checked); a failed one by the stage it failed in. */
static const int configure_named[] = { INV_DISCOVERED, INV_CONFIGURED, INV_FAILED, -1 };
static const int validate_named[] = {
	INV_DEPLOYED, INV_VALIDATED, INV_GOLDEN, INV_QUARANTINED, INV_FAILED, -1
};
const int stg_all_states[] = {
	INV_NEW,    INV_DISCOVERED, INV_CONFIGURED,  INV_ENLISTED, INV_DEPLOYED, INV_VALIDATED,
	INV_GOLDEN, INV_FAILED,	    INV_QUARANTINED, INV_RETIRED,  -1,
};

static const struct {
	const char *name;
	const int *states, *skip_states; /* skip_states: with --skip-configure */
	const int *named;		 /* NULL: states (skip_states) */
} pipeline[] = {
	{ "discover", discover_states, discover_states, NULL },
	{ "firmware", firmware_states, firmware_states, NULL },
	{ "configure", configure_states, configure_states, configure_named },
	{ "enlist", enlist_states, enlist_skip_states, NULL },
	{ "validate", validate_states, validate_states, validate_named },
	{ "gate", gate_states, gate_states, NULL },
};
#define N_PIPELINE (sizeof(pipeline) / sizeof(pipeline[0]))

static int state_in(enum inv_state state, const int *states);
static void rounds_release(struct stg_stage *st);

static size_t stage_index(const char *stage)
{
	size_t i;

	for (i = 0; i < N_PIPELINE && strcmp(pipeline[i].name, stage); i++)
		;
	return i;
}

const int *stg_stage_states(const char *stage, int skip_configure)
{
	size_t i = stage_index(stage);

	if (i == N_PIPELINE)
		return stg_all_states;
	return skip_configure ? pipeline[i].skip_states : pipeline[i].states;
}

const int *stg_stage_named_states(const char *stage, int skip_configure)
{
	size_t i = stage_index(stage);

	if (i < N_PIPELINE && pipeline[i].named)
		return pipeline[i].named;
	return stg_stage_states(stage, skip_configure);
}

/* The stage that fails nodes with this kind; NULL for the kinds any stage
 * gives (stage_failed, time_limit, worker_died). */
static const char *kind_stage(enum br_fail_kind kind)
{
	switch (kind) {
	case BR_FAIL_BMC_UNREACHABLE:
	case BR_FAIL_BMC_AUTH:
	case BR_FAIL_BMC_DEADLINE:
	case BR_FAIL_BMC_TLS:
	case BR_FAIL_BMC_PROTOCOL:
	case BR_FAIL_NO_HOST_MAC:
	case BR_FAIL_MAC_CONFLICT:
	case BR_FAIL_SERIAL_MISMATCH:
		return "discover";
	case BR_FAIL_BIOS_UNSUPPORTED:
	case BR_FAIL_BIOS_NOT_APPLIED:
		return "configure";
	case BR_FAIL_FIRMWARE:
		return "firmware";
	case BR_FAIL_BMC_CREDENTIALS:
	case BR_FAIL_MAAS_POWER:
	case BR_FAIL_CREDENTIAL_STORE:
		return "credentials";
	case BR_FAIL_MAAS_REFUSED:
	case BR_FAIL_BOOT_DISK:
	case BR_FAIL_POWER:
	case BR_FAIL_COMMISSION:
	case BR_FAIL_DEPLOY:
		return "enlist";
	case BR_FAIL_SSH_UNREACHABLE:
	case BR_FAIL_SSH_AUTH:
	case BR_FAIL_SSH_HOST_KEY:
	case BR_FAIL_PROBE:
	case BR_FAIL_WRONG_NODE:
		return "validate";
	case BR_FAIL_NONE:
	case BR_FAIL_STAGE:
	case BR_FAIL_TIME_LIMIT:
	case BR_FAIL_WORKER:
		return NULL;
	}
	return NULL;
}

/* The stage that takes a node in `state` onward (a failed one: discover). */
static const char *next_stage(enum inv_state state, int skip_configure)
{
	for (size_t i = 0; i < N_PIPELINE; i++)
		if (state != INV_FAILED &&
		    state_in(state, stg_stage_states(pipeline[i].name, skip_configure)))
			return pipeline[i].name;
	return "discover";
}

const char *stg_failed_in(struct inv *inv, const struct inv_node *node, int skip_configure)
{
	const char *by_kind = kind_stage(node->failure_kind);
	enum inv_state from;
	int again = 0;

	if (node->state != INV_FAILED)
		return NULL;
	/* a failed rotation is finished by credentials rotate alone, whatever
	 * state the node was in (stages/credentials.c) */
	if (by_kind && !strcmp(by_kind, "credentials"))
		return by_kind;
	if (inv_node_failed_from(inv, node->hostname, &from, &again, NULL))
		return by_kind;
	/* The state it was failed from names the stage exactly, unless a
	 * stage that took the failed node failed it again since, or it was
	 * 'discovered' (configure's, or enlist's with --skip-configure): then
	 * the kind, typed where the failure happened, says. */
	if (by_kind && (again || from == INV_DISCOVERED))
		return by_kind;
	return next_stage(from, skip_configure);
}

/* Enlist taking discovered nodes: configure is skipped. */
static int skip_configure(const char *stage, const int *states)
{
	return !strcmp(stage, "enlist") && state_in(INV_DISCOVERED, states);
}

static int every_state(const int *states)
{
	for (int s = 0; s < INV_STATE_COUNT; s++)
		if (!state_in((enum inv_state)s, states))
			return 0;
	return 1;
}

int stg_stage_takes(struct inv *inv, const char *stage, const int *states, const struct inv_node *node)
{
	const char *failed_in;

	if (!state_in(node->state, states))
		return 0;
	/* A command over every state (tickets, status, reprovision) takes any
	 * node; a stage takes a failed node back only where it failed. */
	if (node->state != INV_FAILED || every_state(states))
		return 1;
	failed_in = stg_failed_in(inv, node, skip_configure(stage, states));
	return !failed_in || !strcmp(failed_in, stage);
}

/* Named nodes a stage does not take stop it before any node is touched,
 * each named with the stage that would take it; with --force they are
 * taken, their history saying so. */
static int refuse_out_of_turn(struct stg_stage *st, const int *states)
{
	const char *stage = st->cmd->name;
	size_t refused = 0;
	int skip;

	if (!strncmp(stage, "bringup-", 8))
		stage += 8;
	skip = skip_configure(stage, states);
	if (stage_index(stage) < N_PIPELINE)
		states = stg_stage_named_states(stage, skip);
	for (size_t i = 0; i < st->n; i++) {
		const struct inv_node *node = &st->nodes[i];
		const char *failed_in, *next;
		struct br_err err = { 0 };

		if (stg_stage_takes(st->inv, stage, states, node))
			continue;
		if (st->common.force) {
			if (inv_node_forced(st->inv, node->hostname, &err)) {
				br_error("inventory", "%s", err.msg);
				return STG_EXIT_UNREACHABLE;
			}
			br_warn(stage, "%s is '%s': taken all the same (--force)", node->hostname,
				inv_state_name(node->state));
			continue;
		}
		failed_in = stg_failed_in(st->inv, node, skip);
		next = failed_in ? failed_in : next_stage(node->state, skip);
		if (failed_in)
			br_error(stage, "%s is 'failed' (in %s): run bringup %s, or --force", node->hostname,
				 failed_in, failed_in);
		else if (stage_index(next) < stage_index(stage))
			br_error(stage, "%s is '%s': run bringup %s first, or --force", node->hostname,
				 inv_state_name(node->state), next);
		else
			br_error(stage,
				 "%s is '%s': bringup %s takes it now (bringup reprovision starts it over), "
				 "or --force",
				 node->hostname, inv_state_name(node->state), next);
		refused++;
	}
	return refused ? STG_EXIT_USAGE : 0;
}

/* The longest line of the driver's skip list: a host name and more. */
#define FOLLOW_LINE_MAX 512

/* Follow mode: first of all the driver sends a line "-HOST" for each node
 * this run is not to take (bringup controller: the nodes at rest), then a
 * line "."; each is counted as taken already. 0, or -1 when the driver
 * ended or sent something else. */
static int follow_skip_read(struct stg_stage *st)
{
	char buf[4096], line[FOLLOW_LINE_MAX];
	size_t len = 0;

	for (;;) {
		ssize_t got = read(st->follow_fd, buf, sizeof(buf));

		if (got < 0 && errno == EINTR && !br_signal_caught())
			continue;
		if (got <= 0)
			return -1;
		for (ssize_t i = 0; i < got; i++) {
			if (buf[i] != '\n') {
				if (len + 1 >= sizeof(line))
					return -1;
				line[len++] = buf[i];
				continue;
			}
			line[len] = '\0';
			len = 0;
			if (!strcmp(line, "."))
				return i + 1 == got ? 0 : -1; /* nothing comes before "ready" */
			if (line[0] != '-' || !line[1])
				return -1;
			br_strlist_add(&st->taken, line + 1);
		}
	}
}

static int was_taken(const struct stg_stage *st, const char *hostname);

/* The selected nodes the driver's skip list names, left out. */
static void drop_taken(struct stg_stage *st)
{
	size_t k = 0;

	if (!st->taken.n)
		return;
	for (size_t i = 0; i < st->n; i++) {
		if (was_taken(st, st->nodes[i].hostname))
			inv_node_release(&st->nodes[i]);
		else
			st->nodes[k++] = st->nodes[i];
	}
	st->n = k;
}

/* Nodes picked by state that a failed rotation holds, left out of every
 * stage but the ones over every state (credentials rotate, status, ...):
 * only a rotation that succeeds takes such a node back (stg_failed_in). */
static void drop_rotation_failed(struct stg_stage *st, const int *states)
{
	size_t k = 0;

	if (every_state(states))
		return;
	for (size_t i = 0; i < st->n; i++) {
		const char *by_kind =
		    st->nodes[i].state == INV_FAILED ? kind_stage(st->nodes[i].failure_kind) : NULL;

		if (by_kind && !strcmp(by_kind, "credentials"))
			inv_node_release(&st->nodes[i]);
		else
			st->nodes[k++] = st->nodes[i];
	}
	st->n = k;
}

int stg_stage_open(struct stg_stage *st, const int *states)
{
	int rc;

	if (st->follow_fd > 0 && follow_skip_read(st)) {
		br_error("stage", "--follow-fd %d: no list of the nodes to skip from bringup run",
			 st->follow_fd);
		return st->exit = STG_EXIT_USAGE;
	}

	if (st->common.zone && !stg_zones_valid(st->common.zone)) {
		br_error("select",
			 "--zone: '%s' is not a zone name (at most %d letters, digits, '.', '_', '-'), nor "
			 "up to %d of them separated by commas",
			 st->common.zone, STG_MANIFEST_ZONE_MAX, STG_ZONES_MAX);
		return st->exit = STG_EXIT_USAGE;
	}
	inv_set_writer_zones(st->zoned_writes ? st->common.zone : NULL);
	rc = stg_stage_open_inventory_with(st->common.db, st->readonly ? INV_OPEN_READONLY : 0, &st->inv);

	if (!rc && states)
		rc = stg_stage_select(st->inv, st->argc, st->argv, st->argi, states, st->common.zone,
				      &st->nodes, &st->n);
	if (!rc && states && st->argi >= st->argc) {
		drop_taken(st);
		drop_rotation_failed(st, states);
	}
	/* A retired node is out of the flow until a person says otherwise:
	 * naming one to a stage is a mistake, not a request. */
	for (size_t i = 0; !rc && !st->allow_retired && i < st->n; i++)
		if (st->nodes[i].state == INV_RETIRED) {
			br_error("select", "%s: retired: bringup unretire %s first", st->nodes[i].hostname,
				 st->nodes[i].hostname);
			rc = STG_EXIT_USAGE;
		}
	if (!rc && states && st->argi < st->argc)
		rc = refuse_out_of_turn(st, states);
	if (!rc && st->n && st->inputs_check)
		rc = st->inputs_check(st->nodes, st->n, st->inputs_ctx);
	/* Named nodes, once taken, are worked whatever their state; nodes
	 * picked by state must still be in one of them under the lease. */
	if (!rc && states && !st->no_lease && !st->readonly)
		rc = stg_stage_lease_for(st, st->lease_as ? st->lease_as : st->cmd->name,
					 st->argi < st->argc ? NULL : states);
	st->exit = rc;
	return rc;
}

int stg_stage_usage(struct stg_stage *st, const char *fmt, ...)
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
	st->exit = STG_EXIT_USAGE;
	return st->exit;
}

int stg_stage_fail(struct stg_stage *st, int exit_code, const char *fmt, ...)
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

void stg_stage_report(struct stg_stage *st, json_t *(*to_json)(const void *run),
		      void (*print)(const void *run), const void *run, size_t failed)
{
	if (st->common.json) {
		json_t *doc = to_json(run);

		/* A pipeline stage says what it cost the database (docs/benchmarks.md):
		 * up to here, so not the leases stg_stage_close gives back. */
		if (json_is_object(doc) && st->cmd && !strncmp(st->cmd->name, "bringup-", 8) &&
		    stg_stage_states(st->cmd->name + 8, 0) != stg_all_states)
			json_object_set_new(doc, "db", stg_db_json(st->inv));
		if (st->held.n && json_is_object(doc)) {
			json_t *held = json_array();

			for (size_t i = 0; i < st->held.n; i++)
				json_array_append_new(held, json_string(st->held.items[i]));
			json_object_set_new(doc, "held_elsewhere", held);
		}
		br_json_print(stdout, doc);
		json_decref(doc);
	} else if (!st->common.quiet) {
		print(run);
	}
	st->exit = failed ? STG_EXIT_NODES : STG_EXIT_OK;
}

json_t *stg_db_json(const struct inv *inv)
{
	struct inv_db_counts c;

	inv_db_counts(&c);
	return json_pack("{s:s?, s:I, s:I, s:I, s:I, s:I, s:I}", "backend",
			 inv ? inv_backend_name(inv) : NULL, "statements", (json_int_t)c.statements,
			 "round_trips", (json_int_t)c.round_trips, "commits", (json_int_t)c.commits,
			 "rows_changed", (json_int_t)c.rows_changed, "rows_read", (json_int_t)c.rows_read,
			 "bytes_bound", (json_int_t)c.bytes_bound);
}

void stg_stage_unwritable(struct stg_stage *st, size_t n, const char *msg)
{
	st->unrecorded += n;
	if (!st->inventory_error)
		st->inventory_error = br_xstrdup(msg && *msg ? msg : "a write failed");
}

int stg_inventory_refused(const struct br_err *err)
{
	return err && (err->code == BR_E_DB || err->code == BR_E_IO || err->code == BR_E_NOMEM);
}

/* Exit 3, as for an inventory that cannot be opened: what the stage
 * printed is not what the inventory holds. */
static void report_unwritable(struct stg_stage *st)
{
	if (!st->inventory_error)
		return;
	if (st->unrecorded)
		stg_stage_fail(st, STG_EXIT_UNREACHABLE,
			       "the inventory cannot be written: %s; %zu node%s' outcome not recorded",
			       st->inventory_error, st->unrecorded, st->unrecorded == 1 ? "" : "s");
	else
		stg_stage_fail(st, STG_EXIT_UNREACHABLE, "the inventory cannot be written: %s",
			       st->inventory_error);
	free(st->inventory_error);
	st->inventory_error = NULL;
}

int stg_stage_catch_signals(struct stg_stage *st)
{
	struct br_err err = { 0 };

	if (br_signals_catch(&err))
		return stg_stage_fail(st, STG_EXIT_USAGE, "%s", err.msg);
	return 0;
}

void stg_stage_interrupted(struct stg_stage *st)
{
	int signo = br_signal_caught();

	if (!signo)
		return;
	stg_stage_fail(st, 128 + signo,
		       "interrupted by %s: BMC sessions logged out, unfinished nodes left as they were",
		       br_signal_name(signo));
}

int stg_stage_close(struct stg_stage *st)
{
	if (st->exit < STG_EXIT_USAGE)
		report_unwritable(st);
	free(st->inventory_error);
	st->inventory_error = NULL;
	/* "all done" is not true of nodes another run holds: a second run
	 * over a rack the first one is working skipped them all. */
	if (st->held.n) {
		int exit_code = st->exit == STG_EXIT_OK ? STG_EXIT_NODES : st->exit;

		stg_stage_fail(st, exit_code,
			       "%zu node%s left as %s: another run holds %s (%s); run this again once it "
			       "ends",
			       st->held.n, st->held.n == 1 ? "" : "s",
			       st->held.n == 1 ? "it was" : "they were", st->held.n == 1 ? "it" : "them",
			       st->held_by);
	}
	br_strlist_release(&st->held);
	free(st->held_by);
	st->held_by = NULL;
	/* Retirement is judged here, once for every stage, after the stage
	 * recorded its outcomes: the inventory counts attempts, the profile
	 * (which the inventory does not know) says how many are too many. A
	 * stage stopped for an operator's mistake touched no node: nor does
	 * this. */
	if (st->inv && st->n && !st->no_lease && !st->readonly && !st->allow_retired &&
	    st->exit != STG_EXIT_USAGE) {
		struct stg_profiles profiles = { 0 };

		stg_lifecycle_retire_due(st->inv, &profiles, st->nodes, st->n);
		stg_profiles_release(&profiles);
	}
	inv_nodes_free(st->nodes, st->n);
	/* A run that took no leases has none to give back, and may hold no
	 * right to write (a viewer; a read-only PostgreSQL role). */
	if (!st->readonly && !st->no_lease)
		stg_stage_release(st->inv);
	inv_close(st->inv);
	br_strlist_release(&st->taken);
	rounds_release(st);
	if (st->follow_fd > 0)
		close(st->follow_fd);
	st->follow_fd = 0;
	st->nodes = NULL;
	st->n = 0;
	st->inv = NULL;
	return st->exit;
}

const struct prof_profile *stg_profiles_get(struct stg_profiles *ps, const char *name, struct br_err *err)
{
	struct prof_profile *p;

	for (size_t i = 0; i < ps->n; i++)
		if (!strcmp(ps->items[i]->name, name))
			return ps->items[i];
	if (!ps->templates && !(ps->templates = stg_templates_dir())) {
		br_errf(err, BR_E_NOTFOUND, "no templates directory (set BRINGUP_TEMPLATES)");
		return NULL;
	}
	p = br_xmalloc(sizeof(*p));
	if (stg_profile_load(ps->templates, name, p, err)) {
		free(p);
		return NULL;
	}
	ps->items = br_xrealloc(ps->items, (ps->n + 1) * sizeof(*ps->items));
	ps->items[ps->n++] = p;
	return p;
}

void stg_profiles_release(struct stg_profiles *ps)
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
	struct stg_stage *st; /* or NULL: told of nodes held elsewhere */
};

static void on_lease(void *ctx, size_t i, int rc, struct inv_node *fresh, const struct br_err *why)
{
	struct lease_pass *lp = ctx;

	lp->seen = i + 1;
	if (rc) {
		br_warn("lease", "%s; skipped", why->msg);
		if (lp->st && rc == BR_E_EXISTS) {
			br_strlist_add(&lp->st->held, lp->nodes[i].hostname);
			if (!lp->st->held_by)
				lp->st->held_by = br_xstrdup(why->msg);
		}
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

/* ---- lease keepalive: the process's leases renewed while it works ---------
 * On a connection of its own, opened when first due in the process that
 * took the leases (or a round child working them): the stage's own may be
 * closed across a worker pool's fork when it is due. */
static struct {
	char *path;
	struct inv *inv;
	pid_t pid; /* the process inv was opened in */
	int ttl_s;
} keep;

static void keepalive(void *ctx)
{
	struct br_err err = { 0 };
	size_t n = 0;

	(void)ctx;
	if (keep.pid != getpid()) {
		keep.inv = NULL; /* a parent's connection: never used here */
		keep.pid = getpid();
	}
	if (!keep.inv && stg_stage_open_inventory(keep.path, &keep.inv)) {
		br_warn("lease", "cannot renew this stage's leases: the inventory %s cannot be opened",
			keep.path);
		return;
	}
	if (inv_leases_renew(keep.inv, keep.ttl_s, &n, &err))
		br_warn("lease", "renewing this stage's leases: %s", err.msg);
	else
		br_debug("lease", "%zu lease%s renewed for %d s", n, n == 1 ? "" : "s", keep.ttl_s);
}

/* Renew from now on in this process (a round child: its own). */
static void keepalive_start(struct inv *inv, int ttl_s)
{
	if (!keep.path && inv)
		keep.path = br_xstrdup(inv_path(inv));
	if (!keep.path)
		return;
	keep.ttl_s = ttl_s;
	br_loop_keepalive_set(keepalive, NULL, inv_lease_keepalive_ms(ttl_s));
}

static int lease(struct inv *inv, const char *stage, const int *states, struct inv_node *nodes, size_t *n,
		 struct stg_stage *st)
{
	const char **names = br_xcalloc(*n ? *n : 1, sizeof(*names));
	struct lease_pass lp = { states, nodes, 0, 0, st };
	struct br_err err = { 0 };
	int rc = 0;

	int ttl_s;

	for (size_t i = 0; i < *n; i++)
		names[i] = nodes[i].hostname;
	if (inv_lease_ttl(&ttl_s, &err)) {
		br_error("lease", "%s", err.msg);
		rc = STG_EXIT_USAGE;
		lp.seen = 0;
	} else if (inv_leases_take(inv, names, *n, stage, ttl_s, on_lease, &lp, &err)) {
		br_error("inventory", "%s", err.msg);
		rc = STG_EXIT_UNREACHABLE;
	}
	if (lp.kept)
		keepalive_start(inv, ttl_s);
	free(names);
	/* nodes past the last batch taken (an error stopped it) are dropped */
	for (size_t i = lp.seen; i < *n; i++)
		inv_node_release(&nodes[i]);
	*n = lp.kept;
	return rc;
}

int stg_stage_lease(struct inv *inv, const char *stage, const int *states, struct inv_node *nodes, size_t *n)
{
	return lease(inv, stage, states, nodes, n, NULL);
}

int stg_stage_lease_for(struct stg_stage *st, const char *stage, const int *states)
{
	return lease(st->inv, stage, states, st->nodes, &st->n, st);
}

void stg_stage_release(struct inv *inv)
{
	struct br_err err = { 0 };

	if (inv && inv_leases_give_back(inv, &err))
		br_error("inventory", "%s", err.msg);
}

/* ---- follow mode (bringup run's flow) ------------------------------------------ */

/* The parent pid of process pid (/proc/PID/stat field 4); -1 when unknown. */
static long parent_of(long pid)
{
	char path[64], *data = NULL, *p;
	size_t len;
	long ppid = -1;

	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	if (br_read_file(path, 4096, &data, &len, NULL))
		return -1;
	/* after the command name's last ')': " STATE PPID" */
	p = data ? strrchr(data, ')') : NULL;
	if (p && p[1] == ' ' && p[2] && p[3] == ' ')
		ppid = strtol(p + 4, NULL, 10);
	free(data);
	return ppid;
}

/* A stage of the same bringup run (a child of the same driver) yields a
 * node it has moved out of every state it takes: it is done with it, and
 * the next stage need not wait for the end of that stage's round. */
static int sibling_yields(void *ctx, const struct inv_lease *holder, const struct inv_node *node)
{
	const char *stage = holder->stage;

	(void)ctx;
	if (holder->pid == (long)getpid() || parent_of(holder->pid) != (long)getppid())
		return 0;
	if (!strncmp(stage, "bringup-", 8))
		stage += 8;
	if (stage_index(stage) == N_PIPELINE)
		return 0;
	return !state_in(node->state, stg_stage_states(stage, 0)) &&
	       !state_in(node->state, stg_stage_states(stage, 1));
}

/* Read what the driver sent: 1 once FD has ended (kept in follow_fd < 0). */
static int follow_poll(struct stg_stage *st, int timeout_ms)
{
	struct pollfd p = { st->follow_fd, POLLIN, 0 };
	char buf[64];
	ssize_t got;

	if (st->follow_fd < 0)
		return 1;
	if (poll(&p, 1, timeout_ms) <= 0)
		return 0;
	got = read(st->follow_fd, buf, sizeof(buf));
	if (got > 0 || (got < 0 && errno == EINTR))
		return 0;
	close(st->follow_fd);
	st->follow_fd = -1;
	return 1;
}

int stg_stage_wait(struct stg_stage *st)
{
	br_loop_keepalive_due();
	return follow_poll(st, STG_FOLLOW_POLL_MS);
}

/* "ready" to the driver, then its go ahead (a byte); 0 to go on. */
static int follow_start(struct stg_stage *st)
{
	char go;
	ssize_t got;

	if (write(st->follow_fd, "ready\n", 6) != 6)
		return -1;
	while ((got = read(st->follow_fd, &go, 1)) < 0 && errno == EINTR && !br_signal_caught())
		;
	return got == 1 ? 0 : -1;
}

static int was_taken(const struct stg_stage *st, const char *hostname)
{
	for (size_t i = 0; i < st->taken.n; i++)
		if (!strcmp(st->taken.items[i], hostname))
			return 1;
	return 0;
}

/* The round done: what stg_stage_close does for it, its nodes remembered. */
static void close_round(struct stg_stage *st)
{
	if (st->n && !st->no_lease && !st->allow_retired && st->exit != STG_EXIT_USAGE) {
		struct stg_profiles profiles = { 0 };

		stg_lifecycle_retire_due(st->inv, &profiles, st->nodes, st->n);
		stg_profiles_release(&profiles);
	}
	for (size_t i = 0; i < st->n; i++)
		br_strlist_add(&st->taken, st->nodes[i].hostname);
	inv_nodes_free(st->nodes, st->n);
	st->nodes = NULL;
	st->n = 0;
	stg_stage_release(st->inv);
}

/* The nodes ready for this stage that it has not taken, leased. */
static int pick(struct stg_stage *st, const int *states)
{
	const char *stage = st->cmd->name;
	struct inv_node *all = NULL;
	size_t n_all = 0, n = 0;
	int rc;

	if (!strncmp(stage, "bringup-", 8))
		stage += 8;
	rc = stg_stage_select(st->inv, 0, NULL, 0, states, st->common.zone, &all, &n_all);
	if (rc)
		return rc;
	for (size_t i = 0; i < n_all; i++) {
		if (!was_taken(st, all[i].hostname) && stg_stage_takes(st->inv, stage, states, &all[i])) {
			all[n++] = all[i];
			continue;
		}
		inv_node_release(&all[i]);
	}
	if (n && st->inputs_check)
		rc = st->inputs_check(all, n, st->inputs_ctx);
	if (!rc && n)
		rc = stg_stage_lease(st->inv, st->lease_as ? st->lease_as : st->cmd->name, states, all, &n);
	st->nodes = all;
	st->n = n;
	return rc;
}

/* A round running in a child process (round_slots). */
struct stg_round_child {
	pid_t pid;
	char **hosts; /* its nodes (owned) */
	size_t n;
};

static void child_free(struct stg_round_child *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->hosts[i]);
	free(c->hosts);
}

static void rounds_release(struct stg_stage *st)
{
	for (size_t i = 0; i < st->n_children; i++)
		child_free(&st->children[i]);
	free(st->children);
	st->children = NULL;
	st->n_children = 0;
}

/* Reap the round children that ended (all of them, waiting, with block). */
static void reap_rounds(struct stg_stage *st, int block)
{
	size_t i = 0;

	while (i < st->n_children) {
		int status, rc;
		pid_t got = waitpid(st->children[i].pid, &status, block ? 0 : WNOHANG);

		if (got == 0 || (got < 0 && errno == EINTR)) {
			if (!block || br_signal_caught())
				i++;
			continue;
		}
		rc = got < 0		 ? STG_EXIT_UNREACHABLE
		     : WIFEXITED(status) ? WEXITSTATUS(status)
					 : 128 + WTERMSIG(status);
		if (rc > st->worst)
			st->worst = rc;
		child_free(&st->children[i]);
		st->children[i] = st->children[--st->n_children];
	}
}

/* Nodes of the running rounds still in the stage's states: in flight. */
static size_t rounds_in_flight(struct stg_stage *st, const int *states)
{
	size_t n = 0;

	for (size_t i = 0; i < st->n_children; i++)
		for (size_t k = 0; k < st->children[i].n; k++) {
			struct inv_node node;

			if (inv_node_get(st->inv, st->children[i].hosts[k], &node, NULL))
				continue;
			n += state_in(node.state, states) && node.state != INV_FAILED;
			inv_node_release(&node);
		}
	return n;
}

/* Start the picked nodes' round in a child process with share of the
 * cap; this process keeps their leases and goes on. 1 in the child. */
static int fork_round(struct stg_stage *st, int share)
{
	struct stg_round_child c = { 0 };
	pid_t pid;

	c.hosts = br_xcalloc(st->n ? st->n : 1, sizeof(*c.hosts));
	for (size_t i = 0; i < st->n; i++) {
		c.hosts[c.n++] = br_xstrdup(st->nodes[i].hostname);
		br_strlist_add(&st->taken, st->nodes[i].hostname);
	}
	/* SQLite must not see a connection cross fork() (inventory/fork.c) */
	inv_close(st->inv);
	st->inv = NULL;
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (stg_stage_open_inventory(st->common.db, &st->inv)) {
		st->exit = STG_EXIT_UNREACHABLE;
		if (pid == 0)
			_exit(STG_EXIT_UNREACHABLE);
	}
	if (pid == 0) {
		/* the round ends with this process's parent, as a stage's workers do */
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		close(st->follow_fd);
		st->follow_fd = 0;
		st->in_round_child = 1;
		st->round_share = share;
		/* this process works the round's nodes: it renews (its parent
		 * may wait on it) */
		if (keep.path)
			keepalive_start(NULL, keep.ttl_s);
		child_free(&c);
		for (size_t i = 0; i < st->n_children; i++)
			child_free(&st->children[i]);
		st->n_children = 0;
		return 1;
	}
	if (st->inv)
		inv_lease_set_yield(st->inv, sibling_yields, st);
	inv_nodes_free(st->nodes, st->n);
	st->nodes = NULL;
	st->n = 0;
	if (pid < 0) {
		br_error("stage", "fork: %s", strerror(errno));
		child_free(&c);
		st->exit = STG_EXIT_UNREACHABLE;
		return 0;
	}
	c.pid = pid;
	st->children = br_xrealloc(st->children, (st->n_children + 1) * sizeof(*st->children));
	st->children[st->n_children++] = c;
	return 0;
}

/* Follow mode with rounds side by side: this process picks and forks, the
 * children work. 1 in a child with its round; 0 here once every round has
 * ended and nothing more is ready. */
static int rounds_side_by_side(struct stg_stage *st, const int *states)
{
	for (;;) {
		int ended = follow_poll(st, 0), free_slots;

		reap_rounds(st, 0);
		if (br_signal_caught() || st->exit)
			break;
		free_slots = st->round_slots - (int)rounds_in_flight(st, states);
		if (free_slots > 0 && !st->n) {
			inv_nodes_free(st->nodes, 0); /* the last pick's empty array */
			st->nodes = NULL;
			st->exit = pick(st, states);
			if (st->exit)
				break;
		}
		if (st->n && free_slots > 0) {
			if (fork_round(st, free_slots < (int)st->n ? free_slots : (int)st->n))
				return 1;
			continue;
		}
		if (ended && !st->n && !st->n_children)
			break;
		stg_stage_wait(st);
	}
	reap_rounds(st, 1);
	if (st->worst > st->exit)
		st->exit = st->worst;
	return 0;
}

/* The sessions killed runs left, deleted as the stage may start touching
 * BMCs: before the first node is looked at, so a node past this stage
 * (configured, golden) has its leaked session deleted all the same. */
static void reclaim_sessions(struct stg_stage *st)
{
	if (st->reclaim_bmc && st->reclaim_rf)
		stg_bmc_sessions_reclaim(st, st->reclaim_bmc, st->reclaim_rf);
}

int stg_stage_round(struct stg_stage *st, const int *states)
{
	int ended;

	if (st->in_round_child)
		return 0;
	if (!st->follow_fd) {
		if (st->rounds++ || st->exit)
			return 0;
		reclaim_sessions(st);
		return 1;
	}
	if (st->round_slots && st->rounds++ == 0) {
		if (follow_start(st))
			return 0;
		inv_lease_set_yield(st->inv, sibling_yields, st);
		return rounds_side_by_side(st, states);
	}
	if (st->rounds++ == 0) {
		if (follow_start(st))
			return 0;
		inv_lease_set_yield(st->inv, sibling_yields, st);
		reclaim_sessions(st);
		if (st->n)
			return 1;
	} else {
		if (st->exit > st->worst)
			st->worst = st->exit;
		if (st->exit >= STG_EXIT_USAGE || br_signal_caught())
			return 0;
		close_round(st);
	}
	for (;;) {
		inv_nodes_free(st->nodes, st->n);
		st->nodes = NULL;
		st->n = 0;
		ended = follow_poll(st, 0);
		st->exit = pick(st, states);
		if (st->exit)
			return 0;
		if (st->n)
			return 1;
		if (ended || br_signal_caught())
			break;
		stg_stage_wait(st);
	}
	st->exit = st->worst;
	return 0;
}
