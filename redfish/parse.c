/*
 * parse — one function per Redfish resource type, from a JSON document to
 * struct br_hw. Documents are borrowed. A member of the wrong type is
 * treated as absent (br_json_* return NULL/fallback), so a BMC that sends
 * "SerialNumber": 42 loses that field, never the run. Where the schema
 * changed between Redfish releases both shapes are read (Thermal.Fans
 * ReadingRPM vs Reading + ReadingUnits, Location vs PhysicalLocation).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "rf_private.h"

char *rf_dup(json_t *doc, const char *path)
{
	return br_hw_strdup(br_json_str(doc, path));
}

char *rf_dup_trimmed(json_t *doc, const char *path)
{
	const char *s = br_json_str(doc, path), *end;

	if (!s)
		return NULL;
	while (*s == ' ' || *s == '\t')
		s++;
	end = s + strlen(s);
	while (end > s && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	/* iLO 5 with no serial set sends 16 blanks (a DL180 Gen10's capture,
	 * tests/fixtures/redfish/hpe/proliantutils/): that is no serial, not
	 * an empty one every such node would share. */
	return end > s ? br_hw_strndup(s, (size_t)(end - s)) : NULL;
}

static void set_once(char **field, json_t *doc, const char *path)
{
	if (!*field)
		*field = rf_dup(doc, path);
}

/* First of several paths that holds a string. */
static char *dup_first(json_t *doc, const char *const *paths)
{
	for (; *paths; paths++)
		if (br_json_str(doc, *paths))
			return rf_dup(doc, *paths);
	return NULL;
}

static int int_or(json_t *doc, const char *path, int fallback)
{
	int64_t v = br_json_int(doc, path, fallback);

	return v >= -1 && v <= INT32_MAX ? (int)v : fallback;
}

/* How much a MAC's source says: a standard NIC resource over a vendor's
 * OEM one over a boot entry's text. */
static int source_rank(const char *source)
{
	if (!source)
		return 0;
	if (!strcmp(source, "BootOptions") || !strcmp(source, "Bios"))
		return 1;
	if (!strcmp(source, "HpeBaseNetworkAdapter"))
		return 2;
	return 3;
}

int rf_add_mac_role(struct br_hw *hw, const char *mac, const char *name, const char *source, int permanent,
		    const char *link_status, const char *role)
{
	char norm[18];
	struct br_nic *nic;

	if (!mac || br_mac_normalize(mac, norm) || !strcmp(norm, "00:00:00:00:00:00"))
		return 0;
	nic = br_hw_find_nic(hw, norm);
	if (nic) {
		nic->permanent |= permanent;
		if (!nic->link_status)
			nic->link_status = br_hw_strdup(link_status);
		if (role && br_nic_role_stronger(nic->role, role) != nic->role) {
			free(nic->role);
			nic->role = br_hw_strdup(role);
		}
		/* Views arrive in any order: the standard resource's name and
		 * source win over a boot entry's, whichever came first. */
		if (source_rank(source) > source_rank(nic->source)) {
			free(nic->source);
			free(nic->name);
			nic->source = br_hw_strdup(source);
			nic->name = br_hw_strdup(name);
		}
		return 0;
	}
	nic = br_hw_add_nic(hw);
	nic->mac = br_hw_strdup(norm);
	nic->name = br_hw_strdup(name);
	nic->source = br_hw_strdup(source);
	nic->link_status = br_hw_strdup(link_status);
	nic->role = br_hw_strdup(role ? role : BR_NIC_ROLE_HOST);
	nic->permanent = permanent;
	return 1;
}

int rf_add_mac(struct br_hw *hw, const char *mac, const char *name, const char *source, int permanent,
	       const char *link_status)
{
	return rf_add_mac_role(hw, mac, name, source, permanent, link_status, BR_NIC_ROLE_HOST);
}

/* PermanentMACAddress is the burned-in address; MACAddress may be one an
 * operator or a bonding driver set. */
static void add_mac_pair(struct br_hw *hw, json_t *obj, const char *name, const char *source,
			 const char *link_status, const char *role)
{
	const char *perm = br_json_str(obj, "PermanentMACAddress");
	char norm[18];

	if (perm && !br_mac_normalize(perm, norm) && strcmp(norm, "00:00:00:00:00:00"))
		rf_add_mac_role(hw, perm, name, source, 1, link_status, role);
	else
		rf_add_mac_role(hw, br_json_str(obj, "MACAddress"), name, source, 0, link_status, role);
}

void rf_parse_system(struct br_hw *hw, json_t *doc)
{
	json_t *order = br_json_path(doc, "Boot/BootOrder");
	double mem = br_json_num(doc, "MemorySummary/TotalSystemMemoryGiB", -1);
	size_t i;
	json_t *v;

	set_once(&hw->manufacturer, doc, "Manufacturer");
	set_once(&hw->model, doc, "Model");
	/* XCC and AMI pad serials with spaces to the SMBIOS field's width. */
	if (!hw->system_serial)
		hw->system_serial = rf_dup_trimmed(doc, "SerialNumber");
	set_once(&hw->uuid, doc, "UUID");
	set_once(&hw->bios_version, doc, "BiosVersion");
	set_once(&hw->power_state, doc, "PowerState");
	set_once(&hw->health, doc, "Status/Health");
	/* iLO pads the CPU model to the SMBIOS field's width (a DL385 Gen10
	 * Plus v2's capture, tests/fixtures/redfish/hpe/libredfish/). */
	if (!hw->cpu_model)
		hw->cpu_model = rf_dup_trimmed(doc, "ProcessorSummary/Model");
	if (hw->cpu_count < 0)
		hw->cpu_count = int_or(doc, "ProcessorSummary/Count", -1);
	if (hw->memory_gib < 0 && mem >= 0 && mem < 1e9)
		hw->memory_gib = (int)lround(mem);
	if (json_is_array(order) && !hw->n_boot_order)
		json_array_foreach(order, i, v) if (json_is_string(v))
		    br_hw_add_boot(hw, json_string_value(v));
	set_once(&hw->boot_override_target, doc, "Boot/BootSourceOverrideTarget");
	set_once(&hw->boot_override_enabled, doc, "Boot/BootSourceOverrideEnabled");
	set_once(&hw->boot_mode, doc, "Boot/BootSourceOverrideMode");
}

void rf_parse_processor(struct br_hw *hw, json_t *doc)
{
	const char *type = br_json_str(doc, "ProcessorType");
	const char *state = br_json_str(doc, "Status/State");
	int mhz = int_or(doc, "MaxSpeedMHz", -1);
	char *model;

	if ((type && strcmp(type, "CPU")) || (state && !strcmp(state, "Absent")))
		return;
	/* The Processor's Model is the part; ProcessorSummary's is often only
	 * the family: "Intel(R) Xeon(R) processor" on a Supermicro X13 whose
	 * Processors say "Intel(R) Xeon(R) Platinum 8462Y+", "Central
	 * Processor" on an Intel S2600BPB (captures under
	 * tests/fixtures/redfish/{supermicro/libredfish,intel/cray_rie}/). The
	 * first Processor with a model gives it. */
	if (!hw->cpu_model_from_processor && (model = rf_dup_trimmed(doc, "Model"))) {
		free(hw->cpu_model);
		hw->cpu_model = model;
		hw->cpu_model_from_processor = 1;
	}
	if (mhz > hw->cpu_max_mhz)
		hw->cpu_max_mhz = mhz;
}

static const char *id_or_name(json_t *doc)
{
	const char *id = br_json_str(doc, "Id");

	return id ? id : br_json_str(doc, "Name");
}

/* strcasestr without _GNU_SOURCE. */
static int contains_nocase(const char *s, const char *word)
{
	size_t n = strlen(word);

	for (; s && *s; s++)
		if (!strncasecmp(s, word, n))
			return 1;
	return 0;
}

int rf_eth_is_bmc_usb(json_t *doc)
{
	/* Lenovo XCC "ToManager", Supermicro "hostusb" / "Host Interface",
	 * OpenBMC and AMI "usb0" / "USB Ethernet": the host side of the BMC's
	 * LAN-over-USB (DSP0270 Host Interface), listed among the System's
	 * interfaces. Its MAC is often locally administered, but so are some
	 * host NICs' (DMTF's own mockup has one): the name and the link to the
	 * Host Interface decide, never the MAC alone. */
	static const char *const words[] = { "tomanager", "hostusb", "usb", "host interface", NULL };
	static const char *const fields[] = { "Id", "Name", "Description", NULL };

	if (br_json_path(doc, "Links/HostInterface"))
		return 1;
	for (size_t f = 0; fields[f]; f++)
		for (size_t w = 0; words[w]; w++)
			if (contains_nocase(br_json_str(doc, fields[f]), words[w]))
				return 1;
	return 0;
}

void rf_parse_ethernet_interface(struct br_hw *hw, json_t *doc)
{
	add_mac_pair(hw, doc, id_or_name(doc), "EthernetInterfaces", br_json_str(doc, "LinkStatus"),
		     rf_eth_is_bmc_usb(doc) ? BR_NIC_ROLE_BMC_USB : BR_NIC_ROLE_HOST);
}

int rf_ndf_is_disabled(json_t *doc)
{
	/* A NIC partition (NPAR) or function switched off: iDRAC and bmcweb
	 * keep listing it, with its MAC, as NetDevFuncType "Disabled" or
	 * DeviceEnabled false (DSP0268 NetworkDeviceFunction). MAAS would
	 * create an interface for each; a 4-port card came out with 18. */
	const char *type = br_json_str(doc, "NetDevFuncType");
	json_t *caps = json_object_get(doc, "NetDevFuncCapabilities"), *c;
	size_t i;

	if (json_is_false(json_object_get(doc, "DeviceEnabled")))
		return 1;
	if (!type || strcmp(type, "Disabled"))
		return 0;
	/* iDRAC gives a port it cannot set a personality on (a Mellanox
	 * ConnectX or BlueField: an R750's capture,
	 * tests/fixtures/redfish/dell/libredfish/ndf_slot_5_1.json) type
	 * "Disabled" with "Disabled" its only capability, though the port is
	 * the host's and PXE-boots. Switched off is a function that could be
	 * something else. */
	if (!json_is_array(caps))
		return 1;
	json_array_foreach(caps, i,
			   c) if (json_is_string(c) && strcmp(json_string_value(c), "Disabled")) return 1;
	return 0;
}

void rf_parse_network_device_function(struct br_hw *hw, json_t *doc)
{
	add_mac_pair(hw, br_json_path(doc, "Ethernet"), id_or_name(doc), "NetworkDeviceFunctions", NULL,
		     rf_ndf_is_disabled(doc) ? BR_NIC_ROLE_DISABLED : BR_NIC_ROLE_HOST);
}

/* The 12 hex digits after marker in s (UEFI's MAC() device path node,
 * "MAC:" in a display name), separators allowed; 0 when found. */
static int mac_after(const char *s, const char *marker, char out[18])
{
	char hex[13];
	size_t n = 0;

	for (const char *p = s; p && (p = strstr(p, marker)); p++) {
		const char *q = p + strlen(marker);

		for (n = 0; *q && n < 12; q++) {
			if (strchr("0123456789abcdefABCDEF", *q))
				hex[n++] = *q;
			else if (*q != ':' && *q != '-')
				break;
		}
		hex[n] = '\0';
		if (n == 12 && !br_mac_normalize(hex, out))
			return 0;
	}
	return BR_E_NOTFOUND;
}

void rf_parse_boot_option(struct br_hw *hw, json_t *doc)
{
	static const char *const where[][2] = { { "UefiDevicePath", "MAC(" },
						{ "DisplayName", "MAC:" },
						{ "Name", "MAC:" },
						{ "Description", "MAC:" } };
	char mac[18];

	for (size_t i = 0; i < sizeof(where) / sizeof(where[0]); i++)
		if (!mac_after(br_json_str(doc, where[i][0]), where[i][1], mac)) {
			rf_add_mac_role(hw, mac, id_or_name(doc), "BootOptions", 0, NULL,
					rf_boot_path_is_usb(doc) ? BR_NIC_ROLE_BMC_USB : BR_NIC_ROLE_HOST);
			return;
		}
}

int rf_boot_path_is_usb(json_t *doc)
{
	/* UEFI device path text (UEFI 2.10, 10.6): a network boot entry of
	 * the BMC's LAN-over-USB runs through USB() (or UsbClass(), UsbWwid())
	 * nodes before its MAC() node; a host NIC's runs through Pci() only.
	 * Firmware offers PXE over that link on every machine of a family,
	 * often with one locally administered MAC they all share. */
	static const char *const usb_nodes[] = { "/USB(", "/Usb", NULL };
	const char *path = br_json_str(doc, "UefiDevicePath");
	const char *mac = path ? strstr(path, "MAC(") : NULL;

	for (size_t i = 0; mac && usb_nodes[i]; i++) {
		const char *usb = strstr(path, usb_nodes[i]);

		if (usb && usb < mac)
			return 1;
	}
	return 0;
}

/* The U/L bit of the first octet (IEEE 802, bit 1): set by whoever made
 * the address up (a BMC's USB gadget, a VM, a DPU's representor), never in
 * a vendor's burned-in address. mac is in lowercase colon form. */
static int locally_administered(const char *mac)
{
	char c = mac[0] ? mac[1] : '\0';
	int low = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : 0;

	return (low & 0x2) != 0;
}

void rf_macs_settle(struct br_hw *hw)
{
	/* A locally administered MAC seen only in a boot entry, a BIOS
	 * attribute or an OEM view is the host end of the BMC's USB link as
	 * far as anything standard says (real host NICs with one are listed
	 * by a standard NIC resource, as the BlueField's Arm ports are). */
	for (size_t i = 0; i < hw->n_nics; i++) {
		struct br_nic *n = &hw->nics[i];

		if (br_nic_is_host(n) && n->mac && locally_administered(n->mac) &&
		    source_rank(n->source) < 3) {
			free(n->role);
			n->role = br_hw_strdup(BR_NIC_ROLE_BMC_USB);
		}
	}
}

void rf_parse_manager(struct br_hw *hw, json_t *doc)
{
	const char *type = br_json_str(doc, "ManagerType");

	if (!type || !strcmp(type, "BMC"))
		set_once(&hw->bmc_firmware, doc, "FirmwareVersion");
}

static void bmc_mac_of(struct br_hw *hw, json_t *doc)
{
	const char *paths[] = { "PermanentMACAddress", "MACAddress", NULL };
	char norm[18];

	/* The BMC's end of its USB link to the host is one of its interfaces
	 * too (a DGX H100's "usb0", a Supermicro's "ToHost" with the same Id
	 * and Name as the real port: captures under
	 * tests/fixtures/redfish/{ami,supermicro}/libredfish/manager_eth_*);
	 * whichever answer came first must not become the BMC's MAC. */
	if (rf_eth_is_bmc_usb(doc))
		return;
	/* iLO lists its shared port, disabled, beside the dedicated one it
	 * answers on (tests/fixtures/redfish/hpe/libredfish/manager_eth_*). */
	if (json_is_false(json_object_get(doc, "InterfaceEnabled")))
		return;

	for (size_t i = 0; paths[i] && !hw->bmc_mac; i++) {
		const char *mac = br_json_str(doc, paths[i]);

		if (mac && !br_mac_normalize(mac, norm) && strcmp(norm, "00:00:00:00:00:00"))
			hw->bmc_mac = br_hw_strdup(norm);
	}
}

void rf_parse_manager_ethernet(struct br_hw *hw, json_t *doc)
{
	/* Every MAC the Manager shows is the BMC's: kept with its role, so a
	 * host view listing it too (a shared LOM port) never offers it to
	 * MAAS as the host's. */
	add_mac_pair(hw, doc, id_or_name(doc), "ManagerEthernetInterfaces", br_json_str(doc, "LinkStatus"),
		     rf_eth_is_bmc_usb(doc) ? BR_NIC_ROLE_BMC_USB : BR_NIC_ROLE_BMC);
	bmc_mac_of(hw, doc);
}

/* A PCIeType of the DMTF enum ("Gen1".."Gen6"), or NULL. Supermicro fills
 * PCIeInterface of the GPUs on an HGX board with "Gen-1", "Gen0" and -1
 * lanes for "not known" (a SYS-821GE-TNHR's capture,
 * tests/fixtures/redfish/supermicro/libredfish/pcie_gpu1.json): kept, such
 * a value would stand as the link and keep the slot's real one out. */
static char *pcie_type_of(json_t *itf, const char *key)
{
	const char *t = br_json_str(itf, key);

	if (!t || strncmp(t, "Gen", 3) || t[3] < '1' || t[3] > '9' || t[4])
		return NULL;
	return br_hw_strdup(t);
}

static void read_pcie_interface(struct br_pcie *p, json_t *doc)
{
	json_t *itf = br_json_path(doc, "PCIeInterface");

	if (!json_is_object(itf))
		return;
	if (p->lanes_in_use < 0)
		p->lanes_in_use = int_or(itf, "LanesInUse", -1);
	if (p->max_lanes < 0)
		p->max_lanes = int_or(itf, "MaxLanes", -1);
	if (!p->pcie_type)
		p->pcie_type = pcie_type_of(itf, "PCIeType");
	if (!p->max_pcie_type)
		p->max_pcie_type = pcie_type_of(itf, "MaxPCIeType");
}

long rf_parse_pcie_device(struct br_hw *hw, json_t *doc)
{
	/* XCC has the slot only under Oem.Lenovo (an SR670 V2's capture,
	 * tests/fixtures/redfish/lenovo/libredfish/pcie_device_slot_3.json) */
	static const char *const slot_paths[] = { "Slot/Location/PartLocation/ServiceLabel",
						  "Location/PartLocation/ServiceLabel", "Slot/Location/Info",
						  "Oem/Lenovo/Location/PartLocation/ServiceLabel", NULL };
	const char *id = br_json_str(doc, "Id");
	struct br_pcie *p = NULL;
	int64_t ordinal;

	/* Dell lists a device under the System and the Chassis */
	for (size_t i = 0; id && i < hw->n_pcie; i++)
		if (hw->pcie[i].id && !strcmp(hw->pcie[i].id, id))
			p = &hw->pcie[i];
	if (!p) {
		p = br_hw_add_pcie(hw);
		p->id = br_hw_strdup(id);
	}
	set_once(&p->name, doc, "Name");
	set_once(&p->manufacturer, doc, "Manufacturer");
	set_once(&p->device_class, doc, "DeviceClass");
	if (!p->serial)
		p->serial = rf_dup_trimmed(doc, "SerialNumber");
	set_once(&p->health, doc, "Status/Health");
	if (!p->slot)
		p->slot = dup_first(doc, slot_paths);
	ordinal = br_json_int(doc, "Slot/Location/PartLocation/LocationOrdinalValue", -1);
	if (!p->slot && ordinal >= 0)
		p->slot = br_xasprintf("%lld", (long long)ordinal);
	read_pcie_interface(p, doc);
	return (long)(p - hw->pcie);
}

void rf_parse_pcie_function(struct br_hw *hw, long index, json_t *doc)
{
	struct br_pcie *p;

	if (index < 0 || (size_t)index >= hw->n_pcie)
		return;
	p = &hw->pcie[index];
	set_once(&p->device_class, doc, "DeviceClass");
	set_once(&p->manufacturer, doc, "Manufacturer");
	read_pcie_interface(p, doc);
}

/* The BMC's own virtual media, which AMI firmware lists among the host's
 * drives: USB devices named "Virtual Cdrom Device" and the like, 2048
 * bytes, every one with the serial AAAABBBBCCCC1 (a DGX H100's capture,
 * tests/fixtures/redfish/ami/libredfish/drive_usb_*.json). They are no
 * disk of the host; a real USB disk is kept. */
static int is_bmc_virtual_media(json_t *doc)
{
	const char *protocol = br_json_str(doc, "Protocol"), *model = br_json_str(doc, "Model");

	return protocol && !strcmp(protocol, "USB") && model && !strncasecmp(model, "Virtual ", 8);
}

void rf_parse_drive(struct br_hw *hw, json_t *doc)
{
	static const char *const loc_paths[] = { "PhysicalLocation/PartLocation/ServiceLabel",
						 "PhysicalLocation/Info", NULL };
	json_t *legacy = br_json_path(doc, "Location");
	int64_t cap = br_json_int(doc, "CapacityBytes", -1);
	char *serial = rf_dup_trimmed(doc, "SerialNumber");
	const char *id = br_json_str(doc, "Id");
	struct br_drive *d;

	if (is_bmc_virtual_media(doc)) {
		free(serial);
		return;
	}
	/* One drive linked twice (Storage and Chassis, two backplane paths):
	 * the same serial, or, without one, the same Id. */
	for (size_t i = 0; i < hw->n_drives; i++) {
		const struct br_drive *o = &hw->drives[i];

		if ((serial && *serial && o->serial && !strcmp(o->serial, serial)) ||
		    ((!serial || !*serial) && id && o->id && !strcmp(o->id, id))) {
			free(serial);
			return;
		}
	}
	d = br_hw_add_drive(hw);
	d->id = rf_dup(doc, "Id");
	d->name = rf_dup(doc, "Name");
	d->serial = serial;
	d->model = rf_dup(doc, "Model");
	d->protocol = rf_dup(doc, "Protocol");
	d->media = rf_dup(doc, "MediaType");
	d->health = rf_dup(doc, "Status/Health");
	d->location = dup_first(doc, loc_paths);
	if (!d->location && json_is_array(legacy))
		d->location = rf_dup(json_array_get(legacy, 0), "Info");
	d->capacity_bytes = cap > 0 ? (uint64_t)cap : 0;
}

/* The last segment of a link's path: a Drive's Id in the links iDRAC and
 * the DMTF mockups give (.../Drives/{DriveId}). */
static const char *link_tail(json_t *link)
{
	const char *path = br_json_str(link, "@odata.id"), *slash;

	if (!path)
		return NULL;
	slash = strrchr(path, '/');
	return slash && slash[1] ? slash + 1 : NULL;
}

/* The Storage Id a Volume hangs under (.../Storage/{StorageId}/Volumes/…):
 * the Volume itself does not name its controller. */
static char *volume_controller(json_t *doc)
{
	const char *path = br_json_str(doc, "@odata.id"), *at, *end;

	at = path ? strstr(path, "/Storage/") : NULL;
	if (!at)
		return NULL;
	at += strlen("/Storage/");
	end = strchr(at, '/');
	return end && end > at ? br_hw_strndup(at, (size_t)(end - at)) : NULL;
}

/* DMTF Volume schema (Volume.v1_x, DSP8010): RAIDType, CapacityBytes,
 * Identifiers[] {DurableName, DurableNameFormat} and Links.Drives[]. iDRAC
 * serves one per virtual disk at Storage/{Controller}/Volumes/{Id}, Id
 * "Disk.Virtual.N:{Controller}" (Dell iDRAC Redfish API guide, Storage).
 * The first identifier with a durable name is the volume's identity. */
void rf_parse_volume(struct br_hw *hw, json_t *doc)
{
	json_t *ids = br_json_path(doc, "Identifiers"), *links = br_json_path(doc, "Links/Drives"), *x;
	int64_t cap = br_json_int(doc, "CapacityBytes", -1);
	const char *id = br_json_str(doc, "Id");
	struct br_volume *v;
	size_t i;

	for (i = 0; id && i < hw->n_volumes; i++)
		if (hw->volumes[i].id && !strcmp(hw->volumes[i].id, id))
			return;
	v = br_hw_add_volume(hw);
	v->id = rf_dup(doc, "Id");
	v->name = rf_dup(doc, "Name");
	v->controller = volume_controller(doc);
	v->raid_type = rf_dup(doc, "RAIDType");
	/* Volume.v1_0 had VolumeType (Mirrored, StripedWithParity...) only. */
	if (!v->raid_type && br_json_str(doc, "VolumeType") &&
	    !strcmp(br_json_str(doc, "VolumeType"), "Mirrored"))
		v->raid_type = br_hw_strdup("RAID1");
	v->health = rf_dup(doc, "Status/Health");
	json_array_foreach(json_is_array(ids) ? ids : NULL, i, x)
	{
		char *name = rf_dup_trimmed(x, "DurableName");

		if (name && *name) {
			v->durable_name = name;
			v->durable_name_format = rf_dup(x, "DurableNameFormat");
			break;
		}
		free(name);
	}
	json_array_foreach(json_is_array(links) ? links : NULL, i, x) if (link_tail(x))
	    br_volume_add_drive(v, link_tail(x));
	v->capacity_bytes = cap > 0 ? (uint64_t)cap : 0;
}

/* 1 when key ends in suffix, case ignored. */
static int ends_nocase(const char *key, const char *suffix)
{
	size_t n = strlen(key), m = strlen(suffix);

	return n >= m && !strcasecmp(key + n - m, suffix);
}

/* A host NIC's MAC from a BIOS attribute: a Lenovo XCC shows an add-in
 * NIC the BMC does not manage only as attributes named after its ports
 * ("NvidiaNetworkAdapter_08C0EB53C9F1__Slot3_MACAddress" = the port's
 * MAC). The name alone says "a MAC", not whose: a multicast or locally
 * administered value (a virtual or operator-set address) and the BMC's
 * own are not taken as a host port. Returns 1 when one was considered. */
static int bios_mac(struct br_hw *hw, const char *key, json_t *v)
{
	const char *value = json_string_value(v);
	unsigned first;
	char norm[18], *name;
	size_t len;

	if (!value || !ends_nocase(key, "MACAddress") || br_mac_normalize(value, norm) ||
	    !strcmp(norm, "00:00:00:00:00:00"))
		return 0;
	first = (unsigned)strtoul(norm, NULL, 16);
	if (first & 0x03)
		return 0;
	if (hw->bmc_mac && !strcmp(hw->bmc_mac, norm))
		return 0;
	/* The port's name is the attribute's, less "_MACAddress". */
	len = strlen(key) - strlen("MACAddress");
	while (len > 0 && key[len - 1] == '_')
		len--;
	name = br_xstrndup(key, len ? len : strlen(key));
	rf_add_mac_role(hw, norm, name, "Bios", 0, NULL, BR_NIC_ROLE_HOST);
	free(name);
	return 1;
}

void rf_parse_bios(struct br_hw *hw, json_t *doc)
{
	json_t *attrs = br_json_path(doc, "Attributes"), *v;
	const char *key;
	int macs = 0;

	if (!json_is_object(attrs))
		return;
	json_object_foreach(attrs, key, v)
	{
		struct br_kv *kv = br_hw_add_bios(hw);

		if (macs < RF_BIOS_MACS_MAX)
			macs += bios_mac(hw, key, v);

		kv->key = br_hw_strdup(key);
		if (json_is_string(v)) {
			kv->value = br_hw_strdup(json_string_value(v));
		} else {
			char *text = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);

			kv->value = br_hw_strdup(text);
			free(text);
		}
	}
}

static struct br_sensor *add_sensor(struct br_hw *hw, enum br_sensor_kind kind, json_t *doc,
				    const char *name_path)
{
	struct br_sensor *s = br_hw_add_sensor(hw);

	s->kind = kind;
	s->name = rf_dup(doc, name_path);
	if (!s->name)
		s->name = rf_dup(doc, "Name");
	s->health = rf_dup(doc, "Status/Health");
	s->state = rf_dup(doc, "Status/State");
	s->upper_critical = br_json_num(doc, "UpperThresholdCritical", NAN);
	s->lower_critical = br_json_num(doc, "LowerThresholdCritical", NAN);
	return s;
}

/* Thermal.Temperatures[] and Power.Voltages[]: one reading member each. */
static void add_readings(struct br_hw *hw, json_t *arr, enum br_sensor_kind kind, const char *reading,
			 const char *units)
{
	json_t *v;
	size_t i;

	if (json_is_array(arr))
		json_array_foreach(arr, i, v)
		{
			struct br_sensor *s;

			if (!json_is_object(v))
				continue;
			s = add_sensor(hw, kind, v, "Name");
			s->reading = br_json_num(v, reading, NAN);
			s->units = br_hw_strdup(units);
		}
}

void rf_parse_thermal(struct br_hw *hw, json_t *doc)
{
	json_t *fans = br_json_path(doc, "Fans"), *temps = br_json_path(doc, "Temperatures"), *v;
	size_t i;

	if (json_is_array(fans))
		json_array_foreach(fans, i, v)
		{
			struct br_sensor *s;

			if (!json_is_object(v))
				continue;
			s = add_sensor(hw, BR_SENSOR_FAN, v, "Name");
			if (!s->name)
				s->name = rf_dup(v, "FanName");
			s->reading = br_json_num(v, "Reading", NAN);
			s->units = rf_dup(v, "ReadingUnits");
			if (isnan(s->reading) && br_json_path(v, "ReadingRPM")) {
				s->reading = br_json_num(v, "ReadingRPM", NAN);
				free(s->units);
				s->units = br_hw_strdup("RPM");
			}
		}
	add_readings(hw, temps, BR_SENSOR_TEMP, "ReadingCelsius", "Cel");
}

void rf_parse_fan(struct br_hw *hw, json_t *doc)
{
	struct br_sensor *s = add_sensor(hw, BR_SENSOR_FAN, doc, "Name");

	if (br_json_path(doc, "SpeedPercent/SpeedRPM")) {
		s->reading = br_json_num(doc, "SpeedPercent/SpeedRPM", NAN);
		s->units = br_hw_strdup("RPM");
	} else {
		s->reading = br_json_num(doc, "SpeedPercent/Reading", NAN);
		s->units = br_hw_strdup("Percent");
	}
}

static void add_psu(struct br_hw *hw, json_t *doc)
{
	struct br_sensor *s = add_sensor(hw, BR_SENSOR_PSU, doc, "Name");

	s->serial = rf_dup(doc, "SerialNumber");
	s->reading = br_json_num(doc, "PowerCapacityWatts", NAN);
	s->units = br_hw_strdup("W");
}

/* The supplies' redundancy groups (DMTF Redundancy schema: Power's
 * Redundancy[], PowerSubsystem's PowerSupplyRedundancy[]): one sensor
 * each, never a supply; its Status says whether redundancy holds. */
static void add_redundancy(struct br_hw *hw, json_t *groups)
{
	json_t *v;
	size_t i;

	json_array_foreach(groups, i, v)
	{
		struct br_sensor *s;

		if (!json_is_object(v))
			continue;
		s = add_sensor(hw, BR_SENSOR_PSU_REDUNDANCY, v, "Name");
		if (!s->name)
			s->name = br_hw_strdup("power supply redundancy");
	}
}

void rf_parse_power(struct br_hw *hw, json_t *doc)
{
	json_t *psus = br_json_path(doc, "PowerSupplies"), *volts = br_json_path(doc, "Voltages");
	json_t *v;
	size_t i;

	if (json_is_array(psus))
		json_array_foreach(psus, i, v) if (json_is_object(v)) add_psu(hw, v);
	add_readings(hw, volts, BR_SENSOR_VOLTAGE, "ReadingVolts", "V");
	add_redundancy(hw, br_json_path(doc, "Redundancy"));
}

void rf_parse_power_subsystem(struct br_hw *hw, json_t *doc)
{
	add_redundancy(hw, br_json_path(doc, "PowerSupplyRedundancy"));
}

void rf_parse_power_supply(struct br_hw *hw, json_t *doc)
{
	add_psu(hw, doc);
}

int rf_log_service_is_sel(json_t *doc)
{
	const char *id = br_json_str(doc, "Id"), *type = br_json_str(doc, "LogEntryType");

	return (id && !strcasecmp(id, "Sel")) || (type && !strcmp(type, "SEL"));
}

void rf_parse_sel_entry(struct br_hw *hw, json_t *doc)
{
	const char *id = br_json_str(doc, "Id"), *created = br_json_str(doc, "Created");
	struct br_sel_entry *e;

	/* newer iDRACs show the same SEL under the Manager and the System */
	for (size_t i = 0; id && i < hw->n_sel; i++)
		if (hw->sel[i].id && !strcmp(hw->sel[i].id, id) &&
		    !strcmp(hw->sel[i].created ? hw->sel[i].created : "", created ? created : ""))
			return;
	e = br_hw_add_sel(hw);
	e->id = br_hw_strdup(id);
	e->created = br_hw_strdup(created);
	e->severity = rf_dup(doc, "Severity");
	e->message = rf_dup(doc, "Message");
	e->message_id = rf_dup(doc, "MessageId");
}

void rf_parse_firmware(struct br_hw *hw, json_t *doc)
{
	struct br_firmware *f = br_hw_add_firmware(hw);

	f->id = rf_dup(doc, "Id");
	f->name = rf_dup(doc, "Name");
	f->version = rf_dup(doc, "Version");
	f->updateable = json_is_true(br_json_path(doc, "Updateable"));
}
