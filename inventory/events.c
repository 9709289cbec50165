/* The site's events as they are recorded (inventory.h): what status
 * --follow streams, from any machine that reaches the inventory. */
#define _DEFAULT_SOURCE
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "inv_private.h"

int inv_events_after(struct inv *inv, int64_t after_id, char *const *zones, size_t n_zones, size_t max,
		     struct inv_event **ret_events, size_t *ret_n, struct br_err *err)
{
	/* One placeholder a zone ("? IS NULL OR ..." would leave PostgreSQL a
	 * parameter it cannot type). */
	char sql[512], in[2 * INV_EVENTS_ZONES_MAX + 1] = "";
	struct inv_event *ev = NULL;
	struct invb_stmt *st;
	size_t n = 0;
	int rc, p = 1;

	if (n_zones > INV_EVENTS_ZONES_MAX)
		return br_errf(err, BR_E_INVAL, "events of %zu zones asked for: at most %d", n_zones,
			       INV_EVENTS_ZONES_MAX);
	for (size_t i = 0; i < n_zones; i++)
		strcat(in, i ? ",?" : "?");
	snprintf(sql, sizeof(sql),
		 "SELECT e.id, e.from_state, e.to_state, e.reason, e.at, n.hostname"
		 " FROM events e JOIN nodes n ON n.id = e.node_id"
		 " WHERE e.id > ?%s%s%s ORDER BY e.id LIMIT ?",
		 n_zones ? " AND n.zone IN (" : "", in, n_zones ? ")" : "");
	rc = inv_prepare(inv, sql, &st, err);
	if (rc)
		return rc;
	invb_bind_int64(st, p++, after_id);
	for (size_t i = 0; i < n_zones; i++)
		inv_bind_text(st, p++, zones[i]);
	invb_bind_int64(st, p, (int64_t)max);
	ev = br_xcalloc(max ? max : 1, sizeof(*ev));
	while (n < max && (rc = invb_step(st)) == INVB_ROW) {
		ev[n].id = invb_column_int64(st, 0);
		ev[n].from_state = inv_col_dup(st, 1);
		ev[n].to_state = inv_col_dup(st, 2);
		ev[n].reason = inv_col_dup(st, 3);
		ev[n].at = inv_col_dup(st, 4);
		ev[n].hostname = inv_col_dup(st, 5);
		n++;
	}
	rc = rc == INVB_DONE || (rc == INVB_ROW && n == max) ? 0 : inv_dberr(inv, err, "read events");
	inv_finalize(inv, st);
	if (rc) {
		inv_events_free(ev, n);
		return rc;
	}
	*ret_events = ev;
	*ret_n = n;
	return 0;
}

int inv_events_last(struct inv *inv, int64_t *ret_id, struct br_err *err)
{
	struct invb_stmt *st;
	int rc = inv_prepare(inv, "SELECT COALESCE(MAX(id), 0) FROM events", &st, err);

	if (rc)
		return rc;
	rc = invb_step(st);
	if (rc == INVB_ROW) {
		*ret_id = invb_column_int64(st, 0);
		rc = 0;
	} else {
		rc = inv_dberr(inv, err, "read events");
	}
	inv_finalize(inv, st);
	return rc;
}

int inv_events_wait(struct inv *inv, int timeout_ms, struct br_err *err)
{
	int rc;

	if (!inv->db->ops->wait_event) {
		struct timespec ts = { timeout_ms / 1000, (long)(timeout_ms % 1000) * 1000000L };

		if (timeout_ms > 0)
			nanosleep(&ts, NULL); /* a signal ends it early: the caller looks */
		return 0;
	}
	rc = inv->db->ops->wait_event(inv->db, timeout_ms);
	if (rc < 0)
		return inv_dberr(inv, err, "wait for events");
	return rc;
}
