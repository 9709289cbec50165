/*
 * cabling_bmc — discover's last step (discover.h): the switch neighbours
 * each BMC showed of its host ports, judged against the wiring list with
 * the in-band rules (validators/cabling_bmc.c) before MAAS is touched.
 * Each judged node gets the check cabling_bmc (stage "discover"); one
 * whose cables are not as designed is quarantined there, so configure and
 * enlist never take it: a node PXE-booted on a wrong or missing cable
 * costs an hour of its time, or never boots. A BMC that shows nothing
 * gives unknown, decided in band after deploy (rules_gate.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "discover.h"

int stg_cabling_bmc_load(struct stg_stage *st, const char *wiring, const char *switches,
			 struct stg_cabling_bmc *ret)
{
	struct br_strlist problems = { 0 };
	struct br_err err = { 0 };

	memset(ret, 0, sizeof(*ret));
	if (!wiring)
		return 0;
	if (val_wiring_load(wiring, &ret->wiring, &problems, &err))
		goto bad;
	ret->have_wiring = 1;
	if (switches) {
		if (val_switches_load(switches, &ret->switches, &problems, &err))
			goto bad;
		ret->have_switches = 1;
	}
	return 0;
bad:
	for (size_t i = 0; i < problems.n; i++)
		fprintf(stderr, "%s\n", problems.items[i]);
	br_strlist_release(&problems);
	stg_cabling_bmc_release(ret);
	return stg_stage_usage(st, "%s", err.msg);
}

void stg_cabling_bmc_release(struct stg_cabling_bmc *c)
{
	if (c->have_wiring)
		val_wiring_release(&c->wiring);
	if (c->have_switches)
		val_switches_release(&c->switches);
	memset(c, 0, sizeof(*c));
}

static enum inv_check_result check_result(enum val_result r)
{
	return r == VAL_PASS ? INV_CHECK_PASS : r == VAL_FAIL ? INV_CHECK_FAIL : INV_CHECK_UNKNOWN;
}

void stg_cabling_bmc_judge(struct stg_stage *st, struct stg_cabling_bmc *c, struct stg_discover_run *run)
{
	struct br_hw *hw = br_xcalloc(run->n_jobs ? run->n_jobs : 1, sizeof(*hw));
	struct val_bmc_cabling *views = br_xcalloc(run->n_jobs ? run->n_jobs : 1, sizeof(*views));
	size_t *job_of = br_xcalloc(run->n_jobs ? run->n_jobs : 1, sizeof(*job_of)), n = 0;
	struct br_err err = { 0 };

	if (!c->have_wiring)
		goto out;
	for (size_t i = 0; i < run->n_jobs; i++) {
		struct stg_discover_job *job = &run->jobs[i];
		struct val_bmc_view v;

		if (!job->ok)
			continue;
		if (inv_load_hw_neighbors(st->inv, job->node->hostname, &hw[n], &err)) {
			br_warn("discover", "%s: %s", job->node->hostname, err.msg);
			continue;
		}
		v = (struct val_bmc_view){ job->node->hostname, hw[n].neighbor_source, hw[n].neighbors,
					   hw[n].n_neighbors };
		val_bmc_cabling_build(&c->wiring, c->have_switches ? &c->switches : NULL, &v, &views[n]);
		job_of[n++] = i;
	}
	for (size_t k = 0; k < n; k++) {
		struct stg_discover_job *job = &run->jobs[job_of[k]];
		struct val_cabling_result r;
		struct inv_check check = { 0 };
		char name[] = STG_CHECK_CABLING_BMC;

		val_bmc_cabling_judge(&c->wiring, &views[k], views, n, &r);
		check.name = name;
		check.result = check_result(r.result);
		check.detail = r.detail;
		if (r.result == VAL_FAIL) {
			char *reason = br_xasprintf("cabling: %s", r.detail);
			struct inv_verdict v = {
				job->node->hostname, NULL,	    &check, 1, INV_DISCOVERED,
				INV_QUARANTINED,     BR_FAIL_STAGE, reason
			};

			if (inv_verdicts_put(st->inv, "discover", &v, 1, NULL, NULL, &err)) {
				br_error("discover", "%s: %s", job->node->hostname, err.msg);
			} else {
				br_warn("discover", "%s: quarantined: %s", job->node->hostname, reason);
				job->quarantined = 1;
				free(job->reason);
				job->reason = reason;
				reason = NULL;
				run->quarantined++;
			}
			free(reason);
		} else if (inv_checks_put(st->inv, job->node->hostname, "discover", &check, 1, &err)) {
			br_error("discover", "%s: %s", job->node->hostname, err.msg);
		}
		val_cabling_result_release(&r);
	}
out:
	for (size_t k = 0; k < n; k++) {
		val_bmc_cabling_release(&views[k]);
		br_hw_release(&hw[k]);
	}
	free(views);
	free(hw);
	free(job_of);
}

int stg_cabling_bmc_failed(struct inv *inv, int64_t node_id)
{
	struct inv_check *checks = NULL;
	size_t n = 0;
	int failed = 0;

	if (inv_node_checks(inv, node_id, &checks, &n, NULL))
		return 0;
	for (size_t i = 0; i < n; i++)
		failed |=
		    !strcmp(checks[i].name, STG_CHECK_CABLING_BMC) && checks[i].result == INV_CHECK_FAIL;
	inv_checks_free(checks, n);
	return failed;
}
