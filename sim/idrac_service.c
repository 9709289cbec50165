/*
 * The service-level resources every Redfish service owes its clients and
 * that iDRAC9 has: $metadata, the schema and registry file collections,
 * roles, the task service (Dell jobs seen as tasks), the manager's network
 * protocols, virtual media and reset, and the drive backplane's Chassis.
 * Rules from DMTF DSP0266 (Redfish Specification) and DSP2046 (Resource and
 * Schema Guide); paths and ids as Dell's iDRAC9 Redfish API Guide shows them.
 */
#include <stdlib.h>
#include <string.h>

#include "idrac.h"

/* Every schema namespace the simulator answers with, as DSP0266 §
 * "Service metadata" requires $metadata to reference (file, namespace). */
static const char *const schemas[][2] = {
	{ "AccountService", "AccountService.v1_12_0" },
	{ "AttributeRegistry", "AttributeRegistry.v1_3_6" },
	{ "Bios", "Bios.v1_2_1" },
	{ "Chassis", "Chassis.v1_23_0" },
	{ "ChassisCollection", NULL },
	{ "ComputerSystem", "ComputerSystem.v1_20_0" },
	{ "ComputerSystemCollection", NULL },
	{ "Drive", "Drive.v1_17_0" },
	{ "EthernetInterface", "EthernetInterface.v1_6_2" },
	{ "EthernetInterfaceCollection", NULL },
	{ "JsonSchemaFile", "JsonSchemaFile.v1_1_4" },
	{ "JsonSchemaFileCollection", NULL },
	{ "LogEntry", "LogEntry.v1_15_0" },
	{ "LogEntryCollection", NULL },
	{ "LogService", "LogService.v1_5_0" },
	{ "LogServiceCollection", NULL },
	{ "Manager", "Manager.v1_17_0" },
	{ "ManagerAccount", "ManagerAccount.v1_10_0" },
	{ "ManagerAccountCollection", NULL },
	{ "ManagerCollection", NULL },
	{ "ManagerNetworkProtocol", "ManagerNetworkProtocol.v1_9_0" },
	{ "Memory", "Memory.v1_16_0" },
	{ "MemoryCollection", NULL },
	{ "Message", "Message.v1_1_2" },
	{ "MessageRegistryFile", "MessageRegistryFile.v1_1_3" },
	{ "MessageRegistryFileCollection", NULL },
	{ "NetworkAdapter", "NetworkAdapter.v1_9_0" },
	{ "NetworkAdapterCollection", NULL },
	{ "NetworkDeviceFunction", "NetworkDeviceFunction.v1_9_0" },
	{ "NetworkDeviceFunctionCollection", NULL },
	{ "PCIeDevice", "PCIeDevice.v1_11_1" },
	{ "PCIeDeviceCollection", NULL },
	{ "PCIeFunction", "PCIeFunction.v1_5_0" },
	{ "PCIeFunctionCollection", NULL },
	{ "Power", "Power.v1_7_1" },
	{ "Processor", "Processor.v1_18_0" },
	{ "ProcessorCollection", NULL },
	{ "Resource", "Resource.v1_16_0" },
	{ "Role", "Role.v1_3_1" },
	{ "RoleCollection", NULL },
	{ "SecureBoot", "SecureBoot.v1_1_0" },
	{ "ServiceRoot", "ServiceRoot.v1_16_0" },
	{ "Session", "Session.v1_6_0" },
	{ "SessionCollection", NULL },
	{ "SessionService", "SessionService.v1_1_8" },
	{ "Settings", "Settings.v1_3_5" },
	{ "SimpleStorage", "SimpleStorage.v1_3_1" },
	{ "SimpleStorageCollection", NULL },
	{ "SoftwareInventory", "SoftwareInventory.v1_9_0" },
	{ "SoftwareInventoryCollection", NULL },
	{ "Storage", "Storage.v1_15_0" },
	{ "StorageCollection", NULL },
	{ "Task", "Task.v1_6_1" },
	{ "TaskCollection", NULL },
	{ "TaskService", "TaskService.v1_2_0" },
	{ "Thermal", "Thermal.v1_7_0" },
	{ "UpdateService", "UpdateService.v1_11_0" },
	{ "VirtualMedia", "VirtualMedia.v1_6_0" },
	{ "VirtualMediaCollection", NULL },
};
#define N_SCHEMAS (sizeof(schemas) / sizeof(schemas[0]))
#define DMTF_SCHEMAS "http://redfish.dmtf.org/schemas/v1/"

/* CSDL: one edmx:Reference per schema file (DSP0266 "Service metadata"),
 * the service's own entity container naming the ServiceRoot. */
void sim_reply_metadata(struct sim_ctx *c)
{
	struct br_buf b;
	char etag[SIM_ETAG_LEN];
	size_t len;

	br_buf_init(&b, 0);
	br_buf_adds(&b,
		    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		    "<edmx:Edmx xmlns:edmx=\"http://docs.oasis-open.org/odata/ns/edmx\" Version=\"4.0\">\n"
		    "  <edmx:Reference Uri=\"http://docs.oasis-open.org/odata/odata/v4.0/errata03/csd01/"
		    "complete/vocabularies/Org.OData.Core.V1.xml\">\n"
		    "    <edmx:Include Namespace=\"Org.OData.Core.V1\" Alias=\"OData\"/>\n"
		    "  </edmx:Reference>\n");
	for (size_t i = 0; i < N_SCHEMAS; i++) {
		br_buf_addf(&b,
			    "  <edmx:Reference Uri=\"" DMTF_SCHEMAS "%s_v1.xml\">\n"
			    "    <edmx:Include Namespace=\"%s\"/>\n",
			    schemas[i][0], schemas[i][0]);
		if (schemas[i][1])
			br_buf_addf(&b, "    <edmx:Include Namespace=\"%s\"/>\n", schemas[i][1]);
		br_buf_adds(&b, "  </edmx:Reference>\n");
	}
	br_buf_adds(
	    &b, "  <edmx:DataServices>\n"
		"    <Schema xmlns=\"http://docs.oasis-open.org/odata/ns/edm\" Namespace=\"Service\">\n"
		"      <EntityContainer Name=\"Service\" Extends=\"ServiceRoot.v1_16_0.ServiceContainer\"/>\n"
		"    </Schema>\n"
		"  </edmx:DataServices>\n"
		"</edmx:Edmx>\n");
	len = b.len;
	sim_etag_of(br_buf_str(&b), len, etag);
	sim_reply_text(c->resp, 200, br_buf_detach(&b), len, etag);
	c->resp->content_type = "application/xml";
}

json_t *sim_r_json_schemas(struct sim_ctx *c)
{
	json_t *coll = sim_coll("#JsonSchemaFileCollection.JsonSchemaFileCollection",
				"JSON Schema File Collection", SIM_R_ROOT "/JsonSchemas");

	for (size_t i = 0; i < N_SCHEMAS; i++)
		sim_coll_add(coll, SIM_R_ROOT "/JsonSchemas/%s", schemas[i][0]);
	return coll;
}

/* Where each schema lives: the DMTF publication (iDRAC serves copies too;
 * the simulator points at the published ones, as DSP0266 allows). */
json_t *sim_r_json_schema(struct sim_ctx *c)
{
	json_t *f = NULL;

	for (size_t i = 0; i < N_SCHEMAS && !f; i++) {
		const char *file = schemas[i][0], *ns = schemas[i][1];
		char *uri;

		if (strcmp(file, c->args[0]))
			continue;
		uri = ns ? br_xasprintf(DMTF_SCHEMAS "%s.json", ns)
			 : br_xasprintf(DMTF_SCHEMAS "%s.json", file);
		f = sim_res("#JsonSchemaFile.v1_1_4.JsonSchemaFile", file, file, SIM_R_ROOT "/JsonSchemas/%s",
			    file);
		json_object_set_new(f, "Description", json_string("Schema File Location"));
		json_object_set_new(f, "Languages", json_pack("[s]", "en"));
		json_object_set_new(f, "Location",
				    json_pack("[{s:s, s:s}]", "Language", "en", "PublicationUri", uri));
		free(uri);
		uri = br_xasprintf("#%s.%s", ns ? ns : file, file);
		json_object_set_new(f, "Schema", json_string(uri));
		free(uri);
	}
	return f;
}

json_t *sim_r_registries(struct sim_ctx *c)
{
	json_t *coll = sim_coll("#MessageRegistryFileCollection.MessageRegistryFileCollection",
				"Registry File Collection", SIM_R_ROOT "/Registries");

	sim_coll_add(coll, SIM_R_ROOT "/Registries/" SIM_BASE_REGISTRY);
	sim_coll_add(coll, SIM_R_ROOT "/Registries/%s", sim_vbios_registry_id(c->node));
	return coll;
}

/* The Base message registry is DMTF's (its published copy); the BIOS
 * attribute registry is the node's own, served beside Bios. */
json_t *sim_r_registry(struct sim_ctx *c)
{
	int base = !strcmp(c->args[0], SIM_BASE_REGISTRY);
	json_t *f;

	if (!base && strcmp(c->args[0], sim_vbios_registry_id(c->node)))
		return NULL;
	f = sim_res("#MessageRegistryFile.v1_1_3.MessageRegistryFile", c->args[0],
		    base ? "Base Message Registry File" : "BIOS Attribute Registry File",
		    SIM_R_ROOT "/Registries/%s", c->args[0]);
	json_object_set_new(f, "Description",
			    json_string(base ? "Base Message Registry File Locations"
					     : "BIOS Attribute Registry File Locations"));
	json_object_set_new(f, "Languages", json_pack("[s]", "en"));
	json_object_set_new(f, "Registry", json_string(base ? "Base.1.12" : sim_vbios_registry_id(c->node)));
	if (base)
		json_object_set_new(f, "Location",
				    json_pack("[{s:s, s:s}]", "Language", "en", "PublicationUri",
					      "https://redfish.dmtf.org/registries/" SIM_BASE_REGISTRY
					      ".json"));
	else
		json_object_set_new(
		    f, "Location",
		    json_pack("[{s:s, s:s}]", "Language", "en", "Uri", SIM_R_SYS "/Bios/BiosRegistry"));
	return f;
}

/* iDRAC9's predefined roles and their privileges (DSP0266 "Privilege
 * model"; Dell maps Operator to everything but user management). */
static const char *const roles[][4] = {
	{ "Administrator", "Login", "ConfigureManager", "ConfigureUsers" },
	{ "Operator", "Login", "ConfigureComponents", "ConfigureSelf" },
	{ "ReadOnly", "Login", "ConfigureSelf", NULL },
};

json_t *sim_r_roles(struct sim_ctx *c)
{
	json_t *coll =
	    sim_coll("#RoleCollection.RoleCollection", "Roles", SIM_R_ROOT "/AccountService/Roles");

	for (size_t i = 0; i < sizeof(roles) / sizeof(roles[0]); i++)
		sim_coll_add(coll, SIM_R_ROOT "/AccountService/Roles/%s", roles[i][0]);
	return coll;
}

json_t *sim_r_role(struct sim_ctx *c)
{
	for (size_t i = 0; i < sizeof(roles) / sizeof(roles[0]); i++) {
		json_t *r, *privileges;

		if (strcmp(roles[i][0], c->args[0]))
			continue;
		r = sim_res("#Role.v1_3_1.Role", roles[i][0], roles[i][0],
			    SIM_R_ROOT "/AccountService/Roles/%s", roles[i][0]);
		privileges = json_array();
		for (int p = 1; p < 4 && roles[i][p]; p++)
			json_array_append_new(privileges, json_string(roles[i][p]));
		if (i < 2)
			json_array_append_new(privileges, json_string("ConfigureComponents"));
		if (i == 0)
			json_array_append_new(privileges, json_string("ConfigureSelf"));
		json_object_set_new(r, "Description", json_string(roles[i][0]));
		json_object_set_new(r, "IsPredefined", json_true());
		json_object_set_new(r, "RoleId", json_string(roles[i][0]));
		json_object_set_new(r, "AssignedPrivileges", privileges);
		return r;
	}
	return NULL;
}

json_t *sim_r_task_service(struct sim_ctx *c)
{
	json_t *t = sim_res("#TaskService.v1_2_0.TaskService", "TaskService", "Task Service",
			    SIM_R_ROOT "/TaskService");

	json_object_set_new(t, "Description", json_string("Represents the properties for the service"));
	json_object_set_new(t, "ServiceEnabled", json_true());
	json_object_set_new(t, "CompletedTaskOverWritePolicy", json_string("Oldest"));
	json_object_set_new(t, "LifeCycleEventOnTaskStateChange", json_true());
	json_object_set_new(t, "Tasks", sim_link(SIM_R_ROOT "/TaskService/Tasks"));
	json_object_set_new(t, "Status", sim_status("OK"));
	return t;
}

/* iDRAC9 shows each Lifecycle Controller job as a task of the same id. */
json_t *sim_r_tasks(struct sim_ctx *c)
{
	json_t *coll =
	    sim_coll("#TaskCollection.TaskCollection", "Task Collection", SIM_R_ROOT "/TaskService/Tasks");

	sim_job_ids(c->node, coll, SIM_R_ROOT "/TaskService/Tasks");
	sim_fw_task_ids(c->node, coll, SIM_R_ROOT "/TaskService/Tasks");
	return coll;
}

json_t *sim_r_task(struct sim_ctx *c)
{
	struct sim_job job;
	const char *state, *health;
	json_t *t;

	if (!sim_job_find(c->node, c->args[0], &job))
		return sim_fw_task_render(c, c->args[0]);
	/* DellJob JobState → Task TaskState (Task schema's enum). */
	if (!strcmp(job.state, "Scheduled"))
		state = "Pending", health = "OK";
	else if (!strcmp(job.state, "Running"))
		state = "Running", health = "OK";
	else if (!strcmp(job.state, "Failed"))
		state = "Exception", health = "Critical";
	else
		state = "Completed", health = "OK";
	t = sim_res("#Task.v1_6_1.Task", c->args[0], "Configure: BIOS.Setup.1-1",
		    SIM_R_ROOT "/TaskService/Tasks/%s", c->args[0]);
	json_object_set_new(t, "TaskState", json_string(state));
	json_object_set_new(t, "TaskStatus", json_string(health));
	json_object_set_new(t, "PercentComplete", json_integer(job.percent));
	json_object_set_new(t, "Messages",
			    json_pack("[{s:s, s:s}]", "Message", job.message, "MessageId", job.message_id));
	return t;
}

json_t *sim_r_network_protocol(struct sim_ctx *c)
{
	char host[24], fqdn[48];
	json_t *p = sim_res("#ManagerNetworkProtocol.v1_9_0.ManagerNetworkProtocol", "NetworkProtocol",
			    "Manager Network Protocol", SIM_R_MGR "/NetworkProtocol");

	snprintf(host, sizeof(host), "idrac-%s", c->node->service_tag);
	snprintf(fqdn, sizeof(fqdn), "%s.local", host);
	json_object_set_new(p, "Description", json_string("Manager Network Service"));
	json_object_set_new(p, "HostName", json_string(host));
	json_object_set_new(p, "FQDN", json_string(fqdn));
	json_object_set_new(p, "HTTP", json_pack("{s:b, s:i}", "ProtocolEnabled", 1, "Port", 80));
	json_object_set_new(p, "HTTPS", json_pack("{s:b, s:i}", "ProtocolEnabled", 1, "Port", 443));
	json_object_set_new(p, "SSH", json_pack("{s:b, s:i}", "ProtocolEnabled", 1, "Port", 22));
	json_object_set_new(p, "IPMI", json_pack("{s:b, s:i}", "ProtocolEnabled", 1, "Port", 623));
	json_object_set_new(p, "SNMP", json_pack("{s:b, s:i}", "ProtocolEnabled", 0, "Port", 161));
	json_object_set_new(p, "VirtualMedia", json_pack("{s:b, s:i}", "ProtocolEnabled", 1, "Port", 443));
	json_object_set_new(p, "KVMIP", json_pack("{s:b, s:i}", "ProtocolEnabled", 1, "Port", 5900));
	json_object_set_new(p, "NTP", json_pack("{s:b, s:[]}", "ProtocolEnabled", 0, "NTPServers"));
	json_object_set_new(p, "Status", sim_status("OK"));
	return p;
}

/* iDRAC9's two virtual media devices; nothing inserted, and no insert
 * action advertised, since the simulator has no image to serve. */
json_t *sim_r_virtual_media_coll(struct sim_ctx *c)
{
	json_t *coll = sim_coll("#VirtualMediaCollection.VirtualMediaCollection", "Virtual Media Services",
				SIM_R_MGR "/VirtualMedia");

	sim_coll_add(coll, SIM_R_MGR "/VirtualMedia/CD");
	sim_coll_add(coll, SIM_R_MGR "/VirtualMedia/RemovableDisk");
	return coll;
}

json_t *sim_r_virtual_media(struct sim_ctx *c)
{
	int cd = !strcmp(c->args[0], "CD");
	json_t *v;

	if (!cd && strcmp(c->args[0], "RemovableDisk"))
		return NULL;
	v = sim_res("#VirtualMedia.v1_6_0.VirtualMedia", c->args[0], "Virtual Media",
		    SIM_R_MGR "/VirtualMedia/%s", c->args[0]);
	json_object_set_new(v, "Description", json_string("iDRAC Virtual Media Services Settings"));
	json_object_set_new(v, "MediaTypes",
			    cd ? json_pack("[s, s]", "CD", "DVD") : json_pack("[s]", "USBStick"));
	json_object_set_new(v, "ConnectedVia", json_string("NotConnected"));
	json_object_set_new(v, "Inserted", json_false());
	json_object_set_new(v, "WriteProtected", json_true());
	json_object_set_new(v, "Image", json_null());
	return v;
}

/* #Manager.Reset: the iDRAC restarts, which ends every session (Dell
 * iDRAC9 Redfish API Guide, Manager.Reset: GracefulRestart only). */
void sim_w_manager_reset(struct sim_ctx *c)
{
	const char *type = br_json_str(c->body, "ResetType");

	if (!type || strcmp(type, "GracefulRestart")) {
		sim_reply_error(
		    c, 400,
		    sim_msg(SIM_BASE "ActionParameterNotSupported", "Warning",
			    "The parameter ResetType for the action Manager.Reset is not supported on "
			    "the target resource.",
			    "Remove the parameter supplied and resubmit the request if the operation "
			    "failed."),
		    NULL);
		return;
	}
	memset(c->node->st.sessions, 0, sizeof(c->node->st.sessions));
	c->resp->status = 204;
	sim_response_header(c->resp, "OData-Version", "4.0");
}

/* The NVMe backplane: iDRAC9's second Chassis, inside the system's. */
json_t *sim_r_enclosure(struct sim_ctx *c)
{
	const struct sim_node *n = c->node;
	json_t *ch = sim_res("#Chassis.v1_23_0.Chassis", SIM_ENCLOSURE, "BP_PSB_16 E3.S NVMe Backplane",
			     SIM_R_ENCLOSURE);
	json_t *drives = json_array();

	for (int d = 0; d < SIM_DATA_DRIVES; d++)
		if (n->drives[d].present)
			json_array_append_new(
			    drives, sim_link(SIM_R_SYS "/Storage/CPU.1/Drives/%s", n->drives[d].id));
	json_object_set_new(ch, "Description", json_string("It represents the properties for the backplane"));
	json_object_set_new(ch, "ChassisType", json_string("Enclosure"));
	json_object_set_new(ch, "Manufacturer", json_string("DELL"));
	json_object_set_new(ch, "Model", json_string("BP_PSB_16"));
	json_object_set_new(ch, "Status", sim_status("OK"));
	json_object_set_new(ch, "Links",
			    json_pack("{s:o, s:o, s:[o], s:[o]}", "ContainedBy", sim_link(SIM_R_CHASSIS),
				      "Drives", drives, "ManagedBy", sim_link(SIM_R_MGR), "ComputerSystems",
				      sim_link(SIM_R_SYS)));
	return ch;
}
