/*
 * signals — SIGTERM and SIGINT caught for a wind-down on the event loop
 * (see loop.h): the handler does only what is async-signal-safe (record the
 * signal in a sig_atomic_t, write one byte to a non-blocking self-pipe);
 * the loop that watches the pipe does the work (logging out of BMCs).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "loop.h"

static volatile sig_atomic_t caught;
static int pipe_fds[2] = { -1, -1 };
static pid_t owner; /* the process that made the pipe: a forked child makes its own */

static void on_signal(int signo)
{
	int saved = errno;
	ssize_t w;

	if (!caught)
		caught = signo;
	w = write(pipe_fds[1], "", 1); /* full pipe: already readable, nothing lost */
	(void)w;
	errno = saved;
}

int br_signals_catch(struct br_err *err)
{
	struct sigaction sa;
	int fds[2];

	if (pipe_fds[0] >= 0 && owner == getpid())
		return 0;
	if (pipe2(fds, O_CLOEXEC | O_NONBLOCK))
		return br_errf(err, BR_E_IO, "signal pipe: %s", strerror(errno));
	if (pipe_fds[0] >= 0) { /* inherited over fork: the parent's, not ours */
		close(pipe_fds[0]);
		close(pipe_fds[1]);
	}
	pipe_fds[0] = fds[0];
	pipe_fds[1] = fds[1];
	owner = getpid();
	/* caught stays: a signal the parent (or this child, before now) got
	 * stands for the whole stage */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	if (sigaction(SIGTERM, &sa, NULL) || sigaction(SIGINT, &sa, NULL))
		return br_errf(err, BR_E_IO, "sigaction: %s", strerror(errno));
	return 0;
}

int br_signal_caught(void)
{
	return caught;
}

int br_signal_fd(void)
{
	return pipe_fds[0];
}

const char *br_signal_name(int signo)
{
	switch (signo) {
	case SIGTERM:
		return "SIGTERM";
	case SIGINT:
		return "SIGINT";
	default:
		return "a signal";
	}
}

int br_signal_pending(int fd)
{
	char junk[64];

	if (br_signal_caught())
		return 1;
	/* a byte meant for the process this one was forked from */
	while (read(fd, junk, sizeof(junk)) > 0)
		;
	return 0;
}
