/* Judging a host's LLDP neighbours against the wiring list: every designed
 * cable seen on the right local port; missing ones, wrong ports, swaps and
 * neighbours the design does not have, each told so a technician can act. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cabling_private.h"

/* A device's matching name: lowercase, and only its first label, since a
 * switch announces "leaf01" where the list may say "leaf01.dc1.example"
 * (and the other way round); an IP address stays whole. */
void val_add_device_key(struct br_buf *b, const char *dev)
{
	size_t n = strlen(dev);

	if (dev[strspn(dev, "0123456789.")] != '\0' && strchr(dev, '.') && !strchr(dev, ':'))
		n = (size_t)(strchr(dev, '.') - dev);
	for (size_t i = 0; i < n; i++)
		br_buf_add(b, &(char){ (char)tolower((unsigned char)dev[i]) }, 1);
}

static char *end_key(const char *dev, const char *port)
{
	struct br_buf b;

	br_buf_init(&b, 0);
	val_add_device_key(&b, dev);
	br_buf_adds(&b, "\n");
	for (const char *p = port; *p; p++)
		br_buf_add(&b, &(char){ (char)tolower((unsigned char)*p) }, 1);
	return br_buf_detach(&b);
}

static int end_cmp(const void *a, const void *b)
{
	return strcmp(((const struct val_wiring_end *)a)->key, ((const struct val_wiring_end *)b)->key);
}

void val_wiring_index(struct val_wiring *w)
{
	w->ends = br_xmalloc((w->n ? w->n : 1) * 2 * sizeof(*w->ends));
	for (size_t i = 0; i < w->n; i++) {
		w->ends[2 * i] =
		    (struct val_wiring_end){ end_key(w->links[i].dev_a, w->links[i].port_a), i, 0 };
		w->ends[2 * i + 1] =
		    (struct val_wiring_end){ end_key(w->links[i].dev_b, w->links[i].port_b), i, 1 };
	}
	qsort(w->ends, w->n * 2, sizeof(*w->ends), end_cmp);
}

static const struct val_wiring_end *find_end(const struct val_wiring *w, const char *dev, const char *port)
{
	struct val_wiring_end key = { end_key(dev, port), 0, 0 };
	const struct val_wiring_end *hit = bsearch(&key, w->ends, w->n * 2, sizeof(*w->ends), end_cmp);

	free(key.key);
	return hit;
}

/* The far end of the link an end belongs to. */
static void far_end(const struct val_wiring *w, const struct val_wiring_end *e, const char **dev,
		    const char **port)
{
	const struct val_link *l = &w->links[e->link];

	*dev = e->side ? l->dev_a : l->dev_b;
	*port = e->side ? l->port_a : l->port_b;
}

static int same_device(const char *a, const char *b)
{
	struct br_buf x, y;
	int same;

	br_buf_init(&x, 0);
	br_buf_init(&y, 0);
	val_add_device_key(&x, a);
	val_add_device_key(&y, b);
	same = x.len == y.len && (!x.len || !memcmp(x.data, y.data, x.len));
	br_buf_release(&x);
	br_buf_release(&y);
	return same;
}

/* Does neighbour nb stand for the switch port (dev, port)? Its port id is
 * the interface name when the switch sends it so; otherwise (a MAC) the name
 * is in the port description. */
static int neighbor_is(const struct val_lldp_neighbor *nb, const char *dev, const char *port)
{
	if (!nb->system_name || !same_device(nb->system_name, dev))
		return 0;
	return (nb->port_id && !strcasecmp(nb->port_id, port)) ||
	       (nb->port_descr && !strcasecmp(nb->port_descr, port));
}

/* The switch port a neighbour says it is, as the wiring list would name it. */
static const char *neighbor_port(const struct val_lldp_neighbor *nb, const struct val_wiring *w)
{
	if (nb->system_name && nb->port_descr && nb->port_id &&
	    find_end(w, nb->system_name, nb->port_descr) && !find_end(w, nb->system_name, nb->port_id))
		return nb->port_descr;
	return nb->port_id ? nb->port_id : nb->port_descr ? nb->port_descr : "?";
}

static const struct val_lldp_neighbor *first_on(const struct val_cabling_host *h, const char *local_port)
{
	for (size_t i = 0; i < h->n; i++)
		if (h->neighbors[i].local_port && !strcmp(h->neighbors[i].local_port, local_port))
			return &h->neighbors[i];
	return NULL;
}

static const struct val_cabling_host *host_named(const struct val_cabling_host *hosts, size_t n,
						 const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (same_device(hosts[i].hostname, name))
			return &hosts[i];
	return NULL;
}

static struct val_cable_finding *add_finding(struct val_cabling_result *r, enum val_cable_kind kind,
					     const char *local_port, unsigned line)
{
	struct val_cable_finding *f;

	r->findings = br_xrealloc(r->findings, (r->n + 1) * sizeof(*r->findings));
	f = &r->findings[r->n++];
	memset(f, 0, sizeof(*f));
	f->kind = kind;
	f->local_port = br_xstrdup(local_port);
	f->line = line;
	return f;
}

/* One designed cable from (self, local) to (dev, port). */
static void judge_link(const struct val_wiring *w, const struct val_cabling_host *self,
		       const struct val_cabling_host *others, size_t nothers, const char *local,
		       const char *dev, const char *port, unsigned line, struct val_cabling_result *r)
{
	const struct val_lldp_neighbor *seen = NULL;
	const struct val_wiring_end *theirs;
	const struct val_cabling_host *partner;
	struct val_cable_finding *f;
	const char *seen_port, *odev, *oport;
	int any = 0;

	r->links_expected++;
	for (size_t i = 0; i < self->n; i++) {
		const struct val_lldp_neighbor *nb = &self->neighbors[i];

		if (!nb->local_port || strcmp(nb->local_port, local))
			continue;
		if (neighbor_is(nb, dev, port)) {
			r->links_ok++;
			return;
		}
		if (!any++)
			seen = nb;
	}
	if (!seen) {
		f = add_finding(r, VAL_CABLE_MISSING, local, line);
		f->expected = br_xasprintf("%s %s", dev, port);
		return;
	}
	seen_port = neighbor_port(seen, w);
	f = add_finding(r, VAL_CABLE_WRONG, local, line);
	f->expected = br_xasprintf("%s %s", dev, port);
	f->seen = br_xasprintf("%s %s", seen->system_name ? seen->system_name : "?", seen_port);
	theirs = seen->system_name ? find_end(w, seen->system_name, seen_port) : NULL;
	if (!theirs)
		return;
	/* We landed on a switch port the design gives to (odev, oport). If that
	 * port sees the one designed for us, the two cables were exchanged. */
	far_end(w, theirs, &odev, &oport);
	f->other_host = br_xstrdup(odev);
	f->other_port = br_xstrdup(oport);
	partner = same_device(odev, self->hostname) ? self : host_named(others, nothers, odev);
	if (partner && partner->lldp_seen) {
		const struct val_lldp_neighbor *pn = first_on(partner, oport);

		if (pn && neighbor_is(pn, dev, port))
			f->kind = VAL_CABLE_SWAPPED;
	}
}

const char *val_cable_kind_name(enum val_cable_kind k)
{
	switch (k) {
	case VAL_CABLE_OK:
		return "ok";
	case VAL_CABLE_MISSING:
		return "missing";
	case VAL_CABLE_WRONG:
		return "wrong port";
	case VAL_CABLE_SWAPPED:
		return "swapped";
	case VAL_CABLE_UNEXPECTED:
		return "unexpected";
	case VAL_CABLE_UNREACHABLE:
		return "unreachable";
	case VAL_CABLE_SLOW:
		return "slow";
	case VAL_CABLE_SPLIT:
		return "split";
	}
	return "?";
}

static void describe(const struct val_cabling_result *r, struct br_buf *b)
{
	for (size_t i = 0; i < r->n; i++) {
		const struct val_cable_finding *f = &r->findings[i];

		if (b->len)
			br_buf_adds(b, "; ");
		switch (f->kind) {
		case VAL_CABLE_MISSING:
			br_buf_addf(
			    b,
			    "%s: no LLDP neighbour, expected %s (wiring line %u): check the cable is plugged "
			    "in at both ends",
			    f->local_port, f->expected, f->line);
			break;
		case VAL_CABLE_SWAPPED:
			br_buf_addf(
			    b, "%s: sees %s, expected %s: swapped with %s %s: swap the cables on %s and %s",
			    f->local_port, f->seen, f->expected, f->other_host, f->other_port, f->expected,
			    f->seen);
			break;
		case VAL_CABLE_WRONG:
			br_buf_addf(b, "%s: sees %s, expected %s (wiring line %u)", f->local_port, f->seen,
				    f->expected, f->line);
			if (f->other_host)
				br_buf_addf(b, ", a port the design gives to %s %s", f->other_host,
					    f->other_port);
			br_buf_addf(b, ": move the cable to %s", f->expected);
			break;
		case VAL_CABLE_UNEXPECTED:
			br_buf_addf(b, "%s: sees %s, a cable the wiring list does not have", f->local_port,
				    f->seen);
			break;
		case VAL_CABLE_OK:
		case VAL_CABLE_UNREACHABLE:
		case VAL_CABLE_SLOW:
		case VAL_CABLE_SPLIT:
			break;
		}
	}
}

size_t val_wiring_host_first(const struct val_wiring *w, const char *host_key)
{
	size_t first = 0;

	/* The host's own ends are a run of keys "host\n…": find where it starts. */
	for (size_t step = w->n * 2; step;) {
		size_t half = step / 2;

		if (strcmp(w->ends[first + half].key, host_key) < 0) {
			first += half + 1;
			step -= half + 1;
		} else {
			step = half;
		}
	}
	return first;
}

void val_wiring_host_ends(const struct val_wiring *w, const char *host, val_wiring_end_fn fn, void *ctx)
{
	char *key = end_key(host, "");
	size_t len = strlen(key);

	for (size_t i = val_wiring_host_first(w, key); i < w->n * 2 && !strncmp(w->ends[i].key, key, len);
	     i++) {
		const struct val_link *l = &w->links[w->ends[i].link];
		const char *dev, *port;

		far_end(w, &w->ends[i], &dev, &port);
		fn(ctx, w->ends[i].side ? l->port_b : l->port_a, dev, port, l->line);
	}
	free(key);
}

const char *val_wiring_host_role(const struct val_wiring *w, const char *host, const char *role,
				 const char **ret_host_port, const char **ret_far_port, unsigned *ret_line,
				 size_t *ret_count)
{
	char *key = end_key(host, "");
	size_t len = strlen(key), count = 0;
	const char *dev = NULL;

	for (size_t i = val_wiring_host_first(w, key); i < w->n * 2 && !strncmp(w->ends[i].key, key, len);
	     i++) {
		const struct val_link *l = &w->links[w->ends[i].link];

		if (!l->role || strcmp(l->role, role))
			continue;
		if (!count++) {
			far_end(w, &w->ends[i], &dev, ret_far_port);
			*ret_host_port = w->ends[i].side ? l->port_b : l->port_a;
			*ret_line = l->line;
		}
	}
	free(key);
	*ret_count = count;
	return dev;
}

int val_same_device(const char *a, const char *b)
{
	return same_device(a, b);
}

const char *val_wiring_far_end(const struct val_wiring *w, const char *dev, const char *port,
			       const char **ret_far_port)
{
	const struct val_wiring_end *e = find_end(w, dev, port);
	const char *fdev, *fport;

	if (!e)
		return NULL;
	far_end(w, e, &fdev, &fport);
	*ret_far_port = fport;
	return fdev;
}

void val_cabling_judge(const struct val_wiring *w, const struct val_cabling_host *self,
		       const struct val_cabling_host *others, size_t nothers, struct val_cabling_result *ret)
{
	struct val_cabling_result r = { 0 };
	struct val_wiring_end lo = { end_key(self->hostname, ""), 0, 0 };
	struct br_buf b;
	size_t first;

	br_buf_init(&b, 0);
	first = val_wiring_host_first(w, lo.key);
	if (!self->lldp_seen) {
		r.result = VAL_UNKNOWN;
		br_buf_adds(&b, "no LLDP neighbours reported (is lldpd running on the node?)");
		goto out;
	}
	for (size_t i = first; i < w->n * 2 && !strncmp(w->ends[i].key, lo.key, strlen(lo.key)); i++) {
		const char *dev, *port, *local;

		far_end(w, &w->ends[i], &dev, &port);
		local = w->ends[i].side ? w->links[w->ends[i].link].port_b : w->links[w->ends[i].link].port_a;
		judge_link(w, self, others, nothers, local, dev, port, w->links[w->ends[i].link].line, &r);
	}
	for (size_t i = 0; i < self->n; i++) {
		const struct val_lldp_neighbor *nb = &self->neighbors[i];
		struct val_cable_finding *f;

		if (!nb->local_port || find_end(w, self->hostname, nb->local_port))
			continue;
		f = add_finding(&r, VAL_CABLE_UNEXPECTED, nb->local_port, 0);
		f->seen =
		    br_xasprintf("%s %s", nb->system_name ? nb->system_name : "?", neighbor_port(nb, w));
	}
	if (!r.links_expected && !r.n) {
		r.result = VAL_UNKNOWN;
		br_buf_addf(&b, "%s is not in the wiring list", self->hostname);
		goto out;
	}
	r.result = r.n ? VAL_FAIL : VAL_PASS;
	if (r.n)
		describe(&r, &b);
	else
		br_buf_addf(&b, "%zu of %zu cables as designed", r.links_ok, r.links_expected);
out:
	free(lo.key);
	r.detail = br_buf_detach(&b);
	if (!r.detail)
		r.detail = br_xstrdup("");
	*ret = r;
}

void val_cabling_result_release(struct val_cabling_result *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->findings[i].local_port);
		free(r->findings[i].expected);
		free(r->findings[i].seen);
		free(r->findings[i].other_host);
		free(r->findings[i].other_port);
	}
	free(r->findings);
	free(r->detail);
	memset(r, 0, sizeof(*r));
}

/* Digits at *s as a number (at most max), moving *s past them; -1 if none. */
static long take_number(const char **s, long max)
{
	long v = 0;
	int n = 0;

	while (isdigit((unsigned char)**s) && n < 9) {
		v = v * 10 + (**s - '0');
		(*s)++;
		n++;
	}
	return n && v <= max ? v : -1;
}

int val_ifname_pci_device(const char *ifname, char out[16])
{
	const char *s = ifname;
	long domain = 0, bus, slot;

	if (!s || (strncmp(s, "en", 2) && strncmp(s, "ib", 2) && strncmp(s, "wl", 2) && strncmp(s, "ww", 2)))
		return -1;
	s += 2;
	if (*s == 'P') {
		s++;
		if ((domain = take_number(&s, 0xffff)) < 0)
			return -1;
	}
	if (*s++ != 'p' || (bus = take_number(&s, 0xff)) < 0 || *s++ != 's' ||
	    (slot = take_number(&s, 0x1f)) < 0)
		return -1;
	/* what may follow: f<function>, n<port name>, d<dev_port>, v<vf>, u<usb> */
	if (*s && *s != 'f' && *s != 'n' && *s != 'd' && *s != 'v' && *s != 'u' && *s != 'i')
		return -1;
	snprintf(out, 16, "%04x:%02x:%02x", (unsigned)domain & 0xffffu, (unsigned)bus & 0xffu,
		 (unsigned)slot & 0x1fu);
	return 0;
}
