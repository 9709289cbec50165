/*
 * Gate's batched writes: a rack's verdicts and MAAS notes in one
 * transaction per batch. Per node, the same rules as inv_node_set_state,
 * inv_tickets_close_node and inv_node_note; a node's own failure rolls back
 * only its savepoint. A transaction per node made a 512-node gate spend
 * its time in SQLite's commit and locking (three per node).
 */
#include <stdlib.h>
#include <string.h>

#include "inv_private.h"

int inv_checks_read_many(struct inv *inv, const int64_t *ids, size_t n, struct inv_check **ret_checks,
			 size_t *ret_n, struct br_err *err)
{
	size_t done = 0;
	int rc;

	/* One read transaction: a snapshot of every node's results, and the
	 * shared lock taken once rather than per statement. */
	rc = inv_exec(inv, "BEGIN", err);
	if (rc)
		return rc;
	for (; done < n && !rc; done++)
		rc = inv_node_checks(inv, ids[done], &ret_checks[done], &ret_n[done], err);
	if (rc) {
		for (size_t i = 0; i + 1 < done; i++) {
			inv_checks_free(ret_checks[i], ret_n[i]);
			ret_checks[i] = NULL;
			ret_n[i] = 0;
		}
		inv_tx_rollback(inv);
		return rc;
	}
	rc = inv_tx_commit(inv, err);
	if (rc) {
		for (size_t i = 0; i < n; i++) {
			inv_checks_free(ret_checks[i], ret_n[i]);
			ret_checks[i] = NULL;
			ret_n[i] = 0;
		}
		inv_tx_rollback(inv);
	}
	return rc;
}

static int same_reason(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

static void savepoint_undo(struct inv *inv, const char *name)
{
	char sql[64];

	snprintf(sql, sizeof(sql), "ROLLBACK TO %s; RELEASE %s", name, name);
	invb_exec(inv->db, sql);
}

/* One verdict, inside the caller's transaction. */
static void record_one(struct inv *inv, struct inv_state_change *v)
{
	struct inv_node cur;
	char *capped;

	v->rc = inv_exec(inv, "SAVEPOINT batch_node", &v->err);
	if (v->rc)
		return;
	v->rc = inv_node_get(inv, v->hostname, &cur, &v->err);
	if (v->rc) {
		savepoint_undo(inv, "batch_node");
		return;
	}
	v->rc = inv_lease_fence(inv, cur.id, &v->err);
	if (!v->rc)
		v->rc = inv_state_expect(v->hostname, cur.state, v->from, &v->err);
	if (!v->rc) {
		/* The same state and reason again records nothing. */
		capped = inv_reason_as_stored(v->reason);
		if (cur.state != v->to || !same_reason(cur.reason, capped))
			v->rc = inv_transition(inv, cur.id, cur.state, v->to, v->reason, &v->err);
		free(capped);
	}
	if (!v->rc)
		v->rc = inv_exec(inv, "RELEASE batch_node", &v->err);
	if (v->rc) {
		savepoint_undo(inv, "batch_node");
		inv_node_release(&cur);
		return;
	}
	v->moved = 1;
	if (v->close_tickets) {
		v->rc = inv_exec(inv, "SAVEPOINT batch_tickets", &v->err);
		if (!v->rc)
			v->rc = inv_tickets_close_open(inv, cur.id, &v->tickets_closed, &v->err);
		if (!v->rc)
			v->rc = inv_exec(inv, "RELEASE batch_tickets", &v->err);
		if (v->rc) {
			v->tickets_closed = 0;
			savepoint_undo(inv, "batch_tickets");
		}
	}
	inv_node_release(&cur);
}

int inv_state_changes_record(struct inv *inv, struct inv_state_change *v, size_t n, struct br_err *err)
{
	int rc;

	for (size_t i = 0; i < n; i++) {
		v[i].rc = 0;
		v[i].moved = 0;
		v[i].tickets_closed = 0;
	}
	rc = inv_tx_begin(inv, err);
	for (size_t i = 0; i < n && !rc; i++)
		record_one(inv, &v[i]);
	if (!rc)
		rc = inv_tx_commit(inv, err);
	if (!rc)
		return 0;
	inv_tx_rollback(inv);
	for (size_t i = 0; i < n; i++) {
		v[i].rc = rc;
		v[i].moved = 0;
		v[i].tickets_closed = 0;
		if (err)
			v[i].err = *err;
	}
	return rc;
}

int inv_notes_add(struct inv *inv, const char *const *hostnames, const char *const *whats, size_t n, int *rcs,
		  struct br_err *err)
{
	int rc = inv_tx_begin(inv, err);

	for (size_t i = 0; i < n && !rc; i++) {
		enum inv_state state;
		struct br_err one = { 0 };
		int64_t id;
		int r = inv_node_id(inv, hostnames[i], &id, &state, &one);

		if (!r)
			r = inv_event_add(inv, id, inv_state_name(state), inv_state_name(state), whats[i],
					  &one);
		if (rcs)
			rcs[i] = r;
	}
	if (!rc)
		rc = inv_tx_commit(inv, err);
	if (rc) {
		inv_tx_rollback(inv);
		for (size_t i = 0; rcs && i < n; i++)
			rcs[i] = rc;
	}
	return rc;
}
