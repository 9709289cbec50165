/* MAAS API key, the OAuth 1.0 PLAINTEXT header and form encoding. */
#define _DEFAULT_SOURCE
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

#include "maas.h"

/* NODE_STATUS_CHOICES of src/maasserver/enum.py, by number (13 is
 * "Releasing failed", not "Failed releasing"). */
static const char *const status_names[MAAS_STATUS_COUNT] = {
	"New",
	"Commissioning",
	"Failed commissioning",
	"Missing",
	"Ready",
	"Reserved",
	"Deployed",
	"Retired",
	"Broken",
	"Deploying",
	"Allocated",
	"Failed deployment",
	"Releasing",
	"Releasing failed",
	"Disk erasing",
	"Failed disk erasing",
	"Rescue mode",
	"Entering rescue mode",
	"Failed to enter rescue mode",
	"Exiting rescue mode",
	"Failed to exit rescue mode",
	"Testing",
	"Failed testing",
};

const char *maas_status_name(int status)
{
	return status >= 0 && status < MAAS_STATUS_COUNT ? status_names[status] : "Unknown";
}

void maas_key_release(struct maas_key *key)
{
	/* Registered by maas_key_parse: a key released is no longer sent. */
	br_redact_remove(key->consumer_key);
	br_redact_remove(key->token_key);
	br_redact_remove(key->token_secret);
	free(key->consumer_key);
	free(key->token_key);
	br_secret_free(key->token_secret);
	memset(key, 0, sizeof(*key));
}

int maas_key_parse(const char *text, struct maas_key *ret_key, struct br_err *err)
{
	const char *a, *b;

	if (!text || !*text)
		return br_errf(err, BR_E_INVAL, "MAAS API key is empty (set MAAS_API_KEY or --api-key-ref)");
	a = strchr(text, ':');
	b = a ? strchr(a + 1, ':') : NULL;
	/* The key is a secret: say what is wrong with its shape, never quote it. */
	if (!a || !b || strchr(b + 1, ':') || a == text || b == a + 1 || !b[1])
		return br_errf(err, BR_E_INVAL,
			       "MAAS API key must have the form consumer_key:token_key:token_secret "
			       "(as 'maas apikey' prints it)");
	ret_key->consumer_key = br_xstrndup(text, (size_t)(a - text));
	ret_key->token_key = br_xstrndup(a + 1, (size_t)(b - a - 1));
	ret_key->token_secret = br_xstrdup(b + 1);
	/* Each part is sent (the secret as the PLAINTEXT signature); a server
	 * that echoes the request must not get any into our records. */
	br_redact_add(ret_key->consumer_key);
	br_redact_add(ret_key->token_key);
	br_redact_add(ret_key->token_secret);
	return 0;
}

int maas_form_add(struct br_buf *form, const char *name, const char *value)
{
	/* Since curl 7.82 the handle argument is unused and may be NULL. */
	char *n = curl_easy_escape(NULL, name, 0);
	char *v = curl_easy_escape(NULL, value ? value : "", 0);
	int rc;

	if (!n || !v)
		rc = BR_E_NOMEM;
	else
		rc = br_buf_addf(form, "%s%s=%s", form->len ? "&" : "", n, v);
	curl_free(n);
	curl_free(v);
	return rc;
}

int maas_oauth_header(const struct maas_key *key, const char *nonce, int64_t timestamp, struct br_buf *out)
{
	/* PLAINTEXT signs with "consumer_secret&token_secret"; MAAS keys have
	 * an empty consumer secret, and the signature is itself
	 * percent-encoded, so "&" travels as "%26". */
	char *ck = curl_easy_escape(NULL, key->consumer_key, 0);
	char *tk = curl_easy_escape(NULL, key->token_key, 0);
	char *ts = curl_easy_escape(NULL, key->token_secret, 0);
	int rc = BR_E_NOMEM;

	if (ck && tk && ts)
		rc = br_buf_addf(out,
				 "OAuth oauth_version=\"1.0\", oauth_signature_method=\"PLAINTEXT\", "
				 "oauth_consumer_key=\"%s\", oauth_token=\"%s\", oauth_signature=\"%%26%s\", "
				 "oauth_nonce=\"%s\", oauth_timestamp=\"%lld\"",
				 ck, tk, ts, nonce, (long long)timestamp);
	curl_free(ck);
	curl_free(tk);
	if (ts) {
		explicit_bzero(ts, strlen(ts));
		curl_free(ts);
	}
	return rc;
}
