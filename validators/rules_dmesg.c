/* dmesg: the kernel's own reports of failing hardware, from the probe's
 * signature scan: NVIDIA Xid, uncorrectable PCIe AER, NVMe timeouts, links
 * "limited by" a narrow or slow hop, thermal throttling. */
#define _DEFAULT_SOURCE
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

void val_rule_dmesg(struct val_node_ctx *c)
{
	struct val_evidence e;
	char *why = NULL;
	json_t *dmesg = val_probe_section(c, "dmesg", &why), *matches, *m;
	size_t corrected = 0, i;

	val_ev_init(&e);
	if (!dmesg) {
		val_ev_add(&e, VAL_UNKNOWN, "%s (the probe needs root where dmesg_restrict is set)", why);
		goto out;
	}
	matches = json_object_get(dmesg, "matches");
	json_array_foreach(matches, i, m)
	{
		const char *kind = br_json_str(m, "kind"), *line = br_json_str(m, "line");

		if (!kind || !line)
			continue;
		if (!strcmp(kind, "pcie_aer") && !aer_uncorrectable(line))
			corrected++;
		else if (!strcmp(kind, "nvidia_xid"))
			val_ev_add(&e, VAL_FAIL, "NVIDIA Xid %lld: '%s'",
				   (long long)br_json_int(m, "xid", -1), line);
		else
			val_ev_add(&e, VAL_FAIL, "%s: '%s'", advice(kind), line);
	}
	/* Past the probe's cap only counts are known: a corrected-or-not AER
	 * message among them cannot be judged. */
	if (json_is_true(json_object_get(dmesg, "truncated")) && e.result == VAL_PASS)
		val_ev_add(&e, VAL_UNKNOWN,
			   "the probe listed %zu of %lld matching lines; the rest are not judged",
			   json_array_size(matches), (long long)br_json_int(dmesg, "count", -1));
	if (e.result == VAL_PASS)
		val_ev_add(
		    &e, VAL_PASS,
		    "%lld kernel log lines: no Xid, uncorrectable AER, NVMe timeout, limited link or thermal "
		    "throttling (%zu corrected AER messages)",
		    (long long)br_json_int(dmesg, "lines", 0), corrected);
out:
	val_ev_emit(c, "dmesg", &e);
	free(why);
}
