/*
 * maasopts — the options every stage that talks to MAAS takes (URL, where
 * the API key is, TLS, the per-request timeout), with their environment
 * defaults, in one place: enlist, gate and reprovision.
 *
 * Ownership: struct stg_maas_opts borrows its strings (argv, environment)
 * but owns the resolved key (stg_maas_opts_release).
 */
#ifndef STAGES_MAASOPTS_H
#define STAGES_MAASOPTS_H

#include "common.h"
#include "maas/maas.h"

struct stg_maas_opts {
	const char *url;     /* --maas-url; default $MAAS_URL */
	const char *key_ref; /* --api-key-ref env:VAR|file:PATH; NULL: $MAAS_API_KEY */
	const char *ca_file; /* --ca-file; default $BRINGUP_CA_FILE */
	int insecure;
	int timeout_s; /* per request; default 30 */
	char *key;     /* the API key, once stg_maas_opts_key resolved it */
};

/* clang-format off: a table reads best one entry per line */
/* Entries for a struct br_option table (no terminator). */
#define STG_MAAS_OPTIONS(o)                                                                                  \
	{ "maas-url", 0, BR_OPT_STRING, &(o)->url, "URL", "MAAS URL ending in /MAAS/ (default $MAAS_URL)" }, \
	    { "api-key-ref",	   0,                                                                        \
	      BR_OPT_STRING,	   &(o)->key_ref,                                                            \
	      "env:VAR|file:PATH", "where the MAAS API key is (default $MAAS_API_KEY)" },                    \
	    { "ca-file",     0,	     BR_OPT_STRING,                                                          \
	      &(o)->ca_file, "PATH", "CA bundle for MAAS's certificate (default $BRINGUP_CA_FILE)" },        \
	    { "insecure", 'k', BR_OPT_FLAG, &(o)->insecure, NULL, "do not verify MAAS's TLS certificate" },  \
	{                                                                                                    \
		"timeout", 't', BR_OPT_INT, &(o)->timeout_s, "SECONDS", "per-request timeout (default 30)"   \
	}
/* The same for a stage that also takes the BMC options (STG_BMC_OPTIONS
 * has --ca-file, --insecure and --timeout): the TLS and timeout ones
 * named for MAAS. */
#define STG_MAAS_OPTIONS_BESIDE_BMC(o)                                                                         \
	{ "maas-url", 0, BR_OPT_STRING, &(o)->url, "URL", "MAAS URL ending in /MAAS/ (default $MAAS_URL)" },   \
	    { "api-key-ref",	   0,                                                                          \
	      BR_OPT_STRING,	   &(o)->key_ref,                                                              \
	      "env:VAR|file:PATH", "where the MAAS API key is (default $MAAS_API_KEY)" },                      \
	    { "maas-ca-file", 0,      BR_OPT_STRING,                                                           \
	      &(o)->ca_file,  "PATH", "CA bundle for MAAS's certificate (default $BRINGUP_CA_FILE)" },         \
	    { "maas-insecure", 0, BR_OPT_FLAG, &(o)->insecure, NULL, "do not verify MAAS's TLS certificate" }, \
	{                                                                                                      \
		"maas-timeout", 0, BR_OPT_INT, &(o)->timeout_s, "SECONDS",                                     \
		    "per-request timeout for MAAS (default 30)"                                                \
	}
/* clang-format on */

/* The defaults: $MAAS_URL, $BRINGUP_CA_FILE, 30 s. */
void stg_maas_opts_init(struct stg_maas_opts *o);
/* Resolve the API key into o->key: from --api-key-ref, else $MAAS_API_KEY.
 * 0, or nonzero with err saying what is wrong (to follow "MAAS API key: "). */
int stg_maas_opts_key(struct stg_maas_opts *o, struct br_err *err);
/* Fill the client options from o (mo initialised by maas_options_init):
 * URL, key (as resolved so far), CA file (an empty one: none), TLS check,
 * timeout. */
void stg_maas_opts_apply(const struct stg_maas_opts *o, struct maas_options *mo);
void stg_maas_opts_release(struct stg_maas_opts *o);

/* The power_address MAAS is given for a node's BMC (bmc: host[:port]):
 * IPMI's is an address alone (ipmitool -H, port 623 implied:
 * src/provisioningserver/drivers/power/ipmi.py): "h:p" -> "h", "[v6]:p"
 * -> "v6", a bare IPv6 address kept; Redfish's is bmc as it is. Caller
 * frees. */
char *stg_maas_power_address(const char *bmc, int ipmi);

/* Whether url is MAAS's API root, http://HOST:5240/MAAS/ (the trailing
 * slash optional): MAAS answers its API under .../MAAS/api/2.0/. */
int stg_maas_url_is_api_root(const char *url);

#endif
