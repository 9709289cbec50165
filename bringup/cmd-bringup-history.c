/* bringup history HOST: a node's state transitions, oldest first. */
#include "stage.h"

int main(int argc, char **argv)
{
	struct br_common_opts common = { 0 };
	const struct br_option options[] = { { 0 } };
	const struct br_command cmd = {
		"bringup-history", "[options] HOST",
		"Print every recorded transition of one node: time, from-state, to-state, reason.",
		options, &common,
	};
	struct inv_event *ev = NULL;
	struct br_err err = { 0 };
	struct inv *inv = NULL;
	size_t n = 0;
	int argi, rc;

	br_log_init(argv[0], BR_LOG_WARN);
	rc = br_opt_parse(&cmd, argc, argv, &argi);
	if (rc)
		return rc == BR_OPT_EXIT_OK ? BR_EXIT_OK : BR_EXIT_USAGE;
	if (argc - argi != 1) {
		fprintf(stderr, "bringup-history: exactly one HOST is required\n");
		return BR_EXIT_USAGE;
	}
	rc = br_stage_open_inventory(common.db, &inv);
	if (rc)
		return rc;
	if (inv_node_events(inv, argv[argi], &ev, &n, &err)) {
		br_error("history", "%s", err.msg);
		rc = err.code == BR_E_NOTFOUND ? BR_EXIT_USAGE : BR_EXIT_UNREACHABLE;
		goto out;
	}
	if (common.json) {
		json_t *arr = json_array();
		json_t *doc = json_pack("{s:s, s:o}", "hostname", argv[argi], "events", arr);

		for (size_t i = 0; i < n; i++)
			json_array_append_new(arr, json_pack("{s:s, s:o, s:s, s:o}", "at", ev[i].at, "from",
							     br_json_string_or_null(ev[i].from_state), "to",
							     ev[i].to_state, "reason", br_json_string_or_null(ev[i].reason)));
		br_json_print(stdout, doc);
		json_decref(doc);
	} else {
		static const char *const headers[] = { "TIME", "FROM", "TO", "REASON" };
		struct br_table t;

		br_table_init(&t, 4, headers);
		for (size_t i = 0; i < n; i++)
			br_table_add(&t, (const char *const[]){ ev[i].at, ev[i].from_state, ev[i].to_state, ev[i].reason });
		br_table_print(&t, stdout);
		br_table_release(&t);
	}
out:
	inv_events_free(ev, n);
	inv_close(inv);
	return rc;
}
