/* urlset — the URLs one BMC walk has already requested, so that a resource
 * linked from two places (a PCIe device under the System and the Chassis)
 * is read once, and a nextLink loop ends. Open addressing, FNV-1a. */
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

int rf_urlset_add(struct rf_urlset *s, const char *url)
{
	if (s->cap) {
		for (size_t i = (size_t)fnv1a(url) & (s->cap - 1); s->slots[i];
		     i = (i + 1) & (s->cap - 1))
			if (!strcmp(s->slots[i], url))
				return 0;
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
	insert(s->slots, s->cap, br_xstrdup(url));
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
