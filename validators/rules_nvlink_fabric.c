/* nvlink_fabric: on an NVSwitch system ([gpu] nvlink_fabric = yes: an HGX
 * baseboard), the fabric manager has registered every GPU with the NVLink
 * fabric, as `nvidia-smi -q -x` shows it in each GPU's <fabric> (the
 * probe's "gpus" section, R530 and later): state "Completed" and status
 * "Success", and where the driver gives one, a health summary of
 * "Healthy". A GPU the fabric manager never reached is "Not Started"; one
 * whose NVLinks did not train stays "In Progress" (CUDA then fails to
 * initialise on it, though nvidia-smi nvlink may show links). A driver
 * that prints no <fabric>, or "N/A", cannot be judged (unknown). */
#define _DEFAULT_SOURCE
#include <stdlib.h>
#include <string.h>

#include "rules_node_private.h"

static int is(const char *s, const char *want)
{
	return s && !strcmp(s, want);
}

static void one_gpu(struct val_evidence *e, size_t idx, json_t *g, size_t *ret_done)
{
	const char *serial = br_json_str(g, "serial"), *bdf = br_json_str(g, "bdf");
	json_t *fabric = json_object_get(g, "fabric");
	const char *state = br_json_str(fabric, "state"), *status = br_json_str(fabric, "status"),
		   *health = br_json_str(fabric, "health_summary");
	char *who = br_xasprintf("GPU %zu (serial %s) at %s", idx, serial ? serial : "unknown",
				 bdf ? bdf : "an unknown PCI address");

	if (!json_is_object(fabric))
		val_ev_add(e, VAL_UNKNOWN,
			   "%s: nvidia-smi -q -x shows no fabric state (a driver before R530): cannot tell "
			   "whether the fabric manager registered it",
			   who);
	else if (!state || is(state, "Not Supported"))
		val_ev_add(e, VAL_UNKNOWN,
			   "%s: fabric state %s: not an NVSwitch system as nvidia-smi sees it (a GPU "
			   "passed through without its NVSwitches?)",
			   who, state ? state : "N/A");
	else if (is(state, "Not Started")) {
		val_ev_add(e, VAL_FAIL,
			   "%s: fabric state Not Started: the fabric manager has not registered it; "
			   "start nvidia-fabricmanager (its version must match the driver's)",
			   who);
		val_blame_pci(e, bdf);
	} else if (is(state, "In Progress")) {
		val_ev_add(e, VAL_FAIL,
			   "%s: fabric state In Progress: its registration with the NVLink fabric did not "
			   "finish (links that did not train); read /var/log/fabricmanager.log, reseat "
			   "the GPU on its baseboard",
			   who);
		val_blame_pci(e, bdf);
	} else if (!is(state, "Completed")) {
		val_ev_add(e, VAL_FAIL, "%s: fabric state '%s', expected Completed", who, state);
		val_blame_pci(e, bdf);
	} else if (!is(status, "Success")) {
		val_ev_add(e, VAL_FAIL,
			   "%s: fabric registration Completed with status '%s', expected Success: read "
			   "/var/log/fabricmanager.log",
			   who, status ? status : "N/A");
		val_blame_pci(e, bdf);
	} else if (health && !is(health, "Healthy") && !is(health, "Not Supported")) {
		val_ev_add(e, VAL_FAIL, "%s: fabric health summary '%s', expected Healthy", who, health);
		val_blame_pci(e, bdf);
	} else {
		(*ret_done)++;
	}
	free(who);
}

void val_rule_nvlink_fabric(struct val_node_ctx *c)
{
	char *why = NULL;
	json_t *section, *gpus, *g;
	struct val_evidence e;
	size_t i, done = 0;

	if (!c->p->hw.gpu_nvlink_fabric || c->p->hw.gpus == 0)
		return;
	section = val_probe_section(c, "gpus", &why);
	if (!section) {
		val_node_check(c, "nvlink_fabric", VAL_UNKNOWN, "%s", why);
		free(why);
		return;
	}
	gpus = json_object_get(section, "gpus");
	if (!json_array_size(gpus)) {
		val_node_check(c, "nvlink_fabric", VAL_UNKNOWN, "nvidia-smi lists no GPUs: nothing to judge");
		return;
	}
	val_ev_init(&e);
	json_array_foreach(gpus, i, g) one_gpu(&e, i + 1, g, &done);
	if (e.result == VAL_PASS)
		val_ev_add(&e, VAL_PASS,
			   "%zu GPU%s registered with the NVLink fabric (state Completed, status Success)",
			   done, done == 1 ? "" : "s");
	val_ev_emit(c, "nvlink_fabric", &e);
}
