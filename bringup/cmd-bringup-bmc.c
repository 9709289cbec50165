/*
 * bringup-bmc: read ONE BMC and print what it reports, changing nothing —
 * the technician's tool for "what does this box say about itself?". Over
 * IPMI (ipmitool) or Redfish, the latter through discovery's own client
 * (rf_discover_all with one target: the same walk, parse and MAC roles as
 * `bringup discover`, so what it shows is what discover would store). The
 * inventory is only read (opened INV_OPEN_READONLY), for a node's BMC
 * address, user, password reference and System; nothing is stored.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hwjson.h"
#include "stages/stages.h"
#include "redfish/redfish.h"

/* What one read gave back. */
struct bmc_result {
	int json;
	int rc;
	int printed;
	struct br_err err;
};

static void print_hw(const struct br_hw *hw);

/* The facts as --json or the table; the library releases hw when its
 * callback returns, so they are printed from there. */
static void show(struct bmc_result *res, const struct br_hw *hw)
{
	if (res->json) {
		json_t *doc = br_hw_to_json(hw);

		br_json_print(stdout, doc);
		json_decref(doc);
	} else {
		print_hw(hw);
	}
	res->printed = 1;
}

static void on_ipmi(const struct rf_ipmi_target *t, int rc, struct br_hw *hw, const struct br_err *err,
		    void *ctx)
{
	struct bmc_result *res = ctx;

	res->rc = rc;
	if (rc) {
		if (err)
			res->err = *err;
	} else {
		show(res, hw);
	}
}

/* A BMC that failed discovery's walk (no host MAC, an unreadable System)
 * may still have said who it is: shown, with the error after it. */
static void on_redfish(const struct rf_target *t, int rc, struct br_hw *hw, const struct br_err *err,
		       void *ctx)
{
	struct bmc_result *res = ctx;

	res->rc = rc;
	if (rc && err)
		res->err = *err;
	if (!rc || br_hw_has_identity(hw))
		show(res, hw);
}

static int read_ipmi(const char *addr, const char *user, const char *password, int timeout_s,
		     struct bmc_result *res)
{
	struct rf_ipmi_target t = { 0 };
	char *host = NULL;
	int port = 0, rc;

	if (stg_bmc_address_parse(addr, &host, &port)) {
		fprintf(stderr, "bringup-bmc: --ipmi: '%s' is not HOST[:PORT]\n", addr);
		return STG_EXIT_USAGE;
	}
	t = (struct rf_ipmi_target){ addr, host, port ? port : 623, user, password, NULL };
	rc = rf_ipmi_discover_all(&t, 1, 1, timeout_s, on_ipmi, res, &res->err);
	free(host);
	if (rc) {
		res->rc = rc;
		return STG_EXIT_UNREACHABLE;
	}
	return STG_EXIT_OK;
}

/* Where to read a Redfish BMC: the inventory's node, or --bmc URL. */
struct rf_where {
	const char *name;
	char *base_url;
	const char *user;
	char *password;
	const char *system;
	struct inv_node node; /* --redfish HOST: read from the inventory */
};

static void rf_where_release(struct rf_where *w)
{
	free(w->base_url);
	br_secret_free(w->password);
	inv_node_release(&w->node);
}

/* The node's BMC from the inventory, opened read-only: a viewer never
 * writes it. 0 or an exit code, after saying why. */
static int where_from_inventory(const char *db, const char *hostname, const char *scheme, struct rf_where *w)
{
	struct br_err err = { 0 };
	struct inv *inv = NULL;
	char *host = NULL, *reason = NULL;
	int port = 0, rc = stg_stage_open_inventory_with(db, INV_OPEN_READONLY, &inv);

	if (rc)
		return rc;
	if (inv_node_get(inv, hostname, &w->node, &err)) {
		fprintf(stderr, "bringup-bmc: --redfish: %s\n", err.msg);
		rc = err.code == BR_E_NOTFOUND ? STG_EXIT_USAGE : STG_EXIT_UNREACHABLE;
		goto out;
	}
	if (!strcmp(w->node.bmc_type, "ipmi")) {
		fprintf(stderr, "bringup-bmc: %s: bmc_type is ipmi: read it with --ipmi %s\n", hostname,
			w->node.bmc);
		rc = STG_EXIT_USAGE;
		goto out;
	}
	if (stg_bmc_endpoint(&w->node, scheme, &w->password, &host, &port, &w->base_url, &reason)) {
		fprintf(stderr, "bringup-bmc: %s: %s\n", hostname, reason);
		rc = STG_EXIT_USAGE;
		goto out;
	}
	w->name = w->node.hostname;
	w->user = w->node.bmc_user;
	if (!w->system)
		w->system = w->node.bmc_system;
out:
	free(host);
	free(reason);
	inv_close(inv);
	return rc;
}

static int read_redfish(const struct rf_where *w, const struct rf_options *ropts, struct bmc_result *res)
{
	const struct rf_target t = { w->name,	w->base_url,
				     w->user,	w->password,
				     NULL,	STG_DISCOVER_DEADLINE_S * 1000L,
				     w->system, 0 };

	if (rf_discover_all(&t, 1, ropts, on_redfish, res, &res->err)) {
		fprintf(stderr, "bringup-bmc: %s\n", res->err.msg);
		return STG_EXIT_USAGE; /* a run that could not start: a bad CA file */
	}
	return STG_EXIT_OK;
}

static void print_field(const char *label, const char *value)
{
	printf("%-14s %s\n", label, value ? value : "-");
}

static char *fmt_num(double v, const char *units)
{
	if (isnan(v))
		return NULL;
	return br_xasprintf("%g%s%s", v, units ? " " : "", units ? units : "");
}

static void print_macs(const struct br_hw *hw)
{
	static const char *const hdr[] = { "MAC", "ROLE", "NAME", "SOURCE", "LINK" };
	struct br_table t;

	printf("\nMACs (%zu, %zu host)\n", hw->n_nics, br_hw_host_nics(hw));
	br_table_init(&t, 5, hdr);
	for (size_t i = 0; i < hw->n_nics; i++) {
		const struct br_nic *n = &hw->nics[i];
		const char *row[] = { n->mac, n->role ? n->role : BR_NIC_ROLE_HOST, n->name, n->source,
				      n->link_status };

		br_table_add(&t, row);
	}
	br_table_print(&t, stdout);
	br_table_release(&t);
}

static void print_sensors(const struct br_hw *hw)
{
	static const char *const hdr[] = { "KIND", "NAME", "READING", "HEALTH", "LOWER CRIT", "UPPER CRIT" };
	struct br_table t;

	printf("\nSensors (%zu)\n", hw->n_sensors);
	br_table_init(&t, 6, hdr);
	for (size_t i = 0; i < hw->n_sensors; i++) {
		const struct br_sensor *s = &hw->sensors[i];
		char *reading = fmt_num(s->reading, s->units), *lc = fmt_num(s->lower_critical, NULL);
		char *uc = fmt_num(s->upper_critical, NULL);
		const char *row[] = {
			br_sensor_kind_name(s->kind), s->name, reading ? reading : s->state, s->health, lc, uc
		};

		br_table_add(&t, row);
		free(reading);
		free(lc);
		free(uc);
	}
	br_table_print(&t, stdout);
	br_table_release(&t);
}

static void print_lists(const struct br_hw *hw)
{
	static const char *const fw_hdr[] = { "NAME", "VERSION", "ID" };
	static const char *const sel_hdr[] = { "ID", "CREATED", "SEVERITY", "MESSAGE" };
	static const char *const unread_hdr[] = { "URL", "STATUS", "REASON" };
	struct br_table t;

	printf("\nFirmware (%zu)\n", hw->n_firmware);
	br_table_init(&t, 3, fw_hdr);
	for (size_t i = 0; i < hw->n_firmware; i++) {
		const struct br_firmware *f = &hw->firmware[i];

		br_table_add(&t, (const char *const[]){ f->name, f->version, f->id });
	}
	br_table_print(&t, stdout);
	br_table_release(&t);
	printf("\nSystem event log (%zu)\n", hw->n_sel);
	br_table_init(&t, 4, sel_hdr);
	for (size_t i = 0; i < hw->n_sel; i++) {
		const struct br_sel_entry *e = &hw->sel[i];

		br_table_add(&t, (const char *const[]){ e->id, e->created, e->severity, e->message });
	}
	br_table_print(&t, stdout);
	br_table_release(&t);
	if (!hw->n_unreadable)
		return;
	printf("\nUnreadable (%zu)\n", hw->n_unreadable + hw->unreadable_dropped);
	br_table_init(&t, 3, unread_hdr);
	for (size_t i = 0; i < hw->n_unreadable; i++) {
		const struct br_unreadable *u = &hw->unreadable[i];
		char status[24];

		snprintf(status, sizeof(status), "%ld", u->status);
		br_table_add(&t, (const char *const[]){ u->url, u->status ? status : "-", u->reason });
	}
	br_table_print(&t, stdout);
	br_table_release(&t);
}

static void print_hw(const struct br_hw *hw)
{
	print_field("Source", hw->source);
	print_field("Manufacturer", hw->manufacturer);
	print_field("Model", hw->model);
	print_field("Serial", hw->system_serial);
	print_field("Service tag", hw->service_tag);
	print_field("UUID", hw->uuid);
	print_field("Power", hw->power_state);
	print_field("Health", hw->health);
	print_field("BIOS", hw->bios_version);
	print_field("BMC firmware", hw->bmc_firmware);
	print_field("BMC MAC", hw->bmc_mac);
	print_macs(hw);
	print_sensors(hw);
	print_lists(hw);
}

/* Exit 3 for a BMC that cannot be read at all, 1 for one that answered
 * with nothing usable. */
static int read_exit(int rc)
{
	return rc == BR_E_AUTH || rc == BR_E_UNREACHABLE || rc == BR_E_TIMEOUT || rc == BR_E_NOTFOUND ||
		       rc == RF_E_TLS || rc == RF_E_NO_REDFISH || rc == RF_E_DEADLINE
		   ? STG_EXIT_UNREACHABLE
		   : STG_EXIT_NODES;
}

struct bmc_args {
	const char *ipmi, *redfish, *bmc_url, *user, *password_ref, *system, *db;
	int timeout_s, json, verbose, quiet;
	struct stg_bmc_opts bo;
};

/* One of --ipmi, --redfish HOST, --bmc URL, with what each needs. */
static int args_check(const struct bmc_args *a)
{
	int modes = !!a->ipmi + !!a->redfish + !!a->bmc_url;

	if (modes != 1) {
		fprintf(stderr, "bringup-bmc: give one of --ipmi HOST[:PORT], --redfish HOST, --bmc URL\n");
		return STG_EXIT_USAGE;
	}
	if (!a->redfish && (!a->user || !a->password_ref)) {
		fprintf(stderr, "bringup-bmc: --%s needs --user and --password-ref\n",
			a->ipmi ? "ipmi" : "bmc");
		return STG_EXIT_USAGE;
	}
	if (a->redfish && (a->user || a->password_ref)) {
		fprintf(stderr, "bringup-bmc: --redfish HOST takes the user and password reference from the "
				"inventory; give --bmc URL to name your own\n");
		return STG_EXIT_USAGE;
	}
	if (a->bmc_url && strncmp(a->bmc_url, "https://", 8) && strncmp(a->bmc_url, "http://", 7)) {
		fprintf(stderr, "bringup-bmc: --bmc '%s' is not an http:// or https:// URL\n", a->bmc_url);
		return STG_EXIT_USAGE;
	}
	if (a->timeout_s < 0) {
		fprintf(stderr, "bringup-bmc: --timeout must be >= 1\n");
		return STG_EXIT_USAGE;
	}
	return 0;
}

static int run_redfish(struct bmc_args *a, struct bmc_result *res)
{
	struct rf_where w = { .system = a->system };
	struct rf_options ropts;
	int rc;

	if (a->timeout_s)
		a->bo.timeout_s = a->timeout_s;
	if (stg_bmc_opts_finish(&a->bo, "bringup-bmc", &ropts))
		return STG_EXIT_USAGE;
	if (a->redfish) {
		rc = where_from_inventory(a->db, a->redfish, a->bo.scheme, &w);
	} else {
		rc = br_secret_resolve(a->password_ref, &w.password, &res->err);
		if (rc)
			fprintf(stderr, "bringup-bmc: --password-ref: %s\n", res->err.msg);
		w.name = a->bmc_url;
		w.base_url = br_xstrdup(a->bmc_url);
		w.user = a->user;
		rc = rc ? STG_EXIT_USAGE : 0;
	}
	if (!rc)
		rc = read_redfish(&w, &ropts, res);
	rf_where_release(&w);
	return rc;
}

int main(int argc, char **argv)
{
	struct bmc_args a = { 0 };
	const struct br_option options[] = {
		{ "ipmi", 0, BR_OPT_STRING, &a.ipmi, "HOST[:PORT]",
		  "read this BMC over IPMI (ipmitool lanplus; port 623)" },
		{ "redfish", 0, BR_OPT_STRING, &a.redfish, "HOST",
		  "read this node's BMC over Redfish, as the inventory names it (read, never written)" },
		{ "bmc", 0, BR_OPT_STRING, &a.bmc_url, "URL",
		  "read the Redfish BMC at this URL (https://10.0.0.5), with --user and --password-ref" },
		{ "user", 'u', BR_OPT_STRING, &a.user, "USER", "BMC user" },
		{ "password-ref", 0, BR_OPT_STRING, &a.password_ref, "env:VAR|file:PATH",
		  "where the BMC password is (a literal password is refused)" },
		{ "system", 0, BR_OPT_STRING, &a.system, "ID",
		  "which Redfish System is the host, where the BMC manages several" },
		{ "db", 0, BR_OPT_STRING, &a.db, "PATH",
		  "inventory database for --redfish (default $BRINGUP_DB or ./bringup.db)" },
		{ "bmc-scheme", 0, BR_OPT_STRING, &a.bo.scheme, "http|https",
		  "URL scheme for --redfish (default $BRINGUP_BMC_SCHEME or https)" },
		{ "ca-file", 0, BR_OPT_STRING, &a.bo.ca_file, "PATH",
		  "CA bundle for BMC certificates (default $BRINGUP_CA_FILE)" },
		{ "insecure", 'k', BR_OPT_FLAG, &a.bo.insecure, NULL, "do not verify BMC TLS certificates" },
		{ "basic-auth", 0, BR_OPT_FLAG, &a.bo.basic_auth, NULL,
		  "use HTTP basic auth instead of a Redfish session" },
		{ "timeout", 't', BR_OPT_INT, &a.timeout_s, "S",
		  "limit on each BMC call in seconds (default 30 IPMI; Redfish $BRINGUP_BMC_TIMEOUT or 15)" },
		{ "json", 0, BR_OPT_FLAG, &a.json, NULL, "print everything read as one JSON document" },
		{ "verbose", 'v', BR_OPT_FLAG, &a.verbose, NULL, "more log detail (repeat for debug)" },
		{ "quiet", 'q', BR_OPT_FLAG, &a.quiet, NULL, "only errors on stderr" },
		{ 0 },
	};
	const struct br_command cmd = {
		"bringup-bmc",
		"--ipmi HOST[:PORT] --user U --password-ref REF | --redfish HOST | --bmc URL --user U "
		"--password-ref REF [options]",
		"Read one BMC and print what it reports, changing nothing: identity (serials, model, power,\n"
		"health), every MAC with its role, sensors, firmware, system event log. Redfish is read\n"
		"as discover reads it (GETs only, in a session logged out after); the inventory is only\n"
		"read, for --redfish HOST's BMC. Exit 0 read, 2 bad usage, 3 BMC unreachable or\n"
		"credentials refused, 1 the BMC answered nothing usable. BR_IPMITOOL names another ipmitool.",
		options,
		NULL,
	};
	struct bmc_result res = { 0 };
	char *password = NULL;
	int argi, rc;

	br_log_init("bringup-bmc", BR_LOG_WARN);
	stg_journal_install();
	/* bringup.conf and the environment's BMC settings first; options win */
	if (stg_bmc_opts_init(&a.bo, "bringup-bmc"))
		return STG_EXIT_USAGE;
	rc = br_opt_parse(&cmd, argc, argv, &argi);
	if (rc)
		return rc == BR_OPT_EXIT_OK ? STG_EXIT_OK : STG_EXIT_USAGE;
	br_log_set_level(a.quiet	 ? BR_LOG_ERROR
			 : a.verbose > 1 ? BR_LOG_DEBUG
			 : a.verbose	 ? BR_LOG_INFO
					 : BR_LOG_WARN);
	if (argi < argc) {
		fprintf(stderr, "bringup-bmc: unexpected '%s'\nbringup-bmc: try 'bringup-bmc --help'\n",
			argv[argi]);
		return STG_EXIT_USAGE;
	}
	if (args_check(&a))
		return STG_EXIT_USAGE;
	if (!a.db) {
		const char *env = getenv("BRINGUP_DB");

		a.db = env && *env ? env : "bringup.db";
	}
	res.json = a.json;
	if (a.ipmi) {
		if (br_secret_resolve(a.password_ref, &password, &res.err)) {
			fprintf(stderr, "bringup-bmc: --password-ref: %s\n", res.err.msg);
			return STG_EXIT_USAGE;
		}
		rc = read_ipmi(a.ipmi, a.user, password, a.timeout_s ? a.timeout_s : 30, &res);
	} else {
		rc = run_redfish(&a, &res);
	}
	if (rc)
		goto out;
	if (res.rc) {
		char *why = stg_bmc_failure_reason(res.rc, res.err.msg);
		char *msg = br_escape(why); /* may hold the BMC's own words */

		fprintf(stderr, "bringup-bmc: %s\n", msg);
		free(msg);
		free(why);
		rc = read_exit(res.rc);
	}
out:
	br_secret_free(password);
	return rc;
}
