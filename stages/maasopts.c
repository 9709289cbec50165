/* The MAAS options (maasopts.h). */
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "maasopts.h"

void stg_maas_opts_init(struct stg_maas_opts *o)
{
	const char *ref;

	stg_config_apply(NULL); /* reported by stg_stage_parse */
	ref = getenv("MAAS_API_KEY_REF");
	/* A key in MAAS_API_KEY beats a reference in MAAS_API_KEY_REF (or
	 * bringup.conf's maas.api_key); --api-key-ref beats both. */
	*o = (struct stg_maas_opts){ .url = getenv("MAAS_URL"),
				     .ca_file = getenv("BRINGUP_CA_FILE"),
				     .key_ref = ref && *ref && !getenv("MAAS_API_KEY") ? ref : NULL,
				     .timeout_s = 30 };
}

int stg_maas_opts_key(struct stg_maas_opts *o, struct br_err *err)
{
	br_secret_free(o->key);
	o->key = NULL;
	if (o->key_ref)
		return br_secret_resolve(o->key_ref, &o->key, err);
	if (!getenv("MAAS_API_KEY"))
		return br_errf(err, BR_E_INVAL, "set MAAS_API_KEY or pass --api-key-ref env:VAR|file:PATH");
	o->key = br_xstrdup(getenv("MAAS_API_KEY"));
	return 0;
}

void stg_maas_opts_apply(const struct stg_maas_opts *o, struct maas_options *mo)
{
	mo->url = o->url;
	mo->api_key = o->key;
	mo->ca_file = o->ca_file && *o->ca_file ? o->ca_file : NULL;
	mo->insecure = o->insecure;
	mo->timeout_ms = o->timeout_s * 1000L;
}

void stg_maas_opts_release(struct stg_maas_opts *o)
{
	br_secret_free(o->key);
	o->key = NULL;
}

char *stg_maas_power_address(const char *addr, int ipmi)
{
	const char *colon = strchr(addr, ':');

	if (!ipmi)
		return br_xstrdup(addr);
	if (addr[0] == '[') {
		size_t len = strcspn(addr + 1, "]");

		return br_xstrndup(addr + 1, len);
	}
	if (colon && !strchr(colon + 1, ':'))
		return br_xstrndup(addr, (size_t)(colon - addr));
	return br_xstrdup(addr);
}

/* MAAS answers its API under .../MAAS/api/2.0/ (the region's Django
 * root is /MAAS/); a URL without it reaches the web server's 404 for every
 * call, which read as "MAAS unreachable". */
int stg_maas_url_is_api_root(const char *url)
{
	const char *scheme_end = strstr(url, "://");
	size_t len = strlen(url);

	if (len && url[len - 1] == '/')
		len--;
	return scheme_end && len >= 5 && (size_t)(scheme_end - url) + 3 < len - 5 &&
	       !strncmp(url + len - 5, "/MAAS", 5);
}
