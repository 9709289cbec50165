/* iblinkinfo's default output read as a fabric topology, beside
 * ibnetdiscover's (fabric.c): the same cables, the ends named the same way.
 *
 * The format, from print_node_header() and print_port() of rdma-core's
 * infiniband-diags/iblinkinfo.c (GPL-2.0 or BSD, OpenIB.org) and real
 * captures under ibsim (tests/fixtures/ibnet/README.md):
 *
 *   Switch: 0x<port 0 GUID> <NodeDescription>:
 *              LID PORT[EXT] ==( 4X   106.25 Gbps Active/  LinkUp)==>  RLID RPORT[EXT] "<far text>" ( )
 *   CA: <NodeDescription>:
 *         0x<port GUID>  LID PORT[EXT] ==( ... )==>  RLID RPORT[EXT] "<far text>" ( )
 *   a port down:  ==(              Down/ Polling)==>             [  ] "" ( )
 *   up, no peer:  ==( ... )==>      "Port not available"
 *
 * Texts are NodeDescriptions as iblinkinfo's node-name-map remapped them.
 * The far end of a cable is given by LID and text only, so it is found
 * among the capture's nodes: by its LID where the subnet manager gave one
 * (unique in a subnet), else as the one node with that text whose own
 * line names this end back. Speeds are per lane (IBA LinkSpeedActive and
 * LinkSpeedExtActive as libibmad prints them), written as ibnetdiscover
 * writes a rate ("4xNDR"). An adapter's GUID here is its port's (the
 * header carries none); a switch's is its port 0's, which is the node's. */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cabling_private.h"

struct lk_half {
	size_t node;
	long lid, port, rlid, rport;
	char *rdesc, *rate;
	unsigned line;
};

struct lk_parse {
	struct ib_parse *ps;
	struct lk_half *h;
	size_t n;
};

static const struct {
	const char *gbps, *name;
} lane_speeds[] = {
	{ "2.5", "SDR" },      { "5.0", "DDR" },    { "10.0", "QDR" },	 { "14.0625", "FDR" },
	{ "25.78125", "EDR" }, { "53.125", "HDR" }, { "106.25", "NDR" }, { "212.5", "XDR" },
};

static void skip_blanks(const char **p)
{
	*p += strspn(*p, " \t");
}

/* "( 4X           2.5 Gbps Initialize/  LinkUp)" → "4xSDR"; NULL for a
 * port down (no width or speed printed). */
static char *link_rate(const char *s, size_t n)
{
	char width[8] = "", speed[24] = "";
	char *text = br_xstrndup(s, n), *rate = NULL;
	int fdr10 = strstr(text, "(FDR10)") != NULL;

	if (sscanf(text, " %7[0-9X] %23[0-9.] Gbps", width, speed) == 2 && strchr(width, 'X')) {
		const char *name = NULL;

		*strchr(width, 'X') = 'x';
		for (size_t i = 0; i < sizeof(lane_speeds) / sizeof(lane_speeds[0]) && !name; i++)
			if (!strcmp(speed, lane_speeds[i].gbps))
				name = lane_speeds[i].name;
		if (fdr10)
			name = "FDR10";
		rate = name ? br_xasprintf("%s%s", width, name) : br_xasprintf("%s%sGbps", width, speed);
	}
	free(text);
	return rate;
}

static int bad(struct lk_parse *lp, unsigned lineno, const char *what)
{
	br_csv_problem(lp->ps->problems, lp->ps->path, lineno, NULL, "%s", what);
	return -1;
}

/* "Switch: 0x0000000000200000 MF0;spine01:MQM9700/U1:", "CA: gpu01 mlx5_0:". */
static int header(struct lk_parse *lp, const char *line, unsigned lineno)
{
	struct ib_parse *ps = lp->ps;
	int sw = !strncmp(line, "Switch:", 7), ca = !strncmp(line, "CA:", 3);
	const char *p = line + (sw ? 7 : ca ? 3 : 7); /* "Router:" */
	size_t len;
	char *id = NULL;

	skip_blanks(&p);
	if (sw) {
		char *end;
		unsigned long long guid = strncmp(p, "0x", 2) ? 0 : strtoull(p, &end, 16);

		if (!guid || (*end != ' ' && *end != '\t'))
			return bad(lp, lineno, "a Switch: line without its GUID (want Switch: 0xGUID TEXT:)");
		id = br_xasprintf("S-%016llx", guid);
		p = end;
		skip_blanks(&p);
	}
	len = strcspn(p, "\r");
	if (!len || p[len - 1] != ':')
		return bad(lp, lineno, "a node line not ending in ':' (not iblinkinfo's output)");
	ps->nodes = br_xrealloc(ps->nodes, (ps->nnodes + 1) * sizeof(*ps->nodes));
	ps->nodes[ps->nnodes++] = (struct ib_node){ id, br_xstrndup(p, len - 1), ca };
	return 0;
}

/* A port line (leading blanks gone). */
static int port_line(struct lk_parse *lp, const char *line, unsigned lineno)
{
	struct ib_parse *ps = lp->ps;
	struct ib_node *me;
	struct lk_half h = { .line = lineno };
	const char *p = line, *open, *close;
	char *end;

	if (!ps->nnodes)
		return bad(lp, lineno, "a port line before any Switch:, CA: or Router: line");
	h.node = ps->nnodes - 1;
	me = &ps->nodes[h.node];
	if (!strncmp(p, "0x", 2)) {
		unsigned long long guid = strtoull(p, &end, 16);

		p = end;
		skip_blanks(&p);
		if (*p == '"')
			return bad(lp, lineno, "iblinkinfo -l output: run it without -l");
		if (!me->id)
			me->id = br_xasprintf("%c-%016llx", me->is_ca ? 'H' : 'R', guid);
	}
	h.lid = strtol(p, &end, 10);
	if (end == p)
		return bad(lp, lineno, "not an iblinkinfo port line (want LID PORT[ ] ==(...)==> ...)");
	p = end;
	h.port = strtol(p, &end, 10);
	if (end == p || *end != '[' || h.port < 0 || h.port > 255 || !(open = strstr(end, "==(")) ||
	    !(close = strstr(open, ")==>")))
		return bad(lp, lineno, "not an iblinkinfo port line (want LID PORT[ ] ==(...)==> ...)");
	if (!me->id)
		me->id = br_xasprintf("%c-line%u", me->is_ca ? 'H' : 'R', lineno);
	p = close + 4;
	skip_blanks(&p);
	if (*p == '[' || *p == '"')
		return 0; /* down ("[  ] \"\" ( )"), or "Port not available": no cable seen */
	h.rlid = strtol(p, &end, 10);
	if (end == p)
		return bad(lp, lineno, "a port line whose far end is not LID PORT[ ] \"TEXT\"");
	p = end;
	h.rport = strtol(p, &end, 10);
	if (end == p || *end != '[' || h.rport < 0 || h.rport > 255 || !(p = strchr(end, '"')) ||
	    !strchr(p + 1, '"'))
		return bad(lp, lineno, "a port line whose far end is not LID PORT[ ] \"TEXT\"");
	h.rdesc = br_xstrndup(p + 1, (size_t)(strchr(p + 1, '"') - p - 1));
	h.rate = link_rate(open + 3, (size_t)(close - open - 3));
	lp->h = br_xrealloc(lp->h, (lp->n + 1) * sizeof(*lp->h));
	lp->h[lp->n++] = h;
	return 0;
}

/* The node a LID is on: the one whose own lines print it (a switch's every
 * port, an adapter port's base LID); SIZE_MAX for none or several. */
static size_t node_of_lid(const struct lk_parse *lp, long lid)
{
	size_t found = SIZE_MAX;

	for (size_t i = 0; lid > 0 && i < lp->n; i++)
		if (lp->h[i].lid == lid) {
			if (found != SIZE_MAX && found != lp->h[i].node)
				return SIZE_MAX;
			found = lp->h[i].node;
		}
	return found;
}

/* The far node of half h: by LID, else the one node of that text whose
 * own line names h's end back, else the one node of that text. */
static size_t far_node(const struct lk_parse *lp, const struct lk_half *h)
{
	const struct ib_node *nodes = lp->ps->nodes;
	size_t by_lid = node_of_lid(lp, h->rlid), back = SIZE_MAX, named = SIZE_MAX;
	size_t nback = 0, nnamed = 0;

	if (by_lid != SIZE_MAX)
		return by_lid;
	for (size_t i = 0; i < lp->n; i++) {
		const struct lk_half *o = &lp->h[i];

		if (strcmp(nodes[o->node].desc, h->rdesc) || o->port != h->rport || o->rport != h->port ||
		    strcmp(o->rdesc, nodes[h->node].desc))
			continue;
		if (nback++ == 0)
			back = o->node;
		else if (o->node == back)
			nback--;
	}
	if (nback == 1)
		return back;
	for (size_t i = 0; !nback && i < lp->ps->nnodes; i++)
		if (!strcmp(nodes[i].desc, h->rdesc) && nnamed++ == 0)
			named = i;
	return !nback && nnamed == 1 ? named : SIZE_MAX;
}

int val_iblinkinfo_is(const char *text)
{
	const char *p = text;

	for (;;) {
		p += strspn(p, " \t\r\n");
		if (*p != '#')
			break;
		p += strcspn(p, "\n");
	}
	return !strncmp(p, "Switch: ", 8) || !strncmp(p, "CA: ", 4) || !strncmp(p, "Router: ", 8);
}

int val_iblinkinfo_parse(struct ib_parse *ps, char *data)
{
	struct lk_parse lp = { .ps = ps };
	size_t before = ps->problems->n;
	unsigned lineno = 1;
	char *line, *next;

	for (line = data; ps->problems->n == before && line && *line; line = next, lineno++) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		line += strspn(line, " \t");
		if (!*line || *line == '#' || *line == '\r')
			continue;
		if (!strncmp(line, "Switch:", 7) || !strncmp(line, "CA:", 3) || !strncmp(line, "Router:", 7))
			header(&lp, line, lineno);
		else if (isdigit((unsigned char)*line))
			port_line(&lp, line, lineno);
		else
			bad(&lp, lineno, "not iblinkinfo's default output (run it without -l, -d or a diff)");
	}
	for (size_t i = 0; i < ps->nnodes; i++)
		if (!ps->nodes[i].id) /* a node line with no port line under it */
			ps->nodes[i].id = br_xasprintf("%c-none%zu", ps->nodes[i].is_ca ? 'H' : 'R', i);
	for (size_t i = 0; ps->problems->n == before && i < lp.n; i++) {
		const struct lk_half *h = &lp.h[i];
		size_t far = far_node(&lp, h);

		if (far == SIZE_MAX) {
			br_csv_problem(
			    ps->problems, ps->path, h->line, NULL,
			    "the far end (lid %ld port %ld \"%s\") is no one node of the capture: run "
			    "iblinkinfo over the whole subnet, or give the devices names (a node-name-map)",
			    h->rlid, h->rport, h->rdesc);
			break;
		}
		ps->halves = br_xrealloc(ps->halves, (ps->nhalves + 1) * sizeof(*ps->halves));
		ps->halves[ps->nhalves++] = (struct ib_half){ .node = h->node,
							      .port = h->port,
							      .remote_port = h->rport,
							      .remote_id = br_xstrdup(ps->nodes[far].id),
							      .remote_desc = br_xstrdup(h->rdesc),
							      .rate = h->rate,
							      .line = h->line };
		lp.h[i].rate = NULL;
	}
	for (size_t i = 0; i < lp.n; i++) {
		free(lp.h[i].rdesc);
		free(lp.h[i].rate);
	}
	free(lp.h);
	return ps->problems->n == before ? 0 : -1;
}
