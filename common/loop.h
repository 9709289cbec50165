/*
 * loop — the one event loop of a bringup process: fd watches (epoll),
 * timers and child processes with pipes, no threads. The HTTP core
 * (common/http.h) puts its sockets and its timer on it; the Redfish and
 * MAAS clients and the ipmitool runner run on that; the validators' SSH
 * runner adds its libssh2 sockets with br_loop_fd_add. One process can so
 * read BMCs, talk to MAAS and run commands at once.
 *
 * A turn: run the prepare hooks (work that must be started before waiting:
 * the HTTP core dispatches its queues there), wait in epoll_wait until an
 * fd is ready or the nearest timer is due, call the ready fds' callbacks,
 * then the due timers'. br_loop_run returns when nothing keeps the loop
 * alive: no hold (br_loop_hold), no pending timer that is not weak, no
 * child process, or when br_loop_stop was called.
 *
 * Ownership: struct br_loop is opaque (br_loop_new / br_loop_free). A
 * struct br_loop_timer is the caller's, embedded where it is needed; it
 * must be stopped before its memory goes. A struct br_loop_fd is the
 * loop's, freed by br_loop_fd_del (the fd itself stays the caller's).
 * Callbacks may add and remove any watch, timer or process, themselves
 * included.
 */
#ifndef BRINGUP_LOOP_H
#define BRINGUP_LOOP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common.h"

#define BR_LOOP_EVENTS_MAX 256	 /* fd events taken per epoll_wait */
#define BR_LOOP_WAIT_MAX_MS 1000 /* longest sleep with nothing due */

struct br_loop;

int br_loop_new(struct br_loop **ret_loop, struct br_err *err);
/* Frees the loop; watches still registered are freed too, timers are left
 * alone (they are the caller's), children still running are killed and
 * reaped without their callbacks. Accepts NULL. */
void br_loop_free(struct br_loop *loop);

/* Run turns until nothing keeps the loop alive or br_loop_stop. 0, or the
 * error given to br_loop_stop, or one of the loop's own (epoll failed). */
int br_loop_run(struct br_loop *loop, struct br_err *err);
/* As br_loop_run, but also return (0) as soon as finished(ctx) is nonzero,
 * asked before every turn: how a client's synchronous call runs a loop it
 * shares with others until its own work is done, leaving theirs pending
 * for the next run. Not from inside the loop's own callbacks (BR_E_STATE). */
int br_loop_run_until(struct br_loop *loop, int (*finished)(void *ctx), void *ctx, struct br_err *err);
/* Make br_loop_run return after this turn; err (may be NULL) is what it
 * returns. Only the first stop with an error is kept. */
void br_loop_stop(struct br_loop *loop, const struct br_err *err);
/* Keep the loop running while some work is outstanding that no timer,
 * watch or child represents (a BMC between two steps, say). */
void br_loop_hold(struct br_loop *loop);
void br_loop_unhold(struct br_loop *loop);
/* The next wait does not sleep (a prepare hook or callback made work that
 * must be started first). */
void br_loop_wake(struct br_loop *loop);

/* ---- prepare hooks ------------------------------------------------------ */

/* fn(ctx) runs at the start of every turn, in the order added. */
int br_loop_prepare_add(struct br_loop *loop, void (*fn)(void *ctx), void *ctx);
void br_loop_prepare_del(struct br_loop *loop, void (*fn)(void *ctx), void *ctx);

/* ---- the process's keepalive ------------------------------------------------
 * fn(ctx) runs every interval_ms while any loop of the process that set it
 * runs (a wait is cut short to call it): what a stage renews its leases
 * by (inventory.h). A process forked since does not call it: its parent's
 * ctx is not its own; it sets its own. fn NULL: none. */
void br_loop_keepalive_set(void (*fn)(void *ctx), void *ctx, int64_t interval_ms);
/* Call it now if it is due (a wait outside any loop). */
void br_loop_keepalive_due(void);

/* ---- fd watches ----------------------------------------------------------- */

enum { BR_LOOP_IN = 1u, BR_LOOP_OUT = 2u, BR_LOOP_ERR = 4u };

struct br_loop_fd;
/* events is what happened: BR_LOOP_IN/OUT/ERR (ERR also on hang-up). */
typedef void (*br_loop_fd_fn)(struct br_loop_fd *watch, int fd, unsigned events, void *ctx);

/* Watch fd for events (BR_LOOP_IN|BR_LOOP_OUT, or 0 to keep it registered
 * but quiet). Watches do not keep the loop alive by themselves. NULL with
 * err when epoll refuses the fd. */
struct br_loop_fd *br_loop_fd_add(struct br_loop *loop, int fd, unsigned events, br_loop_fd_fn fn, void *ctx,
				  struct br_err *err);
int br_loop_fd_set(struct br_loop_fd *watch, unsigned events);
/* Stop watching and free the watch (safe from inside its own callback, and
 * after the fd was closed). Accepts NULL. */
void br_loop_fd_del(struct br_loop_fd *watch);

/* ---- timers -------------------------------------------------------------- */

struct br_loop_timer {
	int64_t due_ms; /* br_now_ms() clock */
	size_t slot;	/* index in the heap + 1; 0: not pending */
	uint64_t seq;	/* FIFO among timers due at the same time */
	int weak;	/* does not keep the loop alive */
	void (*fn)(struct br_loop_timer *timer, void *ctx);
	void *ctx;
};

void br_loop_timer_init(struct br_loop_timer *t, void (*fn)(struct br_loop_timer *timer, void *ctx),
			void *ctx);
/* (Re)arm t to fire once, delay_ms from now (negative: as soon as may be). */
void br_loop_timer_start(struct br_loop *loop, struct br_loop_timer *t, int64_t delay_ms);
/* Arm t for an absolute br_now_ms() time. */
void br_loop_timer_start_at(struct br_loop *loop, struct br_loop_timer *t, int64_t due_ms);
void br_loop_timer_stop(struct br_loop *loop, struct br_loop_timer *t);
static inline int br_loop_timer_pending(const struct br_loop_timer *t)
{
	return t->slot != 0;
}

/* ---- child processes ------------------------------------------------------ */

struct br_loop_proc_spec {
	const char *path; /* executable, run as is (no $PATH search) */
	char *const *argv;
	char *const *envp;  /* NULL: this process's environment */
	size_t out_max;	    /* stdout kept; past it the child is killed, truncated set */
	size_t err_max;	    /* stderr kept; the rest is read and dropped */
	int64_t timeout_ms; /* SIGKILL after this; 0: no limit */
	/* Given on stdin, then end of file (NULL: /dev/null): a secret a
	 * program must not see in its argv. At most BR_LOOP_STDIN_MAX bytes,
	 * written whole to the pipe before the call returns. */
	const char *in;
	size_t in_len;
};
/* What a pipe takes at once without a reader (PIPE_BUF, POSIX's least). */
#define BR_LOOP_STDIN_MAX 4096

struct br_loop_proc_result {
	pid_t pid;
	int status;			/* as waitpid() gives it */
	int timed_out;			/* killed at timeout_ms */
	int truncated;			/* killed for stdout past out_max */
	const struct br_buf *out, *err; /* borrowed for the callback */
};

typedef void (*br_loop_proc_fn)(const struct br_loop_proc_result *res, void *ctx);

/* Start a child with stdin from /dev/null (or spec->in) and its stdout and stderr read
 * by the loop; fn runs once it has exited and both pipes are drained.
 * 0, or an error (pipe, spawn) with err filled and fn never called. */
int br_loop_spawn(struct br_loop *loop, const struct br_loop_proc_spec *spec, br_loop_proc_fn fn, void *ctx,
		  struct br_err *err);

/* ---- termination signals (signals.c) -------------------------------------- */

/* Catch SIGTERM and SIGINT from now on, so a stage can wind down (log out of
 * its BMCs) before it exits: the handler only records the first signal and
 * writes a byte to a self-pipe whose read end (br_signal_fd) a loop watches;
 * the pipe is never drained, so every loop of the process sees it. Called
 * again in a forked child, it makes the child a pipe of its own. 0 or err. */
int br_signals_catch(struct br_err *err);
/* The signal caught (SIGTERM or SIGINT), 0 if none or not catching. */
int br_signal_caught(void);
/* The self-pipe's read end, or -1 before br_signals_catch. */
int br_signal_fd(void);
/* "SIGTERM", "SIGINT". */
/* For a watch on br_signal_fd(): nonzero when this process caught a signal;
 * otherwise drains the pipe (a byte written before a fork is the parent's). */
int br_signal_pending(int fd);
const char *br_signal_name(int signo);

#endif
