/* Groups targets belong to by name (common.h): numbering them
 * (br_groups_number: a rack, a power domain), and a zone among a list
 * (br_zones_have). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

struct group_key {
	const char *name;
	size_t slot;
};

static int group_key_cmp(const void *a, const void *b)
{
	const struct group_key *x = a, *y = b;

	return strcmp(x->name, y->name);
}

size_t br_groups_number(size_t n, const char *(*name_of)(size_t i, const void *ctx), const void *ctx,
			size_t *group_of, size_t stride)
{
	struct group_key *keys = br_xcalloc(n + 1, sizeof(*keys));
	size_t n_keys = 0, n_groups = 0;

	for (size_t i = 0; i < n; i++) {
		const char *name = name_of(i, ctx);

		group_of[i * stride] = SIZE_MAX;
		if (name && *name)
			keys[n_keys++] = (struct group_key){ name, i * stride };
	}
	qsort(keys, n_keys, sizeof(*keys), group_key_cmp);
	for (size_t j = 0; j < n_keys; j++) {
		if (j && group_key_cmp(&keys[j - 1], &keys[j]))
			n_groups++;
		group_of[keys[j].slot] = n_groups;
	}
	free(keys);
	return n_keys ? n_groups + 1 : 0;
}

int br_zones_have(const char *zones, const char *zone)
{
	size_t len;

	if (!zones)
		return 1;
	if (!zone || !*zone)
		return 0;
	len = strlen(zone);
	for (const char *p = zones; *p;) {
		size_t item = strcspn(p, ",");

		if (item == len && !strncmp(p, zone, len))
			return 1;
		if (!p[item])
			break;
		p += item + 1;
	}
	return 0;
}
