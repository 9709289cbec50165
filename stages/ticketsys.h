/*
 * ticketsys — tickets filed in the ticket system a site runs, by its own
 * REST API, instead of a webhook: Jira (REST v2, Server/Data Center, or v3,
 * Cloud: POST /rest/api/N/issue with fields project, issuetype, summary,
 * description — a string in v2, an Atlassian Document in v3 — and labels)
 * ServiceNow (the Table API: POST /api/now/table/incident) and GitHub
 * issues (REST API 2022-11-28: POST /repos/OWNER/REPO/issues with title,
 * body, labels; the base api.github.com or a GitHub Enterprise Server's
 * https://HOST/api/v3/).
 *
 * Idempotent without anything kept here: each ticket carries a correlation
 * id made from its hostname and fault (Jira: a label; ServiceNow: the
 * incident's correlation_id; GitHub: a hidden "<!-- bringup-id: ID -->"
 * line in the body, as a label holds 50 characters at most), and every
 * delivery searches for it first (Jira: JQL over the project's issues not
 * Done; ServiceNow: the active incidents; GitHub: the open issues labelled
 * "bringup", page by page). Found, it is updated (Jira: summary and
 * description; ServiceNow: short_description, description, a work note;
 * GitHub: title and body) or, for a fault that is gone, closed (Jira: a
 * comment, as a transition's id is each workflow's own; ServiceNow: state
 * Resolved with a close code and notes; GitHub: a comment, then state
 * closed as completed).
 * Not found, it is created; a fault gone with nothing open is nothing to do.
 *
 * Ownership: options and items are borrowed for the call.
 */
#ifndef STAGES_TICKETSYS_H
#define STAGES_TICKETSYS_H

#include "common.h"

#define STG_TICKETSYS_BODY_MAX (4u * 1024 * 1024) /* one answer */
#define STG_TICKETSYS_SUMMARY_MAX 255 /* Jira's summary limit; ServiceNow's short_description is 160 */

enum stg_ticketsys_kind {
	STG_TICKETSYS_NONE,
	STG_TICKETSYS_JIRA,
	STG_TICKETSYS_SERVICENOW,
	STG_TICKETSYS_GITHUB
};
#define STG_TICKETSYS_GITHUB_API "https://api.github.com/"
#define STG_TICKETSYS_GITHUB_PAGES 50 /* of 100 open issues each, searched at most */

struct stg_ticketsys_options {
	enum stg_ticketsys_kind kind;
	const char *url;		   /* the site's base, "https://example.atlassian.net/" */
	const char *authorization;	   /* the Authorization header's value (a secret) */
	int jira_api;			   /* 2 (default) or 3 */
	const char *jira_project;	   /* the project's key, "DC" */
	const char *jira_issuetype;	   /* default "Task" */
	const char *servicenow_close_code; /* default "Solution provided" */
	const char *github_repo;	   /* "OWNER/REPO"; url is the API's base */
	const char *ca_file;
	int insecure;
	long timeout_ms;
};

struct stg_ticketsys_item {
	const char *correlation; /* stable per ticket: stg_ticketsys_correlation */
	const char *summary, *description;
	int closed;
};

/* "bringup-HOSTNAME-FAULT", every character Jira refuses in a label (a
 * blank) or JQL would quote made '_'. Caller frees. */
char *stg_ticketsys_correlation(const char *hostname, const char *fault);

/* Check o before any ticket is touched (a URL, a project for Jira, an
 * API version 2 or 3, OWNER/REPO for GitHub). */
int stg_ticketsys_options_check(const struct stg_ticketsys_options *o, struct br_err *err);

/* done(ctx, index, ok, text) for each item, in order: text is the ticket's
 * key (DC-12, INC0010001, owner/repo#7; NULL when there was nothing to close) on
 * success, else what failed in the system's words. */
typedef void (*stg_ticketsys_done_fn)(void *ctx, size_t index, int ok, const char *text);

/* Deliver every item, one after the other. 0, or an error when the client
 * cannot be set up at all. */
int stg_ticketsys_run(const struct stg_ticketsys_options *o, const struct stg_ticketsys_item *items, size_t n,
		      stg_ticketsys_done_fn done, void *ctx, struct br_err *err);

#endif
