/*
 * bringup reprovision: release in MAAS, reset in the inventory. Each MAAS
 * answer is judged on its own: a machine MAAS no longer holds (404) or
 * already released (409 on release) needs nothing, so a re-run converges.
 * A node whose profile asks for it ([reprovision] erase) is released with
 * its disks erased, and waited for until MAAS has it Ready again.
 */
#include <stdlib.h>
#include <string.h>

#include "discover.h"
#include "reprovision.h"

struct job {
	struct maas_client *client;
	const struct stg_reprovision_options *o;
	const struct inv_node *node;
	enum maas_erase erase;
	int64_t wait_since_ms;
	int failed;
	struct br_err err;
};

static void job_fail(struct job *j, const struct maas_result *res, const char *doing)
{
	j->failed = 1;
	if (res && res->err && res->err->msg[0])
		br_errf(&j->err, res->rc, "%s: %s", doing, res->err->msg);
	else
		br_errf(&j->err, res ? res->rc : BR_E_IO, "%s: %s", doing,
			res ? br_strerror(res->rc) : "cannot queue it");
}

static void wait_ready(void *ctx);

/* While MAAS releases and erases, the machine is Releasing, then Disk
 * erasing; Ready (or New, for one never commissioned) ends the wait. */
static void on_read(void *ctx, const struct maas_result *res)
{
	struct job *j = ctx;
	struct maas_machine m;

	if (res->rc == BR_E_NOTFOUND)
		return; /* gone from MAAS: enlist registers it again */
	if (res->rc || maas_machine_parse(res->json, &m, &j->err)) {
		if (res->rc)
			job_fail(j, res, "reading the machine after release");
		else
			j->failed = 1;
		return;
	}
	if (m.status == MAAS_RELEASING || m.status == MAAS_DISK_ERASING) {
		if (br_now_ms() - j->wait_since_ms > j->o->wait_timeout_ms) {
			j->failed = 1;
			br_errf(&j->err, BR_E_TIMEOUT, "still %s after %lld s waiting for Ready%s%s",
				maas_status_name(m.status), (long long)(j->o->wait_timeout_ms / 1000),
				m.status_message ? ": " : "", m.status_message ? m.status_message : "");
		} else if (maas_after(j->client, j->o->poll_ms, wait_ready, j)) {
			job_fail(j, NULL, "waiting for Ready");
		}
	} else if (m.status != MAAS_READY && m.status != MAAS_NEW) {
		j->failed = 1;
		br_errf(&j->err, BR_E_STATE, "released into %s, not Ready%s%s", maas_status_name(m.status),
			m.status_message ? ": " : "", m.status_message ? m.status_message : "");
	}
	maas_machine_release(&m);
}

static void wait_ready(void *ctx)
{
	struct job *j = ctx;

	if (maas_machine_get(j->client, j->node->maas_system_id, on_read, j))
		job_fail(j, NULL, "reading the machine after release");
}

static void on_release(void *ctx, const struct maas_result *res)
{
	struct job *j = ctx;

	/* 409: not in a state MAAS releases from (Ready, New): nothing held. */
	if (res->rc && res->status != 409 && res->status != 404) {
		job_fail(j, res, "release");
		return;
	}
	if (!res->rc && j->erase != MAAS_ERASE_NONE) {
		j->wait_since_ms = br_now_ms();
		wait_ready(j);
	}
}

static void on_fixed(void *ctx, const struct maas_result *res)
{
	struct job *j = ctx;

	/* A machine that was not broken answers 409; release it all the same. */
	if (res->rc && res->status == 404)
		return;
	if (maas_release_erase(j->client, j->node->maas_system_id, j->erase, on_release, j))
		job_fail(j, NULL, "release");
}

static enum maas_erase erase_of(const struct prof_profile *p)
{
	switch (p->hw.erase) {
	case PROF_ERASE_NO:
		return MAAS_ERASE_NONE;
	case PROF_ERASE_FULL:
		return MAAS_ERASE_FULL;
	case PROF_ERASE_QUICK:
		return MAAS_ERASE_QUICK;
	case PROF_ERASE_SECURE:
		return MAAS_ERASE_SECURE;
	}
	return MAAS_ERASE_NONE;
}

/* Each node's profile says whether its disks are erased; one that will not
 * load stops the run before MAAS is touched. */
static int profiles(struct stg_stage *st, struct job *jobs, struct stg_profiles *ps)
{
	struct br_err err = { 0 };

	for (size_t i = 0; i < st->n; i++) {
		const struct prof_profile *p = stg_profiles_get(ps, st->nodes[i].profile, &err);

		if (!p)
			return stg_stage_usage(st, "%s (node %s)", err.msg, st->nodes[i].hostname);
		jobs[i].erase = erase_of(p);
	}
	return 0;
}

static int release_all(struct stg_stage *st, const struct stg_reprovision_options *o, struct job *jobs,
		       struct br_err *err)
{
	struct maas_client *client = NULL;
	int rc = maas_client_new(&o->maas, &client, err);

	if (!rc)
		rc = maas_check_access(client, err);
	for (size_t i = 0; !rc && i < st->n; i++) {
		jobs[i].client = client;
		if (st->nodes[i].maas_system_id && *st->nodes[i].maas_system_id)
			rc = maas_mark_fixed(client, st->nodes[i].maas_system_id, on_fixed, &jobs[i]);
	}
	if (!rc)
		rc = maas_client_run(client, err);
	maas_client_free(client);
	return rc;
}

/* A node discover quarantined on its cables (cabling_bmc failing): its
 * cables are judged again only by discover, before MAAS hears of it. */
static int quarantined_on_cables(struct inv *inv, const struct inv_node *node)
{
	return node->state == INV_QUARANTINED && stg_cabling_bmc_failed(inv, node->id);
}

/* Where a node starts over: one that failed before it was deployed at the
 * stage it failed in (a BMC that refused the login is read again, not
 * pushed through validate), one quarantined on its cables before PXE at
 * discover, any other at enlist ('configured'), or with --rediscover at
 * discover ('new'). */
static enum inv_state restart_state(struct inv *inv, const struct inv_node *node, int rediscover,
				    const char **ret_failed_in)
{
	const char *failed_in = stg_failed_in(inv, node, 0);

	*ret_failed_in = failed_in && strcmp(failed_in, "validate") ? failed_in : NULL;
	if (rediscover || (*ret_failed_in && !strcmp(failed_in, "discover")) ||
	    quarantined_on_cables(inv, node))
		return INV_NEW;
	if (*ret_failed_in && !strcmp(failed_in, "configure"))
		return INV_DISCOVERED;
	return INV_CONFIGURED;
}

void stg_reprovision_options_init(struct stg_reprovision_options *o)
{
	memset(o, 0, sizeof(*o));
	maas_options_init(&o->maas);
	o->poll_ms = 1000;
	o->wait_timeout_ms = 60 * 60 * 1000;
}

int stg_reprovision_run(struct stg_stage *st, const struct stg_reprovision_options *o,
			struct stg_reprovision_run *run)
{
	struct job *jobs = br_xcalloc(st->n ? st->n : 1, sizeof(*jobs));
	struct stg_profiles ps = { 0 };
	struct br_err err = { 0 };

	for (size_t i = 0; i < st->n; i++)
		jobs[i] = (struct job){ .o = o, .node = &st->nodes[i] };
	if (!o->no_maas && profiles(st, jobs, &ps)) {
		stg_profiles_release(&ps);
		free(jobs);
		return st->exit;
	}
	stg_profiles_release(&ps);
	if (!o->no_maas && release_all(st, o, jobs, &err)) {
		free(jobs);
		return stg_stage_fail(st, STG_EXIT_UNREACHABLE, "MAAS: %s", err.msg);
	}
	for (size_t i = 0; i < st->n; i++) {
		const struct inv_node *n = &st->nodes[i];
		int held = !o->no_maas && n->maas_system_id && *n->maas_system_id;
		const char *failed_in;
		enum inv_state to = restart_state(st->inv, n, o->rediscover, &failed_in);
		char *reason;

		if (jobs[i].failed) {
			br_error("reprovision", "%s: MAAS: %s", n->hostname, jobs[i].err.msg);
			run->errors++;
			continue;
		}
		run->released += held;
		run->erased += held && jobs[i].erase != MAAS_ERASE_NONE;
		/* "from" is what the stage read under its lease: a compare-and-set. */
		reason = br_xasprintf("reprovision from %s%s%s%s", inv_state_name(n->state),
				      failed_in ? " in " : "", failed_in ? failed_in : "",
				      !held				 ? ""
				      : jobs[i].erase != MAAS_ERASE_NONE ? ": released in MAAS, disks erased"
									 : ": released in MAAS");
		br_err_clear(&err);
		if (n->state != to && inv_node_set_state(st->inv, n->hostname, n->state, to, reason, &err)) {
			br_error("reprovision", "%s: %s", n->hostname, err.msg);
			run->errors++;
			if (stg_inventory_refused(&err))
				stg_stage_unwritable(st, 1, err.msg);
		} else {
			run->reset++;
		}
		free(reason);
	}
	free(jobs);
	return 0;
}
