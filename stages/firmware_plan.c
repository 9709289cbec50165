/*
 * firmware_plan — what `bringup firmware` would update on a node, and the
 * rack's versions side by side. Pure functions over a profile and facts;
 * the version order is the firmware policy's (validators/rules_fw.c).
 */
#define _DEFAULT_SOURCE
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "firmware.h"

void stg_fw_plan_release(struct stg_fw_plan *plan)
{
	for (size_t i = 0; i < plan->n; i++) {
		free(plan->items[i].component);
		free(plan->items[i].from);
		free(plan->items[i].refused);
	}
	free(plan->items);
	memset(plan, 0, sizeof(*plan));
}

/* "Installed-104327-28.39.1002__NIC.Slot.31-1-1" -> "NIC.Slot.31-1-1"; an
 * Id without iDRAC's form is the component itself; NULL for "Previous-"
 * and "Available-" entries (not what runs). */
static const char *component_of(const char *id)
{
	const char *sep;

	if (!id)
		return NULL;
	if (!strncmp(id, "Previous-", 9) || !strncmp(id, "Available-", 10))
		return NULL;
	if (strncmp(id, "Installed-", 10))
		return id;
	sep = strstr(id, "__");
	return sep && sep[2] ? sep + 2 : NULL;
}

static int names_model(const struct prof_fw_image *im, const char *model)
{
	for (size_t i = 0; model && i < im->models.n; i++)
		if (!strcasecmp(im->models.items[i], model))
			return 1;
	return 0;
}

/* The catalogue's image for component on model, at least min; the highest
 * version of those. *ret_other: some image is of the component, for
 * another model or below the minimum. */
static const struct prof_fw_image *image_for(const struct prof_profile *p, const char *component,
					     const char *model, const char *min, int *ret_other)
{
	const struct prof_fw_image *best = NULL;

	*ret_other = 0;
	for (size_t i = 0; i < p->n_images; i++) {
		const struct prof_fw_image *im = &p->images[i];

		if (fnmatch(im->component, component, 0))
			continue;
		if (!names_model(im, model) || val_version_cmp(im->version, min) < 0) {
			*ret_other = 1;
			continue;
		}
		if (!best || val_version_cmp(im->version, best->version) > 0)
			best = im;
	}
	return best;
}

static int item_order(const void *a, const void *b)
{
	const struct stg_fw_item *x = a, *y = b;
	int cx = x->image ? (int)x->image->fw_class : PROF_FW_OTHER + 1;
	int cy = y->image ? (int)y->image->fw_class : PROF_FW_OTHER + 1;

	if (cx != cy)
		return cx < cy ? -1 : 1;
	return strcmp(x->component, y->component);
}

void stg_fw_plan_node(const struct prof_profile *p, const struct br_hw *hw, const char *model,
		      struct stg_fw_plan *ret)
{
	struct stg_fw_plan plan = { 0 };

	plan.items = br_xcalloc(hw->n_firmware ? hw->n_firmware : 1, sizeof(*plan.items));
	for (size_t f = 0; f < hw->n_firmware; f++) {
		const struct br_firmware *fw = &hw->firmware[f];
		const char *component = component_of(fw->id);
		const struct prof_fw_rule *rule = NULL;
		struct stg_fw_item *it;
		int other, twice = 0;

		if (!component || !fw->version || !*fw->version)
			continue; /* no version: configure's policy says unknown */
		for (size_t r = 0; r < p->n_firmware && !rule; r++)
			if (!fnmatch(p->firmware[r].component, component, 0))
				rule = &p->firmware[r];
		if (!rule || val_version_cmp(fw->version, rule->min_version) >= 0)
			continue;
		for (size_t k = 0; k < plan.n && !twice; k++)
			twice = !strcmp(plan.items[k].component, component);
		if (twice)
			continue;
		it = &plan.items[plan.n++];
		it->component = br_xstrdup(component);
		it->from = br_xstrdup(fw->version);
		it->min = rule->min_version;
		it->image = image_for(p, component, model, rule->min_version, &other);
		if (!it->image) {
			plan.refused++;
			it->refused =
			    other
				? br_xasprintf("refused: the catalogue has no image of %s for model '%s' at "
					       "or above %s",
					       component, model ? model : "(none reported)",
					       rule->min_version)
			    : p->n_images
				? br_xasprintf("refused: the catalogue has no image of %s", component)
				: br_xasprintf(
				      "refused: %s is below %s, and profile %s has no catalogue of images "
				      "(firmware-images.conf)",
				      component, rule->min_version, p->name ? p->name : "?");
		}
	}
	qsort(plan.items, plan.n, sizeof(*plan.items), item_order);
	*ret = plan;
}

/* ---- the consistency view ------------------------------------------------------ */

static int seen_order(const void *a, const void *b)
{
	const struct stg_fw_seen *x = a, *y = b;
	int c = strcmp(x->model, y->model);

	if (!c)
		c = strcmp(x->component, y->component);
	if (!c)
		c = strcmp(x->version, y->version);
	if (!c)
		c = strcmp(x->hostname, y->hostname);
	return c;
}

static int by_count(const void *a, const void *b)
{
	json_t *const *x = a, *const *y = b;
	size_t nx = json_array_size(json_object_get(*x, "nodes")),
	       ny = json_array_size(json_object_get(*y, "nodes"));

	if (nx != ny)
		return nx > ny ? -1 : 1;
	return strcmp(br_json_str(*x, "version"), br_json_str(*y, "version"));
}

/* One model's component: its versions, most nodes first, and who differs. */
static json_t *component_entry(const struct stg_fw_seen *s, size_t n)
{
	json_t **versions = br_xcalloc(n, sizeof(*versions)), *arr = json_array(), *differ = json_array();
	size_t nv = 0;

	for (size_t i = 0; i < n; i++) {
		if (!nv || strcmp(br_json_str(versions[nv - 1], "version"), s[i].version))
			versions[nv++] = json_pack("{s:s, s:[]}", "version", s[i].version, "nodes");
		json_array_append_new(json_object_get(versions[nv - 1], "nodes"), json_string(s[i].hostname));
	}
	qsort(versions, nv, sizeof(*versions), by_count);
	for (size_t v = 0; v < nv; v++) {
		if (v > 0)
			json_array_extend(differ, json_object_get(versions[v], "nodes"));
		json_array_append_new(arr, versions[v]);
	}
	free(versions);
	return json_pack("{s:s, s:s, s:o, s:o}", "model", s[0].model, "component", s[0].component, "versions",
			 arr, "differ", differ);
}

json_t *stg_fw_consistency(const struct stg_fw_seen *seen, size_t n, int differing_only)
{
	struct stg_fw_seen *s = br_xcalloc(n ? n : 1, sizeof(*s));
	json_t *components = json_array();

	if (n)
		memcpy(s, seen, n * sizeof(*s));
	qsort(s, n, sizeof(*s), seen_order);
	for (size_t i = 0; i < n;) {
		size_t j = i;
		json_t *e;

		while (j < n && !strcmp(s[j].model, s[i].model) && !strcmp(s[j].component, s[i].component))
			j++;
		e = component_entry(&s[i], j - i);
		if (!differing_only || json_array_size(json_object_get(e, "differ")))
			json_array_append(components, e);
		json_decref(e);
		i = j;
	}
	free(s);
	return json_pack("{s:o}", "components", components);
}

json_t *stg_fw_consistency_read(struct inv *inv, const struct inv_node *nodes, size_t n, int differing_only,
				struct br_err *err)
{
	struct stg_fw_seen *seen = NULL;
	size_t n_seen = 0, cap = 0;
	json_t *doc = NULL;
	int rc = 0;

	for (size_t i = 0; i < n && !rc; i++) {
		struct br_hw hw;

		if (inv_load_hw_firmware(inv, nodes[i].hostname, &hw, err)) {
			if (err && err->code == BR_E_NOTFOUND) /* never discovered: nothing to show */
				continue;
			rc = -1;
			break;
		}
		for (size_t f = 0; f < hw.n_firmware; f++) {
			const char *c = component_of(hw.firmware[f].id);

			if (!c || !hw.firmware[f].version)
				continue;
			if (n_seen == cap) {
				cap = cap ? 2 * cap : 256;
				seen = br_xrealloc(seen, cap * sizeof(*seen));
			}
			seen[n_seen++] =
			    (struct stg_fw_seen){ br_xstrdup(nodes[i].model ? nodes[i].model : "(unknown)"),
						  br_xstrdup(c), br_xstrdup(hw.firmware[f].version),
						  br_xstrdup(nodes[i].hostname) };
		}
		br_hw_release(&hw);
	}
	if (!rc)
		doc = stg_fw_consistency(seen, n_seen, differing_only);
	for (size_t i = 0; i < n_seen; i++) {
		free(seen[i].model);
		free(seen[i].component);
		free(seen[i].version);
		free(seen[i].hostname);
	}
	free(seen);
	return doc;
}
