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

/*
 * The table grows with the secrets (a password per BMC of a rack of any size,
 * and its encodings): nothing registered is ever dropped. Each secret is
 * counted, so one that is registered again and removed once (a MAAS key
 * parsed twice) stays. To keep redaction linear in the text whatever the
 * table holds, secrets are chained by their first two bytes: a position is
 * compared only with the secrets that start as it does.
 */
struct secret {
	char *text;
	size_t len;
	unsigned refs;
	size_t next; /* index + 1 of the next secret of this bucket, 0 ends */
};

#define BUCKETS 65536

static struct {
	struct secret *items;
	size_t n, cap;
	size_t *head; /* BUCKETS heads, index + 1, 0 empty */
} secrets;

static unsigned bucket_of(const char *s)
{
	return (unsigned)(unsigned char)s[0] << 8 | (unsigned char)s[1];
}

static struct secret *find(const char *s)
{
	if (!secrets.head)
		return NULL;
	for (size_t i = secrets.head[bucket_of(s)]; i; i = secrets.items[i - 1].next)
		if (!strcmp(secrets.items[i - 1].text, s))
			return &secrets.items[i - 1];
	return NULL;
}

static void add_one(const char *s)
{
	struct secret *e;
	unsigned b;

	if (strlen(s) < BR_REDACT_MIN)
		return;
	e = find(s);
	if (e) {
		e->refs++;
		return;
	}
	if (!secrets.head)
		secrets.head = br_xcalloc(BUCKETS, sizeof(*secrets.head));
	if (secrets.n == secrets.cap) {
		secrets.cap = secrets.cap ? 2 * secrets.cap : 64;
		secrets.items = br_xrealloc(secrets.items, secrets.cap * sizeof(*secrets.items));
	}
	b = bucket_of(s);
	secrets.items[secrets.n] =
	    (struct secret){ .text = br_xstrdup(s), .len = strlen(s), .refs = 1, .next = secrets.head[b] };
	secrets.head[b] = ++secrets.n;
}

/* The link (a bucket's head or an item's next) that holds index + 1 of
 * item i in its bucket's chain. */
static size_t *link_to(size_t i)
{
	size_t *link = &secrets.head[bucket_of(secrets.items[i].text)];

	while (*link != i + 1)
		link = &secrets.items[*link - 1].next;
	return link;
}

/* One reference fewer; the last one takes the secret out of the table: it
 * is unlinked from its chain and the last item moves into its slot. */
static void remove_one(const char *s)
{
	struct secret *e = strlen(s) >= BR_REDACT_MIN ? find(s) : NULL;
	size_t at, last;

	if (!e || --e->refs)
		return;
	at = (size_t)(e - secrets.items);
	last = secrets.n - 1;
	*link_to(at) = e->next;
	br_secret_free(e->text);
	if (at != last) {
		*link_to(last) = at + 1;
		secrets.items[at] = secrets.items[last];
	}
	secrets.n--;
}

/* The secret as a form or a URL carries it: unreserved characters kept,
 * every other byte as %XX (upper and lower case hex both seen). */
static void percent_encoded(const char *s, int upper, void (*apply)(const char *))
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
	apply(br_buf_str(&b));
	br_buf_release(&b);
}

void br_redact_add(const char *secret)
{
	if (!secret || !*secret)
		return;
	add_one(secret);
	percent_encoded(secret, 1, add_one);
	percent_encoded(secret, 0, add_one);
}

void br_redact_remove(const char *secret)
{
	if (!secret || !*secret)
		return;
	remove_one(secret);
	percent_encoded(secret, 1, remove_one);
	percent_encoded(secret, 0, remove_one);
}

/* Longest registered secret at s, or 0. */
static size_t match_at(const char *s)
{
	size_t best = 0;

	if (!secrets.n || !s[0] || !s[1])
		return 0;
	for (size_t i = secrets.head[bucket_of(s)]; i; i = secrets.items[i - 1].next) {
		const struct secret *e = &secrets.items[i - 1];

		if (e->len > best && !strncmp(s, e->text, e->len))
			best = e->len;
	}
	return best;
}

int br_redact_needed(const char *text)
{
	for (const char *p = text; p && secrets.n && *p; p++)
		if (match_at(p))
			return 1;
	return 0;
}

size_t br_redact_count(void)
{
	return secrets.n;
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
