/*
 * The IPMI fallback: read BMCs that have no Redfish by running ipmitool
 * -I lanplus, many BMCs at once. A node runs its commands one after another
 * (each call is its own RMCP+ session); up to max_parallel nodes run at
 * once, each call a child of the event loop (common/loop.h), which reads
 * its pipes and enforces its time limit. The password
 * reaches ipmitool only as IPMI_PASSWORD in the child's environment (-E):
 * argv is world-readable through ps and /proc.
 *
 * BR_IPMITOOL in the environment names another ipmitool (tests use a fake).
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ipmi_private.h"
#include "loop.h"
#include "redfish.h"

struct ipmi_node;

struct ipmi_command {
	const char *what; /* for logs and reasons */
	const char *args[4];
	int (*parse)(const char *out, struct br_hw *hw);
	int required;		 /* a failure or an unexpected answer fails the node */
	const char *args_off[4]; /* instead of args when the chassis is off */
	/* Instead of parse, for what the node's next command needs (may fail
	 * the node with its own reason). */
	int (*parse_node)(const char *out, struct ipmi_node *node);
	/* What the call reads on stdin (a secret: freed with br_secret_free),
	 * or NULL with err to fail the node before it runs. */
	char *(*input)(const struct ipmi_node *node, struct br_err *err);
};

static int parse_sel(const char *out, struct br_hw *hw)
{
	return br_ipmi_parse_sel(out, BR_IPMI_SEL_MAX, hw);
}

/* The first command also proves the session. It runs with -v: only then
 * does ipmitool say why a session failed (a RAKP error means the BMC
 * refused the credentials, a failed Get Channel Authentication
 * Capabilities means nobody answered), and -v leaves this command's stdout
 * alone (it does not for sensor list or sel elist). */
static const struct ipmi_command commands[] = {
	{ "chassis power status",
	  { "chassis", "power", "status", NULL },
	  br_ipmi_parse_power,
	  0,
	  { NULL },
	  NULL,
	  NULL },
	{ "mc info", { "mc", "info", NULL }, br_ipmi_parse_mc_info, 0, { NULL }, NULL, NULL },
	{ "mc guid", { "mc", "guid", NULL }, br_ipmi_parse_mc_guid, 0, { NULL }, NULL, NULL },
	{ "fru print 0", { "fru", "print", "0", NULL }, br_ipmi_parse_fru, 0, { NULL }, NULL, NULL },
	{ "lan print 1", { "lan", "print", "1", NULL }, br_ipmi_parse_lan, 0, { NULL }, NULL, NULL },
	{ "sensor list", { "sensor", "list", NULL }, br_ipmi_parse_sensor_list, 0, { NULL }, NULL, NULL },
	{ "sdr type \"Power Supply\"",
	  { "sdr", "type", "Power Supply", NULL },
	  br_ipmi_parse_sdr_psu,
	  0,
	  { NULL },
	  NULL,
	  NULL },
	{ "sel elist", { "sel", "elist", NULL }, parse_sel, 0, { NULL }, NULL, NULL },
};
#define N_COMMANDS (sizeof(commands) / sizeof(commands[0]))

/* configure: PXE first for good (and in UEFI mode), then a power cycle —
 * or power on, as a BMC refuses to cycle a chassis that is off. ipmitool
 * exits 0 even when the BMC refused the boot flags, so each answer is read
 * and the flags are read back. */
static const struct ipmi_command pxe_commands[] = {
	{ "chassis power status",
	  { "chassis", "power", "status", NULL },
	  br_ipmi_parse_power,
	  1,
	  { NULL },
	  NULL,
	  NULL },
	{ "chassis bootdev pxe options=persistent,efiboot",
	  { "chassis", "bootdev", "pxe", "options=persistent,efiboot" },
	  ipmi_parse_bootdev_set,
	  1,
	  { NULL },
	  NULL,
	  NULL },
	{ "chassis bootparam get 5",
	  { "chassis", "bootparam", "get", "5" },
	  ipmi_parse_bootdev_pxe,
	  1,
	  { NULL },
	  NULL,
	  NULL },
	{ "chassis power cycle",
	  { "chassis", "power", "cycle", NULL },
	  ipmi_parse_power_control,
	  1,
	  { "chassis", "power", "on", NULL },
	  NULL,
	  NULL },
};
#define N_PXE_COMMANDS (sizeof(pxe_commands) / sizeof(pxe_commands[0]))

static int parse_user_list(const char *out, struct ipmi_node *node);
static char *password_script(const struct ipmi_node *node, struct br_err *err);

/* credentials: the account is the session's own user, found by name in
 * the user list of the channel the session came in on (no channel
 * argument: the current one), then given its new password on stdin. A
 * login check is the list alone. */
static const struct ipmi_command user_set_commands[] = {
	{ "user list", { "-c", "user", "list", NULL }, NULL, 1, { NULL }, parse_user_list, NULL },
	{ "user set password",
	  { "exec", "/dev/stdin", NULL },
	  ipmi_parse_set_password,
	  1,
	  { NULL },
	  NULL,
	  password_script },
};
static const struct ipmi_command user_check_commands[] = {
	{ "user list", { "-c", "user", "list", NULL }, NULL, 1, { NULL }, parse_user_list, NULL },
};

struct ipmi_node {
	const struct rf_ipmi_target *target;
	char *where;  /* "host:port", as reasons name the BMC */
	char *pw_env; /* "IPMI_PASSWORD=..." (zeroed when freed) */
	char **envp;  /* environ's strings, borrowed, plus pw_env */
	struct br_hw hw;
	size_t next;	 /* index of the command to run next */
	size_t answered; /* commands that gave data */
	int cipher3;	 /* ask for suite 3 directly: suite discovery failed */
	int rc;
	struct br_err err;
	struct ipmi_run *run;
	/* account work (rf_ipmi_users_opts): what to do, and the BMC's
	 * user ID of the account, once the user list has named it */
	const struct rf_ipmi_user_target *user;
	int user_id;
};

struct ipmi_run {
	struct br_loop *loop;
	const struct ipmi_command *cmds;
	size_t n_cmds;
	const char *tool;
	int timeout_s;
	rf_ipmi_done_fn done;
	void *ctx;
	const struct rf_ipmi_target *targets;
	const struct rf_ipmi_user_target *users; /* beside targets, for account work */
	struct ipmi_node *nodes;
	size_t n, started;
	size_t slots, running; /* nodes at once: the cap, and now */
	unsigned char *begun;  /* [node]: started */
	size_t next;	       /* nodes before it have all begun */
	int max_per_group;
	size_t *group_of; /* [node]: its group's number; SIZE_MAX: none */
	int *group_running;
	size_t n_groups;
};

/* Every node started has finished (a shared loop's run ends there). */
static int run_finished(void *ctx)
{
	const struct ipmi_run *run = ctx;

	return run->started == run->n && run->running == 0;
}

/* ---- one node ---------------------------------------------------------- */

static void node_init(struct ipmi_node *node, const struct rf_ipmi_target *t)
{
	memset(node, 0, sizeof(*node));
	node->target = t;
	node->where = ipmi_where(t);
	br_hw_init(&node->hw);
	node->hw.source = br_xstrdup("ipmi");
	node->envp = ipmi_envp(t->password, &node->pw_env);
}

static void node_release(struct ipmi_node *node)
{
	br_secret_free(node->pw_env);
	free(node->envp);
	free(node->where);
	br_hw_release(&node->hw);
}

static void node_finish(struct ipmi_run *run, struct ipmi_node *node)
{
	if (!node->rc && !node->answered)
		node->rc = br_errf(&node->err, BR_E_PROTO, "bmc %s: ipmitool answered none of %zu commands",
				   node->where, run->n_cmds);
	if (node->rc)
		br_info("ipmi", "%s: %s", node->target->name, node->err.msg);
	else
		br_info("ipmi", "%s: %zu of %zu commands answered", node->target->name, node->answered,
			run->n_cmds);
	run->running--;
	if (run->group_of[node - run->nodes] < run->n_groups)
		run->group_running[run->group_of[node - run->nodes]]--;
	run->done(node->target, node->rc, &node->hw, &node->err, run->ctx);
	node_release(node);
}

/* ---- accounts ---------------------------------------------------------- */

static int parse_user_list(const char *out, struct ipmi_node *node)
{
	const char *name = node->target->user ? node->target->user : "";
	int rc = ipmi_parse_user_id(out, name, &node->user_id);

	if (rc == BR_E_NOTFOUND)
		node->rc = br_errf(&node->err, BR_E_NOTFOUND,
				   "bmc %s: no IPMI user '%s' in the BMC's user list", node->where, name);
	return rc;
}

static char *password_script(const struct ipmi_node *node, struct br_err *err)
{
	return ipmi_user_password_script(node->user_id, node->user ? node->user->new_password : NULL, err);
}

/* ---- one ipmitool call ------------------------------------------------- */

static char **build_argv(const struct ipmi_run *run, const struct ipmi_node *node,
			 const struct ipmi_command *cmd)
{
	const char *const *args =
	    cmd->args_off[0] && node->hw.power_state && !strcmp(node->hw.power_state, "Off") ? cmd->args_off
											     : cmd->args;

	return ipmi_argv(run->tool, node->target, node->cipher3, cmd == &run->cmds[0] ? "-v" : NULL, args, 4);
}

static void on_call_exit(const struct br_loop_proc_result *res, void *ctx);

static int proc_start(struct ipmi_run *run, struct ipmi_node *node, struct br_err *err)
{
	const struct ipmi_command *cmd = &run->cmds[node->next];
	char *in = NULL, **argv;
	struct br_loop_proc_spec spec = { .path = run->tool,
					  .envp = node->envp,
					  .out_max = IPMI_STDOUT_MAX,
					  .err_max = IPMI_STDERR_MAX,
					  .timeout_ms = (int64_t)run->timeout_s * 1000 };
	int rc;

	if (cmd->input && !(in = cmd->input(node, err)))
		return br_err_prefix(err, "bmc %s: %s", node->where, cmd->what);
	argv = build_argv(run, node, cmd);
	spec.argv = argv;
	spec.in = in;
	spec.in_len = in ? strlen(in) : 0;
	rc = br_loop_spawn(run->loop, &spec, on_call_exit, node, err);
	br_secret_free(in);
	ipmi_argv_free(argv);
	if (rc)
		return br_err_prefix(err, "bmc %s", node->where);
	br_debug("ipmi", "%s: ipmitool %s%s", node->target->name, cmd->what, node->cipher3 ? " (-C 3)" : "");
	return 0;
}

/* Judge a finished call: parse it, skip it, or fail the node. */
static void proc_judge(struct ipmi_run *run, struct ipmi_node *node, const struct br_loop_proc_result *pr)
{
	const struct ipmi_command *cmd = &run->cmds[node->next];
	int first = node->next == 0;
	const char *name = node->target->name;
	struct br_buf text;
	char *why;

	if (br_ipmi_cipher_fallback_seen(br_buf_str(pr->err)))
		node->cipher3 = 1;
	if (pr->timed_out) {
		if (first)
			node->rc = br_errf(
			    &node->err, BR_E_UNREACHABLE,
			    "bmc %s: no IPMI answer within %d s (BMC down, or IPMI over LAN disabled?)",
			    node->where, run->timeout_s);
		else
			node->rc =
			    br_errf(&node->err, BR_E_TIMEOUT, "bmc %s: ipmitool %s: no answer within %d s",
				    node->where, cmd->what, run->timeout_s);
		return;
	}
	if (pr->truncated || (WIFEXITED(pr->status) && WEXITSTATUS(pr->status) == 0)) {
		char *out = br_xstrdup(br_buf_str(pr->out));
		int parsed;

		if (pr->truncated) {
			char *nl = strrchr(out, '\n');

			br_warn("ipmi", "%s: %s: output cut at %u bytes", name, cmd->what, IPMI_STDOUT_MAX);
			if (nl)
				nl[1] = '\0';
		}
		parsed = cmd->parse_node ? cmd->parse_node(out, node) : cmd->parse(out, &node->hw);
		free(out);
		if (parsed == 0) {
			node->answered++;
		} else if (node->rc) {
			return; /* parse_node said why */
		} else if (cmd->required) {
			why = ipmi_last_line(br_buf_str(pr->err->len ? pr->err : pr->out));
			node->rc =
			    br_errf(&node->err, BR_E_PROTO, "bmc %s: ipmitool %s: the BMC did not do it (%s)",
				    node->where, cmd->what, *why ? why : "no answer");
			free(why);
		} else {
			br_debug("ipmi", "%s: %s: nothing recognised in the output", name, cmd->what);
		}
		return;
	}
	/* Some refusals ("Device not present") go to stdout. */
	br_buf_init(&text, 0);
	br_buf_addf(&text, "%s\n%s", br_buf_str(pr->err), br_buf_str(pr->out));
	why = ipmi_last_line(br_buf_str(&text));
	switch (br_ipmi_classify_failure(br_buf_str(&text))) {
	case BR_IPMI_FAIL_AUTH:
		if (first) {
			node->rc = br_errf(&node->err, BR_E_AUTH,
					   "bmc %s: IPMI authentication failed (check bmc_user/bmc_password)",
					   node->where);
			break;
		}
		/* Later on, the credentials worked a moment ago: the BMC went away. */
		/* fall through */
	case BR_IPMI_FAIL_UNREACHABLE:
		node->rc =
		    br_errf(&node->err, BR_E_UNREACHABLE,
			    first ? "bmc %s: unreachable over IPMI (%s)" : "bmc %s: IPMI session lost (%s)",
			    node->where, why);
		break;
	case BR_IPMI_FAIL_OTHER:
		if (cmd->required)
			node->rc = br_errf(&node->err, BR_E_PROTO, "bmc %s: ipmitool %s failed: %s",
					   node->where, cmd->what, why);
		else
			br_debug("ipmi", "%s: %s: skipped, the BMC says: %s", name, cmd->what, why);
		break;
	}
	free(why);
	br_buf_release(&text);
}

static void start_nodes(struct ipmi_run *run);

/* A call ended: judge it, then start the node's next command or hand the
 * node back and start another. */
static void on_call_exit(const struct br_loop_proc_result *res, void *ctx)
{
	struct ipmi_node *node = ctx;
	struct ipmi_run *run = node->run;
	struct br_err err = { 0 };

	if (res->timed_out)
		br_debug("ipmi", "%s: %s: killed after %d s", node->target->name, run->cmds[node->next].what,
			 run->timeout_s);
	proc_judge(run, node, res);
	node->next++;
	while (!node->rc && node->next < run->n_cmds) {
		if (!proc_start(run, node, &err))
			return;
		node->rc = err.code;
		node->err = err;
	}
	node_finish(run, node);
	start_nodes(run);
}

/* ---- the loop ---------------------------------------------------------- */

/* Start nodes, in order, while fewer than the cap are running; one whose
 * group is full waits and later ones pass it. */
static void start_nodes(struct ipmi_run *run)
{
	while (run->next < run->n && run->begun[run->next])
		run->next++;
	for (size_t i = run->next; i < run->n && run->running < run->slots; i++) {
		struct ipmi_node *node = &run->nodes[i];
		size_t g = run->group_of[i];

		if (run->begun[i] || (g < run->n_groups && run->max_per_group > 0 &&
				      run->group_running[g] >= run->max_per_group))
			continue;
		node_init(node, &run->targets[i]);
		node->user = run->users ? &run->users[i] : NULL;
		run->begun[i] = 1;
		run->started++;
		node->run = run;
		run->running++;
		if (g < run->n_groups)
			run->group_running[g]++;
		if (proc_start(run, node, &node->err)) {
			node->rc = node->err.code;
			node_finish(run, node);
		}
	}
}

struct group_names {
	const struct rf_ipmi_target *targets;
	const char *(*group)(const struct rf_ipmi_target *target);
};

static const char *group_name(size_t i, const void *ctx)
{
	const struct group_names *g = ctx;

	return g->group ? g->group(&g->targets[i]) : NULL;
}

static int run_all(const struct ipmi_command *cmds, size_t n_cmds, const struct rf_ipmi_target *targets,
		   const struct rf_ipmi_user_target *users, size_t n, const struct rf_ipmi_options *o,
		   rf_ipmi_done_fn done, void *ctx, struct br_err *err)
{
	struct ipmi_run run = { .cmds = cmds,
				.n_cmds = n_cmds,
				.timeout_s = o->timeout_s > 0 ? o->timeout_s : IPMI_DEFAULT_TIMEOUT_S,
				.done = done,
				.ctx = ctx,
				.targets = targets,
				.users = users,
				.n = n };
	char *tool_path;
	int rc;

	if (!n)
		return 0;
	if ((rc = ipmi_tool_find(&tool_path, err)))
		return rc;
	run.loop = o->loop;
	if (!run.loop && (rc = br_loop_new(&run.loop, err))) {
		free(tool_path);
		return rc;
	}
	run.tool = tool_path;
	run.slots = o->max_parallel > 0 ? (size_t)o->max_parallel : IPMI_DEFAULT_PARALLEL;
	run.nodes = br_xcalloc(n, sizeof(*run.nodes));
	run.begun = br_xcalloc(n, 1);
	run.max_per_group = o->max_per_group;
	run.group_of = br_xcalloc(n, sizeof(*run.group_of));
	run.n_groups = br_groups_number(n, group_name, &(const struct group_names){ targets, o->group },
					run.group_of, 1);
	run.group_running = br_xcalloc(run.n_groups + 1, sizeof(*run.group_running));
	start_nodes(&run);
	if (o->loop) {
		rc = run_finished(&run) ? 0 : br_loop_run_until(run.loop, run_finished, &run, err);
	} else {
		rc = br_loop_run(run.loop, err);
		br_loop_free(run.loop);
	}
	free(run.nodes);
	free(run.begun);
	free(run.group_of);
	free(run.group_running);
	free(tool_path);
	return rc;
}

int rf_ipmi_discover_opts(const struct rf_ipmi_target *targets, size_t n, const struct rf_ipmi_options *o,
			  rf_ipmi_done_fn done, void *ctx, struct br_err *err)
{
	return run_all(commands, N_COMMANDS, targets, NULL, n, o, done, ctx, err);
}

int rf_ipmi_pxe_opts(const struct rf_ipmi_target *targets, size_t n, const struct rf_ipmi_options *o,
		     rf_ipmi_done_fn done, void *ctx, struct br_err *err)
{
	return run_all(pxe_commands, N_PXE_COMMANDS, targets, NULL, n, o, done, ctx, err);
}

int rf_ipmi_discover_all(const struct rf_ipmi_target *targets, size_t n, int max_parallel, int timeout_s,
			 rf_ipmi_done_fn done, void *ctx, struct br_err *err)
{
	const struct rf_ipmi_options o = { max_parallel, timeout_s, NULL, 0, NULL };

	return rf_ipmi_discover_opts(targets, n, &o, done, ctx, err);
}

int rf_ipmi_pxe_all(const struct rf_ipmi_target *targets, size_t n, int max_parallel, int timeout_s,
		    rf_ipmi_done_fn done, void *ctx, struct br_err *err)
{
	const struct rf_ipmi_options o = { max_parallel, timeout_s, NULL, 0, NULL };

	return rf_ipmi_pxe_opts(targets, n, &o, done, ctx, err);
}

int rf_ipmi_password_set(const struct rf_ipmi_user_target *users, size_t n, const struct rf_ipmi_options *o,
			 rf_ipmi_done_fn done, void *ctx, struct br_err *err)
{
	struct rf_ipmi_target *targets = br_xcalloc(n, sizeof(*targets));
	int rc;

	for (size_t i = 0; i < n; i++)
		targets[i] = users[i].target;
	rc = run_all(user_set_commands, sizeof(user_set_commands) / sizeof(user_set_commands[0]), targets,
		     users, n, o, done, ctx, err);
	free(targets);
	return rc;
}

int rf_ipmi_login_check(const struct rf_ipmi_target *targets, size_t n, const struct rf_ipmi_options *o,
			rf_ipmi_done_fn done, void *ctx, struct br_err *err)
{
	return run_all(user_check_commands, sizeof(user_check_commands) / sizeof(user_check_commands[0]),
		       targets, NULL, n, o, done, ctx, err);
}
