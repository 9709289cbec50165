/*
 * bringup enlist: hand configured (or, with --skip-configure, discovered)
 * nodes to MAAS by the MACs discovery collected, commission them, pin the
 * install disk by serial, and deploy. Nodes end `deployed`, or `failed`
 * with MAAS's own words. MAAS unreachable or the key refused: exit 3 before
 * anything changes; no SSH key (unless --no-ssh-key), a MAAS URL or key
 * reference that cannot be right, a BMC password reference that does not
 * resolve: exit 2, as early.
 */
#include <stdlib.h>
#include <string.h>

#include "stages/stages.h"

int main(int argc, char **argv)
{
	struct stg_stage st = { 0 };
	struct stg_enlist_stage_options a = { .pubkey = getenv("BRINGUP_SSH_PUBKEY"),
					      .pubkey_env = getenv("BRINGUP_SSH_PUBKEY"),
					      .distro = "jammy",
					      .max_parallel = 64,
					      .max_inflight = 32,
					      .poll_ms = 1000,
					      .retries = 5,
					      .commission_timeout_s = 0,
					      .deploy_timeout_s = 0 };
	const struct br_option options[] = {
		STG_MAAS_OPTIONS(&a.maas),
		{ "skip-configure", 0, BR_OPT_FLAG, &a.skip_configure, NULL,
		  "also take 'discovered' nodes (configure not run)" },
		{ "max-parallel", 'j', BR_OPT_INT, &a.max_parallel, "N",
		  "machines in flight at once (default 64)" },
		{ "max-inflight", 0, BR_OPT_INT, &a.max_inflight, "N",
		  "MAAS requests in flight at once (default 32)" },
		{ "poll-ms", 0, BR_OPT_INT, &a.poll_ms, "MS",
		  "status poll interval while waiting (default 1000)" },
		{ "workers", 0, BR_OPT_INT, &a.workers, "N",
		  "processes driving machines (default 0: min(CPUs, nodes / 64); 1: this one)" },
		{ "retries", 0, BR_OPT_INT, &a.retries, "N",
		  "retries per request on 503, 409 + Retry-After, resets (default 5)" },
		{ "commission-timeout", 0, BR_OPT_INT, &a.commission_timeout_s, "SECONDS",
		  "wait for Ready at most (default: the profile's [time_limits] commissioning, else 1800)" },
		{ "deploy-timeout", 0, BR_OPT_INT, &a.deploy_timeout_s, "SECONDS",
		  "wait for Deployed at most (default: the profile's [time_limits] deployment, else 3600)" },
		{ "distro", 0, BR_OPT_STRING, &a.distro, "SERIES",
		  "Ubuntu series to deploy (default jammy)" },
		{ "ssh-pubkey", 0, BR_OPT_STRING, &a.pubkey, "PATH",
		  "public key(s) the validators log in with, one a line (default $BRINGUP_SSH_PUBKEY); "
		  "required unless --no-ssh-key" },
		{ "no-ssh-key", 0, BR_OPT_FLAG, &a.no_ssh_key, NULL,
		  "deploy with no SSH key in the user-data (validate cannot log in to such nodes)" },
		{ "ntp-server", 0, BR_OPT_LIST, &a.ntp, "HOST",
		  "NTP server for the nodes, repeatable (default $BRINGUP_NTP_SERVERS or ntp.ubuntu.com)" },
		{ "package", 0, BR_OPT_LIST, &a.packages, "NAME",
		  "package to install, repeatable (default chrony lldpd nvme-cli pciutils ipmitool)" },
		STG_FOLLOW_OPTION(&st),
		{ 0 },
	};
	const struct br_command cmd = {
		"bringup-enlist",
		"[options] [HOST...]",
		"Register 'configured' nodes (with --skip-configure also 'discovered' ones; 'enlisted' ones "
		"and\n"
		"those that failed in MAAS are resumed) with MAAS by their discovered MACs, commission them, "
		"set\n"
		"the boot disk by serial (manifest boot_disk_serial, else the profile's boot-disk rule), "
		"deploy\n"
		"with templates/cloud-init/user-data, and record system_id, address and state 'deployed'.",
		options,
		&st.common,
	};
	struct stg_enlist_stage run = { 0 };

	stg_maas_opts_init(&a.maas);

	if (stg_stage_parse(&st, &cmd, argc, argv) || stg_enlist_stage_check(&st, &a))
		goto out;
	/* Following, rounds run side by side: a machine whose commissioning
	 * never ends holds its own slot of --max-parallel, not the machines
	 * that come after it. */
	st.round_slots = a.max_parallel;
	st.zoned_writes = 1;
	if (!stg_stage_open(&st, stg_stage_states("enlist", a.skip_configure)))
		while (stg_stage_round(&st, stg_stage_states("enlist", a.skip_configure))) {
			if (st.in_round_child) { /* this round's share of the caps */
				long inflight = (long)a.max_inflight * st.round_share / a.max_parallel;

				a.max_inflight = inflight > 0 ? (int)inflight : 1;
				a.max_parallel = st.round_share;
			}
			if (!stg_enlist_stage_run(&st, &a, &run))
				stg_stage_report(&st, stg_enlist_stage_json, stg_enlist_stage_print, &run,
						 run.failed);
			stg_enlist_stage_run_release(&run);
		}
out:
	stg_enlist_stage_release(&run, &a);
	return stg_stage_close(&st);
}
