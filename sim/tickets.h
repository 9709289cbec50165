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
 * Both check the Authorization header against the one they were given
 * (401 otherwise) and serve on the simulator's loop; requests are logged in
 * requests.log as nodes "jira" and "servicenow", bodies included.
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

#endif
