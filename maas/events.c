/*
 * Events: MAAS's log of what happened to machines. Read to learn which
 * machines moved since the last look (cheaper than reading them all) and
 * why a machine failed.
 */
#include "ops_private.h"

int maas_events_since(struct maas_client *client, int64_t after_id, int limit, maas_done_fn done, void *ctx)
{
	if (after_id < 0)
		return maas_requestf(client, "GET", NULL, done, ctx, "events/?op=query&level=DEBUG&limit=%d",
				     limit);
	return maas_requestf(client, "GET", NULL, done, ctx,
			     "events/?op=query&level=DEBUG&limit=%d&after=%lld", limit, (long long)after_id);
}

int maas_machine_errors(struct maas_client *client, const char *system_id, maas_done_fn done, void *ctx)
{
	if (!maas_system_id_valid(system_id))
		return BR_E_INVAL;
	return maas_requestf(client, "GET", NULL, done, ctx, "events/?op=query&level=ERROR&id=%s", system_id);
}
