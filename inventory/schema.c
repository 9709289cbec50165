/*
 * The schema as a list of migrations. PRAGMA user_version holds the version
 * a database is at; opening applies every later step, each in its own
 * transaction. Steps are append-only: a released step is never edited, a
 * change is a new step.
 */
#include <stdio.h>

#include "inv_private.h"

#define NOW "strftime('%Y-%m-%dT%H:%M:%fZ','now')"

static const char *const migrations[] = {
	/* 1: nodes, their MACs, and the event history. */
	"CREATE TABLE nodes ("
	"  id INTEGER PRIMARY KEY,"
	"  hostname TEXT NOT NULL UNIQUE,"
	"  rack TEXT NOT NULL,"
	"  unit INTEGER NOT NULL,"
	"  bmc TEXT NOT NULL UNIQUE,"
	"  bmc_user TEXT NOT NULL,"
	"  bmc_password_ref TEXT NOT NULL,"
	"  profile TEXT NOT NULL,"
	"  state TEXT NOT NULL DEFAULT 'new',"
	"  reason TEXT,"
	"  system_serial TEXT,"
	"  model TEXT,"
	"  created_at TEXT NOT NULL DEFAULT (" NOW "),"
	"  updated_at TEXT NOT NULL DEFAULT (" NOW "));"
	"CREATE TABLE nics ("
	"  id INTEGER PRIMARY KEY,"
	"  node_id INTEGER NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,"
	"  mac TEXT NOT NULL UNIQUE,"
	"  name TEXT,"
	"  source TEXT);"
	"CREATE INDEX nics_node ON nics(node_id);"
	"CREATE TABLE events ("
	"  id INTEGER PRIMARY KEY,"
	"  node_id INTEGER NOT NULL REFERENCES nodes(id),"
	"  from_state TEXT,"
	"  to_state TEXT NOT NULL,"
	"  reason TEXT,"
	"  at TEXT NOT NULL);"
	"CREATE INDEX events_node ON events(node_id);",

	/* 2: everything discovery reads from a BMC; manifest extras. */
	"ALTER TABLE nodes ADD COLUMN bmc_type TEXT NOT NULL DEFAULT 'auto';"
	"ALTER TABLE nodes ADD COLUMN boot_disk_serial TEXT;"
	"ALTER TABLE nodes ADD COLUMN notes TEXT;"
	"ALTER TABLE nodes ADD COLUMN service_tag TEXT;"
	"ALTER TABLE nodes ADD COLUMN manufacturer TEXT;"
	"ALTER TABLE nodes ADD COLUMN uuid TEXT;"
	"ALTER TABLE nodes ADD COLUMN bios_version TEXT;"
	"ALTER TABLE nodes ADD COLUMN bmc_firmware TEXT;"
	"ALTER TABLE nodes ADD COLUMN bmc_mac TEXT;"
	"ALTER TABLE nodes ADD COLUMN power_state TEXT;"
	"ALTER TABLE nodes ADD COLUMN cpu_model TEXT;"
	"ALTER TABLE nodes ADD COLUMN cpu_count INTEGER;"
	"ALTER TABLE nodes ADD COLUMN cpu_max_mhz INTEGER;"
	"ALTER TABLE nodes ADD COLUMN memory_gib INTEGER;"
	"ALTER TABLE nodes ADD COLUMN boot_mode TEXT;"
	"ALTER TABLE nodes ADD COLUMN boot_override_target TEXT;"
	"ALTER TABLE nodes ADD COLUMN boot_override_enabled TEXT;"
	"ALTER TABLE nodes ADD COLUMN hw_source TEXT;"
	"ALTER TABLE nodes ADD COLUMN discovered_at TEXT;"
	"ALTER TABLE nics ADD COLUMN link_status TEXT;"
	"ALTER TABLE nics ADD COLUMN permanent INTEGER NOT NULL DEFAULT 0;"
	"CREATE TABLE boot_order ("
	"  node_id INTEGER NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,"
	"  position INTEGER NOT NULL, entry TEXT NOT NULL,"
	"  PRIMARY KEY (node_id, position));"
	"CREATE TABLE bios_attributes ("
	"  node_id INTEGER NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,"
	"  name TEXT NOT NULL, value TEXT,"
	"  PRIMARY KEY (node_id, name));"
	"CREATE TABLE firmware ("
	"  id INTEGER PRIMARY KEY,"
	"  node_id INTEGER NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,"
	"  component_id TEXT, name TEXT, version TEXT, updateable INTEGER);"
	"CREATE INDEX firmware_node ON firmware(node_id);"
	"CREATE TABLE pcie_devices ("
	"  id INTEGER PRIMARY KEY,"
	"  node_id INTEGER NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,"
	"  device_id TEXT, address TEXT, name TEXT, manufacturer TEXT, device_class TEXT,"
	"  slot TEXT, serial TEXT, lanes_in_use INTEGER, max_lanes INTEGER,"
	"  pcie_type TEXT, max_pcie_type TEXT, health TEXT);"
	"CREATE INDEX pcie_node ON pcie_devices(node_id);"
	"CREATE TABLE drives ("
	"  id INTEGER PRIMARY KEY,"
	"  node_id INTEGER NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,"
	"  drive_id TEXT, name TEXT, serial TEXT, model TEXT, protocol TEXT, media TEXT,"
	"  location TEXT, health TEXT, capacity_bytes INTEGER);"
	"CREATE INDEX drives_node ON drives(node_id);"
	"CREATE TABLE sensors ("
	"  id INTEGER PRIMARY KEY,"
	"  node_id INTEGER NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,"
	"  kind TEXT NOT NULL, name TEXT, units TEXT, health TEXT, state TEXT, serial TEXT,"
	"  reading REAL, upper_critical REAL, lower_critical REAL);"
	"CREATE INDEX sensors_node ON sensors(node_id);"
	"CREATE TABLE sel_entries ("
	"  id INTEGER PRIMARY KEY,"
	"  node_id INTEGER NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,"
	"  entry_id TEXT, created TEXT, severity TEXT, message TEXT, message_id TEXT);"
	"CREATE INDEX sel_node ON sel_entries(node_id);",

	/* 3: MAAS identity, validation runs, check results, tickets; the event
	 * history becomes append-only. */
	"ALTER TABLE nodes ADD COLUMN maas_system_id TEXT;"
	"ALTER TABLE nodes ADD COLUMN ip TEXT;"
	"CREATE TABLE probe_runs ("
	"  id INTEGER PRIMARY KEY,"
	"  node_id INTEGER NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,"
	"  started_at TEXT NOT NULL, facts TEXT NOT NULL);"
	"CREATE TABLE check_results ("
	"  id INTEGER PRIMARY KEY,"
	"  node_id INTEGER NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,"
	"  stage TEXT NOT NULL, name TEXT NOT NULL,"
	"  result TEXT NOT NULL CHECK (result IN ('pass','fail','unknown')),"
	"  detail TEXT, at TEXT NOT NULL,"
	"  UNIQUE (node_id, name));"
	"CREATE TABLE tickets ("
	"  id INTEGER PRIMARY KEY,"
	"  node_id INTEGER NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,"
	"  dedup_key TEXT NOT NULL UNIQUE,"
	"  fault TEXT NOT NULL, evidence TEXT, action TEXT,"
	"  status TEXT NOT NULL DEFAULT 'open',"
	"  created_at TEXT NOT NULL, updated_at TEXT NOT NULL);"
	"CREATE TRIGGER events_no_update BEFORE UPDATE ON events"
	"  BEGIN SELECT RAISE(ABORT, 'events are append-only'); END;"
	"CREATE TRIGGER events_no_delete BEFORE DELETE ON events"
	"  BEGIN SELECT RAISE(ABORT, 'events are append-only'); END;",
};

_Static_assert(sizeof(migrations) / sizeof(migrations[0]) == INV_SCHEMA_VERSION,
	       "INV_SCHEMA_VERSION must equal the number of migrations");

int inv_migrate(struct inv *inv, struct br_err *err)
{
	int version = inv_schema_version(inv);
	char pragma[64];
	int rc;

	if (version < 0)
		return inv_dberr(inv, err, "read schema version");
	if (version > INV_SCHEMA_VERSION)
		return br_errf(err, BR_E_DB,
			       "inventory %s: schema version %d is newer than this bringup (%d); upgrade bringup",
			       inv->path, version, INV_SCHEMA_VERSION);
	for (int v = version; v < INV_SCHEMA_VERSION; v++) {
		rc = inv_tx_begin(inv, err);
		if (rc)
			return rc;
		/* Re-read under the write lock: another process may have migrated. */
		if (inv_schema_version(inv) > v) {
			inv_tx_rollback(inv);
			continue;
		}
		rc = inv_exec(inv, migrations[v], err);
		if (!rc) {
			snprintf(pragma, sizeof(pragma), "PRAGMA user_version=%d", v + 1);
			rc = inv_exec(inv, pragma, err);
		}
		if (!rc)
			rc = inv_tx_commit(inv, err);
		if (rc) {
			inv_tx_rollback(inv);
			return br_err_prefix(err, "migration to schema version %d", v + 1);
		}
		if (v > 0)
			br_info("inventory", "%s: migrated schema to version %d", inv->path, v + 1);
	}
	return 0;
}
