/*
 * netboxopts — the options every command that talks to NetBox takes (its
 * URL, where the API token is, the device filters, TLS), in one place:
 * import and export.
 *
 * Ownership: struct stg_netbox_opts borrows its strings (argv) but owns
 * the resolved token (stg_netbox_opts_release). A zeroed struct is the
 * defaults: the token from env:NETBOX_TOKEN, the system's CA store.
 */
#ifndef STAGES_NETBOXOPTS_H
#define STAGES_NETBOXOPTS_H

#include "common.h"
#include "netbox.h"

struct stg_netbox_opts {
	const char *url;       /* --netbox: NetBox's base URL */
	const char *token_ref; /* --netbox-token env:VAR|file:PATH; NULL: env:NETBOX_TOKEN */
	const char *query;     /* --netbox-query: device filters */
	const char *ca_file;   /* --netbox-ca-file; NULL: the system's store */
	int insecure;	       /* --netbox-insecure */
	char *token;	       /* the token, once stg_netbox_opts_finish resolved it */
};

/* clang-format off: a table reads best one entry per line */
/* Entries for a struct br_option table (no terminator). */
#define STG_NETBOX_OPTIONS(o)                                                                                \
	{ "netbox",  0,	    BR_OPT_STRING,                                                                   \
	  &(o)->url, "URL", "NetBox at URL (its base, e.g. https://netbox.example.com/)" },                  \
	    { "netbox-token",                                                                                \
	      0,                                                                                             \
	      BR_OPT_STRING,                                                                                 \
	      &(o)->token_ref,                                                                               \
	      "REF",                                                                                         \
	      "NetBox API token as env:VAR or file:PATH (default env:NETBOX_TOKEN); export's needs write "   \
	      "permission" },                                                                                \
	    { "netbox-query",                                                                                \
	      0,                                                                                             \
	      BR_OPT_STRING,                                                                                 \
	      &(o)->query,                                                                                   \
	      "FILTERS",                                                                                     \
	      "which devices: NetBox device filters, e.g. 'site=dc1&role=gpu-server&rack_id=4' (they also "  \
	      "tell two devices of one name apart)" },                                                       \
	    { "netbox-ca-file",                                                                              \
	      0,                                                                                             \
	      BR_OPT_STRING,                                                                                 \
	      &(o)->ca_file,                                                                                 \
	      "PATH",                                                                                        \
	      "CA certificates NetBox's TLS certificate is checked against (default: the system's)" },       \
	{                                                                                                    \
		"netbox-insecure", 0, BR_OPT_FLAG, &(o)->insecure, NULL,                                     \
		    "do not check NetBox's TLS certificate"                                                  \
	}
/* clang-format on */

/* After option parsing: check the device filters (stg_netbox_query_check)
 * and resolve the token into o->token. 0, or nonzero with err saying what
 * is wrong, naming the option. */
int stg_netbox_opts_finish(struct stg_netbox_opts *o, struct br_err *err);
/* Fill the client options from o (the other fields of no left as they
 * are): URL, token (as resolved so far), filters, CA file, TLS check. */
void stg_netbox_opts_apply(const struct stg_netbox_opts *o, struct stg_netbox_options *no);
void stg_netbox_opts_release(struct stg_netbox_opts *o);

#endif
