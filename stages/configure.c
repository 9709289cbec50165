/* What `bringup configure` records and prints per node (configure.h). */
#include <stdlib.h>
#include <string.h>

#include "bmcopts.h"
#include "configure.h"
#include "stages/workers.h"

static void forget_result(struct stg_configure_job *job);

void stg_configure_job_release(struct stg_configure_job *job)
{
	br_secret_free(job->password);
	free(job->base_url);
	free(job->host);
	inv_checks_free(job->fw, job->n_fw);
	free(job->reason);
	free(job->pxe_chosen);
	free(job->pxe_note);
	for (size_t i = 0; job->bios_pxe && i < job->spec.n_bios; i++) {
		free(job->bios_pxe[i].key);
		free(job->bios_pxe[i].value);
	}
	free(job->bios_pxe);
	forget_result(job);
	memset(job, 0, sizeof(*job));
}

char *stg_configure_failure_reason(int rc, const char *msg)
{
	const char *unsupported = rc == BR_E_UNSUPPORTED ? strstr(msg, STG_CONFIGURE_UNSUPPORTED) : NULL;

	/* what this BMC cannot do, said first: the row names the node already */
	return unsupported ? br_xstrdup(unsupported) : stg_bmc_failure_reason(rc, msg);
}

static char *dup_or_null(const char *s)
{
	return s ? br_xstrdup(s) : NULL;
}

static void forget_result(struct stg_configure_job *job)
{
	for (size_t i = 0; i < job->n_changes; i++) {
		free(job->changes[i].name);
		free(job->changes[i].current);
		free(job->changes[i].wanted);
	}
	free(job->changes);
	job->changes = NULL;
	job->n_changes = 0;
	free(job->boot_current);
	free(job->boot_wanted);
	free(job->job);
	job->boot_current = job->boot_wanted = job->job = NULL;
}

void stg_configure_job_take_result(struct stg_configure_job *job, const struct rf_config_result *res)
{
	if (!res)
		return;
	forget_result(job);
	job->changes = br_xcalloc(res->n_bios ? res->n_bios : 1, sizeof(*job->changes));
	for (size_t i = 0; i < res->n_bios; i++)
		job->changes[i] = (struct rf_config_change){ br_xstrdup(res->bios[i].name),
							     br_xstrdup_capped(res->bios[i].current,
									       STG_CONFIGURE_VALUE_SHOWN_MAX),
							     br_xstrdup(res->bios[i].wanted) };
	job->n_changes = res->n_bios;
	job->boot_current = br_xstrdup_capped(res->boot_current, STG_CONFIGURE_VALUE_SHOWN_MAX);
	job->boot_wanted = br_xstrdup_capped(res->boot_wanted, STG_CONFIGURE_VALUE_SHOWN_MAX);
	job->job = br_xstrdup_capped(res->job, STG_CONFIGURE_VALUE_SHOWN_MAX);
	job->bios_patched = res->bios_patched;
	job->resets = res->resets;
	job->boot_patched = res->boot_patched;
}

/* ---- a configure worker's line (stages/workers.h) ---------------------------- */

/* The firmware verdicts, judged in the worker (cmd-bringup-configure.c):
 * the parent prints them. */
static json_t *fw_json(const struct stg_configure_job *job)
{
	json_t *fw = json_array();

	for (size_t i = 0; i < job->n_fw; i++)
		json_array_append_new(
		    fw, json_pack("[s, i, s?]", job->fw[i].name, (int)job->fw[i].result, job->fw[i].detail));
	return fw;
}

json_t *stg_configure_job_outcome(const struct stg_configure_job *job, const char *record_error)
{
	json_t *changes = json_array(), *line;
	char *reason = br_xstrdup_capped(job->reason, STG_WORKER_TEXT_MAX);

	for (size_t i = 0; i < job->n_changes; i++)
		json_array_append_new(changes, json_pack("[s, s?, s]", job->changes[i].name,
							 job->changes[i].current, job->changes[i].wanted));
	line =
	    json_pack("{s:i, s:i, s:i, s:s?, s:o, s:s?, s:s?, s:s?, s:i, s:i, s:i, s:s?, s:o}", "ok", job->ok,
		      "kind", (int)job->fail_kind, "interrupted", job->interrupted, "reason", reason,
		      "changes", changes, "boot_current", job->boot_current, "boot_wanted", job->boot_wanted,
		      "job", job->job, "bios_patched", job->bios_patched, "resets", job->resets,
		      "boot_patched", job->boot_patched, "record_error", record_error, "fw", fw_json(job));
	free(reason);
	if (line && job->record_refused)
		json_object_set_new(line, "record_refused", json_true());
	if (!line) /* a text that is not UTF-8: the outcome without its words */
		line = json_pack("{s:i, s:i, s:s, s:i, s:i, s:i}", "ok", job->ok, "interrupted",
				 job->interrupted, "reason", "(reason not encodable)", "bios_patched",
				 job->bios_patched, "resets", job->resets, "boot_patched", job->boot_patched);
	return line;
}

static char *member_text(json_t *line, const char *key)
{
	return dup_or_null(json_string_value(json_object_get(line, key)));
}

static int member_int(json_t *line, const char *key)
{
	return (int)json_integer_value(json_object_get(line, key));
}

/* The worker's firmware verdicts replace job's, when the line has them (a
 * line cut for its length has none: the node then shows none). */
static void take_fw(struct stg_configure_job *job, json_t *line)
{
	json_t *fw = json_object_get(line, "fw"), *c;
	size_t i;

	if (!json_is_array(fw))
		return;
	inv_checks_free(job->fw, job->n_fw);
	job->fw = br_xcalloc(json_array_size(fw) + 1, sizeof(*job->fw));
	job->n_fw = 0;
	json_array_foreach(fw, i, c)
	{
		const char *name = json_string_value(json_array_get(c, 0));
		json_t *result = json_array_get(c, 1);
		json_int_t r = json_integer_value(result);

		if (name && json_is_integer(result))
			job->fw[job->n_fw++] = (struct inv_check){
				br_xstrdup(name),
				r >= INV_CHECK_PASS && r <= INV_CHECK_UNKNOWN ? (enum inv_check_result)r
									      : INV_CHECK_UNKNOWN,
				dup_or_null(json_string_value(json_array_get(c, 2))), NULL, NULL
			};
	}
}

void stg_configure_job_take_outcome(struct stg_configure_job *job, json_t *line,
				    const char **ret_record_error)
{
	json_t *changes = json_object_get(line, "changes"), *c;
	size_t i;
	int kind;

	forget_result(job);
	job->ok = member_int(line, "ok") != 0;
	kind = member_int(line, "kind");
	job->fail_kind = kind >= 0 && kind < BR_FAIL_COUNT ? (enum br_fail_kind)kind : BR_FAIL_STAGE;
	job->interrupted = member_int(line, "interrupted") != 0;
	free(job->reason);
	job->reason = member_text(line, "reason");
	if (!job->reason)
		job->reason = member_text(line, "text");
	if (!job->reason)
		job->reason = br_xstrdup("(no reason given)");
	job->changes = br_xcalloc(json_array_size(changes) + 1, sizeof(*job->changes));
	json_array_foreach(changes, i, c)
	{
		const char *name = json_string_value(json_array_get(c, 0));
		const char *wanted = json_string_value(json_array_get(c, 2));

		if (name && wanted)
			job->changes[job->n_changes++] =
			    (struct rf_config_change){ br_xstrdup(name),
						       dup_or_null(json_string_value(json_array_get(c, 1))),
						       br_xstrdup(wanted) };
	}
	job->boot_current = member_text(line, "boot_current");
	job->boot_wanted = member_text(line, "boot_wanted");
	job->job = member_text(line, "job");
	job->bios_patched = member_int(line, "bios_patched");
	job->resets = member_int(line, "resets");
	job->boot_patched = member_int(line, "boot_patched");
	take_fw(job, line);
	*ret_record_error = json_string_value(json_object_get(line, "record_error"));
	job->record_refused = json_is_true(json_object_get(line, "record_refused"));
}

static const char *boot_mode_name(const struct stg_configure_job *job)
{
	return job->spec.boot_mode == RF_BOOT_ONCE ? "next boot only" : "persistent";
}

/* The checks this stage owns, firmware included, in one array. */
static struct inv_check *checks_of(const struct stg_configure_job *job, size_t *ret_n)
{
	struct inv_check *c = br_xcalloc(job->n_fw + 2, sizeof(*c));
	size_t n = 0;

	if (job->ipmi) {
		c[n++] =
		    (struct inv_check){ br_xstrdup("bios"), INV_CHECK_UNKNOWN,
					br_xasprintf("BIOS baseline not applied: the BMC speaks only IPMI, "
						     "which cannot read or set BIOS attributes; check the "
						     "%zu attributes of profile %s by hand",
						     job->profile->n_bios, job->profile->name),
					NULL, NULL };
	} else if (job->ok) {
		c[n++] = (struct inv_check){ br_xstrdup("bios"), INV_CHECK_PASS,
					     br_xasprintf("%zu attributes of profile %s hold%s",
							  job->spec.n_bios, job->profile->name,
							  job->n_changes ? " (after the config job)" : ""),
					     NULL, NULL };
	}
	if (job->ok && job->spec.pxe_nic)
		c[n++] = (struct inv_check){ br_xstrdup("boot"), INV_CHECK_PASS,
					     br_xasprintf("PXE first on %s (%s)", job->spec.pxe_nic,
							  job->ipmi ? "IPMI bootdev pxe, persistent, EFI"
								    : boot_mode_name(job)),
					     NULL, NULL };
	for (size_t i = 0; i < job->n_fw; i++)
		c[n++] = (struct inv_check){ br_xstrdup(job->fw[i].name), job->fw[i].result,
					     dup_or_null(job->fw[i].detail), NULL, NULL };
	*ret_n = n;
	return c;
}

int stg_configure_job_record(struct inv *inv, struct stg_configure_job *job, int dry_run, struct br_err *err)
{
	struct inv_check *checks;
	size_t n;
	int rc;

	if (dry_run)
		return 0;
	checks = checks_of(job, &n);
	rc = inv_checks_put(inv, job->node->hostname, "configure", checks, n, err);
	inv_checks_free(checks, n);
	if (!rc && job->ok)
		rc = inv_node_set_state(inv, job->node->hostname, job->node->state, INV_CONFIGURED,
					job->reason, err);
	else if (!rc)
		rc = inv_node_fail(inv, job->node->hostname, job->node->state, job->fail_kind, job->reason,
				   err);
	return rc;
}

static size_t fw_failed(const struct stg_configure_job *job)
{
	size_t n = 0;

	for (size_t i = 0; i < job->n_fw; i++)
		n += job->fw[i].result == INV_CHECK_FAIL;
	return n;
}

static const char *result_name(const struct stg_configure_job *job, int dry_run)
{
	if (!job->ok)
		return "failed";
	if (dry_run)
		return job->n_changes || job->boot_wanted ? "would-change" : "unchanged";
	return job->bios_patched || job->boot_patched || job->resets ? "configured" : "unchanged";
}

json_t *stg_configure_jobs_json(const struct stg_configure_job *jobs, size_t n, int dry_run)
{
	json_t *arr = json_array();
	size_t failed = 0;

	for (size_t i = 0; i < n; i++) {
		const struct stg_configure_job *j = &jobs[i];
		json_t *changes = json_array(), *fw = json_array();

		failed += !j->ok;
		for (size_t k = 0; k < j->n_changes; k++)
			json_array_append_new(
			    changes, json_pack("{s:s, s:o, s:s}", "name", j->changes[k].name, "current",
					       br_json_string_or_null(j->changes[k].current), "wanted",
					       j->changes[k].wanted));
		for (size_t k = 0; k < j->n_fw; k++)
			json_array_append_new(fw,
					      json_pack("{s:s, s:s, s:o}", "name", j->fw[k].name, "result",
							inv_check_result_name(j->fw[k].result), "detail",
							br_json_string_or_null(j->fw[k].detail)));
		json_array_append_new(
		    arr, json_pack("{s:s, s:s, s:s, s:o, s:o, s:{s:o, s:o}, s:o, s:i, s:i, s:i, s:o}",
				   "hostname", j->node->hostname, "result", result_name(j, dry_run), "via",
				   j->ipmi ? "IPMI" : "Redfish", "reason", br_json_string_or_null(j->reason),
				   "bios_changes", changes, "boot", "current",
				   br_json_string_or_null(j->boot_current), "wanted",
				   br_json_string_or_null(j->boot_wanted), "job",
				   br_json_string_or_null(j->job), "bios_patches", j->bios_patched, "resets",
				   j->resets, "boot_patches", j->boot_patched, "firmware", fw));
	}
	return json_pack("{s:b, s:o, s:I, s:I}", "dry_run", dry_run, "nodes", arr, "configured",
			 (json_int_t)(n - failed), "failed", (json_int_t)failed);
}

void stg_configure_jobs_print(const struct stg_configure_job *jobs, size_t n, int dry_run, FILE *f)
{
	static const char *const headers[] = { "HOSTNAME", "RESULT",  "VIA",   "BIOS",
					       "RESETS",   "FW FAIL", "REASON" };
	struct br_table t;
	size_t failed = 0;

	br_table_init(&t, 7, headers);
	for (size_t i = 0; i < n; i++) {
		const struct stg_configure_job *j = &jobs[i];
		char bios[16], resets[16], fw[16];

		failed += !j->ok;
		snprintf(bios, sizeof(bios), "%zu", j->n_changes);
		snprintf(resets, sizeof(resets), "%d", j->resets);
		snprintf(fw, sizeof(fw), "%zu", fw_failed(j));
		br_table_add(&t, (const char *const[]){ j->node->hostname, result_name(j, dry_run),
							j->ipmi ? "IPMI" : "Redfish", bios, resets, fw,
							j->reason });
	}
	br_table_print(&t, f);
	br_table_release(&t);
	for (size_t i = 0; dry_run && i < n; i++) {
		const struct stg_configure_job *j = &jobs[i];
		struct br_buf b; /* values a BMC sent: escaped, as the table's are */

		if (!j->n_changes && !j->boot_wanted && !fw_failed(j))
			continue;
		br_buf_init(&b, 0);
		br_buf_addf(&b, "\n%s:\n", j->node->hostname);
		for (size_t k = 0; k < j->n_changes; k++) {
			br_buf_adds(&b, "  ");
			br_buf_add_escaped(&b, j->changes[k].name);
			br_buf_adds(&b, ": ");
			br_buf_add_escaped(&b, j->changes[k].current ? j->changes[k].current : "(absent)");
			br_buf_addf(&b, " -> %s\n", j->changes[k].wanted);
		}
		if (j->boot_wanted) {
			br_buf_adds(&b, "  ");
			br_buf_add_escaped(&b, j->boot_current);
			br_buf_addf(&b, " -> %s\n", j->boot_wanted);
		}
		for (size_t k = 0; k < j->n_fw; k++)
			if (j->fw[k].result == INV_CHECK_FAIL) {
				br_buf_adds(&b, "  ");
				br_buf_add_escaped(&b, j->fw[k].detail);
				br_buf_adds(&b, "\n");
			}
		fputs(br_buf_str(&b), f);
		br_buf_release(&b);
	}
	fprintf(f, "\n%zu %s, %zu failed%s\n", n - failed, dry_run ? "checked" : "configured", failed,
		dry_run ? " (dry run: nothing changed)" : "");
}
