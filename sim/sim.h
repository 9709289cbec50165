/*
 * sim — the simulated rack: N Dell iDRAC9-shaped Redfish BMCs of PowerEdge
 * XE9680 GPU servers, one port each on 127.0.0.1 (HTTP or HTTPS), served by
 * one event loop per serving process (--procs splits the BMCs among them);
 * the manifest, wiring list and ground truth they imply;
 * and the faults (docs/simulator.md names them) injected into them.
 *
 * sim/ shares nothing with redfish/ or maas/ but common/: a simulator built
 * on the client's own code would agree with every bug in it.
 *
 * Pieces: rack.c generates the node model from a seed, faults.c picks which
 * nodes carry which fault, manifest.c writes rack.csv / wiring.csv /
 * truth.json, idrac*.c answer Redfish requests for one node (vendor*.c
 * present other BMC families over them: --vendor), http*.c are
 * the libmicrohttpd event loop (latency, request log) any listener module can
 * use, tls.c makes the CA and server certificate for --https. hosts*.c
 * write each node's host tree (sysfs/procfs and tool captures under
 * DIR/hosts/HOSTNAME/) and serve it through real sshd on loopback.
 *
 * Ownership: a struct sim_rack owns its nodes and everything hung on them
 * (sim_rack_release()). Strings in fixed arrays are generated identifiers of
 * known length.
 */
#ifndef BRINGUP_SIM_H
#define BRINGUP_SIM_H

#include <stdint.h>

#include "common.h"

#define SIM_NODES_MAX 10000
/* The most of each part any family fits (the XE9680's): arrays are this
 * big; a family's node fits the first sim_node_shape() ones of each. */
#define SIM_GPUS 8
#define SIM_NVLINKS 18	  /* per H200 SXM */
#define SIM_FABRIC_NICS 8 /* ConnectX-7 400G, one port each, NIC.Slot.31-38 */
#define SIM_ETH_NICS 2	  /* Broadcom LOM, NIC.Embedded.1-2 */
#define SIM_NICS (SIM_FABRIC_NICS + SIM_ETH_NICS)
#define SIM_DATA_DRIVES 8
#define SIM_PSUS 8		 /* the most of any family's machine (the X13 Supermicro's) */
#define SIM_FANS 36		 /* ... (the DGX H100's rotors) */
#define SIM_TEMPS (4 + SIM_GPUS) /* inlet, exhaust, 2 CPUs, GPUs */
#define SIM_SESSIONS_MAX 8	 /* iDRAC9 answers RAC0218 to the 9th */
#define SIM_ACCOUNTS_MAX 16	 /* iDRAC9's user slots, Ids 1-16 (1 reserved) */
#define SIM_ACCOUNT_USER_MAX 16
#define SIM_ACCOUNT_PASSWORD_MAX 64 /* stored; the policy's MaxPasswordLength is below */
#define SIM_NODES_PER_RACK 4	    /* 6U XE9680s at ~10 kW each: four per 42U rack */
#define SIM_PAGE_SIZE 50	    /* Members per page before Members@odata.nextLink */
/* $expand's deepest $levels, ProtocolFeaturesSupported.ExpandQuery.MaxLevels:
 * 1, as a real iDRAC9 says (tests/fixtures/redfish/dell/libredfish/service_root.json) */
#define SIM_EXPAND_MAX_LEVELS 1
#define SIM_FLAKY_PERCENT 30
#define SIM_JOB_RUN_MS 1000 /* a BIOS config job runs this long after the reset (POST) */
#define SIM_BOOT_ENTRIES 3
#define SIM_BOSS_M2_MODEL "Dell NVMe 7450 RI M.2 960GB" /* a BOSS-N1 RAID1 member */

/* Firmware versions the healthy rack carries; fw_outdated puts one NIC on
 * SIM_FW_NIC_OUTDATED. A firmware policy should require at least these. */
#define SIM_FW_BIOS "2.3.5"
#define SIM_FW_IDRAC "7.10.50.00"
#define SIM_FW_NIC "28.39.1002"
#define SIM_FW_NIC_OUTDATED "28.33.0800"
#define SIM_FW_GPU "96.00.A5.00.01"
/* gpu_vbios_mismatch: what that GPU runs (a real H200's vbios_version,
 * tests/fixtures/hw/h200-vm). */
#define SIM_FW_GPU_OS "96.00.A5.00.1A"

enum sim_fault {
	SIM_F_BMC_DOWN,
	SIM_F_BMC_AUTH,
	SIM_F_BMC_FLAKY,
	SIM_F_PSU_FAILED,
	SIM_F_BIOS_DRIFT,
	SIM_F_FW_OUTDATED,
	SIM_F_NIC_MISSING,
	SIM_F_GPU_MISSING,
	SIM_F_PCIE_DEGRADED,
	SIM_F_NVME_ORDER,
	SIM_F_NVME_MISSING,
	SIM_F_CABLE_SWAP,
	SIM_F_CABLE_UNPLUGGED,
	SIM_F_THERMAL_BOGUS,
	SIM_F_CPUFREQ_CAPPED,
	SIM_F_CLOCK_SKEW,
	SIM_F_COMMISSION_FAIL,
	SIM_F_DESIGN_COUNT, /* the field's faults (docs/simulator.md); --fault-rate picks among them */
	/* Test-only faults, for client robustness; never picked by --fault-rate. */
	SIM_F_BAD_JSON = SIM_F_DESIGN_COUNT, /* System resource body truncated */
	SIM_F_BAD_TYPES,		     /* SerialNumber a number, Members an object, ... */
	SIM_F_HUGE_COLLECTION,		     /* EthernetInterfaces with 100,000 Members */
	SIM_F_HUGE_BODY,		     /* Bios resource of 50 MB */
	SIM_F_HANG,			     /* Thermal never answers */
	SIM_F_BIOS_JOB_FAIL,		     /* BIOS off baseline, and its config job fails */
	SIM_F_GRACEFUL_IGNORED, /* BIOS off baseline; GracefulRestart accepted, nothing happens */
	/* The System takes boot order changes only through its own settings
	 * object (@Redfish.Settings, as iDRAC10 and other BMCs do), pending
	 * until the next boot; a PATCH of the System itself is refused. */
	SIM_F_BOOT_SETTINGS,	   /* ... and the disk is ahead of PXE (BIOS on baseline) */
	SIM_F_BOOT_SETTINGS_DRIFT, /* ... and BIOS off baseline as with bios_drift */
	/* A BMC that reports another node's NIC MAC as one of its own, as a
	 * mis-cabled or mis-addressed BMC does: takes two nodes, the first
	 * reports the second's MAC (duplicate MACs must be judged on
	 * evidence, never first-come). */
	SIM_F_MAC_CLONE,
	SIM_F_HUGE_SERIAL,   /* the System's SerialNumber is 1 MiB of text (UTF-8, not only ASCII) */
	SIM_F_CONTROL_CHARS, /* terminal controls (ESC sequences, CR, BEL, DEL) in the System's SerialNumber
			      */
	/* MAAS (or a proxy before it) refuses this node's machine create with
	 * a 400 that echoes the request: its Authorization header and the
	 * whole form, BMC power password included. */
	SIM_F_MAAS_ECHO,
	/* MAAS's hardware tests fail on this node the first time they run
	 * (Failed testing), and pass when run again. */
	SIM_F_MAAS_TEST_FAIL,
	/* The BMC's session table is full (of other clients' sessions): every
	 * login gets iDRAC's RAC0218; basic auth still works. */
	SIM_F_SESSIONS_FULL,
	/* A tarpit: every answer comes late, SIM_TARPIT_STALL_MS for the first
	 * and SIM_TARPIT_STEP_MS more for each one after, up to
	 * SIM_TARPIT_STALL_MAX_MS: each within any sane request timeout, and a
	 * whole walk far longer than any BMC deadline a test gives, however few
	 * requests discovery needs, so only a deadline on the whole BMC ends it. */
	SIM_F_TARPIT,
	/* BIOS off baseline (as bios_drift), and its config job runs
	 * SIM_SLOW_JOB_MS of POST (10 s): long enough to stop a configure between
	 * the reset and the job's end. */
	SIM_F_SLOW_JOB,
	/* EthernetInterfaces is just under 8 MiB of empty members,
	 * {"Members":[{},{},...]}: cheap to send, 654 MB for a client that
	 * parses it before counting. */
	SIM_F_MEMBERS_FLOOD,
	/* The BMC shows no host NIC MAC anywhere (EthernetInterfaces holds at
	 * most its own USB link, NetworkDeviceFunctions and BootOptions carry
	 * none): discovery must fail the node, naming what it did see. */
	SIM_F_NO_HOST_MAC,
	/* Links a client must not follow beside the real ones in the System's
	 * EthernetInterfaces: an absolute URL to another host, a path climbing
	 * out of /redfish/v1, the collection itself (a cycle); and an Oem
	 * object on the System nested deeper than any real resource. */
	SIM_F_BAD_LINKS,
	/* The Bios resource is a chunked body that never ends ('A's after an
	 * opening): only a client's cap on body size ends the transfer. */
	SIM_F_ENDLESS_BODY,
	/* The top collections answer with redirects a client must never
	 * follow: Chassis 301 to another host, Managers 307 to another port
	 * of this one, Systems 302 to a path of this BMC. */
	SIM_F_REDIRECT,
	/* A session's token works for SIM_REVOKE_AFTER requests after the
	 * login, then the BMC forgets the session (as a BMC reset or a
	 * session purge does): every later request with it gets 401. Every
	 * new session of the node goes the same way. */
	SIM_F_TOKEN_REVOKED,
	/* The login's 201 carries Location but no X-Auth-Token header: the
	 * session exists on the BMC all the same and must be deleted. */
	SIM_F_SESSION_NO_TOKEN,
	/* The login's 201 carries X-Auth-Token but no Location header (the
	 * session's @odata.id is only in the body). */
	SIM_F_SESSION_NO_LOCATION,
	/* A login carrying Context is answered 400 Base PropertyUnknown, as a
	 * service older than Session v1_5_0 that refuses what it does not
	 * know; one without it works. */
	SIM_F_SESSION_CONTEXT_REFUSED,
	/* A collection read with $expand answers its first member nested
	 * SIM_DEEP_EXPAND_LEVELS levels deep, as a BMC following
	 * $levels=N without a MaxLevels would; a plain GET is normal. */
	SIM_F_DEEP_EXPAND,
	/* The node boots from its BOSS card's RAID1 volume: Redfish lists the
	 * two M.2 drives and the Volume over them; the OS (and so MAAS) sees
	 * one disk, the volume, with its own serial. Ends golden. */
	SIM_F_BOSS_RAID1,
	/* boss_raid1, but the serial the OS reports for the volume is not the
	 * identity the BMC gives (a volume re-created after discovery read
	 * it): enlist must fail the node naming both sides. */
	SIM_F_BOSS_UNMATCHED,
	/* The node's MAAS machine is deleted (as `maas admin machine delete`
	 * by someone else would) just as the first tags update_nodes naming it
	 * arrives: between a client's read of the machine and its tag update.
	 * MAAS then skips its system_id and counts one machine fewer. */
	SIM_F_MAAS_DELETED_AT_TAG,
	/* Two nodes' rows in rack.csv carry each other's serial, as a swapped
	 * management cable shows it (each BMC address leads to the other
	 * machine): discover must fail both, kind serial_mismatch, each
	 * reason naming the BMC's serial and the manifest's. */
	SIM_F_SERIAL_MISMATCH,
	/* The Manager links LogServices but answers 404 there, as BMCs do for
	 * a service their licence or generation lacks: discover must keep
	 * the node (the 404 listed among its unreadable facts). */
	SIM_F_LOGS_MISSING,
	/* BootOptions carry one more entry: PXE over the BMC's LAN-over-USB
	 * (a UEFI device path through USB() nodes to the host end of that
	 * link), as XCC and bmcweb machines offer it; that MAC is the BMC's
	 * (bmc_usb), never a host NIC for MAAS. Families with BootOptions and
	 * a USB link (lenovo, openbmc). */
	SIM_F_USB_BOOT_OPTION,
	/* The BMC manages a second host (System.Embedded.2, its own serial
	 * and NIC), as a multi-node chassis under one BMC does; rack.csv
	 * gains the system column naming System.Embedded.1 for the node.
	 * discover must take that System alone, never merge the two, and
	 * fail the node naming both where the manifest names neither. Dell
	 * family. */
	SIM_F_TWO_HOSTS,
	/* Host-side fabric faults (FIELD-NOTES: ports down, at the wrong rate).
	 * Listed here, after the design's, so --fault-rate's picks for a seed
	 * stay what they were; named with --faults. One fabric NIC's RDMA port
	 * is DOWN / Polling though cabled (a bad transceiver) ... */
	SIM_F_IB_PORT_DOWN,
	/* ... or trained at 200 Gb/s (4X HDR) instead of 400 (4X NDR). */
	SIM_F_IB_RATE,
	/* One GPU's NVLink inactive in nvidia-smi nvlink -s. */
	SIM_F_NVLINK_DOWN,
	/* GPUDirect RDMA's peer-memory client (nvidia_peermem) not loaded. */
	SIM_F_PEERMEM_MISSING,
	/* One fan stopped: 0 RPM and Critical at the BMC, 0 RPM in the host's
	 * hwmon (a seized rotor or an unplugged fan cable). */
	SIM_F_FAN_FAILED,
	/* One GPU's health in nvidia-smi -q -x (FIELD-NOTES: GPUs that pass
	 * burn-in counts and still fail): 12 uncorrectable DRAM ECC errors,
	 * volatile and aggregate ... */
	SIM_F_GPU_ECC,
	/* ... a failed row remap (remapped_row_failure Yes) ... */
	SIM_F_GPU_ROW_REMAP,
	/* ... HW and HW thermal slowdown active on the idle GPU ... */
	SIM_F_GPU_SLOWDOWN,
	/* ... aggregate SRAM errors past the retirement threshold. */
	SIM_F_GPU_SRAM_THRESHOLD,
	/* The InfiniBand fabric (racks whose machines' fabric is InfiniBand,
	 * sim_node_infiniband) cabled as COUNT separate networks (2 to 8; the
	 * field story's upper fabric was 8): the wiring list is one fabric,
	 * but leaf L goes up only to the spines j with j % COUNT == L % COUNT.
	 * Rack-wide: every InfiniBand node carries it in truth.json. */
	SIM_F_IB_FABRIC_SPLIT,
	/* One fabric NIC's link flapped after boot: the kernel log shows its
	 * interface down twice, 46.5 s in all (mlx5e's "Link down" / "Link
	 * up" lines), its counters and state clean again by validation. */
	SIM_F_IB_LINK_FLAP,
	/* Cabling seen before the first PXE boot (the BMC's switch neighbours:
	 * Dell's Connection View, DMTF LLDPReceive), host and BMC agreeing:
	 * the provisioning cable (the first Ethernet port, NIC.Embedded.1)
	 * unplugged, as cable_unplugged on that port (truth.json lists both) ... */
	SIM_F_PXE_UNPLUGGED,
	/* ... or in a port of the rack's management switch (mgmt-RACK) instead
	 * of its top-of-rack switch: a switch the wiring list does not have. */
	SIM_F_CABLE_WRONG_SWITCH,
	/* Dell's Connection View reports StaleData "Stale" and the switch
	 * ports of before the rack was recabled (the design's), until the
	 * ServerPortConnectionRefresh action is posted; with another cable
	 * fault the stale view hides it. */
	SIM_F_CONNVIEW_STALE,
	/* ... and stays so, the refresh accepted and changing nothing, while
	 * one fabric cable was unplugged since (cable_unplugged too): a view a
	 * client must not judge, that disagrees with the OS's LLDP after
	 * deploy. */
	SIM_F_CONNVIEW_STUCK,
	/* Firmware updates (bringup firmware; sim/idrac_update.c). The
	 * iDRAC, the BIOS and the first fabric NIC below the baseline (the
	 * versions each had before): an update brings them back. */
	SIM_F_FW_STALE,
	/* fw_stale, and every update task ends in Exception with the BMC's message. */
	SIM_F_FW_UPDATE_FAIL,
	/* fw_stale, and every image pushed is refused (400, the package's signature). */
	SIM_F_FW_IMAGE_REFUSED,
	/* fw_stale, and the iDRAC takes SIM_FW_SLOW_REBOOT_MS to come back after its own update. */
	SIM_F_FW_BMC_SLOW,
	/* fw_stale, and the UpdateService has no MultipartHttpPushUri: SimpleUpdate only. */
	SIM_F_FW_NO_MULTIPART,
	/* fw_stale, and an accepted image's Location names its Lifecycle
	 * Controller job (Managers/iDRAC.Embedded.1/Jobs/JID_…, a DellJob)
	 * instead of the Task. */
	SIM_F_FW_DELL_JOB,
	/* fw_stale, and both transfer forms advertise only OnReset as their
	 * @Redfish.OperationApplyTimeSupport (an update staged for the next
	 * reset): a client asking for Immediate must send nothing. */
	SIM_F_FW_APPLY_ON_RESET,
	/* MAAS commissioning of the node never ends (a machine that never
	 * PXE boots, with no MAAS timeout): Commissioning for good. enlist
	 * fails it at its commissioning time limit; bringup run's other nodes
	 * must not wait for that (issue 25). */
	SIM_F_COMMISSION_HANG,
	/* The factory account must change its password at first login (as
	 * Lenovo XCC ships): the login's 201 carries Base's
	 * PasswordChangeRequired naming the account, and that account may do
	 * nothing but read itself, PATCH its Password and log out (DSP0266
	 * "Password change required handling"); anything else is 403. */
	SIM_F_PASSWORD_CHANGE_REQUIRED,
	/* The BMC refuses every new password (400 PropertyValueError on
	 * Password), whatever its policy says: a rotation must leave the
	 * factory credentials working and fail the node. */
	SIM_F_PASSWORD_REFUSED,
	/* One GPU the fabric manager could not register with the NVLink
	 * fabric: nvidia-smi -q -x shows its fabric state "In Progress" (as
	 * a GPU whose NVLinks did not train stays), the others Completed. */
	SIM_F_NVLINK_FABRIC_DOWN,
	/* A fatal NVSwitch SXid in the kernel log (12028, egress non-posted
	 * PRIV error, in the driver's format) after boot. */
	SIM_F_NVSWITCH_SXID,
	/* The active checks' tools (sim/hosts_active.c): one GPU's memory
	 * test fails in dcgmi diag's JSON ... */
	SIM_F_DCGM_DIAG_FAIL,
	/* ... dcgmi is not installed on the node ... */
	SIM_F_DCGMI_MISSING,
	/* ... ib_write_bw's loopback measures 180 Gb/s, not 392. */
	SIM_F_RDMA_BW_LOW,
	/* No firmware inventory: the UpdateService links none and
	 * /redfish/v1/UpdateService/FirmwareInventory answers 404 (a BMC
	 * that strays from DSP0266's URIs: discovery's direct read of the
	 * inventory falls back to the UpdateService). */
	SIM_F_FW_INVENTORY_MISSING,
	/* The MAAS emulator answers 500 to a PUT of the node's machine (a
	 * power parameters update, as after a credentials rotation). */
	SIM_F_MAAS_UPDATE_FAIL,
	/* One GPU's VBIOS in nvidia-smi -q -x (SIM_FW_GPU_OS, read from the
	 * GPU) differs from what the BMC's inventory shows for it (SIM_FW_GPU,
	 * the baseboard's flash): an image flashed in-band with the GPU reset
	 * since and the BMC's inventory not refreshed, or the BMC reading
	 * another part. Both at or above the policy's minimum. */
	SIM_F_GPU_VBIOS_MISMATCH,
	SIM_F_COUNT
};

#define SIM_REVOKE_AFTER 3
#define SIM_FW_TASKS_MAX 32		/* update tasks one simulated iDRAC keeps */
#define SIM_FW_SLOW_REBOOT_MS 6000	/* fw_bmc_slow: the iDRAC's restart after its update */
#define SIM_FW_STALE_IDRAC "7.00.60.00" /* fw_stale's versions: each component's previous one */
#define SIM_FW_STALE_BIOS "2.2.7"

enum sim_fw_task_state { SIM_FW_TASK_RUNNING, SIM_FW_TASK_COMPLETED, SIM_FW_TASK_FAILED };

/* One firmware update the BMC took (idrac_update.c). */
struct sim_fw_task {
	enum sim_fw_task_state state;
	char component[48], version[32];
	char target_uri[96]; /* the URI the image came to */
	char json_body[512]; /* the request's JSON (UpdateParameters or the action's body) */
	int64_t done_ms;
	char message_id[32], message[192];
	int ilo_push; /* came by iLO's HttpPushUri: no Task or job, the UpdateService's Oem.Hpe tells */
};
#define SIM_DEEP_EXPAND_LEVELS 5000

#define SIM_TARPIT_STALL_MS 1500
#define SIM_TARPIT_STEP_MS 250
#define SIM_TARPIT_STALL_MAX_MS 3500
#define SIM_SLOW_JOB_MS 10000

/* The faults of a node: one bit per enum sim_fault. */
#define SIM_FAULT_WORDS 2
struct sim_faultset {
	uint64_t w[SIM_FAULT_WORDS];
};
_Static_assert(SIM_F_COUNT <= 64 * SIM_FAULT_WORDS, "faults are bits of sim_faultset's words");

static inline int sim_fault_has(const struct sim_faultset *s, enum sim_fault f)
{
	return (s->w[(unsigned)f / 64] >> ((unsigned)f % 64)) & 1;
}
static inline void sim_fault_set(struct sim_faultset *s, enum sim_fault f)
{
	s->w[(unsigned)f / 64] |= UINT64_C(1) << ((unsigned)f % 64);
}
/* Whether the node carries any fault at all. */
static inline int sim_fault_any(const struct sim_faultset *s)
{
	for (int i = 0; i < SIM_FAULT_WORDS; i++)
		if (s->w[i])
			return 1;
	return 0;
}

const char *sim_fault_name(enum sim_fault f);
int sim_fault_parse(const char *name, enum sim_fault *ret_fault);

/* ---- BMC families (vendor*.c) ---------------------------------------------- */

/* Which BMC family a node's Redfish service looks like. Dell is what
 * idrac*.c render; the others are presented by vendor*.c over it. */
enum sim_vendor {
	SIM_V_DELL,
	SIM_V_HPE,
	SIM_V_LENOVO,
	SIM_V_SUPERMICRO,
	SIM_V_OPENBMC,
	SIM_V_AMI,
	SIM_V_COUNT,
	SIM_V_MIXED = SIM_V_COUNT /* --vendor mixed: round-robin by node */
};

const char *sim_vendor_name(enum sim_vendor v);
/* The profile (templates/profiles/NAME) a family's machine is: "xe9680" ... */
const char *sim_vendor_profile(enum sim_vendor v);

/* What a family's machine fits (vendor.c's table, each number's source
 * beside it): counts no larger than the array maxima above. Parts past a
 * count are not fitted: absent everywhere (BMC, host tree, wiring,
 * truth, MAAS), and no fault picks them. */
struct sim_shape {
	int gpus, fabric_nics, eth_nics, data_drives, psus, fans;
	int pcie_gen;	  /* GPUs' and fabric NICs' PCIe generation (4, 5) */
	int cpu_mhz;	  /* the CPU's rated maximum, Redfish MaxSpeedMHz */
	int cpu_host_khz; /* cpuinfo_max_freq the host shows */
	int infiniband;	  /* its fabric NICs are InfiniBand ports (else RoCE, LLDP-cabled) */
};
/* "dell" ... "ami" or "mixed"; BR_E_INVAL for anything else. */
int sim_vendor_parse(const char *name, enum sim_vendor *ret_vendor);

/* ---- the node model ------------------------------------------------------- */

struct sim_nic {
	char fqdd[32];	 /* "NIC.Slot.31-1-1" */
	char ifname[32]; /* host interface name, as the wiring list names it */
	char mac[18];	 /* lowercase colon form */
	char serial[24];
	char firmware[16];
	int bus; /* PCI bus number */
	int present;
	int fitted;  /* the family's machine has it (sim_node_shape); present implies fitted */
	char sw[32]; /* switch and port this NIC is cabled to by design */
	char sw_port[16];
	/* Its RDMA port: ib_port_down leaves it DOWN / Polling with the cable
	 * in, ib_rate trains it at 200 Gb/s (a 4X HDR cable in a 400G port). */
	int ib_down;
	int ib_rate_gbps; /* 0: the ConnectX-7's 400 */
};

struct sim_gpu {
	char serial[24];
	int bus;
	int lanes; /* trained width; 16 unless pcie_degraded */
	int present;
	int fitted;
};

struct sim_drive {
	char id[48]; /* "Disk.Bay.0:Enclosure.Internal.0-1" */
	char serial[24];
	char model[48];
	char firmware[12];
	uint64_t capacity_bytes;
	int present;
	int fitted;
};

struct sim_psu {
	char serial[24];
	int failed;
	int fitted;
};

#define SIM_SESSION_CONTEXT_MAX 64

struct sim_session {
	int id;	     /* 0: slot free */
	int account; /* index in sim_bmc_state.accounts of who logged in */
	char token[33];
	int64_t last_ms;
	int uses;				   /* requests authenticated by it (token_revoked) */
	char context[SIM_SESSION_CONTEXT_MAX + 1]; /* the login's Context (Session v1_5_0) */
};

/* One ManagerAccount slot (idrac_accounts.c); an empty user: slot free. */
struct sim_account {
	char user[SIM_ACCOUNT_USER_MAX + 1];
	char password[SIM_ACCOUNT_PASSWORD_MAX + 1];
	char role[16];
	int enabled;
	int change_required; /* PasswordChangeRequired: only its own Password may be PATCHed */
};

/* What a BMC changes at run time. */
struct sim_bmc_state {
	struct sim_session sessions[SIM_SESSIONS_MAX];
	struct sim_account accounts[SIM_ACCOUNTS_MAX];
	int accounts_ready; /* accounts set up from the rack's credentials */
	int next_session;
	json_t *bios;	      /* current attributes (owned) */
	json_t *bios_pending; /* Bios/Settings (owned) */
	int bios_job;	      /* a config job waits for the next reset: its number, else 0 */
	int jobs;	      /* jobs created so far */
	int job_running;      /* the job running since the last reset, else 0 */
	int64_t job_done_ms;  /* when it ends (br_now_ms clock) */
	int job_reads_left;   /* ... and not before it was read this many more times (--bios-job-polls) */
	uint64_t jobs_failed; /* bit j-1: job j failed (jobs past 64 never fail) */
	char boot_order[SIM_BOOT_ENTRIES][40];
	char boot_pending[SIM_BOOT_ENTRIES][40]; /* the System's settings object */
	int boot_pending_set;
	int powered;
	int locate; /* LocationIndicatorActive: the identify LED blinks */
	char boot_target[16];
	char boot_enabled[12];
	uint64_t rng; /* flaky behaviour, advanced per request */
	/* Bumped whenever a request or simulated time may have changed what a
	 * GET shows (every PATCH/POST/DELETE reaching a handler, a job ending);
	 * cached answers of an older generation are never served. Logins,
	 * logouts and session expiry do not bump it: session resources are
	 * never cached. */
	uint64_t generation;
	struct sim_answer_cache *answers; /* idrac_cache.c's (owned), NULL until used */
	struct sim_fw_list *firmware;	  /* idrac_manager.c's (owned), built on first use */
	int connview_refreshes;		  /* ServerPortConnectionRefresh actions posted */
	int connview_set; /* SwitchConnectionView.1.Enable PATCHed: connview_enabled holds it */
	int connview_enabled;
	/* firmware updates (idrac_update.c): versions changed by an update
	 * ("": the healthy rack's), its tasks, and when a restarting iDRAC
	 * answers again */
	char fw_idrac[24], fw_bios[24];
	struct sim_fw_task fw_tasks[SIM_FW_TASKS_MAX];
	int n_fw_tasks;
	int64_t down_until_ms;
	int tarpit_answers; /* answers a tarpit gave so far */
};

struct sim_node {
	int index;
	char hostname[32]; /* "gpu-r01-u03" */
	char rack[16];
	int unit;
	int port;     /* real TCP port once listening */
	char bmc[24]; /* "127.0.0.1:PORT" */
	char system_serial[16];
	char manifest_serial[16]; /* rack.csv's serial column: system_serial unless serial_mismatch */
	char service_tag[8];
	char uuid[37];
	char bmc_mac[18];
	enum sim_vendor vendor;
	char usb_mac[18];		/* host end of the BMC's USB network link, or "" (Dell, HPE) */
	char firmware_nic_outdated[24]; /* NIC fqdd carrying SIM_FW_NIC_OUTDATED, or "" */
	struct sim_nic nics[SIM_NICS];	/* fabric first, then Ethernet */
	struct sim_gpu gpus[SIM_GPUS];
	struct sim_drive boot_drive;
	/* boss_raid1: boot_drive's mirror on the BOSS card, and the volume
	 * (filled for every node, shown only under the fault). */
	struct sim_drive boot_mirror;
	char boss_volume_id[48];    /* "Disk.Virtual.0:BOSS.SL.14-1" */
	char boss_durable_name[24]; /* the Volume's Identifiers[0].DurableName (NAA) */
	char boss_os_serial[24];    /* the serial the OS reports for the volume */
	struct sim_drive drives[SIM_DATA_DRIVES];
	struct sim_psu psus[SIM_PSUS];
	int bogus_sensor; /* thermal_bogus: index of the temperature reading nonsense */
	int failed_fan;	  /* fan_failed: index + 1 of the stopped fan (0: none) */
	/* gpu_ecc, gpu_row_remap, gpu_slowdown, gpu_sram_threshold: index + 1
	 * of the GPU each touches (0: none). */
	int gpu_ecc, gpu_remap, gpu_slowdown, gpu_sram;
	int gpu_vbios;		    /* gpu_vbios_mismatch: index + 1 of the GPU (0: none) */
	int gpu_fabric_down;	    /* nvlink_fabric_down: index + 1 of the GPU (0: none) */
	struct sim_faultset faults; /* sim_fault_has() */
	json_t *details;	    /* per-fault specifics for truth.json (owned) */
	struct sim_bmc_state st;
};

struct sim_fault_request {
	enum sim_fault fault;
	int count;
};

struct sim_config {
	int nodes;
	uint64_t seed;
	struct sim_fault_request *faults; /* borrowed */
	size_t n_faults;
	double fault_rate;
	int flaky_stall_ms;
	enum sim_vendor vendor; /* SIM_V_MIXED: round-robin */
};

struct sim_rack {
	struct sim_node *nodes;
	size_t n;
	uint64_t seed;
	char password[25]; /* the BMC password of this run (random, not seeded) */
	int ib_fabrics;	   /* ib_fabric_split: the separate networks as cabled; 0: one */
};

/* ---- the InfiniBand fabric (fabric.c) ---------------------------------------
 *
 * Nodes whose machine's fabric is InfiniBand (the shape's infiniband) have
 * their fabric NICs on rail leaves ("leaf-su01-rail1", ports 1-32, one per
 * node of the scalable unit), every leaf up to each of SIM_IB_SPINES
 * spines (leaf port 33 + j to spine j's port L + 1, L the leaf's index).
 * Their cables are not in wiring.csv (LLDP does not run on InfiniBand) but
 * in ib-wiring.csv; each host serves the subnet its ports see through
 * ibnetdiscover (DIR/bin/ibnetdiscover, on the sessions' PATH). */
#define SIM_IB_SPINES 8
#define SIM_IB_LEAF_UPLINK 33 /* a leaf's first uplink port */
int sim_node_infiniband(const struct sim_node *n);
int sim_rack_infiniband(const struct sim_rack *rack);
/* The RDMA device index fabric NIC k has on its host (mlx5_N): the kernel
 * numbers the devices it finds, so a missing one shifts the rest. */
int sim_node_rdma_index(const struct sim_node *n, int k);
/* DIR/ib-wiring.csv: the fabric by design. */
int sim_ib_write_wiring(const struct sim_rack *rack, const char *dir, struct br_err *err);
/* DIR/fabric/subnet-K.txt (ibnetdiscover's text of each separate network
 * as cabled, faults included), DIR/bin/ibnetdiscover, and each host's
 * .captures/ibnetdiscover.ports (which of its ports sees which). */
int sim_ib_write_subnets(const struct sim_rack *rack, const char *dir, struct br_err *err);
/* DIR/bin/dcgmi and DIR/bin/ib_write_bw: the active checks' tools, printing
 * each host's .captures (sim/hosts_active.c). */
int sim_active_write_tools(const char *dir, struct br_err *err);

/* ---- rack.c --------------------------------------------------------------- */

/* Deterministic generator (splitmix64). */
uint64_t sim_rng_next(uint64_t *state);
uint64_t sim_rng_below(uint64_t *state, uint64_t n);
uint64_t sim_rng_seed(uint64_t seed, uint64_t stream);
/* Unseeded randomness from the kernel, for passwords and session tokens. */
void sim_random_bytes(unsigned char *out, size_t len);

/* Build the nodes and pick faults. Ports are filled in later by whoever
 * listens (sim_node_set_port). */
int sim_rack_generate(struct sim_rack *rack, const struct sim_config *cfg, struct br_err *err);
void sim_rack_release(struct sim_rack *rack);
/* Free a node's cached answers (idrac_cache.c); accepts NULL. */
void sim_answer_cache_free(struct sim_answer_cache *cache);
/* Free a node's firmware list (idrac_manager.c); accepts NULL. */
void sim_fw_list_free(struct sim_fw_list *l);
void sim_node_set_port(struct sim_node *node, int port);
/* 1 when the node boots from a BOSS RAID1 volume (boss_raid1, boss_unmatched). */
int sim_node_boss_raid1(const struct sim_node *n);
/* The boot disk as the node's OS sees it (and MAAS records): boot_drive,
 * or under boss_raid1 the volume's virtual disk. */
void sim_node_os_boot_disk(const struct sim_node *n, struct sim_drive *ret_disk);
/* The BIOS attributes a node should have (the baseline); new reference. */
json_t *sim_bios_baseline(const struct sim_node *node);
/* Give every attribute of the iDRAC9 BIOS registry that attrs lacks its
 * first allowed value, 0 or "" (idrac_bios.c). */
void sim_bios_registry_defaults(json_t *attrs);
/* The boot order a node should have: PXE on the first LOM port first. */
void sim_boot_order_baseline(struct sim_node *node);
/* Let simulated time act: a running config job ends (applying the pending
 * attributes, or failing under bios_job_fail) once its time is up. */
void sim_jobs_advance(struct sim_node *node);
/* Temperature sensor i (< SIM_TEMPS): its name and healthy reading. */
void sim_temp_sensor(int i, char *name, size_t len, int *ret_celsius);
/* How many of those the node has: the board's four and one per fitted GPU. */
int sim_node_temps(const struct sim_node *n);

/* Give every node its family and what that family adds (the USB link's
 * MAC, the parts its machine fits); vendor.c. Before faults are put on. */
void sim_vendor_assign(struct sim_rack *rack, enum sim_vendor vendor);
/* The node's family's machine (struct sim_shape). */
const struct sim_shape *sim_node_shape(const struct sim_node *n);

/* ---- faults.c ------------------------------------------------------------- */

/* Parse "--faults pcie_degraded:2,cable_swap" (repeatable) into requests;
 * *ret is realloc'ed. Messages name the bad item. */
int sim_faults_parse(const char *spec, struct sim_fault_request **ret, size_t *ret_n, struct br_err *err);
/* Put the requested faults on nodes chosen by the seed, then the random ones. */
int sim_faults_assign(struct sim_rack *rack, const struct sim_config *cfg, struct br_err *err);

/* ---- manifest.c ----------------------------------------------------------- */

/* Write DIR/rack.csv, DIR/wiring.csv and DIR/truth.json. */
int sim_write_manifest(const struct sim_rack *rack, const char *dir, struct br_err *err);
/* truth.json's document; new reference. */
json_t *sim_truth(const struct sim_rack *rack);
/* The serial rack.csv (and the NetBox stand-in) gives n: what an engineer
 * copies from the asset list, "" where a test-only fault garbles it. */
const char *sim_manifest_serial(const struct sim_node *n);

/* ---- tls.c ---------------------------------------------------------------- */

/* Make a CA (written to ca_path as PEM) and a server certificate for
 * 127.0.0.1 and localhost signed by it. The PEM strings are the caller's
 * (free()). */
int sim_tls_make(const char *ca_path, char **ret_key_pem, char **ret_cert_pem, struct br_err *err);

/* ---- hosts*.c: simulated hosts --------------------------------------------- */

#define SIM_SSHD_PATH "/usr/sbin/sshd"
#define SIM_SSHD_PORTS_MAX 16 /* sshd's MAX_LISTEN_SOCKS: one sshd per 16 nodes */

/* Write DIR/hosts/HOSTNAME/ for every node (replacing what an earlier run
 * left): the sysfs/procfs tree bringup-probe reads with --root, tool
 * captures in .captures/ (nvidia-smi.xml, lldpctl.xml, dmesg.txt). Agrees
 * with what the node's BMC shows. */
int sim_hosts_write(const struct sim_rack *rack, const char *dir, struct br_err *err);
/* Rewrite every host's RTC (since_epoch, date, time) to now + its skew. */
int sim_hosts_rtc_tick(const struct sim_rack *rack, const char *dir, struct br_err *err);
/* One node's tree in hosts_dir/HOSTNAME, which must not exist yet. */
int sim_host_write(const struct sim_node *n, const char *hosts_dir, struct br_err *err);

/* Start sshd on 127.0.0.1 for every node (after sim_hosts_write): keys in
 * DIR/ssh/, DIR/ssh/known_hosts, DIR/ssh_config; appends BRINGUP_SSH_CONFIG,
 * BRINGUP_SSH_KEY, BRINGUP_SSH_PUBKEY, BRINGUP_KNOWN_HOSTS, BRINGUP_SSH_USER lines
 * to env.
 * *ret is the caller's: sim_ssh_stop() stops the sshds and frees it. */
struct sim_ssh;
int sim_ssh_start(const struct sim_rack *rack, const char *dir, struct br_buf *env, struct sim_ssh **ret,
		  struct br_err *err);
/* Stop every sshd (SIGTERM, waiting for each to go); accepts NULL. */
void sim_ssh_stop(struct sim_ssh *s);

/* What host NIC k of n is cabled to now (the design, or the switch port a
 * cable fault moved it to): 1 with *sw and *sw_port set, 0 when no cable
 * is in (unplugged, or the NIC is absent). Host LLDP and the BMC's
 * neighbour views both read it. */
int sim_nic_sees(const struct sim_node *n, int k, const char **sw, const char **sw_port);
/* A switch's chassis MAC, made from its name: the same in every view. */
void sim_switch_mac(const char *name, char out[18]);

#endif
