/* bringup status: the node table, or the status document (man/bringup-status.1). */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "stages/stages.h"

/* Every MAC the BMC showed with whose it is (only the host's are in
 * "macs", what MAAS gets), and what it could not show: a node's facts as
 * far as a person judging it needs them. Empty before discovery. */
static json_t *nics_json(struct inv *inv, const char *hostname, struct br_err *err)
{
	json_t *out;
	struct br_hw hw;

	/* A stored document that cannot be read is damage to report, not
	 * a node without NICs. */
	if (inv_load_hw_nics(inv, hostname, &hw, err)) {
		br_err_prefix(err, "node '%s': field nics", hostname);
		return NULL;
	}
	out = json_array();
	for (size_t i = 0; i < hw.n_nics; i++)
		json_array_append_new(out, json_pack("{s:s, s:s, s:o, s:o}", "mac",
						     hw.nics[i].mac ? hw.nics[i].mac : "", "role",
						     hw.nics[i].role ? hw.nics[i].role : BR_NIC_ROLE_HOST,
						     "source", br_json_string_or_null(hw.nics[i].source),
						     "name", br_json_string_or_null(hw.nics[i].name)));
	br_hw_release(&hw);
	return out;
}

/* The switch port behind each host port as the BMC showed it before any
 * OS ran: {"source": "DellSwitchConnections"|"LLDPReceive"|null,
 * "ports": [{port, mac, chassis_id, system_name, port_id, link, stale,
 * ...}]}. */
static json_t *neighbors_json(struct inv *inv, const char *hostname)
{
	json_t *ports = json_array(), *out;
	struct br_hw hw;

	if (inv_load_hw_neighbors(inv, hostname, &hw, NULL))
		return json_pack("{s:n, s:o}", "source", "ports", ports);
	for (size_t i = 0; i < hw.n_neighbors; i++) {
		const struct br_neighbor *nb = &hw.neighbors[i];

		json_array_append_new(
		    ports, json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:b, s:b, s:o}", "port",
				     br_json_string_or_null(nb->port), "mac", br_json_string_or_null(nb->mac),
				     "chassis_id", br_json_string_or_null(nb->chassis_id), "system_name",
				     br_json_string_or_null(nb->system_name), "port_id",
				     br_json_string_or_null(nb->port_id), "source",
				     br_json_string_or_null(nb->source), "link", nb->link, "stale", nb->stale,
				     "vlan", nb->vlan >= 0 ? json_integer(nb->vlan) : json_null()));
	}
	out = json_pack("{s:o, s:o}", "source", br_json_string_or_null(hw.neighbor_source), "ports", ports);
	br_hw_release(&hw);
	return out;
}

static json_t *node_json(struct inv *inv, const struct inv_node *n, struct br_err *err)
{
	struct br_strlist macs = { 0 };
	struct inv_check *checks = NULL;
	size_t n_checks = 0;
	json_t *o, *jm, *jc, *jn;

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
	/* the manifest's zone: which controller's management network */
	json_object_set_new(o, "zone", br_json_string_or_null(n->zone));
	/* the manifest's power domain: the feed firmware updates are spread over */
	json_object_set_new(o, "power_domain", br_json_string_or_null(n->power_domain));
	/* why a failed node failed, as its stage typed it (common.h) */
	json_object_set_new(o, "failure_kind",
			    n->state == INV_FAILED ? json_string(br_fail_kind_name(
							 n->failure_kind ? n->failure_kind : BR_FAIL_STAGE))
						   : json_null());
	br_strlist_release(&macs);
	inv_checks_free(checks, n_checks);
	jn = nics_json(inv, n->hostname, err);
	if (!jn) {
		json_decref(o);
		return NULL;
	}
	json_object_set_new(o, "nics", jn);
	json_object_set_new(o, "neighbors", neighbors_json(inv, n->hostname));
	return o;
}

/* The columns -o picks from, in the table's words. */
enum status_col {
	COL_HOSTNAME,
	COL_RACK,
	COL_UNIT,
	COL_STATE,
	COL_SERIAL,
	COL_MACS,
	COL_REASON,
	COL_BMC,
	COL_PROFILE,
	COL_MODEL,
	COL_SERVICE_TAG,
	COL_IP,
	COL_SYSTEM_ID,
	COL_ATTEMPTS,
	COL_FAILURE_KIND,
	COL_UPDATED,
	COL_ZONE,
	COL_POWER_DOMAIN,
	COL_COUNT
};
static const char *const col_names[COL_COUNT] = {
	"hostname",  "rack",	 "unit",	 "state",      "serial",      "macs",
	"reason",    "bmc",	 "profile",	 "model",      "service_tag", "ip",
	"system_id", "attempts", "failure_kind", "updated_at", "zone",	      "power_domain",
};
static const char *const col_headers[COL_COUNT] = {
	"HOSTNAME",	"RACK",	      "U",     "STATE",	       "SERIAL", "MACS",      "REASON",
	"BMC",		"PROFILE",    "MODEL", "SERVICE_TAG",  "IP",	 "SYSTEM_ID", "ATTEMPTS",
	"FAILURE_KIND", "UPDATED_AT", "ZONE",  "POWER_DOMAIN",
};
#define DEFAULT_COLUMNS "hostname,rack,unit,state,serial,macs,reason"

/* "-o hostname,state,reason" into cols; 0, or a usage message printed. */
static int parse_columns(struct stg_stage *st, const char *spec, enum status_col *cols, size_t *ret_n)
{
	size_t n = 0;
	int rc = 0;

	for (const char *p = spec; *p && !rc; p += *p == ',') {
		size_t len = strcspn(p, ","), c;
		char *w = br_xasprintf("%.*s", (int)len, p);

		p += len;
		for (c = 0; c < COL_COUNT && strcasecmp(w, col_names[c]); c++)
			;
		if (!*w) {
			/* ",," or a trailing comma: nothing to pick */
		} else if (c == COL_COUNT) {
			const char *near = br_did_you_mean(w, col_names, COL_COUNT);
			struct br_buf all;

			br_buf_init(&all, 0);
			for (size_t k = 0; k < COL_COUNT; k++)
				br_buf_addf(&all, "%s%s", k ? "," : "", col_names[k]);
			rc = stg_stage_usage(st, "-o: no column '%s'%s%s%s (columns: %s)", w,
					     near ? "; did you mean '" : "", near ? near : "",
					     near ? "'?" : "", br_buf_str(&all));
			br_buf_release(&all);
		} else if (n == BR_TABLE_COLS_MAX) {
			rc = stg_stage_usage(st, "-o: at most %d columns", BR_TABLE_COLS_MAX);
		} else {
			cols[n++] = (enum status_col)c;
		}
		free(w);
	}
	if (!rc && !n)
		rc = stg_stage_usage(st, "-o: no columns named");
	*ret_n = n;
	return rc;
}

static const char *cell(const struct inv_node *n, enum status_col c, size_t n_macs, char *num, size_t num_len)
{
	switch (c) {
	case COL_HOSTNAME:
		return n->hostname;
	case COL_RACK:
		return n->rack;
	case COL_UNIT:
		snprintf(num, num_len, "%d", n->unit);
		return num;
	case COL_STATE:
		return inv_state_name(n->state);
	case COL_SERIAL:
		return n->system_serial;
	case COL_MACS:
		snprintf(num, num_len, "%zu", n_macs);
		return num;
	case COL_REASON:
		return n->reason;
	case COL_BMC:
		return n->bmc;
	case COL_PROFILE:
		return n->profile;
	case COL_MODEL:
		return n->model;
	case COL_SERVICE_TAG:
		return n->service_tag;
	case COL_IP:
		return n->ip;
	case COL_SYSTEM_ID:
		return n->maas_system_id;
	case COL_ATTEMPTS:
		snprintf(num, num_len, "%d", n->attempts);
		return num;
	case COL_FAILURE_KIND:
		return n->state == INV_FAILED
			   ? br_fail_kind_name(n->failure_kind ? n->failure_kind : BR_FAIL_STAGE)
			   : NULL;
	case COL_UPDATED:
		return n->updated_at;
	case COL_ZONE:
		return n->zone;
	case COL_POWER_DOMAIN:
		return n->power_domain;
	case COL_COUNT:
		break;
	}
	return NULL;
}

/* The table (sized to the terminal: br_term_columns) or CSV. */
static int print_table(struct stg_stage *st, const enum status_col *cols, size_t ncols, int csv)
{
	const char *headers[BR_TABLE_COLS_MAX];
	size_t per_state[INV_STATE_COUNT] = { 0 };
	struct br_err err = { 0 };
	struct br_table t;
	int rc = 0;

	for (size_t c = 0; c < ncols; c++)
		headers[c] = csv ? col_names[cols[c]] : col_headers[cols[c]];
	br_table_init(&t, ncols, headers);
	for (size_t i = 0; i < st->n && !rc; i++) {
		struct br_strlist macs = { 0 };
		const char *cells[BR_TABLE_COLS_MAX];
		char nums[BR_TABLE_COLS_MAX][24];

		if (inv_node_macs(st->inv, st->nodes[i].id, &macs, &err)) {
			rc = stg_stage_fail(st, STG_EXIT_UNREACHABLE, "node '%s': field macs: %s",
					    st->nodes[i].hostname, err.msg);
			break;
		}
		for (size_t c = 0; c < ncols; c++) {
			cells[c] = cell(&st->nodes[i], cols[c], macs.n, nums[c], sizeof(nums[c]));
			if (!cells[c] && csv)
				cells[c] = ""; /* the table's "-" is for eyes */
		}
		br_table_add(&t, cells);
		br_strlist_release(&macs);
		per_state[st->nodes[i].state]++;
	}
	if (!rc && csv)
		br_table_print_csv(&t, stdout);
	else if (!rc)
		br_table_print_fit(&t, br_term_columns(STDOUT_FILENO), stdout);
	br_table_release(&t);
	if (rc || csv)
		return rc;
	printf("\n%zu node%s:", st->n, st->n == 1 ? "" : "s");
	for (int s = 0; s < INV_STATE_COUNT; s++)
		if (per_state[s])
			printf(" %zu %s", per_state[s], inv_state_name((enum inv_state)s));
	printf("\n");
	return 0;
}

int main(int argc, char **argv)
{
	struct stg_stage st = { 0 };
	const char *state_filter = NULL, *columns = NULL, *format = NULL, *metrics_file = NULL;
	int follow = 0;
	const struct br_option options[] = {
		{ "state", 's', BR_OPT_STRING, &state_filter, "STATE", "only nodes in this state" },
		{ "output", 'o', BR_OPT_STRING, &columns, "COLUMNS",
		  "the table's (or CSV's) columns, comma-separated (default " DEFAULT_COLUMNS
		  "; also bmc, profile, model, service_tag, ip, system_id, attempts, failure_kind, "
		  "updated_at)" },
		{ "format", 'f', BR_OPT_STRING, &format, "table|csv|json",
		  "a table sized to the terminal (default; $COLUMNS), CSV, or the JSON document (--json)" },
		{ "follow", 'F', BR_OPT_FLAG, &follow, NULL,
		  "then print every transition of the site (or of the named nodes, or --zone's) as it is "
		  "recorded, from any machine, one line each (--json: a JSON object), until interrupted" },
		{ "metrics-file", 0, BR_OPT_STRING, &metrics_file, "PATH",
		  "also write the whole inventory's Prometheus metrics there, atomically (default "
		  "$BRINGUP_METRICS_FILE)" },
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
		"other_system) and source, neighbors the switch port behind each host port as the BMC\n"
		"showed it ({source, ports:[{port, chassis_id, system_name, port_id, link, stale}]}).",
		options,
		&st.common,
	};
	enum status_col cols[BR_TABLE_COLS_MAX];
	size_t ncols = 0;
	int one_state[2] = { -1, -1 }, csv = 0;
	struct br_err err = { 0 };
	enum inv_state s;
	int rc = 0;

	st.allow_retired = 1;
	st.readonly = 1;
	/* Status only reads: it holds no node from a stage at work (taking
	 * leases hid every node a running stage holds), and a role that may
	 * only SELECT (PostgreSQL) runs it. */
	st.no_lease = 1;
	if (stg_stage_parse(&st, &cmd, argc, argv))
		return stg_stage_close(&st);
	if (!metrics_file)
		metrics_file = stg_metrics_path();
	if (metrics_file && stg_metrics_path_check(metrics_file, &err))
		return stg_stage_usage(&st, "--metrics-file: %s", err.msg);
	if (state_filter && inv_state_parse(state_filter, &s))
		return stg_stage_usage(&st, "--state: unknown state '%s'", state_filter);
	if (format && !strcmp(format, "json"))
		st.common.json = 1;
	else if (format && !strcmp(format, "csv"))
		csv = 1;
	else if (format && strcmp(format, "table"))
		return stg_stage_usage(&st, "--format: '%s' (want table, csv or json)", format);
	if (follow && (state_filter || columns || csv || metrics_file))
		return stg_stage_usage(&st, "--follow streams transitions: --state, -o, --format csv and "
					    "--metrics-file are for the listing");
	if (columns && st.common.json)
		return stg_stage_usage(
		    &st, "-o picks the table's or CSV's columns; the JSON document has every field");
	if (!st.common.json && parse_columns(&st, columns ? columns : DEFAULT_COLUMNS, cols, &ncols))
		return stg_stage_close(&st);
	if (state_filter)
		one_state[0] = (int)s;
	if (stg_stage_open(&st, state_filter ? one_state : stg_all_states))
		return stg_stage_close(&st);
	if (follow) {
		st.exit = stg_follow(&st, st.argv + st.argi, (size_t)(st.argc - st.argi));
		return stg_stage_close(&st);
	}
	if (st.common.json) {
		json_t *doc = json_object(), *arr = json_array();

		json_object_set_new(doc, "schema_version", json_integer(STG_SCHEMA_STATUS));
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
		rc = print_table(&st, cols, ncols, csv);
	}
	if (!rc && metrics_file && stg_metrics_write(st.inv, NULL, metrics_file, &err))
		stg_stage_fail(&st, STG_EXIT_UNREACHABLE, "%s", err.msg);
	return stg_stage_close(&st);
}
