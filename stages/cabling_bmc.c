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
#include <strings.h>

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

/* Node views read back from the inventory, each as the in-band rules see
 * it. hosts owns the names the views borrow. */
struct bmc_views {
	struct br_hw *hw;
	struct val_bmc_cabling *views;
	struct br_strlist hosts;
	size_t n, cap;
};

static void views_release(struct bmc_views *v)
{
	for (size_t k = 0; k < v->n; k++) {
		val_bmc_cabling_release(&v->views[k]);
		br_hw_release(&v->hw[k]);
	}
	free(v->views);
	free(v->hw);
	br_strlist_release(&v->hosts);
	memset(v, 0, sizeof(*v));
}

/* Add host's view as its BMC showed it at discovery; 0 when it is in, -1
 * when the inventory holds none (a BMC not read yet, or that failed). The
 * names are stable: br_strlist copies each and only grows its array. */
static int views_add(struct inv *inv, const struct stg_cabling_bmc *c, const char *host, struct bmc_views *v)
{
	struct br_err err = { 0 };
	struct val_bmc_view view;
	struct br_hw hw;

	if (inv_load_hw_neighbors(inv, host, &hw, &err)) {
		br_debug("discover", "%s: no switch neighbours to judge: %s", host, err.msg);
		return -1;
	}
	if (v->n == v->cap) {
		v->cap = v->cap ? 2 * v->cap : 4;
		v->hw = br_xrealloc(v->hw, v->cap * sizeof(*v->hw));
		v->views = br_xrealloc(v->views, v->cap * sizeof(*v->views));
	}
	br_strlist_add(&v->hosts, host);
	v->hw[v->n] = hw;
	view = (struct val_bmc_view){ v->hosts.items[v->hosts.n - 1], hw.neighbor_source, hw.neighbors,
				      hw.n_neighbors };
	val_bmc_cabling_build(&c->wiring, c->have_switches ? &c->switches : NULL, &view, &v->views[v->n]);
	v->n++;
	return 0;
}

static int views_have(const struct bmc_views *v, const char *host)
{
	for (size_t i = 0; i < v->hosts.n; i++)
		if (!strcasecmp(v->hosts.items[i], host))
			return 1;
	return 0;
}

/* Judge host by its own ports against its wiring lines: that alone says
 * pass, fail or unknown. Whether a port that landed on another node's
 * designed port is one half of a swap needs that node's view too: the
 * partners its findings name are read from the inventory (discovered in
 * this round or before) and the judgement made again among them. The
 * partners judged are added to partners (may be NULL). -1 when host's own
 * view is not in the inventory. */
static int judge_host(struct inv *inv, const struct stg_cabling_bmc *c, const char *host,
		      struct val_cabling_result *ret, struct br_strlist *partners)
{
	struct bmc_views v = { 0 };
	struct val_cabling_result r;
	size_t before;

	if (views_add(inv, c, host, &v)) {
		views_release(&v);
		return -1;
	}
	val_bmc_cabling_judge(&c->wiring, &v.views[0], v.views, 1, &r);
	before = v.n;
	for (size_t i = 0; i < r.n; i++) {
		const char *other = r.findings[i].other_host;

		if (other && !views_have(&v, other) && !views_add(inv, c, other, &v) && partners)
			br_strlist_add(partners, other);
	}
	if (v.n > before) {
		val_cabling_result_release(&r);
		val_bmc_cabling_judge(&c->wiring, &v.views[0], v.views, v.n, &r);
	}
	views_release(&v);
	*ret = r;
	return 0;
}

static void quarantine(struct stg_stage *st, struct stg_discover_run *run, struct stg_discover_job *job,
		       struct inv_check *check, const char *detail)
{
	char *reason = br_xasprintf("cabling: %s", detail);
	struct inv_verdict v = { job->node->hostname, NULL,	     check, 1, INV_DISCOVERED,
				 INV_QUARANTINED,     BR_FAIL_STAGE, reason };
	struct br_err err = { 0 };

	if (inv_verdicts_put(st->inv, "discover", &v, 1, NULL, NULL, &err)) {
		br_error("discover", "%s: %s", job->node->hostname, err.msg);
		free(reason);
		return;
	}
	br_warn("discover", "%s: quarantined: %s", job->node->hostname, reason);
	job->quarantined = 1;
	free(job->reason);
	job->reason = reason;
	run->quarantined++;
}

/* A partner quarantined on its cables before this node's view was in
 * (its finding then a wrong port "the design gives to" this node) is
 * judged again now that both are: its check and reason say swap. */
static void rejudge_partner(struct stg_stage *st, const struct stg_cabling_bmc *c, const char *host)
{
	struct val_cabling_result r;
	struct inv_check check = { 0 };
	struct inv_node node;
	struct br_err err = { 0 };
	char name[] = STG_CHECK_CABLING_BMC;

	if (inv_node_get(st->inv, host, &node, &err))
		return;
	if (node.state != INV_QUARANTINED || !stg_cabling_bmc_failed(st->inv, node.id) ||
	    judge_host(st->inv, c, host, &r, NULL)) {
		inv_node_release(&node);
		return;
	}
	check.name = name;
	check.result = check_result(r.result);
	check.detail = r.detail;
	if (r.result == VAL_FAIL) {
		char *reason = br_xasprintf("cabling: %s", r.detail);
		struct inv_verdict v = { host,		NULL,  &check, 1, INV_QUARANTINED, INV_QUARANTINED,
					 BR_FAIL_STAGE, reason };

		if (node.reason && !strcmp(node.reason, reason))
			; /* nothing new: the partner's view was in when it was judged */
		else if (inv_verdicts_put(st->inv, "discover", &v, 1, NULL, NULL, &err))
			br_error("discover", "%s: %s", host, err.msg);
		else
			br_info("discover", "%s: judged again with its partner's cables: %s", host, reason);
		free(reason);
	}
	val_cabling_result_release(&r);
	inv_node_release(&node);
}

/* A finding names a node of this round whose BMC is still being read:
 * its view will tell a swap from a wrong port. */
static int partner_pending(const struct stg_discover_run *run, const struct val_cabling_result *r)
{
	for (size_t i = 0; i < r->n; i++)
		for (size_t k = 0; r->findings[i].other_host && k < run->n_jobs; k++)
			if (!run->jobs[k].done &&
			    !strcasecmp(run->jobs[k].node->hostname, r->findings[i].other_host))
				return 1;
	return 0;
}

void stg_cabling_bmc_judge_node(struct stg_stage *st, const struct stg_cabling_bmc *c,
				struct stg_discover_run *run, struct stg_discover_job *job, int final)
{
	struct br_strlist partners = { 0 };
	struct val_cabling_result r;
	struct inv_check check = { 0 };
	struct br_err err = { 0 };
	char name[] = STG_CHECK_CABLING_BMC;

	job->cabling_pending = 0;
	if (!c->have_wiring || judge_host(st->inv, c, job->node->hostname, &r, &partners))
		return;
	/* A node whose cables fail goes nowhere: it may wait for its partner
	 * (held, not handed on), so that its verdict names the swap once. */
	if (r.result == VAL_FAIL && !final && partner_pending(run, &r)) {
		job->cabling_pending = 1;
		val_cabling_result_release(&r);
		br_strlist_release(&partners);
		return;
	}
	check.name = name;
	check.result = check_result(r.result);
	check.detail = r.detail;
	if (r.result == VAL_FAIL)
		quarantine(st, run, job, &check, r.detail);
	else if (inv_checks_put(st->inv, job->node->hostname, "discover", &check, 1, &err))
		br_error("discover", "%s: %s", job->node->hostname, err.msg);
	val_cabling_result_release(&r);
	for (size_t i = 0; i < partners.n; i++)
		rejudge_partner(st, c, partners.items[i]);
	br_strlist_release(&partners);
	if (inv_lease_give_back_node(st->inv, job->node->hostname, &err))
		br_error("discover", "%s: %s", job->node->hostname, err.msg);
}

void stg_cabling_bmc_flush(struct stg_stage *st, const struct stg_cabling_bmc *c,
			   struct stg_discover_run *run, int final)
{
	for (size_t i = 0; i < run->n_jobs; i++)
		if (run->jobs[i].cabling_pending)
			stg_cabling_bmc_judge_node(st, c, run, &run->jobs[i], final);
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
