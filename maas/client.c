/*
 * The MAAS client's event loop: one CURLM, a FIFO of requests waiting for
 * one of max_inflight slots, and one time-ordered list of timers (caller
 * timers and retry backoffs alike).
 */
#define _DEFAULT_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "maas_private.h"

void maas_options_init(struct maas_options *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->max_inflight = 32;
	opts->timeout_ms = 30000;
	opts->connect_timeout_ms = 5000;
	opts->retries = 5;
	opts->backoff_ms = 250;
	opts->backoff_max_ms = 10000;
}

int maas_client_new(const struct maas_options *opts, struct maas_client **ret_client, struct br_err *err)
{
	struct maas_client *c;
	size_t len;
	int rc;

	if (!opts->url || strncmp(opts->url, "http", 4))
		return br_errf(err, BR_E_INVAL, "MAAS URL '%s' is not an http(s) URL (set MAAS_URL or --maas-url)",
			       opts->url ? opts->url : "");
	c = br_xcalloc(1, sizeof(*c));
	rc = maas_key_parse(opts->api_key, &c->key, err);
	if (rc) {
		free(c);
		return rc;
	}
	c->opts = *opts;
	c->opts.api_key = NULL;
	c->opts.url = NULL;
	if (c->opts.max_inflight < 1)
		c->opts.max_inflight = 1;
	len = strlen(opts->url);
	c->api_base = br_xasprintf("%s%sapi/2.0/", opts->url, len && opts->url[len - 1] == '/' ? "" : "/");
	c->ca_file = opts->ca_file ? br_xstrdup(opts->ca_file) : NULL;
	c->multi = curl_multi_init();
	if (getrandom(&c->rng, sizeof(c->rng), 0) != sizeof(c->rng))
		c->rng = (uint64_t)br_now_ms() * 0x9e3779b97f4a7c15ULL;
	if (!c->multi) {
		maas_client_free(c);
		return br_errf(err, BR_E_NOMEM, "curl_multi_init failed");
	}
	curl_multi_setopt(c->multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, (long)c->opts.max_inflight);
	curl_multi_setopt(c->multi, CURLMOPT_MAXCONNECTS, (long)c->opts.max_inflight);
	*ret_client = c;
	return 0;
}

void maas_req_free(struct req *r)
{
	if (!r)
		return;
	if (r->easy)
		curl_easy_cleanup(r->easy);
	curl_slist_free_all(r->headers);
	free(r->method);
	free(r->path);
	free(r->url);
	if (r->form) {
		/* Forms carry power_pass. */
		explicit_bzero(r->form, strlen(r->form));
		free(r->form);
	}
	br_buf_release(&r->body);
	free(r);
}

void maas_client_free(struct maas_client *c)
{
	if (!c)
		return;
	while (c->wait_head) {
		struct req *r = c->wait_head;

		c->wait_head = r->next;
		maas_req_free(r);
	}
	while (c->timers) {
		struct timer *t = c->timers;

		c->timers = t->next;
		maas_req_free(t->retry);
		free(t);
	}
	if (c->multi) {
		while (c->active_list) {
			struct req *r = c->active_list;

			c->active_list = r->active_next;
			curl_multi_remove_handle(c->multi, r->easy);
			maas_req_free(r);
		}
		curl_multi_cleanup(c->multi);
	}
	maas_key_release(&c->key);
	free(c->api_base);
	free(c->ca_file);
	free(c);
}

uint64_t maas_client_requests(const struct maas_client *client)
{
	return client->requests;
}

uint64_t maas_random(struct maas_client *c)
{
	uint64_t z = (c->rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

int maas_add_timer(struct maas_client *c, int64_t delay_ms, void (*fn)(void *), void *ctx, struct req *retry)
{
	struct timer *t, **p;

	if (c->queued >= MAAS_QUEUE_MAX)
		return BR_E_TOOBIG;
	t = br_xcalloc(1, sizeof(*t));
	t->due_ms = br_now_ms() + (delay_ms > 0 ? delay_ms : 0);
	t->fn = fn;
	t->ctx = ctx;
	t->retry = retry;
	for (p = &c->timers; *p && (*p)->due_ms <= t->due_ms; p = &(*p)->next)
		;
	t->next = *p;
	*p = t;
	c->queued++;
	return 0;
}

int maas_after(struct maas_client *client, int64_t delay_ms, void (*fn)(void *ctx), void *ctx)
{
	return maas_add_timer(client, delay_ms, fn, ctx, NULL);
}

void maas_enqueue(struct maas_client *c, struct req *r)
{
	r->next = NULL;
	if (c->wait_tail)
		c->wait_tail->next = r;
	else
		c->wait_head = r;
	c->wait_tail = r;
	c->queued++;
}

int maas_request(struct maas_client *client, const char *method, const char *path, const char *form,
		 maas_done_fn done, void *ctx)
{
	struct req *r;

	if (client->queued >= MAAS_QUEUE_MAX)
		return BR_E_TOOBIG;
	if (form && strlen(form) > MAAS_FORM_MAX)
		return BR_E_TOOBIG;
	r = br_xcalloc(1, sizeof(*r));
	r->client = client;
	r->method = br_xstrdup(method);
	r->path = br_xstrdup(path);
	r->url = br_xasprintf("%s%s", client->api_base, path);
	r->form = form ? br_xstrdup(form) : NULL;
	r->done = done;
	r->ctx = ctx;
	br_buf_init(&r->body, MAAS_BODY_MAX);
	maas_enqueue(client, r);
	return 0;
}

