/*
 * gate — the last judgement: a `validated` node whose required checks all
 * pass becomes `golden`, any other is `quarantined` with the failing (or
 * unknown) checks as its reason, and MAAS is made to say the same: tag
 * `golden` or `quarantine` (the other removed), quarantined machines marked
 * broken with the reason, promoted ones marked fixed. Golden and
 * quarantined nodes are looked at again on every run, so MAAS converges
 * after a crash, and a run that finds everything in place sends nothing
 * that changes MAAS.
 *
 * Golden means proven. The required set is the profile's [gate] required
 * (names or shell patterns); when it is empty, every check the node has
 * and every check the profile's expectations give (val_checks_expected).
 * A required check must have run (a pattern: at least one of it) and
 * passed; an unknown blocks unless [gate] optional names it (a failure
 * always blocks). A profile that states no hardware expectations
 * (prof_check_provable) stops the gate with exit 2 before any node is
 * judged. The judgement is validators/rules_gate.c (val_gate_failing), which
 * the tickets stage shares, so a ticket is filed for
 * exactly what quarantined a node.
 *
 * Ownership: struct stg_gate_run owns its jobs (stg_gate_run_release); nodes are
 * borrowed from the stage.
 */
#ifndef STAGES_GATE_H
#define STAGES_GATE_H

#include "maas/maas.h"
#include "profile/profile.h"
#include "stage.h"

#define STG_GATE_TAG_GOLDEN "golden"
#define STG_GATE_TAG_QUARANTINE "quarantine"
#define STG_GATE_COMMENT_MAX 1000 /* characters of the reason sent as MAAS's comment */
/* Machines tagged (update_nodes) in one MAAS request. One request per
 * machine made a 512-node rack wait 16 rounds of the client's in-flight
 * cap; 200 keeps a rack of thousands to a handful of requests, each well
 * inside MAAS_IDS_PER_REQUEST_MAX (Django's field limit) and a short
 * database transaction on MAAS's side (one tag row per machine). */
#define STG_GATE_TAG_BATCH 200
/* Machines read (machines/?id=...) in one MAAS request. A machine's
 * document is the heaviest thing MAAS renders and the client parses (the
 * emulator took ~0.4 s for 128 in one answer on a loaded host): 50 to a
 * request, as enlist polls (STG_ENLIST_POLL_IDS_MAX), spreads that over
 * requests in parallel, and 512 machines are still one round of the
 * in-flight cap of 32. */
#define STG_GATE_READ_BATCH 50
/* Nodes whose verdicts (or MAAS events) are recorded in one inventory
 * transaction: a transaction per node made a 512-node gate spend its time
 * committing, and 256 keeps the write lock short for other stages (as
 * leases are taken). */
#define STG_GATE_INV_BATCH 256

/* The quarantine reason: "failed checks: pcie: DETAIL; thermal unknown:
 * DETAIL; not checked: psu". Caller frees. */
char *stg_gate_reason(const struct inv_check *checks, size_t n, const int *failing, const char *missing);

/* The longest line a read worker sends: the gate's part of one answer,
 * never longer than the answer (MAAS_BODY_MAX) it came from. */
#define STG_GATE_READ_LINE_MAX (MAAS_BODY_MAX + 1024u)
/* CPUs below which the reads stay in this process unless --workers says. */
#define STG_GATE_READ_WORKERS_MIN_CPUS 4

struct stg_gate_options {
	int no_maas;		  /* leave MAAS alone */
	int workers;		  /* processes reading MAAS (0: one per read batch up to the CPUs) */
	int no_mark_broken;	  /* tag only */
	struct maas_options maas; /* url and api_key set by the caller */
};

struct stg_gate_job {
	struct inv_node *node; /* borrowed */
	enum inv_state target; /* INV_GOLDEN or INV_QUARANTINED */
	char *reason;
	int moved; /* the state changed in this run */
	size_t tickets_closed;
	struct maas_machine machine;
	int have_machine;
	int status_queued;	  /* its status change (if any) was decided */
	const char *status_note;  /* "marked broken" / "marked fixed" when sent */
	struct br_buf maas_done;  /* what was changed in MAAS, "; "-separated */
	struct br_buf maas_error; /* what failed */
	int error;		  /* inventory or MAAS trouble: counted as failed */
};

struct stg_gate_run;

/* One batched request (a read or a tag update) and the jobs it is for. */
struct stg_gate_batch {
	struct stg_gate_run *run;
	size_t *jobs; /* indices into run->jobs */
	size_t n;
	const char *tag; /* the tag updated; NULL for a read */
	int add;	 /* add the tag (else remove) */
};

struct stg_gate_run {
	struct stg_stage *st; /* borrowed: told of what the inventory refused */
	struct inv *inv;
	struct maas_client *client; /* while mirroring; borrowed */
	struct stg_gate_batch **batches;
	size_t n_batches;
	struct stg_gate_job *jobs;
	size_t n, golden, quarantined, errors;
	struct stg_profiles profiles;
	int tags_have[2]; /* golden, quarantine exist in MAAS */
	char *tags_error;
	const struct stg_gate_options *options; /* while mirroring */
	int whoami_ok, tags_listed, tags_created, stop;
	size_t reads_left;    /* read batches not answered yet */
	size_t tags_creating; /* tag creations not answered yet */
	int tags_sent;	      /* the tag changes went out */
	char *whoami_error;
};

/* Judge and record every node, then mirror in MAAS; 0 or an exit code
 * that stops the stage (STG_EXIT_UNREACHABLE: MAAS or the inventory). */
int stg_gate_run(struct stg_stage *st, const struct stg_gate_options *o, struct stg_gate_run *run);
json_t *stg_gate_json(const void *run);
void stg_gate_print(const void *run);
void stg_gate_run_release(struct stg_gate_run *run);

#endif
