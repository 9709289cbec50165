/*
 * bringup credentials rotate: move every node's BMC (or the named ones)
 * from the password its manifest references to a site password, generated
 * per BMC into a store (--store file:DIR) or one for all (--site-password),
 * never losing access: the new password is stored before the BMC takes it
 * and recorded in the inventory only after a login with it worked.
 */
#include <stdlib.h>
#include <string.h>

#include "stages/stages.h"

int main(int argc, char **argv)
{
	struct stg_stage st = { 0 };
	struct stg_credentials_options o = { 0 };
	const struct br_option options[] = {
		{ "store", 0, BR_OPT_STRING, &o.store, "file:DIR|exec:PROGRAM",
		  "keep a generated password per BMC in DIR/HOSTNAME (0600; DIR made 0700), or give it to "
		  "PROGRAM store HOSTNAME on its stdin (it prints the reference to record)" },
		{ "site-password", 0, BR_OPT_STRING, &o.site_password, "env:VAR|file:PATH",
		  "one site password for every BMC, by reference" },
		{ "site-user", 0, BR_OPT_STRING, &o.site_user, "NAME",
		  "create this Administrator account for the new password, then disable the factory one" },
		{ "factory-user", 0, BR_OPT_STRING, &o.factory_user, "NAME",
		  "with --site-user: the account to disable (default: the bmc_user the inventory has)" },
		{ "length", 0, BR_OPT_INT, &o.length, "N",
		  "generated password length (default 32, within the BMC's policy)" },
		STG_BMC_OPTIONS(&o.bmc),
		STG_MAAS_OPTIONS_BESIDE_BMC(&o.maas),
		{ "no-maas", 0, BR_OPT_FLAG, &o.no_maas, NULL,
		  "leave MAAS alone: machines it enlisted keep their old power parameters" },
		{ 0 },
	};
	const struct br_command cmd = {
		"bringup-credentials",
		"rotate [options] [HOST...]",
		"rotate: move each node's BMC (every node not retired, or the named ones) from the\n"
		"password the inventory references to a site password: the new password is written to\n"
		"its store first, the BMC's account takes it (a PATCH of its Password, within the\n"
		"AccountService's policy; also what a PasswordChangeRequired login asks for), a login\n"
		"with it is proven, and only then does the inventory reference the store. A node MAAS\n"
		"has enlisted (it has a system_id) then gives MAAS its new power parameters (MAAS_URL\n"
		"and MAAS_API_KEY as enlist takes them; --no-maas: not), before a factory account is\n"
		"retired; a MAAS that refuses fails that node. A run stopped anywhere is finished by the\n"
		"next. Passwords never reach argv, logs, --json or the inventory, only references do.",
		options,
		&st.common,
	};
	struct stg_credentials_run run = { 0 };
	int help = 0;

	for (int i = 1; i < argc; i++)
		help |= !strcmp(argv[i], "--help") || !strcmp(argv[i], "-h") || !strcmp(argv[i], "--version");
	if (!help && (argc < 2 || strcmp(argv[1], "rotate"))) {
		fprintf(stderr, "%s: usage: bringup credentials rotate [options] [HOST...] (try --help)\n",
			cmd.name);
		return STG_EXIT_USAGE;
	}
	if (!help || (argc > 1 && !strcmp(argv[1], "rotate"))) {
		argv[1] = argv[0];
		argv++;
		argc--;
	}
	if (stg_bmc_opts_init(&o.bmc, cmd.name))
		return STG_EXIT_USAGE;
	stg_maas_opts_init(&o.maas);
	if (stg_stage_parse(&st, &cmd, argc, argv) || stg_credentials_options_check(&st, &o) ||
	    stg_stage_open(&st, stg_all_states) || stg_bmc_secrets_check(&st, NULL))
		goto out;
	if (stg_stage_catch_signals(&st))
		goto out;
	if (!stg_credentials_rotate(&st, &o, &run))
		stg_stage_report(&st, stg_credentials_json, stg_credentials_print, &run, run.failed);
	stg_stage_interrupted(&st);
out:
	stg_credentials_run_release(&run);
	stg_maas_opts_release(&o.maas);
	free(o.store_dir);
	return stg_stage_close(&st);
}
