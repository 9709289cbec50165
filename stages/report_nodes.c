/* The HTML report's rack elevation and per-node sections (report.h). */
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "tickets.h"

/* Text shown on a box or a summary line; the whole of it is in the node's
 * section. */
#define STG_REPORT_SHORT_MAX 200

static int same_rack(const struct inv_node *a, const struct inv_node *b)
{
	return !strcmp(a->rack ? a->rack : "", b->rack ? b->rack : "");
}

static int unit_of(const struct inv_node *node)
{
	return node->unit < 1 ? 1 : node->unit;
}

/* Box height in units: the closest spacing of the rack's nodes. */
static int box_units(const struct inv_node *nodes, size_t n)
{
	int gap = 0;

	for (size_t i = 1; i < n; i++) {
		int d = unit_of(&nodes[i]) - unit_of(&nodes[i - 1]);

		if (d > 0 && (!gap || d < gap))
			gap = d;
	}
	return gap < 1 ? 1 : gap > STG_REPORT_BOX_UNITS_MAX ? STG_REPORT_BOX_UNITS_MAX : gap;
}

static void node_box(struct stg_report_page *p, const struct inv_node *node)
{
	const char *state = inv_state_name(node->state);
	char *reason = br_xstrdup_capped(node->reason, STG_REPORT_SHORT_MAX);

	stg_report_addf(p, "<a class=\"node st-%s\" href=\"#" STG_REPORT_ANCHOR_FMT "\" data-host=\"", state,
			(long long)node->id);
	stg_report_text(p, node->hostname, NULL);
	stg_report_add(p, "\" title=\"");
	stg_report_text(p, node->hostname, NULL);
	stg_report_addf(p, " U%d: %s%s", node->unit, state, reason ? ": " : "");
	stg_report_text(p, reason, NULL);
	stg_report_add(p, "\"><b>");
	stg_report_text(p, node->hostname, NULL);
	stg_report_addf(p, "</b><span>%s%s", state, reason && node->state >= INV_FAILED ? ": " : "");
	if (node->state >= INV_FAILED)
		stg_report_text(p, reason, NULL);
	stg_report_add(p, "</span></a>");
	free(reason);
}

/* One rack's column: units from the top down, nodes sharing a unit side
 * by side in one slot. */
static void rack(struct stg_report_page *p, const struct inv_node *nodes, size_t n)
{
	int height = box_units(nodes, n), top = STG_REPORT_RACK_UNITS;

	for (size_t i = 0; i < n; i++)
		if (unit_of(&nodes[i]) > top)
			top = unit_of(&nodes[i]);
	stg_report_add(p, "<section class=\"rack\"><h3>rack ");
	stg_report_text(p, nodes[0].rack, "?");
	stg_report_addf(p, "</h3><div class=\"units\" style=\"grid-template-rows:repeat(%d,1.05rem)\">", top);
	for (int u = top; u >= 1; u--)
		stg_report_addf(p, "<div class=\"u\" style=\"grid-row:%d\">%d</div>", top - u + 1, u);
	for (size_t i = 0; i < n;) {
		int u = unit_of(&nodes[i]), span = height;
		size_t end = i;

		while (end < n && unit_of(&nodes[end]) == u)
			end++;
		if (span > top - u + 1)
			span = top - u + 1;
		if (end < n && span > unit_of(&nodes[end]) - u)
			span = unit_of(&nodes[end]) - u;
		stg_report_addf(p, "\n<div class=\"slot\" style=\"grid-row:%d/span %d\">", top - u - span + 2,
				span);
		for (; i < end; i++)
			node_box(p, &nodes[i]);
		stg_report_add(p, "</div>");
	}
	stg_report_add(p, "</div></section>\n");
}

void stg_report_elevation(struct stg_report_page *p, const struct inv_node *nodes, size_t n)
{
	stg_report_add(p, "<div class=\"racks\">\n");
	for (size_t i = 0; i < n;) {
		size_t end = i + 1;

		while (end < n && same_rack(&nodes[end], &nodes[i]))
			end++;
		rack(p, nodes + i, end - i);
		i = end;
	}
	stg_report_add(p, "</div>\n");
}

static void field(struct stg_report_page *p, const char *name, const char *value)
{
	stg_report_addf(p, "<dt>%s</dt><dd>", name);
	if (value)
		stg_report_text(p, value, NULL);
	else
		stg_report_add(p, "<span class=\"none\">&ndash;</span>");
	stg_report_add(p, "</dd>");
}

static int checks(struct stg_report_page *p, struct inv *inv, const struct inv_node *node, struct br_err *err)
{
	struct inv_check *c = NULL;
	size_t n = 0;

	if (inv_node_checks(inv, node->id, &c, &n, err))
		return -1;
	stg_report_add(p, "<h4>Checks</h4>");
	if (!n)
		stg_report_add(p, "<p class=\"none\">No checks ran.</p>");
	else
		stg_report_add(
		    p, "<table class=\"checks\"><thead><tr><th>Check</th><th>Result</th><th>Evidence</th>"
		       "<th>When</th></tr></thead><tbody>");
	/* What kept the node from gold first, then what passed. */
	for (size_t k = 0; k < 2 * n; k++) {
		size_t i = k % n;
		const char *result = inv_check_result_name(c[i].result);

		if ((k < n) == (c[i].result == INV_CHECK_PASS))
			continue;
		stg_report_add(p, "<tr><td>");
		stg_report_text(p, c[i].name, NULL);
		stg_report_addf(p, "</td><td class=\"res-%s\">%s</td><td>", result, result);
		stg_report_text(p, c[i].detail, "");
		stg_report_add(p, "</td><td class=\"when\">");
		stg_report_text(p, c[i].at, "");
		stg_report_add(p, "</td></tr>");
	}
	if (n)
		stg_report_add(p, "</tbody></table>");
	inv_checks_free(c, n);
	return 0;
}

static int history(struct stg_report_page *p, struct inv *inv, const struct inv_node *node,
		   struct br_err *err)
{
	struct inv_event *e = NULL;
	size_t n = 0, first;

	if (inv_node_events(inv, node->hostname, &e, &n, err))
		return -1;
	first = n > STG_REPORT_EVENTS_MAX ? n - STG_REPORT_EVENTS_MAX : 0;
	stg_report_add(p, "<h4>History</h4>");
	if (first)
		stg_report_addf(
		    p,
		    "<p class=\"none\">%zu earlier events not shown (<code>bringup history</code> has "
		    "them).</p>",
		    first);
	stg_report_add(
	    p, "<table class=\"history\"><thead><tr><th>When</th><th>Transition</th><th>Reason</th></tr>"
	       "</thead><tbody>");
	for (size_t i = first; i < n; i++) {
		stg_report_add(p, "<tr><td class=\"when\">");
		stg_report_text(p, e[i].at, "");
		stg_report_add(p, "</td><td>");
		stg_report_text(p, e[i].from_state, "(none)");
		stg_report_add(p, " &rarr; ");
		stg_report_text(p, e[i].to_state, "");
		stg_report_add(p, "</td><td>");
		stg_report_text(p, e[i].reason, "");
		stg_report_add(p, "</td></tr>");
	}
	stg_report_add(p, "</tbody></table>");
	inv_events_free(e, n);
	return 0;
}

int stg_report_node_detail(struct stg_report_page *p, struct inv *inv, const struct inv_node *node,
			   struct br_err *err)
{
	const char *state = inv_state_name(node->state);
	char *reason = br_xstrdup_capped(node->reason, STG_REPORT_SHORT_MAX);
	char *location = stg_tickets_location(node->rack, node->unit);
	int rc;

	/* The nodes that need a person start open. */
	stg_report_addf(p,
			"<details class=\"node-detail\" data-state=\"%s\" id=\"" STG_REPORT_ANCHOR_FMT
			"\"%s><summary>"
			"<span class=\"sw st-%s\"></span><b>",
			state, (long long)node->id, node->state >= INV_FAILED ? " open" : "", state);
	stg_report_text(p, node->hostname, NULL);
	stg_report_addf(p, "</b> &middot; %s%s", state, reason ? " &middot; " : "");
	stg_report_text(p, reason, NULL);
	stg_report_add(p, "</summary><dl>");
	field(p, "location", location);
	field(p, "state", state);
	field(p, "reason", node->reason);
	field(p, "BMC", node->bmc);
	field(p, "system serial", node->system_serial);
	field(p, "service tag", node->service_tag);
	field(p, "manifest serial", node->expected_serial);
	field(p, "model", node->model);
	field(p, "BIOS", node->bios_version);
	field(p, "BMC firmware", node->bmc_firmware);
	field(p, "power", node->power_state);
	field(p, "profile", node->profile);
	field(p, "MAAS system id", node->maas_system_id);
	field(p, "address", node->ip);
	field(p, "notes", node->notes);
	field(p, "updated", node->updated_at);
	stg_report_add(p, "</dl>");
	rc = checks(p, inv, node, err);
	if (!rc)
		rc = history(p, inv, node, err);
	stg_report_add(p, "</details>\n");
	free(reason);
	free(location);
	return rc;
}
