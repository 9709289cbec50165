/* A stage's outcome for many nodes at once: each node's facts, checks and
 * state move written together, many nodes to a transaction. Recording a
 * rack of 512 nodes one transaction (or two) a node held the write lock
 * and paid a commit 1,024 times; a batch pays one commit. */
#include <stdlib.h>
#include <string.h>

#include "inv_private.h"

/* What one node of a batch came to, kept until its batch is committed. */
struct outcome {
	int rc;
	char *why;
};

static int same_text(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

/* One node, within the batch's transaction. What may refuse one node (the
 * node gone, moved by another run, a trigger refusing its facts) comes
 * before any of its writes, or is its first write, a single statement
 * SQLite undoes alone: the node is then left out and the batch goes on
 * (*ret_node_only). An error after that is the database's own: it rolls
 * the batch back. (A savepoint per node did the same, at the cost of a
 * statement journal: 3,111 page writes to record 64 nodes, against 90.) */
static int put_one(struct inv *inv, const char *stage, const struct inv_verdict *v, int *ret_node_only,
		   struct br_err *err)
{
	int64_t id = 0;
	enum inv_state cur = INV_NEW;
	char *reason = NULL, *capped;
	int rc = inv_node_lookup(inv, v->hostname, &id, &cur, &reason, err);

	if (!rc)
		rc = inv_lease_fence(inv, id, err);
	if (!rc)
		rc = inv_state_expect(v->hostname, cur, v->from, err);
	if (!rc && v->probe_doc)
		rc = inv_probe_write(inv, v->hostname, v->probe_doc, err);
	*ret_node_only = rc != 0;
	if (!rc && v->checks)
		rc = inv_checks_write(inv, id, stage, v->checks, v->n_checks, err);
	if (!rc) {
		/* the same state with the same reason again records nothing */
		capped = inv_reason_as_stored(v->reason);
		if (cur != v->to || !same_text(reason, capped))
			rc = inv_transition_kind(inv, id, cur, v->to, v->kind, v->reason, err);
		free(capped);
	}
	free(reason);
	return rc;
}

/* One batch; fn hears of each node once the batch is committed. */
static int put_batch(struct inv *inv, const char *stage, const struct inv_verdict *v, size_t first, size_t n,
		     inv_verdict_fn fn, void *ctx, struct br_err *err)
{
	struct outcome *out = br_xcalloc(n, sizeof(*out));
	int rc = inv_tx_begin(inv, err);

	for (size_t i = 0; i < n && !rc; i++) {
		struct br_err why = { 0 };
		int node_only = 0;

		out[i].rc = put_one(inv, stage, &v[first + i], &node_only, &why);
		if (!out[i].rc)
			continue;
		/* a node left out, its transaction still open (an I/O error or
		 * a full disk may have ended it: then the batch is lost) */
		if (node_only && invb_in_transaction(inv->db)) {
			out[i].why = br_xstrdup(why.msg);
			continue;
		}
		rc = br_errf(err, out[i].rc, "%s", why.msg);
	}
	if (!rc)
		rc = inv_tx_commit(inv, err);
	if (rc)
		inv_tx_rollback(inv);
	for (size_t i = 0; i < n; i++) {
		if (!rc && fn) {
			struct br_err why = { 0 };

			if (out[i].rc)
				br_errf(&why, out[i].rc, "%s", out[i].why);
			fn(ctx, first + i, out[i].rc, &why);
		}
		free(out[i].why);
	}
	free(out);
	return rc;
}

int inv_verdicts_put(struct inv *inv, const char *stage, const struct inv_verdict *verdicts, size_t n,
		     inv_verdict_fn fn, void *ctx, struct br_err *err)
{
	for (size_t first = 0; first < n; first += INV_VERDICT_BATCH) {
		size_t count = n - first < INV_VERDICT_BATCH ? n - first : INV_VERDICT_BATCH;
		int rc = put_batch(inv, stage, verdicts, first, count, fn, ctx, err);

		if (rc)
			return rc;
	}
	return 0;
}
