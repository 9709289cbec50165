/* Shared by hosts*.c: the tree writer and the pieces of one node's tree. */
#ifndef BRINGUP_SIM_HOSTS_PRIVATE_H
#define BRINGUP_SIM_HOSTS_PRIVATE_H

#include "sim.h"

/* Files already written for a rack, by content: a file whose bytes match
 * one written before is made a hard link to it. A rack's trees are mostly
 * the same attributes ("1", "0x10de", a link speed): 16 hosts have 19,440
 * files but 1,024 distinct contents, so a 512-host rack writes ~1,000
 * files instead of ~620,000 (3 GB of 4 KiB blocks) and removing it frees
 * no data. The one writer that changes a file later (the RTC ticker)
 * replaces it by rename, which leaves the other links alone. */
struct sim_hw_share {
	struct sim_hw_shared *slots; /* open addressing, power-of-2 size */
	size_t cap, n;
};

void sim_hw_share_release(struct sim_hw_share *s);

/* Writes under root; keeps the first error (rc, *err) and skips the rest. */
struct sim_hw {
	char *root; /* owned */
	int rc;
	struct br_err *err;	    /* borrowed */
	struct sim_hw_share *share; /* borrowed; NULL: every file written */
};

/* share may be NULL. */
void sim_hw_init(struct sim_hw *w, const char *root, struct sim_hw_share *share, struct br_err *err);
void sim_hw_release(struct sim_hw *w);
/* rel is relative to the root; parent directories are made. A file that
 * will be changed in place later (chmod) must not be shared: sim_hw_own. */
void sim_hw_own(struct sim_hw *w, const char *rel, const void *data, size_t len);
void sim_hw_data(struct sim_hw *w, const char *rel, const void *data, size_t len);
/* A one-line attribute: the formatted text and a newline. */
void sim_hw_put(struct sim_hw *w, const char *rel, const char *fmt, ...) BR_PRINTF(3, 4);
void sim_hw_link(struct sim_hw *w, const char *rel, const char *target);
void sim_hw_dir(struct sim_hw *w, const char *rel);
/* rm -rf path (absent is fine). */
int sim_hw_remove_tree(const char *path, struct br_err *err);

/* The PCI address a node's GPU g or fabric NIC k has, and the switch
 * downstream port above it ("0000:18:00.0"). */
void sim_host_gpu_bdf(const struct sim_node *n, int g, char bdf[16], char port[16]);
void sim_host_nic_bdf(const struct sim_node *n, int k, char bdf[16], char port[16]);
/* The node's clock offset (clock_skew), in seconds; 0 without the fault. */
long sim_host_skew_s(const struct sim_node *n);

/* hosts_pci.c: sys/bus/pci and sys/devices/pci* of a node. */
void sim_host_pci(struct sim_hw *w, const struct sim_node *n);
/* The sysfs directory ("sys/devices/...") of the boot drive (d < 0) or data
 * drive d's NVMe controller. Caller frees. */
char *sim_host_drive_dir(int d);
/* hosts_tools.c: .captures/ (nvidia-smi, lldpctl, dmesg) and var/log/kern.log. */
void sim_host_captures(struct sim_hw *w, const struct sim_node *n);
/* hosts_active.c: what the active checks' tools print for this node. */
void sim_host_active_captures(struct sim_hw *w, const struct sim_node *n);

#endif
