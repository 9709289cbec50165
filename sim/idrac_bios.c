/*
 * What a configure stage changes, the iDRAC way: BIOS attributes are
 * PATCHed into Bios/Settings (pending), need a config job (POST to the
 * Dell Jobs collection, or @Redfish.SettingsApplyTime in the PATCH), and
 * take effect only when the job has run: Scheduled until the next reset,
 * Running for SIM_JOB_RUN_MS of POST, then Completed (or Failed under
 * bios_job_fail, leaving the attributes as they were). The boot order and
 * override are PATCHed on the System and apply at once.
 */
#include <stdlib.h>
#include <string.h>

#include "idrac.h"

#define JOB_BASE 742000000000LL /* job ids look like JID_742000000001 */
#define JOB_FAIL_MESSAGE                                                                                   \
	"Unable to apply the BIOS configuration: ProcCStates is read-only while SysProfile is not Custom."

/* Values iDRAC9 accepts for the enumerated attributes the baseline sets
 * (Dell's BIOS attribute registry, abridged); NULL-terminated. */
static const char *const on_off[] = { "Enabled", "Disabled", NULL };
static const struct {
	const char *name;
	const char *const *values;
} enums[] = {
	{ "SysProfile", (const char *const[]){ "PerfPerWattOptimizedDapc", "PerfPerWattOptimizedOs", "PerfOptimized",
					       "PerfWorkStationOptimized", "Custom", NULL } },
	{ "MemOpMode", (const char *const[]){ "OptimizerMode", "FaultResilientMode", "MirrorMode", NULL } },
	{ "BootMode", (const char *const[]){ "Uefi", "Bios", NULL } },
	{ "PxeDev1Protocol", (const char *const[]){ "IPv4", "IPv6", "IPv4andIPv6", NULL } },
	{ "ProcCStates", on_off }, { "ProcC1E", on_off }, { "ProcTurboMode", on_off }, { "LogicalProc", on_off },
	{ "ProcVirtualization", on_off }, { "ProcX2Apic", on_off }, { "SriovGlobalEnable", on_off },
	{ "NodeInterleave", on_off }, { "MmioAbove4Gb", on_off }, { "PxeDev1EnDis", on_off },
	{ "HttpDev1EnDis", on_off }, { "SecureBoot", on_off }, { "ErrPrompt", on_off },
};

void sim_jobs_advance(struct sim_node *n)
{
	struct sim_bmc_state *st = &n->st;

	if (!st->job_running || br_now_ms() < st->job_done_ms)
		return;
	if (n->faults & SIM_FAULT_BIT(SIM_F_BIOS_JOB_FAIL)) {
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
static int value_ok(const char *name, json_t *value)
{
	const char *v = json_string_value(value);

	for (size_t i = 0; i < sizeof(enums) / sizeof(enums[0]); i++) {
		if (strcmp(enums[i].name, name))
			continue;
		for (const char *const *a = enums[i].values; v && *a; a++)
			if (!strcmp(*a, v))
				return 1;
		return 0;
	}
	return 1;
}

json_t *sim_r_bios(struct sim_ctx *c)
{
	json_t *b =
	    sim_res("#Bios.v1_2_1.Bios", "Bios", "BIOS Configuration Current Settings", SIM_R_SYS "/Bios");

	json_object_set_new(b, "Description", json_string("BIOS Configuration Current Settings"));
	json_object_set_new(b, "AttributeRegistry", json_string("BiosAttributeRegistry.v1_0_0"));
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

	if (!json_is_object(attrs)) {
		bad_request(c, SIM_BASE "PropertyMissing", "The property Attributes is a required property.");
		return;
	}
	json_object_foreach(attrs, name, v)
	{
		json_t *cur = json_object_get(c->node->st.bios, name);

		if (!cur || !strncmp(name, "System", 6)) {
			char *m = br_xasprintf(
			    "The property %s is not in the list of valid properties for the resource.", name);

			bad_request(c, SIM_BASE "PropertyUnknown", m);
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
		if (!value_ok(name, v)) {
			char *text = json_dumps(v, JSON_ENCODE_ANY), *m;

			m = br_xasprintf("The value %s for the property %s is not in the list of acceptable values.",
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
	if (!order || json_object_size(c->body) != 1 || json_object_size(json_object_get(c->body, "Boot")) != 1 ||
	    plan_boot_order(st, order, next)) {
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
	static const char *const targets[] = {"None",	   "Pxe",	"Cd",	      "Hdd",
					      "BiosSetup", "Utilities", "UefiTarget", "UefiHttp"};
	const char *target = br_json_str(c->body, "Boot/BootSourceOverrideTarget");
	const char *enabled = br_json_str(c->body, "Boot/BootSourceOverrideEnabled");
	struct sim_bmc_state *st = &c->node->st;
	json_t *order = br_json_path(c->body, "Boot/BootOrder");
	int ok = !target;

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
	if ((c->node->faults & SIM_FAULT_BIT(SIM_F_GRACEFUL_IGNORED)) && !strcmp(type, "GracefulRestart")) {
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
		st->job_done_ms = br_now_ms() +
				  (c->node->faults & SIM_FAULT_BIT(SIM_F_SLOW_JOB) ? SIM_SLOW_JOB_MS : SIM_JOB_RUN_MS);
		st->bios_job = 0;
	}
	if (boots && st->boot_pending_set) {
		memcpy(st->boot_order, st->boot_pending, sizeof(st->boot_order));
		st->boot_pending_set = 0;
	}
	if (boots && !strcmp(st->boot_enabled, "Once"))
		snprintf(st->boot_enabled, sizeof(st->boot_enabled), "Disabled");
	reply_success(c, 204, NULL);
}

json_t *sim_r_jobs(struct sim_ctx *c)
{
	json_t *coll = sim_coll("#DellJobCollection.DellJobCollection", "JobQueue", SIM_R_MGR "/Jobs");

	for (int j = 1; j <= c->node->st.jobs; j++)
		sim_coll_add(coll, SIM_R_MGR "/Jobs/JID_%lld", JOB_BASE + j);
	return coll;
}

json_t *sim_r_job(struct sim_ctx *c)
{
	const struct sim_bmc_state *st = &c->node->st;
	const char *state, *message, *message_id;
	long long id;
	char *end = NULL;
	int percent;
	json_t *j;

	if (strncmp(c->args[0], "JID_", 4))
		return NULL;
	id = strtoll(c->args[0] + 4, &end, 10) - JOB_BASE;
	if (!end || *end || id < 1 || id > st->jobs)
		return NULL;
	if (st->bios_job == id) {
		state = "Scheduled", message = "Task successfully scheduled.", message_id = "JCP001", percent = 0;
	} else if (st->job_running == id) {
		state = "Running", message = "Job in progress.", message_id = "PR20", percent = 50;
	} else if (id <= 64 && (st->jobs_failed & (1ull << (id - 1)))) {
		state = "Failed", message = JOB_FAIL_MESSAGE, message_id = "SYS051", percent = 100;
	} else {
		state = "Completed", message = "Job completed successfully.", message_id = "PR19", percent = 100;
	}
	j = sim_res("#DellJob.v1_5_0.DellJob", c->args[0], "Configure: BIOS.Setup.1-1", SIM_R_MGR "/Jobs/%s",
		    c->args[0]);
	json_object_set_new(j, "JobType", json_string("BIOSConfiguration"));
	json_object_set_new(j, "JobState", json_string(state));
	json_object_set_new(j, "PercentComplete", json_integer(percent));
	json_object_set_new(j, "Message", json_string(message));
	json_object_set_new(j, "MessageId", json_string(message_id));
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
