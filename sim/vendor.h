/*
 * vendor — BMC families other than Dell, presented over the iDRAC renderer:
 * a request's path is mapped onto the iDRAC tree, idrac.c answers it, and
 * the answer is reshaped into the family's (ids, links, MAC and serial
 * formats, where MACs show; vendor_shape.c). What iDRAC has no equivalent of (the USB
 * link's host end, BootOptions, HPE's BaseNetworkAdapters, a GPU baseboard
 * System, Drives under the Chassis) vendor_res.c renders. Private to sim/.
 *
 * Ownership: render functions return a new JSON reference (NULL: no such
 * resource); everything else is borrowed.
 */
#ifndef BRINGUP_SIM_VENDOR_H
#define BRINGUP_SIM_VENDOR_H

#include "idrac.h"

/* Members per page of a family that pages (AMI), before the next link. */
#define SIM_AMI_PAGE_SIZE 3
#define SIM_HGX_SYSTEM "/redfish/v1/Systems/HGX_Baseboard_0"

enum sim_mac_style {
	SIM_MAC_UPPER, /* 3C:EC:EF:12:34:56 (iDRAC) */
	SIM_MAC_LOWER, /* 3c:ec:ef:12:34:56 */
	SIM_MAC_DASH,  /* 3C-EC-EF-12-34-56 */
	SIM_MAC_MIXED, /* 3c:EC:ef:12:34:56 (some AMI firmware: case as the BIOS passed it) */
};

struct sim_vendor_info {
	const char *name;
	const char *system_id, *chassis_id, *manager_id;
	const char *manufacturer, *model;
	const char *root_vendor, *oem_key; /* ServiceRoot "Vendor" and its Oem key */
	const char *usb_id;		   /* the USB link's EthernetInterface Id, or NULL */
	const char *usb_name, *usb_description;
	const char *mgr_usb_id;	  /* the BMC's end of that link among the Manager's interfaces, or NULL */
	const char *enclosure_id; /* the second Chassis (iDRAC's Enclosure.Internal.0-1), or NULL: none */
	int host_iface;		  /* both ends link the Manager's HostInterfaces/1 (DSP0270) */
	int virtual_media;	  /* the BMC's virtual CD-ROMs among the host's drives (AMI) */
	enum sim_mac_style mac_style;
	int serial_pad;	    /* serials padded with trailing spaces */
	int trailing_slash; /* every @odata.id ends in '/' (iLO) */
	int host_eth;	    /* host NICs listed under Systems/…/EthernetInterfaces */
	int ndf_macs;	    /* NetworkDeviceFunctions carry MACs */
	int adapters;	    /* NetworkAdapters lists the NICs */
	int boot_options;   /* BootOptions, MACs in their device paths */
	int chassis_drives; /* Drives linked from the Chassis */
	int system_storage; /* Storage linked from the System */
	int repeat_pages;   /* every page holds all remaining members (AMI) */
	int hgx;	    /* a GPU baseboard System beside the host */
	int pcie_oem;	    /* PCIe links only in Oem PCIDevices (HPE), not in PCIeDevice */
	int pcie_slots;	    /* PCIe links only on the Chassis' PCIeSlots (Supermicro) */
	int psu_no_status;  /* power supplies without a Status (the DGX H100's AMI) */
};

const struct sim_vendor_info *sim_vendor_info(enum sim_vendor v);
/* The family an info describes. */
enum sim_vendor sim_vendor_of(const struct sim_vendor_info *vi);
/* The handler every BMC listens with: a Dell node straight to idrac.c,
 * another family through vendor.c. ctx is a struct sim_bmc. */
void sim_vendor_handle(void *bmc, const struct sim_request *req, struct sim_response *resp);

/* A MAC (lowercase colon form) in the family's style. */
void sim_vendor_mac(const struct sim_vendor_info *vi, const char *mac, char out[18]);
/* 1 when the node shows host MACs at all (not under no_host_mac). */
int sim_vendor_host_macs(const struct sim_node *n);

/* ---- vendor_shape.c: paths and answers ---- */

/* A request being answered for a family. */
struct sim_vreq {
	struct sim_ctx c; /* for the renderers and replies; c.req is the original */
	const struct sim_vendor_info *vi;
	const char *dpath; /* the iDRAC path */
	int own;	   /* rendered here (vendor_res.c), not by idrac.c */
};

/* The iDRAC path of a family's path (matched case-blind, as iLO does;
 * trailing '/' dropped). Caller frees. */
char *sim_vendor_path_in(const struct sim_vendor_info *vi, const char *path);
/* An answer at iDRAC paths (taken) in the family's shape and links; a new
 * reference (AMI may answer something else altogether). */
json_t *sim_vendor_finish(const struct sim_vreq *v, json_t *doc);
/* The request's iDRAC path is path / is one segment below prefix. */
int sim_vreq_is(const struct sim_vreq *v, const char *path);
int sim_vreq_under(const struct sim_vreq *v, const char *prefix);

/* vendor_res.c: resources the family has and iDRAC does not, at iDRAC
 * paths (vendor.c maps them). */
json_t *sim_v_usb_eth(struct sim_ctx *c, const struct sim_vendor_info *vi);
/* The BMC's end of the USB link, and the Host Interface both ends name. */
json_t *sim_v_mgr_usb_eth(struct sim_ctx *c, const struct sim_vendor_info *vi);
json_t *sim_v_host_ifaces(struct sim_ctx *c);
json_t *sim_v_host_iface(struct sim_ctx *c, const struct sim_vendor_info *vi, const char *id);
/* The BMC's virtual media as the host's drives list it (AMI): the Drives
 * member ids, and one drive; NULL: not one. */
#define SIM_V_VMEDIA_DRIVES 2
const char *sim_v_vmedia_id(int i);
int sim_v_is_vmedia(const char *id);
json_t *sim_v_vmedia_drive(struct sim_ctx *c, const char *id);
json_t *sim_v_boot_options(struct sim_ctx *c);
json_t *sim_v_boot_option(struct sim_ctx *c, const char *id);
json_t *sim_v_hpe_adapters(struct sim_ctx *c);
json_t *sim_v_hpe_adapter(struct sim_ctx *c, const char *id);
json_t *sim_v_hgx_system(struct sim_ctx *c);
json_t *sim_v_hgx_procs(struct sim_ctx *c);
json_t *sim_v_hgx_proc(struct sim_ctx *c, const char *id);
json_t *sim_v_chassis_drives(struct sim_ctx *c, const struct sim_vendor_info *vi);
/* HPE's PCIDevices (System Oem) and the Chassis' PCIeSlots, where the
 * family keeps PCIe link width and speed; the PCIeDevice (or function)
 * without its PCIeInterface. */
json_t *sim_v_hpe_pci_devices(struct sim_ctx *c);
json_t *sim_v_hpe_pci_device(struct sim_ctx *c, const char *id);
json_t *sim_v_pcie_slots(struct sim_ctx *c);
void sim_v_pcie_without_link(const struct sim_vreq *v, json_t *doc);
/* The iDRAC path of the drive a Chassis Drives member names, or NULL. */
char *sim_v_drive_path(const struct sim_node *n, const char *id);

/* ---- vendor_bios.c: BIOS settings objects and resets of non-Dell families ---- */

/* The family's settings object below .../Bios/ ("Pending", "SD"), NULL for Dell. */
const char *sim_vbios_settings_name(enum sim_vendor v);
/* A node's BIOS state at the family's defaults: the attributes it has
 * changed, so none (the defaults are the family's shared table); new
 * reference. */
json_t *sim_vbios_defaults(const struct sim_node *n);
/* Bios and its settings object as the family has them (attributes, registry,
 * SupportedApplyTimes); the System's ResetType list. */
void sim_vbios_reshape(const struct sim_vreq *v, json_t *doc);
void sim_vbios_reshape_system(const struct sim_vreq *v, json_t *doc);
/* The family's attribute registry in place of iDRAC's (doc, taken). */
json_t *sim_vbios_registry(const struct sim_vreq *v, json_t *doc);

#endif
