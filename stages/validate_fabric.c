/* The validate stage's fabric step: the InfiniBand subnet read by
 * ibnetdiscover over SSH on a fabric host, once per run, on each of its
 * active InfiniBand ports (a port sees only the subnet it is on: a fabric
 * built as separate networks shows whole only in all of them), judged
 * against the fabric's wiring list; or, when it cannot be read, why, for
 * every node whose fabric is then unproven. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "validate.h"

#define FABRIC_HOSTS_TRIED 3		   /* candidates tried before the fabric is left unjudged */
#define FABRIC_RUN_MS_DEFAULT (120 * 1000) /* one ibnetdiscover, when no limit is given */

/* The node's InfiniBand ports (link layer InfiniBand) from a probe
 * document: "mlx5_0" "1" pairs into ports, active ones only. */
static size_t ib_ports_of(json_t *probe, struct br_strlist *ports)
{
	json_t *list = br_json_path(probe, "infiniband/ports"), *p;
	size_t i, n = 0;

	json_array_foreach(list, i, p)
	{
		const char *ll = br_json_str(p, "link_layer"), *dev = br_json_str(p, "device"),
			   *port = br_json_str(p, "port");

		if (!ll || strcasecmp(ll, "InfiniBand") || !dev || !port)
			continue;
		n++;
		if (ports && json_integer_value(json_object_get(p, "state_code")) == 4) {
			br_strlist_add(ports, dev);
			br_strlist_add(ports, port);
		}
	}
	return n;
}

/* Whether a node's fabric must be proven by the subnet: its profile says
 * its fabric is InfiniBand, or its probe shows an InfiniBand port. */
static int needs_fabric(const struct stg_validate_job *job)
{
	const char *ll = job->profile ? job->profile->hw.ib_link_layer : NULL;

	return (ll && !strcasecmp(ll, "InfiniBand")) || (job->probe && ib_ports_of(job->probe, NULL));
}

struct fabric_host {
	const char *name;
	json_t *probe; /* borrowed, or owned in doc */
	json_t *doc;
	const char *ip;
	char *ip_owned;
};

/* One ibnetdiscover on host h (args after the command name), its output
 * parsed into *ret. 0, or -1 with *ret_why. */
static int discover_once(const struct val_ssh_options *base, const struct val_ssh_target *t, const char *dev,
			 const char *port, struct val_ibnet *ret, char **ret_why)
{
	const char *args_port[] = { "ibnetdiscover", "-C", dev, "-P", port, NULL };
	const char *args_any[] = { "ibnetdiscover", NULL };
	struct val_ssh_options so = *base;
	struct val_ssh_result r = { 0 };
	struct br_strlist problems = { 0 };
	struct br_loop *loop = NULL;
	struct br_err err = { 0 };
	char *what = dev ? br_xasprintf("%s: ibnetdiscover -C %s -P %s", t->name, dev, port)
			 : br_xasprintf("%s: ibnetdiscover", t->name);
	int rc = -1;

	so.args = dev ? args_port : args_any;
	so.upload = NULL;
	so.limit_option = NULL;
	so.max_parallel = 1;
	if (br_loop_new(&loop, &err) || val_ssh_run(loop, t, 1, &so, &r, NULL, NULL, &err)) {
		*ret_why = br_xasprintf("%s: %s", what, err.msg);
	} else if (!r.ok) {
		*ret_why = br_xasprintf("%s: %s", what, r.error ? r.error : "did not run");
	} else if (r.exit_status != 0) {
		const char *e = br_buf_str(&r.err);
		size_t len = strcspn(e, "\n");

		*ret_why = br_xasprintf("%s: exit status %d%s%.*s", what, r.exit_status, len ? ": " : "",
					(int)(len > 200 ? 200 : len), e);
	} else if (val_ibnet_parse(r.out.data ? r.out.data : "", r.out.len, what, ret, &problems, &err)) {
		*ret_why = br_xstrdup(problems.n ? problems.items[0] : err.msg);
	} else {
		rc = 0;
	}
	br_strlist_release(&problems);
	val_ssh_result_release(&r);
	br_loop_free(loop);
	free(what);
	return rc;
}

/* The whole subnet as host h's ports see it: every active InfiniBand port
 * its probe shows, else the one ibnetdiscover picks itself. */
static int discover_on(const struct val_ssh_options *so, const struct val_ssh_target *t, json_t *probe,
		       struct val_ibnet *ret, char **ret_source, char **ret_why)
{
	struct br_strlist ports = { 0 };
	struct val_ibnet all = { 0 };
	struct br_buf src;
	int rc = 0;

	if (probe)
		ib_ports_of(probe, &ports);
	br_buf_init(&src, 0);
	if (!ports.n) {
		rc = discover_once(so, t, NULL, NULL, &all, ret_why);
		br_buf_addf(&src, "ibnetdiscover on %s", t->name);
	}
	for (size_t i = 0; i + 1 < ports.n && !rc; i += 2) {
		struct val_ibnet one = { 0 };

		rc = discover_once(so, t, ports.items[i], ports.items[i + 1], &one, ret_why);
		if (rc)
			break;
		br_buf_addf(&src, "%s%s/%s", i ? ", " : "", ports.items[i], ports.items[i + 1]);
		if (!i)
			all = one;
		else
			val_ibnet_merge(&all, &one);
	}
	if (ports.n && !rc) {
		char *ports_text = br_buf_detach(&src);

		br_buf_addf(&src, "ibnetdiscover on %s, port%s %s", t->name, ports.n > 2 ? "s" : "",
			    ports_text);
		free(ports_text);
	}
	br_strlist_release(&ports);
	if (rc) {
		val_ibnet_release(&all);
		br_buf_release(&src);
		return rc;
	}
	*ret = all;
	*ret_source = br_buf_detach(&src);
	return 0;
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Candidates: --fabric-host's nodes, else the run's nodes with an active
 * InfiniBand port, in order. */
static size_t candidates(const struct stg_validate_options *o, struct stg_validate_run *run,
			 struct fabric_host *out, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < o->fabric_hosts.n && n < max; i++) {
		const char *name = o->fabric_hosts.items[i];
		struct fabric_host h = { name, NULL, NULL, NULL, NULL };

		for (size_t k = 0; k < run->n && !h.probe; k++)
			if (!strcmp(run->jobs[k].node->hostname, name)) {
				h.probe = run->jobs[k].probe;
				h.ip = run->jobs[k].node->ip;
			}
		if (!h.probe) {
			char *text = NULL;
			struct br_err err = { 0 };

			if (!inv_load_probe(run->inv, name, &text, &err)) {
				h.doc = h.probe = json_loads(text, 0, NULL);
				free(text);
			}
			{
				struct inv_node node;

				if (!inv_node_get(run->inv, name, &node, &err)) {
					h.ip = h.ip_owned = node.ip ? br_xstrdup(node.ip) : NULL;
					inv_node_release(&node);
				}
			}
		}
		out[n++] = h;
	}
	for (size_t i = 0; !o->fabric_hosts.n && i < run->n && n < max; i++) {
		struct stg_validate_job *job = &run->jobs[i];
		struct br_strlist ports = { 0 };

		if (job->probe && !job->done) {
			ib_ports_of(job->probe, &ports);
			if (ports.n)
				out[n++] = (struct fabric_host){ job->node->hostname, job->probe, NULL,
								 job->node->ip, NULL };
		}
		br_strlist_release(&ports);
	}
	return n;
}

void stg_validate_fabric_collect(const struct stg_validate_options *o, struct stg_validate_run *run)
{
	struct fabric_host hosts[FABRIC_HOSTS_TRIED];
	struct val_ssh_config *cfg = NULL;
	struct val_ssh_options so;
	struct br_buf why;
	struct br_err err = { 0 };
	size_t need = 0, n;
	int judged = 0, stop = 0;

	if (run->have_fabric || o->facts_file)
		return;
	for (size_t i = 0; i < run->n; i++)
		need += run->jobs[i].probe && !run->jobs[i].done && needs_fabric(&run->jobs[i]);
	if (!need && !o->fabric_hosts.n)
		return;
	if (!run->have_ib_wiring) {
		run->fabric_unjudged = br_xstrdup(
		    "not judged: no fabric wiring list (--ib-wiring FILE, $BRINGUP_IB_WIRING or --wiring)");
		return;
	}
	n = candidates(o, run, hosts, FABRIC_HOSTS_TRIED);
	br_buf_init(&why, 0);
	if (!n)
		br_buf_adds(&why, "no node of this run has an active InfiniBand port to run ibnetdiscover on "
				  "(--fabric-host HOST names one)");
	if (n && o->ssh_config && val_ssh_config_load(o->ssh_config, &cfg, &err)) {
		br_buf_addf(&why, "%s", err.msg);
		stop = 1;
	}
	val_ssh_options_init(&so);
	so.user = o->ssh_user ? o->ssh_user : run->ssh_user ? run->ssh_user : "ubuntu";
	so.private_key = o->ssh_key;
	so.known_hosts = o->known_hosts;
	so.ssh_config = o->ssh_config;
	so.host_keys = o->host_keys;
	so.run_timeout_ms = o->timeout_ms ? o->timeout_ms : FABRIC_RUN_MS_DEFAULT;
	/* Each candidate in turn until one reads the whole subnet; why
	 * gathers what each could not do, for the nodes' verdict. */
	for (size_t i = 0; i < n && !judged && !stop; i++) {
		struct val_ssh_host sh = { 0 };
		struct val_ssh_target t = { hosts[i].name, NULL, 0, NULL };
		struct val_ibnet net;
		char *source = NULL, *one = NULL;

		if (val_ssh_config_lookup(cfg, hosts[i].name, &sh, &err)) {
			one = br_xasprintf("%s: %s", hosts[i].name, err.msg);
		} else {
			t.address = sh.hostname ? sh.hostname : hosts[i].ip;
			t.port = sh.port;
			t.proxy_jump = sh.proxy_jump;
			if (!t.address || !*t.address) {
				one = br_xasprintf("%s: no address to reach it", hosts[i].name);
			} else if (!discover_on(&so, &t, hosts[i].probe, &net, &source, &one)) {
				val_fabric_judge(&run->ib_wiring, &net, o->ib_rate, &run->fabric);
				val_ibnet_release(&net);
				run->fabric_source = source;
				judged = run->have_fabric = 1;
				br_info("validate", "fabric read by %s", source);
			}
		}
		if (one) {
			br_warn("validate", "fabric: %s", one);
			br_buf_addf(&why, "%s%s", why.len ? "; " : "", one);
			free(one);
		}
		val_ssh_host_release(&sh);
	}
	if (!judged) {
		run->fabric_unjudged =
		    br_xasprintf("not judged: the subnet could not be read: %s", br_buf_str(&why));
	}
	br_buf_release(&why);
	val_ssh_config_free(cfg);
	for (size_t i = 0; i < n; i++) {
		json_decref(hosts[i].doc);
		free(hosts[i].ip_owned);
	}
}

/* The check "fabric" for every node: judged where the fabric was, else
 * unknown (with why) where the node's fabric must be proven. */
static int in_round(const struct stg_validate_run *run, const char *hostname)
{
	for (size_t i = 0; i < run->n; i++)
		if (run->jobs[i].probe && !strcmp(run->jobs[i].node->hostname, hostname))
			return 1;
	return 0;
}

/* One ticket per separate fabric, on one node, its owner. bringup run's
 * flow validates the rack in rounds, each reading the whole subnet, so the
 * owner is not chosen among one round's nodes alone (one ticket per fabric
 * per round), nor among every node of the inventory (a node never
 * validated, its BMC dead, owned a fabric whose ticket nobody then filed):
 * among the nodes this round judges and those an earlier one did (a
 * stored fabric check), and an owner told before keeps its fabric. Where
 * the inventory cannot be read, this round's nodes. */
static void choose_owners(struct stg_validate_run *run)
{
	struct inv_node *all = NULL;
	struct inv_check **checks = NULL;
	size_t n_all = 0, k = 0, n_kept = 0, *n_checks = NULL, *kept_part;
	int64_t *ids;
	const char **names, **kept;
	struct br_err err = { 0 };

	if (inv_nodes_list(run->inv, &all, &n_all, &err))
		n_all = 0;
	ids = br_xcalloc(n_all + 1, sizeof(*ids));
	checks = br_xcalloc(n_all + 1, sizeof(*checks));
	n_checks = br_xcalloc(n_all + 1, sizeof(*n_checks));
	for (size_t i = 0; i < n_all; i++)
		ids[i] = all[i].id;
	if (n_all && inv_checks_read_many(run->inv, ids, n_all, checks, n_checks, &err)) {
		br_warn("validate", "reading the fabric checks of earlier rounds: %s", err.msg);
		memset(n_checks, 0, (n_all + 1) * sizeof(*n_checks));
		memset(checks, 0, (n_all + 1) * sizeof(*checks));
	}
	names = br_xcalloc(n_all + run->n + 1, sizeof(*names));
	kept = br_xcalloc(n_all + 1, sizeof(*kept));
	kept_part = br_xcalloc(n_all + 1, sizeof(*kept_part));
	for (size_t i = 0; i < run->n; i++)
		if (run->jobs[i].probe)
			names[k++] = run->jobs[i].node->hostname;
	for (size_t i = 0; i < n_all; i++) {
		const struct inv_check *fabric = NULL;

		for (size_t c = 0; c < n_checks[i] && !fabric; c++)
			if (!strcmp(checks[i][c].name, "fabric"))
				fabric = &checks[i][c];
		if (!fabric)
			continue;
		if (!in_round(run, all[i].hostname))
			names[k++] = all[i].hostname;
		if (fabric->component && !strncmp(fabric->component, "ib-fabric:", 10)) {
			char *end = NULL;
			unsigned long part = strtoul(fabric->component + 10, &end, 10);

			if (end && !*end && part) {
				kept[n_kept] = all[i].hostname;
				kept_part[n_kept++] = part;
			}
		}
	}
	if (k)
		qsort(names, k, sizeof(*names), str_cmp);
	val_fabric_owners_keep(&run->fabric, names, k, kept, kept_part, n_kept);
	for (size_t i = 0; i < n_all; i++)
		inv_checks_free(checks[i], n_checks[i]);
	free(checks);
	free(n_checks);
	free(ids);
	free(names);
	free(kept);
	free(kept_part);
	inv_nodes_free(all, n_all);
}

void stg_validate_fabric_checks(struct stg_validate_run *run)
{
	if (run->have_fabric)
		choose_owners(run);
	for (size_t i = 0; i < run->n; i++) {
		struct stg_validate_job *job = &run->jobs[i];
		enum val_result result;
		char *detail, *component = NULL;

		if (!job->probe)
			continue;
		if (run->have_fabric &&
		    !val_fabric_node_check(&run->ib_wiring, &run->fabric, job->node->hostname, &result,
					   &detail, &component)) {
			if (run->fabric_source) {
				char *more = br_xasprintf("%s (%s)", detail, run->fabric_source);

				free(detail);
				detail = more;
			}
			val_check_add_take(&job->checks, &job->n_checks, br_xstrdup("fabric"), result,
					   detail);
			job->checks[job->n_checks - 1].component = component;
			continue;
		}
		if (!needs_fabric(job))
			continue;
		val_check_add_take(
		    &job->checks, &job->n_checks, br_xstrdup("fabric"), VAL_UNKNOWN,
		    run->have_fabric
			? br_xasprintf("not judged: the fabric's wiring list cables none of its ports (%s)",
				       run->ib_wiring.path ? run->ib_wiring.path : "")
			: br_xstrdup(run->fabric_unjudged ? run->fabric_unjudged
							  : "not judged: no subnet topology was read"));
	}
}
