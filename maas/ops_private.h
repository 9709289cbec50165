/* What maas/'s typed calls (machines.c, storage.c, tags.c, events.c) share. */
#ifndef BRINGUP_MAAS_OPS_PRIVATE_H
#define BRINGUP_MAAS_OPS_PRIVATE_H

#include "maas.h"

/* maas_request with the path formatted (relative to api/2.0/). */
int maas_requestf(struct maas_client *client, const char *method, const char *form, maas_done_fn done,
		  void *ctx, const char *fmt, ...) BR_PRINTF(6, 7);

#endif
