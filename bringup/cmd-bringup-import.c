/* bringup import: load a rack manifest (or a NetBox rack) into the inventory. */
#include <stdlib.h>
#include <string.h>

#include "stages/stages.h"

struct import_opts {
	const char *manifest_path, *templates;
	struct stg_netbox_opts netbox;
	const char *netbox_bmc_ip, *wiring_out;
	const char *profile, *bmc_user, *bmc_password, *bmc_type;
};

static void print_problems(const struct br_strlist *problems)
{
	for (size_t i = 0; i < problems->n; i++)
		fprintf(stderr, "%s\n", problems->items[i]);
}

/* The rack from NetBox into imp; the stage's exit set on failure. */
static int from_netbox(struct stg_stage *st, struct import_opts *io, const char *templates,
		       struct stg_netbox_import *imp)
{
	struct stg_netbox_options no = { 0 };
	struct br_strlist problems = { 0 };
	struct br_err err = { 0 };
	int rc = -1;

	if (io->netbox_bmc_ip && strcmp(io->netbox_bmc_ip, "oob") && strcmp(io->netbox_bmc_ip, "primary"))
		return stg_stage_usage(st, "--netbox-bmc-ip '%s': oob or primary", io->netbox_bmc_ip);
	if (stg_netbox_opts_finish(&io->netbox, &err))
		return stg_stage_usage(st, "%s", err.msg);
	stg_netbox_opts_apply(&io->netbox, &no);
	no.bmc_ip_primary = io->netbox_bmc_ip && !strcmp(io->netbox_bmc_ip, "primary");
	no.profile = io->profile;
	no.bmc_user = io->bmc_user;
	no.bmc_password = io->bmc_password;
	no.bmc_type = io->bmc_type;
	rc = stg_netbox_import(&no, imp, &problems, &err);
	if (!rc)
		rc = stg_manifest_check(&imp->manifest, templates, &stg_netbox_labels, &problems, &err);
	if (rc) {
		print_problems(&problems);
		if (err.code == BR_E_INVAL)
			stg_stage_usage(st, "%s; nothing imported", err.msg);
		else
			stg_stage_fail(st, STG_EXIT_UNREACHABLE, "%s; nothing imported", err.msg);
	}
	for (size_t i = 0; !rc && i < imp->warnings.n; i++)
		br_warn("import", "%s", imp->warnings.items[i]);
	br_strlist_release(&problems);
	return rc;
}

static json_t *netbox_json(const struct stg_netbox_import *imp, const char *wiring_out)
{
	json_t *warnings = json_array();

	for (size_t i = 0; i < imp->warnings.n; i++)
		json_array_append_new(warnings, json_string(imp->warnings.items[i]));
	return json_pack("{s:I, s:I, s:I, s:s?, s:o}", "devices", (json_int_t)imp->devices, "cables",
			 (json_int_t)imp->cables, "wiring_rows", (json_int_t)imp->n_wiring, "wiring",
			 wiring_out, "warnings", warnings);
}

int main(int argc, char **argv)
{
	struct stg_stage st = { 0 };
	struct import_opts io = { 0 };
	const struct br_option options[] = {
		{ "manifest", 'm', BR_OPT_STRING, &io.manifest_path, "PATH",
		  "rack manifest (CSV) to import (this or --netbox)" },
		{ "templates", 0, BR_OPT_STRING, &io.templates, "DIR",
		  "templates directory (profiles are checked there)" },
		STG_NETBOX_OPTIONS(&io.netbox),
		{ "netbox-bmc-ip", 0, BR_OPT_STRING, &io.netbox_bmc_ip, "oob|primary",
		  "the device's address that is its BMC (default oob: its OOB IP)" },
		{ "wiring-out", 0, BR_OPT_STRING, &io.wiring_out, "PATH",
		  "write the NetBox cables of the imported devices as a wiring list (wiring.csv(5))" },
		{ "profile", 0, BR_OPT_STRING, &io.profile, "NAME",
		  "NetBox: the profile of a device without custom field bringup_profile" },
		{ "bmc-user", 0, BR_OPT_STRING, &io.bmc_user, "USER",
		  "NetBox: the BMC user of a device without custom field bringup_bmc_user" },
		{ "bmc-password", 0, BR_OPT_STRING, &io.bmc_password, "REF",
		  "NetBox: the BMC password reference (env:VAR, file:PATH) of a device without custom field "
		  "bringup_bmc_password" },
		{ "bmc-type", 0, BR_OPT_STRING, &io.bmc_type, "TYPE",
		  "NetBox: redfish, ipmi or auto for a device without custom field bringup_bmc_type" },
		{ 0 },
	};
	const struct br_command cmd = {
		"bringup-import",
		"--manifest rack.csv | --netbox URL [--netbox-query FILTERS] [options]",
		"Load a rack manifest: every row becomes a node in state 'new'. The file is checked as a\n"
		"whole first; any problem rejects it (exit 2) and nothing is written. Re-importing the same\n"
		"file changes nothing; an edited file updates those nodes and records what changed.\n"
		"With --netbox the rows are NetBox's devices (name, rack, position, serial, OOB IP, custom\n"
		"fields bringup_*), checked the same way, each problem naming the device and its NetBox\n"
		"field; --wiring-out writes their cables as the wiring list.",
		options,
		&st.common,
	};
	struct stg_manifest file_manifest = { 0 }, *m = &file_manifest;
	struct stg_netbox_import imp = { 0 };
	struct br_strlist problems = { 0 };
	struct inv_manifest_row *rows = NULL;
	struct inv_import_stats stats = { 0 };
	struct br_err err = { 0 };
	char *templates = NULL;

	if (stg_stage_parse(&st, &cmd, argc, argv))
		return stg_stage_close(&st);
	if ((!io.manifest_path == !io.netbox.url) || st.argi != argc) {
		stg_stage_usage(&st, "%s",
				st.argi != argc ? "unexpected operand"
				: io.netbox.url ? "--manifest and --netbox: give one"
						: "--manifest (or --netbox) is required");
		goto out;
	}
	if (!io.netbox.url && (io.netbox.query || io.wiring_out || io.profile || io.bmc_user ||
			       io.bmc_password || io.bmc_type || io.netbox.token_ref)) {
		stg_stage_usage(&st, "--netbox-query, --netbox-token, --wiring-out, --profile, --bmc-user, "
				     "--bmc-password and --bmc-type are for --netbox");
		goto out;
	}
	templates = io.templates ? br_xstrdup(io.templates) : stg_templates_dir();
	if (!templates)
		br_warn("import", "no templates directory found; hardware profiles are not checked");
	if (io.netbox.url) {
		if (from_netbox(&st, &io, templates, &imp))
			goto out;
		m = &imp.manifest;
	} else if (stg_manifest_load(io.manifest_path, templates, &file_manifest, &problems, &err)) {
		print_problems(&problems);
		stg_stage_usage(&st, "%s; nothing imported", err.msg);
		goto out;
	}
	rows = br_xcalloc(m->n ? m->n : 1, sizeof(*rows));
	for (size_t i = 0; i < m->n; i++) {
		const struct stg_manifest_row *r = &m->rows[i];

		rows[i] = (struct inv_manifest_row){
			r->hostname,	     r->rack,	      r->unit,	       r->bmc,
			r->bmc_user,	     r->bmc_password, r->profile,      r->bmc_type,
			r->boot_disk_serial, r->notes,	      r->line,	       r->serial,
			r->system,	     r->zone,	      r->power_domain,
		};
	}
	if (stg_stage_open(&st, NULL))
		goto out;
	if (inv_import(st.inv, rows, m->n, m->path, &stats, &err)) {
		if (err.code == BR_E_INVAL) /* the manifest against the inventory: FILE:LINE */
			stg_stage_usage(&st, "%s; nothing imported", err.msg);
		else
			stg_stage_fail(&st, STG_EXIT_UNREACHABLE, "%s", err.msg);
		goto out;
	}
	if (io.wiring_out && stg_wiring_write(imp.wiring, imp.n_wiring, io.wiring_out, &err)) {
		stg_stage_fail(&st, STG_EXIT_UNREACHABLE, "--wiring-out: %s", err.msg);
		goto out;
	}
	if (st.common.json) {
		json_t *doc = json_pack("{s:s, s:I, s:I, s:I, s:I}", "manifest", m->path, "added",
					(json_int_t)stats.added, "updated", (json_int_t)stats.updated,
					"unchanged", (json_int_t)stats.unchanged, "not_in_manifest",
					(json_int_t)stats.not_in_manifest);

		if (io.netbox.url)
			json_object_set_new(doc, "netbox", netbox_json(&imp, io.wiring_out));
		json_object_set_new(doc, "db", stg_db_json(st.inv));
		br_json_print(stdout, doc);
		json_decref(doc);
	} else if (!st.common.quiet) {
		printf("%s: %zu added, %zu updated, %zu unchanged\n", m->path, stats.added, stats.updated,
		       stats.unchanged);
		if (io.netbox.url)
			printf("netbox: %zu devices, %zu cables, %zu wiring rows%s%s\n", imp.devices,
			       imp.cables, imp.n_wiring, io.wiring_out ? " written to " : "",
			       io.wiring_out ? io.wiring_out : "");
		if (stats.not_in_manifest)
			printf("%zu node(s) in the inventory are not in this manifest; they were left as "
			       "they are\n",
			       stats.not_in_manifest);
	}
	st.exit = STG_EXIT_OK;
out:
	free(rows);
	free(templates);
	stg_manifest_release(&file_manifest);
	stg_netbox_import_release(&imp);
	stg_netbox_opts_release(&io.netbox);
	br_strlist_release(&problems);
	return stg_stage_close(&st);
}
