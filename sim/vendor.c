/*
 * BMC families over the iDRAC renderer. A request for a family's path is
 * mapped onto iDRAC's (System.Embedded.1 -> the family's System id, and so
 * on), answered by idrac.c (so sessions, faults, ETags and jobs behave as
 * they do for Dell), and the answer is reshaped: links mapped back, the
 * family's ids, MAC and serial formats, and the resources it shows or
 * hides. What each family does, and where that is documented:
 *  - HPE iLO 5 (HPE iLO 5 RESTful API reference): System, Chassis and
 *    Manager id "1"; every @odata.id ends in '/', and links may differ in
 *    case (iLO matches paths case-insensitively); host MACs only in
 *    Oem.Hpe BaseNetworkAdapters, EthernetInterfaces empty until the
 *    host runs HPE's agent, NetworkDeviceFunctions without MACs; PCIe
 *    link width and speed per device only in Oem.Hpe.Links.PCIDevices
 *    (HpeServerPciDevice, matched to the PCIeDevice by its slot label).
 *  - Lenovo XCC (Lenovo XClarity Controller Redfish REST API guide): ids
 *    "1"; the System's EthernetInterfaces hold "ToManager", the host end
 *    of LAN-over-USB; BootOptions with UEFI device paths; serials padded
 *    with spaces to the field's width (as the SMBIOS strings are).
 *  - Supermicro (Supermicro Redfish Reference Guide): ids "1"; the Host
 *    Interface's USB NIC among the System's EthernetInterfaces, "ToManager",
 *    and the BMC's end of it among the Manager's, "ToHost", both linking
 *    the Manager's HostInterfaces/1 (an X13's capture,
 *    tests/fixtures/redfish/supermicro/libredfish/eth_tomanager.json and
 *    manager_eth_tohost.json); MACs
 *    written with dashes; drives also linked from the Chassis; PCIe link
 *    width and type on the Chassis' PCIeSlots (Slots[].Lanes, PCIeType,
 *    Links.PCIeDevice; DMTF PCIeSlots schema), not on the PCIeDevice.
 *  - OpenBMC / NVIDIA Grace (bmcweb; NVIDIA GB200/GH200 and HGX BMC
 *    Redfish docs): System "System_0" beside "HGX_Baseboard_0", Manager
 *    "bmc"; NetworkAdapters empty; host MACs only in BootOptions; the
 *    System's EthernetInterfaces only the USB LAN to the BMC.
 *  - AMI MegaRAC (AMI's Redfish server as on NVIDIA DGX): ids "Self";
 *    collections page with every remaining member on each page and a
 *    Members@odata.nextLink; drives under the Chassis only, listed twice;
 *    MACs in mixed case; the USB LAN, its BMC end "usb0" among the
 *    Manager's interfaces (a DGX H100's capture,
 *    tests/fixtures/redfish/ami/libredfish/manager_eth_usb0.json); the
 *    BMC's virtual CD-ROMs among the host's drives (same capture,
 *    drive_usb_{2,4}.json). Under the bad_types fault, an
 *    {"error": …} body where NetworkAdapters should be. (Firmware that
 *    also leaves out Members@odata.count, or answers the error body
 *    always, fails DMTF's schemas; the personality passes them.)
 * Second Chassis: what each family's capture lists beside its own
 * (libredfish tests/mockups/{lenovo,supermicro,nvidia_viking}/redfish/v1/
 * Chassis/index.json: Lenovo "3", the X13's NVMe backplane, the DGX's
 * CPUBaseboard; the BlueField BMC's "Bluefield_BMC",
 * tests/fixtures/redfish/openbmc/libredfish/ndf_oob0f0.json; iLO 5 only
 * "1"), not iDRAC's Enclosure.Internal.0-1.
 * Error bodies: the DMTF Base registry's messages, not iDRAC's IDRAC.2.x
 * ones (the captures' errors: tests/fixtures/redfish/error_*.json).
 * Dell nodes without no_host_mac go straight to idrac.c: none of this
 * costs the iDRAC rack anything.
 */
#include <stdlib.h>
#include <string.h>

#include "vendor.h"

static const struct sim_vendor_info infos[SIM_V_COUNT] = {
	[SIM_V_DELL] = { .name = "dell",
			 .enclosure_id = SIM_ENCLOSURE,
			 .system_id = "System.Embedded.1",
			 .chassis_id = "System.Embedded.1",
			 .manager_id = "iDRAC.Embedded.1",
			 .manufacturer = "Dell Inc.",
			 .model = "PowerEdge XE9680",
			 .root_vendor = "Dell",
			 .oem_key = "Dell",
			 .mac_style = SIM_MAC_UPPER,
			 .host_eth = 1,
			 .ndf_macs = 1,
			 .adapters = 1,
			 .system_storage = 1 },
	[SIM_V_HPE] = { .name = "hpe",
			.system_id = "1",
			.chassis_id = "1",
			.manager_id = "1",
			.manufacturer = "HPE",
			.model = "ProLiant XL675d Gen10 Plus",
			.root_vendor = "HPE",
			.oem_key = "Hpe",
			.mac_style = SIM_MAC_LOWER,
			.trailing_slash = 1,
			.adapters = 1,
			.pcie_oem = 1,
			.system_storage = 1 },
	[SIM_V_LENOVO] = { .name = "lenovo",
			   .system_id = "1",
			   .chassis_id = "1",
			   .manager_id = "1",
			   .manufacturer = "Lenovo",
			   .model = "ThinkSystem SR675 V3",
			   .root_vendor = "Lenovo",
			   .oem_key = "Lenovo",
			   .usb_id = "ToManager",
			   .usb_name = "ToManager",
			   .usb_description = "Interface to the XClarity Controller (LAN over USB)",
			   .enclosure_id = "3",
			   .mac_style = SIM_MAC_LOWER,
			   .serial_pad = 1,
			   .host_eth = 1,
			   .ndf_macs = 1,
			   .adapters = 1,
			   .boot_options = 1,
			   .system_storage = 1 },
	[SIM_V_SUPERMICRO] = { .name = "supermicro",
			       .system_id = "1",
			       .chassis_id = "1",
			       .manager_id = "1",
			       .manufacturer = "Supermicro",
			       .model = "SYS-821GE-TNHR",
			       .root_vendor = "Supermicro",
			       .oem_key = "Supermicro",
			       .usb_id = "ToManager",
			       .usb_name = "Manager Ethernet Interface",
			       .usb_description = "Host Network Interface",
			       .mgr_usb_id = "ToHost",
			       .enclosure_id = "NVMeSSD.0.Group.0.StorageBackplane",
			       .host_iface = 1,
			       .mac_style = SIM_MAC_DASH,
			       .host_eth = 1,
			       .ndf_macs = 1,
			       .adapters = 1,
			       .chassis_drives = 1,
			       .system_storage = 1,
			       .pcie_slots = 1 },
	[SIM_V_OPENBMC] = { .name = "openbmc",
			    .system_id = "System_0",
			    .chassis_id = "Chassis_0",
			    .manager_id = "bmc",
			    .manufacturer = "NVIDIA",
			    .model = "P3880 Grace Hopper",
			    .root_vendor = "OpenBMC",
			    .oem_key = "OpenBMC",
			    .usb_id = "usb0",
			    .usb_name = "USB Ethernet",
			    .usb_description = "Host side of the USB LAN to the BMC",
			    .enclosure_id = "Bluefield_BMC",
			    .mac_style = SIM_MAC_LOWER,
			    .boot_options = 1,
			    .system_storage = 1,
			    .hgx = 1 },
	[SIM_V_AMI] = { .name = "ami",
			.system_id = "Self",
			.chassis_id = "Self",
			.manager_id = "Self",
			.manufacturer = "NVIDIA",
			.model = "DGXH100",
			.root_vendor = "AMI",
			.oem_key = "Ami",
			.usb_id = "usb0",
			.usb_name = "Host Interface",
			.usb_description = "USB LAN over the Redfish Host Interface",
			.mgr_usb_id = "usb0",
			.enclosure_id = "CPUBaseboard",
			.virtual_media = 1,
			.mac_style = SIM_MAC_MIXED,
			.serial_pad = 1,
			.host_eth = 1,
			.ndf_macs = 1,
			.adapters = 1,
			.chassis_drives = 1,
			.repeat_pages = 1,
			.psu_no_status = 1 },
};

/* What each family's machine fits: the configuration its model is sold in
 * for an 8-way (or the family's own) GPU node, and where each number comes
 * from. "Not found" marks a number no public source reachable here gave;
 * it is then the smallest real configuration of the machine, so a profile
 * that states it never asks for more than the machine has. Ethernet is the
 * provisioning pair every family PXE-boots from (NIC.Embedded.1 is the PXE
 * device in the boot order); where a machine has more, only two are cabled
 * to the top-of-rack pair the wiring list names.
 *  - Dell PowerEdge XE9680: the simulator's first machine, as it always was
 *    (templates/profiles/xe9680/hardware.conf); cpuinfo_max_freq 3.8 GHz
 *    (Xeon Platinum 8480+ max turbo), Redfish MaxSpeedMHz 4000.
 *  - HPE ProLiant XL675d Gen10 Plus (HPE QuickSpecs "HPE Apollo 6500 Gen10
 *    Plus System", XL675d: 2x AMD EPYC 7003, HGX A100 8-GPU): 8 A100 SXM4,
 *    whose host link is PCIe 4.0 x16 (TechPowerUp's GPU database, "A100
 *    SXM4 80 GB ... PCIe 4.0 x16"); EPYC 7003 has no Gen5, so the fabric
 *    NICs (ConnectX-6 HDR, one per GPU) train Gen4 x16 too. CPU: EPYC 7763
 *    (named in HPE's XL675d QuickSpecs options), max boost 3.5 GHz (AMD's
 *    product page). Data drives 8 NVMe SFF (not found in a source
 *    reachable here; the QuickSpecs is the document to check), PSUs 4 and
 *    fans 15, as two real XL675d's iLO 5 list them (Mockup-Creator
 *    captures, tests/fixtures/redfish/hpe/cray_rie: 4 supplies of 6 bays,
 *    "Fan 1" to "Fan 15").
 *  - Lenovo ThinkSystem SR675 V3 (Lenovo Press product guide LP1611): the
 *    SXM configuration, HGX H100 4-GPU (H100 SXM5: PCIe Gen5 x16, as
 *    MLCommons' H100/H200 SXM system descriptions give it), one ConnectX-7
 *    NDR per GPU: 4 and 4. CPU: 2x EPYC 9004, 9554's max boost 3.75 GHz
 *    (AMD). Drives 4 (E1.S), PSUs 4, fans 5: not found in a source
 *    reachable here (LP1611 is the document to check).
 *  - Supermicro SYS-821GE-TNHR (Supermicro's product page; a teardown,
 *    mynw.cn/news/484475: HGX H200 8-GPU, 16 U.2 NVMe bays and 3 SATA,
 *    5 hot-swap fans in the front centre): 8 GPUs Gen5 x16, 8 fabric
 *    NICs (one per GPU, 1:1 as the HGX reference), CPU 2x Xeon Platinum
 *    8480+ (max turbo 3.8 GHz, Intel ARK). Drives: 8 of the 16 bays
 *    fitted (the common order; all 16 would exceed what the simulator
 *    models). PSUs 8 and fans 6, as a real SYS-821GE-TNHR's X13 BMC
 *    reports them (the Mockup-Creator capture in
 *    tests/fixtures/redfish/supermicro/libredfish/, power.json and
 *    thermal.json): 8 supply bays, six PWS-3K06G-2R of 3000 W and two
 *    PWS-DF009-2F; 6 Fans members, FAN9, FAN10 and four that each stand
 *    for a group (front 1-5, rear 1-5, the supplies' fans 1-4 and 5-8).
 *  - NVIDIA P3880 Grace Hopper (GH200, the MGX reference board): one GH200
 *    superchip, so 1 GPU (the Hopper GPU behind NVLink-C2C; the simulator
 *    presents it at PCIe Gen5 x16 as nvidia-smi does) and 1 ConnectX-7
 *    fabric NIC; Grace's clock 3.1 GHz base / 3.44 GHz boost (MLCommons
 *    GB200 NVL72 system description, same Grace CPU). Drives 4 (E1.S),
 *    PSUs 2, fans 8: not found in a source reachable here.
 *  - NVIDIA DGX H100 (DGX H100 User Guide, DU-10264-001; NVIDIA's DGX
 *    H100/H200 datasheet): 8 H100 SXM5 (Gen5 x16), 8 single-port
 *    ConnectX-7 behind the 4 OSFP cages (the datasheet's "10x 400 Gb/s"
 *    less the 2 storage NICs), 2x Xeon Platinum 8480C (3.80 GHz max
 *    boost), OS on 2x 1.92 TB M.2, 8x 3.84 TB U.2 data drives, 6 PSUs
 *    (3.3 kW, 4+2). As retrieved: the user guide's network-module table
 *    (easymanua.ls/nvidia/dgx-h100/manual?p=19) maps 8 OSFP ports to the
 *    8 GPUs; unanswered.io/guide/nvidia-dgx-power-consumption-watts
 *    restates the guide's 6x 3300 W, 4+2 (a supercluster.blog post's
 *    "4x 3000 W" disagrees; the guide is kept); supercluster.blog/p/5-ai-
 *    supercluster-nvidia-dgx-h100 gives the 8x 3.84 TB drives. Fans 36,
 *    as a real DGX H100's BMC lists them in Thermal (the capture in
 *    tests/fixtures/redfish/ami/libredfish/thermal.json): a front and a
 *    rear rotor of each of 12 system fans and of each supply's fan. Its
 *    supplies there carry no Status, nor do the simulator's: their health
 *    is in the BMC's SDR, which the probe reads in-band on the node. */
static const struct sim_shape shapes[SIM_V_COUNT] = {
	[SIM_V_DELL] = { 8, 8, 2, 8, 6, 12, 5, 4000, 3800000 },
	[SIM_V_HPE] = { 8, 8, 2, 8, 4, 15, 4, 3500, 3500000 },
	[SIM_V_LENOVO] = { 4, 4, 2, 4, 4, 5, 5, 3750, 3750000 },
	[SIM_V_SUPERMICRO] = { 8, 8, 2, 8, 8, 6, 5, 3800, 3800000 },
	[SIM_V_OPENBMC] = { 1, 1, 2, 4, 2, 8, 5, 3440, 3440000 },
	/* The DGX H100's compute fabric is InfiniBand NDR: its 8 ConnectX-7
	 * ports on the SuperPOD's rail leaves (DGX H100 User Guide). */
	[SIM_V_AMI] = { 8, 8, 2, 8, 6, 36, 5, 3800, 3800000, 1 },
};
_Static_assert(SIM_GPUS == 8 && SIM_FABRIC_NICS == 8 && SIM_ETH_NICS == 2 && SIM_DATA_DRIVES == 8 &&
		   SIM_PSUS == 8 && SIM_FANS == 36,
	       "a shape's counts must fit the arrays");

/* The profile each family's machine is (templates/profiles/NAME). */
static const char *const profiles[SIM_V_COUNT] = {
	[SIM_V_DELL] = "xe9680",	  [SIM_V_HPE] = "xl675d",    [SIM_V_LENOVO] = "sr675v3",
	[SIM_V_SUPERMICRO] = "sys-821ge", [SIM_V_OPENBMC] = "gh200", [SIM_V_AMI] = "dgx-h100",
};

const struct sim_shape *sim_node_shape(const struct sim_node *n)
{
	return &shapes[(unsigned)n->vendor < SIM_V_COUNT ? n->vendor : SIM_V_DELL];
}

int sim_node_temps(const struct sim_node *n)
{
	return SIM_TEMPS - SIM_GPUS + sim_node_shape(n)->gpus;
}

const char *sim_vendor_profile(enum sim_vendor v)
{
	return profiles[(unsigned)v < SIM_V_COUNT ? v : SIM_V_DELL];
}

/* Parts past the family's counts are not fitted, so absent everywhere. */
static void fit(struct sim_node *n)
{
	const struct sim_shape *sh = sim_node_shape(n);

	for (int g = 0; g < SIM_GPUS; g++)
		n->gpus[g].present = n->gpus[g].fitted = g < sh->gpus;
	for (int k = 0; k < SIM_NICS; k++)
		n->nics[k].present = n->nics[k].fitted =
		    k < SIM_FABRIC_NICS ? k < sh->fabric_nics : k - SIM_FABRIC_NICS < sh->eth_nics;
	for (int d = 0; d < SIM_DATA_DRIVES; d++)
		n->drives[d].present = n->drives[d].fitted = d < sh->data_drives;
	for (int p = 0; p < SIM_PSUS; p++)
		n->psus[p].fitted = p < sh->psus;
	/* An InfiniBand port's net interface is IPoIB's (systemd names it ib
	 * plus the PCI path), and a leaf's ports are numbers. */
	for (int k = 0; sh->infiniband && k < SIM_FABRIC_NICS; k++) {
		snprintf(n->nics[k].ifname, sizeof(n->nics[k].ifname), "ibp%ds0", n->nics[k].bus);
		snprintf(n->nics[k].sw_port, sizeof(n->nics[k].sw_port), "%d", n->index % 32 + 1);
	}
}

int sim_node_infiniband(const struct sim_node *n)
{
	return sim_node_shape(n)->infiniband;
}

int sim_rack_infiniband(const struct sim_rack *rack)
{
	for (size_t i = 0; i < rack->n; i++)
		if (sim_node_infiniband(&rack->nodes[i]))
			return 1;
	return 0;
}

int sim_node_rdma_index(const struct sim_node *n, int k)
{
	int index = 0;

	for (int i = 0; i < k && i < SIM_FABRIC_NICS; i++)
		index += n->nics[i].present;
	return index;
}

const struct sim_vendor_info *sim_vendor_info(enum sim_vendor v)
{
	return &infos[(unsigned)v < SIM_V_COUNT ? v : SIM_V_DELL];
}

enum sim_vendor sim_vendor_of(const struct sim_vendor_info *vi)
{
	return (enum sim_vendor)(vi - infos);
}

const char *sim_vendor_name(enum sim_vendor v)
{
	return v == SIM_V_MIXED ? "mixed" : sim_vendor_info(v)->name;
}

int sim_vendor_parse(const char *name, enum sim_vendor *ret_vendor)
{
	for (int v = 0; v <= SIM_V_MIXED; v++)
		if (!strcmp(name, sim_vendor_name((enum sim_vendor)v))) {
			*ret_vendor = (enum sim_vendor)v;
			return 0;
		}
	return BR_E_INVAL;
}

void sim_vendor_assign(struct sim_rack *rack, enum sim_vendor vendor)
{
	for (size_t i = 0; i < rack->n; i++) {
		struct sim_node *n = &rack->nodes[i];

		n->vendor = vendor == SIM_V_MIXED ? (enum sim_vendor)(i % SIM_V_COUNT) : vendor;
		fit(n);
		n->usb_mac[0] = '\0';
		/* The BMC picks the USB link's host MAC: locally administered
		 * (0x02 bit of the first octet), here derived from its own. */
		if (infos[n->vendor].usb_id)
			snprintf(n->usb_mac, sizeof(n->usb_mac), "0a%.15s", n->bmc_mac + 2);
		/* A family's BIOS has its own attributes, at factory defaults
		 * (vendor_bios.c), not iDRAC's. */
		if (n->vendor != SIM_V_DELL) {
			json_decref(n->st.bios);
			n->st.bios = sim_vbios_defaults(n);
		}
	}
}

int sim_vendor_host_macs(const struct sim_node *n)
{
	return !(sim_fault_has(&n->faults, SIM_F_NO_HOST_MAC));
}

void sim_vendor_mac(const struct sim_vendor_info *vi, const char *mac, char out[18])
{
	for (int i = 0; i < 17; i++) {
		char ch = mac[i];
		int upper = vi->mac_style == SIM_MAC_UPPER || vi->mac_style == SIM_MAC_DASH ||
			    (vi->mac_style == SIM_MAC_MIXED && (i / 3) % 2);

		if (ch >= 'A' && ch <= 'F')
			ch = (char)(ch - 'A' + 'a');
		if (upper && ch >= 'a' && ch <= 'f')
			ch = (char)(ch - 'a' + 'A');
		if (ch == ':' && vi->mac_style == SIM_MAC_DASH)
			ch = '-';
		out[i] = ch;
	}
	out[17] = '\0';
}

/* ---- error bodies ---------------------------------------------------------------- */

/* iDRAC's own message ids (idrac.c writes them beside the Base ones) as the
 * DMTF Base registry (Base.1.12.0) words them: the families other than
 * Dell answer with Base messages only. NULL: the Base sibling says it. */
static json_t *base_message(const char *id)
{
	if (strstr(id, "SYS518"))
		return json_pack("{s:s, s:[s], s:s, s:s, s:s}", "MessageId",
				 SIM_BASE "ServiceTemporarilyUnavailable", "MessageArgs", "1", "Message",
				 "The service is temporarily unavailable.  Retry in 1 seconds.", "Severity",
				 "Critical", "Resolution",
				 "Wait for the indicated retry duration and retry the operation.");
	if (strstr(id, "RAC0218"))
		return sim_msg(
		    SIM_BASE "SessionLimitExceeded", "Critical",
		    "The session establishment failed due to the number of simultaneous sessions "
		    "exceeding the limit of the implementation.",
		    "Reduce the number of other sessions before trying to establish the session or "
		    "increase the limit of simultaneous sessions (if supported).");
	if (strstr(id, "PSU501") || strstr(id, "SYS030"))
		return sim_msg(SIM_BASE "NoOperation", "Warning",
			       "The request body submitted contain no data to act upon and no changes to the "
			       "resource took place.",
			       "Add properties in the JSON object and resubmit the request.");
	return NULL; /* SYS403, SYS415: ResourceNotFound, InsufficientPrivilege beside them */
}

static void base_errors(struct sim_response *resp)
{
	json_t *doc, *info, *m, *out;
	size_t i;
	char *text;

	if (resp->status < 400 || !resp->body || !strstr(resp->body, "\"" SIM_MSG) ||
	    !(doc = json_loadb(resp->body, resp->body_len, 0, NULL)))
		return;
	info = br_json_path(doc, "error/@Message.ExtendedInfo");
	out = json_array();
	json_array_foreach(info, i, m)
	{
		const char *id = br_json_str(m, "MessageId");

		if (!id || strncmp(id, SIM_MSG, strlen(SIM_MSG)))
			json_array_append(out, m);
		else if ((m = base_message(id)))
			json_array_append_new(out, m);
	}
	json_object_set_new(json_object_get(doc, "error"), "@Message.ExtendedInfo", out);
	text = json_dumps(doc, JSON_COMPACT);
	json_decref(doc);
	free(resp->body);
	resp->body = text;
	resp->body_len = strlen(text);
}

/* ---- the handler ------------------------------------------------------------------ */

/* Resources only the family has (at iDRAC paths); NULL: not one of them. */
static json_t *render_own(struct sim_vreq *v, int *ret_mine)
{
	const struct sim_vendor_info *vi = v->vi;
	struct sim_ctx *c = &v->c;
	const char *last = strrchr(v->dpath, '/') + 1;

	*ret_mine = 1;
	if (vi->usb_id && sim_vreq_under(v, SIM_R_SYS "/EthernetInterfaces") && !strcmp(last, vi->usb_id))
		return sim_v_usb_eth(c, vi);
	if (vi->mgr_usb_id && sim_vreq_under(v, SIM_R_MGR "/EthernetInterfaces") &&
	    !strcmp(last, vi->mgr_usb_id))
		return sim_v_mgr_usb_eth(c, vi);
	if (vi->host_iface && sim_vreq_is(v, SIM_R_MGR "/HostInterfaces"))
		return sim_v_host_ifaces(c);
	if (vi->host_iface && sim_vreq_under(v, SIM_R_MGR "/HostInterfaces"))
		return sim_v_host_iface(c, vi, last);
	if (vi->virtual_media && sim_vreq_under(v, SIM_R_CHASSIS "/Drives") && sim_v_is_vmedia(last))
		return sim_v_vmedia_drive(c, last);
	if (vi->boot_options && sim_vreq_is(v, SIM_R_SYS "/BootOptions"))
		return sim_v_boot_options(c);
	if (vi->boot_options && sim_vreq_under(v, SIM_R_SYS "/BootOptions"))
		return sim_v_boot_option(c, last);
	if (!strcmp(vi->oem_key, "Hpe") && sim_vreq_is(v, SIM_R_SYS "/BaseNetworkAdapters"))
		return sim_v_hpe_adapters(c);
	if (!strcmp(vi->oem_key, "Hpe") && sim_vreq_under(v, SIM_R_SYS "/BaseNetworkAdapters"))
		return sim_v_hpe_adapter(c, last);
	if (vi->pcie_oem && sim_vreq_is(v, SIM_R_SYS "/PCIDevices"))
		return sim_v_hpe_pci_devices(c);
	if (vi->pcie_oem && sim_vreq_under(v, SIM_R_SYS "/PCIDevices"))
		return sim_v_hpe_pci_device(c, last);
	if (vi->pcie_slots && sim_vreq_is(v, SIM_R_CHASSIS "/PCIeSlots"))
		return sim_v_pcie_slots(c);
	if (vi->hgx && sim_vreq_is(v, SIM_HGX_SYSTEM))
		return sim_v_hgx_system(c);
	if (vi->hgx && sim_vreq_is(v, SIM_HGX_SYSTEM "/Processors"))
		return sim_v_hgx_procs(c);
	if (vi->hgx && sim_vreq_under(v, SIM_HGX_SYSTEM "/Processors"))
		return sim_v_hgx_proc(c, last);
	if (vi->chassis_drives && sim_vreq_is(v, SIM_R_CHASSIS "/Drives"))
		return sim_v_chassis_drives(c, vi);
	if (c->node->vendor != SIM_V_DELL &&
	    (sim_vreq_is(v, SIM_R_MGR "/Jobs") || sim_vreq_under(v, SIM_R_MGR "/Jobs")))
		return NULL; /* Dell's job queue (vendor_bios.c) */
	/* Hidden: host NICs where the family does not list them, Storage where
	 * drives hang off the Chassis only. */
	if (sim_vreq_under(v, SIM_R_SYS "/EthernetInterfaces") &&
	    (!vi->host_eth || !sim_vendor_host_macs(c->node)))
		return NULL;
	if (!vi->system_storage && !strncmp(v->dpath, SIM_R_SYS "/Storage", strlen(SIM_R_SYS "/Storage")))
		return NULL;
	*ret_mine = 0;
	return NULL;
}

static void handle_vendor(struct sim_bmc *bmc, const struct sim_request *req, struct sim_response *resp)
{
	struct sim_vreq v = {
		.c = { .node = bmc->node, .cfg = bmc->cfg, .req = req, .resp = resp, .account = -1 }
	};
	char *dpath, *drive = NULL;
	json_t *doc;
	int mine;

	v.vi = sim_vendor_info(bmc->node->vendor);
	dpath = sim_vendor_path_in(v.vi, req->path);
	v.dpath = dpath;
	resp->auth = "none";
	/* Supermicro answers the version document's path with 404: a client
	 * must know /redfish/v1/ (DSP0266 fixes it) rather than discover it. */
	if (!strcmp(dpath, "/redfish") && bmc->node->vendor == SIM_V_SUPERMICRO) {
		sim_reply_not_found(&v.c);
		goto out;
	}
	/* A family whose service root advertises no ExpandQuery (the AMI
	 * firmware this personality copies) refuses it: DSP0266 clause 7.3,
	 * an unsupported query parameter starting with $ is 501. */
	if (v.vi->repeat_pages && sim_request_query(req, "$expand")) {
		sim_reply_error(
		    &v.c, 501,
		    sim_msg(SIM_BASE "QueryNotSupported", "Warning",
			    "Querying is not supported by the implementation.",
			    "Remove the query parameters and resubmit the request if the operation "
			    "failed."),
		    NULL);
		goto out;
	}
	if (v.vi->chassis_drives && sim_vreq_under(&v, SIM_R_CHASSIS "/Drives"))
		drive = sim_v_drive_path(bmc->node, strrchr(dpath, '/') + 1);
	if (!drive && strcmp(dpath, "/redfish") && strcmp(dpath, SIM_R_ROOT) &&
	    strncmp(dpath, SIM_R_SESSIONS, strlen(SIM_R_SESSIONS))) {
		doc = render_own(&v, &mine);
		v.own = mine;
		if (mine) {
			if (!sim_session_check(&v.c)) {
				if (doc && !strcmp(req->method, "GET")) {
					sim_reply(&v.c, 200, sim_vendor_finish(&v, doc));
					doc = NULL;
				} else {
					sim_reply_not_found(&v.c);
				}
			}
			json_decref(doc);
			goto out;
		}
	}
	{
		/* The query travels too: idrac.c reads it from the connection
		 * anyway ($expand, $skip), and its answer cache keys on the URI. */
		struct sim_request inner = *req;
		char *uri = br_xasprintf("%s%s", drive ? drive : dpath,
					 strchr(req->uri, '?') ? strchr(req->uri, '?') : "");

		inner.path = drive ? drive : dpath;
		inner.uri = uri;
		sim_idrac_handle(bmc, &inner, resp);
		free(uri);
	}
	if (resp->status == 200 && resp->body && !resp->synthetic_len && resp->action == SIM_ACT_RESPOND &&
	    (doc = json_loadb(resp->body, resp->body_len, 0, NULL))) {
		char *text;

		doc = sim_vendor_finish(&v, doc);
		text = json_dumps(doc, JSON_COMPACT);
		json_decref(doc);
		free(resp->body);
		resp->body = text;
		resp->body_len = strlen(text);
	}
out:
	if (bmc->node->vendor != SIM_V_DELL)
		base_errors(resp);
	free(drive);
	free(dpath);
}

void sim_vendor_handle(void *ctx, const struct sim_request *req, struct sim_response *resp)
{
	struct sim_bmc *bmc = ctx;

	if (bmc->node->vendor == SIM_V_DELL && sim_vendor_host_macs(bmc->node))
		sim_idrac_handle(ctx, req, resp);
	else
		handle_vendor(bmc, req, resp);
}
