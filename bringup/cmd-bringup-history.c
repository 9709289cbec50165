/* bringup history HOST: a node's state transitions, oldest first. */
#include <unistd.h>

#include "stages/stages.h"

int main(int argc, char **argv)
{
	struct stg_stage st = { 0 };
	const struct br_option options[] = { { 0 } };
	const struct br_command cmd = {
		"bringup-history",
		"[options] HOST",
		"Print every recorded transition of one node: time, from-state, to-state, reason.",
		options,
		&st.common,
	};
	struct inv_event *ev = NULL;
	struct br_err err = { 0 };
	size_t n = 0;

	st.readonly = 1;
	st.no_lease = 1; /* only reads: a SELECT-only role runs it */
	if (stg_stage_parse(&st, &cmd, argc, argv))
		return stg_stage_close(&st);
	if (argc - st.argi != 1)
		return stg_stage_usage(&st, "exactly one HOST is required");
	if (stg_stage_open(&st, NULL))
		return stg_stage_close(&st);
	if (inv_node_events(st.inv, argv[st.argi], &ev, &n, &err)) {
		stg_stage_fail(&st, err.code == BR_E_NOTFOUND ? STG_EXIT_USAGE : STG_EXIT_UNREACHABLE, "%s",
			       err.msg);
		goto out;
	}
	if (st.common.json) {
		json_t *arr = json_array();
		json_t *doc = json_pack("{s:s, s:o}", "hostname", argv[st.argi], "events", arr);

		for (size_t i = 0; i < n; i++)
			json_array_append_new(arr, json_pack("{s:s, s:o, s:s, s:o}", "at", ev[i].at, "from",
							     br_json_string_or_null(ev[i].from_state), "to",
							     ev[i].to_state, "reason",
							     br_json_string_or_null(ev[i].reason)));
		br_json_print(stdout, doc);
		json_decref(doc);
	} else {
		static const char *const headers[] = { "TIME", "FROM", "TO", "REASON" };
		struct br_table t;

		br_table_init(&t, 4, headers);
		for (size_t i = 0; i < n; i++)
			br_table_add(&t, (const char *const[]){ ev[i].at, ev[i].from_state, ev[i].to_state,
								ev[i].reason });
		br_table_print_fit(&t, br_term_columns(STDOUT_FILENO), stdout);
		br_table_release(&t);
	}
out:
	inv_events_free(ev, n);
	return stg_stage_close(&st);
}
