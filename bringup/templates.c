/*
 * Profile templates: libinih does the INI syntax; this file reads lines for
 * it (counting them, so every message carries FILE:LINE), checks what each
 * section may hold, and judges firmware against the policy.
 */
#define _DEFAULT_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <ini.h>

#include "templates.h"

void br_tpl_profile_release(struct br_tpl_profile *p)
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
	free(p->bios);
	free(p->firmware);
	free(p->pxe_nic);
	free(p->name);
	memset(p, 0, sizeof(*p));
}

/* ---- parsing ------------------------------------------------------------ */

struct parse {
	const char *file;
	const char *kind; /* "bios" or "firmware" */
	const char *next; /* unread text */
	int line;         /* lines handed to inih so far */
	int err_line;     /* first problem this file found itself, 0: none */
	char err_msg[256];
	struct br_tpl_profile *p;
	int have_pxe_nic, have_mode;
};

static int problem(struct parse *ps, const char *fmt, ...) BR_PRINTF(2, 3);
static int problem(struct parse *ps, const char *fmt, ...)
{
	va_list ap;

	if (!ps->err_line) {
		ps->err_line = ps->line;
		va_start(ap, fmt);
		vsnprintf(ps->err_msg, sizeof(ps->err_msg), fmt, ap);
		va_end(ap);
	}
	return 0; /* tells inih this line is bad */
}

static const char *sections_of(const struct parse *ps)
{
	return !strcmp(ps->kind, "bios") ? "[bios] or [boot]" : "[firmware]";
}

/* libinih calls back on entries only: a section header is judged here, so
 * the message names its own line and not the first entry below it. */
static void check_section(struct parse *ps, const char *s, size_t len)
{
	const char *end = memchr(s, ']', len);
	size_t n = end ? (size_t)(end - s - 1) : 0;
	int bios_file = !strcmp(ps->kind, "bios");

	if (!end)
		return; /* inih's own syntax error */
	if (bios_file && ((n == 4 && !memcmp(s + 1, "bios", 4)) || (n == 4 && !memcmp(s + 1, "boot", 4))))
		return;
	if (!bios_file && n == 8 && !memcmp(s + 1, "firmware", 8))
		return;
	problem(ps, "unknown section [%.*s] (%s)", (int)n, s + 1, sections_of(ps));
}

/* inih's fgets: one line, leading blanks dropped so an indented line is a
 * line of its own and never a continuation of the previous value. */
static char *read_line(char *str, int num, void *stream)
{
	struct parse *ps = stream;
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
	if (len + 2 > (size_t)num || len > BR_TPL_LINE_MAX) {
		problem(ps, "line longer than %d characters", num - 2 < BR_TPL_LINE_MAX ? num - 2 : BR_TPL_LINE_MAX);
		len = 0; /* an empty line: inih moves on, the problem is recorded */
	}
	if (len && *s == '[')
		check_section(ps, s, len);
	memcpy(str, s, len);
	str[len] = '\n';
	str[len + 1] = '\0';
	return str;
}

static int valid_chars(const char *s, const char *extra)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr(extra, *s))
			return 0;
	return 1;
}

static int on_bios(struct parse *ps, const char *name, const char *value)
{
	struct br_tpl_profile *p = ps->p;
	struct br_kv *kv;

	if (!valid_chars(name, "_"))
		return problem(ps, "'%s' is not a BIOS attribute name (letters, digits, '_')", name);
	if (!*value)
		return problem(ps, "%s: empty value", name);
	for (size_t i = 0; i < p->n_bios; i++)
		if (!strcmp(p->bios[i].key, name))
			return problem(ps, "%s set twice", name);
	if (p->n_bios >= BR_TPL_ENTRIES_MAX)
		return problem(ps, "more than %d attributes", BR_TPL_ENTRIES_MAX);
	p->bios = br_xrealloc(p->bios, (p->n_bios + 1) * sizeof(*p->bios));
	kv = &p->bios[p->n_bios++];
	kv->key = br_xstrdup(name);
	kv->value = br_xstrdup(value);
	return 1;
}

static int on_boot(struct parse *ps, const char *name, const char *value)
{
	struct br_tpl_profile *p = ps->p;

	if (!strcmp(name, "pxe_nic")) {
		if (ps->have_pxe_nic)
			return problem(ps, "pxe_nic set twice");
		if (strncmp(value, "NIC.", 4) || !valid_chars(value, ".-_:"))
			return problem(ps, "pxe_nic '%s' is not a NIC FQDD such as NIC.Embedded.1-1-1", value);
		ps->have_pxe_nic = 1;
		p->pxe_nic = br_xstrdup(value);
		return 1;
	}
	if (!strcmp(name, "mode")) {
		if (ps->have_mode)
			return problem(ps, "mode set twice");
		ps->have_mode = 1;
		if (!strcmp(value, "persistent"))
			p->boot_mode = BR_TPL_BOOT_PERSISTENT;
		else if (!strcmp(value, "once"))
			p->boot_mode = BR_TPL_BOOT_ONCE;
		else
			return problem(ps, "mode '%s': must be persistent or once", value);
		return 1;
	}
	return problem(ps, "unknown setting '%s' in [boot] (pxe_nic, mode)", name);
}

static int on_firmware(struct parse *ps, const char *name, const char *value)
{
	struct br_tpl_profile *p = ps->p;
	struct br_tpl_fw_rule *r;

	if (!valid_chars(name, ".-_:*?[]"))
		return problem(ps, "'%s' is not a component FQDD or pattern", name);
	if (!valid_chars(value, ".-_") || !strpbrk(value, "0123456789"))
		return problem(ps, "%s: '%s' is not a version", name, value);
	for (size_t i = 0; i < p->n_firmware; i++)
		if (!strcmp(p->firmware[i].component, name))
			return problem(ps, "%s set twice", name);
	if (p->n_firmware >= BR_TPL_ENTRIES_MAX)
		return problem(ps, "more than %d rules", BR_TPL_ENTRIES_MAX);
	p->firmware = br_xrealloc(p->firmware, (p->n_firmware + 1) * sizeof(*p->firmware));
	r = &p->firmware[p->n_firmware++];
	r->component = br_xstrdup(name);
	r->min_version = br_xstrdup(value);
	return 1;
}

static int on_entry(void *user, const char *section, const char *name, const char *value)
{
	struct parse *ps = user;
	int bios_file = !strcmp(ps->kind, "bios");

	if (!*section)
		return problem(ps, "'%s' outside a section (%s)", name, sections_of(ps));
	if (bios_file && !strcmp(section, "bios"))
		return on_bios(ps, name, value);
	if (bios_file && !strcmp(section, "boot"))
		return on_boot(ps, name, value);
	if (!bios_file && !strcmp(section, "firmware"))
		return on_firmware(ps, name, value);
	return problem(ps, "unknown section [%s] (%s)", section, sections_of(ps));
}

int br_tpl_parse_text(const char *file, const char *text, const char *kind, struct br_tpl_profile *p,
		      struct br_err *err)
{
	struct parse ps = { .file = file, .kind = kind, .next = text, .p = p };
	int rc = ini_parse_stream(read_line, &ps, on_entry, &ps);

	if (rc < 0)
		return br_errf(err, BR_E_NOMEM, "%s: out of memory while parsing", file);
	/* inih reports the first bad line, ours or its own syntax error */
	if (rc > 0 && (!ps.err_line || rc < ps.err_line))
		return br_errf(err, BR_E_INVAL, "%s:%d: expected '[section]' or 'name = value'", file, rc);
	if (ps.err_line)
		return br_errf(err, BR_E_INVAL, "%s:%d: %s", file, ps.err_line, ps.err_msg);
	return 0;
}

static int parse_file(const char *path, const char *kind, struct br_tpl_profile *p, struct br_err *err)
{
	char *text = NULL;
	size_t len = 0;
	int rc = br_read_file(path, BR_TPL_FILE_MAX, &text, &len, err);

	if (rc)
		return rc;
	if (memchr(text, '\0', len))
		rc = br_errf(err, BR_E_INVAL, "%s: not a text file", path);
	else
		rc = br_tpl_parse_text(path, text, kind, p, err);
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

int br_tpl_profile_load(const char *templates_dir, const char *name, struct br_tpl_profile *ret,
			struct br_err *err)
{
	struct br_tpl_profile p = { 0 };
	char *dir = NULL, *bios = NULL, *fw = NULL;
	int rc = 0;

	if (!name || !*name || strchr(name, '/') || name[0] == '.') {
		rc = br_errf(err, BR_E_INVAL, "profile '%s' is not a profile name", name ? name : "");
		goto out;
	}
	dir = br_xasprintf("%s/profiles/%s", templates_dir, name);
	bios = br_xasprintf("%s/bios.conf", dir);
	fw = br_xasprintf("%s/firmware.conf", dir);
	if (!exists(bios)) {
		rc = br_errf(err, BR_E_NOTFOUND, "profile '%s': %s not found (no such profile, or no BIOS baseline)",
			     name, bios);
		goto out;
	}
	p.name = br_xstrdup(name);
	rc = parse_file(bios, "bios", &p, err);
	if (!rc && exists(fw))
		rc = parse_file(fw, "firmware", &p, err);
	if (!rc && p.n_bios == 0)
		rc = br_errf(err, BR_E_INVAL, "%s: no [bios] attributes", bios);
out:
	if (rc)
		br_tpl_profile_release(&p);
	else
		*ret = p;
	free(dir);
	free(bios);
	free(fw);
	return rc;
}

/* ---- versions and the firmware policy --------------------------------------- */

/* One component of a version: [*s, *ret_end) up to '.', '-' or '_'. */
static size_t component_len(const char *s)
{
	return strcspn(s, ".-_");
}

static int all_digits(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]))
			return 0;
	return n > 0;
}

static int compare_component(const char *a, size_t na, const char *b, size_t nb)
{
	if (all_digits(a, na) && all_digits(b, nb)) {
		/* numerically, without overflow: skip leading zeros, then length, then digits */
		while (na > 1 && *a == '0')
			a++, na--;
		while (nb > 1 && *b == '0')
			b++, nb--;
		if (na != nb)
			return na < nb ? -1 : 1;
		return memcmp(a, b, na);
	}
	int c = strncasecmp(a, b, na < nb ? na : nb);

	if (c)
		return c;
	return na == nb ? 0 : (na < nb ? -1 : 1);
}

int br_tpl_version_cmp(const char *a, const char *b)
{
	for (;;) {
		size_t na = component_len(a), nb = component_len(b);
		int c;

		if (!*a || !*b)
			return !*a && !*b ? 0 : (!*a ? -1 : 1);
		c = compare_component(a, na, b, nb);
		if (c)
			return c < 0 ? -1 : 1;
		a += na;
		b += nb;
		if (*a)
			a++;
		if (*b)
			b++;
	}
}

/* "Installed-104327-28.39.1002__NIC.Slot.31-1-1" -> "NIC.Slot.31-1-1";
 * NULL for "Previous-…" (the version before the last update) and others. */
static const char *installed_fqdd(const char *id)
{
	const char *sep;

	if (!id || strncmp(id, "Installed-", 10))
		return NULL;
	sep = strstr(id, "__");
	return sep && sep[2] ? sep + 2 : NULL;
}

static void add_check(struct inv_check **checks, size_t *n, const char *name, enum inv_check_result result,
		      char *detail_take)
{
	*checks = br_xrealloc(*checks, (*n + 1) * sizeof(**checks));
	(*checks)[*n] = (struct inv_check){ .name = br_xasprintf("firmware:%s", name), .result = result,
					    .detail = detail_take };
	(*n)++;
}

int br_tpl_firmware_judge(const struct br_tpl_profile *p, const struct br_hw *hw, struct inv_check **ret_checks,
			  size_t *ret_n)
{
	struct inv_check *checks = NULL;
	size_t n = 0;

	for (size_t r = 0; r < p->n_firmware; r++) {
		const struct br_tpl_fw_rule *rule = &p->firmware[r];
		int matched = 0;

		for (size_t i = 0; i < hw->n_firmware; i++) {
			const struct br_firmware *f = &hw->firmware[i];
			const char *fqdd = installed_fqdd(f->id);
			int ok;

			if (!fqdd || fnmatch(rule->component, fqdd, 0))
				continue;
			/* a component two rules match is judged by the first */
			int seen = 0;

			for (size_t k = 0; k < n && !seen; k++)
				seen = !strcmp(checks[k].name + 9, fqdd);
			matched = 1;
			if (seen)
				continue;
			if (!f->version || !*f->version) {
				add_check(&checks, &n, fqdd, INV_CHECK_UNKNOWN,
					  br_xasprintf("%s: the BMC reports no version (policy: >= %s)", fqdd,
						       rule->min_version));
				continue;
			}
			ok = br_tpl_version_cmp(f->version, rule->min_version) >= 0;
			add_check(&checks, &n, fqdd, ok ? INV_CHECK_PASS : INV_CHECK_FAIL,
				  ok ? br_xasprintf("%s: %s >= %s", fqdd, f->version, rule->min_version)
				     : br_xasprintf("%s: %s < %s — update firmware", fqdd, f->version,
						    rule->min_version));
		}
		if (!matched)
			add_check(&checks, &n, rule->component, INV_CHECK_UNKNOWN,
				  br_xasprintf("no installed firmware component matches %s (policy: >= %s)",
					       rule->component, rule->min_version));
	}
	*ret_checks = checks;
	*ret_n = n;
	return 0;
}
