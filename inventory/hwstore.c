/* Storing and reading back what a BMC reported about a node. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "inv_private.h"

/* What a new report replaces: every row the last one stored. */
static const char *const child_deletes[] = {
	"DELETE FROM nics WHERE node_id=?",	      "DELETE FROM boot_order WHERE node_id=?",
	"DELETE FROM bios_attributes WHERE node_id=?", "DELETE FROM firmware WHERE node_id=?",
	"DELETE FROM pcie_devices WHERE node_id=?",   "DELETE FROM drives WHERE node_id=?",
	"DELETE FROM sensors WHERE node_id=?",	      "DELETE FROM sel_entries WHERE node_id=?",
};

/* A MAC already stored for another node means two machines claim one
 * address: a cabling/inventory mistake a human must look at. */
static int check_mac_conflicts(struct inv *inv, int64_t id, const struct br_hw *hw, struct br_err *err)
{
	sqlite3_stmt *st;
	int rc;

	rc = inv_prepare(inv, "SELECT n.hostname FROM nics c JOIN nodes n ON n.id=c.node_id WHERE c.mac=? AND c.node_id<>?",
			 &st, err);
	if (rc)
		return rc;
	for (size_t i = 0; i < hw->n_nics && !rc; i++) {
		sqlite3_reset(st);
		inv_bind_text(st, 1, hw->nics[i].mac);
		sqlite3_bind_int64(st, 2, id);
		if (sqlite3_step(st) == SQLITE_ROW)
			rc = br_errf(err, BR_E_EXISTS, "MAC %s is already recorded for node %s", hw->nics[i].mac,
				     (const char *)sqlite3_column_text(st, 0));
	}
	inv_finalize(inv, st);
	return rc;
}

static void bind_real(sqlite3_stmt *st, int idx, double v)
{
	if (isnan(v))
		sqlite3_bind_null(st, idx);
	else
		sqlite3_bind_double(st, idx, v);
}

static void bind_int_or_null(sqlite3_stmt *st, int idx, int64_t v)
{
	if (v < 0)
		sqlite3_bind_null(st, idx);
	else
		sqlite3_bind_int64(st, idx, v);
}

/* Run one INSERT per element; `bind` binds element i after the node id. */
typedef void (*bind_fn)(sqlite3_stmt *st, const struct br_hw *hw, size_t i);

static int insert_all(struct inv *inv, const char *sql, int64_t id, const struct br_hw *hw, size_t n, bind_fn bind,
		      struct br_err *err)
{
	sqlite3_stmt *st;
	int rc;

	if (!n)
		return 0;
	rc = inv_prepare(inv, sql, &st, err);
	if (rc)
		return rc;
	for (size_t i = 0; i < n && !rc; i++) {
		sqlite3_reset(st);
		sqlite3_clear_bindings(st);
		sqlite3_bind_int64(st, 1, id);
		bind(st, hw, i);
		if (sqlite3_step(st) != SQLITE_DONE)
			rc = inv_dberr(inv, err, sql);
	}
	inv_finalize(inv, st);
	return rc;
}

static void bind_nic(sqlite3_stmt *st, const struct br_hw *hw, size_t i)
{
	const struct br_nic *x = &hw->nics[i];

	inv_bind_text(st, 2, x->mac);
	inv_bind_text(st, 3, x->name);
	inv_bind_text(st, 4, x->source);
	inv_bind_text(st, 5, x->link_status);
	sqlite3_bind_int(st, 6, x->permanent);
}

static void bind_boot(sqlite3_stmt *st, const struct br_hw *hw, size_t i)
{
	sqlite3_bind_int64(st, 2, (int64_t)i);
	inv_bind_text(st, 3, hw->boot_order[i]);
}

static void bind_bios(sqlite3_stmt *st, const struct br_hw *hw, size_t i)
{
	inv_bind_text(st, 2, hw->bios[i].key);
	inv_bind_text(st, 3, hw->bios[i].value);
}

static void bind_fw(sqlite3_stmt *st, const struct br_hw *hw, size_t i)
{
	const struct br_firmware *x = &hw->firmware[i];

	inv_bind_text(st, 2, x->id);
	inv_bind_text(st, 3, x->name);
	inv_bind_text(st, 4, x->version);
	sqlite3_bind_int(st, 5, x->updateable);
}

static void bind_pcie(sqlite3_stmt *st, const struct br_hw *hw, size_t i)
{
	const struct br_pcie *x = &hw->pcie[i];

	inv_bind_text(st, 2, x->id);
	inv_bind_text(st, 3, x->address);
	inv_bind_text(st, 4, x->name);
	inv_bind_text(st, 5, x->manufacturer);
	inv_bind_text(st, 6, x->device_class);
	inv_bind_text(st, 7, x->slot);
	inv_bind_text(st, 8, x->serial);
	bind_int_or_null(st, 9, x->lanes_in_use);
	bind_int_or_null(st, 10, x->max_lanes);
	inv_bind_text(st, 11, x->pcie_type);
	inv_bind_text(st, 12, x->max_pcie_type);
	inv_bind_text(st, 13, x->health);
}

static void bind_drive(sqlite3_stmt *st, const struct br_hw *hw, size_t i)
{
	const struct br_drive *x = &hw->drives[i];

	inv_bind_text(st, 2, x->id);
	inv_bind_text(st, 3, x->name);
	inv_bind_text(st, 4, x->serial);
	inv_bind_text(st, 5, x->model);
	inv_bind_text(st, 6, x->protocol);
	inv_bind_text(st, 7, x->media);
	inv_bind_text(st, 8, x->location);
	inv_bind_text(st, 9, x->health);
	sqlite3_bind_int64(st, 10, (int64_t)x->capacity_bytes);
}

static void bind_sensor(sqlite3_stmt *st, const struct br_hw *hw, size_t i)
{
	const struct br_sensor *x = &hw->sensors[i];

	inv_bind_text(st, 2, br_sensor_kind_name(x->kind));
	inv_bind_text(st, 3, x->name);
	inv_bind_text(st, 4, x->units);
	inv_bind_text(st, 5, x->health);
	inv_bind_text(st, 6, x->state);
	inv_bind_text(st, 7, x->serial);
	bind_real(st, 8, x->reading);
	bind_real(st, 9, x->upper_critical);
	bind_real(st, 10, x->lower_critical);
}

static void bind_sel(sqlite3_stmt *st, const struct br_hw *hw, size_t i)
{
	const struct br_sel_entry *x = &hw->sel[i];

	inv_bind_text(st, 2, x->id);
	inv_bind_text(st, 3, x->created);
	inv_bind_text(st, 4, x->severity);
	inv_bind_text(st, 5, x->message);
	inv_bind_text(st, 6, x->message_id);
}

static int update_node(struct inv *inv, int64_t id, const struct br_hw *hw, struct br_err *err)
{
	sqlite3_stmt *st;
	int rc;

	rc = inv_prepare(inv,
			 "UPDATE nodes SET hw_source=?2, manufacturer=?3, model=?4, system_serial=?5, service_tag=?6,"
			 " uuid=?7, bios_version=?8, bmc_firmware=?9, bmc_mac=?10, power_state=?11, cpu_model=?12,"
			 " cpu_count=?13, cpu_max_mhz=?14, memory_gib=?15, boot_mode=?16, boot_override_target=?17,"
			 " boot_override_enabled=?18, discovered_at=strftime('%Y-%m-%dT%H:%M:%fZ','now') WHERE id=?1",
			 &st, err);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, id);
	inv_bind_text(st, 2, hw->source);
	inv_bind_text(st, 3, hw->manufacturer);
	inv_bind_text(st, 4, hw->model);
	inv_bind_text(st, 5, hw->system_serial);
	inv_bind_text(st, 6, hw->service_tag);
	inv_bind_text(st, 7, hw->uuid);
	inv_bind_text(st, 8, hw->bios_version);
	inv_bind_text(st, 9, hw->bmc_firmware);
	inv_bind_text(st, 10, hw->bmc_mac);
	inv_bind_text(st, 11, hw->power_state);
	inv_bind_text(st, 12, hw->cpu_model);
	bind_int_or_null(st, 13, hw->cpu_count);
	bind_int_or_null(st, 14, hw->cpu_max_mhz);
	bind_int_or_null(st, 15, hw->memory_gib);
	inv_bind_text(st, 16, hw->boot_mode);
	inv_bind_text(st, 17, hw->boot_override_target);
	inv_bind_text(st, 18, hw->boot_override_enabled);
	rc = sqlite3_step(st) == SQLITE_DONE ? 0 : inv_dberr(inv, err, "store node facts");
	inv_finalize(inv, st);
	return rc;
}

int inv_store_hw(struct inv *inv, const char *hostname, const struct br_hw *hw, enum inv_state to,
		 const char *reason, struct br_err *err)
{
	enum inv_state from;
	int64_t id;
	int rc;

	rc = inv_tx_begin(inv, err);
	if (rc)
		return rc;
	rc = inv_node_id(inv, hostname, &id, &from, err);
	if (!rc)
		rc = check_mac_conflicts(inv, id, hw, err);
	for (size_t t = 0; t < sizeof(child_deletes) / sizeof(child_deletes[0]) && !rc; t++) {
		sqlite3_stmt *st;

		rc = inv_prepare(inv, child_deletes[t], &st, err);
		if (rc)
			break;
		sqlite3_bind_int64(st, 1, id);
		if (sqlite3_step(st) != SQLITE_DONE)
			rc = inv_dberr(inv, err, child_deletes[t]);
		inv_finalize(inv, st);
	}
	if (!rc)
		rc = update_node(inv, id, hw, err);
	if (!rc)
		rc = insert_all(inv, "INSERT INTO nics(node_id, mac, name, source, link_status, permanent) VALUES (?,?,?,?,?,?)",
				id, hw, hw->n_nics, bind_nic, err);
	if (!rc)
		rc = insert_all(inv, "INSERT INTO boot_order(node_id, position, entry) VALUES (?,?,?)", id, hw,
				hw->n_boot_order, bind_boot, err);
	if (!rc)
		rc = insert_all(inv, "INSERT OR REPLACE INTO bios_attributes(node_id, name, value) VALUES (?,?,?)", id,
				hw, hw->n_bios, bind_bios, err);
	if (!rc)
		rc = insert_all(inv, "INSERT INTO firmware(node_id, component_id, name, version, updateable) VALUES (?,?,?,?,?)",
				id, hw, hw->n_firmware, bind_fw, err);
	if (!rc)
		rc = insert_all(inv,
				"INSERT INTO pcie_devices(node_id, device_id, address, name, manufacturer, device_class, slot,"
				" serial, lanes_in_use, max_lanes, pcie_type, max_pcie_type, health)"
				" VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
				id, hw, hw->n_pcie, bind_pcie, err);
	if (!rc)
		rc = insert_all(inv,
				"INSERT INTO drives(node_id, drive_id, name, serial, model, protocol, media, location, health,"
				" capacity_bytes) VALUES (?,?,?,?,?,?,?,?,?,?)",
				id, hw, hw->n_drives, bind_drive, err);
	if (!rc)
		rc = insert_all(inv,
				"INSERT INTO sensors(node_id, kind, name, units, health, state, serial, reading,"
				" upper_critical, lower_critical) VALUES (?,?,?,?,?,?,?,?,?,?)",
				id, hw, hw->n_sensors, bind_sensor, err);
	if (!rc)
		rc = insert_all(inv,
				"INSERT INTO sel_entries(node_id, entry_id, created, severity, message, message_id)"
				" VALUES (?,?,?,?,?,?)",
				id, hw, hw->n_sel, bind_sel, err);
	if (!rc)
		rc = inv_transition(inv, id, from, to, reason, err);
	if (!rc)
		rc = inv_tx_commit(inv, err);
	if (rc)
		inv_tx_rollback(inv);
	return rc;
}
