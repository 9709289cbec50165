/* The validate stage's active checks ([active] in hardware.conf): after
 * every node's probe, the tools its profile opts into are run over SSH,
 * each under its own time limit, on all the nodes that ask for the same
 * command at once: `dcgmi diag -r N -j`, and perftest's ib_write_bw
 * looped back between the node's first two InfiniBand HCAs (a server on
 * one, the client on the other, through localhost). Nothing is installed:
 * a node without the tool gets unknown with the reason. */
#include <stdlib.h>
#include <string.h>

#include "validate.h"

/* One ib_write_bw server on $1 in the background, the client on $2 to it,
 * the client's report printed; the server's exit waited for. The devices
 * are the probe's names, passed as arguments (never shell text). */
static const char rdma_script[] = "ib_write_bw -d \"$1\" -F --report_gbits -D 5 >/dev/null 2>&1 & s=$!; "
				  "sleep 1; ib_write_bw -d \"$2\" -F --report_gbits -D 5 localhost; "
				  "rc=$?; wait $s; exit $rc";

struct active_job {
	struct stg_validate_job *job;
	const char *args[8];
	char level[12];
	char *hcas; /* "mlx5_0 to mlx5_1" (rdma_bw) */
	int64_t limit_s;
	int done;
};

/* The first two HCA devices of the node's probe with a port up, or 0. */
static int two_hcas(json_t *probe, const char **a, const char **b)
{
	json_t *ports = br_json_path(probe, "infiniband/ports"), *p;
	size_t i;

	*a = *b = NULL;
	json_array_foreach(ports, i, p)
	{
		const char *dev = br_json_str(p, "device");

		if (!dev || json_integer_value(json_object_get(p, "state_code")) != 4)
			continue;
		if (!*a)
			*a = dev;
		else if (strcmp(*a, dev)) {
			*b = dev;
			return 1;
		}
	}
	return 0;
}

static int same_command(const struct active_job *x, const struct active_job *y)
{
	if (x->limit_s != y->limit_s)
		return 0;
	for (size_t i = 0; i < 8; i++) {
		if (!x->args[i] || !y->args[i])
			return x->args[i] == y->args[i];
		if (strcmp(x->args[i], y->args[i]))
			return 0;
	}
	return 1;
}

/* Run jobs[i]'s command on it and every later job with the same one, judge
 * each with judge(). */
static void run_batch(const struct stg_validate_options *o, struct stg_validate_run *run,
		      struct active_job *jobs, size_t n, size_t first, int dcgm, struct val_ssh_config *cfg)
{
	struct val_ssh_target *targets = br_xcalloc(n, sizeof(*targets));
	struct val_ssh_host *hosts = br_xcalloc(n, sizeof(*hosts));
	struct val_ssh_result *results = br_xcalloc(n, sizeof(*results));
	size_t *which = br_xcalloc(n, sizeof(*which)), k = 0;
	struct val_ssh_options so;
	struct br_loop *loop = NULL;
	struct br_err err = { 0 };
	int rc;

	for (size_t i = first; i < n; i++) {
		struct stg_validate_job *job = jobs[i].job;

		if (jobs[i].done || !same_command(&jobs[first], &jobs[i]))
			continue;
		jobs[i].done = 1;
		if (val_ssh_config_lookup(cfg, job->node->hostname, &hosts[k], &err))
			memset(&hosts[k], 0, sizeof(hosts[k]));
		targets[k] = (struct val_ssh_target){ job->node->hostname,
						      hosts[k].hostname ? hosts[k].hostname : job->node->ip,
						      hosts[k].port, hosts[k].proxy_jump };
		which[k++] = i;
	}
	val_ssh_options_init(&so);
	so.user = o->ssh_user ? o->ssh_user : run->ssh_user ? run->ssh_user : "ubuntu";
	so.private_key = o->ssh_key;
	so.known_hosts = o->known_hosts;
	so.ssh_config = o->ssh_config;
	so.host_keys = o->host_keys;
	so.upload = NULL;
	so.limit_option = NULL;
	so.args = jobs[first].args;
	so.run_timeout_ms = jobs[first].limit_s * 1000;
	rc = br_loop_new(&loop, &err) || val_ssh_run(loop, targets, k, &so, results, NULL, NULL, &err);
	for (size_t i = 0; i < k; i++) {
		struct active_job *a = &jobs[which[i]];
		struct val_ssh_result *r = &results[i];
		struct val_active_run ar = {
			.ran = !rc && r->ok,
			.past_limit = !rc && !r->ok && r->failure == BR_FAIL_TIME_LIMIT,
			.error = rc ? err.msg : r->error,
			.exit_status = r->exit_status,
			.out = r->out.data,
			.err = br_buf_str(&r->err),
			.out_len = r->out.len,
			.limit_s = a->limit_s,
		};

		if (dcgm)
			val_judge_dcgm_diag(a->job->profile, a->job->probe, &ar, &a->job->active_checks,
					    &a->job->n_active_checks);
		else
			val_judge_rdma_bw(a->job->profile, a->hcas, &ar, &a->job->active_checks,
					  &a->job->n_active_checks);
		val_ssh_result_release(&results[i]);
		val_ssh_host_release(&hosts[i]);
	}
	br_loop_free(loop);
	free(targets);
	free(hosts);
	free(results);
	free(which);
}

void stg_validate_active(const struct stg_validate_options *o, struct stg_validate_run *run)
{
	struct active_job *dcgm = br_xcalloc(run->n + 1, sizeof(*dcgm)),
			  *rdma = br_xcalloc(run->n + 1, sizeof(*rdma));
	struct val_ssh_config *cfg = NULL;
	struct br_err err = { 0 };
	size_t nd = 0, nr = 0;

	for (size_t i = 0; i < run->n; i++) {
		struct stg_validate_job *job = &run->jobs[i];
		const struct prof_hardware *hw = job->profile ? &job->profile->hw : NULL;
		const char *a, *b;

		if (!hw || job->done || !job->probe)
			continue;
		if (hw->dcgm_diag_level > 0) {
			struct active_job *d = &dcgm[nd++];

			d->job = job;
			snprintf(d->level, sizeof(d->level), "%d", hw->dcgm_diag_level);
			d->args[0] = "dcgmi";
			d->args[1] = "diag";
			d->args[2] = "-r";
			d->args[3] = d->level;
			d->args[4] = "-j";
			d->limit_s =
			    hw->dcgm_diag_limit_s ? hw->dcgm_diag_limit_s : PROF_ACTIVE_LIMIT_DEFAULT_S;
		}
		if (hw->rdma_bw_gbps > 0) {
			if (!two_hcas(job->probe, &a, &b)) {
				val_check_add_take(
				    &job->active_checks, &job->n_active_checks, br_xstrdup("rdma_bw"),
				    VAL_UNKNOWN,
				    br_xstrdup("the probe shows fewer than two HCAs with a port "
					       "up: no loopback to measure"));
				continue;
			}
			rdma[nr] = (struct active_job){ .job = job,
							.args = { "sh", "-c", rdma_script, "rdma_bw", a, b },
							.hcas = br_xasprintf("%s to %s", a, b),
							.limit_s = hw->rdma_bw_limit_s
								       ? hw->rdma_bw_limit_s
								       : PROF_ACTIVE_LIMIT_DEFAULT_S };
			nr++;
		}
	}
	if (o->facts_file || (!nd && !nr))
		goto out;
	if (o->ssh_config && val_ssh_config_load(o->ssh_config, &cfg, &err)) {
		for (size_t i = 0; i < nd + nr; i++) {
			struct active_job *a = i < nd ? &dcgm[i] : &rdma[i - nd];

			val_check_add_take(&a->job->active_checks, &a->job->n_active_checks,
					   br_xstrdup(i < nd ? "dcgm_diag" : "rdma_bw"), VAL_UNKNOWN,
					   br_xasprintf("not run: %s", err.msg));
		}
		goto out;
	}
	for (size_t i = 0; i < nd; i++)
		if (!dcgm[i].done)
			run_batch(o, run, dcgm, nd, i, 1, cfg);
	for (size_t i = 0; i < nr; i++)
		if (!rdma[i].done)
			run_batch(o, run, rdma, nr, i, 0, cfg);
out:
	if (o->facts_file)
		for (size_t i = 0; i < nd + nr; i++) {
			struct active_job *a = i < nd ? &dcgm[i] : &rdma[i - nd];

			val_check_add_take(&a->job->active_checks, &a->job->n_active_checks,
					   br_xstrdup(i < nd ? "dcgm_diag" : "rdma_bw"), VAL_UNKNOWN,
					   br_xstrdup("not run: a node judged from --facts is not reached"));
		}
	for (size_t i = 0; i < nr; i++)
		free(rdma[i].hcas);
	val_ssh_config_free(cfg);
	free(dcgm);
	free(rdma);
}
