/*
 * hw — the facts a BMC (Redfish or IPMI) reports about one machine, as plain
 * C records. The clients fill a struct br_hw; the discover stage hands it to
 * the inventory. Neither side knows the other. Every string is owned by the
 * record (NULL when the BMC did not say); br_hw_release() frees everything.
 */
#ifndef BRINGUP_HW_H
#define BRINGUP_HW_H

#include <stddef.h>
#include <stdint.h>

/* Whose a MAC is. Only host NICs go to the inventory's nics table (what
 * MAAS registers and duplicate claims are judged on); the facts document
 * keeps them all. */
#define BR_NIC_ROLE_HOST "host"			/* a host NIC: a provisioning candidate */
#define BR_NIC_ROLE_BMC "bmc"			/* the BMC's own port (Manager EthernetInterfaces) */
#define BR_NIC_ROLE_BMC_USB "bmc_usb"		/* the host end of the BMC's USB network link */
#define BR_NIC_ROLE_DISABLED "disabled"		/* a disabled function or NIC partition */
#define BR_NIC_ROLE_OTHER_SYSTEM "other_system" /* another System's (a second host, a DPU) */

/* Where a MAC was seen; discovery reports every Redfish view. */
struct br_nic {
	char *mac;    /* lowercase colon form */
	char *name;   /* "NIC.Slot.3-1-1", "eth0", ... */
	char *source; /* "EthernetInterfaces", "NetworkDeviceFunctions", "BootOptions",
		       * "HpeBaseNetworkAdapter", "Bios", "ipmi" */
	char *link_status;
	char *role;    /* BR_NIC_ROLE_*; NULL read as host (facts stored before roles) */
	int permanent; /* 1 if from PermanentMACAddress */
};

/* A resource the BMC links but that could not be read (HTTP error, timeout,
 * a body that does not parse). Only identity (the service root, the host
 * System) fails a node; anything else is listed here and the node keeps
 * what was read. */
struct br_unreadable {
	char *url;
	long status;  /* HTTP status; 0 when no answer came (timeout, reset) */
	char *reason; /* the error as the client saw it */
};
/* Unreadable resources kept per node; past it they are only counted. */
#define BR_HW_UNREADABLE_MAX 64

struct br_kv {
	char *key;
	char *value; /* as text; numbers and booleans printed in JSON form */
};

struct br_firmware {
	char *id;   /* "Installed-25227-2.19.1__BIOS.Setup.1-1" */
	char *name; /* "BIOS", "Integrated Dell Remote Access Controller" */
	char *version;
	int updateable;
};

struct br_pcie {
	char *id;      /* BMC id, e.g. "3-0" */
	char *address; /* PCI address when known "0000:1b:00.0" */
	char *name;
	char *manufacturer;
	char *device_class; /* "DisplayController", "NetworkController", ... */
	char *slot;
	char *serial;
	int lanes_in_use; /* -1 unknown */
	int max_lanes;	  /* -1 unknown */
	char *pcie_type;  /* "Gen5" */
	char *max_pcie_type;
	char *health;
};

struct br_drive {
	char *id;
	char *name;
	char *serial;
	char *model;
	char *protocol; /* "NVMe", "SATA" */
	char *media;	/* "SSD" */
	char *location; /* slot / bay */
	char *health;
	uint64_t capacity_bytes;
};

/* A logical disk a storage controller builds from drives (Redfish Volume):
 * a hardware RAID1 boot device (Dell BOSS, PERC) is one of these. The OS
 * sees the volume as one block device, never its member drives, and
 * reports the volume's identity (durable_name), not their serials. */
struct br_volume {
	char *id; /* "Disk.Virtual.0:BOSS.SL.14-1" */
	char *name;
	char *controller;	   /* the Storage resource's Id it hangs under: "BOSS.SL.14-1" */
	char *raid_type;	   /* "RAID1", "RAID0", ... (Volume.RAIDType) */
	char *durable_name;	   /* Identifiers[0].DurableName */
	char *durable_name_format; /* "NAA", "EUI", "UUID", ... */
	char *health;
	char **drive_ids; /* Links.Drives, each the Drive's Id (br_drive.id) */
	size_t n_drive_ids;
	uint64_t capacity_bytes;
};

/* BR_SENSOR_PSU_REDUNDANCY: the supplies' redundancy as one sensor (IPMI's
 * "PS Redundancy", Redfish Power.Redundancy), never a supply itself; its
 * state is the BMC's text ("Fully Redundant", "Redundancy Lost"). */
enum br_sensor_kind {
	BR_SENSOR_FAN,
	BR_SENSOR_TEMP,
	BR_SENSOR_PSU,
	BR_SENSOR_VOLTAGE,
	BR_SENSOR_PSU_REDUNDANCY,
	BR_SENSOR_OTHER
};

struct br_sensor {
	enum br_sensor_kind kind;
	char *name;
	char *units;	       /* "RPM", "Percent", "Cel", "W", "V" */
	char *health;	       /* "OK", "Warning", "Critical" */
	char *state;	       /* "Enabled", "Absent" */
	char *serial;	       /* PSUs */
	double reading;	       /* NAN when absent */
	double upper_critical; /* NAN when absent */
	double lower_critical; /* NAN when absent */
};

/* The switch port a host NIC port is cabled to, as the BMC saw it before
 * any OS ran: Dell's Connection View (DellSwitchConnection: SwitchConnectionID
 * is the switch's chassis MAC, SwitchPortConnectionID its port name) or
 * DMTF Port v1.4+ Ethernet.LLDPReceive. One per host port the BMC lists,
 * those with no link included. */
struct br_neighbor {
	char *port;		  /* the BMC's name of the host port: "NIC.Embedded.1-1-1" */
	char *mac;		  /* the host port's MAC, when the view gives it */
	char *chassis_id;	  /* the switch's chassis id (a MAC: lowercase colon form) */
	char *chassis_id_subtype; /* LLDP's subtype as Redfish names it: "MacAddr", ... */
	char *system_name;	  /* the switch's LLDP system name (Port v1.8), when sent */
	char *port_id;		  /* the switch port: "Ethernet1/5", "swp3" */
	char *port_id_subtype;	  /* "IfName", "MacAddr", ... */
	char *mgmt_address;	  /* the switch's management address, when sent */
	char *source;		  /* "DellSwitchConnection" or "LLDPReceive" */
	int vlan;		  /* -1 unknown */
	int link;		  /* 1: a neighbour was seen; 0: "No Link" / nothing received */
	int stale;		  /* 1: the BMC says the data is stale (not refreshed since a change) */
};

struct br_sel_entry {
	char *id;
	char *created;
	char *severity; /* "OK", "Warning", "Critical" */
	char *message;
	char *message_id;
};

struct br_hw {
	char *source; /* "redfish" or "ipmi" */
	char *manufacturer;
	char *model;
	char *system_serial;
	char *service_tag; /* Dell SKU */
	char *uuid;
	char *bios_version;
	char *bmc_firmware;
	char *bmc_mac;
	char *power_state;
	char *health; /* the System's Status.Health ("OK", "Warning", "Critical"), rolled up by the BMC */
	char *cpu_model;
	int cpu_model_from_processor; /* cpu_model is a Processor's Model, not ProcessorSummary's */
	int cpu_count;
	int cpu_max_mhz;
	int memory_gib;
	char *boot_mode;
	char *boot_override_target;
	char *boot_override_enabled;
	/* Where the BMC showed the host ports' switch neighbours
	 * ("DellSwitchConnections", "LLDPReceive"); NULL: it offers none. */
	char *neighbor_source;

	char **boot_order;
	size_t n_boot_order;
	struct br_nic *nics;
	size_t n_nics;
	struct br_kv *bios;
	size_t n_bios;
	struct br_firmware *firmware;
	size_t n_firmware;
	struct br_pcie *pcie;
	size_t n_pcie;
	struct br_drive *drives;
	size_t n_drives;
	struct br_volume *volumes;
	size_t n_volumes;
	struct br_sensor *sensors;
	size_t n_sensors;
	struct br_sel_entry *sel;
	size_t n_sel;
	struct br_neighbor *neighbors;
	size_t n_neighbors;
	struct br_unreadable *unreadable;
	size_t n_unreadable;
	size_t unreadable_dropped; /* past BR_HW_UNREADABLE_MAX */
};

/* ---- the field table ---------------------------------------------------
 * One list of br_hw's members and of its records' drives releasing them
 * (hw.c) and the JSON document in and out (hwjson.c): a field added here
 * is freed, stored and read back; the keys are the C names. What a table
 * cannot say is written beside it: boot_order (strings), bios (an object
 * of attributes), a volume's member drives, a sensor's kind. */
enum br_field_type {
	BR_FT_STR,  /* char *, owned; NULL is JSON null */
	BR_FT_INT,  /* int, -1 unknown (null) */
	BR_FT_LONG, /* long, 0 none (null) */
	BR_FT_NUM,  /* double, NAN unknown (null) */
	BR_FT_BOOL, /* int, 0 or 1 */
	BR_FT_U64,  /* uint64_t, written capped at INT64_MAX */
};
struct br_field {
	const char *name;
	enum br_field_type type;
	size_t offset;
	const char *dflt; /* BR_FT_STR: written for NULL (a NIC's role), else NULL */
};
struct br_record {
	const struct br_field *fields;
	size_t n_fields;
};
/* An array member of br_hw: its pointer and count, one element's size and
 * fields. */
struct br_hw_list {
	const char *name;
	size_t items, count, size;
	const struct br_record *record;
};
extern const struct br_record br_hw_scalars;
extern const struct br_hw_list br_hw_lists[];
extern const size_t br_hw_n_lists;
/* Free the strings of one record (the fields of r) in item. */
void br_record_release(const struct br_record *r, void *item);
/* Append a zeroed element to list l of hw, numeric fields "unknown". */
void *br_hw_list_add(struct br_hw *hw, const struct br_hw_list *l);

/* Longest string kept from a BMC (serial, name, SEL message, BIOS value):
 * a longer one is cut where it enters (br_hw_strdup). Real ones are far
 * shorter (serials under 64 bytes, SEL messages under 512); a BMC that
 * sent a megabyte serial took a discovery worker down with it. */
#define BR_HW_STR_MAX 1024
/* Copies for strings a BMC sent, capped at BR_HW_STR_MAX
 * (br_xstrndup_capped). NULL for NULL. */
char *br_hw_strdup(const char *s);
char *br_hw_strndup(const char *s, size_t n);

void br_hw_init(struct br_hw *hw);
void br_hw_release(struct br_hw *hw);

/* Append a zeroed element and return it (numeric fields set to "unknown"). */
struct br_nic *br_hw_add_nic(struct br_hw *hw);
struct br_kv *br_hw_add_bios(struct br_hw *hw);
struct br_firmware *br_hw_add_firmware(struct br_hw *hw);
struct br_pcie *br_hw_add_pcie(struct br_hw *hw);
struct br_drive *br_hw_add_drive(struct br_hw *hw);
struct br_volume *br_hw_add_volume(struct br_hw *hw);
/* Append a member drive Id to a volume (copied, capped). */
void br_volume_add_drive(struct br_volume *v, const char *drive_id);
/* The volume that has the drive with this Id as a member; NULL if none. */
const struct br_volume *br_hw_volume_of_drive(const struct br_hw *hw, const char *drive_id);
struct br_sensor *br_hw_add_sensor(struct br_hw *hw);
struct br_sel_entry *br_hw_add_sel(struct br_hw *hw);
struct br_neighbor *br_hw_add_neighbor(struct br_hw *hw);
/* The neighbour record of the host port with this BMC name; NULL if none. */
const struct br_neighbor *br_hw_neighbor_of(const struct br_hw *hw, const char *port);
void br_hw_add_boot(struct br_hw *hw, const char *entry);
/* Record an unreadable resource (strings copied, capped); past
 * BR_HW_UNREADABLE_MAX only unreadable_dropped grows. */
void br_hw_add_unreadable(struct br_hw *hw, const char *url, long status, const char *reason);
/* Keep only what names the machine (manufacturer, model, serials, UUID,
 * BIOS and BMC firmware, the BMC's MAC, the MACs that are not the host's,
 * unreadable resources): what a node that failed discovery stores, so
 * tickets and status name it without offering MAAS a partial picture. */
void br_hw_keep_identity(struct br_hw *hw);
/* 1 when hw names the machine at all (a serial, model or BMC MAC). */
int br_hw_has_identity(const struct br_hw *hw);
/* A MAC's role as the stronger of two views: disabled over the BMC's
 * links over another System's over host. */
const char *br_nic_role_stronger(const char *a, const char *b);
/* 1 when the NIC is a host NIC (role host or unset). */
int br_nic_is_host(const struct br_nic *nic);
size_t br_hw_host_nics(const struct br_hw *hw);
/* Find a NIC by MAC (lowercase colon form); NULL if none. */
struct br_nic *br_hw_find_nic(struct br_hw *hw, const char *mac);
/* The manifest's expected serial against what the BMC reported: 1 when it
 * is the system serial or the service tag (blanks around either ignored,
 * letters in any case: BMCs pad serials and vendors print tags in either
 * case), 0 when the BMC reported one or both and neither is it, -1 when
 * there is nothing to compare (no expected serial, or the BMC reported
 * neither). */
int br_hw_serial_matches(const struct br_hw *hw, const char *expected);
const char *br_sensor_kind_name(enum br_sensor_kind kind);
int br_sensor_kind_parse(const char *name, enum br_sensor_kind *ret_kind);

#endif
