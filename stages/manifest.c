/* Rack manifest parsing (libcsv) and validation. */
#include <arpa/inet.h>
#include <csv.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "config.h"
#include "manifest.h"

enum col {
	C_HOSTNAME,
	C_RACK,
	C_UNIT,
	C_BMC,
	C_USER,
	C_PASSWORD,
	C_PROFILE,
	C_TYPE,
	C_BOOTDISK,
	C_NOTES,
	C_SERIAL,
	C_SYSTEM,
	C_ZONE,
	C_POWER_DOMAIN,
	C_COUNT
};

static const struct {
	const char *name;
	int required;
} columns[C_COUNT] = {
	[C_HOSTNAME] = { "hostname", 1 },
	[C_RACK] = { "rack", 1 },
	[C_UNIT] = { "unit", 1 },
	[C_BMC] = { "bmc", 1 },
	[C_USER] = { "bmc_user", 1 },
	[C_PASSWORD] = { "bmc_password", 1 },
	[C_PROFILE] = { "profile", 1 },
	[C_TYPE] = { "bmc_type", 0 },
	[C_BOOTDISK] = { "boot_disk_serial", 0 },
	[C_NOTES] = { "notes", 0 },
	[C_SERIAL] = { "serial", 0 },
	[C_SYSTEM] = { "system", 0 },
	[C_ZONE] = { "zone", 0 },
	[C_POWER_DOMAIN] = { "power_domain", 0 },
};

/* libcsv hands fields and row ends to callbacks; this is their state. */
struct parse_state {
	const char *path;
	const struct stg_manifest_labels *labels; /* rows not from a file: their own names */
	int line;				  /* line being fed to the parser */
	struct br_strlist fields;
	struct br_strlist *problems;
	int header_done;
	int colmap[C_COUNT * 2]; /* field index -> column, -1 if none */
	size_t nheader;
	struct stg_manifest *m;
	size_t cap_rows;
	int too_many;
};

/* A field as the source calls it: the manifest's column, or the name the
 * rows' source gave it (NetBox's "position" for "unit"). */
static const char *field_label(const struct parse_state *ps, const char *field)
{
	if (field && ps->labels)
		for (size_t i = 0; i < ps->labels->n; i++)
			if (!strcmp(ps->labels->map[i].column, field))
				return ps->labels->map[i].label;
	return field;
}

static void vproblem(struct parse_state *ps, const struct stg_manifest_row *r, int line, const char *field,
		     const char *fmt, va_list ap) BR_PRINTF(5, 0);
static void vproblem(struct parse_state *ps, const struct stg_manifest_row *r, int line, const char *field,
		     const char *fmt, va_list ap)
{
	struct br_buf b;

	br_buf_init(&b, 0);
	if (r && r->origin)
		br_buf_addf(&b, "%s: ", r->origin);
	else
		br_buf_addf(&b, "%s:%d: ", ps->path, line);
	if (field)
		br_buf_addf(&b, "%s: ", field_label(ps, field));
	br_buf_vaddf(&b, fmt, ap);
	br_strlist_add(ps->problems, br_buf_str(&b));
	br_buf_release(&b);
}

static void problem(struct parse_state *ps, int line, const char *field, const char *fmt, ...)
    BR_PRINTF(4, 5);
static void problem(struct parse_state *ps, int line, const char *field, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vproblem(ps, NULL, line, field, fmt, ap);
	va_end(ap);
}

/* A problem of one row, named by its origin when it has one. */
static void row_problem(struct parse_state *ps, const struct stg_manifest_row *r, const char *field,
			const char *fmt, ...) BR_PRINTF(4, 5);
static void row_problem(struct parse_state *ps, const struct stg_manifest_row *r, const char *field,
			const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vproblem(ps, r, r->line, field, fmt, ap);
	va_end(ap);
}

/* Where another row is, for "duplicate" messages: its line, or its origin. */
static char *row_ref(const struct stg_manifest_row *r)
{
	return r->origin ? br_xstrdup(r->origin) : br_xasprintf("line %d", r->line);
}

/* The column a field of the current row is in, by name, for messages. */
static const char *field_name(const struct parse_state *ps, size_t index)
{
	if (!ps->header_done)
		return "header";
	if (index < sizeof(ps->colmap) / sizeof(ps->colmap[0]) && ps->colmap[index] >= 0)
		return columns[ps->colmap[index]].name;
	return "field";
}

static void on_field(void *data, size_t len, void *ctx)
{
	struct parse_state *ps = ctx;
	char *s;

	/* A NUL would silently cut the field where C strings end. */
	if (data && memchr(data, '\0', len))
		problem(ps, ps->line, field_name(ps, ps->fields.n), "contains a NUL byte");
	s = br_xstrndup(data ? data : "", data ? len : 0);

	br_strlist_add(&ps->fields, s);
	free(s);
}

static void on_header(struct parse_state *ps)
{
	int seen[C_COUNT] = { 0 };

	ps->nheader = ps->fields.n;
	for (size_t i = 0; i < ps->fields.n; i++) {
		const char *name = ps->fields.items[i];
		int col = -1;

		for (int c = 0; c < C_COUNT; c++)
			if (!strcmp(name, columns[c].name))
				col = c;
		if (i < sizeof(ps->colmap) / sizeof(ps->colmap[0]))
			ps->colmap[i] = col;
		if (col < 0) {
			problem(ps, ps->line, name,
				"unknown column (known: hostname, rack, unit, bmc, bmc_user,"
				" bmc_password, profile, bmc_type, boot_disk_serial, notes, serial, system, "
				"zone, power_domain)");
			continue;
		}
		if (seen[col]++) {
			problem(ps, ps->line, name, "column appears twice in the header");
			/* Rows read the first: a second would overwrite (and leak) its copy. */
			if (i < sizeof(ps->colmap) / sizeof(ps->colmap[0]))
				ps->colmap[i] = -1;
		}
	}
	if (ps->nheader > sizeof(ps->colmap) / sizeof(ps->colmap[0]))
		problem(ps, ps->line, NULL, "header has %zu columns, at most %zu are known", ps->nheader,
			sizeof(ps->colmap) / sizeof(ps->colmap[0]));
	for (int c = 0; c < C_COUNT; c++)
		if (columns[c].required && !seen[c])
			problem(ps, ps->line, columns[c].name, "required column missing from the header");
}

static void on_row(int term, void *ctx)
{
	struct parse_state *ps = ctx;
	struct stg_manifest_row *r;
	char **f = ps->fields.items;

	(void)term;
	if (!ps->header_done) {
		on_header(ps);
		ps->header_done = 1;
		goto out;
	}
	/* A row that is only a comment "# ..." in the first field is skipped. */
	if (ps->fields.n >= 1 && f[0][0] == '#')
		goto out;
	if (ps->fields.n != ps->nheader) {
		problem(ps, ps->line, NULL, "%zu fields, the header has %zu", ps->fields.n, ps->nheader);
		goto out;
	}
	if (ps->m->n >= STG_MANIFEST_MAX_ROWS) {
		if (!ps->too_many++)
			problem(ps, ps->line, NULL, "more than %d rows", STG_MANIFEST_MAX_ROWS);
		goto out;
	}
	if (ps->m->n == ps->cap_rows) { /* doubling: a row at a time was quadratic */
		ps->cap_rows = ps->cap_rows ? 2 * ps->cap_rows : 64;
		ps->m->rows = br_xrealloc(ps->m->rows, ps->cap_rows * sizeof(*ps->m->rows));
	}
	r = &ps->m->rows[ps->m->n++];
	memset(r, 0, sizeof(*r));
	r->line = ps->line;
	for (size_t i = 0; i < ps->fields.n && i < sizeof(ps->colmap) / sizeof(ps->colmap[0]); i++) {
		char **dst[C_COUNT] = {
			[C_HOSTNAME] = &r->hostname,
			[C_RACK] = &r->rack,
			[C_UNIT] = NULL,
			[C_BMC] = &r->bmc,
			[C_USER] = &r->bmc_user,
			[C_PASSWORD] = &r->bmc_password,
			[C_PROFILE] = &r->profile,
			[C_TYPE] = &r->bmc_type,
			[C_BOOTDISK] = &r->boot_disk_serial,
			[C_NOTES] = &r->notes,
			[C_SERIAL] = &r->serial,
			[C_SYSTEM] = &r->system,
			[C_ZONE] = &r->zone,
			[C_POWER_DOMAIN] = &r->power_domain,
		};
		int col = ps->colmap[i];
		long unit;

		if (col < 0)
			continue;
		if (col == C_UNIT) {
			if (!*f[i])
				continue;
			if (br_parse_long(f[i], 1, 60, &unit)) {
				problem(ps, ps->line, "unit", "'%s' is not a rack unit (a whole number 1-60)",
					f[i]);
				r->unit = -1;
			} else {
				r->unit = (int)unit;
			}
			continue;
		}
		*dst[col] = br_xstrdup(f[i]);
	}
out:
	br_strlist_release(&ps->fields);
}

static int valid_label_chars(const char *s, const char *extra)
{
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
		      strchr(extra, *s)))
			return 0;
	return 1;
}

int stg_zone_valid(const char *zone)
{
	return zone && *zone && strlen(zone) <= STG_MANIFEST_ZONE_MAX && valid_label_chars(zone, "._-");
}

size_t stg_zones_split(const char *zones, char ***ret)
{
	size_t n = 0;

	*ret = br_xcalloc(STG_ZONES_MAX, sizeof(**ret));
	for (const char *p = zones; p && n < STG_ZONES_MAX;) {
		size_t len = strcspn(p, ",");

		(*ret)[n++] = br_xstrndup(p, len);
		if (!p[len])
			break;
		p += len + 1;
	}
	return n;
}

int stg_zones_valid(const char *zones)
{
	char **names;
	size_t n = stg_zones_split(zones, &names), commas = 0;
	int ok = n > 0;

	for (const char *p = zones; p && *p; p++)
		commas += *p == ',';
	if (commas + 1 != n)
		ok = 0; /* more than STG_ZONES_MAX */
	for (size_t i = 0; i < n; i++) {
		ok = ok && stg_zone_valid(names[i]);
		free(names[i]);
	}
	free(names);
	return ok;
}

/* RFC 1123 host name: dot-separated labels of letters, digits and hyphens,
 * 1-63 characters, not starting or ending with a hyphen. */
static int valid_hostname(const char *s)
{
	size_t label = 0, total = strlen(s);

	if (!total || total > 253)
		return 0;
	for (const char *p = s;; p++) {
		if (*p == '.' || !*p) {
			if (label == 0 || label > 63 || p[-1] == '-' || p[-(long)label] == '-')
				return 0;
			if (!*p)
				return 1;
			label = 0;
			continue;
		}
		if (!valid_label_chars((char[]){ *p, 0 }, "-"))
			return 0;
		label++;
	}
}

int stg_bmc_address_parse(const char *bmc, char **ret_host, int *ret_port)
{
	const char *colon;
	char *host;
	long port = 0;

	if (!bmc || !*bmc)
		return BR_E_INVAL;
	if (bmc[0] == '[') {
		const char *close = strchr(bmc, ']');
		unsigned char addr[16];

		if (!close)
			return BR_E_INVAL;
		host = br_xstrndup(bmc + 1, (size_t)(close - bmc - 1));
		if (inet_pton(AF_INET6, host, addr) != 1 ||
		    (close[1] && (close[1] != ':' || br_parse_long(close + 2, 1, 65535, &port)))) {
			free(host);
			return BR_E_INVAL;
		}
	} else {
		unsigned char addr[4];
		int dotted = 1;

		colon = strchr(bmc, ':');
		if (colon && strchr(colon + 1, ':'))
			return BR_E_INVAL; /* bare IPv6 needs brackets */
		host = br_xstrndup(bmc, colon ? (size_t)(colon - bmc) : strlen(bmc));
		for (const char *p = host; *p; p++)
			if (!(*p == '.' || (*p >= '0' && *p <= '9')))
				dotted = 0;
		if ((dotted && inet_pton(AF_INET, host, addr) != 1) || (!dotted && !valid_hostname(host)) ||
		    (colon && br_parse_long(colon + 1, 1, 65535, &port))) {
			free(host);
			return BR_E_INVAL;
		}
	}
	*ret_host = host;
	*ret_port = (int)port;
	return 0;
}

static void validate_row(struct parse_state *ps, const struct stg_manifest_row *r, const char *templates_dir)
{
	char *host = NULL;
	int port;

	if (!r->hostname || !*r->hostname)
		row_problem(ps, r, "hostname", "missing");
	else if (!valid_hostname(r->hostname))
		row_problem(ps, r, "hostname", "'%s' is not a valid host name (letters, digits, '-', '.')",
			    r->hostname);
	if (!r->rack || !*r->rack)
		row_problem(ps, r, "rack", "missing");
	else if (strlen(r->rack) > 64 || !valid_label_chars(r->rack, "._-"))
		row_problem(ps, r, "rack", "'%s' is not a rack name (letters, digits, '.', '_', '-')",
			    r->rack);
	if (r->unit == 0)
		row_problem(ps, r, "unit", "missing");
	if (!r->bmc || !*r->bmc)
		row_problem(ps, r, "bmc", "missing");
	else if (stg_bmc_address_parse(r->bmc, &host, &port))
		row_problem(ps, r, "bmc",
			    "'%s' is not an address (host, IPv4, or [IPv6], with optional :port 1-65535)",
			    r->bmc);
	free(host);
	if (!r->bmc_user || !*r->bmc_user)
		row_problem(ps, r, "bmc_user", "missing");
	if (!r->bmc_password || !*r->bmc_password)
		row_problem(ps, r, "bmc_password", "missing");
	else if (!br_secret_ref_valid(r->bmc_password))
		row_problem(
		    ps, r, "bmc_password",
		    "a literal password is refused: write env:VARIABLE or file:PATH so the secret stays out"
		    " of the manifest, the inventory and the logs");
	if (!r->profile || !*r->profile) {
		row_problem(ps, r, "profile", "missing");
	} else if (!valid_label_chars(r->profile, "._-") || r->profile[0] == '.') {
		row_problem(ps, r, "profile", "'%s' is not a profile name", r->profile);
	} else if (templates_dir) {
		char *dir = stg_profile_dir(templates_dir, r->profile);
		struct stat sb;

		if (stat(dir, &sb) || !S_ISDIR(sb.st_mode))
			row_problem(ps, r, "profile", "unknown hardware profile '%s' (no %s)", r->profile,
				    dir);
		free(dir);
	}
	/* Discovery compares it with what the BMC reports: a value no BMC
	 * could report (a pasted note, a stray comma) is a typo found now
	 * rather than a mismatch found at discover. */
	if (r->serial && *r->serial &&
	    (strlen(r->serial) > STG_MANIFEST_SERIAL_MAX || !valid_label_chars(r->serial, "._-/")))
		row_problem(
		    ps, r, "serial",
		    "'%s' is not a serial or service tag (at most %d letters, digits, '.', '_', '-', '/')",
		    r->serial, STG_MANIFEST_SERIAL_MAX);
	/* A Redfish System's Id or @odata.id: a value with a blank, a quote
	 * or a comma is a typo, not a System any BMC lists. */
	if (r->system && *r->system &&
	    (strlen(r->system) > STG_MANIFEST_SYSTEM_MAX || !valid_label_chars(r->system, "._-/:")))
		row_problem(
		    ps, r, "system",
		    "'%s' is not a Redfish System Id or @odata.id (at most %d letters, digits, '.', '_', "
		    "'-', '/', ':')",
		    r->system, STG_MANIFEST_SYSTEM_MAX);
	if (r->zone && *r->zone && !stg_zone_valid(r->zone))
		row_problem(ps, r, "zone",
			    "'%s' is not a zone name (at most %d letters, digits, '.', '_', '-')", r->zone,
			    STG_MANIFEST_ZONE_MAX);
	if (r->power_domain && *r->power_domain && !stg_zone_valid(r->power_domain))
		row_problem(ps, r, "power_domain",
			    "'%s' is not a power domain's name (at most %d letters, digits, '.', '_', '-')",
			    r->power_domain, STG_MANIFEST_ZONE_MAX);
	if (r->bmc_type && *r->bmc_type && strcmp(r->bmc_type, "redfish") && strcmp(r->bmc_type, "ipmi") &&
	    strcmp(r->bmc_type, "auto"))
		row_problem(ps, r, "bmc_type", "'%s' is not one of redfish, ipmi, auto", r->bmc_type);
}

enum dup_key { DUP_HOSTNAME, DUP_BMC, DUP_UNIT };

static enum dup_key sort_key;

static int key_cmp(const struct stg_manifest_row *a, const struct stg_manifest_row *b)
{
	int c = 0;

	switch (sort_key) {
	case DUP_HOSTNAME:
		c = strcasecmp(a->hostname, b->hostname);
		break;
	case DUP_BMC:
		c = strcasecmp(a->bmc, b->bmc);
		break;
	case DUP_UNIT:
		c = strcmp(a->rack, b->rack);
		if (!c)
			c = (a->unit > b->unit) - (a->unit < b->unit);
		break;
	}
	return c;
}

static int cmp_rows(const void *pa, const void *pb)
{
	const struct stg_manifest_row *a = *(const struct stg_manifest_row *const *)pa;
	const struct stg_manifest_row *b = *(const struct stg_manifest_row *const *)pb;
	int c = key_cmp(a, b);

	return c ? c : a->line - b->line;
}

static int has_key(const struct stg_manifest_row *r, enum dup_key key)
{
	switch (key) {
	case DUP_HOSTNAME:
		return r->hostname && *r->hostname;
	case DUP_BMC:
		return r->bmc && *r->bmc;
	case DUP_UNIT:
		return r->rack && *r->rack && r->unit > 0;
	}
	return 0;
}

/* Sort by each unique key and report every row that repeats the first row
 * of its group: hostnames, BMC addresses, and rack positions. */
static void check_duplicates(struct parse_state *ps)
{
	const struct stg_manifest *m = ps->m;
	const struct stg_manifest_row **v = br_xcalloc(m->n ? m->n : 1, sizeof(*v));

	for (int key = DUP_HOSTNAME; key <= DUP_UNIT; key++) {
		size_t n = 0;

		for (size_t i = 0; i < m->n; i++)
			if (has_key(&m->rows[i], (enum dup_key)key))
				v[n++] = &m->rows[i];
		sort_key = (enum dup_key)key;
		qsort(v, n, sizeof(*v), cmp_rows);
		for (size_t i = 1, first = 0; i < n; i++) {
			const struct stg_manifest_row *a = v[i], *b = v[first];

			if (key_cmp(v[i - 1], v[i])) {
				first = i;
				continue;
			}
			char *first_ref = row_ref(b);

			if (key == DUP_HOSTNAME)
				row_problem(ps, a, "hostname", "duplicate '%s' (first on %s)", a->hostname,
					    first_ref);
			else if (key == DUP_BMC)
				row_problem(ps, a, "bmc", "duplicate '%s' (also %s on %s)", a->bmc,
					    b->hostname, first_ref);
			else
				row_problem(ps, a, "unit", "rack %s unit %d is already taken by %s (%s)",
					    a->rack, a->unit, b->hostname, first_ref);
			free(first_ref);
		}
	}
	free(v);
}

static long problem_line(const char *msg, size_t prefix)
{
	long line = 0;

	for (const char *p = msg + prefix; *p >= '0' && *p <= '9'; p++)
		line = line * 10 + (*p - '0');
	return line;
}

struct ordered {
	long line;
	size_t seq;
	char *text;
};

static int cmp_ordered(const void *pa, const void *pb)
{
	const struct ordered *a = pa, *b = pb;

	if (a->line != b->line)
		return a->line < b->line ? -1 : 1;
	return (a->seq > b->seq) - (a->seq < b->seq);
}

/* Problems are found in passes (syntax, fields, duplicates); report them in
 * file order, keeping the pass order within a line. */
static void sort_by_line(struct br_strlist *problems, const char *path)
{
	size_t prefix = strlen(path) + 1;
	struct ordered *o = br_xcalloc(problems->n ? problems->n : 1, sizeof(*o));

	for (size_t i = 0; i < problems->n; i++)
		o[i] = (struct ordered){ problem_line(problems->items[i], prefix), i, problems->items[i] };
	qsort(o, problems->n, sizeof(*o), cmp_ordered);
	for (size_t i = 0; i < problems->n; i++)
		problems->items[i] = o[i].text;
	free(o);
}

void stg_manifest_release(struct stg_manifest *m)
{
	for (size_t i = 0; i < m->n; i++) {
		struct stg_manifest_row *r = &m->rows[i];

		free(r->hostname);
		free(r->rack);
		free(r->bmc);
		free(r->bmc_user);
		free(r->bmc_password);
		free(r->profile);
		free(r->bmc_type);
		free(r->boot_disk_serial);
		free(r->notes);
		free(r->serial);
		free(r->system);
		free(r->zone);
		free(r->power_domain);
		free(r->origin);
	}
	free(m->rows);
	free(m->path);
	memset(m, 0, sizeof(*m));
}

int stg_manifest_load(const char *path, const char *templates_dir, struct stg_manifest *ret,
		      struct br_strlist *ret_problems, struct br_err *err)
{
	struct stg_manifest m = { 0 };
	struct parse_state ps = { 0 };
	struct csv_parser parser;
	char *data = NULL, *p, *end;
	size_t len;
	int rc;

	rc = br_read_file(path, STG_MANIFEST_MAX_BYTES, &data, &len, err);
	if (rc)
		return rc;
	ps.path = path;
	ps.problems = ret_problems;
	ps.m = &m;
	/* A UTF-8 byte order mark, as spreadsheet programs save CSV: not part
	 * of the first column's name. */
	p = data;
	if (len >= 3 && !memcmp(data, "\xef\xbb\xbf", 3))
		p += 3;
	if (csv_init(&parser, CSV_STRICT | CSV_STRICT_FINI | CSV_APPEND_NULL)) {
		free(data);
		return br_errf(err, BR_E_NOMEM, "%s: cannot set up the CSV parser", path);
	}
	/* Feed one line at a time so a row's line number is known when libcsv
	 * reports its end. */
	for (ps.line = 1; p < data + len; p = end + 1, ps.line++) {
		end = memchr(p, '\n', (size_t)(data + len - p));
		if (!end)
			end = data + len;
		if (csv_parse(&parser, p, (size_t)(end - p) + (end < data + len), on_field, on_row, &ps) !=
		    (size_t)(end - p) + (end < data + len)) {
			problem(&ps, ps.line, NULL, "malformed CSV: %s", csv_strerror(csv_error(&parser)));
			break;
		}
	}
	if (csv_fini(&parser, on_field, on_row, &ps))
		problem(&ps, ps.line - 1, NULL, "malformed CSV: %s (unterminated quote?)",
			csv_strerror(csv_error(&parser)));
	csv_free(&parser);
	br_strlist_release(&ps.fields);
	free(data);
	if (!ps.header_done)
		problem(&ps, 1, NULL, "empty manifest: a header row is required");
	for (size_t i = 0; i < m.n; i++)
		validate_row(&ps, &m.rows[i], templates_dir);
	check_duplicates(&ps);
	sort_by_line(ret_problems, path);
	if (ret_problems->n) {
		stg_manifest_release(&m);
		return br_errf(err, BR_E_INVAL, "%s: %zu problem%s", path, ret_problems->n,
			       ret_problems->n == 1 ? "" : "s");
	}
	m.path = br_xstrdup(path);
	*ret = m;
	return 0;
}

int stg_manifest_check(struct stg_manifest *m, const char *templates_dir,
		       const struct stg_manifest_labels *labels, struct br_strlist *ret_problems,
		       struct br_err *err)
{
	struct parse_state ps = { 0 };

	ps.path = m->path ? m->path : "manifest";
	ps.labels = labels;
	ps.problems = ret_problems;
	ps.m = m;
	for (size_t i = 0; i < m->n; i++)
		validate_row(&ps, &m->rows[i], templates_dir);
	check_duplicates(&ps);
	if (ret_problems->n)
		return br_errf(err, BR_E_INVAL, "%s: %zu problem%s", ps.path, ret_problems->n,
			       ret_problems->n == 1 ? "" : "s");
	return 0;
}
