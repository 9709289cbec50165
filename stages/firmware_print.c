/*
 * firmware_print — what `bringup firmware` prints: the run (or the plan
 * of a dry run) as JSON and as a table, and --report's consistency view.
 */
#include <stdlib.h>
#include <string.h>

#include "firmware.h"

/* ---- output --------------------------------------------------------------------------- */

static json_t *job_json(const struct stg_firmware_job *job)
{
	json_t *items = json_array();

	for (size_t i = 0; i < job->plan.n; i++) {
		const struct stg_fw_item *it = &job->plan.items[i];
		json_t *o = json_pack("{s:s, s:s, s:s}", "component", it->component, "from", it->from,
				      "minimum", it->min);

		if (it->image) {
			json_object_set_new(o, "to", json_string(it->image->version));
			json_object_set_new(o, "class", json_string(prof_fw_class_name(it->image->fw_class)));
			json_object_set_new(o, "image", json_string(it->image->name));
			json_object_set_new(o, "method", json_string(job->methods[i]));
			json_object_set_new(o, "sent", json_boolean(job->sent[i]));
			if (job->versions[i])
				json_object_set_new(o, "version", json_string(job->versions[i]));
		} else {
			json_object_set_new(o, "refused", json_string(it->refused));
		}
		json_array_append_new(items, o);
	}
	return json_pack("{s:s, s:s, s:s?, s:s?, s:o}", "hostname", job->node->hostname, "result",
			 job->result ? job->result : "skipped", "model", job->node->model, "reason",
			 job->reason, "updates", items);
}

json_t *stg_firmware_json(const void *arg)
{
	const struct stg_firmware_run *run = arg;
	json_t *nodes;

	if (run->report)
		return json_incref(run->report);
	nodes = json_array();
	for (size_t i = 0; i < run->n_jobs; i++)
		json_array_append_new(nodes, job_json(&run->jobs[i]));
	return json_pack("{s:b, s:i, s:o, s:{s:I, s:I, s:I}}", "dry_run", run->o->dry_run, "max_updates",
			 run->o->max_updates, "nodes", nodes, "summary", "updated", (json_int_t)run->updated,
			 "failed", (json_int_t)run->failed, "images_sent", (json_int_t)run->sent);
}

static void print_report(const json_t *report)
{
	static const char *const h[] = { "MODEL", "COMPONENT", "VERSIONS", "DIFFER" };
	json_t *components = json_object_get(report, "components"), *c;
	struct br_table t;
	size_t i;

	br_table_init(&t, 4, h);
	json_array_foreach(components, i, c)
	{
		struct br_buf v, d;
		json_t *x, *nodes;
		size_t k;

		br_buf_init(&v, 0);
		br_buf_init(&d, 0);
		json_array_foreach(json_object_get(c, "versions"), k, x)
		{
			nodes = json_object_get(x, "nodes");
			br_buf_addf(&v, "%s%s (%zu)", k ? ", " : "", br_json_str(x, "version"),
				    json_array_size(nodes));
		}
		json_array_foreach(json_object_get(c, "differ"), k, x)
		    br_buf_addf(&d, "%s%s", k ? " " : "", json_string_value(x));
		{
			const char *cells[] = { br_json_str(c, "model"), br_json_str(c, "component"),
						br_buf_str(&v), d.len ? br_buf_str(&d) : NULL };

			br_table_add(&t, cells);
		}
		br_buf_release(&v);
		br_buf_release(&d);
	}
	br_table_print(&t, stdout);
	br_table_release(&t);
}

void stg_firmware_print(const void *arg)
{
	const struct stg_firmware_run *run = arg;
	static const char *const h[] = { "HOST", "ORDER", "COMPONENT", "FROM", "TO", "METHOD", "RESULT" };
	struct br_table t;

	if (run->report) {
		print_report(run->report);
		return;
	}
	br_table_init(&t, 7, h);
	for (size_t i = 0; i < run->n_jobs; i++) {
		const struct stg_firmware_job *job = &run->jobs[i];

		if (!job->plan.n) {
			const char *cells[] = {
				job->node->hostname, NULL, NULL, NULL, NULL, NULL, job->result
			};

			br_table_add(&t, cells);
		}
		for (size_t k = 0; k < job->plan.n; k++) {
			const struct stg_fw_item *it = &job->plan.items[k];
			char order[24];
			const char *cells[] = { job->node->hostname,
						order,
						it->component,
						it->from,
						it->image ? it->image->version : NULL,
						it->image ? job->methods[k] : NULL,
						it->refused ? it->refused : job->result };

			snprintf(order, sizeof(order), "%zu %s", k + 1,
				 it->image ? prof_fw_class_name(it->image->fw_class) : "-");
			br_table_add(&t, cells);
		}
	}
	br_table_print(&t, stdout);
	br_table_release(&t);
	for (size_t i = 0; i < run->n_jobs; i++)
		if (run->jobs[i].result && !strcmp(run->jobs[i].result, "failed"))
			printf("%s: %s\n", run->jobs[i].node->hostname, run->jobs[i].reason);
	if (!run->o->dry_run)
		printf("%zu updated, %zu failed, %zu images sent (at most %d machines at once)\n",
		       run->updated, run->failed, run->sent, run->o->max_updates);
}
