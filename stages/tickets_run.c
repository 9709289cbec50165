/* The tickets stage's run: each node's faults into tickets, then output. */
#include <stdlib.h>
#include <string.h>

#include "gate.h"
#include "http.h"
#include "lifecycle.h"
#include "tickets.h"
#include "validators/cabling.h"
#include "webhook.h"

struct node_faults {
	struct inv_fault *items;
	char **owned; /* strings the faults point into */
	size_t n, n_owned;
};

static const char *keep(struct node_faults *f, char *s_take)
{
	f->owned = br_xrealloc(f->owned, (f->n_owned + 1) * sizeof(*f->owned));
	f->owned[f->n_owned++] = s_take;
	return s_take;
}

static void add_fault(struct node_faults *f, const struct stg_tickets_actions *actions,
		      const struct inv_node *node, const char *fault, const char *evidence)
{
	struct stg_tickets_vars v = { node->hostname,	 node->rack, node->bmc, stg_tickets_node_serial(node),
				      node->service_tag, fault,	     evidence,	node->unit };

	f->items = br_xrealloc(f->items, (f->n + 1) * sizeof(*f->items));
	f->items[f->n++] = (struct inv_fault){ fault, evidence, keep(f, stg_tickets_render(actions, &v)), 0 };
}

static void node_faults_release(struct node_faults *f)
{
	for (size_t i = 0; i < f->n_owned; i++)
		free(f->owned[i]);
	free(f->owned);
	free(f->items);
}

static char *check_evidence(const struct inv_check *c)
{
	return br_xasprintf("%s%s", c->result == INV_CHECK_UNKNOWN ? "not proven (unknown): " : "",
			    c->detail ? c->detail : "");
}

/* Which of several checks about one part names the cause: a part missing
 * (gpu_count, nic_count, nvme_count) before how it trained (pcie), before
 * what its absence looks like from outside (cabling: its ports are silent),
 * before the kernel's report of it (dmesg). */
static int symptom_rank(const char *check)
{
	size_t len = strlen(check);

	if (len > 6 && !strcmp(check + len - 6, "_count"))
		return 0;
	if (!strcmp(check, "cabling"))
		return 2;
	/* A port down is what an unplugged cable or a missing NIC look like
	 * from the HCA: the cabling or count check names the cause. */
	if (!strcmp(check, "dmesg") || !strcmp(check, "ib_ports"))
		return 3;
	return 1;
}

static int same_part(const struct inv_check *a, const struct inv_check *b)
{
	return a == b || (a->component && b->component && !strcmp(a->component, b->component));
}

/* One root cause: failing check `first` and every later failing check that
 * blames the same part (a GPU at x4 and the kernel's "limited by" line
 * about that GPU), as one fault named after the one that names the cause
 * (symptom_rank), its evidence first (what {part} reads), then the
 * others' ("also dmesg: ..."). Members are marked done in failing[] (2). */
static void add_root_cause(struct node_faults *f, const struct stg_tickets_actions *actions,
			   const struct inv_node *node, const struct inv_check *checks, size_t n,
			   int *failing, size_t first)
{
	const struct inv_check *lead = &checks[first];
	struct br_buf evidence;
	char *one;

	for (size_t i = first; i < n; i++)
		if (failing[i] == 1 && same_part(&checks[first], &checks[i]) &&
		    symptom_rank(checks[i].name) < symptom_rank(lead->name))
			lead = &checks[i];
	br_buf_init(&evidence, 0);
	one = check_evidence(lead);
	br_buf_adds(&evidence, one);
	free(one);
	for (size_t i = first; i < n; i++) {
		if (failing[i] != 1 || !same_part(&checks[first], &checks[i]))
			continue;
		failing[i] = 2;
		if (&checks[i] == lead)
			continue;
		one = check_evidence(&checks[i]);
		br_buf_addf(&evidence, "; also %s: %s", checks[i].name, one);
		free(one);
	}
	add_fault(f, actions, node, lead->name, keep(f, br_buf_detach(&evidence)));
	br_buf_release(&evidence);
}

/* Retired: one ticket to return the machine, with its history; it
 * replaces the node's other tickets (one ticket per machine to return). */
static int retired_fault(struct inv *inv, const struct stg_tickets_actions *actions,
			 const struct inv_node *node, struct node_faults *f, struct br_err *err)
{
	struct inv_event *ev = NULL;
	size_t n = 0;
	char *history;

	if (inv_node_events(inv, node->hostname, &ev, &n, err))
		return -1;
	history = stg_lifecycle_history(ev, n);
	add_fault(f, actions, node, "retired",
		  keep(f, br_xasprintf("%s%s%s", node->reason ? node->reason : "retired",
				       history ? "; history: " : "", history ? history : "")));
	free(history);
	inv_events_free(ev, n);
	return 0;
}

/* Quarantined: the required checks that put it there; failed: the cause;
 * retired: its history. */
static int find_faults(struct inv *inv, struct stg_profiles *profiles,
		       const struct stg_tickets_actions *actions, const struct inv_node *node,
		       struct node_faults *f, struct inv_check **ret_checks, size_t *ret_n,
		       struct br_err *err)
{
	const struct prof_profile *profile;
	struct val_check *view;
	char *missing = NULL;
	int *failing;

	*ret_checks = NULL;
	*ret_n = 0;
	if (node->state == INV_RETIRED)
		return retired_fault(inv, actions, node, f, err);
	if (node->state == INV_FAILED) {
		add_fault(f, actions, node, stg_tickets_failure_fault(node),
			  node->reason ? node->reason : "");
		f->items[f->n - 1].evidence_loose = 1;
		return 0;
	}
	if (node->state != INV_QUARANTINED)
		return 0;
	profile = stg_profiles_get(profiles, node->profile, err);
	if (!profile || inv_node_checks(inv, node->id, ret_checks, ret_n, err))
		return -1;
	failing = br_xcalloc(*ret_n ? *ret_n : 1, sizeof(*failing));
	view = stg_checks_view_val(*ret_checks, *ret_n);
	val_gate_failing(profile, view, *ret_n, failing, &missing);
	free(view);
	for (size_t i = 0; i < *ret_n; i++) {
		/* A separate fabric is one ticket, on the node that owns it
		 * (validators/cabling.h): the others on it file none for it. */
		if (failing[i] == 1 && (*ret_checks)[i].component &&
		    !strcmp((*ret_checks)[i].component, VAL_FABRIC_TOLD_ELSEWHERE))
			failing[i] = 2;
		if (failing[i] == 1)
			add_root_cause(f, actions, node, *ret_checks, *ret_n, failing, i);
	}
	if (missing)
		add_fault(f, actions, node, "not_checked",
			  keep(f, br_xasprintf("no result for: %s", missing)));
	free(missing);
	free(failing);
	return 0;
}

static int node_cmp(const void *a, const void *b)
{
	return strcmp(((const struct inv_node *)a)->hostname, ((const struct inv_node *)b)->hostname);
}

static int hostname_cmp(const void *key, const void *node)
{
	return strcmp(key, ((const struct inv_node *)node)->hostname);
}

static const struct inv_node *node_of(const struct stg_tickets_run *run, const char *hostname)
{
	return run->n_nodes ? bsearch(hostname, run->nodes, run->n_nodes, sizeof(*run->nodes), hostname_cmp)
			    : NULL;
}

/* One ticket as the JSON contract has it, plus its status and version. */
static json_t *ticket_json(const struct inv_node *node, const struct inv_ticket *t)
{
	char *location = stg_tickets_location(t->rack, t->unit);
	json_t *o = json_pack(
	    "{s:s, s:s, s:o, s:o, s:s, s:s, s:s, s:s, s:I, s:s, s:o, s:o}", "hostname", t->hostname,
	    "location", location, "serial", br_json_string_or_null(stg_tickets_node_serial(node)),
	    "service_tag", br_json_string_or_null(node ? node->service_tag : NULL), "fault", t->fault,
	    "evidence", t->evidence ? t->evidence : "", "action", t->action ? t->action : "", "status",
	    t->closed ? "closed" : "open", "version", (json_int_t)t->version, "opened_at",
	    t->opened_at ? t->opened_at : "", "closed_at", br_json_string_or_null(t->closed_at),
	    "external_key", br_json_string_or_null(t->external_key));

	free(location);
	return o;
}

json_t *stg_tickets_json(const void *ctx)
{
	const struct stg_tickets_run *run = ctx;
	json_t *tickets = json_array();

	for (size_t i = 0; i < run->n; i++)
		json_array_append_new(tickets,
				      ticket_json(node_of(run, run->tickets[i].hostname), &run->tickets[i]));
	return json_pack("{s:i, s:o, s:I, s:I, s:I, s:I, s:I, s:I}", "schema_version", STG_SCHEMA_TICKETS,
			 "tickets", tickets, "opened", (json_int_t)run->stats.opened, "changed",
			 (json_int_t)run->stats.changed, "unchanged", (json_int_t)run->stats.unchanged,
			 "closed", (json_int_t)run->stats.closed, "posted", (json_int_t)run->posted,
			 "post_failed", (json_int_t)run->post_failed);
}

/* ---- --post ------------------------------------------------------------------ */

struct post_ctx {
	struct stg_tickets_run *run;
	struct inv *inv;
	struct inv_ticket *tickets; /* the ones sent, by delivery index */
	size_t n;		    /* how many */
	struct inv_ticket *all;	    /* as listed: owns the strings of tickets[] */
	size_t n_all;
	char **owned; /* strings the deliveries point at, n * per ticket */
	size_t n_owned;
	struct stg_stage *st; /* told of what the inventory refused */
	char *first_failure;  /* the ticket system's words, for the stage's error */
};

/* Every ticket version (closing is one) not delivered yet into pc->tickets,
 * with room in pc->owned for per_ticket strings each; nonzero (the stage's
 * exit, set) when the inventory cannot list them. */
static int post_ctx_init(struct post_ctx *pc, struct stg_stage *st, struct stg_tickets_run *run,
			 size_t per_ticket)
{
	struct br_err err = { 0 };

	*pc = (struct post_ctx){ .run = run, .inv = st->inv, .st = st };
	if (inv_tickets_list(st->inv, 1, &pc->all, &pc->n_all, &err))
		return stg_stage_fail(st, STG_EXIT_UNREACHABLE, "%s", err.msg);
	pc->tickets = br_xcalloc(pc->n_all ? pc->n_all : 1, sizeof(*pc->tickets));
	for (size_t i = 0; i < pc->n_all; i++)
		if (pc->all[i].version > pc->all[i].posted_version)
			pc->tickets[pc->n++] = pc->all[i];
	pc->n_owned = per_ticket * pc->n;
	pc->owned = br_xcalloc(pc->n_owned ? pc->n_owned : 1, sizeof(*pc->owned));
	return 0;
}

static void post_ctx_release(struct post_ctx *pc)
{
	for (size_t i = 0; i < pc->n_owned; i++)
		free(pc->owned[i]);
	free(pc->owned);
	free(pc->tickets);
	inv_tickets_free(pc->all, pc->n_all);
	free(pc->first_failure);
}

/* The listing printed after the run (run->tickets) shows key as ticket
 * id's external key. */
static void listed_key(struct stg_tickets_run *run, int64_t id, const char *key)
{
	for (size_t i = 0; i < run->n; i++)
		if (run->tickets[i].id == id) {
			free(run->tickets[i].external_key);
			run->tickets[i].external_key = br_xstrdup(key);
		}
}

/* A delivery's outcome; external_key: what the ticket system calls the
 * ticket (NULL: the webhook, or a close with nothing open to close), kept
 * with the delivery's record in one transaction. */
static void delivered(struct post_ctx *pc, size_t index, int ok, const char *message,
		      const char *external_key)
{
	const struct inv_ticket *t = &pc->tickets[index];
	struct br_err err = { 0 };
	int rc;

	if (!ok) {
		pc->run->post_failed++;
		br_warn("tickets", "%s/%s v%lld not delivered: %s", t->hostname, t->fault,
			(long long)t->version, message);
		return;
	}
	pc->run->posted++;
	rc = external_key ? inv_ticket_filed(pc->inv, t, external_key, &err)
			  : inv_ticket_posted(pc->inv, t->id, t->version, &err);
	if (!rc && external_key)
		listed_key(pc->run, t->id, external_key);
	if (rc) {
		/* delivered, but not recorded as such: sent again next run */
		br_warn("tickets", "%s/%s: %s", t->hostname, t->fault, err.msg);
		if (stg_inventory_refused(&err))
			stg_stage_unwritable(pc->st, 0, err.msg);
	}
}

static void on_posted(void *ctx, size_t index, int ok, const char *message)
{
	delivered(ctx, index, ok, message, NULL);
}

/* Every ticket version (closing is one) the webhook has not taken yet. */
static int post(struct stg_stage *st, struct stg_tickets_run *run, const struct stg_webhook_options *o)
{
	struct post_ctx pc;
	int rc = post_ctx_init(&pc, st, run, 2);
	struct stg_webhook_delivery *d;
	struct br_err err = { 0 };

	if (rc)
		return rc;
	d = br_xcalloc(pc.n ? pc.n : 1, sizeof(*d));
	for (size_t i = 0; i < pc.n; i++) {
		const struct inv_ticket *t = &pc.tickets[i];
		json_t *o_json = ticket_json(node_of(run, t->hostname), t);

		/* the webhook gives no key back: its payload carries none */
		json_object_del(o_json, "external_key");

		/* Stable per ticket version: the same version retried, or sent
		 * again after a crash before it was recorded, has the same key. */
		pc.owned[2 * i] =
		    br_xasprintf("bringup-%s/%s-v%lld", t->hostname, t->fault, (long long)t->version);
		json_object_set_new(o_json, "idempotency_key", json_string(pc.owned[2 * i]));
		pc.owned[2 * i + 1] = json_dumps(o_json, JSON_COMPACT | JSON_SORT_KEYS);
		json_decref(o_json);
		d[i] = (struct stg_webhook_delivery){ pc.owned[2 * i], pc.owned[2 * i + 1] };
	}
	rc = stg_webhook_run(o, d, pc.n, on_posted, &pc, &err);
	free(d);
	post_ctx_release(&pc);
	if (rc)
		return stg_stage_fail(st, STG_EXIT_USAGE, "%s", err.msg);
	if (run->post_failed) {
		char *shown = br_url_masked(o->url);

		rc = stg_stage_fail(st, STG_EXIT_UNREACHABLE,
				    "%zu ticket versions not delivered to %s (%zu were)", run->post_failed,
				    shown, run->posted);
		free(shown);
		return rc;
	}
	return 0;
}

/* ---- Jira, ServiceNow ------------------------------------------------------------ */

static void on_filed(void *ctx, size_t index, int ok, const char *text)
{
	struct post_ctx *pc = ctx;
	const struct inv_ticket *t = &pc->tickets[index];

	if (ok)
		br_info("tickets", "%s/%s v%lld: %s", t->hostname, t->fault, (long long)t->version,
			text ? text : "nothing open to close");
	else if (!pc->first_failure)
		pc->first_failure = br_xstrdup(text ? text : "");
	delivered(pc, index, ok, text, ok ? text : NULL);
}

/* What a technician reads in the ticket: where, which machine, what is
 * wrong, what to do. */
static char *ticket_text(const struct inv_node *node, const struct inv_ticket *t, const char *location)
{
	const char *serial = stg_tickets_node_serial(node);

	if (t->closed)
		return br_xasprintf("The fault %s on %s (%s) is gone: bringup no longer finds it (%s).",
				    t->fault, t->hostname, location, t->closed_at ? t->closed_at : "now");
	return br_xasprintf("Machine: %s, %s, serial %s%s%s\nFault: %s\nEvidence: %s\nAction: %s\n"
			    "Filed by bringup (ticket version %lld).",
			    t->hostname, location, serial ? serial : "unknown",
			    node && node->service_tag ? ", service tag " : "",
			    node && node->service_tag ? node->service_tag : "", t->fault,
			    t->evidence ? t->evidence : "", t->action ? t->action : "",
			    (long long)t->version);
}

/* Every ticket version the ticket system has not taken yet. */
static int post_sys(struct stg_stage *st, struct stg_tickets_run *run)
{
	struct post_ctx pc;
	int rc = post_ctx_init(&pc, st, run, 3);
	struct stg_ticketsys_item *items;
	struct br_err err = { 0 };

	if (rc)
		return rc;
	items = br_xcalloc(pc.n ? pc.n : 1, sizeof(*items));
	for (size_t i = 0; i < pc.n; i++) {
		const struct inv_ticket *t = &pc.tickets[i];
		char *location = stg_tickets_location(t->rack, t->unit);

		pc.owned[3 * i] = stg_ticketsys_correlation(t->hostname, t->fault);
		/* ServiceNow's short_description holds 160 characters. */
		pc.owned[3 * i + 1] = br_xasprintf("%.60s %.30s: %.60s", location, t->hostname, t->fault);
		pc.owned[3 * i + 2] = ticket_text(node_of(run, t->hostname), t, location);
		free(location);
		items[i] = (struct stg_ticketsys_item){ pc.owned[3 * i], pc.owned[3 * i + 1],
							pc.owned[3 * i + 2], t->closed };
	}
	rc = stg_ticketsys_run(run->sys, items, pc.n, on_filed, &pc, &err);
	free(items);
	if (rc)
		rc = stg_stage_fail(st, STG_EXIT_USAGE, "%s", err.msg);
	else if (run->post_failed)
		rc = stg_stage_fail(st, STG_EXIT_UNREACHABLE,
				    "%zu ticket versions not filed in %s (%zu were): %s", run->post_failed,
				    run->sys->url, run->posted, pc.first_failure ? pc.first_failure : "");
	post_ctx_release(&pc);
	return rc;
}

/* Of the listed tickets, only the closed ones. */
static void keep_closed(struct stg_tickets_run *run)
{
	struct inv_ticket *drop = br_xcalloc(run->n ? run->n : 1, sizeof(*drop));
	size_t kept = 0, dropped = 0;

	for (size_t i = 0; i < run->n; i++)
		if (run->tickets[i].closed)
			run->tickets[kept++] = run->tickets[i];
		else
			drop[dropped++] = run->tickets[i];
	run->n = kept;
	inv_tickets_free(drop, dropped);
}

int stg_tickets_run(struct stg_stage *st, struct stg_tickets_run *run,
		    const struct stg_webhook_options *post_opts)
{
	struct stg_tickets_actions actions = { 0 };
	struct stg_profiles profiles = { 0 };
	char *templates = stg_templates_dir();
	struct br_err err = { 0 };
	int rc;

	if (!templates)
		return stg_stage_fail(st, STG_EXIT_USAGE, "no templates directory (set BRINGUP_TEMPLATES)");
	rc = stg_tickets_actions_load(templates, &actions, &err);
	free(templates);
	if (rc)
		return stg_stage_fail(st, STG_EXIT_USAGE, "%s", err.msg);
	/* A viewer's inventory (st->readonly: --list, or one this user
	 * cannot write) lists the tickets as last filed. */
	for (size_t i = 0; i < st->n && !rc && !st->readonly; i++) {
		struct node_faults f = { 0 };
		struct inv_check *checks;
		size_t n_checks;

		/* A node whose faults cannot be worked out keeps its tickets
		 * as they are: closing them would say it was repaired. */
		if (find_faults(st->inv, &profiles, &actions, &st->nodes[i], &f, &checks, &n_checks, &err)) {
			br_warn("tickets", "%s: tickets left as they were: %s", st->nodes[i].hostname,
				err.msg);
			if (stg_inventory_refused(&err))
				stg_stage_unwritable(st, 1, err.msg);
		} else
			rc =
			    inv_tickets_sync(st->inv, st->nodes[i].hostname, f.items, f.n, &run->stats, &err);
		inv_checks_free(checks, n_checks);
		node_faults_release(&f);
	}
	if (!rc)
		rc = inv_tickets_list(st->inv, run->list != STG_TICKETS_LIST_OPEN, &run->tickets, &run->n,
				      &err);
	if (!rc && run->list == STG_TICKETS_LIST_CLOSED)
		keep_closed(run);
	stg_tickets_actions_release(&actions);
	stg_profiles_release(&profiles);
	/* Every node's identity, not only the named ones': a ticket listed
	 * or sent for another node must still say which machine it is. */
	if (!rc)
		rc = inv_nodes_list(st->inv, &run->nodes, &run->n_nodes, &err);
	if (rc)
		return stg_stage_fail(st, STG_EXIT_UNREACHABLE, "%s", err.msg);
	qsort(run->nodes, run->n_nodes, sizeof(*run->nodes), node_cmp);
	if (run->sys && run->sys->kind != STG_TICKETSYS_NONE)
		return post_sys(st, run);
	return post_opts && post_opts->url ? post(st, run, post_opts) : 0;
}

const char *stg_tickets_list_name(enum stg_tickets_list list)
{
	switch (list) {
	case STG_TICKETS_LIST_OPEN:
		return "open";
	case STG_TICKETS_LIST_CLOSED:
		return "closed";
	case STG_TICKETS_LIST_ALL:
		return "open and closed";
	}
	return "?";
}

/* A Markdown table cell of text that came from BMCs, nodes and MAAS (a
 * serial, an LLDP system name): shown escaped as on a terminal first
 * (br_escape: control bytes as \xNN, so no ESC[2J or OSC sequence reaches
 * the terminal that prints the table, secrets redacted), then nothing may
 * end the cell early ('|', a line break: gone already) nor render as
 * markup in a page: HTML is entity-escaped (CommonMark passes raw HTML
 * through, <script> included), and the characters that open links, images
 * and code spans ([ ] `) are backslash-escaped (any ASCII punctuation may be,
 * CommonMark 0.30 section 2.4). */
static void md_cell(const char *s)
{
	char *clean = br_escape(s ? s : "");

	for (const char *p = clean; *p; p++)
		switch (*p) {
		case '|':
		case '\\':
		case '`':
		case '[':
		case ']':
			fputc('\\', stdout);
			fputc(*p, stdout);
			break;
		case '<':
			fputs("&lt;", stdout);
			break;
		case '>':
			fputs("&gt;", stdout);
			break;
		case '&':
			fputs("&amp;", stdout);
			break;
		default:
			fputc(*p, stdout);
		}
	free(clean);
	fputs(" | ", stdout);
}

/* A CSV field as RFC 4180 has it: quoted, a double quote doubled, records
 * ended by CRLF. Its text is shown escaped as on a terminal (br_escape), so
 * `cat tickets.csv` cannot drive the terminal; a field that would start
 * with = + - @ gets a leading apostrophe, so a spreadsheet opening the file
 * does not take a BMC's string for a formula (OWASP, CSV injection). */
static void csv_cell(const char *s, int last)
{
	char *clean = br_escape(s ? s : "");

	fputc('"', stdout);
	if (strchr("=+-@", clean[0]) && clean[0])
		fputc('\'', stdout);
	for (const char *p = clean; *p; p++) {
		if (*p == '"')
			fputc('"', stdout);
		fputc(*p, stdout);
	}
	free(clean);
	fputs(last ? "\"\r\n" : "\",", stdout);
}

void stg_tickets_print(const void *ctx)
{
	const struct stg_tickets_run *run = ctx;

	if (run->format == STG_TICKETS_CSV)
		fputs("hostname,location,serial,service_tag,fault,evidence,action,external_key\r\n", stdout);
	else
		printf("# Datacenter tickets (%zu %s)\n\nSorted by rack, then U: one walk covers them.\n\n"
		       "| Location | Host | Serial / service tag | Fault | Evidence | Action |\n"
		       "|---|---|---|---|---|---|\n",
		       run->n, stg_tickets_list_name(run->list));
	for (size_t i = 0; i < run->n; i++) {
		const struct inv_ticket *t = &run->tickets[i];
		const struct inv_node *node = node_of(run, t->hostname);
		char *location = stg_tickets_location(t->rack, t->unit);
		char *serial = br_xasprintf(
		    "%s / %s", stg_tickets_node_serial(node) ? stg_tickets_node_serial(node) : "?",
		    node && node->service_tag ? node->service_tag : "?");

		if (run->format == STG_TICKETS_CSV) {
			csv_cell(t->hostname, 0);
			csv_cell(location, 0);
			csv_cell(stg_tickets_node_serial(node), 0);
			csv_cell(node ? node->service_tag : NULL, 0);
			csv_cell(t->fault, 0);
			csv_cell(t->evidence, 0);
			csv_cell(t->action, 0);
			csv_cell(t->external_key, 1); /* empty until filed */
		} else {
			fputs("| ", stdout);
			md_cell(location);
			md_cell(t->hostname);
			md_cell(serial);
			if (t->external_key) {
				char *filed = br_xasprintf("%s (%s)", t->fault, t->external_key);

				md_cell(filed);
				free(filed);
			} else
				md_cell(t->fault);
			md_cell(t->evidence);
			md_cell(t->action);
			fputc('\n', stdout);
		}
		free(location);
		free(serial);
	}
	if (run->format != STG_TICKETS_CSV)
		printf("\n%zu opened, %zu updated, %zu closed this run\n", run->stats.opened,
		       run->stats.changed, run->stats.closed);
}

void stg_tickets_run_release(struct stg_tickets_run *run)
{
	inv_tickets_free(run->tickets, run->n);
	inv_nodes_free(run->nodes, run->n_nodes);
	memset(run, 0, sizeof(*run));
}
