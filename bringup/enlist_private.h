/* What the enlist flow's two files share (enlist_flow.c: plumbing and
 * waiting; enlist_steps.c: the steps). */
#ifndef BRINGUP_ENLIST_PRIVATE_H
#define BRINGUP_ENLIST_PRIVATE_H

#include "enlist.h"

struct enlist_flow;

struct enlist_slot {
	struct enlist_flow *flow;
	struct enlist_job *job;
};

struct enlist_flow {
	struct maas_client *client;
	struct enlist_slot *slots;
	size_t n, next, active;
	struct enlist_options opts;
	const struct enlist_callbacks *cb;
	void *ctx;
	int poll_scheduled;
	int events_seen;       /* the first events look has been answered */
	int looking;	       /* an events look is in flight */
	unsigned pages;	       /* full looks paged on in this tick */
	int64_t last_event_id; /* newest MAAS event seen */
	unsigned ticks;
	unsigned sweep_ticks;	    /* ticks at the last full read */
	int64_t sweep_ms;	    /* when the last full read began (the run's start before one) */
	int64_t tick_ms;	    /* when the last poll tick began; 0: none yet */
	struct enlist_slot **by_id; /* slots with a system_id, sorted by it (on_events) */
};

/* Act on the machine's current status (enlist_steps.c). */
void enlist_dispatch(struct enlist_slot *s, const struct maas_machine *m);
/* The limit enlist_dispatch waits with in this status; 0 where it acts
 * (enlist_steps.c). */
int64_t enlist_wait_limit(const struct enlist_slot *s, int status);
/* Find the machine by MAC, adopt or create it (enlist_steps.c). */
void enlist_lookup(struct enlist_slot *s);

/* Start jobs up to max_parallel. */
void enlist_start_more(struct enlist_flow *f);
/* End a job, deployed (BR_FAIL_NONE) or failed for kind, with a reason;
 * starts the next one. */
void enlist_finish(struct enlist_slot *s, enum br_fail_kind kind, const char *fmt, ...) BR_PRINTF(3, 4);
void enlist_fail_result(struct enlist_slot *s, const struct maas_result *res);
/* After a typed MAAS call: rc nonzero (not queued) fails the job, saying
 * what it was doing. */
void enlist_sent(struct enlist_slot *s, int rc, const char *doing);
/* GET the machine again and dispatch on its status. */
void enlist_reread(struct enlist_slot *s);
/* 0 when res succeeded; else 1 once handled: a 409 re-reads the machine
 * (bounded), anything else fails the job with "doing: MAAS's reason". */
int enlist_step_failed(struct enlist_slot *s, const struct maas_result *res, const char *doing);
/* Wait for the status to change, or fail once timeout_ms has passed,
 * naming stage ("commissioning", "deployment") as where it was stuck. */
void enlist_wait(struct enlist_slot *s, const struct maas_machine *m, int64_t timeout_ms, const char *stage,
		 const char *until);

#endif
