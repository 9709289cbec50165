/* The active checks ([active] in hardware.conf): tools that load the node,
 * run by validate over SSH after the probe, each under its own time limit,
 * judged here from what they printed. bringup installs none of them: a
 * node without the tool cannot be proven (unknown, which blocks
 * promotion under the fail-closed gate). */
#define _DEFAULT_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "rules_node_private.h"
#include "validators.h"

/* Why an active tool gave nothing to judge, or NULL. Caller frees. */
static char *not_run(const char *tool, const struct val_active_run *r)
{
	if (r->past_limit)
		return br_xasprintf("%s did not finish within its time limit of %lld s ([active] %s): "
				    "not judged; a node that hangs under load is worth a look",
				    tool, (long long)r->limit_s,
				    !strncmp(tool, "dcgmi", 5) ? "dcgm_diag_time_limit"
							       : "rdma_bw_time_limit");
	if (!r->ran)
		return br_xasprintf("%s did not run: %s", tool, r->error ? r->error : "no reason given");
	/* The login shell's "command not found" (sh: 127). */
	if (r->exit_status == 127)
		return br_xasprintf("%.*s is not installed on the node (exit 127%s%.*s): bringup installs "
				    "nothing; put it in the node's image",
				    (int)strcspn(tool, " "), tool, r->err && *r->err ? ": " : "",
				    (int)strcspn(r->err ? r->err : "", "\n"), r->err ? r->err : "");
	return NULL;
}

/* ---- dcgmi diag ------------------------------------------------------------- */

/* The probe's GPU at nvidia-smi's index (DCGM numbers GPUs as NVML does). */
static json_t *probe_gpu(json_t *probe, long long id)
{
	json_t *gpus = br_json_path(probe, "gpus/gpus");

	return id >= 0 && (size_t)id < json_array_size(gpus) ? json_array_get(gpus, (size_t)id) : NULL;
}

/* DCGM 4's entity_groups: the serial it read for GPU id, or NULL. */
static const char *dcgm_serial(json_t *doc, long long id)
{
	json_t *g, *e;
	size_t i, k;

	json_array_foreach(json_object_get(doc, "entity_groups"), i, g)
	{
		const char *grp = br_json_str(g, "entity_group");

		if (grp && strcmp(grp, "GPU"))
			continue;
		json_array_foreach(json_object_get(g, "entities"), k,
				   e) if (json_integer_value(json_object_get(e, "entity_id")) ==
					  id) return br_json_str(e, "serial_num");
	}
	return NULL;
}

/* The GPU a result is about: entity_id (4.x), or gpu_id / gpu_ids (3.x, a
 * string; a CSV for the deployment tests, which are the node's). -1: none. */
static long long result_gpu(json_t *res)
{
	json_t *v = json_object_get(res, "entity_id");
	const char *s;
	char *end;
	long long id;

	if (json_is_integer(v)) {
		const char *grp = br_json_str(res, "entity_group");

		return !grp || !strcmp(grp, "GPU") ? (long long)json_integer_value(v) : -1;
	}
	s = br_json_str(res, "gpu_ids") ? br_json_str(res, "gpu_ids") : br_json_str(res, "gpu_id");
	if (!s || strchr(s, ','))
		return -1;
	errno = 0;
	id = strtoll(s, &end, 10);
	return errno || end == s || *end ? -1 : id;
}

/* A result's first warning text: DCGM 4 and late 3.x give objects
 * {"warning": …, "error_id": …}, early 3.x plain strings. */
static const char *first_warning(json_t *res)
{
	json_t *w = json_array_get(json_object_get(res, "warnings"), 0);

	return json_is_string(w) ? json_string_value(w) : br_json_str(w, "warning");
}

struct diag_tally {
	size_t tests, results, warned, skipped;
};

static void diag_result(struct val_evidence *e, json_t *doc, json_t *probe, const char *test, json_t *res,
			struct diag_tally *t)
{
	const char *status = br_json_str(res, "status"), *warning = first_warning(res);
	long long id = result_gpu(res);
	json_t *g = id >= 0 ? probe_gpu(probe, id) : NULL;
	const char *serial = id >= 0 ? dcgm_serial(doc, id) : NULL, *bdf = br_json_str(g, "bdf");
	char *who;

	t->results++;
	if (!serial)
		serial = br_json_str(g, "serial");
	who = id >= 0 ? br_xasprintf("GPU %lld (serial %s) at %s", id, serial ? serial : "unknown",
				     bdf ? bdf : "an unknown PCI address")
		      : br_xstrdup("the node");
	if (status && !strcasecmp(status, "fail")) {
		val_ev_add(e, VAL_FAIL, "dcgmi diag: test '%s' failed on %s%s%s", test, who,
			   warning ? ": " : "", warning ? warning : "");
		val_blame_pci(e, id >= 0 ? bdf : NULL);
	} else if (status && !strcasecmp(status, "warn")) {
		t->warned++;
		val_ev_add(e, VAL_PASS, "test '%s' warned on %s%s%s", test, who, warning ? ": " : "",
			   warning ? warning : "");
	} else if (status && !strncasecmp(status, "skip", 4)) {
		t->skipped++;
	} else if (!status || (strcasecmp(status, "pass") && strcasecmp(status, "not run"))) {
		val_ev_add(e, VAL_UNKNOWN, "test '%s' on %s: status '%s' is not DCGM's", test, who,
			   status ? status : "(none)");
	}
	free(who);
}

void val_judge_dcgm_diag(const struct prof_profile *p, json_t *probe, const struct val_active_run *r,
			 struct val_check **ret_checks, size_t *ret_n)
{
	char *tool = br_xasprintf("dcgmi diag -r %d -j", p->hw.dcgm_diag_level), *why = not_run(tool, r);
	json_t *doc = NULL, *root, *cat, *test, *res;
	const char *lead, *runtime;
	struct val_evidence e;
	struct diag_tally t = { 0 };
	json_error_t jerr;
	size_t i, k, j;

	if (why) {
		val_check_add_take(ret_checks, ret_n, br_xstrdup("dcgm_diag"), VAL_UNKNOWN, why);
		free(tool);
		return;
	}
	/* dcgmi prints "Successfully ran diagnostic for group." before the
	 * document on some versions: the JSON starts at the first brace. */
	lead = r->out ? memchr(r->out, '{', r->out_len) : NULL;
	if (lead)
		doc = json_loadb(lead, r->out_len - (size_t)(lead - r->out), JSON_REJECT_DUPLICATES, &jerr);
	root = json_object_get(doc, "DCGM Diagnostic");
	if (!root)
		root = json_object_get(doc, "DCGM GPU Diagnostic");
	if (!json_is_object(root)) {
		val_check_add_take(
		    ret_checks, ret_n, br_xstrdup("dcgm_diag"), VAL_UNKNOWN,
		    br_xasprintf("%s (exit %d): not DCGM's JSON (%s)%s%.*s", tool, r->exit_status,
				 doc	? "no \"DCGM Diagnostic\" object"
				 : lead ? jerr.text
					: "no JSON at all",
				 r->err && *r->err ? ": " : "", (int)strcspn(r->err ? r->err : "", "\n"),
				 r->err ? r->err : ""));
		json_decref(doc);
		free(tool);
		return;
	}
	val_ev_init(&e);
	if ((runtime = br_json_str(root, "runtime_error")) && *runtime)
		val_ev_add(&e, VAL_UNKNOWN, "%s could not run its tests: %s", tool, runtime);
	json_array_foreach(json_object_get(root, "test_categories"), i, cat)
	{
		json_array_foreach(json_object_get(cat, "tests"), k, test)
		{
			const char *name = br_json_str(test, "name") ? br_json_str(test, "name") : "?";

			t.tests++;
			json_array_foreach(json_object_get(test, "results"), j, res)
			    diag_result(&e, doc, probe, name, res, &t);
		}
	}
	if (!t.results)
		val_ev_add(&e, VAL_UNKNOWN, "%s reported no test results", tool);
	else if (e.result == VAL_PASS)
		val_ev_add(&e, VAL_PASS, "%s: %zu tests, %zu results passed (%zu warned, %zu skipped)", tool,
			   t.tests, t.results - t.warned - t.skipped, t.warned, t.skipped);
	json_decref(doc);
	free(tool);
	{
		/* val_ev_emit wants a node context; the active checks have
		 * none, so the evidence is emitted into a throwaway one. */
		struct val_node_ctx c = { p, NULL, probe, NULL, ret_checks, ret_n };

		val_ev_emit(&c, "dcgm_diag", &e);
	}
}

/* ---- ib_write_bw ------------------------------------------------------------ */

/* The "BW average[Gb/sec]" of perftest's result table: the value in its
 * column of the line after the header, whose columns ("#bytes",
 * "#iterations", "BW peak[Gb/sec]", …) are set apart by two blanks or
 * more. -1 when absent; *ret_gbits whether the unit is Gb/s (the client
 * was given --report_gbits) rather than MB/s. */
static double bw_average(const char *text, int *ret_gbits)
{
	const char *h = text ? strstr(text, "BW average[") : NULL, *line, *row;
	int col = 0;

	*ret_gbits = h && !strncmp(h, "BW average[Gb/sec]", 18);
	if (!h)
		return -1;
	for (line = h; line > text && line[-1] != '\n'; line--)
		;
	for (const char *s = line + strspn(line, " \t"); s < h; s++)
		if ((s[0] == ' ' && s[1] == ' ') || s[0] == '\t') {
			col++;
			s += strspn(s, " \t") - 1;
		}
	row = strchr(h, '\n');
	if (!row)
		return -1;
	row++;
	for (int c = 0;; c++) {
		char *end;
		double v;

		row += strspn(row, " \t");
		if (!*row || *row == '\n')
			return -1;
		if (c == col) {
			errno = 0;
			v = strtod(row, &end);
			return errno || end == row ? -1 : v;
		}
		row += strcspn(row, " \t\n");
	}
}

void val_judge_rdma_bw(const struct prof_profile *p, const char *hcas, const struct val_active_run *r,
		       struct val_check **ret_checks, size_t *ret_n)
{
	char *tool = br_xasprintf("ib_write_bw%s%s", hcas ? " " : "", hcas ? hcas : ""),
	     *why = not_run(tool, r);
	int gbits = 0;
	double bw;

	if (why) {
		val_check_add_take(ret_checks, ret_n, br_xstrdup("rdma_bw"), VAL_UNKNOWN, why);
		free(tool);
		return;
	}
	bw = bw_average(r->out, &gbits);
	if (bw < 0 || !gbits)
		val_check_add_take(ret_checks, ret_n, br_xstrdup("rdma_bw"), VAL_UNKNOWN,
				   br_xasprintf("%s (exit %d): no \"BW average[Gb/sec]\" result%s%.*s", tool,
						r->exit_status, r->err && *r->err ? ": " : "",
						(int)strcspn(r->err ? r->err : "", "\n"),
						r->err ? r->err : ""));
	else if (bw < p->hw.rdma_bw_gbps)
		val_check_add_take(ret_checks, ret_n, br_xstrdup("rdma_bw"), VAL_FAIL,
				   br_xasprintf("%s: %.2f Gb/s average, expected %d Gb/s or more: check "
						"the HCAs' PCIe links and firmware, and their ports' rate",
						tool, bw, p->hw.rdma_bw_gbps));
	else
		val_check_add_take(
		    ret_checks, ret_n, br_xstrdup("rdma_bw"), VAL_PASS,
		    br_xasprintf("%s: %.2f Gb/s average, at least %d Gb/s", tool, bw, p->hw.rdma_bw_gbps));
	free(tool);
}
