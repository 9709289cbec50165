/* Jira and ServiceNow tickets by their REST APIs, searched before filed. */
#include <curl/curl.h>
#include <stdlib.h>
#include <string.h>

#include "http.h"
#include "rest.h"
#include "ticketsys.h"

struct sys {
	const struct stg_ticketsys_options *o;
	struct stg_rest rest;
	char *base; /* ends in '/' */
};

char *stg_ticketsys_correlation(const char *hostname, const char *fault)
{
	char *s = br_xasprintf("bringup-%s-%s", hostname, fault);

	for (char *p = s; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		      *p == '-' || *p == '.' || *p == '_'))
			*p = '_';
	return s;
}

int stg_ticketsys_options_check(const struct stg_ticketsys_options *o, struct br_err *err)
{
	const char *what = o->kind == STG_TICKETSYS_JIRA     ? "--jira"
			   : o->kind == STG_TICKETSYS_GITHUB ? "--github-api"
							     : "--servicenow";

	if (!o->url || (strncmp(o->url, "http://", 7) && strncmp(o->url, "https://", 8)))
		return br_errf(err, BR_E_INVAL, "%s '%s': not an http(s) URL", what, o->url ? o->url : "");
	if (br_url_has_credentials(o->url))
		return br_errf(
		    err, BR_E_INVAL,
		    "%s: the URL carries a user, password or query; the credentials go by reference "
		    "(--post-auth-ref env:VAR|file:PATH)",
		    what);
	if (!o->authorization)
		return br_errf(
		    err, BR_E_INVAL,
		    "%s needs its Authorization header by reference: --post-auth-ref env:VAR|file:PATH "
		    "(\"Basic BASE64(user:token)\" or \"Bearer TOKEN\")",
		    what);
	if (o->kind == STG_TICKETSYS_GITHUB) {
		const char *r = o->github_repo ? o->github_repo : "", *slash = strchr(r, '/');
		int ok = slash && slash > r && slash[1] && !strchr(slash + 1, '/');

		/* GitHub's names: letters, digits, '-', '_', '.' */
		for (const char *p = r; ok && *p; p++)
			ok = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
			     (*p >= '0' && *p <= '9') || *p == '-' || *p == '_' || *p == '.' || p == slash;
		if (!ok)
			return br_errf(err, BR_E_INVAL,
				       "--github '%s': want OWNER/REPO (letters, digits, '-', '_', '.')", r);
	}
	if (o->kind == STG_TICKETSYS_JIRA) {
		if (!o->jira_project || !*o->jira_project)
			return br_errf(err, BR_E_INVAL, "--jira needs --jira-project KEY");
		for (const char *p = o->jira_project; *p; p++)
			if (!((*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_'))
				return br_errf(
				    err, BR_E_INVAL,
				    "--jira-project '%s': a project key is capital letters, digits "
				    "and '_'",
				    o->jira_project);
		if (o->jira_api != 2 && o->jira_api != 3)
			return br_errf(err, BR_E_INVAL, "--jira-api %d: 2 (Server, Data Center) or 3 (Cloud)",
				       o->jira_api);
	}
	return 0;
}

/* ---- answers ---------------------------------------------------------------- */

/* The system's words for a refusal: Jira's errorMessages and errors,
 * ServiceNow's error.message and error.detail. Caller frees. */
static char *words(const struct br_buf *body)
{
	json_t *doc = br_json_parse(body->data ? body->data : "", body->len, 64 * 1024, NULL), *v;
	struct br_buf b;
	const char *key;
	size_t i;

	br_buf_init(&b, 0);
	json_array_foreach(json_object_get(doc, "errorMessages"), i, v) if (json_is_string(v))
	    br_buf_addf(&b, "%s%s", b.len ? "; " : "", json_string_value(v));
	json_object_foreach(json_object_get(doc, "errors"), key, v) if (json_is_string(v))
	    br_buf_addf(&b, "%s%s: %s", b.len ? "; " : "", key, json_string_value(v));
	/* GitHub: {"message", "errors": [{"resource", "field", "code"}]} */
	if (br_json_str(doc, "message"))
		br_buf_addf(&b, "%s%s", b.len ? "; " : "", br_json_str(doc, "message"));
	json_array_foreach(json_object_get(doc, "errors"), i, v) if (br_json_str(v, "code")) br_buf_addf(
	    &b, " (%s %s)", br_json_str(v, "field") ? br_json_str(v, "field") : "-", br_json_str(v, "code"));
	if (br_json_str(doc, "error/message"))
		br_buf_addf(&b, "%s%s", b.len ? "; " : "", br_json_str(doc, "error/message"));
	if (br_json_str(doc, "error/detail"))
		br_buf_addf(&b, " (%s)", br_json_str(doc, "error/detail"));
	if (!b.len)
		br_buf_adds(&b, doc ? "(no message)" : "(no JSON answer)");
	json_decref(doc);
	return br_buf_detach(&b);
}

/* method url body; 0 with the JSON answer (may be NULL for 204) when the
 * status is 2xx, else the failure in err. */
static int call(struct sys *s, const char *method, const char *url, json_t *body, json_t **ret_doc,
		struct br_err *err)
{
	char *text = body ? json_dumps(body, JSON_COMPACT) : NULL;
	struct br_err call_err = { 0 };
	struct br_buf answer;
	long status = 0;
	int rc;

	br_buf_init(&answer, 0);
	*ret_doc = NULL;
	rc = stg_rest_call(&s->rest, method, url, text, &status, &answer, &call_err);
	free(text);
	if (rc) {
		rc = br_errf(err, rc, "%s", call_err.msg);
	} else if (status < 200 || status > 299) {
		char *w = words(&answer);

		rc = br_errf(err, status == 401 || status == 403 ? BR_E_AUTH : BR_E_REFUSED,
			     "%s %s: HTTP %ld: %s", method, url, status, w);
		free(w);
	} else if (answer.len) {
		*ret_doc = stg_rest_json(url, &answer, STG_TICKETSYS_BODY_MAX, &call_err);
		if (!*ret_doc)
			rc = br_errf(err, BR_E_PROTO, "%s %s", method, call_err.msg);
	}
	br_buf_release(&answer);
	return rc;
}

static char *escaped(const char *s)
{
	char *e = curl_easy_escape(NULL, s, 0), *out = br_xstrdup(e ? e : "");

	curl_free(e);
	return out;
}

/* ---- Jira ------------------------------------------------------------------- */

/* A v3 description: the text as an Atlassian Document, a paragraph a line. */
static json_t *adf(const char *text)
{
	json_t *content = json_array();
	const char *p = text;

	while (*p) {
		const char *end = strchr(p, '\n');
		size_t len = end ? (size_t)(end - p) : strlen(p);

		if (len) {
			char *line = br_xstrndup(p, len);

			json_array_append_new(content, json_pack("{s:s, s:[{s:s, s:s}]}", "type", "paragraph",
								 "content", "type", "text", "text", line));
			free(line);
		}
		p += len + (end != NULL);
	}
	return json_pack("{s:s, s:i, s:o}", "type", "doc", "version", 1, "content", content);
}

static json_t *jira_text(const struct sys *s, const char *text)
{
	return s->o->jira_api == 3 ? adf(text) : json_string(text);
}

/* The open issue labelled with the correlation id, or NULL. */
static int jira_find(struct sys *s, const struct stg_ticketsys_item *it, char **ret_key, struct br_err *err)
{
	char *jql = br_xasprintf("project = \"%s\" AND labels = \"%s\" AND statusCategory != Done",
				 s->o->jira_project, it->correlation),
	     *q = escaped(jql), *url;
	json_t *doc = NULL;
	int rc;

	/* v3 (Cloud) searches at search/jql: the v2 /search is gone there. */
	url = br_xasprintf("%srest/api/%d/%s?jql=%s&fields=summary&maxResults=2", s->base, s->o->jira_api,
			   s->o->jira_api == 3 ? "search/jql" : "search", q);
	rc = call(s, "GET", url, NULL, &doc, err);
	if (!rc && !json_is_array(json_object_get(doc, "issues")))
		rc = br_errf(err, BR_E_PROTO, "GET %s: no 'issues' in the answer", url);
	*ret_key = NULL;
	if (!rc && br_json_str(json_array_get(json_object_get(doc, "issues"), 0), "key"))
		*ret_key = br_xstrdup(br_json_str(json_array_get(json_object_get(doc, "issues"), 0), "key"));
	json_decref(doc);
	free(url);
	free(q);
	free(jql);
	return rc;
}

static int jira_deliver(struct sys *s, const struct stg_ticketsys_item *it, char **ret_key,
			struct br_err *err)
{
	json_t *body = NULL, *doc = NULL;
	char *key = NULL, *url = NULL;
	int rc = jira_find(s, it, &key, err);

	if (rc || (!key && it->closed))
		goto out;
	if (!key) {
		url = br_xasprintf("%srest/api/%d/issue", s->base, s->o->jira_api);
		body = json_pack("{s:{s:{s:s}, s:{s:s}, s:s, s:o, s:[s, s]}}", "fields", "project", "key",
				 s->o->jira_project, "issuetype", "name",
				 s->o->jira_issuetype ? s->o->jira_issuetype : "Task", "summary", it->summary,
				 "description", jira_text(s, it->description), "labels", "bringup",
				 it->correlation);
		rc = call(s, "POST", url, body, &doc, err);
		if (!rc && !br_json_str(doc, "key"))
			rc = br_errf(err, BR_E_PROTO, "POST %s: no 'key' in the answer", url);
		if (!rc)
			key = br_xstrdup(br_json_str(doc, "key"));
	} else if (it->closed) {
		url = br_xasprintf("%srest/api/%d/issue/%s/comment", s->base, s->o->jira_api, key);
		body = json_pack("{s:o}", "body", jira_text(s, it->description));
		rc = call(s, "POST", url, body, &doc, err);
	} else {
		url = br_xasprintf("%srest/api/%d/issue/%s", s->base, s->o->jira_api, key);
		body = json_pack("{s:{s:s, s:o}}", "fields", "summary", it->summary, "description",
				 jira_text(s, it->description));
		rc = call(s, "PUT", url, body, &doc, err);
	}
out:
	json_decref(body);
	json_decref(doc);
	free(url);
	if (!rc)
		*ret_key = key;
	else
		free(key);
	return rc;
}

/* ---- ServiceNow --------------------------------------------------------------- */

static int sn_deliver(struct sys *s, const struct stg_ticketsys_item *it, char **ret_key, struct br_err *err)
{
	char *query = br_xasprintf("correlation_id=%s^active=true", it->correlation), *q = escaped(query),
	     *url = br_xasprintf("%sapi/now/table/incident?sysparm_query=%s&sysparm_fields=sys_id,number&"
				 "sysparm_limit=1",
				 s->base, q),
	     *sys_id = NULL, *number = NULL;
	json_t *doc = NULL, *body = NULL, *found;
	int rc = call(s, "GET", url, NULL, &doc, err);

	free(query);
	free(q);
	if (!rc && !json_is_array(json_object_get(doc, "result")))
		rc = br_errf(err, BR_E_PROTO, "GET %s: no 'result' list in the answer", url);
	found = rc ? NULL : json_array_get(json_object_get(doc, "result"), 0);
	if (found && br_json_str(found, "sys_id")) {
		sys_id = br_xstrdup(br_json_str(found, "sys_id"));
		number = br_json_str(found, "number") ? br_xstrdup(br_json_str(found, "number")) : NULL;
	}
	json_decref(doc);
	doc = NULL;
	free(url);
	url = NULL;
	if (rc || (!sys_id && it->closed))
		goto out;
	if (!sys_id) {
		url = br_xasprintf("%sapi/now/table/incident", s->base);
		body = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s}", "short_description", it->summary,
				 "description", it->description, "correlation_id", it->correlation,
				 "correlation_display", "bringup", "category", "hardware", "impact", "3",
				 "urgency", "3");
		rc = call(s, "POST", url, body, &doc, err);
		if (!rc && !br_json_str(doc, "result/number"))
			rc = br_errf(err, BR_E_PROTO, "POST %s: no 'result.number' in the answer", url);
		if (!rc)
			number = br_xstrdup(br_json_str(doc, "result/number"));
		goto out;
	}
	url = br_xasprintf("%sapi/now/table/incident/%s", s->base, sys_id);
	if (it->closed)
		/* 6 is Resolved in the incident state model; resolving needs
		 * a close code and notes. */
		body =
		    json_pack("{s:s, s:s, s:s}", "state", "6", "close_code",
			      s->o->servicenow_close_code ? s->o->servicenow_close_code : "Solution provided",
			      "close_notes", it->description);
	else
		body = json_pack("{s:s, s:s, s:s}", "short_description", it->summary, "description",
				 it->description, "work_notes", "bringup: the fault's evidence changed");
	rc = call(s, "PATCH", url, body, &doc, err);
out:
	json_decref(body);
	json_decref(doc);
	free(url);
	free(sys_id);
	if (!rc)
		*ret_key = number;
	else
		free(number);
	return rc;
}

/* ---- GitHub ------------------------------------------------------------------- */

/* The hidden line that carries the correlation id in an issue's body. */
static char *gh_marker(const char *correlation)
{
	return br_xasprintf("<!-- bringup-id: %s -->", correlation);
}

/* The open issue (not a pull request) labelled bringup whose body holds
 * the marker: its number, or 0. */
static int gh_find(struct sys *s, const char *marker, long *ret_number, struct br_err *err)
{
	int rc = 0;

	*ret_number = 0;
	for (int page = 1; !rc && !*ret_number && page <= STG_TICKETSYS_GITHUB_PAGES; page++) {
		char *url = br_xasprintf("%srepos/%s/issues?state=open&labels=bringup&per_page=100&page=%d",
					 s->base, s->o->github_repo, page);
		json_t *doc = NULL, *v;
		size_t i;

		rc = call(s, "GET", url, NULL, &doc, err);
		if (!rc && !json_is_array(doc))
			rc = br_errf(err, BR_E_PROTO, "GET %s: the answer is not a list of issues", url);
		json_array_foreach(rc ? NULL : doc, i, v)
		{
			const char *body = br_json_str(v, "body");

			if (!json_object_get(v, "pull_request") && body && strstr(body, marker) &&
			    json_is_integer(json_object_get(v, "number"))) {
				*ret_number = (long)json_integer_value(json_object_get(v, "number"));
				break;
			}
		}
		if (!rc && json_array_size(doc) < 100)
			page = STG_TICKETSYS_GITHUB_PAGES; /* the last page */
		json_decref(doc);
		free(url);
	}
	return rc;
}

static int gh_deliver(struct sys *s, const struct stg_ticketsys_item *it, char **ret_key, struct br_err *err)
{
	char *marker = gh_marker(it->correlation), *body_text = NULL, *url = NULL;
	json_t *body = NULL, *doc = NULL;
	long number = 0;
	int rc = gh_find(s, marker, &number, err);

	if (rc || (!number && it->closed))
		goto out;
	body_text = br_xasprintf("%s\n\n%s\n", it->description, marker);
	if (!number) {
		url = br_xasprintf("%srepos/%s/issues", s->base, s->o->github_repo);
		body = json_pack("{s:s, s:s, s:[s]}", "title", it->summary, "body", body_text, "labels",
				 "bringup");
		rc = call(s, "POST", url, body, &doc, err);
		if (!rc && !json_is_integer(json_object_get(doc, "number")))
			rc = br_errf(err, BR_E_PROTO, "POST %s: no 'number' in the answer", url);
		if (!rc)
			number = (long)json_integer_value(json_object_get(doc, "number"));
	} else if (it->closed) {
		url = br_xasprintf("%srepos/%s/issues/%ld/comments", s->base, s->o->github_repo, number);
		body = json_pack("{s:s}", "body", it->description);
		rc = call(s, "POST", url, body, &doc, err);
		json_decref(body);
		json_decref(doc);
		doc = NULL;
		free(url);
		url = br_xasprintf("%srepos/%s/issues/%ld", s->base, s->o->github_repo, number);
		body = json_pack("{s:s, s:s}", "state", "closed", "state_reason", "completed");
		if (!rc)
			rc = call(s, "PATCH", url, body, &doc, err);
	} else {
		url = br_xasprintf("%srepos/%s/issues/%ld", s->base, s->o->github_repo, number);
		body = json_pack("{s:s, s:s}", "title", it->summary, "body", body_text);
		rc = call(s, "PATCH", url, body, &doc, err);
	}
out:
	json_decref(body);
	json_decref(doc);
	free(url);
	free(body_text);
	free(marker);
	if (!rc && number)
		*ret_key = br_xasprintf("%s#%ld", s->o->github_repo, number);
	return rc;
}

int stg_ticketsys_run(const struct stg_ticketsys_options *o, const struct stg_ticketsys_item *items, size_t n,
		      stg_ticketsys_done_fn done, void *ctx, struct br_err *err)
{
	struct stg_rest_options ro = { 0 };
	struct sys s = { o, { 0 }, NULL };
	/* GitHub refuses a request without a User-Agent and pins its API
	 * by a version header. */
	char *ua = NULL;
	const char *gh_headers[3] = { "X-GitHub-Api-Version: 2022-11-28", NULL, NULL };
	size_t len;
	int rc = stg_ticketsys_options_check(o, err);

	if (rc || !n)
		return rc;
	len = strlen(o->url);
	s.base = br_xasprintf("%s%s", o->url, o->url[len - 1] == '/' ? "" : "/");
	ro.authorization = o->authorization;
	ro.ca_file = o->ca_file;
	ro.insecure = o->insecure;
	ro.timeout_ms = o->timeout_ms;
	ro.body_max = STG_TICKETSYS_BODY_MAX;
	if (o->kind == STG_TICKETSYS_GITHUB) {
		ua = br_xasprintf("User-Agent: bringup/%s", br_version());
		gh_headers[1] = ua;
		ro.headers = gh_headers;
	}
	rc = stg_rest_init(&s.rest, &ro, err);
	for (size_t i = 0; !rc && i < n; i++) {
		struct br_err one = { 0 };
		char *key = NULL;
		int r = o->kind == STG_TICKETSYS_JIRA	  ? jira_deliver(&s, &items[i], &key, &one)
			: o->kind == STG_TICKETSYS_GITHUB ? gh_deliver(&s, &items[i], &key, &one)
							  : sn_deliver(&s, &items[i], &key, &one);

		done(ctx, i, r == 0, r ? one.msg : key);
		free(key);
	}
	stg_rest_release(&s.rest);
	free(ua);
	free(s.base);
	return rc;
}
