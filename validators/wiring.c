/* The wiring list: its three forms, checked row by row, and the number of
 * networks its links make. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cabling.h"

enum wcol { W_DEV_A, W_PORT_A, W_DEV_B, W_PORT_B, W_TYPE_A, W_TYPE_B, W_STATUS, W_ROLE, W_COUNT };

/* Each form: its name and, per column, the header that carries it (NULL:
 * the form has none). The first four are required. */
static const struct wiring_form {
	const char *name;
	const char *col[W_COUNT];
} forms[] = {
	/* role: what the cable is for ("provisioning": the PXE network) */
	{ "bringup", { "hostname", "host_port", "switch", "switch_port", NULL, NULL, NULL, "role" } },
	/* NetBox's cable bulk import (dcim.cable CSV): terminations by device,
	 * object type and name. */
	{ "netbox-import",
	  { "side_a_device", "side_a_name", "side_b_device", "side_b_name", "side_a_type", "side_b_type",
	    "status", NULL } },
	/* NetBox's cable list export, column labels as its table shows them. */
	{ "netbox-export",
	  { "Device A", "Termination A", "Device B", "Termination B", NULL, NULL, "Status", NULL } },
};

struct wiring_parse {
	struct val_wiring *w;
	struct br_strlist *problems;
	const struct wiring_form *form;
	int colmap[W_COUNT]; /* field index of each column, -1 if absent */
	int header_done;
};

static int header(struct wiring_parse *wp, unsigned line, const struct br_strlist *f)
{
	for (size_t k = 0; k < sizeof(forms) / sizeof(forms[0]); k++) {
		int found = 0;

		for (int c = 0; c < W_COUNT; c++) {
			wp->colmap[c] = -1;
			for (size_t i = 0; forms[k].col[c] && i < f->n; i++)
				if (!strcasecmp(f->items[i], forms[k].col[c]))
					wp->colmap[c] = (int)i;
			found += c <= W_PORT_B && wp->colmap[c] >= 0;
		}
		if (found == 4) {
			wp->form = &forms[k];
			wp->w->form = forms[k].name;
			return 0;
		}
	}
	br_csv_problem(
	    wp->problems, wp->w->path, line, "header",
	    "not a wiring list: want 'hostname,host_port,switch,switch_port', NetBox's cable import "
	    "(side_a_device,side_a_type,side_a_name,side_b_device,side_b_type,side_b_name) or its cable "
	    "export (Device A,Termination A,Device B,Termination B)");
	return 1;
}

static const char *field(const struct wiring_parse *wp, const struct br_strlist *f, enum wcol c)
{
	int i = wp->colmap[c];

	return i >= 0 && (size_t)i < f->n ? f->items[i] : NULL;
}

/* Leading and trailing blanks are a spreadsheet's, not a port name's. */
static char *trimmed(const char *s)
{
	size_t n;

	s += strspn(s, " \t\r");
	n = strlen(s);
	while (n && strchr(" \t\r", s[n - 1]))
		n--;
	return br_xstrndup(s, n);
}

/* The role column: empty (none), or one word of letters, digits, '-' and
 * '_', kept lowercase. NULL with *bad set when it is not such a word. */
static char *role_of(struct wiring_parse *wp, unsigned line, const struct br_strlist *f, int *bad)
{
	const char *s = field(wp, f, W_ROLE);
	char *r;

	if (!s)
		return NULL;
	r = trimmed(s);
	if (!*r) {
		free(r);
		return NULL;
	}
	if (strlen(r) > VAL_ROLE_MAX || r[strspn(r, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
						    "0123456789-_")]) {
		br_csv_problem(wp->problems, wp->w->path, line, wp->form->col[W_ROLE],
			       "not a role (one word of letters, digits, '-' and '_', at most %u; "
			       "'" VAL_ROLE_PROVISIONING "' marks the PXE network's cable)",
			       VAL_ROLE_MAX);
		free(r);
		*bad = 1;
		return NULL;
	}
	for (char *p = r; *p; p++)
		if (*p >= 'A' && *p <= 'Z')
			*p = (char)(*p - 'A' + 'a');
	return r;
}

static int on_row(void *ctx, unsigned line, const struct br_strlist *f)
{
	struct wiring_parse *wp = ctx;
	struct val_wiring *w = wp->w;
	char *v[4] = { 0 }, *role;
	const char *type_a, *type_b, *status;
	int bad = 0;

	if (!wp->header_done) {
		wp->header_done = 1;
		return header(wp, line, f);
	}
	type_a = field(wp, f, W_TYPE_A);
	type_b = field(wp, f, W_TYPE_B);
	status = field(wp, f, W_STATUS);
	/* A cable to a patch panel's front or rear port is one hop of a longer
	 * path; a planned or decommissioning one is not what is plugged in. */
	if ((type_a && *type_a && strcasecmp(type_a, "dcim.interface")) ||
	    (type_b && *type_b && strcasecmp(type_b, "dcim.interface")) ||
	    (status && *status && strcasecmp(status, "connected"))) {
		w->skipped++;
		return 0;
	}
	for (int c = 0; c < 4; c++) {
		const char *s = field(wp, f, (enum wcol)c);

		if (!s || !*s || !*(v[c] = trimmed(s))) {
			br_csv_problem(wp->problems, w->path, line, wp->form->col[c], "empty");
			bad = 1;
		} else if (strpbrk(v[c], "\n\x7f") || strlen(v[c]) > 255) {
			br_csv_problem(
			    wp->problems, w->path, line, wp->form->col[c],
			    "not a device or port name (a line break, DEL, or over 255 characters)");
			bad = 1;
		}
	}
	role = role_of(wp, line, f, &bad);
	if (!bad && !strcmp(v[0], v[2]) && !strcmp(v[1], v[3])) {
		br_csv_problem(wp->problems, w->path, line, wp->form->col[W_DEV_B],
			       "a cable from %s %s to itself", v[0], v[1]);
		bad = 1;
	}
	if (!bad && w->n >= VAL_WIRING_MAX_LINKS) {
		br_csv_problem(wp->problems, w->path, line, NULL, "more than %u links", VAL_WIRING_MAX_LINKS);
		bad = 1;
	}
	if (bad) {
		for (int c = 0; c < 4; c++)
			free(v[c]);
		free(role);
		return 0;
	}
	if (w->n == w->cap) {
		w->cap = w->cap ? w->cap * 2 : 64;
		w->links = br_xrealloc(w->links, w->cap * sizeof(*w->links));
	}
	w->links[w->n++] = (struct val_link){ v[0], v[1], v[2], v[3], line, role };
	return 0;
}

/* Ends, sorted by device then port, to find a port cabled twice. */
struct end {
	const char *dev, *port;
	unsigned line;
};

static int end_cmp(const void *a, const void *b)
{
	const struct end *x = a, *y = b;
	int c = strcmp(x->dev, y->dev);

	if (!c)
		c = strcmp(x->port, y->port);
	return c ? c : (x->line > y->line) - (x->line < y->line);
}

static void check_ends(struct val_wiring *w, struct br_strlist *problems)
{
	struct end *ends = br_xmalloc((w->n ? w->n : 1) * 2 * sizeof(*ends));

	for (size_t i = 0; i < w->n; i++) {
		ends[2 * i] = (struct end){ w->links[i].dev_a, w->links[i].port_a, w->links[i].line };
		ends[2 * i + 1] = (struct end){ w->links[i].dev_b, w->links[i].port_b, w->links[i].line };
	}
	qsort(ends, w->n * 2, sizeof(*ends), end_cmp);
	for (size_t i = 1; i < w->n * 2; i++)
		if (!strcmp(ends[i].dev, ends[i - 1].dev) && !strcmp(ends[i].port, ends[i - 1].port))
			br_csv_problem(problems, w->path, ends[i].line, NULL,
				       "%s %s is already cabled at line %u", ends[i].dev, ends[i].port,
				       ends[i - 1].line);
	free(ends);
}

void val_wiring_release(struct val_wiring *w)
{
	for (size_t i = 0; i < w->n; i++) {
		free(w->links[i].dev_a);
		free(w->links[i].port_a);
		free(w->links[i].dev_b);
		free(w->links[i].port_b);
		free(w->links[i].role);
	}
	for (size_t i = 0; w->ends && i < w->n * 2; i++)
		free(w->ends[i].key);
	free(w->ends);
	free(w->links);
	free(w->path);
	memset(w, 0, sizeof(*w));
}

int val_wiring_load(const char *path, struct val_wiring *ret, struct br_strlist *problems, struct br_err *err)
{
	struct val_wiring w = { .path = br_xstrdup(path) };
	struct wiring_parse wp = { .w = &w, .problems = problems };
	size_t before = problems->n;
	int rc;

	rc = br_csv_read(path, VAL_WIRING_MAX_BYTES, on_row, &wp, problems, err);
	if (rc) {
		val_wiring_release(&w);
		return br_err_prefix(err, "wiring list");
	}
	if (!wp.header_done)
		br_csv_problem(problems, path, 1, NULL, "empty wiring list: a header row is required");
	check_ends(&w, problems);
	if (problems->n > before) {
		size_t n = problems->n - before;

		val_wiring_release(&w);
		return br_errf(err, BR_E_INVAL, "%s: %zu problem%s", path, n, n == 1 ? "" : "s");
	}
	val_wiring_index(&w);
	*ret = w;
	return 0;
}

/* ---- components ------------------------------------------------------------ */

struct name_id {
	const char *name;
	size_t id;
};

static int name_cmp(const void *a, const void *b)
{
	return strcmp(((const struct name_id *)a)->name, ((const struct name_id *)b)->name);
}

static size_t find_root(size_t *parent, size_t i)
{
	while (parent[i] != i)
		i = parent[i] = parent[parent[i]];
	return i;
}

static size_t device_id(const struct name_id *names, size_t n, const char *dev)
{
	struct name_id key = { dev, 0 };
	const struct name_id *hit = bsearch(&key, names, n, sizeof(*names), name_cmp);

	return hit ? hit->id : 0;
}

size_t val_wiring_components(const struct val_wiring *w)
{
	struct name_id *names = br_xmalloc((w->n ? w->n : 1) * 2 * sizeof(*names));
	size_t *parent, ndev = 0, components = 0;

	for (size_t i = 0; i < w->n; i++) {
		names[2 * i].name = w->links[i].dev_a;
		names[2 * i + 1].name = w->links[i].dev_b;
	}
	qsort(names, w->n * 2, sizeof(*names), name_cmp);
	/* Number the distinct devices in sorted order. */
	for (size_t i = 0; i < w->n * 2; i++) {
		if (i && !strcmp(names[i].name, names[ndev - 1].name))
			continue;
		names[ndev].name = names[i].name;
		names[ndev].id = ndev;
		ndev++;
	}
	parent = br_xmalloc((ndev ? ndev : 1) * sizeof(*parent));
	for (size_t i = 0; i < ndev; i++)
		parent[i] = i;
	for (size_t i = 0; i < w->n; i++) {
		size_t a = find_root(parent, device_id(names, ndev, w->links[i].dev_a));
		size_t b = find_root(parent, device_id(names, ndev, w->links[i].dev_b));

		if (a != b)
			parent[a] = b;
	}
	for (size_t i = 0; i < ndev; i++)
		components += find_root(parent, i) == i;
	free(parent);
	free(names);
	return components;
}
