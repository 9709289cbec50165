/* The Jira stand-in: issues created, searched by JQL, updated, commented. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "tickets.h"

struct issue {
	int id;
	char key[24];
	json_t *fields; /* as created, updated by PUT */
	int comments;
};

struct sim_jira {
	char *project, *authorization;
	struct issue *issues;
	size_t n;
};

struct sim_jira *sim_jira_new(const char *project, const char *authorization)
{
	struct sim_jira *j = br_xcalloc(1, sizeof(*j));

	j->project = br_xstrdup(project);
	j->authorization = br_xstrdup(authorization);
	return j;
}

void sim_jira_free(struct sim_jira *j)
{
	if (!j)
		return;
	for (size_t i = 0; i < j->n; i++)
		json_decref(j->issues[i].fields);
	free(j->issues);
	free(j->project);
	free(j->authorization);
	free(j);
}

static void respond(struct sim_response *resp, int status, json_t *doc)
{
	resp->status = status;
	resp->body = doc ? json_dumps(doc, JSON_COMPACT) : br_xstrdup("");
	resp->body_len = strlen(resp->body);
	json_decref(doc);
}

/* Jira's error collection: {"errorMessages": [...], "errors": {field: msg}}. */
static void refuse(struct sim_response *resp, int status, const char *field, const char *msg)
{
	json_t *doc = json_pack("{s:[], s:{}}", "errorMessages", "errors");

	if (field)
		json_object_set_new(json_object_get(doc, "errors"), field, json_string(msg));
	else
		json_array_append_new(json_object_get(doc, "errorMessages"), json_string(msg));
	respond(resp, status, doc);
}

/* An Atlassian Document: {"type": "doc", "version": 1, "content": [...]}. */
static int is_adf(json_t *v)
{
	return json_is_object(v) && !strcmp(br_json_str(v, "type") ? br_json_str(v, "type") : "", "doc") &&
	       json_integer_value(json_object_get(v, "version")) == 1 &&
	       json_is_array(json_object_get(v, "content"));
}

/* A description or comment body as this API version takes it; the error
 * Jira gives otherwise, or NULL. */
static const char *text_problem(json_t *v, int api)
{
	if (!v || json_is_null(v))
		return NULL;
	if (api == 3)
		return is_adf(v) ? NULL
				 : "Operation value must be an Atlassian Document (see the Atlassian "
				   "Document Format)";
	return json_is_string(v) ? NULL : "Operation value must be a string";
}

static void create(struct sim_jira *j, int api, const struct sim_request *req, struct sim_response *resp)
{
	json_t *doc = json_loads(req->body, 0, NULL), *f = json_object_get(doc, "fields"), *labels, *v;
	const char *summary = br_json_str(f, "summary"), *problem, *type = br_json_str(f, "issuetype/name");
	struct issue *is;
	size_t i;

	if (!json_is_object(f)) {
		refuse(resp, 400, NULL, "Can not deserialize the request: no 'fields' object");
		goto out;
	}
	if (!br_json_str(f, "project/key") || strcmp(br_json_str(f, "project/key"), j->project)) {
		refuse(resp, 400, "project", "valid project is required");
		goto out;
	}
	if (!(type && (!strcasecmp(type, "Task") || !strcasecmp(type, "Bug"))) &&
	    !br_json_str(f, "issuetype/id")) {
		refuse(resp, 400, "issuetype", "valid issue type is required");
		goto out;
	}
	if (!summary || !*summary) {
		refuse(resp, 400, "summary", "You must specify a summary of the issue.");
		goto out;
	}
	if (strlen(summary) > 255) {
		refuse(resp, 400, "summary", "Summary must be less than 255 characters.");
		goto out;
	}
	if (strpbrk(summary, "\r\n")) {
		refuse(resp, 400, "summary",
		       "The summary is invalid because it contains newline characters.");
		goto out;
	}
	problem = text_problem(json_object_get(f, "description"), api);
	if (problem) {
		refuse(resp, 400, "description", problem);
		goto out;
	}
	labels = json_object_get(f, "labels");
	json_array_foreach(labels, i, v) if (!json_is_string(v) || strchr(json_string_value(v), ' '))
	{
		refuse(resp, 400, "labels", "The label contains spaces which is invalid.");
		goto out;
	}
	if (j->n >= SIM_TICKETS_MAX) {
		refuse(resp, 400, NULL, "too many issues");
		goto out;
	}
	j->issues = br_xrealloc(j->issues, (j->n + 1) * sizeof(*j->issues));
	is = &j->issues[j->n++];
	memset(is, 0, sizeof(*is));
	is->id = 10000 + (int)j->n;
	snprintf(is->key, sizeof(is->key), "%s-%zu", j->project, j->n);
	is->fields = json_deep_copy(f);
	json_object_set_new(is->fields, "statusCategory", json_string("new"));
	{
		char *self = br_xasprintf("/rest/api/%d/issue/%d", api, is->id),
		     *id = br_xasprintf("%d", is->id);

		respond(resp, 201, json_pack("{s:s, s:s, s:s}", "id", id, "key", is->key, "self", self));
		free(self);
		free(id);
	}
out:
	json_decref(doc);
}

static struct issue *find(struct sim_jira *j, const char *key, size_t len)
{
	for (size_t i = 0; i < j->n; i++)
		if (strlen(j->issues[i].key) == len && !strncmp(j->issues[i].key, key, len))
			return &j->issues[i];
	return NULL;
}

/* One clause of the JQL bringup sends: FIELD = "V" or FIELD != V. */
struct clause {
	char field[32], value[256];
	int negated;
};

static int parse_clause(const char *s, size_t len, struct clause *c)
{
	char buf[320];
	char *p, *op;

	if (len >= sizeof(buf))
		return -1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	for (p = buf; *p == ' '; p++)
		;
	op = strstr(p, "!=");
	c->negated = op != NULL;
	if (!op)
		op = strchr(p, '=');
	if (!op || op == p)
		return -1;
	snprintf(c->field, sizeof(c->field), "%.*s", (int)(op - p), p);
	for (char *e = c->field + strlen(c->field); e > c->field && e[-1] == ' ';)
		*--e = '\0';
	p = op + (c->negated ? 2 : 1);
	while (*p == ' ')
		p++;
	if (*p == '"') {
		char *end = strchr(p + 1, '"');

		if (!end)
			return -1;
		snprintf(c->value, sizeof(c->value), "%.*s", (int)(end - p - 1), p + 1);
	} else {
		snprintf(c->value, sizeof(c->value), "%s", p);
		for (char *e = c->value + strlen(c->value); e > c->value && e[-1] == ' ';)
			*--e = '\0';
	}
	return 0;
}

static int clause_matches(const struct issue *is, const struct clause *c)
{
	int m = 0;

	if (!strcasecmp(c->field, "project"))
		m = !strcmp(br_json_str(is->fields, "project/key"), c->value);
	else if (!strcasecmp(c->field, "labels")) {
		json_t *v;
		size_t i;

		json_array_foreach(json_object_get(is->fields, "labels"), i, v) m |=
		    !strcmp(json_string_value(v), c->value);
	} else if (!strcasecmp(c->field, "statusCategory"))
		m = !strcasecmp(c->value, "Done")
			? !strcmp(br_json_str(is->fields, "statusCategory"), "done")
			: !strcasecmp(c->value, br_json_str(is->fields, "statusCategory"));
	return c->negated ? !m : m;
}

static void search(struct sim_jira *j, int api, const struct sim_request *req, struct sim_response *resp)
{
	const char *jql = sim_request_query(req, "jql"), *p;
	struct clause cl[8];
	size_t n = 0;
	json_t *issues = json_array(), *doc;

	if (!jql || !*jql) {
		json_decref(issues);
		refuse(resp, 400, NULL, "The JQL query is required: an unbounded search is not supported.");
		return;
	}
	for (p = jql; *p && n < 8;) {
		const char *and = strstr(p, " AND ");
		size_t len = and? (size_t)(and-p) : strlen(p);

		if (parse_clause(p, len, &cl[n])) {
			json_decref(issues);
			refuse(resp, 400, NULL, "Error in the JQL Query: the query is not valid.");
			return;
		}
		if (strcasecmp(cl[n].field, "project") && strcasecmp(cl[n].field, "labels") &&
		    strcasecmp(cl[n].field, "statusCategory")) {
			char *msg = br_xasprintf("Field '%s' does not exist or you do not have permission to "
						 "view it.",
						 cl[n].field);

			json_decref(issues);
			refuse(resp, 400, NULL, msg);
			free(msg);
			return;
		}
		n++;
		p += len + (and? 5 : 0);
	}
	for (size_t i = 0; i < j->n; i++) {
		int all = 1;

		for (size_t k = 0; k < n; k++)
			all &= clause_matches(&j->issues[i], &cl[k]);
		if (all) {
			char *id = br_xasprintf("%d", j->issues[i].id),
			     *self = br_xasprintf("/rest/api/%d/issue/%d", api, j->issues[i].id);

			json_array_append_new(issues,
					      json_pack("{s:s, s:s, s:s, s:{s:O}}", "id", id, "key",
							j->issues[i].key, "self", self, "fields", "summary",
							json_object_get(j->issues[i].fields, "summary")));
			free(id);
			free(self);
		}
	}
	if (api == 3)
		doc = json_pack("{s:o, s:b}", "issues", issues, "isLast", 1);
	else
		doc = json_pack("{s:s, s:i, s:i, s:I, s:o}", "expand", "schema,names", "startAt", 0,
				"maxResults", 50, "total", (json_int_t)json_array_size(issues), "issues",
				issues);
	respond(resp, 200, doc);
}

static void on_issue(struct sim_jira *j, int api, struct issue *is, const char *rest,
		     const struct sim_request *req, struct sim_response *resp)
{
	json_t *doc = json_loads(req->body, 0, NULL);
	const char *problem;

	if (!strcmp(rest, "/comment") && !strcmp(req->method, "POST")) {
		problem = json_object_get(doc, "body") ? text_problem(json_object_get(doc, "body"), api)
						       : "Comment body can not be empty!";
		if (problem)
			refuse(resp, 400, "comment", problem);
		else {
			is->comments++;
			respond(resp, 201, json_pack("{s:i}", "id", is->id * 100 + is->comments));
		}
	} else if (!*rest && !strcmp(req->method, "PUT")) {
		json_t *f = json_object_get(doc, "fields"), *v;
		const char *key;

		problem = text_problem(json_object_get(f, "description"), api);
		if (!json_is_object(f))
			refuse(resp, 400, NULL, "Can not deserialize the request: no 'fields' object");
		else if (problem)
			refuse(resp, 400, "description", problem);
		else {
			json_object_foreach(f, key, v) json_object_set(is->fields, key, v);
			respond(resp, 204, NULL);
		}
	} else if (!*rest && !strcmp(req->method, "GET")) {
		char *id = br_xasprintf("%d", is->id);

		respond(resp, 200,
			json_pack("{s:s, s:s, s:O}", "id", id, "key", is->key, "fields", is->fields));
		free(id);
	} else {
		refuse(resp, 405, NULL, "Method not allowed");
	}
	(void)j;
	json_decref(doc);
}

void sim_jira_handle(void *ctx, const struct sim_request *req, struct sim_response *resp)
{
	struct sim_jira *j = ctx;
	const char *auth = sim_request_header(req, "Authorization"), *p = req->path;
	int api;

	resp->auth = auth ? (!strncmp(auth, "Bearer ", 7)  ? "bearer"
			     : !strncmp(auth, "Basic ", 6) ? "basic"
							   : "other")
			  : "none";
	if (!auth || strcmp(auth, j->authorization)) {
		refuse(resp, 401, NULL,
		       "You are not authenticated. Authentication required to perform this "
		       "operation.");
		return;
	}
	if (!strncmp(p, "/rest/api/2/", 12))
		api = 2;
	else if (!strncmp(p, "/rest/api/3/", 12))
		api = 3;
	else {
		refuse(resp, 404, NULL, "Not found");
		return;
	}
	p += 12;
	if (!strcmp(p, "issue") && !strcmp(req->method, "POST"))
		create(j, api, req, resp);
	else if (!strcmp(p, "search") && api == 2 && !strcmp(req->method, "GET"))
		search(j, api, req, resp);
	else if (!strcmp(p, "search/jql") && api == 3 && !strcmp(req->method, "GET"))
		search(j, api, req, resp);
	else if (!strcmp(p, "search") && api == 3)
		/* Jira Cloud removed it (CHANGE-2046) for search/jql. */
		refuse(
		    resp, 410, NULL,
		    "The requested API has been removed. Please migrate to the /rest/api/3/search/jql API.");
	else if (!strncmp(p, "issue/", 6)) {
		const char *key = p + 6, *slash = strchr(key, '/');
		struct issue *is = find(j, key, slash ? (size_t)(slash - key) : strlen(key));

		if (!is)
			refuse(resp, 404, NULL,
			       "Issue does not exist or you do not have permission to see it.");
		else
			on_issue(j, api, is, slash ? slash : "", req, resp);
	} else
		refuse(resp, 404, NULL, "Not found");
}
