/* The validate stage: collect each node's facts with bringup-probe over
 * SSH (or from a saved document), judge them, record the verdicts. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "validate.h"

#define VSTAGE_FACTS_MAX (16u << 20) /* a saved probe document */

static void finish(struct stg_validate_run *run, struct stg_validate_job *job, enum br_fail_kind kind,
		   char *reason_take)
{
	int ok = kind == BR_FAIL_NONE;

	job->done = 1;
	job->ok = ok;
	job->fail_kind = kind;
	free(job->reason);
	job->reason = reason_take;
	run->done++;
	run->failed += !ok;
	if (!ok)
		br_log_node(BR_LOG_WARN, "validate", job->node->hostname, job->node->bmc, "%s", job->reason);
	br_progress_item_done(&run->progress, (size_t)(job - run->jobs), ok);
}

static const char *const probe_sections[] = { "host", "clock",	 "pcie",       "gpus", "storage",
					      "cpu",  "thermal", "infiniband", "lldp", "dmesg" };

/* A probe document: a JSON object from a probe this bringup understands. */
static int take_document(struct stg_validate_job *job, const char *text, size_t len, const char *from,
			 char **ret_why)
{
	struct br_err err = { 0 };
	json_t *doc = br_json_parse_bounded(text, len, 0, VAL_PROBE_VALUES_MAX, &err), *v;

	if (!doc) {
		*ret_why = br_xasprintf("%s: not a probe document: %s", from, err.msg);
		return -1;
	}
	v = json_object_get(doc, "probe_version");
	if (!json_is_object(doc) || !json_is_integer(v) || json_integer_value(v) < 1) {
		*ret_why = br_xasprintf("%s: not a probe document (no probe_version)", from);
		json_decref(doc);
		return -1;
	}
	if (json_integer_value(v) > VAL_PROBE_VERSION) {
		*ret_why = br_xasprintf("%s: probe document version %lld is newer than this bringup (%d)",
					from, (long long)json_integer_value(v), VAL_PROBE_VERSION);
		json_decref(doc);
		return -1;
	}
	/* What every bringup-probe of version 1 on writes, each an object even
	 * where it read nothing (validators/probe.c): a document without one
	 * is not a probe's output, and judged, the rules that find no probe
	 * section fell back on the BMC's facts, a node passing 24 checks on a
	 * document holding only probe_version (issue 29). */
	for (size_t i = 0; i < sizeof(probe_sections) / sizeof(probe_sections[0]); i++)
		if (!json_is_object(json_object_get(doc, probe_sections[i]))) {
			*ret_why = br_xasprintf("%s: not a probe document (no '%s' section)", from,
						probe_sections[i]);
			json_decref(doc);
			return -1;
		}
	json_decref(job->probe);
	job->probe = doc;
	return 0;
}

/* Why the job's document is another machine's (val_identity_mismatch,
 * against the BMC's facts hw, NULL when none are stored), or NULL: it is
 * the node's, or nothing tells. Checked before anything is judged or
 * stored of it. */
static char *wrong_node_of(struct stg_validate_job *job, const struct br_hw *hw)
{
	char *why = NULL;

	val_identity_mismatch(job->probe, job->node->hostname, hw, &why);
	return why;
}

static char *wrong_node(struct inv *inv, struct stg_validate_job *job)
{
	struct br_hw hw;
	struct br_err err = { 0 };
	int have_hw = inv_load_hw(inv, job->node->hostname, &hw, &err) == 0;
	char *why;

	if (!have_hw)
		br_hw_init(&hw);
	why = wrong_node_of(job, have_hw ? &hw : NULL);
	br_hw_release(&hw);
	return why;
}

/* The job fails as wrong_node: its document is dropped, so nothing
 * (cabling over the rack included) is judged on it. */
static void fail_wrong_node(struct stg_validate_run *run, struct stg_validate_job *job, char *why_take)
{
	json_decref(job->probe);
	job->probe = NULL;
	free(job->probe_text);
	job->probe_text = NULL;
	finish(run, job, BR_FAIL_WRONG_NODE, why_take);
}

/* ---- collecting over SSH ------------------------------------------------------- */

struct collect {
	struct stg_validate_run *run;
	struct stg_validate_job **jobs; /* by target index */
	int64_t limit_ms;		/* every one of these nodes' validation limit */
	/* In an SSH worker (a fork: this is its copy): its own connection to
	 * the inventory, opened at its first node; the parent's is never
	 * used there. */
	const char *inv_path;
	struct inv *worker_inv;
	char *worker_inv_error; /* why it could not be opened */
};

static void judge_node(struct inv *inv, struct stg_validate_job *job);
static void judge_node_hw(struct inv *inv, struct stg_validate_job *job, struct br_hw *hw, int have_hw,
			  const char *no_hw);
static void take_checks(struct stg_validate_job *job, struct val_check *checks, size_t n);

/* The node's limit: --timeout, else its profile's [time_limits] validation. */
static int64_t limit_ms_of(const struct stg_validate_options *o, const struct stg_validate_job *job)
{
	return o->timeout_ms ? o->timeout_ms : job->profile->hw.limits.validation_s * 1000;
}

/* The last line of stderr, for a reason. */
static char *last_line(const struct br_buf *b)
{
	const char *s = br_buf_str(b), *end = s + strlen(s), *start;

	while (end > s && (end[-1] == '\n' || end[-1] == '\r'))
		end--;
	start = end;
	while (start > s && start[-1] != '\n')
		start--;
	return br_xstrndup(start, (size_t)(end - start) > 300 ? 300 : (size_t)(end - start));
}

/* The runner's times are monotonic: the wall clock at the middle of the
 * probe's run is what the node's clock is compared with. */
static void clock_window(struct stg_validate_job *job, const struct val_ssh_result *r)
{
	job->probe_ms =
	    br_wall_ms() - (br_now_ms() - (r->run_start_ms + (r->run_end_ms - r->run_start_ms) / 2));
	job->probe_window_ms = (r->run_end_ms - r->run_start_ms) / 2;
}

/* The probe's output as it is stored, when it is one line already (the
 * probe prints compact JSON when asked): dumping the ~130 KiB document
 * again was an eighth of a worker's time. NULL: the caller dumps the
 * parsed document compact. Only called on output that parsed. */
static char *compact_text(const struct br_buf *out)
{
	size_t len = out->len;

	while (len && (out->data[len - 1] == '\n' || out->data[len - 1] == '\r' || out->data[len - 1] == ' '))
		len--;
	if (!len || memchr(out->data, '\n', len) || memchr(out->data, '\r', len))
		return NULL;
	return br_xstrndup(out->data, len);
}

/* ---- judging in an SSH worker ------------------------------------------------------ */

/* A worker parses the node's document (~130 KiB), judges the node rules
 * with the BMC's facts and stores the document, all through its own
 * connection; what it sends back is a few KiB: the verdicts, the clock
 * window, and the LLDP part cabling needs (which needs the whole rack, so
 * is judged by the collecting process). A node it cannot take or store is
 * failed with the reason. Reply: {"ok":true, "probe_ms", "window_ms",
 * "checks":[[name, result, detail, component], ...], "lldp":{...}, "pcie":{...},
 * "infiniband":{"ports":[...]}} or {"ok":false,
 * "reason"}. */

/* o's string member key, a string or null. */
static json_t *string_member(json_t *o, const char *key)
{
	return br_json_string_or_null(json_string_value(json_object_get(o, key)));
}

/* The parts of the probe's "lldp" that lldp_view reads, as it reads them. */
/* The probe's PCIe functions by address only: what cabling needs to tell a
 * missing NIC from an unplugged cable (blame_missing_nic). */
static json_t *pcie_part(json_t *probe)
{
	json_t *devs = json_array(), *d;
	size_t i;

	json_array_foreach(br_json_path(probe, "pcie/devices"), i, d)
	{
		const char *bdf = br_json_str(d, "bdf");

		if (bdf)
			json_array_append_new(devs, json_pack("{s:s}", "bdf", bdf));
	}
	return json_pack("{s:s, s:o}", "status", "ok", "devices", devs);
}

/* The probe's InfiniBand ports as the fabric step reads them (which ports
 * ibnetdiscover runs on, whose fabric must be proven). */
static json_t *ib_part(json_t *probe)
{
	json_t *ports = json_array(), *p;
	size_t i;

	json_array_foreach(br_json_path(probe, "infiniband/ports"), i, p)
	{
		json_array_append_new(
		    ports, json_pack("{s:o, s:o, s:o, s:O}", "device", string_member(p, "device"), "port",
				     string_member(p, "port"), "link_layer", string_member(p, "link_layer"),
				     "state_code",
				     json_object_get(p, "state_code") ? json_object_get(p, "state_code")
								      : json_null()));
	}
	return json_pack("{s:o}", "ports", ports);
}

static json_t *lldp_part(json_t *probe)
{
	json_t *lldp = json_object_get(probe, "lldp"), *nbs = json_array(), *nb;
	size_t i;

	json_array_foreach(json_object_get(lldp, "neighbors"), i, nb)
	{
		json_array_append_new(nbs, json_pack("{s:o, s:o, s:o, s:o}", "local_port",
						     string_member(nb, "local_port"), "system_name",
						     string_member(nb, "system_name"), "port_id",
						     string_member(nb, "port_id"), "port_description",
						     string_member(nb, "port_description")));
	}
	return json_pack("{s:o, s:o}", "status", string_member(lldp, "status"), "neighbors", nbs);
}

/* Judge and store one node here; the reply document, or NULL with *why. */
static json_t *judge_in_worker(struct collect *c, struct stg_validate_job *job,
			       const struct val_ssh_result *r, char **why, int *inventory, int *wrong)
{
	struct br_err err = { 0 };
	json_t *checks, *reply;
	struct br_hw hw;
	char *text, *no_hw = NULL;
	int have_hw;

	if (take_document(job, r->out.data ? r->out.data : "", r->out.len, "bringup-probe's output", why))
		return NULL;
	clock_window(job, r);
	if (!c->worker_inv && !c->worker_inv_error && inv_open(c->inv_path, &c->worker_inv, &err))
		c->worker_inv_error = br_xstrdup(err.msg);
	if (!c->worker_inv) {
		*why = br_xasprintf("validation worker: %s", c->worker_inv_error);
		*inventory = 1;
		return NULL;
	}
	/* The BMC's facts, read once for the identity check and the rules. */
	have_hw = inv_load_hw(c->worker_inv, job->node->hostname, &hw, &err) == 0;
	if (!have_hw) {
		br_hw_init(&hw);
		no_hw = br_xstrdup(err.msg);
	}
	if ((*why = wrong_node_of(job, have_hw ? &hw : NULL))) {
		*wrong = 1;
		br_hw_release(&hw);
		free(no_hw);
		return NULL;
	}
	/* stored compact: the probe's own line, else the document dumped */
	text = compact_text(&r->out);
	if (!text)
		text = json_dumps(job->probe, JSON_COMPACT);
	if (!text || inv_store_probe(c->worker_inv, job->node->hostname, text, &err)) {
		*why = br_xasprintf("cannot store its facts: %s", text ? err.msg : "out of memory");
		*inventory = !text || stg_inventory_refused(&err);
		free(text);
		br_hw_release(&hw);
		free(no_hw);
		return NULL;
	}
	free(text);
	judge_node_hw(c->worker_inv, job, &hw, have_hw, no_hw);
	br_hw_release(&hw);
	free(no_hw);
	checks = json_array();
	for (size_t i = 0; i < job->n_checks; i++)
		json_array_append_new(checks, json_pack("[s, i, o, o]", job->checks[i].name,
							(int)job->checks[i].result,
							br_json_string_or_null(job->checks[i].detail),
							br_json_string_or_null(job->checks[i].component)));
	reply = json_pack("{s:b, s:I, s:I, s:o, s:o, s:o, s:o}", "ok", 1, "probe_ms",
			  (json_int_t)job->probe_ms, "window_ms", (json_int_t)job->probe_window_ms, "checks",
			  checks, "lldp", lldp_part(job->probe), "pcie", pcie_part(job->probe), "infiniband",
			  ib_part(job->probe));
	val_checks_free(job->checks, job->n_checks);
	job->checks = NULL;
	job->n_checks = 0;
	return reply;
}

static int in_worker(void *ctx, size_t index, const struct val_ssh_result *r, struct br_buf *reply)
{
	struct collect *c = ctx;
	struct stg_validate_job *job;
	json_t *doc;
	char *why = NULL, *text;
	int sent, inventory = 0, wrong = 0;

	if (!r) {
		inv_close(c->worker_inv);
		c->worker_inv = NULL;
		free(c->worker_inv_error);
		c->worker_inv_error = NULL;
		return 0;
	}
	/* A node that did not run the probe is told by the collecting
	 * process, as with no workers. */
	if (r->ms >= c->limit_ms || !r->ok || r->exit_status != 0)
		return 0;
	job = c->jobs[index];
	doc = judge_in_worker(c, job, r, &why, &inventory, &wrong);
	if (!doc)
		doc = json_pack("{s:b, s:s, s:b, s:b}", "ok", 0, "reason", why, "inventory", inventory,
				"wrong_node", wrong);
	free(why);
	json_decref(job->probe); /* this worker's copy; the parent gets the reply */
	job->probe = NULL;
	text = json_dumps(doc, JSON_COMPACT);
	json_decref(doc);
	/* a reply too big to send: the result goes as is, judged there */
	sent = text && !br_buf_adds(reply, text);
	free(text);
	return sent;
}

/* A worker's reply (above) onto the job. */
static int take_reply(struct stg_validate_job *job, const char *text, size_t len, char **ret_why,
		      enum br_fail_kind *ret_kind)
{
	json_t *doc = json_loadb(text, len, 0, NULL), *checks = json_object_get(doc, "checks"), *ch,
	       *lldp = json_object_get(doc, "lldp");
	size_t i;

	if (!json_is_true(json_object_get(doc, "ok"))) {
		const char *reason = json_string_value(json_object_get(doc, "reason"));

		*ret_why = br_xstrdup(reason ? reason : "validation worker: a reply that cannot be read");
		if (json_is_true(json_object_get(doc, "inventory")))
			job->unrecorded = br_xstrdup(*ret_why);
		if (json_is_true(json_object_get(doc, "wrong_node")))
			*ret_kind = BR_FAIL_WRONG_NODE;
		json_decref(doc);
		return -1;
	}
	json_array_foreach(checks, i, ch)
	{
		json_t *detail = json_array_get(ch, 2), *component = json_array_get(ch, 3);

		if (!json_is_string(json_array_get(ch, 0)))
			continue;
		val_check_add_take(&job->node_checks, &job->n_node_checks,
				   br_xstrdup(json_string_value(json_array_get(ch, 0))),
				   (enum val_result)json_integer_value(json_array_get(ch, 1)),
				   json_is_string(detail) ? br_xstrdup(json_string_value(detail)) : NULL);
		if (json_is_string(component))
			job->node_checks[job->n_node_checks - 1].component =
			    br_xstrdup(json_string_value(component));
	}
	json_decref(job->probe);
	job->probe =
	    json_pack("{s:O, s:O, s:O}", "lldp", lldp ? lldp : json_null(), "pcie",
		      json_object_get(doc, "pcie") ? json_object_get(doc, "pcie") : json_null(), "infiniband",
		      json_object_get(doc, "infiniband") ? json_object_get(doc, "infiniband") : json_null());
	job->probe_ms = json_integer_value(json_object_get(doc, "probe_ms"));
	job->probe_window_ms = json_integer_value(json_object_get(doc, "window_ms"));
	job->judged = 1;
	json_decref(doc);
	return 0;
}

static void on_collected(void *ctx, size_t index, const struct val_ssh_result *r)
{
	struct collect *c = ctx;
	struct stg_validate_job *job = c->jobs[index];
	enum br_fail_kind kind = BR_FAIL_PROBE;
	char *why = NULL;

	/* The runner bounds each step by the limit; the node's whole time is
	 * what the limit is about, so it is judged on that too. */
	if (r->ms >= c->limit_ms) {
		finish(c->run, job, BR_FAIL_TIME_LIMIT,
		       br_xasprintf("validation" PROF_PAST_LIMIT "%lld s: %s after %lld ms",
				    (long long)(c->limit_ms / 1000), r->ok ? "the probe ended" : r->error,
				    (long long)r->ms));
		return;
	}
	if (!r->ok) {
		finish(c->run, job, r->failure != BR_FAIL_NONE ? r->failure : BR_FAIL_STAGE,
		       br_xstrdup(r->error));
		return;
	}
	if (r->exit_status != 0) {
		char *line = last_line(&r->err);

		finish(c->run, job, BR_FAIL_PROBE,
		       br_xasprintf("bringup-probe exited with status %d on the node%s%s", r->exit_status,
				    *line ? ": " : "", line));
		free(line);
		return;
	}
	if (r->replied ? take_reply(job, r->out.data ? r->out.data : "", r->out.len, &why, &kind)
		       : take_document(job, r->out.data ? r->out.data : "", r->out.len,
				       "bringup-probe's output", &why)) {
		finish(c->run, job, kind, why);
		return;
	}
	if (!r->replied) {
		clock_window(job, r);
		free(job->probe_text);
		job->probe_text = compact_text(&r->out);
	}
	br_log_node(BR_LOG_INFO, "validate", job->node->hostname, job->node->bmc,
		    "facts collected in %lld ms%s", (long long)r->ms,
		    r->uploaded ? " (probe copied over)" : "");
}

/* Nodes of one limit together (stable: the rack's order within each), so
 * each limit is one run of the SSH runner; a rack of one profile is one. */
static void sort_by_limit(const struct stg_validate_options *o, struct val_ssh_target *targets,
			  struct stg_validate_job **jobs, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		struct val_ssh_target t = targets[i];
		struct stg_validate_job *job = jobs[i];
		size_t k = i;

		for (; k > 0 && limit_ms_of(o, jobs[k - 1]) > limit_ms_of(o, job); k--) {
			targets[k] = targets[k - 1];
			jobs[k] = jobs[k - 1];
		}
		targets[k] = t;
		jobs[k] = job;
	}
}

/* Where each node is reached: its ssh_config entry, else the address MAAS
 * gave it. Each node has its profile's time limit (validation). */
static int collect_ssh(struct stg_stage *st, const struct stg_validate_options *o,
		       struct stg_validate_run *run)
{
	struct val_ssh_config *cfg = NULL;
	struct val_ssh_target *targets = br_xcalloc(run->n ? run->n : 1, sizeof(*targets));
	struct val_ssh_host *hosts = br_xcalloc(run->n ? run->n : 1, sizeof(*hosts));
	struct val_ssh_host *found = br_xcalloc(run->n ? run->n : 1, sizeof(*found));
	const char **names = br_xcalloc(run->n ? run->n : 1, sizeof(*names));
	size_t n_names = 0;
	struct val_ssh_result *results = br_xcalloc(run->n ? run->n : 1, sizeof(*results));
	struct stg_validate_job **jobs = br_xcalloc(run->n ? run->n : 1, sizeof(*jobs));
	struct val_ssh_options so;
	struct br_err err = { 0 };
	static const char *const args[] = { "--json", "--compact", NULL };
	char *db_path = br_xstrdup(inv_path(run->inv));
	int64_t connect_ms;
	size_t n = 0;
	int rc = 0;

	if (o->ssh_config && val_ssh_config_load(o->ssh_config, &cfg, &err)) {
		rc = stg_stage_usage(st, "%s", err.msg);
		goto out;
	}
	/* Every node's settings at once (ssh -G side by side); a proxy command
	 * the runner cannot take is the operator's file: stop before any node
	 * is touched. */
	for (size_t i = 0; i < run->n; i++)
		if (!run->jobs[i].done)
			names[n_names++] = run->jobs[i].node->hostname;
	if (val_ssh_config_lookup_all(cfg, names, n_names, found, &err)) {
		rc = stg_stage_usage(st, "%s", err.msg);
		goto out;
	}
	for (size_t i = 0, k = 0; i < run->n; i++) {
		struct stg_validate_job *job = &run->jobs[i];
		struct val_ssh_host *h = &hosts[n];

		if (job->done)
			continue;
		*h = found[k];
		memset(&found[k++], 0, sizeof(found[0]));
		if (!h->hostname && !(job->node->ip && *job->node->ip)) {
			val_ssh_host_release(h);
			finish(run, job, BR_FAIL_SSH_UNREACHABLE,
			       br_xstrdup("no address to reach it: MAAS gave none at deploy, and no ssh "
					  "config entry names it"));
			continue;
		}
		if (h->user && o->ssh_user && strcmp(h->user, o->ssh_user))
			br_log_node(BR_LOG_DEBUG, "validate", job->node->hostname, job->node->bmc,
				    "user %s from the ssh config", h->user);
		targets[n] =
		    (struct val_ssh_target){ job->node->hostname, h->hostname ? h->hostname : job->node->ip,
					     h->port, h->proxy_jump };
		jobs[n++] = job;
	}
	val_ssh_options_init(&so);
	so.user = o->ssh_user ? o->ssh_user : "ubuntu";
	so.private_key = o->ssh_key;
	so.known_hosts = o->known_hosts;
	so.ssh_config = o->ssh_config;
	so.host_keys = o->host_keys;
	so.upload = o->probe;
	so.limit_option = "--time-limit";
	so.args = args;
	if (o->parallel > 0)
		so.max_parallel = o->parallel;
	/* One user for all: per-host User lines are honoured only when they
	 * agree, since the runner logs in as one account everywhere. */
	if (n && hosts[0].user && !o->ssh_user)
		so.user = hosts[0].user;
	free(run->ssh_user);
	run->ssh_user = br_xstrdup(so.user);
	/* A key, known_hosts or user that cannot work stops the stage here,
	 * every node as it was: one failure and one ticket per node sent a
	 * technician to the network for the operator's mistake. */
	if (run->n && val_ssh_preflight(&so, &err))
		rc = stg_stage_usage(st, "%s", err.msg);
	connect_ms = so.connect_timeout_ms;
	sort_by_limit(o, targets, jobs, n);
	for (size_t start = 0, end; start < n && !rc; start = end) {
		struct collect c = { .run = run,
				     .jobs = jobs + start,
				     .limit_ms = limit_ms_of(o, jobs[start]),
				     .inv_path = db_path };
		int workers;

		for (end = start + 1; end < n && limit_ms_of(o, jobs[end]) == c.limit_ms; end++)
			;
		so.run_timeout_ms = c.limit_ms;
		/* a node that takes the connection and never speaks is stuck too */
		so.connect_timeout_ms = connect_ms < c.limit_ms ? connect_ms : c.limit_ms;
		workers = o->workers ? o->workers : val_ssh_workers_auto(end - start);
		if (workers > 1)
			br_debug("validate", "%zu nodes over %d SSH workers", end - start,
				 workers < (int)(end - start) ? workers : (int)(end - start));
		/* No SQLite connection may cross fork(): the workers open their
		 * own; ours is closed while they run (collecting needs none) and
		 * opened again for the recording. */
		if (workers > 1 && end - start > 1) {
			inv_close(run->inv);
			run->inv = st->inv = NULL;
		}
		if (val_ssh_run_workers(targets + start, end - start, &so, workers, results + start,
					in_worker, on_collected, &c, &err))
			rc = stg_stage_usage(st, "%s", err.msg);
		if (!run->inv) {
			if (inv_open(db_path, &run->inv, &err))
				rc = stg_stage_fail(st, STG_EXIT_UNREACHABLE, "%s", err.msg);
			st->inv = run->inv;
		}
	}
out:
	for (size_t i = 0; i < n; i++) {
		val_ssh_result_release(&results[i]);
		val_ssh_host_release(&hosts[i]);
	}
	val_ssh_config_free(cfg);
	free(db_path);
	free(targets);
	free(hosts);
	free(found);
	free(names);
	free(results);
	free(jobs);
	return rc;
}

/* One document for the one named node, or a directory of HOSTNAME.json
 * documents for the named (or selected) nodes. A saved document has no
 * controller clock beside it: the clock check is unknown, never a pass. */
static int collect_file(struct stg_stage *st, const struct stg_validate_options *o,
			struct stg_validate_run *run)
{
	struct br_err err = { 0 };
	int dir = br_is_dir(o->facts_file);

	if (!dir && run->n != 1)
		return stg_stage_usage(
		    st, "--facts FILE judges one node: name it (bringup validate --facts FILE HOST), "
			"or give a directory of HOSTNAME.json documents");
	for (size_t i = 0; i < run->n; i++) {
		struct stg_validate_job *job = &run->jobs[i];
		char *path = dir ? br_xasprintf("%s/%s.json", o->facts_file, job->node->hostname)
				 : br_xstrdup(o->facts_file);
		char *text = NULL, *why = NULL;
		size_t len;

		if (br_read_file(path, VSTAGE_FACTS_MAX, &text, &len, &err)) {
			free(path);
			if (!dir)
				return stg_stage_usage(st, "%s", err.msg);
			finish(run, job, BR_FAIL_PROBE, br_xasprintf("no saved facts: %s", err.msg));
			continue;
		}
		if (take_document(job, text, len, path, &why)) {
			free(text);
			free(path);
			if (!dir) {
				br_error("validate", "%s", why);
				free(why);
				return st->exit = STG_EXIT_USAGE;
			}
			finish(run, job, BR_FAIL_PROBE, why);
			continue;
		}
		job->probe_ms = 0;
		free(text);
		free(path);
	}
	return 0;
}

/* ---- judging ---------------------------------------------------------------------- */

static const char *jstr(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

/* One host's LLDP view from its probe document; neighbours point into it. */
static void lldp_view(const char *hostname, json_t *probe, struct val_cabling_host *h,
		      struct val_lldp_neighbor **store)
{
	json_t *lldp = json_object_get(probe, "lldp"), *nbs = json_object_get(lldp, "neighbors"), *nb;
	size_t i;

	memset(h, 0, sizeof(*h));
	h->hostname = hostname;
	h->lldp_seen = jstr(lldp, "status") && !strcmp(jstr(lldp, "status"), "ok");
	*store = br_xcalloc(json_array_size(nbs) ? json_array_size(nbs) : 1, sizeof(**store));
	json_array_foreach(nbs, i, nb)(*store)[i] =
	    (struct val_lldp_neighbor){ jstr(nb, "local_port"), jstr(nb, "system_name"), jstr(nb, "port_id"),
					jstr(nb, "port_description") };
	h->neighbors = *store;
	h->n = json_array_size(nbs);
}

/* The rack's views: this run's nodes first, then what earlier runs stored
 * for the others, so re-validating one node still tells a swap with a
 * neighbour validated before. */
struct views {
	struct val_cabling_host *hosts;
	struct val_lldp_neighbor **stores;
	json_t **docs;	      /* stored documents loaded here (owned) */
	struct inv_node *all; /* the inventory's nodes, for their names */
	size_t n, n_docs, n_all;
};

static int in_run(const struct stg_validate_run *run, const char *hostname)
{
	for (size_t i = 0; i < run->n; i++)
		if (!strcmp(run->jobs[i].node->hostname, hostname))
			return 1;
	return 0;
}

static void views_build(struct stg_validate_run *run, struct views *v)
{
	struct br_err err = { 0 };
	size_t cap;

	memset(v, 0, sizeof(*v));
	if (inv_nodes_list(run->inv, &v->all, &v->n_all, &err))
		br_warn("validate", "cannot read the other nodes' facts: %s", err.msg);
	cap = run->n + v->n_all + 1;
	v->hosts = br_xcalloc(cap, sizeof(*v->hosts));
	v->stores = br_xcalloc(cap, sizeof(*v->stores));
	v->docs = br_xcalloc(cap, sizeof(*v->docs));
	for (size_t i = 0; i < run->n; i++)
		if (run->jobs[i].probe) {
			lldp_view(run->jobs[i].node->hostname, run->jobs[i].probe, &v->hosts[v->n],
				  &v->stores[v->n]);
			v->n++;
		}
	for (size_t i = 0; i < v->n_all; i++) {
		char *text = NULL;
		json_t *doc;

		if (in_run(run, v->all[i].hostname) ||
		    inv_load_probe(run->inv, v->all[i].hostname, &text, &err))
			continue;
		doc = json_loads(text, 0, NULL);
		free(text);
		if (!doc)
			continue;
		v->docs[v->n_docs++] = doc;
		lldp_view(v->all[i].hostname, doc, &v->hosts[v->n], &v->stores[v->n]);
		v->n++;
	}
}

static void views_release(struct views *v)
{
	for (size_t i = 0; i < v->n; i++)
		free(v->stores[i]);
	for (size_t i = 0; i < v->n_docs; i++)
		json_decref(v->docs[i]);
	inv_nodes_free(v->all, v->n_all);
	free(v->stores);
	free(v->docs);
	free(v->hosts);
}

/* nic_count, ib_ports short of a port, and gpudirect_rdma's GPU left
 * without its switch's NIC cannot tell which NIC is gone; the silent
 * cabling port can. */
static void blame_nic_count(struct val_check *checks, size_t n, const char *component)
{
	for (size_t k = 0; k < n; k++) {
		int unnamed = !checks[k].component || !strcmp(checks[k].component, VAL_PART_FABRIC_NICS);

		if (checks[k].result != VAL_FAIL || !unnamed)
			continue;
		if (!strcmp(checks[k].name, "nic_count") || !strcmp(checks[k].name, "ib_ports") ||
		    (!strcmp(checks[k].name, "gpudirect_rdma") && checks[k].component)) {
			free(checks[k].component);
			checks[k].component = br_xstrdup(component);
		}
	}
}

/* A fabric NIC that is not on PCIe leaves its wiring ports silent: the
 * cabling and nic_count checks then both blame that NIC's PCIe device, so
 * they are one ticket ("reseat or replace the NIC"), not a missing NIC and
 * an unplugged cable (job->missing_nic, given to nic_count once the node's
 * own checks are in). Only when every cabling problem is a port with no
 * neighbour whose name (systemd's enp<bus>s<slot>…) places it on one PCIe
 * device the probe does not list. */
static void blame_missing_nic(struct stg_validate_job *job, const struct val_cabling_result *r,
			      struct val_check *cabling)
{
	json_t *devs = br_json_path(job->probe, "pcie/devices"), *d;
	char dev[16] = "", one[16];
	size_t i;

	if (r->result != VAL_FAIL || !r->n || !json_is_array(devs))
		return;
	for (size_t k = 0; k < r->n; k++) {
		const struct val_cable_finding *fnd = &r->findings[k];

		if (fnd->kind != VAL_CABLE_MISSING || val_ifname_pci_device(fnd->local_port, one) ||
		    (dev[0] && strcmp(dev, one)))
			return;
		memcpy(dev, one, sizeof(dev));
	}
	json_array_foreach(devs, i, d)
	{
		const char *bdf = br_json_str(d, "bdf");

		/* It is there: the cable it is. Blamed on the NIC's function all
		 * the same, so the port's own checks of the same cable (ib_ports:
		 * the HCA port down) join this ticket. */
		if (bdf && !strncasecmp(bdf, dev, strlen(dev)) && bdf[strlen(dev)] == '.') {
			cabling->component = br_xasprintf("pci:%s", bdf);
			return;
		}
	}
	cabling->component = br_xasprintf("pci:%s", dev);
	free(job->missing_nic);
	job->missing_nic = br_xstrdup(cabling->component);
}

/* Check cabling_views: the BMC's switch neighbours (discovery's) against
 * the OS's LLDP (the probe's), port by port; none where either shows
 * nothing to compare (validators/cabling_bmc.c). */
static void compare_views(struct stg_validate_run *run, struct stg_validate_job *job)
{
	json_t *lldp = json_object_get(job->probe, "lldp"), *nbs = json_object_get(lldp, "neighbors"), *nb;
	struct val_os_neighbor *os;
	struct val_bmc_cabling mapped = { 0 };
	struct val_bmc_view v;
	enum val_result result;
	char *detail = NULL;
	struct br_hw hw;
	size_t i, n = 0;

	if (!jstr(lldp, "status") || strcmp(jstr(lldp, "status"), "ok") ||
	    inv_load_hw_neighbors(run->inv, job->node->hostname, &hw, NULL))
		return;
	os = br_xcalloc(json_array_size(nbs) ? json_array_size(nbs) : 1, sizeof(*os));
	json_array_foreach(nbs, i, nb) os[n++] =
	    (struct val_os_neighbor){ jstr(nb, "local_port"), jstr(nb, "chassis_id"), jstr(nb, "system_name"),
				      jstr(nb, "port_id"), jstr(nb, "port_description") };
	v = (struct val_bmc_view){ job->node->hostname, hw.neighbor_source, hw.neighbors, hw.n_neighbors };
	if (run->have_wiring)
		val_bmc_cabling_build(&run->wiring, run->have_switches ? &run->switches : NULL, &v, &mapped);
	if (!val_bmc_views_compare(&v, run->have_wiring ? &mapped : NULL,
				   run->have_switches ? &run->switches : NULL, os, n, &result, &detail))
		val_check_add_take(&job->checks, &job->n_checks, br_xstrdup("cabling_views"), result, detail);
	val_bmc_cabling_release(&mapped);
	free(os);
	br_hw_release(&hw);
}

/* The node's stored check name, if any (*ret the caller's). */
static int stored_check(struct inv *inv, const char *hostname, const char *name, struct inv_check *ret)
{
	struct inv_check *checks = NULL;
	struct inv_node node;
	size_t n = 0;
	int found = 0;

	if (inv_node_get(inv, hostname, &node, NULL))
		return 0;
	if (!inv_node_checks(inv, node.id, &checks, &n, NULL))
		for (size_t i = 0; i < n && !found; i++)
			if (!strcmp(checks[i].name, name)) {
				*ret = checks[i];
				memset(&checks[i], 0, sizeof(checks[i]));
				found = 1;
			}
	inv_checks_free(checks, n);
	inv_node_release(&node);
	return found;
}

/* A node validated in an earlier round (bringup run's flow) or run was
 * judged without the views of nodes not yet deployed: a port that landed
 * on such a node's designed port was a wrong port then, and is one half of
 * a swap once that node's view is in. Each partner a finding of this
 * round names, judged before, is judged again among every view now and
 * its failing cabling check replaced where it says more. */
static void rejudge_partners(struct stg_validate_run *run, struct views *v, const struct br_strlist *partners)
{
	for (size_t i = 0; i < partners->n; i++) {
		const char *host = partners->items[i];
		struct inv_check stored = { 0 };
		struct val_cabling_result r;
		size_t k;

		for (k = 0; k < v->n && strcasecmp(v->hosts[k].hostname, host); k++)
			;
		if (k >= v->n || !stored_check(run->inv, host, "cabling", &stored))
			continue;
		val_cabling_judge(&run->wiring, &v->hosts[k], v->hosts, v->n, &r);
		if (stored.result == INV_CHECK_FAIL && r.result == VAL_FAIL &&
		    strcmp(stored.detail ? stored.detail : "", r.detail)) {
			struct inv_check check = stored;
			struct br_err err = { 0 };

			check.detail = r.detail;
			if (inv_check_replace(run->inv, host, "validate", &check, &err))
				br_error("validate", "%s: %s", host, err.msg);
			else
				br_info("validate", "%s: cabling judged again with this round's views: %s",
					host, r.detail);
		}
		val_cabling_result_release(&r);
		free(stored.name);
		free(stored.detail);
		free(stored.at);
		free(stored.component);
	}
}

static void add_partners(struct stg_validate_run *run, const struct val_cabling_result *r,
			 struct br_strlist *partners)
{
	for (size_t i = 0; i < r->n; i++) {
		const char *other = r->findings[i].other_host;
		int have = 0;

		if (!other || in_run(run, other))
			continue;
		for (size_t k = 0; k < partners->n && !have; k++)
			have = !strcasecmp(partners->items[k], other);
		if (!have)
			br_strlist_add(partners, other);
	}
}

static void judge_cabling(struct stg_validate_run *run)
{
	struct br_strlist partners = { 0 };
	struct views v;

	if (run->have_wiring)
		views_build(run, &v);
	for (size_t i = 0, k = 0; i < run->n; i++) {
		struct stg_validate_job *job = &run->jobs[i];
		struct val_cabling_result r;

		if (!job->probe)
			continue;
		if (!run->have_wiring) {
			val_check_add_take(
			    &job->checks, &job->n_checks, br_xstrdup("cabling"), VAL_UNKNOWN,
			    br_xstrdup("no wiring list given (--wiring FILE or $BRINGUP_WIRING)"));
			continue;
		}
		/* views[k] is this job's: the run's nodes come first, in order. */
		val_cabling_judge(&run->wiring, &v.hosts[k++], v.hosts, v.n, &r);
		val_check_add_take(&job->checks, &job->n_checks, br_xstrdup("cabling"), r.result, r.detail);
		r.detail = NULL;
		blame_missing_nic(job, &r, &job->checks[job->n_checks - 1]);
		add_partners(run, &r, &partners);
		val_cabling_result_release(&r);
	}
	for (size_t i = 0; i < run->n; i++)
		if (run->jobs[i].probe)
			compare_views(run, &run->jobs[i]);
	if (run->have_wiring) {
		rejudge_partners(run, &v, &partners);
		views_release(&v);
	}
	br_strlist_release(&partners);
	stg_validate_fabric_checks(run);
}

/* Move verdicts onto the job's list; frees the array. */
static void take_checks(struct stg_validate_job *job, struct val_check *checks, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		val_check_add_take(&job->checks, &job->n_checks, checks[i].name, checks[i].result,
				   checks[i].detail);
		job->checks[job->n_checks - 1].component = checks[i].component;
		checks[i].name = checks[i].detail = checks[i].component = NULL;
	}
	val_checks_free(checks, n);
}

/* The node rules over the probe's and the BMC's facts, and the firmware
 * policy over the BMC's inventory. */
static void judge_node(struct inv *inv, struct stg_validate_job *job)
{
	struct br_hw hw;
	struct br_err err = { 0 };
	int have_hw = inv_load_hw(inv, job->node->hostname, &hw, &err) == 0;

	if (!have_hw)
		br_hw_init(&hw);
	judge_node_hw(inv, job, &hw, have_hw, err.msg);
	br_hw_release(&hw);
}

/* The node rules and firmware on the BMC's facts hw (have_hw 0: none
 * could be read, no_hw says why; hw is empty). hw stays the caller's. */
static void judge_node_hw(struct inv *inv, struct stg_validate_job *job, struct br_hw *hw, int have_hw,
			  const char *no_hw)
{
	struct val_check *more = NULL;
	size_t n_more = 0;
	struct val_node_facts facts = { 0 };
	struct br_err err = { 0 };
	char *installed = NULL;

	if (!have_hw)
		br_log_node(BR_LOG_WARN, "validate", job->node->hostname, job->node->bmc, "no BMC facts: %s",
			    no_hw ? no_hw : "");
	if (inv_node_installed_disk(inv, job->node->hostname, &installed, &err))
		installed = NULL;
	facts.probe = job->probe;
	facts.bmc = have_hw ? hw : NULL;
	/* The disk MAAS says it installed on; a manifest pin when MAAS was
	 * never asked (nodes validated without enlist). */
	facts.deployed_disk_serial = installed ? installed : job->node->boot_disk_serial;
	facts.controller_ms = job->probe_ms;
	facts.controller_uncertainty_ms = job->probe_window_ms;
	val_judge_node(job->profile, &facts, &more, &n_more);
	take_checks(job, more, n_more);
	more = NULL;
	n_more = 0;
	val_firmware_judge(job->profile, hw, &more, &n_more);
	take_checks(job, more, n_more);
	free(installed);
}

/* ---- recording ---------------------------------------------------------------------- */

static char *verdict(struct stg_validate_job *job)
{
	struct br_buf failing;
	char *reason;

	br_buf_init(&failing, 0);
	job->fails = job->unknowns = 0;
	for (size_t i = 0; i < job->n_checks; i++) {
		if (job->checks[i].result == VAL_FAIL) {
			br_buf_addf(&failing, "%s%s", job->fails ? ", " : "", job->checks[i].name);
			job->fails++;
		}
		job->unknowns += job->checks[i].result == VAL_UNKNOWN;
	}
	reason = br_xasprintf("%zu checks: %zu passed, %zu failed, %zu unknown%s%s", job->n_checks,
			      job->n_checks - job->fails - job->unknowns, job->fails, job->unknowns,
			      job->fails ? "; failing: " : "", job->fails ? br_buf_str(&failing) : "");
	br_buf_release(&failing);
	return reason;
}

/* The jobs the verdicts are of, by verdict. */
struct recording {
	struct stg_validate_run *run;
	size_t *job_of;
	char *heard; /* by verdict: its batch was committed */
};

static void unrecorded(struct stg_validate_run *run, struct stg_validate_job *job, const char *msg)
{
	if (!job->unrecorded)
		job->unrecorded = br_xstrdup(msg);
	if (!run->inventory_error)
		run->inventory_error = br_xstrdup(msg);
}

static void on_recorded(void *ctx, size_t index, int rc, const struct br_err *why)
{
	struct recording *r = ctx;
	struct stg_validate_job *job = &r->run->jobs[r->job_of[index]];

	r->heard[index] = 1;
	if (!rc)
		return;
	br_error("validate", "%s: %s", job->node->hostname, why->msg);
	if (stg_inventory_refused(why))
		unrecorded(r->run, job, why->msg);
}

/* Every node's verdict, many to a transaction: a node's facts (when they
 * were not stored in a worker), checks and state together or not at all. */
static void record(struct stg_validate_run *run)
{
	size_t cap = run->n ? run->n : 1, n = 0;
	struct inv_verdict *v = br_xcalloc(cap, sizeof(*v));
	struct inv_check **checks = br_xcalloc(cap, sizeof(*checks));
	char **texts = br_xcalloc(cap, sizeof(*texts));
	struct recording r = { run, br_xcalloc(cap, sizeof(*r.job_of)), br_xcalloc(cap, 1) };
	struct br_err err = { 0 };

	for (size_t i = 0; i < run->n; i++) {
		struct stg_validate_job *job = &run->jobs[i];

		v[n] = (struct inv_verdict){ .hostname = job->node->hostname,
					     .from = job->node->state,
					     .to = job->ok ? INV_VALIDATED : INV_FAILED,
					     .kind = job->fail_kind,
					     .reason = job->reason };
		if (job->ok && !job->judged) { /* judged in a worker: stored there */
			texts[n] = job->probe_text ? NULL : json_dumps(job->probe, JSON_COMPACT);
			v[n].probe_doc = job->probe_text ? job->probe_text : texts[n];
			if (!v[n].probe_doc) {
				br_log_node(BR_LOG_ERROR, "validate", job->node->hostname, job->node->bmc,
					    "cannot store its facts: out of memory");
				unrecorded(run, job, "cannot store its facts: out of memory");
				continue;
			}
		}
		if (job->ok) {
			checks[n] = stg_checks_from_val(job->checks, job->n_checks);
			v[n].checks = checks[n];
			v[n].n_checks = job->n_checks;
		}
		r.job_of[n++] = i;
	}
	if (inv_verdicts_put(run->inv, "validate", v, n, on_recorded, &r, &err))
		br_error("validate", "cannot record the verdicts: %s", err.msg);
	/* a batch rolled back: none of its nodes was recorded */
	for (size_t i = 0; i < n; i++)
		if (!r.heard[i])
			unrecorded(run, &run->jobs[r.job_of[i]], err.msg[0] ? err.msg : "not recorded");
	for (size_t i = 0; i < run->n; i++) {
		if (!run->jobs[i].unrecorded)
			continue;
		run->unrecorded++;
		if (!run->inventory_error)
			run->inventory_error = br_xstrdup(run->jobs[i].unrecorded);
	}
	for (size_t i = 0; i < n; i++) {
		inv_checks_free(checks[i], v[i].n_checks);
		free(texts[i]);
	}
	free(r.job_of);
	free(r.heard);
	free(checks);
	free(texts);
	free(v);
}

/* ---- the run ------------------------------------------------------------------------ */

/* The fabric, judged once for the rack: a bad capture or design stops the
 * stage (exit 2) before any node, as a bad wiring list does. */
static int judge_fabric(struct stg_stage *st, const struct stg_validate_options *o,
			struct stg_validate_run *run)
{
	struct br_strlist problems = { 0 };
	struct br_err err = { 0 };
	struct val_ibnet net;
	int rc;

	if (val_wiring_load(o->ib_wiring, &run->ib_wiring, &problems, &err) == 0) {
		if (val_ibnet_load(o->ib_topology, &net, &problems, &err) == 0) {
			val_fabric_judge(&run->ib_wiring, &net, o->ib_rate, &run->fabric);
			val_ibnet_release(&net);
			run->have_fabric = run->have_ib_wiring = 1;
			run->fabric_source = br_xasprintf("the capture %s", o->ib_topology);
			return 0;
		}
		val_wiring_release(&run->ib_wiring);
	}
	for (size_t i = 0; i < problems.n; i++)
		fprintf(stderr, "%s\n", problems.items[i]);
	br_strlist_release(&problems);
	rc = stg_stage_usage(st, "%s", err.msg);
	return rc;
}

static int prepare(struct stg_stage *st, const struct stg_validate_options *o, struct stg_validate_run *run)
{
	struct br_err err = { 0 };

	run->inv = st->inv;
	run->n = st->n;
	run->jobs = br_xcalloc(st->n ? st->n : 1, sizeof(*run->jobs));
	for (size_t i = 0; i < st->n; i++) {
		struct stg_validate_job *job = &run->jobs[i];

		job->node = &st->nodes[i];
		job->profile = stg_profiles_get(&run->profiles, job->node->profile, &err);
		if (!job->profile)
			return stg_stage_usage(st, "%s (node %s)", err.msg, job->node->hostname);
	}
	if (o->wiring) {
		struct br_strlist problems = { 0 };

		if (val_wiring_load(o->wiring, &run->wiring, &problems, &err)) {
			for (size_t i = 0; i < problems.n; i++)
				fprintf(stderr, "%s\n", problems.items[i]);
			br_strlist_release(&problems);
			return stg_stage_usage(st, "%s", err.msg);
		}
		run->have_wiring = 1;
	}
	if (o->switches) {
		struct br_strlist problems = { 0 };

		if (val_switches_load(o->switches, &run->switches, &problems, &err)) {
			for (size_t i = 0; i < problems.n; i++)
				fprintf(stderr, "%s\n", problems.items[i]);
			br_strlist_release(&problems);
			return stg_stage_usage(st, "%s", err.msg);
		}
		run->have_switches = 1;
	}
	/* A fabric host the inventory does not know is the operator's slip. */
	for (size_t i = 0; i < o->fabric_hosts.n; i++) {
		struct inv_node node;

		if (inv_node_get(run->inv, o->fabric_hosts.items[i], &node, &err))
			return stg_stage_usage(st, "--fabric-host %s: %s", o->fabric_hosts.items[i], err.msg);
		inv_node_release(&node);
	}
	if (o->ib_topology)
		return judge_fabric(st, o, run);
	if (o->ib_wiring) {
		struct br_strlist problems = { 0 };

		if (val_wiring_load(o->ib_wiring, &run->ib_wiring, &problems, &err)) {
			for (size_t i = 0; i < problems.n; i++)
				fprintf(stderr, "%s\n", problems.items[i]);
			br_strlist_release(&problems);
			return stg_stage_usage(st, "%s", err.msg);
		}
		run->have_ib_wiring = 1;
	}
	return 0;
}

int stg_validate_run(struct stg_stage *st, const struct stg_validate_options *o, struct stg_validate_run *run)
{
	int rc = prepare(st, o, run);

	if (rc)
		return rc;
	br_progress_init(&run->progress, "validate", run->n);
	for (size_t i = 0; i < run->n; i++)
		br_progress_item(&run->progress, i, run->jobs[i].node->hostname);
	rc = o->facts_file ? collect_file(st, o, run) : collect_ssh(st, o, run);
	if (rc)
		return rc;
	/* A document another machine gave is no evidence about this node:
	 * one wrong_node failure, nothing judged on it (those judged in a
	 * worker were checked there). A saved document (--facts) is judged
	 * as the node the operator named for it, saying so when it looks
	 * like another machine's (a capture of a reference machine). */
	for (size_t i = 0; i < run->n; i++) {
		struct stg_validate_job *job = &run->jobs[i];
		char *why;

		if (job->done || job->judged || !job->probe || !(why = wrong_node(run->inv, job)))
			continue;
		if (o->facts_file) {
			br_warn("validate", "%s: %s: %s; judged as %s's, as --facts names it",
				job->node->hostname, o->facts_file, why, job->node->hostname);
			free(why);
		} else {
			fail_wrong_node(run, job, why);
		}
	}
	/* The subnet once, from a fabric host whose facts are in. */
	stg_validate_fabric_collect(o, run);
	/* The checks that load the node, where its profile asks, each under
	 * its own time limit. */
	stg_validate_active(o, run);
	/* Every node's facts are in before any is judged: a swapped cable is
	 * told by the two hosts' views together. */
	judge_cabling(run);
	for (size_t i = 0; i < run->n; i++) {
		struct stg_validate_job *job = &run->jobs[i];

		if (job->done)
			continue;
		if (job->judged) {
			take_checks(job, job->node_checks, job->n_node_checks);
			job->node_checks = NULL;
			job->n_node_checks = 0;
		} else {
			judge_node(run->inv, job);
		}
		take_checks(job, job->active_checks, job->n_active_checks);
		job->active_checks = NULL;
		job->n_active_checks = 0;
		if (job->missing_nic)
			blame_nic_count(job->checks, job->n_checks, job->missing_nic);
		finish(run, job, BR_FAIL_NONE, verdict(job));
	}
	br_progress_finish(&run->progress);
	record(run);
	if (run->inventory_error)
		stg_stage_unwritable(st, run->unrecorded, run->inventory_error);
	return 0;
}

/* The nodes validated (ok) or failed whose outcome the inventory holds. */
static size_t count_recorded(const struct stg_validate_run *run, int ok)
{
	size_t n = 0;

	for (size_t i = 0; i < run->n; i++)
		n += run->jobs[i].done && !run->jobs[i].ok == !ok && !run->jobs[i].unrecorded;
	return n;
}

json_t *stg_validate_json(const void *ctx)
{
	const struct stg_validate_run *run = ctx;
	json_t *nodes = json_array();

	for (size_t i = 0; i < run->n; i++) {
		const struct stg_validate_job *job = &run->jobs[i];
		json_t *checks = json_array();

		for (size_t k = 0; k < job->n_checks; k++)
			json_array_append_new(
			    checks, json_pack("{s:s, s:s, s:s}", "name", job->checks[k].name, "result",
					      val_result_name(job->checks[k].result), "detail",
					      job->checks[k].detail ? job->checks[k].detail : ""));
		json_array_append_new(
		    nodes, json_pack("{s:s, s:s, s:o, s:o, s:b, s:o}", "hostname", job->node->hostname,
				     "state", job->ok ? "validated" : "failed", "reason",
				     br_json_string_or_null(job->reason), "checks", checks, "recorded",
				     !job->unrecorded, "error", br_json_string_or_null(job->unrecorded)));
	}
	return json_pack("{s:o, s:I, s:I, s:I}", "nodes", nodes, "validated",
			 (json_int_t)count_recorded(run, 1), "failed", (json_int_t)count_recorded(run, 0),
			 "not_recorded", (json_int_t)run->unrecorded);
}

void stg_validate_print(const void *ctx)
{
	static const char *const headers[] = { "HOSTNAME", "RESULT", "FAILED CHECKS", "REASON" };
	const struct stg_validate_run *run = ctx;
	struct br_table t;

	br_table_init(&t, 4, headers);
	for (size_t i = 0; i < run->n; i++) {
		const struct stg_validate_job *job = &run->jobs[i];
		struct br_buf failing;

		br_buf_init(&failing, 0);
		for (size_t k = 0; k < job->n_checks; k++)
			if (job->checks[k].result == VAL_FAIL)
				br_buf_addf(&failing, "%s%s", failing.len ? "," : "", job->checks[k].name);
		br_table_add(&t, (const char *const[]){ job->node->hostname,
							job->unrecorded ? "not recorded"
							: job->ok	? "validated"
									: "failed",
							br_buf_str(&failing),
							job->unrecorded ? job->unrecorded : job->reason });
		br_buf_release(&failing);
	}
	br_table_print(&t, stdout);
	br_table_release(&t);
	printf("\n%zu validated, %zu failed", count_recorded(run, 1), count_recorded(run, 0));
	if (run->unrecorded)
		printf(", %zu not recorded (the inventory refused them: %s)", run->unrecorded,
		       run->inventory_error);
	printf("\n");
}

void stg_validate_run_release(struct stg_validate_run *run)
{
	br_progress_release(&run->progress);
	for (size_t i = 0; i < run->n && run->jobs; i++) {
		json_decref(run->jobs[i].probe);
		val_checks_free(run->jobs[i].checks, run->jobs[i].n_checks);
		val_checks_free(run->jobs[i].node_checks, run->jobs[i].n_node_checks);
		val_checks_free(run->jobs[i].active_checks, run->jobs[i].n_active_checks);
		free(run->jobs[i].missing_nic);
		free(run->jobs[i].reason);
		free(run->jobs[i].probe_text);
		free(run->jobs[i].unrecorded);
	}
	free(run->jobs);
	free(run->inventory_error);
	stg_profiles_release(&run->profiles);
	if (run->have_wiring)
		val_wiring_release(&run->wiring);
	if (run->have_switches)
		val_switches_release(&run->switches);
	if (run->have_ib_wiring)
		val_wiring_release(&run->ib_wiring);
	if (run->have_fabric)
		val_fabric_result_release(&run->fabric);
	free(run->fabric_source);
	free(run->fabric_unjudged);
	free(run->ssh_user);
	memset(run, 0, sizeof(*run));
}

/* ---- fabric mode -------------------------------------------------------------------- */

static int print_problems(struct br_strlist *problems, const struct br_err *err)
{
	for (size_t i = 0; i < problems->n; i++)
		fprintf(stderr, "%s\n", problems->items[i]);
	if (!problems->n)
		fprintf(stderr, "bringup-validate: %s\n", err->msg);
	br_strlist_release(problems);
	return STG_EXIT_USAGE;
}

int stg_validate_fabric(const char *ibnet_path, const char *wiring, const char *expected_rate, int json)
{
	struct br_strlist problems = { 0 };
	struct br_err err = { 0 };
	struct val_wiring w;
	struct val_ibnet net;
	struct val_fabric_result r;
	int rc;

	if (val_wiring_load(wiring, &w, &problems, &err))
		return print_problems(&problems, &err);
	if (val_ibnet_load(ibnet_path, &net, &problems, &err)) {
		val_wiring_release(&w);
		return print_problems(&problems, &err);
	}
	val_fabric_judge(&w, &net, expected_rate, &r);
	if (json) {
		json_t *findings = json_array();
		json_t *doc;

		for (size_t i = 0; i < r.n; i++) {
			json_t *one = json_pack("{s:s, s:s}", "kind", val_cable_kind_name(r.findings[i].kind),
						"detail", r.findings[i].text);

			/* a separate fabric: which, and the host its ticket goes on */
			if (r.findings[i].kind == VAL_CABLE_SPLIT)
				json_object_set_new(one, "fabric",
						    json_integer((json_int_t)r.findings[i].part));
			if (r.findings[i].owner)
				json_object_set_new(one, "owner", json_string(r.findings[i].owner));
			json_array_append_new(findings, one);
		}
		doc = json_pack("{s:s, s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:o, s:s}", "result",
				val_result_name(r.result), "form", w.form, "design_links",
				(json_int_t)r.design_links, "seen_links", (json_int_t)r.seen_links, "matched",
				(json_int_t)r.matched, "design_components", (json_int_t)r.design_components,
				"seen_components", (json_int_t)r.seen_components, "unreachable",
				(json_int_t)r.unreachable, "findings", findings, "detail", r.detail);
		br_json_print(stdout, doc);
		json_decref(doc);
	} else {
		printf("fabric: %s\n%s\n", val_result_name(r.result), r.detail);
	}
	rc = r.result == VAL_PASS ? STG_EXIT_OK : STG_EXIT_NODES;
	val_fabric_result_release(&r);
	val_ibnet_release(&net);
	val_wiring_release(&w);
	return rc;
}
