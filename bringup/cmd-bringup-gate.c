/*
 * bringup gate: 'validated' nodes whose required checks all pass become
 * 'golden', the others 'quarantined' with the checks that failed; MAAS is
 * tagged to match (golden / quarantine) and quarantined machines marked
 * broken with the reason. Golden and quarantined nodes are re-checked
 * against MAAS on every run; a run with nothing to do changes nothing.
 */
#include <stdlib.h>

#include "stages/stages.h"
#include "stages/workers.h"

struct args {
	struct stg_maas_opts maas;
	struct stg_gate_options o;
};

static int check_args(struct stg_stage *st, struct args *a)
{
	struct br_err err = { 0 };

	if (a->maas.timeout_s < 1)
		return stg_stage_usage(st, "--timeout must be positive");
	if (a->o.workers < 0 || a->o.workers > STG_WORKERS_MAX)
		return stg_stage_usage(st, "--workers must be 0-%d", STG_WORKERS_MAX);
	maas_options_init(&a->o.maas);
	stg_maas_opts_apply(&a->maas, &a->o.maas);
	if (a->o.no_maas)
		return 0;
	if (!a->maas.url || !*a->maas.url)
		return stg_stage_usage(st, "no MAAS URL: set MAAS_URL, pass --maas-url, or --no-maas");
	if (stg_maas_opts_key(&a->maas, &err))
		return stg_stage_usage(st, "MAAS API key: %s", err.msg);
	stg_maas_opts_apply(&a->maas, &a->o.maas);
	return 0;
}

int main(int argc, char **argv)
{
	struct stg_stage st = { 0 };
	struct args a = { 0 };
	const struct br_option options[] = {
		STG_MAAS_OPTIONS(&a.maas),
		{ "no-mark-broken", 0, BR_OPT_FLAG, &a.o.no_mark_broken, NULL,
		  "tag quarantined machines but do not mark them broken in MAAS" },
		{ "no-maas", 0, BR_OPT_FLAG, &a.o.no_maas, NULL,
		  "judge in the inventory only; leave MAAS alone" },
		{ "workers", 0, BR_OPT_INT, &a.o.workers, "N",
		  "processes reading machines from MAAS (default 0: one per 50 machines, at most one per "
		  "CPU, with 4 CPUs or more; 1: this one)" },
		STG_FOLLOW_OPTION(&st),
		{ 0 },
	};
	const struct br_command cmd = {
		"bringup-gate",
		"[options] [HOST...]",
		"Promote 'validated' nodes whose required checks (the profile's [gate] required, else every\n"
		"check) all pass to 'golden'; quarantine the others with the failing or unknown checks as "
		"the\n"
		"reason. In MAAS: tag golden / quarantine (created if missing, the other removed), mark\n"
		"quarantined machines broken with the reason, mark promoted ones fixed. Golden and "
		"quarantined\n"
		"nodes are checked against MAAS again on every run.",
		options,
		&st.common,
	};
	const int *states = stg_stage_states("gate", 0);

	stg_maas_opts_init(&a.maas);
	st.zoned_writes = 1;
	if (!stg_stage_parse(&st, &cmd, argc, argv) && !check_args(&st, &a) && !stg_stage_open(&st, states))
		while (stg_stage_round(&st, states)) {
			struct stg_gate_run run = { 0 };

			if (!stg_gate_run(&st, &a.o, &run))
				stg_stage_report(&st, stg_gate_json, stg_gate_print, &run,
						 run.quarantined + run.errors);
			stg_gate_run_release(&run);
		}
	stg_maas_opts_release(&a.maas);
	return stg_stage_close(&st);
}
