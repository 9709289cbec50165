/*
 * bringup discover: read every BMC of the rack (Redfish; ipmitool for BMCs
 * without it) concurrently and store what each reports. Nodes end
 * `discovered`, or `failed` with the reason; one slow or broken BMC never
 * holds the rest back.
 */
#include <stdlib.h>
#include <string.h>

#include "stages/stages.h"

int main(int argc, char **argv)
{
	struct stg_stage st = { 0 };
	struct stg_discover_options a = { 0 };
	int no_bmc_cabling = 0;
	const struct br_option options[] = {
		STG_BMC_OPTIONS(&a.bmc),
		{ "workers", 0, BR_OPT_INT, &a.workers, "N",
		  "processes reading BMCs (default 0: min(CPUs, Redfish BMCs / 64); 1: this one)" },
		{ "wiring", 0, BR_OPT_STRING, &a.wiring, "FILE",
		  "the wiring list: judge each BMC's switch neighbours against it before PXE (default "
		  "$BRINGUP_WIRING)" },
		{ "no-bmc-cabling", 0, BR_OPT_FLAG, &no_bmc_cabling, NULL,
		  "do not judge the BMCs' switch neighbours before PXE (cabling is judged in band after "
		  "deploy)" },
		{ "switches", 0, BR_OPT_STRING, &a.switches, "FILE",
		  "switch,chassis_id of every switch: names the switches a BMC knows by chassis MAC "
		  "(default $BRINGUP_SWITCHES)" },
		STG_FOLLOW_OPTION(&st),
		{ 0 },
	};
	const struct br_command cmd = {
		"bringup-discover",
		"[options] [HOST...]",
		"Read every BMC of nodes that are 'new' or 'failed' (or the named ones): MACs, serials,\n"
		"model, BIOS, boot order, firmware, PCIe, drives, PSUs, thermal, SEL. Redfish first; BMCs\n"
		"with bmc_type ipmi, or without /redfish/v1, are read with ipmitool. With a wiring list,\n"
		"the switch port each BMC shows behind each host port (Dell Connection View, DMTF\n"
		"LLDPReceive) is judged against it (check cabling_bmc): a node cabled otherwise is\n"
		"quarantined before it is enlisted.",
		options,
		&st.common,
	};
	const int *states = stg_stage_states("discover", 0);

	if (stg_bmc_opts_init(&a.bmc, cmd.name))
		return STG_EXIT_USAGE;
	if (stg_stage_parse(&st, &cmd, argc, argv))
		return stg_stage_close(&st);
	if (!a.wiring)
		a.wiring = getenv("BRINGUP_WIRING");
	if (no_bmc_cabling)
		a.wiring = NULL;
	if (!a.switches)
		a.switches = getenv("BRINGUP_SWITCHES");
	/* Each node's cabling is judged as soon as its BMC is read, and its
	 * lease given back then: until then no node is handed to configure
	 * (bringup run's flow), which takes over no lease of this name. */
	if (a.wiring && *a.wiring)
		st.lease_as = "bringup-discover (judging cabling)";
	st.zoned_writes = 1;
	if (stg_discover_options_check(&st, &a) || stg_stage_open(&st, states))
		return stg_stage_close(&st);
	if (stg_stage_catch_signals(&st))
		return stg_stage_close(&st);
	st.reclaim_bmc = &a.bmc;
	st.reclaim_rf = &a.rf;
	/* One round, or with --follow-fd one per batch of nodes as they come. */
	while (stg_stage_round(&st, states) && !stg_bmc_secrets_check(&st, NULL)) {
		struct stg_discover_run run = { 0 };

		if (!stg_discover_run(&st, &a, &run))
			stg_stage_report(&st, stg_discover_json, stg_discover_print, &run,
					 run.failed + run.quarantined);
		stg_stage_interrupted(&st);
		if (run.inventory_error) /* exit 3, as for an inventory that cannot be opened */
			stg_stage_unwritable(&st, 0, run.inventory_error);
		stg_discover_run_release(&run);
	}
	return stg_stage_close(&st);
}
