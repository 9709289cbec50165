/* URLs that carry credentials (http.h, br_url_masked): a webhook's
 * http://user:pw@host/hook?token=... is shown and logged with the
 * credentials masked. libcurl's URL API does the parsing; only the query's
 * name=value pairs, which RFC 3986 leaves to the application, are split
 * here. */
#include <stdlib.h>
#include <string.h>

#include "http.h"

/* The query with every value masked: "a=1&b" -> "a=<redacted>&b". */
static char *query_masked(const char *query)
{
	struct br_buf b;

	br_buf_init(&b, 0);
	while (*query) {
		size_t len = strcspn(query, "&"), name = strcspn(query, "=");

		if (name < len)
			br_buf_addf(&b, "%.*s=%s", (int)name, query, BR_REDACTED);
		else
			br_buf_addf(&b, "%.*s", (int)len, query);
		query += len;
		if (*query == '&') {
			br_buf_adds(&b, "&");
			query++;
		}
	}
	return br_buf_detach(&b);
}

static const CURLUPart userinfo[] = { CURLUPART_USER, CURLUPART_PASSWORD };

static CURLU *parsed(const char *url)
{
	CURLU *u = curl_url();

	if (u && curl_url_set(u, CURLUPART_URL, url, CURLU_NON_SUPPORT_SCHEME) != CURLUE_OK) {
		curl_url_cleanup(u);
		u = NULL;
	}
	return u;
}

static char *part(CURLU *u, CURLUPart which)
{
	char *v = NULL;

	return curl_url_get(u, which, &v, 0) == CURLUE_OK ? v : NULL;
}

char *br_url_masked(const char *url)
{
	CURLU *u = url ? parsed(url) : NULL;
	char *query, *masked = NULL, *out;

	if (!u)
		return br_xstrdup("(a URL that cannot be parsed)");
	if ((query = part(u, CURLUPART_QUERY))) {
		masked = query_masked(query);
		curl_free(query);
	}
	if ((query = part(u, CURLUPART_USER))) {
		curl_free(query);
		curl_url_set(u, CURLUPART_USER, BR_REDACTED, 0);
	}
	if ((query = part(u, CURLUPART_PASSWORD))) {
		curl_free(query);
		curl_url_set(u, CURLUPART_PASSWORD, BR_REDACTED, 0);
	}
	/* set as is: masking must not percent-encode the names */
	curl_url_set(u, CURLUPART_QUERY, masked, 0);
	free(masked);
	query = part(u, CURLUPART_URL);
	out = br_xstrdup(query ? query : "(a URL that cannot be parsed)");
	curl_free(query);
	curl_url_cleanup(u);
	return out;
}

int br_url_has_credentials(const char *url)
{
	CURLU *u = url ? parsed(url) : NULL;
	int has = 0;

	if (!u)
		return 0;
	for (size_t i = 0; i < sizeof(userinfo) / sizeof(userinfo[0]); i++) {
		char *v = part(u, userinfo[i]);

		has |= v != NULL;
		curl_free(v);
	}
	{
		char *q = part(u, CURLUPART_QUERY);

		has |= q != NULL;
		curl_free(q);
	}
	curl_url_cleanup(u);
	return has;
}

/* Each userinfo part and query value of url, to fn. */
static void each_secret(const char *url, void (*fn)(const char *secret))
{
	CURLU *u = url ? parsed(url) : NULL;
	char *v;

	if (!u)
		return;
	for (size_t i = 0; i < sizeof(userinfo) / sizeof(userinfo[0]); i++)
		if ((v = part(u, userinfo[i]))) {
			fn(v);
			curl_free(v);
		}
	if ((v = part(u, CURLUPART_QUERY))) {
		for (char *s = v; *s;) {
			size_t len = strcspn(s, "&"), name = strcspn(s, "=");

			if (name < len) {
				char *value = br_xstrndup(s + name + 1, len - name - 1);

				fn(value);
				free(value);
			}
			s += len;
			if (*s == '&')
				s++;
		}
		curl_free(v);
	}
	curl_url_cleanup(u);
}

void br_url_redact(const char *url)
{
	each_secret(url, br_redact_add);
}

void br_url_unredact(const char *url)
{
	each_secret(url, br_redact_remove);
}
