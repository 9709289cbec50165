/*
 * The MAAS client: one host on the HTTP core (common/http.h), FIFO, at most
 * max_inflight requests at once, on an event loop of its own; caller timers
 * are the loop's timers.
 */
#define _DEFAULT_SOURCE
#include <stdlib.h>
#include <string.h>
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
	struct br_http_options ho;
	struct maas_client *c;
	size_t len;
	int rc;

	if (!opts->url || strncmp(opts->url, "http", 4))
		return br_errf(err, BR_E_INVAL,
			       "MAAS URL '%s' is not an http(s) URL (set MAAS_URL or --maas-url)",
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
	c->opts.ca_file = NULL;
	if (c->opts.max_inflight < 1)
		c->opts.max_inflight = 1;
	len = strlen(opts->url);
	c->api_base = br_xasprintf("%s%sapi/2.0/", opts->url, len && opts->url[len - 1] == '/' ? "" : "/");
	br_http_options_init(&ho);
	ho.timeout_ms = c->opts.timeout_ms;
	ho.connect_timeout_ms = c->opts.connect_timeout_ms;
	ho.retries = c->opts.retries;
	ho.backoff_ms = c->opts.backoff_ms;
	ho.backoff_max_ms = c->opts.backoff_max_ms;
	ho.ca_file = opts->ca_file;
	ho.insecure = c->opts.insecure;
	ho.total_inflight = c->opts.max_inflight;
	ho.max_connections = c->opts.max_inflight;
	ho.body_max = MAAS_BODY_MAX;
	c->loop = opts->loop;
	c->own_loop = !c->loop;
	if ((c->own_loop && (rc = br_loop_new(&c->loop, err))) ||
	    (rc = br_http_init(&c->http, c->loop, &ho, err))) {
		maas_client_free(c);
		return rc;
	}
	br_http_host_init(&c->host, &c->http, &maas_http_ops, c->opts.max_inflight, c);
	*ret_client = c;
	return 0;
}

void maas_req_free(struct req *r)
{
	if (!r)
		return;
	br_http_req_release(&r->http);
	br_buf_release(&r->http.body);
	free(r->method);
	free(r->path);
	free(r->url);
	if (r->form) {
		/* Forms carry power_pass. */
		explicit_bzero(r->form, strlen(r->form));
		free(r->form);
	}
	free(r);
}

static void timer_unlink(struct maas_client *c, struct timer *t)
{
	if (t->prev)
		t->prev->next = t->next;
	else
		c->timers = t->next;
	if (t->next)
		t->next->prev = t->prev;
	c->n_timers--;
}

void maas_client_free(struct maas_client *c)
{
	if (!c)
		return;
	if (c->http.multi)
		br_http_host_cancel(&c->host);
	while (c->timers) {
		struct timer *t = c->timers;

		br_loop_timer_stop(c->loop, &t->timer);
		timer_unlink(c, t);
		free(t);
	}
	if (c->loop)
		br_http_release(&c->http);
	if (c->own_loop)
		br_loop_free(c->loop);
	maas_key_release(&c->key);
	free(c->api_base);
	free(c);
}

uint64_t maas_client_requests(const struct maas_client *client)
{
	return client->requests;
}

static void on_timer(struct br_loop_timer *bt, void *ctx)
{
	struct timer *t = ctx;
	struct maas_client *c = t->client;
	void (*fn)(void *) = t->fn;
	void *fn_ctx = t->ctx;

	timer_unlink(c, t);
	free(t);
	fn(fn_ctx);
}

int maas_after(struct maas_client *client, int64_t delay_ms, void (*fn)(void *ctx), void *ctx)
{
	struct timer *t;

	if (client->n_timers + (size_t)client->host.pending >= MAAS_QUEUE_MAX)
		return BR_E_TOOBIG;
	t = br_xcalloc(1, sizeof(*t));
	t->client = client;
	t->fn = fn;
	t->ctx = ctx;
	br_loop_timer_init(&t->timer, on_timer, t);
	t->next = client->timers;
	if (client->timers)
		client->timers->prev = t;
	client->timers = t;
	client->n_timers++;
	br_loop_timer_start(client->loop, &t->timer, delay_ms);
	return 0;
}

int maas_request(struct maas_client *client, const char *method, const char *path, const char *form,
		 maas_done_fn done, void *ctx)
{
	struct req *r;

	if (client->n_timers + (size_t)client->host.pending >= MAAS_QUEUE_MAX)
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
	br_http_req_init(&r->http, &client->host, r->method, r->url, 0);
	if (strcmp(method, "GET"))
		r->http.send_body = r->form ? r->form : "";
	br_http_submit(&r->http);
	return 0;
}
