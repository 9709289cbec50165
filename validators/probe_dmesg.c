/* Kernel log signatures of the faults seen in GPU rack bring-ups: PCIe AER
 * errors, links trained narrower or slower than capable, NVMe command
 * timeouts, NVIDIA Xid and NVSwitch SXid events and thermal throttling. Each match is kept
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
	/* The NVSwitch driver's: "nvidia-nvswitch3: SXid (PCI:0000:04:00.0):
	 * 22013, Non-fatal, Link 44 Minion Link DLREQ interrupt", each event
	 * followed by its "Data {…}" and "Severity …" lines under one code. */
	{ "nvswitch_sxid", "SXid (PCI:", NULL },
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

/* An SXid line's severity: the word after its code ("22013, Non-fatal,
 * Link 44 …", "12028, Fatal, …"), or null on the event's other lines. */
static json_t *sxid_severity(const char *line, size_t len)
{
	for (size_t i = 0; i + 3 < len; i++) {
		if (memcmp(line + i, "): ", 3) == 0) {
			size_t j = i + 3;

			while (j < len && line[j] >= '0' && line[j] <= '9')
				j++;
			if (len - j >= 8 && !memcmp(line + j, ", Fatal,", 8))
				return json_string("fatal");
			if (len - j >= 12 && !memcmp(line + j, ", Non-fatal,", 12))
				return json_string("non-fatal");
			return json_null();
		}
	}
	return json_null();
}

/* The "[ 1234.567890]" stamp of a line (dmesg's, or kern.log's after its
 * syslog prefix): seconds since boot, or -1. */
static double stamp_of(const char *line, size_t len)
{
	const char *open = memchr(line, '[', len);
	char buf[32];
	size_t n = 0;
	char *end;
	double v;

	if (!open)
		return -1;
	for (const char *p = open + 1; p < line + len && *p != ']' && n + 1 < sizeof(buf); p++)
		buf[n++] = *p;
	buf[n] = '\0';
	if (!n || open + 1 + n >= line + len || open[1 + n] != ']')
		return -1;
	v = strtod(buf, &end);
	return end != buf && *end == '\0' && v >= 0 ? v : -1;
}

/* A net driver's carrier change as netdev_info() prints it ("DRIVER BUS
 * IFNAME: Link down"; mlx5e_update_carrier: "mlx5_core 0000:1a:00.0
 * enp26s0np0: Link up"): into its interface's tally in flaps, keyed by
 * "BUS IFNAME". Down time is summed from each down to the next up; a link
 * still down at the end of the log counts until the log's last stamp. */
static void link_change(json_t *flaps, const char *line, size_t len, double at, int allow_new)
{
	static const char *const words[] = { ": Link down", ": Link up" };
	const char *tokens[3] = { NULL, NULL, NULL }, *w = NULL, *p;
	size_t lens[3] = { 0, 0, 0 };
	int down = -1;
	char *key, *bdf, *ifname;
	json_t *f;

	for (int k = 0; k < 2 && down < 0; k++) {
		size_t wl = strlen(words[k]);

		for (size_t i = 0; i + wl <= len; i++)
			if (!memcmp(line + i, words[k], wl) && (i + wl == len || line[i + wl] == '\r')) {
				w = line + i;
				down = k == 0;
				break;
			}
	}
	if (down < 0 || len > VAL_DMESG_LINE_MAX)
		return;
	/* the three words before it: driver, bus id, interface */
	p = w;
	for (int t = 2; t >= 0; t--) {
		const char *e = p;

		while (p > line && p[-1] != ' ')
			p--;
		tokens[t] = p;
		lens[t] = (size_t)(e - p);
		while (p > line && p[-1] == ' ')
			p--;
	}
	if (!lens[1] || !lens[2] || !memchr(tokens[1], ':', lens[1]) || !memchr(tokens[1], '.', lens[1]))
		return; /* not a PCI function's interface */
	bdf = br_xstrndup(tokens[1], lens[1]);
	ifname = br_xstrndup(tokens[2], lens[2]);
	key = br_xasprintf("%s %s", bdf, ifname);
	f = json_object_get(flaps, key);
	if (!f && !allow_new) {
		free(key);
		free(bdf);
		free(ifname);
		return;
	}
	if (!f) {
		f = json_pack("{s:s, s:s, s:i, s:f, s:b, s:n}", "pci_bdf", bdf, "ifname", ifname, "downs", 0,
			      "down_s", 0.0, "down_at_end", 0, "down_since");
		json_object_set_new(flaps, key, f);
	}
	if (down) {
		json_object_set_new(f, "downs",
				    json_integer(json_integer_value(json_object_get(f, "downs")) + 1));
		if (at >= 0 && json_is_null(json_object_get(f, "down_since")))
			json_object_set_new(f, "down_since", json_real(at));
	} else if (at >= 0 && json_is_real(json_object_get(f, "down_since"))) {
		double since = json_real_value(json_object_get(f, "down_since"));

		json_object_set_new(f, "down_s",
				    json_real(json_real_value(json_object_get(f, "down_s")) + (at - since)));
		json_object_set_new(f, "down_since", json_null());
	}
	free(key);
	free(bdf);
	free(ifname);
}

/* Links still down when the log ends: down until its last stamp. */
static json_t *flaps_close(json_t *flaps, double last)
{
	const char *key;
	json_t *f, *list = json_array();

	json_object_foreach(flaps, key, f)
	{
		json_t *since = json_object_get(f, "down_since");

		if (json_is_real(since)) {
			json_object_set_new(f, "down_at_end", json_true());
			if (last >= json_real_value(since))
				json_object_set_new(f, "down_s",
						    json_real(json_real_value(json_object_get(f, "down_s")) +
							      last - json_real_value(since)));
		}
		json_object_del(f, "down_since");
		json_array_append(list, f);
	}
	json_decref(flaps);
	return list;
}

json_t *val_dmesg_scan(const char *text, size_t len)
{
	json_t *counts = json_object(), *matches = json_array(), *flaps = json_object();
	size_t lines = 0, total = 0, pos = 0;
	double last = -1;

	for (size_t s = 0; s < NSIG; s++)
		json_object_set_new(counts, signatures[s].kind, json_integer(0));
	while (text && pos < len) {
		const char *line = text + pos;
		const char *nl = memchr(line, '\n', len - pos);
		size_t ll = nl ? (size_t)(nl - line) : len - pos;

		pos += ll + 1;
		lines++;
		{
			double at = stamp_of(line, ll);

			if (at >= 0)
				last = at;
			link_change(flaps, line, ll, at, json_object_size(flaps) < VAL_DMESG_MATCHES_MAX);
		}
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
				if (strcmp(sig->kind, "nvswitch_sxid") == 0) {
					json_object_set_new(m, "sxid", xid_of(line, ll));
					json_object_set_new(m, "severity", sxid_severity(line, ll));
				}
				json_array_append_new(matches, m);
			}
			break; /* one kind per line */
		}
	}
	return json_pack("{s:I, s:I, s:b, s:o, s:o, s:o}", "lines", (json_int_t)lines, "count",
			 (json_int_t)total, "truncated", total > json_array_size(matches), "counts", counts,
			 "matches", matches, "link_flaps", flaps_close(flaps, last));
}
