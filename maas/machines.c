/*
 * Machines: find, create, read and move one through MAAS's lifecycle
 * (commission, allocate, deploy, release, mark broken or fixed). Each call
 * is one request; MAAS's answer, or its own error text, reaches done.
 */
#define _DEFAULT_SOURCE
#include <stdlib.h>
#include <string.h>

#include "ops_private.h"

int maas_requestf(struct maas_client *client, const char *method, const char *form, maas_done_fn done,
		  void *ctx, const char *fmt, ...)
{
	struct br_buf path;
	va_list ap;
	int rc;

	br_buf_init(&path, 4096);
	va_start(ap, fmt);
	br_buf_vaddf(&path, fmt, ap);
	va_end(ap);
	rc = maas_request(client, method, br_buf_str(&path), form, done, ctx);
	br_buf_release(&path);
	return rc;
}

/* system_ids are short lowercase alphanumerics; anything else would be
 * pasted into request paths. */
int maas_system_id_valid(const char *id)
{
	if (!id || !*id || strlen(id) > MAAS_SYSTEM_ID_MAX)
		return 0;
	for (; *id; id++)
		if (!((*id >= 'a' && *id <= 'z') || (*id >= '0' && *id <= '9')))
			return 0;
	return 1;
}

int maas_machines_by_mac(struct maas_client *client, const struct br_strlist *macs, maas_done_fn done,
			 void *ctx)
{
	struct br_buf path;
	int rc;

	br_buf_init(&path, 0);
	br_buf_adds(&path, "machines/?");
	for (size_t i = 0; i < macs->n; i++)
		maas_form_add(&path, "mac_address", macs->items[i]);
	rc = maas_request(client, "GET", br_buf_str(&path), NULL, done, ctx);
	br_buf_release(&path);
	return rc;
}

int maas_machines_by_id(struct maas_client *client, const char *const *system_ids, size_t n,
			maas_done_fn done, void *ctx)
{
	struct br_buf path;
	int rc = 0;

	if (n > MAAS_IDS_PER_REQUEST_MAX)
		return BR_E_TOOBIG;
	br_buf_init(&path, 0);
	br_buf_adds(&path, "machines/?");
	for (size_t i = 0; i < n && !rc; i++)
		rc = maas_system_id_valid(system_ids[i]) ? maas_form_add(&path, "id", system_ids[i])
							 : BR_E_INVAL;
	if (!rc)
		rc = maas_request(client, "GET", br_buf_str(&path), NULL, done, ctx);
	br_buf_release(&path);
	return rc;
}

int maas_machine_get(struct maas_client *client, const char *system_id, maas_done_fn done, void *ctx)
{
	if (!maas_system_id_valid(system_id))
		return BR_E_INVAL;
	return maas_requestf(client, "GET", NULL, done, ctx, "machines/%s/", system_id);
}

/* The power parameters as MachineForm takes them, power_parameters_NAME
 * for each of the power type's settings (src/maasserver/forms/__init__.py,
 * get_power_type_parameters_from_form): for redfish power_address,
 * power_user, power_pass and node_id
 * (src/provisioningserver/drivers/power/redfish.py, RedfishPowerDriver
 * settings), for ipmi power_driver, power_address, power_user and
 * power_pass (drivers/power/ipmi.py, IPMIPowerDriver settings). */
static void power_form(struct br_buf *form, const struct maas_power *pw)
{
	maas_form_add(form, "power_type", pw->type ? pw->type : "redfish");
	maas_form_add(form, "power_parameters_power_address", pw->address);
	maas_form_add(form, "power_parameters_power_user", pw->user);
	maas_form_add(form, "power_parameters_power_pass", pw->password);
	if (pw->node_id)
		maas_form_add(form, "power_parameters_node_id", pw->node_id);
	if (pw->driver)
		maas_form_add(form, "power_parameters_power_driver", pw->driver);
}

int maas_machine_create(struct maas_client *client, const struct maas_machine_spec *spec, maas_done_fn done,
			void *ctx)
{
	const struct maas_power *pw = &spec->power;
	struct br_buf form;
	int rc;

	br_buf_init(&form, MAAS_FORM_MAX);
	maas_form_add(&form, "hostname", spec->hostname);
	maas_form_add(&form, "architecture", spec->architecture ? spec->architecture : "amd64/generic");
	for (size_t i = 0; spec->macs && i < spec->macs->n; i++)
		maas_form_add(&form, "mac_addresses", spec->macs->items[i]);
	power_form(&form, pw);
	if (spec->commission)
		maas_form_add(&form, "commission", "true");
	rc = maas_request(client, "POST", "machines/", br_buf_str(&form), done, ctx);
	/* the form carries the BMC password */
	explicit_bzero(form.data, form.len);
	br_buf_release(&form);
	return rc;
}

int maas_machine_set_power(struct maas_client *client, const char *system_id, const struct maas_power *power,
			   maas_done_fn done, void *ctx)
{
	struct br_buf form;
	int rc;

	if (!maas_system_id_valid(system_id) || !power->address || !power->user || !power->password)
		return BR_E_INVAL;
	br_buf_init(&form, MAAS_FORM_MAX);
	power_form(&form, power);
	/* PUT machines/{system_id}/ (src/maasserver/api/machines.py
	 * MachineHandler.update): the parameters given replace those MAAS
	 * has; the answer is the machine. */
	rc = maas_requestf(client, "PUT", br_buf_str(&form), done, ctx, "machines/%s/", system_id);
	/* the form carries the BMC password */
	explicit_bzero(form.data, form.len);
	br_buf_release(&form);
	return rc;
}

/* POST machines/ID/?op=OP with a form (NULL: empty). */
static int machine_op(struct maas_client *client, const char *system_id, const char *op, const char *form,
		      maas_done_fn done, void *ctx)
{
	if (!maas_system_id_valid(system_id))
		return BR_E_INVAL;
	return maas_requestf(client, "POST", form ? form : "", done, ctx, "machines/%s/?op=%s", system_id,
			     op);
}

int maas_commission(struct maas_client *client, const char *system_id, maas_done_fn done, void *ctx)
{
	/* skip_bmc_config: MAAS would otherwise create its own BMC account
	 * while commissioning and replace the credentials given; the
	 * inventory owns the BMC's credentials (see README, "MAAS"). */
	return machine_op(client, system_id, "commission", "skip_bmc_config=1", done, ctx);
}

int maas_test(struct maas_client *client, const char *system_id, maas_done_fn done, void *ctx)
{
	return machine_op(client, system_id, "test", NULL, done, ctx);
}

int maas_deploy(struct maas_client *client, const char *system_id, const char *distro_series,
		const char *user_data_b64, maas_done_fn done, void *ctx)
{
	struct br_buf form;
	int rc;

	br_buf_init(&form, MAAS_FORM_MAX);
	if (distro_series)
		maas_form_add(&form, "distro_series", distro_series);
	if (user_data_b64)
		maas_form_add(&form, "user_data", user_data_b64);
	rc = machine_op(client, system_id, "deploy", br_buf_str(&form), done, ctx);
	br_buf_release(&form);
	return rc;
}

int maas_release(struct maas_client *client, const char *system_id, maas_done_fn done, void *ctx)
{
	return machine_op(client, system_id, "release", NULL, done, ctx);
}

int maas_release_erase(struct maas_client *client, const char *system_id, enum maas_erase erase,
		       maas_done_fn done, void *ctx)
{
	struct br_buf form;
	int rc;

	if (erase == MAAS_ERASE_NONE)
		return maas_release(client, system_id, done, ctx);
	br_buf_init(&form, 0);
	/* api/machines.py release: erase, then how (secure falls back to a
	 * full wipe on disks that cannot, quick wipes the start and end). */
	maas_form_add(&form, "erase", "true");
	if (erase == MAAS_ERASE_QUICK)
		maas_form_add(&form, "quick_erase", "true");
	else if (erase == MAAS_ERASE_SECURE)
		maas_form_add(&form, "secure_erase", "true");
	rc = machine_op(client, system_id, "release", br_buf_str(&form), done, ctx);
	br_buf_release(&form);
	return rc;
}

/* MAAS allocates from the collection, picking by constraints: system_id
 * pins the one machine. */
int maas_allocate(struct maas_client *client, const char *system_id, maas_done_fn done, void *ctx)
{
	struct br_buf form;
	int rc;

	if (!maas_system_id_valid(system_id))
		return BR_E_INVAL;
	br_buf_init(&form, 0);
	maas_form_add(&form, "system_id", system_id);
	rc = maas_request(client, "POST", "machines/?op=allocate", br_buf_str(&form), done, ctx);
	br_buf_release(&form);
	return rc;
}

int maas_mark_broken(struct maas_client *client, const char *system_id, const char *comment,
		     maas_done_fn done, void *ctx)
{
	struct br_buf form;
	int rc;

	br_buf_init(&form, MAAS_FORM_MAX);
	if (comment && *comment)
		maas_form_add(&form, "comment", comment);
	rc = machine_op(client, system_id, "mark_broken", br_buf_str(&form), done, ctx);
	br_buf_release(&form);
	return rc;
}

int maas_mark_fixed(struct maas_client *client, const char *system_id, maas_done_fn done, void *ctx)
{
	return machine_op(client, system_id, "mark_fixed", NULL, done, ctx);
}
