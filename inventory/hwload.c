/* Reading a node's stored BMC facts back into a struct br_hw. */
#include <stdlib.h>
#include <string.h>

#include "hwjson.h"
#include "inv_private.h"

/* A stored document is what br_hw_to_json wrote for one node: tens of KiB.
 * Anything near this is damage, not a server. */
#define INV_FACTS_MAX (64u * 1024 * 1024)

int inv_load_hw(struct inv *inv, const char *hostname, struct br_hw *hw, struct br_err *err)
{
	struct invb_stmt *st;
	int64_t id;
	int rc;

	br_hw_init(hw);
	rc = inv_node_id(inv, hostname, &id, NULL, err);
	if (rc)
		return rc;
	rc = inv_prepare(inv, "SELECT facts FROM hw_facts WHERE node_id=?", &st, err);
	if (rc)
		return rc;
	invb_bind_int64(st, 1, id);
	rc = invb_step(st);
	if (rc == INVB_ROW) {
		const char *text = invb_column_text(st, 0);
		json_t *doc =
		    br_json_parse(text ? text : "", (size_t)invb_column_bytes(st, 0), INV_FACTS_MAX, err);

		rc = doc ? br_hw_from_json(doc, hw, err) : err->code;
		json_decref(doc);
		if (rc)
			br_err_prefix(err, "inventory %s: stored facts of %s", inv->path, hostname);
	} else if (rc == INVB_DONE) {
		rc = 0; /* never discovered: nothing known */
	} else {
		rc = inv_dberr(inv, err, "read stored facts");
	}
	inv_finalize(inv, st);
	return rc;
}

/* The event a credentials change leaves, which inv_node_bmc_user_before
 * reads back: "BMC credentials: user U, password REF (were U0, REF0)". */
#define CRED_EVENT "BMC credentials: user "
#define CRED_WERE " (were "

int inv_node_bmc_user_before(struct inv *inv, const char *hostname, const char *user, char **ret_user,
			     struct br_err *err)
{
	struct inv_event *events = NULL;
	size_t n = 0, len = strlen(user);
	char *found = NULL;
	int rc = inv_node_events(inv, hostname, &events, &n, err);

	for (size_t i = 0; !rc && i < n; i++) {
		const char *r = events[i].reason, *were, *end;

		if (!r || strncmp(r, CRED_EVENT, strlen(CRED_EVENT)) ||
		    strncmp(r + strlen(CRED_EVENT), user, len) ||
		    strncmp(r + strlen(CRED_EVENT) + len, ", ", 2) || !(were = strstr(r, CRED_WERE)))
			continue;
		were += strlen(CRED_WERE);
		if (!(end = strstr(were, ", ")) || end == were)
			continue;
		free(found);
		found = br_xstrndup(were, (size_t)(end - were));
	}
	inv_events_free(events, n);
	if (rc) {
		free(found);
		return rc;
	}
	if (found && (!strcmp(found, user) || !strcmp(found, "-"))) {
		free(found);
		found = NULL;
	}
	*ret_user = found;
	return 0;
}

int inv_node_set_bmc_credentials(struct inv *inv, const char *hostname, const char *user,
				 const char *password_ref, struct br_err *err)
{
	struct inv_node old = { 0 };
	struct invb_stmt *st = NULL;
	char *what = NULL;
	int rc;

	if (!user || !*user || !br_secret_ref_valid(password_ref))
		return br_errf(err, BR_E_INVAL,
			       "%s: BMC credentials must be a user and a reference (env:VAR or file:PATH)",
			       hostname);
	if ((rc = inv_node_get(inv, hostname, &old, err)))
		return rc;
	if (old.bmc_user && !strcmp(old.bmc_user, user) && old.bmc_password_ref &&
	    !strcmp(old.bmc_password_ref, password_ref))
		goto out;
	if ((rc = inv_tx_begin(inv, err)))
		goto out;
	rc = inv_prepare(inv, "UPDATE nodes SET bmc_user=?, bmc_password_ref=?, updated_at=? WHERE id=?", &st,
			 err);
	if (!rc) {
		inv_bind_text(st, 1, user);
		inv_bind_text(st, 2, password_ref);
		inv_bind_now(st, 3);
		invb_bind_int64(st, 4, old.id);
		rc = invb_step(st) == INVB_DONE ? 0 : inv_dberr(inv, err, "store BMC credentials");
		inv_finalize(inv, st);
	}
	what = br_xasprintf(CRED_EVENT "%s, password %s" CRED_WERE "%s, %s)", user, password_ref,
			    old.bmc_user ? old.bmc_user : "-",
			    old.bmc_password_ref ? old.bmc_password_ref : "-");
	if (!rc)
		rc = inv_event_add(inv, old.id, inv_state_name(old.state), inv_state_name(old.state), what,
				   err);
	if (!rc)
		rc = inv_tx_commit(inv, err);
	if (rc)
		inv_tx_rollback(inv);
out:
	free(what);
	inv_node_release(&old);
	return rc;
}

int inv_node_set_maas(struct inv *inv, const char *hostname, const char *system_id, const char *ip,
		      struct br_err *err)
{
	struct invb_stmt *st = NULL;
	int64_t id;
	int rc;

	/* One transaction: the fence and the write see the same lease. */
	rc = inv_tx_begin(inv, err);
	if (rc)
		return rc;
	rc = inv_node_id(inv, hostname, &id, NULL, err);
	if (!rc)
		rc = inv_lease_fence(inv, id, err);
	if (!rc)
		rc = inv_prepare(inv, "UPDATE nodes SET maas_system_id=?, ip=?, updated_at=? WHERE id=?", &st,
				 err);
	if (!rc) {
		inv_bind_text(st, 1, system_id);
		inv_bind_text(st, 2, ip);
		inv_bind_now(st, 3);
		invb_bind_int64(st, 4, id);
		rc = invb_step(st) == INVB_DONE ? 0 : inv_dberr(inv, err, "store MAAS identity");
		inv_finalize(inv, st);
	}
	if (!rc)
		rc = inv_tx_commit(inv, err);
	if (rc)
		inv_tx_rollback(inv);
	return rc;
}
