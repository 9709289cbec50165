/* The boot disk: which discovered drive or RAID volume the profile's rule
 * puts the OS on, and how that choice is recognised among the block
 * devices the OS (and MAAS, which records what the OS reports) shows. */
#define _DEFAULT_SOURCE
#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "rules.h"

/* One thing the OS could be installed on: a drive the OS sees, or a
 * volume standing in for its member drives. */
struct candidate {
	const struct br_drive *drive;
	const struct br_volume *volume;
};

static const char *cand_identity(const struct candidate *c)
{
	return c->volume ? c->volume->durable_name : c->drive->serial;
}

static uint64_t cand_capacity(const struct candidate *c)
{
	return c->volume ? c->volume->capacity_bytes : c->drive->capacity_bytes;
}

/* A member of a RAID volume is hidden from the OS behind the volume (a
 * BOSS card shows one virtual disk, not its two M.2 drives): it can never
 * be the boot disk itself. */
static int drive_matches(const struct prof_disk_clause *c, const struct br_hw *hw, const struct br_drive *d)
{
	if (br_hw_volume_of_drive(hw, d->id))
		return 0;
	switch (c->kind) {
	case PROF_DISK_MODEL_CONTAINS:
		return br_contains_nocase(d->model, c->value);
	case PROF_DISK_SMALLEST:
		return !strcasecmp(c->value, "any") || (d->protocol && !strcasecmp(d->protocol, c->value));
	case PROF_DISK_VOLUME:
		return 0;
	}
	return 0;
}

/* model_contains also names a volume by its controller or name: the BMC
 * shows the boot controller as "BOSS.SL.14-1" while the volume's members
 * are plain M.2 drives. */
static int volume_matches(const struct prof_disk_clause *c, const struct br_volume *v)
{
	switch (c->kind) {
	case PROF_DISK_MODEL_CONTAINS:
		return br_contains_nocase(v->controller, c->value) || br_contains_nocase(v->name, c->value);
	case PROF_DISK_SMALLEST:
		return 0;
	case PROF_DISK_VOLUME:
		return !strcasecmp(c->value, "any") || (v->raid_type && !strcasecmp(v->raid_type, c->value));
	}
	return 0;
}

static void consider(struct candidate *best, struct candidate c)
{
	const char *id = cand_identity(&c);

	if (!id || !*id)
		return;
	if (!best->drive && !best->volume) {
		*best = c;
		return;
	}
	if (cand_capacity(&c) < cand_capacity(best) ||
	    (cand_capacity(&c) == cand_capacity(best) && strcmp(id, cand_identity(best)) < 0))
		*best = c;
}

/* Smallest match with an identity, then the lowest identity. */
static struct candidate pick(const struct br_hw *hw, const struct prof_disk_clause *c)
{
	struct candidate best = { 0 };

	for (size_t i = 0; i < hw->n_drives; i++)
		if (drive_matches(c, hw, &hw->drives[i]))
			consider(&best, (struct candidate){ &hw->drives[i], NULL });
	for (size_t i = 0; i < hw->n_volumes; i++)
		if (volume_matches(c, &hw->volumes[i]))
			consider(&best, (struct candidate){ NULL, &hw->volumes[i] });
	return best;
}

static const char *clause_name(enum prof_disk_clause_kind kind)
{
	switch (kind) {
	case PROF_DISK_MODEL_CONTAINS:
		return "model_contains";
	case PROF_DISK_SMALLEST:
		return "smallest";
	case PROF_DISK_VOLUME:
		return "volume";
	}
	return "?";
}

static char *volume_why(const struct prof_disk_clause *c, const struct br_volume *v)
{
	struct br_buf b;

	br_buf_init(&b, 256);
	br_buf_addf(&b, "%s = %s: the BMC's volume %s on %s (%s of ", clause_name(c->kind), c->value,
		    v->id ? v->id : "?", v->controller ? v->controller : "?",
		    v->raid_type ? v->raid_type : "RAID");
	for (size_t k = 0; k < v->n_drive_ids; k++)
		br_buf_addf(&b, "%s%s", k ? " and " : "", v->drive_ids[k]);
	if (!v->n_drive_ids)
		br_buf_adds(&b, "drives it does not list");
	br_buf_addf(&b, ", identity %s %s)", v->durable_name_format ? v->durable_name_format : "DurableName",
		    v->durable_name);
	return br_buf_detach(&b);
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
		struct candidate best = pick(hw, c);

		if (best.volume) {
			*ret_serial = br_xstrdup(best.volume->durable_name);
			*ret_why = volume_why(c, best.volume);
			return 0;
		}
		if (best.drive) {
			*ret_serial = br_xstrdup(best.drive->serial);
			*ret_why =
			    br_xasprintf("%s = %s: %s (%s)", clause_name(c->kind), c->value,
					 best.drive->serial, best.drive->model ? best.drive->model : "?");
			return 0;
		}
	}
	return br_errf(err, BR_E_NOTFOUND,
		       "no drive or volume matches the boot-disk rule %s (%zu drives, %zu volumes from "
		       "discovery)",
		       p->boot_disk_file, hw->n_drives, hw->n_volumes);
}

/* An identity as the OS or a BMC may print it: blanks around it, a
 * format prefix ("naa.", "eui.", "0x"), either case. */
static const char *identity_start(const char *s, size_t *ret_len)
{
	size_t n;

	while (isspace((unsigned char)*s))
		s++;
	if (!strncasecmp(s, "naa.", 4) || !strncasecmp(s, "eui.", 4))
		s += 4;
	else if (!strncasecmp(s, "0x", 2))
		s += 2;
	n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	*ret_len = n;
	return s;
}

static int identity_eq(const char *a, const char *b)
{
	size_t la, lb;

	if (!a || !b)
		return 0;
	a = identity_start(a, &la);
	b = identity_start(b, &lb);
	return la && la == lb && !strncasecmp(a, b, la);
}

int val_disk_identity_eq(const char *want, const char *serial, const char *id_path)
{
	const char *base, *tail;

	if (!want || !*want)
		return 0;
	if (identity_eq(want, serial))
		return 1;
	if (!id_path)
		return 0;
	/* udev's names: wwn-0x<WWN> for a device with a world-wide name, and
	 * <bus>-<model>_<serial> ("ata-DELLBOSS_VD_<serial>",
	 * "nvme-Dell_BOSS-N1_<serial>"). */
	base = strrchr(id_path, '/');
	base = base ? base + 1 : id_path;
	if (!strncmp(base, "wwn-", 4) && identity_eq(want, base + 4))
		return 1;
	tail = strrchr(base, '_');
	return tail && identity_eq(want, tail + 1);
}
