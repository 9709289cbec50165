/*
 * bringup reprovision: release in MAAS, reset in the inventory. Each MAAS
 * answer is judged on its own: a machine MAAS no longer holds (404) or
 * already released (409 on release) needs nothing, so a re-run converges.
 */
#include <stdlib.h>
#include <string.h>

#include "reprovision.h"

struct job {
	struct maas_client *client;
	const struct inv_node *node;
	int failed;
	struct br_err err;
};

static void on_release(void *ctx, const struct maas_result *res)
{
	struct job *j = ctx;

	/* 409: not in a state MAAS releases from (Ready, New): nothing held. */
	if (res->rc && res->status != 409 && res->status != 404) {
		j->failed = 1;
		j->err = *res->err;
	}
}

static void on_fixed(void *ctx, const struct maas_result *res)
{
	struct job *j = ctx;

	/* A machine that was not broken answers 409; release it all the same. */
	if (res->rc && res->status == 404)
		return;
	if (maas_release(j->client, j->node->maas_system_id, on_release, j)) {
		j->failed = 1;
		br_errf(&j->err, BR_E_IO, "cannot queue release");
	}
}

static int release_all(struct br_stage *st, const struct repro_options *o, struct job *jobs, struct br_err *err)
{
	struct maas_client *client = NULL;
	int rc = maas_client_new(&o->maas, &client, err);

	if (!rc)
		rc = maas_check_access(client, err);
	for (size_t i = 0; !rc && i < st->n; i++) {
		jobs[i].client = client;
		jobs[i].node = &st->nodes[i];
		if (st->nodes[i].maas_system_id && *st->nodes[i].maas_system_id)
			rc = maas_mark_fixed(client, st->nodes[i].maas_system_id, on_fixed, &jobs[i]);
	}
	if (!rc)
		rc = maas_client_run(client, err);
	maas_client_free(client);
	return rc;
}

int repro_run(struct br_stage *st, const struct repro_options *o, struct repro_run *run)
{
	struct job *jobs = br_xcalloc(st->n ? st->n : 1, sizeof(*jobs));
	enum inv_state to = o->rediscover ? INV_NEW : INV_CONFIGURED;
	struct br_err err = { 0 };

	if (!o->no_maas && release_all(st, o, jobs, &err)) {
		free(jobs);
		return br_stage_fail(st, BR_EXIT_UNREACHABLE, "MAAS: %s", err.msg);
	}
	for (size_t i = 0; i < st->n; i++) {
		const struct inv_node *n = &st->nodes[i];
		int held = !o->no_maas && n->maas_system_id && *n->maas_system_id;
		char *reason;

		if (jobs[i].failed) {
			br_error("reprovision", "%s: MAAS release: %s", n->hostname, jobs[i].err.msg);
			run->errors++;
			continue;
		}
		run->released += held;
		/* "from" is what the stage read under its lease: a compare-and-set. */
		reason = br_xasprintf("reprovision from %s%s", inv_state_name(n->state),
				      held ? ": released in MAAS" : "");
		br_err_clear(&err);
		if (n->state != to && inv_node_set_state(st->inv, n->hostname, n->state, to, reason, &err)) {
			br_error("reprovision", "%s: %s", n->hostname, err.msg);
			run->errors++;
		} else {
			run->reset++;
		}
		free(reason);
	}
	free(jobs);
	return 0;
}
