/*
 * bringup-bmc: read ONE BMC, without the inventory, and print what it
 * reports — the engineer's tool for "what does this box say about itself?"
 * Today it speaks IPMI (ipmitool); a --redfish URL mode slots in beside
 * read_ipmi() below: fill an rf_target, call rf_discover_all with one
 * target, and hand the br_hw to the same print_hw().
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
	struct br_err err;
};

static void print_hw(const struct br_hw *hw);

/* The library releases hw when this returns, so it is printed here. */
static void on_ipmi(const struct rf_ipmi_target *t, int rc, struct br_hw *hw, const struct br_err *err,
		    void *ctx)
{
	struct bmc_result *res = ctx;

	res->rc = rc;
	if (rc) {
		if (err)
			res->err = *err;
	} else if (res->json) {
		json_t *doc = br_hw_to_json(hw);

		br_json_print(stdout, doc);
		json_decref(doc);
	} else {
		print_hw(hw);
	}
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

static void print_hw(const struct br_hw *hw)
{
	static const char *const sensor_hdr[] = { "KIND",   "NAME",	  "READING",
						  "HEALTH", "LOWER CRIT", "UPPER CRIT" };
	static const char *const sel_hdr[] = { "ID", "CREATED", "SEVERITY", "MESSAGE" };
	struct br_table t;

	print_field("Source", hw->source);
	print_field("Manufacturer", hw->manufacturer);
	print_field("Model", hw->model);
	print_field("Serial", hw->system_serial);
	print_field("UUID", hw->uuid);
	print_field("Power", hw->power_state);
	print_field("BMC firmware", hw->bmc_firmware);
	print_field("BMC MAC", hw->bmc_mac);
	printf("\nSensors (%zu)\n", hw->n_sensors);
	br_table_init(&t, 6, sensor_hdr);
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
	printf("\nSystem event log (%zu)\n", hw->n_sel);
	br_table_init(&t, 4, sel_hdr);
	for (size_t i = 0; i < hw->n_sel; i++) {
		const struct br_sel_entry *e = &hw->sel[i];
		const char *row[] = { e->id, e->created, e->severity, e->message };

		br_table_add(&t, row);
	}
	br_table_print(&t, stdout);
	br_table_release(&t);
}

int main(int argc, char **argv)
{
	const char *ipmi = NULL, *user = NULL, *password_ref = NULL;
	int timeout_s = 30, json = 0, verbose = 0, quiet = 0;
	const struct br_option options[] = {
		{ "ipmi", 0, BR_OPT_STRING, &ipmi, "HOST[:PORT]",
		  "read this BMC over IPMI (ipmitool lanplus; port 623)" },
		{ "user", 'u', BR_OPT_STRING, &user, "USER", "BMC user" },
		{ "password-ref", 0, BR_OPT_STRING, &password_ref, "env:VAR|file:PATH",
		  "where the BMC password is (a literal password is refused)" },
		{ "timeout", 't', BR_OPT_INT, &timeout_s, "S",
		  "limit on each BMC call in seconds (default 30)" },
		{ "json", 0, BR_OPT_FLAG, &json, NULL, "print everything read as one JSON document" },
		{ "verbose", 'v', BR_OPT_FLAG, &verbose, NULL, "more log detail (repeat for debug)" },
		{ "quiet", 'q', BR_OPT_FLAG, &quiet, NULL, "only errors on stderr" },
		{ 0 },
	};
	const struct br_command cmd = {
		"bringup-bmc",
		"--ipmi HOST[:PORT] --user U --password-ref env:VAR|file:PATH [options]",
		"Read one BMC without the inventory and print what it reports: power, FRU serial and model,\n"
		"BMC firmware and MAC, sensors, system event log. Exit 0 read, 2 bad usage, 3 BMC\n"
		"unreachable or credentials refused, 1 the BMC answered nothing usable.\n"
		"BR_IPMITOOL names another ipmitool binary.",
		options,
		NULL,
	};
	struct bmc_result res = { 0 };
	char *password = NULL;
	int argi, rc;

	br_log_init("bringup-bmc", BR_LOG_WARN);
	rc = br_opt_parse(&cmd, argc, argv, &argi);
	if (rc)
		return rc == BR_OPT_EXIT_OK ? STG_EXIT_OK : STG_EXIT_USAGE;
	br_log_set_level(quiet	       ? BR_LOG_ERROR
			 : verbose > 1 ? BR_LOG_DEBUG
			 : verbose     ? BR_LOG_INFO
				       : BR_LOG_WARN);
	if (argi < argc || !ipmi || !user || !password_ref || timeout_s < 1) {
		fprintf(stderr, "bringup-bmc: need --ipmi, --user, --password-ref and a --timeout >= 1\n"
				"bringup-bmc: try 'bringup-bmc --help'\n");
		return STG_EXIT_USAGE;
	}
	if (br_secret_resolve(password_ref, &password, &res.err)) {
		fprintf(stderr, "bringup-bmc: --password-ref: %s\n", res.err.msg);
		return STG_EXIT_USAGE;
	}
	res.json = json;
	rc = read_ipmi(ipmi, user, password, timeout_s, &res);
	if (rc == STG_EXIT_USAGE)
		goto out;
	if (res.rc) {
		char *msg = br_escape(res.err.msg); /* may hold the BMC's own words */

		fprintf(stderr, "bringup-bmc: %s\n", msg);
		free(msg);
		rc = res.rc == BR_E_AUTH || res.rc == BR_E_UNREACHABLE || res.rc == BR_E_TIMEOUT ||
			     res.rc == BR_E_NOTFOUND
			 ? STG_EXIT_UNREACHABLE
			 : STG_EXIT_NODES;
		goto out;
	}
	rc = STG_EXIT_OK;
out:
	br_secret_free(password);
	return rc;
}
