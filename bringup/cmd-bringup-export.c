/* bringup export: what bringup learned, written back to NetBox. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "http.h"
#include "stages/stages.h"

struct export_opts {
	struct stg_netbox_opts netbox;
	int dry_run;
};

/* One node's host MACs (the BMC's names of their ports) and serials,
 * and its probe's network devices (the OS's names). */
struct node_facts {
	struct br_hw hw;
	struct stg_netbox_mac *macs;
	size_t n_macs;
	json_t *probe;
};

/* The OS's names of the MACs: the probe's network devices by address. */
static void os_names(struct node_facts *f)
{
	json_t *ifaces = br_json_path(f->probe, "net/interfaces"), *o;
	size_t i;

	json_array_foreach(ifaces, i, o)
	{
		const char *addr = br_json_str(o, "address"), *ifname = br_json_str(o, "ifname");

		for (size_t k = 0; addr && ifname && k < f->n_macs; k++)
			if (!f->macs[k].os_name && !strcasecmp(f->macs[k].mac, addr))
				f->macs[k].os_name = ifname;
	}
}

static int is_host(const struct br_nic *nic)
{
	return !nic->role || !strcmp(nic->role, BR_NIC_ROLE_HOST);
}

/* The host MACs once each, named as the first view that names them. */
static void host_macs(struct node_facts *f)
{
	f->macs = br_xcalloc(f->hw.n_nics ? f->hw.n_nics : 1, sizeof(*f->macs));
	for (size_t i = 0; i < f->hw.n_nics; i++) {
		const struct br_nic *nic = &f->hw.nics[i];
		size_t k;

		if (!nic->mac || !*nic->mac || !is_host(nic))
			continue;
		for (k = 0; k < f->n_macs && strcmp(f->macs[k].mac, nic->mac); k++)
			;
		if (k == f->n_macs)
			f->macs[f->n_macs++] = (struct stg_netbox_mac){ nic->mac, nic->name, NULL };
		else if (!f->macs[k].name)
			f->macs[k].name = nic->name;
	}
}

static const char *nonempty(const char *s)
{
	return s && *s ? s : NULL;
}

static void print_text(const struct stg_netbox_export *x, int dry_run)
{
	json_t *node;
	size_t i;

	json_array_foreach(x->nodes, i, node)
	{
		const char *host = br_json_str(node, "hostname"), *status = br_json_str(node, "status");
		json_t *ch;
		size_t k;

		if (!strcmp(status, "not in netbox") || !strcmp(status, "ambiguous")) {
			printf("%s: %s\n", host,
			       br_json_str(node, "problem") ? br_json_str(node, "problem") : "not in NetBox");
			continue;
		}
		json_array_foreach(json_object_get(node, "changes"), k, ch)
		{
			const char *field = br_json_str(ch, "field"), *from = br_json_str(ch, "from");
			int written = json_is_true(json_object_get(ch, "written"));
			const char *verb = dry_run ? "would set" : written ? "set" : "NOT set";

			if (!strcmp(field, "mac_address"))
				printf("%s: %s MAC %s on interface %s%s\n", host,
				       dry_run	 ? "would add"
				       : written ? "added"
						 : "NOT added",
				       br_json_str(ch, "to"), br_json_str(ch, "interface"),
				       json_is_null(json_object_get(ch, "interface_id")) ||
					       json_is_true(json_object_get(ch, "interface_created"))
					   ? " (a new interface)"
					   : "");
			else if (!strcmp(field, "primary_mac_address"))
				printf("%s: %s the primary MAC of interface %s to %s\n", host, verb,
				       br_json_str(ch, "interface"), br_json_str(ch, "to"));
			else
				printf("%s: %s %s to %s (NetBox had %s%s)\n", host, verb, field,
				       br_json_str(ch, "to"), from ? from : "none",
				       from && !strcmp(field, "serial") ? ": another" : "");
		}
		json_array_foreach(json_object_get(node, "conflicts"), k, ch)
		    printf("%s: conflict: %s\n", host, json_string_value(ch));
	}
	printf("netbox: %zu nodes, %zu unchanged, %zu not in NetBox, %zu conflicts; %zu writes %s\n",
	       json_array_size(x->nodes), x->unchanged, x->missing, x->conflicts,
	       dry_run ? x->writes : x->written, dry_run ? "would be sent (--dry-run)" : "made");
}

int main(int argc, char **argv)
{
	struct stg_stage st = { 0 };
	struct export_opts eo = { 0 };
	const struct br_option options[] = {
		STG_NETBOX_OPTIONS(&eo.netbox),
		{ "dry-run", 'n', BR_OPT_FLAG, &eo.dry_run, NULL,
		  "read NetBox and print what would change; write nothing" },
		{ 0 },
	};
	const struct br_command cmd = {
		"bringup-export",
		"--netbox URL [--netbox-token REF] [--dry-run] [HOST...]",
		"Write what bringup learned back to NetBox, for every node (or those named) whose name is a\n"
		"NetBox device's: the serial the BMC reported where NetBox has none or another (never\n"
		"blanked), each host MAC as a MAC address (dcim/mac-addresses) of the device's interface\n"
		"of the OS's name of the port (the probe's), else the BMC's (created when missing), that\n"
		"MAC as the interface's primary where it has none and holds no other MAC, and the node's\n"
		"state as custom field bringup_state. Only what differs is sent: a second export writes\n"
		"nothing. A MAC NetBox holds elsewhere is a conflict, left as it is (exit 1, as is a node\n"
		"NetBox lacks). A write NetBox refuses stops the export (exit 3) with NetBox's words; what\n"
		"was written before it is listed as written, nothing else is.",
		options,
		&st.common,
	};
	struct stg_netbox_options no = { 0 };
	struct stg_netbox_export x = { 0 };
	struct stg_netbox_node *nodes = NULL;
	struct node_facts *facts = NULL;
	struct br_err err = { 0 };
	int rc;

	st.allow_retired = 1;
	st.readonly = 1;
	st.no_lease = 1;
	if (stg_stage_parse(&st, &cmd, argc, argv))
		return stg_stage_close(&st);
	if (!eo.netbox.url)
		return stg_stage_usage(&st, "--netbox URL is required");
	if (strncmp(eo.netbox.url, "http://", 7) && strncmp(eo.netbox.url, "https://", 8))
		return stg_stage_usage(&st, "--netbox '%s': not an http(s) URL", eo.netbox.url);
	if (br_url_has_credentials(eo.netbox.url))
		return stg_stage_usage(
		    &st, "--netbox: the URL carries a user, password or query; give NetBox's "
			 "base URL and the token by reference (--netbox-token env:VAR or file:PATH)");
	if (stg_netbox_opts_finish(&eo.netbox, &err))
		return stg_stage_usage(&st, "%s", err.msg);
	if (stg_stage_open(&st, stg_all_states))
		goto out;
	nodes = br_xcalloc(st.n ? st.n : 1, sizeof(*nodes));
	facts = br_xcalloc(st.n ? st.n : 1, sizeof(*facts));
	for (size_t i = 0; i < st.n; i++) {
		const struct inv_node *n = &st.nodes[i];

		br_hw_init(&facts[i].hw);
		if (inv_load_hw_nics(st.inv, n->hostname, &facts[i].hw, &err)) {
			stg_stage_fail(&st, STG_EXIT_UNREACHABLE, "%s: %s", n->hostname, err.msg);
			goto out;
		}
		host_macs(&facts[i]);
		{
			char *text = NULL;
			int lrc = inv_load_probe(st.inv, n->hostname, &text, &err);

			if (lrc && lrc != BR_E_NOTFOUND) {
				stg_stage_fail(&st, STG_EXIT_UNREACHABLE, "%s: %s", n->hostname, err.msg);
				free(text);
				goto out;
			}
			/* A probe document that does not parse names nothing:
			 * the BMC's names stand. */
			facts[i].probe = text ? json_loads(text, 0, NULL) : NULL;
			free(text);
			os_names(&facts[i]);
		}
		nodes[i].hostname = n->hostname;
		nodes[i].serial = nonempty(n->service_tag) ? n->service_tag : nonempty(n->system_serial);
		nodes[i].serial_alt = nonempty(n->service_tag) ? nonempty(n->system_serial) : NULL;
		nodes[i].state = inv_state_name(n->state);
		nodes[i].macs = facts[i].macs;
		nodes[i].n_macs = facts[i].n_macs;
	}
	stg_netbox_opts_apply(&eo.netbox, &no);
	rc = stg_netbox_export(&no, nodes, st.n, eo.dry_run, &x, &err);
	if (st.common.json) {
		json_t *doc = json_pack(
		    "{s:i, s:s, s:b, s:I, s:I, s:I, s:I, s:I, s:O}", "schema_version", STG_SCHEMA_EXPORT,
		    "netbox", eo.netbox.url, "dry_run", eo.dry_run, "writes", (json_int_t)x.writes, "written",
		    (json_int_t)x.written, "unchanged", (json_int_t)x.unchanged, "not_in_netbox",
		    (json_int_t)x.missing, "conflicts", (json_int_t)x.conflicts, "nodes", x.nodes);

		if (rc)
			json_object_set_new(doc, "error", json_string(err.msg));
		br_json_print(stdout, doc);
		json_decref(doc);
	} else if (!st.common.quiet || rc) {
		print_text(&x, eo.dry_run);
	}
	if (rc)
		/* NetBox unreachable or refusing a write: the site's to fix. */
		stg_stage_fail(&st, STG_EXIT_UNREACHABLE, "%s; %zu write%s made before it", err.msg,
			       x.written, x.written == 1 ? "" : "s");
	else
		st.exit = x.missing || x.conflicts ? STG_EXIT_NODES : STG_EXIT_OK;
out:
	for (size_t i = 0; facts && i < st.n; i++) {
		br_hw_release(&facts[i].hw);
		free(facts[i].macs);
		json_decref(facts[i].probe);
	}
	free(facts);
	free(nodes);
	stg_netbox_export_release(&x);
	stg_netbox_opts_release(&eo.netbox);
	return stg_stage_close(&st);
}
