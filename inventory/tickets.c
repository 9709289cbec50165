/*
 * Tickets: one per (node, fault), keyed "hostname/fault" so that a re-run
 * finds the ticket it filed before instead of filing a second one; events
 * from people (a technician closing a ticket by hand) are not modelled.
 */
#include <stdlib.h>
#include <string.h>

#include "inv_private.h"

void inv_tickets_free(struct inv_ticket *tickets, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(tickets[i].hostname);
		free(tickets[i].rack);
		free(tickets[i].fault);
		free(tickets[i].evidence);
		free(tickets[i].action);
		free(tickets[i].opened_at);
		free(tickets[i].closed_at);
		free(tickets[i].updated_at);
		free(tickets[i].external_key);
	}
	free(tickets);
}

int inv_node_note(struct inv *inv, const char *hostname, const char *what, struct br_err *err)
{
	enum inv_state state;
	int64_t id;
	int rc;

	rc = inv_tx_begin(inv, err);
	if (rc)
		return rc;
	rc = inv_node_id(inv, hostname, &id, &state, err);
	if (!rc)
		rc = inv_event_add(inv, id, inv_state_name(state), inv_state_name(state), what, err);
	if (!rc)
		rc = inv_tx_commit(inv, err);
	if (rc)
		inv_tx_rollback(inv);
	return rc;
}

static int same_text(const char *a, const char *b)
{
	return !strcmp(a ? a : "", b ? b : "");
}

/* Equal but for what the runs of digits say. */
static int same_but_digits(const char *a, const char *b)
{
	a = a ? a : "";
	b = b ? b : "";
	while (*a && *b) {
		int da = *a >= '0' && *a <= '9', db = *b >= '0' && *b <= '9';

		if (da != db)
			return 0;
		if (da) {
			while (*a >= '0' && *a <= '9')
				a++;
			while (*b >= '0' && *b <= '9')
				b++;
			continue;
		}
		if (*a++ != *b++)
			return 0;
	}
	return !*a && !*b;
}

/* One fault: open, reopen, update or leave its ticket. */
static int sync_one(struct inv *inv, int64_t node_id, const char *key, const struct inv_fault *f,
		    struct inv_ticket_stats *stats, struct br_err *err)
{
	struct invb_stmt *sel = NULL, *st = NULL;
	char *evidence = inv_reason_as_stored(f->evidence);
	int rc, step;

	rc =
	    inv_prepare(inv, "SELECT id, status, evidence, action FROM tickets WHERE dedup_key=?", &sel, err);
	if (rc)
		goto out;
	inv_bind_text(sel, 1, key);
	step = invb_step(sel);
	if (step == INVB_DONE) {
		rc = inv_prepare(
		    inv,
		    "INSERT INTO tickets(node_id, dedup_key, fault, evidence, action, status, created_at,"
		    " updated_at, opened_at, version) VALUES (?1,?2,?3,?4,?5,'open',?6,?6,?6,1)",
		    &st, err);
		if (rc)
			goto out;
		invb_bind_int64(st, 1, node_id);
		inv_bind_text(st, 2, key);
		inv_bind_text(st, 3, f->fault);
		inv_bind_text(st, 4, evidence);
		inv_bind_text(st, 5, f->action);
		inv_bind_now(st, 6);
		stats->opened++;
	} else if (step == INVB_ROW) {
		int64_t id = invb_column_int64(sel, 0);
		int closed = !same_text(invb_column_text(sel, 1), "open");

		const char *was = invb_column_text(sel, 2);

		if (!closed &&
		    (f->evidence_loose ? same_but_digits(was, evidence) : same_text(was, evidence)) &&
		    same_text(invb_column_text(sel, 3), f->action)) {
			stats->unchanged++;
			goto out;
		}
		/* A fault back after a repair reopens the ticket it had: the
		 * key stays one ticket, its opened_at says since when. What
		 * the ticket system called it is forgotten until the next
		 * delivery says (an issue closed there files a new one). */
		rc = inv_prepare(
		    inv,
		    closed ? "UPDATE tickets SET evidence=?1, action=?2, status='open', closed_at=NULL,"
			     " external_key=NULL, opened_at=?4, updated_at=?4, version=version+1 WHERE id=?3"
			   : "UPDATE tickets SET evidence=?1, action=?2, updated_at=?4, version=version+1"
			     " WHERE id=?3",
		    &st, err);
		if (rc)
			goto out;
		inv_bind_text(st, 1, evidence);
		inv_bind_text(st, 2, f->action);
		invb_bind_int64(st, 3, id);
		inv_bind_now(st, 4);
		if (closed)
			stats->opened++;
		else
			stats->changed++;
	} else {
		rc = inv_dberr(inv, err, "read ticket");
		goto out;
	}
	if (invb_step(st) != INVB_DONE)
		rc = inv_dberr(inv, err, "store ticket");
out:
	inv_finalize(inv, sel);
	inv_finalize(inv, st);
	free(evidence);
	return rc;
}

/* Close the node's open tickets whose fault is not in faults. */
static int close_others(struct inv *inv, int64_t node_id, const struct inv_fault *faults, size_t n,
			size_t *ret_closed, struct br_err *err)
{
	struct invb_stmt *sel = NULL, *upd = NULL;
	int64_t *ids = NULL;
	size_t n_ids = 0;
	int rc, step;

	rc = inv_prepare(inv, "SELECT id, fault FROM tickets WHERE node_id=? AND status='open'", &sel, err);
	if (rc)
		return rc;
	invb_bind_int64(sel, 1, node_id);
	while ((step = invb_step(sel)) == INVB_ROW) {
		const char *fault = invb_column_text(sel, 1);
		int present = 0;

		for (size_t i = 0; i < n && !present; i++)
			present = same_text(faults[i].fault, fault);
		if (!present) {
			ids = br_xrealloc(ids, (n_ids + 1) * sizeof(*ids));
			ids[n_ids++] = invb_column_int64(sel, 0);
		}
	}
	if (step != INVB_DONE)
		rc = inv_dberr(inv, err, "read tickets");
	inv_finalize(inv, sel);
	if (!rc && n_ids)
		rc = inv_prepare(inv,
				 "UPDATE tickets SET status='closed', closed_at=?2, updated_at=?2,"
				 " version=version+1 WHERE id=?1",
				 &upd, err);
	for (size_t i = 0; i < n_ids && !rc; i++) {
		invb_reset(upd);
		invb_bind_int64(upd, 1, ids[i]);
		inv_bind_now(upd, 2);
		if (invb_step(upd) != INVB_DONE)
			rc = inv_dberr(inv, err, "close ticket");
	}
	inv_finalize(inv, upd);
	free(ids);
	if (!rc)
		*ret_closed += n_ids;
	return rc;
}

int inv_tickets_sync(struct inv *inv, const char *hostname, const struct inv_fault *faults, size_t n,
		     struct inv_ticket_stats *stats, struct br_err *err)
{
	int64_t id;
	int rc;

	rc = inv_tx_begin(inv, err);
	if (rc)
		return rc;
	rc = inv_node_id(inv, hostname, &id, NULL, err);
	for (size_t i = 0; i < n && !rc; i++) {
		char *key = br_xasprintf("%s/%s", hostname, faults[i].fault);

		rc = sync_one(inv, id, key, &faults[i], stats, err);
		free(key);
	}
	if (!rc)
		rc = close_others(inv, id, faults, n, &stats->closed, err);
	if (!rc)
		rc = inv_tx_commit(inv, err);
	if (rc)
		inv_tx_rollback(inv);
	return rc;
}

int inv_tickets_close_open(struct inv *inv, int64_t node_id, size_t *ret_closed, struct br_err *err)
{
	return close_others(inv, node_id, NULL, 0, ret_closed, err);
}

int inv_tickets_close_node(struct inv *inv, const char *hostname, size_t *ret_closed, struct br_err *err)
{
	size_t closed = 0;
	int64_t id;
	int rc;

	rc = inv_tx_begin(inv, err);
	if (rc)
		return rc;
	rc = inv_node_id(inv, hostname, &id, NULL, err);
	if (!rc)
		rc = close_others(inv, id, NULL, 0, &closed, err);
	if (!rc)
		rc = inv_tx_commit(inv, err);
	if (rc) {
		inv_tx_rollback(inv);
		return rc;
	}
	if (ret_closed)
		*ret_closed = closed;
	return 0;
}

int inv_tickets_list(struct inv *inv, int include_closed, struct inv_ticket **ret_tickets, size_t *ret_n,
		     struct br_err *err)
{
	struct inv_ticket *t = NULL;
	size_t n = 0;
	struct invb_stmt *st;
	int rc;

	rc = inv_prepare(
	    inv,
	    "SELECT t.id, n.hostname, n.rack, n.unit, t.fault, t.evidence, t.action, t.status,"
	    " t.opened_at, t.closed_at, t.updated_at, t.version, t.posted_version,"
	    " t.external_key FROM tickets t JOIN nodes n ON n.id = t.node_id WHERE ? = 1 OR t.status = 'open'"
	    " ORDER BY n.rack, n.unit, n.hostname, t.fault",
	    &st, err);
	if (rc)
		return rc;
	invb_bind_int64(st, 1, include_closed != 0);
	while ((rc = invb_step(st)) == INVB_ROW) {
		t = br_xrealloc(t, (n + 1) * sizeof(*t));
		t[n] = (struct inv_ticket){
			.id = invb_column_int64(st, 0),
			.hostname = inv_col_dup(st, 1),
			.rack = inv_col_dup(st, 2),
			.unit = invb_column_int(st, 3),
			.fault = inv_col_dup(st, 4),
			.evidence = inv_col_dup(st, 5),
			.action = inv_col_dup(st, 6),
			.closed = !same_text(invb_column_text(st, 7), "open"),
			.opened_at = inv_col_dup(st, 8),
			.closed_at = inv_col_dup(st, 9),
			.updated_at = inv_col_dup(st, 10),
			.version = invb_column_int64(st, 11),
			.posted_version = invb_column_int64(st, 12),
			.external_key = inv_col_dup(st, 13),
		};
		n++;
	}
	rc = rc == INVB_DONE ? 0 : inv_dberr(inv, err, "read tickets");
	inv_finalize(inv, st);
	if (rc) {
		inv_tickets_free(t, n);
		return rc;
	}
	*ret_tickets = t;
	*ret_n = n;
	return 0;
}

int inv_ticket_posted(struct inv *inv, int64_t id, int64_t version, struct br_err *err)
{
	struct invb_stmt *st;
	int rc;

	rc =
	    inv_prepare(inv, "UPDATE tickets SET posted_version=? WHERE id=? AND posted_version<?", &st, err);
	if (rc)
		return rc;
	invb_bind_int64(st, 1, version);
	invb_bind_int64(st, 2, id);
	invb_bind_int64(st, 3, version);
	rc = invb_step(st) == INVB_DONE ? 0 : inv_dberr(inv, err, "record ticket delivery");
	inv_finalize(inv, st);
	return rc;
}

/* The key the ticket's row holds now (NULL: none); caller frees. */
static int stored_key(struct inv *inv, int64_t id, char **ret_key, struct br_err *err)
{
	struct invb_stmt *st;
	int rc = inv_prepare(inv, "SELECT external_key FROM tickets WHERE id=?", &st, err);

	if (rc)
		return rc;
	invb_bind_int64(st, 1, id);
	*ret_key = NULL;
	rc = invb_step(st);
	if (rc == INVB_ROW)
		*ret_key = inv_col_dup(st, 0);
	rc = rc == INVB_ROW || rc == INVB_DONE ? 0 : inv_dberr(inv, err, "read a ticket's key");
	inv_finalize(inv, st);
	return rc;
}

int inv_ticket_filed(struct inv *inv, const struct inv_ticket *t, const char *external_key,
		     struct br_err *err)
{
	struct invb_stmt *st = NULL;
	enum inv_state state;
	int64_t node_id;
	char *old = NULL, *what = NULL;
	int rc = inv_tx_begin(inv, err);

	if (rc)
		return rc;
	rc = stored_key(inv, t->id, &old, err);
	if (!rc)
		rc = inv_ticket_posted(inv, t->id, t->version, err);
	if (!rc && !same_text(old, external_key)) {
		rc = inv_prepare(inv, "UPDATE tickets SET external_key=? WHERE id=?", &st, err);
		if (!rc) {
			invb_bind_text(st, 1, external_key);
			invb_bind_int64(st, 2, t->id);
			rc = invb_step(st) == INVB_DONE ? 0 : inv_dberr(inv, err, "record a ticket's key");
			inv_finalize(inv, st);
		}
		if (!rc)
			rc = inv_node_id(inv, t->hostname, &node_id, &state, err);
		if (!rc) {
			what = br_xasprintf("ticket %s filed as %s", t->fault, external_key);
			rc = inv_event_add(inv, node_id, inv_state_name(state), inv_state_name(state), what,
					   err);
		}
	}
	if (!rc)
		rc = inv_tx_commit(inv, err);
	if (rc)
		inv_tx_rollback(inv);
	free(old);
	free(what);
	return rc;
}
