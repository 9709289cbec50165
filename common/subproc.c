/* Fork, exec, wait (subproc.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "subproc.h"

int br_spawn_wait(const char *path, char *const args[], const struct br_spawn_opts *opts, struct br_err *err)
{
	int status;
	pid_t pid;

	pid = fork();
	if (pid == 0) {
		if (opts->stdout_to_stderr && dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
			_exit(127);
		execv(path, args);
		/* the child's only way to tell: its parent sees exit 127 */
		fprintf(stderr, "%s: cannot run %s: %s\n", opts->who, path, strerror(errno));
		_exit(127);
	}
	if (pid < 0)
		return br_errf(err, BR_E_IO, "cannot run %s: fork: %s", path, strerror(errno));
	if (opts->started)
		opts->started(pid, opts->ctx);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			int saved = errno;

			if (opts->started)
				opts->started(0, opts->ctx);
			return br_errf(err, BR_E_IO, "waiting for %s: %s", path, strerror(saved));
		}
	if (opts->started)
		opts->started(0, opts->ctx);
	return br_spawn_status(status);
}

int br_spawn_status(int status)
{
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

pid_t br_spawn_start(const char *path, char *const args[], const struct br_spawn_opts *opts, int keep_fd,
		     struct br_err *err)
{
	pid_t pid = fork();

	if (pid == 0) {
		if (opts->stdout_to_stderr && dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
			_exit(127);
		if (keep_fd >= 0 && fcntl(keep_fd, F_SETFD, 0) < 0)
			_exit(127);
		execv(path, args);
		fprintf(stderr, "%s: cannot run %s: %s\n", opts->who, path, strerror(errno));
		_exit(127);
	}
	if (pid < 0) {
		br_errf(err, BR_E_IO, "cannot run %s: fork: %s", path, strerror(errno));
		return -1;
	}
	if (opts->started)
		opts->started(pid, opts->ctx);
	return pid;
}

int br_spawn_read(const char *path, char *const args[], size_t max, struct br_buf *out, struct br_err *err)
{
	int fds[2], status, rc = 0;
	char chunk[4096];
	ssize_t got;
	pid_t pid;

	if (pipe(fds))
		return br_errf(err, BR_E_IO, "cannot run %s: pipe: %s", path, strerror(errno));
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		close(fds[0]);
		if (dup2(fds[1], STDOUT_FILENO) < 0)
			_exit(127);
		close(fds[1]);
		execv(path, args);
		fprintf(stderr, "cannot run %s: %s\n", path, strerror(errno));
		_exit(127);
	}
	close(fds[1]);
	if (pid < 0) {
		close(fds[0]);
		return br_errf(err, BR_E_IO, "cannot run %s: fork: %s", path, strerror(errno));
	}
	br_buf_init(out, max);
	while ((got = read(fds[0], chunk, sizeof(chunk))) != 0) {
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			rc = br_errf(err, BR_E_IO, "reading from %s: %s", path, strerror(errno));
			break;
		}
		if (!rc && br_buf_add(out, chunk, (size_t)got))
			rc = br_errf(err, BR_E_TOOBIG, "%s printed more than %zu bytes", path, max);
	}
	close(fds[0]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return rc ? rc : br_errf(err, BR_E_IO, "waiting for %s: %s", path, strerror(errno));
	return rc ? rc : br_spawn_status(status);
}
