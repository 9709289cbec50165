/* The NetBox options (netboxopts.h). */
#include <stdlib.h>

#include "netboxopts.h"

int stg_netbox_opts_finish(struct stg_netbox_opts *o, struct br_err *err)
{
	int rc;

	rc = stg_netbox_query_check(o->query, err);
	if (rc)
		return rc;
	br_secret_free(o->token);
	o->token = NULL;
	rc = br_secret_resolve(o->token_ref ? o->token_ref : "env:NETBOX_TOKEN", &o->token, err);
	if (rc)
		br_err_prefix(err, "--netbox-token");
	return rc;
}

void stg_netbox_opts_apply(const struct stg_netbox_opts *o, struct stg_netbox_options *no)
{
	no->url = o->url;
	no->token = o->token;
	no->query = o->query;
	no->ca_file = o->ca_file;
	no->insecure = o->insecure;
}

void stg_netbox_opts_release(struct stg_netbox_opts *o)
{
	br_secret_free(o->token);
	o->token = NULL;
}
