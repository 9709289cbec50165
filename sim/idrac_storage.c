/* Storage as iDRAC9 shows an XE9680: the BOSS-N1 controller with its M.2
 * boot drive, and the CPU-attached NVMe bays as controller "CPU.1".
 * Under boss_raid1 the BOSS controller holds two M.2 drives and one RAID1
 * Volume over them, as iDRAC serves a BOSS virtual disk (Dell iDRAC9
 * Redfish API guide: Storage/{ControllerFQDD}/Volumes/{VD FQDD}, VD FQDD
 * "Disk.Virtual.0:BOSS.SL.14-1"), with the DMTF Volume schema's fields
 * (Volume.v1_x, DSP8010: RAIDType, CapacityBytes, Identifiers[] with
 * DurableName/DurableNameFormat, Links.Drives). */
#include <string.h>

#include "idrac.h"

#define BOSS "BOSS.SL.14-1"
#define DIRECT "CPU.1"

json_t *sim_r_storages(struct sim_ctx *c)
{
	json_t *coll =
	    sim_coll("#StorageCollection.StorageCollection", "Storage Collection", SIM_R_SYS "/Storage");

	sim_coll_add(coll, SIM_R_SYS "/Storage/" BOSS);
	sim_coll_add(coll, SIM_R_SYS "/Storage/" DIRECT);
	return coll;
}

json_t *sim_r_storage(struct sim_ctx *c)
{
	const struct sim_node *n = c->node;
	int boss = !strcmp(c->args[0], BOSS);
	json_t *s, *drives = json_array();

	if (!boss && strcmp(c->args[0], DIRECT))
		return NULL;
	s = sim_res("#Storage.v1_15_0.Storage", c->args[0], boss ? "BOSS-N1 Monolithic" : "CPU.1",
		    SIM_R_SYS "/Storage/%s", c->args[0]);
	json_object_set_new(s, "Description",
			    json_string(boss ? "BOSS-N1 Monolithic" : "PCIe SSD direct attach"));
	if (boss) {
		json_array_append_new(drives,
				      sim_link(SIM_R_SYS "/Storage/" BOSS "/Drives/%s", n->boot_drive.id));
		if (sim_node_boss_raid1(n))
			json_array_append_new(
			    drives, sim_link(SIM_R_SYS "/Storage/" BOSS "/Drives/%s", n->boot_mirror.id));
	} else
		for (int d = 0; d < SIM_DATA_DRIVES; d++)
			if (n->drives[d].present)
				json_array_append_new(
				    drives,
				    sim_link(SIM_R_SYS "/Storage/" DIRECT "/Drives/%s", n->drives[d].id));
	json_object_set_new(s, "Drives@odata.count", json_integer((json_int_t)json_array_size(drives)));
	json_object_set_new(s, "Drives", drives);
	json_object_set_new(s, "Status", sim_status("OK"));
	json_object_set_new(s, "Links", json_pack("{s:[o]}", "Enclosures", sim_link(SIM_R_CHASSIS)));
	if (boss && sim_node_boss_raid1(n))
		json_object_set_new(s, "Volumes", sim_link(SIM_R_SYS "/Storage/" BOSS "/Volumes"));
	return s;
}

json_t *sim_r_volumes(struct sim_ctx *c)
{
	json_t *coll;

	if (strcmp(c->args[0], BOSS) || !sim_node_boss_raid1(c->node))
		return NULL;
	coll = sim_coll("#VolumeCollection.VolumeCollection", "Volume Collection",
			SIM_R_SYS "/Storage/" BOSS "/Volumes");
	sim_coll_add(coll, SIM_R_SYS "/Storage/" BOSS "/Volumes/%s", c->node->boss_volume_id);
	return coll;
}

json_t *sim_r_volume(struct sim_ctx *c)
{
	const struct sim_node *n = c->node;
	json_t *v;

	if (strcmp(c->args[0], BOSS) || !sim_node_boss_raid1(n) || strcmp(c->args[1], n->boss_volume_id))
		return NULL;
	v = sim_res("#Volume.v1_9_0.Volume", n->boss_volume_id, "BOSS-N1 RAID1",
		    SIM_R_SYS "/Storage/" BOSS "/Volumes/%s", n->boss_volume_id);
	json_object_set_new(v, "Description", json_string("BOSS-N1 virtual disk"));
	json_object_set_new(v, "RAIDType", json_string("RAID1"));
	json_object_set_new(v, "VolumeType", json_string("Mirrored"));
	json_object_set_new(v, "CapacityBytes", json_integer((json_int_t)n->boot_drive.capacity_bytes));
	json_object_set_new(v, "BlockSizeBytes", json_integer(512));
	json_object_set_new(v, "Encrypted", json_false());
	json_object_set_new(
	    v, "Identifiers",
	    json_pack("[{s:s, s:s}]", "DurableNameFormat", "NAA", "DurableName", n->boss_durable_name));
	json_object_set_new(v, "Links",
			    json_pack("{s:[o, o], s:i}", "Drives",
				      sim_link(SIM_R_SYS "/Storage/" BOSS "/Drives/%s", n->boot_drive.id),
				      sim_link(SIM_R_SYS "/Storage/" BOSS "/Drives/%s", n->boot_mirror.id),
				      "Drives@odata.count", 2));
	json_object_set_new(v, "Status", sim_status("OK"));
	return v;
}

json_t *sim_r_drive(struct sim_ctx *c)
{
	const struct sim_node *n = c->node;
	const struct sim_drive *v = NULL;
	int slot = -1;
	char label[32];
	json_t *d;

	if (!strcmp(c->args[0], BOSS) && !strcmp(c->args[1], n->boot_drive.id))
		v = &n->boot_drive;
	if (!strcmp(c->args[0], BOSS) && sim_node_boss_raid1(n) && !strcmp(c->args[1], n->boot_mirror.id))
		v = &n->boot_mirror;
	for (int i = 0; i < SIM_DATA_DRIVES && !v && !strcmp(c->args[0], DIRECT); i++)
		if (n->drives[i].present && !strcmp(c->args[1], n->drives[i].id)) {
			v = &n->drives[i];
			slot = i;
		}
	if (!v)
		return NULL;
	d = sim_res("#Drive.v1_17_0.Drive", v->id,
		    v == &n->boot_mirror ? "M.2 Drive 1"
		    : slot < 0		 ? "M.2 Drive 0"
					 : "PCIe SSD in Slot",
		    SIM_R_SYS "/Storage/%s/Drives/%s", c->args[0], v->id);
	json_object_set_new(d, "Manufacturer", json_string(slot < 0 ? "MICRON" : "SAMSUNG"));
	json_object_set_new(d, "Model",
			    json_string(slot < 0 && sim_node_boss_raid1(n) ? SIM_BOSS_M2_MODEL : v->model));
	json_object_set_new(d, "SerialNumber", json_string(v->serial));
	json_object_set_new(d, "Revision", json_string(v->firmware));
	json_object_set_new(d, "CapacityBytes", json_integer((json_int_t)v->capacity_bytes));
	json_object_set_new(d, "Protocol", json_string("NVMe"));
	json_object_set_new(d, "MediaType", json_string("SSD"));
	json_object_set_new(d, "BlockSizeBytes", json_integer(512));
	json_object_set_new(d, "CapableSpeedGbs", json_integer(slot < 0 ? 32 : 64));
	json_object_set_new(d, "PredictedMediaLifeLeftPercent", json_integer(100));
	if (slot < 0)
		snprintf(label, sizeof(label), "BOSS-N1 M.2 %d", v == &n->boot_mirror);
	else
		snprintf(label, sizeof(label), "NVMe Bay %d", slot);
	json_object_set_new(d, "PhysicalLocation",
			    json_pack("{s:{s:i, s:s, s:s}}", "PartLocation", "LocationOrdinalValue",
				      slot < 0 ? v == &n->boot_mirror : slot, "LocationType", "Bay",
				      "ServiceLabel", label));
	json_object_set_new(d, "Location",
			    json_pack("[{s:s, s:s}]", "Info", label, "InfoFormat", "Slot Number"));
	json_object_set_new(d, "Status", sim_status("OK"));
	return d;
}
