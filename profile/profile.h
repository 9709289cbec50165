/*
 * profile — a hardware profile as an engineer writes it by hand in
 * templates/profiles/NAME/, loaded into one record that every stage reads:
 * configure (BIOS baseline, boot order, firmware policy), enlist (the
 * boot-disk rule) and validate (the hardware a healthy node has).
 *
 *   bios.conf      [bios]  iDRAC BIOS attribute = value (the baseline)
 *                  [boot]  pxe_nic = FQDD of the provisioning NIC,
 *                          mode = persistent | once,
 *                          pxe_switch = the provisioning switch (a name or
 *                          shell pattern: PXE on the port cabled to it),
 *                          connection_view = enable | leave (Dell: let
 *                          discover switch Connection View on)
 *   firmware.conf  [firmware]  component = minimum version, where component
 *                  is the FQDD iDRAC puts after "__" in a FirmwareInventory
 *                  Id ("Installed-104327-28.39.1002__NIC.Slot.31-1-1"), or
 *                  a shell pattern of it ("NIC.Slot.*")          (optional)
 *   firmware-images.conf  the catalogue `bringup firmware` updates from:
 *                  [update] max_per_rack = N, max_per_power_domain = N;
 *                  [image NAME] component =
 *                  FQDD or pattern, class = bmc|bios|nic|gpu|drive|cpld|
 *                  other, models = Model, Model..., version = V, file =
 *                  PATH, sha256 = HEX                         (optional)
 *   boot-disk      model_contains = TEXT | smallest = PROTOCOL|any |
 *                  volume = RAIDTYPE|any, tried in order, outside any
 *                  section                                       (optional)
 *   hardware.conf  what a healthy node has: [system] [gpu] [nic] [nvme]
 *                  [fans] [psu] [cpu] [clock] [time_limits] [gate]
 *                  [reprovision] [lifecycle] [active]          (optional)
 *
 * INI syntax (libinih): '#' or ';' starts a comment line, ';' an inline
 * comment; leading blanks are ignored (no continuation lines). Every problem
 * is reported as "FILE:LINE: field: message" (BR_E_INVAL), or "FILE:LINE:
 * message" for a line that has no field; nothing is half-loaded.
 *
 * The module only reads what the files say; judging facts against it is the
 * validators' (validators/rules.h). It knows no database and no stage.
 *
 * Ownership: struct prof_profile owns every string hung on it
 * (prof_release).
 */
#ifndef BRINGUP_PROFILE_H
#define BRINGUP_PROFILE_H

#include <stdint.h>

#include "common.h"

#define PROF_FILE_MAX (1024u * 1024)	    /* one template file */
#define PROF_LINE_MAX 198		    /* characters on one line (libinih's INI_MAX_LINE less 2) */
#define PROF_ENTRIES_MAX 1024		    /* attributes, firmware rules or clauses in one file */
#define PROF_COUNT_MAX 4096		    /* a device count in hardware.conf */
#define PROF_IB_RATE_MAX 3200		    /* [ib] rate_gbps: an XDR 8X port is 1600 */
#define PROF_IB_ERRORS_MAX 4294967295LL	    /* [ib] *_max: the counters are at most 32 bits */
#define PROF_LINK_WIDTH_MAX 32		    /* PCIe lanes */
#define PROF_GOVERNORS_MAX 16		    /* allowed cpufreq governors */
#define PROF_GATE_CHECKS_MAX 256	    /* names in [gate] required */
#define PROF_DURATION_MAX_S (7 * 24 * 3600) /* a time limit or clock skew */

/* Which file a text is (what sections and names it may hold). */
enum prof_file {
	PROF_FILE_BIOS,
	PROF_FILE_FIRMWARE,
	PROF_FILE_BOOT_DISK,
	PROF_FILE_HARDWARE,
	PROF_FILE_IMAGES
};

/* [reprovision] erase: how MAAS wipes a node's disks when it is released. */
enum prof_erase { PROF_ERASE_NO, PROF_ERASE_FULL, PROF_ERASE_QUICK, PROF_ERASE_SECURE };

enum prof_boot_mode {
	PROF_BOOT_PERSISTENT, /* PXE device first in the persistent boot order */
	PROF_BOOT_ONCE,	      /* BootSourceOverrideTarget=Pxe, Enabled=Once */
};

struct prof_fw_rule {
	char *component; /* FQDD or shell pattern */
	char *min_version;
};

/* What a firmware image updates, in the order a node's updates go (Dell's
 * "iDRAC9 Lifecycle Controller: update sequence": the iDRAC first, then the
 * BIOS, then the devices; the CPLD last, as it takes effect at the next
 * power cycle). */
enum prof_fw_class {
	PROF_FW_BMC,
	PROF_FW_BIOS,
	PROF_FW_NIC,
	PROF_FW_GPU,
	PROF_FW_DRIVE,
	PROF_FW_CPLD,
	PROF_FW_OTHER,
};
/* "bmc", "bios", ...; prof_fw_class_parse: 0 or BR_E_INVAL. */
const char *prof_fw_class_name(enum prof_fw_class c);
int prof_fw_class_parse(const char *name, enum prof_fw_class *ret);

/* One image of firmware-images.conf (the catalogue): [image NAME]. */
struct prof_fw_image {
	char *name;	 /* the section's NAME */
	char *component; /* FQDD or shell pattern of the components it updates */
	enum prof_fw_class fw_class;
	struct br_strlist models; /* System Model values it applies to (exact, any case) */
	char *version;		  /* what the component reports once it is applied */
	char *file;		  /* absolute path (relative ones are the profile directory's) */
	char *sha256;		  /* 64 lowercase hex digits */
	/* iLO's component signature file (.compsig) sent beside the image by
	 * its own push form, and its hash; both or neither */
	char *compsig, *compsig_sha256;
	int line; /* its first setting's line, for messages */
};

enum prof_disk_clause_kind {
	PROF_DISK_MODEL_CONTAINS, /* drives whose model contains value (any case) */
	PROF_DISK_SMALLEST,	  /* the smallest drive of protocol value, or of any ("any") */
	/* the smallest RAID volume (Redfish Storage Volume) of RAIDType value
	 * ("RAID1"), or of any ("any"), that has an identity (DurableName) */
	PROF_DISK_VOLUME,
};

struct prof_disk_clause {
	enum prof_disk_clause_kind kind;
	char *value;
};

/* A PCIe link a device must train at. */
struct prof_link {
	int width;   /* lanes; 0: not stated */
	char *speed; /* "Gen5"; NULL: not stated */
};

/* [time_limits]: seconds a stage may spend on one node. commissioning_s
 * (enlist: from commission to Ready), deployment_s (enlist: from deploy to
 * Deployed) and validation_s (validate: connect, copy and probe) are
 * enforced and default to the PROF_*_DEFAULT_S below; a node past one is
 * failed naming the stage. discover_s, configure_s, enlist_s (0: not
 * stated) are read for the stages' own budgets. "validate" is an older name
 * of "validation". */
struct prof_time_limits {
	int64_t discover_s, configure_s, enlist_s;
	int64_t commissioning_s, deployment_s, validation_s;
};
#define PROF_COMMISSIONING_DEFAULT_S (30 * 60)
#define PROF_DEPLOYMENT_DEFAULT_S (60 * 60)
#define PROF_VALIDATION_DEFAULT_S (10 * 60)
#define PROF_ACTIVE_LIMIT_DEFAULT_S (15 * 60)
/* [lifecycle] max_attempts: its default and its largest value. */
#define PROF_ATTEMPTS_DEFAULT 3
#define PROF_ATTEMPTS_MAX 100
/* A node failed for one is given the reason "STAGE" PROF_PAST_LIMIT "N s: ..."
 * ("commissioning: past the time limit of 1800 s: ..."), which is how `bringup
 * run` tells it apart in its summary. */
#define PROF_PAST_LIMIT ": past the time limit of "

/* What a healthy node has (hardware.conf). A count of -1 is "not stated":
 * validators leave that check out rather than guess. */
struct prof_hardware {
	char *model;		   /* [system] model, as the BMC names it */
	int gpus;		   /* [gpu] count */
	struct prof_link gpu_link; /* [gpu] link_width, link_speed */
	int gpu_power_limit_w;	   /* [gpu] power_limit_w: the least power limit a GPU may run at; -1 */
	int gpu_nvlinks;	   /* [gpu] nvlinks: NVLinks up on each GPU (18 on an H100/H200 SXM); -1 */
	int gpu_nvlink_gbs; /* [gpu] nvlink_gbs: the least speed of one, in GB/s as nvidia-smi says; -1 */
	/* [gpu] gpudirect_rdma = yes: the GPUs must reach the fabric NICs
	 * directly (the peer-memory client nvidia_peermem or nv_peer_mem
	 * loaded); 0: not judged. */
	int gpu_gpudirect_rdma;
	/* [gpu] gpudirect_switch = yes: each GPU shares a PCIe switch with
	 * its own fabric NIC (one each, as on an HGX baseboard), so GPUDirect
	 * RDMA traffic stays off the CPU's root complex; 0: not judged. */
	int gpu_gpudirect_switch;
	/* [gpu] nvlink_fabric = yes: an NVSwitch system (HGX), where the
	 * fabric manager must have registered every GPU with the NVLink
	 * fabric (nvidia-smi -q: Fabric State Completed, Status Success);
	 * 0: not judged. */
	int gpu_nvlink_fabric;
	/* [gpu] firmware: the firmware.conf component (FQDD or pattern) whose
	 * minimum each GPU's own VBIOS (nvidia-smi's vbios_version) is held
	 * to, and whose versions in the BMC's inventory it must agree with;
	 * NULL: not judged */
	char *gpu_firmware;
	/* [active]: checks that load the node, each opted into by the
	 * profile and run after the probe under its own time limit: `dcgmi
	 * diag -r dcgm_diag_level -j` (0: not run), judged test by test, and
	 * RDMA loopback bandwidth between the node's first two HCAs with
	 * perftest's ib_write_bw against rdma_bw_gbps (-1: not run). A time
	 * limit of 0 takes PROF_ACTIVE_LIMIT_DEFAULT_S. */
	int dcgm_diag_level;
	int64_t dcgm_diag_limit_s;
	int rdma_bw_gbps;
	int64_t rdma_bw_limit_s;
	int fabric_nics;	      /* [nic] fabric */
	struct prof_link fabric_link; /* [nic] fabric_link_width, fabric_link_speed */
	int ethernet_nics;	      /* [nic] ethernet */
	/* [ib]: the HCA ports (/sys/class/infiniband/DEV/ports/N) a healthy node
	 * has, each ACTIVE and LinkUp: how many, at what rate, on which link
	 * layer (NULL: either), and how many of each error counter a port may
	 * show since its driver loaded (-1: not judged). */
	int ib_ports;
	int ib_rate_gbps;
	char *ib_link_layer; /* "InfiniBand" or "Ethernet" (RoCE) */
	int64_t ib_link_downed_max, ib_link_error_recovery_max, ib_symbol_error_max;
	/* seconds a port's interface may have been down since boot, summed
	 * over the kernel log's "Link down" .. "Link up" (flaps); -1 unstated */
	int64_t ib_link_down_time_max;
	/* [ib] firmware: the firmware.conf component (FQDD or pattern, as its
	 * [firmware] writes it) whose minimum each HCA's own fw_ver is held to,
	 * and whose versions in the BMC's inventory it must agree with; NULL:
	 * not judged */
	char *ib_firmware;
	/* hardware.conf's lines of [gpu] firmware and [ib] firmware (0: not
	 * set), for the load's refusal of a component firmware.conf lacks */
	int gpu_firmware_line, ib_firmware_line;
	int nvme;			/* [nvme] count */
	int fans;			/* [fans] count */
	int psus;			/* [psu] count */
	int cpu_rated_mhz;		/* [cpu] rated_mhz: the highest clock a core must reach; -1 */
	struct br_strlist governors;	/* [cpu] governors: allowed cpufreq governors; empty: any */
	int64_t clock_skew_max_ms;	/* [clock] max_skew; -1 */
	int64_t rtc_skew_max_ms;	/* [clock] rtc_max_skew: RTC against the node's clock; -1: 30 s */
	struct prof_time_limits limits; /* [time_limits] */
	enum prof_erase erase;		/* [reprovision] erase = no | yes | quick | secure; default no */
	/* [lifecycle] max_attempts: a node quarantined or failed this many
	 * times is retired (out of the flow until unretired); 1 to
	 * PROF_ATTEMPTS_MAX, default PROF_ATTEMPTS_DEFAULT. */
	int max_attempts;
	/* [gate] required: the checks a node must pass to be golden, as names
	 * or shell patterns ("firmware:*"); empty: every check the node has and
	 * every check the profile's expectations give (val_checks_expected). */
	struct br_strlist gate_required;
	/* [gate] optional: checks (names or patterns) that may stay unknown
	 * without blocking promotion: hardware that cannot report them. A
	 * failed optional check still blocks. */
	struct br_strlist gate_optional;
};

struct prof_profile {
	char *name;
	/* bios.conf */
	struct br_kv *bios; /* baseline, in file order */
	size_t n_bios;
	char *pxe_nic; /* NULL: boot order is left alone */
	/* The provisioning switch, a shell pattern of its name: configure sets
	 * PXE on the host port the BMC sees cabled to it. NULL: pxe_nic. */
	char *pxe_switch;
	int connection_view_enable; /* discover may enable Dell's Connection View */
	enum prof_boot_mode boot_mode;
	/* firmware.conf */
	struct prof_fw_rule *firmware;
	size_t n_firmware;
	/* firmware-images.conf: the catalogue (images, in file order) and
	 * [update] max_per_rack, max_per_power_domain (0: not stated) */
	char *images_file; /* NULL: the profile has none */
	struct prof_fw_image *images;
	size_t n_images;
	int fw_max_per_rack;
	int fw_max_per_power_domain; /* machines of one power domain (the manifest's power_domain) */
	/* boot-disk */
	char *boot_disk_file; /* path it was read from; NULL: the profile has none */
	struct prof_disk_clause *boot_disk;
	size_t n_boot_disk;
	/* hardware.conf */
	char *hardware_file; /* the path it is read from, or would be; NULL: not loaded from a directory */
	int hardware_found;  /* the file exists */
	struct prof_hardware hw;
};

/* An empty profile: nothing set, every count "not stated". */
void prof_init(struct prof_profile *p);
void prof_release(struct prof_profile *p);

/* Load templates_dir/profiles/NAME/ into *ret (written only on success). An
 * unknown profile or a missing bios.conf is BR_E_NOTFOUND; the other files
 * are optional. */
int prof_load(const char *templates_dir, const char *name, struct prof_profile *ret, struct br_err *err);
/* The same from a profile's own directory (profile_dir/bios.conf, ...),
 * named name. */
int prof_load_dir(const char *profile_dir, const char *name, struct prof_profile *ret, struct br_err *err);

/* Parse one file's text into p (added to what p holds; p set up by
 * prof_init). file names it in messages. */
/* The [firmware] rule whose component is written exactly so; NULL: none. */
const struct prof_fw_rule *prof_fw_rule(const struct prof_profile *p, const char *component);

int prof_parse_text(const char *file, const char *text, enum prof_file kind, struct prof_profile *p,
		    struct br_err *err);

/* Whether the profile states enough of what a healthy node has for a node
 * of it to be proven golden: [gpu] count, [nic] fabric or ethernet, [nvme]
 * count, [psu] count and [clock] max_skew (0 counts: "none fitted" is a
 * statement too). A profile that states none of them would promote on
 * whatever checks happen to run (BIOS, dmesg): fail closed instead. 0, or
 * BR_E_INVAL with "FILE: ... not stated" naming each missing setting. */
int prof_check_provable(const struct prof_profile *p, struct br_err *err);

/* "30", "30s", "10m", "2h" (and "500ms") as milliseconds, at most
 * PROF_DURATION_MAX_S; 0 or BR_E_INVAL. */
int prof_parse_duration_ms(const char *text, int64_t *ret_ms);

#endif
