/* The iDRAC's System Event Log, with the entries a fault leaves. */
#include <stdlib.h>
#include <string.h>

#include "idrac.h"

#define SEL_MAX 8

struct sel_entry {
	const char *message_id, *severity, *sensor;
	char message[128];
};

/* SensorType is the IPMI sensor type in the LogEntry schema's words
 * (LogEntry.v1_15_0 SensorType enum, after IPMI 2.0 table 42-3): a cleared
 * log is "Event Logging Disabled" (type 10h), not iDRAC's own "Event Log". */
static size_t sel_collect(const struct sim_node *n, struct sel_entry *out)
{
	size_t count = 0;

	out[count++] =
	    (struct sel_entry){ SIM_MSG "SEL9901", "OK", "Event Logging Disabled", "Log cleared." };
	out[count++] = (struct sel_entry){ SIM_MSG "SYS1003", "OK", "System Event", "System CPU Resetting." };
	for (int p = 0; p < SIM_PSUS; p++)
		if (n->psus[p].failed) {
			out[count] = (struct sel_entry){ SIM_MSG "PSU0001", "Critical",
							 "Power Supply / Converter", "" };
			snprintf(out[count++].message, sizeof(out[0].message), "Power supply %d failed.",
				 p + 1);
		}
	for (int g = 0; g < SIM_GPUS; g++)
		if (n->gpus[g].lanes < 16) {
			out[count] = (struct sel_entry){ SIM_MSG "PCI3020", "Warning", "Slot/Connector", "" };
			snprintf(out[count++].message, sizeof(out[0].message),
				 "The PCIe link width of the device at bus %d is x%d, less than its capable "
				 "width x16.",
				 n->gpus[g].bus, n->gpus[g].lanes);
		}
	return count;
}

json_t *sim_r_log_services(struct sim_ctx *c)
{
	json_t *coll;

	if (sim_fault_has(&c->node->faults, SIM_F_LOGS_MISSING))
		return NULL; /* linked from the Manager, answered 404 */
	coll = sim_coll("#LogServiceCollection.LogServiceCollection", "Log Service Collection",
			SIM_R_MGR "/LogServices");

	sim_coll_add(coll, SIM_R_MGR "/LogServices/Sel");
	return coll;
}

json_t *sim_r_sel(struct sim_ctx *c)
{
	json_t *s =
	    sim_res("#LogService.v1_5_0.LogService", "Sel", "SEL Log Service", SIM_R_MGR "/LogServices/Sel");

	json_object_set_new(s, "LogEntryType", json_string("SEL"));
	json_object_set_new(s, "MaxNumberOfRecords", json_integer(1024));
	json_object_set_new(s, "OverWritePolicy", json_string("WrapsWhenFull"));
	json_object_set_new(s, "ServiceEnabled", json_true());
	json_object_set_new(s, "Entries", sim_link(SIM_R_MGR "/LogServices/Sel/Entries"));
	json_object_set_new(s, "Status", sim_status("OK"));
	return s;
}

static json_t *entry_doc(const struct sel_entry *e, size_t i)
{
	char id[16], created[32];
	json_t *d;

	snprintf(id, sizeof(id), "%zu", i + 1);
	snprintf(created, sizeof(created), "2026-11-20T08:%02zu:00-06:00", i);
	d = sim_res("#LogEntry.v1_15_0.LogEntry", id, "Log Entry", SIM_R_MGR "/LogServices/Sel/Entries/%s",
		    id);
	json_object_set_new(d, "Created", json_string(created));
	json_object_set_new(d, "EntryType", json_string("SEL"));
	json_object_set_new(d, "Message", json_string(e->message));
	json_object_set_new(d, "MessageId", json_string(e->message_id));
	json_object_set_new(d, "SensorType", json_string(e->sensor));
	json_object_set_new(d, "Severity", json_string(e->severity));
	return d;
}

json_t *sim_r_sel_entries(struct sim_ctx *c)
{
	struct sel_entry entries[SEL_MAX + SIM_PSUS + SIM_GPUS];
	size_t n = sel_collect(c->node, entries);
	json_t *coll = sim_coll("#LogEntryCollection.LogEntryCollection", "Log Entry Collection",
				SIM_R_MGR "/LogServices/Sel/Entries");

	/* iDRAC inlines SEL entries in the collection, newest first. */
	for (size_t i = n; i-- > 0;)
		json_array_append_new(json_object_get(coll, "Members"), entry_doc(&entries[i], i));
	json_object_set_new(coll, "Members@odata.count", json_integer((json_int_t)n));
	return coll;
}

json_t *sim_r_sel_entry(struct sim_ctx *c)
{
	struct sel_entry entries[SEL_MAX + SIM_PSUS + SIM_GPUS];
	size_t n = sel_collect(c->node, entries);
	long id;

	if (br_parse_long(c->args[0], 1, (long)n, &id))
		return NULL;
	return entry_doc(&entries[id - 1], (size_t)id - 1);
}
