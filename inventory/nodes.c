/* Nodes: manifest import, listing, state transitions, event history. */
#include <stdlib.h>
#include <string.h>

#include "inv_private.h"

static const char *const state_names[INV_STATE_COUNT] = {
	[INV_NEW] = "new",	     [INV_DISCOVERED] = "discovered", [INV_CONFIGURED] = "configured",
	[INV_ENLISTED] = "enlisted", [INV_DEPLOYED] = "deployed",     [INV_VALIDATED] = "validated",
	[INV_GOLDEN] = "golden",     [INV_FAILED] = "failed",	      [INV_QUARANTINED] = "quarantined",
	[INV_RETIRED] = "retired",
};

const char *inv_state_name(enum inv_state state)
{
	return (unsigned)state < INV_STATE_COUNT ? state_names[state] : "invalid";
}

int inv_state_parse(const char *name, enum inv_state *ret_state)
{
	for (int i = 0; i < INV_STATE_COUNT; i++)
		if (name && !strcmp(name, state_names[i])) {
			*ret_state = (enum inv_state)i;
			return 0;
		}
	return BR_E_INVAL;
}

/* Manifest-owned columns, in the order the import binds and compares them. */
enum {
	MF_RACK,
	MF_UNIT,
	MF_BMC,
	MF_USER,
	MF_PASSREF,
	MF_PROFILE,
	MF_TYPE,
	MF_BOOTDISK,
	MF_NOTES,
	MF_SERIAL,
	MF_SYSTEM,
	MF_ZONE,
	MF_POWER_DOMAIN,
	MF_COUNT
};
static const char *const mf_names[MF_COUNT] = {
	"rack",	 "unit",   "bmc",    "bmc_user", "bmc_password", "profile", "bmc_type", "boot_disk_serial",
	"notes", "serial", "system", "zone",	 "power_domain",
};

static void row_values(const struct inv_manifest_row *r, char unit[16], const char *v[MF_COUNT])
{
	snprintf(unit, 16, "%d", r->unit);
	v[MF_RACK] = r->rack;
	v[MF_UNIT] = unit;
	v[MF_BMC] = r->bmc;
	v[MF_USER] = r->bmc_user;
	v[MF_PASSREF] = r->bmc_password_ref;
	v[MF_PROFILE] = r->profile;
	v[MF_TYPE] = r->bmc_type && *r->bmc_type ? r->bmc_type : "auto";
	v[MF_BOOTDISK] = r->boot_disk_serial && *r->boot_disk_serial ? r->boot_disk_serial : NULL;
	v[MF_NOTES] = r->notes && *r->notes ? r->notes : NULL;
	v[MF_SERIAL] = r->expected_serial && *r->expected_serial ? r->expected_serial : NULL;
	v[MF_SYSTEM] = r->bmc_system && *r->bmc_system ? r->bmc_system : NULL;
	v[MF_ZONE] = r->zone && *r->zone ? r->zone : NULL;
	v[MF_POWER_DOMAIN] = r->power_domain && *r->power_domain ? r->power_domain : NULL;
}

static int same(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

/* Compare a stored row with the manifest row; describe the changes. The
 * password reference is named but its value is shown as it is a reference,
 * never a secret. */
static int diff_row(struct invb_stmt *cur, const char *const v[MF_COUNT], struct br_buf *changes)
{
	int changed = 0;

	for (int i = 0; i < MF_COUNT; i++) {
		const char *old = invb_column_text(cur, i + 2);

		if (same(old, v[i]))
			continue;
		br_buf_addf(changes, "%s%s %s -> %s", changed ? "; " : "", mf_names[i], old ? old : "(none)",
			    v[i] ? v[i] : "(none)");
		changed = 1;
	}
	return changed;
}

/* A BMC address is one machine: a row giving another node's BMC is a
 * renamed host or a moved BMC, which the operator must sort out (the
 * nodes table would refuse it with a bare constraint error). */
static int check_bmc_owner(struct inv *inv, const struct inv_manifest_row *r, const char *source,
			   struct br_err *err)
{
	struct invb_stmt *st;
	int rc;

	rc = inv_prepare(inv, "SELECT hostname FROM nodes WHERE bmc = ? AND hostname <> ?", &st, err);
	if (rc)
		return rc;
	inv_bind_text(st, 1, r->bmc);
	inv_bind_text(st, 2, r->hostname);
	rc = invb_step(st);
	if (rc == INVB_ROW)
		rc = br_errf(
		    err, BR_E_INVAL,
		    "%s:%d: bmc: %s belongs to %s in the inventory; a host cannot be renamed, nor a BMC "
		    "moved to another host, by an import: keep the name %s, or give %s its own BMC first",
		    source, r->line, r->bmc, invb_column_text(st, 0), invb_column_text(st, 0), r->hostname);
	else
		rc = rc == INVB_DONE ? 0 : inv_dberr(inv, err, r->hostname);
	inv_finalize(inv, st);
	return rc;
}

static int import_one(struct inv *inv, const struct inv_manifest_row *r, const char *source,
		      struct inv_import_stats *stats, struct br_err *err)
{
	struct invb_stmt *cur = NULL, *st = NULL;
	const char *v[MF_COUNT];
	char unit[16];
	struct br_buf changes;
	int rc;

	br_buf_init(&changes, 0);
	row_values(r, unit, v);
	rc = check_bmc_owner(inv, r, source, err);
	if (rc)
		goto out;
	rc =
	    inv_prepare(inv,
			"SELECT id, state, rack, unit, bmc, bmc_user, bmc_password_ref, profile, bmc_type,"
			" boot_disk_serial, notes, expected_serial, bmc_system, zone, power_domain FROM nodes"
			" WHERE hostname = ?",
			&cur, err);
	if (rc)
		goto out;
	inv_bind_text(cur, 1, r->hostname);
	rc = invb_step(cur);
	if (rc == INVB_DONE) {
		rc = inv_prepare(
		    inv,
		    "INSERT INTO nodes(hostname, rack, unit, bmc, bmc_user, bmc_password_ref, profile,"
		    " bmc_type, boot_disk_serial, notes, expected_serial, bmc_system, zone, power_domain, "
		    "state,"
		    " created_at, updated_at) VALUES "
		    "(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,'new',?15,?15) "
		    "RETURNING id",
		    &st, err);
		if (rc)
			goto out;
		inv_bind_text(st, 1, r->hostname);
		for (int i = 0; i < MF_COUNT; i++)
			inv_bind_text(st, i + 2, v[i]);
		invb_bind_int64(st, 3, r->unit);
		inv_bind_now(st, MF_COUNT + 2);
		if (invb_step(st) != INVB_ROW) {
			rc = inv_dberr(inv, err, r->hostname);
			goto out;
		}
		br_buf_addf(&changes, "imported from %s", source);
		rc = inv_event_add(inv, invb_column_int64(st, 0), NULL, "new", br_buf_str(&changes), err);
		if (!rc)
			stats->added++;
		goto out;
	}
	if (rc != INVB_ROW) {
		rc = inv_dberr(inv, err, r->hostname);
		goto out;
	}
	if (!diff_row(cur, v, &changes)) {
		stats->unchanged++;
		rc = 0;
		goto out;
	}
	rc = inv_prepare(inv,
			 "UPDATE nodes SET rack=?, unit=?, bmc=?, bmc_user=?, bmc_password_ref=?, profile=?,"
			 " bmc_type=?, boot_disk_serial=?, notes=?, expected_serial=?, bmc_system=?, zone=?, "
			 "power_domain=?,"
			 " updated_at=?"
			 " WHERE id=?",
			 &st, err);
	if (rc)
		goto out;
	for (int i = 0; i < MF_COUNT; i++)
		inv_bind_text(st, i + 1, v[i]);
	invb_bind_int64(st, 2, r->unit);
	inv_bind_now(st, MF_COUNT + 1);
	invb_bind_int64(st, MF_COUNT + 2, invb_column_int64(cur, 0));
	if (invb_step(st) != INVB_DONE) {
		rc = inv_dberr(inv, err, r->hostname);
		goto out;
	}
	{
		char *reason = br_xasprintf("%s: %s", source, br_buf_str(&changes));
		const char *state = invb_column_text(cur, 1);

		rc = inv_event_add(inv, invb_column_int64(cur, 0), state, state, reason, err);
		free(reason);
	}
	if (!rc)
		stats->updated++;
out:
	inv_finalize(inv, cur);
	inv_finalize(inv, st);
	br_buf_release(&changes);
	return rc;
}

int inv_import(struct inv *inv, const struct inv_manifest_row *rows, size_t n, const char *source,
	       struct inv_import_stats *ret_stats, struct br_err *err)
{
	struct inv_import_stats stats = { 0 };
	struct invb_stmt *st = NULL;
	int rc;

	rc = inv_tx_begin(inv, err);
	if (rc)
		return rc;
	for (size_t i = 0; i < n && !rc; i++)
		rc = import_one(inv, &rows[i], source, &stats, err);
	if (!rc)
		rc = inv_prepare(inv, "SELECT count(*) FROM nodes", &st, err);
	if (!rc && invb_step(st) == INVB_ROW)
		stats.not_in_manifest =
		    (size_t)invb_column_int64(st, 0) - stats.added - stats.updated - stats.unchanged;
	inv_finalize(inv, st);
	if (!rc)
		rc = inv_tx_commit(inv, err);
	if (rc) {
		inv_tx_rollback(inv);
		return rc;
	}
	if (ret_stats)
		*ret_stats = stats;
	return 0;
}

#define NODE_COLS                                                                                            \
	"id, hostname, rack, unit, bmc, bmc_user, bmc_password_ref, bmc_type, profile, boot_disk_serial,"    \
	" notes, state, reason, system_serial, service_tag, model, bios_version, bmc_firmware, power_state," \
	" maas_system_id, ip, created_at, updated_at, failure_kind, attempts, expected_serial, bmc_system,"  \
	" zone, power_domain"

/* A row the inventory's own code cannot have written (a state or failure
 * kind no bringup knows: an edit by hand, a newer bringup's row) is an
 * error naming the node and the column, never read as something else. */
static int node_from_row(struct inv *inv, struct invb_stmt *st, struct inv_node *n, struct br_err *err)
{
	const char *state = invb_column_text(st, 11), *kind = invb_column_text(st, 23);

	memset(n, 0, sizeof(*n));
	n->id = invb_column_int64(st, 0);
	n->hostname = inv_col_dup(st, 1);
	n->rack = inv_col_dup(st, 2);
	n->unit = invb_column_int(st, 3);
	n->bmc = inv_col_dup(st, 4);
	n->bmc_user = inv_col_dup(st, 5);
	n->bmc_password_ref = inv_col_dup(st, 6);
	n->bmc_type = inv_col_dup(st, 7);
	n->profile = inv_col_dup(st, 8);
	n->boot_disk_serial = inv_col_dup(st, 9);
	n->notes = inv_col_dup(st, 10);
	n->reason = inv_col_dup(st, 12);
	n->system_serial = inv_col_dup(st, 13);
	n->service_tag = inv_col_dup(st, 14);
	n->model = inv_col_dup(st, 15);
	n->bios_version = inv_col_dup(st, 16);
	n->bmc_firmware = inv_col_dup(st, 17);
	n->power_state = inv_col_dup(st, 18);
	n->maas_system_id = inv_col_dup(st, 19);
	n->ip = inv_col_dup(st, 20);
	n->created_at = inv_col_dup(st, 21);
	n->updated_at = inv_col_dup(st, 22);
	if (inv_state_parse(state, &n->state))
		return br_errf(err, BR_E_INVAL,
			       "inventory %s: node '%s': state: '%s' is not a state (a corrupted row)",
			       inv->path, n->hostname ? n->hostname : "?", state ? state : "NULL");
	n->failure_kind = BR_FAIL_NONE;
	if (n->state == INV_FAILED && kind && br_fail_kind_parse(kind, &n->failure_kind))
		return br_errf(
		    err, BR_E_INVAL,
		    "inventory %s: node '%s': failure_kind: '%s' is not one bringup knows (a corrupted row)",
		    inv->path, n->hostname ? n->hostname : "?", kind);
	if (n->state == INV_FAILED && !kind)
		n->failure_kind = BR_FAIL_STAGE;
	n->attempts = invb_column_int(st, 24);
	n->expected_serial = inv_col_dup(st, 25);
	n->bmc_system = inv_col_dup(st, 26);
	n->zone = inv_col_dup(st, 27);
	n->power_domain = inv_col_dup(st, 28);
	return 0;
}

void inv_node_release(struct inv_node *n)
{
	if (!n)
		return;
	free(n->hostname);
	free(n->rack);
	free(n->bmc);
	free(n->bmc_user);
	free(n->bmc_password_ref);
	free(n->bmc_type);
	free(n->profile);
	free(n->boot_disk_serial);
	free(n->notes);
	free(n->expected_serial);
	free(n->bmc_system);
	free(n->zone);
	free(n->power_domain);
	free(n->reason);
	free(n->system_serial);
	free(n->service_tag);
	free(n->model);
	free(n->bios_version);
	free(n->bmc_firmware);
	free(n->power_state);
	free(n->maas_system_id);
	free(n->ip);
	free(n->created_at);
	free(n->updated_at);
	memset(n, 0, sizeof(*n));
}

void inv_nodes_free(struct inv_node *nodes, size_t n)
{
	for (size_t i = 0; i < n; i++)
		inv_node_release(&nodes[i]);
	free(nodes);
}

int inv_nodes_list(struct inv *inv, struct inv_node **ret_nodes, size_t *ret_n, struct br_err *err)
{
	struct inv_node *nodes = NULL;
	size_t n = 0;
	struct invb_stmt *st;
	int rc;

	rc = inv_prepare(inv, "SELECT " NODE_COLS " FROM nodes ORDER BY rack, unit, hostname", &st, err);
	if (rc)
		return rc;
	while ((rc = invb_step(st)) == INVB_ROW) {
		nodes = br_xrealloc(nodes, (n + 1) * sizeof(*nodes));
		if (node_from_row(inv, st, &nodes[n++], err)) {
			rc = BR_E_INVAL;
			break;
		}
	}
	if (rc != INVB_DONE) {
		if (rc != BR_E_INVAL)
			rc = inv_dberr(inv, err, "list nodes");
		inv_finalize(inv, st);
		inv_nodes_free(nodes, n);
		return rc;
	}
	inv_finalize(inv, st);
	*ret_nodes = nodes;
	*ret_n = n;
	return 0;
}

int inv_node_get(struct inv *inv, const char *hostname, struct inv_node *ret_node, struct br_err *err)
{
	struct invb_stmt *st;
	int rc;

	rc = inv_prepare(inv, "SELECT " NODE_COLS " FROM nodes WHERE hostname = ?", &st, err);
	if (rc)
		return rc;
	inv_bind_text(st, 1, hostname);
	rc = invb_step(st);
	if (rc == INVB_ROW) {
		rc = node_from_row(inv, st, ret_node, err);
		if (rc)
			inv_node_release(ret_node);
	} else if (rc == INVB_DONE) {
		rc = br_errf(err, BR_E_NOTFOUND, "no node named '%s' in the inventory", hostname);
	} else {
		rc = inv_dberr(inv, err, "read node");
	}
	inv_finalize(inv, st);
	return rc;
}

int inv_transition_is_attempt(enum inv_state from, enum inv_state to)
{
	/* A stage re-judging a node already there (the gate over quarantined
	 * nodes, a retry failing again) is the same attempt. */
	return (to == INV_FAILED || to == INV_QUARANTINED) && from != to;
}

int inv_transition(struct inv *inv, int64_t id, enum inv_state from, enum inv_state to, const char *reason,
		   struct br_err *err)
{
	return inv_transition_kind(inv, id, from, to, to == INV_FAILED ? BR_FAIL_STAGE : BR_FAIL_NONE, reason,
				   err);
}

int inv_transition_kind(struct inv *inv, int64_t id, enum inv_state from, enum inv_state to,
			enum br_fail_kind kind, const char *reason, struct br_err *err)
{
	struct invb_stmt *st;
	int rc;

	if (to == INV_FAILED && kind == BR_FAIL_NONE)
		kind = BR_FAIL_STAGE;
	rc = inv_prepare(inv,
			 "UPDATE nodes SET state=?, reason=?, failure_kind=?, attempts=attempts+?,"
			 " updated_at=? WHERE id=?",
			 &st, err);
	if (rc)
		return rc;
	inv_bind_text(st, 1, inv_state_name(to));
	inv_bind_reason(st, 2, reason);
	inv_bind_text(st, 3, to == INV_FAILED ? br_fail_kind_name(kind) : NULL);
	invb_bind_int64(st, 4, inv_transition_is_attempt(from, to));
	inv_bind_now(st, 5);
	invb_bind_int64(st, 6, id);
	rc = invb_step(st) == INVB_DONE ? 0 : inv_dberr(inv, err, "set state");
	inv_finalize(inv, st);
	if (!rc)
		rc = inv_event_add(inv, id, inv_state_name(from), inv_state_name(to), reason, err);
	return rc;
}

int inv_state_expect(const char *hostname, enum inv_state current, enum inv_state read, struct br_err *err)
{
	if (current == read)
		return 0;
	return br_errf(err, BR_E_STATE,
		       "%s is now '%s', not '%s' as this stage read it: another run moved it; left as it is",
		       hostname, inv_state_name(current), inv_state_name(read));
}

int inv_node_set_state(struct inv *inv, const char *hostname, enum inv_state from, enum inv_state to,
		       const char *reason, struct br_err *err)
{
	return inv_node_set_state_kind(inv, hostname, from, to,
				       to == INV_FAILED ? BR_FAIL_STAGE : BR_FAIL_NONE, reason, err);
}

int inv_node_fail(struct inv *inv, const char *hostname, enum inv_state from, enum br_fail_kind kind,
		  const char *reason, struct br_err *err)
{
	return inv_node_set_state_kind(inv, hostname, from, INV_FAILED, kind, reason, err);
}

int inv_node_set_state_kind(struct inv *inv, const char *hostname, enum inv_state from, enum inv_state to,
			    enum br_fail_kind kind, const char *reason, struct br_err *err)
{
	struct inv_node cur;
	char *capped;
	int rc;

	rc = inv_tx_begin(inv, err);
	if (rc)
		return rc;
	rc = inv_node_get(inv, hostname, &cur, err);
	if (rc)
		goto fail;
	/* A lost lease first: it says more than the state another holder set. */
	rc = inv_lease_fence(inv, cur.id, err);
	if (!rc)
		rc = inv_state_expect(hostname, cur.state, from, err);
	if (rc) {
		inv_node_release(&cur);
		goto fail;
	}
	capped = inv_reason_as_stored(reason);
	if (cur.state == to && same(cur.reason, capped) && (to != INV_FAILED || cur.failure_kind == kind)) {
		free(capped);
		inv_node_release(&cur);
		inv_tx_rollback(inv);
		return 0;
	}
	free(capped);
	rc = inv_transition_kind(inv, cur.id, cur.state, to, kind, reason, err);
	inv_node_release(&cur);
	if (!rc)
		rc = inv_tx_commit(inv, err);
	if (!rc)
		return 0;
fail:
	inv_tx_rollback(inv);
	return rc;
}

int inv_node_unretire(struct inv *inv, const char *hostname, const char *reason, size_t *ret_closed,
		      struct br_err *err)
{
	enum inv_state state;
	struct invb_stmt *st;
	size_t closed = 0;
	int64_t id;
	int rc;

	rc = inv_tx_begin(inv, err);
	if (rc)
		return rc;
	rc = inv_node_id(inv, hostname, &id, &state, err);
	if (!rc && state != INV_RETIRED)
		rc = br_errf(err, BR_E_STATE, "%s is '%s', not retired; left as it is", hostname,
			     inv_state_name(state));
	if (!rc)
		rc = inv_transition(inv, id, state, INV_NEW, reason, err);
	if (!rc)
		rc = inv_prepare(inv, "UPDATE nodes SET attempts=0 WHERE id=?", &st, err);
	if (!rc) {
		invb_bind_int64(st, 1, id);
		rc = invb_step(st) == INVB_DONE ? 0 : inv_dberr(inv, err, "reset attempts");
		inv_finalize(inv, st);
	}
	if (!rc)
		rc = inv_tickets_close_open(inv, id, &closed, err);
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

void inv_events_free(struct inv_event *events, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(events[i].from_state);
		free(events[i].to_state);
		free(events[i].reason);
		free(events[i].at);
		free(events[i].hostname);
	}
	free(events);
}

int inv_node_events(struct inv *inv, const char *hostname, struct inv_event **ret_events, size_t *ret_n,
		    struct br_err *err)
{
	struct inv_event *ev = NULL;
	size_t n = 0;
	struct invb_stmt *st;
	int64_t id;
	int rc;

	rc = inv_node_id(inv, hostname, &id, NULL, err);
	if (rc)
		return rc;
	rc = inv_prepare(
	    inv, "SELECT id, from_state, to_state, reason, at FROM events WHERE node_id=? ORDER BY id", &st,
	    err);
	if (rc)
		return rc;
	invb_bind_int64(st, 1, id);
	while ((rc = invb_step(st)) == INVB_ROW) {
		ev = br_xrealloc(ev, (n + 1) * sizeof(*ev));
		ev[n].id = invb_column_int64(st, 0);
		ev[n].from_state = inv_col_dup(st, 1);
		ev[n].to_state = inv_col_dup(st, 2);
		ev[n].reason = inv_col_dup(st, 3);
		ev[n].at = inv_col_dup(st, 4);
		ev[n].hostname = NULL;
		n++;
	}
	rc = rc == INVB_DONE ? 0 : inv_dberr(inv, err, "read events");
	inv_finalize(inv, st);
	if (rc) {
		inv_events_free(ev, n);
		return rc;
	}
	*ret_events = ev;
	*ret_n = n;
	return 0;
}

int inv_node_failed_from(struct inv *inv, const char *hostname, enum inv_state *ret_from, int *ret_again,
			 struct br_err *err)
{
	/* The latest transition into failed from another state, and whether a
	 * failed -> failed one (a stage that took the failed node failed it
	 * again) came after it. */
	static const char sql[] =
	    "SELECT e.from_state, CASE WHEN EXISTS (SELECT 1 FROM events a WHERE a.node_id = e.node_id"
	    "  AND a.id > e.id AND a.from_state = 'failed' AND a.to_state = 'failed') THEN 1 ELSE 0 END"
	    " FROM events e WHERE e.node_id = ? AND e.to_state = 'failed' AND e.from_state IS NOT NULL"
	    " AND e.from_state <> 'failed' ORDER BY e.id DESC LIMIT 1";
	struct invb_stmt *st;
	int64_t id;
	int rc = inv_node_id(inv, hostname, &id, NULL, err);

	if (rc || (rc = inv_prepare(inv, sql, &st, err)))
		return rc;
	invb_bind_int64(st, 1, id);
	rc = invb_step(st);
	if (rc == INVB_ROW && !inv_state_parse(invb_column_text(st, 0), ret_from)) {
		*ret_again = invb_column_int(st, 1);
		rc = 0;
	} else if (rc == INVB_ROW || rc == INVB_DONE) {
		rc = br_errf(err, BR_E_NOTFOUND, "%s: no event says what state it was failed from", hostname);
	} else {
		rc = inv_dberr(inv, err, "read events");
	}
	inv_finalize(inv, st);
	return rc;
}

int inv_node_macs(struct inv *inv, int64_t node_id, struct br_strlist *ret_macs, struct br_err *err)
{
	struct br_strlist macs = { 0 };
	struct invb_stmt *st;
	int rc;

	rc = inv_prepare(inv, "SELECT mac FROM nics WHERE node_id=? ORDER BY mac", &st, err);
	if (rc)
		return rc;
	invb_bind_int64(st, 1, node_id);
	while ((rc = invb_step(st)) == INVB_ROW)
		br_strlist_add(&macs, invb_column_text(st, 0));
	rc = rc == INVB_DONE ? 0 : inv_dberr(inv, err, "read MACs");
	inv_finalize(inv, st);
	if (rc) {
		br_strlist_release(&macs);
		return rc;
	}
	*ret_macs = macs;
	return 0;
}
