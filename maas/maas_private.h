/* What maas/client.c and maas/loop.c share: the client and its queues. */
#ifndef BRINGUP_MAAS_PRIVATE_H
#define BRINGUP_MAAS_PRIVATE_H

#include <curl/curl.h>

#include "maas.h"

struct req {
	struct maas_client *client;
	CURL *easy;
	struct curl_slist *headers;
	char *method, *path, *url, *form;
	struct br_buf body;
	long retry_after_s;
	int attempt;
	maas_done_fn done;
	void *ctx;
	char errbuf[CURL_ERROR_SIZE];
	struct req *next;
	struct req *active_prev, *active_next; /* while on the multi handle */
};

struct timer {
	int64_t due_ms;
	void (*fn)(void *ctx);
	void *ctx;
	struct req *retry; /* a request waiting out its backoff, else NULL */
	struct timer *next;
};

struct maas_client {
	struct maas_options opts;
	char *api_base; /* ".../MAAS/api/2.0/" */
	char *ca_file;
	struct maas_key key;
	CURLM *multi;
	struct req *wait_head, *wait_tail;
	struct req *active_list;
	struct timer *timers; /* sorted by due_ms, FIFO among equals */
	size_t active, queued;
	uint64_t requests, rng;
};

/* Put a request at the end of the wait queue. */
void maas_enqueue(struct maas_client *c, struct req *r);
/* Insert a timer; retry, when set, is a request waiting out its backoff. */
int maas_add_timer(struct maas_client *c, int64_t delay_ms, void (*fn)(void *), void *ctx, struct req *retry);
void maas_req_free(struct req *r);
uint64_t maas_random(struct maas_client *c);

#endif
