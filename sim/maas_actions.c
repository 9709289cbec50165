/* The MAAS emulator's actions on one machine: machines/{id}/?op=... */
#include <stdlib.h>
#include <string.h>

#include "sim/maas_private.h"

static int status_in(int status, const int *allowed)
{
	for (; *allowed >= 0; allowed++)
		if (*allowed == status)
			return 1;
	return 0;
}

/* NodeStateViolation, as maasserver words a refused transition. */
static int refuse(struct sim_maas_reply *r, const struct sim_maas_machine *mc, const int *allowed,
		  const char *to)
{
	if (status_in(mc->status, allowed))
		return 0;
	sim_maas_reply_text(r, 409, "Invalid transition: %s -> %s.", sim_maas_status_name(mc->status), to);
	return 1;
}

static int b64_value(char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	return c == '+' ? 62 : c == '/' ? 63 : -1;
}

/* Strict base64 (padding optional); caller frees; NULL when malformed. */
static char *b64_decode(const char *in)
{
	size_t len = strlen(in), o = 0;
	char *out = br_xmalloc(len / 4 * 3 + 4);
	uint32_t acc = 0;
	int bits = 0;

	while (len && in[len - 1] == '=')
		len--;
	for (size_t i = 0; i < len; i++) {
		int v = b64_value(in[i]);

		if (v < 0) {
			free(out);
			return NULL;
		}
		acc = (acc << 6) | (uint32_t)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			out[o++] = (char)((acc >> bits) & 0xff);
		}
	}
	out[o] = '\0';
	return out;
}

static void deploy(struct sim_maas *m, struct sim_maas_machine *mc, const struct sim_maas_req *req,
		   struct sim_maas_reply *r)
{
	static const int from[] = { ST_READY, ST_ALLOCATED, -1 };
	const char *ud = sim_maas_param(&req->params, "user_data");
	const char *distro = sim_maas_param(&req->params, "distro_series");
	char *text = NULL;

	if (refuse(r, mc, from, "Deploying"))
		return;
	if (ud && !(text = b64_decode(ud))) {
		sim_maas_reply_field(r, "user_data", "Invalid base64 data.");
		return;
	}
	snprintf(mc->distro_series, sizeof(mc->distro_series), "%s", distro && *distro ? distro : "jammy");
	mc->deploys++;
	mc->installed_disk = -1;
	/* deploying a Ready machine allocates it to the caller first
	 * (src/maasserver/api/machines.py MachineHandler.deploy) */
	if (mc->status == ST_READY || !mc->owner[0])
		snprintf(mc->owner, sizeof(mc->owner), "%s", req->user);
	/* ... by Node.acquire, which saves it Allocated before Node.start
	 * saves it Deploying: two status changes, an event each. */
	if (mc->status == ST_READY)
		sim_maas_status_changed(m, mc, ST_ALLOCATED);
	sim_maas_set_status(m, mc, ST_DEPLOYING, "Deploying", "INFO", "Deploying %s", mc->distro_series);
	sim_maas_log_field(r, "deploys", json_integer(mc->deploys));
	sim_maas_log_field(r, "user_data", br_json_string_or_null(text));
	free(text);
	sim_maas_reply_machine(m, mc, r);
}

static void set_storage_layout(struct sim_maas *m, struct sim_maas_machine *mc,
			       const struct sim_maas_req *req, struct sim_maas_reply *r)
{
	static const char *const layouts[] = { "flat", "lvm", "bcache", "vmfs6", "vmfs7", "blank", NULL };
	const char *layout = sim_maas_param(&req->params, "storage_layout");
	const char *root_device = sim_maas_param(&req->params, "root_device");
	int known = 0, root = mc->boot_disk;
	long id;

	/* src/maasserver/api/machines.py MachineHandler.set_storage_layout:
	 * Ready only (NodeStateViolation, 409), Allocated included. */
	if (mc->status != ST_READY) {
		sim_maas_reply_text(r, 409,
				    "Cannot change the storage layout on a machine that is not Ready.");
		return;
	}
	if (!layout)
		layout = "flat";
	for (const char *const *l = layouts; *l; l++)
		known |= !strcmp(*l, layout);
	if (!known) {
		sim_maas_reply_field(r, "storage_layout",
				     "Select a valid choice. %s is not one of the available choices.",
				     layout);
		return;
	}
	if (root_device) {
		size_t n = mc->host >= 0 ? m->hosts[mc->host].n_disks : 0;

		if (br_parse_long(root_device, mc->bd_base, mc->bd_base + (long)n - 1, &id)) {
			sim_maas_reply_field(r, "root_device",
					     "Select a valid choice. That choice is not one of the "
					     "available choices.");
			return;
		}
		root = (int)(id - mc->bd_base);
	}
	mc->root_disk = strcmp(layout, "blank") ? root : -1;
	if (mc->root_disk >= 0)
		sim_maas_log_field(r, "root_disk_serial",
				   json_string(m->hosts[mc->host].disks[mc->root_disk].serial));
	sim_maas_reply_machine(m, mc, r);
}

static void commission(struct sim_maas *m, struct sim_maas_machine *mc, struct sim_maas_reply *r)
{
	/* src/maasserver/node_action.py Commission.actionable_statuses; the
	 * API's CommissionForm refuses any other status with a form error
	 * (src/maasserver/forms/ephemeral.py ScriptForm.clean), a 400. */
	static const int from[] = { ST_NEW, ST_FAILED_COMMISSIONING, ST_READY, ST_BROKEN, -1 };

	if (!status_in(mc->status, from)) {
		sim_maas_reply_field(r, "__all__",
				     "Commission is not available because of the current state of the node.");
		return;
	}
	mc->before_action = mc->status;
	mc->commissions++;
	/* Commissioning rediscovers storage: a chosen boot disk is forgotten. */
	mc->boot_disk = mc->root_disk = -1;
	sim_maas_set_status(m, mc, ST_COMMISSIONING, "Commissioning", "INFO", "Commissioning started");
	sim_maas_reply_machine(m, mc, r);
}

static void test(struct sim_maas *m, struct sim_maas_machine *mc, struct sim_maas_reply *r)
{
	/* src/maasserver/node_action.py Test.actionable_statuses (those the
	 * emulator has), refused as forms/ephemeral.py ScriptForm.clean does. */
	static const int from[] = { ST_FAILED_COMMISSIONING,
				    ST_NEW,
				    ST_READY,
				    ST_ALLOCATED,
				    ST_FAILED_DEPLOYMENT,
				    ST_DEPLOYED,
				    ST_BROKEN,
				    ST_FAILED_TESTING,
				    -1 };

	if (!status_in(mc->status, from)) {
		sim_maas_reply_field(r, "__all__",
				     "Test is not available because of the current state of the node.");
		return;
	}
	if (!sim_maas_power_works(m, mc)) {
		/* the same power-on as commissioning's (models/node.py
		 * _start_bmc_unavailable) */
		sim_maas_reply_text(r, 503,
				    "Unable to power control the node. Please check power credentials.");
		return;
	}
	sim_maas_start_testing(m, mc, mc->status, "Testing started");
	sim_maas_reply_machine(m, mc, r);
}

/* Release, as src/maasserver/api/machines.py MachineHandler.release and
 * src/maasserver/models/node.py Node.release_or_erase do it: already
 * Releasing or Ready is a success with nothing to do; RELEASABLE_STATUSES
 * start it; anything else is a NodeStateViolation, 409. erase=true goes
 * through Disk erasing first (Node.start_disk_erasing); a powered-on
 * machine then goes through Releasing (its power-off), a powered-off one is
 * Ready at once. The owner and owner data go with it. */
int sim_maas_release(struct sim_maas *m, struct sim_maas_machine *mc, int erase, struct sim_maas_reply *r)
{
	static const int releasable[] = {
		ST_ALLOCATED,		ST_DEPLOYED, ST_DEPLOYING, ST_FAILED_DEPLOYMENT, ST_FAILED_RELEASING,
		ST_FAILED_DISK_ERASING, -1
	};

	if (mc->status == ST_RELEASING || mc->status == ST_DISK_ERASING || mc->status == ST_READY)
		return 0;
	if (!status_in(mc->status, releasable)) {
		sim_maas_reply_text(r, 409, "Machine cannot be released in its current state ('%s').",
				    sim_maas_status_name(mc->status));
		return -1;
	}
	mc->installed_disk = -1;
	mc->n_owner_data = 0;
	mc->agent_name[0] = '\0';
	mc->owner[0] = '\0';
	mc->erase = erase;
	if (erase)
		sim_maas_set_status(m, mc, ST_DISK_ERASING, "Erasing disk", "INFO", "Erasing disks");
	else if (!strcmp(mc->power_state, "off"))
		sim_maas_set_status(m, mc, ST_READY, "Released", "INFO", "Released");
	else
		sim_maas_set_status(m, mc, ST_RELEASING, "Releasing", "INFO", "Releasing");
	return 0;
}

static int param_true(const struct sim_maas_req *req, const char *name)
{
	const char *v = sim_maas_param(&req->params, name);

	return v && (!strcmp(v, "true") || !strcmp(v, "True") || !strcmp(v, "1"));
}

/* POST machines/{id}/?op=set_owner_data: src/maasserver/api/machines.py
 * MachineHandler.set_owner_data, on an owned machine only; a key given an
 * empty value is removed. */
static void set_owner_data(struct sim_maas *m, struct sim_maas_machine *mc, const struct sim_maas_req *req,
			   struct sim_maas_reply *r)
{
	if (!sim_maas_owned(mc->status)) {
		sim_maas_reply_text(r, 409,
				    "Machine is not owned: owner data can only be set on an owned machine.");
		return;
	}
	for (size_t i = 0; i < req->params.n; i++) {
		const struct sim_maas_param *p = &req->params.items[i];
		size_t k;

		if (!strcmp(p->name, "op"))
			continue;
		for (k = 0; k < mc->n_owner_data && strcmp(mc->owner_data[k].key, p->name); k++)
			;
		if (!*p->value) {
			if (k < mc->n_owner_data)
				mc->owner_data[k] = mc->owner_data[--mc->n_owner_data];
			continue;
		}
		if (k == mc->n_owner_data) {
			if (k == SIM_MAAS_OWNER_DATA_MAX ||
			    strlen(p->name) >= sizeof(mc->owner_data[k].key)) {
				sim_maas_reply_field(r, p->name, "Too many or too long owner data keys.");
				return;
			}
			snprintf(mc->owner_data[k].key, sizeof(mc->owner_data[k].key), "%s", p->name);
			mc->n_owner_data++;
		}
		snprintf(mc->owner_data[k].value, sizeof(mc->owner_data[k].value), "%s", p->value);
	}
	sim_maas_reply_machine(m, mc, r);
}

static void simple_transition(struct sim_maas *m, struct sim_maas_machine *mc, const struct sim_maas_req *req,
			      struct sim_maas_reply *r)
{
	static const int abort_from[] = { ST_COMMISSIONING, ST_DEPLOYING, -1 };
	static const int fixed_from[] = { ST_BROKEN, -1 };
	const char *op = req->op;

	if (!strcmp(op, "release")) {
		/* what the client asked to wipe, for tests to read in the log */
		sim_maas_log_field(r, "erase", br_json_string_or_null(sim_maas_param(&req->params, "erase")));
		if (sim_maas_release(m, mc, param_true(req, "erase"), r))
			return;
	} else if (!strcmp(op, "abort")) {
		if (refuse(r, mc, abort_from, "abort"))
			return;
		if (mc->status == ST_COMMISSIONING)
			sim_maas_set_status(m, mc, mc->before_action, "Aborted commissioning", "INFO",
					    "Aborted commissioning");
		else
			sim_maas_set_status(m, mc, ST_ALLOCATED, "Aborted deployment", "INFO",
					    "Aborted deployment");
	} else if (!strcmp(op, "mark_broken")) {
		const char *comment = sim_maas_param(&req->params, "comment");

		/* src/maasserver/models/node.py mark_broken: a Broken node
		 * cannot be marked broken again (NodeStateViolation); the
		 * comment becomes the status message and an event
		 * (src/maasserver/api/machines.py MachineHandler.mark_broken
		 * passes it as the reason). That handler asks for
		 * NodePermission.edit and then raises MAASAPIForbidden unless
		 * node.owner_id is the caller's: only the owner may, an admin
		 * included, and nobody while the machine is unowned (Ready,
		 * New). MAASAPIForbidden and PermissionDenied carry no text
		 * (src/maasserver/exceptions.py make_http_response,
		 * src/maasserver/middleware.py): a 403 with an empty
		 * text/plain body. */
		if (mc->status == ST_BROKEN) {
			sim_maas_reply_text(r, 409, "Invalid transition: Broken -> Broken.");
			return;
		}
		if (!sim_maas_owned(mc->status) || strcmp(mc->owner, req->user)) {
			sim_maas_reply_text(r, 403, "%s", "");
			sim_maas_log_field(r, "owner", json_string(mc->owner));
			sim_maas_log_field(r, "user", json_string(req->user));
			return;
		}
		mc->broken_from = mc->status;
		sim_maas_set_status(m, mc, ST_BROKEN, "Marking node broken", "WARNING", "%s",
				    comment && *comment ? comment : "Marked broken");
	} else if (!strcmp(op, "mark_fixed")) {
		/* src/maasserver/models/node.py mark_fixed: only from Broken,
		 * only once commissioned; a machine broken while Deployed goes
		 * back to Deployed (it kept running and its OS), any other to
		 * Ready. */
		if (refuse(r, mc, fixed_from, "Ready"))
			return;
		if (!mc->commissioned) {
			sim_maas_reply_text(r, 409,
					    "Unable to be mark fixed because it has not been commissioned.");
			return;
		}
		if (mc->broken_from == ST_DEPLOYED)
			sim_maas_set_status(m, mc, ST_DEPLOYED, "Marking node fixed", "INFO", "Marked fixed");
		else
			sim_maas_set_status(m, mc, ST_READY, "Marking node fixed", "INFO", "Marked fixed");
	} else {
		snprintf(mc->power_state, sizeof(mc->power_state), "%s",
			 !strcmp(op, "power_on") ? "on" : "off");
	}
	sim_maas_reply_machine(m, mc, r);
}

/* GET machines/{id}/?op=query_power_state: src/maasserver/api/machines.py
 * MachineHandler.query_power_state asks the rack controller's power
 * driver, which logs in to the BMC with the power parameters MAAS has; a
 * driver that fails raises PowerProblem (src/maasserver/exceptions.py, 503
 * SERVICE_UNAVAILABLE) with its text. Judged against the BMC as it is now:
 * after a credentials rotation, only the new password works. */
static void query_power_state(struct sim_maas *m, struct sim_maas_machine *mc, struct sim_maas_reply *r)
{
	if (!sim_maas_power_works(m, mc)) {
		sim_maas_log_field(r, "power_works", json_false());
		sim_maas_reply_text(r, 503,
				    "Unable to query power state: power driver failed to log in to the BMC "
				    "with the power parameters given (check power_user and power_pass).");
		return;
	}
	sim_maas_log_field(r, "power_works", json_true());
	sim_maas_reply_json(r, 200, json_pack("{s:s}", "state", mc->power_state));
}

/* GET machines/{id}/?op=power_parameters: src/maasserver/api/machines.py
 * MachineHandler.power_parameters, reserved for admin users (403 "This
 * method is reserved for admin users." otherwise), answers the machine's
 * power parameters as MAAS keeps them, the password in clear. Those of the
 * power types the emulator takes: redfish (power_address, power_user,
 * power_pass, node_id: src/provisioningserver/drivers/power/redfish.py)
 * and ipmi (the same but node_id, and power_driver: drivers/power/ipmi.py). */
static void power_parameters(const struct sim_maas_machine *mc, const struct sim_maas_req *req,
			     struct sim_maas_reply *r)
{
	json_t *doc;

	if (!req->user_is_admin) {
		sim_maas_reply_text(r, 403, "This method is reserved for admin users.");
		return;
	}
	doc = json_pack("{s:s, s:s, s:s}", "power_address", mc->power_address, "power_user", mc->power_user,
			"power_pass", mc->power_pass_set ? mc->power_pass : "");
	if (!strcmp(mc->power_type, "redfish"))
		json_object_set_new(doc, "node_id", json_string(mc->node_id));
	else if (!strcmp(mc->power_type, "ipmi"))
		json_object_set_new(doc, "power_driver",
				    json_string(*mc->power_driver ? mc->power_driver : "LAN_2_0"));
	sim_maas_reply_json(r, 200, doc);
}

void sim_maas_machine_action(struct sim_maas *m, struct sim_maas_machine *mc, const struct sim_maas_req *req,
			     struct sim_maas_reply *r)
{
	static const char *const simple[] = { "release",  "abort",     "mark_broken", "mark_fixed",
					      "power_on", "power_off", NULL };
	const char *op = req->op;

	if (!strcmp(req->method, "GET")) {
		if (!op)
			sim_maas_reply_machine(m, mc, r);
		else if (!strcmp(op, "query_power_state"))
			query_power_state(m, mc, r);
		else if (!strcmp(op, "power_parameters"))
			power_parameters(mc, req, r);
		else
			sim_maas_reply_bad_op(r, req);
		return;
	}
	if (strcmp(req->method, "POST") || !op) {
		sim_maas_reply_bad_op(r, req);
		return;
	}
	if (!strcmp(op, "deploy"))
		deploy(m, mc, req, r);
	else if (!strcmp(op, "commission"))
		commission(m, mc, r);
	else if (!strcmp(op, "test"))
		test(m, mc, r);
	else if (!strcmp(op, "set_storage_layout"))
		set_storage_layout(m, mc, req, r);
	else if (!strcmp(op, "set_owner_data"))
		set_owner_data(m, mc, req, r);
	else {
		for (const char *const *s = simple; *s; s++)
			if (!strcmp(*s, op)) {
				simple_transition(m, mc, req, r);
				return;
			}
		sim_maas_reply_bad_op(r, req);
	}
}
