/* The MAAS emulator's machines/ resource and node state machine. */
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sim/maas_private.h"

struct sim_maas_machine *sim_maas_find(struct sim_maas *m, const char *system_id)
{
	for (size_t i = 0; i < m->n_machines; i++)
		if (!strcmp(m->machines[i].system_id, system_id))
			return &m->machines[i];
	return NULL;
}

static void add_event(struct sim_maas *m, struct sim_maas_machine *mc, const char *type, const char *level,
		      const char *username, const char *description)
{
	struct sim_maas_event *e;
	struct tm tm;
	time_t now = time(NULL);

	if (mc->n_events == SIM_MAAS_EVENTS_MAX) {
		mc->first_event = (mc->first_event + 1) % SIM_MAAS_EVENTS_MAX;
		mc->n_events--;
	}
	e = &mc->events[(mc->first_event + mc->n_events++) % SIM_MAAS_EVENTS_MAX];
	e->id = m->next_event_id++;
	snprintf(e->type, sizeof(e->type), "%s", type);
	snprintf(e->level, sizeof(e->level), "%s", level);
	snprintf(e->username, sizeof(e->username), "%s", username);
	snprintf(e->description, sizeof(e->description), "%s", description);
	/* src/maasserver/api/events.py DATETIME_FORMAT */
	if (!gmtime_r(&now, &tm) || !strftime(e->created, sizeof(e->created), "%a, %d %b. %Y %H:%M:%S", &tm))
		e->created[0] = '\0';
}

/* src/maasserver/models/signals/events.py emit_state_transition_event:
 * every save that changes a machine's status writes an event of type
 * NODE_CHANGED_STATUS, which the events API shows by its type's
 * description, "Node changed status", at its level, DEBUG
 * (src/maascommon/events.py; INFO before MAAS 2.6.0), with no user
 * (Event.owner: "unknown"), described "From 'Old' to 'New'" in
 * NODE_STATUS_CHOICES' display names, " (to USER)" added for Allocated.
 * Written first: the status is saved before the event of the action that
 * moved it (Node.end_deployment: update_status and save, then
 * create_node_event). A status saved unchanged writes none. */
void sim_maas_status_changed(struct sim_maas *m, struct sim_maas_machine *mc, int status)
{
	char text[sizeof(mc->events[0].description)];

	if (mc->status != status && !m->cfg.no_status_events) {
		snprintf(text, sizeof(text), "From '%s' to '%s'%s%s%s", sim_maas_status_name(mc->status),
			 sim_maas_status_name(status), status == ST_ALLOCATED ? " (to " : "",
			 status == ST_ALLOCATED ? mc->owner : "", status == ST_ALLOCATED ? ")" : "");
		add_event(m, mc, "Node changed status", "DEBUG", "unknown", text);
	}
	mc->status = status;
}

void sim_maas_set_status(struct sim_maas *m, struct sim_maas_machine *mc, int status, const char *event_type,
			 const char *level, const char *fmt, ...)
{
	char text[sizeof(mc->status_message)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	sim_maas_status_changed(m, mc, status);
	mc->since_ms = br_now_ms();
	snprintf(mc->status_message, sizeof(mc->status_message), "%s", text);
	add_event(m, mc, event_type, level, "admin", text);
}

static const struct sim_maas_host *host_of(struct sim_maas *m, const struct sim_maas_machine *mc)
{
	return mc->host >= 0 ? &m->hosts[mc->host] : NULL;
}

/* NODE_STATUS names as map_enum_reverse gives them (src/maasserver/enum.py),
 * for the statuses commissioning can revert to. */
static const char *enum_name(int status)
{
	switch (status) {
	case ST_NEW:
		return "NEW";
	case ST_FAILED_COMMISSIONING:
		return "FAILED_COMMISSIONING";
	case ST_READY:
		return "READY";
	case ST_BROKEN:
		return "BROKEN";
	case ST_COMMISSIONING:
		return "COMMISSIONING";
	default:
		return "UNKNOWN";
	}
}

void sim_maas_start_testing(struct sim_maas *m, struct sim_maas_machine *mc, int from, const char *fmt, ...)
{
	char text[sizeof(mc->status_message)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	mc->testing_from = from;
	mc->tests++;
	sim_maas_set_status(m, mc, ST_TESTING, "Testing", "INFO", "%s", text);
}

/* --maas-commission-ms is commissioning as a MAAS user waits for it: from
 * the commission request to Ready. Its last third is the testing scripts
 * MAAS runs after the commissioning ones (Commissioning -> Testing ->
 * Ready), so a client sees both statuses while the whole stays the
 * configured time; a test run alone (op=test) takes that third too. */
static int64_t testing_ms(const struct sim_maas *m)
{
	return m->cfg.commission_ms / 3;
}

void sim_maas_advance(struct sim_maas *m, struct sim_maas_machine *mc, int64_t now_ms)
{
	const struct sim_maas_host *h = host_of(m, mc);

	if (mc->status == ST_COMMISSIONING && !sim_maas_power_works(m, mc)) {
		/* src/maasserver/models/node.py Node._start_bmc_unavailable: the
		 * power-on that starts commissioning failed on every rack
		 * controller, so the node goes back to the status it had, with
		 * a NODE_POWER_QUERY_FAILED event (src/provisioningserver/events.py,
		 * "Failed to query node's BMC", level ERROR) naming the user. */
		sim_maas_set_status(
		    m, mc, mc->before_action, "Failed to query node's BMC", "ERROR",
		    "(admin) - Aborting %s and reverting to %s. Unable to power control the node. "
		    "Please check power credentials.",
		    enum_name(ST_COMMISSIONING), enum_name(mc->before_action));
		return;
	}
	if (mc->status == ST_COMMISSIONING && !(h && h->commission_hang) &&
	    now_ms - mc->since_ms >= m->cfg.commission_ms - testing_ms(m)) {
		snprintf(mc->power_state, sizeof(mc->power_state), "off");
		if (!h)
			sim_maas_set_status(m, mc, ST_FAILED_COMMISSIONING, "Failed commissioning", "ERROR",
					    "Commissioning failed: no machine PXE booted from %s (timed out)",
					    mc->n_macs ? mc->macs[0] : "(no MAC)");
		else if (h->commission_fail)
			sim_maas_set_status(m, mc, ST_FAILED_COMMISSIONING, "Failed commissioning", "ERROR",
					    "Commissioning failed: 20-maas-03-machine-resources exited 1: "
					    "nvme nvme1: I/O 12 QID 0 timeout, reset controller");
		else {
			mc->commissioned = 1;
			/* MAAS boots from, and lays storage out on, the physical
			 * disk with the lowest id: the one the kernel named first. */
			mc->boot_disk = h->n_disks ? 0 : -1;
			mc->root_disk = mc->boot_disk;
			/* src/maasserver/node_status.py: commissioning runs the
			 * testing scripts next (Commissioning -> Testing), which
			 * end Ready (NODE_TESTING_RESET_READY_TRANSITIONS). */
			int64_t ended = mc->since_ms + m->cfg.commission_ms - testing_ms(m);

			sim_maas_start_testing(m, mc, ST_COMMISSIONING,
					       "Commissioning complete; %zu disks found", h->n_disks);
			/* Testing began when commissioning ended, not at this read. */
			mc->since_ms = ended;
			sim_maas_advance(m, mc, now_ms);
		}
	} else if (mc->status == ST_TESTING && now_ms - mc->since_ms >= testing_ms(m)) {
		snprintf(mc->power_state, sizeof(mc->power_state), "off");
		if (h && h->test_fail_once && mc->tests == 1)
			/* src/maasserver/node_status.py NODE_FAILURE_STATUS_TRANSITION_MAP:
			 * Testing fails to Failed testing. */
			sim_maas_set_status(m, mc, ST_FAILED_TESTING, "Failed testing", "ERROR",
					    "Testing failed: smartctl-validate on nvme0n1 exited 1: "
					    "SMART overall-health self-assessment test result: FAILED");
		else if (mc->testing_from == ST_READY || mc->testing_from == ST_COMMISSIONING ||
			 mc->testing_from == ST_NEW || mc->testing_from == ST_FAILED_TESTING ||
			 mc->testing_from == ST_FAILED_DEPLOYMENT || mc->testing_from == ST_BROKEN)
			sim_maas_set_status(m, mc, ST_READY, "Ready", "INFO", "Testing complete");
		else
			sim_maas_set_status(m, mc, mc->testing_from, "Testing complete", "INFO",
					    "Testing complete");
	} else if (mc->status == ST_DISK_ERASING && now_ms - mc->since_ms >= m->cfg.commission_ms / 2) {
		/* src/maasserver/models/node.py: erasing runs in the ephemeral
		 * environment, which powers the machine on; its end releases it
		 * (Node.end_disk_erasing -> release, through Releasing). */
		int64_t ended = mc->since_ms + m->cfg.commission_ms / 2;

		mc->erase = 0;
		snprintf(mc->power_state, sizeof(mc->power_state), "on");
		sim_maas_set_status(m, mc, ST_RELEASING, "Releasing", "INFO", "Disks erased; releasing");
		mc->since_ms = ended;
		sim_maas_advance(m, mc, now_ms);
	} else if (mc->status == ST_RELEASING && now_ms - mc->since_ms >= m->cfg.commission_ms / 4) {
		/* src/maasserver/models/node.py Node.release: Releasing is the
		 * power-off; MAAS cannot power it, the release fails (13,
		 * "Releasing failed"), else it is Ready. */
		if (!sim_maas_power_works(m, mc)) {
			sim_maas_set_status(
			    m, mc, ST_FAILED_RELEASING, "Failed releasing", "ERROR",
			    "Releasing failed: unable to power off the node. Please check power "
			    "credentials.");
			return;
		}
		snprintf(mc->power_state, sizeof(mc->power_state), "off");
		sim_maas_set_status(m, mc, ST_READY, "Released", "INFO", "Released");
	} else if (mc->status == ST_DEPLOYING && now_ms - mc->since_ms >= m->cfg.deploy_ms) {
		if (!h || mc->root_disk < 0) {
			sim_maas_set_status(m, mc, ST_FAILED_DEPLOYMENT, "Failed deployment", "ERROR",
					    "Installation failed: no root filesystem in the storage layout");
			return;
		}
		mc->installed_disk = mc->root_disk;
		snprintf(mc->power_state, sizeof(mc->power_state), "on");
		sim_maas_set_status(m, mc, ST_DEPLOYED, "Deployed", "INFO", "Deployed %s on %s (serial %s)",
				    mc->distro_series, h->disks[mc->root_disk].name,
				    h->disks[mc->root_disk].serial);
	}
}

/* The first machine with this MAC: keys first, the text only where the
 * keys agree (see sim_maas_host_mac). */
static struct sim_maas_machine *machine_by_mac(struct sim_maas *m, const char *mac)
{
	uint64_t key = sim_maas_mac_key(mac);

	for (size_t i = 0; i < m->n_machines; i++)
		for (size_t k = 0; k < m->machines[i].n_macs; k++)
			if (m->machines[i].mac_keys[k] == key && !strcmp(m->machines[i].macs[k], mac))
				return &m->machines[i];
	return NULL;
}

static struct sim_maas_machine *machine_by_hostname(struct sim_maas *m, const char *hostname)
{
	for (size_t i = 0; i < m->n_machines; i++)
		if (!strcmp(m->machines[i].hostname, hostname))
			return &m->machines[i];
	return NULL;
}

static void new_system_id(struct sim_maas *m, char out[8])
{
	static const char alphabet[] = "abcdefghjkmnpqrstwxy0123456789";

	do {
		uint64_t z = (m->rng += 0x9e3779b97f4a7c15ULL);

		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
		z ^= z >> 27;
		for (int i = 0; i < 6; i++, z /= 30)
			out[i] = alphabet[z % 30];
		out[6] = '\0';
	} while (sim_maas_find(m, out));
}

/* The power parameters a power type requires: the settings made with
 * required=True in src/provisioningserver/drivers/power/redfish.py
 * (power_address, power_user, power_pass) and ipmi.py (power_address;
 * power_driver defaults to LAN_2_0 and must be one of IPMI_DRIVER),
 * refused as 400 {"power_parameters": [...]} (src/maasserver/forms/__init__.py
 * power parameter validation). 0 when complete. */
static int check_power_parameters(const char *type, const struct sim_maas_req *req, struct sim_maas_reply *r)
{
	static const char *const redfish[] = { "power_address", "power_user", "power_pass", NULL };
	static const char *const ipmi[] = { "power_address", NULL };
	const char *const *need = !strcmp(type, "redfish") ? redfish : !strcmp(type, "ipmi") ? ipmi : NULL;
	const char *driver = sim_maas_param(&req->params, "power_parameters_power_driver");
	char name[64];

	for (; need && *need; need++) {
		const char *v;

		snprintf(name, sizeof(name), "power_parameters_%s", *need);
		v = sim_maas_param(&req->params, name);
		if (!v || !*v) {
			sim_maas_reply_field(r, "power_parameters", "%s: This field is required.", *need);
			return -1;
		}
	}
	if (!strcmp(type, "ipmi") && driver && strcmp(driver, "LAN") && strcmp(driver, "LAN_2_0")) {
		sim_maas_reply_field(
		    r, "power_parameters",
		    "power_driver: Select a valid choice. %s is not one of the available choices.", driver);
		return -1;
	}
	return 0;
}

/* Form fields of a create, checked as MAAS's MachineForm does; 0 when valid. */
static int check_create(struct sim_maas *m, const struct sim_maas_req *req, char macs[][18], size_t *n_macs,
			struct sim_maas_reply *r)
{
	const char *hostname = sim_maas_param(&req->params, "hostname");
	const char *power_type = sim_maas_param(&req->params, "power_type");
	static const char *const power_types[] = { "redfish", "ipmi", "manual", "" };
	int power_ok = !power_type;

	*n_macs = 0;
	for (size_t i = 0; i < req->params.n; i++) {
		const struct sim_maas_param *p = &req->params.items[i];
		struct sim_maas_machine *other;

		if (strcmp(p->name, "mac_addresses"))
			continue;
		if (*n_macs == SIM_MAAS_MACS_MAX || br_mac_normalize(p->value, macs[*n_macs])) {
			sim_maas_reply_field(r, "mac_addresses", "'%s' is not a valid MAC address.",
					     p->value);
			return -1;
		}
		other = machine_by_mac(m, macs[*n_macs]);
		if (other) {
			sim_maas_reply_field(r, "mac_addresses", "MAC address %s already in use on %s.",
					     macs[*n_macs], other->hostname);
			return -1;
		}
		(*n_macs)++;
	}
	if (!*n_macs) {
		sim_maas_reply_field(r, "mac_addresses", "This field is required.");
		return -1;
	}
	if (hostname && machine_by_hostname(m, hostname)) {
		sim_maas_reply_field(r, "hostname", "Node with this Hostname already exists.");
		return -1;
	}
	for (size_t i = 0; power_type && i < sizeof(power_types) / sizeof(power_types[0]); i++)
		power_ok |= !strcmp(power_type, power_types[i]);
	if (!power_ok) {
		sim_maas_reply_field(r, "power_type",
				     "Select a valid choice. %s is not one of the available choices.",
				     power_type);
		return -1;
	}
	if (power_type && check_power_parameters(power_type, req, r))
		return -1;
	if (m->n_machines >= SIM_MAAS_MACHINES_MAX) {
		sim_maas_reply_field(r, "__all__", "This MAAS holds %d machines already.",
				     SIM_MAAS_MACHINES_MAX);
		return -1;
	}
	return 0;
}

/* The host[:port] a Redfish power_address reaches, as MAAS's driver makes
 * its URL (canonical/maas, src/provisioningserver/drivers/power/redfish.py,
 * RedfishPowerDriverBase.get_url):
 *
 *     url = context.get("power_address")
 *     if "https" not in url and "http" not in url:
 *         # Prepend https
 *         url = join("https://", url)
 *
 * An address with a scheme is used as the URL it is; one without gets
 * https://; one holding "http" anywhere but as its scheme (a host named
 * "myhttpbmc") is used as a URL too, and reaches nothing. A trailing "/"
 * is harmless: the endpoints are joined to it with os.path.join. NULL:
 * no BMC is reached. */
static const char *redfish_host_port(const char *power_address, size_t *ret_len)
{
	const char *a = power_address;
	size_t len;

	if (!strncmp(a, "https://", 8))
		a += 8;
	else if (!strncmp(a, "http://", 7))
		a += 7;
	else if (strstr(a, "http"))
		return NULL;
	len = strlen(a);
	if (len && a[len - 1] == '/')
		len--;
	*ret_len = len;
	return a;
}

/* Whether a rack controller could drive the host's BMC with these power
 * parameters: the power drivers log in with exactly what MAAS was given
 * (src/provisioningserver/drivers/power/redfish.py: power_address as the
 * URL or https host[:port] (redfish_host_port), power_user/power_pass as
 * basic auth, node_id the System or, empty, the first of Systems;
 * drivers/power/ipmi.py: ipmitool -H power_address, no port, -U/-P). A host
 * with no simulated BMC takes any. */
int sim_maas_power_works(struct sim_maas *m, const struct sim_maas_machine *mc)
{
	const struct sim_maas_host *h = host_of(m, mc);
	const char *redfish_at;
	size_t host_len;

	if (!h || !*h->bmc_address)
		return 1;
	if (h->power_fail || !*mc->power_type || !*mc->power_address || !mc->power_pass_set)
		return 0;
	if (m->cfg.bmc_takes
		? !m->cfg.bmc_takes(m->cfg.bmc_ctx, (size_t)mc->host, mc->power_user, mc->power_pass)
		: strcmp(mc->power_user, h->bmc_user) || strcmp(mc->power_pass, h->bmc_password))
		return 0;
	if (!strcmp(mc->power_type, "redfish")) {
		redfish_at = redfish_host_port(mc->power_address, &host_len);
		return redfish_at && host_len == strlen(h->bmc_address) &&
		       !strncmp(redfish_at, h->bmc_address, host_len) &&
		       (!*mc->node_id || !strcmp(mc->node_id, h->redfish_system));
	}
	if (!strcmp(mc->power_type, "ipmi")) {
		host_len = strcspn(h->bmc_address, ":");
		return strlen(mc->power_address) == host_len &&
		       !strncmp(mc->power_address, h->bmc_address, host_len);
	}
	return 0;
}

/* Take the power parameters a request gives (the rest stay as they were). */
static void power_apply(struct sim_maas_machine *mc, const struct sim_maas_req *req)
{
	const char *type = sim_maas_param(&req->params, "power_type");
	const char *addr = sim_maas_param(&req->params, "power_parameters_power_address");
	const char *user = sim_maas_param(&req->params, "power_parameters_power_user");
	const char *pass = sim_maas_param(&req->params, "power_parameters_power_pass");
	const char *node_id = sim_maas_param(&req->params, "power_parameters_node_id");
	const char *driver = sim_maas_param(&req->params, "power_parameters_power_driver");

	if (type)
		snprintf(mc->power_type, sizeof(mc->power_type), "%s", type);
	if (addr)
		snprintf(mc->power_address, sizeof(mc->power_address), "%s", addr);
	if (user)
		snprintf(mc->power_user, sizeof(mc->power_user), "%s", user);
	if (node_id)
		snprintf(mc->node_id, sizeof(mc->node_id), "%s", node_id);
	if (driver)
		snprintf(mc->power_driver, sizeof(mc->power_driver), "%s", driver);
	if (pass) {
		mc->power_pass_set = 1;
		memset(mc->power_pass, 0, sizeof(mc->power_pass));
		snprintf(mc->power_pass, sizeof(mc->power_pass), "%s", pass);
	}
}

/* PUT machines/{system_id}/: src/maasserver/api/machines.py
 * MachineHandler.update with src/maasserver/forms/__init__.py MachineForm:
 * power parameters given replace those MAAS has, the others stay, and the
 * result must hold every parameter the (new) power type requires (400
 * {"power_parameters": [...]} otherwise, nothing changed). */
static void update(struct sim_maas *m, struct sim_maas_machine *mc, const struct sim_maas_req *req,
		   struct sim_maas_reply *r)
{
	const char *type = sim_maas_param(&req->params, "power_type");
	const char *eff = type ? type : mc->power_type;
	static const char *const redfish[] = { "power_address", "power_user", "power_pass", NULL };
	static const char *const ipmi[] = { "power_address", NULL };
	const char *const *need = !strcmp(eff, "redfish") ? redfish : !strcmp(eff, "ipmi") ? ipmi : NULL;
	const struct sim_maas_host *h = host_of(m, mc);

	if (h && h->update_fail) {
		/* test fault maas_update_fail: the region's unhandled error, as
		 * maasserver's APIErrorsMiddleware answers it (500, the text) */
		sim_maas_reply_text(r, 500, "Internal server error: the machine could not be saved.");
		return;
	}
	if (type && strcmp(type, "redfish") && strcmp(type, "ipmi") && strcmp(type, "manual") && *type) {
		sim_maas_reply_field(r, "power_type",
				     "Select a valid choice. %s is not one of the available choices.", type);
		return;
	}
	for (; need && *need; need++) {
		char name[64];
		const char *v, *had = !strcmp(*need, "power_address") ? mc->power_address
				      : !strcmp(*need, "power_user")  ? mc->power_user
				      : mc->power_pass_set	      ? "(set)"
								      : "";

		snprintf(name, sizeof(name), "power_parameters_%s", *need);
		v = sim_maas_param(&req->params, name);
		if (v ? !*v : !*had) {
			sim_maas_reply_field(r, "power_parameters", "%s: This field is required.", *need);
			return;
		}
	}
	power_apply(mc, req);
	sim_maas_log_field(r, "power_type", json_string(mc->power_type));
	sim_maas_log_field(r, "power_address", json_string(mc->power_address));
	sim_maas_log_field(r, "power_works", json_boolean(sim_maas_power_works(m, mc)));
	sim_maas_reply_machine(m, mc, r);
}

static void param_copy(char *dst, size_t size, const struct sim_maas_req *req, const char *name,
		       const char *dflt)
{
	const char *v = sim_maas_param(&req->params, name);

	snprintf(dst, size, "%s", v ? v : dflt);
}

/* maas_echo: the request comes back in the error, as some proxies and
 * debug-mode servers answer; nothing of it may reach a client's records. */
static void echo_request(const struct sim_maas_req *req, struct sim_maas_reply *r)
{
	struct br_buf power, rest;

	br_buf_init(&power, 0);
	br_buf_init(&rest, 0);
	for (size_t i = 0; i < req->params.n; i++) {
		const struct sim_maas_param *p = &req->params.items[i];
		int is_power = !strncmp(p->name, "power_parameters_", strlen("power_parameters_"));
		struct br_buf *b = is_power ? &power : &rest;

		br_buf_addf(b, "%s%s=%s",
			    b->len     ? "&"
			    : is_power ? "Invalid power parameters: "
				       : "",
			    p->name, p->value);
	}
	sim_maas_reply_json(r, 400,
			    json_pack("{s:[s], s:[s]}", "power_parameters", br_buf_str(&power), "__all__",
				      br_buf_str(&rest)));
	/* the header last: a long form must not push the fields out */
	json_array_append_new(json_object_get(r->json, "__all__"),
			      json_string(req->authorization ? req->authorization : "(no Authorization)"));
	br_buf_release(&power);
	br_buf_release(&rest);
}

static void create(struct sim_maas *m, const struct sim_maas_req *req, struct sim_maas_reply *r)
{
	char macs[SIM_MAAS_MACS_MAX][18], system_id[8];
	const char *commission = sim_maas_param(&req->params, "commission");
	struct sim_maas_machine *mc;
	json_t *logged_macs;
	size_t n_macs;

	if (check_create(m, req, macs, &n_macs, r))
		return;
	for (size_t i = 0; i < n_macs; i++) {
		int host = sim_maas_host_by_mac(m, macs[i]);

		if (host >= 0 && m->hosts[host].echo_request) {
			echo_request(req, r);
			return;
		}
	}
	if (m->n_machines == m->cap_machines) {
		m->cap_machines = m->cap_machines ? 2 * m->cap_machines : 64;
		m->machines = br_xrealloc(m->machines, m->cap_machines * sizeof(*m->machines));
	}
	new_system_id(m, system_id);
	mc = &m->machines[m->n_machines++];
	memset(mc, 0, sizeof(*mc));
	memcpy(mc->system_id, system_id, sizeof(system_id));
	memcpy(mc->macs, macs, n_macs * sizeof(macs[0]));
	for (size_t i = 0; i < n_macs; i++)
		mc->mac_keys[i] = sim_maas_mac_key(macs[i]);
	mc->n_macs = n_macs;
	mc->host = -1;
	for (size_t i = 0; i < n_macs && mc->host < 0; i++)
		mc->host = sim_maas_host_by_mac(m, macs[i]);
	param_copy(mc->hostname, sizeof(mc->hostname), req, "hostname", "");
	if (!*mc->hostname)
		snprintf(mc->hostname, sizeof(mc->hostname), "node-%s", mc->system_id);
	/* src/maasserver/models/node.py (Node.save, Node.fqdn): a dotted
	 * hostname is an FQDN, its first label the hostname and the rest the
	 * domain; the answer's fqdn is hostname.domain. */
	snprintf(mc->domain, sizeof(mc->domain), "maas");
	if (strchr(mc->hostname, '.')) {
		char *dot = strchr(mc->hostname, '.');

		snprintf(mc->domain, sizeof(mc->domain), "%s", dot + 1);
		*dot = '\0';
	}
	param_copy(mc->architecture, sizeof(mc->architecture), req, "architecture", "amd64/generic");
	power_apply(mc, req);
	snprintf(mc->power_state, sizeof(mc->power_state), "off");
	mc->boot_disk = mc->root_disk = mc->installed_disk = -1;
	mc->bd_base = m->next_bd_id;
	m->next_bd_id += SIM_MAAS_DISKS_MAX;
	if (commission && (!strcmp(commission, "false") || !strcmp(commission, "0"))) {
		sim_maas_set_status(m, mc, ST_NEW, "New", "INFO", "Enlisted");
	} else {
		mc->commissions++;
		mc->before_action = ST_NEW;
		sim_maas_set_status(m, mc, ST_COMMISSIONING, "Commissioning", "INFO",
				    "Commissioning started");
	}
	logged_macs = json_array();
	for (size_t i = 0; i < n_macs; i++)
		json_array_append_new(logged_macs, json_string(macs[i]));
	sim_maas_log_field(r, "system_id", json_string(mc->system_id));
	sim_maas_log_field(r, "hostname", json_string(mc->hostname));
	sim_maas_log_field(r, "macs", logged_macs);
	sim_maas_log_field(r, "power_type", json_string(mc->power_type));
	sim_maas_log_field(r, "power_address", json_string(mc->power_address));
	sim_maas_log_field(
	    r, "power_driver",
	    br_json_string_or_null(sim_maas_param(&req->params, "power_parameters_power_driver")));
	sim_maas_log_field(r, "node_id",
			   br_json_string_or_null(sim_maas_param(&req->params, "power_parameters_node_id")));
	sim_maas_log_field(r, "power_pass_set", json_boolean(mc->power_pass_set));
	sim_maas_reply_machine(m, mc, r);
}

/* The filters of a machines/ list: each kind given must match one value. */
struct filter {
	char macs[SIM_MAAS_PARAMS_MAX][18];
	uint64_t mac_keys[SIM_MAAS_PARAMS_MAX]; /* sim_maas_mac_key of each */
	const char *hosts[SIM_MAAS_PARAMS_MAX], *ids[SIM_MAAS_PARAMS_MAX];
	size_t n_macs, n_hosts, n_ids;
};

static int filter_parse(const struct sim_maas_req *req, struct filter *f, struct sim_maas_reply *r)
{
	for (size_t i = 0; i < req->params.n; i++) {
		const struct sim_maas_param *p = &req->params.items[i];

		if (!strcmp(p->name, "mac_address")) {
			if (br_mac_normalize(p->value, f->macs[f->n_macs])) {
				sim_maas_reply_field(r, "mac_address", "'%s' is not a valid MAC address.",
						     p->value);
				return -1;
			}
			f->mac_keys[f->n_macs] = sim_maas_mac_key(f->macs[f->n_macs]);
			f->n_macs++;
		} else if (!strcmp(p->name, "hostname")) {
			f->hosts[f->n_hosts++] = p->value;
		} else if (!strcmp(p->name, "id")) {
			f->ids[f->n_ids++] = p->value;
		}
	}
	return 0;
}

static int matches(const struct sim_maas_machine *mc, const struct filter *f)
{
	int mac = !f->n_macs, host = !f->n_hosts, id = !f->n_ids;

	for (size_t i = 0; i < f->n_macs && !mac; i++)
		for (size_t k = 0; k < mc->n_macs && !mac; k++)
			mac = mc->mac_keys[k] == f->mac_keys[i] && !strcmp(mc->macs[k], f->macs[i]);
	for (size_t i = 0; i < f->n_hosts && !host; i++)
		host = !strcmp(mc->hostname, f->hosts[i]);
	for (size_t i = 0; i < f->n_ids && !id; i++)
		id = !strcmp(mc->system_id, f->ids[i]);
	return mac && host && id;
}

static int param_on(const struct sim_maas_req *req, const char *name)
{
	const char *v = sim_maas_param(&req->params, name);

	return v && (!strcmp(v, "true") || !strcmp(v, "True") || !strcmp(v, "1"));
}

/* A list's machines as they were under the lock, rendered after it:
 * building fifty machines' JSON is the emulator's costliest work, and
 * under the one state lock it held every other request back (MAAS's own
 * region serves requests side by side). The answer is the same. */
struct list_render {
	const struct sim_maas_host *hosts;
	struct sim_maas_tag *tags;
	size_t n_tags;
	struct sim_maas_machine *mcs; /* copies up to their events ring */
	int *domain_ids;
	size_t n;
	int one; /* the answer is mcs[0] itself, not a list */
};

/* A machine's JSON never reads its events ring (the tail of the struct,
 * most of its size), so the copy stops before it. */
#define LIST_COPY_BYTES offsetof(struct sim_maas_machine, events)
_Static_assert(offsetof(struct sim_maas_machine, n_events) > offsetof(struct sim_maas_machine, events) &&
		   offsetof(struct sim_maas_machine, first_event) > offsetof(struct sim_maas_machine, events),
	       "only the events ring follows what a machine's JSON reads");

static void list_render(struct sim_maas_reply *r)
{
	struct list_render *lr = r->render_ctx;
	json_t *arr = json_array();

	for (size_t i = 0; i < lr->n; i++) {
		const struct sim_maas_view v = { lr->hosts, lr->tags, lr->n_tags, lr->domain_ids[i] };

		json_array_append_new(arr, sim_maas_machine_json_view(&v, &lr->mcs[i]));
	}
	if (lr->one) {
		r->json = json_incref(json_array_get(arr, 0));
		json_decref(arr);
	} else {
		r->json = arr;
	}
	free(lr->tags);
	free(lr->mcs);
	free(lr->domain_ids);
	free(lr);
	r->render_ctx = NULL;
}

static struct list_render *render_new(struct sim_maas *m)
{
	struct list_render *lr = br_xcalloc(1, sizeof(*lr));

	lr->hosts = m->hosts;
	lr->n_tags = m->n_tags;
	lr->tags = br_xcalloc(m->n_tags ? m->n_tags : 1, sizeof(*lr->tags));
	memcpy(lr->tags, m->tags, m->n_tags * sizeof(*lr->tags));
	return lr;
}

static void render_add(struct sim_maas *m, struct list_render *lr, const struct sim_maas_machine *mc)
{
	lr->mcs = br_xrealloc(lr->mcs, (lr->n + 1) * sizeof(*lr->mcs));
	lr->domain_ids = br_xrealloc(lr->domain_ids, (lr->n + 1) * sizeof(*lr->domain_ids));
	memcpy(&lr->mcs[lr->n], mc, LIST_COPY_BYTES);
	lr->domain_ids[lr->n++] = sim_maas_domain_id(m, mc->domain);
}

/* One machine's answer (create, deploy, set_storage_layout, a read...),
 * rendered after the lock as a list is: the same document, from the
 * machine as it was when the request was served. Built under the lock it
 * held every other request back, a rack's creates and deploys most. */
void sim_maas_reply_machine(struct sim_maas *m, const struct sim_maas_machine *mc, struct sim_maas_reply *r)
{
	struct list_render *lr = render_new(m);

	lr->one = 1;
	render_add(m, lr, mc);
	sim_maas_reply_json(r, 200, NULL);
	r->render = list_render;
	r->render_ctx = lr;
}

static void list(struct sim_maas *m, const struct sim_maas_req *req, struct sim_maas_reply *r)
{
	struct filter *f = br_xcalloc(1, sizeof(*f));
	int64_t now = br_now_ms();
	struct list_render *lr;
	json_t *ids = json_array(), *statuses = json_array();

	if (filter_parse(req, f, r)) {
		json_decref(ids);
		json_decref(statuses);
		free(f);
		return;
	}
	lr = render_new(m);
	for (size_t i = 0; i < m->n_machines; i++) {
		struct sim_maas_machine *mc = &m->machines[i];

		if (!matches(mc, f))
			continue;
		sim_maas_advance(m, mc, now);
		render_add(m, lr, mc);
		json_array_append_new(ids, json_string(mc->system_id));
		json_array_append_new(statuses, json_string(sim_maas_status_name(mc->status)));
	}
	free(f);
	sim_maas_log_field(r, "count", json_integer((json_int_t)lr->n));
	/* Which machines the answer gave, in which status: how often a client
	 * reads each machine, and when. */
	sim_maas_log_field(r, "system_ids", ids);
	sim_maas_log_field(r, "statuses", statuses);
	r->status = 200;
	r->render = list_render;
	r->render_ctx = lr;
}

/* Whether machine mc meets one allocate constraint (src/maasserver/forms/__init__.py
 * AcquireNodeForm, and src/maasserver/node_constraint_filter_forms.py): name
 * is the hostname or the FQDN, tags must all be present, not_tags none,
 * zone and pool the one the emulator has, cpu_count and mem minimums. An
 * unknown constraint is ignored as MAAS ignores unknown form fields. */
static int meets(struct sim_maas *m, const struct sim_maas_machine *mc, const struct sim_maas_param *p)
{
	long n;

	if (!strcmp(p->name, "system_id"))
		return !strcmp(mc->system_id, p->value);
	if (!strcmp(p->name, "name")) {
		size_t len = strlen(mc->hostname);

		return !strcmp(mc->hostname, p->value) ||
		       (!strncmp(p->value, mc->hostname, len) && p->value[len] == '.' &&
			!strcmp(p->value + len + 1, mc->domain));
	}
	if (!strcmp(p->name, "zone") || !strcmp(p->name, "pool"))
		return !strcmp(p->value, "default");
	if (!strcmp(p->name, "not_in_zone") || !strcmp(p->name, "not_in_pool"))
		return strcmp(p->value, "default") != 0;
	if (!strcmp(p->name, "tags") || !strcmp(p->name, "not_tags")) {
		int has = 0;

		for (size_t i = 0; i < m->n_tags && !has; i++)
			has = mc->tags[i] && !strcmp(m->tags[i].name, p->value);
		return !strcmp(p->name, "tags") ? has : !has;
	}
	if (!strcmp(p->name, "cpu_count"))
		return !br_parse_long(p->value, 0, LONG_MAX, &n) && (mc->commissioned ? 224 : 0) >= n;
	if (!strcmp(p->name, "mem"))
		return !br_parse_long(p->value, 0, LONG_MAX, &n) && (mc->commissioned ? 2097152 : 0) >= n;
	if (!strcmp(p->name, "arch"))
		return !strncmp(mc->architecture, p->value, strcspn(mc->architecture, "/")) ||
		       !strcmp(mc->architecture, p->value);
	return 1;
}

/* POST machines/?op=allocate: src/maasserver/api/machines.py
 * MachinesHandler.allocate takes the first Ready machine meeting every
 * constraint, owned by the caller from then on (Allocated), or answers 409
 * "No available machine matches constraints: ...". dry_run changes
 * nothing. The answer is the machine with the constraints each matched
 * (constraints_by_type; the emulator has no storage or interface labels,
 * so it is empty). */
static void allocate(struct sim_maas *m, const struct sim_maas_req *req, struct sim_maas_reply *r)
{
	static const char *const not_constraints[] = { "op",	    "agent_name", "comment",
						       "dry_run",   "verbose",	  "bridge_all",
						       "bridge_fd", "bridge_stp", NULL };
	const char *agent = sim_maas_param(&req->params, "agent_name");
	const char *dry = sim_maas_param(&req->params, "dry_run");
	struct sim_maas_machine *mc = NULL;
	int64_t now = br_now_ms();
	struct br_buf asked;
	json_t *o;

	for (size_t i = 0; i < m->n_machines && !mc; i++) {
		struct sim_maas_machine *c = &m->machines[i];
		int ok;

		sim_maas_advance(m, c, now);
		ok = c->status == ST_READY;
		for (size_t k = 0; k < req->params.n && ok; k++) {
			const char *const *skip = not_constraints;

			while (*skip && strcmp(*skip, req->params.items[k].name))
				skip++;
			ok = *skip || meets(m, c, &req->params.items[k]);
		}
		if (ok)
			mc = c;
	}
	if (!mc) {
		br_buf_init(&asked, 256);
		for (size_t k = 0; k < req->params.n; k++) {
			const char *const *skip = not_constraints;

			while (*skip && strcmp(*skip, req->params.items[k].name))
				skip++;
			if (!*skip)
				br_buf_addf(&asked, "%s('%s', ['%s'])", asked.len ? ", " : "",
					    req->params.items[k].name, req->params.items[k].value);
		}
		sim_maas_reply_text(r, 409,
				    "No available machine matches constraints: [%s] (resolved to \"%s\")",
				    br_buf_str(&asked), br_buf_str(&asked));
		br_buf_release(&asked);
		return;
	}
	sim_maas_log_field(r, "system_id", json_string(mc->system_id));
	if (!dry || (strcmp(dry, "true") && strcmp(dry, "True") && strcmp(dry, "1"))) {
		snprintf(mc->owner, sizeof(mc->owner), "%s", req->user);
		snprintf(mc->agent_name, sizeof(mc->agent_name), "%s", agent ? agent : "");
		sim_maas_set_status(m, mc, ST_ALLOCATED, "Allocated", "INFO", "Allocated to %s", req->user);
	}
	o = sim_maas_machine_json(m, mc);
	json_object_set_new(o, "constraints_by_type", json_object());
	sim_maas_reply_json(r, 200, o);
}

/* POST machines/?op=release: src/maasserver/api/machines.py
 * MachinesHandler.release, all or nothing: unknown system ids are a 400
 * naming them, any machine that cannot be released a 409 naming it and
 * its state; otherwise each is released as MachineHandler.release does. */
static void release_many(struct sim_maas *m, const struct sim_maas_req *req, struct sim_maas_reply *r)
{
	struct br_buf bad;
	json_t *ids = json_array();

	br_buf_init(&bad, 256);
	for (size_t k = 0; k < req->params.n; k++)
		if (!strcmp(req->params.items[k].name, "machines") &&
		    !sim_maas_find(m, req->params.items[k].value))
			br_buf_addf(&bad, "%s%s", bad.len ? ", " : "", req->params.items[k].value);
	if (bad.len) {
		sim_maas_reply_text(r, 400, "Unknown machine(s): %s.", br_buf_str(&bad));
		goto out;
	}
	for (size_t k = 0; k < req->params.n; k++) {
		struct sim_maas_machine *mc;

		if (strcmp(req->params.items[k].name, "machines"))
			continue;
		mc = sim_maas_find(m, req->params.items[k].value);
		sim_maas_advance(m, mc, br_now_ms());
		if (!sim_maas_owned(mc->status) && mc->status != ST_READY && mc->status != ST_RELEASING &&
		    mc->status != ST_DISK_ERASING)
			br_buf_addf(&bad, "%s%s ('%s')", bad.len ? ", " : "", mc->system_id,
				    sim_maas_status_name(mc->status));
	}
	if (bad.len) {
		sim_maas_reply_text(r, 409, "Machine(s) cannot be released in their current state: %s.",
				    br_buf_str(&bad));
		goto out;
	}
	for (size_t k = 0; k < req->params.n; k++)
		if (!strcmp(req->params.items[k].name, "machines")) {
			struct sim_maas_machine *mc = sim_maas_find(m, req->params.items[k].value);

			if (!sim_maas_release(m, mc, param_on(req, "erase"), r))
				json_array_append_new(ids, json_string(mc->system_id));
		}
	sim_maas_reply_json(r, 200, ids);
	ids = NULL;
out:
	json_decref(ids);
	br_buf_release(&bad);
}

void sim_maas_machines(struct sim_maas *m, const struct sim_maas_req *req, const char *rest,
		       struct sim_maas_reply *r)
{
	struct sim_maas_machine *mc;
	char id[16];

	if (!*rest) {
		if (!strcmp(req->method, "GET") && !req->op)
			list(m, req, r);
		else if (!strcmp(req->method, "POST") && !req->op)
			create(m, req, r);
		else if (!strcmp(req->method, "POST") && !strcmp(req->op, "allocate"))
			allocate(m, req, r);
		else if (!strcmp(req->method, "POST") && !strcmp(req->op, "release"))
			release_many(m, req, r);
		else
			sim_maas_reply_bad_op(r, req);
		return;
	}
	snprintf(id, sizeof(id), "%.*s", (int)strcspn(rest, "/"), rest);
	mc = sim_maas_find(m, id);
	if (!mc || strcmp(rest + strlen(id), "/")) {
		sim_maas_reply_text(r, 404, "No Machine matches the given query.");
		return;
	}
	sim_maas_advance(m, mc, br_now_ms());
	sim_maas_log_field(r, "system_id", json_string(mc->system_id));
	if (!strcmp(req->method, "PUT") && !req->op)
		update(m, mc, req, r);
	else
		sim_maas_machine_action(m, mc, req, r);
}
