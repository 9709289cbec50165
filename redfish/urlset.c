/* urlset — the URLs one BMC walk has already requested, so that a resource
 * linked from two places (a PCIe device under the System and the Chassis)
 * is read once, and a nextLink loop ends. Open addressing, FNV-1a.
 * URLs are compared as Redfish ids: without a trailing '/' and case-blind,
 * since iLO writes "/redfish/v1/Systems/1/" in one place and
 * "/redfish/v1/systems/1" in another for the same resource. */
#include <stdlib.h>
#include <string.h>

#include "rf_private.h"

static uint64_t fnv1a(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}

static void insert(char **slots, size_t cap, char *url)
{
	size_t i = (size_t)fnv1a(url) & (cap - 1);

	while (slots[i])
		i = (i + 1) & (cap - 1);
	slots[i] = url;
}

/* The key a URL is kept under: lower case, no '/' before the query or end. */
static char *url_key(const char *url)
{
	const char *q = strchr(url, '?');
	size_t n = q ? (size_t)(q - url) : strlen(url), m;
	char *key;

	m = n;
	while (m > 1 && url[m - 1] == '/')
		m--;
	key = br_xasprintf("%.*s%s", (int)m, url, url + n);
	for (char *p = key; *p; p++)
		if (*p >= 'A' && *p <= 'Z')
			*p = (char)(*p - 'A' + 'a');
	return key;
}

int rf_urlset_add(struct rf_urlset *s, const char *raw)
{
	char *url = url_key(raw);

	if (s->cap) {
		for (size_t i = (size_t)fnv1a(url) & (s->cap - 1); s->slots[i]; i = (i + 1) & (s->cap - 1))
			if (!strcmp(s->slots[i], url)) {
				free(url);
				return 0;
			}
	}
	if ((s->n + 1) * 2 > s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		char **slots = br_xcalloc(cap, sizeof(*slots));

		for (size_t i = 0; i < s->cap; i++)
			if (s->slots[i])
				insert(slots, cap, s->slots[i]);
		free(s->slots);
		s->slots = slots;
		s->cap = cap;
	}
	insert(s->slots, s->cap, url);
	s->n++;
	return 1;
}

void rf_urlset_release(struct rf_urlset *s)
{
	for (size_t i = 0; i < s->cap; i++)
		free(s->slots[i]);
	free(s->slots);
	memset(s, 0, sizeof(*s));
}
