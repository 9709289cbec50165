/* The profile's boot-disk rule (templates/profiles/NAME/boot-disk). */
#define _DEFAULT_SOURCE
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "enlist.h"

static int contains_nocase(const char *hay, const char *needle)
{
	size_t n = strlen(needle);

	for (; hay && *hay; hay++)
		if (!strncasecmp(hay, needle, n))
			return 1;
	return 0;
}

/* Smallest matching drive with a serial, then the lowest serial. */
static const struct br_drive *pick(const struct br_hw *hw, const char *key, const char *value)
{
	const struct br_drive *best = NULL;

	for (size_t i = 0; i < hw->n_drives; i++) {
		const struct br_drive *d = &hw->drives[i];

		if (!d->serial || !*d->serial)
			continue;
		if (!strcmp(key, "model_contains") && !contains_nocase(d->model, value))
			continue;
		if (!strcmp(key, "smallest") && strcasecmp(value, "any") &&
		    (!d->protocol || strcasecmp(d->protocol, value)))
			continue;
		if (!best || d->capacity_bytes < best->capacity_bytes ||
		    (d->capacity_bytes == best->capacity_bytes && strcmp(d->serial, best->serial) < 0))
			best = d;
	}
	return best;
}

static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		*--e = '\0';
	return s;
}

int enlist_pick_boot_disk(const char *rule_path, const struct br_hw *hw, char **ret_serial, char **ret_why,
			  struct br_err *err)
{
	char *text = NULL, *line, *next;
	size_t len;
	int rc, lineno = 0;

	rc = br_read_file(rule_path, ENLIST_RULE_MAX, &text, &len, err);
	if (rc)
		return br_err_prefix(err, "boot-disk rule");
	rc = br_errf(err, BR_E_NOTFOUND, "no drive matches the boot-disk rule %s (%zu drives from discovery)",
		     rule_path, hw->n_drives);
	for (line = text; line; line = next) {
		const struct br_drive *d;
		char *eq, *key, *value;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		key = trim(line);
		if (!*key || *key == '#')
			continue;
		eq = strchr(key, '=');
		if (!eq) {
			rc = br_errf(err, BR_E_INVAL, "%s:%d: expected 'key = value'", rule_path, lineno);
			break;
		}
		*eq = '\0';
		key = trim(key);
		value = trim(eq + 1);
		if (strcmp(key, "model_contains") && strcmp(key, "smallest")) {
			rc = br_errf(err, BR_E_INVAL, "%s:%d: unknown clause '%s'", rule_path, lineno, key);
			break;
		}
		d = pick(hw, key, value);
		if (d) {
			*ret_serial = br_xstrdup(d->serial);
			*ret_why = br_xasprintf("%s = %s: %s (%s)", key, value, d->serial, d->model ? d->model : "?");
			rc = 0;
			break;
		}
	}
	free(text);
	return rc;
}
