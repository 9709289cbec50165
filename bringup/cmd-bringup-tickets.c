/*
 * bringup tickets: one ticket per faulty (node, fault), kept in the
 * inventory across runs (a re-run updates, a fixed fault closes), printed
 * as Markdown for the aisle (by rack, then U), JSON or CSV.
 */
#include <string.h>
#include <unistd.h>

#include "stages/stages.h"

int main(int argc, char **argv)
{
	struct stg_stage st = { 0 };
	const char *format = "md", *state = "open";
	struct stg_webhook_options post;
	int timeout_s = 10, list_only = 0;
	const struct br_option options[] = {
		{ "format", 'f', BR_OPT_STRING, &format, "md|json|csv",
		  "Markdown table to print (default), the JSON document (--json), or CSV" },
		{ "state", 0, BR_OPT_STRING, &state, "open|closed|all",
		  "which tickets to list (default open); JSON gives each one's status" },
		{ "post", 0, BR_OPT_STRING, &post.url, "URL",
		  "POST each new or changed ticket as JSON to this webhook (Idempotency-Key per ticket "
		  "version)" },
		{ "ca-file", 0, BR_OPT_STRING, &post.ca_file, "PATH",
		  "CA bundle for the webhook's certificate" },
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
	/* Tickets are the stage's own rows: no node is worked, so no lease
	 * keeps another stage off them. */
	st.no_lease = 1;
	st.readonly = list_only || stg_inventory_readonly_here(st.common.db);
	if (!st.exit && st.readonly && post.url)
		stg_stage_usage(&st, "--post records what it delivered in the inventory: %s",
				list_only ? "not with --list" : "this user cannot write it");
	else if (!st.exit && st.readonly && !list_only && !access(st.common.db, F_OK))
		br_warn("tickets",
			"inventory %s is read-only to this user: listing the tickets as last filed",
			st.common.db);
	if (!st.exit && !stg_stage_open(&st, stg_all_states) && !stg_tickets_run(&st, &run, &post))
		stg_stage_report(&st, stg_tickets_json, stg_tickets_print, &run, 0);
	stg_tickets_run_release(&run);
	return stg_stage_close(&st);
}
