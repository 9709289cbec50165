/* Fork, exec, wait (subproc.h). */
#include <errno.h>
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
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
