/* Running a node tool (nvidia-smi, lldpctl, dmesg) without a shell, with a
 * time limit and a cap on what it prints. A hung nvidia-smi (it blocks on a
 * wedged GPU) must not hang the probe: it is killed at the deadline. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "probe_private.h"

#define VAL_CMD_STDERR_MAX 4096

extern char **environ;

static const char *const sbin_dirs[] = { "/usr/sbin", "/sbin", "/usr/local/sbin" };

static int spawn_tool(const char *const *argv, int out_fd, int err_fd, pid_t *ret_pid, struct br_err *err)
{
	posix_spawn_file_actions_t fa;
	int rc;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, out_fd, 1);
	posix_spawn_file_actions_adddup2(&fa, err_fd, 2);
	rc = posix_spawnp(ret_pid, argv[0], &fa, NULL, (char *const *)(uintptr_t)argv, environ);
	/* A command run over SSH may get a PATH without the sbin directories,
	 * where lldpctl lives: look there too before calling it missing. */
	for (size_t i = 0;
	     rc == ENOENT && !strchr(argv[0], '/') && i < sizeof(sbin_dirs) / sizeof(sbin_dirs[0]); i++) {
		char *path = br_xasprintf("%s/%s", sbin_dirs[i], argv[0]);

		rc = posix_spawn(ret_pid, path, &fa, NULL, (char *const *)(uintptr_t)argv, environ);
		free(path);
	}
	posix_spawn_file_actions_destroy(&fa);
	if (rc == ENOENT)
		return br_errf(err, BR_E_NOTFOUND, "%s: not installed (not found in PATH or sbin)", argv[0]);
	if (rc)
		return br_errf(err, BR_E_IO, "%s: cannot run: %s", argv[0], strerror(rc));
	return 0;
}

/* Read both pipes until EOF on stdout, the deadline or the cap. What the
 * tool says on stderr is kept (capped) for the error message. */
static int drain(int out_fd, int err_fd, const char *tool, int timeout_ms, struct br_buf *out,
		 struct br_buf *errout, struct br_err *err)
{
	int64_t deadline = br_now_ms() + timeout_ms;
	struct pollfd pfd[2] = { { out_fd, POLLIN, 0 }, { err_fd, POLLIN, 0 } };
	char chunk[16384];

	for (;;) {
		int64_t left = deadline - br_now_ms();
		int r;

		if (left <= 0)
			return br_errf(err, BR_E_TIMEOUT, "%s: no answer within %d ms; killed", tool,
				       timeout_ms);
		r = poll(pfd, pfd[1].fd >= 0 ? 2 : 1, (int)left);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return br_errf(err, BR_E_IO, "%s: poll: %s", tool, strerror(errno));
		if (pfd[1].fd >= 0 && pfd[1].revents) {
			ssize_t n = read(pfd[1].fd, chunk, sizeof(chunk));

			if (n <= 0)
				pfd[1].fd = -1;
			else
				br_buf_add(errout, chunk, (size_t)n); /* past its cap it is just cut */
		}
		if (pfd[0].revents) {
			ssize_t n = read(out_fd, chunk, sizeof(chunk));

			if (n < 0 && (errno == EINTR || errno == EAGAIN))
				continue;
			if (n < 0)
				return br_errf(err, BR_E_IO, "%s: read: %s", tool, strerror(errno));
			if (n == 0)
				return 0;
			if (br_buf_add(out, chunk, (size_t)n))
				return br_errf(err, BR_E_TOOBIG, "%s: printed more than %zu bytes; killed",
					       tool, out->max);
		}
	}
}

/* The first line of what the tool said on stderr, for the message. */
static const char *first_line(struct br_buf *b)
{
	char *nl;

	if (!b->data)
		return "";
	nl = strchr(b->data, '\n');
	if (nl)
		*nl = '\0';
	return b->data;
}

int val_exec(const char *const *argv, int timeout_ms, size_t max, char **ret_out, size_t *ret_len,
	     struct br_err *err)
{
	struct br_buf out, errout;
	int fds[2], efds[2], status = 0, rc;
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC))
		return br_errf(err, BR_E_IO, "%s: pipe: %s", argv[0], strerror(errno));
	if (pipe2(efds, O_CLOEXEC)) {
		close(fds[0]);
		close(fds[1]);
		return br_errf(err, BR_E_IO, "%s: pipe: %s", argv[0], strerror(errno));
	}
	rc = spawn_tool(argv, fds[1], efds[1], &pid, err);
	close(fds[1]);
	close(efds[1]);
	if (rc) {
		close(fds[0]);
		close(efds[0]);
		return rc;
	}
	br_buf_init(&out, max);
	br_buf_init(&errout, VAL_CMD_STDERR_MAX);
	rc = drain(fds[0], efds[0], argv[0], timeout_ms, &out, &errout, err);
	close(fds[0]);
	close(efds[0]);
	if (rc)
		kill(pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	/* nvidia-smi prints its failures ("couldn't communicate with the NVIDIA
	 * driver") on stdout, most tools on stderr: take whichever has words. */
	if (!rc && WIFEXITED(status) && WEXITSTATUS(status) != 0)
		rc = br_errf(err, BR_E_IO, "%s: exited with status %d: %s", argv[0], WEXITSTATUS(status),
			     errout.len ? first_line(&errout) : first_line(&out));
	else if (!rc && WIFSIGNALED(status))
		rc = br_errf(err, BR_E_IO, "%s: killed by signal %d", argv[0], WTERMSIG(status));
	br_buf_release(&errout);
	if (rc) {
		br_buf_release(&out);
		return rc;
	}
	if (ret_len)
		*ret_len = out.len;
	*ret_out = br_buf_detach(&out);
	if (!*ret_out)
		*ret_out = br_xstrdup("");
	return 0;
}
