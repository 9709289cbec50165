/* Kernel log signatures of the faults seen in GPU rack bring-ups: PCIe AER
 * errors, links trained narrower or slower than capable, NVMe command
 * timeouts, NVIDIA Xid events and thermal throttling. Each match is kept
 * with its line so a technician reads what the kernel said. */
#include <stdlib.h>
#include <string.h>

#include "validators.h"

struct signature {
	const char *kind;
	const char *needle; /* the line contains this */
	const char *also;   /* and this, when non-NULL */
};

static const struct signature signatures[] = {
	{ "pcie_aer", "AER:", NULL },
	{ "pcie_aer", "PCIe Bus Error", NULL },
	/* pcie_print_link_status(): "... available PCIe bandwidth, limited by
	 * 8.0 GT/s PCIe x4 link at 0000:00:01.0 (capable of ...)" */
	{ "pcie_link_limited", "limited by", " link at " },
	{ "pcie_link_limited", "limited width", NULL },
	{ "nvme_timeout", "nvme", "timeout" },
	{ "nvidia_xid", "NVRM: Xid", NULL },
	{ "thermal_throttle", "temperature above threshold", NULL },
	{ "thermal_throttle", "clock throttled", NULL },
};
#define NSIG (sizeof(signatures) / sizeof(signatures[0]))

static int contains(const char *line, size_t len, const char *needle)
{
	size_t nl = strlen(needle);

	for (size_t i = 0; i + nl <= len; i++)
		if (memcmp(line + i, needle, nl) == 0)
			return 1;
	return 0;
}

/* The line as printable ASCII (kernel lines are, but a kern.log may hold
 * anything), cut at VAL_DMESG_LINE_MAX. */
static json_t *line_json(const char *line, size_t len)
{
	char buf[VAL_DMESG_LINE_MAX + 1];
	size_t n = len < VAL_DMESG_LINE_MAX ? len : VAL_DMESG_LINE_MAX;

	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)line[i];

		buf[i] = (c >= 0x20 && c < 0x7f) || c == '\t' ? (char)c : '?';
	}
	buf[n] = '\0';
	return json_string(buf);
}

/* "NVRM: Xid (PCI:0000:1b:00): 79, pid=..." -> 79 */
static json_t *xid_of(const char *line, size_t len)
{
	for (size_t i = 0; i + 3 < len; i++) {
		if (memcmp(line + i, "): ", 3) == 0) {
			long v = 0;
			size_t j = i + 3;

			if (j >= len || line[j] < '0' || line[j] > '9')
				return json_null();
			while (j < len && line[j] >= '0' && line[j] <= '9' && v < 100000)
				v = v * 10 + (line[j++] - '0');
			return json_integer(v);
		}
	}
	return json_null();
}

json_t *val_dmesg_scan(const char *text, size_t len)
{
	json_t *counts = json_object(), *matches = json_array();
	size_t lines = 0, total = 0, pos = 0;

	for (size_t s = 0; s < NSIG; s++)
		json_object_set_new(counts, signatures[s].kind, json_integer(0));
	while (text && pos < len) {
		const char *line = text + pos;
		const char *nl = memchr(line, '\n', len - pos);
		size_t ll = nl ? (size_t)(nl - line) : len - pos;

		pos += ll + 1;
		lines++;
		for (size_t s = 0; s < NSIG; s++) {
			const struct signature *sig = &signatures[s];
			json_t *m;

			if (!contains(line, ll, sig->needle) || (sig->also && !contains(line, ll, sig->also)))
				continue;
			json_object_set_new(
			    counts, sig->kind,
			    json_integer(json_integer_value(json_object_get(counts, sig->kind)) + 1));
			total++;
			if (json_array_size(matches) < VAL_DMESG_MATCHES_MAX) {
				m = json_pack("{s:s, s:o}", "kind", sig->kind, "line", line_json(line, ll));
				if (strcmp(sig->kind, "nvidia_xid") == 0)
					json_object_set_new(m, "xid", xid_of(line, ll));
				json_array_append_new(matches, m);
			}
			break; /* one kind per line */
		}
	}
	return json_pack("{s:I, s:I, s:b, s:o, s:o}", "lines", (json_int_t)lines, "count", (json_int_t)total,
			 "truncated", total > json_array_size(matches), "counts", counts, "matches", matches);
}
