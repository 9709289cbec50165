/*
 * bringup validate: run bringup-probe on every deployed node over SSH (or
 * judge a saved probe document), store what it saw, and judge it with the
 * BMC's facts against the node's profile and the wiring list. Nodes whose
 * checks all ran become 'validated' (gate promotes or quarantines them);
 * nodes that could not be probed become 'failed' with the reason.
 */
#include <stdlib.h>
#include <string.h>

#include "stages/stages.h"

static const char *env_or(const char *value, const char *var, const char *fallback)
{
	const char *env = getenv(var);

	if (value && *value)
		return value;
	return env && *env ? env : fallback;
}

/* A positive count from the environment (a run sized without a flag), else
 * fallback. */
static int env_count(const char *var, int fallback)
{
	const char *env = getenv(var);
	char *end;
	long v;

	if (!env || !*env)
		return fallback;
	v = strtol(env, &end, 10);
	return *end || v < 1 || v > 4096 ? fallback : (int)v;
}

struct args {
	struct stg_validate_options o;
	const char *fabric, *fabric_rate, *fabric_hosts;
	const char *policy;
	int timeout_s;
	char *default_probe, *default_known_hosts;
};

static int check_args(struct stg_stage *st, struct args *a)
{
	const char *home = getenv("HOME");
	char *self = br_self_dir();

	a->default_probe = self ? br_xasprintf("%s/bringup-probe", self) : NULL;
	a->default_known_hosts = home ? br_xasprintf("%s/.ssh/known_hosts", home) : NULL;
	free(self);
	a->o.ssh_key = env_or(a->o.ssh_key, "BRINGUP_SSH_KEY", NULL);
	a->o.known_hosts = env_or(a->o.known_hosts, "BRINGUP_KNOWN_HOSTS", a->default_known_hosts);
	a->o.ssh_config = env_or(a->o.ssh_config, "BRINGUP_SSH_CONFIG", NULL);
	a->o.ssh_user = env_or(a->o.ssh_user, "BRINGUP_SSH_USER", NULL);
	a->o.wiring = env_or(a->o.wiring, "BRINGUP_WIRING", NULL);
	a->o.switches = env_or(a->o.switches, "BRINGUP_SWITCHES", NULL);
	a->o.ib_topology = env_or(a->o.ib_topology, "BRINGUP_IB_TOPOLOGY", NULL);
	a->o.ib_wiring = env_or(a->o.ib_wiring, "BRINGUP_IB_WIRING", a->o.wiring);
	a->o.ib_rate = a->fabric_rate = env_or(a->fabric_rate, "BRINGUP_FABRIC_RATE", NULL);
	a->fabric_hosts = env_or(a->fabric_hosts, "BRINGUP_FABRIC_HOST", NULL);
	for (const char *h = a->fabric_hosts; h && *h;) {
		size_t len = strcspn(h, ", ");

		if (len) {
			char *one = br_xstrndup(h, len);

			br_strlist_add(&a->o.fabric_hosts, one);
			free(one);
		}
		h += len + strspn(h + len, ", ");
	}
	if (a->o.ib_topology && !a->o.ib_wiring)
		return stg_stage_usage(st, "--ib-topology needs the fabric's design: --ib-wiring FILE, "
					   "$BRINGUP_IB_WIRING or the wiring list");
	a->o.probe = env_or(a->o.probe, "BRINGUP_PROBE", a->default_probe);
	if (!strcmp(a->policy, "strict"))
		a->o.host_keys = VAL_SSH_STRICT;
	else if (!strcmp(a->policy, "accept-new"))
		a->o.host_keys = VAL_SSH_ACCEPT_NEW;
	else
		return stg_stage_usage(st, "--host-key-policy: '%s' (want strict or accept-new)", a->policy);
	if (a->o.parallel < 1 || a->timeout_s < 0)
		return stg_stage_usage(st, "--parallel must be positive, --timeout not negative");
	if (a->o.workers < 0 || a->o.workers > VAL_SSH_WORKERS_MAX)
		return stg_stage_usage(st, "--workers must be 0-%d", VAL_SSH_WORKERS_MAX);
	a->o.timeout_ms = a->timeout_s * 1000LL;
	if (!a->o.facts_file && !a->o.ssh_key)
		return stg_stage_usage(
		    st, "the validators' private key is needed: --ssh-key PATH or $BRINGUP_SSH_KEY "
			"(its public half is what enlist put in the nodes' authorized_keys)");
	if (!a->o.facts_file && !a->o.known_hosts)
		return stg_stage_usage(st, "no known_hosts file: --known-hosts PATH or $BRINGUP_KNOWN_HOSTS");
	if (!a->o.facts_file && !a->o.probe)
		return stg_stage_usage(st, "cannot find bringup-probe beside this program: --probe PATH");
	return 0;
}

int main(int argc, char **argv)
{
	struct stg_stage st = { 0 };
	struct args a = { .policy = "strict",
			  .timeout_s = 0,
			  .o = { .parallel =
				     env_count("BRINGUP_VALIDATE_PARALLEL", VAL_SSH_PARALLEL_DEFAULT) } };
	const struct br_option options[] = {
		{ "facts", 0, BR_OPT_STRING, &a.o.facts_file, "FILE",
		  "judge this saved bringup-probe document for the one named HOST, without SSH" },
		{ "fabric", 0, BR_OPT_STRING, &a.fabric, "FILE",
		  "fabric mode: judge this ibnetdiscover or iblinkinfo output against --wiring (no nodes, no "
		  "inventory)" },
		{ "fabric-rate", 0, BR_OPT_STRING, &a.fabric_rate, "RATE",
		  "the rate every fabric link must train at, as ibnetdiscover prints it (4xNDR; default "
		  "$BRINGUP_FABRIC_RATE)" },
		{ "ib-topology", 0, BR_OPT_STRING, &a.o.ib_topology, "FILE",
		  "ibnetdiscover or iblinkinfo output of the fabric: each node it cables gets check 'fabric' "
		  "(default "
		  "$BRINGUP_IB_TOPOLOGY)" },
		{ "fabric-host", 0, BR_OPT_STRING, &a.fabric_hosts, "HOST[,HOST...]",
		  "nodes to run ibnetdiscover on over SSH, tried in order (default $BRINGUP_FABRIC_HOST, "
		  "else the run's nodes with an active InfiniBand port)" },
		{ "ib-wiring", 0, BR_OPT_STRING, &a.o.ib_wiring, "FILE",
		  "the fabric's cables by design (default $BRINGUP_IB_WIRING, else --wiring)" },
		{ "wiring", 0, BR_OPT_STRING, &a.o.wiring, "FILE",
		  "wiring list (bringup's or NetBox's cable CSV; default $BRINGUP_WIRING)" },
		{ "switches", 0, BR_OPT_STRING, &a.o.switches, "FILE",
		  "switch,chassis_id of every switch, for comparing the BMC's switch neighbours with the "
		  "OS's LLDP (check cabling_views; default $BRINGUP_SWITCHES)" },
		{ "ssh-key", 'i', BR_OPT_STRING, &a.o.ssh_key, "PATH",
		  "private key (default $BRINGUP_SSH_KEY)" },
		{ "known-hosts", 0, BR_OPT_STRING, &a.o.known_hosts, "PATH",
		  "known_hosts file (default $BRINGUP_KNOWN_HOSTS, else ~/.ssh/known_hosts)" },
		{ "host-key-policy", 0, BR_OPT_STRING, &a.policy, "POLICY",
		  "strict (default: unknown or changed keys refused) or accept-new (record unknown ones)" },
		{ "ssh-config", 'F', BR_OPT_STRING, &a.o.ssh_config, "PATH",
		  "ssh_config with Host entries saying where nodes are (default $BRINGUP_SSH_CONFIG)" },
		{ "ssh-user", 'l', BR_OPT_STRING, &a.o.ssh_user, "USER",
		  "account on the nodes (default $BRINGUP_SSH_USER, the ssh config's, else ubuntu)" },
		{ "probe", 0, BR_OPT_STRING, &a.o.probe, "PATH",
		  "bringup-probe to copy over (default: the one beside this program)" },
		{ "parallel", 0, BR_OPT_INT, &a.o.parallel, "N",
		  "nodes probed at once (default $BRINGUP_VALIDATE_PARALLEL, else 128)" },
		{ "workers", 0, BR_OPT_INT, &a.o.workers, "N",
		  "SSH worker processes (default 0: one per CPU, at most one per 8 nodes; 1: none)" },
		{ "timeout", 0, BR_OPT_INT, &a.timeout_s, "SECONDS",
		  "time limit on one node (default: its profile's [time_limits] validation, else 600)" },
		STG_FOLLOW_OPTION(&st),
		{ 0 },
	};
	const struct br_command cmd = {
		"bringup-validate",
		"[options] [HOST...]",
		"Run bringup-probe on every 'deployed' node (or the named ones) over SSH, store its facts, "
		"and\n"
		"judge them with the BMC's against the node's profile and the wiring list: cabling, PCIe\n"
		"width/speed, boot disk, thermal, cpufreq, clock, GPU/NIC/NVMe counts, PSUs, firmware, "
		"dmesg;\n"
		"read the InfiniBand subnet (ibnetdiscover over SSH on a fabric host) and judge the fabric;\n"
		"run the active checks the profile opts into ([active]: dcgmi diag, ib_write_bw loopback).\n"
		"Nodes whose checks ran become 'validated'; 'bringup gate' promotes or quarantines them.",
		options,
		&st.common,
	};
	const int *states = stg_stage_states("validate", 0);

	if (stg_stage_parse(&st, &cmd, argc, argv))
		return stg_stage_close(&st);
	if (a.fabric) {
		const char *wiring = env_or(a.o.wiring, "BRINGUP_WIRING", NULL);

		st.exit = wiring
			      ? stg_validate_fabric(a.fabric, wiring,
						    env_or(a.fabric_rate, "BRINGUP_FABRIC_RATE", NULL),
						    st.common.json)
			      : stg_stage_usage(
				    &st, "--fabric needs the wiring list: --wiring FILE or $BRINGUP_WIRING");
		return stg_stage_close(&st);
	}
	st.zoned_writes = 1;
	if (!check_args(&st, &a) && !stg_stage_open(&st, states))
		while (stg_stage_round(&st, states)) {
			struct stg_validate_run run = { 0 };

			if (!stg_validate_run(&st, &a.o, &run))
				stg_stage_report(&st, stg_validate_json, stg_validate_print, &run,
						 run.failed);
			stg_validate_run_release(&run);
		}
	br_strlist_release(&a.o.fabric_hosts);
	free(a.default_probe);
	free(a.default_known_hosts);
	return stg_stage_close(&st);
}
