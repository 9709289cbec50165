/* ssh_config(5) the way OpenSSH itself reads it: each node's effective
 * settings come from `ssh -G -F FILE HOST`, so Include, Match, Host
 * patterns, canonicalisation and %-tokens mean what they mean to ssh, and
 * operators can use the file they already keep. What the runner cannot
 * honour (a proxy command) stops the stage naming the keyword; it is never
 * dropped, which would send the connection around the bastion. A jump host
 * (ProxyJump) is taken: the runner goes through it with `ssh -W` (ssh.c). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ssh.h"

#define SSH_G_OUTPUT_MAX (256u * 1024) /* ssh -G prints some 3 KiB */
#define SSH_G_TIMEOUT_MS 10000	       /* a Match exec that hangs */
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

/* Run `ssh -G -F file -- host` and read what it prints (stdout, and stderr
 * for the error). 0, or an error quoting ssh's own message. */
static int ssh_g(const char *file, const char *host, struct val_ssh_host *ret, struct br_err *err)
{
	int out[2], status = 0, rc = 0;
	struct br_buf text;
	int64_t deadline = br_now_ms() + SSH_G_TIMEOUT_MS;
	pid_t pid;

	if (pipe(out))
		return br_errf(err, BR_E_IO, "ssh -G: pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0) {
		close(out[0]);
		close(out[1]);
		return br_errf(err, BR_E_IO, "ssh -G: fork: %s", strerror(errno));
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDONLY);

		if (null >= 0)
			dup2(null, 0);
		dup2(out[1], 1);
		dup2(out[1], 2);
		close(out[0]);
		close(out[1]);
		execlp("ssh", "ssh", "-G", "-F", file, "--", host, (char *)NULL);
		_exit(127);
	}
	close(out[1]);
	br_buf_init(&text, SSH_G_OUTPUT_MAX);
	for (;;) {
		struct pollfd pfd = { .fd = out[0], .events = POLLIN };
		int64_t left = deadline - br_now_ms();
		char chunk[4096];
		ssize_t n;

		if (left <= 0) {
			rc = br_errf(err, BR_E_TIMEOUT, "ssh -G %s: no answer in %d s", host,
				     SSH_G_TIMEOUT_MS / 1000);
			kill(pid, SIGKILL);
			break;
		}
		if (poll(&pfd, 1, (int)left) < 0 && errno != EINTR) {
			rc = br_errf(err, BR_E_IO, "ssh -G: poll: %s", strerror(errno));
			kill(pid, SIGKILL);
			break;
		}
		n = read(out[0], chunk, sizeof(chunk));
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0)
			break;
		if (br_buf_add(&text, chunk, (size_t)n)) {
			rc = br_errf(err, BR_E_TOOBIG, "ssh -G %s: more than %u bytes of output", host,
				     SSH_G_OUTPUT_MAX);
			kill(pid, SIGKILL);
			break;
		}
	}
	close(out[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!rc && WIFEXITED(status) && WEXITSTATUS(status) == 127)
		rc = br_errf(err, BR_E_NOTFOUND, "ssh config: cannot run ssh (the OpenSSH client reads it)");
	else if (!rc && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
		/* ssh says "FILE line N: Bad configuration option: x": quote it. */
		char *msg = br_xstrdup(br_buf_str(&text));
		size_t l = strlen(msg);

		while (l && (msg[l - 1] == '\n' || msg[l - 1] == '\r'))
			msg[--l] = '\0';
		for (char *p = msg; *p; p++)
			if (*p == '\n' || *p == '\r')
				*p = ' '; /* one line: ssh says it in two */
		rc = br_errf(err, BR_E_INVAL, "ssh config: %s", *msg ? msg : "ssh -G failed");
		free(msg);
	}
	if (!rc)
		rc = val_ssh_g_parse(text.data ? text.data : "", text.len, ret, err);
	br_buf_release(&text);
	return rc;
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

int val_ssh_config_lookup(const struct val_ssh_config *cfg, const char *host, struct val_ssh_host *ret,
			  struct br_err *err)
{
	struct val_ssh_host g;
	char *lower;
	int rc;

	memset(ret, 0, sizeof(*ret));
	if (!cfg)
		return 0;
	rc = ssh_g(cfg->path, host, &g, err);
	if (rc)
		return br_err_prefix(err, "%s", host);
	/* ssh prints the name lowercased when no HostName is set. */
	lower = br_xstrdup(host);
	for (char *p = lower; *p; p++)
		if (*p >= 'A' && *p <= 'Z')
			*p = (char)(*p - 'A' + 'a');
	ret->hostname = if_set(&g.hostname, lower);
	free(lower);
	ret->port = g.port != cfg->defaults.port ? g.port : 0;
	ret->user = if_set(&g.user, cfg->defaults.user);
	ret->identity_file = if_set(&g.identity_file, cfg->defaults.identity_file);
	ret->known_hosts = if_set(&g.known_hosts, cfg->defaults.known_hosts);
	ret->proxy_jump = if_set(&g.proxy_jump, NULL);
	ret->proxy_command = if_set(&g.proxy_command, NULL);
	val_ssh_host_release(&g);
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
