/* The gate stage: golden or quarantined, in the inventory and in MAAS. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gate.h"
#include "loop.h"
#include "stages/workers.h"
#include "validators/rules.h"

char *stg_gate_reason(const struct inv_check *checks, size_t n, const int *failing, const char *missing)
{
	struct br_buf b;

	br_buf_init(&b, 0);
	for (size_t i = 0; i < n; i++) {
		if (!failing[i])
			continue;
		br_buf_addf(&b, "%s%s%s%s%s", b.len ? "; " : "failed checks: ", checks[i].name,
			    checks[i].result == INV_CHECK_UNKNOWN ? " unknown" : "",
			    checks[i].detail && *checks[i].detail ? ": " : "",
			    checks[i].detail ? checks[i].detail : "");
	}
	if (missing)
		br_buf_addf(&b, "%snot checked: %s", b.len ? "; " : "", missing);
	return br_buf_detach(&b);
}

/* ---- the inventory side ------------------------------------------------------- */

static void job_error(struct stg_gate_run *run, struct stg_gate_job *job, const char *what, const char *msg);

/* What the inventory refused of a job: a job error, and the stage's exit 3. */
static void inventory_error(struct stg_gate_run *run, struct stg_gate_job *job, const struct br_err *err)
{
	if (stg_inventory_refused(err))
		stg_stage_unwritable(run->st, 1, err->msg);
	job_error(run, job, "inventory", err->msg);
}

static void job_error(struct stg_gate_run *run, struct stg_gate_job *job, const char *what, const char *msg)
{
	if (!job->error)
		run->errors++;
	job->error = 1;
	br_buf_addf(&job->maas_error, "%s%s: %s", job->maas_error.len ? "; " : "", what, msg);
	br_log_node(BR_LOG_WARN, "gate", job->node->hostname, job->node->bmc, "%s: %s", what, msg);
}

/* A verdict for a validated node from its checks: the target state and
 * the reason (job->reason). */
static void verdict(struct stg_gate_run *run, struct stg_gate_job *job, const struct inv_check *checks,
		    size_t n)
{
	const struct prof_profile *profile;
	struct br_err err = { 0 };
	struct val_check *view;
	char *missing = NULL;
	int *failing;

	profile = stg_profiles_get(&run->profiles, job->node->profile, &err);
	if (!profile) {
		job_error(run, job, "profile", err.msg);
		return;
	}
	failing = br_xcalloc(n ? n : 1, sizeof(*failing));
	view = stg_checks_view_val(checks, n);
	if (val_gate_failing(profile, view, n, failing, &missing)) {
		job->target = INV_QUARANTINED;
		job->reason = stg_gate_reason(checks, n, failing, missing);
	} else {
		char *excused = val_gate_optional_unknown(profile, view, n);

		job->target = INV_GOLDEN;
		job->reason = excused ? br_xasprintf("every required check passed (%zu checks; optional, "
						     "unknown: %s)",
						     n, excused)
				      : br_xasprintf("every required check passed (%zu checks)", n);
		free(excused);
	}
	free(view);
	free(missing);
	free(failing);
}

/* Judge jobs[from, to): their checks read in one read transaction, their
 * verdicts recorded in one write transaction (each node still its own
 * compare-and-set from validated, and a golden node's tickets closed: a
 * repaired node's faults are gone, the tickets stage would close them too). */
static void judge_batch(struct stg_gate_run *run, size_t from, size_t to)
{
	size_t n = to - from, k = 0;
	int64_t *ids = br_xcalloc(n, sizeof(*ids));
	size_t *which = br_xcalloc(n, sizeof(*which)), *n_checks = br_xcalloc(n, sizeof(*n_checks));
	struct inv_check **checks = br_xcalloc(n, sizeof(*checks));
	struct inv_state_change *v = br_xcalloc(n, sizeof(*v));
	struct br_err err = { 0 };
	size_t n_v = 0;

	for (size_t i = from; i < to; i++) {
		struct stg_gate_job *job = &run->jobs[i];

		job->target = job->node->state;
		if (job->node->state != INV_VALIDATED)
			continue;
		which[k] = i;
		ids[k++] = job->node->id;
	}
	if (k && inv_checks_read_many(run->inv, ids, k, checks, n_checks, &err)) {
		for (size_t j = 0; j < k; j++)
			inventory_error(run, &run->jobs[which[j]], &err);
		k = 0;
	}
	for (size_t j = 0; j < k; j++) {
		struct stg_gate_job *job = &run->jobs[which[j]];

		verdict(run, job, checks[j], n_checks[j]);
		inv_checks_free(checks[j], n_checks[j]);
		if (job->target == INV_VALIDATED)
			continue;
		which[n_v] = which[j];
		v[n_v++] = (struct inv_state_change){ .hostname = job->node->hostname,
						      .from = INV_VALIDATED,
						      .to = job->target,
						      .reason = job->reason,
						      .close_tickets = job->target == INV_GOLDEN };
	}
	/* a transaction that could not commit gives each node its error */
	if (n_v)
		inv_state_changes_record(run->inv, v, n_v, &err);
	for (size_t j = 0; j < n_v; j++) {
		struct stg_gate_job *job = &run->jobs[which[j]];

		if (v[j].moved) {
			job->moved = 1;
			job->node->state = job->target;
			job->tickets_closed = v[j].tickets_closed;
		} else {
			job->target = INV_VALIDATED;
		}
		if (v[j].rc)
			inventory_error(run, job, &v[j].err);
	}
	free(v);
	free(checks);
	free(n_checks);
	free(which);
	free(ids);
}

/* ---- the MAAS side -------------------------------------------------------------- */

static int maas_wanted(const struct stg_gate_job *job)
{
	return (job->target == INV_GOLDEN || job->target == INV_QUARANTINED) && job->node->maas_system_id &&
	       *job->node->maas_system_id;
}

static void start_changes(struct stg_gate_run *run);
static void send_tags(struct stg_gate_run *run);

static void on_tags(void *ctx, const struct maas_result *res)
{
	struct stg_gate_run *run = ctx;
	json_t *t;
	size_t i;

	if (res->rc) {
		run->tags_error = br_xstrdup(res->err->msg);
		return;
	}
	json_array_foreach(res->json, i, t)
	{
		const char *name = br_json_str(t, "name");

		if (name && !strcmp(name, STG_GATE_TAG_GOLDEN))
			run->tags_have[0] = 1;
		if (name && !strcmp(name, STG_GATE_TAG_QUARANTINE))
			run->tags_have[1] = 1;
	}
	run->tags_listed = 1;
	start_changes(run);
}

static void on_tag_created(void *ctx, const struct maas_result *res)
{
	struct stg_gate_run *run = ctx;

	run->tags_creating--;
	if (res->rc && !run->tags_error)
		run->tags_error = br_xstrdup(res->err->msg);
	send_tags(run);
}

static void add_error(struct stg_gate_job *job, const char *what, const char *msg)
{
	br_buf_addf(&job->maas_error, "%s%s%s", job->maas_error.len ? "; " : "", what, msg);
}

static struct stg_gate_batch *batch_new(struct stg_gate_run *run, const char *tag, int add)
{
	struct stg_gate_batch *b = br_xcalloc(1, sizeof(*b));

	b->run = run;
	b->tag = tag;
	b->add = add;
	b->jobs = br_xcalloc(tag ? STG_GATE_TAG_BATCH : STG_GATE_READ_BATCH, sizeof(*b->jobs));
	run->batches = br_xrealloc(run->batches, (run->n_batches + 1) * sizeof(*run->batches));
	run->batches[run->n_batches++] = b;
	return b;
}

/* A read batch answered: the machines MAAS has of those asked for (list,
 * a JSON array), or the error that failed the read (why). Each machine is
 * matched to its job by system_id; a job left without one was not in
 * MAAS. */
static void batch_read(struct stg_gate_batch *b, json_t *list, const char *why)
{
	struct stg_gate_run *run = b->run;
	json_t *obj;
	size_t i;

	run->reads_left--;
	if (why) {
		for (size_t k = 0; k < b->n; k++)
			add_error(&run->jobs[b->jobs[k]], "read: ", why);
		send_tags(run);
		return;
	}
	json_array_foreach(list, i, obj)
	{
		struct maas_machine m = { 0 };
		struct br_err err = { 0 };
		struct stg_gate_job *job = NULL;

		if (maas_machine_parse(obj, &m, &err))
			continue;
		for (size_t k = 0; k < b->n && !job; k++) {
			struct stg_gate_job *j = &run->jobs[b->jobs[k]];

			if (!j->have_machine && !strcmp(j->node->maas_system_id, m.system_id))
				job = j;
		}
		if (!job) {
			maas_machine_release(&m);
			continue;
		}
		job->machine = m;
		job->have_machine = 1;
	}
	start_changes(run);
	for (size_t k = 0; k < b->n; k++) {
		struct stg_gate_job *job = &run->jobs[b->jobs[k]];

		if (!job->have_machine)
			br_buf_addf(&job->maas_error, "%sread: MAAS has no machine %s",
				    job->maas_error.len ? "; " : "", job->node->maas_system_id);
	}
}

static void on_machines(void *ctx, const struct maas_result *res)
{
	batch_read(ctx, res->json, res->rc ? res->err->msg : NULL);
}

/* ---- the reads in worker processes ------------------------------------------------ */

/* A 512-machine rack's reads are ~11 MB of JSON (22 KB a machine): one
 * process parsing them took ~280 ms on a 16-core bench host while the tag
 * changes waited for the last one. Worker processes (stages/workers.c) each
 * send their share of the same requests and parse the answers, handing
 * back only what the gate looks at, under MAAS's own names so that
 * maas_machine_parse reads it here as it reads MAAS. */
static const char *const read_keys[] = { "system_id",	"hostname", "status",
					 "status_name", "owner",    "tag_names" };

struct reader {
	struct br_pool_worker *w;
	size_t index; /* the batch, a pool target */
};

static void send_read_error(struct br_pool_worker *w, size_t index, int rc, const char *why)
{
	char *text = br_xstrdup_capped(why, STG_WORKER_TEXT_MAX);

	br_pool_send(w, index, json_pack("{s:i, s:s}", "rc", rc ? rc : BR_E_IO, "text", text));
	free(text);
}

static void on_worker_read(void *ctx, const struct maas_result *res)
{
	const struct reader *r = ctx;
	json_t *list, *obj;
	size_t i;

	if (res->rc) {
		send_read_error(r->w, r->index, res->rc, res->err->msg);
		return;
	}
	list = json_array();
	json_array_foreach(res->json, i, obj)
	{
		json_t *m = json_object();

		for (size_t k = 0; k < sizeof(read_keys) / sizeof(read_keys[0]); k++) {
			json_t *v = json_object_get(obj, read_keys[k]);

			if (v)
				json_object_set(m, read_keys[k], v);
		}
		json_array_append_new(list, m);
	}
	br_pool_send(r->w, r->index, json_pack("{s:i, s:o}", "rc", 0, "machines", list));
}

/* In a worker: read batches [first, first + count) on a MAAS client of its
 * own (the parent's loop is not this process's to run). */
static int read_work(struct br_pool_worker *w, size_t first, size_t count, void *ctx, struct br_err *err)
{
	const struct stg_gate_run *run = ctx;
	struct maas_options opts = run->options->maas;
	struct reader *readers = br_xcalloc(count, sizeof(*readers));
	struct maas_client *client = NULL;
	int rc;

	/* A worker left reading would outlive its gate by up to a timeout; it
	 * holds nothing to clean up (reads only). */
	br_pool_end_with_parent(w);
	opts.loop = NULL;
	if ((rc = maas_client_new(&opts, &client, err))) {
		free(readers);
		return rc;
	}
	for (size_t k = 0; k < count; k++) {
		const struct stg_gate_batch *b = run->batches[first + k];
		const char **ids = br_xcalloc(b->n, sizeof(*ids));
		int qrc;

		readers[k] = (struct reader){ w, first + k };
		for (size_t j = 0; j < b->n; j++)
			ids[j] = run->jobs[b->jobs[j]].node->maas_system_id;
		qrc = maas_machines_by_id(client, ids, b->n, on_worker_read, &readers[k]);
		free(ids);
		if (qrc)
			send_read_error(w, first + k, qrc, "cannot queue the request");
	}
	rc = maas_client_run(client, err);
	maas_client_free(client);
	free(readers);
	return rc;
}

/* Here: batch i's line from its worker, or why the worker sent none. */
static void read_done(size_t i, json_t *line, int rc, const char *why, void *ctx)
{
	struct stg_gate_run *run = ctx;
	json_t *rc_json = json_object_get(line, "rc");
	const char *text = json_string_value(json_object_get(line, "text"));

	if (!line)
		batch_read(run->batches[i], NULL, why ? why : br_strerror(rc));
	else if (!json_is_integer(rc_json) || json_integer_value(rc_json))
		batch_read(run->batches[i], NULL, text ? text : "the read worker sent no result");
	else
		batch_read(run->batches[i], json_object_get(line, "machines"), NULL);
}

/* Worker processes for the reads: --workers, else one per read batch up to
 * the CPUs where there are STG_GATE_READ_WORKERS_MIN_CPUS; one (or one batch)
 * reads in this process. A worker costs more CPU than the parse it takes
 * over (its start, the pages it copies from this one): on 2 CPUs, 124
 * machines read by 2 workers took ~400 ms of CPU against ~240 ms here and
 * did not finish sooner. */
static int read_workers(const struct stg_gate_options *o, size_t n_reads)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	size_t n = o->workers > 0			    ? (size_t)o->workers
		   : cpus >= STG_GATE_READ_WORKERS_MIN_CPUS ? (size_t)cpus
							    : 1;

	return (int)(n < n_reads ? n : n_reads);
}

static void on_tagged(void *ctx, const struct maas_result *res);

static void send_tag_batch(struct stg_gate_batch *b)
{
	struct stg_gate_run *run = b->run;
	const char **ids = br_xcalloc(b->n ? b->n : 1, sizeof(*ids));
	int rc;

	for (size_t k = 0; k < b->n; k++)
		ids[k] = run->jobs[b->jobs[k]].node->maas_system_id;
	rc = maas_tag_update(run->client, b->tag, b->add, ids, b->n, on_tagged, b);
	free(ids);
	for (size_t k = 0; rc && k < b->n; k++)
		br_buf_addf(&run->jobs[b->jobs[k]].maas_error, "%s%s tag %s: not sent: %s",
			    run->jobs[b->jobs[k]].maas_error.len ? "; " : "", b->add ? "add" : "remove",
			    b->tag, br_strerror(rc));
}

/* A batch's update_nodes answer. A failed request fails each of its
 * machines with MAAS's text, never the run. MAAS skips a system_id it no
 * longer knows without a word and counts only those it matched; a count
 * short of the batch is sorted out one machine at a time, so only the
 * missing machine is failed. */
static void on_tagged(void *ctx, const struct maas_result *res)
{
	struct stg_gate_batch *b = ctx;
	struct stg_gate_run *run = b->run;
	long long counted;

	if (res->rc) {
		for (size_t k = 0; k < b->n; k++)
			add_error(&run->jobs[b->jobs[k]], "", res->err->msg);
		return;
	}
	counted = (long long)br_json_int(res->json, b->add ? "added" : "removed", -1);
	if (counted < 0 || (size_t)counted >= b->n)
		return;
	if (b->n == 1) {
		struct stg_gate_job *job = &run->jobs[b->jobs[0]];

		br_buf_addf(&job->maas_error, "%sMAAS %s tag %s: it has no machine %s",
			    job->maas_error.len ? "; " : "", b->add ? "add" : "remove", b->tag,
			    job->node->maas_system_id);
		return;
	}
	for (size_t k = 0; k < b->n; k++) {
		struct stg_gate_batch *one = batch_new(run, b->tag, b->add);

		one->jobs[one->n++] = b->jobs[k];
		send_tag_batch(one);
	}
}

static void on_change(void *ctx, const struct maas_result *res)
{
	struct stg_gate_job *job = ctx;

	if (res->rc)
		br_buf_addf(&job->maas_error, "%s%s", job->maas_error.len ? "; " : "", res->err->msg);
}

/* MAAS lets only a machine's owner mark it broken, an admin included, and
 * nobody while it is unowned (src/maasserver/api/machines.py
 * MachineHandler.mark_broken raises MAASAPIForbidden, whose 403 carries no
 * text): say so, and who owns it, instead of a bare status. */
static void on_mark_broken(void *ctx, const struct maas_result *res)
{
	struct stg_gate_job *job = ctx;
	const struct maas_machine *m = &job->machine;

	if (!res->rc)
		return;
	if (res->status != 403) {
		on_change(ctx, res);
		return;
	}
	br_buf_addf(
	    &job->maas_error,
	    "%sMAAS refused to mark %s broken (HTTP 403): only the machine's owner may, and it is %s%s "
	    "(status %s), not this API key's user; leave it to its owner or use the owner's key",
	    job->maas_error.len ? "; " : "", m->system_id, m->owner && *m->owner ? "owned by " : "unowned",
	    m->owner && *m->owner ? m->owner : "", m->status_name ? m->status_name : "?");
}

static int has_tag(const struct maas_machine *m, const char *tag)
{
	for (size_t i = 0; i < m->tags.n; i++)
		if (!strcmp(m->tags.items[i], tag))
			return 1;
	return 0;
}

static void note(struct stg_gate_job *job, const char *what)
{
	br_buf_addf(&job->maas_done, "%s%s", job->maas_done.len ? "; " : "", what);
}

/* The batch of (tag, add) with room for one more job, opened if none. */
static struct stg_gate_batch *tag_batch(struct stg_gate_run *run, const char *tag, int add)
{
	for (size_t i = run->n_batches; i-- > 0;) {
		struct stg_gate_batch *b = run->batches[i];

		if (b->tag && !strcmp(b->tag, tag) && b->add == add && b->n < STG_GATE_TAG_BATCH)
			return b;
	}
	return batch_new(run, tag, add);
}

/* The status change that makes MAAS agree with the node's state, if any:
 * sent as soon as the machine is read (it depends on nothing else), noted
 * after the tag changes (queue_tags). */
static void queue_status(struct stg_gate_run *run, const struct stg_gate_options *o, struct stg_gate_job *job)
{
	const char *id = job->node->maas_system_id;
	int golden = job->target == INV_GOLDEN;

	job->status_queued = 1;
	if (golden && job->machine.status == MAAS_BROKEN && !maas_mark_fixed(run->client, id, on_change, job))
		job->status_note = "marked fixed";
	if (!golden && !o->no_mark_broken && job->machine.status != MAAS_BROKEN) {
		char *comment =
		    br_xstrdup_capped(job->reason ? job->reason : job->node->reason, STG_GATE_COMMENT_MAX);

		if (!maas_mark_broken(run->client, id, comment, on_mark_broken, job))
			job->status_note = "marked broken";
		free(comment);
	}
}

/* The tag changes that make MAAS agree with the node's state, into the
 * run's batches (sent by mirror), and what was done noted. */
static void queue_tags(struct stg_gate_run *run, size_t index)
{
	struct stg_gate_job *job = &run->jobs[index];
	int golden = job->target == INV_GOLDEN;
	const char *want = golden ? STG_GATE_TAG_GOLDEN : STG_GATE_TAG_QUARANTINE;
	const char *other = golden ? STG_GATE_TAG_QUARANTINE : STG_GATE_TAG_GOLDEN;
	struct stg_gate_batch *b;

	if (!has_tag(&job->machine, want)) {
		b = tag_batch(run, want, 1);
		b->jobs[b->n++] = index;
		note(job, golden ? "tagged golden" : "tagged quarantine");
	}
	if (has_tag(&job->machine, other)) {
		b = tag_batch(run, other, 0);
		b->jobs[b->n++] = index;
		note(job, golden ? "removed tag quarantine" : "removed tag golden");
	}
	if (job->status_note)
		note(job, job->status_note);
}

/* Once MAAS took the key (whoami) and listed its tags: the missing tags
 * created, and every machine read so far given its status change. Called
 * as each of those answers, so the changes overlap the reads still out. */
static void start_changes(struct stg_gate_run *run)
{
	static const char *const tags[] = { STG_GATE_TAG_GOLDEN, STG_GATE_TAG_QUARANTINE };

	if (!run->whoami_ok || !run->tags_listed || run->tags_error || run->stop)
		return;
	for (size_t t = 0; t < 2 && !run->tags_created; t++) {
		if (run->tags_have[t])
			continue;
		if (maas_tag_create(run->client, tags[t],
				    t ? "bringup: failed a required check; see the ticket"
				      : "bringup: passed every required check",
				    on_tag_created, run))
			run->tags_error = br_xasprintf("tag %s: cannot queue the request", tags[t]);
		else
			run->tags_creating++;
	}
	run->tags_created = 1;
	for (size_t i = 0; i < run->n && !run->tags_error; i++)
		if (run->jobs[i].have_machine && !run->jobs[i].status_queued)
			queue_status(run, run->options, &run->jobs[i]);
	send_tags(run);
}

/* Once every read has answered and the tags exist: the tag changes,
 * batched (a batch waits for every read, a tag must exist before machines
 * get it), sent from inside the loop. They depend on nothing else: not on
 * the status changes' answers, which a second run of the loop made them
 * wait for (a MAAS round trip more whenever a node was quarantined). */
static void send_tags(struct stg_gate_run *run)
{
	size_t first = run->n_batches;

	if (run->tags_sent || run->reads_left || !run->tags_created || run->tags_creating ||
	    run->tags_error || run->stop)
		return;
	run->tags_sent = 1;
	for (size_t i = 0; i < run->n; i++)
		if (run->jobs[i].have_machine)
			queue_tags(run, i);
	for (size_t i = first; i < run->n_batches; i++)
		send_tag_batch(run->batches[i]);
}

static void on_whoami(void *ctx, const struct maas_result *res)
{
	struct stg_gate_run *run = ctx;

	if (res->rc) {
		run->whoami_error = br_xstrdup(res->err->msg);
		return;
	}
	run->whoami_ok = 1;
	start_changes(run);
}

/* Every wanted machine into read batches, STG_GATE_READ_BATCH to a request:
 * the first batches of the run. */
static void make_reads(struct stg_gate_run *run)
{
	struct stg_gate_batch *b = NULL;

	for (size_t i = 0; i < run->n; i++) {
		if (!maas_wanted(&run->jobs[i]))
			continue;
		if (!b || b->n == STG_GATE_READ_BATCH)
			b = batch_new(run, NULL, 0);
		b->jobs[b->n++] = i;
	}
	run->reads_left = run->n_batches;
}

/* Read every wanted machine in this process. */
static int queue_reads(struct stg_gate_run *run)
{
	struct stg_gate_batch *b;
	int rc = 0;

	for (size_t i = 0; i < run->n_batches && !rc; i++) {
		const char **ids;

		b = run->batches[i];
		ids = br_xcalloc(b->n, sizeof(*ids));
		for (size_t k = 0; k < b->n; k++)
			ids[k] = run->jobs[b->jobs[k]].node->maas_system_id;
		rc = maas_machines_by_id(run->client, ids, b->n, on_machines, b);
		free(ids);
	}
	return rc;
}

/* Record what was done in MAAS and what failed, one event per node, one
 * transaction per STG_GATE_INV_BATCH nodes. */
static void record_maas(struct stg_gate_run *run, int warn)
{
	const char **hosts = br_xcalloc(STG_GATE_INV_BATCH, sizeof(*hosts));
	char **whats = br_xcalloc(STG_GATE_INV_BATCH, sizeof(*whats));
	int *rcs = br_xcalloc(STG_GATE_INV_BATCH, sizeof(*rcs));
	size_t n = 0;

	for (size_t i = 0; i <= run->n; i++) {
		struct stg_gate_job *job = i < run->n ? &run->jobs[i] : NULL;
		struct br_err err = { 0 };

		if (warn && job && job->maas_error.len && !job->error) {
			job->error = 1;
			run->errors++;
			br_log_node(BR_LOG_WARN, "gate", job->node->hostname, job->node->bmc, "MAAS: %s",
				    br_buf_str(&job->maas_error));
		}
		if (job && job->maas_done.len) {
			hosts[n] = job->node->hostname;
			whats[n++] = br_xasprintf("MAAS: %s%s%s", br_buf_str(&job->maas_done),
						  job->maas_error.len ? "; failed: " : "",
						  br_buf_str(&job->maas_error));
		}
		if (!n || (job && n < STG_GATE_INV_BATCH))
			continue;
		if (inv_notes_add(run->inv, hosts, (const char *const *)whats, n, rcs, &err)) {
			br_warn("gate", "MAAS events of %zu nodes not recorded: %s", n, err.msg);
			if (stg_inventory_refused(&err))
				stg_stage_unwritable(run->st, 0, err.msg);
		}
		for (size_t k = 0; k < n; k++) {
			if (rcs[k] && !err.msg[0])
				br_warn("gate", "%s: MAAS event not recorded", hosts[k]);
			free(whats[k]);
		}
		n = 0;
	}
	free(rcs);
	free(whats);
	free(hosts);
}

/* whoami, the tags listed and every machine read at once (STG_GATE_READ_BATCH
 * to a request); once the key and the tags are known, the missing tags
 * created and each machine's status change sent as its read answers; then,
 * as soon as the last read and the tags are in, the tag changes
 * (send_tags). */
static int mirror(struct stg_stage *st, const struct stg_gate_options *o, struct stg_gate_run *run)
{
	struct maas_client *client = NULL;
	struct maas_options opts = o->maas;
	struct br_loop *loop = NULL;
	struct br_err err = { 0 };
	size_t wanted = 0;
	int rc, workers;

	for (size_t i = 0; i < run->n; i++)
		wanted += (size_t)maas_wanted(&run->jobs[i]);
	if (!wanted || o->no_maas)
		return 0;
	run->options = o;
	make_reads(run);
	/* With workers, this process's requests (whoami, the tags) share the
	 * loop the pool hears the workers on, so they overlap the reads. */
	workers = read_workers(o, run->n_batches);
	if (workers > 1 && br_loop_new(&loop, &err))
		return stg_stage_fail(st, STG_EXIT_UNREACHABLE, "%s", err.msg);
	opts.loop = loop;
	if (maas_client_new(&opts, &client, &err)) {
		br_loop_free(loop);
		return stg_stage_fail(st, STG_EXIT_UNREACHABLE, "%s", err.msg);
	}
	run->client = client;
	rc = maas_whoami(client, on_whoami, run);
	if (!rc)
		rc = maas_tags_list(client, on_tags, run);
	if (!rc && workers <= 1)
		rc = queue_reads(run);
	if (rc) {
		run->stop = 1;
		rc = br_errf(&err, BR_E_UNREACHABLE, "MAAS: cannot queue the requests: %s", br_strerror(rc));
	}
	if (!rc && workers > 1) {
		const struct br_pool pool = { "gate",
					      "MAAS read",
					      run->n_batches,
					      workers,
					      STG_GATE_READ_LINE_MAX,
					      read_work,
					      read_done,
					      run,
					      NULL };

		/* nothing of this process's is on the wire yet: the fork is safe */
		rc = stg_pool_run_on(&st->inv, &pool, loop, &err);
		run->inv = st->inv;
		if (rc) {
			run->stop = 1;
			br_err_prefix(&err, "MAAS reads");
			rc = BR_E_UNREACHABLE;
		}
	}
	if (maas_client_run(client, rc ? NULL : &err) && !rc)
		rc = BR_E_UNREACHABLE;
	if (!rc && run->whoami_error)
		rc = br_errf(&err, BR_E_UNREACHABLE, "%s", run->whoami_error);
	if (!rc && run->tags_error)
		rc = br_errf(&err, BR_E_UNREACHABLE, "MAAS tags: %s", run->tags_error);
	run->client = NULL;
	maas_client_free(client);
	br_loop_free(loop);
	/* A run stopped here may still have changed a machine's status
	 * (sent once the key and the tags were known): that is recorded, and
	 * the tag changes too when they went out. */
	for (size_t i = 0; i < run->n && rc && !run->tags_sent; i++) {
		br_buf_release(&run->jobs[i].maas_done);
		br_buf_init(&run->jobs[i].maas_done, 0);
		br_buf_release(&run->jobs[i].maas_error);
		br_buf_init(&run->jobs[i].maas_error, 0);
		if (run->jobs[i].status_note)
			note(&run->jobs[i], run->jobs[i].status_note);
	}
	if (run->inv) /* NULL when the pool could not reopen it */
		record_maas(run, !rc);
	if (rc)
		return stg_stage_fail(st, STG_EXIT_UNREACHABLE, "%s", err.msg);
	return 0;
}

/* An operator's mistake, not a node's fault: every profile of a node to
 * be judged loads and can prove a node healthy, or the gate stops (exit
 * 2) before any node is judged, naming each profile file once. */
static int check_profiles(struct stg_stage *st, struct stg_gate_run *run)
{
	struct br_strlist seen = { 0 };
	int bad = 0;

	for (size_t i = 0; i < st->n; i++) {
		const struct inv_node *node = &st->nodes[i];
		const struct prof_profile *profile;
		struct br_err err = { 0 };
		int dup = 0;

		if (node->state != INV_VALIDATED)
			continue;
		for (size_t k = 0; k < seen.n && !dup; k++)
			dup = !strcmp(seen.items[k], node->profile);
		if (dup)
			continue;
		br_strlist_add(&seen, node->profile);
		profile = stg_profiles_get(&run->profiles, node->profile, &err);
		if (!profile || prof_check_provable(profile, &err)) {
			stg_stage_usage(st, "%s (node %s)", err.msg, node->hostname);
			bad = 1;
		}
	}
	br_strlist_release(&seen);
	return bad ? STG_EXIT_USAGE : 0;
}

int stg_gate_run(struct stg_stage *st, const struct stg_gate_options *o, struct stg_gate_run *run)
{
	int rc = check_profiles(st, run);

	if (rc)
		return rc;
	run->st = st;
	run->inv = st->inv;
	run->jobs = br_xcalloc(st->n ? st->n : 1, sizeof(*run->jobs));
	for (size_t i = 0; i < st->n; i++) {
		struct stg_gate_job *job = &run->jobs[run->n++];

		job->node = &st->nodes[i];
		br_buf_init(&job->maas_done, 0);
		br_buf_init(&job->maas_error, 0);
	}
	for (size_t i = 0; i < run->n; i += STG_GATE_INV_BATCH)
		judge_batch(run, i, i + STG_GATE_INV_BATCH < run->n ? i + STG_GATE_INV_BATCH : run->n);
	for (size_t i = 0; i < run->n; i++) {
		struct stg_gate_job *job = &run->jobs[i];

		run->golden += job->target == INV_GOLDEN;
		run->quarantined += job->target == INV_QUARANTINED;
		if (job->moved)
			br_log_node(BR_LOG_INFO, "gate", job->node->hostname, job->node->bmc, "%s: %s",
				    inv_state_name(job->target), job->reason);
	}
	return mirror(st, o, run);
}

json_t *stg_gate_json(const void *ctx)
{
	const struct stg_gate_run *run = ctx;
	json_t *nodes = json_array();

	for (size_t i = 0; i < run->n; i++) {
		const struct stg_gate_job *job = &run->jobs[i];

		json_array_append_new(
		    nodes,
		    json_pack(
			"{s:s, s:s, s:o, s:b, s:I, s:o, s:o}", "hostname", job->node->hostname, "state",
			inv_state_name(job->target), "reason",
			br_json_string_or_null(job->reason ? job->reason : job->node->reason), "changed",
			job->moved, "tickets_closed", (json_int_t)job->tickets_closed, "maas",
			br_json_string_or_null(job->maas_done.len ? br_buf_str(&job->maas_done) : NULL),
			"error",
			br_json_string_or_null(job->maas_error.len ? br_buf_str(&job->maas_error) : NULL)));
	}
	return json_pack("{s:o, s:I, s:I, s:I}", "nodes", nodes, "golden", (json_int_t)run->golden,
			 "quarantined", (json_int_t)run->quarantined, "errors", (json_int_t)run->errors);
}

void stg_gate_print(const void *ctx)
{
	static const char *const headers[] = { "HOSTNAME", "STATE", "MAAS", "REASON" };
	const struct stg_gate_run *run = ctx;
	struct br_table t;

	br_table_init(&t, 4, headers);
	for (size_t i = 0; i < run->n; i++) {
		const struct stg_gate_job *job = &run->jobs[i];

		br_table_add(&t, (const char *const[]){ job->node->hostname, inv_state_name(job->target),
							job->maas_error.len ? br_buf_str(&job->maas_error)
									    : br_buf_str(&job->maas_done),
							job->reason ? job->reason : job->node->reason });
	}
	br_table_print(&t, stdout);
	br_table_release(&t);
	printf("\n%zu golden, %zu quarantined, %zu with errors\n", run->golden, run->quarantined,
	       run->errors);
}

void stg_gate_run_release(struct stg_gate_run *run)
{
	for (size_t i = 0; i < run->n && run->jobs; i++) {
		free(run->jobs[i].reason);
		maas_machine_release(&run->jobs[i].machine);
		br_buf_release(&run->jobs[i].maas_done);
		br_buf_release(&run->jobs[i].maas_error);
	}
	for (size_t i = 0; i < run->n_batches; i++) {
		free(run->batches[i]->jobs);
		free(run->batches[i]);
	}
	free(run->batches);
	free(run->jobs);
	free(run->tags_error);
	free(run->whoami_error);
	stg_profiles_release(&run->profiles);
	memset(run, 0, sizeof(*run));
}
