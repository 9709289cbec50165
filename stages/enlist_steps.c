/*
 * The enlist steps: create or adopt by MAC, commission, boot disk by
 * serial, deploy; and stg_enlist_dispatch, which picks the next step from the
 * machine's status as MAAS reports it. Each step is one typed call of
 * maas/ (maas.h) and its answer; what MAAS is asked, and how, is maas/'s.
 */
#define _DEFAULT_SOURCE
#include <stdlib.h>
#include <string.h>

#include "enlist_private.h"
#include "validators/rules.h"

static void commission(struct stg_enlist_slot *s);
static void boot_disk(struct stg_enlist_slot *s);

/* The boot disk MAAS reports is the one chosen: by serial, or for a RAID
 * volume by its identity as the OS reports it (validators/rules.h). */
static int is_chosen_disk(const struct stg_enlist_job *j, const char *serial, const char *id_path)
{
	return val_disk_identity_eq(j->boot_disk_serial, serial, id_path);
}

static int has_mac(const struct br_strlist *macs, const char *mac)
{
	for (size_t i = 0; i < macs->n; i++)
		if (!strcmp(macs->items[i], mac))
			return 1;
	return 0;
}

/* MAAS keeps a dotted hostname as an FQDN: hostname is its first label,
 * fqdn the whole (models/node.py). A dotted manifest name is compared
 * with fqdn, a short one with hostname. */
static int same_name(const struct maas_machine *m, const char *name)
{
	const char *have = strchr(name, '.') ? m->fqdn : m->hostname;

	return have && !strcmp(have, name);
}

static int take_machine(struct stg_enlist_slot *s, const struct maas_machine *m)
{
	struct stg_enlist_flow *f = s->flow;

	if (!maas_system_id_valid(m->system_id)) {
		stg_enlist_finish(s, BR_FAIL_MAAS_REFUSED,
				  "MAAS answered a machine with system_id '%.40s', which is not one",
				  m->system_id);
		return -1;
	}
	if (!s->job->system_id || strcmp(s->job->system_id, m->system_id)) {
		free(s->job->system_id);
		s->job->system_id = br_xstrdup(m->system_id);
		f->cb->on_system_id(f->ctx, s->job);
		if (s->job->lost) {
			stg_enlist_finish(s, BR_FAIL_STAGE,
					  "no longer this stage's node: left as it is in MAAS");
			return -1;
		}
	}
	return 0;
}

static void on_create(void *ctx, const struct maas_result *res)
{
	struct stg_enlist_slot *s = ctx;
	struct maas_machine m;
	struct br_err err = { 0 };

	/* A create that reached MAAS before an earlier run died, or one whose
	 * answer was lost and retried: the MAC is taken, so look again. */
	if (res->rc == BR_E_INVAL && strstr(res->err->msg, "already in use") &&
	    s->job->lookups < STG_ENLIST_LOOKUPS_MAX) {
		stg_enlist_lookup(s);
		return;
	}
	if (res->rc) {
		stg_enlist_finish(s, BR_FAIL_MAAS_REFUSED, "creating the machine in MAAS: %s", res->err->msg);
		return;
	}
	if (maas_machine_parse(res->json, &m, &err)) {
		stg_enlist_finish(s, BR_FAIL_MAAS_REFUSED, "creating the machine in MAAS: %s", err.msg);
		return;
	}
	br_log_node(BR_LOG_INFO, "enlist", s->job->hostname, s->job->power_address, "created in MAAS as %s",
		    m.system_id);
	if (!take_machine(s, &m))
		stg_enlist_dispatch(s, &m);
	maas_machine_release(&m);
}

static void create(struct stg_enlist_slot *s)
{
	const struct stg_enlist_job *j = s->job;
	int ipmi = j->bmc_type && !strcmp(j->bmc_type, "ipmi");
	char *address = j->power_address ? stg_maas_power_address(j->power_address, ipmi) : NULL;
	/* IPMI: LAN_2_0, the driver every BMC of the last decade speaks. Redfish:
	 * no node_id, so MAAS takes the BMC's own (first) System
	 * (drivers/power/redfish.py) instead of a Dell-only fixed id. */
	const struct maas_machine_spec spec = {
		.hostname = j->hostname,
		.architecture = "amd64/generic",
		.macs = j->macs,
		.power = { ipmi ? "ipmi" : "redfish", address, j->power_user, j->power_pass, NULL,
			   ipmi ? "LAN_2_0" : NULL },
		.commission = 1,
	};

	s->job->commissioned_here = 1;
	s->job->wait_since_ms = br_now_ms();
	stg_enlist_sent(s, maas_machine_create(s->flow->client, &spec, on_create, s), "creating the machine");
	free(address);
}

static void on_lookup(void *ctx, const struct maas_result *res)
{
	struct stg_enlist_slot *s = ctx;
	struct maas_machine m = { 0 };
	size_t n = json_array_size(res->json);

	if (res->rc) {
		stg_enlist_fail_result(s, res);
		return;
	}
	if (!n) {
		create(s);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		if (maas_machine_parse(json_array_get(res->json, i), &m, NULL))
			continue;
		/* Adopting a machine that carries our MAC under another name
		 * would hand one server's identity to another: a person must
		 * look (a swapped cable, a reused MAC, a stale MAAS entry). */
		if (n > 1 || !same_name(&m, s->job->hostname)) {
			const char *mac = "?";

			for (size_t k = 0; k < m.macs.n; k++)
				if (has_mac(s->job->macs, m.macs.items[k]))
					mac = m.macs.items[k];
			stg_enlist_finish(
			    s, BR_FAIL_MAC_CONFLICT,
			    "MAC conflict: %s is registered in MAAS on '%s' (system_id %s), not on '%s'; "
			    "not adopting it: fix the machine in MAAS or the manifest",
			    mac, m.hostname ? m.hostname : "?", m.system_id, s->job->hostname);
			maas_machine_release(&m);
			return;
		}
		br_log_node(BR_LOG_INFO, "enlist", s->job->hostname, s->job->power_address,
			    "adopting MAAS machine %s (%s)", m.system_id, maas_status_name(m.status));
		if (!take_machine(s, &m))
			stg_enlist_dispatch(s, &m);
		maas_machine_release(&m);
		return;
	}
	stg_enlist_finish(s, BR_FAIL_MAAS_REFUSED,
			  "MAAS listed machines for the MACs of %s that cannot be read", s->job->hostname);
}

void stg_enlist_lookup(struct stg_enlist_slot *s)
{
	s->job->lookups++;
	stg_enlist_sent(s, maas_machines_by_mac(s->flow->client, s->job->macs, on_lookup, s),
			"looking up its MACs");
}

/* MAAS answers commission and deploy with the machine as the action left
 * it (src/maasserver/api/machines.py MachineHandler.commission returns
 * form.save(), deploy returns power_on's node): act on that answer, as
 * on_create does, rather than spend one more dependent request reading it
 * back; an answer that is not a machine is read back. */
static void dispatch_answer(struct stg_enlist_slot *s, const struct maas_result *res)
{
	struct maas_machine m;

	if (!json_is_object(res->json) || maas_machine_parse(res->json, &m, NULL)) {
		stg_enlist_reread(s);
		return;
	}
	stg_enlist_dispatch(s, &m);
	maas_machine_release(&m);
}

static void on_commission(void *ctx, const struct maas_result *res)
{
	struct stg_enlist_slot *s = ctx;

	if (!stg_enlist_step_failed(s, res, "commissioning"))
		dispatch_answer(s, res);
}

static void commission(struct stg_enlist_slot *s)
{
	s->job->commissioned_here = 1;
	s->job->wait_since_ms = br_now_ms();
	stg_enlist_sent(s, maas_commission(s->flow->client, s->job->system_id, on_commission, s),
			"commissioning");
}

/* Failed testing: MAAS offers op=test there, not commission
 * (src/maasserver/node_action.py Commission and Test). */
static void retest(struct stg_enlist_slot *s)
{
	s->job->commissioned_here = 1;
	s->job->wait_since_ms = br_now_ms();
	stg_enlist_sent(s, maas_test(s->flow->client, s->job->system_id, on_commission, s), "testing");
}

static void on_deploy(void *ctx, const struct maas_result *res)
{
	struct stg_enlist_slot *s = ctx;

	if (!stg_enlist_step_failed(s, res, "deploying"))
		dispatch_answer(s, res);
}

static void deploy(struct stg_enlist_slot *s)
{
	s->job->deploy_sent = 1;
	s->job->wait_since_ms = br_now_ms();
	stg_enlist_sent(s,
			maas_deploy(s->flow->client, s->job->system_id, s->flow->opts.distro_series,
				    s->job->user_data_b64, on_deploy, s),
			"deploying");
}

/* set_storage_layout answers the machine: its boot_disk says whether the
 * disk we chose is the one MAAS will install on. */
static void verify(struct stg_enlist_slot *s, json_t *machine)
{
	struct maas_machine m;
	struct br_err err = { 0 };

	if (maas_machine_parse(machine, &m, &err)) {
		stg_enlist_finish(s, BR_FAIL_MAAS_REFUSED, "reading the machine back: %s", err.msg);
		return;
	}
	if (!is_chosen_disk(s->job, m.boot_disk_serial, m.boot_disk_id_path))
		stg_enlist_finish(
		    s, BR_FAIL_BOOT_DISK, "MAAS reports boot disk serial %s after set_boot_disk, wanted %s",
		    m.boot_disk_serial ? m.boot_disk_serial : "(none)", s->job->boot_disk_serial);
	else if (m.status != MAAS_READY)
		stg_enlist_dispatch(s, &m);
	else
		deploy(s);
	maas_machine_release(&m);
}

static void on_verify(void *ctx, const struct maas_result *res)
{
	struct stg_enlist_slot *s = ctx;

	if (res->rc)
		stg_enlist_finish(s, BR_FAIL_MAAS_REFUSED, "reading the machine back: %s", res->err->msg);
	else
		verify(s, res->json);
}

static void on_layout(void *ctx, const struct maas_result *res)
{
	struct stg_enlist_slot *s = ctx;

	if (stg_enlist_step_failed(s, res, "setting the storage layout"))
		return;
	if (json_is_object(res->json) && json_object_get(res->json, "system_id"))
		verify(s, res->json);
	else
		stg_enlist_sent(s, maas_machine_get(s->flow->client, s->job->system_id, on_verify, s),
				"reading the machine back");
}

static void on_set_boot(void *ctx, const struct maas_result *res)
{
	struct stg_enlist_slot *s = ctx;

	if (stg_enlist_step_failed(s, res, "setting the boot disk"))
		return;
	/* set_boot_disk moves only the boot flag; the layout must be applied
	 * again so / and /boot/efi move to that disk too. */
	stg_enlist_sent(s,
			maas_set_storage_layout(s->flow->client, s->job->system_id,
						s->flow->opts.storage_layout, on_layout, s),
			"setting the storage layout");
}

static void on_blockdevices(void *ctx, const struct maas_result *res)
{
	struct stg_enlist_slot *s = ctx;
	struct maas_blockdevice *devs = NULL;
	struct br_err err = { 0 };
	struct br_buf seen;
	size_t n = 0, i;

	if (res->rc || maas_blockdevices_parse(res->json, &devs, &n, &err)) {
		stg_enlist_finish(s, BR_FAIL_MAAS_REFUSED, "reading block devices: %s",
				  res->rc ? res->err->msg : err.msg);
		return;
	}
	for (i = 0; i < n; i++)
		if (is_chosen_disk(s->job, devs[i].serial, devs[i].id_path))
			break;
	if (i < n) {
		br_log_node(BR_LOG_INFO, "enlist", s->job->hostname, s->job->power_address,
			    "boot disk %s is %s (id %lld) in MAAS", s->job->boot_disk_serial,
			    devs[i].name ? devs[i].name : "?", (long long)devs[i].id);
		stg_enlist_sent(
		    s, maas_set_boot_disk(s->flow->client, s->job->system_id, devs[i].id, on_set_boot, s),
		    "setting the boot disk");
	} else {
		br_buf_init(&seen, 512);
		for (size_t k = 0; k < n; k++)
			br_buf_addf(&seen, "%s%s (serial %s, model %s)", k ? ", " : "",
				    devs[k].name ? devs[k].name : "?",
				    devs[k].serial ? devs[k].serial : "none",
				    devs[k].model ? devs[k].model : "?");
		/* Both sides named: what the BMC said the boot disk is, and every
		 * device the OS reported to MAAS, so a technician sees at once
		 * whether the disk is missing or only known by another name. */
		stg_enlist_finish(
		    s, BR_FAIL_BOOT_DISK,
		    "the boot disk cannot be matched: no block device MAAS shows has serial or id_path "
		    "%s (the boot disk by %s); MAAS shows %s",
		    s->job->boot_disk_serial, s->job->boot_disk_why ? s->job->boot_disk_why : "the manifest",
		    n ? br_buf_str(&seen) : "no block devices");
		br_buf_release(&seen);
	}
	maas_blockdevices_free(devs, n);
}

static void boot_disk(struct stg_enlist_slot *s)
{
	stg_enlist_sent(s, maas_block_devices(s->flow->client, s->job->system_id, on_blockdevices, s),
			"reading block devices");
}

static void on_failure_events(void *ctx, const struct maas_result *res)
{
	struct stg_enlist_slot *s = ctx;
	const char *why = res->rc ? NULL : maas_events_failure(res->json);

	stg_enlist_finish(s, BR_FAIL_COMMISSION, "MAAS commissioning failed (%s): %s", s->job->system_id,
			  why ? why : "no reason given");
}

static void on_power_events(void *ctx, const struct maas_result *res)
{
	struct stg_enlist_slot *s = ctx;
	const char *why = res->rc ? NULL : maas_events_failure(res->json);

	stg_enlist_finish(s, BR_FAIL_POWER,
			  "MAAS put %s back to New after commissioning began (it could not power it): %s",
			  s->job->system_id, why ? why : "no reason given");
}

static void on_release(void *ctx, const struct maas_result *res)
{
	struct stg_enlist_slot *s = ctx;

	if (!stg_enlist_step_failed(s, res, "releasing"))
		stg_enlist_reread(s);
}

/* The statuses stg_enlist_dispatch only waits in: MAAS moves the machine on by
 * itself. Commissioning, testing, releasing and erasing end Ready (or
 * failed) and are waited out under the commissioning limit; deploying ends
 * Deployed (or failed) under the deployment limit. */
int64_t stg_enlist_wait_limit(const struct stg_enlist_slot *s, int status)
{
	const struct stg_enlist_options *o = &s->flow->opts;
	const struct stg_enlist_job *j = s->job;

	switch (status) {
	case MAAS_COMMISSIONING:
	case MAAS_TESTING:
	case MAAS_RELEASING:
	case MAAS_DISK_ERASING:
		return j->commission_limit_ms ? j->commission_limit_ms : o->commission_timeout_ms;
	case MAAS_DEPLOYING:
		return j->deploy_limit_ms ? j->deploy_limit_ms : o->deploy_timeout_ms;
	default:
		return 0;
	}
}

void stg_enlist_dispatch(struct stg_enlist_slot *s, const struct maas_machine *m)
{
	struct stg_enlist_job *j = s->job;

	switch (m->status) {
	case MAAS_NEW:
		/* New after this run commissioned it: MAAS could not power the
		 * machine and reverted it (models/node.py _start_bmc_unavailable).
		 * Commissioning again would loop forever on the same BMC, and
		 * restart the wait each time: fail with MAAS's newest error. */
		if (j->commissioned_here)
			stg_enlist_sent(
			    s, maas_machine_errors(s->flow->client, j->system_id, on_power_events, s),
			    "reading why MAAS reverted the machine to New");
		else
			commission(s);
		break;
	case MAAS_COMMISSIONING:
	case MAAS_TESTING:
	case MAAS_RELEASING:
	case MAAS_DISK_ERASING:
		stg_enlist_wait(s, m, stg_enlist_wait_limit(s, m->status),
				m->status == MAAS_COMMISSIONING || m->status == MAAS_TESTING ? "commissioning"
											     : "releasing",
				"Ready");
		break;
	case MAAS_FAILED_COMMISSIONING:
	case MAAS_FAILED_TESTING:
		if (!j->commissioned_here) {
			/* failed in an earlier run: retried */
			if (m->status == MAAS_FAILED_TESTING)
				retest(s);
			else
				commission(s);
		} else if (m->status_message && *m->status_message) {
			stg_enlist_finish(s, BR_FAIL_COMMISSION, "MAAS commissioning failed (%s): %s",
					  j->system_id, m->status_message);
		} else {
			stg_enlist_sent(
			    s, maas_machine_errors(s->flow->client, j->system_id, on_failure_events, s),
			    "reading why commissioning failed");
		}
		break;
	case MAAS_ALLOCATED:
		/* MAAS changes storage on Ready machines only (api/blockdevices.py
		 * set_boot_disk, api/machines.py set_storage_layout): an
		 * Allocated one already on the right disk deploys as it is, any
		 * other goes back to Ready to be pinned. */
		if (is_chosen_disk(j, m->boot_disk_serial, m->boot_disk_id_path)) {
			j->wait_since_ms = 0;
			s->flow->cb->on_ready(s->flow->ctx, j);
			if (j->lost)
				stg_enlist_finish(s, BR_FAIL_STAGE,
						  "no longer this stage's node: not deployed");
			else
				deploy(s);
		} else {
			br_info("enlist",
				"%s: %s is Allocated with boot disk %s, not %s: releasing it to pin the disk",
				j->hostname, j->system_id,
				m->boot_disk_serial ? m->boot_disk_serial : "(none)", j->boot_disk_serial);
			j->wait_since_ms = br_now_ms();
			stg_enlist_sent(s, maas_release(s->flow->client, j->system_id, on_release, s),
					"releasing to pin the boot disk");
		}
		break;
	case MAAS_READY:
		j->wait_since_ms = 0;
		s->flow->cb->on_ready(s->flow->ctx, j);
		if (j->lost)
			stg_enlist_finish(s, BR_FAIL_STAGE, "no longer this stage's node: not deployed");
		else
			boot_disk(s);
		break;
	case MAAS_DEPLOYING:
		stg_enlist_wait(s, m, stg_enlist_wait_limit(s, m->status), "deployment", "Deployed");
		break;
	case MAAS_DEPLOYED:
		free(j->ip);
		free(j->installed_serial);
		j->ip = m->ip ? br_xstrdup(m->ip) : NULL;
		j->installed_serial = m->boot_disk_serial ? br_xstrdup(m->boot_disk_serial) : NULL;
		if (!is_chosen_disk(j, m->boot_disk_serial, m->boot_disk_id_path))
			stg_enlist_finish(
			    s, BR_FAIL_BOOT_DISK,
			    "deployed on boot disk serial %s, not %s: release it in MAAS and re-run",
			    m->boot_disk_serial ? m->boot_disk_serial : "(none)", j->boot_disk_serial);
		else
			stg_enlist_finish(s, BR_FAIL_NONE, "deployed by MAAS as %s, %s, OS on disk %s",
					  j->system_id, m->ip ? m->ip : "no address", m->boot_disk_serial);
		break;
	case MAAS_FAILED_DEPLOYMENT:
		if (j->deploy_sent)
			stg_enlist_finish(s, BR_FAIL_DEPLOY, "MAAS deployment failed (%s): %s", j->system_id,
					  m->status_message ? m->status_message : "no reason given");
		else
			stg_enlist_sent(s, maas_release(s->flow->client, j->system_id, on_release, s),
					"releasing after a failed deployment");
		break;
	case MAAS_BROKEN:
		stg_enlist_finish(s, BR_FAIL_MAAS_REFUSED,
				  "MAAS has %s marked Broken%s%s: mark it fixed in MAAS once repaired",
				  j->system_id, m->status_message ? ": " : "",
				  m->status_message ? m->status_message : "");
		break;
	default:
		stg_enlist_finish(s, BR_FAIL_MAAS_REFUSED,
				  "MAAS machine %s is %s; enlist cannot advance it from there", j->system_id,
				  maas_status_name(m->status));
		break;
	}
}
