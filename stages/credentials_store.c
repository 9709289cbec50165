/*
 * The exec: store of `bringup credentials rotate` (credentials.h): a site's
 * helper program keeps the new passwords (in its vault, its agent's
 * rendered files, ...). It is run with a verb and the host name in argv,
 * never a secret: `PROGRAM store HOST` gets the password on standard input
 * (one line) and, once it is kept, prints the reference every stage reads
 * it back through (env:VAR or file:PATH, one line); `PROGRAM lookup HOST`
 * prints the reference of the password it keeps for HOST, or nothing.
 */
#define _GNU_SOURCE /* explicit_bzero */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "credentials.h"

#define HELPER_OUT_MAX 4096 /* what a helper may print: one reference */

/* Write all of data to fd, through interruptions; 0 or -1 (errno). */
static int write_all(int fd, const char *data, size_t len)
{
	while (len) {
		ssize_t w = write(fd, data, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		data += w;
		len -= (size_t)w;
	}
	return 0;
}

/* Run PROGRAM VERB HOST, secret (NULL: nothing) and a newline on its
 * stdin, its stdout into out; its stderr is this process's. 0 when it
 * exited 0, else an error naming the helper. */
static int helper_run(const char *program, const char *verb, const char *host, const char *secret,
		      struct br_buf *out, struct br_err *err)
{
	int in[2], res[2], status, rc = 0, unread = 0;
	pid_t pid;
	char chunk[512];
	/* copied before the fork: the child only execs */
	char *prog = br_xstrdup(program), *verb_arg = br_xstrdup(verb), *host_arg = br_xstrdup(host);
	char *const args[] = { prog, verb_arg, host_arg, NULL };

	if (pipe2(in, O_CLOEXEC)) {
		in[0] = in[1] = res[0] = res[1] = -1;
		rc = br_errf(err, BR_E_IO, "store helper %s: pipe: %s", program, strerror(errno));
	} else if (pipe2(res, O_CLOEXEC)) {
		res[0] = res[1] = -1;
		rc = br_errf(err, BR_E_IO, "store helper %s: pipe: %s", program, strerror(errno));
	}
	fflush(NULL);
	pid = rc ? -1 : fork();
	if (pid < 0) {
		free(prog);
		free(verb_arg);
		free(host_arg);
		if (!rc)
			rc = br_errf(err, BR_E_IO, "store helper %s: fork: %s", program, strerror(errno));
		for (int i = 0; i < 2; i++) {
			if (in[i] >= 0)
				close(in[i]);
			if (res[i] >= 0)
				close(res[i]);
		}
		return rc;
	}
	if (!pid) {
		if (dup2(in[0], 0) < 0 || dup2(res[1], 1) < 0)
			_exit(127);
		execv(program, args);
		fprintf(stderr, "credentials: cannot run store helper %s: %s\n", program, strerror(errno));
		_exit(127);
	}
	free(prog);
	free(verb_arg);
	free(host_arg);
	close(in[0]);
	close(res[1]);
	/* the secret is a line of at most STG_PASSWORD_LENGTH_MAX bytes: a
	 * pipe holds it whole, whatever the helper reads first */
	{
		struct sigaction ign = { .sa_handler = SIG_IGN }, old;

		sigaction(SIGPIPE, &ign, &old);
		if (secret && (write_all(in[1], secret, strlen(secret)) || write_all(in[1], "\n", 1)))
			unread = errno;
		close(in[1]);
		sigaction(SIGPIPE, &old, NULL);
	}
	for (;;) {
		ssize_t n = read(res[0], chunk, sizeof(chunk));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (out->len + (size_t)n > HELPER_OUT_MAX) {
			if (!rc)
				rc = br_errf(err, BR_E_TOOBIG,
					     "store helper %s %s %s: printed more than %d bytes", program,
					     verb, host, HELPER_OUT_MAX);
			continue;
		}
		br_buf_add(out, chunk, (size_t)n);
	}
	close(res[0]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return br_errf(err, BR_E_IO, "store helper %s: wait: %s", program, strerror(errno));
	/* A helper that failed before it read the password (it exits, the
	 * write finds the pipe closed) is reported by its exit, which says
	 * more than the broken pipe, whichever of the two came first. */
	if (!rc && (!WIFEXITED(status) || WEXITSTATUS(status)))
		rc = br_errf(err, BR_E_IO, "store helper %s %s %s: %s %d", program, verb, host,
			     WIFEXITED(status) ? "exit" : "signal",
			     WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
	else if (!rc && unread)
		rc = br_errf(err, BR_E_IO, "store helper %s %s %s: did not read the password: %s", program,
			     verb, host, strerror(unread));
	return rc;
}

/* The one reference a helper printed, or NULL when it printed nothing. */
static int helper_ref(const char *program, const char *verb, const char *host, struct br_buf *out,
		      char **ret_ref, struct br_err *err)
{
	char *text;
	size_t len;

	br_buf_str(out); /* terminated */
	text = out->data;
	len = text ? strlen(text) : 0;

	while (len && (text[len - 1] == '\n' || text[len - 1] == '\r'))
		text[--len] = '\0';
	*ret_ref = NULL;
	if (!len)
		return 0;
	if (strchr(text, '\n') || !br_secret_ref_valid(text))
		return br_errf(
		    err, BR_E_PROTO,
		    "store helper %s %s %s: printed no reference (want one line, env:VAR or file:PATH)",
		    program, verb, host);
	*ret_ref = br_xstrdup(text);
	return 0;
}

int stg_store_exec_lookup(const char *program, const char *host, char **ret_ref, struct br_err *err)
{
	struct br_buf out;
	int rc;

	br_buf_init(&out, HELPER_OUT_MAX);
	rc = helper_run(program, "lookup", host, NULL, &out, err);
	if (!rc)
		rc = helper_ref(program, "lookup", host, &out, ret_ref, err);
	br_buf_release(&out);
	return rc;
}

int stg_store_exec_put(const char *program, const char *host, const char *secret, char **ret_ref,
		       struct br_err *err)
{
	struct br_buf out;
	char *ref = NULL, *back = NULL;
	int rc;

	*ret_ref = NULL;
	br_buf_init(&out, HELPER_OUT_MAX);
	rc = helper_run(program, "store", host, secret, &out, err);
	if (!rc)
		rc = helper_ref(program, "store", host, &out, &ref, err);
	br_buf_release(&out);
	if (!rc && !ref)
		rc =
		    br_errf(err, BR_E_PROTO, "store helper %s store %s: printed no reference", program, host);
	/* the BMC gets the password only once it reads back as it was given */
	if (!rc && br_secret_resolve(ref, &back, err))
		rc = br_err_prefix(err, "store helper %s store %s: its reference %s", program, host, ref);
	else if (!rc && strcmp(back, secret))
		rc = br_errf(err, BR_E_PROTO,
			     "store helper %s store %s: its reference %s does not give the password back",
			     program, host, ref);
	br_secret_free(back);
	if (rc) {
		free(ref);
		return rc;
	}
	*ret_ref = ref;
	return 0;
}
