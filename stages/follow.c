/* status --follow (follow.h). */
#include <stdlib.h>
#include <string.h>

#include "follow.h"
#include "loop.h"
#include "manifest.h"

_Static_assert(STG_ZONES_MAX <= INV_EVENTS_ZONES_MAX, "status --follow reads the events of every --zone");

static int wanted(const struct inv_event *e, char *const *hosts, size_t nhosts)
{
	if (!nhosts)
		return 1;
	for (size_t i = 0; i < nhosts; i++)
		if (e->hostname && !strcmp(e->hostname, hosts[i]))
			return 1;
	return 0;
}

static void print_event(const struct inv_event *e, int json)
{
	if (json) {
		json_t *o = json_pack(
		    "{s:i, s:I, s:o, s:o, s:o, s:o, s:o}", "schema_version", STG_SCHEMA_EVENT, "id",
		    (json_int_t)e->id, "at", br_json_string_or_null(e->at), "hostname",
		    br_json_string_or_null(e->hostname), "from", br_json_string_or_null(e->from_state), "to",
		    br_json_string_or_null(e->to_state), "reason", br_json_string_or_null(e->reason));
		char *line = o ? json_dumps(o, JSON_COMPACT) : NULL;

		if (line)
			printf("%s\n", line);
		free(line);
		json_decref(o);
	} else {
		/* A reason may quote a BMC or MAAS: shown escaped. */
		char *reason = br_escape(e->reason ? e->reason : "");

		printf("%s  %s  %s -> %s  %s\n", e->at ? e->at : "-", e->hostname ? e->hostname : "-",
		       e->from_state ? e->from_state : "-", e->to_state ? e->to_state : "-", reason);
		free(reason);
	}
	fflush(stdout);
}

int stg_follow(struct stg_stage *st, char *const *hosts, size_t nhosts)
{
	struct br_err err = { 0 };
	int64_t last = 0;
	char **zones = NULL;
	size_t n_zones = 0;
	int rc;

	if (stg_stage_catch_signals(st))
		return st->exit;
	/* Subscribe before reading where the stream starts: an event
	 * recorded in between is then read, not lost. */
	rc = inv_events_wait(st->inv, 0, &err);
	if (rc >= 0)
		rc = inv_events_last(st->inv, &last, &err);
	if (rc < 0)
		return stg_stage_fail(st, STG_EXIT_UNREACHABLE, "%s", err.msg);
	br_info("status", "following the events after #%lld%s%s", (long long)last,
		st->common.zone ? " of zone " : "", st->common.zone ? st->common.zone : "");
	n_zones = stg_zones_split(st->common.zone, &zones);
	rc = 0;
	while (!rc && !br_signal_caught()) {
		struct inv_event *ev = NULL;
		size_t n = 0;

		if (inv_events_after(st->inv, last, zones, n_zones, STG_EVENTS_PAGE, &ev, &n, &err)) {
			rc = stg_stage_fail(st, STG_EXIT_UNREACHABLE, "%s", err.msg);
			break;
		}
		for (size_t i = 0; i < n; i++) {
			if (wanted(&ev[i], hosts, nhosts))
				print_event(&ev[i], st->common.json);
			last = ev[i].id;
		}
		inv_events_free(ev, n);
		if (n == STG_EVENTS_PAGE)
			continue; /* more of a burst waiting */
		if (inv_events_wait(st->inv, STG_EVENTS_POLL_MS, &err) < 0)
			rc = stg_stage_fail(st, STG_EXIT_UNREACHABLE, "%s", err.msg);
	}
	for (size_t i = 0; i < n_zones; i++)
		free(zones[i]);
	free(zones);
	return rc;
}
