/* bringup import: load a rack manifest into the inventory. */
#include <stdlib.h>
#include <string.h>

#include "stages/stages.h"

int main(int argc, char **argv)
{
	struct stg_stage st = { 0 };
	const char *manifest_path = NULL, *templates_opt = NULL;
	const struct br_option options[] = {
		{ "manifest", 'm', BR_OPT_STRING, &manifest_path, "PATH",
		  "rack manifest (CSV) to import (required)" },
		{ "templates", 0, BR_OPT_STRING, &templates_opt, "DIR",
		  "templates directory (profiles are checked there)" },
		{ 0 },
	};
	const struct br_command cmd = {
		"bringup-import",
		"--manifest rack.csv [options]",
		"Load a rack manifest: every row becomes a node in state 'new'. The file is checked as a\n"
		"whole first; any problem rejects it (exit 2) and nothing is written. Re-importing the same\n"
		"file changes nothing; an edited file updates those nodes and records what changed.",
		options,
		&st.common,
	};
	struct stg_manifest m = { 0 };
	struct br_strlist problems = { 0 };
	struct inv_manifest_row *rows = NULL;
	struct inv_import_stats stats = { 0 };
	struct br_err err = { 0 };
	char *templates = NULL;

	if (stg_stage_parse(&st, &cmd, argc, argv))
		return stg_stage_close(&st);
	if (!manifest_path || st.argi != argc)
		return stg_stage_usage(&st, "%s",
				       manifest_path ? "unexpected operand" : "--manifest is required");
	templates = templates_opt ? br_xstrdup(templates_opt) : stg_templates_dir();
	if (!templates)
		br_warn("import", "no templates directory found; hardware profiles are not checked");
	if (stg_manifest_load(manifest_path, templates, &m, &problems, &err)) {
		for (size_t i = 0; i < problems.n; i++)
			fprintf(stderr, "%s\n", problems.items[i]);
		stg_stage_usage(&st, "%s; nothing imported", err.msg);
		goto out;
	}
	rows = br_xcalloc(m.n, sizeof(*rows));
	for (size_t i = 0; i < m.n; i++) {
		const struct stg_manifest_row *r = &m.rows[i];

		rows[i] = (struct inv_manifest_row){
			r->hostname,	     r->rack,	      r->unit,	  r->bmc,
			r->bmc_user,	     r->bmc_password, r->profile, r->bmc_type,
			r->boot_disk_serial, r->notes,	      r->line,	  r->serial,
			r->system,	     r->zone,
		};
	}
	if (stg_stage_open(&st, NULL))
		goto out;
	if (inv_import(st.inv, rows, m.n, manifest_path, &stats, &err)) {
		if (err.code == BR_E_INVAL) /* the manifest against the inventory: FILE:LINE */
			stg_stage_usage(&st, "%s; nothing imported", err.msg);
		else
			stg_stage_fail(&st, STG_EXIT_UNREACHABLE, "%s", err.msg);
		goto out;
	}
	if (st.common.json) {
		json_t *doc = json_pack("{s:s, s:I, s:I, s:I, s:I}", "manifest", manifest_path, "added",
					(json_int_t)stats.added, "updated", (json_int_t)stats.updated,
					"unchanged", (json_int_t)stats.unchanged, "not_in_manifest",
					(json_int_t)stats.not_in_manifest);

		br_json_print(stdout, doc);
		json_decref(doc);
	} else if (!st.common.quiet) {
		printf("%s: %zu added, %zu updated, %zu unchanged\n", manifest_path, stats.added,
		       stats.updated, stats.unchanged);
		if (stats.not_in_manifest)
			printf("%zu node(s) in the inventory are not in this manifest; they were left as "
			       "they are\n",
			       stats.not_in_manifest);
	}
	st.exit = STG_EXIT_OK;
out:
	free(rows);
	free(templates);
	stg_manifest_release(&m);
	br_strlist_release(&problems);
	return stg_stage_close(&st);
}
