/*
 * inventory — the one database every stage reads and writes, and the only
 * code in bringup that speaks SQL (SQLite, behind the backend interface of
 * inventory/backend.h). Opening runs the schema migrations;
 * every multi-row change is one transaction; every state change of a node
 * appends to the events table, which nothing updates or deletes.
 *
 * Ownership: struct inv is opaque (inv_open/inv_close). Records returned
 * through ret_* parameters are owned by the caller and freed with the
 * matching *_release / *_free function.
 */
#ifndef BRINGUP_INVENTORY_H
#define BRINGUP_INVENTORY_H

#include <stdint.h>

#include "common.h"

#define INV_SCHEMA_VERSION 21
#define INV_BUSY_TIMEOUT_MS 10000
/* Longest reason kept with a node or an event; a longer one is cut
 * (br_xstrdup_capped). Reasons carry text from BMCs and MAAS. */
#define INV_REASON_MAX 4096

struct inv;

enum inv_state {
	INV_NEW,
	INV_DISCOVERED,
	INV_CONFIGURED,
	INV_ENLISTED,
	INV_DEPLOYED,
	INV_VALIDATED,
	INV_GOLDEN,
	INV_FAILED,
	INV_QUARANTINED,
	/* Quarantined or failed too often (the profile's [lifecycle]
	 * max_attempts), or by an operator: out of the flow until unretired. */
	INV_RETIRED,
};
#define INV_STATE_COUNT (INV_RETIRED + 1)

const char *inv_state_name(enum inv_state state);
int inv_state_parse(const char *name, enum inv_state *ret_state);

/* Open (creating if needed) and migrate to INV_SCHEMA_VERSION. path may be
 * ":memory:", or a PostgreSQL URI (postgresql://, postgres://) or libpq
 * keyword string ("service=NAME"). A database newer than this program is
 * refused; a PostgreSQL string holding a password is refused (BR_E_INVAL,
 * as inv_check_where) before anything connects. */
int inv_open(const char *path, struct inv **ret_inv, struct br_err *err);

/* inv_open_with's flags. INV_OPEN_READONLY: for a command that only reads
 * (status, history, report, tickets without filing): nothing is created,
 * migrated or written, so a viewer without write access to the database
 * (or its directory) can read it. A database that is not there is
 * BR_E_NOTFOUND naming it; one at an older schema version is BR_E_STATE
 * (a writing open migrates it). Every backend implements it
 * (invb_ops.open). */
#define INV_OPEN_READONLY 0x1u
int inv_open_with(const char *path, unsigned flags, struct inv **ret_inv, struct br_err *err);
/* Whether inv was opened INV_OPEN_READONLY. */
int inv_readonly(const struct inv *inv);
/* This process writes only for the nodes of zones (a --zone value: names,
 * commas; NULL: every zone's), it and the workers it forks: every
 * connection it opens after this (a migration done first, alone) lets
 * writers of other zones write beside it where the backend can
 * (PostgreSQL; SQLite has one lock for every writer). Copied. */
void inv_set_writer_zones(const char *zones);
void inv_close(struct inv *inv);
/* Whether path is a --db this program would take, without opening it: 0,
 * or BR_E_INVAL naming --db (a password written into a PostgreSQL
 * connection string; libpq cannot read it). */
int inv_check_where(const char *path, struct br_err *err);
/* The file the inventory was opened from. */
const char *inv_path(const struct inv *inv);
/* What the database did for this process and every process it forked
 * after its first inv_open (a stage's workers, its rounds in follow mode),
 * summed over all their connections since then (counts.c). Always on: a
 * count is an atomic add in memory the forked processes share.
 * statements: SQL run, one per prepared statement executed (its first
 *   step after a reset) and one per text run whole (transaction control
 *   included);
 * round_trips: PostgreSQL: requests waited on from the server (a pipelined
 *   statement with its savepoint or lone transaction is one; preparing
 *   and deallocating are one each); SQLite, which has no server: calls
 *   into the library that compile or run SQL;
 * commits: transactions committed: COMMITs, and writes run outside a
 *   transaction (each its own);
 * rows_changed: rows inserted, updated or deleted (SQLite counts rows its
 *   triggers change too; PostgreSQL's inventory has no trigger that does);
 * rows_read: rows statements returned;
 * bytes_bound: the bytes of parameters bound (text and blobs by length,
 *   a number as 8): what a statement carries into the database. */
struct inv_db_counts {
	int64_t statements;
	int64_t round_trips;
	int64_t commits;
	int64_t rows_changed;
	int64_t rows_read;
	int64_t bytes_bound;
};
void inv_db_counts(struct inv_db_counts *ret);
/* The backend of an open inventory: "sqlite" or "postgresql" (static). */
const char *inv_backend_name(const struct inv *inv);
/* Copy what the write-ahead log holds into the database now, without
 * waiting on any writer (a passive checkpoint), so that closing the last
 * connection has little left to copy. 0 or BR_E_DB. */
int inv_checkpoint(struct inv *inv, struct br_err *err);
/* Checkpoint automatically once the write-ahead log holds this many pages
 * (SQLite's default 1000), or never (0): for a connection whose commits
 * must not wait on fsync while another connection checkpoints for it.
 * 0 or BR_E_DB. */
int inv_set_autocheckpoint(struct inv *inv, int pages, struct br_err *err);
int inv_schema_version(struct inv *inv);

/* A rack-manifest row as the import sees it (all strings borrowed). */
struct inv_manifest_row {
	const char *hostname;
	const char *rack;
	int unit;
	const char *bmc; /* host[:port] */
	const char *bmc_user;
	const char *bmc_password_ref; /* env:VAR or file:PATH, never a secret */
	const char *profile;
	const char *bmc_type;	      /* redfish, ipmi or auto */
	const char *boot_disk_serial; /* may be NULL */
	const char *notes;	      /* may be NULL */
	int line;		      /* in the manifest, for messages; 0 if unknown */
	const char *expected_serial;  /* the manifest's serial: system serial or service tag; may be NULL */
	const char *bmc_system; /* the manifest's system: which Redfish System is this host; may be NULL */
	const char *zone;	/* the manifest's zone: the management network or hall; may be NULL */
	/* the manifest's power_domain: the feed (PDU pair, busway) its supplies draw from; may be NULL */
	const char *power_domain;
};

struct inv_import_stats {
	size_t added, updated, unchanged, not_in_manifest;
};

/* Import rows in one transaction: new hostnames become state "new", changed
 * rows are updated with an event naming every changed field, identical rows
 * change nothing. source names the manifest in event reasons. A row whose
 * BMC another node holds in the inventory (a host renamed, a BMC moved) is
 * BR_E_INVAL with "SOURCE:LINE: bmc: ..." and nothing is imported. */
int inv_import(struct inv *inv, const struct inv_manifest_row *rows, size_t n, const char *source,
	       struct inv_import_stats *ret_stats, struct br_err *err);

struct inv_node {
	int64_t id;
	char *hostname, *rack, *bmc, *bmc_user, *bmc_password_ref, *bmc_type, *profile;
	char *boot_disk_serial, *notes;
	char *expected_serial; /* the manifest's serial column; NULL when it has none */
	char *bmc_system;      /* the manifest's system column (Id or @odata.id); NULL when it has none */
	char *zone;	       /* the manifest's zone column; NULL when it has none */
	char *power_domain;    /* the manifest's power_domain column; NULL when it has none */
	int unit;
	enum inv_state state;
	char *reason;
	enum br_fail_kind failure_kind; /* why it is failed; BR_FAIL_NONE in any other state */
	/* Times it went into failed or quarantined from another state, kept
	 * across reprovisioning (the machine's history); unretire resets it. */
	int attempts;
	char *system_serial, *service_tag, *model, *bios_version, *bmc_firmware, *power_state;
	char *maas_system_id, *ip;
	char *created_at, *updated_at;
};
void inv_node_release(struct inv_node *node);
void inv_nodes_free(struct inv_node *nodes, size_t n);

/* All nodes ordered by rack, unit, hostname. */
int inv_nodes_list(struct inv *inv, struct inv_node **ret_nodes, size_t *ret_n, struct br_err *err);
/* One node; BR_E_NOTFOUND when absent. */
int inv_node_get(struct inv *inv, const char *hostname, struct inv_node *ret_node, struct br_err *err);

/* Move a node from state `from` (the state the stage read) to `to` with a
 * reason (NULL allowed), recording an event: a compare-and-set. A node no
 * longer in `from` was moved by another run meanwhile: BR_E_STATE, the
 * current state named, and nothing changes. Setting the same state again
 * with the same reason records nothing. */
int inv_node_set_state(struct inv *inv, const char *hostname, enum inv_state from, enum inv_state to,
		       const char *reason, struct br_err *err);
/* inv_node_set_state to `failed`, with why as a kind (a failure set
 * through inv_node_set_state is BR_FAIL_STAGE). */
int inv_node_fail(struct inv *inv, const char *hostname, enum inv_state from, enum br_fail_kind kind,
		  const char *reason, struct br_err *err);
/* Whether a move from `from` to `to` ends an attempt (and counts in
 * nodes.attempts): into failed or quarantined from another state. */
int inv_transition_is_attempt(enum inv_state from, enum inv_state to);

/* Bring a retired node back to `new` with attempts 0, an event with
 * reason, and its open tickets closed, in one transaction. A node not
 * retired: BR_E_STATE, nothing changes. *ret_closed (may be NULL): how many
 * tickets were closed. */
int inv_node_unretire(struct inv *inv, const char *hostname, const char *reason, size_t *ret_closed,
		      struct br_err *err);

/* Store what a BMC reported, replacing the node's earlier BMC facts, and move
 * it from `from` to `to` with reason (compare-and-set as inv_node_set_state)
 * — one transaction. A node whose manifest serial is neither the system
 * serial nor the service tag the BMC reports (br_hw_serial_matches) is
 * stored and left `failed`, kind serial_mismatch, the reason naming both;
 * BR_E_EXISTS returns with that reason in err. A MAC another node's BMC claims too is judged on
 * evidence, never on who came first: a node whose BMC reports the
 * manifest's boot_disk_serial among its drives wins and the other fails;
 * with no such evidence, or on both, both fail, each reason naming both
 * BMCs. A node that loses is stored and left `failed` with the reason, and
 * BR_E_EXISTS returns with that reason in err. */
int inv_store_hw(struct inv *inv, const char *hostname, const struct br_hw *hw, enum inv_state from,
		 enum inv_state to, const char *reason, struct br_err *err);
/* inv_store_hw with the failure kind a move to failed records: a node
 * whose discovery failed keeps what names the machine (its serial, model,
 * BMC MAC) for tickets and status, failed as kind. */
int inv_store_hw_kind(struct inv *inv, const char *hostname, const struct br_hw *hw, enum inv_state from,
		      enum inv_state to, enum br_fail_kind kind, const char *reason, struct br_err *err);

/* Per-node leases: a stage holds the nodes it works so that two stages
 * (two operators, or configure beside enlist, or two controllers) never
 * work one node at once. A lease names its holder: stage, pid and host,
 * and ends at expires_at; the holder renews it while it works
 * (inv_leases_renew, every INV_LEASE_KEEPALIVE_S). A lease whose time is
 * up, or whose holder on this host is no longer running (its pid gone, or
 * now another process's), is taken over, and the node's history says so
 * ("lease taken over from stage S pid P on host H, expired at T").
 *
 * Fencing: each take by a new holder issues the node's next token (one
 * more than the last, kept across give-backs), which the lease carries.
 * While this process (or a worker forked from it) holds a token for a
 * node, every write to the node (state, facts, checks, events, probe,
 * MAAS identity) is checked against the lease in the write's transaction:
 * a lease no longer carrying the token is BR_E_STATE, "lease on HOST lost
 * to PID@HOST (token N)", and nothing is written, so a holder paused past
 * its expiry changes nothing its successor owns. */
/* Default time to live: a stage renews every INV_LEASE_KEEPALIVE_S, so
 * this is how long a holder on another host that vanished (one here is
 * seen dead at once) keeps its nodes; BRINGUP_LEASE_TTL (seconds, from
 * INV_LEASE_TTL_MIN_S to INV_LEASE_TTL_MAX_S) overrides it. */
#define INV_LEASE_TTL_S 300
#define INV_LEASE_TTL_MIN_S 2
#define INV_LEASE_TTL_MAX_S (7 * 86400)
#define INV_LEASE_KEEPALIVE_S 10

struct inv_lease {
	char *stage;
	long pid;
	char *host;
	int64_t expires_at; /* unix seconds */
	int64_t pid_start;  /* the holder's start time (clock ticks after boot), 0 if unknown */
	int64_t token;	    /* its fencing token (0: a lease from before tokens) */
};
void inv_lease_release(struct inv_lease *lease);

/* Take (or renew) the lease on hostname for `stage`, held by this process
 * on this host for ttl_s seconds, and read the node under it into
 * ret_node (the caller releases it). A live holder: BR_E_EXISTS with the
 * holder named in err and filled into ret_holder when not NULL (the caller
 * releases it); nothing changes. */
int inv_lease_take(struct inv *inv, const char *hostname, const char *stage, int ttl_s,
		   struct inv_node *ret_node, struct inv_lease *ret_holder, struct br_err *err);
/* Leases taken per transaction by inv_leases_take: one commit for many
 * nodes (a stage over 10,000 nodes made 10,000 before), while another
 * writer waits on no more than one batch. */
#define INV_LEASE_BATCH 256

/* One node's outcome: rc 0 and fresh, the node read under its new lease
 * (the callee owns it), or BR_E_EXISTS with why naming the live holder. */
typedef void (*inv_lease_fn)(void *ctx, size_t index, int rc, struct inv_node *fresh,
			     const struct br_err *why);
/* inv_lease_take for each of hostnames, INV_LEASE_BATCH to a transaction;
 * fn is called for a batch's nodes once it is committed. Another error (the
 * database, a node gone) rolls its batch back, stops, and is returned;
 * batches before it stand. */
int inv_leases_take(struct inv *inv, const char *const *hostnames, size_t n, const char *stage, int ttl_s,
		    inv_lease_fn fn, void *ctx, struct br_err *err);
/* Give back every lease this process holds. */
int inv_leases_give_back(struct inv *inv, struct br_err *err);
/* Give back this process's lease on one node (none held: 0), so that the
 * next stage may take it before this one is done with the rest. */
int inv_lease_give_back_node(struct inv *inv, const char *hostname, struct br_err *err);
/* Whether a live holder on this host yields its lease on node to this
 * process all the same (stages/stage.c: a stage of the same `bringup run`
 * that has moved the node on). Nonzero: it is taken over, logged. */
typedef int (*inv_lease_yield_fn)(void *ctx, const struct inv_lease *holder, const struct inv_node *node);
/* Set (fn NULL: clear) the yield rule of this connection's lease takes. */
void inv_lease_set_yield(struct inv *inv, inv_lease_yield_fn fn, void *ctx);
/* The fencing token this process holds hostname's lease with (0: none). */
int inv_lease_token(struct inv *inv, const char *hostname, int64_t *ret_token, struct br_err *err);
/* Extend every lease this process (or the stage process it was forked
 * from) holds to now + ttl_s: one statement. A lease another holder took
 * is not touched. *ret_n (may be NULL): how many were renewed. */
int inv_leases_renew(struct inv *inv, int ttl_s, size_t *ret_n, struct br_err *err);
/* The lease time to live stages use: BRINGUP_LEASE_TTL or INV_LEASE_TTL_S;
 * an unusable value is BR_E_INVAL naming it. */
int inv_lease_ttl(int *ret_ttl, struct br_err *err);
/* How often a holder with leases of ttl_s renews them: every
 * INV_LEASE_KEEPALIVE_S, or a third of ttl_s when that is shorter. */
int inv_lease_keepalive_ms(int ttl_s);

/* Redfish sessions held on nodes' BMCs (inventory/sessions.c): each
 * recorded by URI (the login's Location, never its token) before it is
 * used, removed once its DELETE was answered, so that the sessions of a
 * killed stage are known to the next one, which DELETEs them. A row names
 * the process that made it (pid, host, start time), as a lease does. */
struct inv_bmc_session {
	int64_t id;
	char *hostname;
	char *uri;
	int64_t opened_at; /* unix seconds */
};
/* Rows older than this are dropped unasked: DMTF's SessionService caps
 * SessionTimeout at 86400 s, so no BMC keeps an unused session longer. */
#define INV_BMC_SESSION_MAX_AGE_S 86400
/* Record (or, for a URI already recorded, take over) hostname's session uri
 * as this process's. */
int inv_bmc_session_add(struct inv *inv, const char *hostname, const char *uri, struct br_err *err);
/* Forget hostname's session uri (deleted on the BMC, or gone from it). */
int inv_bmc_session_remove(struct inv *inv, const char *hostname, const char *uri, struct br_err *err);
/* Sessions whose recording process is gone (on this host: rows of other
 * hosts are theirs to reclaim), in *ret (n in *ret_n; the caller frees with
 * inv_bmc_sessions_free); rows older than INV_BMC_SESSION_MAX_AGE_S are
 * deleted instead of returned. */
int inv_bmc_sessions_orphaned(struct inv *inv, struct inv_bmc_session **ret, size_t *ret_n,
			      struct br_err *err);
void inv_bmc_sessions_free(struct inv_bmc_session *s, size_t n);

/* Read back a node's stored BMC facts into hw (initialised here; the caller
 * releases it with br_hw_release). */
int inv_load_hw(struct inv *inv, const char *hostname, struct br_hw *hw, struct br_err *err);
/* Only some members of a node's stored facts (inventory/hwpart.c), parsed
 * as inv_load_hw parses them, with its errors, without parsing the rest of
 * the document: drives and volumes (what the boot-disk rule reads), or the
 * source and firmware inventory (what configure judges). */
int inv_load_hw_disks(struct inv *inv, const char *hostname, struct br_hw *hw, struct br_err *err);
int inv_load_hw_firmware(struct inv *inv, const char *hostname, struct br_hw *hw, struct br_err *err);
/* Every MAC with its role and source, and the resources the BMC could not
 * give (what status shows beside the host MACs). */
int inv_load_hw_nics(struct inv *inv, const char *hostname, struct br_hw *hw, struct br_err *err);
/* Only the switch neighbours the BMC showed of the host ports (neighbors,
 * neighbor_source): the cabling check before enlist, configure's choice
 * of the PXE port, validate's comparison with the OS's LLDP. */
int inv_load_hw_neighbors(struct inv *inv, const char *hostname, struct br_hw *hw, struct br_err *err);
/* Where the node's stored facts came from ("redfish", "ipmi"; *ret_source
 * NULL when none are stored; caller frees), without reading the document:
 * what a stage needs to pick the protocol before its workers start. */
int inv_hw_source(struct inv *inv, const char *hostname, char **ret_source, struct br_err *err);

/* Record the node's MAAS system_id and address (either may be NULL). */
/* The BMC credentials a node is reached with from now on: its user and
 * its password's reference (env:VAR or file:PATH; anything else is
 * BR_E_INVAL, so no secret can land here), with an event naming both the
 * old and the new. Unchanged values record nothing. */
int inv_node_set_bmc_credentials(struct inv *inv, const char *hostname, const char *user,
				 const char *password_ref, struct br_err *err);
/* The BMC user the node had before its credentials last became `user`
 * (from the event inv_node_set_bmc_credentials wrote): *ret_user (caller
 * frees), NULL when no such change is recorded. 0 or an error. */
int inv_node_bmc_user_before(struct inv *inv, const char *hostname, const char *user, char **ret_user,
			     struct br_err *err);
int inv_node_set_maas(struct inv *inv, const char *hostname, const char *system_id, const char *ip,
		      struct br_err *err);

/* Lowercase MACs of a node, sorted. Caller frees with br_strlist_release. */
int inv_node_macs(struct inv *inv, int64_t node_id, struct br_strlist *ret_macs, struct br_err *err);

struct inv_event {
	int64_t id;
	char *from_state; /* NULL for the first event */
	char *to_state;
	char *reason;
	char *at;
	char *hostname; /* inv_events_after: the node's; NULL from inv_node_events */
};
void inv_events_free(struct inv_event *events, size_t n);
int inv_node_events(struct inv *inv, const char *hostname, struct inv_event **ret_events, size_t *ret_n,
		    struct br_err *err);

/* ---- the site's events, as they are recorded (status --follow) ----------
 * Events with an id above after_id, oldest first, at most max, of the
 * nodes in one of the n_zones zones (none: every node's), with each node's
 * hostname. Caller frees with inv_events_free. */
#define INV_EVENTS_ZONES_MAX 16
int inv_events_after(struct inv *inv, int64_t after_id, char *const *zones, size_t n_zones, size_t max,
		     struct inv_event **ret_events, size_t *ret_n, struct br_err *err);
/* The newest event's id (0 when there is none). */
int inv_events_last(struct inv *inv, int64_t *ret_id, struct br_err *err);
/* Wait up to timeout_ms for another connection to record events: 1 when
 * told (PostgreSQL: the events trigger's NOTIFY), 0 when the time ran out
 * or this backend cannot be told (SQLite: the caller reads again after
 * each wait). The first call subscribes: call it with 0 before
 * inv_events_last, so that nothing recorded in between is missed. */
int inv_events_wait(struct inv *inv, int timeout_ms, struct br_err *err);

/* The state a failed node was failed from: the from_state of its latest
 * transition into `failed` from another state (it tells which stage failed
 * it, for rows older than failure kinds too); *ret_again is 1 when a later
 * failed -> failed event says a stage that took the failed node failed it
 * again. BR_E_NOTFOUND when no event says. */
int inv_node_failed_from(struct inv *inv, const char *hostname, enum inv_state *ret_from, int *ret_again,
			 struct br_err *err);

/* What an event of a node taken out of turn says first. */
#define INV_FORCED "forced (--force)"
/* From now on every event this process (and the workers it forks) records
 * for the node says INV_FORCED before its reason: a stage took it out of
 * turn. 0 or BR_E_NOTFOUND. */
int inv_node_forced(struct inv *inv, const char *hostname, struct br_err *err);

enum inv_check_result { INV_CHECK_PASS, INV_CHECK_FAIL, INV_CHECK_UNKNOWN };
const char *inv_check_result_name(enum inv_check_result r);

struct inv_check {
	char *name;
	enum inv_check_result result;
	char *detail;
	char *at;
	char *component; /* the one part it blames ("pci:0000:5d:00.0"), or NULL */
};
void inv_checks_free(struct inv_check *checks, size_t n);
/* Replace the node's results for the checks named in `stage` (a stage's
 * re-run supersedes its own earlier results only), in one transaction. */
int inv_checks_put(struct inv *inv, const char *hostname, const char *stage, const struct inv_check *checks,
		   size_t n, struct br_err *err);
/* One check of the node for stage, replacing its earlier result of that
 * name and leaving the stage's other checks as they are (a check judged
 * again when another node's facts came in). */
int inv_check_replace(struct inv *inv, const char *hostname, const char *stage, const struct inv_check *check,
		      struct br_err *err);
/* The node's latest check results, ordered by name. */
int inv_node_checks(struct inv *inv, int64_t node_id, struct inv_check **ret_checks, size_t *ret_n,
		    struct br_err *err);

/* The node's probe document (JSON text), replacing the earlier one. */
int inv_store_probe(struct inv *inv, const char *hostname, const char *doc, struct br_err *err);
/* The node's last probe document (caller frees); BR_E_NOTFOUND if none. */
int inv_load_probe(struct inv *inv, const char *hostname, char **ret_doc, struct br_err *err);
/* The disk serial the OS went on, as MAAS reported it after deploying. */
int inv_node_set_installed_disk(struct inv *inv, const char *hostname, const char *serial,
				struct br_err *err);
/* It back (caller frees; NULL when never recorded). */
int inv_node_installed_disk(struct inv *inv, const char *hostname, char **ret_serial, struct br_err *err);

/* Append an event to the node's history without changing its state or
 * reason: something a stage did outside the inventory (MAAS tags). */
int inv_node_note(struct inv *inv, const char *hostname, const char *what, struct br_err *err);

/* ---- verdicts (verdicts.c): a stage's outcome for many nodes at once ---- */

/* One node's outcome (strings borrowed): its probe document (NULL: left as
 * it is), its checks for the stage, replacing the stage's earlier ones
 * (checks NULL: left as they are), and the move of its state from `from`
 * (the state the stage read) to `to` with reason, a compare-and-set as
 * inv_node_set_state. All of a node is written, or none of it. */
struct inv_verdict {
	const char *hostname;
	const char *probe_doc;
	const struct inv_check *checks;
	size_t n_checks;
	enum inv_state from, to;
	enum br_fail_kind kind; /* why, when to is failed */
	const char *reason;
};
/* Nodes recorded per transaction by inv_verdicts_put: one commit for many
 * (a node a commit, twice, was most of recording a rack), while another
 * writer waits on no more than one batch. */
#define INV_VERDICT_BATCH 256

/* One node's outcome: rc 0 recorded, or why it was not (BR_E_STATE: another
 * run moved it; BR_E_NOTFOUND; a refused write), nothing of it written. */
typedef void (*inv_verdict_fn)(void *ctx, size_t index, int rc, const struct br_err *why);
/* Record each of verdicts for `stage`, INV_VERDICT_BATCH to a transaction;
 * fn (may be NULL) is called for a batch's nodes once it is committed. A
 * database error rolls its batch back, stops, and is returned; batches
 * before it stand. */
int inv_verdicts_put(struct inv *inv, const char *stage, const struct inv_verdict *verdicts, size_t n,
		     inv_verdict_fn fn, void *ctx, struct br_err *err);

/* ---- tickets (tickets.c): one per (node, fault), kept across runs -------- */

/* A fault as the tickets stage found it (strings borrowed). */
struct inv_fault {
	const char *fault;    /* check name or failed-stage cause */
	const char *evidence; /* seen vs expected, or the stage's reason */
	const char *action;   /* what a technician does */
	/* Evidence that carries timings (a stage's reason: "timed out after
	 * 15001 ms"): compared with runs of digits taken as equal, so a re-run
	 * that failed the same way leaves the ticket as it was. */
	int evidence_loose;
};

struct inv_ticket_stats {
	size_t opened, changed, unchanged, closed;
};

/* Make the node's open tickets exactly `faults`, in one transaction: a new
 * fault opens a ticket (a closed one with the same key is reopened), a
 * changed evidence or action updates it, a fault no longer present closes
 * it. Each change raises the ticket's version. Counts add to *stats. */
int inv_tickets_sync(struct inv *inv, const char *hostname, const struct inv_fault *faults, size_t n,
		     struct inv_ticket_stats *stats, struct br_err *err);
/* Close every open ticket of the node (it was repaired and promoted). */
int inv_tickets_close_node(struct inv *inv, const char *hostname, size_t *ret_closed, struct br_err *err);

/* ---- batched writes of many nodes (batch.c) --------------------------
 * A stage that judges a whole rack at once (gate) writes one transaction (one fsync-free
 * WAL commit) per batch of nodes instead of two or three per node. Each
 * node keeps its own outcome: a node another run moved meanwhile fails
 * alone (a savepoint per node), as with inv_node_set_state. */

/* Every listed node's latest check results (as inv_node_checks), read in
 * one read transaction: ret_checks[i] and ret_n[i] for ids[i]. On error
 * nothing is returned. */
int inv_checks_read_many(struct inv *inv, const int64_t *ids, size_t n, struct inv_check **ret_checks,
			 size_t *ret_n, struct br_err *err);

/* One node's verdict to record: the compare-and-set from -> to with its
 * reason (inv_node_set_state's rules), and, when close_tickets, every open
 * ticket of the node closed (inv_tickets_close_node's). */
struct inv_state_change {
	const char *hostname;
	enum inv_state from, to;
	const char *reason;
	int close_tickets;
	/* out */
	int rc;		       /* 0, or this node's error (in err) */
	struct br_err err;     /* why, when rc */
	int moved;	       /* the state was set (a ticket close may still have failed) */
	size_t tickets_closed; /* tickets closed */
};

/* Record n verdicts in one transaction. Returns non-zero only when the
 * transaction itself failed (then no verdict was recorded and each has
 * rc set); a single node's failure is in its own rc. */
int inv_state_changes_record(struct inv *inv, struct inv_state_change *v, size_t n, struct br_err *err);

/* inv_node_note for n nodes in one transaction: hostnames[i] gets the
 * event whats[i]; rcs[i] (may be NULL) is each node's outcome. Returns
 * non-zero when the transaction itself failed. */
int inv_notes_add(struct inv *inv, const char *const *hostnames, const char *const *whats, size_t n, int *rcs,
		  struct br_err *err);

struct inv_ticket {
	int64_t id;
	char *hostname, *rack;
	int unit;
	char *fault, *evidence, *action;
	int closed;
	char *opened_at, *closed_at, *updated_at;
	int64_t version, posted_version;
	/* What the ticket system called it when it was filed (Jira's issue
	 * key, ServiceNow's incident number, GitHub's OWNER/REPO#N); NULL
	 * until delivered, and with the webhook, which gives none back. */
	char *external_key;
};
void inv_tickets_free(struct inv_ticket *tickets, size_t n);
/* Tickets ordered by rack, unit, hostname, fault; closed ones only with
 * include_closed. */
int inv_tickets_list(struct inv *inv, int include_closed, struct inv_ticket **ret_tickets, size_t *ret_n,
		     struct br_err *err);
/* Record that the ticket's version reached the webhook. */
int inv_ticket_posted(struct inv *inv, int64_t id, int64_t version, struct br_err *err);
/* Record that t's version was filed in a ticket system, which calls it
 * external_key, in one transaction: inv_ticket_posted's record, the key in
 * the ticket's row and, when the row held another key or none, the node's
 * event "ticket FAULT filed as KEY" (once per key, not per version). */
int inv_ticket_filed(struct inv *inv, const struct inv_ticket *t, const char *external_key,
		     struct br_err *err);

/* ---- fork.c: the inventory across a worker pool's fork (common/pool.h) --- */

/* SQLite must not see a connection cross fork(): the caller's connection is
 * closed before the workers start and opened again once they run, and each
 * worker opens its own, which never checkpoints (an fsync on a worker's
 * loop held its BMCs). The parent checkpoints instead, each time
 * INV_FORK_CHECKPOINT_TARGETS more targets have reported and once all
 * have (every store is committed then), while the workers end, so the
 * caller's last close has little left to copy. With one worker the work
 * runs on the caller's connection, which checkpoints as it always does. */

/* ~31 KB of facts a target from discovery: ~4 MB of log, as often as
 * SQLite's own 1000 pages would. Left to the end, a 512-node discovery's
 * whole 16 MB would be copied while the last logouts are out, and past
 * them on a slow disk. */
#define INV_FORK_CHECKPOINT_TARGETS 128

struct br_pool_fork_hooks;

struct inv_fork {
	struct inv **inv; /* the caller's connection (borrowed); may change */
	char *path;	  /* its file, kept across the fork */
};
/* Set up f for the caller's *inv (open). */
void inv_fork_init(struct inv_fork *f, struct inv **inv);
void inv_fork_release(struct inv_fork *f);
/* The pool hooks doing the above, ctx f (borrowed for the pool's run): a
 * worker's data (br_pool_worker_data) is its connection, the caller's
 * with one worker. A failed reopen here stops the run and leaves *inv
 * NULL. */
void inv_fork_hooks(struct inv_fork *f, struct br_pool_fork_hooks *ret_hooks);

#endif
