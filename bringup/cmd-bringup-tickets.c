/*
 * bringup tickets: one ticket per faulty (node, fault), kept in the
 * inventory across runs (a re-run updates, a fixed fault closes), printed
 * as Markdown for the aisle (by rack, then U), JSON or CSV.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "http.h"

#include "stages/stages.h"

/* Where tickets are posted: --post (no credentials: argv is every local
 * user's to read, and the shell's history keeps it), or --post-ref, and
 * the Authorization header by reference. Secrets are resolved here, before
 * any node or ticket is touched; a mistake stops the stage (exit 2). */
static void webhook_target(struct stg_stage *st, struct stg_webhook_options *post, const char *url,
			   const char *url_ref, const char *auth_ref, int sys, char **url_secret,
			   char **auth_secret)
{
	struct br_err err = { 0 };

	if (url && url_ref && *url_ref) {
		stg_stage_usage(st, "--post and --post-ref (or $BRINGUP_TICKETS_POST_REF): give one");
		return;
	}
	if (url && br_url_has_credentials(url)) {
		char *shown = br_url_masked(url);

		stg_stage_usage(st,
				"--post '%s': the URL carries credentials (a user, a password or a query), "
				"which the command line shows to every user of this machine: give it by "
				"reference, --post-ref env:VAR|file:PATH",
				shown);
		free(shown);
		return;
	}
	post->url = url;
	if (url_ref && *url_ref) {
		if (br_secret_resolve(url_ref, url_secret, &err)) {
			stg_stage_usage(st, "--post-ref: %s", err.msg);
			return;
		}
		post->url = *url_secret;
	}
	if (auth_ref && *auth_ref) {
		if (!post->url && !sys) {
			stg_stage_usage(st, "--post-auth-ref without a webhook (--post or --post-ref), "
					    "--jira, --servicenow or --github");
			return;
		}
		if (br_secret_resolve(auth_ref, auth_secret, &err)) {
			stg_stage_usage(st, "--post-auth-ref: %s", err.msg);
			return;
		}
		if (strpbrk(*auth_secret, "\r\n")) {
			stg_stage_usage(st, "--post-auth-ref: the header value holds a line break");
			return;
		}
		post->authorization = *auth_secret;
	}
}

int main(int argc, char **argv)
{
	struct stg_stage st = { 0 };
	const char *format = "md", *state = "open";
	struct stg_webhook_options post;
	const char *post_url = NULL, *post_ref = getenv("BRINGUP_TICKETS_POST_REF"),
		   *auth_ref = getenv("BRINGUP_TICKETS_POST_AUTH_REF");
	char *url_secret = NULL, *auth_secret = NULL;
	int timeout_s = 10, list_only = 0;
	struct stg_ticketsys_options sys = { .jira_api = 2 };
	const char *jira_url = NULL, *servicenow_url = NULL, *github_api = STG_TICKETSYS_GITHUB_API;
	const struct br_option options[] = {
		{ "format", 'f', BR_OPT_STRING, &format, "md|json|csv",
		  "Markdown table to print (default), the JSON document (--json), or CSV" },
		{ "state", 0, BR_OPT_STRING, &state, "open|closed|all",
		  "which tickets to list (default open); JSON gives each one's status" },
		{ "post", 0, BR_OPT_STRING, &post_url, "URL",
		  "POST each new or changed ticket as JSON to this webhook (Idempotency-Key per ticket "
		  "version); one with credentials (user, password, a query) only by --post-ref" },
		{ "post-ref", 0, BR_OPT_STRING, &post_ref, "env:VAR|file:PATH",
		  "the webhook's URL by reference (default $BRINGUP_TICKETS_POST_REF): it may carry "
		  "credentials, shown masked" },
		{ "post-auth-ref", 0, BR_OPT_STRING, &auth_ref, "env:VAR|file:PATH",
		  "the webhook's Authorization header value by reference (\"Bearer TOKEN\"; default "
		  "$BRINGUP_TICKETS_POST_AUTH_REF)" },
		{ "jira", 0, BR_OPT_STRING, &jira_url, "URL",
		  "file the tickets in Jira at URL (its base) by its REST API instead of a webhook: "
		  "searched by label first, so a ticket is never filed twice" },
		{ "jira-project", 0, BR_OPT_STRING, &sys.jira_project, "KEY",
		  "the Jira project the issues go in (required with --jira)" },
		{ "jira-issuetype", 0, BR_OPT_STRING, &sys.jira_issuetype, "NAME",
		  "the issue type (default Task)" },
		{ "jira-api", 0, BR_OPT_INT, &sys.jira_api, "2|3",
		  "Jira's REST API version: 2 (Server, Data Center; default) or 3 (Cloud)" },
		{ "servicenow", 0, BR_OPT_STRING, &servicenow_url, "URL",
		  "file the tickets as ServiceNow incidents at URL (the instance) by its Table API, "
		  "searched by correlation_id first" },
		{ "servicenow-close-code", 0, BR_OPT_STRING, &sys.servicenow_close_code, "TEXT",
		  "the close code of an incident whose fault is gone (default \"Solution provided\")" },
		{ "github", 0, BR_OPT_STRING, &sys.github_repo, "OWNER/REPO",
		  "file the tickets as GitHub issues in OWNER/REPO by its REST API, labelled bringup, "
		  "searched by the id in their body first; the token by --post-auth-ref (\"Bearer TOKEN\")" },
		{ "github-api", 0, BR_OPT_STRING, &github_api, "URL",
		  "GitHub's API base (default " STG_TICKETSYS_GITHUB_API "; GitHub Enterprise Server: "
		  "https://HOST/api/v3/)" },
		{ "ca-file", 0, BR_OPT_STRING, &post.ca_file, "PATH",
		  "CA bundle for the webhook's (or Jira's, ServiceNow's, GitHub's) certificate" },
		{ "insecure", 'k', BR_OPT_FLAG, &post.insecure, NULL,
		  "do not verify the webhook's TLS certificate" },
		{ "retries", 0, BR_OPT_INT, &post.retries, "N",
		  "retries per ticket on errors, 5xx, 429 (default 5)" },
		{ "timeout", 't', BR_OPT_INT, &timeout_s, "SECONDS", "one webhook request (default 10)" },
		{ "list", 0, BR_OPT_FLAG, &list_only, NULL,
		  "only list the tickets as last filed: the inventory is opened read-only (as it is for "
		  "a user who cannot write it)" },
		{ 0 },
	};
	const struct br_command cmd = {
		"bringup-tickets",
		"[options] [HOST...]",
		"File one ticket per fault of every quarantined or failed node (or the named ones): where it "
		"is\n"
		"(rack, U, serial, service tag), the fault, the evidence, and what a technician does\n"
		"(templates/tickets/actions.conf). Tickets are kept by hostname and fault: a re-run updates\n"
		"them, a fault that is gone closes its ticket; a retired node has one ticket, to return it.\n"
		"Prints the open tickets (--state closed|all for the others).",
		options,
		&st.common,
	};
	struct stg_tickets_run run = { 0 };

	stg_webhook_options_init(&post);
	st.allow_retired = 1;
	if (stg_stage_parse(&st, &cmd, argc, argv))
		return stg_stage_close(&st);
	if (!strcmp(format, "json"))
		st.common.json = 1;
	else if (!strcmp(format, "csv"))
		run.format = STG_TICKETS_CSV;
	else if (strcmp(format, "md"))
		stg_stage_usage(&st, "--format: '%s' (want md, json or csv)", format);
	if (!strcmp(state, "closed"))
		run.list = STG_TICKETS_LIST_CLOSED;
	else if (!strcmp(state, "all"))
		run.list = STG_TICKETS_LIST_ALL;
	else if (strcmp(state, "open"))
		stg_stage_usage(&st, "--state: '%s' (want open, closed or all)", state);
	if (!st.exit && (post.retries < 0 || timeout_s < 1))
		stg_stage_usage(&st, "--retries must be 0 or more, --timeout positive");
	post.timeout_ms = timeout_s * 1000L;
	/* $BRINGUP_TICKETS_POST_REF is only the webhook's default. */
	if (!st.exit && (!!jira_url + !!servicenow_url + !!sys.github_repo + !!post_url) > 1)
		stg_stage_usage(&st, "--post, --jira, --servicenow and --github: give one");
	sys.kind = jira_url	     ? STG_TICKETSYS_JIRA
		   : servicenow_url  ? STG_TICKETSYS_SERVICENOW
		   : sys.github_repo ? STG_TICKETSYS_GITHUB
				     : STG_TICKETSYS_NONE;
	sys.url = jira_url ? jira_url : servicenow_url ? servicenow_url : github_api;
	if (!st.exit)
		webhook_target(&st, &post, post_url, sys.kind ? NULL : post_ref, auth_ref, sys.kind != 0,
			       &url_secret, &auth_secret);
	if (!st.exit && sys.kind) {
		struct br_err err = { 0 };

		sys.authorization = auth_secret;
		sys.ca_file = post.ca_file;
		sys.insecure = post.insecure;
		sys.timeout_ms = post.timeout_ms;
		if (stg_ticketsys_options_check(&sys, &err))
			stg_stage_usage(&st, "%s", err.msg);
		run.sys = &sys;
	}
	/* Tickets are the stage's own rows: no node is worked, so no lease
	 * keeps another stage off them. */
	st.no_lease = 1;
	st.readonly = list_only || stg_inventory_readonly_here(st.common.db);
	if (!st.exit && st.readonly && (post.url || sys.kind))
		stg_stage_usage(&st, "--post records what it delivered in the inventory: %s",
				list_only ? "not with --list" : "this user cannot write it");
	else if (!st.exit && st.readonly && !list_only && !access(st.common.db, F_OK))
		br_warn("tickets",
			"inventory %s is read-only to this user: listing the tickets as last filed",
			st.common.db);
	if (!st.exit && !stg_stage_open(&st, stg_all_states) && !stg_tickets_run(&st, &run, &post))
		stg_stage_report(&st, stg_tickets_json, stg_tickets_print, &run, 0);
	stg_tickets_run_release(&run);
	free(url_secret);
	free(auth_secret);
	return stg_stage_close(&st);
}
