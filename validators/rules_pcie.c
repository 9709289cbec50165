/* pcie: every GPU and fabric NIC link at the profile's width and able to
 * reach its speed (pcie_degraded: a riser or cable that trains x4). */
#define _DEFAULT_SOURCE
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "rules_node_private.h"

#define UPSTREAM_DEPTH_MAX 16 /* bridges walked up looking for a slot */

static json_t *find_bdf(json_t *arr, const char *bdf)
{
	size_t i;
	json_t *d;

	json_array_foreach(arr, i, d) if (bdf && br_json_str(d, "bdf") &&
					  !strcmp(br_json_str(d, "bdf"), bdf)) return d;
	return NULL;
}

/* The slot a device sits in: its own, else the nearest bridge's above it,
 * else the BMC's for that address. */
static const char *slot_of(struct val_node_ctx *c, json_t *devs, json_t *dev)
{
	json_t *d = dev;
	const char *bdf = br_json_str(dev, "bdf");

	for (int depth = 0; d && depth < UPSTREAM_DEPTH_MAX; depth++) {
		if (br_json_str(d, "slot"))
			return br_json_str(d, "slot");
		d = find_bdf(devs, br_json_str(d, "upstream"));
	}
	for (size_t i = 0; c->f->bmc && bdf && i < c->f->bmc->n_pcie; i++) {
		const struct br_pcie *b = &c->f->bmc->pcie[i];

		if (b->address && b->slot && !strcasecmp(b->address, bdf))
			return b->slot;
	}
	return "unknown";
}

struct kind_tally {
	size_t judged, idle_below;
};

static const struct prof_link *expected_link(const struct prof_profile *p, enum val_pci_kind k)
{
	return k == VAL_PCI_GPU ? &p->hw.gpu_link : &p->hw.fabric_link;
}

/* Lower of two known speeds (0 = unknown). */
static double min_known(double a, double b)
{
	if (a <= 0)
		return b;
	if (b <= 0)
		return a;
	return a < b ? a : b;
}

static void judge_device(struct val_node_ctx *c, struct val_evidence *e, json_t *devs, json_t *gpus,
			 json_t *dev, enum val_pci_kind kind, size_t ordinal, struct kind_tally *t)
{
	const struct prof_link *want = expected_link(c->p, kind);
	const char *bdf = br_json_str(dev, "bdf"), *up = br_json_str(dev, "upstream");
	json_t *smi = kind == VAL_PCI_GPU ? find_bdf(gpus, bdf) : NULL, *updev = find_bdf(devs, up);
	int64_t width = br_json_int(dev, "link/width_current", br_json_int(smi, "pcie/width_current", -1));
	int64_t width_max = br_json_int(dev, "link/width_max", br_json_int(smi, "pcie/width_max", -1));
	int64_t width_want = want->width > 0 ? want->width : width_max;
	double cap_dev = br_json_num(dev, "link/speed_max_gts", 0),
	       cap_up = br_json_num(updev, "link/speed_max_gts", 0);
	double cur = br_json_num(dev, "link/speed_current_gts", 0), speed_want = val_gen_gts(want->speed);
	double cap = min_known(cap_dev, cap_up);
	const char *src = br_json_str(dev, "link/source");
	const char *capname = src && !strcmp(src, "libpci") ? "LnkCap" : "sysfs max_link_speed";
	const char *serial = br_json_str(smi, "serial");
	char *who = br_xasprintf("%s %zu%s%s%s at %s (slot %s, behind %s)", val_pci_kind_name(kind), ordinal,
				 serial ? " (serial " : "", serial ? serial : "", serial ? ")" : "", bdf,
				 slot_of(c, devs, dev), up ? up : "the root complex");
	int bad = 0, failed = 0;

	if (cap <= 0 && br_json_int(smi, "pcie/gen_max", 0) > 0) {
		static const double by_gen[] = { 0, 2.5, 5.0, 8.0, 16.0, 32.0, 64.0 };
		int64_t g = br_json_int(smi, "pcie/gen_max", 0);

		cap = g < 7 ? by_gen[g] : 0;
		capname = "nvidia-smi's max generation";
	}
	if (width < 0) {
		val_ev_add(e, VAL_UNKNOWN, "%s: link width unreadable (no Express capability or sysfs link)",
			   who);
		bad = 1;
	} else if (width_want > 0 && width < width_want) {
		val_ev_add(e, VAL_FAIL, "%s: x%lld, expected x%lld%s: reseat the PCIe riser cable", who,
			   (long long)width, (long long)width_want,
			   want->width > 0 ? "" : " (what the device can do)");
		bad = failed = 1;
	}
	if (speed_want > 0 && cap <= 0) {
		val_ev_add(e, VAL_UNKNOWN, "%s: link speed capability unreadable, expected %s", who,
			   want->speed);
		bad = 1;
	} else if (speed_want > 0 && cap < speed_want - 0.1) {
		char *ends = cap_up > 0
				 ? br_xasprintf("device %.1f GT/s, bridge above %.1f GT/s", cap_dev, cap_up)
				 : br_xasprintf("device %.1f GT/s", cap_dev);

		val_ev_add(e, VAL_FAIL,
			   "%s: the link can reach only %s (%.1f GT/s; %s: %s), expected %s: check the "
			   "riser and slot",
			   who, val_gts_gen(cap), cap, capname, ends, want->speed);
		free(ends);
		bad = failed = 1;
	} else if (speed_want > 0 && kind != VAL_PCI_GPU && cur > 0 && cur < speed_want - 0.1) {
		/* NICs hold their trained speed; only GPUs drop it when idle. */
		val_ev_add(e, VAL_FAIL,
			   "%s: trained at %s (%.1f GT/s), expected %s (the link can reach %s): reseat", who,
			   val_gts_gen(cur), cur, want->speed, val_gts_gen(cap));
		bad = failed = 1;
	}
	if (failed)
		val_blame_pci(e, bdf);
	if (!bad) {
		t->judged++;
		if (cur > 0 && cap > 0 && cur < cap - 0.1)
			t->idle_below++;
	}
	free(who);
}

static void summarise(struct val_node_ctx *c, struct val_evidence *e, enum val_pci_kind k,
		      const struct kind_tally *t)
{
	const struct prof_link *want = expected_link(c->p, k);

	if (!t->judged)
		return;
	if (k == VAL_PCI_GPU && want->speed)
		val_ev_add(
		    e, VAL_PASS,
		    "%zu GPU%s at x%d, each link able to reach %s (judged on what the link can do, LnkCap: "
		    "GPUs lower their link speed when idle; %zu below it now)",
		    t->judged, t->judged == 1 ? "" : "s", want->width, want->speed, t->idle_below);
	else
		val_ev_add(e, VAL_PASS, "%zu %s%s at their expected width%s%s", t->judged,
			   val_pci_kind_name(k), t->judged == 1 ? "" : "s", want->speed ? " and speed " : "",
			   want->speed ? want->speed : "");
}

/* Without the probe's view, the BMC's PCIe inventory still shows lanes. */
static void judge_bmc(struct val_node_ctx *c, struct val_evidence *e, const char *why)
{
	const struct br_hw *hw = c->f->bmc;
	size_t judged = 0;

	for (size_t i = 0; i < hw->n_pcie; i++) {
		const struct br_pcie *d = &hw->pcie[i];
		enum val_pci_kind k = val_bmc_pcie_kind(c->p, d);
		const struct prof_link *want = expected_link(c->p, k);
		int width_want = want->width > 0 ? want->width : d->max_lanes;
		double cap = val_gen_gts(d->max_pcie_type), speed_want = val_gen_gts(want->speed);

		if (k != VAL_PCI_GPU && k != VAL_PCI_FABRIC)
			continue;
		judged++;
		if (d->lanes_in_use >= 0 && width_want > 0 && d->lanes_in_use < width_want)
			val_ev_add(e, VAL_FAIL,
				   "%s in slot %s (serial %s, BMC id %s): x%d per the BMC, expected x%d: "
				   "reseat the PCIe riser cable",
				   val_pci_kind_name(k), d->slot ? d->slot : "unknown",
				   d->serial ? d->serial : "unknown", d->id ? d->id : "?", d->lanes_in_use,
				   width_want);
		if (cap > 0 && speed_want > 0 && cap < speed_want - 0.1)
			val_ev_add(e, VAL_FAIL,
				   "%s in slot %s (serial %s): can reach only %s per the BMC, expected %s",
				   val_pci_kind_name(k), d->slot ? d->slot : "unknown",
				   d->serial ? d->serial : "unknown", d->max_pcie_type, want->speed);
	}
	if (!judged)
		val_ev_add(e, VAL_UNKNOWN, "%s; the BMC lists no GPU or fabric NIC", why);
	else if (e->result == VAL_PASS)
		val_ev_add(e, VAL_PASS, "%zu GPU and fabric NIC links as expected per the BMC (%s)", judged,
			   why);
}

void val_rule_pcie(struct val_node_ctx *c)
{
	struct val_evidence e;
	struct kind_tally gpu = { 0 }, fabric = { 0 };
	size_t n_gpu = 0, n_fabric = 0, i;
	char *why = NULL;
	json_t *pcie = val_probe_section(c, "pcie", &why), *devs, *dev, *gpus;

	val_ev_init(&e);
	devs = json_object_get(pcie, "devices");
	if (!pcie || !json_is_array(devs)) {
		if (c->f->bmc && c->f->bmc->n_pcie)
			judge_bmc(c, &e, why ? why : "the probe lists no PCIe devices");
		else
			val_ev_add(&e, VAL_UNKNOWN, "%s; no PCIe inventory from the BMC either",
				   why ? why : "the probe lists no PCIe devices");
		free(why);
		val_ev_emit(c, "pcie", &e);
		return;
	}
	gpus = br_json_path(c->probe, "gpus/gpus");
	json_array_foreach(devs, i, dev)
	{
		enum val_pci_kind k = val_pci_kind(c->p, dev);

		if (k == VAL_PCI_GPU)
			judge_device(c, &e, devs, gpus, dev, k, ++n_gpu, &gpu);
		else if (k == VAL_PCI_FABRIC)
			judge_device(c, &e, devs, gpus, dev, k, ++n_fabric, &fabric);
	}
	if (!n_gpu && !n_fabric)
		val_ev_add(
		    &e, c->p->hw.gpus > 0 || c->p->hw.fabric_nics > 0 ? VAL_UNKNOWN : VAL_PASS,
		    "no GPU or fabric NIC on PCIe to judge (gpu_count and nic_count say what is missing)");
	summarise(c, &e, VAL_PCI_GPU, &gpu);
	summarise(c, &e, VAL_PCI_FABRIC, &fabric);
	val_ev_emit(c, "pcie", &e);
}
