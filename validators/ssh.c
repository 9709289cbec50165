/* The SSH runner: one state machine per node over a non-blocking libssh2
 * session, driven by its socket's readiness on the event loop. */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include <libssh2.h>
#include <libssh2_sftp.h>
#include <openssl/evp.h>

#include "ssh.h"

#define WRITE_CHUNK (32u << 10)

/* What the first command says when the node has no current copy: this
 * exit status and exactly this line on stdout (a probe prints JSON, never
 * this), so the copy is made and the command run again. */
#define NO_COPY_STATUS 97
#define NO_COPY_TEXT "bringup-ssh: no current copy of the file to run"
#define NO_COPY_LINE NO_COPY_TEXT "\n"

/* A server that closes the connection before or during the handshake
 * (sshd dropping it under load, a fork that failed there) has run nothing:
 * the connection is made once more, after a pause. */
#define HANDSHAKE_RETRIES 1
#define HANDSHAKE_RETRY_MS 250

enum step {
	S_CONNECT,
	S_HANDSHAKE,
	S_HOSTKEY,
	S_AUTH,
	S_TRY,
	S_SFTP_INIT,
	S_SFTP_OPEN,
	S_SFTP_WRITE,
	S_SFTP_CLOSE,
	S_SFTP_DOWN,
	S_RUN,
	S_BYE,
	S_DONE
};

static const char *const step_names[] = {
	[S_CONNECT] = "connect",
	[S_HANDSHAKE] = "SSH handshake",
	[S_HOSTKEY] = "host key check",
	[S_AUTH] = "public key authentication",
	[S_TRY] = "command",
	[S_SFTP_INIT] = "SFTP start",
	[S_SFTP_OPEN] = "SFTP open",
	[S_SFTP_WRITE] = "SFTP write",
	[S_SFTP_CLOSE] = "SFTP close",
	[S_SFTP_DOWN] = "SFTP end",
	[S_RUN] = "command",
	[S_BYE] = "disconnect",
	[S_DONE] = "done",
};

/* One command on a channel: open, exec, read both streams to EOF, close,
 * exit status. */
struct exec {
	LIBSSH2_CHANNEL *ch;
	int phase;
	struct br_buf out, err;
	int out_over;
	int status;
};

struct run;

struct conn {
	struct run *run;
	size_t index;
	int fd;
	struct br_loop_fd *watch;
	struct br_loop_timer deadline, retry;
	int retries;
	LIBSSH2_SESSION *s;
	LIBSSH2_SFTP *sftp;
	LIBSSH2_SFTP_HANDLE *fh;
	size_t sent;
	enum step step;
	struct exec ex;
	int need_upload;
	int64_t start_ms;
	char *part, *upload_cmd; /* the copy's temporary name, and the command that installs and runs it */
};

struct run {
	struct br_loop *loop;
	const struct val_ssh_options *o;
	const struct val_ssh_target *targets;
	struct val_ssh_result *results;
	size_t n, next, active;
	val_ssh_done_fn done;
	void *ctx;
	struct conn *conns;
	int starting;
	const char *data; /* the file to upload: own's, or the caller's upload_file */
	size_t len;
	struct val_ssh_file own;
	/* known_hosts, read once and found whole (see known_hosts_load); NULL:
	 * each connection reads the file */
	char *known;
	size_t known_len;
	char *remote;		 /* its path there, named after its digest */
	char *try_cmd, *run_cmd; /* try_cmd: run the node's copy if its digest is right */
};

void val_shell_quote(struct br_buf *b, const char *s)
{
	br_buf_adds(b, "'");
	for (; *s; s++)
		br_buf_adds(b, *s == '\'' ? "'\\''" : (char[]){ *s, 0 });
	br_buf_adds(b, "'");
}

void val_ssh_options_init(struct val_ssh_options *o)
{
	memset(o, 0, sizeof(*o));
	o->user = "ubuntu";
	o->remote_dir = "/var/tmp";
	o->connect_timeout_ms = 15000;
	o->run_timeout_ms = 120000;
	/* The work runs on the nodes; here each session is a socket and a
	 * handshake's few milliseconds of CPU. 32 made a 64-node rack two
	 * waves, so validation took twice its slowest node; 128 lets a rack of
	 * 512 go in four, and keeps a burst of first copies (2.4 MiB each)
	 * within what one provisioning link carries in a second or two. */
	o->max_parallel = VAL_SSH_PARALLEL_DEFAULT;
}

void val_ssh_result_release(struct val_ssh_result *r)
{
	free(r->error);
	br_buf_release(&r->out);
	br_buf_release(&r->err);
	memset(r, 0, sizeof(*r));
}

/* ---- finishing ---------------------------------------------------------------- */

static void start_next(struct run *run);

static void conn_close(struct conn *c)
{
	/* A session with a channel still open (a command past its limit)
	 * says goodbye on the socket, and in non-blocking mode would answer
	 * EAGAIN and free nothing: shut the socket first so every send fails
	 * at once. */
	if (c->fd >= 0)
		shutdown(c->fd, SHUT_RDWR);
	if (c->ex.ch)
		libssh2_channel_free(c->ex.ch);
	if (c->fh)
		libssh2_sftp_close_handle(c->fh);
	if (c->sftp)
		libssh2_sftp_shutdown(c->sftp);
	if (c->s) {
		if (libssh2_session_free(c->s) == LIBSSH2_ERROR_EAGAIN) {
			libssh2_session_set_blocking(c->s, 1);
			libssh2_session_set_timeout(c->s, 1000);
			libssh2_session_free(c->s);
		}
	}
	br_loop_fd_del(c->watch);
	if (c->fd >= 0)
		close(c->fd);
	br_loop_timer_stop(c->run->loop, &c->deadline);
	br_loop_timer_stop(c->run->loop, &c->retry);
	br_buf_release(&c->ex.out);
	br_buf_release(&c->ex.err);
	free(c->part);
	free(c->upload_cmd);
	c->part = c->upload_cmd = NULL;
	c->ex.ch = NULL;
	c->fh = NULL;
	c->sftp = NULL;
	c->s = NULL;
	c->watch = NULL;
	c->fd = -1;
}

static void conn_finish(struct conn *c)
{
	struct run *run = c->run;
	struct val_ssh_result *r = &run->results[c->index];

	r->ms = br_now_ms() - c->start_ms;
	conn_close(c);
	c->step = S_DONE;
	run->active--;
	br_loop_unhold(run->loop);
	if (run->done)
		run->done(run->ctx, c->index, r);
	start_next(run);
}

static void conn_fail(struct conn *c, const char *fmt, ...) BR_PRINTF(2, 3);
static void conn_fail(struct conn *c, const char *fmt, ...)
{
	const struct val_ssh_target *t = &c->run->targets[c->index];
	struct val_ssh_result *r = &c->run->results[c->index];
	struct br_buf b;
	va_list ap;

	br_buf_init(&b, 0);
	br_buf_addf(&b, "ssh %s (%s:%d): %s: ", t->name, t->address, t->port ? t->port : 22,
		    step_names[c->step]);
	va_start(ap, fmt);
	br_buf_vaddf(&b, fmt, ap);
	va_end(ap);
	free(r->error);
	r->error = br_buf_detach(&b);
	r->ok = 0;
	conn_finish(c);
}

static const char *ssh_error(struct conn *c)
{
	char *msg = NULL;

	if (c->s)
		libssh2_session_last_error(c->s, &msg, NULL, 0);
	return msg && *msg ? msg : "failed";
}

/* ---- host keys ---------------------------------------------------------------- */

static int key_bits(int hostkey_type)
{
	switch (hostkey_type) {
	case LIBSSH2_HOSTKEY_TYPE_RSA:
		return LIBSSH2_KNOWNHOST_KEY_SSHRSA;
	case LIBSSH2_HOSTKEY_TYPE_DSS:
		return LIBSSH2_KNOWNHOST_KEY_SSHDSS;
#ifdef LIBSSH2_HOSTKEY_TYPE_ECDSA_256
	case LIBSSH2_HOSTKEY_TYPE_ECDSA_256:
		return LIBSSH2_KNOWNHOST_KEY_ECDSA_256;
	case LIBSSH2_HOSTKEY_TYPE_ECDSA_384:
		return LIBSSH2_KNOWNHOST_KEY_ECDSA_384;
	case LIBSSH2_HOSTKEY_TYPE_ECDSA_521:
		return LIBSSH2_KNOWNHOST_KEY_ECDSA_521;
#endif
#ifdef LIBSSH2_HOSTKEY_TYPE_ED25519
	case LIBSSH2_HOSTKEY_TYPE_ED25519:
		return LIBSSH2_KNOWNHOST_KEY_ED25519;
#endif
	default:
		return LIBSSH2_KNOWNHOST_KEY_UNKNOWN;
	}
}

/* "SHA256:…" as ssh-keygen -l prints it (base64 without padding). */
static char *fingerprint(LIBSSH2_SESSION *s)
{
	const unsigned char *hash =
	    (const unsigned char *)libssh2_hostkey_hash(s, LIBSSH2_HOSTKEY_HASH_SHA256);
	unsigned char b64[64];
	int n;

	if (!hash)
		return br_xstrdup("(no fingerprint)");
	n = EVP_EncodeBlock(b64, hash, 32);
	while (n > 0 && b64[n - 1] == '=')
		n--;
	return br_xasprintf("SHA256:%.*s", n, (const char *)b64);
}

/* accept-new: one appended line per new host, so concurrent sessions never
 * rewrite each other's additions. */
static int append_known_host(LIBSSH2_KNOWNHOSTS *kh, struct libssh2_knownhost *entry, const char *path,
			     char **ret_why)
{
	char line[4096];
	size_t len = 0;
	int fd, rc;

	rc = libssh2_knownhost_writeline(kh, entry, line, sizeof(line), &len, LIBSSH2_KNOWNHOST_FILE_OPENSSH);
	if (rc) {
		*ret_why = br_xstrdup("cannot format the known_hosts line");
		return -1;
	}
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0 || write(fd, line, len) != (ssize_t)len) {
		*ret_why = br_xasprintf("cannot add to %s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

/* The first word of a known_hosts line (its host patterns) can name host:
 * a hashed or marked line, or one whose patterns contain host (any case).
 * libssh2 matches plain names whole, so a line whose patterns do not
 * contain the address cannot match it. */
static int line_may_name(const char *line, const char *end, const char *host)
{
	size_t hlen = strlen(host);
	const char *word_end;

	while (line < end && (*line == ' ' || *line == '\t'))
		line++;
	if (line == end || *line == '|' || *line == '@')
		return 1;
	if (*line == '#')
		return 0;
	for (word_end = line; word_end < end && *word_end != ' ' && *word_end != '\t'; word_end++)
		;
	for (const char *p = line; hlen && (size_t)(word_end - p) >= hlen; p++)
		if (!strncasecmp(p, host, hlen))
			return 1;
	return 0;
}

/* Each line of known (lines as fgets would cut them, the way libssh2 reads
 * the file) that may name host, or every line when host is NULL, handed
 * to kh; -1 at the first line libssh2 cannot read. */
static int known_hosts_feed(LIBSSH2_KNOWNHOSTS *kh, const char *known, size_t len, const char *host)
{
	char line[4092];
	const char *at = known, *end = known + len;

	while (at < end) {
		const char *nl = memchr(at, '\n', (size_t)(end - at));
		size_t n = nl ? (size_t)(nl - at) + 1 : (size_t)(end - at);

		if (n > sizeof(line) - 1)
			n = sizeof(line) - 1;
		if (!host || line_may_name(at, at + n, host)) {
			memcpy(line, at, n);
			line[n] = '\0';
			if (libssh2_knownhost_readline(kh, line, n, LIBSSH2_KNOWNHOST_FILE_OPENSSH))
				return -1;
		}
		at += n;
	}
	return 0;
}

/* Reading the whole known_hosts file for every connection parsed every
 * line (2 ms a connection at 512 lines, 512 connections). Under the strict
 * policy (nothing writes the file) a file that reads whole is kept, and
 * each connection is given only the lines that can name its host; one
 * that does not (absent, unreadable, a line libssh2 refuses) is left to
 * each connection, which says why, as before. */
static void known_hosts_load(struct run *run)
{
	LIBSSH2_SESSION *s = libssh2_session_init();
	LIBSSH2_KNOWNHOSTS *kh = s ? libssh2_knownhost_init(s) : NULL;
	char *text = NULL;
	size_t len = 0;

	if (kh && !br_read_file(run->o->known_hosts, VAL_SSH_KNOWN_HOSTS_MAX, &text, &len, NULL) &&
	    !known_hosts_feed(kh, text, len, NULL)) {
		run->known = text;
		run->known_len = len;
		text = NULL;
	}
	free(text);
	if (kh)
		libssh2_knownhost_free(kh);
	if (s)
		libssh2_session_free(s);
}

/* NULL when the key is known (or newly recorded under accept-new), else
 * why the connection must not go on (the caller's). */
static char *host_key_problem(struct conn *c)
{
	const struct val_ssh_target *t = &c->run->targets[c->index];
	const struct val_ssh_options *o = c->run->o;
	int port = t->port ? t->port : 22, type = 0, bits;
	size_t keylen = 0;
	const char *key = libssh2_session_hostkey(c->s, &keylen, &type);
	LIBSSH2_KNOWNHOSTS *kh = key ? libssh2_knownhost_init(c->s) : NULL;
	struct libssh2_knownhost *found = NULL, *added = NULL;
	char *fp = fingerprint(c->s), *why = NULL, *entry_name;

	bits = key_bits(type);
	if (!kh) {
		why = br_xstrdup("no host key from the server");
		goto out;
	}
	/* A missing file knows no host: strict then refuses with the key's
	 * fingerprint, which is what the operator needs to add it. */
	if (c->run->known
		? known_hosts_feed(kh, c->run->known, c->run->known_len, t->address) < 0
		: libssh2_knownhost_readfile(kh, o->known_hosts, LIBSSH2_KNOWNHOST_FILE_OPENSSH) < 0 &&
		      access(o->known_hosts, F_OK) == 0) {
		why = br_xasprintf("cannot read known_hosts file %s", o->known_hosts);
		goto out;
	}
	switch (libssh2_knownhost_checkp(kh, t->address, port, key, keylen,
					 LIBSSH2_KNOWNHOST_TYPE_PLAIN | LIBSSH2_KNOWNHOST_KEYENC_RAW | bits,
					 &found)) {
	case LIBSSH2_KNOWNHOST_CHECK_MATCH:
		break;
	case LIBSSH2_KNOWNHOST_CHECK_MISMATCH:
		why = br_xasprintf(
		    "the host key changed (now %s): refusing to connect; if the node was reinstalled, "
		    "remove its old line from %s (ssh-keygen -R '[%s]:%d' -f %s)",
		    fp, o->known_hosts, t->address, port, o->known_hosts);
		break;
	case LIBSSH2_KNOWNHOST_CHECK_NOTFOUND:
		if (o->host_keys != VAL_SSH_ACCEPT_NEW) {
			why = br_xasprintf(
			    "unknown host key %s and the host key policy is strict: add the node's key "
			    "to %s, or run once with --host-key-policy accept-new",
			    fp, o->known_hosts);
			break;
		}
		entry_name = port == 22 ? br_xstrdup(t->address) : br_xasprintf("[%s]:%d", t->address, port);
		if (libssh2_knownhost_addc(kh, entry_name, NULL, key, keylen, NULL, 0,
					   LIBSSH2_KNOWNHOST_TYPE_PLAIN | LIBSSH2_KNOWNHOST_KEYENC_RAW | bits,
					   &added)) {
			why = br_xstrdup("cannot record the host key");
		} else if (!append_known_host(kh, added, o->known_hosts, &why)) {
			br_log(BR_LOG_INFO, "ssh", "%s: recorded new host key %s for %s in %s", t->name, fp,
			       entry_name, o->known_hosts);
		}
		/* the file changed: the connections after this one read it */
		free(c->run->known);
		c->run->known = NULL;
		free(entry_name);
		break;
	default:
		why = br_xasprintf("cannot check the host key against %s", o->known_hosts);
		break;
	}
out:
	if (kh)
		libssh2_knownhost_free(kh);
	free(fp);
	return why;
}

/* ---- commands ------------------------------------------------------------------ */

/* 0 done, 1 wait, -1 failed (reported). */
static int exec_step(struct conn *c, const char *cmd, size_t out_max)
{
	struct exec *ex = &c->ex;
	char buf[16384];
	ssize_t got;
	int rc, again;

	switch (ex->phase) {
	case 0:
		ex->ch = libssh2_channel_open_session(c->s);
		if (!ex->ch) {
			if (libssh2_session_last_errno(c->s) == LIBSSH2_ERROR_EAGAIN)
				return 1;
			conn_fail(c, "cannot open a channel: %s", ssh_error(c));
			return -1;
		}
		ex->phase = 1;
		/* fall through */
	case 1:
		rc = libssh2_channel_exec(ex->ch, cmd);
		if (rc == LIBSSH2_ERROR_EAGAIN)
			return 1;
		if (rc) {
			conn_fail(c, "cannot start the command: %s", ssh_error(c));
			return -1;
		}
		br_buf_release(&ex->out);
		br_buf_release(&ex->err);
		br_buf_init(&ex->out, out_max);
		br_buf_init(&ex->err, VAL_SSH_ERR_MAX);
		ex->out_over = 0;
		ex->phase = 2;
		/* fall through */
	case 2:
		do {
			again = 0;
			while ((got = libssh2_channel_read(ex->ch, buf, sizeof(buf))) > 0) {
				if (br_buf_add(&ex->out, buf, (size_t)got))
					ex->out_over = 1;
				again = 1;
			}
			if (got < 0 && got != LIBSSH2_ERROR_EAGAIN) {
				conn_fail(c, "reading its output: %s", ssh_error(c));
				return -1;
			}
			/* stderr past its cap is read and dropped: an unread
			 * stream would stall the channel's window. */
			while ((got = libssh2_channel_read_stderr(ex->ch, buf, sizeof(buf))) > 0) {
				br_buf_add(&ex->err, buf, (size_t)got);
				again = 1;
			}
		} while (again);
		if (!libssh2_channel_eof(ex->ch))
			return 1;
		ex->phase = 3;
		/* fall through */
	case 3:
		rc = libssh2_channel_close(ex->ch);
		if (rc == LIBSSH2_ERROR_EAGAIN)
			return 1;
		ex->phase = 4;
		/* fall through */
	case 4: {
		char *sig = NULL;
		size_t siglen = 0;

		rc = libssh2_channel_wait_closed(ex->ch);
		if (rc == LIBSSH2_ERROR_EAGAIN)
			return 1;
		ex->status = libssh2_channel_get_exit_status(ex->ch);
		if (!libssh2_channel_get_exit_signal(ex->ch, &sig, &siglen, NULL, NULL, NULL, NULL) && sig) {
			static const char *const names[] = { "HUP",  "INT",  "QUIT", "ILL",  "TRAP",
							     "ABRT", "BUS",  "FPE",  "KILL", "USR1",
							     "SEGV", "USR2", "PIPE", "ALRM", "TERM" };
			for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
				if (!strcmp(sig, names[i]))
					ex->status = 128 + (int)i + 1;
			libssh2_free(c->s, sig);
		}
		libssh2_channel_free(ex->ch);
		ex->ch = NULL;
		ex->phase = 0;
		return 0;
	}
	}
	return 0;
}

static void upload_names(struct conn *c);
static void conn_retry(struct conn *c);

/* ---- the steps ------------------------------------------------------------------ */

/* The command has exited: its output and status are the node's result. */
static int take_result(struct conn *c)
{
	struct val_ssh_result *r = &c->run->results[c->index];

	r->run_end_ms = br_now_ms();
	if (c->ex.out_over) {
		conn_fail(c, "output larger than %u bytes", VAL_SSH_OUT_MAX);
		return -1;
	}
	r->ok = 1;
	r->exit_status = c->ex.status;
	r->out = c->ex.out;
	r->err = c->ex.err;
	memset(&c->ex.out, 0, sizeof(c->ex.out));
	memset(&c->ex.err, 0, sizeof(c->ex.err));
	return 0;
}

/* The common case in one exec: the node's copy, when its digest is right,
 * is run at once (run->try_cmd); when it is absent or differs the command
 * says so (NO_COPY_STATUS and NO_COPY_LINE) and the copy is made, then
 * installed and run by a second command. Without a file to copy, this is
 * the command itself. */
static int try_step(struct conn *c)
{
	struct run *run = c->run;
	struct val_ssh_result *r = &run->results[c->index];
	int rc;

	/* The command starts once the channel is open: the window the
	 * command's clock reading falls in starts here (validate's skew). */
	if (c->ex.phase == 0)
		r->run_start_ms = br_now_ms();
	rc = exec_step(c, run->data ? run->try_cmd : run->run_cmd, VAL_SSH_OUT_MAX);
	if (rc)
		return rc;
	if (run->data && c->ex.status == NO_COPY_STATUS && c->ex.out.len == strlen(NO_COPY_LINE) &&
	    !memcmp(c->ex.out.data, NO_COPY_LINE, c->ex.out.len)) {
		c->need_upload = 1;
		r->run_start_ms = 0;
		br_buf_release(&c->ex.out);
		br_buf_release(&c->ex.err);
		/* Copying gets the command's time limit afresh. */
		br_loop_timer_start(run->loop, &c->deadline, run->o->run_timeout_ms);
		return 0;
	}
	return take_result(c);
}

static int sftp_again(struct conn *c, const char *what)
{
	if (libssh2_session_last_errno(c->s) == LIBSSH2_ERROR_EAGAIN)
		return 1;
	if (c->sftp && libssh2_session_last_errno(c->s) == LIBSSH2_ERROR_SFTP_PROTOCOL)
		conn_fail(c, "%s: SFTP error %lu", what, libssh2_sftp_last_error(c->sftp));
	else
		conn_fail(c, "%s: %s", what, ssh_error(c));
	return -1;
}

/* Run the step the connection is at: 0 it finished (go on), 1 wait for
 * the socket, -1 the connection failed (already reported). */
static int do_step(struct conn *c)
{
	struct run *run = c->run;
	const struct val_ssh_options *o = run->o;
	struct val_ssh_result *r = &run->results[c->index];
	int rc, soerr = 0;
	socklen_t sl = sizeof(soerr);

	switch (c->step) {
	case S_CONNECT:
		if (getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) || soerr == EINPROGRESS)
			return 1;
		if (soerr) {
			conn_fail(c, "%s", strerror(soerr));
			return -1;
		}
		return 0;
	case S_HANDSHAKE:
		rc = libssh2_session_handshake(c->s, c->fd);
		if (rc == LIBSSH2_ERROR_EAGAIN)
			return 1;
		if ((rc == LIBSSH2_ERROR_SOCKET_DISCONNECT || rc == LIBSSH2_ERROR_SOCKET_RECV) &&
		    c->retries < HANDSHAKE_RETRIES) {
			conn_retry(c);
			return -1;
		}
		if (rc) {
			conn_fail(c, "%s", ssh_error(c));
			return -1;
		}
		return 0;
	case S_HOSTKEY: {
		char *why = host_key_problem(c);

		if (!why)
			return 0;
		conn_fail(c, "%s", why);
		free(why);
		return -1;
	}
	case S_AUTH:
		rc = libssh2_userauth_publickey_fromfile_ex(c->s, o->user, (unsigned)strlen(o->user), NULL,
							    o->private_key, NULL);
		if (rc == LIBSSH2_ERROR_EAGAIN)
			return 1;
		if (rc) {
			conn_fail(
			    c,
			    "user %s with key %s refused (%s): is the validators' public key in the node's "
			    "authorized_keys?",
			    o->user, o->private_key, ssh_error(c));
			return -1;
		}
		/* Logged in: checking and copying the file get the command's
		 * time limit, not the connect limit (a 5 MiB copy to a busy node
		 * outlasts a handshake). */
		br_loop_timer_start(run->loop, &c->deadline, o->run_timeout_ms);
		return 0;
	case S_TRY:
		return try_step(c);
	case S_SFTP_INIT:
		if (!c->need_upload)
			return 0;
		c->sftp = libssh2_sftp_init(c->s);
		return c->sftp ? 0 : sftp_again(c, "cannot start SFTP");
	case S_SFTP_OPEN:
		if (!c->need_upload)
			return 0;
		if (!c->part)
			upload_names(c);
		c->fh = libssh2_sftp_open_ex(c->sftp, c->part, (unsigned)strlen(c->part),
					     LIBSSH2_FXF_WRITE | LIBSSH2_FXF_CREAT | LIBSSH2_FXF_TRUNC,
					     LIBSSH2_SFTP_S_IRWXU, LIBSSH2_SFTP_OPENFILE);
		return c->fh ? 0 : sftp_again(c, c->part);
	case S_SFTP_WRITE:
		while (c->need_upload && c->sent < run->len) {
			size_t chunk = run->len - c->sent < WRITE_CHUNK ? run->len - c->sent : WRITE_CHUNK;
			ssize_t put = libssh2_sftp_write(c->fh, run->data + c->sent, chunk);

			if (put == LIBSSH2_ERROR_EAGAIN)
				return 1;
			if (put < 0)
				return sftp_again(c, c->part);
			c->sent += (size_t)put;
		}
		return 0;
	case S_SFTP_CLOSE:
		if (c->fh) {
			rc = libssh2_sftp_close_handle(c->fh);
			if (rc == LIBSSH2_ERROR_EAGAIN)
				return 1;
			c->fh = NULL;
			if (rc)
				return sftp_again(c, c->part);
		}
		return 0;
	case S_SFTP_DOWN:
		if (c->sftp) {
			rc = libssh2_sftp_shutdown(c->sftp);
			if (rc == LIBSSH2_ERROR_EAGAIN)
				return 1;
			c->sftp = NULL;
		}
		if (c->need_upload) {
			r->uploaded = 1;
			/* The command gets its own time limit from here. */
			br_loop_timer_start(run->loop, &c->deadline, o->run_timeout_ms);
		}
		return 0;
	case S_RUN:
		/* Only after a copy: install it and run it. */
		if (!c->need_upload)
			return 0;
		if (c->ex.phase == 0)
			r->run_start_ms = br_now_ms();
		rc = exec_step(c, c->upload_cmd, VAL_SSH_OUT_MAX);
		return rc ? rc : take_result(c);
	case S_BYE:
		rc = libssh2_session_disconnect(c->s, "bringup validate done");
		return rc == LIBSSH2_ERROR_EAGAIN ? 1 : 0;
	case S_DONE:
		break;
	}
	return 0;
}

static void advance(struct conn *c)
{
	for (;;) {
		int rc = do_step(c);
		unsigned dirs, ev = 0;

		if (rc < 0)
			return;
		if (rc == 0) {
			if (++c->step == S_DONE) {
				conn_finish(c);
				return;
			}
			continue;
		}
		if (c->step == S_CONNECT) {
			ev = BR_LOOP_OUT;
		} else {
			dirs = (unsigned)libssh2_session_block_directions(c->s);
			ev |= dirs & LIBSSH2_SESSION_BLOCK_INBOUND ? BR_LOOP_IN : 0;
			ev |= dirs & LIBSSH2_SESSION_BLOCK_OUTBOUND ? BR_LOOP_OUT : 0;
			if (!ev)
				ev = BR_LOOP_IN;
		}
		br_loop_fd_set(c->watch, ev);
		return;
	}
}

static void on_fd(struct br_loop_fd *watch, int fd, unsigned events, void *ctx)
{
	(void)watch;
	(void)fd;
	(void)events;
	advance(ctx);
}

static void on_deadline(struct br_loop_timer *t, void *ctx)
{
	struct conn *c = ctx;

	(void)t;
	conn_fail(c, "no answer within %lld ms", (long long)(br_now_ms() - c->start_ms));
}

/* ---- starting ------------------------------------------------------------------- */

/* The copy is written under a name of its own per connection (nodes that
 * share a filesystem, as simulated ones do, must not write one file), then
 * made executable and renamed over the digest's name in one step. */
static char *command(const struct run *run, const char *file, const char *prefix);

static void upload_names(struct conn *c)
{
	struct run *run = c->run;
	struct br_buf b;

	c->part = br_xasprintf("%s.part-%ld-%zu", run->remote, (long)getpid(), c->index);
	br_buf_init(&b, 0);
	br_buf_adds(&b, "chmod 0755 ");
	val_shell_quote(&b, c->part);
	br_buf_adds(&b, " && mv -f ");
	val_shell_quote(&b, c->part);
	br_buf_adds(&b, " ");
	val_shell_quote(&b, run->remote);
	br_buf_adds(&b, " && ");
	c->upload_cmd = command(run, run->remote, br_buf_str(&b));
	br_buf_release(&b);
}

/* TCP connect, then the steps from the handshake on. */
static void conn_connect(struct conn *c)
{
	struct run *run = c->run;
	const struct val_ssh_target *t = &run->targets[c->index];
	struct addrinfo hints = { .ai_family = AF_UNSPEC,
				  .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_NUMERICSERV };
	struct addrinfo *ai = NULL;
	char port[8];
	struct br_err err = { 0 };
	int gai;

	c->step = S_CONNECT;
	br_loop_timer_start(run->loop, &c->deadline, run->o->connect_timeout_ms);
	snprintf(port, sizeof(port), "%d", t->port ? t->port : 22);
	gai = getaddrinfo(t->address, port, &hints, &ai);
	if (gai) {
		conn_fail(c, "cannot resolve: %s", gai_strerror(gai));
		return;
	}
	c->fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai->ai_protocol);
	if (c->fd < 0 || (connect(c->fd, ai->ai_addr, ai->ai_addrlen) && errno != EINPROGRESS)) {
		freeaddrinfo(ai);
		conn_fail(c, "%s", strerror(errno));
		return;
	}
	freeaddrinfo(ai);
	c->s = libssh2_session_init();
	if (!c->s) {
		conn_fail(c, "cannot set up an SSH session");
		return;
	}
	libssh2_session_set_blocking(c->s, 0);
	c->watch = br_loop_fd_add(run->loop, c->fd, BR_LOOP_OUT, on_fd, c, &err);
	if (!c->watch) {
		conn_fail(c, "%s", err.msg);
		return;
	}
	advance(c);
}

static void on_retry(struct br_loop_timer *t, void *ctx)
{
	(void)t;
	conn_connect(ctx);
}

/* Closed by the server before the session was up: nothing ran there. */
static void conn_retry(struct conn *c)
{
	const struct val_ssh_target *t = &c->run->targets[c->index];

	br_debug("ssh", "%s (%s:%d): %s: %s; connecting again in %d ms", t->name, t->address,
		 t->port ? t->port : 22, step_names[c->step], ssh_error(c), HANDSHAKE_RETRY_MS);
	c->retries++;
	conn_close(c);
	br_loop_timer_start(c->run->loop, &c->retry, HANDSHAKE_RETRY_MS);
}

static void conn_start(struct run *run, size_t i)
{
	struct conn *c = &run->conns[i];

	memset(c, 0, sizeof(*c));
	c->run = run;
	c->index = i;
	c->fd = -1;
	c->start_ms = br_now_ms();
	run->active++;
	br_loop_hold(run->loop);
	br_loop_timer_init(&c->deadline, on_deadline, c);
	br_loop_timer_init(&c->retry, on_retry, c);
	conn_connect(c);
}

/* Connections that fail at once finish inside conn_start and call back
 * here: the outer call keeps going, so the stack never grows with them. */
static void start_next(struct run *run)
{
	if (run->starting)
		return;
	run->starting = 1;
	while (run->next < run->n && run->active < (size_t)run->o->max_parallel)
		conn_start(run, run->next++);
	run->starting = 0;
}

static char *sha256_hex(const char *data, size_t len)
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;
	char *hex = br_xmalloc(65);

	EVP_Digest(data, len, md, &mdlen, EVP_sha256(), NULL);
	for (unsigned i = 0; i < 32; i++)
		snprintf(hex + 2 * i, 3, "%02x", md[i]);
	return hex;
}

int val_ssh_file_load(const char *path, struct val_ssh_file *ret_file, struct br_err *err)
{
	int rc;

	memset(ret_file, 0, sizeof(*ret_file));
	rc = br_read_file(path, VAL_SSH_FILE_MAX, &ret_file->data, &ret_file->len, err);
	if (rc)
		return rc;
	ret_file->sha256 = sha256_hex(ret_file->data, ret_file->len);
	return 0;
}

void val_ssh_file_release(struct val_ssh_file *file)
{
	free(file->data);
	free(file->sha256);
	memset(file, 0, sizeof(*file));
}

/* "cd / && exec timeout -k 5 SECONDS 'FILE' 'ARG'…": the node ends the
 * command too, should this side vanish. */
static char *command(const struct run *run, const char *file, const char *prefix)
{
	const struct val_ssh_options *o = run->o;
	struct br_buf b;

	br_buf_init(&b, 0);
	if (prefix)
		br_buf_adds(&b, prefix);
	br_buf_addf(&b, "cd / && exec timeout -k 5 %lld ", (long long)(o->run_timeout_ms + 999) / 1000);
	if (file) {
		val_shell_quote(&b, file);
	}
	for (size_t i = 0; o->args && o->args[i]; i++) {
		if (file || i)
			br_buf_adds(&b, " ");
		val_shell_quote(&b, o->args[i]);
	}
	return br_buf_detach(&b);
}

/* POSIX sh: run the node's copy only when sha256sum says its content is
 * hex (the name carries the digest, but a copy cut short by a full disk, or
 * altered, has the name too); otherwise say so, distinctly:
 *   case "$(sha256sum -- 'FILE' 2>/dev/null)" in 'HEX '*) cd / && exec
 *   timeout …;; esac; echo 'NO_COPY_LINE'; exit NO_COPY_STATUS
 * The check and the exec are one shell's two steps: as before, only the
 * file's owner (the validators' user; the directory is sticky) or root can
 * change it between them. */
static char *try_command(const struct run *run, const char *hex)
{
	struct br_buf b;
	char *run_it = command(run, run->remote, NULL), *line = br_xasprintf("%s ", hex);

	br_buf_init(&b, 0);
	br_buf_adds(&b, "case \"$(sha256sum -- ");
	val_shell_quote(&b, run->remote);
	br_buf_adds(&b, " 2>/dev/null)\" in ");
	val_shell_quote(&b, line);
	br_buf_addf(&b, "*) %s;; esac; echo ", run_it);
	val_shell_quote(&b, NO_COPY_TEXT);
	br_buf_addf(&b, "; exit %d", NO_COPY_STATUS);
	free(line);
	free(run_it);
	return br_buf_detach(&b);
}

static int prepare(struct run *run, struct br_err *err)
{
	const struct val_ssh_options *o = run->o;
	const struct val_ssh_file *f = o->upload_file;

	if (!o->private_key || !o->known_hosts || !o->user || !*o->user || o->max_parallel < 1 ||
	    o->connect_timeout_ms < 1 || o->run_timeout_ms < 1)
		return br_errf(err, BR_E_INVAL,
			       "ssh: a private key, a known_hosts file, a user and positive limits "
			       "are required");
	if (!o->upload && (!o->args || !o->args[0]))
		return br_errf(err, BR_E_INVAL, "ssh: nothing to run");
	if (o->remote_dir[strspn(o->remote_dir,
				 "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-")] ||
	    o->remote_dir[0] != '/')
		return br_errf(err, BR_E_INVAL, "ssh: remote directory '%s' must be an absolute plain path",
			       o->remote_dir);
	if (o->upload) {
		if (!f) {
			if (val_ssh_file_load(o->upload, &run->own, err))
				return br_err_prefix(err, "file to run on the nodes");
			f = &run->own;
		}
		run->data = f->data;
		run->len = f->len;
		run->remote = br_xasprintf("%s/bringup-probe-%s", o->remote_dir, f->sha256);
		run->run_cmd = command(run, run->remote, NULL);
		run->try_cmd = try_command(run, f->sha256);
	} else {
		run->run_cmd = command(run, NULL, NULL);
	}
	return 0;
}

int val_ssh_run(struct br_loop *loop, const struct val_ssh_target *targets, size_t n,
		const struct val_ssh_options *opts, struct val_ssh_result *results, val_ssh_done_fn done,
		void *ctx, struct br_err *err)
{
	struct run run = { .loop = loop,
			   .o = opts,
			   .targets = targets,
			   .results = results,
			   .n = n,
			   .done = done,
			   .ctx = ctx };
	int rc;

	for (size_t i = 0; i < n; i++)
		memset(&results[i], 0, sizeof(results[i]));
	rc = prepare(&run, err);
	if (!rc && libssh2_init(0))
		rc = br_errf(err, BR_E_IO, "ssh: libssh2 cannot start");
	/* accept-new writes the file as it goes: each connection reads it */
	if (!rc && n && opts->host_keys == VAL_SSH_STRICT)
		known_hosts_load(&run);
	if (!rc && n) {
		run.conns = br_xcalloc(n, sizeof(*run.conns));
		start_next(&run);
		rc = br_loop_run(loop, err);
	}
	free(run.conns);
	val_ssh_file_release(&run.own);
	free(run.known);
	free(run.remote);
	free(run.try_cmd);
	free(run.run_cmd);
	return rc;
}
