/*
 * The enlist flow: one small state machine per machine, all on one MAAS
 * client loop. Every step starts from what MAAS says now (the machine's
 * status), never from what this process did before, which is what makes a
 * killed run converge when re-run: adopt by MAC, wait out a commissioning
 * or deploying machine, never deploy a Deployed one.
 */
#include <stdlib.h>
#include <string.h>

#include "enlist_private.h"

void stg_enlist_options_init(struct stg_enlist_options *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->max_parallel = 64;
	opts->poll_ms = 1000;
	opts->commission_timeout_ms = 30 * 60 * 1000;
	opts->deploy_timeout_ms = 60 * 60 * 1000;
	opts->distro_series = "jammy";
	opts->storage_layout = "flat";
	opts->events_max = STG_ENLIST_EVENTS_MAX;
}

void stg_enlist_job_release(struct stg_enlist_job *job)
{
	free(job->system_id);
	free(job->ip);
	free(job->installed_serial);
	job->system_id = job->ip = job->installed_serial = NULL;
}

void stg_enlist_finish(struct stg_enlist_slot *s, enum br_fail_kind kind, const char *fmt, ...)
{
	struct stg_enlist_flow *f = s->flow;
	struct br_buf reason;
	va_list ap;

	if (s->job->done)
		return;
	br_buf_init(&reason, BR_ERR_MSG_MAX);
	va_start(ap, fmt);
	br_buf_vaddf(&reason, fmt, ap);
	va_end(ap);
	s->job->done = 1;
	s->job->waiting = 0;
	f->active--;
	f->cb->on_done(f->ctx, s->job, kind, br_buf_str(&reason));
	br_buf_release(&reason);
	stg_enlist_start_more(f);
}

void stg_enlist_fail_result(struct stg_enlist_slot *s, const struct maas_result *res)
{
	stg_enlist_finish(s, BR_FAIL_MAAS_REFUSED, "%s",
			  res->err && res->err->msg[0] ? res->err->msg : br_strerror(res->rc));
}

void stg_enlist_sent(struct stg_enlist_slot *s, int rc, const char *doing)
{
	if (rc == BR_E_TOOBIG)
		stg_enlist_finish(s, BR_FAIL_MAAS_REFUSED,
				  "%s: cannot queue the request to MAAS (too much in flight)", doing);
	else if (rc)
		stg_enlist_finish(s, BR_FAIL_MAAS_REFUSED, "%s: MAAS request not sent: %s", doing,
				  br_strerror(rc));
}

/* Re-read the machine and act on its status: after a 409, after adopting. */
static void on_read(void *ctx, const struct maas_result *res)
{
	struct stg_enlist_slot *s = ctx;
	struct maas_machine m;
	struct br_err err = { 0 };

	if (res->rc == BR_E_NOTFOUND && s->job->lookups < STG_ENLIST_LOOKUPS_MAX) {
		/* Deleted in MAAS since we recorded it: find or create it again. */
		free(s->job->system_id);
		s->job->system_id = NULL;
		stg_enlist_lookup(s);
		return;
	}
	if (res->rc) {
		stg_enlist_fail_result(s, res);
		return;
	}
	if (maas_machine_parse(res->json, &m, &err)) {
		stg_enlist_finish(s, BR_FAIL_MAAS_REFUSED, "%s", err.msg);
		return;
	}
	stg_enlist_dispatch(s, &m);
	maas_machine_release(&m);
}

void stg_enlist_reread(struct stg_enlist_slot *s)
{
	stg_enlist_sent(s, maas_machine_get(s->flow->client, s->job->system_id, on_read, s),
			"reading the machine");
}

int stg_enlist_step_failed(struct stg_enlist_slot *s, const struct maas_result *res, const char *doing)
{
	if (!res->rc)
		return 0;
	/* A 409 means MAAS's view moved on (another actor, a retried request
	 * that went through): look again rather than fail. */
	if (res->rc == BR_E_STATE && ++s->job->lookups <= STG_ENLIST_LOOKUPS_MAX)
		stg_enlist_reread(s);
	else
		stg_enlist_finish(s, BR_FAIL_MAAS_REFUSED, "%s: %s", doing,
				  res->err && res->err->msg[0] ? res->err->msg : br_strerror(res->rc));
	return 1;
}

/* ---- waiting: one list request reads many waiting machines --------------- */

struct batch {
	struct stg_enlist_flow *flow;
	struct stg_enlist_slot *slots[STG_ENLIST_POLL_IDS_MAX];
	const char *ids[STG_ENLIST_POLL_IDS_MAX];
	size_t n;
};

static void wait_more(struct stg_enlist_slot *s);

static void on_poll(void *ctx, const struct maas_result *res)
{
	struct batch *b = ctx;
	size_t i;
	json_t *o;

	json_array_foreach(res->rc ? NULL : res->json, i, o)
	{
		const char *id = br_json_str(o, "system_id");
		struct maas_machine m;

		for (size_t k = 0; id && k < b->n; k++) {
			if (!b->slots[k] || strcmp(b->slots[k]->job->system_id, id))
				continue;
			if (!maas_machine_parse(o, &m, NULL)) {
				b->slots[k]->job->waiting = 0;
				stg_enlist_dispatch(b->slots[k], &m);
				maas_machine_release(&m);
			}
			b->slots[k] = NULL;
		}
	}
	/* Absent from the answer (deleted, or the poll failed): read one by one. */
	for (size_t k = 0; k < b->n; k++)
		if (b->slots[k]) {
			b->slots[k]->job->waiting = 0;
			if (res->rc)
				wait_more(b->slots[k]);
			else
				stg_enlist_reread(b->slots[k]);
		}
	free(b);
}

/* Whether a waiting machine's news asks for a read. MAAS writes an event
 * on every change of a machine's status (maas_event_new_status): when the
 * newest says the machine moved to a status stg_enlist_dispatch would only wait
 * in again, under the same limit (Commissioning -> Testing, Ready ->
 * Allocated -> Deploying), reading it would change nothing; a read left
 * out is taken by the limit's own read or the sweep as before. Any other
 * move is read, as is news without a status change: a MAAS that writes
 * no such events, or whose event we cannot read, is read as it always was.
 * Events that are not status changes say nothing of the status once a
 * status change is known (every change writes one). */
static int needs_read(const struct stg_enlist_slot *s)
{
	const struct stg_enlist_job *j = s->job;
	int64_t limit;

	if (j->changed)
		return 1;
	if (j->news_moved) {
		limit = stg_enlist_wait_limit(s, j->moved_to);
		return !limit || limit != j->wait_limit_ms;
	}
	return j->news_other;
}

/* Read the waiting machines (all, or those whose news asks for it) in list
 * requests of STG_ENLIST_POLL_IDS_MAX. */
static void read_waiting(struct stg_enlist_flow *f, int all)
{
	struct batch *b = NULL;

	for (size_t i = 0; i <= f->n; i++) {
		struct stg_enlist_slot *s = i < f->n ? &f->slots[i] : NULL;

		/* Only jobs waiting for a poll: one already in a batch still in
		 * flight (slower than poll_ms) would be dispatched twice. */
		if (s && (s->job->waiting != 1 || s->job->done))
			continue;
		if (s && !all && !needs_read(s)) {
			/* Judged: the machine is still where it waits. */
			s->job->news_other = s->job->news_moved = 0;
			continue;
		}
		if (b && (!s || b->n == STG_ENLIST_POLL_IDS_MAX)) {
			if (maas_machines_by_id(f->client, b->ids, b->n, on_poll, b)) {
				struct maas_result fake = { BR_E_TOOBIG, 0, NULL, "", NULL };

				on_poll(b, &fake);
			}
			b = NULL;
		}
		if (!s)
			break;
		if (!b) {
			b = br_xcalloc(1, sizeof(*b));
			b->flow = f;
		}
		b->ids[b->n] = s->job->system_id;
		b->slots[b->n++] = s;
		s->job->waiting = 2; /* in a batch: not polled twice */
		s->job->changed = s->job->news_other = s->job->news_moved = 0;
	}
}

static void schedule_tick(struct stg_enlist_flow *f);

static int cmp_slot_id(const void *a, const void *b)
{
	return strcmp((*(struct stg_enlist_slot *const *)a)->job->system_id,
		      (*(struct stg_enlist_slot *const *)b)->job->system_id);
}

/* Sort the unfinished slots that have a system_id into f->by_id; returns
 * how many. Rebuilt per events answer: ids come and go (create, a machine
 * deleted in MAAS), and n log n once beats a scan of every slot for every
 * event. */
static size_t index_slots(struct stg_enlist_flow *f)
{
	size_t n = 0;

	for (size_t i = 0; i < f->n; i++)
		if (f->slots[i].job->system_id && !f->slots[i].job->done)
			f->by_id[n++] = &f->slots[i];
	qsort(f->by_id, n, sizeof(*f->by_id), cmp_slot_id);
	return n;
}

/* What one event says of its machine's job (see needs_read). */
static void note_event(struct stg_enlist_job *j, json_t *e, json_int_t id)
{
	int st = maas_event_new_status(e);

	if (st == MAAS_EVENT_NOT_STATUS) {
		j->news_other = 1;
	} else if (st < 0) {
		j->changed = 1; /* a status change we cannot read: read the machine */
	} else if (!j->news_moved || id > j->moved_id) {
		j->news_moved = 1;
		j->moved_to = st;
		j->moved_id = id;
	}
}

/* New events since the last look name the machines whose status may have
 * moved: only those are read (and of those, only the ones whose move asks
 * for it: needs_read), so a rack of waiting machines costs one small
 * request per tick instead of every machine's whole document. */
static void on_events(void *ctx, const struct maas_result *res)
{
	struct stg_enlist_flow *f = ctx;
	json_t *events = json_object_get(res->json, "events"), *e;
	int all = res->rc || !json_is_array(events);
	int full = !all && json_array_size(events) >= (size_t)f->opts.events_max;
	int first = !f->events_seen;
	size_t i, n_ids = json_array_size(events) ? index_slots(f) : 0;

	f->looking = 0;
	f->events_seen = 1;
	json_array_foreach(json_is_array(events) ? events : NULL, i, e)
	{
		const char *node = br_json_str(e, "node");
		json_int_t id = (json_int_t)br_json_int(e, "id", 0);
		size_t lo = 0, hi = n_ids;

		if (id > f->last_event_id)
			f->last_event_id = id;
		if (!node)
			continue;
		while (lo < hi) { /* the first slot whose id is not below node */
			size_t mid = lo + (hi - lo) / 2;

			if (strcmp(f->by_id[mid]->job->system_id, node) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (; lo < n_ids && !strcmp(f->by_id[lo]->job->system_id, node); lo++)
			note_event(f->by_id[lo]->job, e, id);
	}
	/* A full look after the last id seen is the oldest events after it
	 * (src/maasserver/api/events.py EventsHandler.query orders by id from
	 * `after`): the rest are asked for at once, from the newest id seen,
	 * and nothing is missed. Two events a status change make a rack of
	 * 500 machines moving together fill one look. Past
	 * STG_ENLIST_EVENT_PAGES_MAX pages, every waiting machine is read. */
	if (full && !first && ++f->pages < STG_ENLIST_EVENT_PAGES_MAX &&
	    !maas_events_since(f->client, f->last_event_id, f->opts.events_max, on_events, f)) {
		f->looking = 1;
		return;
	}
	/* The first look only sets where events start (without `after` MAAS
	 * gives the newest): every waiting machine is read once then. A
	 * failed look, or one still full after the pages, reads them all. */
	read_waiting(f, all || full || first);
	schedule_tick(f);
}

static void poll_tick(void *ctx)
{
	struct stg_enlist_flow *f = ctx;

	f->poll_scheduled = 0;
	f->tick_ms = br_now_ms();
	/* A machine past its limit is read at the next tick, news or not: a
	 * stuck one is failed on time, not at the next sweep. */
	for (size_t i = 0; i < f->n; i++) {
		struct stg_enlist_job *j = f->slots[i].job;

		if (j->waiting == 1 && j->wait_since_ms && br_now_ms() - j->wait_since_ms > j->wait_limit_ms)
			j->changed = 1;
	}
	/* A periodic full read also re-checks timeouts of machines whose
	 * status never changes. Ticks alone made it every 2 s at a 100 ms
	 * poll: a whole document for every waiting machine, a third of the
	 * machines read in a 512-node run, for news the events already bring
	 * (and a machine past its limit is read above, sweep or not). */
	if (++f->ticks >= f->sweep_ticks + STG_ENLIST_SWEEP_TICKS &&
	    f->tick_ms - f->sweep_ms >= STG_ENLIST_SWEEP_MIN_MS) {
		f->sweep_ticks = f->ticks;
		f->sweep_ms = f->tick_ms;
		read_waiting(f, 1);
		schedule_tick(f);
		return;
	}
	f->looking = 1;
	f->pages = 0;
	if (maas_events_since(f->client, f->events_seen ? f->last_event_id : -1, f->opts.events_max,
			      on_events, f)) {
		struct maas_result fake = { BR_E_TOOBIG, 0, NULL, "", NULL };

		on_events(f, &fake);
	}
}

/* Ticks begin poll_ms apart, counted from the previous tick's start: a
 * tick's own events look and reads do not stretch the interval (they did,
 * by a MAAS round trip or two, making every wait longer than poll_ms).
 * The next tick is scheduled only once this one's events answer is in, so
 * never more than one events look is in flight; a MAAS slower than poll_ms
 * is asked again as soon as it answers, one look at a time. */
static void schedule_tick(struct stg_enlist_flow *f)
{
	int64_t delay = f->opts.poll_ms;

	if (f->tick_ms) {
		delay -= br_now_ms() - f->tick_ms;
		if (delay < 1)
			delay = 1;
	}
	for (size_t i = 0; i < f->n; i++)
		if (f->slots[i].job->waiting == 1 && !f->slots[i].job->done) {
			if (!f->poll_scheduled && !f->looking && !maas_after(f->client, delay, poll_tick, f))
				f->poll_scheduled = 1;
			return;
		}
}

static void wait_more(struct stg_enlist_slot *s)
{
	struct stg_enlist_flow *f = s->flow;

	s->job->waiting = 1;
	if (!s->job->wait_since_ms)
		s->job->wait_since_ms = br_now_ms();
	/* With a look in flight its answer schedules the next tick: a tick
	 * scheduled here too would send a second look beside it, from the
	 * same id, for the same events (a slow MAAS had several at once). */
	if (!f->poll_scheduled && !f->looking && !maas_after(f->client, f->opts.poll_ms, poll_tick, f))
		f->poll_scheduled = 1;
}

void stg_enlist_wait(struct stg_enlist_slot *s, const struct maas_machine *m, int64_t timeout_ms,
		     const char *stage, const char *until)
{
	if (s->job->wait_since_ms && br_now_ms() - s->job->wait_since_ms > timeout_ms) {
		stg_enlist_finish(s, BR_FAIL_TIME_LIMIT,
				  "%s" PROF_PAST_LIMIT "%lld s: MAAS machine %s still %s, waiting for %s%s%s",
				  stage, (long long)((timeout_ms + 999) / 1000), s->job->system_id,
				  maas_status_name(m->status), until, m->status_message ? ": " : "",
				  m->status_message ? m->status_message : "");
		return;
	}
	s->job->wait_limit_ms = timeout_ms;
	wait_more(s);
}

void stg_enlist_start_more(struct stg_enlist_flow *f)
{
	while (f->active < (size_t)f->opts.max_parallel && f->next < f->n) {
		struct stg_enlist_slot *s = &f->slots[f->next++];

		if (s->job->done)
			continue;
		f->active++;
		/* A machine we recorded before is read directly; otherwise
		 * MAAS is asked by MAC before anything is created. */
		if (s->job->system_id)
			stg_enlist_reread(s);
		else
			stg_enlist_lookup(s);
	}
}

int stg_enlist_run(struct maas_client *client, struct stg_enlist_job *jobs, size_t n,
		   const struct stg_enlist_options *opts, const struct stg_enlist_callbacks *cb, void *ctx,
		   struct br_err *err)
{
	struct stg_enlist_flow f = { 0 };
	int rc;

	f.client = client;
	f.opts = *opts;
	if (f.opts.max_parallel < 1)
		f.opts.max_parallel = 1;
	if (f.opts.poll_ms < 10)
		f.opts.poll_ms = 10;
	if (f.opts.events_max < 1 || f.opts.events_max > STG_ENLIST_EVENTS_MAX)
		f.opts.events_max = STG_ENLIST_EVENTS_MAX;
	f.cb = cb;
	f.ctx = ctx;
	f.sweep_ms = br_now_ms();
	f.n = n;
	f.slots = br_xcalloc(n ? n : 1, sizeof(*f.slots));
	f.by_id = br_xcalloc(n ? n : 1, sizeof(*f.by_id));
	for (size_t i = 0; i < n; i++)
		f.slots[i] = (struct stg_enlist_slot){ &f, &jobs[i] };
	stg_enlist_start_more(&f);
	rc = maas_client_run(client, err);
	free(f.by_id);
	free(f.slots);
	return rc;
}
