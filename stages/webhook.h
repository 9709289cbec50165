/*
 * webhook — deliver tickets to a ticketing system's webhook: each ticket
 * version not yet delivered is POSTed once as JSON, with an
 * Idempotency-Key that names the ticket and its version (so a receiver
 * that saw a retried request already can drop it), retried with backoff on
 * connection errors, 5xx and 429, TLS verified unless told otherwise. A
 * version is recorded as delivered only on a 2xx answer.
 *
 * Ownership: the caller's bodies and keys are copied; nothing is returned.
 */
#ifndef STAGES_WEBHOOK_H
#define STAGES_WEBHOOK_H

#include "common.h"

#define STG_WEBHOOK_BODY_MAX (64u * 1024) /* the answer we read (and ignore) */

struct stg_webhook_options {
	/* The webhook; it may carry credentials (userinfo, a token in its
	 * query): every message shows it masked (br_url_masked). */
	const char *url;
	const char *authorization; /* the Authorization header's value (a secret), or NULL */
	const char *ca_file;	   /* NULL: system store */
	int insecure;
	int retries;	  /* per ticket after the first attempt; default 5 */
	long timeout_ms;  /* one attempt; default 10000 */
	long backoff_ms;  /* first retry delay; default 200 */
	int max_inflight; /* default 8 */
};
void stg_webhook_options_init(struct stg_webhook_options *o);

/* One delivery: body (JSON text) and key are copied. done(ctx, index, ok,
 * message) runs once per delivery after stg_webhook_run, message naming the last
 * failure (NULL on success). */
struct stg_webhook_delivery {
	const char *key;
	const char *body;
};
typedef void (*stg_webhook_done_fn)(void *ctx, size_t index, int ok, const char *message);

/* POST every delivery and wait for them all. 0, or an error when the
 * webhook cannot be set up at all (a bad URL, the loop). */
int stg_webhook_run(const struct stg_webhook_options *o, const struct stg_webhook_delivery *d, size_t n,
		    stg_webhook_done_fn done, void *ctx, struct br_err *err);

#endif
