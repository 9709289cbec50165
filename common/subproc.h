/*
 * subproc — run another executable and wait for it: fork, exec, wait, the
 * exit status as a shell reports it. For the driver running a stage
 * (`bringup discover`, `bringup help`) and `bringup run` running each.
 * Nothing is returned that the caller must free.
 */
#ifndef BRINGUP_SUBPROC_H
#define BRINGUP_SUBPROC_H

#include <sys/types.h>

#include "common.h"

struct br_spawn_opts {
	const char *who;      /* names this program in the child's "WHO: cannot run PATH: ..." */
	int stdout_to_stderr; /* the child writes its stdout to this process's stderr */
	/* In this process: the child's pid once it is forked, then 0 once it
	 * was waited for (NULL: none). A caller forwarding signals to the
	 * child keeps the pid here. */
	void (*started)(pid_t pid, void *ctx);
	void *ctx;
};

/* Run path with args (args[0] the program's name, NULL-terminated) and
 * wait for it, through an interrupted wait. Returns its exit status, or
 * 128 + the signal that ended it (a child that cannot exec says why on
 * stderr and exits 127); BR_E_IO with err when it could not be forked or
 * waited for. Flush stdio first. */
int br_spawn_wait(const char *path, char *const args[], const struct br_spawn_opts *opts, struct br_err *err);

/* Start path with args and return at once: its pid, or -1 with err (BR_E_IO).
 * keep_fd, when not -1, is left open in the child (a descriptor made
 * close-on-exec here); every other descriptor is as the caller made it. */
pid_t br_spawn_start(const char *path, char *const args[], const struct br_spawn_opts *opts, int keep_fd,
		     struct br_err *err);
/* A waitpid status as a shell reports it: the exit code, or 128 + the signal. */
int br_spawn_status(int status);
/* Run path with args, its stdout read into out (at most max bytes; more is
 * BR_E_TOOBIG), stderr as this process's; returns its exit status as
 * br_spawn_wait does, or a negative code with err. */
int br_spawn_read(const char *path, char *const args[], size_t max, struct br_buf *out, struct br_err *err);

#endif
