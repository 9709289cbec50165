/* Counting a node's attempts into a retirement (lifecycle.h). */
#define _DEFAULT_SOURCE /* timegm */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lifecycle.h"
#include "profile/profile.h"

#define CAUSE_MAX 40

char *stg_lifecycle_cause(const char *reason)
{
	static const char checks[] = "failed checks: ";
	size_t len;

	if (!reason || !*reason)
		return br_xstrdup("no reason");
	if (!strncmp(reason, checks, sizeof(checks) - 1))
		reason += sizeof(checks) - 1;
	len = strcspn(reason, ":;");
	while (len && reason[len - 1] == ' ')
		len--;
	if (len > CAUSE_MAX)
		len = CAUSE_MAX;
	return len ? br_xstrndup(reason, len) : br_xstrdup("no reason");
}

/* An event the inventory counted as an attempt (its from_state is NULL
 * for the import that created the node). */
static int is_attempt(const struct inv_event *e)
{
	enum inv_state from = INV_NEW, to;

	if (!e->to_state || inv_state_parse(e->to_state, &to) ||
	    (e->from_state && inv_state_parse(e->from_state, &from)))
		return 0;
	return inv_transition_is_attempt(from, to);
}

/* The first event after the node was last unretired (attempts reset). */
static size_t since_reset(const struct inv_event *ev, size_t n)
{
	size_t first = 0;

	for (size_t i = 0; i < n; i++)
		if (ev[i].from_state && !strcmp(ev[i].from_state, "retired") &&
		    strcmp(ev[i].to_state, "retired"))
			first = i + 1;
	return first;
}

static const char *ordinal_suffix(int k)
{
	if (k % 100 >= 11 && k % 100 <= 13)
		return "th";
	return k % 10 == 1 ? "st" : k % 10 == 2 ? "nd" : k % 10 == 3 ? "rd" : "th";
}

/* Seconds since the epoch of an inventory timestamp ("2025-03-01T12:00:00.000Z"); -1 if unreadable. */
static long long stamp_seconds(const char *at)
{
	struct tm tm = { 0 };

	if (!at || sscanf(at, "%4d-%2d-%2dT%2d:%2d:%2d", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
			  &tm.tm_min, &tm.tm_sec) != 6)
		return -1;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	return (long long)timegm(&tm);
}

char *stg_lifecycle_summary(const struct inv_event *ev, size_t n, int attempts)
{
	const char *first_at = NULL, *last_at = NULL;
	long long from, to, days = 1;
	struct br_buf causes, out;

	br_buf_init(&causes, 0);
	for (size_t i = since_reset(ev, n); i < n; i++) {
		char *cause;

		if (!is_attempt(&ev[i]))
			continue;
		cause = stg_lifecycle_cause(ev[i].reason);
		br_buf_addf(&causes, "%s%s", causes.len ? "; " : "", cause);
		free(cause);
		if (!first_at)
			first_at = ev[i].at;
		last_at = ev[i].at;
	}
	from = stamp_seconds(first_at);
	to = stamp_seconds(last_at);
	if (from >= 0 && to > from)
		days = (to - from + 86399) / 86400;
	br_buf_init(&out, 0);
	br_buf_addf(&out, "%d%s failure in %lld day%s", attempts, ordinal_suffix(attempts), days,
		    days == 1 ? "" : "s");
	if (causes.len)
		br_buf_addf(&out, " (%s)", br_buf_str(&causes));
	br_buf_release(&causes);
	return br_buf_detach(&out);
}

char *stg_lifecycle_history(const struct inv_event *ev, size_t n)
{
	struct br_buf out;

	br_buf_init(&out, 0);
	for (size_t i = since_reset(ev, n); i < n; i++) {
		char *cause;

		if (!is_attempt(&ev[i]))
			continue;
		cause = stg_lifecycle_cause(ev[i].reason);
		br_buf_addf(&out, "%s%.10s %s (%s)", out.len ? "; " : "", ev[i].at ? ev[i].at : "?",
			    ev[i].to_state, cause);
		free(cause);
	}
	if (!out.len) {
		br_buf_release(&out);
		return NULL;
	}
	return br_buf_detach(&out);
}

int stg_lifecycle_due(const struct inv_node *node, int max_attempts)
{
	return (node->state == INV_FAILED || node->state == INV_QUARANTINED) && max_attempts > 0 &&
	       node->attempts >= max_attempts;
}

/* Retire one node when due; 1 if it was. */
static int retire_one(struct inv *inv, struct stg_profiles *profiles, const char *hostname)
{
	const struct prof_profile *profile;
	struct inv_event *ev = NULL;
	struct br_err err = { 0 };
	struct inv_node node;
	char *summary, *reason;
	size_t n = 0;
	int rc;

	if (inv_node_get(inv, hostname, &node, &err)) {
		br_warn("lifecycle", "%s: %s", hostname, err.msg);
		return 0;
	}
	profile = stg_profiles_get(profiles, node.profile, &err);
	if (!profile) {
		br_warn("lifecycle", "%s: not judged for retirement: %s", hostname, err.msg);
		inv_node_release(&node);
		return 0;
	}
	if (!stg_lifecycle_due(&node, profile->hw.max_attempts) ||
	    inv_node_events(inv, hostname, &ev, &n, &err)) {
		if (err.code)
			br_warn("lifecycle", "%s: %s", hostname, err.msg);
		inv_node_release(&node);
		return 0;
	}
	summary = stg_lifecycle_summary(ev, n, node.attempts);
	reason = br_xasprintf("retired: %s: return to vendor", summary);
	rc = inv_node_set_state(inv, hostname, node.state, INV_RETIRED, reason, &err);
	if (rc)
		br_warn("lifecycle", "%s: not retired: %s", hostname, err.msg);
	else
		br_warn("lifecycle", "%s: %s", hostname, reason);
	free(summary);
	free(reason);
	inv_events_free(ev, n);
	inv_node_release(&node);
	return !rc;
}

size_t stg_lifecycle_retire_due(struct inv *inv, struct stg_profiles *profiles, const struct inv_node *nodes,
				size_t n)
{
	size_t retired = 0;

	for (size_t i = 0; i < n; i++)
		if (nodes[i].hostname)
			retired += (size_t)retire_one(inv, profiles, nodes[i].hostname);
	return retired;
}

/* ---- bringup retire / unretire ------------------------------------------------ */

static void apply_one(struct inv *inv, enum stg_lifecycle_op op, const char *reason,
		      const struct inv_node *node, struct stg_lifecycle_result *r)
{
	struct br_err err = { 0 };

	r->hostname = node->hostname;
	r->from = inv_state_name(node->state);
	if (op == STG_LIFECYCLE_RETIRE && node->state == INV_RETIRED) {
		r->message = br_xstrdup("already retired; left as it is");
		return;
	}
	if (op == STG_LIFECYCLE_RETIRE) {
		r->message = br_xasprintf("retired by operator: %s", reason ? reason : "no reason given");
		r->rc = inv_node_set_state(inv, node->hostname, node->state, INV_RETIRED, r->message, &err);
	} else {
		r->message = br_xasprintf("unretired by operator%s%s: back to new, attempts reset",
					  reason ? ": " : "", reason ? reason : "");
		r->rc = inv_node_unretire(inv, node->hostname, r->message, &r->tickets_closed, &err);
	}
	if (r->rc) {
		free(r->message);
		r->message = br_xstrdup(err.msg);
	}
}

void stg_lifecycle_apply(struct stg_stage *st, enum stg_lifecycle_op op, const char *reason,
			 struct stg_lifecycle_run *run)
{
	run->op = op;
	run->items = br_xcalloc(st->n ? st->n : 1, sizeof(*run->items));
	for (size_t i = 0; i < st->n; i++) {
		apply_one(st->inv, op, reason, &st->nodes[i], &run->items[run->n]);
		if (run->items[run->n].rc) {
			br_error(op == STG_LIFECYCLE_RETIRE ? "retire" : "unretire", "%s: %s",
				 st->nodes[i].hostname, run->items[run->n].message);
			run->failed++;
		}
		run->n++;
	}
}

json_t *stg_lifecycle_json(const void *ctx)
{
	const struct stg_lifecycle_run *run = ctx;
	json_t *nodes = json_array();

	for (size_t i = 0; i < run->n; i++) {
		const struct stg_lifecycle_result *r = &run->items[i];

		json_array_append_new(nodes, json_pack("{s:s, s:s, s:b, s:s, s:I}", "hostname", r->hostname,
						       "from", r->from, "ok", !r->rc, "reason", r->message,
						       "tickets_closed", (json_int_t)r->tickets_closed));
	}
	return json_pack("{s:o, s:I}", "nodes", nodes, "failed", (json_int_t)run->failed);
}

void stg_lifecycle_print(const void *ctx)
{
	const struct stg_lifecycle_run *run = ctx;

	for (size_t i = 0; i < run->n; i++)
		if (!run->items[i].rc)
			printf("%s: %s -> %s: %s\n", run->items[i].hostname, run->items[i].from,
			       run->op == STG_LIFECYCLE_RETIRE ? "retired" : "new", run->items[i].message);
}

void stg_lifecycle_run_release(struct stg_lifecycle_run *run)
{
	for (size_t i = 0; i < run->n; i++)
		free(run->items[i].message);
	free(run->items);
	memset(run, 0, sizeof(*run));
}

int stg_lifecycle_main(enum stg_lifecycle_op op, int argc, char **argv)
{
	struct stg_stage st = { 0 };
	struct stg_lifecycle_run run = { 0 };
	const char *reason = NULL;
	const struct br_option options[] = {
		{ "reason", 'r', BR_OPT_STRING, &reason, "TEXT", "why, recorded in the node's history" },
		{ 0 },
	};
	const struct br_command retire = {
		"bringup-retire",
		"[options] HOST...",
		"Take the named nodes out of the flow (state 'retired', an event with --reason): no stage\n"
		"picks them and the gate never promotes them until 'bringup unretire'. The tickets stage\n"
		"files one 'retired' ticket for each, closing its other tickets.",
		options,
		&st.common,
	};
	const struct br_command unretire = {
		"bringup-unretire",
		"[options] HOST...",
		"Bring retired nodes back (a repaired machine): state 'new', so the pipeline starts over\n"
		"for them, attempts reset to 0, an event, and the 'retired' ticket closed.",
		options,
		&st.common,
	};

	st.allow_retired = 1;
	if (stg_stage_parse(&st, op == STG_LIFECYCLE_RETIRE ? &retire : &unretire, argc, argv))
		return stg_stage_close(&st);
	if (st.argi >= argc)
		return stg_stage_usage(&st, "name the hosts to %s",
				       op == STG_LIFECYCLE_RETIRE ? "retire" : "unretire");
	if (reason && !*reason)
		return stg_stage_usage(&st, "--reason: empty");
	if (!stg_stage_open(&st, stg_all_states)) {
		stg_lifecycle_apply(&st, op, reason, &run);
		stg_stage_report(&st, stg_lifecycle_json, stg_lifecycle_print, &run, run.failed);
	}
	stg_lifecycle_run_release(&run);
	return stg_stage_close(&st);
}
