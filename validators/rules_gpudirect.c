/* gpudirect_rdma: where the profile asks for GPUDirect RDMA ([gpu]
 * gpudirect_rdma = yes), the kernel's peer-memory client that lets a
 * fabric NIC read and write GPU memory is loaded: nvidia_peermem (in the
 * NVIDIA driver since R470) or the older out-of-tree nv_peer_mem. Without
 * it NCCL falls back to staging through host memory, silently and slowly
 * (FIELD-NOTES: "GPUDirect RDMA (peer memory client) failed to load"). */
#define _DEFAULT_SOURCE
#include <stdlib.h>
#include <string.h>

#include "rules_node_private.h"

void val_rule_gpudirect(struct val_node_ctx *c)
{
	static const char *const clients[] = { "nvidia_peermem", "nv_peer_mem" };
	char *why = NULL;
	json_t *section, *loaded, *m;
	size_t i;

	if (!c->p->hw.gpu_gpudirect_rdma || c->p->hw.gpus == 0)
		return;
	section = val_probe_section(c, "modules", &why);
	if (!section) {
		val_node_check(c, "gpudirect_rdma", VAL_UNKNOWN, "%s", why);
		free(why);
		return;
	}
	loaded = json_object_get(section, "loaded");
	json_array_foreach(loaded, i,
			   m) for (size_t k = 0; k < sizeof(clients) / sizeof(clients[0]);
				   k++) if (json_is_string(m) && !strcmp(json_string_value(m), clients[k]))
	{
		val_node_check(c, "gpudirect_rdma", VAL_PASS, "%s loaded (of %zu modules)", clients[k],
			       json_array_size(loaded));
		return;
	}
	val_node_check(c, "gpudirect_rdma", VAL_FAIL,
		       "neither nvidia_peermem nor nv_peer_mem is loaded (%zu modules in /proc/modules): "
		       "GPUDirect RDMA is off; load it (modprobe nvidia_peermem) and make it load at boot "
		       "(/etc/modules-load.d)",
		       json_array_size(loaded));
}
