/*
 * What a configure stage changes, the iDRAC way: BIOS attributes are
 * PATCHed into Bios/Settings (pending), need a config job (POST to the
 * Dell Jobs collection, or @Redfish.SettingsApplyTime in the PATCH), and
 * take effect only at the next reset. The boot override is PATCHed on the
 * System and applies at once.
 */
#include <stdlib.h>
#include <string.h>

#include "idrac.h"

#define JOB_BASE 742000000000LL /* job ids look like JID_742000000001 */

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
	}
	json_object_update(c->node->st.bios_pending, attrs);
	if (apply && (!strcmp(apply, "OnReset") || !strcmp(apply, "Immediate")))
		job = schedule_bios_job(c->node);
	reply_success(c, job ? 202 : 200, job);
	free(job);
}

void sim_w_system(struct sim_ctx *c)
{
	static const char *const targets[] = {"None",	   "Pxe",	"Cd",	      "Hdd",
					      "BiosSetup", "Utilities", "UefiTarget", "UefiHttp"};
	const char *target = br_json_str(c->body, "Boot/BootSourceOverrideTarget");
	const char *enabled = br_json_str(c->body, "Boot/BootSourceOverrideEnabled");
	struct sim_bmc_state *st = &c->node->st;
	int ok = !target;

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
	boots = strcmp(type, "ForceOff") && strcmp(type, "GracefulShutdown") &&
		(strcmp(type, "PushPowerButton") || !st->powered);
	st->powered = boots;
	if (boots && st->bios_job) {
		/* The config job runs during POST and applies the pending settings. */
		json_object_update(st->bios, st->bios_pending);
		json_object_clear(st->bios_pending);
		st->bios_job = 0;
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
	long long id;
	char *end = NULL;
	int scheduled;
	json_t *j;

	if (strncmp(c->args[0], "JID_", 4))
		return NULL;
	id = strtoll(c->args[0] + 4, &end, 10) - JOB_BASE;
	if (!end || *end || id < 1 || id > st->jobs)
		return NULL;
	scheduled = st->bios_job == id;
	j = sim_res("#DellJob.v1_5_0.DellJob", c->args[0], "Configure: BIOS.Setup.1-1", SIM_R_MGR "/Jobs/%s",
		    c->args[0]);
	json_object_set_new(j, "JobType", json_string("BIOSConfiguration"));
	json_object_set_new(j, "JobState", json_string(scheduled ? "Scheduled" : "Completed"));
	json_object_set_new(j, "PercentComplete", json_integer(scheduled ? 0 : 100));
	json_object_set_new(
	    j, "Message",
	    json_string(scheduled ? "Task successfully scheduled." : "Job completed successfully."));
	json_object_set_new(j, "MessageId", json_string(scheduled ? "JCP001" : "PR19"));
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
