/*
 * bringup report: the inventory as one HTML page beside the database (or
 * --out PATH): rack elevation by state, open tickets, each node's checks
 * and history. Reads only; works while other stages run.
 */
#include <stdlib.h>

#include "stages/stages.h"

struct report_run {
	const char *path;
	struct stg_report_stats stats;
};

static json_t *report_json(const void *ctx)
{
	const struct report_run *run = ctx;
	json_t *states = json_object();

	for (int s = 0; s < INV_STATE_COUNT; s++)
		json_object_set_new(states, inv_state_name((enum inv_state)s),
				    json_integer((json_int_t)run->stats.per_state[s]));
	return json_pack("{s:s, s:I, s:I, s:I, s:o}", "report", run->path, "nodes",
			 (json_int_t)run->stats.nodes, "tickets", (json_int_t)run->stats.tickets, "bytes",
			 (json_int_t)run->stats.bytes, "states", states);
}

static void report_print(const void *ctx)
{
	const struct report_run *run = ctx;
	char *path = br_escape(run->path);

	printf("report: %s (%zu node%s, %zu open ticket%s)\n", path, run->stats.nodes,
	       run->stats.nodes == 1 ? "" : "s", run->stats.tickets, run->stats.tickets == 1 ? "" : "s");
	free(path);
}

int main(int argc, char **argv)
{
	struct stg_stage st = { 0 };
	struct report_run run = { 0 };
	const char *out = NULL;
	char *default_out = NULL;
	struct br_err err = { 0 };
	const struct br_option options[] = {
		{ "out", 'o', BR_OPT_STRING, &out, "PATH",
		  "where to write the page (default: beside the database, bringup.db -> bringup.html)" },
		{ 0 },
	};
	const struct br_command cmd = {
		"bringup-report",
		"[options] [HOST...]",
		"Write the inventory as one self-contained HTML page (no network needed to view it): a rack\n"
		"elevation with each node coloured by state, the open tickets, and every node (or the named\n"
		"ones) with its checks, their evidence, and its history.",
		options,
		&st.common,
	};

	/* A report only reads: it holds no node against a running stage. */
	st.no_lease = 1;
	st.allow_retired = 1;
	st.readonly = 1;
	if (stg_stage_parse(&st, &cmd, argc, argv))
		return stg_stage_close(&st);
	if (!out && !(out = default_out = stg_report_default_path(st.common.db)))
		return stg_stage_usage(
		    &st, "--out PATH is needed for an inventory that is no file (in memory, PostgreSQL)");
	run.path = out;
	if (!stg_stage_open(&st, stg_all_states)) {
		if (stg_report_write(st.inv, st.nodes, st.n, out, &run.stats, &err))
			stg_stage_fail(&st, err.code == BR_E_DB ? STG_EXIT_UNREACHABLE : STG_EXIT_USAGE, "%s",
				       err.msg);
		else
			stg_stage_report(&st, report_json, report_print, &run, 0);
	}
	free(default_out);
	return stg_stage_close(&st);
}
