/* The GitHub stand-in: one repository's issues and their comments. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tickets.h"

#define GH_LABEL_MAX 50 /* characters in a label's name */
#define GH_DOCS "https://docs.github.com/rest/issues/issues"

struct sim_github {
	char *repo, *authorization;
	json_t *issues;	  /* array, numbered from 1 in order */
	json_t *comments; /* array of {issue, id, body} */
};

struct sim_github *sim_github_new(const char *repo, const char *authorization)
{
	struct sim_github *g = br_xcalloc(1, sizeof(*g));

	g->repo = br_xstrdup(repo);
	g->authorization = br_xstrdup(authorization);
	g->issues = json_array();
	g->comments = json_array();
	return g;
}

void sim_github_free(struct sim_github *g)
{
	if (!g)
		return;
	json_decref(g->issues);
	json_decref(g->comments);
	free(g->repo);
	free(g->authorization);
	free(g);
}

static void respond(struct sim_response *resp, int status, json_t *doc)
{
	resp->status = status;
	resp->body = json_dumps(doc, JSON_COMPACT | JSON_PRESERVE_ORDER);
	resp->body_len = strlen(resp->body);
	json_decref(doc);
}

static void failure(struct sim_response *resp, int status, const char *message)
{
	respond(resp, status, json_pack("{s:s, s:s}", "message", message, "documentation_url", GH_DOCS));
}

/* 422 as GitHub words a rejected field. */
static void invalid(struct sim_response *resp, const char *field, const char *code)
{
	respond(resp, 422,
		json_pack("{s:s, s:[{s:s, s:s, s:s}], s:s}", "message", "Validation Failed", "errors",
			  "resource", "Issue", "field", field, "code", code, "documentation_url", GH_DOCS));
}

/* labels: a list of names (strings or {"name"}), each at most 50
 * characters; as [{"name"}] in *ret, or -1. */
static int take_labels(json_t *in, json_t **ret)
{
	json_t *out = json_array(), *v;
	size_t i;

	if (in && !json_is_array(in)) {
		json_decref(out);
		return -1;
	}
	json_array_foreach(in, i, v)
	{
		const char *name = json_is_string(v) ? json_string_value(v) : br_json_str(v, "name");

		if (!name || !*name || br_text_columns(name) > GH_LABEL_MAX) {
			json_decref(out);
			return -1;
		}
		json_array_append_new(out, json_pack("{s:s}", "name", name));
	}
	*ret = out;
	return 0;
}

static int has_label(json_t *issue, const char *name)
{
	json_t *v;
	size_t i;

	json_array_foreach(json_object_get(issue, "labels"), i,
			   v) if (!strcmp(br_json_str(v, "name"), name)) return 1;
	return 0;
}

/* ?labels=a,b: every one; state open (default), closed or all. */
static int listed(json_t *issue, const char *state, const char *labels)
{
	const char *p = labels;

	if (strcmp(state, "all") && strcmp(br_json_str(issue, "state"), state))
		return 0;
	while (p && *p) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		char *name = br_xstrndup(p, len);
		int ok = has_label(issue, name);

		free(name);
		if (!ok)
			return 0;
		p = end ? end + 1 : NULL;
	}
	return 1;
}

static void list(struct sim_github *g, const struct sim_request *req, struct sim_response *resp)
{
	const char *state = sim_request_query(req, "state"), *per_s = sim_request_query(req, "per_page"),
		   *page_s = sim_request_query(req, "page"), *dir = sim_request_query(req, "direction");
	long per = 30, page = 1, skip;
	json_t *out = json_array(), *v;
	size_t n = json_array_size(g->issues);
	/* sort=created, direction desc by default: the newest first */
	int asc = dir && !strcmp(dir, "asc");

	if (!state)
		state = "open";
	if (strcmp(state, "open") && strcmp(state, "closed") && strcmp(state, "all")) {
		json_decref(out);
		invalid(resp, "state", "invalid");
		return;
	}
	if (per_s && br_parse_long(per_s, 1, 100, &per))
		per = 30;
	if (page_s && br_parse_long(page_s, 1, 1000000, &page))
		page = 1;
	skip = (page - 1) * per;
	for (size_t k = 0; k < n; k++) {
		v = json_array_get(g->issues, asc ? k : n - 1 - k);
		if (!listed(v, state, sim_request_query(req, "labels")))
			continue;
		if (skip > 0) {
			skip--;
			continue;
		}
		if ((long)json_array_size(out) >= per)
			break;
		json_array_append(out, v);
	}
	respond(resp, 200, out);
}

static void create(struct sim_github *g, const struct sim_request *req, struct sim_response *resp)
{
	json_t *body = json_loads(req->body, 0, NULL), *labels = NULL, *issue;
	size_t number = json_array_size(g->issues) + 1;
	const char *title = br_json_str(body, "title");
	char *url, *html;

	if (!json_is_object(body)) {
		json_decref(body);
		failure(resp, 400, "Problems parsing JSON");
		return;
	}
	if (!title || !*title) {
		json_decref(body);
		invalid(resp, "title", "missing_field");
		return;
	}
	if (take_labels(json_object_get(body, "labels"), &labels)) {
		json_decref(body);
		invalid(resp, "labels", "invalid");
		return;
	}
	if (number > SIM_TICKETS_MAX) {
		json_decref(body);
		json_decref(labels);
		failure(resp, 403, "too many issues");
		return;
	}
	url = br_xasprintf("/repos/%s/issues/%zu", g->repo, number);
	html = br_xasprintf("https://github.example/%s/issues/%zu", g->repo, number);
	issue =
	    json_pack("{s:I, s:I, s:s, s:s, s:s, s:s, s:s, s:o, s:n, s:i}", "id", (json_int_t)(1000 + number),
		      "number", (json_int_t)number, "url", url, "html_url", html, "title", title, "body",
		      br_json_str(body, "body") ? br_json_str(body, "body") : "", "state", "open", "labels",
		      labels, "state_reason", "comments", 0);
	json_decref(body);
	json_array_append(g->issues, issue);
	sim_response_header(resp, "Location", url);
	free(url);
	free(html);
	respond(resp, 201, issue);
}

static void update(json_t *issue, const struct sim_request *req, struct sim_response *resp)
{
	json_t *body = json_loads(req->body, 0, NULL), *labels = NULL;
	const char *state = br_json_str(body, "state"), *reason = br_json_str(body, "state_reason");

	if (!json_is_object(body)) {
		json_decref(body);
		failure(resp, 400, "Problems parsing JSON");
		return;
	}
	if ((state && strcmp(state, "open") && strcmp(state, "closed")) ||
	    (reason && strcmp(reason, "completed") && strcmp(reason, "not_planned") &&
	     strcmp(reason, "reopened"))) {
		json_decref(body);
		invalid(resp,
			state && strcmp(state, "open") && strcmp(state, "closed") ? "state" : "state_reason",
			"invalid");
		return;
	}
	if (json_object_get(body, "title") && (!br_json_str(body, "title") || !*br_json_str(body, "title"))) {
		json_decref(body);
		invalid(resp, "title", "missing_field");
		return;
	}
	if (json_object_get(body, "labels") && take_labels(json_object_get(body, "labels"), &labels)) {
		json_decref(body);
		invalid(resp, "labels", "invalid");
		return;
	}
	if (br_json_str(body, "title"))
		json_object_set(issue, "title", json_object_get(body, "title"));
	if (br_json_str(body, "body"))
		json_object_set(issue, "body", json_object_get(body, "body"));
	if (labels)
		json_object_set_new(issue, "labels", labels);
	if (state) {
		json_object_set_new(issue, "state", json_string(state));
		json_object_set_new(issue, "state_reason",
				    !strcmp(state, "closed") ? json_string(reason ? reason : "completed")
				    : reason		     ? json_string(reason)
							     : json_null());
	}
	json_decref(body);
	respond(resp, 200, json_incref(issue));
}

static void comment(struct sim_github *g, json_t *issue, const struct sim_request *req,
		    struct sim_response *resp)
{
	json_t *body = json_loads(req->body, 0, NULL), *c;
	const char *text = br_json_str(body, "body");

	if (!text || !*text) {
		json_decref(body);
		respond(resp, 422,
			json_pack("{s:s, s:[{s:s, s:s, s:s}], s:s}", "message", "Validation Failed", "errors",
				  "resource", "IssueComment", "field", "body", "code", "missing_field",
				  "documentation_url", GH_DOCS));
		return;
	}
	c = json_pack("{s:I, s:I, s:s}", "id", (json_int_t)(5000 + json_array_size(g->comments) + 1), "issue",
		      json_integer_value(json_object_get(issue, "number")), "body", text);
	json_decref(body);
	json_array_append(g->comments, c);
	json_object_set_new(issue, "comments",
			    json_integer(json_integer_value(json_object_get(issue, "comments")) + 1));
	respond(resp, 201, c);
}

static void comments_of(struct sim_github *g, long number, struct sim_response *resp)
{
	json_t *out = json_array(), *v;
	size_t i;

	json_array_foreach(g->comments, i, v) if (json_integer_value(json_object_get(v, "issue")) == number)
	    json_array_append(out, v);
	respond(resp, 200, out);
}

void sim_github_handle(void *ctx, const struct sim_request *req, struct sim_response *resp)
{
	struct sim_github *g = ctx;
	const char *auth = sim_request_header(req, "Authorization"), *p = req->path;
	size_t rl = strlen(g->repo);
	char *end = NULL;
	long number = 0;
	json_t *issue;

	resp->auth = auth ? (!strncmp(auth, "Bearer ", 7)  ? "bearer"
			     : !strncmp(auth, "token ", 6) ? "token"
							   : "other")
			  : "none";
	/* "Requests with no User-Agent header will be rejected." */
	if (!sim_request_header(req, "User-Agent")) {
		failure(resp, 403,
			"Request forbidden by administrative rules. Please make sure your request has a "
			"User-Agent header");
		return;
	}
	if (!auth || (strcmp(auth, g->authorization) && !(strlen(auth) > 6 && !strncmp(auth, "token ", 6) &&
							  !strncmp(g->authorization, "Bearer ", 7) &&
							  !strcmp(auth + 6, g->authorization + 7)))) {
		failure(resp, 401, "Bad credentials");
		return;
	}
	/* GitHub Enterprise Server serves the same API under /api/v3. */
	if (!strncmp(p, "/api/v3/", 8))
		p += 7;
	if (strncmp(p, "/repos/", 7) || strncmp(p + 7, g->repo, rl) || strncmp(p + 7 + rl, "/issues", 7)) {
		failure(resp, 404, "Not Found");
		return;
	}
	p += 7 + rl + 7;
	if (!*p) {
		if (!strcmp(req->method, "GET"))
			list(g, req, resp);
		else if (!strcmp(req->method, "POST"))
			create(g, req, resp);
		else
			failure(resp, 404, "Not Found");
		return;
	}
	if (*p == '/')
		number = strtol(p + 1, &end, 10);
	issue = number > 0 ? json_array_get(g->issues, (size_t)number - 1) : NULL;
	if (!issue || !end) {
		failure(resp, 404, "Not Found");
		return;
	}
	if (!*end && !strcmp(req->method, "GET"))
		respond(resp, 200, json_incref(issue));
	else if (!*end && !strcmp(req->method, "PATCH"))
		update(issue, req, resp);
	else if (!strcmp(end, "/comments") && !strcmp(req->method, "POST"))
		comment(g, issue, req, resp);
	else if (!strcmp(end, "/comments") && !strcmp(req->method, "GET"))
		comments_of(g, number, resp);
	else
		failure(resp, 404, "Not Found");
}
