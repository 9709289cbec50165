/* gpu_count, nic_count, nvme_count: what the node has against the profile,
 * from each source that saw it (the OS's PCI bus, nvidia-smi, the BMC), so
 * a part the BMC knows and the OS lost is named by its serial. */
#define _DEFAULT_SOURCE
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "rules_node_private.h"

static size_t count_probe_pci(struct val_node_ctx *c, json_t *devs, enum val_pci_kind k)
{
	size_t n = 0, i;
	json_t *d;

	json_array_foreach(devs, i, d) if (val_pci_kind(c->p, d) == k) n++;
	return n;
}

/* The BMC's devices of kind k, and the slots they sit in ("1, 2, 5"). */
static size_t count_bmc(struct val_node_ctx *c, enum val_pci_kind k, struct br_buf *slots)
{
	size_t n = 0;

	for (size_t i = 0; i < c->f->bmc->n_pcie; i++) {
		const struct br_pcie *d = &c->f->bmc->pcie[i];

		if (val_bmc_pcie_kind(c->p, d) != k)
			continue;
		br_buf_addf(slots, "%s%s", n ? ", " : "", d->slot ? d->slot : d->id ? d->id : "?");
		n++;
	}
	return n;
}

static int has_bmc_pcie(struct val_node_ctx *c)
{
	return c->f->bmc && c->f->bmc->n_pcie > 0;
}

static void judge_count(struct val_evidence *e, const char *source, const char *what, size_t seen,
			int expected, const char *where)
{
	const char *s = seen == 1 ? "" : "s";

	if ((int64_t)seen == expected)
		val_ev_add(e, VAL_PASS, "%s: %zu %s%s", source, seen, what, s);
	else
		val_ev_add(e, VAL_FAIL, "%s: %zu %s%s, expected %d%s%s", source, seen, what, s, expected,
			   where && *where ? ": seen " : "", where ? where : "");
}

/* GPUs the BMC lists by serial that nvidia-smi does not show. */
static void bmc_serials_missing(struct val_node_ctx *c, struct val_evidence *e, json_t *smi_gpus)
{
	for (size_t i = 0; i < c->f->bmc->n_pcie; i++) {
		const struct br_pcie *d = &c->f->bmc->pcie[i];
		int found = 0;
		size_t j;
		json_t *g;

		if (val_bmc_pcie_kind(c->p, d) != VAL_PCI_GPU || !d->serial || !*d->serial)
			continue;
		json_array_foreach(smi_gpus, j, g) if (val_serial_eq(br_json_str(g, "serial"), d->serial))
		    found = 1;
		if (!found)
			val_ev_add(e, VAL_FAIL,
				   "GPU serial %s in slot %s (per the BMC) is not seen by nvidia-smi",
				   d->serial, d->slot ? d->slot : "unknown");
	}
}

void val_rule_gpu_count(struct val_node_ctx *c)
{
	struct val_evidence e;
	char *why_pci = NULL, *why_smi = NULL;
	json_t *pcie = val_probe_section(c, "pcie", &why_pci), *gpus = val_probe_section(c, "gpus", &why_smi);
	json_t *devs = json_object_get(pcie, "devices"), *smi = json_object_get(gpus, "gpus"), *d;
	size_t sources = 0, i;
	int want = c->p->hw.gpus;

	if (want < 0)
		goto out;
	val_ev_init(&e);
	if (json_is_array(devs)) {
		sources++;
		judge_count(&e, "on PCIe", "GPU", count_probe_pci(c, devs, VAL_PCI_GPU), want, NULL);
	}
	if (json_is_array(smi)) {
		sources++;
		judge_count(&e, "nvidia-smi", "GPU", json_array_size(smi), want, NULL);
		/* on the bus but not in the driver: it fell off (Xid 79) or failed to initialise */
		json_array_foreach(devs, i, d) if (val_pci_kind(c->p, d) == VAL_PCI_GPU)
		{
			size_t j;
			json_t *g;
			int found = 0;

			json_array_foreach(smi, j, g) if (br_json_str(g, "bdf") && br_json_str(d, "bdf") &&
							  !strcasecmp(br_json_str(g, "bdf"),
								      br_json_str(d, "bdf"))) found = 1;
			if (!found) {
				val_ev_add(&e, VAL_FAIL,
					   "GPU at %s is on PCIe but not in nvidia-smi: the driver lost it "
					   "(see dmesg for Xid)",
					   br_json_str(d, "bdf"));
				val_blame_pci(&e, br_json_str(d, "bdf"));
			}
		}
	}
	if (has_bmc_pcie(c)) {
		struct br_buf slots;
		size_t n_bmc;

		br_buf_init(&slots, VAL_DETAIL_MAX);
		sources++;
		n_bmc = count_bmc(c, VAL_PCI_GPU, &slots);
		judge_count(&e, "BMC", "GPU", n_bmc, want, br_buf_str(&slots));
		br_buf_release(&slots);
		if (json_is_array(smi))
			bmc_serials_missing(c, &e, smi);
	}
	if (!sources)
		val_ev_add(&e, VAL_UNKNOWN,
			   "no GPU count from any source: %s; no PCIe inventory from the BMC", why_pci);
	else if (!json_is_array(smi) && why_smi && e.result == VAL_PASS)
		val_ev_add(&e, VAL_PASS, "(nvidia-smi not judged: %s)", why_smi);
	val_ev_emit(c, "gpu_count", &e);
out:
	free(why_pci);
	free(why_smi);
}

void val_rule_nic_count(struct val_node_ctx *c)
{
	struct val_evidence e;
	char *why = NULL;
	json_t *pcie = val_probe_section(c, "pcie", &why), *devs = json_object_get(pcie, "devices");
	int want_fabric = c->p->hw.fabric_nics, want_eth = c->p->hw.ethernet_nics;
	size_t sources = 0;

	if (want_fabric < 0 && want_eth < 0)
		goto out;
	val_ev_init(&e);
	if (json_is_array(devs)) {
		sources++;
		if (want_fabric >= 0) {
			size_t seen = count_probe_pci(c, devs, VAL_PCI_FABRIC);

			judge_count(&e, "on PCIe", "fabric NIC", seen, want_fabric, NULL);
			if ((int64_t)seen != want_fabric)
				val_ev_blame(&e, VAL_PART_FABRIC_NICS);
		}
		if (want_eth >= 0)
			judge_count(&e, "on PCIe", "Ethernet NIC function",
				    count_probe_pci(c, devs, VAL_PCI_ETHERNET), want_eth, NULL);
	}
	/* The BMC lists adapters, not ports: only the one-port fabric NICs count. */
	if (has_bmc_pcie(c) && want_fabric >= 0) {
		struct br_buf slots;
		size_t n_bmc;

		br_buf_init(&slots, VAL_DETAIL_MAX);
		sources++;
		n_bmc = count_bmc(c, VAL_PCI_FABRIC, &slots);
		judge_count(&e, "BMC", "fabric NIC", n_bmc, want_fabric, br_buf_str(&slots));
		if ((int64_t)n_bmc != want_fabric)
			val_ev_blame(&e, VAL_PART_FABRIC_NICS);
		br_buf_release(&slots);
	}
	if (!sources)
		val_ev_add(&e, VAL_UNKNOWN,
			   "no NIC count from any source: %s; no PCIe inventory from the BMC", why);
	val_ev_emit(c, "nic_count", &e);
out:
	free(why);
}

static int is_nvme(const struct br_drive *d)
{
	return d->protocol && !strcasecmp(d->protocol, "NVMe");
}

void val_rule_nvme_count(struct val_node_ctx *c)
{
	struct val_evidence e;
	char *why = NULL;
	json_t *storage = val_probe_section(c, "storage", &why),
	       *ctrls = json_object_get(storage, "nvme_controllers");
	const struct br_hw *hw = c->f->bmc;
	size_t sources = 0, bmc_nvme = 0, i;
	int want = c->p->hw.nvme;
	json_t *ctl;

	if (want < 0)
		goto out;
	val_ev_init(&e);
	if (json_is_array(ctrls)) {
		sources++;
		judge_count(&e, "the OS", "NVMe controller", json_array_size(ctrls), want, NULL);
	}
	for (i = 0; hw && i < hw->n_drives; i++)
		bmc_nvme += is_nvme(&hw->drives[i]);
	if (hw && hw->n_drives) {
		sources++;
		judge_count(&e, "BMC", "NVMe drive", bmc_nvme, want, NULL);
	}
	/* A drive the BMC sees and the OS does not is named: that is the one to pull. */
	for (i = 0; json_is_array(ctrls) && hw && i < hw->n_drives; i++) {
		const struct br_drive *d = &hw->drives[i];
		int found = 0;
		size_t j;

		if (!is_nvme(d) || !d->serial || !*d->serial)
			continue;
		json_array_foreach(ctrls, j, ctl) if (val_serial_eq(br_json_str(ctl, "serial"), d->serial))
		    found = 1;
		if (!found) {
			char *part = br_xasprintf("drive:%s", d->serial);

			val_ev_add(&e, VAL_FAIL,
				   "NVMe serial %s (%s, bay %s per the BMC) is not seen by the OS", d->serial,
				   d->model ? d->model : "model unknown",
				   d->location ? d->location : "unknown");
			/* the boot disk's check names the same drive when it is this one */
			val_ev_blame(&e, part);
			free(part);
		}
	}
	if (!sources)
		val_ev_add(&e, VAL_UNKNOWN, "no NVMe count from any source: %s; no drives from the BMC", why);
	val_ev_emit(c, "nvme_count", &e);
out:
	free(why);
}
