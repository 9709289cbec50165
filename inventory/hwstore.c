/* Storing what a BMC reported about a node: its MACs (a table; a MAC two
 * nodes claim is judged in claims.c), the node row, and the whole report
 * as one document. */
#include <stdlib.h>
#include <string.h>

#include "hwjson.h"
#include "inv_private.h"

static void bind_int_or_null(struct invb_stmt *st, int idx, int64_t v)
{
	if (v < 0)
		invb_bind_null(st, idx);
	else
		invb_bind_int64(st, idx, v);
}

static int insert_nics(struct inv *inv, int64_t id, const struct br_hw *hw, struct br_err *err)
{
	struct invb_stmt *st = NULL;
	int rc;

	rc = inv_prepare(
	    inv, "INSERT INTO nics(node_id, mac, name, source, link_status, permanent) VALUES (?,?,?,?,?,?)",
	    &st, err);
	for (size_t i = 0; i < hw->n_nics && !rc; i++) {
		const struct br_nic *x = &hw->nics[i];

		/* The BMC's own links stay in the facts document only: MAAS must
		 * never register them, nor may two nodes' claims clash on them. */
		if (!br_nic_is_host(x))
			continue;
		invb_reset(st);
		invb_bind_int64(st, 1, id);
		inv_bind_text(st, 2, x->mac);
		inv_bind_text(st, 3, x->name);
		inv_bind_text(st, 4, x->source);
		inv_bind_text(st, 5, x->link_status);
		invb_bind_int64(st, 6, x->permanent);
		if (invb_step(st) != INVB_DONE)
			rc = inv_dberr(inv, err, "store MACs");
	}
	inv_finalize(inv, st);
	return rc;
}

static int update_node(struct inv *inv, int64_t id, const struct br_hw *hw, struct br_err *err)
{
	struct invb_stmt *st;
	int rc;

	rc = inv_prepare(
	    inv,
	    "UPDATE nodes SET hw_source=?2, manufacturer=?3, model=?4, system_serial=?5, service_tag=?6,"
	    " uuid=?7, bios_version=?8, bmc_firmware=?9, bmc_mac=?10, power_state=?11, cpu_model=?12,"
	    " cpu_count=?13, cpu_max_mhz=?14, memory_gib=?15, boot_mode=?16, boot_override_target=?17,"
	    " boot_override_enabled=?18, discovered_at=?19 WHERE id=?1",
	    &st, err);
	if (rc)
		return rc;
	invb_bind_int64(st, 1, id);
	inv_bind_text(st, 2, hw->source);
	inv_bind_text(st, 3, hw->manufacturer);
	inv_bind_text(st, 4, hw->model);
	inv_bind_text(st, 5, hw->system_serial);
	inv_bind_text(st, 6, hw->service_tag);
	inv_bind_text(st, 7, hw->uuid);
	inv_bind_text(st, 8, hw->bios_version);
	inv_bind_text(st, 9, hw->bmc_firmware);
	inv_bind_text(st, 10, hw->bmc_mac);
	inv_bind_text(st, 11, hw->power_state);
	inv_bind_text(st, 12, hw->cpu_model);
	bind_int_or_null(st, 13, hw->cpu_count);
	bind_int_or_null(st, 14, hw->cpu_max_mhz);
	bind_int_or_null(st, 15, hw->memory_gib);
	inv_bind_text(st, 16, hw->boot_mode);
	inv_bind_text(st, 17, hw->boot_override_target);
	inv_bind_text(st, 18, hw->boot_override_enabled);
	inv_bind_now(st, 19);
	rc = invb_step(st) == INVB_DONE ? 0 : inv_dberr(inv, err, "store node facts");
	inv_finalize(inv, st);
	return rc;
}

static int put_facts(struct inv *inv, int64_t id, const char *facts, struct br_err *err)
{
	struct invb_stmt *st;
	int rc;

	rc = inv_prepare(inv,
			 "INSERT INTO hw_facts(node_id, facts) VALUES (?, ?)"
			 " ON CONFLICT (node_id) DO UPDATE SET facts=excluded.facts",
			 &st, err);
	if (rc)
		return rc;
	invb_bind_int64(st, 1, id);
	invb_bind_text_borrowed(st, 2, facts);
	rc = invb_step(st) == INVB_DONE ? 0 : inv_dberr(inv, err, "store facts");
	inv_finalize(inv, st);
	return rc;
}

/* The node's BMC address and the serial its manifest row expects (NULL
 * when none), for judging what its BMC reported. */
static void node_identity(struct inv *inv, int64_t id, char **ret_bmc, char **ret_expected)
{
	struct invb_stmt *st;

	*ret_bmc = *ret_expected = NULL;
	if (inv_prepare(inv, "SELECT bmc, expected_serial FROM nodes WHERE id=?", &st, NULL))
		return;
	invb_bind_int64(st, 1, id);
	if (invb_step(st) == INVB_ROW) {
		*ret_bmc = inv_col_dup(st, 0);
		*ret_expected = inv_col_dup(st, 1);
	}
	inv_finalize(inv, st);
}

/* The machine behind this BMC is not the one the manifest puts here when
 * it reports another serial: a management cable in the wrong port, or a
 * wrong row. Its MACs would enlist the wrong server under this name. The
 * reason names both sides, or NULL when they agree or cannot be compared. */
static char *serial_mismatch(const struct br_hw *hw, const char *bmc, const char *expected)
{
	char *tag, *reason;

	if (br_hw_serial_matches(hw, expected) != 0)
		return NULL;
	tag = hw->service_tag && *hw->service_tag ? br_xasprintf(" (service tag %s)", hw->service_tag)
						  : br_xstrdup("");
	reason = br_xasprintf("the BMC at %s reports serial %s%s, the manifest expects %s: a swapped "
			      "management cable or a wrong row",
			      bmc, hw->system_serial ? hw->system_serial : "(none)", tag, expected);
	free(tag);
	return reason;
}

/* Within the transaction, once the node's MACs and facts are stored:
 * check the serial the manifest expects, judge the MACs other nodes claim
 * too, and move the node to `to`, or to failed when its serial is another
 * machine's or it lost a claim (BR_E_EXISTS with the reason in err). */
static int settle_state(struct inv *inv, int64_t id, const char *hostname, const struct br_hw *hw,
			enum inv_state from, enum inv_state to, enum br_fail_kind kind, const char *reason,
			struct br_err *err)
{
	char *bmc, *expected, *lost = NULL, *note = NULL;
	int rc;

	node_identity(inv, id, &bmc, &expected);
	lost = serial_mismatch(hw, bmc ? bmc : "?", expected);
	if (lost) {
		rc = inv_transition_kind(inv, id, from, INV_FAILED, BR_FAIL_SERIAL_MISMATCH, lost, err);
		if (!rc)
			rc = BR_E_EXISTS;
		goto out;
	}
	rc = inv_judge_mac_claims(inv, id, hostname, bmc ? bmc : "?", &lost, &note, err);
	if (!rc && lost) {
		rc = inv_transition_kind(inv, id, from, INV_FAILED, BR_FAIL_MAC_CONFLICT, lost, err);
		if (!rc)
			rc = BR_E_EXISTS;
	} else if (!rc && note) {
		char *full = br_xasprintf("%s%s", reason ? reason : "", note);

		rc = inv_transition_kind(inv, id, from, to, kind, full, err);
		free(full);
	} else if (!rc) {
		rc = inv_transition_kind(inv, id, from, to, kind, reason, err);
	}
out:
	if (rc == BR_E_EXISTS)
		br_errf(err, BR_E_EXISTS, "%s", lost);
	free(bmc);
	free(expected);
	free(lost);
	free(note);
	return rc;
}

int inv_store_hw(struct inv *inv, const char *hostname, const struct br_hw *hw, enum inv_state read,
		 enum inv_state to, const char *reason, struct br_err *err)
{
	return inv_store_hw_kind(inv, hostname, hw, read, to, BR_FAIL_NONE, reason, err);
}

int inv_store_hw_kind(struct inv *inv, const char *hostname, const struct br_hw *hw, enum inv_state read,
		      enum inv_state to, enum br_fail_kind kind, const char *reason, struct br_err *err)
{
	json_t *doc = br_hw_to_json(hw);
	/* Encoded before the transaction: the write lock is held only for
	 * the writes. */
	char *facts = doc ? json_dumps(doc, JSON_COMPACT) : NULL;
	enum inv_state from;
	struct invb_stmt *st;
	int64_t id;
	int rc;

	json_decref(doc);
	if (!facts)
		return br_errf(err, BR_E_NOMEM, "inventory %s: cannot encode the facts of %s", inv->path,
			       hostname);
	rc = inv_tx_begin(inv, err);
	if (rc)
		goto out;
	rc = inv_node_id(inv, hostname, &id, &from, err);
	if (!rc)
		rc = inv_lease_fence(inv, id, err);
	if (!rc)
		rc = inv_state_expect(hostname, from, read, err);
	if (!rc)
		rc = inv_prepare(inv, "DELETE FROM nics WHERE node_id=?", &st, err);
	if (!rc) {
		invb_bind_int64(st, 1, id);
		if (invb_step(st) != INVB_DONE)
			rc = inv_dberr(inv, err, "replace MACs");
		inv_finalize(inv, st);
	}
	if (!rc)
		rc = update_node(inv, id, hw, err);
	if (!rc)
		rc = insert_nics(inv, id, hw, err);
	if (!rc)
		rc = put_facts(inv, id, facts, err);
	if (!rc)
		rc = settle_state(inv, id, hostname, hw, from, to, kind, reason, err);
	/* A lost MAC claim or another machine's serial is stored too: the
	 * node's facts and its claim are the evidence the next run judges by. */
	if (!rc || rc == BR_E_EXISTS) {
		int crc = inv_tx_commit(inv, err);

		rc = crc ? crc : rc;
	}
	if (rc && rc != BR_E_EXISTS)
		inv_tx_rollback(inv);
out:
	free(facts);
	return rc;
}
