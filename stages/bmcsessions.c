/*
 * bmcsessions — the Redfish sessions of the stages that talk to BMCs, kept
 * in the inventory (bmc_sessions) so that none outlives a killed run: each
 * login is recorded by the Context it carries before it is sent, each
 * session by URI before it is used, and forgotten once deleted; a stage
 * that starts DELETEs the ones its earlier, killed runs on this host left
 * (those known only by a login's Context found among the BMC's sessions). An iDRAC keeps an unused session
 * for 30 minutes and refuses the ninth login (RAC0218): a few kills locked the people at its console out.
 */
#include <stdlib.h>
#include <string.h>

#include "bmcopts.h"
#include "stage.h"

/* A login about to be sent, by the Context it carries: a kill before its
 * answer is recorded leaves this, by which the next run finds the session
 * (rf_sessions_delete_all). */
static int opening(const struct rf_target *t, const char *pending, void *ctx, struct br_err *err)
{
	return inv_bmc_session_add(ctx, t->name, pending, err);
}

static int opened(const struct rf_target *t, const char *uri, const char *pending, void *ctx,
		  struct br_err *err)
{
	struct br_err e = { 0 };
	int rc = inv_bmc_session_add(ctx, t->name, uri, err);

	/* only once the session's own URI is kept: a kill between the two
	 * leaves both, and the pending one then finds a session deleted */
	if (!rc && pending && inv_bmc_session_remove(ctx, t->name, pending, &e))
		br_warn("bmc", "%s: session %s recorded, its login still too: %s", t->name, uri, e.msg);
	return rc;
}

static void closed(const struct rf_target *t, const char *uri, void *ctx)
{
	struct br_err err = { 0 };

	if (inv_bmc_session_remove(ctx, t->name, uri, &err))
		br_warn("bmc", "%s: session %s deleted, but still recorded: %s", t->name, uri, err.msg);
}

void stg_bmc_sessions_record(struct rf_options *ro, struct inv *inv)
{
	ro->session_opening = opening;
	ro->session_opened = opened;
	ro->session_closed = closed;
	ro->session_ctx = inv;
}

/* ---- reclaiming ------------------------------------------------------------ */

struct reclaim_node {
	struct rf_session_target t;
	const char **uris;
	char *user, *password, *base_url;
};

struct reclaim {
	struct stg_stage *st;
	size_t deleted, kept;
};

static void on_deleted(const struct rf_session_target *t, const char *uri, int rc, const struct br_err *err,
		       void *ctx)
{
	struct reclaim *r = ctx;
	struct br_err e = { 0 };

	if (rc == BR_E_NOTFOUND) {
		/* a login cut short that made no session, or on a BMC that
		 * keeps no Context (what it made expires by itself) */
		br_log_node(BR_LOG_INFO, "bmc", t->target.name, NULL, "%s; forgotten", err->msg);
		if (inv_bmc_session_remove(r->st->inv, t->target.name, uri, &e))
			br_warn("bmc", "%s: login %s still recorded: %s", t->target.name, uri, e.msg);
		return;
	}
	if (rc && rc != BR_E_INVAL) {
		/* unreachable, or the credentials changed: the next run tries again */
		r->kept++;
		br_log_node(BR_LOG_WARN, "bmc", t->target.name, NULL,
			    "session %s an earlier run left is still open: %s (tried again next run)", uri,
			    err ? err->msg : br_strerror(rc));
		return;
	}
	if (rc)
		br_log_node(BR_LOG_WARN, "bmc", t->target.name, NULL, "%s; forgotten", err->msg);
	else
		br_log_node(BR_LOG_INFO, "bmc", t->target.name, NULL,
			    "deleted session %s an earlier run left", uri);
	r->deleted += rc == 0;
	if (inv_bmc_session_remove(r->st->inv, t->target.name, uri, &e))
		br_warn("bmc", "%s: session %s deleted, but still recorded: %s", t->target.name, uri, e.msg);
}

/* The nodes of rows[first..end) (one hostname) as a target, 0; nonzero
 * (logged) when its BMC cannot be reached by what the inventory says. */
static int node_target(struct stg_stage *st, const struct stg_bmc_opts *o, const struct inv_bmc_session *rows,
		       size_t n, struct reclaim_node *rn)
{
	struct inv_node node = { 0 };
	struct br_err err = { 0 };
	char *host = NULL, *why = NULL;
	int port = 0;

	if (inv_node_get(st->inv, rows[0].hostname, &node, &err)) {
		br_warn("bmc", "%s: %s", rows[0].hostname, err.msg);
		return -1;
	}
	if (stg_bmc_endpoint(&node, o->scheme, &rn->password, &host, &port, &rn->base_url, &why)) {
		br_log_node(BR_LOG_WARN, "bmc", node.hostname, node.bmc,
			    "%zu sessions an earlier run left stay open: %s", n, why);
		free(why);
		inv_node_release(&node);
		return -1;
	}
	free(host);
	rn->user = br_xstrdup(node.bmc_user);
	rn->uris = br_xcalloc(n, sizeof(*rn->uris));
	for (size_t i = 0; i < n; i++)
		rn->uris[i] = rows[i].uri;
	rn->t = (struct rf_session_target){
		{ rows[0].hostname, rn->base_url, rn->user, rn->password, NULL, STG_BMC_RECLAIM_DEADLINE_MS,
		  NULL, 0 },
		rn->uris,
		n,
	};
	inv_node_release(&node);
	return 0;
}

void stg_bmc_sessions_reclaim(struct stg_stage *st, const struct stg_bmc_opts *o, const struct rf_options *ro)
{
	struct inv_bmc_session *rows = NULL;
	struct reclaim_node *nodes;
	struct reclaim r = { st, 0, 0 };
	struct rf_options once = *ro;
	struct br_err err = { 0 };
	size_t n_rows = 0, n = 0;

	if (st->readonly || st->no_lease || st->sessions_reclaimed)
		return;
	st->sessions_reclaimed = 1;
	if (inv_bmc_sessions_orphaned(st->inv, &rows, &n_rows, &err)) {
		br_warn("bmc", "the sessions earlier runs left cannot be read: %s", err.msg);
		return;
	}
	if (!n_rows)
		return;
	nodes = br_xcalloc(n_rows, sizeof(*nodes));
	for (size_t first = 0, end; first < n_rows; first = end) {
		for (end = first + 1; end < n_rows && !strcmp(rows[end].hostname, rows[first].hostname);
		     end++)
			;
		if (end - first > STG_BMC_RECLAIM_PER_BMC)
			end = first + STG_BMC_RECLAIM_PER_BMC; /* the rest next time */
		if (!node_target(st, o, &rows[first], end - first, &nodes[n]))
			n++;
		while (end < n_rows && !strcmp(rows[end].hostname, rows[first].hostname))
			end++;
	}
	/* short: a dead BMC holding a leaked session must not hold the stage */
	once.retries = ro->retries < 1 ? ro->retries : 1;
	once.session_opening = NULL;
	once.session_opened = NULL;
	once.session_closed = NULL;
	{
		struct rf_session_target *targets = br_xcalloc(n ? n : 1, sizeof(*targets));

		for (size_t i = 0; i < n; i++)
			targets[i] = nodes[i].t;
		if (n && rf_sessions_delete_all(targets, n, &once, on_deleted, &r, &err))
			br_warn("bmc", "sessions earlier runs left: %s", err.msg);
		free(targets);
	}
	if (r.deleted || r.kept)
		br_info("bmc", "%zu Redfish sessions earlier runs left open deleted, %zu still open",
			r.deleted, r.kept);
	for (size_t i = 0; i < n; i++) {
		free(nodes[i].user);
		br_secret_free(nodes[i].password);
		free(nodes[i].base_url);
		free(nodes[i].uris);
	}
	free(nodes);
	inv_bmc_sessions_free(rows, n_rows);
}
