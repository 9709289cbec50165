/* What the enlist flow's two files share (enlist_flow.c: plumbing and
 * waiting; enlist_steps.c: the steps). */
#ifndef STAGES_ENLIST_PRIVATE_H
#define STAGES_ENLIST_PRIVATE_H

#include "enlist.h"

struct stg_enlist_flow;

struct stg_enlist_slot {
	struct stg_enlist_flow *flow;
	struct stg_enlist_job *job;
};

struct stg_enlist_flow {
	struct maas_client *client;
	struct stg_enlist_slot *slots;
	size_t n, next, active;
	struct stg_enlist_options opts;
	const struct stg_enlist_callbacks *cb;
	void *ctx;
	int poll_scheduled;
	int events_seen;       /* the first events look has been answered */
	int looking;	       /* an events look is in flight */
	unsigned pages;	       /* full looks paged on in this tick */
	int64_t last_event_id; /* newest MAAS event seen */
	unsigned ticks;
	unsigned sweep_ticks;		/* ticks at the last full read */
	int64_t sweep_ms;		/* when the last full read began (the run's start before one) */
	int64_t tick_ms;		/* when the last poll tick began; 0: none yet */
	struct stg_enlist_slot **by_id; /* slots with a system_id, sorted by it (on_events) */
};

/* Act on the machine's current status (enlist_steps.c). */
void stg_enlist_dispatch(struct stg_enlist_slot *s, const struct maas_machine *m);
/* The limit stg_enlist_dispatch waits with in this status; 0 where it acts
 * (enlist_steps.c). */
int64_t stg_enlist_wait_limit(const struct stg_enlist_slot *s, int status);
/* Find the machine by MAC, adopt or create it (enlist_steps.c). */
void stg_enlist_lookup(struct stg_enlist_slot *s);

/* Start jobs up to max_parallel. */
void stg_enlist_start_more(struct stg_enlist_flow *f);
/* End a job, deployed (BR_FAIL_NONE) or failed for kind, with a reason;
 * starts the next one. */
void stg_enlist_finish(struct stg_enlist_slot *s, enum br_fail_kind kind, const char *fmt, ...)
    BR_PRINTF(3, 4);
void stg_enlist_fail_result(struct stg_enlist_slot *s, const struct maas_result *res);
/* After a typed MAAS call: rc nonzero (not queued) fails the job, saying
 * what it was doing. */
void stg_enlist_sent(struct stg_enlist_slot *s, int rc, const char *doing);
/* GET the machine again and dispatch on its status. */
void stg_enlist_reread(struct stg_enlist_slot *s);
/* 0 when res succeeded; else 1 once handled: a 409 re-reads the machine
 * (bounded), anything else fails the job with "doing: MAAS's reason". */
int stg_enlist_step_failed(struct stg_enlist_slot *s, const struct maas_result *res, const char *doing);
/* Wait for the status to change, or fail once timeout_ms has passed,
 * naming stage ("commissioning", "deployment") as where it was stuck. */
void stg_enlist_wait(struct stg_enlist_slot *s, const struct maas_machine *m, int64_t timeout_ms,
		     const char *stage, const char *until);

#endif
