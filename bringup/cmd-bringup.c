/*
 * bringup: the driver. `bringup STAGE [args]` runs bringup-STAGE from the
 * driver's own directory or PATH, git-style; `bringup run` runs the pipeline
 * stages in order.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run.h"
#include "subproc.h"

static const struct {
	const char *name;
	const char *summary;
} commands[] = {
	{ "import", "load a rack manifest (rack.csv) into the inventory" },
	{ "discover", "read every BMC (Redfish, IPMI fallback): MACs, serials, firmware, sensors" },
	{ "configure", "bring BIOS to the baseline, set PXE boot, check firmware policy" },
	{ "enlist", "register with MAAS by MAC, commission, pick the boot disk by serial, deploy" },
	{ "validate", "probe each deployed node over SSH and judge it against its profile" },
	{ "gate", "promote passing nodes to the golden pool, quarantine the rest" },
	{ "tickets", "one actionable datacenter ticket per fault" },
	{ "reprovision", "release named nodes in MAAS, reset them, run the pipeline for them only" },
	{ "report", "the inventory as one HTML page: racks by state, faults, node detail" },
	{ "status", "the node table (--json for the machine-readable document)" },
	{ "history", "a node's state transitions" },
	{ "retire", "take named nodes out of the flow (a machine to return); --reason TEXT" },
	{ "unretire", "bring retired nodes back to 'new', attempts reset" },
	{ "sim", "serve a simulated rack of iDRACs (and MAAS) for trials and tests" },
	{ "bmc", "read one BMC without the inventory" },
	{ "run", "discover, configure, enlist, validate, gate, tickets in order, then a summary\n"
		 "             (--json: as a document; --only HOST...: just those nodes)" },
};

static const char *const pipeline[] = { "discover", "configure", "enlist", "validate", "gate", "tickets" };

/* Path of bringup-NAME: beside this executable first, then PATH. */
static char *find_stage(const char *name)
{
	char *dir = br_self_dir(), *path = NULL;
	const char *env = getenv("PATH");

	if (dir) {
		path = br_xasprintf("%s/bringup-%s", dir, name);
		free(dir);
		if (!access(path, X_OK))
			return path;
		free(path);
	}
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

static void usage(FILE *f)
{
	fprintf(f, "usage: bringup COMMAND [options]\n\n"
		   "Take a rack of new GPU servers from \"BMC reachable\" to the golden pool, or to\n"
		   "quarantine with a ticket a datacenter technician can act on.\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		char *path = strcmp(commands[i].name, "run") ? find_stage(commands[i].name) : NULL;

		fprintf(f, "  %-10s %s%s\n", commands[i].name, commands[i].summary,
			path || !strcmp(commands[i].name, "run") ? "" : " (not installed)");
		free(path);
	}
	fprintf(f,
		"\n'bringup COMMAND --help' describes one command. Exit codes: 0 all done, 1 some nodes\n"
		"failed or were quarantined, 2 bad usage or input, 3 a required service is unreachable.\n");
}

/* `bringup run` is the driver's own, so its help is here: the stages'
 * options reach it unparsed, and a --help among them must stop it before
 * any stage runs (it ran the whole pipeline). */
static void run_help(FILE *f)
{
	fprintf(f,
		"usage: bringup run [--json] [--only HOST...] [stage-options]\n\n"
		"Run discover, configure, enlist, validate, gate and tickets in order over one "
		"inventory,\n"
		"then sum up: nodes per state, open faults by kind, tickets, and each stage's time and\n"
		"exit status. A stage that exits 2 or more stops the run there.\n\n"
		"options:\n"
		"  %-28s %s\n  %-28s %s\n  %-28s %s\n  %-28s %s\n  %-28s %s\n\n"
		"Every other option goes to every stage unchanged, so it must be one each accepts\n"
		"(--db, --force, --skip-configure, -q); give stage settings through the environment\n"
		"(BRINGUP_CA_FILE, MAAS_URL, BRINGUP_SSH_KEY, ...). See bringup-run(1).\n",
		"    --json", "the summary as one JSON document on stdout (the stages' output on stderr)",
		"    --only HOST...", "those nodes only, each from the stage it stands at", "    --db PATH",
		"inventory database (default $BRINGUP_DB or ./bringup.db)", "-h, --help",
		"show this help and exit", "    --version", "print the version and exit");
}

static int run_stage(char *path, int argc, char **argv)
{
	char **args = br_xcalloc((size_t)argc + 2, sizeof(*args));
	const struct br_spawn_opts so = { "bringup", 0, NULL, NULL };
	int rc;

	args[0] = path;
	for (int i = 0; i < argc; i++)
		args[i + 1] = argv[i];
	rc = br_spawn_wait(path, args, &so, NULL);
	free(args);
	return rc < 0 ? STG_EXIT_UNREACHABLE : rc;
}

/* "'statsu' is not a bringup command; did you mean 'status'?" */
static int no_such_command(const char *name)
{
	const char *names[sizeof(commands) / sizeof(commands[0]) + 1], *near;
	size_t n = 0;

	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		names[n++] = commands[i].name;
	names[n++] = "help";
	near = br_did_you_mean(name, names, n);
	fprintf(stderr, "bringup: '%s' is not a bringup command", name);
	if (near)
		fprintf(stderr, "; did you mean '%s'?", near);
	fprintf(stderr, "\nbringup: see 'bringup --help'\n");
	return STG_EXIT_USAGE;
}

/* --help, -h or --version among run's arguments, before any "--". */
static const char *run_info_flag(int argc, char **argv)
{
	for (int i = 0; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h") || !strcmp(argv[i], "--version"))
			return argv[i];
	return NULL;
}

static int help_for(const char *name)
{
	char *path;
	int rc;

	if (!strcmp(name, "run")) {
		run_help(stdout);
		return STG_EXIT_OK;
	}
	path = find_stage(name);
	if (!path)
		return no_such_command(name);
	{
		char help[] = "--help";

		rc = run_stage(path, 1, (char *[]){ help });
	}
	free(path);
	return rc;
}

int main(int argc, char **argv)
{
	const char *flag;
	char *path;

	br_log_init(argv[0], BR_LOG_WARN);
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return argc < 2 ? STG_EXIT_USAGE : STG_EXIT_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("bringup %s\n", br_version());
		return STG_EXIT_OK;
	}
	if (!strcmp(argv[1], "help")) {
		if (argc < 3) {
			usage(stdout);
			return STG_EXIT_OK;
		}
		return help_for(argv[2]);
	}
	if (!strcmp(argv[1], "run")) {
		flag = run_info_flag(argc - 2, argv + 2);
		if (flag && !strcmp(flag, "--version")) {
			printf("bringup %s\n", br_version());
			return STG_EXIT_OK;
		}
		if (flag) {
			run_help(stdout);
			return STG_EXIT_OK;
		}
		return drv_run_pipeline(pipeline, sizeof(pipeline) / sizeof(pipeline[0]), find_stage,
					argc - 2, argv + 2);
	}
	if (argv[1][0] == '-') {
		fprintf(stderr, "bringup: '%s' before a command; see 'bringup --help'\n", argv[1]);
		return STG_EXIT_USAGE;
	}
	path = find_stage(argv[1]);
	if (!path)
		return no_such_command(argv[1]);
	/* Become the stage, so signals (Ctrl-C, a supervisor's SIGKILL) and the
	 * exit status reach it directly. */
	argv[1] = path;
	execv(path, argv + 1);
	fprintf(stderr, "bringup: cannot run %s: %s\n", path, strerror(errno));
	free(path);
	return STG_EXIT_UNREACHABLE;
}
