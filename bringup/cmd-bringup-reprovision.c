/*
 * bringup reprovision HOST...: release the machines in MAAS, reset the
 * nodes to 'configured' (or 'new' with --rediscover) keeping their
 * history, then run the pipeline for those nodes only (bringup run --only).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stages/stages.h"

static const char *nonempty(const char *s)
{
	return s && *s ? s : NULL;
}

int main(int argc, char **argv)
{
	struct stg_stage st = { 0 };
	struct stg_reprovision_options o;
	struct stg_reprovision_run run = { 0 };
	struct stg_maas_opts maas;
	struct br_err err = { 0 };
	int no_run = 0, poll_ms = 1000, wait_timeout_s = 3600;
	const struct br_option options[] = {
		{ "rediscover", 0, BR_OPT_FLAG, &o.rediscover, NULL,
		  "reset to 'new' and read the BMC again" },
		{ "no-run", 0, BR_OPT_FLAG, &no_run, NULL,
		  "release and reset only; do not run the pipeline" },
		STG_MAAS_OPTIONS(&maas),
		{ "no-maas", 0, BR_OPT_FLAG, &o.no_maas, NULL,
		  "reset in the inventory only; leave MAAS alone" },
		{ "poll-ms", 0, BR_OPT_INT, &poll_ms, "MS",
		  "status poll interval while MAAS erases disks (default 1000)" },
		{ "wait-timeout", 0, BR_OPT_INT, &wait_timeout_s, "SECONDS",
		  "wait for Ready after an erasing release at most (default 3600)" },
		{ 0 },
	};
	const struct br_command cmd = {
		"bringup-reprovision",
		"[options] HOST...",
		"Release the named machines in MAAS (marked fixed first when broken; disks erased and Ready\n"
		"waited for when the node's profile says [reprovision] erase), reset the nodes to\n"
		"'configured' (or 'new' with --rediscover) with an event saying so, keeping their history,\n"
		"then run every stage for those nodes only ('bringup run --only HOST...'; the stages take\n"
		"their other settings from the environment).",
		options,
		&st.common,
	};
	stg_reprovision_options_init(&o);
	stg_maas_opts_init(&maas);
	if (stg_stage_parse(&st, &cmd, argc, argv))
		return stg_stage_close(&st);
	if (st.argi >= argc)
		stg_stage_usage(&st, "name the hosts to reprovision");
	else if (poll_ms < 10 || wait_timeout_s < 1)
		stg_stage_usage(&st, "--poll-ms at least 10, --wait-timeout positive");
	else if (maas.timeout_s < 1)
		stg_stage_usage(&st, "--timeout must be positive");
	else if (!o.no_maas && (!nonempty(maas.url) || (!maas.key_ref && !nonempty(getenv("MAAS_API_KEY")))))
		stg_stage_usage(&st, "MAAS: set MAAS_URL and MAAS_API_KEY (or pass --no-maas)");
	else if (!o.no_maas && stg_maas_opts_key(&maas, &err))
		stg_stage_usage(&st, "MAAS API key: %s", err.msg);
	o.poll_ms = poll_ms;
	o.wait_timeout_ms = wait_timeout_s * 1000LL;
	stg_maas_opts_apply(&maas, &o.maas);
	if (!st.exit && !stg_stage_open(&st, stg_all_states) && !stg_reprovision_run(&st, &o, &run) &&
	    !st.common.quiet)
		fprintf(stderr, "reprovision: %zu reset, %zu released in MAAS (%zu erased), %zu errors\n",
			run.reset, run.released, run.erased, run.errors);
	if (!st.exit && run.errors)
		st.exit = STG_EXIT_NODES;
	if (st.exit || no_run) {
		stg_maas_opts_release(&maas);
		return stg_stage_close(&st);
	}
	stg_maas_opts_release(&maas);
	{
		/* bringup run --only HOST... [--db PATH] [--json] [-q]: the hosts
		 * that were named, now that their leases are given back. */
		char *self = br_self_dir(), *driver = self ? br_xasprintf("%s/bringup", self) : NULL;

		/* Installed, the stages are in PREFIX/libexec/bringup and the
		 * driver in PREFIX/bin. */
		if (driver && access(driver, X_OK)) {
			free(driver);
			driver = br_xasprintf("%s/../../bin/bringup", self);
		}
		char **args = br_xcalloc((size_t)(argc - st.argi) + 8, sizeof(*args));
		char run_s[] = "run", only[] = "--only", db[] = "--db", json[] = "--json", quiet[] = "-q";
		size_t k = 0;
		int rc = stg_stage_close(&st);

		args[k++] = driver;
		args[k++] = run_s;
		if (st.common.db) {
			args[k++] = db;
			args[k++] = (char *)(uintptr_t)st.common.db;
		}
		if (st.common.json)
			args[k++] = json;
		if (st.common.quiet)
			args[k++] = quiet;
		args[k++] = only;
		for (int i = st.argi; i < argc; i++)
			args[k++] = argv[i];
		free(self);
		if (driver && rc == STG_EXIT_OK)
			execv(driver, args);
		if (rc == STG_EXIT_OK)
			fprintf(stderr, "bringup-reprovision: cannot run bringup run: %s\n", strerror(errno));
		free(args);
		free(driver);
		return rc ? rc : STG_EXIT_UNREACHABLE;
	}
}
