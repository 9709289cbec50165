/*
 * Tags: how the gate marks machines for people and schedulers (golden,
 * quarantined). A tag must exist before machines are added to it.
 */
#include <string.h>

#include "ops_private.h"

/* MAAS's own rule for tag names; anything else would be pasted into a path. */
int maas_tag_name_valid(const char *name)
{
	if (!name || !*name || strlen(name) > MAAS_TAG_NAME_MAX)
		return 0;
	for (; *name; name++)
		if (!((*name >= 'a' && *name <= 'z') || (*name >= 'A' && *name <= 'Z') ||
		      (*name >= '0' && *name <= '9') || *name == '-' || *name == '_'))
			return 0;
	return 1;
}

int maas_tag_create(struct maas_client *client, const char *name, const char *comment, maas_done_fn done,
		    void *ctx)
{
	struct br_buf form;
	int rc;

	if (!maas_tag_name_valid(name))
		return BR_E_INVAL;
	br_buf_init(&form, MAAS_FORM_MAX);
	maas_form_add(&form, "name", name);
	if (comment && *comment)
		maas_form_add(&form, "comment", comment);
	rc = maas_request(client, "POST", "tags/", br_buf_str(&form), done, ctx);
	br_buf_release(&form);
	return rc;
}

/* src/maasserver/api/tags.py TagHandler.update_nodes takes repeated add=
 * and remove= system_ids (_get_nodes_for reads them as a list), so one
 * request tags many machines. */
int maas_tag_update(struct maas_client *client, const char *tag, int add, const char *const *system_ids,
		    size_t n, maas_done_fn done, void *ctx)
{
	struct br_buf form;
	int rc = 0;

	if (!maas_tag_name_valid(tag) || !n)
		return BR_E_INVAL;
	if (n > MAAS_IDS_PER_REQUEST_MAX)
		return BR_E_TOOBIG;
	br_buf_init(&form, MAAS_FORM_MAX);
	for (size_t i = 0; i < n && !rc; i++)
		rc = maas_system_id_valid(system_ids[i])
			 ? maas_form_add(&form, add ? "add" : "remove", system_ids[i])
			 : BR_E_INVAL;
	if (!rc)
		rc = maas_requestf(client, "POST", br_buf_str(&form), done, ctx, "tags/%s/?op=update_nodes",
				   tag);
	br_buf_release(&form);
	return rc;
}

int maas_tag_add(struct maas_client *client, const char *tag, const char *system_id, maas_done_fn done,
		 void *ctx)
{
	return maas_tag_update(client, tag, 1, &system_id, 1, done, ctx);
}

int maas_tag_remove(struct maas_client *client, const char *tag, const char *system_id, maas_done_fn done,
		    void *ctx)
{
	return maas_tag_update(client, tag, 0, &system_id, 1, done, ctx);
}

int maas_tags_list(struct maas_client *client, maas_done_fn done, void *ctx)
{
	return maas_request(client, "GET", "tags/", NULL, done, ctx);
}

int maas_tag_machines(struct maas_client *client, const char *tag, maas_done_fn done, void *ctx)
{
	if (!maas_tag_name_valid(tag))
		return BR_E_INVAL;
	return maas_requestf(client, "GET", NULL, done, ctx, "tags/%s/?op=machines", tag);
}
