/*
 * http_private — what the two halves of the event loop share: http.c
 * answers requests (libmicrohttpd callbacks, the request log, the timer
 * heap), http_loop.c owns listeners and runs the loop.
 */
#ifndef BRINGUP_SIM_HTTP_PRIVATE_H
#define BRINGUP_SIM_HTTP_PRIVATE_H

#include <sys/types.h>

#include <microhttpd.h>

#include "http.h"

#define LOOP_EVENTS_MAX 256
#define LOG_BUF_SIZE (1u << 20)
#define LOG_FLUSH_MS 100
#define LOG_BODY_MAX (64u * 1024) /* request bodies logged whole up to this */
#define SWEEP_MS 1000
#define LISTEN_BACKLOG 1024
#define IDLE_TIMEOUT_S 120
#define CONN_POOL_BYTES (8u * 1024) /* request line, headers, response header */
#define SYNTH_BLOCK 65536
#define NEVER INT64_MAX

struct listener {
	struct sim_loop *loop;
	struct MHD_Daemon *daemon; /* NULL: a port that never answers */
	int fd;
	const char *name;
	char addr[32];
	sim_handler_fn handler;
	void *ctx;
	int inflight;
	int again; /* MHD has ready work left over: run it next turn */
};

enum req_state { REQ_NEW, REQ_RECEIVING, REQ_WAITING, REQ_DONE };

struct req {
	struct listener *l;
	struct MHD_Connection *conn;
	char *uri;
	char *method;
	char *if_match;
	struct br_buf body;
	int64_t start_ms;   /* monotonic */
	int64_t start_wall; /* epoch ms, for the log; durations there are monotonic */
	int64_t due_ms;
	int inflight;
	int logged;
	int too_big;
	enum req_state state;
	struct sim_response resp;
};

struct sim_loop {
	struct sim_loop_config cfg;
	int epfd;
	struct listener **ls;
	size_t nl;
	struct req **heap; /* min-heap on due_ms */
	size_t nheap, capheap;
	int log_fd;	      /* requests.log, O_APPEND; -1: no log */
	struct br_buf logbuf; /* whole lines not yet written */
	int log_dirty;
	int64_t last_flush;
	int stopping;
	int started;
	pid_t *children; /* serving processes forked by sim_loop_start */
	size_t nchildren;
};

void *sim_http_on_uri(void *cls, const char *uri, struct MHD_Connection *conn);
void sim_http_on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
			   enum MHD_RequestTerminationCode toe);
enum MHD_Result sim_http_on_access(void *cls, struct MHD_Connection *conn, const char *url,
				   const char *method, const char *version, const char *upload,
				   size_t *upload_size, void **con_cls);
void sim_http_on_mhd_log(void *cls, const char *fmt, va_list ap);
void sim_http_log_flush(struct sim_loop *loop);
struct req *sim_http_heap_pop(struct sim_loop *loop);

#endif
