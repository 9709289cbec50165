/*
 * sim/tickets — stand-ins for the ticket systems bringup tickets files in,
 * held to their documented REST shapes:
 *
 *   Jira (REST v2 and v3, developer.atlassian.com's Jira platform REST API):
 *   POST /rest/api/N/issue {"fields": {project {key}, issuetype {name|id},
 *   summary, description, labels}} → 201 {id, key, self}; 400 {"errorMessages",
 *   "errors": {field: message}} for a missing or wrong field (a v3
 *   description that is not an Atlassian Document, a label with a blank, a
 *   summary with a line break or past 255 characters); GET /rest/api/2/search
 *   and /rest/api/3/search/jql (v3's /search answers 410, removed on Cloud)
 *   with the JQL `project = "K" AND labels = "L" AND statusCategory != Done`;
 *   PUT /rest/api/N/issue/KEY (204); POST /rest/api/N/issue/KEY/comment (201).
 *
 *   ServiceNow (the Table API, docs.servicenow.com "Table API"): POST
 *   /api/now/table/incident → 201 {"result": {…every field a string…,
 *   sys_id, number "INC0010001"}} with a Location header; GET with
 *   sysparm_query (field=value joined by ^, active=true), sysparm_fields,
 *   sysparm_limit → {"result": [...]}; PATCH /api/now/table/incident/SYS_ID,
 *   resolving (state 6) refused 403 by the data policy without close_code and
 *   close_notes; errors as {"error": {message, detail}, "status": "failure"}.
 *
 *   GitHub issues (docs.github.com "REST API endpoints for issues", API
 *   version 2022-11-28), one repository OWNER/REPO, at the root as
 *   api.github.com or under /api/v3 as GitHub Enterprise Server: POST
 *   /repos/O/R/issues {title, body, labels} → 201 the issue {id, number,
 *   url, html_url, title, body, state "open", labels [{name}], state_reason,
 *   comments} with a Location header; 422 {"message": "Validation Failed",
 *   "errors": [{resource, field, code}]} without a title or with a label
 *   past 50 characters; GET /repos/O/R/issues?state=open|closed|all&labels=
 *   A,B&direction=asc|desc (by creation, default desc: the newest first)
 *   &per_page (at most 100, default 30)&page; GET and PATCH
 *   /repos/O/R/issues/N {title, body, labels, state open|closed,
 *   state_reason completed|not_planned|reopened}; POST (201) and GET
 *   /repos/O/R/issues/N/comments {body}; 404 {"message": "Not Found"} for
 *   another repository, 401 "Bad credentials", 403 without a User-Agent.
 *
 * Each checks the Authorization header against the one it was given
 * (401 otherwise; GitHub takes "token T" for "Bearer T" too) and serves on
 * the simulator's loop; requests are logged in requests.log as nodes
 * "jira", "servicenow" and "github", bodies included.
 *
 * Ownership: sim_*_new copy their arguments; sim_*_free after the loop.
 */
#ifndef BRINGUP_SIM_TICKETS_H
#define BRINGUP_SIM_TICKETS_H

#include "http.h"

#define SIM_TICKETS_MAX 10000 /* issues or incidents kept */

struct sim_jira;
struct sim_jira *sim_jira_new(const char *project, const char *authorization);
void sim_jira_free(struct sim_jira *j);
void sim_jira_handle(void *ctx, const struct sim_request *req, struct sim_response *resp);

struct sim_servicenow;
struct sim_servicenow *sim_servicenow_new(const char *authorization);
void sim_servicenow_free(struct sim_servicenow *s);
void sim_servicenow_handle(void *ctx, const struct sim_request *req, struct sim_response *resp);

struct sim_github;
struct sim_github *sim_github_new(const char *repo, const char *authorization);
void sim_github_free(struct sim_github *g);
void sim_github_handle(void *ctx, const struct sim_request *req, struct sim_response *resp);

#endif
