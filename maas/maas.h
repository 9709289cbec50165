/*
 * maas — a client for the Canonical MAAS API 2.0 on one libcurl multi handle:
 * OAuth 1.0 PLAINTEXT, form-encoded POSTs, JSON answers through jansson,
 * retries with backoff on 503, on 409 with Retry-After and on connection
 * errors, and every error status turned into a reason that quotes MAAS.
 * Many machines' operations run at once under one global cap; timers let a
 * caller poll a machine's status without a thread.
 *
 * It knows no database and no stage: callers store what it returns. The API
 * key is copied in, zeroed on free and never logged; form fields are never
 * logged either (power_pass travels in them).
 *
 * Ownership: struct maas_client is opaque (maas_client_new/maas_client_free).
 * The json_t handed to a done callback is borrowed for the callback's
 * duration (json_incref what you keep). maas_machine and maas_blockdevice
 * records are the caller's (maas_machine_release / maas_blockdevices_free).
 */
#ifndef BRINGUP_MAAS_H
#define BRINGUP_MAAS_H

#include <stdint.h>

#include "common.h"

#define MAAS_BODY_MAX (16u * 1024 * 1024) /* one response body */
#define MAAS_FORM_MAX (256u * 1024)       /* one request body (user_data included) */
#define MAAS_MACHINES_MAX 20000           /* machines in one list answer */
#define MAAS_BLOCKDEVICES_MAX 256         /* block devices of one machine */
#define MAAS_MACS_MAX 64                  /* interfaces of one machine we look at */
#define MAAS_QUEUE_MAX 100000             /* requests and timers waiting at once */
#define MAAS_REASON_MAX 300               /* chars of MAAS's text quoted in a reason */

/* Error codes beyond common's (all negative). */
enum maas_errcode {
	MAAS_E_HTTP = -200, /* a status with no better mapping; message carries it */
};

/* MAAS node status numbers (src/maasserver/enum.py NODE_STATUS). */
enum maas_status {
	MAAS_NEW = 0,
	MAAS_COMMISSIONING = 1,
	MAAS_FAILED_COMMISSIONING = 2,
	MAAS_MISSING = 3,
	MAAS_READY = 4,
	MAAS_RESERVED = 5,
	MAAS_DEPLOYED = 6,
	MAAS_RETIRED = 7,
	MAAS_BROKEN = 8,
	MAAS_DEPLOYING = 9,
	MAAS_ALLOCATED = 10,
	MAAS_FAILED_DEPLOYMENT = 11,
	MAAS_RELEASING = 12,
	MAAS_FAILED_RELEASING = 13,
	MAAS_DISK_ERASING = 14,
	MAAS_FAILED_DISK_ERASING = 15,
	MAAS_RESCUE_MODE = 16,
	MAAS_ENTERING_RESCUE_MODE = 17,
	MAAS_FAILED_ENTERING_RESCUE_MODE = 18,
	MAAS_EXITING_RESCUE_MODE = 19,
	MAAS_FAILED_EXITING_RESCUE_MODE = 20,
	MAAS_TESTING = 21,
	MAAS_FAILED_TESTING = 22,
};
#define MAAS_STATUS_COUNT (MAAS_FAILED_TESTING + 1)

/* "Ready", "Failed commissioning", ...; "Unknown" outside the table. */
const char *maas_status_name(int status);

/* ---- pure helpers (maas/auth.c, maas/reason.c), unit-tested ---------------- */

struct maas_key {
	char *consumer_key;
	char *token_key;
	char *token_secret; /* zeroed on release */
};

/* Parse "consumer_key:token_key:token_secret". The message never quotes the
 * key itself. */
int maas_key_parse(const char *text, struct maas_key *ret_key, struct br_err *err);
void maas_key_release(struct maas_key *key);

/* Append the value of an Authorization header for one request:
 * OAuth oauth_version="1.0", oauth_signature_method="PLAINTEXT",
 * oauth_consumer_key, oauth_token, oauth_signature="&secret" percent-encoded,
 * oauth_nonce, oauth_timestamp. */
int maas_oauth_header(const struct maas_key *key, const char *nonce, int64_t timestamp, struct br_buf *out);

/* Append "name=value" to an application/x-www-form-urlencoded body (or a
 * query string), "&"-separated, both percent-encoded (RFC 3986 unreserved
 * characters kept). Repeat a name to send a list (mac_addresses). */
int maas_form_add(struct br_buf *form, const char *name, const char *value);

/* Turn a MAAS answer that is not a success into an error: the code says what
 * kind (BR_E_INVAL 400, BR_E_AUTH 401/403, BR_E_NOTFOUND 404, BR_E_STATE 409,
 * BR_E_UNREACHABLE 502-504, MAAS_E_HTTP otherwise) and the message quotes
 * MAAS's text, per-field JSON flattened as "field: message; field: message".
 * what names the request ("POST machines/?op=deploy"). Returns the code. */
int maas_error_from_response(long status, const char *body, size_t len, const char *what, struct br_err *err);

/* ---- the client (maas/client.c) ---------------------------------------------- */

struct maas_options {
	const char *url;         /* MAAS_URL, ending in /MAAS/ (a missing slash is added) */
	const char *api_key;     /* consumer:token:secret; copied */
	const char *ca_file;     /* NULL: system store */
	int insecure;            /* skip TLS verification, only when asked */
	int max_inflight;        /* requests in flight at once; default 32 */
	long timeout_ms;         /* one request; default 30000 */
	long connect_timeout_ms; /* default 5000 */
	int retries;             /* per request on 503, 409+Retry-After, connection errors; default 5 */
	long backoff_ms;         /* first retry delay, doubled with jitter; default 250 */
	long backoff_max_ms;     /* default 10000 */
};
void maas_options_init(struct maas_options *opts);

struct maas_client;

int maas_client_new(const struct maas_options *opts, struct maas_client **ret_client, struct br_err *err);
void maas_client_free(struct maas_client *client);

/* Result of one request: rc 0 for 2xx (json is the parsed body, or NULL for a
 * body that is not JSON such as set_boot_disk's plain "OK"; text is the raw
 * body), else an error code with err filled. */
struct maas_result {
	int rc;
	long status;
	json_t *json;
	const char *text;
	const struct br_err *err;
};
typedef void (*maas_done_fn)(void *ctx, const struct maas_result *res);

/* Queue one request. path is relative to api/2.0/ and may carry a query
 * ("machines/?mac_address=..."); form is NULL for GET or the urlencoded
 * body for POST/PUT (copied). done runs from inside maas_client_run. */
int maas_request(struct maas_client *client, const char *method, const char *path, const char *form,
		 maas_done_fn done, void *ctx);
/* Call fn(ctx) from inside maas_client_run after delay_ms. */
int maas_after(struct maas_client *client, int64_t delay_ms, void (*fn)(void *ctx), void *ctx);
/* Run until no request or timer is left. 0, or an error when the loop
 * itself broke. */
int maas_client_run(struct maas_client *client, struct br_err *err);
/* Requests sent so far, retries included (for summaries and benchmarks). */
uint64_t maas_client_requests(const struct maas_client *client);

/* Synchronous convenience over the above: one request, run to completion.
 * *ret_json (may be NULL) gets a new reference. */
int maas_call(struct maas_client *client, const char *method, const char *path, const char *form,
	      json_t **ret_json, struct br_err *err);

/* Check up front that MAAS answers and accepts the key (users/?op=whoami):
 * 0, BR_E_AUTH, or BR_E_UNREACHABLE, with a message naming the URL. */
int maas_check_access(struct maas_client *client, struct br_err *err);

/* ---- records (maas/machine.c) ----------------------------------------------- */

struct maas_machine {
	char *system_id;
	char *hostname;
	int status;              /* enum maas_status, -1 unknown */
	char *status_name;
	char *status_message;    /* MAAS's last word on the machine, may be NULL */
	char *boot_disk_serial;  /* boot_disk.serial, NULL when none */
	char *ip;                /* first of ip_addresses, NULL when none */
	char *power_state;
	struct br_strlist macs;  /* interface_set[].mac_address, lowercase */
};
/* Fill from a machine object; 0 or BR_E_PROTO when system_id is missing. */
int maas_machine_parse(json_t *obj, struct maas_machine *ret_machine, struct br_err *err);
void maas_machine_release(struct maas_machine *machine);

struct maas_blockdevice {
	int64_t id;
	char *name;
	char *serial;
	char *model;
	char *id_path;
	uint64_t size;
};
/* Parse nodes/{id}/blockdevices/ (an array); caller frees. */
int maas_blockdevices_parse(json_t *arr, struct maas_blockdevice **ret_devs, size_t *ret_n, struct br_err *err);
void maas_blockdevices_free(struct maas_blockdevice *devs, size_t n);

/* The first event description of a machine's events/?op=query answer whose
 * type or level says something failed; NULL when none. Borrowed from doc. */
const char *maas_events_failure(json_t *doc);

#endif
