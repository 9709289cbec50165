/*
 * bringup gate: 'validated' nodes whose required checks all pass become
 * 'golden', the others 'quarantined' with the checks that failed; MAAS is
 * tagged to match (golden / quarantine) and quarantined machines marked
 * broken with the reason. Golden and quarantined nodes are re-checked
 * against MAAS on every run; a run with nothing to do changes nothing.
 */
#include <stdlib.h>

#include "gate.h"
#include "pool.h"

struct args {
	const char *url, *key_ref, *ca_file;
	int insecure, timeout_s;
	struct gate_options o;
	char *key;
};

static int check_args(struct br_stage *st, struct args *a)
{
	struct br_err err = { 0 };

	if (a->timeout_s < 1)
		return br_stage_usage(st, "--timeout must be positive");
	if (a->o.workers < 0 || a->o.workers > BR_WORKERS_MAX)
		return br_stage_usage(st, "--workers must be 0-%d", BR_WORKERS_MAX);
	maas_options_init(&a->o.maas);
	a->o.maas.ca_file = a->ca_file && *a->ca_file ? a->ca_file : NULL;
	a->o.maas.insecure = a->insecure;
	a->o.maas.timeout_ms = a->timeout_s * 1000L;
	if (a->o.no_maas)
		return 0;
	if (!a->url || !*a->url)
		return br_stage_usage(st, "no MAAS URL: set MAAS_URL, pass --maas-url, or --no-maas");
	if (a->key_ref ? br_secret_resolve(a->key_ref, &a->key, &err) : !getenv("MAAS_API_KEY"))
		return br_stage_usage(
		    st, "MAAS API key: %s",
		    a->key_ref ? err.msg : "set MAAS_API_KEY or pass --api-key-ref env:VAR|file:PATH");
	if (!a->key)
		a->key = br_xstrdup(getenv("MAAS_API_KEY"));
	a->o.maas.url = a->url;
	a->o.maas.api_key = a->key;
	return 0;
}

int main(int argc, char **argv)
{
	struct br_stage st = { 0 };
	struct args a = { .url = getenv("MAAS_URL"), .ca_file = getenv("BRINGUP_CA_FILE"), .timeout_s = 30 };
	const struct br_option options[] = {
		{ "maas-url", 0, BR_OPT_STRING, &a.url, "URL",
		  "MAAS URL ending in /MAAS/ (default $MAAS_URL)" },
		{ "api-key-ref", 0, BR_OPT_STRING, &a.key_ref, "env:VAR|file:PATH",
		  "where the MAAS API key is (default $MAAS_API_KEY)" },
		{ "ca-file", 0, BR_OPT_STRING, &a.ca_file, "PATH",
		  "CA bundle for MAAS's certificate (default $BRINGUP_CA_FILE)" },
		{ "insecure", 'k', BR_OPT_FLAG, &a.insecure, NULL, "do not verify MAAS's TLS certificate" },
		{ "timeout", 't', BR_OPT_INT, &a.timeout_s, "SECONDS", "per-request timeout (default 30)" },
		{ "no-mark-broken", 0, BR_OPT_FLAG, &a.o.no_mark_broken, NULL,
		  "tag quarantined machines but do not mark them broken in MAAS" },
		{ "no-maas", 0, BR_OPT_FLAG, &a.o.no_maas, NULL,
		  "judge in the inventory only; leave MAAS alone" },
		{ "workers", 0, BR_OPT_INT, &a.o.workers, "N",
		  "processes reading machines from MAAS (default 0: one per 50 machines, at most one per "
		  "CPU, with 4 CPUs or more; 1: this one)" },
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
	const int *states = br_stage_states("gate", 0);
	struct gate_run run = { 0 };

	if (!br_stage_parse(&st, &cmd, argc, argv) && !check_args(&st, &a) && !br_stage_open(&st, states) &&
	    !gate_run(&st, &a.o, &run))
		br_stage_report(&st, gate_json, gate_print, &run, run.quarantined + run.errors);
	gate_run_release(&run);
	br_secret_free(a.key);
	return br_stage_close(&st);
}
