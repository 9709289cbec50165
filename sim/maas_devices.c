/* The MAAS emulator's documents: machines and their block devices, and
 * nodes/{id}/blockdevices/ with set_boot_disk. */
#include <stdlib.h>
#include <string.h>

#include "sim/maas_private.h"

const char *sim_maas_status_name(int status)
{
	static const char *const names[] = {
		"New", "Commissioning", "Failed commissioning", "Missing", "Ready", "Reserved", "Deployed",
		"Retired", "Broken", "Deploying", "Allocated", "Failed deployment", "Releasing",
		"Failed releasing", "Disk erasing", "Failed disk erasing", "Rescue mode", "Entering rescue mode",
		"Failed to enter rescue mode", "Exiting rescue mode", "Failed to exit rescue mode", "Testing",
		"Failed testing",
	};

	return status >= 0 && status < (int)(sizeof(names) / sizeof(names[0])) ? names[status] : "Unknown";
}

/* Block devices exist in MAAS only once commissioning has found them. */
static size_t n_disks(struct sim_maas *m, const struct sim_maas_machine *mc)
{
	return mc->host >= 0 && mc->commissioned ? m->hosts[mc->host].n_disks : 0;
}

json_t *sim_maas_blockdevice_json(struct sim_maas *m, struct sim_maas_machine *mc, int index)
{
	const struct sim_maas_disk *d = &m->hosts[mc->host].disks[index];
	json_t *parts = json_array();
	json_int_t id = (json_int_t)(mc->bd_base + index);

	if (index == mc->root_disk) {
		json_array_append_new(parts, json_pack("{s:I, s:I, s:{s:s, s:s}}", "id", id * 10 + 1, "size",
						       (json_int_t)536870912, "filesystem", "fstype", "fat32",
						       "mount_point", "/boot/efi"));
		json_array_append_new(parts, json_pack("{s:I, s:I, s:{s:s, s:s}}", "id", id * 10 + 2, "size",
						       (json_int_t)(d->size - 536870912 - 1048576), "filesystem",
						       "fstype", "ext4", "mount_point", "/"));
	}
	return json_pack("{s:I, s:s, s:s, s:s, s:s, s:I, s:i, s:s, s:s+, s:s, s:[s], s:o, s:s, s:s, s:s}", "id", id,
			 "name", d->name, "serial", d->serial, "model", d->model, "id_path", d->id_path, "size",
			 (json_int_t)d->size, "block_size", 512, "type", "physical", "path", "/dev/disk/by-dname/",
			 d->name, "system_id", mc->system_id, "tags", "ssd", "partitions", parts, "used_for",
			 index == mc->root_disk ? "GPT partitioned with 2 partitions" : "Unused", "resource_uri",
			 "/MAAS/api/2.0/nodes/", "storage_pool", "");
}

static json_t *interfaces_json(const struct sim_maas_machine *mc)
{
	json_t *arr = json_array();

	for (size_t i = 0; i < mc->n_macs; i++) {
		char name[24];

		snprintf(name, sizeof(name), "eth%zu", i);
		json_array_append_new(arr, json_pack("{s:I, s:s, s:s, s:s, s:b}", "id", (json_int_t)(mc->bd_base + i),
						     "name", name, "type", "physical", "mac_address", mc->macs[i],
						     "enabled", 1));
	}
	return arr;
}

json_t *sim_maas_machine_json(struct sim_maas *m, struct sim_maas_machine *mc)
{
	json_t *bds = json_array(), *tags = json_array(), *ips = json_array(), *o;
	size_t n = n_disks(m, mc);

	for (size_t i = 0; i < n; i++)
		json_array_append_new(bds, sim_maas_blockdevice_json(m, mc, (int)i));
	for (size_t i = 0; i < m->n_tags; i++)
		if (mc->tags[i])
			json_array_append_new(tags, json_string(m->tags[i].name));
	if (mc->status == ST_DEPLOYED && mc->host >= 0 && m->hosts[mc->host].ip[0])
		json_array_append_new(ips, json_string(m->hosts[mc->host].ip));
	o = json_pack("{s:s, s:s, s:s++, s:s, s:i, s:s, s:s, s:s, s:s, s:o, s:o, s:o, s:o, s:o, s:s, s:s, s:s+}",
		      "system_id", mc->system_id, "hostname", mc->hostname, "fqdn", mc->hostname, ".", mc->domain,
		      "architecture", mc->architecture, "status", mc->status, "status_name",
		      sim_maas_status_name(mc->status), "status_message", mc->status_message, "power_type",
		      mc->power_type, "power_state", mc->power_state, "boot_disk",
		      mc->boot_disk >= 0 && (size_t)mc->boot_disk < n ? sim_maas_blockdevice_json(m, mc, mc->boot_disk)
								      : json_null(),
		      "blockdevice_set", bds, "interface_set", interfaces_json(mc), "ip_addresses", ips, "tag_names",
		      tags, "osystem", mc->status == ST_DEPLOYED || mc->status == ST_DEPLOYING ? "ubuntu" : "",
		      "distro_series", mc->distro_series, "resource_uri", "/MAAS/api/2.0/machines/", mc->system_id);
	json_object_set_new(o, "physicalblockdevice_set", json_deep_copy(bds));
	return o;
}

static void set_boot_disk(struct sim_maas *m, struct sim_maas_machine *mc, int index, struct sim_maas_reply *r)
{
	/* src/maasserver/api/blockdevices.py BlockDeviceHandler.set_boot_disk:
	 * Ready only (NodeStateViolation, 409), Allocated included. */
	if (mc->status != ST_READY) {
		sim_maas_reply_text(r, 409, "Cannot set as boot disk because the machine is not Ready.");
		return;
	}
	/* Only the boot flag moves; partitions stay where the layout put them
	 * until set_storage_layout is applied again. */
	mc->boot_disk = index;
	sim_maas_log_field(r, "boot_disk_serial", json_string(m->hosts[mc->host].disks[index].serial));
	sim_maas_reply_text(r, 200, "OK");
}

void sim_maas_blockdevices(struct sim_maas *m, const struct sim_maas_req *req, const char *rest,
			   struct sim_maas_reply *r)
{
	struct sim_maas_machine *mc;
	char id[16];
	const char *p;
	long bd;
	size_t n;

	snprintf(id, sizeof(id), "%.*s", (int)strcspn(rest, "/"), rest);
	mc = sim_maas_find(m, id);
	p = rest + strlen(id);
	if (!mc || strncmp(p, "/blockdevices/", 14)) {
		sim_maas_reply_text(r, 404, mc ? "Not Found" : "No Node matches the given query.");
		return;
	}
	sim_maas_advance(m, mc, br_now_ms());
	sim_maas_log_field(r, "system_id", json_string(mc->system_id));
	n = n_disks(m, mc);
	p += 14;
	if (!*p) {
		json_t *arr = json_array();

		if (strcmp(req->method, "GET") || req->op) {
			json_decref(arr);
			sim_maas_reply_bad_op(r, req);
			return;
		}
		for (size_t i = 0; i < n; i++)
			json_array_append_new(arr, sim_maas_blockdevice_json(m, mc, (int)i));
		sim_maas_reply_json(r, 200, arr);
		return;
	}
	snprintf(id, sizeof(id), "%.*s", (int)strcspn(p, "/"), p);
	if (br_parse_long(id, mc->bd_base, mc->bd_base + (long)n - 1, &bd) || strcmp(p + strlen(id), "/") || !n) {
		sim_maas_reply_text(r, 404, "No BlockDevice matches the given query.");
		return;
	}
	if (!strcmp(req->method, "GET") && !req->op)
		sim_maas_reply_json(r, 200, sim_maas_blockdevice_json(m, mc, (int)(bd - mc->bd_base)));
	else if (!strcmp(req->method, "POST") && req->op && !strcmp(req->op, "set_boot_disk"))
		set_boot_disk(m, mc, (int)(bd - mc->bd_base), r);
	else
		sim_maas_reply_bad_op(r, req);
}
