/*
 * bringup: the driver. `bringup STAGE [args]` runs bringup-STAGE from the
 * driver's own directory or PATH, git-style; `bringup run` runs the pipeline
 * stages (bringup/run.c).
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
	{ "run", "every stage at once, each node moving on as it is done, then tickets and a summary\n"
		 "             (--json: as a document; --only HOST...: just those nodes, stage by stage)" },
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

int main(int argc, char **argv)
{
	char *path;
	int rc;

	br_log_init(argv[0], BR_LOG_WARN);
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return argc < 2 ? STG_EXIT_USAGE : STG_EXIT_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("bringup %s\n", BR_VERSION);
		return STG_EXIT_OK;
	}
	if (!strcmp(argv[1], "help")) {
		if (argc < 3) {
			usage(stdout);
			return STG_EXIT_OK;
		}
		path = find_stage(argv[2]);
		if (!path) {
			fprintf(stderr, "bringup: no command '%s'\n", argv[2]);
			return STG_EXIT_USAGE;
		}
		{
			char help[] = "--help";

			rc = run_stage(path, 1, (char *[]){ help });
		}
		free(path);
		return rc;
	}
	if (!strcmp(argv[1], "run"))
		return drv_run_pipeline(pipeline, sizeof(pipeline) / sizeof(pipeline[0]), find_stage,
					argc - 2, argv + 2);
	path = find_stage(argv[1]);
	if (!path) {
		fprintf(stderr, "bringup: '%s' is not a bringup command; see 'bringup --help'\n", argv[1]);
		return STG_EXIT_USAGE;
	}
	/* Become the stage, so signals (Ctrl-C, a supervisor's SIGKILL) and the
	 * exit status reach it directly. */
	argv[1] = path;
	execv(path, argv + 1);
	fprintf(stderr, "bringup: cannot run %s: %s\n", path, strerror(errno));
	free(path);
	return STG_EXIT_UNREACHABLE;
}
