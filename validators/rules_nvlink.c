/* nvlink: each GPU's NVLinks as `nvidia-smi nvlink -s` shows them (the
 * probe's "nvlink" section) against the profile's [gpu] nvlinks and
 * nvlink_gbs: as many links up on every GPU, none inactive, each at least
 * that fast. A GPU whose NVLinks nvidia-smi does not show cannot be
 * judged (unknown): a PCIe part or a GPU passed through without them. A
 * failing link blames its GPU's PCIe function (found by UUID in the
 * "gpus" section), so it joins the GPU's other evidence in one ticket. */
#define _DEFAULT_SOURCE
#include <stdlib.h>
#include <string.h>

#include "rules_node_private.h"

/* The PCIe function of the GPU nvidia-smi -q -x gives this UUID, or NULL. */
static const char *bdf_of(struct val_node_ctx *c, const char *uuid)
{
	json_t *g;
	size_t i;

	json_array_foreach(br_json_path(c->probe, "gpus/gpus"), i, g)
	{
		const char *u = br_json_str(g, "uuid");

		if (uuid && u && !strcmp(u, uuid))
			return br_json_str(g, "bdf");
	}
	return NULL;
}

static void one_gpu(struct val_node_ctx *c, struct val_evidence *e, json_t *gpu, size_t *ret_links)
{
	const struct prof_hardware *hw = &c->p->hw;
	const char *uuid = br_json_str(gpu, "uuid"), *bdf = bdf_of(c, uuid);
	json_t *links = json_object_get(gpu, "links"), *l;
	char *who =
	    br_xasprintf("GPU %lld (%s) at %s", (long long)json_integer_value(json_object_get(gpu, "index")),
			 uuid ? uuid : "UUID unknown", bdf ? bdf : "an unknown PCI address");
	size_t up = 0, i;

	json_array_foreach(links, i, l)
	{
		json_t *active = json_object_get(l, "active");
		long long n = (long long)json_integer_value(json_object_get(l, "link"));
		double gbs = br_json_num(l, "gbs", -1);

		if (json_is_false(active)) {
			val_ev_add(
			    e, VAL_FAIL,
			    "%s: NVLink %lld inactive: reseat the GPU on its baseboard, then check the "
			    "NVSwitch and the fabric manager",
			    who, n);
			val_blame_pci(e, bdf);
		} else if (!json_is_true(active)) {
			val_ev_add(e, VAL_UNKNOWN, "%s: NVLink %lld: '%s' is not a speed", who, n,
				   br_json_str(l, "text") ? br_json_str(l, "text") : "?");
		} else {
			up++;
			if (hw->gpu_nvlink_gbs > 0 && gbs < hw->gpu_nvlink_gbs) {
				val_ev_add(e, VAL_FAIL, "%s: NVLink %lld at %s, expected %d GB/s or more",
					   who, n, br_json_str(l, "text") ? br_json_str(l, "text") : "?",
					   hw->gpu_nvlink_gbs);
				val_blame_pci(e, bdf);
			}
		}
	}
	if (hw->gpu_nvlinks >= 0 && (int)up < hw->gpu_nvlinks) {
		val_ev_add(e, VAL_FAIL, "%s: %zu NVLinks up, expected %d", who, up, hw->gpu_nvlinks);
		val_blame_pci(e, bdf);
	}
	*ret_links += up;
	free(who);
}

void val_rule_nvlink(struct val_node_ctx *c)
{
	const struct prof_hardware *hw = &c->p->hw;
	char *why = NULL;
	json_t *section, *gpus, *g;
	struct val_evidence e;
	size_t i, up = 0;

	if (hw->gpu_nvlinks < 0 || hw->gpus == 0)
		return;
	section = val_probe_section(c, "nvlink", &why);
	if (!section) {
		val_node_check(c, "nvlink", VAL_UNKNOWN, "%s", why);
		free(why);
		return;
	}
	gpus = json_object_get(section, "gpus");
	if (!json_array_size(gpus)) {
		val_node_check(
		    c, "nvlink", VAL_UNKNOWN,
		    "nvidia-smi nvlink -s shows no GPU's NVLinks (a PCIe GPU, or one passed through "
		    "without them): cannot judge %d per GPU",
		    hw->gpu_nvlinks);
		return;
	}
	val_ev_init(&e);
	json_array_foreach(gpus, i, g) one_gpu(c, &e, g, &up);
	if (e.result == VAL_PASS) {
		if (hw->gpu_nvlink_gbs > 0)
			val_ev_add(&e, VAL_PASS,
				   "%zu GPU%s with %d NVLinks up each at %d GB/s or more (%zu links)",
				   json_array_size(gpus), json_array_size(gpus) == 1 ? "" : "s",
				   hw->gpu_nvlinks, hw->gpu_nvlink_gbs, up);
		else
			val_ev_add(&e, VAL_PASS, "%zu GPU%s with %d NVLinks up each (%zu links)",
				   json_array_size(gpus), json_array_size(gpus) == 1 ? "" : "s",
				   hw->gpu_nvlinks, up);
	}
	val_ev_emit(c, "nvlink", &e);
}
