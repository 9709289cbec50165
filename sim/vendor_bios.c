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
 *    attribute registry names them (WorkloadProfile, ProcSMT, Sriov, ...).
 *  - Lenovo XCC (XCC REST API guide, "PATCH – Update pending BIOS
 *    settings"): /Bios/Pending, 200 with RebootRequired; attributes named
 *    Menu_Setting (OperatingModes_ChooseOperatingMode, Processors_CStates).
 *  - Supermicro (Supermicro Redfish Reference Guide, "BIOS
 *    Configuration"): /Bios/SD; attribute names carry the setup question's
 *    number in hex (QuietBoot_002D), some switches are Boolean, and the
 *    Bios shows and takes an enumeration's display name ("Enable") where
 *    the registry lists codes ("0"); "changes require a system reboot to
 *    take effect".
 *  - OpenBMC / NVIDIA Grace (bmcweb with bios-settings-mgr; NVIDIA's
 *    BMC Redfish docs): /Bios/Settings, mostly Boolean attributes;
 *    bmcweb's ResetType list (PowerCycle included).
 *  - AMI MegaRAC (DGX BMC docs): /Bios/SD, as Supermicro's (AMI firmware
 *    underneath); AMI's setup names (SriovSupport, Ipv4Pxe, PackageCState).
 * Each family's attributes, their types, allowed values and defaults, and
 * its attribute registry (served at Bios/BiosRegistry and named under
 * /redfish/v1/Registries) are those of a real BMC of it (vendor_bios.h;
 * the sources above each table in vendor_bios_registry.c), so that a
 * client looking attributes up by name meets the same names as on the
 * hardware.
 * None of them accepts an attribute its BIOS does not have (400
 * PropertyUnknown), and only the families that advertise
 * SupportedApplyTimes accept @Redfish.SettingsApplyTime.
 */
#include <stdlib.h>
#include <string.h>

#include "vendor.h"
#include "vendor_bios.h"

struct vb_family {
	const char *settings;	      /* the settings object, below .../Bios/ */
	const char *registry;	      /* Bios.AttributeRegistry, and the registry's Id */
	const char *owner, *product;  /* the registry's OwningEntity, SupportedSystems */
	const char *reset_types[9];   /* ResetType@Redfish.AllowableValues, NULL-ended */
	int apply_times;	      /* advertises SupportedApplyTimes (OnReset) */
	const char *patch_message_id; /* of a 200 answer; NULL: 204 */
	int shows_display;	      /* the Bios shows an enumeration's ValueDisplayName */
	const struct vb_attr *attrs;
	const size_t *n_attrs;
};

/* Registry ids as the captured Bios resources name them (Supermicro's and
 * AMI's registries carry a slightly different Id of their own: one name
 * here, so that a client finds the registry the Bios names). */
static const struct vb_family families[SIM_V_COUNT] = {
	[SIM_V_HPE] = { "Settings",
			"BiosAttributeRegistryA42.v1_2_60",
			"HPE",
			"ProLiant DL385 Gen10 Plus v2",
			{ "On", "ForceOff", "GracefulShutdown", "ForceRestart", "Nmi", "PushPowerButton" },
			1,
			"iLO.2.14.SystemResetRequired",
			0,
			sim_vb_hpe,
			&sim_vb_hpe_len },
	[SIM_V_LENOVO] = { "Pending",
			   "BiosAttributeRegistry.1.0.0",
			   "Lenovo",
			   "ThinkSystem SR670 V2",
			   { "On", "Nmi", "GracefulShutdown", "GracefulRestart", "ForceOn", "ForceOff",
			     "ForceRestart" },
			   0,
			   "Base.1.8.RebootRequired",
			   0,
			   sim_vb_lenovo,
			   &sim_vb_lenovo_len },
	[SIM_V_SUPERMICRO] = { "SD",
			       "BiosAttributeRegistry.v1_0_0",
			       "Supermicro",
			       "SuperMicroServer",
			       { "On", "ForceOff", "GracefulShutdown", "GracefulRestart", "ForceRestart",
				 "Nmi", "ForceOn" },
			       0,
			       NULL,
			       1,
			       sim_vb_supermicro,
			       &sim_vb_supermicro_len },
	[SIM_V_OPENBMC] = { "Settings",
			    "BiosAttributeRegistry",
			    "NVIDIA",
			    "GH200",
			    { "On", "ForceOff", "ForceOn", "ForceRestart", "GracefulRestart",
			      "GracefulShutdown", "PowerCycle", "Nmi" },
			    1,
			    NULL,
			    0,
			    sim_vb_openbmc,
			    &sim_vb_openbmc_len },
	[SIM_V_AMI] = { "SD",
			"BiosAttributeRegistry113.1.1.3",
			"AMI",
			"DGX H100",
			{ "On", "ForceOff", "GracefulShutdown", "GracefulRestart", "ForceRestart" },
			0,
			NULL,
			0,
			sim_vb_ami,
			&sim_vb_ami_len },
};

static const struct vb_family *family_of(const struct sim_node *n)
{
	return n->vendor != SIM_V_DELL && (unsigned)n->vendor < SIM_V_COUNT ? &families[n->vendor] : NULL;
}

static const struct vb_attr *attr_find(const struct vb_family *f, const char *name)
{
	for (size_t i = 0; i < *f->n_attrs; i++)
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

const char *sim_vbios_registry_id(const struct sim_node *n)
{
	const struct vb_family *f = family_of(n);

	return f ? f->registry : SIM_BIOS_REGISTRY;
}

/* A node keeps only what it changed: 10,000 BMCs share one table. */
json_t *sim_vbios_defaults(const struct sim_node *n)
{
	(void)n;
	return json_object();
}

/* An attribute's default as the Bios shows it; HPE's SerialNumber is the
 * node's own. */
static json_t *default_value(const struct sim_node *n, const struct vb_attr *a)
{
	long i = 0;

	if (!a->dflt)
		return json_null();
	switch (a->type) {
	case VB_BOOL:
		return json_boolean(!strcmp(a->dflt, "true"));
	case VB_INT:
		if (br_parse_long(a->dflt, -(1L << 31), 1L << 31, &i))
			i = 0;
		return json_integer(i);
	case VB_STRING:
		if (!strcmp(a->name, "SerialNumber"))
			return json_string(n->system_serial);
		break;
	case VB_ENUM:
	case VB_PASSWORD:
		break;
	}
	return json_string(a->dflt);
}

/* Every attribute of the family: the node's value where it changed one,
 * else the table's default. A changed name the family lacks (the BIOS
 * drift fault writes iDRAC's names) does not show on a BIOS that has no
 * such setting. */
static json_t *family_attrs(const struct vb_family *f, const struct sim_node *n)
{
	json_t *attrs = json_object();

	for (size_t i = 0; i < *f->n_attrs; i++) {
		const struct vb_attr *a = &f->attrs[i];
		json_t *v = json_object_get(n->st.bios, a->name);

		json_object_set_new(attrs, a->name, v ? json_incref(v) : default_value(n, a));
	}
	return attrs;
}

void sim_vbios_reshape(const struct sim_vreq *v, json_t *doc)
{
	const struct vb_family *f = family_of(v->c.node);
	json_t *settings;

	if (!f)
		return;
	if (!sim_vreq_is(v, SIM_R_SYS "/Bios"))
		return;
	json_object_set_new(doc, "Attributes", family_attrs(f, v->c.node));
	json_object_set_new(doc, "AttributeRegistry", json_string(f->registry));
	settings = json_object_get(doc, "@Redfish.Settings");
	if (!f->apply_times)
		json_object_del(settings, "SupportedApplyTimes");
	else
		json_object_set_new(settings, "SupportedApplyTimes", json_pack("[s]", "OnReset"));
}

static const char *const type_names[] = { [VB_ENUM] = "Enumeration",
					  [VB_BOOL] = "Boolean",
					  [VB_INT] = "Integer",
					  [VB_STRING] = "String",
					  [VB_PASSWORD] = "Password" };

/* Value[] of an enumeration: ValueName as the registry has it, and the
 * name it displays. */
static json_t *registry_values(const struct vb_family *f, const struct vb_attr *a)
{
	json_t *values = json_array();
	const char *p = a->values, *q = a->other ? a->other : a->values;

	while (*p) {
		size_t n = strcspn(p, "|"), m = strcspn(q, "|");
		char *shown = br_xstrndup(p, n), *other = br_xstrndup(q, m);

		json_array_append_new(values,
				      json_pack("{s:s, s:s}", "ValueName", f->shows_display ? other : shown,
						"ValueDisplayName", f->shows_display ? shown : other));
		free(shown);
		free(other);
		p += n + (p[n] == '|');
		q += m + (q[m] == '|');
	}
	return values;
}

/* The family's attribute registry (DMTF AttributeRegistry_v1), in place of
 * iDRAC's: one entry for each attribute the Bios shows. */
json_t *sim_vbios_registry(const struct sim_vreq *v, json_t *doc)
{
	const struct vb_family *f = family_of(v->c.node);
	json_t *attrs;

	if (!f)
		return doc;
	attrs = json_array();
	for (size_t i = 0; i < *f->n_attrs; i++) {
		const struct vb_attr *a = &f->attrs[i];
		json_t *e = json_pack("{s:s, s:s, s:s, s:b, s:b, s:o}", "AttributeName", a->name,
				      "DisplayName", a->display, "Type", type_names[a->type], "ReadOnly",
				      a->read_only, "Hidden", 0, "DefaultValue", default_value(v->c.node, a));

		if (a->type == VB_ENUM)
			json_object_set_new(e, "Value", registry_values(f, a));
		json_array_append_new(attrs, e);
	}
	json_object_set_new(doc, "Id", json_string(f->registry));
	json_object_set_new(
	    doc, "Description",
	    json_string("This registry defines a representation of BIOS Attribute instances"));
	json_object_set_new(doc, "OwningEntity", json_string(f->owner));
	json_object_set_new(doc, "SupportedSystems", json_pack("[{s:s}]", "ProductName", f->product));
	json_object_set_new(doc, "RegistryEntries", json_pack("{s:o}", "Attributes", attrs));
	return doc;
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
	case VB_PASSWORD:
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
