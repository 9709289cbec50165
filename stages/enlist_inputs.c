/*
 * What enlist hands MAAS for one node, gathered from the inventory and
 * templates/: the MACs discovery stored, the BMC password for MAAS's power
 * driver, the install disk's serial, the rendered user-data.
 */
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "enlist.h"
#include "validators/rules.h"

static void split_list(const char *s, struct br_strlist *out)
{
	while (s && *s) {
		size_t n = strcspn(s, ", ");

		if (n) {
			char *item = br_xstrndup(s, n);

			br_strlist_add(out, item);
			free(item);
		}
		s += n;
		s += strspn(s, ", ");
	}
}

/* The validators' public keys, one a line as in authorized_keys (blank
 * and # lines skipped). A private key given here would be handed to MAAS
 * and every node: refused, as is a file that holds no key. */
static int load_pubkeys(const char *path, struct br_strlist *keys, struct br_err *err)
{
	char *text = NULL, *line, *next;
	size_t len;

	if (br_read_file(path, STG_ENLIST_PUBKEYS_MAX, &text, &len, err))
		return br_err_prefix(err, "SSH public key (--ssh-pubkey)");
	if (strstr(text, "PRIVATE KEY")) {
		free(text);
		return br_errf(err, BR_E_INVAL,
			       "--ssh-pubkey %s is a private key: give its public half (%s.pub), never "
			       "the private one",
			       path, path);
	}
	for (line = text; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		line[strcspn(line, "\r")] = '\0';
		line += strspn(line, " \t");
		if (*line && *line != '#')
			br_strlist_add(keys, line);
	}
	free(text);
	if (!keys->n)
		return br_errf(err, BR_E_INVAL, "--ssh-pubkey %s: no key in it", path);
	return 0;
}

int stg_enlist_inputs_load(struct stg_enlist_inputs *in, const char *templates, const char *pubkey_path,
			   const struct br_strlist *ntp, const struct br_strlist *packages,
			   struct br_err *err)
{
	const char *env_ntp = getenv("BRINGUP_NTP_SERVERS");

	memset(in, 0, sizeof(*in));
	in->templates = br_xstrdup(templates);
	if (pubkey_path && *pubkey_path) {
		int rc = load_pubkeys(pubkey_path, &in->ssh_pubkeys, err);

		if (rc)
			return rc;
	}
	for (size_t i = 0; i < ntp->n; i++)
		split_list(ntp->items[i], &in->ntp);
	if (!in->ntp.n)
		split_list(env_ntp && *env_ntp ? env_ntp : "ntp.ubuntu.com", &in->ntp);
	/* The server goes into chrony's configuration and a shell argument on
	 * every node: only what a host name or an IP address can hold. */
	for (size_t i = 0; i < in->ntp.n; i++) {
		const char *s = in->ntp.items[i];

		if (strlen(s) > 253 ||
		    s[strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-:")])
			return br_errf(err, BR_E_INVAL, "NTP server '%s': not a host name or IP address", s);
	}
	for (size_t i = 0; i < packages->n; i++)
		split_list(packages->items[i], &in->packages);
	if (!in->packages.n)
		split_list("chrony lldpd nvme-cli pciutils ipmitool", &in->packages);
	return 0;
}

void stg_enlist_inputs_release(struct stg_enlist_inputs *in)
{
	for (size_t i = 0; i < in->n_profiles; i++)
		prof_release(&in->profiles[i]);
	free(in->profiles);
	free(in->templates);
	br_strlist_release(&in->ssh_pubkeys);
	br_strlist_release(&in->ntp);
	br_strlist_release(&in->packages);
	memset(in, 0, sizeof(*in));
}

/* The node's profile, loaded once per run. */
static int profile_of(struct stg_enlist_inputs *in, const char *name, const struct prof_profile **ret,
		      struct br_err *err)
{
	struct prof_profile p;
	int rc;

	for (size_t i = 0; i < in->n_profiles; i++)
		if (!strcmp(in->profiles[i].name, name)) {
			*ret = &in->profiles[i];
			return 0;
		}
	rc = stg_profile_load(in->templates, name, &p, err);
	if (rc)
		return rc;
	in->profiles = br_xrealloc(in->profiles, (in->n_profiles + 1) * sizeof(*in->profiles));
	in->profiles[in->n_profiles] = p;
	*ret = &in->profiles[in->n_profiles++];
	return 0;
}

static int pick_disk(struct inv *inv, const struct inv_node *node, struct stg_enlist_inputs *in,
		     struct stg_enlist_node_inputs *ni, struct br_err *err)
{
	const struct prof_profile *p;
	struct br_hw hw;
	int rc;

	if (node->boot_disk_serial && *node->boot_disk_serial) {
		ni->boot_disk_serial = br_xstrdup(node->boot_disk_serial);
		ni->boot_disk_why = br_xstrdup("the manifest's boot_disk_serial");
		return 0;
	}
	rc = profile_of(in, node->profile, &p, err);
	if (rc)
		return rc;
	ni->fail_kind = BR_FAIL_BOOT_DISK;
	/* Drives and volumes only: the rule reads nothing else, and the whole
	 * document took most of a millisecond per node to parse, before any
	 * node's first request. */
	rc = inv_load_hw_disks(inv, node->hostname, &hw, err);
	if (!rc)
		rc = val_pick_boot_disk(p, &hw, &ni->boot_disk_serial, &ni->boot_disk_why, err);
	br_hw_release(&hw);
	return rc;
}

/* No MAC in the inventory. For a node read over IPMI alone that is no
 * missing step: IPMI gave the BMC's own MAC and the FRU held none of the
 * host's, and MAAS cannot PXE-boot a machine it knows no NIC of. */
static int no_macs(struct inv *inv, const struct inv_node *node, struct br_err *err)
{
	struct br_err lerr = { 0 };
	struct br_hw hw;
	int rc;

	if (inv_load_hw(inv, node->hostname, &hw, &lerr) || !hw.source || strcmp(hw.source, "ipmi")) {
		br_hw_release(&hw);
		return br_errf(err, BR_E_NOTFOUND, "no MACs from discovery: run bringup discover first");
	}
	rc = br_errf(
	    err, BR_E_NOTFOUND,
	    "no host NIC MAC: its BMC (%s) answers IPMI only, which gave the BMC's own MAC (%s) and no "
	    "host MAC in its FRU; MAAS needs the MAC of the NIC the node PXE-boots from: enable Redfish "
	    "on the BMC and run bringup discover %s again, or add the machine to MAAS by hand with that "
	    "MAC (from the NIC's label or the BIOS setup's network page) and its power settings",
	    node->bmc, hw.bmc_mac ? hw.bmc_mac : "not reported", node->hostname);
	br_hw_release(&hw);
	return rc;
}

/* The profile's waits; a profile that will not load is the boot-disk rule's
 * business (pick_disk says why), so the defaults stand in here. */
static void limits(const struct inv_node *node, struct stg_enlist_inputs *in,
		   struct stg_enlist_node_inputs *ni)
{
	const struct prof_profile *p = NULL;

	ni->commissioning_s = PROF_COMMISSIONING_DEFAULT_S;
	ni->deployment_s = PROF_DEPLOYMENT_DEFAULT_S;
	if (node->profile && !profile_of(in, node->profile, &p, NULL)) {
		ni->commissioning_s = p->hw.limits.commissioning_s;
		ni->deployment_s = p->hw.limits.deployment_s;
	}
}

int stg_enlist_node_prepare(struct inv *inv, const struct inv_node *node, struct stg_enlist_inputs *in,
			    struct stg_enlist_node_inputs *ni, struct br_err *err)
{
	struct stg_enlist_userdata_vars vars = { node->hostname, &in->ssh_pubkeys, &in->ntp, &in->packages };
	char *path, *text = NULL;
	int rc;

	ni->fail_kind = BR_FAIL_STAGE;
	if (inv_node_macs(inv, node->id, &ni->macs, err))
		return err ? err->code : BR_E_DB;
	if (!ni->macs.n) {
		ni->fail_kind = BR_FAIL_NO_HOST_MAC;
		return no_macs(inv, node, err);
	}
	if (br_secret_resolve(node->bmc_password_ref, &ni->power_pass, err))
		return br_err_prefix(err, "bmc %s: credentials for MAAS power control", node->bmc);
	rc = pick_disk(inv, node, in, ni, err);
	if (rc)
		return rc;
	ni->fail_kind = BR_FAIL_STAGE;
	limits(node, in, ni);
	path = br_xasprintf("%s/cloud-init/user-data", in->templates);
	rc = stg_enlist_render_userdata(path, &vars, &text, err);
	free(path);
	if (rc)
		return rc;
	ni->user_data_b64 = stg_enlist_base64(text, strlen(text));
	free(text);
	return 0;
}

void stg_enlist_node_inputs_release(struct stg_enlist_node_inputs *ni)
{
	br_strlist_release(&ni->macs);
	br_secret_free(ni->power_pass);
	free(ni->boot_disk_serial);
	free(ni->boot_disk_why);
	free(ni->user_data_b64);
	memset(ni, 0, sizeof(*ni));
}
