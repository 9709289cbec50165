/* gpudirect_rdma: where the profile asks for GPUDirect RDMA ([gpu]
 * gpudirect_rdma = yes), the kernel's peer-memory client that lets a
 * fabric NIC read and write GPU memory is loaded: nvidia_peermem (in the
 * NVIDIA driver since R470) or the older out-of-tree nv_peer_mem. Without
 * it NCCL falls back to staging through host memory, silently and slowly
 * (field reports: "GPUDirect RDMA (peer memory client) failed to load").
 * Where the profile says so ([gpu] gpudirect_switch = yes), each GPU also
 * shares a PCIe switch with a fabric NIC of its own, from the probe's
 * upstream bridges: a GPU whose NIC hangs off another root port reaches
 * it through the CPU, at a fraction of the bandwidth. */
#define _DEFAULT_SOURCE
#include <stdlib.h>
#include <string.h>

#include "rules_node_private.h"
#include "validators.h"

#define SWITCH_DEPTH_MAX 16 /* bridges walked up from a device */

static json_t *find_bdf(json_t *devs, const char *bdf)
{
	json_t *d;
	size_t i;

	json_array_foreach(devs, i, d) if (bdf && br_json_str(d, "bdf") &&
					   !strcmp(br_json_str(d, "bdf"), bdf)) return d;
	return NULL;
}

/* The bridges above a device, nearest first (at most SWITCH_DEPTH_MAX). */
static size_t path_up(json_t *devs, json_t *dev, const char **out)
{
	size_t n = 0;

	for (json_t *d = find_bdf(devs, br_json_str(dev, "upstream")); d && n < SWITCH_DEPTH_MAX;
	     d = find_bdf(devs, br_json_str(d, "upstream")))
		out[n++] = br_json_str(d, "bdf");
	return n;
}

/* Whether two devices meet below a PCIe switch: their nearest common
 * bridge has a bridge above it (a switch's port, not a root port, whose
 * upstream the probe leaves null). */
static int share_switch(json_t *devs, json_t *a, json_t *b)
{
	const char *pa[SWITCH_DEPTH_MAX], *pb[SWITCH_DEPTH_MAX];
	size_t na = path_up(devs, a, pa), nb = path_up(devs, b, pb);

	for (size_t i = 0; i < na; i++)
		for (size_t j = 0; j < nb; j++)
			if (pa[i] && pb[j] && !strcmp(pa[i], pb[j]))
				return i + 1 < na;
	return 0;
}

static void switch_pairs(struct val_node_ctx *c, struct val_evidence *e)
{
	json_t *pcie = c->probe ? json_object_get(c->probe, "pcie") : NULL,
	       *devs = json_object_get(pcie, "devices"), *g, *n;
	size_t i, j, gpus = 0, paired = 0, fabric = 0;
	char taken[VAL_PCI_DEVICES_MAX] = { 0 };
	int short_of_nics;

	if (!json_array_size(devs)) {
		val_ev_add(e, VAL_UNKNOWN, "the probe listed no PCIe devices: GPU/NIC switches not judged");
		return;
	}
	json_array_foreach(devs, i, n) fabric += val_pci_kind(c->p, n) == VAL_PCI_FABRIC;
	/* fewer fabric NICs than the profile has: an unpaired GPU is most
	 * likely the one whose NIC is missing, which nic_count names */
	short_of_nics = c->p->hw.fabric_nics >= 0 && (int64_t)fabric < c->p->hw.fabric_nics;
	json_array_foreach(devs, i, g)
	{
		const char *nic = NULL, *root;
		const char *path[SWITCH_DEPTH_MAX];
		size_t up;

		if (val_pci_kind(c->p, g) != VAL_PCI_GPU)
			continue;
		gpus++;
		json_array_foreach(devs, j, n)
		{
			if (j >= VAL_PCI_DEVICES_MAX || taken[j] || val_pci_kind(c->p, n) != VAL_PCI_FABRIC ||
			    !share_switch(devs, g, n))
				continue;
			taken[j] = 1;
			nic = br_json_str(n, "bdf");
			break;
		}
		if (nic) {
			paired++;
			continue;
		}
		up = path_up(devs, g, path);
		root = up ? path[up - 1] : NULL;
		if (short_of_nics) {
			val_ev_add(e, VAL_FAIL,
				   "GPU at %s shares no PCIe switch with a fabric NIC of its own (its path "
				   "ends at root port %s), and the probe sees %zu of %d fabric NICs: its NIC "
				   "is most likely the missing one (nic_count)",
				   br_json_str(g, "bdf") ? br_json_str(g, "bdf") : "?", root ? root : "none",
				   fabric, c->p->hw.fabric_nics);
			val_ev_blame(e, VAL_PART_FABRIC_NICS);
			continue;
		}
		val_ev_add(e, VAL_FAIL,
			   "GPU at %s shares no PCIe switch with a fabric NIC of its own (its path ends at "
			   "root port %s): GPUDirect RDMA to the fabric crosses the CPU; check that the "
			   "GPU and its rail NIC sit in the slots the baseboard pairs",
			   br_json_str(g, "bdf") ? br_json_str(g, "bdf") : "?", root ? root : "none");
		val_blame_pci(e, br_json_str(g, "bdf"));
	}
	if (!gpus)
		val_ev_add(e, VAL_UNKNOWN, "the probe listed no GPU on PCIe: GPU/NIC switches not judged");
	else if (paired == gpus)
		val_ev_add(e, VAL_PASS, "each of %zu GPU%s shares a PCIe switch with a fabric NIC of its own",
			   gpus, gpus == 1 ? "" : "s");
}

static void peer_memory(struct val_node_ctx *c, struct val_evidence *e)
{
	static const char *const clients[] = { "nvidia_peermem", "nv_peer_mem" };
	char *why = NULL;
	json_t *section = val_probe_section(c, "modules", &why), *loaded, *m;
	size_t i;

	if (!section) {
		val_ev_add(e, VAL_UNKNOWN, "%s", why);
		free(why);
		return;
	}
	loaded = json_object_get(section, "loaded");
	json_array_foreach(loaded, i, m)
	{
		for (size_t k = 0; k < sizeof(clients) / sizeof(clients[0]); k++)
			if (json_is_string(m) && !strcmp(json_string_value(m), clients[k])) {
				val_ev_add(e, VAL_PASS, "%s loaded (of %zu modules)", clients[k],
					   json_array_size(loaded));
				return;
			}
	}
	val_ev_add(e, VAL_FAIL,
		   "neither nvidia_peermem nor nv_peer_mem is loaded (%zu modules in /proc/modules): "
		   "GPUDirect RDMA is off; load it (modprobe nvidia_peermem) and make it load at boot "
		   "(/etc/modules-load.d)",
		   json_array_size(loaded));
	val_ev_blame(e, NULL);
}

void val_rule_gpudirect(struct val_node_ctx *c)
{
	const struct prof_hardware *hw = &c->p->hw;
	struct val_evidence e;

	if ((!hw->gpu_gpudirect_rdma && !hw->gpu_gpudirect_switch) || hw->gpus == 0)
		return;
	val_ev_init(&e);
	if (hw->gpu_gpudirect_rdma)
		peer_memory(c, &e);
	if (hw->gpu_gpudirect_switch)
		switch_pairs(c, &e);
	val_ev_emit(c, "gpudirect_rdma", &e);
}
