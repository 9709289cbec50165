/*
 * bringup configure: bring every discovered node to its profile's BIOS
 * baseline and PXE boot order (Redfish, iDRAC config jobs; for IPMI-only
 * BMCs bootdev pxe and a power cycle), and judge its firmware against the
 * policy. Templates are read and checked before anything is touched: a bad
 * one stops the run with FILE:LINE and exit 2.
 */
#include <stdlib.h>
#include <string.h>

#include "stages/stages.h"

int main(int argc, char **argv)
{
	struct stg_stage st = { 0 };
	struct stg_configure_options a = {
		.max_resets = 8, .poll_ms = 5000, .graceful_s = 120, .job_timeout_s = 1800
	};
	const struct br_option options[] = {
		{ "dry-run", 'n', BR_OPT_FLAG, &a.dry_run, NULL,
		  "print what would change per node; change nothing" },
		{ "max-resets", 0, BR_OPT_INT, &a.max_resets, "N",
		  "systems resetting (reset to job end) at once (default 8)" },
		{ "max-resets-per-power-domain", 0, BR_OPT_INT, &a.max_resets_per_domain, "N",
		  "of them, systems of one power domain (the manifest's power_domain) at once (default 0: no "
		  "limit of its own)" },
		{ "poll-ms", 0, BR_OPT_INT, &a.poll_ms, "MS", "job polling interval (default 5000)" },
		{ "graceful-timeout", 0, BR_OPT_INT, &a.graceful_s, "SECONDS",
		  "GracefulRestart, then ForceRestart after this (default 120)" },
		{ "job-timeout", 0, BR_OPT_INT, &a.job_timeout_s, "SECONDS",
		  "a job not done this long after the reset fails the node (default 1800)" },
		{ "workers", 0, BR_OPT_INT, &a.workers, "N",
		  "processes configuring BMCs (default 0: min(CPUs, Redfish BMCs / 64, --max-resets); 1: "
		  "this one)" },
		{ "switches", 0, BR_OPT_STRING, &a.switches, "FILE",
		  "switch,chassis_id of every switch: names the switch each port is cabled to, for the "
		  "profile's [boot] pxe_switch (default $BRINGUP_SWITCHES)" },
		{ "wiring", 0, BR_OPT_STRING, &a.wiring, "FILE",
		  "the wiring list: a node's cable of role provisioning names the switch its PXE port is "
		  "cabled to (default $BRINGUP_WIRING)" },
		STG_BMC_OPTIONS(&a.bmc),
		STG_FOLLOW_OPTION(&st),
		{ 0 },
	};
	const struct br_command cmd = {
		"bringup-configure",
		"[options] [HOST...]",
		"Bring nodes that are 'discovered' (or the named ones) to their profile's BIOS baseline\n"
		"(templates/profiles/NAME/bios.conf) through iDRAC config jobs (other BMCs: the BIOS "
		"settings\n"
		"object and a reset), put PXE on the provisioning NIC (the one the BMC sees cabled to\n"
		"the wiring list's provisioning cable of the node, else the profile's [boot] pxe_switch,\n"
		"where one names it) first, verify both, and judge firmware "
		"against firmware.conf. IPMI-only BMCs get bootdev "
		"pxe\n"
		"(persistent, EFI) and a power cycle. Nodes end 'configured' or 'failed'.",
		options,
		&st.common,
	};
	const int *states = stg_stage_states("configure", 0);
	/* what the inputs check loads, for the run after it */
	struct stg_configure_inputs in = { .o = &a };
	int rc;

	if (stg_bmc_opts_init(&a.bmc, cmd.name))
		return STG_EXIT_USAGE;
	if (stg_stage_parse(&st, &cmd, argc, argv))
		return stg_stage_close(&st);
	if (!a.switches)
		a.switches = getenv("BRINGUP_SWITCHES");
	if (!a.wiring)
		a.wiring = getenv("BRINGUP_WIRING");
	if (a.wiring && !*a.wiring)
		a.wiring = NULL;
	st.inputs_check = stg_configure_inputs_check;
	st.inputs_ctx = &in;
	st.zoned_writes = 1;
	if (stg_configure_options_check(&st, &a) || stg_stage_open(&st, states) ||
	    stg_stage_catch_signals(&st))
		goto out;
	if (!a.dry_run) {
		st.reclaim_bmc = &a.bmc;
		st.reclaim_rf = &a.rf;
	}
	while (stg_stage_round(&st, states) && !stg_bmc_secrets_check(&st, NULL)) {
		struct stg_configure_run run = { 0 };

		if (!stg_configure_run(&st, &a, &in, &run))
			stg_stage_report(&st, stg_configure_json, stg_configure_print, &run, run.failed);
		stg_stage_interrupted(&st);
		stg_configure_run_release(&run);
	}
out:
	rc = stg_stage_close(&st);
	stg_configure_inputs_release(&in);
	return rc;
}
