/*
 * SQLite's schema as a list of migrations (backend.h: invb_ops.migrations);
 * db.c applies them. The schema is the backend's own because its DDL is
 * SQLite's: INTEGER PRIMARY KEY as the row id, triggers in SQLite's
 * RAISE form, views that read the facts documents with json_each and
 * ->>, and step 4 building those documents with json_group_array. A
 * PostgreSQL schema states the same tables in its own types (BIGINT
 * GENERATED ... AS IDENTITY, jsonb) and starts at the current version.
 * Steps are append-only: a released step is never edited, a change is a
 * new step.
 */
#include "backend.h"

#define NOW "strftime('%Y-%m-%dT%H:%M:%fZ','now')"

const char *const invb_sqlite_migrations[] = {
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

	/* 4: a node's BMC facts become one document (hw_facts, struct br_hw as
	 * common/hwjson.c writes it). Storing a node was ~150 row inserts
	 * under the write lock, and a rack's discovery queued on that lock;
	 * now it is one row. The per-kind tables become views of the
	 * documents with the same columns, so queries keep working. MACs stay
	 * a table: their uniqueness across nodes is a constraint. */
	"CREATE TABLE hw_facts ("
	"  node_id INTEGER PRIMARY KEY REFERENCES nodes(id) ON DELETE CASCADE,"
	"  facts TEXT NOT NULL);"
	"INSERT INTO hw_facts(node_id, facts) SELECT n.id, json_object("
	"  'source', n.hw_source, 'manufacturer', n.manufacturer, 'model', n.model,"
	"  'system_serial', n.system_serial, 'service_tag', n.service_tag, 'uuid', n.uuid,"
	"  'bios_version', n.bios_version, 'bmc_firmware', n.bmc_firmware, 'bmc_mac', n.bmc_mac,"
	"  'power_state', n.power_state, 'cpu_model', n.cpu_model, 'cpu_count', n.cpu_count,"
	"  'cpu_max_mhz', n.cpu_max_mhz, 'memory_gib', n.memory_gib, 'boot_mode', n.boot_mode,"
	"  'boot_override_target', n.boot_override_target, 'boot_override_enabled', n.boot_override_enabled,"
	"  'boot_order', (SELECT json_group_array(entry) FROM"
	"    (SELECT entry FROM boot_order WHERE node_id = n.id ORDER BY position)),"
	"  'nics', (SELECT json_group_array(json_object('mac', mac, 'name', name, 'source', source,"
	"    'link_status', link_status, 'permanent', json(CASE WHEN permanent THEN 'true' ELSE 'false' "
	"END)))"
	"    FROM (SELECT * FROM nics WHERE node_id = n.id ORDER BY id)),"
	"  'bios', (SELECT json_group_object(name, value) FROM bios_attributes WHERE node_id = n.id),"
	"  'firmware', (SELECT json_group_array(json_object('id', component_id, 'name', name, 'version', "
	"version,"
	"    'updateable', json(CASE WHEN updateable THEN 'true' ELSE 'false' END)))"
	"    FROM (SELECT * FROM firmware WHERE node_id = n.id ORDER BY id)),"
	"  'pcie', (SELECT json_group_array(json_object('id', device_id, 'address', address, 'name', name,"
	"    'manufacturer', manufacturer, 'device_class', device_class, 'slot', slot, 'serial', serial,"
	"    'lanes_in_use', lanes_in_use, 'max_lanes', max_lanes, 'pcie_type', pcie_type,"
	"    'max_pcie_type', max_pcie_type, 'health', health))"
	"    FROM (SELECT * FROM pcie_devices WHERE node_id = n.id ORDER BY id)),"
	"  'drives', (SELECT json_group_array(json_object('id', drive_id, 'name', name, 'serial', serial,"
	"    'model', model, 'protocol', protocol, 'media', media, 'location', location, 'health', health,"
	"    'capacity_bytes', capacity_bytes))"
	"    FROM (SELECT * FROM drives WHERE node_id = n.id ORDER BY id)),"
	"  'sensors', (SELECT json_group_array(json_object('kind', kind, 'name', name, 'units', units,"
	"    'health', health, 'state', state, 'serial', serial, 'reading', reading,"
	"    'upper_critical', upper_critical, 'lower_critical', lower_critical))"
	"    FROM (SELECT * FROM sensors WHERE node_id = n.id ORDER BY id)),"
	"  'sel', (SELECT json_group_array(json_object('id', entry_id, 'created', created, 'severity', "
	"severity,"
	"    'message', message, 'message_id', message_id))"
	"    FROM (SELECT * FROM sel_entries WHERE node_id = n.id ORDER BY id)))"
	"  FROM nodes n WHERE n.hw_source IS NOT NULL;"
	"DROP TABLE boot_order; DROP TABLE bios_attributes; DROP TABLE firmware; DROP TABLE pcie_devices;"
	"DROP TABLE drives; DROP TABLE sensors; DROP TABLE sel_entries;"
	"CREATE VIEW boot_order AS SELECT f.node_id, CAST(j.key AS INTEGER) AS position, j.value AS entry"
	"  FROM hw_facts f, json_each(f.facts, '$.boot_order') j;"
	"CREATE VIEW bios_attributes AS SELECT f.node_id, j.key AS name, j.value AS value"
	"  FROM hw_facts f, json_each(f.facts, '$.bios') j;"
	"CREATE VIEW firmware AS SELECT f.node_id, CAST(j.key AS INTEGER) AS position,"
	"  j.value ->> 'id' AS component_id, j.value ->> 'name' AS name, j.value ->> 'version' AS version,"
	"  j.value ->> 'updateable' AS updateable"
	"  FROM hw_facts f, json_each(f.facts, '$.firmware') j;"
	"CREATE VIEW pcie_devices AS SELECT f.node_id, CAST(j.key AS INTEGER) AS position,"
	"  j.value ->> 'id' AS device_id, j.value ->> 'address' AS address, j.value ->> 'name' AS name,"
	"  j.value ->> 'manufacturer' AS manufacturer, j.value ->> 'device_class' AS device_class,"
	"  j.value ->> 'slot' AS slot, j.value ->> 'serial' AS serial, j.value ->> 'lanes_in_use' AS "
	"lanes_in_use,"
	"  j.value ->> 'max_lanes' AS max_lanes, j.value ->> 'pcie_type' AS pcie_type,"
	"  j.value ->> 'max_pcie_type' AS max_pcie_type, j.value ->> 'health' AS health"
	"  FROM hw_facts f, json_each(f.facts, '$.pcie') j;"
	"CREATE VIEW drives AS SELECT f.node_id, CAST(j.key AS INTEGER) AS position,"
	"  j.value ->> 'id' AS drive_id, j.value ->> 'name' AS name, j.value ->> 'serial' AS serial,"
	"  j.value ->> 'model' AS model, j.value ->> 'protocol' AS protocol, j.value ->> 'media' AS media,"
	"  j.value ->> 'location' AS location, j.value ->> 'health' AS health,"
	"  j.value ->> 'capacity_bytes' AS capacity_bytes"
	"  FROM hw_facts f, json_each(f.facts, '$.drives') j;"
	"CREATE VIEW sensors AS SELECT f.node_id, CAST(j.key AS INTEGER) AS position,"
	"  j.value ->> 'kind' AS kind, j.value ->> 'name' AS name, j.value ->> 'units' AS units,"
	"  j.value ->> 'health' AS health, j.value ->> 'state' AS state, j.value ->> 'serial' AS serial,"
	"  j.value ->> 'reading' AS reading, j.value ->> 'upper_critical' AS upper_critical,"
	"  j.value ->> 'lower_critical' AS lower_critical"
	"  FROM hw_facts f, json_each(f.facts, '$.sensors') j;"
	"CREATE VIEW sel_entries AS SELECT f.node_id, CAST(j.key AS INTEGER) AS position,"
	"  j.value ->> 'id' AS entry_id, j.value ->> 'created' AS created, j.value ->> 'severity' AS "
	"severity,"
	"  j.value ->> 'message' AS message, j.value ->> 'message_id' AS message_id"
	"  FROM hw_facts f, json_each(f.facts, '$.sel') j;",

	/* 5: per-node leases. Two stages run at once (two operators, a
	 * configure beside an enlist) worked the same nodes and wrote each
	 * other's states back; a stage now holds a node while it works it.
	 * pid and host say who, pid_start (the process's start time, so a
	 * reused pid is not taken for the holder) which process, expires_at
	 * (unix seconds) how long. */
	"CREATE TABLE leases ("
	"  node_id INTEGER PRIMARY KEY REFERENCES nodes(id) ON DELETE CASCADE,"
	"  stage TEXT NOT NULL, pid INTEGER NOT NULL, host TEXT NOT NULL,"
	"  pid_start INTEGER NOT NULL DEFAULT 0, expires_at INTEGER NOT NULL);",

	/* 6: a MAC may be claimed by two nodes' BMCs. It was unique, so the
	 * BMC that answered first kept it and the genuine node failed; now
	 * both claims are kept and judged on evidence (hwstore.c), and a node
	 * lists a MAC once. */
	"CREATE TABLE nics_new ("
	"  id INTEGER PRIMARY KEY,"
	"  node_id INTEGER NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,"
	"  mac TEXT NOT NULL,"
	"  name TEXT, source TEXT, link_status TEXT, permanent INTEGER NOT NULL DEFAULT 0,"
	"  UNIQUE (node_id, mac));"
	"INSERT INTO nics_new(id, node_id, mac, name, source, link_status, permanent)"
	"  SELECT id, node_id, mac, name, source, link_status, permanent FROM nics;"
	"DROP TABLE nics;"
	"ALTER TABLE nics_new RENAME TO nics;"
	"CREATE INDEX nics_node ON nics(node_id);"
	"CREATE INDEX nics_mac ON nics(mac);",

	/* 7: what bringup-probe saw on the node itself, one document per
	 * node (the validate stage's facts, as hw_facts holds the BMC's). */
	"CREATE TABLE probe_facts ("
	"  node_id INTEGER PRIMARY KEY REFERENCES nodes(id) ON DELETE CASCADE,"
	"  doc TEXT NOT NULL CHECK (json_valid(doc)),"
	"  collected_at TEXT NOT NULL);"
	/* The serial MAAS reports the OS was installed on, for the boot disk
	 * check to compare with what the node mounts as /. */
	"ALTER TABLE nodes ADD COLUMN installed_disk_serial TEXT;",

	/* 8: tickets live across runs: a fixed fault closes its ticket
	 * (closed_at) and a recurring one reopens it (opened_at). version
	 * counts the ticket's changes, so a webhook sees each version once
	 * (its Idempotency-Key); posted_version is the last one delivered. */
	"ALTER TABLE tickets ADD COLUMN opened_at TEXT;"
	"ALTER TABLE tickets ADD COLUMN closed_at TEXT;"
	"ALTER TABLE tickets ADD COLUMN version INTEGER NOT NULL DEFAULT 1;"
	"ALTER TABLE tickets ADD COLUMN posted_version INTEGER NOT NULL DEFAULT 0;"
	"UPDATE tickets SET opened_at = created_at;"
	"CREATE INDEX tickets_node ON tickets(node_id);",

	/* 9: RAID volumes (Redfish Storage Volumes: a BOSS card's RAID1 boot
	 * disk), stored in each node's facts document as "volumes" since
	 * discovery reads them; a view like drives (step 4), one row per
	 * volume. Documents stored before have no "volumes" and show none;
	 * nothing stored is rewritten. */
	"CREATE VIEW volumes AS SELECT f.node_id, CAST(j.key AS INTEGER) AS position,"
	"  j.value ->> 'id' AS volume_id, j.value ->> 'name' AS name,"
	"  j.value ->> 'controller' AS controller, j.value ->> 'raid_type' AS raid_type,"
	"  j.value ->> 'durable_name' AS durable_name,"
	"  j.value ->> 'durable_name_format' AS durable_name_format,"
	"  j.value ->> 'health' AS health, j.value ->> 'capacity_bytes' AS capacity_bytes,"
	"  j.value -> 'drives' AS member_drives"
	"  FROM hw_facts f, json_each(f.facts, '$.volumes') j;",

	/* 10: why a failed node failed, as a kind the stage typed where it
	 * saw the failure (common.h's br_fail_kind names), so tickets need
	 * not guess from the reason's words. Nodes failed before keep NULL,
	 * read as stage_failed. */
	"ALTER TABLE nodes ADD COLUMN failure_kind TEXT;",

	/* 11: the one part a check blames, when it blames exactly one (a
	 * PCIe function: "pci:0000:5d:00.0"), so that a GPU at x4 and the
	 * kernel's "limited by" line about it are one ticket, not two. */
	"ALTER TABLE check_results ADD COLUMN component TEXT;",

	/* 12: how often a node went into failed or quarantined, so that one
	 * that keeps failing is retired rather than re-provisioned forever.
	 * Nodes from before start at 0: their history is in events, but
	 * counting it now would retire machines nobody chose to. */
	"ALTER TABLE nodes ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;",

	/* 13: the manifest's
	 * serial column, the system serial or service tag the machine at this
	 * BMC must report; discover fails a node whose BMC reports another,
	 * and a ticket names it when the BMC never answered. NULL: the
	 * manifest gives none (nodes imported before keep NULL). */
	"ALTER TABLE nodes ADD COLUMN expected_serial TEXT;",

	/* 14: the manifest's system column: which Redfish System of the BMC
	 * is this host, where one BMC manages several (an Id or an
	 * @odata.id); discover takes only that System's facts. NULL: the BMC
	 * shows one host. */
	"ALTER TABLE nodes ADD COLUMN bmc_system TEXT;",

	/* 15: the switch port behind each host NIC port as the BMC showed it
	 * before any OS ran (Dell's Connection View, DMTF LLDPReceive),
	 * stored in each node's facts document as "neighbors" since discovery
	 * reads them; a view beside the MACs, one row per BMC port, as
	 * volumes (step 9). Documents stored before have none. */
	"CREATE VIEW port_neighbors AS SELECT f.node_id, CAST(j.key AS INTEGER) AS position,"
	"  j.value ->> 'port' AS port, j.value ->> 'mac' AS mac, j.value ->> 'chassis_id' AS chassis_id,"
	"  j.value ->> 'chassis_id_subtype' AS chassis_id_subtype, j.value ->> 'system_name' AS system_name,"
	"  j.value ->> 'port_id' AS port_id, j.value ->> 'port_id_subtype' AS port_id_subtype,"
	"  j.value ->> 'mgmt_address' AS mgmt_address, j.value ->> 'vlan' AS vlan,"
	"  j.value ->> 'link' AS link, j.value ->> 'stale' AS stale, j.value ->> 'source' AS source"
	"  FROM hw_facts f, json_each(f.facts, '$.neighbors') j;",

	/* 16: the manifest's zone column: the management network or hall a
	 * node's BMC sits in; a stage given --zone takes only that zone's
	 * nodes, so BMC traffic stays on the controller that can reach it.
	 * NULL: the manifest gives none (such nodes are in no zone). */
	"ALTER TABLE nodes ADD COLUMN zone TEXT;",

	/* 17: a zone's nodes found without reading every node (--zone at a
	 * site of many halls). PostgreSQL's step also tells followers of the
	 * events (status --follow) when some are recorded; SQLite's read
	 * again after each wait. */
	"CREATE INDEX nodes_zone ON nodes(zone);",

	/* 18: the Redfish sessions a stage holds on a node's BMC, each
	 * recorded (its URI, the login's Location: never its token) before it
	 * is used and removed once its DELETE is answered. A stage killed in
	 * between (SIGKILL, a power cut) leaves the row, and the next stage to
	 * start on this host DELETEs the session: an iDRAC keeps an unused
	 * session for 30 minutes and refuses the ninth. pid, host and
	 * pid_start name the process that made it, as in leases. */
	"CREATE TABLE bmc_sessions ("
	"  id INTEGER PRIMARY KEY,"
	"  node_id INTEGER NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,"
	"  uri TEXT NOT NULL, pid INTEGER NOT NULL, host TEXT NOT NULL,"
	"  pid_start INTEGER NOT NULL DEFAULT 0, opened_at INTEGER NOT NULL,"
	"  UNIQUE (node_id, uri));",

	/* 19: fencing tokens. Each time a new holder takes a node's lease the
	 * node's token goes up by one (lease_tokens keeps the last one issued,
	 * and who took it, across give-backs); the lease row carries the token
	 * it was taken with, and every write a stage makes under a lease is
	 * refused unless the node's lease still carries its token, so a
	 * holder that lost its lease (paused past its expiry, a controller
	 * cut off) changes nothing another holder now owns. */
	"ALTER TABLE leases ADD COLUMN token INTEGER NOT NULL DEFAULT 0;"
	"CREATE TABLE lease_tokens ("
	"  node_id INTEGER PRIMARY KEY REFERENCES nodes(id) ON DELETE CASCADE,"
	"  token INTEGER NOT NULL, stage TEXT NOT NULL, pid INTEGER NOT NULL, host TEXT NOT NULL);",

	/* 20: what the ticket system (Jira, ServiceNow, GitHub) calls a
	 * ticket once it is filed: Jira's issue key, ServiceNow's incident
	 * number, GitHub's OWNER/REPO#N, recorded with the delivery. NULL:
	 * not delivered yet, or delivered by the webhook, which gives none
	 * back (tickets filed before keep NULL until delivered again). */
	"ALTER TABLE tickets ADD COLUMN external_key TEXT;",

	/* 21: the manifest's power_domain column: the power feed (a PDU
	 * pair, a busway) a node's supplies draw from; firmware updates at
	 * most the profile's max_per_power_domain machines of one at once.
	 * NULL: the manifest gives none. */
	"ALTER TABLE nodes ADD COLUMN power_domain TEXT;",
};

_Static_assert(sizeof(invb_sqlite_migrations) / sizeof(invb_sqlite_migrations[0]) == INV_SCHEMA_VERSION,
	       "INV_SCHEMA_VERSION must equal the number of migrations");
