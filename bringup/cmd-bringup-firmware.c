/*
 * bringup firmware: update every discovered node's firmware that is below
 * its profile's policy (firmware.conf) from the catalogue of images
 * (firmware-images.conf) through its BMC, BMC first, at most --max-updates
 * machines at once; --dry-run prints the plan, --report the versions across
 * the rack and which nodes differ.
 */
#include <stdlib.h>

#include "stages/stages.h"

int main(int argc, char **argv)
{
	struct stg_stage st = { 0 };
	struct stg_firmware_options a = { .poll_ms = 5000, .task_timeout_s = 3600, .bmc_return_s = 900 };
	const struct br_option options[] = {
		{ "dry-run", 'n', BR_OPT_FLAG, &a.dry_run, NULL, "print the plan per node; change nothing" },
		{ "report", 0, BR_OPT_FLAG, &a.report, NULL,
		  "show, per model and component, the versions across the rack and the nodes that differ" },
		{ "all", 0, BR_OPT_FLAG, &a.all, NULL,
		  "with --report: every component, also those that agree" },
		{ "max-updates", 0, BR_OPT_INT, &a.max_updates, "N",
		  "machines updating at once (default $BRINGUP_MAX_UPDATES or 4)" },
		{ "image-base-url", 0, BR_OPT_STRING, &a.image_base_url, "URL",
		  "the site's image server, for BMCs that take images only by SimpleUpdate (default "
		  "$BRINGUP_IMAGE_BASE_URL)" },
		{ "poll-ms", 0, BR_OPT_INT, &a.poll_ms, "MS", "task polling interval (default 5000)" },
		{ "task-timeout", 0, BR_OPT_INT, &a.task_timeout_s, "SECONDS",
		  "an update's task not done by then fails the node (default 3600)" },
		{ "bmc-return-timeout", 0, BR_OPT_INT, &a.bmc_return_s, "SECONDS",
		  "a BMC not back with its new firmware by then fails the node (default 900)" },
		STG_BMC_OPTIONS(&a.bmc),
		{ 0 },
	};
	const struct br_command cmd = {
		"bringup-firmware",
		"[options] [HOST...]",
		"Update the firmware of nodes that are 'discovered' (or the named ones) where it is below\n"
		"their profile's policy (firmware.conf), from the profile's catalogue of images\n"
		"(firmware-images.conf), through the BMC's UpdateService: BMC first, then BIOS, NICs, GPUs,\n"
		"drives, CPLD. Every image's SHA-256 is checked before anything is sent; versions are read\n"
		"back and recorded. Nodes stay 'discovered', or end 'failed' when an update fails.",
		options,
		&st.common,
	};
	struct stg_firmware_run run = { 0 };

	if (stg_bmc_opts_init(&a.bmc, cmd.name))
		return STG_EXIT_USAGE;
	if (stg_stage_parse(&st, &cmd, argc, argv) || stg_firmware_options_check(&st, &a))
		return stg_stage_close(&st);
	st.zoned_writes = 1;
	if (stg_stage_open(&st, a.report ? NULL : stg_stage_states("firmware", 0)) ||
	    (!a.report && !a.dry_run && stg_bmc_secrets_check(&st, NULL)) || stg_stage_catch_signals(&st))
		return stg_stage_close(&st);
	if (a.report && st.argi < st.argc &&
	    (st.exit = stg_stage_select(st.inv, st.argc, st.argv, st.argi, stg_all_states, st.common.zone,
					&st.nodes, &st.n)))
		return stg_stage_close(&st);
	if (!stg_firmware_run(&st, &a, &run))
		stg_stage_report(&st, stg_firmware_json, stg_firmware_print, &run, run.failed);
	stg_stage_interrupted(&st);
	stg_firmware_run_release(&run);
	return stg_stage_close(&st);
}
