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
#include "stages/journal.h"
#include "subproc.h"

static const struct {
	const char *name;
	const char *summary;
} commands[] = {
	{ "import", "load a rack manifest (rack.csv) into the inventory" },
	{ "export", "write what bringup learned back to NetBox: serials, host MACs, state" },
	{ "discover", "read every BMC (Redfish, IPMI fallback): MACs, serials, firmware, sensors" },
	{ "firmware", "update firmware below policy from the catalogue, BMC first (--report: the versions)" },
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
	{ "bmc", "read one BMC (Redfish or IPMI) and change nothing: identity, MACs, sensors, SEL" },
	{ "credentials", "rotate: move BMCs from factory passwords to site ones (two-phase, resumable)" },
	{ "run", "every stage at once, each node moving on as it is done, then tickets and a summary\n"
		 "             (--json: as a document; --only HOST...: just those nodes, stage by stage;\n"
		 "             --firmware: stage by stage with firmware updates after discover)" },
	{ "controller",
	  "the flow of run as a service: a pass whenever nodes become ready; SIGTERM stops it" },
	{ "config", "show the settings from bringup.conf and the environment, and where each is from" },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: bringup COMMAND [options]\n\n"
		   "Take a rack of new GPU servers from \"BMC reachable\" to the golden pool, or to\n"
		   "quarantine with a ticket a datacenter technician can act on.\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		int own = !strcmp(commands[i].name, "run") || !strcmp(commands[i].name, "config");
		char *path = own ? NULL : drv_find_stage(commands[i].name);

		fprintf(f, "  %-10s %s%s\n", commands[i].name, commands[i].summary,
			path || own ? "" : " (not installed)");
		free(path);
	}
	fprintf(f,
		"\n'bringup --config FILE COMMAND' reads FILE after /etc/bringup/bringup.conf and\n"
		"$XDG_CONFIG_HOME/bringup/bringup.conf ('bringup config show' shows what is set).\n"
		"\n'bringup COMMAND --help' describes one command. Exit codes: 0 all done, 1 some nodes\n"
		"failed or were quarantined, 2 bad usage or input, 3 a required service is unreachable.\n");
}

/* `bringup run` is the driver's own, so its help is here: the stages'
 * options reach it unparsed, and a --help among them must stop it before
 * any stage runs (it ran the whole pipeline). */
static void run_help(FILE *f)
{
	fprintf(f,
		"usage: bringup run [--json] [--only HOST...] [--metrics-file PATH] [stage-options]\n\n"
		"Run discover, configure, enlist, validate, gate and tickets in order over one "
		"inventory,\n"
		"then sum up: nodes per state, open faults by kind, tickets, and each stage's time and\n"
		"exit status. A stage that exits 2 or more stops the run there.\n\n"
		"options:\n"
		"  %-28s %s\n  %-28s %s\n  %-28s %s\n  %-28s %s\n  %-28s %s\n  %-28s %s\n\n"
		"Every other option goes to every stage unchanged, so it must be one each accepts\n"
		"(--db, --force, --skip-configure, -q); give stage settings through the environment\n"
		"(BRINGUP_CA_FILE, MAAS_URL, BRINGUP_SSH_KEY, ...). See bringup-run(1).\n",
		"    --json", "the summary as one JSON document on stdout (the stages' output on stderr)",
		"    --only HOST...", "those nodes only, each from the stage it stands at",
		"    --metrics-file PATH",
		"write Prometheus metrics there at the end (default $BRINGUP_METRICS_FILE)", "    --db PATH",
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

static void config_help(FILE *f)
{
	fprintf(f,
		"usage: bringup [--config FILE] config show [--json]\n\n"
		"Print every setting bringup.conf can hold, the variable it stands for, the value the\n"
		"commands would use and where it is from: the environment, or FILE:LINE of the last\n"
		"file that sets it (/etc/bringup/bringup.conf, then $XDG_CONFIG_HOME/bringup/bringup.conf,\n"
		"then --config FILE). A command line option beats the environment, which beats the\n"
		"files. Secrets are references (env:NAME, file:PATH) and shown only as such.\n");
}

static int config_show(int argc, char **argv)
{
	const struct stg_config_setting *set;
	const struct br_strlist *files;
	struct br_err err = { 0 };
	size_t n;
	int json = 0;

	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			config_help(stdout);
			return STG_EXIT_OK;
		}
		if (!strcmp(argv[i], "--json"))
			json = 1;
		else if (strcmp(argv[i], "show") || i != 0) {
			fprintf(stderr, "bringup config: '%s': want 'show [--json]'\n", argv[i]);
			return STG_EXIT_USAGE;
		}
	}
	if (!argc || strcmp(argv[0], "show")) {
		config_help(stderr);
		return STG_EXIT_USAGE;
	}
	if (stg_config_apply(&err)) {
		fprintf(stderr, "%s\n", err.msg);
		return STG_EXIT_USAGE;
	}
	set = stg_config_settings(&n);
	files = stg_config_files();
	if (json) {
		json_t *doc = json_object(), *jf = json_array(), *js = json_array();

		for (size_t i = 0; i < files->n; i++)
			json_array_append_new(jf, json_string(files->items[i]));
		for (size_t i = 0; i < n; i++) {
			char *name = br_xasprintf("%s.%s", set[i].section, set[i].key);

			json_array_append_new(
			    js, json_pack("{s:s, s:s, s:o, s:o, s:b}", "setting", name, "variable",
					  set[i].env, "value", br_json_string_or_null(set[i].value), "from",
					  br_json_string_or_null(set[i].origin), "secret", set[i].secret));
			free(name);
		}
		json_object_set_new(doc, "files", jf);
		json_object_set_new(doc, "order", json_string("command line > environment > files"));
		json_object_set_new(doc, "settings", js);
		br_json_print(stdout, doc);
		json_decref(doc);
		return STG_EXIT_OK;
	}
	{
		static const char *const headers[] = { "SETTING", "VARIABLE", "VALUE", "FROM" };
		struct br_table t;

		printf("files read, in order:");
		for (size_t i = 0; i < files->n; i++)
			printf(" %s", files->items[i]);
		printf("%s\norder: command line > environment > files (a later file over an earlier)\n\n",
		       files->n ? "" : " none");
		br_table_init(&t, 4, headers);
		for (size_t i = 0; i < n; i++) {
			char *name = br_xasprintf("%s.%s", set[i].section, set[i].key);

			br_table_add(&t,
				     (const char *const[]){ name, set[i].env, set[i].value, set[i].origin });
			free(name);
		}
		br_table_print_fit(&t, br_term_columns(STDOUT_FILENO), stdout);
		br_table_release(&t);
	}
	return STG_EXIT_OK;
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
	if (!strcmp(name, "config")) {
		config_help(stdout);
		return STG_EXIT_OK;
	}
	path = drv_find_stage(name);
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
	stg_journal_install();
	/* bringup --config FILE COMMAND: the stages it runs read FILE after
	 * the system's and the user's bringup.conf ($BRINGUP_CONFIG). */
	while (argc >= 2 && (!strcmp(argv[1], "--config") || !strncmp(argv[1], "--config=", 9))) {
		const char *file = argv[1][8] == '=' ? argv[1] + 9 : argc >= 3 ? argv[2] : NULL;
		int used = argv[1][8] == '=' ? 1 : 2;

		if (!file || !*file) {
			fprintf(stderr, "bringup: --config needs a FILE\n");
			return STG_EXIT_USAGE;
		}
		if (access(file, R_OK)) {
			fprintf(stderr, "bringup: --config %s: %s\n", file, strerror(errno));
			return STG_EXIT_USAGE;
		}
		setenv("BRINGUP_CONFIG", file, 1);
		argv[used] = argv[0];
		argv += used;
		argc -= used;
	}
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
		{
			struct br_err err = { 0 };

			/* run's own summary reads the inventory ($BRINGUP_DB):
			 * the same settings as its stages. */
			if (stg_config_apply(&err)) {
				fprintf(stderr, "%s\nbringup run: bringup.conf: nothing done\n", err.msg);
				return STG_EXIT_USAGE;
			}
			/* --log-format goes on to every stage (a common option);
			 * run's own lines follow it too */
			for (int i = 2; i + 1 < argc && strcmp(argv[i], "--"); i++)
				if (!strcmp(argv[i], "--log-format"))
					setenv("BRINGUP_LOG_FORMAT", argv[i + 1], 1);
			br_log_init(argv[0], BR_LOG_WARN);
			stg_journal_install();
			/* and -v/-q, passed on to every stage, set run's own */
			br_opt_log_level(argc - 1, argv + 1);
			argc -= 2;
			if (stg_metrics_take_option(&argc, argv + 2, &err)) {
				fprintf(stderr, "bringup run: %s\n", err.msg);
				return STG_EXIT_USAGE;
			}
			argc += 2;
		}
		return drv_run_pipeline(drv_pipeline, drv_pipeline_n, drv_find_stage, argc - 2, argv + 2);
	}
	if (!strcmp(argv[1], "config"))
		return config_show(argc - 2, argv + 2);
	if (argv[1][0] == '-') {
		fprintf(stderr, "bringup: '%s' before a command; see 'bringup --help'\n", argv[1]);
		return STG_EXIT_USAGE;
	}
	path = drv_find_stage(argv[1]);
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
