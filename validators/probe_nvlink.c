/* `nvidia-smi nvlink -s`: each GPU's NVLinks and their speed, as the tool
 * prints them ("GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-…)", then
 * "\t Link 0: 26.562 GB/s" or "Link 4: <inactive>"). A GPU passed through
 * without its NVLinks, or a PCIe part with none, prints no line at all. */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "probe_private.h"

/* "GPU 0: NAME (UUID: GPU-…)" */
static json_t *gpu_line(const char *line)
{
	const char *colon = strchr(line, ':'), *uuid = strstr(line, "(UUID: ");
	char *end;
	long index = strtol(line + 4, &end, 10);
	json_t *g;

	if (!colon || end != colon || index < 0)
		return NULL;
	g = json_pack("{s:I, s:[]}", "index", (json_int_t)index, "links");
	colon++;
	colon += strspn(colon, " ");
	json_object_set_new(
	    g, "name",
	    json_stringn(colon, uuid && uuid > colon ? (size_t)(uuid - colon - 1) : strlen(colon)));
	if (uuid)
		json_object_set_new(g, "uuid", json_stringn(uuid + 7, strcspn(uuid + 7, ")")));
	return g;
}

/* "Link 3: 26.562 GB/s" or "Link 3: <inactive>"; other lines are not links. */
static json_t *link_line(const char *line)
{
	char *end;
	long n = strtol(line + 5, &end, 10);
	const char *v;
	double gbs;

	if (end == line + 5 || *end != ':' || n < 0)
		return NULL;
	v = end + 1 + strspn(end + 1, " ");
	if (!strncmp(v, "<inactive>", 10))
		return json_pack("{s:I, s:b, s:n, s:s}", "link", (json_int_t)n, "active", 0, "gbs", "text",
				 v);
	gbs = strtod(v, &end);
	if (end == v || strncmp(end, " GB/s", 5))
		return json_pack("{s:I, s:n, s:n, s:s}", "link", (json_int_t)n, "active", "gbs", "text", v);
	return json_pack("{s:I, s:b, s:f, s:s}", "link", (json_int_t)n, "active", 1, "gbs", gbs, "text", v);
}

int val_nvlink_parse(const char *text, json_t **ret_gpus, struct br_err *err)
{
	json_t *gpus = json_array(), *gpu = NULL;
	char *copy = br_xstrdup(text), *line, *next;
	unsigned lineno = 0;

	for (line = copy; line && *line; line = next) {
		json_t *item;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		line += strspn(line, " \t");
		if (!strncmp(line, "GPU ", 4) && (item = gpu_line(line))) {
			json_array_append_new(gpus, item);
			gpu = item;
		} else if (!strncmp(line, "Link ", 5) && (item = link_line(line))) {
			if (!gpu) {
				json_decref(item);
				json_decref(gpus);
				free(copy);
				return br_errf(err, BR_E_PROTO, "line %u: a link before any GPU line",
					       lineno);
			}
			if (json_array_size(json_object_get(gpu, "links")) < VAL_NVLINKS_MAX)
				json_array_append_new(json_object_get(gpu, "links"), item);
			else
				json_decref(item);
		}
		if (json_array_size(gpus) >= VAL_PCI_DEVICES_MAX)
			break;
	}
	free(copy);
	*ret_gpus = gpus;
	return 0;
}
