/* ssh_config(5) the way OpenSSH itself reads it: each node's effective
 * settings come from `ssh -G -F FILE HOST`, so Include, Match, Host
 * patterns, canonicalisation and %-tokens mean what they mean to ssh, and
 * operators can use the file they already keep. What the runner cannot
 * honour (a proxy command) stops the stage naming the keyword; it is never
 * dropped, which would send the connection around the bastion. A jump host
 * (ProxyJump) is taken: the runner goes through it with `ssh -W` (ssh.c). */
#define _GNU_SOURCE /* pipe2 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ssh.h"

extern char **environ;

#define SSH_G_OUTPUT_MAX (256u * 1024) /* ssh -G prints some 3 KiB */
#define SSH_G_TIMEOUT_MS 10000	       /* a Match exec that hangs */
#define SSH_G_PARALLEL 32	       /* ssh -G at once */
/* A name no site uses, to read what ssh gives a host no entry names. */
#define DEFAULTS_HOST "bringup-defaults.invalid"

struct val_ssh_config {
	char *path;
	struct val_ssh_host defaults; /* what `-F /dev/null` gives: nothing set */
};

void val_ssh_host_release(struct val_ssh_host *h)
{
	free(h->hostname);
	free(h->user);
	free(h->identity_file);
	free(h->known_hosts);
	free(h->proxy_jump);
	free(h->proxy_command);
	memset(h, 0, sizeof(*h));
}

void val_ssh_config_free(struct val_ssh_config *cfg)
{
	if (!cfg)
		return;
	free(cfg->path);
	val_ssh_host_release(&cfg->defaults);
	free(cfg);
}

static void set_once(char **slot, const char *value)
{
	if (!*slot) /* the first IdentityFile is the one ssh tries first */
		*slot = br_xstrdup(value);
}

int val_ssh_g_parse(const char *text, size_t len, struct val_ssh_host *ret, struct br_err *err)
{
	char *copy = br_xstrndup(text, len), *line, *next;
	unsigned lineno = 1;
	int rc = 0;

	memset(ret, 0, sizeof(*ret));
	for (line = copy; line && *line && !rc; line = next, lineno++) {
		char *value;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		value = strchr(line, ' ');
		if (!value)
			continue; /* a keyword without a value: nothing we read */
		*value++ = '\0';
		if (!strcmp(line, "hostname")) {
			set_once(&ret->hostname, value);
		} else if (!strcmp(line, "port")) {
			long port;

			if (br_parse_long(value, 1, 65535, &port))
				rc = br_errf(err, BR_E_PROTO,
					     "ssh -G line %u: port '%s' is not a port number", lineno, value);
			else
				ret->port = (int)port;
		} else if (!strcmp(line, "user")) {
			set_once(&ret->user, value);
		} else if (!strcmp(line, "identityfile")) {
			set_once(&ret->identity_file, value);
		} else if (!strcmp(line, "userknownhostsfile")) {
			char *sp = strchr(value, ' ');

			if (sp)
				*sp = '\0'; /* the first file is the one ssh writes to */
			set_once(&ret->known_hosts, value);
		} else if (!strcmp(line, "proxyjump") && strcasecmp(value, "none")) {
			set_once(&ret->proxy_jump, value);
		} else if (!strcmp(line, "proxycommand") && strcasecmp(value, "none")) {
			set_once(&ret->proxy_command, value);
		}
	}
	free(copy);
	if (!rc && !ret->hostname)
		rc = br_errf(err, BR_E_PROTO, "ssh -G printed no hostname");
	if (rc)
		val_ssh_host_release(ret);
	return rc;
}

/* One `ssh -G -F file -- host` in flight: its pid, the read end of its
 * stdout and stderr, what it printed so far. */
struct ssh_g_job {
	pid_t pid;
	int fd;
	int64_t deadline;
	struct br_buf text;
	int rc; /* an error met while reading (with err) */
	struct br_err err;
};

static int ssh_g_start(struct ssh_g_job *j, const char *file, const char *host)
{
	char *file_arg = br_xstrdup(file), *host_arg = br_xstrdup(host);
	char ssh[] = "ssh", g[] = "-G", f[] = "-F", end[] = "--";
	char *argv[] = { ssh, g, f, file_arg, end, host_arg, NULL };
	posix_spawn_file_actions_t fa;
	int out[2], sprc;

	memset(j, 0, sizeof(*j));
	j->fd = -1;
	br_buf_init(&j->text, SSH_G_OUTPUT_MAX);
	/* close-on-exec: no other ssh -G holds this one's pipe open */
	if (pipe2(out, O_CLOEXEC)) {
		free(file_arg);
		free(host_arg);
		return br_errf(&j->err, BR_E_IO, "ssh -G: pipe: %s", strerror(errno));
	}
	/* posix_spawn, not fork: a rack's lookups are hundreds of processes,
	 * and copying this process's page tables for each (then exec) was
	 * most of the time the collecting process spent on them. */
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, out[1], 1);
	posix_spawn_file_actions_adddup2(&fa, out[1], 2);
	sprc = posix_spawnp(&j->pid, "ssh", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	free(file_arg);
	free(host_arg);
	close(out[1]);
	if (sprc) {
		close(out[0]);
		j->pid = -1;
		if (sprc == ENOENT || sprc == EACCES)
			return br_errf(&j->err, BR_E_NOTFOUND,
				       "ssh config: cannot run ssh (the OpenSSH client reads it)");
		return br_errf(&j->err, BR_E_IO, "ssh -G: cannot run ssh: %s", strerror(sprc));
	}
	j->fd = out[0];
	j->deadline = br_now_ms() + SSH_G_TIMEOUT_MS;
	return 0;
}

/* Read what is there; 1 at the end of its output (or an error), else 0. */
static int ssh_g_read(struct ssh_g_job *j, const char *host)
{
	char chunk[4096];
	ssize_t n = read(j->fd, chunk, sizeof(chunk));

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return 0;
	if (n <= 0)
		return 1;
	if (br_buf_add(&j->text, chunk, (size_t)n)) {
		j->rc = br_errf(&j->err, BR_E_TOOBIG, "ssh -G %s: more than %u bytes of output", host,
				SSH_G_OUTPUT_MAX);
		kill(j->pid, SIGKILL);
		return 1;
	}
	return 0;
}

/* Reap it and read its answer into ret: 0, or an error quoting ssh's own
 * message ("FILE line N: Bad configuration option: x"). */
static int ssh_g_finish(struct ssh_g_job *j, struct val_ssh_host *ret, struct br_err *err)
{
	int status = 0, rc = j->rc;

	if (j->fd >= 0)
		close(j->fd);
	if (j->pid > 0)
		while (waitpid(j->pid, &status, 0) < 0 && errno == EINTR)
			;
	if (rc) {
		*err = j->err;
	} else if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
		rc = br_errf(err, BR_E_NOTFOUND, "ssh config: cannot run ssh (the OpenSSH client reads it)");
	} else if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
		char *msg = br_xstrdup(br_buf_str(&j->text));
		size_t l = strlen(msg);

		while (l && (msg[l - 1] == '\n' || msg[l - 1] == '\r'))
			msg[--l] = '\0';
		for (char *p = msg; *p; p++)
			if (*p == '\n' || *p == '\r')
				*p = ' '; /* one line: ssh says it in two */
		rc = br_errf(err, BR_E_INVAL, "ssh config: %s", *msg ? msg : "ssh -G failed");
		free(msg);
	} else {
		rc = val_ssh_g_parse(j->text.data ? j->text.data : "", j->text.len, ret, err);
	}
	br_buf_release(&j->text);
	return rc;
}

/* A node's error names it; the file's own check (DEFAULTS_HOST) does not. */
static int name_error(int rc, const char *host, struct br_err *err)
{
	if (rc && strcmp(host, DEFAULTS_HOST))
		br_err_prefix(err, "%s", host);
	return rc;
}

/* `ssh -G -F file -- hosts[i]` for every host, up to SSH_G_PARALLEL at
 * once (each is some 5 ms of ssh's start; 512 one after another were most
 * of a rack's validate). rets[i] for hosts[i]; on the first error (named
 * by host) every ret is released and the rest are not asked. Each pass
 * looks at the ones in flight only, so a lookup costs the same in a rack of
 * any size. */
static int ssh_g_all(const char *file, const char *const *hosts, size_t n, struct val_ssh_host *rets,
		     struct br_err *err)
{
	struct ssh_g_job *jobs = br_xcalloc(n ? n : 1, sizeof(*jobs));
	struct pollfd pfds[SSH_G_PARALLEL];
	size_t flight[SSH_G_PARALLEL]; /* indices of the jobs in flight */
	size_t next = 0, active = 0, done = 0;
	int rc = 0;

	memset(rets, 0, n * sizeof(*rets));
	while (done < n && !rc) {
		int64_t now = br_now_ms(), wait = SSH_G_TIMEOUT_MS;

		while (next < n && active < SSH_G_PARALLEL && !rc) {
			if (ssh_g_start(&jobs[next], file, hosts[next])) {
				*err = jobs[next].err;
				rc = name_error(err->code ? err->code : BR_E_IO, hosts[next], err);
				br_buf_release(&jobs[next].text);
			} else {
				flight[active++] = next;
			}
			next++;
		}
		if (rc || !active)
			break;
		for (size_t k = 0; k < active; k++) {
			struct ssh_g_job *j = &jobs[flight[k]];

			if (now >= j->deadline && !j->rc) {
				j->rc = br_errf(&j->err, BR_E_TIMEOUT, "ssh -G %s: no answer in %d s",
						hosts[flight[k]], SSH_G_TIMEOUT_MS / 1000);
				kill(j->pid, SIGKILL);
			}
			if (j->deadline - now < wait)
				wait = j->deadline - now > 0 ? j->deadline - now : 0;
			pfds[k] = (struct pollfd){ .fd = j->fd, .events = POLLIN };
		}
		if (poll(pfds, active, (int)wait) < 0 && errno != EINTR) {
			rc = br_errf(err, BR_E_IO, "ssh -G: poll: %s", strerror(errno));
			break;
		}
		/* from the end, so that a finished one's slot takes the last's */
		for (size_t k = active; k-- > 0 && !rc;) {
			size_t i = flight[k];
			struct ssh_g_job *j = &jobs[i];

			if (!j->rc && !(pfds[k].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			if (!j->rc && !ssh_g_read(j, hosts[i]))
				continue;
			rc = name_error(ssh_g_finish(j, &rets[i], err), hosts[i], err);
			j->fd = -1;
			j->pid = -1;
			flight[k] = flight[--active];
			done++;
		}
	}
	for (size_t k = 0; k < active; k++) { /* on an error: reap the others */
		struct ssh_g_job *j = &jobs[flight[k]];
		struct val_ssh_host scratch;
		struct br_err ignored;

		if (j->fd < 0)
			continue;
		if (j->pid > 0)
			kill(j->pid, SIGKILL);
		if (!ssh_g_finish(j, &scratch, &ignored))
			val_ssh_host_release(&scratch);
	}
	if (rc) {
		for (size_t i = 0; i < n; i++)
			val_ssh_host_release(&rets[i]);
	}
	free(jobs);
	return rc;
}

static int ssh_g(const char *file, const char *host, struct val_ssh_host *ret, struct br_err *err)
{
	return ssh_g_all(file, &host, 1, ret, err);
}

int val_ssh_config_load(const char *path, struct val_ssh_config **ret, struct br_err *err)
{
	struct val_ssh_config *cfg;
	struct val_ssh_host probe;

	if (access(path, R_OK))
		return br_errf(err, BR_E_NOTFOUND, "ssh config: %s: %s", path, strerror(errno));
	cfg = br_xcalloc(1, sizeof(*cfg));
	cfg->path = br_xstrdup(path);
	/* The file is read once for a name it does not know, so a syntax error
	 * stops the stage before any node; the defaults come from no file. */
	if (ssh_g("/dev/null", DEFAULTS_HOST, &cfg->defaults, err) ||
	    ssh_g(cfg->path, DEFAULTS_HOST, &probe, err)) {
		val_ssh_config_free(cfg);
		return br_err_prefix(err, "%s", path);
	}
	val_ssh_host_release(&probe);
	*ret = cfg;
	return 0;
}

/* A value the file set: one that differs from what no file gives. */
static char *if_set(char **value, const char *dflt)
{
	char *v = *value;

	if (v && dflt && !strcmp(v, dflt))
		return NULL;
	*value = NULL;
	return v;
}

/* What ssh printed for host (g, emptied) as what the file sets (ret). */
static int settings_of(const struct val_ssh_config *cfg, const char *host, struct val_ssh_host *g,
		       struct val_ssh_host *ret, struct br_err *err)
{
	char *lower = br_xstrdup(host);
	int rc = 0;

	/* ssh prints the name lowercased when no HostName is set. */
	for (char *p = lower; *p; p++)
		if (*p >= 'A' && *p <= 'Z')
			*p = (char)(*p - 'A' + 'a');
	memset(ret, 0, sizeof(*ret));
	ret->hostname = if_set(&g->hostname, lower);
	free(lower);
	ret->port = g->port != cfg->defaults.port ? g->port : 0;
	ret->user = if_set(&g->user, cfg->defaults.user);
	ret->identity_file = if_set(&g->identity_file, cfg->defaults.identity_file);
	ret->known_hosts = if_set(&g->known_hosts, cfg->defaults.known_hosts);
	ret->proxy_jump = if_set(&g->proxy_jump, NULL);
	ret->proxy_command = if_set(&g->proxy_command, NULL);
	val_ssh_host_release(g);
	if (ret->proxy_command) {
		rc = br_errf(err, BR_E_UNSUPPORTED,
			     "%s: ssh config sets ProxyCommand %s: the SSH runner goes through jump hosts "
			     "(ProxyJump) but runs no proxy command, and connecting around it would bypass "
			     "the site's bastion",
			     host, ret->proxy_command);
		val_ssh_host_release(ret);
	}
	return rc;
}

int val_ssh_config_lookup_all(const struct val_ssh_config *cfg, const char *const *hosts, size_t n,
			      struct val_ssh_host *rets, struct br_err *err)
{
	struct val_ssh_host *g;
	int rc = 0;

	memset(rets, 0, n * sizeof(*rets));
	if (!cfg || !n)
		return 0;
	g = br_xcalloc(n, sizeof(*g));
	rc = ssh_g_all(cfg->path, hosts, n, g, err);
	for (size_t i = 0; i < n && !rc; i++)
		rc = settings_of(cfg, hosts[i], &g[i], &rets[i], err);
	for (size_t i = 0; i < n; i++) {
		val_ssh_host_release(&g[i]);
		if (rc)
			val_ssh_host_release(&rets[i]);
	}
	free(g);
	return rc;
}

int val_ssh_config_lookup(const struct val_ssh_config *cfg, const char *host, struct val_ssh_host *ret,
			  struct br_err *err)
{
	return val_ssh_config_lookup_all(cfg, &host, 1, ret, err);
}
