/* bringup.conf (config.h): the files, in order, into the environment. */
#define _DEFAULT_SOURCE
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ini.h>

#include "profile/profile.h"
#include "stages/config.h"

/* Every setting and the variable it stands for: what the commands read
 * (README, docs/operating.md). */
static struct stg_config_setting settings[] = {
	{ "inventory", "db", "BRINGUP_DB", 0, NULL, NULL },
	{ "inventory", "zone", "BRINGUP_ZONE", 0, NULL, NULL },
	{ "templates", "dir", "BRINGUP_TEMPLATES", 0, NULL, NULL },
	{ "templates", "site_profiles", "BRINGUP_SITE_PROFILES", 0, NULL, NULL },
	{ "maas", "url", "MAAS_URL", 0, NULL, NULL },
	{ "maas", "api_key", "MAAS_API_KEY_REF", 1, NULL, NULL },
	{ "tls", "ca_file", "BRINGUP_CA_FILE", 0, NULL, NULL },
	{ "bmc", "scheme", "BRINGUP_BMC_SCHEME", 0, NULL, NULL },
	{ "bmc", "timeout", "BRINGUP_BMC_TIMEOUT", 0, NULL, NULL },
	{ "bmc", "retries", "BRINGUP_BMC_RETRIES", 0, NULL, NULL },
	{ "bmc", "deadline", "BRINGUP_BMC_DEADLINE", 0, NULL, NULL },
	{ "ssh", "key", "BRINGUP_SSH_KEY", 0, NULL, NULL },
	{ "ssh", "pubkey", "BRINGUP_SSH_PUBKEY", 0, NULL, NULL },
	{ "ssh", "known_hosts", "BRINGUP_KNOWN_HOSTS", 0, NULL, NULL },
	{ "ssh", "config", "BRINGUP_SSH_CONFIG", 0, NULL, NULL },
	{ "ssh", "user", "BRINGUP_SSH_USER", 0, NULL, NULL },
	{ "validate", "wiring", "BRINGUP_WIRING", 0, NULL, NULL },
	{ "validate", "ib_topology", "BRINGUP_IB_TOPOLOGY", 0, NULL, NULL },
	{ "validate", "ib_wiring", "BRINGUP_IB_WIRING", 0, NULL, NULL },
	{ "validate", "probe", "BRINGUP_PROBE", 0, NULL, NULL },
	{ "validate", "parallel", "BRINGUP_VALIDATE_PARALLEL", 0, NULL, NULL },
	{ "enlist", "ntp_servers", "BRINGUP_NTP_SERVERS", 0, NULL, NULL },
	{ "metrics", "file", "BRINGUP_METRICS_FILE", 0, NULL, NULL },
	{ "log", "format", "BRINGUP_LOG_FORMAT", 0, NULL, NULL },
	{ "controller", "interval", "BRINGUP_CONTROLLER_INTERVAL", 0, NULL, NULL },
};
#define N_SETTINGS (sizeof(settings) / sizeof(settings[0]))

static int counted(const struct stg_config_setting *s)
{
	return !strcmp(s->key, "timeout") || !strcmp(s->key, "retries") || !strcmp(s->key, "deadline") ||
	       !strcmp(s->key, "parallel");
}

struct reading {
	const char *path, *next;
	unsigned line;
	const char *section; /* the last [section] line's name, or NULL */
	char section_buf[64];
	struct br_strlist *problems;
	char **values; /* per setting: this file's, owned */
	unsigned *lines;
};

static void problem(struct reading *r, const char *field, const char *fmt, ...) BR_PRINTF(3, 4);
static void problem(struct reading *r, const char *field, const char *fmt, ...)
{
	struct br_buf msg;
	va_list ap;

	br_buf_init(&msg, 0);
	va_start(ap, fmt);
	br_buf_vaddf(&msg, fmt, ap);
	va_end(ap);
	br_csv_problem(r->problems, r->path, r->line, field, "%s", br_buf_str(&msg));
	br_buf_release(&msg);
}

static int known_section(const char *name)
{
	for (size_t i = 0; i < N_SETTINGS; i++)
		if (!strcmp(settings[i].section, name))
			return 1;
	return 0;
}

/* inih's fgets over the file's text: counts lines, names a wrong section
 * on its own line. */
static char *read_line(char *str, int num, void *stream)
{
	struct reading *r = stream;
	const char *s = r->next, *nl;
	size_t len;

	if (!s || !*s)
		return NULL;
	nl = strchr(s, '\n');
	len = nl ? (size_t)(nl - s) : strlen(s);
	r->next = nl ? nl + 1 : s + len;
	r->line++;
	while (len && (*s == ' ' || *s == '\t'))
		s++, len--;
	if (len + 2 > (size_t)num) {
		problem(r, NULL, "line longer than %d characters", num - 2);
		len = 0;
	}
	if (len && *s == '[') {
		const char *end = memchr(s, ']', len);
		size_t n = end ? (size_t)(end - s - 1) : 0;

		if (end && n < sizeof(r->section_buf)) {
			memcpy(r->section_buf, s + 1, n);
			r->section_buf[n] = '\0';
			if (!known_section(r->section_buf))
				problem(r, NULL,
					"unknown section [%s] (inventory, templates, maas, tls, bmc, ssh, "
					"validate, enlist, metrics, log)",
					r->section_buf);
		}
	}
	memcpy(str, s, len);
	str[len] = '\n';
	str[len + 1] = '\0';
	return str;
}

static int on_entry(void *user, const char *section, const char *name, const char *value)
{
	struct reading *r = user;
	char field[160];
	long n;
	size_t i;

	snprintf(field, sizeof(field), "%s.%s", section, name);
	if (!known_section(section))
		return 1; /* said once, at its header */
	for (i = 0; i < N_SETTINGS; i++)
		if (!strcmp(settings[i].section, section) && !strcmp(settings[i].key, name))
			break;
	if (i == N_SETTINGS) {
		const char *keys[N_SETTINGS], *near;
		size_t k = 0;

		for (size_t j = 0; j < N_SETTINGS; j++)
			if (!strcmp(settings[j].section, section))
				keys[k++] = settings[j].key;
		near = br_did_you_mean(name, keys, k);
		if (near)
			br_csv_problem(r->problems, r->path, r->line, field,
				       "unknown setting; did you mean '%s'?", near);
		else
			problem(r, field, "unknown setting in [%s]", section);
		return 1;
	}
	if (!*value)
		problem(r, field, "empty value");
	else if (settings[i].secret && !br_secret_ref_valid(value))
		problem(r, field,
			"a secret is given as a reference (env:NAME or file:PATH), never its value");
	else if (counted(&settings[i]) && br_parse_long(value, 0, 1000000, &n))
		problem(r, field, "'%s' is not a count", value);
	else if (r->values[i])
		problem(r, field, "set twice");
	else {
		r->values[i] = br_xstrdup(value);
		r->lines[i] = r->line;
	}
	return 1;
}

static struct br_strlist files;
static char *origins[N_SETTINGS];
static int applied, apply_rc;
static char *apply_msg;

/* One file into values/lines (the later file's setting wins). */
static int read_file(const char *path, int must_exist, char **values, unsigned *lines,
		     const char **value_files, struct br_strlist *problems)
{
	struct reading r = { 0 };
	struct stat sb;
	char *text = NULL;
	size_t len = 0;
	struct br_err err = { 0 };

	if (stat(path, &sb)) {
		if (must_exist)
			br_csv_problem(problems, path, 0, NULL, "cannot read: no such file");
		return 0;
	}
	if (br_read_file(path, STG_CONFIG_MAX_BYTES, &text, &len, &err)) {
		br_csv_problem(problems, path, 0, NULL, "%s", err.msg);
		return 0;
	}
	r.path = path;
	r.next = text;
	r.problems = problems;
	r.values = br_xcalloc(N_SETTINGS, sizeof(*r.values));
	r.lines = br_xcalloc(N_SETTINGS, sizeof(*r.lines));
	{
		int rc = ini_parse_stream(read_line, &r, on_entry, &r);

		if (rc > 0) {
			r.line = (unsigned)rc;
			problem(&r, NULL, "not an INI line (section [name], or key = value)");
		}
	}
	for (size_t i = 0; i < N_SETTINGS; i++)
		if (r.values[i]) {
			free(values[i]);
			values[i] = r.values[i];
			lines[i] = r.lines[i];
			value_files[i] = path;
		}
	br_strlist_add(&files, path);
	free(r.values);
	free(r.lines);
	free(text);
	return 0;
}

int stg_config_apply(struct br_err *err)
{
	struct br_strlist problems = { 0 }, paths = { 0 };
	char *values[N_SETTINGS] = { 0 };
	const char *value_files[N_SETTINGS] = { 0 };
	unsigned lines[N_SETTINGS] = { 0 };
	const char *sys = getenv("BRINGUP_SYSTEM_CONFIG"), *xdg = getenv("XDG_CONFIG_HOME");
	const char *home = getenv("HOME"), *explicit = getenv("BRINGUP_CONFIG");

	if (applied)
		return apply_rc ? br_errf(err, apply_rc, "%s", apply_msg) : 0;
	applied = 1;
	br_strlist_add(&paths, sys && *sys ? sys : STG_CONFIG_SYSTEM);
	if (xdg && *xdg) {
		char *p = br_xasprintf("%s/bringup/bringup.conf", xdg);

		br_strlist_add(&paths, p);
		free(p);
	} else if (home && *home) {
		char *p = br_xasprintf("%s/.config/bringup/bringup.conf", home);

		br_strlist_add(&paths, p);
		free(p);
	}
	for (size_t f = 0; f < paths.n; f++)
		read_file(paths.items[f], 0, values, lines, value_files, &problems);
	if (explicit && *explicit)
		read_file(explicit, 1, values, lines, value_files, &problems);
	for (size_t i = 0; i < N_SETTINGS; i++) {
		const char *env = getenv(settings[i].env);

		/* The environment beats the file; for the MAAS key, a key in
		 * MAAS_API_KEY beats a reference in the file too. */
		if ((env && *env) || (settings[i].secret && getenv("MAAS_API_KEY"))) {
			settings[i].value = env && *env ? env : "(MAAS_API_KEY: set, not shown)";
			settings[i].origin = "environment";
		} else if (values[i] && !problems.n) {
			setenv(settings[i].env, values[i], 1);
			settings[i].value = getenv(settings[i].env);
			origins[i] = br_xasprintf("%s:%u", value_files[i], lines[i]);
			settings[i].origin = origins[i];
		}
		free(values[i]);
	}
	br_strlist_release(&paths);
	if (problems.n) {
		struct br_buf b;

		br_buf_init(&b, 0);
		for (size_t i = 0; i < problems.n; i++)
			br_buf_addf(&b, "%s%s", i ? "\n" : "", problems.items[i]);
		apply_msg = br_xstrdup(br_buf_str(&b));
		br_buf_release(&b);
		br_strlist_release(&problems);
		apply_rc = BR_E_INVAL;
		return br_errf(err, apply_rc, "%s", apply_msg);
	}
	return 0;
}

const struct stg_config_setting *stg_config_settings(size_t *ret_n)
{
	*ret_n = N_SETTINGS;
	return settings;
}

const struct br_strlist *stg_config_files(void)
{
	return &files;
}

/* site/NAME when it holds a profile (its bios.conf), else NULL. */
static char *site_profile(const char *name)
{
	const char *site = getenv("BRINGUP_SITE_PROFILES");
	char *dir, *bios;
	int there;

	if (!site || !*site)
		site = STG_SITE_PROFILES;
	if (!name || !*name || strchr(name, '/') || name[0] == '.')
		return NULL;
	dir = br_xasprintf("%s/%s", site, name);
	bios = br_xasprintf("%s/bios.conf", dir);
	there = !access(bios, F_OK);
	free(bios);
	if (!there) {
		free(dir);
		return NULL;
	}
	return dir;
}

char *stg_profile_dir(const char *templates, const char *name)
{
	char *site = site_profile(name);

	return site ? site : br_xasprintf("%s/profiles/%s", templates, name);
}

int stg_profile_load(const char *templates, const char *name, struct prof_profile *ret, struct br_err *err)
{
	char *site = site_profile(name);
	int rc = site ? prof_load_dir(site, name, ret, err) : prof_load(templates, name, ret, err);

	free(site);
	return rc;
}
