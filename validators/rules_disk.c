/* The boot disk: which discovered drive the profile's rule puts the OS on. */
#define _DEFAULT_SOURCE
#include <string.h>
#include <strings.h>

#include "rules.h"

static int matches(const struct prof_disk_clause *c, const struct br_drive *d)
{
	switch (c->kind) {
	case PROF_DISK_MODEL_CONTAINS:
		return br_contains_nocase(d->model, c->value);
	case PROF_DISK_SMALLEST:
		return !strcasecmp(c->value, "any") || (d->protocol && !strcasecmp(d->protocol, c->value));
	}
	return 0;
}

/* Smallest matching drive with a serial, then the lowest serial. */
static const struct br_drive *pick(const struct br_hw *hw, const struct prof_disk_clause *c)
{
	const struct br_drive *best = NULL;

	for (size_t i = 0; i < hw->n_drives; i++) {
		const struct br_drive *d = &hw->drives[i];

		if (!d->serial || !*d->serial || !matches(c, d))
			continue;
		if (!best || d->capacity_bytes < best->capacity_bytes ||
		    (d->capacity_bytes == best->capacity_bytes && strcmp(d->serial, best->serial) < 0))
			best = d;
	}
	return best;
}

static const char *clause_name(enum prof_disk_clause_kind kind)
{
	return kind == PROF_DISK_MODEL_CONTAINS ? "model_contains" : "smallest";
}

int val_pick_boot_disk(const struct prof_profile *p, const struct br_hw *hw, char **ret_serial,
		       char **ret_why, struct br_err *err)
{
	if (!p->boot_disk_file)
		return br_errf(err, BR_E_NOTFOUND,
			       "profile '%s' has no boot-disk rule (templates/profiles/%s/boot-disk); set "
			       "boot_disk_serial in the manifest",
			       p->name ? p->name : "?", p->name ? p->name : "NAME");
	for (size_t i = 0; i < p->n_boot_disk; i++) {
		const struct prof_disk_clause *c = &p->boot_disk[i];
		const struct br_drive *d = pick(hw, c);

		if (d) {
			*ret_serial = br_xstrdup(d->serial);
			*ret_why = br_xasprintf("%s = %s: %s (%s)", clause_name(c->kind), c->value, d->serial,
						d->model ? d->model : "?");
			return 0;
		}
	}
	return br_errf(err, BR_E_NOTFOUND,
		       "no drive matches the boot-disk rule %s (%zu drives from discovery)",
		       p->boot_disk_file, hw->n_drives);
}
