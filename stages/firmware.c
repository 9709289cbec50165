/*
 * firmware — the firmware stage's run (firmware.h): profiles and plans
 * first, every image needed read and checked against the catalogue's
 * SHA-256 (a missing or altered image stops the run, exit 2, before any
 * BMC is touched), then the updates over the BMCs, then the record.
 */
#define _DEFAULT_SOURCE
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "firmware.h"

/* ---- options --------------------------------------------------------------- */

int stg_firmware_options_check(struct stg_stage *st, struct stg_firmware_options *o)
{
	const char *env = getenv("BRINGUP_MAX_UPDATES");
	long v;

	if (stg_bmc_opts_finish(&o->bmc, st->cmd->name, &o->rf))
		return st->exit = STG_EXIT_USAGE;
	if (!o->max_updates && env && *env) {
		if (br_parse_long(env, 1, 4096, &v))
			return stg_stage_usage(st, "BRINGUP_MAX_UPDATES: '%s' is not a count from 1 to 4096",
					       env);
		o->max_updates = (int)v;
	}
	if (!o->max_updates)
		o->max_updates = STG_FW_MAX_UPDATES_DEFAULT;
	if (o->max_updates < 1 || o->max_updates > 4096)
		return stg_stage_usage(st, "--max-updates must be 1-4096");
	if (o->poll_ms < 1 || o->task_timeout_s < 1 || o->bmc_return_s < 1)
		return stg_stage_usage(st, "intervals and timeouts must be positive");
	if (!o->image_base_url)
		o->image_base_url = getenv("BRINGUP_IMAGE_BASE_URL");
	if (o->image_base_url && !*o->image_base_url)
		o->image_base_url = NULL;
	if (o->image_base_url && strncmp(o->image_base_url, "http://", 7) &&
	    strncmp(o->image_base_url, "https://", 8))
		return stg_stage_usage(st, "--image-base-url '%s': not an http:// or https:// URL",
				       o->image_base_url);
	o->rf.use_expand = 1;
	st->no_lease = o->dry_run || o->report;
	return 0;
}

/* ---- images ------------------------------------------------------------------- */

static char *sha256_hex(const unsigned char *data, size_t len)
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int n = 0;
	char *hex = br_xmalloc(2 * EVP_MAX_MD_SIZE + 1);

	EVP_Digest(data, len, md, &n, EVP_sha256(), NULL);
	for (unsigned int i = 0; i < n; i++)
		snprintf(hex + 2 * i, 3, "%02x", md[i]);
	hex[2 * n] = '\0';
	return hex;
}

/* The file name of a catalogue path (what a BMC is told it is called). */
static const char *file_name_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* A catalogue file read and held to its hash (setting names it in the
 * message); 0, or non-zero with err naming the catalogue's line. */
static int read_checked(const struct prof_fw_image *im, const char *path, const char *want,
			const char *setting, const char *profile_file, char **ret, size_t *ret_len,
			struct br_err *err)
{
	char *hex;

	if (br_read_file(path, STG_FW_IMAGE_MAX, ret, ret_len, err)) {
		br_err_prefix(err, "%s:%d: [image %s]", profile_file, im->line, im->name);
		return BR_E_INVAL;
	}
	hex = sha256_hex((unsigned char *)*ret, *ret_len);
	if (strcmp(hex, want)) {
		br_errf(err, BR_E_INVAL, "%s:%d: [image %s]: %s: %s has %s, not %s (nothing sent)",
			profile_file, im->line, im->name, setting, path, hex, want);
		free(hex);
		free(*ret);
		*ret = NULL;
		return BR_E_INVAL;
	}
	free(hex);
	return 0;
}

/* The image read once, held for every node it goes to, and checked: what
 * is sent is exactly the bytes whose hash was checked (its compsig too). */
static const struct stg_firmware_image *image_get(struct stg_firmware_run *run,
						  const struct prof_fw_image *im, const char *profile_file,
						  struct br_err *err)
{
	struct stg_firmware_image *got;
	char *data = NULL, *sig = NULL;
	size_t len = 0, sig_len = 0;

	for (size_t i = 0; i < run->n_images; i++)
		if (run->images[i].image == im)
			return &run->images[i];
	if (read_checked(im, im->file, im->sha256, "sha256", profile_file, &data, &len, err))
		return NULL;
	if (im->compsig && read_checked(im, im->compsig, im->compsig_sha256, "compsig_sha256", profile_file,
					&sig, &sig_len, err)) {
		free(data);
		return NULL;
	}
	run->images = br_xrealloc(run->images, (run->n_images + 1) * sizeof(*run->images));
	got = &run->images[run->n_images++];
	got->image = im;
	got->data = (unsigned char *)data;
	got->len = len;
	got->sig = (unsigned char *)sig;
	got->sig_len = sig_len;
	got->uri = NULL;
	if (run->o->image_base_url) {
		const char *base = file_name_of(im->file);
		size_t bl = strlen(run->o->image_base_url);

		got->uri = br_xasprintf("%s%s%s", run->o->image_base_url,
					bl && run->o->image_base_url[bl - 1] == '/' ? "" : "/", base);
	}
	return got;
}

/* ---- recording ------------------------------------------------------------------- */

static void set_reason(struct stg_firmware_job *job, const char *result, char *reason_take)
{
	free(job->result);
	job->result = br_xstrdup(result);
	free(job->reason);
	job->reason = reason_take;
}

/* The versions read back replace the node's firmware facts, so configure
 * (and the report) judge what the BMC now runs. */
static int store_inventory(struct inv *inv, struct stg_firmware_job *job, const struct br_hw *read_back,
			   enum inv_state to, enum br_fail_kind kind, struct br_err *err)
{
	struct br_hw hw;
	int rc;

	if ((rc = inv_load_hw(inv, job->node->hostname, &hw, err)))
		return rc;
	for (size_t i = 0; i < hw.n_firmware; i++) {
		free(hw.firmware[i].id);
		free(hw.firmware[i].name);
		free(hw.firmware[i].version);
	}
	hw.n_firmware = 0;
	for (size_t i = 0; i < read_back->n_firmware; i++) {
		struct br_firmware *f = br_hw_add_firmware(&hw);
		const struct br_firmware *src = &read_back->firmware[i];

		f->id = src->id ? br_xstrdup(src->id) : NULL;
		f->name = src->name ? br_xstrdup(src->name) : NULL;
		f->version = src->version ? br_xstrdup(src->version) : NULL;
		f->updateable = src->updateable;
	}
	rc = inv_store_hw_kind(inv, job->node->hostname, &hw, job->node->state, to, kind, job->reason, err);
	br_hw_release(&hw);
	return rc;
}

static char *updated_reason(const struct stg_firmware_job *job)
{
	struct br_buf b;

	br_buf_init(&b, 0);
	br_buf_adds(&b, "firmware updated and read back:");
	for (size_t i = 0; i < job->plan.n; i++)
		br_buf_addf(&b, "%s %s %s -> %s", i ? ";" : "", job->plan.items[i].component,
			    job->plan.items[i].from,
			    job->versions[i] ? job->versions[i] : job->plan.items[i].image->version);
	return br_buf_detach(&b);
}

static void on_done(const struct rf_fw_target *t, int rc, const struct rf_fw_result *res,
		    const struct br_err *err, void *ctx)
{
	struct stg_firmware_run *run = ctx;
	struct stg_firmware_job *job = t->target.user_data;
	struct br_err rec = { 0 };
	int rrc;

	job->done = 1;
	for (size_t i = 0; i < res->n_steps && i < job->plan.n; i++) {
		free(job->versions[i]);
		job->versions[i] = res->steps[i].version ? br_xstrdup(res->steps[i].version) : NULL;
		job->methods[i] = res->steps[i].method;
		job->sent[i] = res->steps[i].sent;
		run->sent += (size_t)res->steps[i].sent;
	}
	if (rc == BR_E_INTERRUPTED) {
		job->interrupted = 1;
		set_reason(job, "interrupted", br_xstrdup(err ? err->msg : "interrupted"));
		return;
	}
	job->ok = rc == 0;
	if (rc) {
		enum br_fail_kind kind = rc == BR_E_AUTH || rc == BR_E_UNREACHABLE || rc == RF_E_TLS
					     ? stg_bmc_failure_kind(rc)
					     : BR_FAIL_FIRMWARE;

		run->failed++;
		set_reason(job, "failed",
			   br_xasprintf("firmware: %s", err && err->msg[0] ? err->msg : br_strerror(rc)));
		br_warn("firmware", "%s: %s", job->node->hostname, job->reason);
		rrc = res->inventory.n_firmware
			  ? store_inventory(run->st->inv, job, &res->inventory, INV_FAILED, kind, &rec)
			  : inv_node_fail(run->st->inv, job->node->hostname, job->node->state, kind,
					  job->reason, &rec);
	} else {
		run->updated++;
		set_reason(job, "updated", updated_reason(job));
		br_info("firmware", "%s: %s", job->node->hostname, job->reason);
		rrc = store_inventory(run->st->inv, job, &res->inventory, INV_DISCOVERED, BR_FAIL_NONE, &rec);
	}
	if (rrc)
		br_error("firmware", "%s: %s", job->node->hostname, rec.msg);
}

/* ---- planning ---------------------------------------------------------------------- */

static int plan_job(struct stg_firmware_run *run, struct stg_firmware_job *job, struct br_err *err)
{
	struct br_hw hw;
	int rc;

	if ((rc = inv_load_hw_firmware(run->st->inv, job->node->hostname, &hw, err)))
		return rc;
	/* read over IPMI: no firmware inventory, no UpdateService */
	job->ipmi = hw.source && !strcmp(hw.source, "ipmi");
	if (!job->ipmi)
		stg_fw_plan_node(job->profile, &hw, job->node->model, &job->plan);
	br_hw_release(&hw);
	job->versions = br_xcalloc(job->plan.n ? job->plan.n : 1, sizeof(*job->versions));
	job->methods = br_xcalloc(job->plan.n ? job->plan.n : 1, sizeof(*job->methods));
	job->sent = br_xcalloc(job->plan.n ? job->plan.n : 1, sizeof(*job->sent));
	for (size_t i = 0; i < job->plan.n; i++)
		job->methods[i] = "none";
	return 0;
}

/* Images for the node's plan: read and checked once each. 0, or
 * STG_EXIT_USAGE (the catalogue's problem, for the operator). */
static int prepare_updates(struct stg_firmware_run *run, struct stg_firmware_job *job)
{
	struct br_err err = { 0 };

	job->updates = br_xcalloc(job->plan.n ? job->plan.n : 1, sizeof(*job->updates));
	for (size_t i = 0; i < job->plan.n; i++) {
		const struct stg_fw_item *it = &job->plan.items[i];
		const struct stg_firmware_image *im =
		    image_get(run, it->image, job->profile->images_file, &err);

		if (!im) {
			fprintf(stderr, "%s: %s (node %s)\n", run->st->cmd->name, err.msg,
				job->node->hostname);
			return STG_EXIT_USAGE;
		}
		job->updates[job->n_updates++] = (struct rf_fw_update){
			it->component,
			it->image->version,
			it->image->fw_class == PROF_FW_BMC,
			file_name_of(it->image->file),
			im->data,
			im->len,
			im->uri,
			it->image->compsig ? file_name_of(it->image->compsig) : NULL,
			im->sig,
			im->sig_len,
		};
	}
	return 0;
}

static int make_jobs(struct stg_stage *st, struct stg_firmware_run *run)
{
	struct br_err err = { 0 };

	run->jobs = br_xcalloc(st->n ? st->n : 1, sizeof(*run->jobs));
	for (size_t i = 0; i < st->n; i++) {
		struct stg_firmware_job *job = &run->jobs[run->n_jobs++];

		job->node = &st->nodes[i];
		if (!(job->profile = stg_profiles_get(&run->profiles, job->node->profile, &err)))
			return stg_stage_fail(st, STG_EXIT_USAGE, "%s (node %s)", err.msg,
					      job->node->hostname);
		if (plan_job(run, job, &err))
			return stg_stage_fail(st, STG_EXIT_UNREACHABLE, "%s", err.msg);
		if (job->ipmi)
			set_reason(job, "skipped",
				   br_xstrdup("read over IPMI: no firmware inventory to update from"));
		else if (!job->plan.n)
			set_reason(job, "current", br_xstrdup("no component below the firmware policy"));
		else if (job->plan.refused)
			set_reason(
			    job, "refused",
			    br_xasprintf(
				"no update: %zu of %zu components have no image (left for configure to "
				"judge)",
				job->plan.refused, job->plan.n));
		else if (run->o->dry_run)
			set_reason(job, "planned", br_xasprintf("%zu components to update", job->plan.n));
		else if (prepare_updates(run, job))
			return st->exit = STG_EXIT_USAGE;
	}
	return 0;
}

static void note_refused(struct stg_firmware_run *run, const struct stg_firmware_job *job)
{
	struct br_err err = { 0 };
	struct br_buf b;

	br_buf_init(&b, 0);
	br_buf_adds(&b, "firmware: nothing updated:");
	for (size_t i = 0; i < job->plan.n; i++)
		if (job->plan.items[i].refused)
			br_buf_addf(&b, " %s", job->plan.items[i].refused);
	if (inv_node_note(run->st->inv, job->node->hostname, br_buf_str(&b), &err))
		br_error("firmware", "%s: %s", job->node->hostname, err.msg);
	br_warn("firmware", "%s: %s", job->node->hostname, br_buf_str(&b));
	br_buf_release(&b);
}

/* ---- the run ------------------------------------------------------------------------ */

static int update(struct stg_stage *st, struct stg_firmware_run *run)
{
	const struct stg_firmware_options *o = run->o;
	struct rf_fw_target *targets = br_xcalloc(run->n_jobs ? run->n_jobs : 1, sizeof(*targets));
	struct rf_fw_options fo;
	struct rf_options ro = o->rf;
	struct br_err err = { 0 };
	size_t n = 0;
	int rc = 0;

	rf_fw_options_init(&fo);
	fo.max_updates = o->max_updates;
	fo.poll_ms = o->poll_ms;
	fo.task_timeout_ms = (long)o->task_timeout_s * 1000;
	fo.bmc_return_ms = (long)o->bmc_return_s * 1000;
	for (size_t i = 0; i < run->n_jobs; i++) {
		struct stg_firmware_job *job = &run->jobs[i];
		char *why = NULL;

		if (job->result)
			continue;
		if (stg_bmc_endpoint(job->node, o->bmc.scheme, &job->password, &job->host, &job->port,
				     &job->base_url, &why)) {
			set_reason(job, "failed", why);
			run->failed++;
			if (inv_node_fail(st->inv, job->node->hostname, job->node->state, BR_FAIL_STAGE,
					  job->reason, &err))
				br_error("firmware", "%s: %s", job->node->hostname, err.msg);
			continue;
		}
		targets[n++] = (struct rf_fw_target){
			{ job->node->hostname, job->base_url, job->node->bmc_user, job->password, job,
			  stg_bmc_deadline_ms(&o->bmc, 0, 0), job->node->bmc_system, 0 },
			job->updates,
			job->n_updates,
			{ { job->node->rack, job->profile->fw_max_per_rack },
			  { job->node->power_domain, job->profile->fw_max_per_power_domain } },
		};
	}
	stg_bmc_sessions_record(&ro, st->inv);
	stg_bmc_sessions_reclaim(st, &o->bmc, &o->rf);
	if (n && (rc = rf_firmware_all(targets, n, &ro, &fo, on_done, NULL, run, &err)))
		stg_stage_fail(st, STG_EXIT_USAGE, "%s", err.msg);
	free(targets);
	return rc ? -1 : 0;
}

int stg_firmware_run(struct stg_stage *st, const struct stg_firmware_options *o, struct stg_firmware_run *run)
{
	struct br_err err = { 0 };

	run->st = st;
	run->o = o;
	if (o->report) {
		struct inv_node *all = NULL;
		size_t n_all = 0;

		if (inv_nodes_list(st->inv, &all, &n_all, &err))
			return stg_stage_fail(st, STG_EXIT_UNREACHABLE, "%s", err.msg);
		run->report = stg_fw_consistency_read(st->inv, st->argi < st->argc ? st->nodes : all,
						      st->argi < st->argc ? st->n : n_all, !o->all, &err);
		inv_nodes_free(all, n_all);
		if (!run->report)
			return stg_stage_fail(st, STG_EXIT_UNREACHABLE, "%s", err.msg);
		return 0;
	}
	if (make_jobs(st, run))
		return -1;
	for (size_t i = 0; i < run->n_jobs; i++)
		if (!o->dry_run && run->jobs[i].plan.refused)
			note_refused(run, &run->jobs[i]);
	if (o->dry_run)
		return 0;
	return update(st, run);
}

void stg_firmware_run_release(struct stg_firmware_run *run)
{
	for (size_t i = 0; i < run->n_jobs; i++) {
		struct stg_firmware_job *job = &run->jobs[i];

		for (size_t k = 0; k < job->plan.n; k++)
			free(job->versions[k]);
		free(job->versions);
		free(job->methods);
		free(job->sent);
		stg_fw_plan_release(&job->plan);
		free(job->updates);
		br_secret_free(job->password);
		free(job->base_url);
		free(job->host);
		free(job->result);
		free(job->reason);
	}
	free(run->jobs);
	for (size_t i = 0; i < run->n_images; i++) {
		free(run->images[i].data);
		free(run->images[i].uri);
		free(run->images[i].sig);
	}
	free(run->images);
	stg_profiles_release(&run->profiles);
	json_decref(run->report);
	memset(run, 0, sizeof(*run));
}
