/*
 * rest — one JSON request at a time to a site's service (NetBox, Jira,
 * ServiceNow) on the HTTP core: an Authorization header given once (a
 * secret, registered with the log's redaction), Accept and Content-Type
 * JSON, retries with backoff where repeating cannot do harm (a GET, PUT or
 * PATCH that broke; any request answered 429 or 503, which the server did
 * not act on), TLS verified unless told otherwise.
 *
 * Ownership: struct stg_rest is the caller's (stg_rest_init /
 * stg_rest_release); the answer's body is the caller's buffer.
 */
#ifndef STAGES_REST_H
#define STAGES_REST_H

#include "common.h"

#define STG_REST_RETRIES 3

struct br_loop;
struct stg_rest_client;

struct stg_rest {
	struct stg_rest_client *c;
};

struct stg_rest_options {
	const char *authorization; /* the header's value, "Token …", "Basic …" (a secret); NULL: none */
	const char *ca_file;	   /* NULL: the system store */
	int insecure;
	long timeout_ms; /* one attempt; 0: 30 s */
	size_t body_max; /* one answer */
	/* More header lines, "Name: value", NULL-ended (GitHub's Accept,
	 * X-GitHub-Api-Version, User-Agent); copied. NULL: none. */
	const char *const *headers;
};

int stg_rest_init(struct stg_rest *r, const struct stg_rest_options *o, struct br_err *err);
void stg_rest_release(struct stg_rest *r);

/* method url with body (JSON text, or NULL). 0 with *ret_status and the
 * answer in ret_body (appended) whatever the status; BR_E_UNREACHABLE when
 * no answer came (err names the URL and curl's words). */
int stg_rest_call(struct stg_rest *r, const char *method, const char *url, const char *body, long *ret_status,
		  struct br_buf *ret_body, struct br_err *err);

/* A JSON answer parsed (bounded by max bytes, a value per 4 bytes), or
 * NULL with err set naming url. */
json_t *stg_rest_json(const char *url, const struct br_buf *body, size_t max, struct br_err *err);

#endif
