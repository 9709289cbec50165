/* The HTML report (report.h): the page, its header, legend and faults. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "firmware.h"
#include "report.h"
#include "tickets.h"

void stg_report_add(struct stg_report_page *p, const char *s)
{
	if (!p->rc)
		p->rc = br_buf_adds(p->html, s);
}

void stg_report_addf(struct stg_report_page *p, const char *fmt, ...)
{
	va_list ap;

	if (p->rc)
		return;
	va_start(ap, fmt);
	p->rc = br_buf_vaddf(p->html, fmt, ap);
	va_end(ap);
}

static const char *entity(char c)
{
	switch (c) {
	case '&':
		return "&amp;";
	case '<':
		return "&lt;";
	case '>':
		return "&gt;";
	case '"':
		return "&quot;";
	default:
		return "&#39;";
	}
}

void stg_report_text(struct stg_report_page *p, const char *text, const char *fallback)
{
	/* br_escape first: secrets redacted, and control bytes or broken
	 * UTF-8 shown as \xNN rather than left for the browser to guess at. */
	char *clean = br_escape(text ? text : fallback);
	const char *s = clean, *run;

	while (s && *s && !p->rc) {
		for (run = s; *run && !strchr("&<>\"'", *run); run++)
			;
		if (run > s)
			p->rc = br_buf_add(p->html, s, (size_t)(run - s));
		if (!*run || p->rc)
			break;
		stg_report_add(p, entity(*run));
		s = run + 1;
	}
	free(clean);
}

/* Colours: the work still under way in blues, the outcomes in gold, orange
 * and red, so a glance at the elevation says what needs a person. */
static const char css[] =
    "*{box-sizing:border-box}"
    "body{font:14px/1.4 system-ui,sans-serif;margin:1.5rem;color:#1f2328;background:#f6f8fa}"
    "h1{font-size:1.4rem;margin:0 0 .2rem}h2{font-size:1.15rem;margin:1.6rem 0 .6rem}"
    ".meta{color:#57606a;margin:0 0 1rem}"
    ".legend{display:flex;flex-wrap:wrap;gap:.4rem 1rem;margin:.5rem 0 1rem;padding:0;list-style:none}"
    ".legend li{display:flex;align-items:center;gap:.35rem}.legend .group{color:#57606a;margin-left:.6rem}"
    ".sw{display:inline-block;width:1rem;height:1rem;border-radius:3px;border:1px solid #0003}"
    ".racks{display:flex;flex-wrap:wrap;gap:1.2rem;align-items:flex-start}"
    ".rack{background:#fff;border:2px solid #444c56;border-radius:4px;padding:.3rem;width:15rem}"
    ".rack h3{margin:0 0 .3rem;font-size:1rem;text-align:center}"
    ".units{display:grid;grid-template-columns:2.2rem minmax(0,1fr);grid-auto-rows:1.05rem;"
    "background:repeating-linear-gradient(#fff 0 calc(1.05rem - 1px),#d8dee4 calc(1.05rem - 1px) 1.05rem)}"
    ".u{grid-column:1;font-size:.65rem;color:#8c959f;text-align:right;padding-right:.3rem;line-height:1."
    "05rem}"
    ".slot{grid-column:2;display:flex;gap:2px;padding:1px 0;min-width:0}"
    ".node{flex:1;min-width:0;display:flex;flex-direction:column;justify-content:center;overflow:hidden;"
    "border-radius:3px;"
    "border:1px solid #0004;padding:0 "
    ".35rem;text-decoration:none;color:inherit;font-size:.75rem;line-height:1.15}"
    ".node b{white-space:nowrap;overflow:hidden;text-overflow:ellipsis}"
    ".node span{font-size:.68rem;opacity:.9;overflow:hidden;display:-webkit-box;-webkit-line-clamp:4;"
    "-webkit-box-orient:vertical;overflow-wrap:anywhere}"
    ".st-new{background:#d0d7de}.st-discovered{background:#cfe2ff}.st-configured{background:#b6d4fe}"
    ".st-enlisted{background:#9ec5fe}.st-deployed{background:#6ea8fe}.st-validated{background:#3d8bfd;color:#"
    "fff}"
    ".st-golden{background:#f2c94c}.st-quarantined{background:#fd7e14;color:#fff}"
    ".st-retired{background:#6c757d;color:#fff}"
    ".st-failed{background:#cf222e;color:#fff}"
    "table{border-collapse:collapse;width:100%;background:#fff;margin:.3rem 0}"
    "th,td{border:1px solid #d0d7de;padding:.3rem .5rem;text-align:left;vertical-align:top}"
    "th{background:#eaeef2}td{overflow-wrap:anywhere}"
    ".faults td:nth-child(-n+3),.checks td:first-child,td.when{white-space:nowrap;overflow-wrap:normal}"
    ".res-pass{color:#1a7f37;font-weight:600}.res-fail{color:#cf222e;font-weight:600}"
    ".res-unknown{color:#9a6700;font-weight:600}"
    "details{background:#fff;border:1px solid #d0d7de;border-radius:4px;margin:.4rem 0;padding:.3rem .6rem}"
    "summary{cursor:pointer}summary .sw{vertical-align:middle;margin-right:.3rem}"
    "dl{display:grid;grid-template-columns:max-content 1fr;gap:.1rem 1rem;margin:.5rem 0}"
    "dt{color:#57606a}dd{margin:0;overflow-wrap:anywhere}.none{color:#8c959f}";

static void head(struct stg_report_page *p, struct inv *inv)
{
	char now[21];

	br_iso_time(now);
	stg_report_add(p, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
			  /* Nothing is loaded, nothing runs: should an escape ever be
			   * missed, hostile text still cannot act. */
			  "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
			  "style-src 'unsafe-inline'; img-src data:\">"
			  "<meta name=\"viewport\" content=\"width=device-width\"><title>bringup report: ");
	stg_report_text(p, inv_path(inv), NULL);
	stg_report_add(p, "</title><style>");
	stg_report_add(p, css);
	stg_report_add(p,
		       "</style></head>\n<body>\n<h1>bringup report</h1><p class=\"meta\">inventory <code>");
	stg_report_text(p, inv_path(inv), NULL);
	stg_report_addf(p, "</code> &middot; generated %s</p>\n", now);
}

static void legend(struct stg_report_page *p, const struct stg_report_stats *s)
{
	/* Outcomes first: those are what the reader came for. */
	static const enum inv_state order[] = { INV_GOLDEN,   INV_QUARANTINED, INV_FAILED,     INV_RETIRED,
						INV_NEW,      INV_DISCOVERED,  INV_CONFIGURED, INV_ENLISTED,
						INV_DEPLOYED, INV_VALIDATED };

	stg_report_addf(p, "<ul class=\"legend\" id=\"legend\"><li><b>%zu node%s</b></li>", s->nodes,
			s->nodes == 1 ? "" : "s");
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		const char *name = inv_state_name(order[i]);

		if (order[i] == INV_NEW)
			stg_report_add(p, "<li class=\"group\">in progress:</li>");
		stg_report_addf(p, "<li><span class=\"sw st-%s\"></span>%s <b>%zu</b></li>", name, name,
				s->per_state[order[i]]);
	}
	stg_report_add(p, "</ul>\n");
}

static const struct inv_node *node_named(const struct inv_node *nodes, size_t n, const char *hostname)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(nodes[i].hostname, hostname))
			return &nodes[i];
	return NULL;
}

/* The open tickets of the nodes shown, in the aisle's order (rack, U). */
static int faults(struct stg_report_page *p, struct inv *inv, const struct inv_node *nodes, size_t n,
		  struct stg_report_stats *s, struct br_err *err)
{
	struct inv_ticket *t = NULL;
	size_t nt = 0;

	if (inv_tickets_list(inv, 0, &t, &nt, err))
		return -1;
	stg_report_add(p, "<h2 id=\"faults\">Faults</h2>\n");
	for (size_t i = 0; i < nt; i++) {
		const struct inv_node *node = node_named(nodes, n, t[i].hostname);
		char *location;

		if (!node)
			continue;
		if (!s->tickets++)
			stg_report_add(
			    p,
			    "<table class=\"faults\"><thead><tr><th>Node</th><th>Location</th><th>Fault</th>"
			    "<th>Evidence</th><th>Action</th></tr></thead><tbody>\n");
		location = stg_tickets_location(t[i].rack, t[i].unit);
		stg_report_addf(p, "<tr class=\"fault\"><td><a href=\"#" STG_REPORT_ANCHOR_FMT "\">",
				(long long)node->id);
		stg_report_text(p, t[i].hostname, NULL);
		stg_report_add(p, "</a></td><td>");
		stg_report_text(p, location, NULL);
		stg_report_add(p, "</td><td>");
		stg_report_text(p, t[i].fault, NULL);
		stg_report_add(p, "</td><td>");
		stg_report_text(p, t[i].evidence, "");
		stg_report_add(p, "</td><td>");
		stg_report_text(p, t[i].action, "");
		stg_report_add(p, "</td></tr>\n");
		free(location);
	}
	stg_report_add(p, s->tickets ? "</tbody></table>\n" : "<p class=\"none\">No open tickets.</p>\n");
	inv_tickets_free(t, nt);
	return 0;
}

/* Mixed firmware is a fault source of its own: per model and component,
 * the versions across the nodes shown where they differ, and who differs
 * from the most common one (bringup firmware --report's view). */
static int firmware(struct stg_report_page *p, struct inv *inv, const struct inv_node *nodes, size_t n,
		    struct br_err *err)
{
	json_t *view = stg_fw_consistency_read(inv, nodes, n, 1, err), *c, *v, *h;
	json_t *components = json_object_get(view, "components");
	size_t i, k, j;

	if (!view)
		return -1;
	stg_report_add(p, "<h2 id=\"firmware\">Firmware versions</h2>\n");
	if (!json_array_size(components))
		stg_report_add(p, "<p class=\"none\">Every model runs one version of each component.</p>\n");
	else
		stg_report_add(p, "<table class=\"firmware\"><thead><tr><th>Model</th><th>Component</th>"
				  "<th>Versions (nodes)</th><th>Differ</th></tr></thead><tbody>\n");
	json_array_foreach(components, i, c)
	{
		stg_report_add(p, "<tr class=\"fwdiff\"><td>");
		stg_report_text(p, br_json_str(c, "model"), NULL);
		stg_report_add(p, "</td><td>");
		stg_report_text(p, br_json_str(c, "component"), NULL);
		stg_report_add(p, "</td><td>");
		json_array_foreach(json_object_get(c, "versions"), k, v)
		{
			stg_report_add(p, k ? "<br>" : "");
			stg_report_text(p, br_json_str(v, "version"), NULL);
			stg_report_addf(p, " (%zu)", json_array_size(json_object_get(v, "nodes")));
		}
		stg_report_add(p, "</td><td>");
		json_array_foreach(json_object_get(c, "differ"), j, h)
		{
			const struct inv_node *node = node_named(nodes, n, json_string_value(h));

			stg_report_add(p, j ? " " : "");
			if (node)
				stg_report_addf(p, "<a href=\"#" STG_REPORT_ANCHOR_FMT "\">",
						(long long)node->id);
			stg_report_text(p, json_string_value(h), NULL);
			stg_report_add(p, node ? "</a>" : "");
		}
		stg_report_add(p, "</td></tr>\n");
	}
	if (json_array_size(components))
		stg_report_add(p, "</tbody></table>\n");
	json_decref(view);
	return 0;
}

int stg_report_render(struct inv *inv, const struct inv_node *nodes, size_t n, struct br_buf *out,
		      struct stg_report_stats *ret_stats, struct br_err *err)
{
	struct stg_report_page p = { out, 0 };
	struct stg_report_stats s = { .nodes = n };
	size_t start = out->len;
	int rc;

	for (size_t i = 0; i < n; i++)
		s.per_state[nodes[i].state]++;
	head(&p, inv);
	legend(&p, &s);
	stg_report_add(&p, "<h2 id=\"racks\">Racks</h2>\n");
	stg_report_elevation(&p, nodes, n);
	rc = faults(&p, inv, nodes, n, &s, err);
	if (!rc)
		rc = firmware(&p, inv, nodes, n, err);
	if (!rc)
		stg_report_add(&p, "<h2 id=\"nodes\">Nodes</h2>\n");
	for (size_t i = 0; i < n && !rc && !p.rc; i++)
		rc = stg_report_node_detail(&p, inv, &nodes[i], err);
	stg_report_add(&p, "</body></html>\n");
	if (!rc && p.rc)
		rc = br_errf(err, p.rc, "report: %s (the page is capped at %u MiB)", br_strerror(p.rc),
			     STG_REPORT_HTML_MAX >> 20);
	s.bytes = out->len - start;
	if (!rc && ret_stats)
		*ret_stats = s;
	return rc;
}

int stg_report_write(struct inv *inv, const struct inv_node *nodes, size_t n, const char *path,
		     struct stg_report_stats *ret_stats, struct br_err *err)
{
	struct br_buf html;
	int rc;

	br_buf_init(&html, STG_REPORT_HTML_MAX);
	rc = stg_report_render(inv, nodes, n, &html, ret_stats, err);
	if (!rc)
		rc = br_write_file(path, br_buf_str(&html), html.len, err);
	br_buf_release(&html);
	return rc;
}

char *stg_report_default_path(const char *db_path)
{
	size_t len;

	/* A database that is no file (SQLite's :memory: and file: URIs, a
	 * PostgreSQL URI or keyword string) has no place beside it. */
	if (!db_path || !*db_path || !strcmp(db_path, ":memory:") || !strncmp(db_path, "file:", 5) ||
	    strstr(db_path, "://") || strchr(db_path, '='))
		return NULL;
	len = strlen(db_path);
	if (len > 3 && !strcmp(db_path + len - 3, ".db"))
		len -= 3;
	return br_xasprintf("%.*s.html", (int)len, db_path);
}
