/*
 * validators — the node side of validation: bringup-probe's fact collection
 * (PCIe through libpci, GPUs through nvidia-smi's XML, NVMe and the root
 * device, cpufreq, hwmon and thermal zones, LLDP neighbours through
 * lldpctl's XML, InfiniBand ports, clock, dmesg signatures). It only
 * observes: every file is read under a sysroot (default "/"), so a captured
 * tree can be judged anywhere. What cannot be read is reported with its
 * path, never guessed.
 *
 * Ownership: every json_t returned through ret_* is a new reference the
 * caller decrefs. Option strings are borrowed for the duration of a call.
 */
#ifndef BRINGUP_VALIDATORS_H
#define BRINGUP_VALIDATORS_H

#include <stddef.h>

#include "common.h"

/* Bumped whenever a field changes meaning or moves; adding fields keeps it. */
#define VAL_PROBE_VERSION 1
/* JSON values a probe document may hold, counted before it is parsed: a
 * real 8-GPU node's document is some 10,000; 16 MiB of "{}" in its place
 * cost 1.43 GB of jansson for one node, times the nodes in flight. */
#define VAL_PROBE_VALUES_MAX (1u << 18)

/* Caps on everything read from the node. */
#define VAL_ATTR_MAX (64 * 1024)	   /* one sysfs/procfs attribute */
#define VAL_PROCFILE_MAX (8 * 1024 * 1024) /* /proc/cpuinfo, mountinfo */
#define VAL_XML_MAX (32 * 1024 * 1024)	   /* nvidia-smi -q -x, lldpctl -f xml */
#define VAL_DMESG_MAX (64 * 1024 * 1024)   /* dmesg or a kern.log */
#define VAL_SDR_MAX (1024 * 1024)	   /* ipmitool sdr type "Power Supply" */
#define VAL_CMD_TIMEOUT_MS 20000	   /* nvidia-smi can take seconds per GPU */
#define VAL_DIR_ENTRIES_MAX 16384	   /* entries read from one directory */
#define VAL_PCI_DEVICES_MAX 4096
#define VAL_DMESG_MATCHES_MAX 512 /* per document; the count goes on */
#define VAL_DMESG_LINE_MAX 512	  /* a matched line is cut here */
#define VAL_NVLINKS_MAX 64	  /* NVLinks kept per GPU (an H100 has 18) */

struct val_probe_opts {
	const char *root;	       /* sysroot; NULL or "" means "/" */
	const char *pci_dump;	       /* lspci -xxxx capture instead of sysfs */
	const char *nvidia_smi_xml;    /* nvidia-smi -q -x capture */
	const char *nvidia_smi_nvlink; /* nvidia-smi nvlink -s capture */
	const char *lldp_xml;	       /* lldpctl -f xml capture */
	const char *dmesg_file;	       /* dmesg capture or kern.log */
	const char *ipmitool_sdr_psu;  /* ipmitool sdr type "Power Supply" capture */
	/* A directory of captures (nvidia-smi.xml, nvidia-smi-nvlink.txt, lldpctl.xml,
	 * dmesg.txt, ipmitool-sdr-psu.txt), each
	 * used when present and its own option above is not given: how a node
	 * captured whole (or a simulated host) is judged offline. */
	const char *captures_dir;
	/* Run nvidia-smi, lldpctl, dmesg and ipmitool when no capture is given. Off by
	 * default under a sysroot other than "/": the tools would describe this
	 * machine, not the tree. */
	int run_commands;
};

/* Collect every section into one document {"probe_version":1, ...}. Fails
 * only when the document itself cannot be built (bad options); a section
 * that cannot be read says so inside the document. */
int val_probe_run(const struct val_probe_opts *opts, json_t **ret_doc, struct br_err *err);

/* Parsers over captured tool output (unit-tested on real captures). Each
 * returns 0 and a new section object, or BR_E_PROTO with the reason
 * (libxml2's message and line) in err. */
int val_nvsmi_parse(const char *xml, size_t len, json_t **ret_gpus, struct br_err *err);
int val_lldp_parse(const char *xml, size_t len, json_t **ret_neighbors, struct br_err *err);
/* The same neighbours from `lldpctl -f json` or `-f json0` (probe_lldp.c). */
int val_lldp_parse_json(const char *text, size_t len, json_t **ret_neighbors, struct br_err *err);
/* Signatures in kernel log text: {"lines":N, "matches":[{"kind","line"}],
 * "counts":{kind:N}}. Never fails. */
json_t *val_dmesg_scan(const char *text, size_t len);
/* `ipmitool sdr type "Power Supply"` text as the probe's psu_sdr section:
 * {"status":"ok","source","supplies":[{"name","kind":"psu"|"redundancy",
 * "state","health"}]}, or status "malformed" when it lists no supply or
 * redundancy sensor. Never NULL. */
json_t *val_sdr_psu_section(const char *text, const char *source);

/* PCIe link speed code (LnkCap/LnkSta "Link Speed" field: 1 = 2.5 GT/s …
 * 6 = 64 GT/s) in GT/s, or 0 for a code this table does not know. */
double val_pcie_speed_gts(unsigned code);

#endif
