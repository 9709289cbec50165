/*
 * rules — judgement as pure functions: facts (what a BMC or the node
 * reported, common/hw.h) against a profile (profile/profile.h), giving
 * checks a technician can act on. No I/O, no database: a stage stores what
 * a rule returns (as inventory checks) and decides what happens to the
 * node.
 *
 * Ownership: check arrays and strings returned are the caller's
 * (val_checks_free, free). Facts and profiles are borrowed.
 */
#ifndef BRINGUP_VALIDATORS_RULES_H
#define BRINGUP_VALIDATORS_RULES_H

#include "common.h"
#include "profile/profile.h"

enum val_result { VAL_PASS, VAL_FAIL, VAL_UNKNOWN };

/* One verdict: name is stable ("firmware:NIC.Slot.31-1-1"), detail says
 * what was seen against what was expected. */
struct val_check {
	char *name;
	enum val_result result;
	char *detail;
	/* The one part the check blames, when it blames exactly one
	 * ("pci:0000:5d:00.0"), else NULL: checks of a node that blame the
	 * same part are one fault (one ticket) with all their evidence. */
	char *component;
};

/* The part a short count of fabric NICs blames (nic_count) where no one
 * NIC can be named, and what a finding that follows from a NIC missing
 * blames too (a GPU left without the NIC of its PCIe switch), so that the
 * ticket names the cause once. Validate puts the missing NIC's own PCIe
 * function in its place where the silent cabling ports name it. */
#define VAL_PART_FABRIC_NICS "fabric-nics"

/* "pass", "fail", "unknown". */
const char *val_result_name(enum val_result r);
/* Append a check to *checks (*n elements); takes name and detail. */
void val_check_add_take(struct val_check **checks, size_t *n, char *name_take, enum val_result result,
			char *detail_take);
void val_checks_free(struct val_check *checks, size_t n);

/* ---- rules_fw.c: the firmware policy ---------------------------------------- */

/* Compare dotted versions component by component ("28.33.0800" <
 * "28.39.1002"): digits numerically, other text case-insensitively, a
 * missing component as less. Returns <0, 0, >0. */
int val_version_cmp(const char *a, const char *b);

/* Judge hw's installed firmware ("Installed-…" ids; "Previous-…" ones are
 * history) against the profile's policy: one check per matching component
 * named "firmware:<FQDD>", pass or fail with a detail a technician can act
 * on, and an unknown check "firmware:<rule>" for a rule nothing matched.
 * Facts read over IPMI carry no firmware inventory: one unknown check
 * "firmware" then. No policy: no checks. */
/* Whether a probe document is this node's (issue 29, finding 10): the
 * probe's own identity against the node's. The system serial from DMI
 * ("host"/"product_serial") equal to the BMC's serial or service tag
 * (br_hw_serial_matches), or the probe's hostname equal to the node's (the
 * short names: MAAS deploys the node under its hostname), says it is; a
 * serial that differs, or with none a hostname that differs, says not.
 * 1 with *ret_why (caller frees) naming both sides when the document is
 * another machine's; 0 when it is this node's or nothing tells. bmc may
 * be NULL. */
int val_identity_mismatch(json_t *probe, const char *hostname, const struct br_hw *bmc, char **ret_why);
void val_firmware_judge(const struct prof_profile *p, const struct br_hw *hw, struct val_check **ret_checks,
			size_t *ret_n);

/* ---- rules_disk.c: the boot disk ---------------------------------------------- */

/* The drive the OS goes on, by the profile's boot-disk rule over the drives
 * and RAID volumes a BMC reported: clauses in order, the first that matches
 * a drive with a serial (or a volume with an identity) wins; among several
 * matches the smallest, then the lowest serial (never enumeration order).
 * A member drive of a volume is never picked: the OS sees the volume in
 * its place, and for a volume *ret_serial is its identity (DurableName),
 * which val_disk_identity_eq recognises on the OS side. *ret_serial and
 * *ret_why (which clause chose it, and for a volume its id, members and
 * identity) are the caller's. BR_E_NOTFOUND when no clause matches or the
 * profile has no rule. */
int val_pick_boot_disk(const struct prof_profile *p, const struct br_hw *hw, char **ret_serial,
		       char **ret_why, struct br_err *err);
/* 1 when a block device the OS reports (its serial, and udev's by-id path
 * where known, as MAAS's blockdevice id_path) is the disk want names: a
 * drive serial or a volume's durable name, compared without case, blanks
 * or a format prefix ("naa.", "0x"), and also found as the wwn-0x<WWN>
 * or the trailing _<serial> of the by-id name. */
int val_disk_identity_eq(const char *want, const char *serial, const char *id_path);

/* ---- rules_node.c and rules_*.c: the node's physical checks ------------------ */

#define VAL_DETAIL_MAX (16 * 1024) /* one check's detail; longer evidence is cut with "…" */
#define VAL_DETAIL_ITEMS_MAX 12	   /* devices, cores or lines named in one detail, then "and N more" */

/* What validation knows about one node. All borrowed. */
struct val_node_facts {
	json_t *probe;			   /* bringup-probe's document; NULL: none */
	const struct br_hw *bmc;	   /* discovery's BMC facts; NULL: none */
	const char *deployed_disk_serial;  /* the serial MAAS installed on; NULL: not recorded */
	int64_t controller_ms;		   /* controller's UTC clock (ms) when the probe ran (the
					      midpoint of the SSH exec); 0: not measured */
	int64_t controller_uncertainty_ms; /* half the exec's length: the probe read its clock
					      somewhere in it, so a skew within this is not evidence */
};

/* The names of the checks the validators give a node of profile p, which
 * the gate requires when the profile names none ([gate] required): the
 * node checks val_judge_node gives for what p states, "cabling" (judged
 * over the rack against the wiring list) and "firmware:*" when p has a
 * firmware policy (val_firmware_judge). Appended to *out. */
void val_checks_expected(const struct prof_profile *p, struct br_strlist *out);

/* Judge one node against p: one check each, in this order and with these
 * stable names, "pcie", "gpu_count", "nic_count", "nvme_count",
 * "boot_disk", "thermal", "cpufreq", "clock", "psu", "fans", "dmesg",
 * "gpu_health", "ib_ports", "nvlink", "gpudirect_rdma". A check whose facts are missing is unknown with the
 * reason; a count or limit the profile leaves out (-1) leaves its check
 * out ("fans" where the profile states no [fans] count), "gpu_health" is left out where the profile says
 * [gpu] count = 0 , "ib_ports" where it states no [ib] ports and "nvlink" where it states no [gpu] nvlinks,
 * "gpudirect_rdma" unless it says [gpu] gpudirect_rdma = yes. A probe document of another probe_version is
 * not read (its checks are unknown). The checks are appended to *ret_checks (*ret_n elements; both may start
 * empty). */
void val_judge_node(const struct prof_profile *p, const struct val_node_facts *f,
		    struct val_check **ret_checks, size_t *ret_n);

/* ---- rules_active.c: checks that load the node ([active]) -------------------- */

#define VAL_ACTIVE_OUT_MAX (4 * 1024 * 1024) /* one active tool's output */

/* What one active tool's run over SSH gave. Borrowed. */
struct val_active_run {
	int ran;	       /* it ran and exited (whatever its status) */
	int past_limit;	       /* it did not end within limit_s */
	const char *error;     /* why it did not run (SSH), when !ran */
	int exit_status;       /* 127: the shell found no such command */
	const char *out, *err; /* its stdout and stderr */
	size_t out_len;
	int64_t limit_s; /* the time limit it ran under */
};

/* "dcgm_diag": `dcgmi diag -r N -j` judged test by test, in either shape
 * DCGM prints ("DCGM GPU Diagnostic" of 3.x, results by gpu_ids; "DCGM
 * Diagnostic" of 4.x, results by entity_id with entity_groups naming each
 * GPU's serial): any result Fail fails, naming the test, the GPU (serial
 * and, from the probe's nvidia-smi -q -x in index order, its PCIe
 * function, which it blames) and DCGM's warning; Warn and Skip are
 * listed. A tool absent (exit 127), a run past its limit, output that is
 * not DCGM's or a runtime_error is unknown with the reason. probe may be
 * NULL. Appends one check. */
void val_judge_dcgm_diag(const struct prof_profile *p, json_t *probe, const struct val_active_run *r,
			 struct val_check **ret_checks, size_t *ret_n);

/* "rdma_bw": perftest's ib_write_bw loopback between two of the node's
 * HCAs (its client's report, --report_gbits: the "BW average[Gb/sec]"
 * column) at least [active] rdma_bw_gbps. Absent tool, limit, no result
 * line: unknown with the reason. hcas names the pair ("mlx5_0 to
 * mlx5_1"), or NULL. Appends one check. */
void val_judge_rdma_bw(const struct prof_profile *p, const char *hcas, const struct val_active_run *r,
		       struct val_check **ret_checks, size_t *ret_n);

/* ---- rules_gate.c: the gate's judgement -------------------------------------- */

/* Whether the check named name is required by the profile (NULL: all):
 * every check when [gate] required is left out, else the names and
 * patterns it lists and every check the profile's expectations give
 * (val_checks_expected; a list adds checks, it cannot drop one). */
int val_gate_is_required(const struct prof_profile *profile, const char *name);
/* Whether the profile's [gate] optional excuses an unknown name. */
int val_gate_is_optional(const struct prof_profile *profile, const char *name);
/* The names and patterns that must have a result (appended to *out):
 * val_checks_expected, then what the profile's [gate] required adds. */
void val_gate_required_set(const struct prof_profile *profile, struct br_strlist *out);
/* Flag in failing[] (n entries, set to 0 or 1) each check that failed,
 * required or not, and each required check that is unknown unless the
 * profile marks it optional; returns
 * how many, plus one when something is missing: a required name or pattern
 * with no result at all, or no checks at all ("no check results"), is
 * reported through *ret_missing (caller frees; NULL when none), as it is as
 * unproven as an unknown. */
size_t val_gate_failing(const struct prof_profile *profile, const struct val_check *checks, size_t n,
			int *failing, char **ret_missing);
/* Checks judged before PXE from the BMC's view ("cabling_bmc"): a
 * failure is a fault whatever the profile's [gate] required says (the
 * node was stopped on it before MAAS); an unknown blocks nothing, the
 * in-band check of the same thing ("cabling") deciding. 1 when checks has
 * such a failure: the node never deployed, so the in-band checks missing
 * are its consequence, not a fault of their own. */
int val_gate_early_failure(const struct val_check *checks, size_t n);
/* The optional checks that stayed unknown, ", "-separated, or NULL when
 * none. Caller frees. */
char *val_gate_optional_unknown(const struct prof_profile *profile, const struct val_check *checks, size_t n);

#endif
