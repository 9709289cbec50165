/*
 * config_diff — the pure half of configure: what differs between a
 * system's BIOS attributes and boot settings and the spec, and the PATCH
 * bodies that would fix it. No I/O; the unit tests drive it directly.
 */
#include <stdlib.h>
#include <string.h>

#include "rf_private.h"

/* iDRAC9 has PxeDev1..4; leave room for later BIOSes. */
#define RF_PXE_DEVICES_MAX 16

char *rf_cfg_value_text(json_t *v)
{
	if (json_is_string(v))
		return br_xstrdup(json_string_value(v));
	if (json_is_integer(v))
		return br_xasprintf("%" JSON_INTEGER_FORMAT, json_integer_value(v));
	if (json_is_real(v))
		return br_xasprintf("%g", json_real_value(v));
	if (json_is_boolean(v))
		return br_xstrdup(json_is_true(v) ? "true" : "false");
	return NULL;
}

void rf_cfg_changes_free(struct rf_config_change *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(c[i].name);
		free(c[i].current);
		free(c[i].wanted);
	}
	free(c);
}

void rf_cfg_bios_diff(json_t *attrs, const struct rf_config_spec *spec, struct rf_config_change **ret,
		      size_t *ret_n)
{
	struct rf_config_change *c = NULL;
	size_t n = 0;

	for (size_t i = 0; i < spec->n_bios; i++) {
		const struct br_kv *kv = &spec->bios[i];
		char *cur = rf_cfg_value_text(json_object_get(attrs, kv->key));

		if (cur && !strcmp(cur, kv->value)) {
			free(cur);
			continue;
		}
		c = br_xrealloc(c, (n + 1) * sizeof(*c));
		c[n++] = (struct rf_config_change){ br_xstrdup(kv->key), cur, br_xstrdup(kv->value) };
	}
	*ret = c;
	*ret_n = n;
}

/* The wanted text as the JSON type the BIOS has for the attribute now; an
 * attribute the BIOS lacks goes as a string, for the BMC to refuse by name. */
static json_t *typed_value(json_t *current, const char *name, const char *text, struct br_err *err)
{
	long v;

	if (json_is_integer(current)) {
		if (br_parse_long(text, -2147483647L - 1, 2147483647L, &v)) {
			br_errf(err, BR_E_INVAL, "BIOS attribute %s is a number; the baseline says '%s'",
				name, text);
			return NULL;
		}
		return json_integer(v);
	}
	if (json_is_boolean(current)) {
		if (strcmp(text, "true") && strcmp(text, "false")) {
			br_errf(err, BR_E_INVAL, "BIOS attribute %s is true or false; the baseline says '%s'",
				name, text);
			return NULL;
		}
		return json_boolean(!strcmp(text, "true"));
	}
	return json_string(text);
}

json_t *rf_cfg_bios_patch(json_t *attrs, const struct rf_config_change *c, size_t n, struct br_err *err)
{
	json_t *values = json_object(), *v;

	for (size_t i = 0; i < n; i++) {
		if (!(v = typed_value(json_object_get(attrs, c[i].name), c[i].name, c[i].wanted, err))) {
			json_decref(values);
			return NULL;
		}
		json_object_set_new(values, c[i].name, v);
	}
	/* iDRAC makes the config job itself when told when to apply (9 with
	 * firmware 4.x and later); OnReset leaves the reset to us. */
	return json_pack("{s:o, s:{s:s}}", "Attributes", values, "@Redfish.SettingsApplyTime", "ApplyTime",
			 "OnReset");
}

/* An attribute as it will be: the spec's value where it sets one. */
static char *planned(json_t *attrs, const struct rf_config_spec *spec, const char *name)
{
	for (size_t i = 0; i < spec->n_bios; i++)
		if (!strcmp(spec->bios[i].key, name))
			return br_xstrdup(spec->bios[i].value);
	return rf_cfg_value_text(json_object_get(attrs, name));
}

/* The PXE device (1-based) whose interface is the NIC, enabled; 0 if none. */
static int pxe_device(json_t *attrs, const struct rf_config_spec *spec)
{
	int found = 0;

	for (int d = 1; d <= RF_PXE_DEVICES_MAX && !found; d++) {
		char name[32];
		char *nic, *on;

		snprintf(name, sizeof(name), "PxeDev%dInterface", d);
		nic = planned(attrs, spec, name);
		snprintf(name, sizeof(name), "PxeDev%dEnDis", d);
		on = planned(attrs, spec, name);
		if (nic && !strcmp(nic, spec->pxe_nic) && (!on || strcmp(on, "Disabled")))
			found = d;
		free(nic);
		free(on);
	}
	return found;
}

static char *join(json_t *arr)
{
	struct br_buf b;
	json_t *v;
	size_t i;

	br_buf_init(&b, 0);
	json_array_foreach(arr, i, v)
	    br_buf_addf(&b, "%s%s", i ? "," : "", json_is_string(v) ? json_string_value(v) : "?");
	if (!b.len)
		br_buf_adds(&b, "(empty)");
	return br_buf_detach(&b);
}

static int plan_persistent(json_t *system, json_t *attrs, const struct rf_config_spec *spec,
			   json_t **ret_patch, char **ret_current, char **ret_wanted, struct br_err *err)
{
	json_t *order = br_json_path(system, "Boot/BootOrder"), *v, *wanted;
	int dev = pxe_device(attrs, spec);
	char prefix[40], *current_text, *wanted_text;
	size_t i, at = (size_t)-1;

	if (!dev)
		return br_errf(
		    err, BR_E_INVAL,
		    "no enabled PXE device uses %s (set PxeDevNInterface and PxeDevNEnDis in the baseline)",
		    spec->pxe_nic);
	if (!json_is_array(order))
		return br_errf(err, BR_E_PROTO, "the System has no Boot.BootOrder to put PXE device %d first",
			       dev);
	/* iDRAC names the boot option of PXE device N "NIC.PxeDevice.N-1" */
	snprintf(prefix, sizeof(prefix), "NIC.PxeDevice.%d-", dev);
	json_array_foreach(order, i, v) if (json_is_string(v) &&
					    !strncmp(json_string_value(v), prefix, strlen(prefix)) &&
					    at == (size_t)-1) at = i;
	if (at == (size_t)-1)
		return br_errf(err, BR_E_PROTO, "BootOrder has no entry for PXE device %d (%s)", dev,
			       spec->pxe_nic);
	if (at == 0)
		return 0;
	wanted = json_array();
	json_array_append(wanted, json_array_get(order, at));
	json_array_foreach(order, i, v) if (i != at) json_array_append(wanted, v);
	current_text = join(order);
	wanted_text = join(wanted);
	*ret_current = br_xasprintf("BootOrder %s", current_text);
	*ret_wanted = br_xasprintf("BootOrder %s", wanted_text);
	free(current_text);
	free(wanted_text);
	*ret_patch = json_pack("{s:{s:o}}", "Boot", "BootOrder", wanted);
	return 1;
}

/* 1 when the BIOS names its PXE devices as iDRAC's does (PxeDevNInterface);
 * other families' BIOSes enable PXE per NIC and boot it by the override. */
static int has_pxe_devices(json_t *attrs, const struct rf_config_spec *spec)
{
	char *nic = planned(attrs, spec, "PxeDev1Interface");
	int has = nic != NULL;

	free(nic);
	return has;
}

/* 1 when the System lists the override target among its allowable values,
 * or lists none. */
static int override_allowed(json_t *system, const char *target)
{
	json_t *list = br_json_path(system, "Boot/BootSourceOverrideTarget@Redfish.AllowableValues"), *v;
	size_t i;

	if (!json_is_array(list))
		return 1;
	json_array_foreach(list, i,
			   v) if (json_is_string(v) && !strcmp(json_string_value(v), target)) return 1;
	return 0;
}

int rf_cfg_boot_plan(json_t *system, json_t *attrs, const struct rf_config_spec *spec, json_t **ret_patch,
		     char **ret_current, char **ret_wanted, struct br_err *err)
{
	const char *target, *enabled;
	int pxe_devices = has_pxe_devices(attrs, spec);

	if (!spec->pxe_nic)
		return 0;
	if (spec->boot_mode == RF_BOOT_PERSISTENT && !pxe_devices)
		return br_errf(err, BR_E_UNSUPPORTED,
			       "unsupported on this BMC: a persistent PXE boot order needs the BIOS's "
			       "PxeDevNInterface attributes, which this BIOS does not have (mode = once "
			       "sets BootSourceOverrideTarget=Pxe instead)");
	if (spec->boot_mode == RF_BOOT_PERSISTENT)
		return plan_persistent(system, attrs, spec, ret_patch, ret_current, ret_wanted, err);
	if (!override_allowed(system, "Pxe"))
		return br_errf(err, BR_E_UNSUPPORTED,
			       "unsupported on this BMC: Pxe is not among the System's "
			       "BootSourceOverrideTarget@Redfish.AllowableValues");
	/* once: the next boot goes to PXE; on an iDRAC the NIC is the one the
	 * BIOS's PXE devices name, so it must have one too */
	if (pxe_devices && !pxe_device(attrs, spec))
		return br_errf(err, BR_E_INVAL,
			       "no enabled PXE device uses %s (set PxeDevNInterface in the baseline)",
			       spec->pxe_nic);
	target = br_json_str(system, "Boot/BootSourceOverrideTarget");
	enabled = br_json_str(system, "Boot/BootSourceOverrideEnabled");
	if (target && !strcmp(target, "Pxe") && enabled && strcmp(enabled, "Disabled"))
		return 0;
	*ret_current = br_xasprintf("BootSourceOverride %s/%s", target ? target : "None",
				    enabled ? enabled : "Disabled");
	*ret_wanted = br_xstrdup("BootSourceOverride Pxe/Once");
	*ret_patch = json_pack("{s:{s:s, s:s}}", "Boot", "BootSourceOverrideTarget", "Pxe",
			       "BootSourceOverrideEnabled", "Once");
	return 1;
}
