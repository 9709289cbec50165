/*
 * The node rules' shared helpers (validators/rules_node.c): each rule file
 * (rules_pcie.c, rules_counts.c, …) reads facts through these and adds one
 * check. Not part of the module's API.
 */
#ifndef BRINGUP_VALIDATORS_RULES_NODE_PRIVATE_H
#define BRINGUP_VALIDATORS_RULES_NODE_PRIVATE_H

#include "rules.h"

struct val_node_ctx {
	const struct prof_profile *p;
	const struct val_node_facts *f;
	json_t *probe;		   /* NULL when absent or of another version */
	const char *probe_missing; /* why probe is NULL */
	struct val_check **checks;
	size_t *n;
};

/* Evidence for one check: items joined with "; ", at most
 * VAL_DETAIL_ITEMS_MAX of them, the rest counted. */
struct val_evidence {
	struct br_buf buf;
	size_t items, left_out;
	enum val_result result; /* worst seen: fail > unknown > pass */
	char *blamed;		/* the part every failing item named so far blames */
	int blame_spread;	/* failing items blame different parts, or one blames none */
};

void val_ev_init(struct val_evidence *e);
/* Add one item with its result. */
void val_ev_add(struct val_evidence *e, enum val_result r, const char *fmt, ...) BR_PRINTF(3, 4);
/* Only raise the result (for a fact summarised elsewhere). */
void val_ev_result(struct val_evidence *e, enum val_result r);
/* Add check NAME with the evidence's result and text; releases e. */
void val_ev_emit(struct val_node_ctx *c, const char *name, struct val_evidence *e);
/* A failing item blames this part ("pci:0000:5d:00.0"), or none (NULL: the
 * fault is not one part's); the emitted check carries the part when every
 * item that blamed one blamed the same and none blamed none. */
void val_ev_blame(struct val_evidence *e, const char *component);
/* The same for the PCIe function bdf ("0000:5d:00.0"; NULL: none). */
void val_blame_pci(struct val_evidence *e, const char *bdf);
/* Add one check with a formatted detail. */
void val_node_check(struct val_node_ctx *c, const char *name, enum val_result r, const char *fmt, ...)
    BR_PRINTF(4, 5);

/* Probe section NAME as an object, or NULL with the reason in *ret_why
 * (caller frees): no probe document, section missing, or its "status" not
 * "ok" (with the probe's own error). */
json_t *val_probe_section(struct val_node_ctx *c, const char *name, char **ret_why);

/* What a probe's PCI device is to the profile. */
enum val_pci_kind { VAL_PCI_OTHER, VAL_PCI_GPU, VAL_PCI_FABRIC, VAL_PCI_ETHERNET };
enum val_pci_kind val_pci_kind(const struct prof_profile *p, json_t *dev);
enum val_pci_kind val_bmc_pcie_kind(const struct prof_profile *p, const struct br_pcie *d);
const char *val_pci_kind_name(enum val_pci_kind k); /* "GPU", "fabric NIC", "Ethernet NIC" */

/* "Gen5" → 32.0 GT/s; 0 when unknown. And back, "Gen?" when no match. */
double val_gen_gts(const char *gen);
const char *val_gts_gen(double gts);

/* NVMe and GPU serials as the kernel, nvidia-smi and BMCs print them:
 * same after trimming blanks, any case. */
int val_serial_eq(const char *a, const char *b);

/* The versions the BMC's inventory shows for the components a firmware
 * policy rule names (iDRAC's "Installed-<id>-<ver>__<FQDD>" entries whose
 * FQDD matches component; "Previous-" ones are not what is flashed), each
 * once, added to out. */
void val_fw_bmc_versions(const struct br_hw *bmc, const char *component, struct br_strlist *out);
/* One device's own firmware (running: what the device itself reports)
 * against the rule's minimum and, where bmc lists any, one of the versions
 * the BMC's inventory shows for the rule's components (the BMC shows what
 * is flashed, the device what runs). who names the device, what its
 * firmware ("firmware", "VBIOS"), part what a reset reloads ("adapter",
 * "GPU"); a failure blames the PCIe function bdf. 1: it passes. */
int val_fw_device(struct val_evidence *e, const struct prof_fw_rule *rule, const struct br_strlist *bmc,
		  const char *who, const char *bdf, const char *what, const char *part, const char *running);

/* The rules, one check each (rules_*.c). */
void val_rule_pcie(struct val_node_ctx *c);
void val_rule_gpu_count(struct val_node_ctx *c);
void val_rule_nic_count(struct val_node_ctx *c);
void val_rule_nvme_count(struct val_node_ctx *c);
void val_rule_boot_disk(struct val_node_ctx *c);
void val_rule_thermal(struct val_node_ctx *c);
void val_rule_cpufreq(struct val_node_ctx *c);
void val_rule_clock(struct val_node_ctx *c);
void val_rule_psu(struct val_node_ctx *c);
void val_rule_fans(struct val_node_ctx *c);
void val_rule_dmesg(struct val_node_ctx *c);
void val_rule_gpu_health(struct val_node_ctx *c);
void val_rule_ib_ports(struct val_node_ctx *c);
void val_rule_nvlink(struct val_node_ctx *c);
void val_rule_gpudirect(struct val_node_ctx *c);
void val_rule_nvlink_fabric(struct val_node_ctx *c);

#endif
