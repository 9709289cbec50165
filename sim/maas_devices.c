/* The MAAS emulator's documents: machines and their block devices, and
 * nodes/{id}/blockdevices/ with set_boot_disk. */
#include <stdlib.h>
#include <string.h>

#include "sim/maas_private.h"

/* NODE_STATUS_CHOICES of src/maasserver/enum.py, by number. */
const char *sim_maas_status_name(int status)
{
	static const char *const names[] = {
		"New",
		"Commissioning",
		"Failed commissioning",
		"Missing",
		"Ready",
		"Reserved",
		"Deployed",
		"Retired",
		"Broken",
		"Deploying",
		"Allocated",
		"Failed deployment",
		"Releasing",
		"Releasing failed",
		"Disk erasing",
		"Failed disk erasing",
		"Rescue mode",
		"Entering rescue mode",
		"Failed to enter rescue mode",
		"Exiting rescue mode",
		"Failed to exit rescue mode",
		"Testing",
		"Failed testing",
	};

	return status >= 0 && status < (int)(sizeof(names) / sizeof(names[0])) ? names[status] : "Unknown";
}

/* Block devices exist in MAAS only once commissioning has found them. */
static size_t n_disks(const struct sim_maas_host *hosts, const struct sim_maas_machine *mc)
{
	return mc->host >= 0 && mc->commissioned ? hosts[mc->host].n_disks : 0;
}

#define ESP_SIZE ((json_int_t)536870912)
#define GPT_RESERVED ((json_int_t)1048576)

/* A partition as src/maasserver/api/partitions.py renders it (fields as in
 * api/examples/machines.json "partitions"): filesystem nested, never the
 * device's own. */
static json_t *partition_json(const struct sim_maas_machine *mc, json_int_t device, int n, json_int_t size,
			      const char *fstype, const char *mount, const char *dev_name)
{
	char uuid[48], fs_uuid[48];
	json_int_t id = device * 10 + n;

	snprintf(uuid, sizeof(uuid), "00000000-0000-4000-8000-%012lld", (long long)id);
	snprintf(fs_uuid, sizeof(fs_uuid), "00000000-0000-4000-9000-%012lld", (long long)id);
	return json_pack(
	    "{s:I, s:s, s:I, s:b, s:[], s:s, s:s++, s:s, s:s+++, s:I, s:{s:s, s:s, s:s, s:s, s:n}}", "id", id,
	    "uuid", uuid, "size", size, "bootable", n == 1, "tags", "type", "partition", "used_for", fstype,
	    " formatted filesystem mounted at ", mount, "system_id", mc->system_id, "path",
	    "/dev/disk/by-dname/", dev_name, "-part", n == 1 ? "1" : "2", "device_id", device, "filesystem",
	    "fstype", fstype, "label", n == 1 ? "efi" : "root", "uuid", fs_uuid, "mount_point", mount,
	    "mount_options");
}

/* A physical block device as src/maasserver/api/blockdevices.py renders
 * it (DISPLAYED_BLOCKDEVICE_FIELDS; shape as api/examples/machines.json
 * "blockdevice_set"): nulls where MAAS has none, sizes in bytes. */
static json_t *blockdevice_json(const struct sim_maas_host *hosts, const struct sim_maas_machine *mc,
				int index)
{
	const struct sim_maas_disk *d = &hosts[mc->host].disks[index];
	json_t *parts = json_array(), *o;
	json_int_t id = (json_int_t)(mc->bd_base + index), size = (json_int_t)d->size, used = 0;
	char uri[96];

	if (index == mc->root_disk && size > ESP_SIZE + GPT_RESERVED) {
		json_array_append_new(parts,
				      partition_json(mc, id, 1, ESP_SIZE, "fat32", "/boot/efi", d->name));
		json_array_append_new(
		    parts, partition_json(mc, id, 2, size - ESP_SIZE - GPT_RESERVED, "ext4", "/", d->name));
		used = size - GPT_RESERVED;
	}
	snprintf(uri, sizeof(uri), "/MAAS/api/2.0/nodes/%s/blockdevices/%lld/", mc->system_id, (long long)id);
	/* the partitions' resource_uri hangs below the device's */
	for (size_t i = 0; i < json_array_size(parts); i++) {
		json_t *p = json_array_get(parts, i);

		json_object_set_new(p, "resource_uri",
				    json_sprintf("%spartition/%lld", uri,
						 (long long)json_integer_value(json_object_get(p, "id"))));
	}
	o = json_pack(
	    "{s:I, s:s, s:s, s:s, s:s, s:I, s:i, s:s, s:s+, s:s, s:[s], s:o, s:s, s:s, s:n, s:n, s:n,"
	    " s:I, s:I, s:s, s:i}",
	    "id", id, "name", d->name, "serial", d->serial, "model", d->model, "id_path", d->id_path, "size",
	    size, "block_size", 512, "type", "physical", "path", "/dev/disk/by-dname/", d->name, "system_id",
	    mc->system_id, "tags", "ssd", "partitions", parts, "used_for",
	    json_array_size(parts) ? "GPT partitioned with 2 partitions" : "Unused", "resource_uri", uri,
	    "filesystem", "storage_pool", "uuid", "used_size", used, "available_size", size - used,
	    "firmware_version", "1.0", "numa_node", 0);
	json_object_set_new(o, "partition_table_type",
			    json_array_size(parts) ? json_string("GPT") : json_null());
	if (!*d->id_path)
		json_object_set_new(o, "id_path", json_null());
	return o;
}

json_t *sim_maas_blockdevice_json(struct sim_maas *m, struct sim_maas_machine *mc, int index)
{
	return blockdevice_json(m->hosts, mc, index);
}

/* The untagged VLAN of the one fabric the emulator has, as
 * src/maasserver/api/vlans.py renders it (api/examples/machines.json
 * "vlan"). */
static json_t *vlan_json(void)
{
	return json_pack("{s:i, s:i, s:i, s:b, s:n, s:n, s:s, s:s, s:n, s:n, s:s, s:i, s:s}", "id", 5001,
			 "vid", 0, "mtu", 1500, "dhcp_on", 1, "external_dhcp", "relay_vlan", "name",
			 "untagged", "fabric", "fabric-0", "primary_rack", "secondary_rack", "space",
			 "undefined", "fabric_id", 0, "resource_uri", "/MAAS/api/2.0/vlans/5001/");
}

/* An interface as src/maasserver/api/interfaces.py renders it
 * (DISPLAYED_INTERFACE_FIELDS; api/examples/machines.json "interface_set"). */
static json_t *interface_json(const struct sim_maas_machine *mc, size_t i, json_t *vlan)
{
	json_int_t id = (json_int_t)(mc->bd_base + (int64_t)i);
	char name[24];

	snprintf(name, sizeof(name), "eth%zu", i);
	json_t *o;

	o = json_pack(
	    "{s:I, s:s, s:s, s:s, s:b, s:[], s:o, s:[], s:i, s:[], s:[], s:s, s:s, s:n, s:n, s:n, s:n}", "id",
	    id, "name", name, "type", "physical", "mac_address", mc->macs[i], "enabled", 1, "tags", "vlan",
	    json_incref(vlan), "links", "effective_mtu", 1500, "parents", "children", "params", "",
	    "system_id", mc->system_id, "discovered", "vendor", "product", "firmware_version");
	json_object_set_new(
	    o, "resource_uri",
	    json_sprintf("/MAAS/api/2.0/nodes/%s/interfaces/%lld/", mc->system_id, (long long)id));
	return o;
}

/* The zone, pool and domain objects every machine carries
 * (src/maasserver/api/zones.py, resourcepools.py, domains.py; shapes as
 * api/examples/machines.json). The emulator has one zone and one pool. */
json_t *sim_maas_zone_json(void)
{
	return json_pack("{s:i, s:s, s:s, s:s}", "id", 1, "name", "default", "description", "",
			 "resource_uri", "/MAAS/api/2.0/zones/default/");
}

json_t *sim_maas_pool_json(void)
{
	return json_pack("{s:i, s:s, s:s, s:s}", "id", 0, "name", "default", "description", "Default pool",
			 "resource_uri", "/MAAS/api/2.0/resourcepool/0/");
}

json_t *sim_maas_domain_json(const char *name, int id, int records)
{
	json_t *o = json_pack("{s:i, s:s, s:b, s:n, s:b, s:i}", "id", id, "name", name, "authoritative", 1,
			      "ttl", "is_default", id == 0, "resource_record_count", records);

	json_object_set_new(o, "resource_uri", json_sprintf("/MAAS/api/2.0/domains/%d/", id));
	return o;
}

/* Statuses in which a machine has an owner (ALLOCATED_NODE_STATUSES of
 * src/maasserver/enum.py). */
int sim_maas_owned(int status)
{
	return status == ST_ALLOCATED || status == ST_DEPLOYING || status == ST_DEPLOYED ||
	       status == ST_FAILED_DEPLOYMENT || status == ST_RELEASING || status == ST_FAILED_RELEASING ||
	       status == ST_DISK_ERASING || status == ST_FAILED_DISK_ERASING;
}

/* Script result summaries as src/maasserver/enum.py SCRIPT_STATUS_CHOICES
 * names them: -1 none run, 1 running, 2 passed, 3 failed. */
static void script_status(json_t *o, const char *field, int value)
{
	char name[48];
	const char *text = value == 2 ? "Passed" : value == 3 ? "Failed" : value == 1 ? "Running" : "Unknown";

	json_object_set_new(o, field, json_integer(value));
	snprintf(name, sizeof(name), "%s_name", field);
	json_object_set_new(o, name, json_string(text));
}

/* A machine as src/maasserver/api/machines.py renders it (DISPLAYED_MACHINE_FIELDS;
 * shape, types and nulls as api/examples/machines.json): what gomaasapi's
 * machine_2_0 schema requires, and the rest a client commonly reads. */
json_t *sim_maas_machine_json(struct sim_maas *m, struct sim_maas_machine *mc)
{
	const struct sim_maas_view v = { m->hosts, m->tags, m->n_tags, sim_maas_domain_id(m, mc->domain) };

	return sim_maas_machine_json_view(&v, mc);
}

json_t *sim_maas_machine_json_view(const struct sim_maas_view *v, const struct sim_maas_machine *mc)
{
	const struct sim_maas_host *hosts = v->hosts;
	json_t *bds = json_array(), *tags = json_array(), *ips = json_array(), *ifaces = json_array(), *o,
	       *hw, *od, *vlan;
	size_t n = n_disks(hosts, mc);
	int known = mc->commissioned, failed_test = mc->status == ST_FAILED_TESTING;
	uint64_t bytes = 0;
	char storage[32];

	for (size_t i = 0; i < n; i++) {
		json_array_append_new(bds, blockdevice_json(hosts, mc, (int)i));
		bytes += hosts[mc->host].disks[i].size;
	}
	/* Every interface is on the one VLAN: one value, in each of them. */
	vlan = vlan_json();
	for (size_t i = 0; i < mc->n_macs; i++)
		json_array_append_new(ifaces, interface_json(mc, i, vlan));
	json_decref(vlan);
	for (size_t i = 0; i < v->n_tags; i++)
		if (mc->tags[i])
			json_array_append_new(tags, json_string(v->tags[i].name));
	if (mc->status == ST_DEPLOYED && mc->host >= 0 && hosts[mc->host].ip[0])
		json_array_append_new(ips, json_string(hosts[mc->host].ip));
	/* hardware_info: "Unknown" until commissioning has read it
	 * (src/maasserver/models/node.py Node.get_hardware_info keys). */
	hw = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s}", "system_vendor",
		       known ? "Dell Inc." : "Unknown", "system_product",
		       known ? "PowerEdge XE9680" : "Unknown", "system_version", "Unknown", "system_serial",
		       known && mc->host >= 0 ? hosts[mc->host].hostname : "Unknown", "cpu_model",
		       known ? "Intel(R) Xeon(R) Platinum 8480+" : "Unknown", "mainboard_vendor",
		       known ? "Dell Inc." : "Unknown", "mainboard_product", "Unknown",
		       "mainboard_firmware_version", "Unknown", "mainboard_firmware_date", "Unknown");
	od = json_object();
	for (size_t i = 0; i < mc->n_owner_data; i++)
		json_object_set_new(od, mc->owner_data[i].key, json_string(mc->owner_data[i].value));
	snprintf(storage, sizeof(storage), "%.3f", (double)bytes / 1e6);
	o = json_pack(
	    "{s:s, s:s, s:s++, s:o, s:s, s:i, s:s, s:s, s:s, s:i, s:s, s:s, s:s, s:o, s:o, s:o, s:o}",
	    "system_id", mc->system_id, "hostname", mc->hostname, "fqdn", mc->hostname, ".", mc->domain,
	    "domain", sim_maas_domain_json(mc->domain, v->domain_id, 0), "architecture", mc->architecture,
	    "status", mc->status, "status_name", sim_maas_status_name(mc->status), "status_message",
	    mc->status_message, "power_type", mc->power_type, "node_type", 0, "node_type_name", "Machine",
	    "power_state", mc->power_state, "osystem",
	    mc->status == ST_DEPLOYED || mc->status == ST_DEPLOYING ? "ubuntu" : "", "blockdevice_set", bds,
	    "interface_set", ifaces, "ip_addresses", ips, "tag_names", tags);
	json_object_set_new(o, "distro_series", json_string(mc->distro_series));
	json_object_set_new(o, "resource_uri", json_sprintf("/MAAS/api/2.0/machines/%s/", mc->system_id));
	/* boot_disk, physicalblockdevice_set and boot_interface repeat what
	 * blockdevice_set and interface_set hold: the same values, shared
	 * rather than built again (they are written out twice all the same).
	 * Building a machine is most of the emulator's work under its lock
	 * when a rack of waiting machines is read. */
	json_object_set(o, "boot_disk",
			mc->boot_disk >= 0 && (size_t)mc->boot_disk < n
			    ? json_array_get(bds, (size_t)mc->boot_disk)
			    : json_null());
	json_object_set(o, "physicalblockdevice_set", bds);
	json_object_set(o, "boot_interface", mc->n_macs ? json_array_get(ifaces, 0) : json_null());
	json_object_set_new(o, "zone", sim_maas_zone_json());
	json_object_set_new(o, "pool", sim_maas_pool_json());
	json_object_set_new(o, "owner", sim_maas_owned(mc->status) ? json_string("admin") : json_null());
	json_object_set_new(o, "owner_data", od);
	json_object_set_new(o, "hardware_info", hw);
	json_object_set_new(o, "cpu_count", json_integer(known ? 224 : 0));
	json_object_set_new(o, "cpu_speed", json_integer(known ? 2000 : 0));
	json_object_set_new(o, "memory", json_integer(known ? 2097152 : 0)); /* MiB */
	json_object_set_new(o, "storage", json_real(strtod(storage, NULL)));
	json_object_set_new(o, "swap_size", json_null());
	json_object_set_new(o, "hwe_kernel", json_null());
	json_object_set_new(o, "min_hwe_kernel", json_string(""));
	json_object_set_new(o, "netboot", json_boolean(mc->status != ST_DEPLOYED));
	json_object_set_new(o, "locked", json_false());
	json_object_set_new(o, "disable_ipv4", json_false());
	json_object_set_new(o, "address_ttl", json_null());
	json_object_set_new(o, "pod", json_null());
	json_object_set_new(o, "status_action", json_string(""));
	json_object_set_new(o, "description", json_string(""));
	json_object_set_new(o, "virtualblockdevice_set", json_array());
	json_object_set_new(o, "iscsiblockdevice_set", json_array());
	json_object_set_new(o, "special_filesystems", json_array());
	json_object_set_new(o, "volume_groups", json_array());
	json_object_set_new(o, "raids", json_array());
	json_object_set_new(o, "cache_sets", json_array());
	json_object_set_new(o, "bcaches", json_array());
	json_object_set_new(o, "default_gateways",
			    json_pack("{s:{s:n, s:n}, s:{s:n, s:n}}", "ipv4", "gateway_ip", "link_id", "ipv6",
				      "gateway_ip", "link_id"));
	script_status(o, "commissioning_status",
		      mc->commissions ? (known				  ? 2
					 : mc->status == ST_COMMISSIONING ? 1
									  : 3)
				      : -1);
	script_status(o, "testing_status",
		      mc->tests ? (failed_test		      ? 3
				   : mc->status == ST_TESTING ? 1
							      : 2)
				: -1);
	script_status(o, "cpu_test_status", -1);
	script_status(o, "memory_test_status", -1);
	script_status(o, "network_test_status", -1);
	script_status(o, "storage_test_status",
		      mc->tests ? (failed_test		      ? 3
				   : mc->status == ST_TESTING ? 1
							      : 2)
				: -1);
	script_status(o, "other_test_status", -1);
	script_status(o, "interface_test_status", -1);
	json_object_set_new(o, "current_commissioning_result_id", json_null());
	json_object_set_new(o, "current_testing_result_id", json_null());
	json_object_set_new(o, "current_installation_result_id", json_null());
	return o;
}

static void set_boot_disk(struct sim_maas *m, struct sim_maas_machine *mc, int index,
			  struct sim_maas_reply *r)
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
	n = n_disks(m->hosts, mc);
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
	if (br_parse_long(id, mc->bd_base, mc->bd_base + (long)n - 1, &bd) || strcmp(p + strlen(id), "/") ||
	    !n) {
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
