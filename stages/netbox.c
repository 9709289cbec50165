/* NetBox's REST API read page by page on the HTTP core. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "http.h"
#include "netbox.h"
#include "netbox_client.h"

/* Whether two URLs have the same scheme, host and port: a "next" link
 * elsewhere (a proxy's own name, another scheme) would take the token
 * along. */
static int same_origin(const char *a, const char *b)
{
	CURLU *ua = curl_url(), *ub = curl_url();
	int same = 0;

	if (ua && ub && !curl_url_set(ua, CURLUPART_URL, a, 0) && !curl_url_set(ub, CURLUPART_URL, b, 0)) {
		static const CURLUPart parts[] = { CURLUPART_SCHEME, CURLUPART_HOST, CURLUPART_PORT };

		same = 1;
		for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]) && same; i++) {
			char *x = NULL, *y = NULL;

			curl_url_get(ua, parts[i], &x, CURLU_DEFAULT_PORT);
			curl_url_get(ub, parts[i], &y, CURLU_DEFAULT_PORT);
			same = x && y && !strcasecmp(x, y);
			curl_free(x);
			curl_free(y);
		}
	}
	curl_url_cleanup(ua);
	curl_url_cleanup(ub);
	return same;
}

/* NetBox's words for a refusal: {"detail": …}, or a filter's
 * {"site": ["Select a valid choice. …"]} as compact JSON. */
char *stg_netbox_words(const struct br_buf *body)
{
	json_t *doc = br_json_parse(body->data ? body->data : "", body->len, 64 * 1024, NULL);
	char *text;

	if (br_json_str(doc, "detail"))
		text = br_xstrdup(br_json_str(doc, "detail"));
	else if (doc)
		text = json_dumps(doc, JSON_COMPACT);
	else
		text = br_xstrdup("(no JSON answer)");
	json_decref(doc);
	return text;
}

static int get_page(struct stg_netbox_client *c, const char *url, json_t **ret_doc, struct br_err *err)
{
	struct br_err call_err = { 0 };
	struct br_buf body;
	long status = 0;
	char *words;
	int rc;

	br_buf_init(&body, 0);
	rc = stg_rest_call(&c->rest, "GET", url, NULL, &status, &body, &call_err);
	if (rc) {
		rc = br_errf(err, rc, "NetBox %s", call_err.msg);
		goto out;
	}
	if (status != 200) {
		words = stg_netbox_words(&body);
		/* A filter NetBox refuses is the operator's to fix; a refused
		 * token or a NetBox that is down is the site's. */
		rc = br_errf(err,
			     status == 400		      ? BR_E_INVAL
			     : status == 401 || status == 403 ? BR_E_AUTH
							      : BR_E_IO,
			     "NetBox GET %s: HTTP %ld: %s", url, status, words);
		free(words);
		goto out;
	}
	*ret_doc = stg_rest_json(url, &body, STG_NETBOX_BODY_MAX, &call_err);
	if (!*ret_doc)
		rc = br_errf(err, BR_E_PROTO, "NetBox GET %s", call_err.msg);
out:
	br_buf_release(&body);
	return rc;
}

/* Every object of a list, page by page. */
int stg_netbox_get_all(struct stg_netbox_client *c, const char *first_url, json_t *objects,
		       struct br_err *err)
{
	char *url = br_xstrdup(first_url);
	int rc = 0;

	for (int pages = 0; url && !rc; pages++) {
		json_t *page = NULL;
		char *next = NULL;

		if (pages * (long)STG_NETBOX_PAGE_LIMIT > 10L * STG_NETBOX_OBJECTS_MAX) {
			rc = br_errf(err, BR_E_TOOBIG, "NetBox %s: pages never end", first_url);
			break;
		}
		rc = get_page(c, url, &page, err);
		if (!rc)
			rc = stg_netbox_page_take(url, page, objects, &next, err);
		json_decref(page);
		if (!rc && next && !same_origin(next, c->base)) {
			rc = br_errf(err, BR_E_PROTO,
				     "NetBox GET %s: its next page is on another server or scheme (%s): not "
				     "followed, so the token stays with %s (NetBox's BASE_PATH or a proxy's "
				     "X-Forwarded-Proto may be wrong)",
				     url, next, c->base);
			free(next);
			next = NULL;
		}
		free(url);
		url = next;
	}
	free(url);
	return rc;
}

int stg_netbox_client_init(struct stg_netbox_client *c, const struct stg_netbox_options *o,
			   struct br_err *err)
{
	struct stg_rest_options ro = { 0 };
	size_t len;
	char *auth;
	int rc;

	memset(c, 0, sizeof(*c));
	c->o = o;
	if (!o->url || (strncmp(o->url, "http://", 7) && strncmp(o->url, "https://", 8)))
		return br_errf(err, BR_E_INVAL, "--netbox '%s': not an http(s) URL", o->url ? o->url : "");
	if (br_url_has_credentials(o->url))
		return br_errf(err, BR_E_INVAL,
			       "--netbox: the URL carries a user, password or query; give NetBox's base "
			       "URL and the token by reference (--netbox-token env:VAR or file:PATH)");
	if (!o->token || !*o->token)
		return br_errf(err, BR_E_INVAL, "--netbox-token: no token (env:VAR or file:PATH)");
	len = strlen(o->url);
	c->base = br_xasprintf("%s%s", o->url, o->url[len - 1] == '/' ? "" : "/");
	br_redact_add(o->token);
	/* NetBox 4.5's v2 tokens are "nbt_KEY.SECRET" after "Bearer"; v1
	 * tokens are bare after "Token" (docs/integrations/rest-api.md). */
	auth = br_xasprintf("%s %s", strncmp(o->token, "nbt_", 4) ? "Token" : "Bearer", o->token);
	ro.authorization = auth;
	ro.ca_file = o->ca_file;
	ro.insecure = o->insecure;
	ro.timeout_ms = o->timeout_ms;
	ro.body_max = STG_NETBOX_BODY_MAX;
	rc = stg_rest_init(&c->rest, &ro, err);
	memset(auth, 0, strlen(auth));
	free(auth);
	return rc;
}

void stg_netbox_client_release(struct stg_netbox_client *c)
{
	stg_rest_release(&c->rest);
	if (c->base)
		br_redact_remove(c->o->token);
	free(c->base);
}

/* The devices' URL: the operator's filters, each value escaped. */
static char *devices_url(const struct stg_netbox_client *c)
{
	struct br_buf b;
	const char *p = c->o->query ? c->o->query : "";

	br_buf_init(&b, 0);
	br_buf_addf(&b, "%sapi/dcim/devices/?", c->base);
	while (*p) {
		const char *end = strchr(p, '&'), *eq;
		char *value;

		if (!end)
			end = p + strlen(p);
		eq = memchr(p, '=', (size_t)(end - p));
		value = curl_easy_escape(NULL, eq + 1, (int)(end - eq - 1));
		br_buf_addf(&b, "%.*s=%s&", (int)(eq - p), p, value ? value : "");
		curl_free(value);
		p = *end ? end + 1 : end;
	}
	br_buf_addf(&b, "limit=%d", STG_NETBOX_PAGE_LIMIT);
	return br_buf_detach(&b);
}

/* The cables on the imported devices, STG_NETBOX_IDS_PER_QUERY at a time. */
static int get_cables(struct stg_netbox_client *c, json_t *devices, json_t *cables, struct br_err *err)
{
	size_t n = json_array_size(devices);
	int rc = 0;

	for (size_t i = 0; i < n && !rc; i += STG_NETBOX_IDS_PER_QUERY) {
		struct br_buf b;

		br_buf_init(&b, 0);
		br_buf_addf(&b, "%sapi/dcim/cables/?", c->base);
		for (size_t k = i; k < n && k < i + STG_NETBOX_IDS_PER_QUERY; k++)
			br_buf_addf(
			    &b, "device_id=%lld&",
			    (long long)json_integer_value(json_object_get(json_array_get(devices, k), "id")));
		br_buf_addf(&b, "limit=%d", STG_NETBOX_PAGE_LIMIT);
		rc = stg_netbox_get_all(c, br_buf_str(&b), cables, err);
		br_buf_release(&b);
	}
	return rc;
}

int stg_netbox_import(const struct stg_netbox_options *o, struct stg_netbox_import *ret,
		      struct br_strlist *ret_problems, struct br_err *err)
{
	struct stg_netbox_import imp = { 0 };
	struct stg_netbox_client c;
	json_t *devices = json_array(), *cables = json_array();
	char *url = NULL;
	int rc;

	rc = stg_netbox_query_check(o->query, err);
	if (!rc)
		rc = stg_netbox_client_init(&c, o, err);
	else
		memset(&c, 0, sizeof(c));
	if (rc)
		goto out;
	url = devices_url(&c);
	rc = stg_netbox_get_all(&c, url, devices, err);
	if (!rc && !json_array_size(devices))
		rc = br_errf(err, BR_E_INVAL, "NetBox GET %s: no device matches%s%s", url,
			     o->query ? " --netbox-query " : "", o->query ? o->query : "");
	if (!rc)
		rc = get_cables(&c, devices, cables, err);
	if (rc)
		goto out;
	imp.devices = json_array_size(devices);
	imp.cables = json_array_size(cables);
	imp.manifest.path = url;
	url = NULL;
	if (stg_netbox_devices_map(devices, o, &imp.manifest, ret_problems)) {
		rc = br_errf(err, BR_E_INVAL, "NetBox: %zu problem%s in %zu devices", ret_problems->n,
			     ret_problems->n == 1 ? "" : "s", imp.devices);
		goto out;
	}
	stg_netbox_cables_map(cables, &imp.manifest, &imp);
	*ret = imp;
	memset(&imp, 0, sizeof(imp));
out:
	stg_netbox_client_release(&c);
	stg_netbox_import_release(&imp);
	json_decref(devices);
	json_decref(cables);
	free(url);
	return rc;
}
