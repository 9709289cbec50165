/*
 * Real OpenSSH sshd for the simulated hosts: one loopback port per node,
 * sshd processes of at most SIM_SSHD_PORTS_MAX listen sockets each (sshd's
 * own limit), every port's sessions given, under "Match LocalPort", the
 * environment that points the probe at that node's tree.
 * Its own host key and client key in DIR/ssh/, known_hosts pre-filled, and
 * DIR/ssh_config naming each node, so a client checks host keys strictly
 * exactly as it would against a real rack.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hosts_private.h"

/* An upper bound only (the wait ends when the pid file shows): on a loaded
 * 2-core machine sshd once took more than 5 s to write it. */
#define SSHD_START_WAIT_MS 30000
#define SSHD_STOP_WAIT_MS 3000
#define SSHD_POLL_MS 20
#define SSH_KEY_TEXT_MAX 4096

struct sim_ssh {
	char *dir; /* DIR/ssh */
	pid_t *pids;
	size_t n_pids;
};

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* Run argv (absolute path) with stdin from /dev/null and stdout/stderr to
 * log; 0 when it exited 0. Our listening sockets and pipes stay ours. */
static int run_tool(char *const *argv, const char *log, struct br_err *err)
{
	pid_t pid = fork();
	int status = 0;

	if (pid < 0)
		return br_errf(err, BR_E_IO, "fork: %s", strerror(errno));
	if (pid == 0) {
		int in = open("/dev/null", O_RDONLY), out = open(log, O_WRONLY | O_CREAT | O_APPEND, 0600);

		if (in >= 0)
			dup2(in, STDIN_FILENO);
		if (out >= 0) {
			dup2(out, STDOUT_FILENO);
			dup2(out, STDERR_FILENO);
		}
		closefrom(3);
		execv(argv[0], argv);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return br_errf(err, BR_E_IO, "waitpid %s: %s", argv[0], strerror(errno));
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return br_errf(err, BR_E_IO, "%s failed (status %d); see %s", argv[0], status, log);
	return 0;
}

static int keygen(const char *dir, const char *name, const char *comment, struct br_err *err)
{
	char *key = br_xasprintf("%s/%s", dir, name), *pub = br_xasprintf("%s/%s.pub", dir, name);
	char *log = br_xasprintf("%s/setup.log", dir), *note = br_xstrdup(comment);
	char *argv[] = {
		"/usr/bin/ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", note, "-f", key, NULL
	};
	int rc;

	unlink(key);
	unlink(pub);
	rc = run_tool(argv, log, err);
	free(note);
	free(log);
	free(pub);
	free(key);
	return rc;
}

/* Free loopback ports, distinct: each socket stays bound until all are
 * chosen. sshd binds them a moment later; a port taken in between makes
 * the start fail loudly (check_ports), never serve the wrong node. */
static int pick_ports(size_t n, int *ports, struct br_err *err)
{
	int *fds = br_xcalloc(n, sizeof(*fds)), rc = 0;

	for (size_t i = 0; i < n; i++)
		fds[i] = -1;
	for (size_t i = 0; i < n && !rc; i++) {
		struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
		socklen_t len = sizeof(a);

		fds[i] = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fds[i] < 0 || bind(fds[i], (struct sockaddr *)&a, sizeof(a)) ||
		    getsockname(fds[i], (struct sockaddr *)&a, &len))
			rc = br_errf(err, BR_E_IO, "choosing a port for sshd: %s", strerror(errno));
		else
			ports[i] = ntohs(a.sin_port);
	}
	for (size_t i = 0; i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	free(fds);
	return rc;
}

static int port_answers(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons((uint16_t)port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), ok;

	if (fd < 0)
		return 0;
	ok = connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0;
	close(fd);
	return ok;
}

static int check_ports(const struct sim_rack *rack, const int *ports, const char *dir, struct br_err *err)
{
	for (size_t i = 0; i < rack->n; i++) {
		int waited = 0;

		while (!port_answers(ports[i])) {
			if (waited >= SSHD_START_WAIT_MS)
				return br_errf(
				    err, BR_E_IO,
				    "sshd for %s is not listening on 127.0.0.1:%d; see %s/sshd-*.log",
				    rack->nodes[i].hostname, ports[i], dir);
			sleep_ms(SSHD_POLL_MS);
			waited += SSHD_POLL_MS;
		}
	}
	return 0;
}

/* The pid an sshd wrote to its PidFile once it detached, or -1. */
static pid_t read_pid(const char *path)
{
	char *text = NULL;
	size_t len = 0;
	long pid = -1;
	struct br_err err = { 0 };

	for (int waited = 0; waited < SSHD_START_WAIT_MS; waited += SSHD_POLL_MS) {
		if (br_read_file(path, 64, &text, &len, &err) == 0) {
			while (len && (text[len - 1] == '\n' || text[len - 1] == ' '))
				text[--len] = '\0';
			if (br_parse_long(text, 1, 1L << 30, &pid) == 0) {
				free(text);
				return (pid_t)pid;
			}
			free(text);
			text = NULL;
		}
		sleep_ms(SSHD_POLL_MS);
	}
	return -1;
}

static char *sshd_config(const struct sim_rack *rack, const int *ports, size_t first, size_t count,
			 const char *dir, const char *ssh_dir, const char *user, size_t group)
{
	struct br_buf b;

	br_buf_init(&b, 0);
	br_buf_addf(&b, "# bringup-sim: sshd %zu of the simulated hosts (%s .. %s)\n", group,
		    rack->nodes[first].hostname, rack->nodes[first + count - 1].hostname);
	for (size_t i = first; i < first + count; i++)
		br_buf_addf(&b, "ListenAddress 127.0.0.1:%d\n", ports[i]);
	br_buf_addf(&b,
		    "HostKey %s/host_ed25519_key\n"
		    "AuthorizedKeysFile %s/authorized_keys\n"
		    "PidFile %s/sshd-%zu.pid\n"
		    "AllowUsers %s\n"
		    "PubkeyAuthentication yes\n"
		    "PasswordAuthentication no\n"
		    "KbdInteractiveAuthentication no\n"
		    "PermitRootLogin prohibit-password\n"
		    "UsePAM no\n"
		    "StrictModes no\n"
		    "X11Forwarding no\n"
		    "AllowTcpForwarding no\n"
		    "AllowAgentForwarding no\n"
		    "PrintMotd no\n"
		    "MaxStartups 200\n"
		    "MaxSessions 32\n"
		    "Subsystem sftp /usr/lib/openssh/sftp-server\n",
		    ssh_dir, ssh_dir, ssh_dir, group, user);
	/* Each port's sessions get the node's tree in the environment, which
	 * bringup-probe reads as its --root and --captures: the command the
	 * client sent runs as on a real node, through the user's login shell
	 * and nothing else. (A ForceCommand script setting them, then running
	 * the command with a shell of its own, was two more shells per session:
	 * 22 ms of a 235 ms node on the shared 2-core machine, of which the
	 * login shell's fork for the digest's $(...) now takes back about 10,
	 * as on a real node.) sshd's SetEnv
	 * takes the first SetEnv line that applies, so all three are on one.
	 * bash run by sshd reads ~/.bashrc: on a development machine that can
	 * be a whole toolchain's setup (pyenv's init: ~100 processes, a second
	 * per exec). Each simulated host has its own home instead, its tree,
	 * as a real node has its own, without that rc file. */
	for (size_t i = first; i < first + count; i++)
		br_buf_addf(&b,
			    "Match LocalPort %d\n\tSetEnv HOME=%s/hosts/%s BRINGUP_PROBE_ROOT=%s/hosts/%s "
			    "BRINGUP_PROBE_CAPTURES=%s/hosts/%s/.captures "
			    "PATH=%s/bin:/usr/local/bin:/usr/bin:/bin\n",
			    ports[i], dir, rack->nodes[i].hostname, dir, rack->nodes[i].hostname, dir,
			    rack->nodes[i].hostname, dir);
	return br_buf_detach(&b);
}

static int write_text(const char *path, const char *text, struct br_err *err)
{
	return br_write_file(path, text, strlen(text), err);
}

static int start_sshds(struct sim_ssh *s, const struct sim_rack *rack, const int *ports, const char *dir,
		       const char *user, struct br_err *err)
{
	size_t groups = (rack->n + SIM_SSHD_PORTS_MAX - 1) / SIM_SSHD_PORTS_MAX;
	int rc = 0;

	s->pids = br_xcalloc(groups, sizeof(*s->pids));
	for (size_t g = 0; g < groups && !rc; g++) {
		size_t first = g * SIM_SSHD_PORTS_MAX;
		size_t count = rack->n - first < SIM_SSHD_PORTS_MAX ? rack->n - first : SIM_SSHD_PORTS_MAX;
		char *conf = br_xasprintf("%s/sshd-%zu.conf", s->dir, g);
		char *log = br_xasprintf("%s/sshd-%zu.log", s->dir, g);
		char *pidf = br_xasprintf("%s/sshd-%zu.pid", s->dir, g);
		char *text = sshd_config(rack, ports, first, count, dir, s->dir, user, g);
		char *argv[] = { SIM_SSHD_PATH, "-f", conf, "-E", log, NULL };
		char *setup = br_xasprintf("%s/setup.log", s->dir);

		unlink(pidf);
		rc = write_text(conf, text, err);
		/* sshd detaches once its sockets listen and writes its PidFile. */
		if (!rc)
			rc = run_tool(argv, setup, err);
		if (!rc) {
			pid_t pid = read_pid(pidf);

			if (pid < 0)
				rc = br_errf(err, BR_E_IO, "sshd wrote no pid to %s; see %s", pidf, log);
			else
				s->pids[s->n_pids++] = pid;
		}
		free(setup);
		free(text);
		free(pidf);
		free(log);
		free(conf);
	}
	return rc;
}

static int client_files(const struct sim_rack *rack, const int *ports, const char *dir, const char *ssh_dir,
			const char *user, struct br_err *err)
{
	char *path = br_xasprintf("%s/host_ed25519_key.pub", ssh_dir), *hostkey = NULL, *sp;
	struct br_buf known, cfg;
	size_t len = 0;
	int rc = br_read_file(path, SSH_KEY_TEXT_MAX, &hostkey, &len, err);

	free(path);
	if (rc)
		return rc;
	/* "ssh-ed25519 AAAA... comment": known_hosts wants the type and key. */
	sp = strchr(hostkey, ' ');
	sp = sp ? strchr(sp + 1, ' ') : NULL;
	if (sp)
		*sp = '\0';
	while (len && (hostkey[len - 1] == '\n'))
		hostkey[--len] = '\0';
	br_buf_init(&known, 0);
	br_buf_init(&cfg, 0);
	br_buf_addf(&cfg, "# bringup-sim: the simulated hosts, each its own sshd port on 127.0.0.1\n");
	for (size_t i = 0; i < rack->n; i++) {
		br_buf_addf(&known, "[127.0.0.1]:%d %s\n", ports[i], hostkey);
		br_buf_addf(
		    &cfg,
		    "Host %s\n\tHostName 127.0.0.1\n\tPort %d\n\tUser %s\n\tIdentityFile %s/id_ed25519\n"
		    "\tIdentitiesOnly yes\n\tUserKnownHostsFile %s/known_hosts\n"
		    "\tStrictHostKeyChecking yes\n",
		    rack->nodes[i].hostname, ports[i], user, ssh_dir, ssh_dir);
	}
	path = br_xasprintf("%s/known_hosts", ssh_dir);
	rc = write_text(path, br_buf_str(&known), err);
	free(path);
	path = br_xasprintf("%s/ssh_config", dir);
	if (!rc)
		rc = write_text(path, br_buf_str(&cfg), err);
	free(path);
	br_buf_release(&cfg);
	br_buf_release(&known);
	free(hostkey);
	return rc;
}

/* Characters sshd_config or the shell would read as syntax. */
static int path_plain(const char *s)
{
	return strpbrk(s, " \t\n'\"\\$`") == NULL;
}

int sim_ssh_start(const struct sim_rack *rack, const char *dir, struct br_buf *env, struct sim_ssh **ret,
		  struct br_err *err)
{
	struct passwd *pw = getpwuid(geteuid());
	struct sim_ssh *s;
	int *ports = NULL, rc;
	char *user, *path;

	if (!path_plain(dir))
		return br_errf(err, BR_E_INVAL,
			       "--dir '%s': sshd cannot serve hosts under a path with "
			       "spaces, quotes or backslashes (or use --no-ssh)",
			       dir);
	if (!pw)
		return br_errf(err, BR_E_IO, "no user name for uid %ld", (long)geteuid());
	user = br_xstrdup(pw->pw_name);
	s = br_xcalloc(1, sizeof(*s));
	s->dir = br_xasprintf("%s/ssh", dir);
	if (mkdir(s->dir, 0700) && errno != EEXIST) {
		rc = br_errf(err, BR_E_IO, "%s: %s", s->dir, strerror(errno));
		goto out;
	}
	/* sshd refuses to start without its privilege separation directory. */
	if (geteuid() == 0 && mkdir("/run/sshd", 0755) && errno != EEXIST) {
		rc = br_errf(err, BR_E_IO, "/run/sshd: %s", strerror(errno));
		goto out;
	}
	rc = keygen(s->dir, "host_ed25519_key", "bringup-sim host key", err);
	if (!rc)
		rc = keygen(s->dir, "id_ed25519", "bringup-sim validators", err);
	if (!rc) {
		char *pub = br_xasprintf("%s/id_ed25519.pub", s->dir), *text = NULL;
		size_t len = 0;

		rc = br_read_file(pub, SSH_KEY_TEXT_MAX, &text, &len, err);
		free(pub);
		if (!rc) {
			path = br_xasprintf("%s/authorized_keys", s->dir);
			rc = write_text(path, text, err);
			free(path);
		}
		free(text);
	}
	ports = br_xcalloc(rack->n, sizeof(*ports));
	if (!rc)
		rc = pick_ports(rack->n, ports, err);
	if (!rc)
		rc = start_sshds(s, rack, ports, dir, user, err);
	if (!rc)
		rc = check_ports(rack, ports, s->dir, err);
	if (!rc)
		rc = client_files(rack, ports, dir, s->dir, user, err);
	if (!rc) {
		br_buf_addf(env, "BRINGUP_SSH_CONFIG=%s/ssh_config\n", dir);
		br_buf_addf(env, "BRINGUP_SSH_KEY=%s/id_ed25519\n", s->dir);
		/* what enlist puts in the nodes' user-data (it deploys none without) */
		br_buf_addf(env, "BRINGUP_SSH_PUBKEY=%s/id_ed25519.pub\n", s->dir);
		br_buf_addf(env, "BRINGUP_KNOWN_HOSTS=%s/known_hosts\n", s->dir);
		br_buf_addf(env, "BRINGUP_SSH_USER=%s\n", user);
	}
out:
	free(ports);
	free(user);
	if (rc) {
		sim_ssh_stop(s);
		return rc;
	}
	*ret = s;
	return 0;
}

/* A pid that is gone, or a zombie no one reaped yet (sshd detached from us,
 * so its reaper is init's business). */
static int pid_gone(pid_t pid)
{
	char *path = br_xasprintf("/proc/%ld/stat", (long)pid), *text = NULL, *paren;
	size_t len = 0;
	struct br_err err = { 0 };
	int gone = 1;

	if (kill(pid, 0) == 0 && br_read_file(path, 4096, &text, &len, &err) == 0) {
		paren = strrchr(text, ')');
		gone = paren && paren[1] == ' ' && paren[2] == 'Z';
	}
	free(text);
	free(path);
	return gone;
}

void sim_ssh_stop(struct sim_ssh *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n_pids; i++)
		kill(s->pids[i], SIGTERM);
	for (size_t i = 0; i < s->n_pids; i++)
		for (int waited = 0; waited < SSHD_STOP_WAIT_MS && !pid_gone(s->pids[i]);
		     waited += SSHD_POLL_MS)
			sleep_ms(SSHD_POLL_MS);
	free(s->pids);
	free(s->dir);
	free(s);
}
