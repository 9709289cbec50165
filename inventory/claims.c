/* Judging a MAC two nodes' BMCs claim (inventory.h, inv_store_hw). A BMC
 * that answers faster must not win a MAC by being first: a mis-cabled or
 * mis-addressed BMC would take a real node's MAC and the real node would
 * fail. A node past discovery keeps its MACs: the newcomer loses. The
 * only evidence the inventory has of which BMC is the manifest's
 * machine is a serial the manifest gives: its boot_disk_serial among the
 * drives that BMC reports. */
#include <stdlib.h>
#include <string.h>

#include "inv_private.h"

/* Conflicts named in one reason; the rest are counted. */
#define CLAIMS_NAMED_MAX 4

struct claim {
	char *mac;
	int64_t id;
	char *hostname, *bmc, *state, *reason, *zone;
};

static void claims_free(struct claim *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(c[i].mac);
		free(c[i].hostname);
		free(c[i].bmc);
		free(c[i].state);
		free(c[i].reason);
		free(c[i].zone);
	}
	free(c);
}

/* A writer of zones (inv_set_writer_zones) waits for the locks of node
 * id's MACs before it reads who else claims them: a writer of another
 * zone storing a node with one of them either committed before (and is
 * read) or reads this one's after this commits. Writers of one zone,
 * or of none, wait for one another already. */
static int lock_macs(struct inv *inv, int64_t id, struct br_err *err)
{
	const char *sql = inv->db->ops->sql_lock_node_macs;
	struct invb_stmt *st;
	int rc;

	if (!inv_zoned(inv) || !sql)
		return 0;
	rc = inv_prepare(inv, sql, &st, err);
	if (rc)
		return rc;
	invb_bind_int64(st, 1, id);
	while ((rc = invb_step(st)) == INVB_ROW)
		;
	rc = rc == INVB_DONE ? 0 : inv_dberr(inv, err, "lock MACs");
	inv_finalize(inv, st);
	return rc;
}

/* Other nodes claiming a MAC node id claims, read whole before anything is
 * changed. */
static int read_claims(struct inv *inv, int64_t id, struct claim **ret, size_t *ret_n, struct br_err *err)
{
	struct claim *c = NULL;
	size_t n = 0;
	struct invb_stmt *st;
	int rc;

	rc = inv_prepare(
	    inv,
	    "SELECT mine.mac, n.id, n.hostname, n.bmc, n.state, n.reason, n.zone FROM nics mine"
	    " JOIN nics theirs ON theirs.mac = mine.mac AND theirs.node_id <> mine.node_id"
	    " JOIN nodes n ON n.id = theirs.node_id WHERE mine.node_id = ? ORDER BY n.hostname, mine.mac",
	    &st, err);
	if (rc)
		return rc;
	invb_bind_int64(st, 1, id);
	while ((rc = invb_step(st)) == INVB_ROW) {
		c = br_xrealloc(c, (n + 1) * sizeof(*c));
		c[n++] = (struct claim){ inv_col_dup(st, 0), invb_column_int64(st, 1), inv_col_dup(st, 2),
					 inv_col_dup(st, 3), inv_col_dup(st, 4),       inv_col_dup(st, 5),
					 inv_col_dup(st, 6) };
	}
	rc = rc == INVB_DONE ? 0 : inv_dberr(inv, err, "read MAC claims");
	inv_finalize(inv, st);
	if (rc) {
		claims_free(c, n);
		return rc;
	}
	*ret = c;
	*ret_n = n;
	return 0;
}

/* 1 when node id's stored facts show the manifest's boot disk serial. */
static int matches_manifest(struct inv *inv, int64_t id, struct br_err *err)
{
	struct invb_stmt *st;
	int rc;

	rc = inv_prepare(
	    inv,
	    "SELECT EXISTS (SELECT 1 FROM nodes n JOIN drives d ON d.node_id = n.id WHERE n.id = ?"
	    " AND n.boot_disk_serial IS NOT NULL AND n.boot_disk_serial <> '' AND d.serial = "
	    "n.boot_disk_serial)",
	    &st, err);
	if (rc)
		return rc;
	invb_bind_int64(st, 1, id);
	rc = invb_step(st) == INVB_ROW ? invb_column_int(st, 0) : inv_dberr(inv, err, "read drives");
	inv_finalize(inv, st);
	return rc;
}

/* A node past discovery (configured onwards, or failed there): its MACs
 * were judged when it was discovered and it has moved on since, so a BMC
 * met later that reports one of them (a manifest row with a production
 * BMC's address, a BMC answering on another's) loses, whatever it shows:
 * a golden node is never failed by a machine nobody named it for. A node
 * new, discovered or failed in discovery (no further event) is judged on
 * the evidence as before. */
static int past_discovery(struct inv *inv, const struct claim *c, struct br_err *err)
{
	enum inv_state s;
	struct invb_stmt *st;
	int rc;

	if (inv_state_parse(c->state, &s))
		return 0;
	if (s == INV_NEW || s == INV_DISCOVERED)
		return 0;
	if (s != INV_FAILED)
		return 1;
	/* failed: past discovery when it was failed from a later state */
	rc = inv_prepare(inv,
			 "SELECT from_state FROM events WHERE node_id = ? AND to_state = 'failed'"
			 " AND from_state <> 'failed' ORDER BY id DESC LIMIT 1",
			 &st, err);
	if (rc)
		return rc;
	invb_bind_int64(st, 1, c->id);
	rc = invb_step(st);
	if (rc == INVB_ROW) {
		const char *from = invb_column_text(st, 0);

		rc = from && strcmp(from, "new") && strcmp(from, "discovered");
	} else {
		rc = rc == INVB_DONE ? 0 : inv_dberr(inv, err, "read events");
	}
	inv_finalize(inv, st);
	return rc;
}

/* Fail the other claimant c, judged to be wrong. A writer of zones may
 * write a node of another zone only while no writer of that zone is at
 * work (inv_try_zone): when one is, the other node is left as it is and
 * 1 is returned, for this node to lose instead (never both kept). */
static int fail_other(struct inv *inv, const struct claim *c, const char *reason, struct br_err *err)
{
	enum inv_state from;
	int free_now = inv_try_zone(inv, c->zone, err);

	if (free_now < 0)
		return BR_E_DB;
	if (!free_now)
		return 1;
	if (inv_state_parse(c->state, &from))
		from = INV_FAILED;
	if (from == INV_FAILED && c->reason && !strcmp(c->reason, reason))
		return 0;
	br_warn("inventory", "%s: %s", c->hostname, reason);
	return inv_transition_kind(inv, c->id, from, INV_FAILED, BR_FAIL_MAC_CONFLICT, reason, err);
}

/* Why this node loses a MAC whose other claimant it could not fail now. */
static char *busy_zone(const struct claim *c, const char *bmc)
{
	return br_xasprintf(
	    "MAC %s is claimed by this node's BMC (%s) and by the BMC of %s (%s), in zone %s, "
	    "whose writer was at work: %s was left as it is and this node is judged again "
	    "when it is discovered again; check both BMCs' addresses and cabling",
	    c->mac, bmc, c->hostname, c->bmc, c->zone, c->hostname);
}

int inv_judge_mac_claims(struct inv *inv, int64_t id, const char *hostname, const char *bmc, char **ret_lost,
			 char **ret_note, struct br_err *err)
{
	struct claim *c = NULL;
	struct br_buf lost, note;
	size_t n = 0, n_lost = 0, n_won = 0;
	int mine, rc;

	*ret_lost = *ret_note = NULL;
	rc = lock_macs(inv, id, err);
	if (!rc)
		rc = read_claims(inv, id, &c, &n, err);
	if (rc || !n)
		return rc;
	br_buf_init(&lost, 0);
	br_buf_init(&note, 0);
	mine = matches_manifest(inv, id, err);
	rc = mine < 0 ? mine : 0;
	for (size_t i = 0; i < n && !rc; i++) {
		int theirs = matches_manifest(inv, c[i].id, err), settled;
		char *why;

		if (theirs < 0) {
			rc = theirs;
			break;
		}
		settled = past_discovery(inv, &c[i], err);
		if (settled < 0) {
			rc = settled;
			break;
		}
		if (settled) {
			why = br_xasprintf(
			    "MAC %s is claimed by this node's BMC (%s) and is already %s's (BMC "
			    "%s), which is %s: check this node's BMC address in the manifest and "
			    "its cabling",
			    c[i].mac, bmc, c[i].hostname, c[i].bmc, c[i].state);
			if (n_lost < CLAIMS_NAMED_MAX)
				br_buf_addf(&lost, "%s%s", n_lost ? "; " : "", why);
			n_lost++;
			free(why);
			continue;
		}
		if (mine && !theirs) {
			why = br_xasprintf(
			    "MAC %s is claimed by this node's BMC (%s) and by the BMC of %s (%s), whose "
			    "drives include the manifest's boot disk serial; this BMC's do not: check "
			    "its address and cabling",
			    c[i].mac, c[i].bmc, hostname, bmc);
			rc = fail_other(inv, &c[i], why, err);
			free(why);
			if (rc == 1) {
				rc = 0;
				why = busy_zone(&c[i], bmc);
				if (n_lost < CLAIMS_NAMED_MAX)
					br_buf_addf(&lost, "%s%s", n_lost ? "; " : "", why);
				n_lost++;
				free(why);
				continue;
			}
			if (n_won++ < CLAIMS_NAMED_MAX)
				br_buf_addf(&note, "; MAC %s also claimed by %s (BMC %s), which failed",
					    c[i].mac, c[i].hostname, c[i].bmc);
			continue;
		}
		if (theirs && !mine)
			why = br_xasprintf(
			    "MAC %s is claimed by this node's BMC (%s) and by the BMC of %s (%s), whose "
			    "drives include the manifest's boot disk serial; this BMC's do not: check "
			    "its address and cabling",
			    c[i].mac, bmc, c[i].hostname, c[i].bmc);
		else
			why = br_xasprintf(
			    "MAC %s is claimed by the BMCs of both %s (%s) and %s (%s), and %s tells "
			    "which is right (the manifest's boot_disk_serial among a BMC's drives): "
			    "check both BMCs' addresses and cabling",
			    c[i].mac, hostname, bmc, c[i].hostname, c[i].bmc,
			    mine ? "both match the manifest, so nothing" : "nothing");
		if ((!theirs || mine) && (rc = fail_other(inv, &c[i], why, err)) == 1) {
			char *busy = busy_zone(&c[i], bmc);

			rc = 0;
			free(why);
			why = busy;
		}
		if (n_lost < CLAIMS_NAMED_MAX)
			br_buf_addf(&lost, "%s%s", n_lost ? "; " : "", why);
		n_lost++;
		free(why);
	}
	if (!rc && n_lost > CLAIMS_NAMED_MAX)
		br_buf_addf(&lost, "; and %zu more disputed MACs", n_lost - CLAIMS_NAMED_MAX);
	if (!rc && n_lost)
		*ret_lost = br_buf_detach(&lost);
	else if (!rc && n_won)
		*ret_note = br_buf_detach(&note);
	br_buf_release(&lost);
	br_buf_release(&note);
	claims_free(c, n);
	return rc;
}
