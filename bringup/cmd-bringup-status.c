/* bringup status: the node table, or the status document (man/bringup-status.1). */
#include <stdlib.h>
#include <string.h>

#include "stages/stages.h"

/* Every MAC the BMC showed with whose it is (only the host's are in
 * "macs", what MAAS gets), and what it could not show: a node's facts as
 * far as a person judging it needs them. Empty before discovery. */
static json_t *nics_json(struct inv *inv, const char *hostname)
{
	json_t *out = json_array();
	struct br_hw hw;

	if (inv_load_hw_nics(inv, hostname, &hw, NULL))
		return out;
	for (size_t i = 0; i < hw.n_nics; i++)
		json_array_append_new(out, json_pack("{s:s, s:s, s:o, s:o}", "mac",
						     hw.nics[i].mac ? hw.nics[i].mac : "", "role",
						     hw.nics[i].role ? hw.nics[i].role : BR_NIC_ROLE_HOST,
						     "source", br_json_string_or_null(hw.nics[i].source),
						     "name", br_json_string_or_null(hw.nics[i].name)));
	br_hw_release(&hw);
	return out;
}

static json_t *node_json(struct inv *inv, const struct inv_node *n, struct br_err *err)
{
	struct br_strlist macs = { 0 };
	struct inv_check *checks = NULL;
	size_t n_checks = 0;
	json_t *o, *jm, *jc;

	if (inv_node_macs(inv, n->id, &macs, err) || inv_node_checks(inv, n->id, &checks, &n_checks, err)) {
		br_strlist_release(&macs);
		return NULL;
	}
	jm = json_array();
	for (size_t i = 0; i < macs.n; i++)
		json_array_append_new(jm, json_string(macs.items[i]));
	jc = json_array();
	for (size_t i = 0; i < n_checks; i++)
		json_array_append_new(jc, json_pack("{s:s, s:s, s:o}", "name", checks[i].name, "result",
						    inv_check_result_name(checks[i].result), "detail",
						    br_json_string_or_null(checks[i].detail)));
	o = json_pack("{s:s, s:s, s:o, s:o, s:o, s:o, s:s, s:i, s:s, s:s, s:o, s:o, s:o, s:o, s:s}",
		      "hostname", n->hostname, "state", inv_state_name(n->state), "reason",
		      br_json_string_or_null(n->reason), "macs", jm, "system_serial",
		      br_json_string_or_null(n->system_serial), "checks", jc, "rack", n->rack, "unit",
		      n->unit, "bmc", n->bmc, "profile", n->profile, "service_tag",
		      br_json_string_or_null(n->service_tag), "model", br_json_string_or_null(n->model),
		      "maas_system_id", br_json_string_or_null(n->maas_system_id), "ip",
		      br_json_string_or_null(n->ip), "updated_at", n->updated_at);
	/* how often it was failed or quarantined: the machine's history */
	json_object_set_new(o, "attempts", json_integer(n->attempts));
	/* the manifest's serial: what discover checks the BMC's against */
	json_object_set_new(o, "expected_serial", br_json_string_or_null(n->expected_serial));
	/* why a failed node failed, as its stage typed it (common.h) */
	json_object_set_new(o, "failure_kind",
			    n->state == INV_FAILED ? json_string(br_fail_kind_name(
							 n->failure_kind ? n->failure_kind : BR_FAIL_STAGE))
						   : json_null());
	json_object_set_new(o, "nics", nics_json(inv, n->hostname));
	br_strlist_release(&macs);
	inv_checks_free(checks, n_checks);
	return o;
}

static void print_table(struct inv *inv, const struct inv_node *nodes, size_t n)
{
	static const char *const headers[] = { "HOSTNAME", "RACK", "U", "STATE", "SERIAL", "MACS", "REASON" };
	size_t per_state[INV_STATE_COUNT] = { 0 };
	struct br_table t;

	br_table_init(&t, 7, headers);
	for (size_t i = 0; i < n; i++) {
		struct br_strlist macs = { 0 };
		char unit[16], nmacs[16];

		inv_node_macs(inv, nodes[i].id, &macs, NULL);
		snprintf(unit, sizeof(unit), "%d", nodes[i].unit);
		snprintf(nmacs, sizeof(nmacs), "%zu", macs.n);
		br_table_add(&t, (const char *const[]){ nodes[i].hostname, nodes[i].rack, unit,
							inv_state_name(nodes[i].state),
							nodes[i].system_serial, nmacs, nodes[i].reason });
		br_strlist_release(&macs);
		per_state[nodes[i].state]++;
	}
	br_table_print(&t, stdout);
	br_table_release(&t);
	printf("\n%zu node%s:", n, n == 1 ? "" : "s");
	for (int s = 0; s < INV_STATE_COUNT; s++)
		if (per_state[s])
			printf(" %zu %s", per_state[s], inv_state_name((enum inv_state)s));
	printf("\n");
}

int main(int argc, char **argv)
{
	struct stg_stage st = { 0 };
	const char *state_filter = NULL;
	const struct br_option options[] = {
		{ "state", 's', BR_OPT_STRING, &state_filter, "STATE", "only nodes in this state" },
		{ 0 },
	};
	const struct br_command cmd = {
		"bringup-status",
		"[options] [HOST...]",
		"Show every node (or the named ones): state, last reason, serial, MACs, check results.\n"
		"--json prints {\"nodes\":[{hostname, state, reason, macs, system_serial, checks, nics}]}: "
		"macs the host's\n"
		"(what MAAS gets), nics every MAC the BMC showed with its role (host, bmc, bmc_usb, "
		"disabled,\n"
		"other_system) and source.",
		options,
		&st.common,
	};
	int one_state[2] = { -1, -1 };
	struct br_err err = { 0 };
	enum inv_state s;
	int rc = 0;

	st.allow_retired = 1;
	/* Status only reads: it holds no node from a stage at work, and a
	 * role that may only SELECT (PostgreSQL) runs it. */
	st.no_lease = 1;
	if (stg_stage_parse(&st, &cmd, argc, argv))
		return stg_stage_close(&st);
	if (state_filter && inv_state_parse(state_filter, &s))
		return stg_stage_usage(&st, "--state: unknown state '%s'", state_filter);
	if (state_filter)
		one_state[0] = (int)s;
	if (stg_stage_open(&st, state_filter ? one_state : stg_all_states))
		return stg_stage_close(&st);
	if (st.common.json) {
		json_t *doc = json_object(), *arr = json_array();

		json_object_set_new(doc, "nodes", arr);
		for (size_t i = 0; i < st.n && !rc; i++) {
			json_t *o = node_json(st.inv, &st.nodes[i], &err);

			if (!o) {
				rc = stg_stage_fail(&st, STG_EXIT_UNREACHABLE, "%s", err.msg);
				break;
			}
			json_array_append_new(arr, o);
		}
		if (!rc)
			br_json_print(stdout, doc);
		json_decref(doc);
	} else {
		print_table(st.inv, st.nodes, st.n);
	}
	return stg_stage_close(&st);
}
