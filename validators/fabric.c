/* The InfiniBand fabric: ibnetdiscover's topology text parsed into cables,
 * and compared with the wiring list: missing, unexpected and exchanged
 * cables, devices discovery never reached, links trained slow. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cabling_private.h"

/* ---- parsing ----------------------------------------------------------------- */

/* The text between the first pair of double quotes at or after s. */
static char *quoted(const char *s, const char **ret_end)
{
	const char *a = strchr(s, '"'), *b = a ? strchr(a + 1, '"') : NULL;

	if (!b)
		return NULL;
	if (ret_end)
		*ret_end = b + 1;
	return br_xstrndup(a + 1, (size_t)(b - a - 1));
}

static int parse_node(struct ib_parse *ps, const char *line, unsigned lineno)
{
	const char *hash, *end;
	char *id = quoted(line, &end);

	if (!id) {
		br_csv_problem(ps->problems, ps->path, lineno, NULL, "a node line without its \"id\"");
		return -1;
	}
	hash = strchr(end, '#');
	ps->nodes = br_xrealloc(ps->nodes, (ps->nnodes + 1) * sizeof(*ps->nodes));
	ps->nodes[ps->nnodes++] =
	    (struct ib_node){ id, hash ? quoted(hash, NULL) : NULL, !strncmp(line, "Ca", 2) };
	return 0;
}

/* "[3]" or "[1](2c9030045f2b1)" then "remote-id"[n] then "# ... 4xNDR". */
static int parse_port(struct ib_parse *ps, const char *line, unsigned lineno)
{
	struct ib_half h = { .node = ps->nnodes - 1, .line = lineno };
	const char *p = line + 1, *hash, *end;
	char *stop;

	if (!ps->nnodes) {
		br_csv_problem(ps->problems, ps->path, lineno, NULL,
			       "a port line before any Switch or Ca line");
		return -1;
	}
	h.port = strtol(p, &stop, 10);
	if (stop == p || *stop != ']' || h.port < 0 || h.port > 255)
		goto bad;
	if (!(h.remote_id = quoted(stop, &end)) || *end != '[')
		goto bad;
	h.remote_port = strtol(end + 1, &stop, 10);
	if (stop == end + 1 || *stop != ']' || h.remote_port < 0 || h.remote_port > 255)
		goto bad;
	hash = strchr(stop, '#');
	if (hash) {
		const char *last = NULL;

		h.remote_desc = quoted(hash, NULL);
		/* The rate is the last word: width x speed, "4xNDR". */
		for (const char *w = hash; *w; w++)
			if ((w == hash || isspace((unsigned char)w[-1])) && isdigit((unsigned char)*w))
				last = w;
		if (last && strchr(last, 'x'))
			h.rate = br_xstrndup(last, strcspn(last, " \t\r\n"));
	}
	ps->halves = br_xrealloc(ps->halves, (ps->nhalves + 1) * sizeof(*ps->halves));
	ps->halves[ps->nhalves++] = h;
	return 0;
bad:
	free(h.remote_id);
	br_csv_problem(ps->problems, ps->path, lineno, NULL,
		       "not an ibnetdiscover port line (want [PORT] \"REMOTE-ID\"[PORT])");
	return -1;
}

/* A kernel RDMA device name as rdma-ndd's default NodeDescription "%h %d"
 * ends with it ("mlx5_0", "hfi1_0", "irdma0"), or OFED's older "HCA-1". */
static int rdma_device_name(const char *s, size_t n)
{
	size_t i = 0;

	if (n > 4 && !strncmp(s, "HCA-", 4)) {
		for (i = 4; i < n && isdigit((unsigned char)s[i]); i++)
			;
		return i == n;
	}
	while (i < n && islower((unsigned char)s[i]))
		i++;
	if (!i || i == n)
		return 0;
	for (; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_')
			return 0;
	return isdigit((unsigned char)s[n - 1]);
}

/* The node's GUID from its id ("H-0008f10403960558"), as node-name-map
 * files write it: "0x0008f10403960558". */
static char *guid_name(const char *id)
{
	const char *dash = id ? strchr(id, '-') : NULL;

	return br_xasprintf("0x%s", dash ? dash + 1 : (id ? id : "?"));
}

/* Device and port as the wiring list names them. A NodeDescription names
 * a device only where a person or a tool set it: a switch's
 * "MF0;<hostname>:<model>/U1" (NVIDIA's switch OS), a name of one word (a
 * node-name-map, which ibnetdiscover applies itself), a host adapter's
 * "<host> <rdma device>". Anything else is the factory's text ("MT4129
 * ConnectX7   Mellanox Technologies", "SwitchIB Mellanox Technologies"),
 * the same on every device of a model, so the device is its GUID. */
static void name_end(const char *id, const char *desc, int is_ca, long port, char **ret_dev, char **ret_port)
{
	const char *semi = desc ? strchr(desc, ';') : NULL, *colon = semi ? strchr(semi, ':') : NULL;
	size_t n = desc ? strcspn(desc, " \t") : 0;
	const char *rest = desc ? desc + n + strspn(desc + n, " \t") : NULL;

	if (!is_ca && semi && colon && colon > semi + 1) {
		*ret_dev = br_xstrndup(semi + 1, (size_t)(colon - semi - 1));
		*ret_port = br_xasprintf("%ld", port);
	} else if (desc && n && !*rest) {
		*ret_dev = br_xstrndup(desc, n);
		*ret_port = br_xasprintf("%ld", port);
	} else if (is_ca && desc && n && rdma_device_name(rest, strlen(rest))) {
		*ret_dev = br_xstrndup(desc, n);
		*ret_port = br_xasprintf("%s/%ld", rest, port);
	} else {
		*ret_dev = guid_name(id);
		*ret_port = br_xasprintf("%ld", port);
	}
}

static const struct ib_node *node_by_id(const struct ib_parse *ps, const char *id)
{
	for (size_t i = 0; i < ps->nnodes; i++)
		if (!strcmp(ps->nodes[i].id, id))
			return &ps->nodes[i];
	return NULL;
}

/* Every cable appears twice, once from each end: keep the end whose node
 * id sorts first (or the only one when the other node was not listed). */
void val_ibparse_links(const struct ib_parse *ps, struct val_ibnet *net)
{
	for (size_t i = 0; i < ps->nhalves && net->n < VAL_IBNET_MAX_LINKS; i++) {
		const struct ib_half *h = &ps->halves[i];
		const struct ib_node *me = &ps->nodes[h->node], *peer = node_by_id(ps, h->remote_id);
		int cmp = strcmp(me->id, h->remote_id);
		struct val_ibnet_link *l;

		if (peer && (cmp > 0 || (cmp == 0 && h->port > h->remote_port)))
			continue;
		if (net->n == net->cap) {
			net->cap = net->cap ? net->cap * 2 : 64;
			net->links = br_xrealloc(net->links, net->cap * sizeof(*net->links));
		}
		l = &net->links[net->n++];
		memset(l, 0, sizeof(*l));
		name_end(me->id, me->desc, me->is_ca, h->port, &l->dev_a, &l->port_a);
		l->switch_a = !me->is_ca;
		l->switch_b = peer ? !peer->is_ca : h->remote_id[0] == 'S';
		name_end(h->remote_id, peer ? peer->desc : h->remote_desc, !l->switch_b, h->remote_port,
			 &l->dev_b, &l->port_b);
		l->rate = h->rate ? br_xstrdup(h->rate) : NULL;
		l->line = h->line;
	}
}

void val_ibparse_release(struct ib_parse *ps)
{
	for (size_t i = 0; i < ps->nnodes; i++) {
		free(ps->nodes[i].id);
		free(ps->nodes[i].desc);
	}
	for (size_t i = 0; i < ps->nhalves; i++) {
		free(ps->halves[i].remote_id);
		free(ps->halves[i].remote_desc);
		free(ps->halves[i].rate);
	}
	free(ps->nodes);
	free(ps->halves);
}

int val_ibnet_parse(const char *text, size_t len, const char *name, struct val_ibnet *ret,
		    struct br_strlist *problems, struct br_err *err)
{
	struct ib_parse ps = { .path = name, .problems = problems };
	struct val_ibnet net = { 0 };
	size_t before = problems->n;
	char *data = br_xstrndup(text, len), *line, *next;
	unsigned lineno = 1;

	/* iblinkinfo's output is accepted too: the same cables, read another way */
	int linkinfo = val_iblinkinfo_is(data);
	const char *tool = linkinfo ? "iblinkinfo" : "ibnetdiscover";

	if (strlen(data) != len)
		br_csv_problem(problems, name, 1, NULL, "a NUL byte: not %s's text output", tool);
	else if (linkinfo)
		val_iblinkinfo_parse(&ps, data);
	for (line = linkinfo ? NULL : data; problems->n == before && line && *line; line = next, lineno++) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		line += strspn(line, " \t");
		if (!*line || *line == '#' || *line == '\r' ||
		    strchr(line, '=') == line + strcspn(line, " \t="))
			continue; /* comments, vendid=, devid=, sysimgguid=, switchguid=, caguid= */
		/* ibnetdiscover -g's headers; its node and port lines are the same */
		if (!strncmp(line, "Non-Chassis Nodes", 17) || !strncmp(line, "Chassis ", 8))
			continue;
		if (!strncmp(line, "Switch", 6) || !strncmp(line, "Ca", 2) || !strncmp(line, "Rt", 2))
			parse_node(&ps, line, lineno);
		else if (*line == '[')
			parse_port(&ps, line, lineno);
		else
			br_csv_problem(problems, name, lineno, NULL,
				       "not ibnetdiscover output (run it without -p/-g)");
	}
	if (problems->n == before && !ps.nnodes)
		br_csv_problem(problems, name, 1, NULL, "no Switch or Ca line: not %s output", tool);
	if (problems->n == before)
		val_ibparse_links(&ps, &net);
	val_ibparse_release(&ps);
	free(data);
	if (problems->n > before) {
		val_ibnet_release(&net);
		return br_errf(err, BR_E_INVAL, "%s: not usable %s output", name, tool);
	}
	net.path = br_xstrdup(name);
	*ret = net;
	return 0;
}

int val_ibnet_load(const char *path, struct val_ibnet *ret, struct br_strlist *problems, struct br_err *err)
{
	char *data = NULL;
	size_t len;
	int rc = br_read_file(path, VAL_IBNET_MAX_BYTES, &data, &len, err);

	if (rc)
		return br_err_prefix(err, "ibnetdiscover output");
	rc = val_ibnet_parse(data, len, path, ret, problems, err);
	free(data);
	return rc;
}

void val_ibnet_release(struct val_ibnet *net)
{
	for (size_t i = 0; i < net->n; i++) {
		free(net->links[i].dev_a);
		free(net->links[i].port_a);
		free(net->links[i].dev_b);
		free(net->links[i].port_b);
		free(net->links[i].rate);
	}
	free(net->links);
	free(net->path);
	memset(net, 0, sizeof(*net));
}

/* ---- judging ------------------------------------------------------------------ */

/* A cable as a comparable key: both ends ("dev\nport"), smaller first. An
 * adapter's single port may be written "mlx5_0" or "mlx5_0/1". */
struct cable {
	char *key;
	const char *dev_a, *port_a, *dev_b, *port_b; /* borrowed, for messages */
	const char *rate;
	unsigned line; /* design: the wiring line */
	int used;      /* 1: matched, 2: told as part of a swap */
};

static char *end_key(const char *dev, const char *port)
{
	struct br_buf b;
	size_t n = strlen(port);

	if (n > 2 && !strcmp(port + n - 2, "/1"))
		n -= 2;
	br_buf_init(&b, 0);
	val_add_device_key(&b, dev);
	br_buf_adds(&b, "\t");
	for (size_t i = 0; i < n; i++)
		br_buf_add(&b, &(char){ (char)tolower((unsigned char)port[i]) }, 1);
	return br_buf_detach(&b);
}

static char *cable_key(const char *da, const char *pa, const char *db, const char *pb)
{
	char *a = end_key(da, pa), *b = end_key(db, pb);
	char *key = strcmp(a, b) < 0 ? br_xasprintf("%s\n%s", a, b) : br_xasprintf("%s\n%s", b, a);

	free(a);
	free(b);
	return key;
}

static int cable_cmp(const void *x, const void *y)
{
	return strcmp(((const struct cable *)x)->key, ((const struct cable *)y)->key);
}

static struct cable *find_cable(struct cable *set, size_t n, const char *key)
{
	struct cable probe = { .key = (char *)(uintptr_t)key };

	return bsearch(&probe, set, n, sizeof(*set), cable_cmp);
}

/* Add a finding about dev_a and dev_b (either may be NULL). */
static struct val_fabric_finding *add_finding(struct val_fabric_result *r, enum val_cable_kind kind,
					      char *text_take, const char *dev_a, const char *dev_b)
{
	struct val_fabric_finding *f;

	r->findings = br_xrealloc(r->findings, (r->n + 1) * sizeof(*r->findings));
	f = &r->findings[r->n++];
	*f = (struct val_fabric_finding){ kind, text_take, { 0 }, 0, 0, NULL, NULL };
	if (dev_a)
		br_strlist_add(&f->devices, dev_a);
	if (dev_b)
		br_strlist_add(&f->devices, dev_b);
	return f;
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The device keys discovery reached, sorted: 2 per cable. */
static char **seen_devices(const struct val_ibnet *net)
{
	char **keys = br_xmalloc((net->n ? net->n : 1) * 2 * sizeof(*keys));

	for (size_t i = 0; i < net->n * 2; i++) {
		struct br_buf b;

		br_buf_init(&b, 0);
		val_add_device_key(&b, i % 2 ? net->links[i / 2].dev_b : net->links[i / 2].dev_a);
		keys[i] = br_buf_detach(&b);
		if (!keys[i])
			keys[i] = br_xstrdup("");
	}
	qsort(keys, net->n * 2, sizeof(*keys), str_cmp);
	return keys;
}

static int reached(char *const *keys, size_t n, const char *dev)
{
	struct br_buf b;
	const char *key;
	int hit;

	br_buf_init(&b, 0);
	val_add_device_key(&b, dev);
	key = br_buf_str(&b);
	hit = bsearch(&key, keys, n, sizeof(*keys), str_cmp) != NULL;
	br_buf_release(&b);
	return hit;
}

/* Two unexpected cables u and v are an exchange when the design has the
 * cables their ends make crosswise; those two are marked as told. */
static int exchanged(struct cable *design, size_t nd, const struct cable *u, const struct cable *v)
{
	for (int flip = 0; flip < 2; flip++) {
		const char *vd = flip ? v->dev_b : v->dev_a, *vp = flip ? v->port_b : v->port_a;
		const char *wd = flip ? v->dev_a : v->dev_b, *wp = flip ? v->port_a : v->port_b;
		char *k1 = cable_key(u->dev_a, u->port_a, wd, wp),
		     *k2 = cable_key(u->dev_b, u->port_b, vd, vp);
		struct cable *d1 = find_cable(design, nd, k1), *d2 = find_cable(design, nd, k2);

		free(k1);
		free(k2);
		if (d1 && d2 && !d1->used && !d2->used) {
			d1->used = d2->used = 2;
			return 1;
		}
	}
	return 0;
}

/* ---- separate fabrics: components of the switch graph ------------------------- */

struct sw_graph {
	char **keys; /* switch device keys, sorted, unique */
	size_t n;
	size_t *parent;
};

static char *device_key(const char *dev)
{
	struct br_buf b;
	char *key;

	br_buf_init(&b, 0);
	val_add_device_key(&b, dev);
	key = br_buf_detach(&b);
	return key ? key : br_xstrdup("");
}

static void graph_add_key(char ***keys, size_t *n, size_t *cap, const char *dev)
{
	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 64;
		*keys = br_xrealloc(*keys, *cap * sizeof(**keys));
	}
	(*keys)[(*n)++] = device_key(dev);
}

static void graph_seal(struct sw_graph *g)
{
	size_t u = 0;

	if (g->n)
		qsort(g->keys, g->n, sizeof(*g->keys), str_cmp);
	for (size_t i = 0; i < g->n; i++) {
		if (u && !strcmp(g->keys[i], g->keys[u - 1])) {
			free(g->keys[i]);
			continue;
		}
		g->keys[u++] = g->keys[i];
	}
	g->n = u;
	g->parent = br_xmalloc((g->n ? g->n : 1) * sizeof(*g->parent));
	for (size_t i = 0; i < g->n; i++)
		g->parent[i] = i;
}

static long graph_find(const struct sw_graph *g, const char *dev)
{
	char *key, **hit;

	if (!g->n)
		return -1;
	key = device_key(dev);
	hit = bsearch(&key, g->keys, g->n, sizeof(*g->keys), str_cmp);

	free(key);
	return hit ? (long)(hit - g->keys) : -1;
}

static size_t graph_root(const struct sw_graph *g, size_t i)
{
	while (g->parent[i] != i) {
		g->parent[i] = g->parent[g->parent[i]];
		i = g->parent[i];
	}
	return i;
}

static void graph_join(struct sw_graph *g, const char *a, const char *b)
{
	long x = graph_find(g, a), y = graph_find(g, b);

	if (x >= 0 && y >= 0 && graph_root(g, (size_t)x) != graph_root(g, (size_t)y))
		g->parent[graph_root(g, (size_t)x)] = graph_root(g, (size_t)y);
}

static size_t graph_components(const struct sw_graph *g)
{
	size_t c = 0;

	for (size_t i = 0; i < g->n; i++)
		c += graph_root(g, i) == i;
	return c;
}

/* "{leaf01, spine01}; {leaf02, spine02}": each component's switches. */
static void graph_describe(const struct sw_graph *g, struct br_buf *out)
{
	size_t shown = 0;

	for (size_t r = 0; r < g->n; r++) {
		size_t listed = 0;

		if (graph_root(g, r) != r)
			continue;
		if (shown++ == VAL_DETAIL_ITEMS_MAX) {
			br_buf_adds(out, "; and more");
			return;
		}
		br_buf_adds(out, shown > 1 ? "; {" : "{");
		for (size_t i = 0; i < g->n; i++) {
			if (graph_root(g, i) != r)
				continue;
			if (listed++ == VAL_DETAIL_ITEMS_MAX) {
				br_buf_adds(out, ", ...");
				break;
			}
			br_buf_addf(out, "%s%s", listed > 1 ? ", " : "", g->keys[i]);
		}
		br_buf_adds(out, "}");
	}
}

static void graph_release(struct sw_graph *g)
{
	for (size_t i = 0; i < g->n; i++)
		free(g->keys[i]);
	free(g->keys);
	free(g->parent);
}

static int all_digits(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return 0;
	return 1;
}

/* The switches discovery saw: type known from its own node lines. */
static void seen_graph(const struct val_ibnet *net, struct sw_graph *g, struct sw_graph *cas)
{
	size_t cap = 0, ccap = 0;

	memset(g, 0, sizeof(*g));
	memset(cas, 0, sizeof(*cas));
	for (size_t i = 0; i < net->n; i++) {
		const struct val_ibnet_link *l = &net->links[i];

		if (l->switch_a)
			graph_add_key(&g->keys, &g->n, &cap, l->dev_a);
		else
			graph_add_key(&cas->keys, &cas->n, &ccap, l->dev_a);
		if (l->switch_b)
			graph_add_key(&g->keys, &g->n, &cap, l->dev_b);
		else
			graph_add_key(&cas->keys, &cas->n, &ccap, l->dev_b);
	}
	graph_seal(g);
	graph_seal(cas);
	for (size_t i = 0; i < net->n; i++)
		if (net->links[i].switch_a && net->links[i].switch_b)
			graph_join(g, net->links[i].dev_a, net->links[i].dev_b);
}

/* A design device is a switch when discovery saw it as one; one it did
 * not see, when every port the wiring list gives it is a number (an
 * InfiniBand switch's ports are; an adapter's are "mlx5_0/1"). */
static int design_switch(const struct sw_graph *seen_sw, const struct sw_graph *seen_ca,
			 const struct sw_graph *named_ports, const char *dev)
{
	if (graph_find(seen_sw, dev) >= 0)
		return 1;
	return graph_find(seen_ca, dev) < 0 && graph_find(named_ports, dev) < 0;
}

static void design_graph(const struct val_wiring *w, const struct sw_graph *seen_sw,
			 const struct sw_graph *seen_ca, struct sw_graph *g)
{
	size_t cap = 0, ncap = 0;
	int *sw_a = br_xcalloc(w->n ? w->n : 1, sizeof(*sw_a)),
	    *sw_b = br_xcalloc(w->n ? w->n : 1, sizeof(*sw_b));
	struct sw_graph named = { 0 };

	for (size_t i = 0; i < w->n; i++) {
		if (!all_digits(w->links[i].port_a))
			graph_add_key(&named.keys, &named.n, &ncap, w->links[i].dev_a);
		if (!all_digits(w->links[i].port_b))
			graph_add_key(&named.keys, &named.n, &ncap, w->links[i].dev_b);
	}
	graph_seal(&named);
	memset(g, 0, sizeof(*g));
	for (size_t i = 0; i < w->n; i++) {
		sw_a[i] = design_switch(seen_sw, seen_ca, &named, w->links[i].dev_a);
		sw_b[i] = design_switch(seen_sw, seen_ca, &named, w->links[i].dev_b);
		if (sw_a[i])
			graph_add_key(&g->keys, &g->n, &cap, w->links[i].dev_a);
		if (sw_b[i])
			graph_add_key(&g->keys, &g->n, &cap, w->links[i].dev_b);
	}
	graph_seal(g);
	for (size_t i = 0; i < w->n; i++)
		if (sw_a[i] && sw_b[i])
			graph_join(g, w->links[i].dev_a, w->links[i].dev_b);
	graph_release(&named);
	free(sw_a);
	free(sw_b);
}

/* ---- separate fabrics seen: one finding each ---------------------------------- */

static void sort_unique(struct br_strlist *l)
{
	size_t u = 0;

	if (l->n)
		qsort(l->items, l->n, sizeof(*l->items), str_cmp);
	for (size_t i = 0; i < l->n; i++) {
		if (u && !strcmp(l->items[i], l->items[u - 1])) {
			free(l->items[i]);
			continue;
		}
		l->items[u++] = l->items[i];
	}
	l->n = u;
}

static void add_list(struct br_buf *b, const struct br_strlist *l, const char *sep)
{
	for (size_t i = 0; i < l->n; i++) {
		if (i == VAL_FABRIC_LIST_MAX) {
			br_buf_addf(b, "%sand %zu more", sep, l->n - i);
			return;
		}
		br_buf_addf(b, "%s%s", i ? sep : "", l->items[i]);
	}
}

/* One VAL_CABLE_SPLIT finding per component of the switch graph seen: its
 * switches, the hosts cabled to them, and the designed cables not seen
 * whose two switches are in different components (those would join it to
 * the rest). Components are numbered in the order of their first switch. */
static void split_findings(struct val_fabric_result *r, const struct val_ibnet *net,
			   const struct sw_graph *sw, const struct cable *design, size_t nd)
{
	size_t *part_of_root = br_xmalloc((sw->n ? sw->n : 1) * sizeof(*part_of_root)), nparts = 0;
	struct br_strlist *switches, *hosts, *joins;

	for (size_t i = 0; i < sw->n; i++)
		part_of_root[i] = SIZE_MAX;
	for (size_t i = 0; i < sw->n; i++) {
		size_t root = graph_root(sw, i);

		if (part_of_root[root] == SIZE_MAX)
			part_of_root[root] = nparts++;
	}
	switches = br_xcalloc(nparts, sizeof(*switches));
	hosts = br_xcalloc(nparts, sizeof(*hosts));
	joins = br_xcalloc(nparts, sizeof(*joins));
	for (size_t i = 0; i < sw->n; i++)
		br_strlist_add(&switches[part_of_root[graph_root(sw, i)]], sw->keys[i]);
	for (size_t i = 0; i < net->n; i++) {
		const struct val_ibnet_link *l = &net->links[i];
		long at = l->switch_a && !l->switch_b	? graph_find(sw, l->dev_a)
			  : !l->switch_a && l->switch_b ? graph_find(sw, l->dev_b)
							: -1;

		if (at >= 0)
			br_strlist_add(&hosts[part_of_root[graph_root(sw, (size_t)at)]],
				       l->switch_a ? l->dev_b : l->dev_a);
	}
	for (size_t i = 0; i < nd; i++) {
		long a = design[i].used ? -1 : graph_find(sw, design[i].dev_a),
		     b = design[i].used ? -1 : graph_find(sw, design[i].dev_b);
		size_t pa, pb;
		char *text;

		if (a < 0 || b < 0)
			continue;
		pa = part_of_root[graph_root(sw, (size_t)a)];
		pb = part_of_root[graph_root(sw, (size_t)b)];
		if (pa == pb)
			continue;
		text = br_xasprintf("%s %s - %s %s (wiring line %u)", design[i].dev_a, design[i].port_a,
				    design[i].dev_b, design[i].port_b, design[i].line);
		br_strlist_add(&joins[pa], text);
		br_strlist_add(&joins[pb], text);
		free(text);
	}
	for (size_t k = 0; k < nparts; k++) {
		struct val_fabric_finding *f;
		struct br_buf b, brief;

		sort_unique(&hosts[k]);
		br_buf_init(&b, 0);
		br_buf_init(&brief, 0);
		br_buf_addf(&brief, "separate fabric %zu of %zu (switches ", k + 1, nparts);
		add_list(&brief, &switches[k], ", ");
		br_buf_adds(&brief, ")");
		br_buf_addf(&b, "%s, the wiring list making %zu: %zu host%s on it: ", br_buf_str(&brief),
			    r->design_components, hosts[k].n, hosts[k].n == 1 ? "" : "s");
		add_list(&b, &hosts[k], ", ");
		if (joins[k].n) {
			br_buf_addf(&b, "; %zu designed cable%s that would join it to the others not seen: ",
				    joins[k].n, joins[k].n == 1 ? "" : "s");
			add_list(&b, &joins[k], "; ");
			br_buf_adds(&b, ": cable them as the wiring list says");
		} else {
			br_buf_adds(&b, "; no designed cable joins it to the others: fix the design");
		}
		f = add_finding(r, VAL_CABLE_SPLIT, br_buf_detach(&b), NULL, NULL);
		f->part = k + 1;
		f->brief = br_buf_detach(&brief);
		for (size_t i = 0; i < switches[k].n; i++)
			br_strlist_add(&f->devices, switches[k].items[i]);
		for (size_t i = 0; i < hosts[k].n; i++)
			br_strlist_add(&f->devices, hosts[k].items[i]);
		br_strlist_release(&switches[k]);
		br_strlist_release(&joins[k]);
	}
	/* Owners among all the hosts seen, by name. */
	{
		struct br_strlist all = { 0 };

		for (size_t k = 0; k < nparts; k++) {
			for (size_t i = 0; i < hosts[k].n; i++)
				br_strlist_add(&all, hosts[k].items[i]);
			br_strlist_release(&hosts[k]);
		}
		sort_unique(&all);
		val_fabric_owners(r, (const char *const *)all.items, all.n);
		br_strlist_release(&all);
	}
	free(switches);
	free(hosts);
	free(joins);
	free(part_of_root);
}

void val_fabric_judge(const struct val_wiring *w, const struct val_ibnet *net, const char *expected_rate,
		      struct val_fabric_result *ret)
{
	struct val_fabric_result r = { 0 };
	struct cable *design = br_xcalloc(w->n ? w->n : 1, sizeof(*design));
	struct cable *seen = br_xcalloc(net->n ? net->n : 1, sizeof(*seen));
	char **devices = seen_devices(net);
	struct sw_graph seen_sw, seen_ca, design_sw;
	struct br_strlist unreached = { 0 };
	struct br_buf b;

	for (size_t i = 0; i < w->n; i++) {
		const struct val_link *l = &w->links[i];

		design[i] = (struct cable){ cable_key(l->dev_a, l->port_a, l->dev_b, l->port_b),
					    l->dev_a,
					    l->port_a,
					    l->dev_b,
					    l->port_b,
					    NULL,
					    l->line,
					    0 };
	}
	for (size_t i = 0; i < net->n; i++) {
		const struct val_ibnet_link *l = &net->links[i];

		seen[i] = (struct cable){ cable_key(l->dev_a, l->port_a, l->dev_b, l->port_b),
					  l->dev_a,
					  l->port_a,
					  l->dev_b,
					  l->port_b,
					  l->rate,
					  l->line,
					  0 };
	}
	qsort(design, w->n, sizeof(*design), cable_cmp);
	qsort(seen, net->n, sizeof(*seen), cable_cmp);
	r.design_links = w->n;
	r.seen_links = net->n;
	seen_graph(net, &seen_sw, &seen_ca);
	design_graph(w, &seen_sw, &seen_ca, &design_sw);
	/* No switch at all (hosts cabled back to back): the devices' graph. */
	r.design_components = design_sw.n ? graph_components(&design_sw) : val_wiring_components(w);
	r.seen_components = graph_components(&seen_sw);
	for (size_t i = 0; i < net->n; i++) {
		struct cable *d = find_cable(design, w->n, seen[i].key);

		if (!d)
			continue;
		d->used = seen[i].used = 1;
		r.matched++;
		if (expected_rate && seen[i].rate && strcasecmp(seen[i].rate, expected_rate))
			add_finding(
			    &r, VAL_CABLE_SLOW,
			    br_xasprintf(
				"%s %s - %s %s (wiring line %u) trained at %s, expected %s: reseat or "
				"replace the cable",
				d->dev_a, d->port_a, d->dev_b, d->port_b, d->line, seen[i].rate,
				expected_rate),
			    d->dev_a, d->dev_b);
	}
	/* Exchanged pairs first, so each is told once, as a swap. */
	for (size_t i = 0; i < net->n; i++)
		for (size_t j = i + 1; j < net->n && !seen[i].used; j++)
			if (!seen[j].used && exchanged(design, w->n, &seen[i], &seen[j])) {
				seen[i].used = seen[j].used = 2;
				add_finding(
				    &r, VAL_CABLE_SWAPPED,
				    br_xasprintf(
					"%s %s and %s %s are exchanged (seen %s %s - %s %s and %s %s - %s "
					"%s): swap them",
					seen[i].dev_a, seen[i].port_a, seen[j].dev_a, seen[j].port_a,
					seen[i].dev_a, seen[i].port_a, seen[i].dev_b, seen[i].port_b,
					seen[j].dev_a, seen[j].port_a, seen[j].dev_b, seen[j].port_b),
				    seen[i].dev_a, seen[i].dev_b);
				br_strlist_add(&r.findings[r.n - 1].devices, seen[j].dev_a);
				br_strlist_add(&r.findings[r.n - 1].devices, seen[j].dev_b);
			}
	for (size_t i = 0; i < net->n; i++)
		if (!seen[i].used)
			add_finding(&r, VAL_CABLE_UNEXPECTED,
				    br_xasprintf("%s %s - %s %s is cabled but not in the wiring list",
						 seen[i].dev_a, seen[i].port_a, seen[i].dev_b,
						 seen[i].port_b),
				    seen[i].dev_a, seen[i].dev_b);
	for (size_t i = 0; i < w->n; i++) {
		if (design[i].used)
			continue;
		/* A cable between two devices discovery never reached is told
		 * once, with the devices, below. */
		if (reached(devices, net->n * 2, design[i].dev_a) ||
		    reached(devices, net->n * 2, design[i].dev_b))
			add_finding(
			    &r, VAL_CABLE_MISSING,
			    br_xasprintf(
				"%s %s - %s %s (wiring line %u) not seen: check the cable at both ends",
				design[i].dev_a, design[i].port_a, design[i].dev_b, design[i].port_b,
				design[i].line),
			    design[i].dev_a, design[i].dev_b);
	}
	/* Designed devices never reached: behind a missing cable, powered off,
	 * or on a network of their own. */
	br_buf_init(&b, 0);
	for (size_t i = 0; i < w->n * 2; i++) {
		const struct val_link *l = &w->links[w->ends[i].link];
		const char *dev = w->ends[i].side ? l->dev_b : l->dev_a;

		if (i && !strncmp(w->ends[i].key, w->ends[i - 1].key, strcspn(w->ends[i].key, "\n") + 1))
			continue;
		if (reached(devices, net->n * 2, dev))
			continue;
		r.unreachable++;
		br_buf_addf(&b, "%s%s", b.len ? ", " : "", dev);
		br_strlist_add(&unreached, dev);
	}
	if (r.unreachable)
		add_finding(&r, VAL_CABLE_UNREACHABLE,
			    br_xasprintf("%zu designed device%s not reached by discovery: %s", r.unreachable,
					 r.unreachable == 1 ? "" : "s", br_buf_str(&b)),
			    NULL, NULL)
		    ->devices = unreached;
	else
		br_strlist_release(&unreached);
	br_buf_release(&b);
	if (design_sw.n && r.design_components > 1) {
		br_buf_init(&b, 0);
		graph_describe(&design_sw, &b);
		add_finding(&r, VAL_CABLE_UNREACHABLE,
			    br_xasprintf("the wiring list makes %zu separate fabrics, switch groups no cable "
					 "joins (hosts do not forward between them): %s: fix the design",
					 r.design_components, br_buf_str(&b)),
			    NULL, NULL)
		    ->whole_fabric = 1;
		br_buf_release(&b);
	}
	if (r.seen_components > 1)
		split_findings(&r, net, &seen_sw, design, w->n);
	br_buf_init(&b, 0);
	br_buf_addf(&b,
		    "%zu of %zu designed cables seen, %zu seen in all; the wiring list makes %zu fabric%s",
		    r.matched, r.design_links, r.seen_links, r.design_components,
		    r.design_components == 1 ? "" : "s");
	for (size_t i = 0; i < r.n; i++)
		br_buf_addf(&b, "; %s", r.findings[i].text);
	r.detail = br_buf_detach(&b);
	r.result = r.n || r.design_components > 1 ? VAL_FAIL : VAL_PASS;
	graph_release(&seen_sw);
	graph_release(&seen_ca);
	graph_release(&design_sw);
	for (size_t i = 0; i < w->n; i++)
		free(design[i].key);
	for (size_t i = 0; i < net->n; i++)
		free(seen[i].key);
	for (size_t i = 0; i < net->n * 2; i++)
		free(devices[i]);
	free(devices);
	free(design);
	free(seen);
	*ret = r;
}

void val_fabric_result_release(struct val_fabric_result *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->findings[i].text);
		free(r->findings[i].owner);
		free(r->findings[i].brief);
		br_strlist_release(&r->findings[i].devices);
	}
	free(r->findings);
	free(r->detail);
	memset(r, 0, sizeof(*r));
}

static int same_device(const char *a, const char *b)
{
	char *ka = device_key(a), *kb = device_key(b);
	int same = !strcmp(ka, kb);

	free(ka);
	free(kb);
	return same;
}

static int names(const struct val_fabric_finding *f, const char *dev)
{
	for (size_t k = 0; k < f->devices.n; k++)
		if (same_device(f->devices.items[k], dev))
			return 1;
	return 0;
}

static int owns_one(const struct val_fabric_result *r, const char *host)
{
	for (size_t j = 0; j < r->n; j++)
		if (r->findings[j].kind == VAL_CABLE_SPLIT && r->findings[j].owner &&
		    same_device(r->findings[j].owner, host))
			return 1;
	return 0;
}

void val_fabric_owners_keep(struct val_fabric_result *r, const char *const *hosts, size_t n,
			    const char *const *kept, const size_t *kept_part, size_t n_kept)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->findings[i].owner);
		r->findings[i].owner = NULL;
	}
	for (size_t i = 0; i < r->n; i++) {
		struct val_fabric_finding *f = &r->findings[i];

		for (size_t k = 0; f->kind == VAL_CABLE_SPLIT && k < n_kept && !f->owner; k++)
			if (kept_part[k] == f->part && names(f, kept[k]) && !owns_one(r, kept[k]))
				f->owner = br_xstrdup(kept[k]);
	}
	for (size_t i = 0; i < r->n; i++) {
		struct val_fabric_finding *f = &r->findings[i];
		const char *first = NULL, *free_one = NULL;

		if (f->kind != VAL_CABLE_SPLIT || f->owner)
			continue;
		for (size_t h = 0; h < n && !free_one; h++) {
			if (!names(f, hosts[h]))
				continue;
			if (!first)
				first = hosts[h];
			if (!owns_one(r, hosts[h]))
				free_one = hosts[h];
		}
		if (free_one || first)
			f->owner = br_xstrdup(free_one ? free_one : first);
	}
}

void val_fabric_owners(struct val_fabric_result *r, const char *const *hosts, size_t n)
{
	val_fabric_owners_keep(r, hosts, n, NULL, NULL, 0);
}

void val_ibnet_merge(struct val_ibnet *into, struct val_ibnet *from)
{
	char **keys = br_xmalloc((into->n + from->n + 1) * sizeof(*keys));
	size_t nkeys = into->n;

	for (size_t i = 0; i < into->n; i++)
		keys[i] = cable_key(into->links[i].dev_a, into->links[i].port_a, into->links[i].dev_b,
				    into->links[i].port_b);
	if (nkeys)
		qsort(keys, nkeys, sizeof(*keys), str_cmp);
	for (size_t i = 0; i < from->n; i++) {
		struct val_ibnet_link *l = &from->links[i];
		char *key = cable_key(l->dev_a, l->port_a, l->dev_b, l->port_b);

		if (nkeys && bsearch(&key, keys, nkeys, sizeof(*keys), str_cmp)) {
			free(key);
			free(l->dev_a);
			free(l->port_a);
			free(l->dev_b);
			free(l->port_b);
			free(l->rate);
			continue;
		}
		free(key);
		if (into->n == into->cap) {
			into->cap = into->cap ? into->cap * 2 : 64;
			into->links = br_xrealloc(into->links, into->cap * sizeof(*into->links));
		}
		into->links[into->n++] = *l;
	}
	for (size_t i = 0; i < nkeys; i++)
		free(keys[i]);
	free(keys);
	free(from->links);
	free(from->path);
	memset(from, 0, sizeof(*from));
}

int val_fabric_node_check(const struct val_wiring *w, const struct val_fabric_result *r, const char *hostname,
			  enum val_result *ret_result, char **ret_detail, char **ret_component)
{
	size_t cables = 0, told = 0, elsewhere = 0, owned = 0;
	const struct br_strlist *island = NULL;
	struct br_buf b;

	if (ret_component)
		*ret_component = NULL;
	for (size_t i = 0; i < w->n; i++)
		cables +=
		    same_device(w->links[i].dev_a, hostname) || same_device(w->links[i].dev_b, hostname);
	if (!cables)
		return BR_E_NOTFOUND;
	/* A node discovery never reached is cut off by the missing cables of
	 * the devices it is cut off with: those are its findings too. */
	for (size_t i = 0; i < r->n && !island; i++)
		if (r->findings[i].kind == VAL_CABLE_UNREACHABLE && names(&r->findings[i], hostname))
			island = &r->findings[i].devices;
	br_buf_init(&b, 0);
	/* The separate fabric it owns first: its ticket's evidence leads with
	 * it. Pass 0 takes those, pass 1 the rest. */
	for (size_t pass_i = 0; pass_i < 2 * r->n; pass_i++) {
		size_t i = pass_i % r->n;
		const struct val_fabric_finding *f = &r->findings[i];
		int owns = f->kind == VAL_CABLE_SPLIT && f->owner && same_device(f->owner, hostname);
		int mine = f->whole_fabric || names(f, hostname);
		const char *text = f->text;
		char *brief = NULL;

		for (size_t k = 0; island && f->kind == VAL_CABLE_MISSING && k < island->n && !mine; k++)
			mine = names(f, island->items[k]);
		if (!mine || (pass_i < r->n) != owns)
			continue;
		/* A separate fabric is told whole on its owner's check; the
		 * others on it say where. */
		if (owns) {
			if (!owned++ && ret_component)
				*ret_component = br_xasprintf("ib-fabric:%zu", f->part);
		} else if (f->kind == VAL_CABLE_SPLIT && f->owner) {
			elsewhere++;
			text = brief =
			    br_xasprintf("%s: on it; told whole on %s's fabric ticket", f->brief, f->owner);
		}
		if (told++ == VAL_DETAIL_ITEMS_MAX) {
			br_buf_adds(&b, "; and more (validate --fabric shows them all)");
			free(brief);
			break;
		}
		br_buf_addf(&b, "%s%s", b.len ? "; " : "", text);
		free(brief);
	}
	if (!told)
		br_buf_addf(&b,
			    "its %zu designed fabric cable%s seen as designed, on a fabric of %zu designed "
			    "cables that is one network",
			    cables, cables == 1 ? "" : "s", r->design_links);
	if (told && told == elsewhere && ret_component)
		*ret_component = br_xstrdup(VAL_FABRIC_TOLD_ELSEWHERE);
	*ret_result = told ? VAL_FAIL : VAL_PASS;
	*ret_detail = br_buf_detach(&b);
	return 0;
}
