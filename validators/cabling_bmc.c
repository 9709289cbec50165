/* Cabling as the BMC saw it before the first PXE boot (cabling.h): the
 * switches file, each BMC port given the wiring list's name of its host
 * port, and the view judged by the in-band rules (cabling.c). */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cabling_private.h"

/* ---- switches.csv ----------------------------------------------------------- */

struct switches_parse {
	struct val_switches *s;
	struct br_strlist *problems;
	int col_name, col_id;
	int header_done;
};

static int switches_row(void *ctx, unsigned line, const struct br_strlist *f)
{
	struct switches_parse *sp = ctx;
	struct val_switches *s = sp->s;
	const char *name, *id;
	char mac[18];

	if (!sp->header_done) {
		sp->col_name = sp->col_id = -1;
		for (size_t i = 0; i < f->n; i++) {
			if (!strcasecmp(f->items[i], "switch"))
				sp->col_name = (int)i;
			else if (!strcasecmp(f->items[i], "chassis_id"))
				sp->col_id = (int)i;
		}
		sp->header_done = 1;
		if (sp->col_name < 0 || sp->col_id < 0) {
			br_csv_problem(sp->problems, s->path, line, "header", "want 'switch,chassis_id'");
			return 1;
		}
		return 0;
	}
	name = (size_t)sp->col_name < f->n ? f->items[sp->col_name] : "";
	id = (size_t)sp->col_id < f->n ? f->items[sp->col_id] : "";
	if (!*name) {
		br_csv_problem(sp->problems, s->path, line, "switch", "empty");
		return 0;
	}
	if (!*id) {
		br_csv_problem(sp->problems, s->path, line, "chassis_id", "empty");
		return 0;
	}
	if (s->n >= VAL_SWITCHES_MAX) {
		br_csv_problem(sp->problems, s->path, line, NULL, "more than %u switches", VAL_SWITCHES_MAX);
		return 1;
	}
	s->items = br_xrealloc(s->items, (s->n + 1) * sizeof(*s->items));
	s->items[s->n++] =
	    (struct val_switch){ br_xstrdup(name), br_xstrdup(br_mac_normalize(id, mac) ? id : mac), line };
	return 0;
}

static int by_chassis(const void *a, const void *b)
{
	return strcasecmp(((const struct val_switch *)a)->chassis_id,
			  ((const struct val_switch *)b)->chassis_id);
}

int val_switches_load(const char *path, struct val_switches *ret, struct br_strlist *problems,
		      struct br_err *err)
{
	struct val_switches s = { .path = br_xstrdup(path) };
	struct switches_parse sp = { .s = &s, .problems = problems };
	size_t before = problems->n;

	if (br_csv_read(path, VAL_SWITCHES_MAX_BYTES, switches_row, &sp, problems, err)) {
		val_switches_release(&s);
		return br_err_prefix(err, "switches file");
	}
	if (!sp.header_done)
		br_csv_problem(problems, path, 1, NULL, "empty switches file: a header row is required");
	if (s.n)
		qsort(s.items, s.n, sizeof(*s.items), by_chassis);
	for (size_t i = 1; i < s.n; i++)
		if (!strcasecmp(s.items[i].chassis_id, s.items[i - 1].chassis_id) &&
		    strcmp(s.items[i].name, s.items[i - 1].name))
			br_csv_problem(problems, path, s.items[i].line, "chassis_id",
				       "%s is also %s's (line %u): one chassis id names one switch",
				       s.items[i].chassis_id, s.items[i - 1].name, s.items[i - 1].line);
	if (problems->n > before) {
		size_t n = problems->n - before;

		val_switches_release(&s);
		return br_errf(err, BR_E_INVAL, "%s: %zu problem%s", path, n, n == 1 ? "" : "s");
	}
	*ret = s;
	return 0;
}

void val_switches_release(struct val_switches *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->items[i].name);
		free(s->items[i].chassis_id);
	}
	free(s->items);
	free(s->path);
	memset(s, 0, sizeof(*s));
}

const char *val_switch_by_chassis(const struct val_switches *s, const char *chassis_id)
{
	char mac[18];
	const char *want;
	size_t lo = 0, hi;

	if (!s || !chassis_id || !s->n)
		return NULL;
	want = br_mac_normalize(chassis_id, mac) ? chassis_id : mac;
	for (hi = s->n; lo < hi;) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcasecmp(s->items[mid].chassis_id, want);

		if (!c)
			return s->items[mid].name;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* ---- a BMC view under the wiring list's port names ------------------------------ */

struct designed {
	const char *local, *dev, *port;
	int taken;
};

struct designed_list {
	struct designed *items;
	size_t n;
};

static void add_designed(void *ctx, const char *local, const char *dev, const char *port, unsigned line)
{
	struct designed_list *d = ctx;

	(void)line;
	d->items = br_xrealloc(d->items, (d->n + 1) * sizeof(*d->items));
	d->items[d->n++] = (struct designed){ local, dev, port, 0 };
}

static int same_key(const char *a, const char *b)
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

/* The switch a port sees, as the wiring list would name it. */
static const char *switch_name(const struct val_switches *sw, const struct br_neighbor *p)
{
	const char *name = val_switch_by_chassis(sw, p->chassis_id);

	if (name)
		return name;
	if (p->system_name && *p->system_name)
		return p->system_name;
	return p->chassis_id ? p->chassis_id : "?";
}

/* The designed port of host this BMC port is, by name or by what it sees. */
static struct designed *designed_for(const struct val_wiring *w, const char *host, struct designed_list *d,
				     const struct br_neighbor *p, const char *swname)
{
	const char *far_port, *far;

	for (size_t i = 0; i < d->n; i++)
		if (!d->items[i].taken && !strcasecmp(d->items[i].local, p->port))
			return &d->items[i];
	if (!p->link || !p->port_id)
		return NULL;
	far = val_wiring_far_end(w, swname, p->port_id, &far_port);
	if (!far || !same_key(far, host))
		return NULL;
	for (size_t i = 0; i < d->n; i++)
		if (!d->items[i].taken && !strcmp(d->items[i].local, far_port))
			return &d->items[i];
	return NULL;
}

static int is_host_port(const struct br_neighbor *p)
{
	return p->port && *p->port;
}

void val_bmc_cabling_build(const struct val_wiring *w, const struct val_switches *sw,
			   const struct val_bmc_view *v, struct val_bmc_cabling *ret)
{
	struct val_bmc_cabling c = { 0 };
	struct designed_list d = { 0 };
	const char **local = br_xcalloc(v->n ? v->n : 1, sizeof(*local));
	size_t links = 0, stale = 0, left_ports = 0, left_designed = 0, lp = 0, ld = 0, k = 0;

	c.source = v->source;
	c.host.hostname = v->hostname;
	for (size_t i = 0; i < v->n; i++) {
		links += is_host_port(&v->ports[i]) && v->ports[i].link;
		stale += is_host_port(&v->ports[i]) && v->ports[i].stale;
	}
	if (!v->source || !v->n) {
		c.unknown =
		    br_xstrdup("the BMC shows no switch neighbours of the host ports (no Connection View "
			       "or LLDPReceive): judged in band after deploy");
	} else if (stale) {
		c.unknown =
		    br_xasprintf("the BMC's %s is stale on %zu port%s, after a refresh: judged in band "
				 "after deploy",
				 v->source, stale, stale == 1 ? "" : "s");
	} else if (!links) {
		/* every port "No Link": Connection View off (iDRAC's
		 * SwitchConnectionView.1.Enable) or LLDP off on the switches
		 * says the same as every cable out; nothing tells them apart */
		c.unknown = br_xasprintf("the BMC's %s shows no link on any host port (the view disabled, or "
					 "LLDP off on the switches?): judged in band after deploy",
					 v->source);
	}
	if (c.unknown || !w) {
		free(local);
		*ret = c;
		return;
	}
	val_wiring_host_ends(w, v->hostname, add_designed, &d);
	for (size_t i = 0; i < v->n; i++) {
		const struct br_neighbor *p = &v->ports[i];
		struct designed *hit;

		if (!is_host_port(p))
			continue;
		hit = designed_for(w, v->hostname, &d, p, switch_name(sw, p));
		if (hit) {
			hit->taken = 1;
			local[i] = hit->local;
		}
	}
	/* One port of each left over: they are each other (the one cable a
	 * fault moved, or the one unplugged). */
	for (size_t i = 0; i < v->n; i++)
		if (is_host_port(&v->ports[i]) && !local[i]) {
			left_ports++;
			lp = i;
		}
	for (size_t i = 0; i < d.n; i++)
		if (!d.items[i].taken) {
			left_designed++;
			ld = i;
		}
	if (left_ports == 1 && left_designed == 1) {
		local[lp] = d.items[ld].local;
		d.items[ld].taken = 1;
	}
	c.nbs = br_xcalloc(v->n ? v->n : 1, sizeof(*c.nbs));
	for (size_t i = 0; i < v->n; i++) {
		const struct br_neighbor *p = &v->ports[i];
		const char *name = local[i] ? local[i] : p->port;

		if (!is_host_port(p))
			continue;
		if (local[i] && strcasecmp(local[i], p->port)) {
			char *pair = br_xasprintf("%s=%s", local[i], p->port);

			br_strlist_add(&c.port_map, pair);
			br_strlist_add(&c.wired, local[i]);
			free(pair);
		}
		if (!p->link)
			continue;
		br_strlist_add(&c.owned, name);
		br_strlist_add(&c.owned, switch_name(sw, p));
		c.nbs[k].port_id = p->port_id;
		k++;
	}
	/* the strings in owned are stable now: point at them */
	for (size_t i = 0, o = 0; i < k; i++, o += 2) {
		c.nbs[i].local_port = c.owned.items[o];
		c.nbs[i].system_name = c.owned.items[o + 1];
	}
	c.host.neighbors = c.nbs;
	c.host.n = k;
	c.host.lldp_seen = 1;
	free(d.items);
	free(local);
	*ret = c;
}

void val_bmc_cabling_release(struct val_bmc_cabling *c)
{
	free(c->nbs);
	br_strlist_release(&c->owned);
	br_strlist_release(&c->port_map);
	br_strlist_release(&c->wired);
	free(c->unknown);
	memset(c, 0, sizeof(*c));
}

const char *val_bmc_cabling_port_wired(const struct val_bmc_cabling *c, const char *bmc_port)
{
	for (size_t i = 0; bmc_port && i < c->port_map.n; i++) {
		const char *eq = strchr(c->port_map.items[i], '=');

		if (eq && !strcasecmp(eq + 1, bmc_port))
			return c->wired.n > i ? c->wired.items[i] : NULL;
	}
	return NULL;
}

const char *val_bmc_cabling_port(const struct val_bmc_cabling *c, const char *local_port)
{
	size_t n = local_port ? strlen(local_port) : 0;

	for (size_t i = 0; n && i < c->port_map.n; i++)
		if (!strncmp(c->port_map.items[i], local_port, n) && c->port_map.items[i][n] == '=')
			return c->port_map.items[i] + n + 1;
	return NULL;
}

void val_bmc_cabling_judge(const struct val_wiring *w, const struct val_bmc_cabling *self,
			   const struct val_bmc_cabling *all, size_t n, struct val_cabling_result *ret)
{
	struct val_cabling_host *hosts;
	struct br_buf b;
	char *detail;

	if (self->unknown) {
		memset(ret, 0, sizeof(*ret));
		ret->result = VAL_UNKNOWN;
		ret->detail = br_xstrdup(self->unknown);
		return;
	}
	hosts = br_xcalloc(n ? n : 1, sizeof(*hosts));
	for (size_t i = 0; i < n; i++)
		hosts[i] = all[i].host;
	val_cabling_judge(w, &self->host, hosts, n, ret);
	free(hosts);
	br_buf_init(&b, 0);
	br_buf_addf(&b, "before PXE, by the BMC's %s: %s", self->source, ret->detail);
	/* the ports a technician finds by the BMC's names, on the label */
	for (size_t i = 0, named = 0; i < ret->n; i++) {
		const char *bmc = val_bmc_cabling_port(self, ret->findings[i].local_port);

		if (bmc)
			br_buf_addf(&b, "%s%s is the BMC's %s", named++ ? ", " : " (",
				    ret->findings[i].local_port, bmc);
		if (i + 1 == ret->n && named)
			br_buf_adds(&b, ")");
	}
	detail = br_buf_detach(&b);
	free(ret->detail);
	ret->detail = detail;
}

/* ---- after deploy: the BMC's view against the OS's ------------------------------ */

/* Both name the same switch: chassis ids (MACs compared as MACs), else the
 * names (the switches file's for a chassis id, LLDP's system name). */
static int same_switch(const struct val_switches *sw, const struct br_neighbor *b,
		       const struct val_os_neighbor *o)
{
	char x[18], y[18];
	const char *bname;

	if (b->chassis_id && o->chassis_id && !br_mac_normalize(b->chassis_id, x) &&
	    !br_mac_normalize(o->chassis_id, y))
		return !strcmp(x, y);
	bname = switch_name(sw, b);
	return o->system_name && same_key(bname, o->system_name);
}

static int same_end(const struct val_switches *sw, const struct br_neighbor *b,
		    const struct val_os_neighbor *o)
{
	return b->port_id && same_switch(sw, b, o) &&
	       ((o->port_id && !strcasecmp(o->port_id, b->port_id)) ||
		(o->port_descr && !strcasecmp(o->port_descr, b->port_id)));
}

static const char *os_port(const struct val_os_neighbor *o)
{
	return o->port_descr && o->port_id && strchr(o->port_id, ':') ? o->port_descr
	       : o->port_id					      ? o->port_id
								      : "?";
}

int val_bmc_views_compare(const struct val_bmc_view *v, const struct val_bmc_cabling *c,
			  const struct val_switches *sw, const struct val_os_neighbor *os, size_t n_os,
			  enum val_result *ret_result, char **ret_detail)
{
	char *paired = br_xcalloc(n_os ? n_os : 1, 1);
	struct br_buf findings, pairs;
	size_t links = 0, agree = 0;

	for (size_t i = 0; i < v->n; i++)
		links += v->ports[i].link && is_host_port(&v->ports[i]);
	if (!v->source || !links || !n_os) {
		free(paired);
		return BR_E_NOTFOUND;
	}
	br_buf_init(&findings, 0);
	br_buf_init(&pairs, 0);
	for (size_t i = 0; i < v->n; i++) {
		const struct br_neighbor *b = &v->ports[i];
		const struct val_os_neighbor *o = NULL;
		const char *wired;

		if (!b->link || !is_host_port(b))
			continue;
		for (size_t k = 0; k < n_os && !o; k++)
			if (!paired[k] && same_end(sw, b, &os[k])) {
				paired[k] = 1;
				o = &os[k];
			}
		if (!o) {
			br_buf_addf(
			    &findings,
			    "%sthe BMC's %s sees %s %s, which no OS interface sees: the BMC's %s is %s, or "
			    "the cable moved since discovery",
			    findings.len ? "; " : "", b->port, switch_name(sw, b),
			    b->port_id ? b->port_id : "?", v->source, b->stale ? "stale" : "out of date");
			continue;
		}
		agree++;
		br_buf_addf(&pairs, "%s%s is %s", pairs.len ? ", " : "", b->port,
			    o->local_port ? o->local_port : "?");
		wired = c ? val_bmc_cabling_port_wired(c, b->port) : NULL;
		if (wired && o->local_port && strcmp(wired, o->local_port))
			br_buf_addf(
			    &findings,
			    "%sthe wiring list's %s (the BMC's %s, by the switch port it sees) is %s to the "
			    "OS: a NIC the OS names differently",
			    findings.len ? "; " : "", wired, b->port, o->local_port);
	}
	for (size_t k = 0; k < n_os; k++)
		if (!paired[k] && os[k].local_port)
			br_buf_addf(&findings, "%sthe OS's %s sees %s %s, which the BMC shows on no port",
				    findings.len ? "; " : "", os[k].local_port,
				    os[k].system_name  ? os[k].system_name
				    : os[k].chassis_id ? os[k].chassis_id
						       : "?",
				    os_port(&os[k]));
	free(paired);
	*ret_result = findings.len ? VAL_FAIL : VAL_PASS;
	if (findings.len)
		*ret_detail = br_buf_detach(&findings);
	else
		*ret_detail = br_xasprintf("the BMC's %s and the OS's LLDP agree on %zu port%s (%s)",
					   v->source, agree, agree == 1 ? "" : "s", br_buf_str(&pairs));
	br_buf_release(&findings);
	br_buf_release(&pairs);
	return 0;
}
