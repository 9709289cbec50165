/* What maas/client.c and maas/loop.c share: the client, its requests and
 * timers on the HTTP core (common/http.h) and its event loop. */
#ifndef BRINGUP_MAAS_PRIVATE_H
#define BRINGUP_MAAS_PRIVATE_H

#include <curl/curl.h>

#include "http.h"
#include "maas.h"

struct req {
	struct br_http_req http; /* first member: the core hands this back */
	struct maas_client *client;
	char *method, *path, *url, *form;
	maas_done_fn done;
	void *ctx;
};

struct timer {
	struct br_loop_timer timer;
	struct maas_client *client;
	void (*fn)(void *ctx);
	void *ctx;
	struct timer *next, *prev; /* the client's pending timers */
};

struct maas_client {
	struct maas_options opts;
	char *api_base; /* ".../MAAS/api/2.0/" */
	struct maas_key key;
	struct br_loop *loop; /* its own, or opts.loop */
	int own_loop;
	struct br_http http;
	struct br_http_host host; /* MAAS: one host, FIFO, max_inflight at once */
	struct timer *timers;
	size_t n_timers;
	uint64_t requests;
};

/* The client's HTTP ops (maas/loop.c). */
extern const struct br_http_ops maas_http_ops;
void maas_req_free(struct req *r);

#endif
