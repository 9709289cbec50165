/*
 * netbox_client — the NetBox REST client the import and the export share
 * (stages/netbox.c): the base URL, the token in its Authorization header
 * (redacted from logs), lists read page by page with "next" kept on the
 * operator's server, and NetBox's words for a refusal.
 *
 * Ownership: struct stg_netbox_client is the caller's
 * (stg_netbox_client_init / stg_netbox_client_release); options are
 * borrowed for its life.
 */
#ifndef STAGES_NETBOX_CLIENT_H
#define STAGES_NETBOX_CLIENT_H

#include "netbox.h"
#include "rest.h"

struct stg_netbox_client {
	const struct stg_netbox_options *o;
	char *base; /* the URL, ending in '/' */
	struct stg_rest rest;
};

/* o->url checked (http(s), no credentials in it) and o->token set. */
int stg_netbox_client_init(struct stg_netbox_client *c, const struct stg_netbox_options *o,
			   struct br_err *err);
void stg_netbox_client_release(struct stg_netbox_client *c);
/* Every object of the list at first_url, page by page, appended to objects. */
int stg_netbox_get_all(struct stg_netbox_client *c, const char *first_url, json_t *objects,
		       struct br_err *err);
/* NetBox's words in an error body: its "detail", else the body as compact
 * JSON ({"serial": ["Not a valid string."]}). Caller frees. */
char *stg_netbox_words(const struct br_buf *body);

#endif
