/* The ServiceNow stand-in: the Table API's incident table. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tickets.h"

struct sim_servicenow {
	char *authorization;
	json_t **incidents; /* every field a string, as the Table API gives them */
	size_t n;
};

struct sim_servicenow *sim_servicenow_new(const char *authorization)
{
	struct sim_servicenow *s = br_xcalloc(1, sizeof(*s));

	s->authorization = br_xstrdup(authorization);
	return s;
}

void sim_servicenow_free(struct sim_servicenow *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++)
		json_decref(s->incidents[i]);
	free(s->incidents);
	free(s->authorization);
	free(s);
}

static void respond(struct sim_response *resp, int status, json_t *doc)
{
	resp->status = status;
	resp->body = json_dumps(doc, JSON_COMPACT);
	resp->body_len = strlen(resp->body);
	json_decref(doc);
}

static void failure(struct sim_response *resp, int status, const char *message, const char *detail)
{
	respond(resp, status,
		json_pack("{s:{s:s, s:s?}, s:s}", "error", "message", message, "detail", detail, "status",
			  "failure"));
}

/* 6 Resolved, 7 Closed, 8 Canceled: no longer active. */
static int active(json_t *inc)
{
	const char *state = br_json_str(inc, "state");

	return !state || (strcmp(state, "6") && strcmp(state, "7") && strcmp(state, "8"));
}

/* Only the fields asked for (sysparm_fields), else all. */
static json_t *shown(json_t *inc, const char *fields)
{
	json_t *out;
	const char *p = fields;

	if (!fields || !*fields)
		return json_deep_copy(inc);
	out = json_object();
	while (*p) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		char *name = br_xstrndup(p, len);

		if (json_object_get(inc, name))
			json_object_set(out, name, json_object_get(inc, name));
		free(name);
		p += len + (end != NULL);
	}
	return out;
}

/* An encoded query: conditions joined by ^, each FIELD=VALUE or
 * FIELD!=VALUE; active=true is state not 6, 7 or 8. A condition on a
 * field the table lacks is ignored, as the instance's default
 * (glide.invalid_query.returns_no_rows false) does. */
static int matches(json_t *inc, const char *query)
{
	const char *p = query;

	while (p && *p) {
		const char *end = strchr(p, '^');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		char *cond = br_xstrndup(p, len), *eq = strchr(cond, '=');
		int neg = eq && eq > cond && eq[-1] == '!', ok = 1;

		if (eq) {
			const char *value = eq + 1;

			*(neg ? eq - 1 : eq) = '\0';
			if (!strcmp(cond, "active"))
				ok = active(inc) == !strcmp(value, "true");
			else if (json_object_get(inc, cond))
				ok = !strcmp(br_json_str(inc, cond) ? br_json_str(inc, cond) : "", value);
			if (neg)
				ok = !ok;
		}
		free(cond);
		if (!ok)
			return 0;
		p = end ? end + 1 : NULL;
	}
	return 1;
}

static void list(struct sim_servicenow *s, const struct sim_request *req, struct sim_response *resp)
{
	const char *query = sim_request_query(req, "sysparm_query"),
		   *fields = sim_request_query(req, "sysparm_fields"),
		   *limit_s = sim_request_query(req, "sysparm_limit");
	long limit = 10000;
	json_t *result = json_array();

	if (limit_s && br_parse_long(limit_s, 1, 10000, &limit))
		limit = 10000;
	for (size_t i = 0; i < s->n && (long)json_array_size(result) < limit; i++)
		if (matches(s->incidents[i], query))
			json_array_append_new(result, shown(s->incidents[i], fields));
	respond(resp, 200, json_pack("{s:o}", "result", result));
}

static json_t *as_strings(json_t *body)
{
	json_t *out = json_object(), *v;
	const char *key;

	json_object_foreach(body, key, v)
	{
		if (json_is_string(v))
			json_object_set(out, key, v);
		else if (json_is_integer(v))
			json_object_set_new(out, key, json_sprintf("%lld", (long long)json_integer_value(v)));
		else if (json_is_boolean(v))
			json_object_set_new(out, key, json_string(json_is_true(v) ? "true" : "false"));
	}
	return out;
}

static void create(struct sim_servicenow *s, const struct sim_request *req, struct sim_response *resp)
{
	json_t *body = json_loads(req->body, 0, NULL), *inc;
	char sys_id[33], number[16], *location;

	if (!json_is_object(body)) {
		json_decref(body);
		failure(resp, 400, "Exception while reading request", "The payload is not valid JSON.");
		return;
	}
	if (s->n >= SIM_TICKETS_MAX) {
		json_decref(body);
		failure(resp, 400, "Operation Failed", "too many incidents");
		return;
	}
	snprintf(sys_id, sizeof(sys_id), "%08x%024zx", 0x5e1f0000u, s->n + 1);
	snprintf(number, sizeof(number), "INC%07zu", 10000 + s->n + 1);
	inc = as_strings(body);
	json_decref(body);
	json_object_set_new(inc, "sys_id", json_string(sys_id));
	json_object_set_new(inc, "number", json_string(number));
	if (!json_object_get(inc, "state"))
		json_object_set_new(inc, "state", json_string("1"));
	json_object_set_new(inc, "active", json_string(active(inc) ? "true" : "false"));
	s->incidents = br_xrealloc(s->incidents, (s->n + 1) * sizeof(*s->incidents));
	s->incidents[s->n++] = inc;
	location = br_xasprintf("/api/now/table/incident/%s", sys_id);
	sim_response_header(resp, "Location", location);
	free(location);
	respond(resp, 201, json_pack("{s:O}", "result", inc));
}

static void update(json_t *inc, const struct sim_request *req, struct sim_response *resp)
{
	json_t *body = json_loads(req->body, 0, NULL), *fields;
	const char *state;

	if (!json_is_object(body)) {
		json_decref(body);
		failure(resp, 400, "Exception while reading request", "The payload is not valid JSON.");
		return;
	}
	fields = as_strings(body);
	json_decref(body);
	state = br_json_str(fields, "state");
	/* The incident data policy: resolving needs a resolution code and
	 * notes. */
	if (state && !strcmp(state, "6") &&
	    !((br_json_str(fields, "close_code") || br_json_str(inc, "close_code")) &&
	      (br_json_str(fields, "close_notes") || br_json_str(inc, "close_notes")))) {
		json_decref(fields);
		failure(resp, 403, "Operation Failed",
			"Data Policy Exception: \n The following fields are mandatory: Resolution code, "
			"Resolution notes");
		return;
	}
	json_object_update(inc, fields);
	json_decref(fields);
	json_object_set_new(inc, "active", json_string(active(inc) ? "true" : "false"));
	respond(resp, 200, json_pack("{s:O}", "result", inc));
}

void sim_servicenow_handle(void *ctx, const struct sim_request *req, struct sim_response *resp)
{
	struct sim_servicenow *s = ctx;
	const char *auth = sim_request_header(req, "Authorization"), *p = req->path;

	resp->auth = auth ? (!strncmp(auth, "Basic ", 6)    ? "basic"
			     : !strncmp(auth, "Bearer ", 7) ? "bearer"
							    : "other")
			  : "none";
	if (!auth || strcmp(auth, s->authorization)) {
		failure(resp, 401, "User Not Authenticated", "Required to provide Auth information");
		return;
	}
	if (!strncmp(p, "/api/now/v1/", 12))
		p += 12;
	else if (!strncmp(p, "/api/now/", 9))
		p += 9;
	else {
		failure(resp, 400, "Requested URI does not represent any resource", NULL);
		return;
	}
	if (!strcmp(p, "table/incident")) {
		if (!strcmp(req->method, "GET"))
			list(s, req, resp);
		else if (!strcmp(req->method, "POST"))
			create(s, req, resp);
		else
			failure(resp, 405, "Method not Supported", NULL);
	} else if (!strncmp(p, "table/incident/", 15)) {
		json_t *inc = NULL;

		for (size_t i = 0; i < s->n && !inc; i++)
			if (!strcmp(br_json_str(s->incidents[i], "sys_id"), p + 15))
				inc = s->incidents[i];
		if (!inc)
			failure(resp, 404, "No Record found",
				"Record doesn't exist or ACL restricts the record retrieval");
		else if (!strcmp(req->method, "GET"))
			respond(resp, 200, json_pack("{s:O}", "result", inc));
		else if (!strcmp(req->method, "PATCH") || !strcmp(req->method, "PUT"))
			update(inc, req, resp);
		else
			failure(resp, 405, "Method not Supported", NULL);
	} else if (!strncmp(p, "table/", 6)) {
		failure(resp, 400, "Invalid table", p + 6);
	} else {
		failure(resp, 400, "Requested URI does not represent any resource", NULL);
	}
}
