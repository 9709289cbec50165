/* dmesg: the kernel's own reports of failing hardware, from the probe's
 * signature scan: NVIDIA Xid, fatal NVSwitch SXid, uncorrectable PCIe AER,
 * NVMe timeouts, links "limited by" a narrow or slow hop, thermal
 * throttling. */
#define _DEFAULT_SOURCE
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "rules_node_private.h"

/* Corrected AER messages are the link retrying successfully: noted, not
 * failed. "Uncorrected (Non-Fatal)", "Uncorrectable", "Fatal" fail. */
static int aer_uncorrectable(const char *line)
{
	return br_contains_nocase(line, "uncorrect") || br_contains_nocase(line, "fatal");
}

static int hex_run(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isxdigit((unsigned char)s[i]))
			return 0;
	return 1;
}

/* The PCIe function a kernel line is about: the first "DDDD:BB:DD.F" (the
 * device prefix of "pci 0000:5d:00.0: ... limited by ...", "pcieport
 * 0000:5c:00.0: AER: ..."), or NVIDIA's Xid form "(PCI:0000:5d:00)", a
 * GPU's function 0. 0 and out (16 bytes) set, or -1 for a line that names
 * none (an NVMe timeout names its controller, a throttle its CPU). */
static int line_function(const char *line, char out[16])
{
	for (const char *p = line; *p; p++) {
		int xid_form = p - line >= 4 && !strncasecmp(p - 4, "PCI:", 4);

		if ((p > line && !xid_form && (isxdigit((unsigned char)p[-1]) || p[-1] == ':')) ||
		    !hex_run(p, 4) || p[4] != ':' || !hex_run(p + 5, 2) || p[7] != ':' || !hex_run(p + 8, 2))
			continue;
		if (p[10] == '.' && p[11] >= '0' && p[11] <= '7') {
			memcpy(out, p, 12);
			out[12] = '\0';
			return 0;
		}
		if (p[10] == ')' && xid_form) {
			memcpy(out, p, 10);
			memcpy(out + 10, ".0", 3);
			return 0;
		}
	}
	return -1;
}

static const char *advice(const char *kind)
{
	if (!strcmp(kind, "pcie_link_limited"))
		return "PCIe link limited by a narrow or slow hop: reseat the riser cable";
	if (!strcmp(kind, "nvme_timeout"))
		return "NVMe I/O timeout: the drive stops answering and can freeze the machine; replace it";
	if (!strcmp(kind, "thermal_throttle"))
		return "thermal throttling: check airflow and fans";
	if (!strcmp(kind, "pcie_aer"))
		return "uncorrectable PCIe error: reseat the device named in the line";
	return "kernel report";
}

/* What a "limited by" line is about, by the probe's PCI list: the kernel
 * prints it for any device whose link is below what it could do, and many
 * are so by design (a BMC's VGA at x1, an onboard NIC behind a narrow
 * hop). Only a device whose bandwidth the node is for is a fault: a GPU, a
 * fabric NIC (what the profile calls one), an NVMe drive. A device the
 * probe did not list is judged as one of those (it may be the one that
 * dropped off the bus). NULL: a fault; else what the device is. */
static const char *limited_not_judged(struct val_node_ctx *c, const char *bdf)
{
	json_t *pcie = c->probe ? json_object_get(c->probe, "pcie") : NULL,
	       *devs = json_object_get(pcie, "devices"), *d;
	size_t i;

	json_array_foreach(devs, i, d)
	{
		const char *at = br_json_str(d, "bdf"), *cls = br_json_str(d, "class");

		if (!at || strcasecmp(at, bdf))
			continue;
		if (val_pci_kind(c->p, d) == VAL_PCI_GPU || val_pci_kind(c->p, d) == VAL_PCI_FABRIC)
			return NULL;
		/* class 01 08: non-volatile memory controller (NVMe) */
		if (cls && strtol(cls, NULL, 16) >> 8 == 0x0108)
			return NULL;
		return val_pci_kind(c->p, d) == VAL_PCI_ETHERNET ? "an Ethernet NIC" : "a device";
	}
	return NULL;
}

void val_rule_dmesg(struct val_node_ctx *c)
{
	struct val_evidence e;
	char *why = NULL;
	json_t *dmesg = val_probe_section(c, "dmesg", &why), *matches, *m;
	size_t corrected = 0, not_judged = 0, sxid_nonfatal = 0, i;

	val_ev_init(&e);
	if (!dmesg) {
		val_ev_add(&e, VAL_UNKNOWN, "%s (the probe needs root where dmesg_restrict is set)", why);
		goto out;
	}
	matches = json_object_get(dmesg, "matches");
	json_array_foreach(matches, i, m)
	{
		const char *kind = br_json_str(m, "kind"), *line = br_json_str(m, "line");
		char bdf[16];

		if (!kind || !line)
			continue;
		if (!strcmp(kind, "pcie_aer") && !aer_uncorrectable(line)) {
			corrected++;
			continue;
		}
		if (!strcmp(kind, "pcie_link_limited") && !line_function(line, bdf) &&
		    limited_not_judged(c, bdf)) {
			not_judged++;
			continue;
		}
		/* NVIDIA's Fabric Manager guide: a non-fatal SXid is an error the
		 * NVSwitch recovered from (links training at boot print them); a
		 * fatal one stalls the NVLink traffic through that switch until
		 * the GPUs and switches are reset. Lines without a severity are
		 * the same event's data. */
		if (!strcmp(kind, "nvswitch_sxid") && !br_json_str(m, "severity"))
			continue;
		if (!strcmp(kind, "nvswitch_sxid") && strcmp(br_json_str(m, "severity"), "fatal")) {
			sxid_nonfatal++;
			continue;
		}
		if (!strcmp(kind, "nvidia_xid"))
			val_ev_add(&e, VAL_FAIL, "NVIDIA Xid %lld: '%s'",
				   (long long)br_json_int(m, "xid", -1), line);
		else if (!strcmp(kind, "nvswitch_sxid"))
			val_ev_add(&e, VAL_FAIL,
				   "fatal NVSwitch SXid %lld: '%s': NVLink traffic through that NVSwitch "
				   "stalls; reset the GPUs and NVSwitches (reboot), and if it returns, have "
				   "the baseboard replaced",
				   (long long)br_json_int(m, "sxid", -1), line);
		else
			val_ev_add(&e, VAL_FAIL, "%s: '%s'", advice(kind), line);
		val_blame_pci(&e, line_function(line, bdf) ? NULL : bdf);
	}
	/* Past the probe's cap only counts are known: a corrected-or-not AER
	 * message among them cannot be judged. */
	if (json_is_true(json_object_get(dmesg, "truncated")) && e.result == VAL_PASS)
		val_ev_add(&e, VAL_UNKNOWN,
			   "the probe listed %zu of %lld matching lines; the rest are not judged",
			   json_array_size(matches), (long long)br_json_int(dmesg, "count", -1));
	if (e.result == VAL_PASS)
		val_ev_add(&e, VAL_PASS,
			   "%lld kernel log lines: no Xid, fatal SXid, uncorrectable AER, NVMe timeout, "
			   "limited link "
			   "or thermal throttling (%zu corrected AER messages)",
			   (long long)br_json_int(dmesg, "lines", 0), corrected);
	if (sxid_nonfatal)
		val_ev_add(&e, VAL_PASS, "%zu non-fatal NVSwitch SXid events (recovered; not judged)",
			   sxid_nonfatal);
	if (not_judged)
		val_ev_add(
		    &e, VAL_PASS,
		    "%zu PCIe links limited on devices that are not GPUs, fabric NICs or NVMe (not judged)",
		    not_judged);
out:
	val_ev_emit(c, "dmesg", &e);
	free(why);
}
