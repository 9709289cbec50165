/*
 * The firmware catalogue, firmware-images.conf: which image updates which
 * component on which models, to what version, from which file with which
 * SHA-256. Only what the file says is read here; whether a node needs an
 * image, and whether the file still has that hash, is the firmware stage's.
 */
#define _DEFAULT_SOURCE
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "prof_private.h"

static const char *const class_names[] = {
	[PROF_FW_BMC] = "bmc",	   [PROF_FW_BIOS] = "bios", [PROF_FW_NIC] = "nic",     [PROF_FW_GPU] = "gpu",
	[PROF_FW_DRIVE] = "drive", [PROF_FW_CPLD] = "cpld", [PROF_FW_OTHER] = "other",
};

const char *prof_fw_class_name(enum prof_fw_class c)
{
	return (size_t)c < sizeof(class_names) / sizeof(class_names[0]) ? class_names[c] : "other";
}

int prof_fw_class_parse(const char *name, enum prof_fw_class *ret)
{
	for (size_t i = 0; i < sizeof(class_names) / sizeof(class_names[0]); i++)
		if (!strcmp(class_names[i], name)) {
			*ret = (enum prof_fw_class)i;
			return 0;
		}
	return BR_E_INVAL;
}

void prof_images_release(struct prof_profile *p)
{
	for (size_t i = 0; i < p->n_images; i++) {
		struct prof_fw_image *im = &p->images[i];

		free(im->name);
		free(im->component);
		br_strlist_release(&im->models);
		free(im->version);
		free(im->file);
		free(im->sha256);
		free(im->compsig);
		free(im->compsig_sha256);
	}
	free(p->images);
	free(p->images_file);
	p->images = NULL;
	p->n_images = 0;
	p->images_file = NULL;
}

int prof_images_section_known(const char *s, size_t len)
{
	return (len == 6 && !memcmp(s, "update", 6)) || (len > 6 && !memcmp(s, "image ", 6));
}

static int is_hex64(const char *s)
{
	size_t n = 0;

	for (; s[n]; n++)
		if (!isxdigit((unsigned char)s[n]) || isupper((unsigned char)s[n]))
			return 0;
	return n == 64;
}

/* The image the section names, made on its first entry. */
static struct prof_fw_image *image_of(struct prof_parse *ps, const char *name)
{
	struct prof_profile *p = ps->p;
	struct prof_fw_image *im;

	if (p->n_images && !strcmp(p->images[p->n_images - 1].name, name))
		return &p->images[p->n_images - 1];
	for (size_t i = 0; i < p->n_images; i++)
		if (!strcmp(p->images[i].name, name)) {
			prof_problem(ps, NULL, "[image %s] given twice (first on line %d)", name,
				     p->images[i].line);
			return NULL;
		}
	if (p->n_images >= PROF_ENTRIES_MAX) {
		prof_problem(ps, NULL, "more than %d images", PROF_ENTRIES_MAX);
		return NULL;
	}
	if (!prof_valid_chars(name, ".-_")) {
		prof_problem(ps, NULL, "[image %s]: a name of letters, digits, '.', '-' and '_'", name);
		return NULL;
	}
	p->images = br_xrealloc(p->images, (p->n_images + 1) * sizeof(*p->images));
	im = &p->images[p->n_images++];
	memset(im, 0, sizeof(*im));
	im->name = br_xstrdup(name);
	im->fw_class = PROF_FW_OTHER;
	im->line = ps->line;
	return im;
}

static int set_once(struct prof_parse *ps, const char *section, const char *name, char **field,
		    const char *value)
{
	if (prof_seen_twice(ps, section, name))
		return prof_problem(ps, name, "set twice");
	*field = br_xstrdup(value);
	return 1;
}

static int on_models(struct prof_parse *ps, struct prof_fw_image *im, const char *value)
{
	const char *p = value;

	while (*p) {
		size_t n = strcspn(p, ",");
		char *m = br_xstrndup(p, n);
		char *s = m, *e;

		while (*s == ' ')
			s++;
		e = s + strlen(s);
		while (e > s && e[-1] == ' ')
			*--e = '\0';
		if (*s)
			br_strlist_add(&im->models, s);
		free(m);
		p += n + (p[n] == ',');
	}
	if (!im->models.n)
		return prof_problem(ps, "models", "no model named");
	return 1;
}

int prof_images_entry(struct prof_parse *ps, const char *section, const char *name, const char *value)
{
	struct prof_profile *p = ps->p;
	struct prof_fw_image *im;

	if (!strcmp(section, "update")) {
		int *limit;
		long v;

		if (!strcmp(name, "max_per_rack"))
			limit = &p->fw_max_per_rack;
		else if (!strcmp(name, "max_per_power_domain"))
			limit = &p->fw_max_per_power_domain;
		else
			return prof_problem(
			    ps, name, "unknown setting of [update] (max_per_rack, max_per_power_domain)");
		if (br_parse_long(value, 1, PROF_COUNT_MAX, &v))
			return prof_problem(ps, name, "'%s' is not a count from 1 to %d", value,
					    PROF_COUNT_MAX);
		if (prof_seen_twice(ps, section, name))
			return prof_problem(ps, name, "set twice");
		*limit = (int)v;
		return 1;
	}
	if (!(im = image_of(ps, section + 6)))
		return 0;
	if (!strcmp(name, "component")) {
		if (!prof_valid_chars(value, ".-_:*?[]"))
			return prof_problem(ps, name, "'%s' is not a component FQDD or pattern", value);
		return set_once(ps, section, name, &im->component, value);
	}
	if (!strcmp(name, "class")) {
		if (prof_seen_twice(ps, section, name))
			return prof_problem(ps, name, "set twice");
		if (prof_fw_class_parse(value, &im->fw_class))
			return prof_problem(ps, name, "'%s' is not bmc, bios, nic, gpu, drive, cpld or other",
					    value);
		return 1;
	}
	if (!strcmp(name, "models")) {
		if (prof_seen_twice(ps, section, name))
			return prof_problem(ps, name, "set twice");
		return on_models(ps, im, value);
	}
	if (!strcmp(name, "version")) {
		if (!prof_valid_chars(value, ".-_") || !strpbrk(value, "0123456789"))
			return prof_problem(ps, name, "'%s' is not a version", value);
		return set_once(ps, section, name, &im->version, value);
	}
	if (!strcmp(name, "file")) {
		if (!*value)
			return prof_problem(ps, name, "empty");
		return set_once(ps, section, name, &im->file, value);
	}
	if (!strcmp(name, "sha256") || !strcmp(name, "compsig_sha256")) {
		if (!is_hex64(value))
			return prof_problem(ps, name, "not 64 lowercase hexadecimal digits");
		return set_once(ps, section, name, name[0] == 's' ? &im->sha256 : &im->compsig_sha256, value);
	}
	if (!strcmp(name, "compsig")) {
		if (!*value)
			return prof_problem(ps, name, "empty");
		return set_once(ps, section, name, &im->compsig, value);
	}
	return prof_problem(ps, name,
			    "unknown setting of an image (component, class, models, version, file, sha256, "
			    "compsig, compsig_sha256)");
}

int prof_images_finish(const char *file, struct prof_profile *p, struct br_err *err)
{
	const char *slash = strrchr(file, '/');
	size_t dir_len = slash ? (size_t)(slash - file) : 1;

	for (size_t i = 0; i < p->n_images; i++) {
		struct prof_fw_image *im = &p->images[i];
		const char *missing = !im->component			   ? "component"
				      : !im->models.n			   ? "models"
				      : !im->version			   ? "version"
				      : !im->file			   ? "file"
				      : !im->sha256			   ? "sha256"
				      : im->compsig && !im->compsig_sha256 ? "compsig_sha256"
				      : !im->compsig && im->compsig_sha256 ? "compsig"
									   : NULL;

		if (missing)
			return br_errf(err, BR_E_INVAL, "%s:%d: [image %s]: %s: not set", file, im->line,
				       im->name, missing);
		for (char **path = &im->file; path; path = path == &im->file ? &im->compsig : NULL) {
			char *abs;

			if (!*path || (*path)[0] == '/')
				continue;
			abs = br_xasprintf("%.*s/%s", (int)dir_len, slash ? file : ".", *path);
			free(*path);
			*path = abs;
		}
	}
	return 0;
}
