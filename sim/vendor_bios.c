/*
 * BIOS settings and resets the way each non-Dell family takes them: no
 * config job; the attributes are PATCHed into the Bios resource's
 * @Redfish.Settings SettingsObject, wait there, and the BIOS applies them
 * at the next boot (DMTF DSP0266, "Settings resource": the settings object
 * holds the future state, applied at the time @Redfish.SettingsApplyTime
 * or the service's default says, for BIOS the next reset). Where each
 * family keeps its settings object, which ResetTypes its System lists and
 * what its BIOS attributes are called:
 *  - HPE iLO 5 (HPE iLO 5 RESTful API reference, "BIOS" and
 *    "ComputerSystem.Reset"): /Bios/Settings (iLO writes it
 *    .../bios/settings/); SupportedApplyTimes advertised (OnReset);
 *    answers 200 with iLO.2.x.SystemResetRequired; ResetType without
 *    GracefulRestart (iLO 5's list: On, ForceOff, GracefulShutdown,
 *    ForceRestart, Nmi, PushPowerButton); attributes as HPE's UEFI BIOS
 *    attribute reference names them (WorkloadProfile, ProcSMT, Sriov, ...).
 *  - Lenovo XCC (XCC REST API guide, "PATCH – Update pending BIOS
 *    settings"): /Bios/Pending, 200 with RebootRequired; attributes named
 *    Menu_Setting (OperatingModes_ChooseOperatingMode, Memory_MemorySpeed,
 *    Processors_CPUPstateControl, ...).
 *  - Supermicro (Supermicro Redfish Reference Guide, "BIOS
 *    Configuration"): /Bios/SD; attribute names carry the setup question's
 *    number (QuietBoot_0027) and switches are Boolean; "changes require a
 *    system reboot to take effect".
 *  - OpenBMC / NVIDIA Grace (bmcweb with bios-settings-mgr; NVIDIA's
 *    BMC Redfish docs): /Bios/Settings, Boolean and enumerated
 *    attributes; bmcweb's ResetType list (PowerCycle included).
 *  - AMI MegaRAC (DGX BMC docs): /Bios/SD, as Supermicro's (AMI firmware
 *    underneath); AMI's setup-question names.
 * None of them accepts an attribute its BIOS does not have (400
 * PropertyUnknown), and only the families that advertise
 * SupportedApplyTimes accept @Redfish.SettingsApplyTime.
 */
#include <stdlib.h>
#include <string.h>

#include "vendor.h"

enum vb_type { VB_ENUM, VB_BOOL, VB_INT, VB_STRING };

struct vb_attr {
	const char *name;
	enum vb_type type;
	const char *values; /* VB_ENUM: '|'-separated; the first is the default */
	int dflt;	    /* VB_BOOL, VB_INT: the default */
	int read_only;
};

struct vb_family {
	const char *settings;	      /* the settings object, below .../Bios/ */
	const char *registry;	      /* Bios.AttributeRegistry */
	const char *reset_types[9];   /* ResetType@Redfish.AllowableValues, NULL-ended */
	int apply_times;	      /* advertises SupportedApplyTimes (OnReset) */
	const char *patch_message_id; /* of a 200 answer; NULL: 204 */
	const struct vb_attr *attrs;
	size_t n_attrs;
};

static const struct vb_attr hpe_attrs[] = {
	{ "BootMode", VB_ENUM, "Uefi|LegacyBios", 0, 0 },
	{ "WorkloadProfile", VB_ENUM,
	  "GeneralPowerEfficientCompute|GeneralPeakFrequencyCompute|GeneralThroughputCompute|"
	  "Virtualization-PowerEfficient|Virtualization-MaxPerformance|LowLatency|"
	  "HighPerformanceCompute|GraphicProcessing|I/OThroughput|Custom",
	  0, 0 },
	{ "PowerRegulator", VB_ENUM, "DynamicPowerSavings|StaticLowPower|StaticHighPerf|OsControl", 0, 0 },
	{ "MinProcIdlePower", VB_ENUM, "C6State|NoCStates", 0, 0 },
	{ "ProcSMT", VB_ENUM, "Enabled|Disabled", 0, 0 },
	{ "ProcAmdIoVt", VB_ENUM, "Enabled|Disabled", 0, 0 },
	{ "Sriov", VB_ENUM, "Enabled|Disabled", 0, 0 },
	{ "Ipv4PxeSupport", VB_ENUM, "Enabled|Disabled", 0, 0 },
	{ "SerialNumber", VB_STRING, NULL, 0, 1 },
};

static const struct vb_attr lenovo_attrs[] = {
	{ "BootModes_SystemBootMode", VB_ENUM, "UEFIMode|LegacyMode", 0, 0 },
	{ "OperatingModes_ChooseOperatingMode", VB_ENUM,
	  "MaximumEfficiency|MaximumPerformance|MinimalPower|CustomMode", 0, 0 },
	{ "Memory_MemorySpeed", VB_ENUM, "Balanced|MaxPerformance|MinimalPower", 0, 0 },
	{ "Processors_CPUPstateControl", VB_ENUM, "Cooperative|Autonomous|Legacy|None", 0, 0 },
	{ "Processors_SMTMode", VB_ENUM, "Enabled|Disabled", 0, 0 },
	{ "Processors_GlobalCstateControl", VB_ENUM, "Enabled|Disabled|Auto", 0, 0 },
	{ "DevicesandIOPorts_SRIOV", VB_ENUM, "Disabled|Enabled", 0, 0 },
	{ "NetworkStackSettings_IPv4PXESupport", VB_ENUM, "Enabled|Disabled", 0, 0 },
};

static const struct vb_attr supermicro_attrs[] = {
	{ "QuietBoot_0027", VB_BOOL, NULL, 1, 0 },
	{ "BootModeSelect_0048", VB_ENUM, "DUAL|UEFI|Legacy", 0, 0 },
	{ "Hyper_Threading_002B", VB_ENUM, "Enable|Disable", 0, 0 },
	{ "SR_IOVSupport_002D", VB_BOOL, NULL, 0, 0 },
	{ "PowerTechnology_0050", VB_ENUM, "Energy Efficient|Custom|Disable", 0, 0 },
	{ "ENERGY_PERF_BIAS_CFGMode_0053", VB_ENUM,
	  "Balanced Performance|Maximum Performance|Performance|Balanced Power|Power", 0, 0 },
	{ "IPv4PXESupport_0066", VB_BOOL, NULL, 1, 0 },
	{ "CSTATE_0055", VB_BOOL, NULL, 1, 0 },
};

static const struct vb_attr openbmc_attrs[] = {
	{ "BootMode", VB_ENUM, "UEFI", 0, 1 },
	{ "PerformanceMode", VB_ENUM, "Balanced|MaxPerformance|PowerSaving", 0, 0 },
	{ "SMMUBypass", VB_BOOL, NULL, 0, 0 },
	{ "EGMEnabled", VB_BOOL, NULL, 0, 0 },
	{ "EGMHypervisorReservedMemory", VB_INT, NULL, 0, 0 },
	{ "IPv4PXE", VB_BOOL, NULL, 0, 0 },
	{ "IPv6PXE", VB_BOOL, NULL, 0, 0 },
};

static const struct vb_attr ami_attrs[] = {
	{ "SETUP001", VB_ENUM, "UEFI|Legacy", 0, 0 },		   /* Boot mode select */
	{ "PROC000", VB_ENUM, "Enable|Disable", 0, 0 },		   /* Hyper-Threading */
	{ "PMS007", VB_ENUM, "Balanced|Performance|Power", 0, 0 }, /* Power/performance profile */
	{ "PMS012", VB_ENUM, "Enable|Disable", 0, 0 },		   /* Package C-state */
	{ "PCIS007", VB_ENUM, "Disable|Enable", 0, 0 },		   /* SR-IOV support */
	{ "NWSK001", VB_ENUM, "Enable|Disable", 0, 0 },		   /* IPv4 PXE support */
};

#define ATTRS(a) (a), sizeof(a) / sizeof((a)[0])

static const struct vb_family families[SIM_V_COUNT] = {
	[SIM_V_HPE] = { "Settings",
			"BiosAttributeRegistryU46.v1_2_68",
			{ "On", "ForceOff", "GracefulShutdown", "ForceRestart", "Nmi", "PushPowerButton" },
			1,
			"iLO.2.14.SystemResetRequired",
			ATTRS(hpe_attrs) },
	[SIM_V_LENOVO] = { "Pending",
			   "BiosAttributeRegistry.1.0.0",
			   { "On", "Nmi", "GracefulShutdown", "GracefulRestart", "ForceOn", "ForceOff",
			     "ForceRestart" },
			   0,
			   "Base.1.8.RebootRequired",
			   ATTRS(lenovo_attrs) },
	[SIM_V_SUPERMICRO] = { "SD",
			       "BiosAttributeRegistry.1.0.0",
			       { "On", "ForceOff", "GracefulShutdown", "GracefulRestart", "ForceRestart",
				 "Nmi", "ForceOn" },
			       0,
			       NULL,
			       ATTRS(supermicro_attrs) },
	[SIM_V_OPENBMC] = { "Settings",
			    "BiosAttributeRegistry",
			    { "On", "ForceOff", "ForceOn", "ForceRestart", "GracefulRestart",
			      "GracefulShutdown", "PowerCycle", "Nmi" },
			    1,
			    NULL,
			    ATTRS(openbmc_attrs) },
	[SIM_V_AMI] = { "SD",
			"BiosAttributeRegistry1.0.0",
			{ "On", "ForceOff", "GracefulShutdown", "GracefulRestart", "ForceRestart" },
			0,
			NULL,
			ATTRS(ami_attrs) },
};

static const struct vb_family *family_of(const struct sim_node *n)
{
	return n->vendor != SIM_V_DELL && (unsigned)n->vendor < SIM_V_COUNT ? &families[n->vendor] : NULL;
}

static const struct vb_attr *attr_find(const struct vb_family *f, const char *name)
{
	for (size_t i = 0; i < f->n_attrs; i++)
		if (!strcmp(f->attrs[i].name, name))
			return &f->attrs[i];
	return NULL;
}

static int in_values(const char *values, const char *v)
{
	size_t len = strlen(v);

	for (const char *p = values; *p;) {
		size_t n = strcspn(p, "|");

		if (n == len && !strncmp(p, v, n))
			return 1;
		p += n + (p[n] == '|');
	}
	return 0;
}

const char *sim_vbios_settings_name(enum sim_vendor v)
{
	return v != SIM_V_DELL && (unsigned)v < SIM_V_COUNT ? families[v].settings : NULL;
}

json_t *sim_vbios_defaults(const struct sim_node *n)
{
	const struct vb_family *f = family_of(n);
	json_t *attrs = json_object();

	for (size_t i = 0; f && i < f->n_attrs; i++) {
		const struct vb_attr *a = &f->attrs[i];
		json_t *v;

		if (a->type == VB_ENUM)
			v = json_stringn(a->values, strcspn(a->values, "|"));
		else if (a->type == VB_BOOL)
			v = json_boolean(a->dflt);
		else if (a->type == VB_INT)
			v = json_integer(a->dflt);
		else
			v = json_string(!strcmp(a->name, "SerialNumber") ? n->system_serial : "");
		json_object_set_new(attrs, a->name, v);
	}
	return attrs;
}

/* Only the family's attributes: a fault written with iDRAC's names (the
 * BIOS drift) does not show on a BIOS that has no such setting. */
static void keep_family_attrs(const struct vb_family *f, json_t *attrs)
{
	const char *name;
	json_t *v;
	void *tmp;

	json_object_foreach_safe(attrs, tmp, name, v) if (!attr_find(f, name)) json_object_del(attrs, name);
}

void sim_vbios_reshape(const struct sim_vreq *v, json_t *doc)
{
	const struct vb_family *f = family_of(v->c.node);
	json_t *settings;

	if (!f)
		return;
	keep_family_attrs(f, json_object_get(doc, "Attributes"));
	if (!sim_vreq_is(v, SIM_R_SYS "/Bios"))
		return;
	json_object_set_new(doc, "AttributeRegistry", json_string(f->registry));
	settings = json_object_get(doc, "@Redfish.Settings");
	if (!f->apply_times)
		json_object_del(settings, "SupportedApplyTimes");
	else
		json_object_set_new(settings, "SupportedApplyTimes", json_pack("[s]", "OnReset"));
}

void sim_vbios_reshape_system(const struct sim_vreq *v, json_t *doc)
{
	const struct vb_family *f = family_of(v->c.node);
	json_t *reset = br_json_path(doc, "Actions/#ComputerSystem.Reset"), *list;

	if (!f || !json_is_object(reset))
		return;
	list = json_array();
	for (int i = 0; f->reset_types[i]; i++)
		json_array_append_new(list, json_string(f->reset_types[i]));
	json_object_set_new(reset, "ResetType@Redfish.AllowableValues", list);
}

/* A 400 with message m (taken). */
static void bad_request(struct sim_ctx *c, const char *id, char *m)
{
	sim_reply_error(c, 400, sim_msg(id, "Warning", m, "Correct the request and retry."), NULL);
	free(m);
}

static int value_ok(const struct vb_attr *a, json_t *v)
{
	switch (a->type) {
	case VB_ENUM:
		return json_is_string(v) && in_values(a->values, json_string_value(v));
	case VB_BOOL:
		return json_is_boolean(v);
	case VB_INT:
		return json_is_integer(v);
	case VB_STRING:
		return json_is_string(v);
	}
	return 0;
}

int sim_vbios_w_settings(struct sim_ctx *c)
{
	const struct vb_family *f = family_of(c->node);
	json_t *attrs = json_object_get(c->body, "Attributes"), *v;
	const char *name;

	if (!f)
		return 0;
	if (json_object_get(c->body, "@Redfish.SettingsApplyTime") && !f->apply_times) {
		bad_request(
		    c, SIM_BASE "PropertyUnknown",
		    br_xasprintf("The property %s is not in the list of valid properties for the resource.",
				 "@Redfish.SettingsApplyTime"));
		return 1;
	}
	if (!json_is_object(attrs)) {
		bad_request(c, SIM_BASE "PropertyMissing",
			    br_xasprintf("The property %s is a required property.", "Attributes"));
		return 1;
	}
	json_object_foreach(attrs, name, v)
	{
		const struct vb_attr *a = attr_find(f, name);

		if (!a) {
			bad_request(
			    c, SIM_BASE "PropertyUnknown",
			    br_xasprintf(
				"The property %s is not in the list of valid properties for the resource.",
				name));
			return 1;
		}
		if (a->read_only) {
			bad_request(
			    c, SIM_BASE "PropertyNotWritable",
			    br_xasprintf(
				"The property %s is a read only property and cannot be assigned a value.",
				name));
			return 1;
		}
		if (!value_ok(a, v)) {
			bad_request(
			    c, SIM_BASE "PropertyValueNotInList",
			    br_xasprintf(
				"The value for the property %s is not in the list of acceptable values.",
				name));
			return 1;
		}
	}
	json_object_update(c->node->st.bios_pending, attrs);
	if (!f->patch_message_id) {
		c->resp->status = 204;
		sim_response_header(c->resp, "OData-Version", "4.0");
		return 1;
	}
	sim_reply(c, 200,
		  json_pack("{s:[o]}", "@Message.ExtendedInfo",
			    sim_msg(f->patch_message_id, "Warning",
				    "Changes completed successfully, but these changes will not take effect "
				    "until next reboot.",
				    "Reboot the system for the changes to take effect.")));
	return 1;
}

int sim_vbios_reset_refused(struct sim_ctx *c)
{
	const struct vb_family *f = family_of(c->node);
	const char *type = br_json_str(c->body, "ResetType");

	if (!f)
		return 0;
	for (int i = 0; type && f->reset_types[i]; i++)
		if (!strcmp(f->reset_types[i], type))
			return 0;
	bad_request(c, SIM_BASE "ActionParameterNotSupported",
		    br_xasprintf(
			"The parameter ResetType for the action ComputerSystem.Reset is not supported on the "
			"target resource (%s).",
			type ? type : "missing"));
	return 1;
}

void sim_vbios_boot(struct sim_node *n)
{
	if (!family_of(n) || !json_object_size(n->st.bios_pending))
		return;
	json_object_update(n->st.bios, n->st.bios_pending);
	json_object_clear(n->st.bios_pending);
	n->st.generation++;
}
