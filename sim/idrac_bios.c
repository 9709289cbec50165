/*
 * What a configure stage changes, the iDRAC way: BIOS attributes are
 * PATCHed into Bios/Settings (pending), need a config job (POST to the
 * Dell Jobs collection, or @Redfish.SettingsApplyTime in the PATCH), and
 * take effect only when the job has run: Scheduled until the next reset,
 * Running for --bios-job-ms (SIM_JOB_RUN_MS) of POST, then Completed (or Failed under
 * bios_job_fail, leaving the attributes as they were). The boot order and
 * override are PATCHed on the System and apply at once.
 */
#include <stdlib.h>
#include <string.h>

#include "idrac.h"

#define JOB_BASE 742000000000LL /* job ids look like JID_742000000001 */
#define JOB_FAIL_MESSAGE                                                                                     \
	"Unable to apply the BIOS configuration: ProcCStates is read-only while SysProfile is not Custom."

/* Attributes, their types and allowed values: Dell's iDRAC9 BIOS attribute
 * registry (idrac_bios_registry.c). iDRAC refuses a PATCH naming an attribute
 * the registry lacks, a read-only one, or a value not in its list (Dell
 * "iDRAC9 Redfish API Guide", BIOS attributes: HTTP 400 with Base.1.x
 * PropertyUnknown / PropertyNotWritable / PropertyValueNotInList). */
static const struct sim_bios_attr *registry_find(const char *name)
{
	for (size_t i = 0; i < sim_bios_registry_len; i++)
		if (!strcmp(sim_bios_registry[i].name, name))
			return &sim_bios_registry[i];
	return NULL;
}

/* 1 when value is one of the '|'-separated values. */
static int in_list(const char *values, const char *value)
{
	size_t len = strlen(value);

	for (const char *p = values; *p;) {
		const char *bar = strchr(p, '|');
		size_t n = bar ? (size_t)(bar - p) : strlen(p);

		if (n == len && !strncmp(p, value, n))
			return 1;
		p += n + (bar != NULL);
	}
	return 0;
}

void sim_bios_registry_defaults(json_t *attrs)
{
	for (size_t i = 0; i < sim_bios_registry_len; i++) {
		const struct sim_bios_attr *a = &sim_bios_registry[i];
		json_t *v;

		if (json_object_get(attrs, a->name))
			continue;
		if (a->type == SIM_BIOS_INT)
			v = json_integer(0);
		else if (a->type == SIM_BIOS_ENUM)
			v = json_stringn(a->values, strcspn(a->values, "|"));
		else
			v = json_string("");
		json_object_set_new(attrs, a->name, v);
	}
}

void sim_jobs_advance(struct sim_node *n)
{
	struct sim_bmc_state *st = &n->st;

	if (!st->job_running || br_now_ms() < st->job_done_ms || st->job_reads_left > 0)
		return;
	if (sim_fault_has(&n->faults, SIM_F_BIOS_JOB_FAIL)) {
		if (st->job_running <= 64)
			st->jobs_failed |= 1ull << (st->job_running - 1);
	} else {
		json_object_update(st->bios, st->bios_pending);
	}
	json_object_clear(st->bios_pending);
	st->job_running = 0;
	st->generation++;
}

/* 1 when value is acceptable for the attribute (or it is not enumerated). */
static int value_ok(const struct sim_bios_attr *a, json_t *value)
{
	const char *v = json_string_value(value);

	return !a || a->type != SIM_BIOS_ENUM || (v && in_list(a->values, v));
}

json_t *sim_r_bios(struct sim_ctx *c)
{
	json_t *b =
	    sim_res("#Bios.v1_2_1.Bios", "Bios", "BIOS Configuration Current Settings", SIM_R_SYS "/Bios");

	json_object_set_new(b, "Description", json_string("BIOS Configuration Current Settings"));
	json_object_set_new(b, "AttributeRegistry", json_string(SIM_BIOS_REGISTRY));
	json_object_set_new(b, "Attributes", json_deep_copy(c->node->st.bios));
	json_object_set_new(b, "@Redfish.Settings",
			    json_pack("{s:s, s:o, s:[s, s, s]}", "@odata.type", "#Settings.v1_3_5.Settings",
				      "SettingsObject", sim_link(SIM_R_SYS "/Bios/Settings"),
				      "SupportedApplyTimes", "OnReset", "AtMaintenanceWindowStart",
				      "InMaintenanceWindowOnReset"));
	json_object_set_new(
	    b, "Actions",
	    json_pack("{s:{s:s}}", "#Bios.ResetBios", "target", SIM_R_SYS "/Bios/Actions/Bios.ResetBios"));
	return b;
}

/* One registry entry as the AttributeRegistry schema has it (DSP0266 §
 * "Attribute registry"; DMTF AttributeRegistry_v1.xml). */
static json_t *registry_entry(const struct sim_bios_attr *a)
{
	static const char *const types[] = {
		[SIM_BIOS_ENUM] = "Enumeration", [SIM_BIOS_STRING] = "String", [SIM_BIOS_INT] = "Integer"
	};
	json_t *e = json_pack("{s:s, s:s, s:s, s:b, s:b, s:s}", "AttributeName", a->name, "DisplayName",
			      a->display_name, "Type", types[a->type], "ReadOnly", a->read_only, "Hidden", 0,
			      "MenuPath", "./");
	json_t *values = json_array();

	for (const char *p = a->values; a->type == SIM_BIOS_ENUM && *p;) {
		size_t n = strcspn(p, "|");
		char *v = br_xstrndup(p, n);

		json_array_append_new(values, json_pack("{s:s, s:s}", "ValueName", v, "ValueDisplayName", v));
		free(v);
		p += n + (p[n] == '|');
	}
	if (a->type == SIM_BIOS_ENUM)
		json_object_set_new(e, "Value", values);
	else
		json_decref(values);
	return e;
}

/* The registry iDRAC9 serves beside Bios, named by Bios.AttributeRegistry
 * and listed under /redfish/v1/Registries (Dell iDRAC9 Redfish API Guide,
 * "BiosRegistry"). */
json_t *sim_r_bios_registry(struct sim_ctx *c)
{
	json_t *r = sim_res("#AttributeRegistry.v1_3_6.AttributeRegistry", SIM_BIOS_REGISTRY,
			    "BIOS Attribute Registry", SIM_R_SYS "/Bios/BiosRegistry");
	json_t *attrs = json_array();

	json_object_del(r, "@odata.context");
	for (size_t i = 0; i < sim_bios_registry_len; i++)
		json_array_append_new(attrs, registry_entry(&sim_bios_registry[i]));
	json_object_set_new(r, "Description",
			    json_string("This is the BIOS Attribute Registry for the "
					"PowerEdge XE9680 as the simulator presents it."));
	json_object_set_new(r, "Language", json_string("en"));
	json_object_set_new(r, "OwningEntity", json_string("Dell"));
	json_object_set_new(r, "RegistryVersion", json_string("1.0.0"));
	json_object_set_new(r, "SupportedSystems",
			    json_pack("[{s:s, s:s, s:s}]", "ProductName", "PowerEdge XE9680", "SystemId",
				      "0x0AFC", "FirmwareVersion", SIM_FW_BIOS));
	json_object_set_new(r, "RegistryEntries", json_pack("{s:o}", "Attributes", attrs));
	return r;
}

/* UEFI Secure Boot as the System shows it: the BIOS attribute SecureBoot
 * is the one switch (Dell iDRAC9 Redfish API Guide, SecureBoot). */
json_t *sim_r_secure_boot(struct sim_ctx *c)
{
	const char *attr = br_json_str(c->node->st.bios, "SecureBoot");
	int on = attr && !strcmp(attr, "Enabled");
	json_t *s = sim_res("#SecureBoot.v1_1_0.SecureBoot", "SecureBoot", "UEFI Secure Boot",
			    SIM_R_SYS "/SecureBoot");

	json_object_set_new(s, "Description", json_string("UEFI Secure Boot"));
	json_object_set_new(s, "SecureBootEnable", json_boolean(on));
	json_object_set_new(s, "SecureBootCurrentBoot",
			    json_string(on && c->node->st.powered ? "Enabled" : "Disabled"));
	json_object_set_new(s, "SecureBootMode", json_string("DeployedMode"));
	return s;
}

json_t *sim_r_bios_settings(struct sim_ctx *c)
{
	json_t *s = sim_res("#Bios.v1_2_1.Bios", "Settings", "BIOS Configuration Pending Settings",
			    SIM_R_SYS "/Bios/Settings");

	json_object_set_new(s, "Attributes", json_deep_copy(c->node->st.bios_pending));
	return s;
}

static void reply_success(struct sim_ctx *c, int status, const char *job_location)
{
	if (status == 204) {
		c->resp->status = 204;
		sim_response_header(c->resp, "OData-Version", "4.0");
		return;
	}
	sim_reply(
	    c, status,
	    json_pack("{s:[o]}", "@Message.ExtendedInfo",
		      sim_msg(SIM_BASE "Success", "OK", "The request completed successfully.", "None")));
	if (job_location)
		sim_response_header(c->resp, "Location", job_location);
}

static void bad_request(struct sim_ctx *c, const char *message_id, const char *message)
{
	sim_reply_error(c, 400, sim_msg(message_id, "Warning", message, "Correct the request and retry."),
			NULL);
}

/* Schedule the pending BIOS settings for the next reset; the job's URI. */
static char *schedule_bios_job(struct sim_node *n)
{
	if (!n->st.bios_job)
		n->st.bios_job = ++n->st.jobs;
	return br_xasprintf(SIM_R_MGR "/Jobs/JID_%lld", JOB_BASE + n->st.bios_job);
}

void sim_w_bios_settings(struct sim_ctx *c)
{
	json_t *attrs = json_object_get(c->body, "Attributes"), *v;
	const char *name, *apply = br_json_str(c->body, "@Redfish.SettingsApplyTime/ApplyTime");
	char *job = NULL;

	if (sim_vbios_w_settings(c))
		return;
	if (!json_is_object(attrs)) {
		bad_request(c, SIM_BASE "PropertyMissing", "The property Attributes is a required property.");
		return;
	}
	json_object_foreach(attrs, name, v)
	{
		json_t *cur = json_object_get(c->node->st.bios, name);

		const struct sim_bios_attr *a = registry_find(name);

		if (!cur || !a) {
			char *m = br_xasprintf(
			    "The property %s is not in the list of valid properties for the resource.", name);

			bad_request(c, SIM_BASE "PropertyUnknown", m);
			free(m);
			return;
		}
		if (a->read_only) {
			char *m = br_xasprintf(
			    "The property %s is a read only property and cannot be assigned a value.", name);

			bad_request(c, SIM_BASE "PropertyNotWritable", m);
			free(m);
			return;
		}
		if (json_typeof(cur) != json_typeof(v)) {
			char *m = br_xasprintf(
			    "The value for the property %s is of a different type than the property "
			    "can accept.",
			    name);

			bad_request(c, SIM_BASE "PropertyValueTypeError", m);
			free(m);
			return;
		}
		if (!value_ok(a, v)) {
			char *text = json_dumps(v, JSON_ENCODE_ANY), *m;

			m = br_xasprintf(
			    "The value %s for the property %s is not in the list of acceptable values.",
			    text ? text : "?", name);
			bad_request(c, SIM_BASE "PropertyValueNotInList", m);
			free(text);
			free(m);
			return;
		}
	}
	json_object_update(c->node->st.bios_pending, attrs);
	if (apply && (!strcmp(apply, "OnReset") || !strcmp(apply, "Immediate")))
		job = schedule_bios_job(c->node);
	reply_success(c, job ? 202 : 200, job);
	free(job);
}

/* A new BootOrder must be the same entries in another order. */
/* order, when it is a permutation of the current boot order, into next. */
static int plan_boot_order(const struct sim_bmc_state *st, json_t *order, char next[SIM_BOOT_ENTRIES][40])
{
	int used[SIM_BOOT_ENTRIES] = { 0 };

	if (!json_is_array(order) || json_array_size(order) != SIM_BOOT_ENTRIES)
		return -1;
	for (int i = 0; i < SIM_BOOT_ENTRIES; i++) {
		const char *e = json_string_value(json_array_get(order, (size_t)i));
		int k;

		for (k = 0; e && k < SIM_BOOT_ENTRIES; k++)
			if (!used[k] && !strcmp(st->boot_order[k], e))
				break;
		if (!e || k == SIM_BOOT_ENTRIES)
			return -1;
		used[k] = 1;
		snprintf(next[i], sizeof(next[i]), "%s", e);
	}
	return 0;
}

static int set_boot_order(struct sim_bmc_state *st, json_t *order)
{
	char next[SIM_BOOT_ENTRIES][40];

	if (plan_boot_order(st, order, next))
		return -1;
	memcpy(st->boot_order, next, sizeof(next));
	return 0;
}

/* A boot_settings System: only Boot/BootOrder, pending until the next boot. */
void sim_w_system_settings(struct sim_ctx *c)
{
	struct sim_bmc_state *st = &c->node->st;
	json_t *order = br_json_path(c->body, "Boot/BootOrder");
	char next[SIM_BOOT_ENTRIES][40];

	if (!sim_boot_via_settings(c->node)) {
		sim_reply_not_found(c);
		return;
	}
	if (!order || json_object_size(c->body) != 1 ||
	    json_object_size(json_object_get(c->body, "Boot")) != 1 || plan_boot_order(st, order, next)) {
		bad_request(c, SIM_BASE "PropertyValueNotInList",
			    "The value for BootOrder is not in the list of acceptable values.");
		return;
	}
	memcpy(st->boot_pending, next, sizeof(next));
	st->boot_pending_set = 1;
	reply_success(c, 200, NULL);
}

void sim_w_system(struct sim_ctx *c)
{
	static const char *const targets[] = { "None",	    "Pxe",	 "Cd",	       "Hdd",
					       "BiosSetup", "Utilities", "UefiTarget", "UefiHttp" };
	const char *target = br_json_str(c->body, "Boot/BootSourceOverrideTarget");
	const char *enabled = br_json_str(c->body, "Boot/BootSourceOverrideEnabled");
	struct sim_bmc_state *st = &c->node->st;
	json_t *order = br_json_path(c->body, "Boot/BootOrder");
	int ok = !target;
	json_t *locate = json_object_get(c->body, "LocationIndicatorActive");

	if (json_is_boolean(locate) && json_object_size(c->body) == 1) {
		st->locate = json_is_true(locate);
		reply_success(c, 200, NULL);
		return;
	}
	if (order && sim_boot_via_settings(c->node)) {
		bad_request(c, SIM_BASE "PropertyNotWritable",
			    "The property BootOrder is a read only property and cannot be assigned a value.");
		return;
	}
	if (order) {
		if (target || enabled || set_boot_order(st, order)) {
			bad_request(c, SIM_BASE "PropertyValueNotInList",
				    "The value for BootOrder is not in the list of acceptable values.");
			return;
		}
		reply_success(c, 200, NULL);
		return;
	}
	for (size_t i = 0; target && i < sizeof(targets) / sizeof(targets[0]); i++)
		ok |= !strcmp(target, targets[i]);
	if (enabled && strcmp(enabled, "Once") && strcmp(enabled, "Continuous") &&
	    strcmp(enabled, "Disabled"))
		ok = 0;
	if (!ok || (!target && !enabled)) {
		bad_request(c, SIM_BASE "PropertyValueNotInList",
			    "The value for Boot is not in the list of acceptable values.");
		return;
	}
	if (target)
		snprintf(st->boot_target, sizeof(st->boot_target), "%s", target);
	if (enabled)
		snprintf(st->boot_enabled, sizeof(st->boot_enabled), "%s", enabled);
	else if (target)
		snprintf(st->boot_enabled, sizeof(st->boot_enabled), "Once");
	reply_success(c, 200, NULL);
}

void sim_w_reset(struct sim_ctx *c)
{
	const char *type = br_json_str(c->body, "ResetType");
	struct sim_bmc_state *st = &c->node->st;
	int boots;

	if (sim_vbios_reset_refused(c))
		return;
	if (!type || (strcmp(type, "On") && strcmp(type, "ForceOff") && strcmp(type, "ForceRestart") &&
		      strcmp(type, "GracefulRestart") && strcmp(type, "GracefulShutdown") &&
		      strcmp(type, "PushPowerButton") && strcmp(type, "PowerCycle"))) {
		bad_request(c, SIM_BASE "ActionParameterUnknown",
			    "The ResetType parameter is missing or not valid.");
		return;
	}
	if (!strcmp(type, "On") && st->powered) {
		sim_reply_error(c, 409,
				sim_msg(SIM_MSG "PSU501", "Warning", "Server is already powered ON.",
					"No response action is required."),
				NULL);
		return;
	}
	/* A host whose OS is hung (or not installed yet) acknowledges a graceful
	 * restart and never performs it: the client must escalate. */
	if ((sim_fault_has(&c->node->faults, SIM_F_GRACEFUL_IGNORED)) && !strcmp(type, "GracefulRestart")) {
		c->resp->note = "graceful_ignored";
		reply_success(c, 204, NULL);
		return;
	}
	boots = strcmp(type, "ForceOff") && strcmp(type, "GracefulShutdown") &&
		(strcmp(type, "PushPowerButton") || !st->powered);
	st->powered = boots;
	if (boots && st->bios_job && !st->job_running) {
		/* The config job runs during POST (sim_jobs_advance ends it). */
		st->job_running = st->bios_job;
		st->job_done_ms =
		    br_now_ms() +
		    (sim_fault_has(&c->node->faults, SIM_F_SLOW_JOB) ? SIM_SLOW_JOB_MS : c->cfg->bios_job_ms);
		st->job_reads_left = c->cfg->bios_job_polls;
		st->bios_job = 0;
	}
	if (boots)
		sim_vbios_boot(c->node);
	if (boots && st->boot_pending_set) {
		memcpy(st->boot_order, st->boot_pending, sizeof(st->boot_order));
		st->boot_pending_set = 0;
	}
	if (boots && !strcmp(st->boot_enabled, "Once"))
		snprintf(st->boot_enabled, sizeof(st->boot_enabled), "Disabled");
	reply_success(c, 204, NULL);
}

int sim_job_find(const struct sim_node *n, const char *jid, struct sim_job *ret)
{
	const struct sim_bmc_state *st = &n->st;
	long long id;
	char *end = NULL;

	if (strncmp(jid, "JID_", 4))
		return 0;
	id = strtoll(jid + 4, &end, 10) - JOB_BASE;
	if (!end || *end || id < 1 || id > st->jobs)
		return 0;
	if (st->bios_job == id)
		*ret = (struct sim_job){ "Scheduled", "Task successfully scheduled.", "JCP001", 0 };
	else if (st->job_running == id)
		*ret = (struct sim_job){ "Running", "Job in progress.", "PR20", 50 };
	else if (id <= 64 && (st->jobs_failed & (1ull << (id - 1))))
		*ret = (struct sim_job){ "Failed", JOB_FAIL_MESSAGE, "SYS051", 100 };
	else
		*ret = (struct sim_job){ "Completed", "Job completed successfully.", "PR19", 100 };
	return 1;
}

void sim_job_ids(const struct sim_node *n, json_t *coll, const char *prefix)
{
	for (int j = 1; j <= n->st.jobs; j++)
		sim_coll_add(coll, "%s/JID_%lld", prefix, JOB_BASE + j);
}

json_t *sim_r_jobs(struct sim_ctx *c)
{
	json_t *coll = sim_coll("#DellJobCollection.DellJobCollection", "JobQueue", SIM_R_MGR "/Jobs");

	sim_job_ids(c->node, coll, SIM_R_MGR "/Jobs");
	sim_fw_task_ids(c->node, coll, SIM_R_MGR "/Jobs");
	return coll;
}

json_t *sim_r_job(struct sim_ctx *c)
{
	struct sim_job job;
	json_t *j;

	if (!sim_job_find(c->node, c->args[0], &job))
		return sim_fw_job_render(c, c->args[0]);
	/* --bios-job-polls: a job that needs that many polls whatever the
	 * clock (a client's request cap must not count them) */
	if (!strcmp(job.state, "Running") && c->node->st.job_reads_left > 0)
		c->node->st.job_reads_left--;
	j = sim_res("#DellJob.v1_5_0.DellJob", c->args[0], "Configure: BIOS.Setup.1-1", SIM_R_MGR "/Jobs/%s",
		    c->args[0]);
	json_object_set_new(j, "JobType", json_string("BIOSConfiguration"));
	json_object_set_new(j, "JobState", json_string(job.state));
	json_object_set_new(j, "PercentComplete", json_integer(job.percent));
	json_object_set_new(j, "Message", json_string(job.message));
	json_object_set_new(j, "MessageId", json_string(job.message_id));
	json_object_set_new(j, "TargetSettingsURI", json_null());
	return j;
}

void sim_w_jobs(struct sim_ctx *c)
{
	const char *target = br_json_str(c->body, "TargetSettingsURI");
	char *job;

	if (!target || strcmp(target, SIM_R_SYS "/Bios/Settings")) {
		bad_request(c, SIM_BASE "PropertyValueNotInList",
			    "The value for TargetSettingsURI is not in the list of acceptable values.");
		return;
	}
	if (json_object_size(c->node->st.bios_pending) == 0) {
		bad_request(c, SIM_MSG "SYS030", "Pending configuration values are not found.");
		return;
	}
	job = schedule_bios_job(c->node);
	reply_success(c, 200, job);
	free(job);
}
