/*
 * Redaction (common.h): the secrets this process submitted (BMC passwords,
 * the parts of the MAAS API key) are cut out of any text a server sent
 * back before it is kept or shown. A MAAS in debug mode, or a proxy in
 * front of it, may echo the request in its error: the power password and
 * the OAuth signature would otherwise land in reasons, events, --json and
 * stderr.
 */
#include <stdlib.h>
#include <string.h>

#include "common.h"

static struct {
	char *items[BR_REDACT_SECRETS_MAX];
	size_t n;
} secrets;

static void add_one(const char *s)
{
	if (strlen(s) < BR_REDACT_MIN || secrets.n == BR_REDACT_SECRETS_MAX)
		return;
	for (size_t i = 0; i < secrets.n; i++)
		if (!strcmp(secrets.items[i], s))
			return;
	secrets.items[secrets.n++] = br_xstrdup(s);
}

/* The secret as a form or a URL carries it: unreserved characters kept,
 * every other byte as %XX (upper and lower case hex both seen). */
static void add_percent_encoded(const char *s, int upper)
{
	const char *hex = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	struct br_buf b;

	br_buf_init(&b, 0);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
		    strchr("-._~", *p)) {
			br_buf_add(&b, p, 1);
		} else {
			char enc[3] = { '%', hex[*p >> 4], hex[*p & 15] };

			br_buf_add(&b, enc, 3);
		}
	}
	add_one(br_buf_str(&b));
	br_buf_release(&b);
}

void br_redact_add(const char *secret)
{
	if (!secret || !*secret)
		return;
	add_one(secret);
	add_percent_encoded(secret, 1);
	add_percent_encoded(secret, 0);
}

/* Longest registered secret at s, or 0. */
static size_t match_at(const char *s)
{
	size_t best = 0;

	for (size_t i = 0; i < secrets.n; i++) {
		size_t len = strlen(secrets.items[i]);

		if (len > best && !strncmp(s, secrets.items[i], len))
			best = len;
	}
	return best;
}

int br_redact_needed(const char *text)
{
	for (size_t i = 0; text && i < secrets.n; i++)
		if (strstr(text, secrets.items[i]))
			return 1;
	return 0;
}

char *br_redact(const char *text)
{
	struct br_buf b;
	const char *p;

	if (!text)
		return NULL;
	if (!br_redact_needed(text))
		return br_xstrdup(text);
	br_buf_init(&b, 0);
	for (p = text; *p;) {
		size_t m = match_at(p);

		if (m) {
			br_buf_adds(&b, BR_REDACTED);
			p += m;
		} else {
			br_buf_add(&b, p, 1);
			p++;
		}
	}
	return b.data ? br_buf_detach(&b) : br_xstrdup("");
}

void br_redact_json(json_t *doc)
{
	const char *key;
	json_t *v;
	size_t i;

	if (json_is_string(doc)) {
		if (br_redact_needed(json_string_value(doc))) {
			char *clean = br_redact(json_string_value(doc));

			json_string_set(doc, clean);
			free(clean);
		}
	} else if (json_is_object(doc)) {
		json_object_foreach(doc, key, v) br_redact_json(v);
	} else if (json_is_array(doc)) {
		json_array_foreach(doc, i, v) br_redact_json(v);
	}
}
