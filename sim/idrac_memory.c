/* Memory (the DIMMs behind MemorySummary) and SimpleStorage (the same
 * drives as Storage, in the older flat form iDRAC9 still serves). */
#include <string.h>

#include "idrac.h"

/* 2 TiB as MemorySummary says: 32 x 64 GiB DDR5 RDIMMs, A1-A16 and
 * B1-B16, one bank per socket (XE9680 Installation and Service Manual). */
#define DIMMS_PER_SOCKET 16
#define DIMM_MIB 65536

/* "DIMM.Socket.A1" → 0..31, or -1. */
static int dimm_index(const char *id)
{
	long slot;

	if (strncmp(id, "DIMM.Socket.", 12) || (id[12] != 'A' && id[12] != 'B') ||
	    br_parse_long(id + 13, 1, DIMMS_PER_SOCKET, &slot))
		return -1;
	return (id[12] - 'A') * DIMMS_PER_SOCKET + (int)slot - 1;
}

json_t *sim_r_memory_coll(struct sim_ctx *c)
{
	json_t *coll =
	    sim_coll("#MemoryCollection.MemoryCollection", "Memory Devices Collection", SIM_R_SYS "/Memory");

	for (int i = 0; i < 2 * DIMMS_PER_SOCKET; i++)
		sim_coll_add(coll, SIM_R_SYS "/Memory/DIMM.Socket.%c%d", 'A' + i / DIMMS_PER_SOCKET,
			     i % DIMMS_PER_SOCKET + 1);
	return coll;
}

json_t *sim_r_memory(struct sim_ctx *c)
{
	int i = dimm_index(c->args[0]);
	char serial[16], locator[16];
	json_t *m;

	if (i < 0)
		return NULL;
	snprintf(serial, sizeof(serial), "%08X",
		 (unsigned)(sim_hash(c->node->system_serial, strlen(c->node->system_serial)) + (unsigned)i) &
		     0xffffffffu);
	snprintf(locator, sizeof(locator), "%c%d", 'A' + i / DIMMS_PER_SOCKET, i % DIMMS_PER_SOCKET + 1);
	m = sim_res("#Memory.v1_16_0.Memory", c->args[0], c->args[0], SIM_R_SYS "/Memory/%s", c->args[0]);
	json_object_set_new(m, "Description", json_string("DIMM"));
	json_object_set_new(m, "CapacityMiB", json_integer(DIMM_MIB));
	json_object_set_new(m, "MemoryDeviceType", json_string("DDR5"));
	json_object_set_new(m, "MemoryType", json_string("DRAM"));
	json_object_set_new(m, "BaseModuleType", json_string("RDIMM"));
	json_object_set_new(m, "OperatingSpeedMhz", json_integer(4800));
	json_object_set_new(m, "Manufacturer", json_string("Hynix Semiconductor"));
	json_object_set_new(m, "PartNumber", json_string("HMCG94AEBRA109N"));
	json_object_set_new(m, "SerialNumber", json_string(serial));
	json_object_set_new(m, "RankCount", json_integer(2));
	json_object_set_new(m, "DeviceLocator", json_string(locator));
	json_object_set_new(m, "ErrorCorrection", json_string("MultiBitECC"));
	json_object_set_new(m, "Status", sim_status("OK"));
	return m;
}

json_t *sim_r_simple_storage_coll(struct sim_ctx *c)
{
	json_t *coll = sim_coll("#SimpleStorageCollection.SimpleStorageCollection",
				"Simple Storage Collection", SIM_R_SYS "/SimpleStorage");

	sim_coll_add(coll, SIM_R_SYS "/SimpleStorage/BOSS.SL.14-1");
	sim_coll_add(coll, SIM_R_SYS "/SimpleStorage/CPU.1");
	return coll;
}

static json_t *device(const struct sim_drive *d, const char *maker)
{
	return json_pack("{s:s, s:s, s:s, s:I, s:o}", "Name", d->id, "Manufacturer", maker, "Model", d->model,
			 "CapacityBytes", (json_int_t)d->capacity_bytes, "Status", sim_status("OK"));
}

json_t *sim_r_simple_storage(struct sim_ctx *c)
{
	const struct sim_node *n = c->node;
	int boss = !strcmp(c->args[0], "BOSS.SL.14-1");
	json_t *s, *devices = json_array();

	if (!boss && strcmp(c->args[0], "CPU.1"))
		return NULL;
	s = sim_res("#SimpleStorage.v1_3_1.SimpleStorage", c->args[0], boss ? "BOSS-N1 Monolithic" : "CPU.1",
		    SIM_R_SYS "/SimpleStorage/%s", c->args[0]);
	if (boss)
		json_array_append_new(devices, device(&n->boot_drive, "MICRON"));
	for (int d = 0; !boss && d < SIM_DATA_DRIVES; d++)
		if (n->drives[d].present)
			json_array_append_new(devices, device(&n->drives[d], "SAMSUNG"));
	json_object_set_new(s, "Description",
			    json_string(boss ? "BOSS-N1 Monolithic" : "PCIe SSD direct attach"));
	json_object_set_new(s, "Devices", devices);
	json_object_set_new(s, "Status", sim_status("OK"));
	return s;
}
