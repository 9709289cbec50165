/* The node's physical checks: one entry point over the probe's document and
 * the BMC's facts, and the helpers every rule file shares. */
#define _DEFAULT_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "rules_node_private.h"
#include "validators.h"

void val_ev_init(struct val_evidence *e)
{
	br_buf_init(&e->buf, VAL_DETAIL_MAX);
	e->items = 0;
	e->left_out = 0;
	e->result = VAL_PASS;
	e->blamed = NULL;
	e->blame_spread = 0;
}

void val_blame_pci(struct val_evidence *e, const char *bdf)
{
	char *part = bdf ? br_xasprintf("pci:%s", bdf) : NULL;

	val_ev_blame(e, part);
	free(part);
}

void val_ev_blame(struct val_evidence *e, const char *component)
{
	if (!component || (e->blamed && strcmp(e->blamed, component)))
		e->blame_spread = 1;
	else if (!e->blamed)
		e->blamed = br_xstrdup(component);
}

void val_ev_result(struct val_evidence *e, enum val_result r)
{
	if (r == VAL_FAIL || (r == VAL_UNKNOWN && e->result == VAL_PASS))
		e->result = r;
}

void val_ev_add(struct val_evidence *e, enum val_result r, const char *fmt, ...)
{
	struct br_buf item;
	va_list ap;

	val_ev_result(e, r);
	if (e->items >= VAL_DETAIL_ITEMS_MAX) {
		e->left_out++;
		return;
	}
	br_buf_init(&item, VAL_DETAIL_MAX);
	if (e->items)
		br_buf_adds(&item, "; ");
	va_start(ap, fmt);
	br_buf_vaddf(&item, fmt, ap);
	va_end(ap);
	/* An item that does not fit is counted instead: "and N more" says so. */
	if (br_buf_add(&e->buf, item.data ? item.data : "", item.len))
		e->left_out++;
	else
		e->items++;
	br_buf_release(&item);
}

void val_ev_emit(struct val_node_ctx *c, const char *name, struct val_evidence *e)
{
	if (e->left_out)
		br_buf_addf(&e->buf, "; and %zu more", e->left_out);
	val_check_add_take(c->checks, c->n, br_xstrdup(name), e->result, br_buf_detach(&e->buf));
	if (e->result != VAL_PASS && e->blamed && !e->blame_spread) {
		(*c->checks)[*c->n - 1].component = e->blamed;
		e->blamed = NULL;
	}
	free(e->blamed);
	e->blamed = NULL;
	br_buf_release(&e->buf);
}

void val_node_check(struct val_node_ctx *c, const char *name, enum val_result r, const char *fmt, ...)
{
	struct br_buf b;
	va_list ap;

	br_buf_init(&b, VAL_DETAIL_MAX);
	va_start(ap, fmt);
	br_buf_vaddf(&b, fmt, ap);
	va_end(ap);
	val_check_add_take(c->checks, c->n, br_xstrdup(name), r, br_buf_detach(&b));
	br_buf_release(&b);
}

json_t *val_probe_section(struct val_node_ctx *c, const char *name, char **ret_why)
{
	json_t *s;
	const char *status, *error;

	if (!c->probe) {
		*ret_why = br_xstrdup(c->probe_missing);
		return NULL;
	}
	s = json_object_get(c->probe, name);
	if (!json_is_object(s)) {
		*ret_why = br_xasprintf("the probe document has no '%s' section", name);
		return NULL;
	}
	status = br_json_str(s, "status");
	if (status && strcmp(status, "ok")) {
		error = br_json_str(s, "error");
		*ret_why = br_xasprintf("the probe could not read %s: %s%s%s", name, status,
					error ? ": " : "", error ? error : "");
		return NULL;
	}
	return s;
}

/* "0x030200" → 0x030200; -1 when missing or not hex. */
static long hex_field(json_t *dev, const char *key)
{
	const char *s = br_json_str(dev, key);
	char *end = NULL;
	long v;

	if (!s)
		return -1;
	errno = 0;
	v = strtol(s, &end, 16);
	return errno || end == s || *end || v < 0 ? -1 : v;
}

#define PCI_VENDOR_NVIDIA 0x10de
#define PCI_VENDOR_AMD 0x1002
#define PCI_VENDOR_MELLANOX 0x15b3

/* GPUs: 3D controllers (H100/H200 are 0x0302), NVIDIA's or AMD's display
 * controllers, processing accelerators (0x12). Not the BMC's own VGA
 * (ASPEED, Matrox: 0x0300 of other vendors). Fabric NICs: InfiniBand
 * controllers (0x0207), Mellanox/NVIDIA networking parts, or any network
 * function whose link can be as wide as the profile's fabric link (LOM
 * Ethernet ports are x1–x4). */
enum val_pci_kind val_pci_kind(const struct prof_profile *p, json_t *dev)
{
	long cls = hex_field(dev, "class"), vendor = hex_field(dev, "vendor");
	long base = cls >= 0 ? cls >> 16 : -1, sub = cls >= 0 ? (cls >> 8) & 0xff : -1;
	int64_t width_max = br_json_int(dev, "link/width_max", -1);

	if ((base == 0x03 && sub == 0x02) || base == 0x12 ||
	    (base == 0x03 && (vendor == PCI_VENDOR_NVIDIA || vendor == PCI_VENDOR_AMD)))
		return VAL_PCI_GPU;
	if (base != 0x02)
		return VAL_PCI_OTHER;
	if (sub == 0x07 || vendor == PCI_VENDOR_MELLANOX)
		return VAL_PCI_FABRIC;
	if (p->hw.fabric_nics > 0 && p->hw.fabric_link.width > 0 && width_max >= p->hw.fabric_link.width)
		return VAL_PCI_FABRIC;
	return VAL_PCI_ETHERNET;
}

/* Redfish DeviceClass, with the same reasoning: the iDRAC lists its own
 * embedded Matrox VGA as a DisplayController, x1. */
enum val_pci_kind val_bmc_pcie_kind(const struct prof_profile *p, const struct br_pcie *d)
{
	const char *cls = d->device_class ? d->device_class : "";
	int big = d->max_lanes >= 8;

	if (!strcasecmp(cls, "ProcessingAccelerators") ||
	    (!strcasecmp(cls, "DisplayController") &&
	     (big || br_contains_nocase(d->manufacturer, "NVIDIA") ||
	      br_contains_nocase(d->manufacturer, "AMD") ||
	      br_contains_nocase(d->manufacturer, "Advanced Micro"))))
		return VAL_PCI_GPU;
	if (strcasecmp(cls, "NetworkController"))
		return VAL_PCI_OTHER;
	if (br_contains_nocase(d->manufacturer, "Mellanox") ||
	    br_contains_nocase(d->manufacturer, "NVIDIA") ||
	    (p->hw.fabric_nics > 0 && p->hw.fabric_link.width > 0 && d->max_lanes >= p->hw.fabric_link.width))
		return VAL_PCI_FABRIC;
	return VAL_PCI_ETHERNET;
}

const char *val_pci_kind_name(enum val_pci_kind k)
{
	switch (k) {
	case VAL_PCI_GPU:
		return "GPU";
	case VAL_PCI_FABRIC:
		return "fabric NIC";
	case VAL_PCI_ETHERNET:
		return "Ethernet NIC";
	case VAL_PCI_OTHER:
		return "device";
	}
	return "device";
}

static const double gen_gts[] = { 0, 2.5, 5.0, 8.0, 16.0, 32.0, 64.0 };
static const char *const gen_names[] = { "Gen?", "Gen1", "Gen2", "Gen3", "Gen4", "Gen5", "Gen6" };

double val_gen_gts(const char *gen)
{
	for (size_t i = 1; gen && i < sizeof(gen_gts) / sizeof(gen_gts[0]); i++)
		if (!strcasecmp(gen, gen_names[i]))
			return gen_gts[i];
	return 0;
}

const char *val_gts_gen(double gts)
{
	for (size_t i = 1; i < sizeof(gen_gts) / sizeof(gen_gts[0]); i++)
		if (gts > gen_gts[i] - 0.1 && gts < gen_gts[i] + 0.1)
			return gen_names[i];
	return gen_names[0];
}

int val_serial_eq(const char *a, const char *b)
{
	size_t la, lb;

	if (!a || !b)
		return 0;
	while (isspace((unsigned char)*a))
		a++;
	while (isspace((unsigned char)*b))
		b++;
	la = strlen(a);
	lb = strlen(b);
	while (la && isspace((unsigned char)a[la - 1]))
		la--;
	while (lb && isspace((unsigned char)b[lb - 1]))
		lb--;
	return la && la == lb && !strncasecmp(a, b, la);
}

void val_judge_node(const struct prof_profile *p, const struct val_node_facts *f,
		    struct val_check **ret_checks, size_t *ret_n)
{
	struct val_node_ctx c = { p, f, f->probe, NULL, ret_checks, ret_n };
	char *why = NULL;

	if (!f->probe) {
		c.probe_missing = "no probe document (the probe did not run on the node)";
	} else if (!json_is_object(f->probe) ||
		   !json_is_integer(json_object_get(f->probe, "probe_version"))) {
		c.probe = NULL;
		c.probe_missing = "the probe document has no probe_version: not bringup-probe's output";
	} else if (json_integer_value(json_object_get(f->probe, "probe_version")) != VAL_PROBE_VERSION) {
		why = br_xasprintf(
		    "probe_version %lld, this build reads %d: copy this build's bringup-probe to "
		    "the node",
		    (long long)json_integer_value(json_object_get(f->probe, "probe_version")),
		    VAL_PROBE_VERSION);
		c.probe = NULL;
		c.probe_missing = why;
	}
	val_rule_pcie(&c);
	val_rule_gpu_count(&c);
	val_rule_nic_count(&c);
	val_rule_nvme_count(&c);
	val_rule_boot_disk(&c);
	val_rule_thermal(&c);
	val_rule_cpufreq(&c);
	val_rule_clock(&c);
	val_rule_psu(&c);
	val_rule_fans(&c);
	val_rule_dmesg(&c);
	val_rule_gpu_health(&c);
	val_rule_ib_ports(&c);
	val_rule_nvlink(&c);
	val_rule_gpudirect(&c);
	val_rule_nvlink_fabric(&c);
	free(why);
}

void val_checks_expected(const struct prof_profile *p, struct br_strlist *out)
{
	const struct prof_hardware *hw = &p->hw;
	const struct {
		const char *name;
		int given;
	} checks[] = {
		{ "cabling", 1 },
		{ "pcie", 1 },
		{ "gpu_count", hw->gpus >= 0 },
		{ "nic_count", hw->fabric_nics >= 0 || hw->ethernet_nics >= 0 },
		{ "nvme_count", hw->nvme >= 0 },
		{ "boot_disk", 1 },
		{ "thermal", 1 },
		{ "cpufreq", 1 },
		{ "clock", hw->clock_skew_max_ms >= 0 },
		{ "psu", 1 },
		{ "fans", hw->fans >= 0 },
		{ "dmesg", 1 },
		{ "gpu_health", hw->gpus != 0 },
		{ "ib_ports", hw->ib_ports >= 0 },
		{ "nvlink", hw->gpu_nvlinks >= 0 && hw->gpus != 0 },
		{ "gpudirect_rdma", (hw->gpu_gpudirect_rdma || hw->gpu_gpudirect_switch) && hw->gpus != 0 },
		{ "nvlink_fabric", hw->gpu_nvlink_fabric && hw->gpus != 0 },
		{ "dcgm_diag", hw->dcgm_diag_level > 0 },
		{ "rdma_bw", hw->rdma_bw_gbps > 0 },
		{ "firmware:*", p->n_firmware > 0 },
	};

	for (size_t i = 0; i < sizeof(checks) / sizeof(checks[0]); i++)
		if (checks[i].given)
			br_strlist_add(out, checks[i].name);
}
