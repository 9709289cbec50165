/*
 * Profile files: libinih does the INI syntax; this file reads lines for it
 * (counting them, so every message carries FILE:LINE), checks what each
 * section may hold, and loads a profile directory as a whole.
 */
#define _DEFAULT_SOURCE
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include <ini.h>

#include "prof_private.h"

void prof_init(struct prof_profile *p)
{
	memset(p, 0, sizeof(*p));
	p->hw.gpus = p->hw.fabric_nics = p->hw.ethernet_nics = -1;
	p->hw.nvme = p->hw.fans = p->hw.psus = -1;
	p->hw.cpu_rated_mhz = -1;
	p->hw.gpu_power_limit_w = -1;
	p->hw.gpu_nvlinks = p->hw.gpu_nvlink_gbs = -1;
	p->hw.ib_ports = p->hw.ib_rate_gbps = -1;
	p->hw.ib_link_downed_max = p->hw.ib_link_error_recovery_max = p->hw.ib_symbol_error_max = -1;
	p->hw.ib_link_down_time_max = -1;
	p->hw.rdma_bw_gbps = -1;
	p->hw.clock_skew_max_ms = -1;
	p->hw.rtc_skew_max_ms = -1;
	p->hw.max_attempts = PROF_ATTEMPTS_DEFAULT;
	p->hw.limits.commissioning_s = PROF_COMMISSIONING_DEFAULT_S;
	p->hw.limits.deployment_s = PROF_DEPLOYMENT_DEFAULT_S;
	p->hw.limits.validation_s = PROF_VALIDATION_DEFAULT_S;
}

void prof_release(struct prof_profile *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n_bios; i++) {
		free(p->bios[i].key);
		free(p->bios[i].value);
	}
	for (size_t i = 0; i < p->n_firmware; i++) {
		free(p->firmware[i].component);
		free(p->firmware[i].min_version);
	}
	for (size_t i = 0; i < p->n_boot_disk; i++)
		free(p->boot_disk[i].value);
	free(p->bios);
	free(p->firmware);
	free(p->boot_disk);
	prof_images_release(p);
	free(p->boot_disk_file);
	free(p->pxe_nic);
	free(p->pxe_switch);
	free(p->name);
	free(p->hw.model);
	free(p->hw.ib_link_layer);
	free(p->hw.ib_firmware);
	free(p->hw.gpu_firmware);
	free(p->hw.gpu_link.speed);
	free(p->hw.fabric_link.speed);
	br_strlist_release(&p->hw.governors);
	br_strlist_release(&p->hw.gate_required);
	br_strlist_release(&p->hw.gate_optional);
	free(p->hardware_file);
	prof_init(p);
}

/* ---- the plumbing ------------------------------------------------------- */

int prof_problem(struct prof_parse *ps, const char *field, const char *fmt, ...)
{
	va_list ap;
	int n = 0;

	if (ps->err_line)
		return 0;
	ps->err_line = ps->line;
	if (field)
		n = snprintf(ps->err_msg, sizeof(ps->err_msg), "%s: ", field);
	if (n < 0 || (size_t)n >= sizeof(ps->err_msg))
		return 0;
	va_start(ap, fmt);
	vsnprintf(ps->err_msg + n, sizeof(ps->err_msg) - (size_t)n, fmt, ap);
	va_end(ap);
	return 0;
}

int prof_seen_twice(struct prof_parse *ps, const char *section, const char *name)
{
	char *key = br_xasprintf("%s.%s", section, name);
	int seen = 0;

	for (size_t i = 0; i < ps->seen.n && !seen; i++)
		seen = !strcmp(ps->seen.items[i], key);
	if (!seen)
		br_strlist_add(&ps->seen, key);
	free(key);
	return seen;
}

int prof_valid_chars(const char *s, const char *extra)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr(extra, *s))
			return 0;
	return 1;
}

static const char *sections_of(enum prof_file kind)
{
	switch (kind) {
	case PROF_FILE_BIOS:
		return "[bios] or [boot]";
	case PROF_FILE_FIRMWARE:
		return "[firmware]";
	case PROF_FILE_BOOT_DISK:
		return "none: clauses only";
	case PROF_FILE_HARDWARE:
		return prof_hw_sections;
	case PROF_FILE_IMAGES:
		return "[update] or [image NAME]";
	}
	return "";
}

static int section_is(const char *s, size_t len, const char *name)
{
	return len == strlen(name) && !memcmp(s, name, len);
}

static int section_known(enum prof_file kind, const char *s, size_t len)
{
	switch (kind) {
	case PROF_FILE_BIOS:
		return section_is(s, len, "bios") || section_is(s, len, "boot");
	case PROF_FILE_FIRMWARE:
		return section_is(s, len, "firmware");
	case PROF_FILE_BOOT_DISK:
		return 0;
	case PROF_FILE_HARDWARE:
		return prof_hw_section_known(s, len);
	case PROF_FILE_IMAGES:
		return prof_images_section_known(s, len);
	}
	return 0;
}

/* libinih calls back on entries only: a section header is judged here, so
 * the message names its own line and not the first entry below it. */
static void check_section(struct prof_parse *ps, const char *s, size_t len)
{
	const char *end = memchr(s, ']', len);
	size_t n = end ? (size_t)(end - s - 1) : 0;

	if (!end)
		return; /* inih's own syntax error */
	if (!section_known(ps->kind, s + 1, n))
		prof_problem(ps, NULL, "unknown section [%.*s] (%s)", (int)n, s + 1, sections_of(ps->kind));
}

/* inih's fgets: one line, leading blanks dropped so an indented line is a
 * line of its own and never a continuation of the previous value. */
static char *read_line(char *str, int num, void *stream)
{
	struct prof_parse *ps = stream;
	const char *s = ps->next, *nl;
	size_t len;

	if (!s || !*s)
		return NULL;
	nl = strchr(s, '\n');
	len = nl ? (size_t)(nl - s) : strlen(s);
	ps->next = nl ? nl + 1 : s + len;
	ps->line++;
	while (len && (*s == ' ' || *s == '\t'))
		s++, len--;
	if (len + 2 > (size_t)num || len > PROF_LINE_MAX) {
		prof_problem(ps, NULL, "line longer than %d characters",
			     num - 2 < PROF_LINE_MAX ? num - 2 : PROF_LINE_MAX);
		len = 0; /* an empty line: inih moves on, the problem is recorded */
	}
	if (len && *s == '[')
		check_section(ps, s, len);
	memcpy(str, s, len);
	str[len] = '\n';
	str[len + 1] = '\0';
	return str;
}

/* ---- bios.conf ------------------------------------------------------------ */

static int on_bios(struct prof_parse *ps, const char *name, const char *value)
{
	struct prof_profile *p = ps->p;
	struct br_kv *kv;

	if (!prof_valid_chars(name, "_"))
		return prof_problem(ps, name, "not a BIOS attribute name (letters, digits, '_')");
	if (!*value)
		return prof_problem(ps, name, "empty value");
	if (prof_seen_twice(ps, "bios", name))
		return prof_problem(ps, name, "set twice");
	if (p->n_bios >= PROF_ENTRIES_MAX)
		return prof_problem(ps, name, "more than %d attributes", PROF_ENTRIES_MAX);
	p->bios = br_xrealloc(p->bios, (p->n_bios + 1) * sizeof(*p->bios));
	kv = &p->bios[p->n_bios++];
	kv->key = br_xstrdup(name);
	kv->value = br_xstrdup(value);
	return 1;
}

static int on_boot(struct prof_parse *ps, const char *name, const char *value)
{
	struct prof_profile *p = ps->p;

	if (strcmp(name, "pxe_nic") && strcmp(name, "mode") && strcmp(name, "pxe_switch") &&
	    strcmp(name, "connection_view"))
		return prof_problem(ps, name,
				    "unknown setting in [boot] (pxe_nic, mode, pxe_switch, connection_view)");
	if (prof_seen_twice(ps, "boot", name))
		return prof_problem(ps, name, "set twice");
	if (!strcmp(name, "pxe_nic")) {
		if (strncmp(value, "NIC.", 4) || !prof_valid_chars(value, ".-_:"))
			return prof_problem(ps, name, "'%s' is not a NIC FQDD such as NIC.Embedded.1-1-1",
					    value);
		p->pxe_nic = br_xstrdup(value);
	} else if (!strcmp(name, "pxe_switch")) {
		if (!prof_valid_chars(value, ".-_:*?[]"))
			return prof_problem(ps, name, "'%s' is not a switch name or a shell pattern of one",
					    value);
		p->pxe_switch = br_xstrdup(value);
	} else if (!strcmp(name, "connection_view")) {
		if (strcmp(value, "enable") && strcmp(value, "leave"))
			return prof_problem(ps, name, "'%s': must be enable or leave", value);
		p->connection_view_enable = !strcmp(value, "enable");
	} else if (!strcmp(value, "persistent")) {
		p->boot_mode = PROF_BOOT_PERSISTENT;
	} else if (!strcmp(value, "once")) {
		p->boot_mode = PROF_BOOT_ONCE;
	} else {
		return prof_problem(ps, name, "'%s': must be persistent or once", value);
	}
	return 1;
}

/* ---- firmware.conf -------------------------------------------------------- */

static int on_firmware(struct prof_parse *ps, const char *name, const char *value)
{
	struct prof_profile *p = ps->p;
	struct prof_fw_rule *r;

	if (!prof_valid_chars(name, PROF_FW_COMPONENT_CHARS))
		return prof_problem(ps, name, "not a component FQDD or pattern");
	if (!prof_valid_chars(value, ".-_") || !strpbrk(value, "0123456789"))
		return prof_problem(ps, name, "'%s' is not a version", value);
	if (prof_seen_twice(ps, "firmware", name))
		return prof_problem(ps, name, "set twice");
	if (p->n_firmware >= PROF_ENTRIES_MAX)
		return prof_problem(ps, name, "more than %d rules", PROF_ENTRIES_MAX);
	p->firmware = br_xrealloc(p->firmware, (p->n_firmware + 1) * sizeof(*p->firmware));
	r = &p->firmware[p->n_firmware++];
	r->component = br_xstrdup(name);
	r->min_version = br_xstrdup(value);
	return 1;
}

/* ---- boot-disk -------------------------------------------------------------- */

/* Clauses repeat freely (model_contains = BOSS, then model_contains = M.2):
 * order is the rule. */
static int on_boot_disk(struct prof_parse *ps, const char *name, const char *value)
{
	struct prof_profile *p = ps->p;
	enum prof_disk_clause_kind kind;

	if (!strcmp(name, "model_contains"))
		kind = PROF_DISK_MODEL_CONTAINS;
	else if (!strcmp(name, "smallest"))
		kind = PROF_DISK_SMALLEST;
	else if (!strcmp(name, "volume"))
		kind = PROF_DISK_VOLUME;
	else
		return prof_problem(ps, name, "unknown clause (model_contains, smallest, volume)");
	if (!*value)
		return prof_problem(ps, name, "empty value");
	if (p->n_boot_disk >= PROF_ENTRIES_MAX)
		return prof_problem(ps, name, "more than %d clauses", PROF_ENTRIES_MAX);
	p->boot_disk = br_xrealloc(p->boot_disk, (p->n_boot_disk + 1) * sizeof(*p->boot_disk));
	p->boot_disk[p->n_boot_disk++] = (struct prof_disk_clause){ kind, br_xstrdup(value) };
	return 1;
}

static int on_entry(void *user, const char *section, const char *name, const char *value)
{
	struct prof_parse *ps = user;

	if (ps->kind == PROF_FILE_BOOT_DISK && !*section)
		return on_boot_disk(ps, name, value);
	if (!*section)
		return prof_problem(ps, name, "outside a section (%s)", sections_of(ps->kind));
	if (ps->kind == PROF_FILE_BIOS && !strcmp(section, "bios"))
		return on_bios(ps, name, value);
	if (ps->kind == PROF_FILE_BIOS && !strcmp(section, "boot"))
		return on_boot(ps, name, value);
	if (ps->kind == PROF_FILE_FIRMWARE && !strcmp(section, "firmware"))
		return on_firmware(ps, name, value);
	if (ps->kind == PROF_FILE_IMAGES && prof_images_section_known(section, strlen(section)))
		return prof_images_entry(ps, section, name, value);
	if (ps->kind == PROF_FILE_HARDWARE && prof_hw_section_known(section, strlen(section)))
		return prof_hw_entry(ps, section, name, value);
	return prof_problem(ps, NULL, "unknown section [%s] (%s)", section, sections_of(ps->kind));
}

const struct prof_fw_rule *prof_fw_rule(const struct prof_profile *p, const char *component)
{
	for (size_t i = 0; i < p->n_firmware; i++)
		if (!strcmp(p->firmware[i].component, component))
			return &p->firmware[i];
	return NULL;
}

/* A hardware.conf [SECTION] firmware names a component of firmware.conf's
 * [firmware], written exactly as there (the devices' minimum is the
 * policy's): else the profile does not load. */
static int fw_component_known(const struct prof_profile *p, const char *section, const char *component,
			      int line, const char *whose, struct br_err *err)
{
	if (!component || prof_fw_rule(p, component))
		return 0;
	return br_errf(err, BR_E_INVAL,
		       "%s:%d: %s.firmware: '%s' is no component of firmware.conf's [firmware] (the %s "
		       "minimum is the policy's)",
		       p->hardware_file, line, section, component, whose);
}

int prof_parse_text(const char *file, const char *text, enum prof_file kind, struct prof_profile *p,
		    struct br_err *err)
{
	struct prof_parse ps = { .file = file, .kind = kind, .next = text, .p = p };
	int rc = ini_parse_stream(read_line, &ps, on_entry, &ps);

	br_strlist_release(&ps.seen);
	if (rc < 0)
		return br_errf(err, BR_E_NOMEM, "%s: out of memory while parsing", file);
	/* inih reports the first bad line, ours or its own syntax error */
	if (rc > 0 && (!ps.err_line || rc < ps.err_line))
		return br_errf(err, BR_E_INVAL, "%s:%d: expected '[section]' or 'name = value'", file, rc);
	if (ps.err_line)
		return br_errf(err, BR_E_INVAL, "%s:%d: %s", file, ps.err_line, ps.err_msg);
	if (kind == PROF_FILE_IMAGES)
		return prof_images_finish(file, p, err);
	return 0;
}

/* ---- a profile directory ---------------------------------------------------- */

static int parse_file(const char *path, enum prof_file kind, struct prof_profile *p, struct br_err *err)
{
	char *text = NULL;
	size_t len = 0;
	int rc = br_read_file(path, PROF_FILE_MAX, &text, &len, err);

	if (rc)
		return rc;
	if (memchr(text, '\0', len))
		rc = br_errf(err, BR_E_INVAL, "%s: not a text file", path);
	else
		rc = prof_parse_text(path, text, kind, p, err);
	free(text);
	return rc;
}

static int exists(const char *path)
{
	FILE *f = fopen(path, "r");

	if (f)
		fclose(f);
	return f != NULL;
}

/* An optional file of the profile: parsed when present. */
static int parse_optional(const char *dir, const char *file, enum prof_file kind, struct prof_profile *p,
			  struct br_err *err)
{
	char *path = br_xasprintf("%s/%s", dir, file);
	int rc = 0;

	if (exists(path)) {
		rc = parse_file(path, kind, p, err);
		if (!rc && kind == PROF_FILE_BOOT_DISK) {
			p->boot_disk_file = path;
			path = NULL;
		} else if (!rc && kind == PROF_FILE_IMAGES) {
			p->images_file = path;
			path = NULL;
		}
	}
	free(path);
	return rc;
}

int prof_load(const char *templates_dir, const char *name, struct prof_profile *ret, struct br_err *err)
{
	char *dir;
	int rc;

	if (!name || !*name || strchr(name, '/') || name[0] == '.')
		return br_errf(err, BR_E_INVAL, "profile '%s' is not a profile name", name ? name : "");
	dir = br_xasprintf("%s/profiles/%s", templates_dir, name);
	rc = prof_load_dir(dir, name, ret, err);
	free(dir);
	return rc;
}

int prof_load_dir(const char *profile_dir, const char *name, struct prof_profile *ret, struct br_err *err)
{
	struct prof_profile p;
	char *dir = NULL, *bios = NULL;
	int rc = 0;

	prof_init(&p);
	if (!name || !*name || strchr(name, '/') || name[0] == '.') {
		rc = br_errf(err, BR_E_INVAL, "profile '%s' is not a profile name", name ? name : "");
		goto out;
	}
	dir = br_xstrdup(profile_dir);
	bios = br_xasprintf("%s/bios.conf", dir);
	if (!exists(bios)) {
		rc = br_errf(err, BR_E_NOTFOUND,
			     "profile '%s': %s not found (no such profile, or no BIOS baseline)", name, bios);
		goto out;
	}
	p.name = br_xstrdup(name);
	rc = parse_file(bios, PROF_FILE_BIOS, &p, err);
	if (!rc && p.n_bios == 0)
		rc = br_errf(err, BR_E_INVAL, "%s: no [bios] attributes", bios);
	if (!rc)
		rc = parse_optional(dir, "firmware.conf", PROF_FILE_FIRMWARE, &p, err);
	if (!rc)
		rc = parse_optional(dir, "firmware-images.conf", PROF_FILE_IMAGES, &p, err);
	if (!rc)
		rc = parse_optional(dir, "boot-disk", PROF_FILE_BOOT_DISK, &p, err);
	if (!rc) {
		p.hardware_file = br_xasprintf("%s/hardware.conf", dir);
		p.hardware_found = exists(p.hardware_file);
		rc = parse_optional(dir, "hardware.conf", PROF_FILE_HARDWARE, &p, err);
	}
	if (!rc)
		rc = fw_component_known(&p, "ib", p.hw.ib_firmware, p.hw.ib_firmware_line, "HCAs'", err);
	if (!rc)
		rc = fw_component_known(&p, "gpu", p.hw.gpu_firmware, p.hw.gpu_firmware_line, "GPUs' VBIOS",
					err);
out:
	if (rc)
		prof_release(&p);
	else
		*ret = p;
	free(dir);
	free(bios);
	return rc;
}
