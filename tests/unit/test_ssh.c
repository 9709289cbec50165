/* The SSH runner against a real OpenSSH sshd on loopback (own host key,
 * own authorized key, a non-default port): host key policies, copying the
 * file only when the node's copy differs, output and exit status, time
 * limits, refused keys and ports, many nodes at once under a cap. sshd logs
 * at VERBOSE, one "Starting session: command" line per exec request: the
 * tests count the commands each validation cost. */
#define _GNU_SOURCE /* dlsym's RTLD_NEXT */
#include <dlfcn.h>
#include <errno.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <pwd.h>
#include <time.h>
#include <signal.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include <cmocka.h>

#include "validators/ssh.h"

static char dir[] = "/tmp/br-ssh-XXXXXX";
static int port;
static pid_t sshd_pid;

static int sh(const char *fmt, ...) BR_PRINTF(1, 2);
static int sh(const char *fmt, ...)
{
	va_list ap;
	struct br_buf b;
	int rc;

	br_buf_init(&b, 0);
	va_start(ap, fmt);
	br_buf_vaddf(&b, fmt, ap);
	va_end(ap);
	rc = system(br_buf_str(&b));
	br_buf_release(&b);
	return rc;
}

static int free_port(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0), p;

	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
	p = ntohs(a.sin_port);
	close(fd);
	return p;
}

static int start_sshd(void **state)
{
	char *conf;
	FILE *f;

	(void)state;
	if (!mkdtemp(dir))
		return -1;
	port = free_port();
	if (sh("ssh-keygen -q -t ed25519 -N '' -f %s/hostkey && ssh-keygen -q -t ed25519 -N '' -f "
	       "%s/otherhost && "
	       "ssh-keygen -q -t ed25519 -N '' -f %s/userkey && ssh-keygen -q -t ed25519 -N '' -f "
	       "%s/wrongkey && "
	       "cp %s/userkey.pub %s/authorized_keys && mkdir -p /run/sshd %s/remote",
	       dir, dir, dir, dir, dir, dir, dir))
		return -1;
	conf = br_xasprintf("%s/sshd_config", dir);
	f = fopen(conf, "w");
	fprintf(
	    f,
	    "Port %d\nListenAddress 127.0.0.1\nHostKey %s/hostkey\nAuthorizedKeysFile %s/authorized_keys\n"
	    "PasswordAuthentication no\nKbdInteractiveAuthentication no\nPidFile %s/pid\nStrictModes no\n"
	    "MaxStartups 64:30:128\nMaxSessions 64\nSubsystem sftp internal-sftp\nLogLevel VERBOSE\n"
	    /* Commands run through the user's login shell, and bash run by
	     * sshd reads ~/.bashrc: on a development machine that can start
	     * a whole toolchain (pyenv's init: hundreds of processes, most of
	     * this test's CPU time). An empty home has none. */
	    "SetEnv HOME=%s/remote\n",
	    port, dir, dir, dir, dir);
	fclose(f);
	if (sh("/usr/sbin/sshd -f %s -E %s/sshd.log", conf, dir)) {
		free(conf);
		return -1;
	}
	free(conf);
	/* sshd daemonizes; wait for its pid file. */
	for (int i = 0; i < 100; i++) {
		char *pidpath = br_xasprintf("%s/pid", dir);
		FILE *p = fopen(pidpath, "r");

		free(pidpath);
		if (p) {
			int ok = fscanf(p, "%d", &sshd_pid) == 1;

			fclose(p);
			if (ok)
				return 0;
		}
		nanosleep(&(struct timespec){ 0, 50000000 }, NULL);
	}
	return -1;
}

static int stop_sshd(void **state)
{
	(void)state;
	if (sshd_pid > 0)
		kill(sshd_pid, SIGTERM);
	sh("rm -rf %s", dir);
	return 0;
}

static char *path(const char *name)
{
	return br_xasprintf("%s/%s", dir, name);
}

struct fixture {
	struct val_ssh_options o;
	char *key, *known, *remote, *script;
	const char *user;
};

static void fixture_init(struct fixture *fx)
{
	struct passwd *pw = getpwuid(getuid());

	val_ssh_options_init(&fx->o);
	fx->key = path("userkey");
	fx->known = path("known_hosts");
	fx->remote = path("remote");
	fx->script = path("probe.sh");
	fx->user = pw->pw_name;
	fx->o.user = fx->user;
	fx->o.private_key = fx->key;
	fx->o.known_hosts = fx->known;
	fx->o.remote_dir = fx->remote;
	fx->o.connect_timeout_ms =
	    60000; /* generous: a loaded test machine (ASan, sshd) is slow to hand shake */
	fx->o.run_timeout_ms = 60000;
}

static void fixture_release(struct fixture *fx)
{
	free(fx->key);
	free(fx->known);
	free(fx->remote);
	free(fx->script);
}

/* How many times sshd has logged what so far. */
static int sshd_logged(const char *what)
{
	char *log = path("sshd.log"), *text = NULL;
	const char *at;
	size_t len = 0;
	struct br_err err = { 0 };
	int n = 0;

	assert_int_equal(br_read_file(log, 64u << 20, &text, &len, &err), 0);
	for (at = text; (at = strstr(at, what)); at++)
		n++;
	free(text);
	free(log);
	return n;
}

/* Exec requests sshd has served so far. */
static int execs(void)
{
	return sshd_logged("Starting session: command for ");
}

/* SFTP sessions sshd has served so far. */
static int sftps(void)
{
	return sshd_logged("subsystem request for sftp");
}

static int run1(const struct val_ssh_options *o, int target_port, struct val_ssh_result *r)
{
	struct br_loop *loop = NULL;
	struct br_err err = { 0 };
	struct val_ssh_target t = { "node1", "127.0.0.1", target_port, NULL };
	int rc;

	assert_int_equal(br_loop_new(&loop, &err), 0);
	rc = val_ssh_run(loop, &t, 1, o, r, NULL, NULL, &err);
	br_loop_free(loop);
	return rc;
}

/* recv(2) as libssh2 sees it. With held_recv on, bytes that have come are
 * first refused once (EAGAIN, which a non-blocking socket may always say),
 * and the call after that takes them only once the server has gone quiet,
 * all of it at once: so whatever the server sends is read off the socket
 * by the second libssh2 call that looks, not the first. */
static int held_recv, refused_once;

static size_t pending_bytes(int fd)
{
	int n = 0;

	return ioctl(fd, FIONREAD, &n) == 0 && n > 0 ? (size_t)n : 0;
}

ssize_t recv(int fd, void *buf, size_t len, int flags);
ssize_t recv(int fd, void *buf, size_t len, int flags)
{
	static ssize_t (*real)(int, void *, size_t, int);

	if (!real)
		*(void **)&real = dlsym(RTLD_NEXT, "recv");
	if (held_recv && !(flags & MSG_PEEK)) {
		if (!refused_once && pending_bytes(fd)) {
			refused_once = 1;
			errno = EAGAIN;
			return -1;
		}
		if (refused_once) {
			/* quiet: nothing more for 60 ms (at most 3 s) */
			size_t seen = pending_bytes(fd);

			for (int still = 0, waited = 0; still < 6 && waited < 300; waited++) {
				size_t now;

				poll(NULL, 0, 10);
				now = pending_bytes(fd);
				still = now == seen ? still + 1 : 0;
				seen = now;
			}
			refused_once = 0;
		}
	}
	return real(fd, buf, len, flags);
}

/* The command's whole answer (its output, EOF, exit status and the
 * channel's close) taken off the socket by the stderr read, after the
 * stdout read found nothing: libssh2 holds the output, the socket has
 * nothing more to say, and the runner must not wait for it to (it did:
 * the node sat out its run time limit with its answer complete). */
static void test_answer_read_by_the_other_stream(void **state)
{
	static const char *const cmd[] = { "sh", "-c", "sleep 0.3; echo out", NULL };
	struct fixture fx;
	struct val_ssh_result r;

	(void)state;
	fixture_init(&fx);
	fx.o.host_keys = VAL_SSH_ACCEPT_NEW;
	fx.o.args = cmd;
	fx.o.run_timeout_ms = 8000;
	held_recv = 1;
	assert_int_equal(run1(&fx.o, port, &r), 0);
	held_recv = 0;
	if (!r.ok)
		fail_msg("%s", r.error);
	assert_int_equal(r.exit_status, 0);
	assert_string_equal(br_buf_str(&r.out), "out\n");
	assert_true(r.run_end_ms - r.run_start_ms < 6000);
	val_ssh_result_release(&r);
	fixture_release(&fx);
}

/* A node offering an ECDSA key besides its ed25519 one (as every OpenSSH
 * cloud-init sets up does), known by its ed25519 key alone (as OpenSSH's
 * client records it), plainly or hashed: the strict policy accepts it,
 * since the runner asks for the algorithms of the keys it knows (libssh2
 * asks for ECDSA first, then found no known key of that type). */
static void test_known_key_type_asked_for(void **state)
{
	struct fixture fx;
	struct val_ssh_result r;
	int port2 = free_port();
	pid_t pid2 = 0;
	FILE *p;

	(void)state;
	fixture_init(&fx);
	fx.o.args = (const char *const[]){ "echo", "hi", NULL };
	assert_int_equal(
	    sh("ssh-keygen -q -t ecdsa -N '' -f %s/ecdsakey && "
	       "sed -e 's/^Port .*/Port %d/' -e 's|^PidFile .*|PidFile %s/pid2|' %s/sshd_config > "
	       "%s/sshd2_config && echo 'HostKey %s/ecdsakey' >> %s/sshd2_config && "
	       "/usr/sbin/sshd -f %s/sshd2_config -E %s/sshd2.log",
	       dir, port2, dir, dir, dir, dir, dir, dir, dir),
	    0);
	for (int i = 0; i < 100 && pid2 <= 0; i++) {
		char *pidpath = path("pid2");

		if ((p = fopen(pidpath, "r"))) {
			if (fscanf(p, "%d", &pid2) != 1)
				pid2 = 0;
			fclose(p);
		}
		free(pidpath);
		if (pid2 <= 0)
			nanosleep(&(struct timespec){ 0, 50000000 }, NULL);
	}
	assert_true(pid2 > 0);
	for (int hashed = 0; hashed < 2; hashed++) {
		assert_int_equal(sh("echo \"[127.0.0.1]:%d $(cut -d' ' -f1,2 %s/hostkey.pub)\" > %s", port2,
				    dir, fx.known),
				 0);
		if (hashed)
			assert_int_equal(sh("ssh-keygen -q -H -f %s >/dev/null 2>&1 && grep -q '^|1|' %s",
					    fx.known, fx.known),
					 0);
		assert_int_equal(run1(&fx.o, port2, &r), 0);
		if (!r.ok)
			fail_msg("%s: %s", hashed ? "hashed" : "plain", r.error);
		assert_string_equal(br_buf_str(&r.out), "hi\n");
		val_ssh_result_release(&r);
	}
	kill(pid2, SIGTERM);
	unlink(fx.known);
	fixture_release(&fx);
}

static void test_upload_once_and_host_keys(void **state)
{
	static const char *const args[] = { "a b", "it's", NULL };
	struct fixture fx;
	struct val_ssh_result r;
	char *copy, *ran;
	int before;

	(void)state;
	fixture_init(&fx);
	assert_int_equal(
	    sh("printf '#!/bin/sh\\necho \"hello [$1] [$2]\"\\necho oops >&2\\nexit 3\\n' > %s", fx.script),
	    0);
	fx.o.upload = fx.script;
	fx.o.args = args;

	/* Strict with no known_hosts: refused, nothing run. */
	assert_int_equal(run1(&fx.o, port, &r), 0);
	assert_int_equal(r.ok, 0);
	assert_non_null(strstr(r.error, "unknown host key SHA256:"));
	assert_non_null(strstr(r.error, "node1 (127.0.0.1:"));
	val_ssh_result_release(&r);

	/* accept-new: recorded, copied, run with its arguments intact. */
	fx.o.host_keys = VAL_SSH_ACCEPT_NEW;
	before = execs();
	assert_int_equal(run1(&fx.o, port, &r), 0);
	if (!r.ok)
		fail_msg("%s", r.error);
	assert_int_equal(r.exit_status, 3);
	assert_int_equal(r.uploaded, 1);
	/* No copy there: the command that would run it asks for it, takes
	 * it on its stdin, installs and runs it: one command, no SFTP. */
	assert_int_equal(execs() - before, 1);
	assert_int_equal(sftps(), 0);
	assert_string_equal(br_buf_str(&r.out), "hello [a b] [it's]\n");
	assert_string_equal(br_buf_str(&r.err), "oops\n");
	val_ssh_result_release(&r);
	assert_int_equal(sh("grep -q '^\\[127.0.0.1\\]:%d ssh-ed25519 ' %s", port, fx.known), 0);

	/* Strict now that the key is known; the node's copy is current: not
	 * copied again, checked and run by one command, twice over. */
	fx.o.host_keys = VAL_SSH_STRICT;
	for (int again = 0; again < 2; again++) {
		before = execs();
		assert_int_equal(run1(&fx.o, port, &r), 0);
		assert_int_equal(r.ok, 1);
		assert_int_equal(r.uploaded, 0);
		assert_int_equal(r.exit_status, 3);
		assert_string_equal(br_buf_str(&r.out), "hello [a b] [it's]\n");
		assert_string_equal(br_buf_str(&r.err), "oops\n");
		assert_true(r.run_start_ms > 0 && r.run_end_ms >= r.run_start_ms);
		val_ssh_result_release(&r);
		assert_int_equal(execs() - before, 1);
	}

	/* A copy damaged on the node (same name, other content, still
	 * executable) is replaced, and never run. */
	ran = path("tampered-ran");
	assert_int_equal(sh("for f in %s/bringup-probe-*; do printf '#!/bin/sh\\ntouch %s\\necho "
			    "tampered\\n' > \"$f\"; done",
			    fx.remote, ran),
			 0);
	before = execs();
	assert_int_equal(run1(&fx.o, port, &r), 0);
	assert_int_equal(r.ok, 1);
	assert_int_equal(r.uploaded, 1);
	assert_string_equal(br_buf_str(&r.out), "hello [a b] [it's]\n");
	val_ssh_result_release(&r);
	assert_int_equal(execs() - before, 1);
	assert_int_equal(access(ran, F_OK), -1);
	free(ran);
	/* One file there, named after its digest, no partial copies left. */
	copy = br_xasprintf(
	    "ls %s | grep -c '^bringup-probe-[0-9a-f]\\{64\\}$' | grep -qx 1 && ! ls %s | grep -q part",
	    fx.remote, fx.remote);
	assert_int_equal(sh("%s", copy), 0);
	free(copy);

	/* The node's key changes (reinstalled, or someone in the middle):
	 * refused under either policy. */
	assert_int_equal(
	    sh("awk -v k=\"$(cut -d' ' -f2 %s/otherhost.pub)\" '{$3=k; print}' %s > %s.new && mv %s.new %s",
	       dir, fx.known, fx.known, fx.known, fx.known),
	    0);
	for (int policy = 0; policy < 2; policy++) {
		fx.o.host_keys = policy ? VAL_SSH_ACCEPT_NEW : VAL_SSH_STRICT;
		assert_int_equal(run1(&fx.o, port, &r), 0);
		assert_int_equal(r.ok, 0);
		assert_non_null(strstr(r.error, "host key changed"));
		val_ssh_result_release(&r);
	}
	fixture_release(&fx);
}

/* The status a missing copy is reported with is an ordinary status for the
 * command itself: its output and status are its result, not a reason to
 * copy again. */
static void test_own_status_97(void **state)
{
	struct fixture fx;
	struct val_ssh_result r;
	int before;

	(void)state;
	fixture_init(&fx);
	fx.o.host_keys = VAL_SSH_ACCEPT_NEW;
	unlink(fx.known);
	assert_int_equal(sh("printf '#!/bin/sh\\necho mine\\nexit 97\\n' > %s", fx.script), 0);
	fx.o.upload = fx.script;
	for (int round = 0; round < 2; round++) {
		before = execs();
		assert_int_equal(run1(&fx.o, port, &r), 0);
		if (!r.ok)
			fail_msg("%s", r.error);
		assert_int_equal(r.uploaded, round == 0);
		assert_int_equal(r.exit_status, 97);
		assert_string_equal(br_buf_str(&r.out), "mine\n");
		val_ssh_result_release(&r);
		assert_int_equal(execs() - before, 1);
	}
	fixture_release(&fx);
}

/* The node cannot keep the copy (here its directory is missing): the
 * node is failed naming the copy and what the node's tools said, and
 * nothing is run. */
static void test_copy_not_installed(void **state)
{
	struct fixture fx;
	struct val_ssh_result r;
	char *missing = path("remote/missing/dir"), *ran = path("not-installed-ran");
	int before;

	(void)state;
	fixture_init(&fx);
	fx.o.host_keys = VAL_SSH_ACCEPT_NEW;
	fx.o.remote_dir = missing;
	assert_int_equal(sh("printf '#!/bin/sh\\ntouch %s\\n' > %s", ran, fx.script), 0);
	fx.o.upload = fx.script;
	before = execs();
	assert_int_equal(run1(&fx.o, port, &r), 0);
	assert_int_equal(r.ok, 0);
	assert_int_equal(r.uploaded, 0);
	assert_non_null(strstr(r.error, "node1 (127.0.0.1:"));
	assert_non_null(strstr(r.error, ": copy: "));
	assert_non_null(strstr(r.error, "not installed (exit 98): "));
	assert_non_null(strstr(r.error, "missing/dir/bringup-probe-"));
	assert_int_equal(execs() - before, 1);
	assert_int_equal(access(ran, F_OK), -1);
	val_ssh_result_release(&r);
	free(ran);
	free(missing);
	fixture_release(&fx);
}

/* A file that ends itself at the time limit is given it as an option and
 * runs without timeout(1) around it; any other runs under timeout(1). */
static void test_limit_option(void **state)
{
	static const char *const args[] = { "x", NULL };
	struct fixture fx;
	struct val_ssh_result r;

	(void)state;
	fixture_init(&fx);
	fx.o.host_keys = VAL_SSH_ACCEPT_NEW;
	fx.o.run_timeout_ms = 42000;
	assert_int_equal(sh("printf '#!/bin/sh\\necho \"$*\"\\ncat /proc/$PPID/comm\\n' > %s", fx.script), 0);
	fx.o.upload = fx.script;
	fx.o.args = args;
	assert_int_equal(run1(&fx.o, port, &r), 0);
	if (!r.ok)
		fail_msg("%s", r.error);
	assert_string_equal(br_buf_str(&r.out), "x\ntimeout\n");
	val_ssh_result_release(&r);
	fx.o.limit_option = "--time-limit";
	assert_int_equal(run1(&fx.o, port, &r), 0);
	if (!r.ok)
		fail_msg("%s", r.error);
	assert_non_null(strstr(br_buf_str(&r.out), "--time-limit 42 x\n"));
	assert_null(strstr(br_buf_str(&r.out), "timeout"));
	val_ssh_result_release(&r);
	fixture_release(&fx);
}

static void test_refusals_and_limits(void **state)
{
	static const char *const sleeper[] = { "sleep", "30", NULL };
	struct fixture fx;
	struct val_ssh_result r;
	char *wrong;
	int64_t t0;

	(void)state;
	fixture_init(&fx);
	fx.o.host_keys = VAL_SSH_ACCEPT_NEW;
	unlink(fx.known);
	fx.o.args = sleeper;

	/* A key the node does not know. */
	wrong = path("wrongkey");
	fx.o.private_key = wrong;
	assert_int_equal(run1(&fx.o, port, &r), 0);
	assert_int_equal(r.ok, 0);
	assert_non_null(strstr(r.error, "public key authentication"));
	assert_non_null(strstr(r.error, "refused"));
	val_ssh_result_release(&r);
	fx.o.private_key = fx.key;

	/* A command past its time limit is ended, and said so. */
	fx.o.run_timeout_ms = 800;
	t0 = br_now_ms();
	assert_int_equal(run1(&fx.o, port, &r), 0);
	assert_int_equal(r.ok, 0);
	assert_non_null(strstr(r.error, "command: no answer within"));
	assert_true(br_now_ms() - t0 < 10000);
	val_ssh_result_release(&r);

	/* Nothing listening. */
	assert_int_equal(run1(&fx.o, free_port(), &r), 0);
	assert_int_equal(r.ok, 0);
	assert_non_null(strstr(r.error, "connect: Connection refused"));
	val_ssh_result_release(&r);
	free(wrong);
	fixture_release(&fx);
}

/* A server that closes every connection before its banner: the runner
 * connects once more (nothing can have run), then reports the handshake. */
static void test_handshake_retried_once(void **state)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	int lfd = socket(AF_INET, SOCK_STREAM, 0), seen[2], fd;
	struct fixture fx;
	struct val_ssh_result r;
	char tally[16];
	ssize_t got;
	pid_t child;

	(void)state;
	assert_true(lfd >= 0);
	assert_int_equal(bind(lfd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(getsockname(lfd, (struct sockaddr *)&a, &len), 0);
	assert_int_equal(listen(lfd, 8), 0);
	assert_int_equal(pipe(seen), 0);
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		alarm(60);
		close(seen[0]);
		/* Counted before the close the runner sees: counted after
		 * it, the count could still be unwritten when the runner has
		 * given up and this server is ended (seen on a loaded machine). */
		while ((fd = accept(lfd, NULL, NULL)) >= 0) {
			if (write(seen[1], "c", 1) != 1)
				_exit(1);
			close(fd);
		}
		_exit(0);
	}
	close(lfd);
	close(seen[1]);
	fixture_init(&fx);
	fx.o.host_keys = VAL_SSH_ACCEPT_NEW;
	fx.o.args = (const char *const[]){ "true", NULL };
	assert_int_equal(run1(&fx.o, ntohs(a.sin_port), &r), 0);
	kill(child, SIGTERM);
	waitpid(child, NULL, 0);
	got = read(seen[0], tally, sizeof(tally));
	close(seen[0]);
	assert_int_equal(r.ok, 0);
	assert_non_null(strstr(r.error, "SSH handshake:"));
	assert_int_equal(got, 2);
	val_ssh_result_release(&r);
	fixture_release(&fx);
}

struct counter {
	int active, peak, finished;
};

static void on_done(void *ctx, size_t index, const struct val_ssh_result *r)
{
	struct counter *c = ctx;

	(void)index;
	(void)r;
	c->finished++;
}

/* Issue 28: the file is read as OpenSSH reads it (`ssh -G`). Include and
 * Match used to be ignored or refused, and a ProxyJump dropped silently, so
 * validate connected around the site's bastion. */
static void test_ssh_config_as_ssh_reads_it(void **state)
{
	char tmp[] = "/tmp/test_ssh_config.XXXXXX", *main_conf, *inc, *bad;
	struct val_ssh_config *cfg = NULL;
	struct val_ssh_host h;
	struct br_err err = { 0 };
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(tmp));
	main_conf = br_xasprintf("%s/config", tmp);
	inc = br_xasprintf("%s/nodes.conf", tmp);
	bad = br_xasprintf("%s/bad.conf", tmp);
	f = fopen(inc, "w");
	fprintf(f, "Host gpu-r01-*\n\tHostName %%h.mgmt.example\n\tPort 2201\n");
	fclose(f);
	f = fopen(main_conf, "w");
	fprintf(f,
		"Include %s\n"
		"Match host gpu-r02-u01\n\tHostName 10.2.0.1\n\tUser ops\n"
		"Host gpu-r03-*\n\tProxyJump bastion.example\n"
		"Host gpu-r04-*\n\tProxyCommand nc -X connect %%h %%p\n",
		inc);
	fclose(f);
	f = fopen(bad, "w");
	fprintf(f, "Host x\n\tNoSuchKeyword yes\n");
	fclose(f);

	assert_int_equal(val_ssh_config_load(main_conf, &cfg, &err), 0);
	/* Include, with the %h token (the name asked for). */
	assert_int_equal(val_ssh_config_lookup(cfg, "gpu-r01-u03", &h, &err), 0);
	assert_string_equal(h.hostname, "gpu-r01-u03.mgmt.example");
	assert_int_equal(h.port, 2201);
	assert_null(h.user);
	val_ssh_host_release(&h);
	/* Match. */
	assert_int_equal(val_ssh_config_lookup(cfg, "gpu-r02-u01", &h, &err), 0);
	assert_string_equal(h.hostname, "10.2.0.1");
	assert_string_equal(h.user, "ops");
	assert_int_equal(h.port, 0);
	val_ssh_host_release(&h);
	/* A name the file does not know: nothing set. */
	assert_int_equal(val_ssh_config_lookup(cfg, "Other-Node", &h, &err), 0);
	assert_null(h.hostname);
	assert_null(h.user);
	assert_null(h.identity_file);
	assert_int_equal(h.port, 0);
	val_ssh_host_release(&h);
	/* A jump host is taken; a proxy command the runner cannot run is named. */
	assert_int_equal(val_ssh_config_lookup(cfg, "gpu-r03-u01", &h, &err), 0);
	assert_string_equal(h.proxy_jump, "bastion.example");
	assert_null(h.hostname);
	val_ssh_host_release(&h);
	assert_int_equal(val_ssh_config_lookup(cfg, "gpu-r04-u01", &h, &err), BR_E_UNSUPPORTED);
	assert_non_null(strstr(err.msg, "ProxyCommand nc -X connect"));
	val_ssh_config_free(cfg);
	/* ssh's own message for a file it cannot read. */
	assert_int_equal(val_ssh_config_load(bad, &cfg, &err), BR_E_INVAL);
	assert_non_null(strstr(err.msg, "line 2: Bad configuration option: nosuchkeyword"));
	assert_int_equal(val_ssh_config_load("/nonexistent/ssh_config", &cfg, &err), BR_E_NOTFOUND);

	/* The parser on what OpenSSH 9.2p1 (Debian 12) printed for a host. */
	{
		static const char printed[] =
		    "host n1\nuser ops\nhostname 10.0.0.5\nport 2222\n"
		    "identityfile ~/.ssh/id_rsa\nidentityfile ~/.ssh/id_ed25519\n"
		    "userknownhostsfile /root/.ssh/known_hosts /root/.ssh/known_hosts2\n"
		    "proxyjump bastion\nproxycommand none\n";

		assert_int_equal(val_ssh_g_parse(printed, sizeof(printed) - 1, &h, &err), 0);
		assert_string_equal(h.identity_file, "~/.ssh/id_rsa");
		assert_string_equal(h.known_hosts, "/root/.ssh/known_hosts");
		assert_string_equal(h.proxy_jump, "bastion");
		assert_null(h.proxy_command);
		val_ssh_host_release(&h);
		assert_int_equal(val_ssh_g_parse("port 70000\nhostname x\n", 22, &h, &err), BR_E_PROTO);
		assert_int_equal(val_ssh_g_parse("user x\n", 7, &h, &err), BR_E_PROTO);
	}
	unlink(main_conf);
	unlink(inc);
	unlink(bad);
	rmdir(tmp);
	free(main_conf);
	free(inc);
	free(bad);
}

static void test_many_at_once(void **state)
{
	static const char *const cmd[] = { "sh", "-c", "echo $$; sleep 0.3", NULL };
	struct fixture fx;
	struct val_ssh_target t[12];
	struct val_ssh_result r[12];
	struct counter count = { 0 };
	struct br_loop *loop = NULL;
	struct br_err err = { 0 };
	int64_t t0;

	(void)state;
	fixture_init(&fx);
	fx.o.host_keys = VAL_SSH_ACCEPT_NEW;
	fx.o.args = cmd;
	fx.o.max_parallel = 4;
	for (int i = 0; i < 12; i++)
		t[i] = (struct val_ssh_target){ "node", "127.0.0.1", port, NULL };
	assert_int_equal(br_loop_new(&loop, &err), 0);
	t0 = br_now_ms();
	assert_int_equal(val_ssh_run(loop, t, 12, &fx.o, r, on_done, &count, &err), 0);
	/* 12 commands of 0.3 s, 4 at a time: at least 3 rounds. */
	assert_true(br_now_ms() - t0 >= 900);
	assert_int_equal(count.finished, 12);
	for (int i = 0; i < 12; i++) {
		if (!r[i].ok)
			fail_msg("%d: %s", i, r[i].error);
		assert_int_equal(r[i].exit_status, 0);
		val_ssh_result_release(&r[i]);
	}
	br_loop_free(loop);
	fixture_release(&fx);
}

/* In a worker, even nodes are answered by the hook instead of the output. */
static int reply_even(void *ctx, size_t index, const struct val_ssh_result *r, struct br_buf *reply)
{
	int *ends = ctx;

	if (!r) {
		(*ends)++; /* the worker's copy: never seen here */
		return 0;
	}
	if (index % 2 || !r->ok)
		return 0;
	return br_buf_addf(reply, "reply %zu", index) == 0;
}

/* val_ssh_run_workers (ssh_pool.c on common/pool.h): every node's result
 * crosses the pool's line byte for byte (output that is not UTF-8, NUL
 * included), as it is with no workers, and a hook's reply travels in its
 * place; a node that cannot be reached keeps its reason and kind. */
static void test_workers_bytes_intact(void **state)
{
	static const char *const cmd[] = { "sh", "-c",
					   "printf '\\377\\000\\376 out'; printf '\\200 err' >&2; exit 3",
					   NULL };
	static const char out[] = "\377\000\376 out", err_text[] = "\200 err";
	struct fixture fx;
	struct val_ssh_target t[7];
	struct val_ssh_result one[7], three[7];
	struct br_err err = { 0 };
	int ends = 0;

	(void)state;
	fixture_init(&fx);
	fx.o.host_keys = VAL_SSH_ACCEPT_NEW;
	fx.o.args = cmd;
	for (int i = 0; i < 6; i++)
		t[i] = (struct val_ssh_target){ "node", "127.0.0.1", port, NULL };
	t[6] = (struct val_ssh_target){ "gone", "127.0.0.1", 1, NULL };
	assert_int_equal(val_ssh_run_workers(t, 7, &fx.o, 1, one, reply_even, NULL, &ends, &err), 0);
	assert_int_equal(val_ssh_run_workers(t, 7, &fx.o, 3, three, reply_even, NULL, &ends, &err), 0);
	assert_int_equal(ends, 0);
	for (int i = 0; i < 6; i++) {
		char want[32];

		if (!three[i].ok)
			fail_msg("%d: %s", i, three[i].error);
		assert_int_equal(one[i].ok, 1);
		assert_int_equal(three[i].exit_status, 3);
		assert_int_equal(one[i].exit_status, 3);
		assert_int_equal(one[i].replied, 0); /* the hook runs only in workers */
		assert_int_equal(three[i].replied, i % 2 == 0);
		snprintf(want, sizeof(want), "reply %d", i);
		if (i % 2 == 0) {
			assert_int_equal(three[i].out.len, strlen(want));
			assert_memory_equal(three[i].out.data, want, strlen(want));
		} else {
			assert_int_equal(three[i].out.len, sizeof(out) - 1);
			assert_memory_equal(three[i].out.data, out, sizeof(out) - 1);
		}
		assert_int_equal(one[i].out.len, sizeof(out) - 1);
		assert_memory_equal(one[i].out.data, out, sizeof(out) - 1);
		assert_int_equal(three[i].err.len, sizeof(err_text) - 1);
		assert_memory_equal(three[i].err.data, err_text, sizeof(err_text) - 1);
		assert_true(three[i].ms >= 0 && three[i].run_end_ms >= three[i].run_start_ms);
	}
	assert_int_equal(three[6].ok, 0);
	assert_int_equal(one[6].ok, 0);
	assert_string_equal(three[6].error, one[6].error);
	assert_int_equal(three[6].failure, one[6].failure);
	assert_int_not_equal(three[6].failure, BR_FAIL_NONE);
	for (int i = 0; i < 7; i++) {
		val_ssh_result_release(&one[i]);
		val_ssh_result_release(&three[i]);
	}
	fixture_release(&fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_upload_once_and_host_keys),
		cmocka_unit_test(test_own_status_97),
		cmocka_unit_test(test_copy_not_installed),
		cmocka_unit_test(test_limit_option),
		cmocka_unit_test(test_refusals_and_limits),
		cmocka_unit_test(test_handshake_retried_once),
		cmocka_unit_test(test_many_at_once),
		cmocka_unit_test(test_ssh_config_as_ssh_reads_it),
		cmocka_unit_test(test_answer_read_by_the_other_stream),
		cmocka_unit_test(test_known_key_type_asked_for),
		cmocka_unit_test(test_workers_bytes_intact),
	};

	return cmocka_run_group_tests(tests, start_sshd, stop_sshd);
}
