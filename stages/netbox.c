/* NetBox's REST API read page by page on the HTTP core. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "http.h"
#include "netbox.h"

#define NB_RETRIES 3

struct nb_client {
	const struct stg_netbox_options *o;
	char *base; /* the URL, ending in '/' */
	char *auth_header;
	struct br_loop *loop;
	struct br_http http;
	struct br_http_host host;
};

struct nb_req {
	struct br_http_req http; /* first member */
	struct nb_client *c;
	int done;
	long status;
	CURLcode result;
	char curl_err[CURL_ERROR_SIZE];
	struct br_buf body;
};

static int on_start(struct br_http_req *hr, CURL *easy, struct curl_slist **headers)
{
	struct nb_req *r = (struct nb_req *)hr;

	(void)easy;
	*headers = curl_slist_append(*headers, "Accept: application/json");
	if (*headers)
		*headers = curl_slist_append(*headers, r->c->auth_header);
	return *headers ? 0 : BR_E_NOMEM;
}

/* A dropped connection, a 5xx or a 429 may pass; a GET is safe to repeat. */
static int on_judge(struct br_http_req *hr, long *delay)
{
	int retry =
	    hr->result != CURLE_OK ? br_http_transient(hr->result) : hr->status >= 500 || hr->status == 429;

	if (!retry || hr->attempt >= NB_RETRIES)
		return 0;
	if (hr->retry_after_ms > *delay)
		*delay = hr->retry_after_ms;
	return 1;
}

static void on_done(struct br_http_req *hr)
{
	struct nb_req *r = (struct nb_req *)hr;

	r->done = 1;
	r->status = hr->start_failed ? 0 : hr->status;
	r->result = hr->start_failed ? CURLE_FAILED_INIT : hr->result;
	memcpy(r->curl_err, hr->curl_err, sizeof(r->curl_err));
	r->body = hr->body; /* taken */
	br_buf_init(&hr->body, 0);
	br_http_req_release(hr);
}

static void on_drop(struct br_http_req *hr)
{
	br_http_req_release(hr);
}

static const struct br_http_ops nb_ops = {
	.start = on_start, .judge = on_judge, .done = on_done, .drop = on_drop
};

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
static char *netbox_words(const struct br_buf *body)
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

static int get_page(struct nb_client *c, const char *url, json_t **ret_doc, struct br_err *err)
{
	struct nb_req r = { .c = c };
	char *words;
	int rc;

	br_http_req_init(&r.http, &c->host, "GET", url, 0);
	br_http_submit(&r.http);
	rc = br_loop_run(c->loop, err);
	if (rc) {
		br_http_host_cancel(&c->host); /* r is this frame's */
		br_buf_release(&r.body);
		return rc;
	}
	if (!r.done)
		return br_errf(err, BR_E_IO, "NetBox GET %s: no answer", url);
	if (r.result != CURLE_OK) {
		rc = br_errf(err, BR_E_UNREACHABLE, "NetBox GET %s: %s", url,
			     r.curl_err[0] ? r.curl_err : curl_easy_strerror(r.result));
		goto out;
	}
	if (r.status != 200) {
		words = netbox_words(&r.body);
		/* A filter NetBox refuses is the operator's to fix; a refused
		 * token or a NetBox that is down is the site's. */
		rc = br_errf(err,
			     r.status == 400			  ? BR_E_INVAL
			     : r.status == 401 || r.status == 403 ? BR_E_AUTH
								  : BR_E_IO,
			     "NetBox GET %s: HTTP %ld: %s", url, r.status, words);
		free(words);
		goto out;
	}
	*ret_doc = br_json_parse_bounded(r.body.data ? r.body.data : "", r.body.len, STG_NETBOX_BODY_MAX,
					 STG_NETBOX_BODY_MAX / 4, err);
	if (!*ret_doc)
		rc = br_errf(err, BR_E_PROTO, "NetBox GET %s: %s", url, err ? err->msg : "not JSON");
out:
	br_buf_release(&r.body);
	return rc;
}

/* Every object of a list, page by page. */
static int get_all(struct nb_client *c, const char *first_url, json_t *objects, struct br_err *err)
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

static int client_init(struct nb_client *c, const struct stg_netbox_options *o, struct br_err *err)
{
	struct br_http_options ho;
	size_t len;
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
	c->auth_header =
	    br_xasprintf("Authorization: %s %s", strncmp(o->token, "nbt_", 4) ? "Token" : "Bearer", o->token);
	br_http_options_init(&ho);
	ho.timeout_ms = o->timeout_ms > 0 ? o->timeout_ms : 30000;
	ho.retries = NB_RETRIES;
	ho.backoff_ms = 500;
	ho.backoff_max_ms = 10000;
	ho.ca_file = o->ca_file;
	ho.insecure = o->insecure;
	ho.total_inflight = 1;
	ho.body_max = STG_NETBOX_BODY_MAX;
	rc = br_loop_new(&c->loop, err);
	if (!rc)
		rc = br_http_init(&c->http, c->loop, &ho, err);
	if (!rc)
		br_http_host_init(&c->host, &c->http, &nb_ops, 1, c);
	return rc;
}

static void client_release(struct nb_client *c)
{
	if (c->http.multi) {
		br_http_host_cancel(&c->host);
		br_http_release(&c->http);
	}
	br_loop_free(c->loop);
	if (c->auth_header) {
		br_redact_remove(c->o->token);
		memset(c->auth_header, 0, strlen(c->auth_header));
	}
	free(c->auth_header);
	free(c->base);
}

/* The devices' URL: the operator's filters, each value escaped. */
static char *devices_url(const struct nb_client *c)
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
static int get_cables(struct nb_client *c, json_t *devices, json_t *cables, struct br_err *err)
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
		rc = get_all(c, br_buf_str(&b), cables, err);
		br_buf_release(&b);
	}
	return rc;
}

int stg_netbox_import(const struct stg_netbox_options *o, struct stg_netbox_import *ret,
		      struct br_strlist *ret_problems, struct br_err *err)
{
	struct stg_netbox_import imp = { 0 };
	struct nb_client c;
	json_t *devices = json_array(), *cables = json_array();
	char *url = NULL;
	int rc;

	rc = stg_netbox_query_check(o->query, err);
	if (!rc)
		rc = client_init(&c, o, err);
	else
		memset(&c, 0, sizeof(c));
	if (rc)
		goto out;
	url = devices_url(&c);
	rc = get_all(&c, url, devices, err);
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
	client_release(&c);
	stg_netbox_import_release(&imp);
	json_decref(devices);
	json_decref(cables);
	free(url);
	return rc;
}
