/*
 * http — one event loop serving every simulated listener (a BMC each, later
 * the MAAS emulator) through libmicrohttpd daemons in external-epoll mode.
 * No thread per connection: a delayed answer (--latency-ms, a flaky stall)
 * suspends the connection and a timer heap resumes it, so thousands of
 * requests overlap. Every answer is logged as one JSON line.
 *
 * Ownership: the loop owns its listeners; handler contexts and names are
 * borrowed and must outlive the loop. A handler owns nothing of the request
 * and hands the loop its response body (malloc'ed) through struct
 * sim_response.
 */
#ifndef BRINGUP_SIM_HTTP_H
#define BRINGUP_SIM_HTTP_H

#include <signal.h>

#include "common.h"

#define SIM_REQUEST_BODY_MAX (1024u * 1024) /* request bodies accepted; more gets 413 */
#define SIM_PROCS_MAX 64

struct sim_request {
	const char *method;
	const char *path; /* unescaped, no query */
	const char *uri;  /* as sent, with query */
	const char *body; /* NUL-terminated, "" when none */
	size_t body_len;
	int64_t start_ms;
	void *conn; /* opaque */
};

/* Request header or query argument; NULL when absent. */
const char *sim_request_header(const struct sim_request *req, const char *name);
const char *sim_request_query(const struct sim_request *req, const char *name);
/* Basic credentials; both caller-owned (free()), 0 or BR_E_NOTFOUND. */
int sim_request_basic_auth(const struct sim_request *req, char **ret_user, char **ret_password);

enum sim_action {
	SIM_ACT_RESPOND,
	SIM_ACT_CLOSE, /* drop the connection without an answer */
	SIM_ACT_HANG,  /* never answer */
};

struct sim_response {
	int status;
	char *body; /* malloc'ed, taken by the loop */
	size_t body_len;
	size_t synthetic_len;	  /* >0: stream a JSON body of this size instead */
#define SIM_BODY_ENDLESS SIZE_MAX /* synthetic_len: a chunked body that never ends */
	const char *content_type; /* default application/json */
	struct br_buf headers;	  /* "Name: value\n" lines */
	enum sim_action action;
	int64_t stall_ms; /* extra delay on top of the loop's latency */
	/* For the request log. */
	int depth;
	const char *auth;    /* "session", "basic", "none" */
	const char *session; /* "created", "deleted" or NULL */
	const char *note;    /* fault behaviour shown, or NULL */
	json_t *log_parts;   /* a multipart body's parts as the log shows them (taken), or NULL */
};

void sim_response_header(struct sim_response *resp, const char *name, const char *value);

typedef void (*sim_handler_fn)(void *ctx, const struct sim_request *req, struct sim_response *resp);

struct sim_loop_config {
	int latency_ms;
	const char *log_path;	 /* requests.log */
	const char *tls_key_pem; /* both set: serve HTTPS */
	const char *tls_cert_pem;
};

struct sim_loop;

int sim_loop_new(const struct sim_loop_config *cfg, struct sim_loop **ret_loop, struct br_err *err);
/* Listen on 127.0.0.1:port (0: any free port). handler NULL makes a port
 * that accepts connections into its backlog and never answers (a hung BMC).
 * name labels the log lines. *ret_port gets the real port. Connections
 * wait in the backlog until sim_loop_start. */
int sim_loop_listen(struct sim_loop *loop, const char *name, int port, sim_handler_fn handler, void *ctx,
		    int *ret_port, struct br_err *err);
/* Start serving every listener. procs > 1 first forks procs - 1 more
 * serving processes: listener i (in sim_loop_listen order) is served by
 * process i % procs alone, and the other processes close their copy of its
 * socket. *ret_proc is 0 in the calling process, else the child's number.
 * A child dies with SIGTERM when the calling process dies; sim_loop_free in
 * the calling process stops and reaps the children. Listen first, start
 * last: a listener added afterwards is never served. */
int sim_loop_start(struct sim_loop *loop, int procs, int *ret_proc, struct br_err *err);
/* Serve until SIGINT or SIGTERM. Blocks those signals for the loop's
 * lifetime; 0 on a clean stop. */
int sim_loop_run(struct sim_loop *loop, struct br_err *err);
void sim_loop_free(struct sim_loop *loop);

#endif
