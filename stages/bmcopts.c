/* The BMC options shared by discover and configure. */
#include <stdlib.h>
#include <string.h>

#include "bmcopts.h"
#include "config.h"
#include "manifest.h"
#include "stage.h"

static int env_int(const char *prog, const char *name, long max, int *value)
{
	const char *s = getenv(name);
	long v;

	if (!s || !*s)
		return 0;
	if (br_parse_long(s, 0, max, &v)) {
		fprintf(stderr, "%s: %s='%s' is not a number of 0-%ld\n", prog, name, s, max);
		return STG_EXIT_USAGE;
	}
	*value = (int)v;
	return 0;
}

int stg_bmc_opts_init(struct stg_bmc_opts *o, const char *prog)
{
	/* bringup.conf first: its settings are the environment's defaults
	 * (a wrong file is reported by stg_stage_parse). */
	stg_config_apply(NULL);
	*o = (struct stg_bmc_opts){
		.scheme = getenv("BRINGUP_BMC_SCHEME"),
		.ca_file = getenv("BRINGUP_CA_FILE"),
		.timeout_s = 15,
		.retries = 5,
		.per_bmc = 4,
		.max_inflight = 512,
		.ipmi_parallel = 16,
	};
	if (env_int(prog, "BRINGUP_BMC_TIMEOUT", 3600, &o->timeout_s) ||
	    env_int(prog, "BRINGUP_BMC_RETRIES", 3600, &o->retries) ||
	    env_int(prog, "BRINGUP_BMC_DEADLINE", STG_BMC_DEADLINE_MAX_S, &o->deadline_s))
		return STG_EXIT_USAGE;
	return 0;
}

int stg_bmc_endpoint(const struct inv_node *node, const char *scheme, char **ret_password, char **ret_host,
		     int *ret_port, char **ret_base_url, char **ret_reason)
{
	struct br_err err = { 0 };
	char *password = NULL;

	if (br_secret_resolve(node->bmc_password_ref, &password, &err)) {
		*ret_reason = br_xasprintf("bmc %s: credentials: %s", node->bmc, err.msg);
		return -1;
	}
	if (stg_bmc_address_parse(node->bmc, ret_host, ret_port)) {
		br_secret_free(password);
		*ret_reason = br_xasprintf("bmc '%s' is not an address", node->bmc);
		return -1;
	}
	*ret_password = password;
	*ret_base_url = br_xasprintf("%s://%s", scheme, node->bmc);
	return 0;
}

int stg_bmc_opts_finish(struct stg_bmc_opts *o, const char *prog, struct rf_options *ropts)
{
	if (!o->scheme || !*o->scheme)
		o->scheme = "https";
	if (strcmp(o->scheme, "http") && strcmp(o->scheme, "https")) {
		fprintf(stderr, "%s: --bmc-scheme must be http or https\n", prog);
		return STG_EXIT_USAGE;
	}
	if (o->deadline_s < 0 || o->deadline_s > STG_BMC_DEADLINE_MAX_S) {
		fprintf(stderr, "%s: --bmc-deadline must be 0-%d seconds\n", prog, STG_BMC_DEADLINE_MAX_S);
		return STG_EXIT_USAGE;
	}
	if (o->timeout_s < 1 || o->retries < 0 || o->per_bmc < 1 || o->max_inflight < 1 ||
	    o->ipmi_parallel < 1) {
		fprintf(stderr, "%s: --timeout, --per-bmc, --max-inflight, --ipmi-parallel must be >= 1\n",
			prog);
		return STG_EXIT_USAGE;
	}
	rf_options_init(ropts);
	ropts->per_bmc_inflight = o->per_bmc;
	ropts->total_inflight = o->max_inflight;
	ropts->timeout_ms = o->timeout_s * 1000L;
	ropts->retries = o->retries;
	ropts->ca_file = o->ca_file && *o->ca_file ? o->ca_file : NULL;
	ropts->insecure = o->insecure;
	ropts->use_sessions = !o->basic_auth;
	return 0;
}

long stg_bmc_deadline_ms(const struct stg_bmc_opts *o, int64_t profile_s, int default_s)
{
	if (o->deadline_s > 0)
		return o->deadline_s * 1000L;
	if (profile_s > 0 && profile_s <= STG_BMC_DEADLINE_MAX_S)
		return (long)profile_s * 1000L;
	return default_s * 1000L;
}

char *stg_bmc_failure_reason(int rc, const char *msg)
{
	/* Base's PasswordChangeRequired (DSP0266): the password is right, and
	 * the BMC (a Lenovo XCC's factory account) takes nothing else until
	 * it is changed */
	if (msg && strstr(msg, "PasswordChangeRequired"))
		return br_xasprintf("the BMC requires its password to be changed first (bringup credentials "
				    "rotate): %s",
				    msg);
	if (rc == BR_E_AUTH)
		return br_xasprintf("credentials refused (check bmc_user/bmc_password): %s", msg);
	if (rc == RF_E_TLS) /* curl: the peer certificate or the CA file */
		return br_xasprintf("%s (%s)", msg, BR_TLS_HINT("the BMC"));
	return br_xstrdup(msg);
}

enum br_fail_kind stg_bmc_failure_kind(int rc)
{
	switch (rc) {
	case BR_E_AUTH:
		return BR_FAIL_BMC_AUTH;
	case BR_E_UNREACHABLE:
	case BR_E_TIMEOUT: /* no answer within the request timeout, after every retry */
	case BR_E_IO:
		return BR_FAIL_BMC_UNREACHABLE;
	case RF_E_DEADLINE:
		return BR_FAIL_BMC_DEADLINE;
	case RF_E_TLS:
		return BR_FAIL_BMC_TLS;
	case RF_E_NO_HOST_MAC:
		return BR_FAIL_NO_HOST_MAC;
	case RF_E_NOT_APPLIED:
		return BR_FAIL_BIOS_NOT_APPLIED;
	case BR_E_EXISTS:
		return BR_FAIL_MAC_CONFLICT;
	case BR_E_UNSUPPORTED:
		return BR_FAIL_BIOS_UNSUPPORTED;
	case RF_E_HTTP:
	case RF_E_NO_REDFISH:
	case BR_E_PROTO:
	case BR_E_TOOBIG:
		return BR_FAIL_BMC_PROTOCOL;
	default:
		return BR_FAIL_STAGE;
	}
}

static size_t nodes_naming(struct stg_stage *st,
			   int (*wanted)(const struct stg_stage *, const struct inv_node *), const char *ref)
{
	size_t n = 0;

	for (size_t i = 0; i < st->n; i++)
		n += (!wanted || wanted(st, &st->nodes[i])) && st->nodes[i].bmc_password_ref &&
		     !strcmp(st->nodes[i].bmc_password_ref, ref);
	return n;
}

int stg_bmc_secrets_check(struct stg_stage *st,
			  int (*wanted)(const struct stg_stage *st, const struct inv_node *node))
{
	struct br_strlist seen = { 0 };
	size_t bad = 0;

	for (size_t i = 0; i < st->n; i++) {
		const char *ref = st->nodes[i].bmc_password_ref;
		struct br_err err = { 0 };
		char *secret = NULL;
		size_t k, naming;

		/* a node with no reference at all fails on its own, as before */
		if (!ref || !*ref || (wanted && !wanted(st, &st->nodes[i])))
			continue;
		for (k = 0; k < seen.n && strcmp(seen.items[k], ref); k++)
			;
		if (k < seen.n)
			continue;
		br_strlist_add(&seen, ref);
		if (!br_secret_resolve(ref, &secret, &err)) {
			br_secret_free(secret);
			continue;
		}
		if (!bad++)
			fprintf(stderr, "%s: BMC passwords the manifest refers to cannot be read:\n",
				st->cmd->name);
		naming = nodes_naming(st, wanted, ref);
		fprintf(stderr, "%s:   %s (%zu node%s): %s\n", st->cmd->name, ref, naming,
			naming == 1 ? "" : "s", err.msg);
	}
	br_strlist_release(&seen);
	if (!bad)
		return 0;
	return stg_stage_usage(
	    st, "no node was touched: set the variable or make the file readable (bmc_password "
		"column: env:VAR or file:PATH), then run again");
}
