/* Reading MAAS machine, block device and event documents into records. */
#include <stdlib.h>
#include <string.h>

#include "maas.h"

static char *dup_str(json_t *obj, const char *path)
{
	const char *s = br_json_str(obj, path);

	return s && *s ? br_xstrdup(s) : NULL;
}

int maas_machine_parse(json_t *obj, struct maas_machine *ret_machine, struct br_err *err)
{
	struct maas_machine m = { 0 };
	json_t *ifaces, *ips, *iface;
	size_t i;

	if (!json_is_object(obj) || !br_json_str(obj, "system_id"))
		return br_errf(err, BR_E_PROTO, "MAAS machine without a system_id");
	m.system_id = dup_str(obj, "system_id");
	m.hostname = dup_str(obj, "hostname");
	m.fqdn = dup_str(obj, "fqdn");
	m.status = (int)br_json_int(obj, "status", -1);
	m.status_name = dup_str(obj, "status_name");
	m.status_message = dup_str(obj, "status_message");
	m.boot_disk_serial = dup_str(obj, "boot_disk/serial");
	m.boot_disk_id_path = dup_str(obj, "boot_disk/id_path");
	m.power_state = dup_str(obj, "power_state");
	m.owner = dup_str(obj, "owner");
	ips = json_object_get(obj, "ip_addresses");
	if (json_is_array(ips) && json_array_size(ips) && json_is_string(json_array_get(ips, 0)))
		m.ip = br_xstrdup(json_string_value(json_array_get(ips, 0)));
	ifaces = json_object_get(obj, "interface_set");
	json_array_foreach(ifaces, i, iface)
	{
		char mac[18];
		const char *s = br_json_str(iface, "mac_address");

		if (i >= MAAS_MACS_MAX)
			break;
		if (s && !br_mac_normalize(s, mac))
			br_strlist_add(&m.macs, mac);
	}
	json_array_foreach(json_object_get(obj, "tag_names"), i, iface)
	{
		if (i >= MAAS_TAGS_MAX)
			break;
		if (json_is_string(iface))
			br_strlist_add(&m.tags, json_string_value(iface));
	}
	*ret_machine = m;
	return 0;
}

void maas_machine_release(struct maas_machine *m)
{
	free(m->system_id);
	free(m->hostname);
	free(m->fqdn);
	free(m->status_name);
	free(m->status_message);
	free(m->boot_disk_serial);
	free(m->boot_disk_id_path);
	free(m->ip);
	free(m->power_state);
	free(m->owner);
	br_strlist_release(&m->macs);
	br_strlist_release(&m->tags);
	memset(m, 0, sizeof(*m));
}

int maas_blockdevices_parse(json_t *arr, struct maas_blockdevice **ret_devs, size_t *ret_n,
			    struct br_err *err)
{
	struct maas_blockdevice *devs;
	size_t i, n = 0;
	json_t *d;

	if (!json_is_array(arr))
		return br_errf(err, BR_E_PROTO, "MAAS block devices: not a list");
	if (json_array_size(arr) > MAAS_BLOCKDEVICES_MAX)
		return br_errf(err, BR_E_TOOBIG, "MAAS block devices: %zu listed, more than %d",
			       json_array_size(arr), MAAS_BLOCKDEVICES_MAX);
	devs = br_xcalloc(json_array_size(arr) + 1, sizeof(*devs));
	json_array_foreach(arr, i, d)
	{
		json_int_t size = br_json_int(d, "size", 0);

		if (!json_is_integer(json_object_get(d, "id")))
			continue;
		devs[n].id = br_json_int(d, "id", 0);
		devs[n].name = dup_str(d, "name");
		devs[n].serial = dup_str(d, "serial");
		devs[n].model = dup_str(d, "model");
		devs[n].id_path = dup_str(d, "id_path");
		devs[n].size = size > 0 ? (uint64_t)size : 0;
		n++;
	}
	*ret_devs = devs;
	*ret_n = n;
	return 0;
}

void maas_blockdevices_free(struct maas_blockdevice *devs, size_t n)
{
	for (size_t i = 0; devs && i < n; i++) {
		free(devs[i].name);
		free(devs[i].serial);
		free(devs[i].model);
		free(devs[i].id_path);
	}
	free(devs);
}

const char *maas_events_failure(json_t *doc)
{
	json_t *events = json_object_get(doc, "events"), *e;
	size_t i;

	/* events/?op=query lists newest first. */
	json_array_foreach(events, i, e)
	{
		const char *type = br_json_str(e, "type"), *level = br_json_str(e, "level");
		const char *desc = br_json_str(e, "description");

		if (!desc || !*desc)
			continue;
		if ((level && !strcmp(level, "ERROR")) || (type && strstr(type, "ailed")))
			return desc;
	}
	return NULL;
}

int maas_event_new_status(json_t *event)
{
	const char *type = br_json_str(event, "type"), *desc = br_json_str(event, "description");
	const char *to, *end;
	size_t len;

	if (!type || strcmp(type, MAAS_EVENT_STATUS_CHANGED))
		return MAAS_EVENT_NOT_STATUS;
	/* "From 'Commissioning' to 'Ready'": display names hold no quote. */
	if (!desc || strncmp(desc, "From '", 6) || !(to = strstr(desc + 6, "' to '")))
		return MAAS_EVENT_STATUS_UNREAD;
	to += 6;
	end = strchr(to, '\'');
	if (!end)
		return MAAS_EVENT_STATUS_UNREAD;
	len = (size_t)(end - to);
	for (int st = 0; st < MAAS_STATUS_COUNT; st++) {
		const char *name = maas_status_name(st);

		if (strlen(name) == len && !strncmp(name, to, len))
			return st;
	}
	return MAAS_EVENT_STATUS_UNREAD;
}
