/* Reading a node's stored BMC facts back into a struct br_hw. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "inv_private.h"

static double col_real(sqlite3_stmt *st, int col)
{
	return sqlite3_column_type(st, col) == SQLITE_NULL ? NAN : sqlite3_column_double(st, col);
}

static int col_int(sqlite3_stmt *st, int col)
{
	return sqlite3_column_type(st, col) == SQLITE_NULL ? -1 : sqlite3_column_int(st, col);
}

/* Run a SELECT bound to the node id and hand each row to `row`. */
typedef void (*row_fn)(sqlite3_stmt *st, struct br_hw *hw);

static int load_rows(struct inv *inv, const char *sql, int64_t id, struct br_hw *hw, row_fn row, struct br_err *err)
{
	sqlite3_stmt *st;
	int rc;

	rc = inv_prepare(inv, sql, &st, err);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		row(st, hw);
	rc = rc == SQLITE_DONE ? 0 : inv_dberr(inv, err, sql);
	inv_finalize(inv, st);
	return rc;
}

static void row_node(sqlite3_stmt *st, struct br_hw *hw)
{
	hw->source = inv_col_dup(st, 0);
	hw->manufacturer = inv_col_dup(st, 1);
	hw->model = inv_col_dup(st, 2);
	hw->system_serial = inv_col_dup(st, 3);
	hw->service_tag = inv_col_dup(st, 4);
	hw->uuid = inv_col_dup(st, 5);
	hw->bios_version = inv_col_dup(st, 6);
	hw->bmc_firmware = inv_col_dup(st, 7);
	hw->bmc_mac = inv_col_dup(st, 8);
	hw->power_state = inv_col_dup(st, 9);
	hw->cpu_model = inv_col_dup(st, 10);
	hw->cpu_count = col_int(st, 11);
	hw->cpu_max_mhz = col_int(st, 12);
	hw->memory_gib = col_int(st, 13);
	hw->boot_mode = inv_col_dup(st, 14);
	hw->boot_override_target = inv_col_dup(st, 15);
	hw->boot_override_enabled = inv_col_dup(st, 16);
}

static void row_nic(sqlite3_stmt *st, struct br_hw *hw)
{
	struct br_nic *x = br_hw_add_nic(hw);

	x->mac = inv_col_dup(st, 0);
	x->name = inv_col_dup(st, 1);
	x->source = inv_col_dup(st, 2);
	x->link_status = inv_col_dup(st, 3);
	x->permanent = sqlite3_column_int(st, 4);
}

static void row_boot(sqlite3_stmt *st, struct br_hw *hw)
{
	br_hw_add_boot(hw, (const char *)sqlite3_column_text(st, 0));
}

static void row_bios(sqlite3_stmt *st, struct br_hw *hw)
{
	struct br_kv *x = br_hw_add_bios(hw);

	x->key = inv_col_dup(st, 0);
	x->value = inv_col_dup(st, 1);
}

static void row_fw(sqlite3_stmt *st, struct br_hw *hw)
{
	struct br_firmware *x = br_hw_add_firmware(hw);

	x->id = inv_col_dup(st, 0);
	x->name = inv_col_dup(st, 1);
	x->version = inv_col_dup(st, 2);
	x->updateable = sqlite3_column_int(st, 3);
}

static void row_pcie(sqlite3_stmt *st, struct br_hw *hw)
{
	struct br_pcie *x = br_hw_add_pcie(hw);

	x->id = inv_col_dup(st, 0);
	x->address = inv_col_dup(st, 1);
	x->name = inv_col_dup(st, 2);
	x->manufacturer = inv_col_dup(st, 3);
	x->device_class = inv_col_dup(st, 4);
	x->slot = inv_col_dup(st, 5);
	x->serial = inv_col_dup(st, 6);
	x->lanes_in_use = col_int(st, 7);
	x->max_lanes = col_int(st, 8);
	x->pcie_type = inv_col_dup(st, 9);
	x->max_pcie_type = inv_col_dup(st, 10);
	x->health = inv_col_dup(st, 11);
}

static void row_drive(sqlite3_stmt *st, struct br_hw *hw)
{
	struct br_drive *x = br_hw_add_drive(hw);

	x->id = inv_col_dup(st, 0);
	x->name = inv_col_dup(st, 1);
	x->serial = inv_col_dup(st, 2);
	x->model = inv_col_dup(st, 3);
	x->protocol = inv_col_dup(st, 4);
	x->media = inv_col_dup(st, 5);
	x->location = inv_col_dup(st, 6);
	x->health = inv_col_dup(st, 7);
	x->capacity_bytes = (uint64_t)sqlite3_column_int64(st, 8);
}

static void row_sensor(sqlite3_stmt *st, struct br_hw *hw)
{
	struct br_sensor *x = br_hw_add_sensor(hw);

	if (br_sensor_kind_parse((const char *)sqlite3_column_text(st, 0), &x->kind))
		x->kind = BR_SENSOR_OTHER;
	x->name = inv_col_dup(st, 1);
	x->units = inv_col_dup(st, 2);
	x->health = inv_col_dup(st, 3);
	x->state = inv_col_dup(st, 4);
	x->serial = inv_col_dup(st, 5);
	x->reading = col_real(st, 6);
	x->upper_critical = col_real(st, 7);
	x->lower_critical = col_real(st, 8);
}

static void row_sel(sqlite3_stmt *st, struct br_hw *hw)
{
	struct br_sel_entry *x = br_hw_add_sel(hw);

	x->id = inv_col_dup(st, 0);
	x->created = inv_col_dup(st, 1);
	x->severity = inv_col_dup(st, 2);
	x->message = inv_col_dup(st, 3);
	x->message_id = inv_col_dup(st, 4);
}

static const struct {
	const char *sql;
	row_fn row;
} loaders[] = {
	{ "SELECT hw_source, manufacturer, model, system_serial, service_tag, uuid, bios_version, bmc_firmware,"
	  " bmc_mac, power_state, cpu_model, cpu_count, cpu_max_mhz, memory_gib, boot_mode, boot_override_target,"
	  " boot_override_enabled FROM nodes WHERE id=?", row_node },
	{ "SELECT mac, name, source, link_status, permanent FROM nics WHERE node_id=? ORDER BY id", row_nic },
	{ "SELECT entry FROM boot_order WHERE node_id=? ORDER BY position", row_boot },
	{ "SELECT name, value FROM bios_attributes WHERE node_id=? ORDER BY name", row_bios },
	{ "SELECT component_id, name, version, updateable FROM firmware WHERE node_id=? ORDER BY id", row_fw },
	{ "SELECT device_id, address, name, manufacturer, device_class, slot, serial, lanes_in_use, max_lanes,"
	  " pcie_type, max_pcie_type, health FROM pcie_devices WHERE node_id=? ORDER BY id", row_pcie },
	{ "SELECT drive_id, name, serial, model, protocol, media, location, health, capacity_bytes FROM drives"
	  " WHERE node_id=? ORDER BY id", row_drive },
	{ "SELECT kind, name, units, health, state, serial, reading, upper_critical, lower_critical FROM sensors"
	  " WHERE node_id=? ORDER BY id", row_sensor },
	{ "SELECT entry_id, created, severity, message, message_id FROM sel_entries WHERE node_id=? ORDER BY id",
	  row_sel },
};

int inv_load_hw(struct inv *inv, const char *hostname, struct br_hw *hw, struct br_err *err)
{
	int64_t id;
	int rc;

	br_hw_init(hw);
	rc = inv_node_id(inv, hostname, &id, NULL, err);
	for (size_t i = 0; i < sizeof(loaders) / sizeof(loaders[0]) && !rc; i++)
		rc = load_rows(inv, loaders[i].sql, id, hw, loaders[i].row, err);
	if (rc)
		br_hw_release(hw);
	return rc;
}

int inv_node_set_maas(struct inv *inv, const char *hostname, const char *system_id, const char *ip,
		      struct br_err *err)
{
	sqlite3_stmt *st;
	int64_t id;
	int rc;

	rc = inv_node_id(inv, hostname, &id, NULL, err);
	if (rc)
		return rc;
	rc = inv_prepare(inv,
			 "UPDATE nodes SET maas_system_id=?, ip=?, updated_at=strftime('%Y-%m-%dT%H:%M:%fZ','now')"
			 " WHERE id=?",
			 &st, err);
	if (rc)
		return rc;
	inv_bind_text(st, 1, system_id);
	inv_bind_text(st, 2, ip);
	sqlite3_bind_int64(st, 3, id);
	rc = sqlite3_step(st) == SQLITE_DONE ? 0 : inv_dberr(inv, err, "store MAAS identity");
	inv_finalize(inv, st);
	return rc;
}
