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
 * Callers speak MAAS through the typed calls (machines, storage, tags,
 * events): the REST paths and form fields live in this module alone.
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
/* JSON values in one answer, counted before parsing: lists are asked for by
 * MAC or by a bounded set of ids, and a real machine is some 600 values;
 * 8 MiB of "[{},{},...]" cost 708 MB of jansson and 8.6 s of CPU. */
#define MAAS_JSON_VALUES_MAX (1u << 20)
#define MAAS_FORM_MAX (256u * 1024) /* one request body (user_data included) */
#define MAAS_MACHINES_MAX 20000	    /* machines in one list answer */
#define MAAS_BLOCKDEVICES_MAX 256   /* block devices of one machine */
#define MAAS_MACS_MAX 64	    /* interfaces of one machine we look at */
#define MAAS_QUEUE_MAX 100000	    /* requests and timers waiting at once */
#define MAAS_REASON_MAX 300	    /* chars of MAAS's text quoted in a reason */
#define MAAS_SYSTEM_ID_MAX 32	    /* characters of a system_id we put in a path */
#define MAAS_TAG_NAME_MAX 256	    /* characters of a tag name */
#define MAAS_TAGS_MAX 1024	    /* tags of one machine we look at */
/* system_ids sent in one request (machines/?id=..., update_nodes): MAAS's
 * Django keeps its default DATA_UPLOAD_MAX_NUMBER_FIELDS of 1000 query and
 * form fields (src/maasserver/djangosettings/settings.py sets only
 * DATA_UPLOAD_MAX_MEMORY_SIZE) and refuses a request with more with a 400;
 * half of that leaves room for the other fields. */
#define MAAS_IDS_PER_REQUEST_MAX 500

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

struct br_loop;

struct maas_options {
	const char *url;	 /* MAAS_URL, ending in /MAAS/ (a missing slash is added) */
	const char *api_key;	 /* consumer:token:secret; copied */
	const char *ca_file;	 /* NULL: system store */
	int insecure;		 /* skip TLS verification, only when asked */
	int max_inflight;	 /* requests in flight at once; default 32 */
	long timeout_ms;	 /* one request; default 30000 */
	long connect_timeout_ms; /* default 5000 */
	int retries;		 /* per request on 503, 409+Retry-After, connection errors; default 5 */
	long backoff_ms;	 /* first retry delay, doubled with jitter; default 250 */
	long backoff_max_ms;	 /* default 10000 */
	/* The event loop to run on (common/loop.h), shared with other clients
	 * of the process (Redfish, ipmitool, SSH), borrowed: it must outlive
	 * the client. maas_client_run then runs it until this client's own
	 * requests and timers are done; another client's run on it drives
	 * this one's requests too. NULL: a loop of the client's own. */
	struct br_loop *loop;
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
/* Run until no request or timer of this client is left. 0, or an error
 * when the loop itself broke. */
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
/* The same check queued, for a caller that sends other requests beside it
 * (done gets MAAS's answer or error as any request's). */
int maas_whoami(struct maas_client *client, maas_done_fn done, void *ctx);

/* ---- records (maas/machine.c) ----------------------------------------------- */

struct maas_machine {
	char *system_id;
	char *hostname; /* the first label (MAAS splits a dotted name) */
	char *fqdn;	/* hostname.domain, may be NULL */
	int status;	/* enum maas_status, -1 unknown */
	char *status_name;
	char *status_message;	 /* MAAS's last word on the machine, may be NULL */
	char *boot_disk_serial;	 /* boot_disk.serial, NULL when none */
	char *boot_disk_id_path; /* boot_disk.id_path (udev's /dev/disk/by-id name), NULL when none */
	char *ip;		 /* first of ip_addresses, NULL when none */
	char *power_state;
	char *owner;		/* the user it is allocated to, NULL when unowned */
	struct br_strlist macs; /* interface_set[].mac_address, lowercase */
	struct br_strlist tags; /* tag_names */
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
int maas_blockdevices_parse(json_t *arr, struct maas_blockdevice **ret_devs, size_t *ret_n,
			    struct br_err *err);
void maas_blockdevices_free(struct maas_blockdevice *devs, size_t n);

/* The first event description of a machine's events/?op=query answer whose
 * type or level says something failed; NULL when none. Borrowed from doc. */
const char *maas_events_failure(json_t *doc);

/* MAAS writes an event of type NODE_CHANGED_STATUS on every change of a
 * machine's status (src/maasserver/models/signals/events.py
 * emit_state_transition_event, since MAAS 1.7.0): the events API gives its
 * type as the type's description, "Node changed status"
 * (src/provisioningserver/events.py, now src/maascommon/events.py; level
 * INFO up to 2.5, DEBUG from 2.6.0), and its description as "From 'Old'
 * to 'New'" in NODE_STATUS_CHOICES' display names (src/maasserver/enum.py),
 * " (to USER)" appended for Allocated. */
#define MAAS_EVENT_STATUS_CHANGED "Node changed status"
enum {
	MAAS_EVENT_NOT_STATUS = -1,   /* another type of event */
	MAAS_EVENT_STATUS_UNREAD = -2 /* a status change whose new status cannot be read */
};
/* The status an event of events/?op=query says the machine moved to (enum
 * maas_status), or MAAS_EVENT_NOT_STATUS / MAAS_EVENT_STATUS_UNREAD. */
int maas_event_new_status(json_t *event);

/* ---- what MAAS does, one call each (machines.c, storage.c, tags.c, events.c)
 *
 * Each queues one request as maas_request does and returns 0, BR_E_INVAL for
 * a system_id or tag name that is not one (nothing is sent), or BR_E_TOOBIG
 * when it cannot be queued. done gets MAAS's answer (res->json: the machine,
 * the list, ...), or on failure res->err: the request named and MAAS's own
 * text quoted ("MAAS POST machines/x7/?op=deploy: HTTP 409 Conflict: ..."). */

/* Lowercase letters and digits, at most MAAS_SYSTEM_ID_MAX. */
int maas_system_id_valid(const char *id);
/* Letters, digits, '-' and '_', at most MAAS_TAG_NAME_MAX. */
int maas_tag_name_valid(const char *name);

/* Machines carrying any of the MACs (a list, usually of zero or one). */
int maas_machines_by_mac(struct maas_client *client, const struct br_strlist *macs, maas_done_fn done,
			 void *ctx);
/* The listed machines, in one request (a list; absent ones are left out;
 * at most MAAS_IDS_PER_REQUEST_MAX, else BR_E_TOOBIG). */
int maas_machines_by_id(struct maas_client *client, const char *const *system_ids, size_t n,
			maas_done_fn done, void *ctx);
int maas_machine_get(struct maas_client *client, const char *system_id, maas_done_fn done, void *ctx);

/* How MAAS powers the machine: its BMC. */
struct maas_power {
	const char *type;    /* NULL: "redfish" */
	const char *address; /* the BMC, host[:port] */
	const char *user;
	const char *password; /* sent in the form only; never logged */
	const char *node_id;  /* Redfish system id ("System.Embedded.1"); NULL: MAAS's default */
	const char *driver;   /* IPMI power_driver ("LAN_2_0"); NULL: not sent */
};

struct maas_machine_spec {
	const char *hostname;
	const char *architecture; /* NULL: "amd64/generic" */
	const struct br_strlist *macs;
	struct maas_power power;
	int commission; /* start commissioning at once */
};
/* Create the machine (answer: the machine). MAAS refuses a MAC another
 * machine has with a 400 whose text says "already in use". */
int maas_machine_create(struct maas_client *client, const struct maas_machine_spec *spec, maas_done_fn done,
			void *ctx);

/* Give MAAS new power parameters for an enlisted machine (PUT
 * machines/{system_id}/, as after the BMC's credentials changed): the
 * power type and every parameter in power (address, user and password
 * required, else BR_E_INVAL and nothing is sent); the password travels in
 * the form alone, zeroed once sent. Answer: the machine. */
int maas_machine_set_power(struct maas_client *client, const char *system_id, const struct maas_power *power,
			   maas_done_fn done, void *ctx);

int maas_commission(struct maas_client *client, const char *system_id, maas_done_fn done, void *ctx);
/* Run the hardware tests again (Failed testing -> Testing -> Ready): MAAS
 * offers this, not commission, from Failed testing. */
int maas_test(struct maas_client *client, const char *system_id, maas_done_fn done, void *ctx);
/* Allocate this one machine to the API key's user (Ready -> Allocated). */
int maas_allocate(struct maas_client *client, const char *system_id, maas_done_fn done, void *ctx);
/* distro_series and user_data_b64 (base64 cloud-init) may be NULL. */
int maas_deploy(struct maas_client *client, const char *system_id, const char *distro_series,
		const char *user_data_b64, maas_done_fn done, void *ctx);
int maas_release(struct maas_client *client, const char *system_id, maas_done_fn done, void *ctx);
/* How a release wipes the disks (MAAS's erase, quick_erase, secure_erase):
 * the machine goes through Disk erasing before Ready. */
enum maas_erase { MAAS_ERASE_NONE, MAAS_ERASE_FULL, MAAS_ERASE_QUICK, MAAS_ERASE_SECURE };
int maas_release_erase(struct maas_client *client, const char *system_id, enum maas_erase erase,
		       maas_done_fn done, void *ctx);
/* comment (may be NULL) becomes the machine's status message in MAAS. */
int maas_mark_broken(struct maas_client *client, const char *system_id, const char *comment,
		     maas_done_fn done, void *ctx);
int maas_mark_fixed(struct maas_client *client, const char *system_id, maas_done_fn done, void *ctx);

/* The machine's block devices (parse with maas_blockdevices_parse). */
int maas_block_devices(struct maas_client *client, const char *system_id, maas_done_fn done, void *ctx);
/* Flag device_id (a block device's id) as the boot disk; the answer may be
 * plain "OK" (res->json NULL). */
int maas_set_boot_disk(struct maas_client *client, const char *system_id, int64_t device_id,
		       maas_done_fn done, void *ctx);
/* Rebuild the storage layout ("flat", "lvm", ...) on the boot disk; the
 * answer is the machine (boot_disk included) or, on older MAAS, not. */
int maas_set_storage_layout(struct maas_client *client, const char *system_id, const char *layout,
			    maas_done_fn done, void *ctx);

/* comment may be NULL. MAAS refuses a name that exists (400). */
int maas_tag_create(struct maas_client *client, const char *name, const char *comment, maas_done_fn done,
		    void *ctx);
int maas_tag_add(struct maas_client *client, const char *tag, const char *system_id, maas_done_fn done,
		 void *ctx);
int maas_tag_remove(struct maas_client *client, const char *tag, const char *system_id, maas_done_fn done,
		    void *ctx);
/* Add the tag to n machines, or remove it (add 0), in one request
 * (tags/{tag}/?op=update_nodes with one add= or remove= per machine; at
 * most MAAS_IDS_PER_REQUEST_MAX, else BR_E_TOOBIG and nothing is sent).
 * MAAS skips a system_id it does not know without a word: the answer's
 * "added" / "removed" count the machines it matched, tagged before or not,
 * so a count below n says some machine is gone. */
int maas_tag_update(struct maas_client *client, const char *tag, int add, const char *const *system_ids,
		    size_t n, maas_done_fn done, void *ctx);
/* Every tag (a list of {"name", "comment", ...}). */
int maas_tags_list(struct maas_client *client, maas_done_fn done, void *ctx);
/* The machines carrying the tag (a list). */
int maas_tag_machines(struct maas_client *client, const char *tag, maas_done_fn done, void *ctx);

/* Events of every machine at DEBUG and above, newest first, at most limit,
 * newer than after_id (-1: the newest ones). Answer: {"events": [...]}. */
int maas_events_since(struct maas_client *client, int64_t after_id, int limit, maas_done_fn done, void *ctx);
/* The machine's ERROR events (for maas_events_failure). */
int maas_machine_errors(struct maas_client *client, const char *system_id, maas_done_fn done, void *ctx);

#endif
