/*
 * http — the one HTTP core: libcurl multi driven by curl_multi_socket_action
 * on the event loop (common/loop.h). The Redfish client (one host per BMC)
 * and the MAAS client (one host) are built on it.
 *
 * curl would queue requests itself, but then a request's timeout would also
 * count the time it waited for a connection, and one host's backlog would
 * take connections from the others. So the caps are the core's: each host
 * has a priority queue (FIFO among equals), and requests start round-robin
 * across hosts while the host has fewer than its cap in flight and the core
 * fewer than total_inflight. The core owns the mechanics every client
 * shares: easy-handle reuse, timeouts, TLS options, the body cap, Retry-After
 * (br_http_retry_after_ms), retries with backoff and jitter
 * (br_http_backoff_ms). What an answer means (retry or not, the error's
 * words) stays with the client, through the host's ops.
 *
 * Ownership: struct br_http and struct br_http_host are the caller's
 * (br_http_init / br_http_release, br_http_host_init); a request is a
 * struct br_http_req embedded in the client's own request struct: the core
 * borrows it from br_http_submit until it hands it back through ops->done
 * or ops->drop, after which the client frees it. Strings set on a request
 * (url, send_body) are the client's and must live as long as it.
 */
#ifndef BRINGUP_HTTP_H
#define BRINGUP_HTTP_H

#include <stdint.h>
#include <time.h>

#include <curl/curl.h>

#include "common.h"
#include "loop.h"

#define BR_HTTP_EASY_POOL_MAX 256		   /* idle easy handles kept for reuse */
#define BR_HTTP_RETRY_AFTER_MAX_S 86400L	   /* a longer Retry-After is not believed */
#define BR_HTTP_HEADER_MAX 8192			   /* one header value we keep */
#define BR_HTTP_BODY_PRESIZE_MAX (4 * 1024 * 1024) /* a Content-Length believed before the body comes */
/* Hosts per curl multi handle. libcurl 7.88's curl_multi_remove_handle walks
 * every connection cached in its multi, after every transfer, and so does
 * closing the oldest idle one when the cache is full: with one multi for a
 * rack, a request cost grew with the rack. A multi per this many hosts
 * (each with its own connection cache) keeps that walk bounded. */
#define BR_HTTP_SHARD_HOSTS 64

struct br_http_options {
	long timeout_ms; /* one attempt */
	long connect_timeout_ms;
	int retries;		   /* attempts after the first, when the client's judge asks */
	long backoff_ms;	   /* first retry delay, doubled each time, jittered */
	long backoff_max_ms;	   /* no delay is longer, Retry-After included */
	const char *ca_file;	   /* NULL: system store; copied */
	int insecure;		   /* skip TLS verification, only when asked */
	int total_inflight;	   /* requests in flight over all hosts */
	long max_host_connections; /* CURLMOPT_MAX_HOST_CONNECTIONS; 0: no cap */
	long max_connections;	   /* CURLMOPT_MAX_TOTAL_CONNECTIONS and MAXCONNECTS; 0: curl's */
	long recv_buffer;	   /* CURLOPT_BUFFERSIZE; 0: curl's */
	int dns_cache_forever;	   /* a run is short; addresses do not move during one */
	size_t body_max;	   /* one response body; 0: no cap */
};

struct br_http_req;

/* What a client decides; the same for every request of a host. */
struct br_http_ops {
	/* Before each attempt: add the client's headers and options (auth, a
	 * fresh nonce). Nonzero fails the request (start_failed). May be NULL. */
	int (*start)(struct br_http_req *req, CURL *easy, struct curl_slist **headers);
	/* A response header other than the status line and Retry-After (the
	 * raw line, CRLF included). May be NULL. */
	void (*header)(struct br_http_req *req, const char *line, size_t len);
	/* An attempt ended (result, status, body set; never called for a body
	 * past the cap): 1 to try again after *delay_ms, which comes in as the
	 * backoff for this attempt; the core caps it at backoff_max_ms. */
	int (*judge)(struct br_http_req *req, long *delay_ms);
	/* The request is over (no retry, or none left): the client takes it
	 * back. Called from inside the loop. */
	void (*done)(struct br_http_req *req);
	/* Taken back unfinished by br_http_host_cancel. */
	void (*drop)(struct br_http_req *req);
};

struct br_http;
struct br_http_shard; /* one curl multi handle and its timer (http.c) */

struct br_http_host {
	struct br_http *http;
	struct br_http_shard *shard; /* the multi its transfers run on */
	const struct br_http_ops *ops;
	int cap; /* in flight at once on this host */
	int inflight;
	int pending;				/* queued + delayed + in flight */
	struct br_http_req *queue, *queue_tail; /* by priority, FIFO among equals */
	struct br_http_req *running, *delayed;
	struct br_http_host *ring_next, *ring_prev; /* while it could start one */
	void *ctx;				    /* the client's */
	int activated, released;		    /* br_http_host_release */
};

enum br_http_state { BR_HTTP_IDLE, BR_HTTP_QUEUED, BR_HTTP_DELAYED, BR_HTTP_RUNNING };

struct br_http_req {
	struct br_http_host *host;
	struct br_http_req *next, *prev; /* in the host's queue, delayed or running list */
	enum br_http_state state;
	/* set by the client before br_http_submit */
	const char *method;    /* "GET", "POST", "PATCH", "PUT", "DELETE" */
	const char *url;       /* absolute */
	const char *send_body; /* NULL: none sent */
	int priority;	       /* higher first */
	/* filled by the core, per attempt */
	int attempt;		    /* 0 for the first try */
	struct br_loop_timer delay; /* a retry's backoff, or a submit_at */
	CURL *easy;
	struct curl_slist *headers;
	CURLcode result;
	long status;
	char *status_text;   /* reason phrase, when the server sent one */
	struct br_buf body;  /* capped at body_max */
	long retry_after_ms; /* -1: none */
	int body_too_big;    /* the transfer was cut at body_max */
	int start_failed;    /* curl refused the transfer */
	char curl_err[CURL_ERROR_SIZE];
};

struct br_http {
	struct br_loop *loop;
	CURLM *multi; /* the first shard's: non-NULL once initialised */
	struct br_http_shard **shards, *touched;
	size_t n_shards, n_hosts;
	struct br_http_options opts;
	char *ca_file;
	int inflight;
	size_t pending;		   /* requests held, all hosts */
	struct br_http_host *ring; /* hosts that could start a request now */
	CURL **pool;
	size_t n_pool;
	uint64_t rng;
	size_t n_live_shards; /* shards with a host at work: the idle connections are theirs */
	long connects;	      /* connections opened so far (curl's CURLINFO_NUM_CONNECTS) */
};

void br_http_options_init(struct br_http_options *opts);
/* Set up h on loop (borrowed; must outlive h). */
int br_http_init(struct br_http *h, struct br_loop *loop, const struct br_http_options *opts,
		 struct br_err *err);
/* Requests still held must have been cancelled (br_http_host_cancel). */
void br_http_release(struct br_http *h);

void br_http_host_init(struct br_http_host *host, struct br_http *h, const struct br_http_ops *ops, int cap,
		       void *ctx);
/* Hand back every request of host, queued, delayed or in flight, through
 * ops->drop; no done callback runs. */
void br_http_host_cancel(struct br_http_host *host);
/* host's work is over for good (it holds no request and will submit none):
 * its multi's idle connections go to the hosts still at work, and once
 * every host of that multi is released its connections are closed. A
 * client that never calls it keeps today's sharing among all multis. */
void br_http_host_release(struct br_http_host *host);

/* Prepare req (embedded in the client's request) for host. */
void br_http_req_init(struct br_http_req *req, struct br_http_host *host, const char *method, const char *url,
		      int priority);
/* Queue req; it starts when the caps allow. */
void br_http_submit(struct br_http_req *req);
/* Queue req no earlier than due_ms (br_now_ms() clock). */
void br_http_submit_at(struct br_http_req *req, int64_t due_ms);
/* Take a queued (not yet started) request back without callbacks. 0, or
 * BR_E_STATE when it is not queued. */
int br_http_unqueue(struct br_http_req *req);
/* Free what the last attempt left on req (headers, body, easy handle). The
 * core calls it between attempts; clients call it before freeing req. */
void br_http_req_release(struct br_http_req *req);

/* A header's value: blanks and CRLF trimmed, a copy the caller frees, or
 * NULL when line is not header name. */
char *br_http_header_value(const char *line, size_t len, const char *name);
/* Retry-After (RFC 9110 10.2.3) as milliseconds from now: delta-seconds or
 * an HTTP-date (a past date is 0); -1 when it is neither. now is the wall
 * clock the date is measured from. */
long br_http_retry_after_ms(const char *value, time_t now);
/* Backoff before retry number attempt+1: base * 2^attempt, capped at max,
 * then jittered into [delay/2, delay] so a rack of retries does not come
 * back at once. */
long br_http_backoff_ms(long base_ms, long max_ms, int attempt, uint64_t *rng);
/* The core's random numbers (splitmix64): jitter, and nonces for clients. */
uint64_t br_http_random(struct br_http *h);
/* curl errors worth another attempt: the connection or the transfer broke. */
int br_http_transient(CURLcode c);

/* ---- URLs that carry credentials ------------------------------------------- */

/* url as it may be shown: the user and password of its userinfo and the
 * value of each query parameter replaced by BR_REDACTED, the rest kept
 * (parsed by libcurl's URL API). A URL libcurl cannot parse is shown as
 * "(a URL that cannot be parsed)". Caller frees. */
char *br_url_masked(const char *url);
/* Whether url carries a password or user in its userinfo, or a query. */
int br_url_has_credentials(const char *url);
/* Register url's userinfo parts and query values (each of BR_REDACT_MIN
 * bytes or more) with the log's redaction (br_redact_add), so that no line
 * quoting them (a server's error, curl's) shows them. */
void br_url_redact(const char *url);
/* Undo br_url_redact(url). */
void br_url_unredact(const char *url);

/* The standard reason phrase of an HTTP status a BMC or MAAS answers with, or
 * NULL for one without a phrase here (the server's own, when it sent one,
 * is in br_http_req.status_text). */
const char *br_http_status_phrase(long status);

#endif
