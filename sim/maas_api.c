/* The MAAS emulator's routing, replies in MAAS's shapes, and the small
 * resources: users, events, tags. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "sim/maas_private.h"

const char *sim_maas_param(const struct sim_maas_params *p, const char *name)
{
	for (size_t i = 0; i < p->n; i++)
		if (!strcmp(p->items[i].name, name))
			return p->items[i].value;
	return NULL;
}

void sim_maas_reply_json(struct sim_maas_reply *r, int status, json_t *json)
{
	free(r->body);
	r->body = NULL;
	json_decref(r->json);
	r->status = status;
	r->json = json; /* serialised by the server once the lock is released */
	r->content_type = "application/json";
}

static char *vformat(const char *fmt, va_list ap)
{
	struct br_buf b;

	br_buf_init(&b, 4096);
	br_buf_vaddf(&b, fmt, ap);
	return br_buf_detach(&b);
}

void sim_maas_reply_text(struct sim_maas_reply *r, int status, const char *fmt, ...)
{
	va_list ap;

	free(r->body);
	json_decref(r->json);
	r->json = NULL;
	va_start(ap, fmt);
	r->body = vformat(fmt, ap);
	va_end(ap);
	r->status = status;
	r->content_type = "text/plain; charset=utf-8";
}

void sim_maas_reply_field(struct sim_maas_reply *r, const char *field, const char *fmt, ...)
{
	va_list ap;
	char *text;

	va_start(ap, fmt);
	text = vformat(fmt, ap);
	va_end(ap);
	sim_maas_reply_json(r, 400, json_pack("{s:[s]}", field, text));
	free(text);
}

void sim_maas_reply_bad_op(struct sim_maas_reply *r, const struct sim_maas_req *req)
{
	sim_maas_reply_text(r, 400, "Unrecognised signature: method=%s op=%s", req->method,
			    req->op ? req->op : "None");
}

void sim_maas_log_field(struct sim_maas_reply *r, const char *name, json_t *value)
{
	if (!r->log)
		r->log = json_object();
	json_object_set_new(r->log, name, value);
}

static int level_rank(const char *level)
{
	static const char *const levels[] = { "DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL" };

	for (int i = 0; i < 5; i++)
		if (level && !strcmp(level, levels[i]))
			return i;
	return 0;
}

struct event_ref {
	const struct sim_maas_event *e;
	const struct sim_maas_machine *mc;
};

static int newest_first(const void *a, const void *b)
{
	int64_t x = ((const struct event_ref *)a)->e->id, y = ((const struct event_ref *)b)->e->id;

	return x < y ? 1 : x > y ? -1 : 0;
}

void sim_maas_events(struct sim_maas *m, const struct sim_maas_req *req, struct sim_maas_reply *r)
{
	const char *id = sim_maas_param(&req->params, "id"), *host = sim_maas_param(&req->params, "hostname");
	const char *limit_s = sim_maas_param(&req->params, "limit"),
		   *after_s = sim_maas_param(&req->params, "after");
	int min_level = level_rank(sim_maas_param(&req->params, "level"));
	long limit = 100, after = 0;
	struct event_ref *refs;
	size_t n = 0, cap = 0;
	json_t *events;

	if (strcmp(req->method, "GET") || !req->op || strcmp(req->op, "query")) {
		sim_maas_reply_bad_op(r, req);
		return;
	}
	if (limit_s && br_parse_long(limit_s, 1, 1000, &limit)) {
		sim_maas_reply_field(r, "limit", "Enter a whole number.");
		return;
	}
	if (after_s && br_parse_long(after_s, 0, LONG_MAX, &after)) {
		sim_maas_reply_field(r, "after", "Enter a whole number.");
		return;
	}
	/* Time first: a transition's events count towards cap. */
	for (size_t i = 0; i < m->n_machines; i++)
		sim_maas_advance(m, &m->machines[i], br_now_ms());
	for (size_t i = 0; i < m->n_machines; i++)
		cap += m->machines[i].n_events;
	refs = br_xcalloc(cap + 1, sizeof(*refs));
	for (size_t i = 0; i < m->n_machines; i++) {
		struct sim_maas_machine *mc = &m->machines[i];

		if ((id && strcmp(id, mc->system_id)) || (host && strcmp(host, mc->hostname)))
			continue;
		/* A ring's ids rise: one whose newest is not after `after` has
		 * nothing to give (most machines, most of the time). */
		if (!mc->n_events ||
		    mc->events[(mc->first_event + mc->n_events - 1) % SIM_MAAS_EVENTS_MAX].id <= after)
			continue;
		for (size_t k = 0; k < mc->n_events && n < cap; k++) {
			const struct sim_maas_event *e =
			    &mc->events[(mc->first_event + k) % SIM_MAAS_EVENTS_MAX];

			if (level_rank(e->level) >= min_level && e->id > after)
				refs[n++] = (struct event_ref){ e, mc };
		}
	}
	/* src/maasserver/api/events.py EventsHandler.query: without after,
	 * the newest `limit` events, newest first; with after, the OLDEST
	 * `limit` events after it, then listed newest first, so a client
	 * paging on with the largest id it saw misses none. */
	qsort(refs, n, sizeof(*refs), newest_first);
	if (after_s && n > (size_t)limit)
		memmove(refs, refs + (n - (size_t)limit), (size_t)limit * sizeof(*refs));
	events = json_array();
	for (size_t i = 0; i < n && i < (size_t)limit; i++)
		json_array_append_new(events,
				      json_pack("{s:s, s:I, s:s, s:s, s:s, s:s, s:s, s:s}", "username",
						refs[i].e->username, "id", (json_int_t)refs[i].e->id, "level",
						refs[i].e->level, "created", refs[i].e->created, "type",
						refs[i].e->type, "node", refs[i].mc->system_id, "hostname",
						refs[i].mc->hostname, "description", refs[i].e->description));
	free(refs);
	sim_maas_log_field(r, "count", json_integer((json_int_t)json_array_size(events)));
	sim_maas_reply_json(r, 200,
			    json_pack("{s:I, s:o, s:s, s:s}", "count", (json_int_t)json_array_size(events),
				      "events", events, "next_uri", "", "prev_uri", ""));
}

static struct sim_maas_tag *find_tag(struct sim_maas *m, const char *name, size_t *ret_index)
{
	for (size_t i = 0; i < m->n_tags; i++)
		if (!strcmp(m->tags[i].name, name)) {
			*ret_index = i;
			return &m->tags[i];
		}
	return NULL;
}

static json_t *tag_json(const struct sim_maas_tag *t)
{
	return json_pack("{s:s, s:s, s:s, s:s, s:s+}", "name", t->name, "comment", t->comment, "definition",
			 "", "kernel_opts", "", "resource_uri", "/MAAS/api/2.0/tags/", t->name);
}

static int valid_tag_name(const char *s)
{
	if (!s || !*s || strlen(s) >= sizeof(((struct sim_maas_tag *)0)->name))
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
		      *s == '-' || *s == '_'))
			return 0;
	return 1;
}

/* src/maasserver/api/tags.py TagHandler.update_nodes: "add" and "remove"
 * are repeated system_ids, any number in one request; every add is applied,
 * then every remove (tag.node_set.add, then .remove). _get_nodes_for
 * filters Node.objects by system_id__in, so an unknown system_id is skipped
 * without a word, and the answer's "added" and "removed" count the distinct
 * machines matched, whether or not they had the tag. A "definition" other
 * than the tag's (the emulator's tags have none: "") is a 409 in plain
 * text. The log line says how many
 * system_ids the request carried (system_ids). */
/* Test fault maas_deleted_at_tag: the machines of this request whose host
 * carries it are deleted before the request is applied, as if another
 * user's `machine delete` (MachineHandler.delete: node.delete(), its tag
 * rows with it) had landed first. A machine's state is its own slot (tags
 * and events included) and no request keeps a pointer to one across the
 * lock, so deleting is closing the gap. The deleted ids are logged. */
static void delete_at_tag(struct sim_maas *m, const struct sim_maas_req *req, struct sim_maas_reply *r)
{
	json_t *deleted = NULL;

	for (size_t i = 0; i < req->params.n; i++) {
		const struct sim_maas_param *p = &req->params.items[i];
		struct sim_maas_machine *mc;
		size_t k;

		if (strcmp(p->name, "add") && strcmp(p->name, "remove"))
			continue;
		mc = sim_maas_find(m, p->value);
		if (!mc || mc->host < 0 || !m->hosts[mc->host].deleted_at_tag)
			continue;
		if (!deleted)
			deleted = json_array();
		json_array_append_new(deleted, json_string(mc->system_id));
		k = (size_t)(mc - m->machines);
		memmove(mc, mc + 1, (m->n_machines - k - 1) * sizeof(*mc));
		m->n_machines--;
	}
	if (deleted)
		sim_maas_log_field(r, "deleted", deleted);
}

static void tag_update_nodes(struct sim_maas *m, size_t tag, const struct sim_maas_req *req,
			     struct sim_maas_reply *r)
{
	const char *definition = sim_maas_param(&req->params, "definition");
	unsigned char *seen;
	int counts[2] = { 0, 0 }, ids = 0;

	if (definition && *definition) {
		sim_maas_reply_text(r, 409, "Definition supplied '%s' doesn't match current definition ''",
				    definition);
		return;
	}
	delete_at_tag(m, req, r);
	seen = br_xcalloc(m->n_machines ? m->n_machines : 1, 1);
	for (int add = 1; add >= 0; add--) {
		memset(seen, 0, m->n_machines ? m->n_machines : 1);
		for (size_t i = 0; i < req->params.n; i++) {
			const struct sim_maas_param *p = &req->params.items[i];
			struct sim_maas_machine *mc;
			size_t k;

			if (strcmp(p->name, add ? "add" : "remove"))
				continue;
			ids++;
			mc = sim_maas_find(m, p->value);
			if (!mc)
				continue;
			k = (size_t)(mc - m->machines);
			counts[add] += !seen[k];
			seen[k] = 1;
			mc->tags[tag] = (unsigned char)add;
		}
	}
	free(seen);
	sim_maas_log_field(r, "system_ids", json_integer(ids));
	sim_maas_reply_json(r, 200, json_pack("{s:i, s:i}", "added", counts[1], "removed", counts[0]));
}

void sim_maas_tags(struct sim_maas *m, const struct sim_maas_req *req, const char *rest,
		   struct sim_maas_reply *r)
{
	int get = !strcmp(req->method, "GET"), post = !strcmp(req->method, "POST");
	struct sim_maas_tag *t;
	size_t idx = 0;
	char name[64];

	if (!*rest) {
		const char *tname = sim_maas_param(&req->params, "name");
		const char *comment = sim_maas_param(&req->params, "comment");
		json_t *arr;

		if (get && !req->op) {
			arr = json_array();
			for (size_t i = 0; i < m->n_tags; i++)
				json_array_append_new(arr, tag_json(&m->tags[i]));
			sim_maas_reply_json(r, 200, arr);
		} else if (post && !req->op) {
			/* src/maasserver/api/tags.py TagsHandler.create with
			 * src/maasserver/forms/__init__.py TagForm: name is
			 * required, unique, and of letters, digits, '-', '_'. */
			if (!tname || !*tname)
				sim_maas_reply_field(r, "name", "This field is required.");
			else if (!valid_tag_name(tname))
				sim_maas_reply_field(r, "name", "Invalid character in tag name.");
			else if (find_tag(m, tname, &idx))
				sim_maas_reply_field(r, "name", "Tag with this Name already exists.");
			else if (m->n_tags >= SIM_MAAS_TAGS_MAX)
				sim_maas_reply_field(r, "name", "Too many tags.");
			else {
				t = &m->tags[m->n_tags++];
				snprintf(t->name, sizeof(t->name), "%s", tname);
				snprintf(t->comment, sizeof(t->comment), "%s", comment ? comment : "");
				sim_maas_reply_json(r, 200, tag_json(t));
			}
		} else {
			sim_maas_reply_bad_op(r, req);
		}
		return;
	}
	snprintf(name, sizeof(name), "%.*s", (int)strcspn(rest, "/"), rest);
	t = find_tag(m, name, &idx);
	if (!t) {
		sim_maas_reply_text(r, 404, "No Tag matches the given query.");
	} else if (get && !req->op) {
		sim_maas_reply_json(r, 200, tag_json(t));
	} else if (get && !strcmp(req->op, "machines")) {
		json_t *arr = json_array();

		for (size_t i = 0; i < m->n_machines; i++)
			if (m->machines[i].tags[idx])
				json_array_append_new(arr, sim_maas_machine_json(m, &m->machines[i]));
		sim_maas_reply_json(r, 200, arr);
	} else if (post && req->op && !strcmp(req->op, "update_nodes")) {
		tag_update_nodes(m, idx, req, r);
	} else {
		sim_maas_reply_bad_op(r, req);
	}
}

int sim_maas_domain_id(const struct sim_maas *m, const char *name)
{
	int id = 0;

	if (!strcmp(name, "maas"))
		return 0;
	/* other domains are numbered in the order machines first used them */
	for (size_t i = 0; i < m->n_machines; i++) {
		const char *d = m->machines[i].domain;
		int seen = !strcmp(d, "maas");

		for (size_t k = 0; k < i && !seen; k++)
			seen = !strcmp(m->machines[k].domain, d);
		if (seen)
			continue;
		id++;
		if (!strcmp(d, name))
			return id;
	}
	return id + 1;
}

/* GET domains/: src/maasserver/api/domains.py DomainsHandler.read, the
 * default "maas" (id 0) and every domain a machine's FQDN named, each with
 * the count of its records (api/examples/domains.json). */
static void domains(struct sim_maas *m, const struct sim_maas_req *req, struct sim_maas_reply *r)
{
	json_t *arr = json_array();

	if (strcmp(req->method, "GET") || req->op) {
		json_decref(arr);
		sim_maas_reply_bad_op(r, req);
		return;
	}
	for (size_t i = 0; i <= m->n_machines; i++) {
		const char *d = i ? m->machines[i - 1].domain : "maas";
		int seen = 0, records = 0;

		for (size_t k = 0; k + 1 < i && !seen; k++)
			seen = !strcmp(m->machines[k].domain, d);
		if (i > 0 && (seen || !strcmp(d, "maas")))
			continue;
		for (size_t k = 0; k < m->n_machines; k++)
			records += !strcmp(m->machines[k].domain, d);
		json_array_append_new(arr, sim_maas_domain_json(d, sim_maas_domain_id(m, d), records));
	}
	sim_maas_reply_json(r, 200, arr);
}

void sim_maas_dispatch(struct sim_maas *m, const struct sim_maas_req *req, struct sim_maas_reply *r)
{
	const char *p = req->path;
	int get = !strcmp(req->method, "GET") && !req->op;

	if (!strncmp(p, "machines/", 9))
		sim_maas_machines(m, req, p + 9, r);
	else if (!strncmp(p, "nodes/", 6))
		sim_maas_blockdevices(m, req, p + 6, r);
	else if (!strncmp(p, "tags/", 5))
		sim_maas_tags(m, req, p + 5, r);
	else if (!strcmp(p, "events/"))
		sim_maas_events(m, req, r);
	/* src/maasserver/api/users.py UsersHandler.whoami: the key's user. */
	else if (!strcmp(p, "users/") && req->op && !strcmp(req->op, "whoami") && !strcmp(req->method, "GET"))
		sim_maas_reply_json(r, 200,
				    json_pack("{s:s, s:s+, s:b, s:b}", "username", req->user, "email",
					      req->user, "@maas.example", "is_superuser", req->user_is_admin,
					      "is_local", 1));
	else if (!strcmp(p, "users/"))
		sim_maas_reply_bad_op(r, req);
	/* src/maasserver/api/zones.py ZonesHandler.read: the emulator has the
	 * one zone MAAS creates, "default" (api/examples/zones.json shape). */
	else if (!strcmp(p, "zones/") && get)
		sim_maas_reply_json(r, 200, json_pack("[o]", sim_maas_zone_json()));
	else if (!strcmp(p, "zones/default/") && get)
		sim_maas_reply_json(r, 200, sim_maas_zone_json());
	/* src/maasserver/api/resourcepools.py: the "default" pool only. */
	else if (!strcmp(p, "resourcepools/") && get)
		sim_maas_reply_json(r, 200, json_pack("[o]", sim_maas_pool_json()));
	else if (!strcmp(p, "domains/"))
		domains(m, req, r);
	/* src/maasserver/api/spaces.py SpacesHandler.read lists Space objects;
	 * the emulator defines no subnets, so no space either. */
	else if (!strcmp(p, "spaces/") && get)
		sim_maas_reply_json(r, 200, json_array());
	else if (!strcmp(p, "zones/") || !strcmp(p, "spaces/") || !strcmp(p, "resourcepools/"))
		sim_maas_reply_bad_op(r, req);
	else
		sim_maas_reply_text(r, 404, "Not Found");
}
