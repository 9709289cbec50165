/* The SSH runner: one state machine per node over a non-blocking libssh2
 * session, driven by its socket's readiness on the event loop. */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <libssh2.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include "ssh.h"

#define WRITE_CHUNK (32u << 10)

/* The copy's bytes the node's sshd holds at once, received but not yet
 * passed to the command (what the channel's window says is unacknowledged).
 * OpenSSH (9.2) offers a session channel a window of 2 MiB and grows the
 * buffer holding it by what each packet needs, each growth a new
 * allocation (recallocarray) and a copy of all it holds: filled whole by a
 * 2.4 MiB copy it spent ~0.5 s of a simulated host's CPU per node. It
 * acknowledges once 3 packets (96 KiB) are consumed, so a
 * quarter of a MiB in flight keeps the copy flowing at link speed while
 * sshd's buffer stays small. A server that acknowledges only later (and so
 * never, with this much outstanding) gets the whole window once it has
 * acknowledged nothing for COPY_STALL_MS. */
#define COPY_IN_FLIGHT_MAX (256ul << 10)
#define COPY_STALL_MS 1000

/* What the command says, as the first line of its stdout, when the node
 * has no current copy: then it reads the copy from its stdin. A probe
 * prints JSON first, never this line, and the line names the digest, so
 * no other program's output starts with it. */
#define NO_COPY_TEXT "bringup-ssh: no current copy of "
/* The copy was received but not installed (cut short, a full disk, an
 * unwritable directory): this exit status, this line on stderr after the
 * tool's own, and nothing was run. */
#define NOT_INSTALLED_STATUS 98
#define NOT_INSTALLED_TEXT "bringup-ssh: the copy was not installed"

/* A server that closes the connection before or during the handshake
 * (sshd dropping it under load, a fork that failed there) has run nothing:
 * the connection is made once more, after a pause. */
#define HANDSHAKE_RETRIES 1
#define HANDSHAKE_RETRY_MS 250

enum step { S_CONNECT, S_HANDSHAKE, S_HOSTKEY, S_AUTH, S_RUN, S_BYE, S_DONE };

static const char *const step_names[] = {
	[S_CONNECT] = "connect",
	[S_HANDSHAKE] = "SSH handshake",
	[S_HOSTKEY] = "host key check",
	[S_AUTH] = "public key authentication",
	[S_RUN] = "command",
	[S_BYE] = "disconnect",
	[S_DONE] = "done",
};

/* Where the copy stands in a command that may ask for it. */
enum copy { COPY_UNDECIDED, COPY_NONE, COPY_SENDING, COPY_EOF, COPY_SENT, COPY_FAILED };

/* One command on a channel: open, exec, read both streams to EOF (sending
 * the copy on its stdin when it asks), close, exit status. */
struct exec {
	LIBSSH2_CHANNEL *ch;
	int phase;
	struct br_buf out, err;
	int out_over;
	int status;
	enum copy copy;
	size_t sent;
	unsigned long window0, window; /* the server's window before the copy, and last seen */
	int acked;		       /* the server has acknowledged some of the copy */
	int uncapped;		       /* ... or not, in time: the whole window is used */
};

struct run;

struct conn {
	struct run *run;
	size_t index;
	int fd;
	struct br_loop_fd *watch;
	struct br_loop_timer deadline, retry, pace;
	int retries;
	LIBSSH2_SESSION *s;
	enum step step;
	struct exec ex;
	int64_t start_ms;
	pid_t proxy; /* the ssh -W carrying the session through a jump host; 0: none */
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
	char *remote;	    /* its path there, named after its digest */
	char *cmd;	    /* the one command each node is given (see copy_command) */
	char *no_copy_line; /* what it prints first when it needs the copy */
	char *end_line;	    /* sent after the copy: the node's proof all of it came */
	size_t end_len;
	char nonce[17]; /* hex, this run's own: in the copy's temporary name and end_line */
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
	if (c->proxy > 0) {
		kill(c->proxy, SIGKILL);
		while (waitpid(c->proxy, NULL, 0) < 0 && errno == EINTR)
			;
		c->proxy = 0;
	}
	br_loop_timer_stop(c->run->loop, &c->deadline);
	br_loop_timer_stop(c->run->loop, &c->retry);
	br_loop_timer_stop(c->run->loop, &c->pace);
	br_buf_release(&c->ex.out);
	br_buf_release(&c->ex.err);
	c->ex.ch = NULL;
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

/* What a failure is named after: the copy, while it is on its way or
 * when the node did not install it, else the step. */
static const char *step_name(const struct conn *c)
{
	switch (c->ex.copy) {
	case COPY_SENDING:
	case COPY_EOF:
	case COPY_FAILED:
		return "copy";
	case COPY_UNDECIDED:
	case COPY_NONE:
	case COPY_SENT:
		break;
	}
	return step_names[c->step];
}

/* Why the node failed, from the step it failed in: what a technician
 * checks differs (the network, the key, the host key, the node itself). */
static enum br_fail_kind step_failure(const struct conn *c)
{
	switch (c->step) {
	case S_CONNECT:
	case S_HANDSHAKE:
		return BR_FAIL_SSH_UNREACHABLE;
	case S_HOSTKEY:
		return BR_FAIL_SSH_HOST_KEY;
	case S_AUTH:
		return BR_FAIL_SSH_AUTH;
	case S_RUN:
	case S_BYE:
	case S_DONE:
		break;
	}
	return BR_FAIL_PROBE;
}

static void conn_fail(struct conn *c, const char *fmt, ...) BR_PRINTF(2, 3);
static void conn_fail(struct conn *c, const char *fmt, ...)
{
	const struct val_ssh_target *t = &c->run->targets[c->index];
	struct val_ssh_result *r = &c->run->results[c->index];
	struct br_buf b;
	va_list ap;

	br_buf_init(&b, 0);
	br_buf_addf(&b, "ssh %s (%s:%d%s%s): %s: ", t->name, t->address, t->port ? t->port : 22,
		    t->proxy_jump ? " through " : "", t->proxy_jump ? t->proxy_jump : "", step_name(c));
	va_start(ap, fmt);
	br_buf_vaddf(&b, fmt, ap);
	va_end(ap);
	free(r->error);
	r->error = br_buf_detach(&b);
	r->failure = step_failure(c);
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

/* Whether a known_hosts host field (comma-separated plain names, or one
 * hashed "|1|salt|hash" entry) names name exactly, as libssh2 matches. */
static int hosts_field_names(const char *field, size_t len, const char *name)
{
	size_t nlen = strlen(name);

	if (len > 3 && !memcmp(field, "|1|", 3)) {
		const char *salt = field + 3, *bar = memchr(salt, '|', len - 3);
		unsigned char rawsalt[64], rawhash[64], mac[EVP_MAX_MD_SIZE];
		unsigned int maclen = 0;
		int saltlen, hashlen;

		if (!bar || (size_t)(bar - salt) >= 88 || (size_t)(field + len - bar - 1) >= 88)
			return 0;
		saltlen = EVP_DecodeBlock(rawsalt, (const unsigned char *)salt, (int)(bar - salt));
		hashlen =
		    EVP_DecodeBlock(rawhash, (const unsigned char *)bar + 1, (int)(field + len - bar - 1));
		/* base64 of 20 bytes decodes to 21 with its padding's zero */
		if (saltlen < 20 || hashlen < 20 ||
		    !HMAC(EVP_sha1(), rawsalt, 20, (const unsigned char *)name, nlen, mac, &maclen))
			return 0;
		return maclen == 20 && !memcmp(mac, rawhash, 20);
	}
	for (const char *at = field, *end = field + len; at < end;) {
		const char *comma = memchr(at, ',', (size_t)(end - at));
		size_t plen = comma ? (size_t)(comma - at) : (size_t)(end - at);

		if (plen == nlen && !strncasecmp(at, name, nlen))
			return 1;
		at += plen + 1;
	}
	return 0;
}

/* The host key algorithms to ask a node for: those of the keys known_hosts
 * holds for it, ed25519 first, or NULL (none known: libssh2's own order).
 * libssh2 asks for ECDSA first, and its known_hosts check only matches a
 * key of the type negotiated: a real node (OpenSSH offering RSA, ECDSA and
 * ed25519 keys, as cloud-init makes them) whose ed25519 key is the one
 * known_hosts holds (as OpenSSH's client records it) was refused under the
 * strict policy as an unknown key. OpenSSH's client prefers the algorithms
 * of the keys it already knows for a host the same way. */
static char *known_key_algorithms(const char *known, size_t len, const char *address, int port)
{
	static const struct {
		const char *type, *algorithms;
	} order[] = {
		{ "ssh-ed25519", "ssh-ed25519" },
		{ "ecdsa-sha2-nistp256", "ecdsa-sha2-nistp256" },
		{ "ecdsa-sha2-nistp384", "ecdsa-sha2-nistp384" },
		{ "ecdsa-sha2-nistp521", "ecdsa-sha2-nistp521" },
		{ "ssh-rsa", "rsa-sha2-512,rsa-sha2-256,ssh-rsa" },
	};
	int seen[sizeof(order) / sizeof(order[0])] = { 0 }, any = 0;
	char *name = port == 22 ? br_xstrdup(address) : br_xasprintf("[%s]:%d", address, port);
	struct br_buf b;

	for (const char *at = known, *end = known + len; at < end;) {
		const char *nl = memchr(at, '\n', (size_t)(end - at));
		const char *eol = nl ? nl : end, *f = at, *fend;

		at = nl ? nl + 1 : end;
		while (f < eol && (*f == ' ' || *f == '\t'))
			f++;
		if (f == eol || *f == '#' || *f == '@' || !line_may_name(f, eol, address))
			continue;
		for (fend = f; fend < eol && *fend != ' ' && *fend != '\t'; fend++)
			;
		if (!hosts_field_names(f, (size_t)(fend - f), name))
			continue;
		for (f = fend; f < eol && (*f == ' ' || *f == '\t'); f++)
			;
		for (fend = f; fend < eol && *fend != ' ' && *fend != '\t'; fend++)
			;
		for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++)
			if ((size_t)(fend - f) == strlen(order[i].type) &&
			    !memcmp(f, order[i].type, (size_t)(fend - f)))
				any = seen[i] = 1;
	}
	free(name);
	if (!any)
		return NULL;
	br_buf_init(&b, 0);
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		if (seen[i])
			br_buf_addf(&b, "%s%s", b.len ? "," : "", order[i].algorithms);
	return br_buf_detach(&b);
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

/* Both streams read as far as they go: 1 when any bytes came, 0 none, -1
 * failed (reported). */
static int read_streams(struct conn *c)
{
	struct exec *ex = &c->ex;
	char buf[16384];
	ssize_t got;
	int again, any = 0;

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
		any |= again;
	} while (again);
	return any;
}

/* Whether libssh2 holds bytes of this channel's streams that were read
 * off the socket but not yet handed over. Every libssh2 call that reads
 * drains the socket first and queues what it finds: the stderr read (after
 * the stdout read came back empty) or a write of the copy can take the
 * command's last output, its EOF and the channel's close off the socket in
 * one go. Waiting on the socket then waits for nothing (the server has
 * said all it will until the channel is closed): the node sat out its whole
 * run time limit with its answer complete (1 in 5 runs of 512 nodes). */
static int output_queued(const struct exec *ex)
{
	return libssh2_poll_channel_read(ex->ch, 1) == 1;
}

/* Whether the command's stdout starts with the line asking for the copy:
 * decided once its first bytes differ from the line, or all of it came. */
static void decide_copy(struct conn *c)
{
	struct run *run = c->run;
	struct exec *ex = &c->ex;
	size_t n = run->no_copy_line ? strlen(run->no_copy_line) : 0;
	size_t have = ex->out.len < n ? ex->out.len : n;

	if (!n || (have && memcmp(ex->out.data, run->no_copy_line, have))) {
		ex->copy = COPY_NONE;
		return;
	}
	if (have < n) {
		if (libssh2_channel_eof(ex->ch))
			ex->copy = COPY_NONE;
		return;
	}
	memmove(ex->out.data, ex->out.data + n, ex->out.len - n + 1);
	ex->out.len -= n;
	ex->copy = COPY_SENDING;
	ex->sent = 0;
	run->results[c->index].run_start_ms = 0;
	/* Copying gets the command's time limit afresh. */
	br_loop_timer_start(run->loop, &c->deadline, run->o->run_timeout_ms);
}

/* The copy on the command's stdin, then EOF: 0 done, 1 wait, -1 failed. */
static int send_copy(struct conn *c)
{
	struct run *run = c->run;
	struct exec *ex = &c->ex;
	struct val_ssh_result *r = &run->results[c->index];
	int rc;

	/* the copy, then end_line right after it */
	while (ex->copy == COPY_SENDING && ex->sent < run->len + run->end_len) {
		int in_copy = ex->sent < run->len;
		const char *from = in_copy ? run->data + ex->sent : run->end_line + (ex->sent - run->len);
		size_t left = in_copy ? run->len - ex->sent : run->len + run->end_len - ex->sent;
		size_t chunk = left < WRITE_CHUNK ? left : WRITE_CHUNK;
		/* libssh2 1.10 leaves the initial size it reports 0 */
		unsigned long window = libssh2_channel_window_write_ex(ex->ch, NULL);
		ssize_t put;

		/* The command stopped reading (its end of the copy failed):
		 * what it says and its status are read below. */
		if (libssh2_channel_eof(ex->ch)) {
			ex->copy = COPY_FAILED;
			return 0;
		}
		if (!ex->sent)
			ex->window0 = window;
		else if (window > ex->window)
			ex->acked = 1;
		ex->window = window;
		if (!ex->uncapped && ex->window0 > window && ex->window0 - window >= COPY_IN_FLIGHT_MAX) {
			/* wait for the acknowledgement, read with the streams */
			if (!ex->acked && !br_loop_timer_pending(&c->pace))
				br_loop_timer_start(run->loop, &c->pace, COPY_STALL_MS);
			return 1;
		}
		put = libssh2_channel_write(ex->ch, from, chunk);
		if (put == LIBSSH2_ERROR_EAGAIN || put == 0)
			return 1;
		if (put < 0) {
			conn_fail(c, "%s", ssh_error(c));
			return -1;
		}
		ex->sent += (size_t)put;
		ex->window = libssh2_channel_window_write_ex(ex->ch, NULL);
	}
	if (ex->copy == COPY_SENDING)
		ex->copy = COPY_EOF;
	if (ex->copy != COPY_EOF)
		return 0;
	rc = libssh2_channel_send_eof(ex->ch);
	if (rc == LIBSSH2_ERROR_EAGAIN)
		return 1;
	if (rc) {
		conn_fail(c, "%s", ssh_error(c));
		return -1;
	}
	ex->copy = COPY_SENT;
	r->uploaded = 1;
	/* The command (installing, then running the copy) gets its own
	 * time limit from here, and its clock reading falls after this. */
	r->run_start_ms = br_now_ms();
	br_loop_timer_start(run->loop, &c->deadline, run->o->run_timeout_ms);
	return 0;
}

/* 0 done, 1 wait, -1 failed (reported). */
static int exec_step(struct conn *c, const char *cmd, size_t out_max)
{
	struct exec *ex = &c->ex;
	int rc;

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
		ex->copy = COPY_UNDECIDED;
		ex->uncapped = ex->acked = 0;
		ex->phase = 2;
		/* fall through */
	case 2:
		/* Round again while libssh2 holds output the socket's watch cannot
		 * announce (output_queued), as long as reading takes some of it: a
		 * server's extended data of another kind is never read and would
		 * make this spin. */
		for (int pass = 0;; pass++) {
			int got = read_streams(c);

			if (got < 0)
				return -1;
			if (ex->copy == COPY_UNDECIDED)
				decide_copy(c);
			rc = ex->copy == COPY_SENDING || ex->copy == COPY_EOF ? send_copy(c) : 0;
			if (rc < 0)
				return -1;
			if (!rc && ex->copy != COPY_UNDECIDED && libssh2_channel_eof(ex->ch))
				break;
			if (!output_queued(ex) || (pass && !got))
				return 1;
		}
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

static void conn_retry(struct conn *c);

/* ---- the steps ------------------------------------------------------------------ */

/* A copy the node received but did not install: what its tools said. */
static void copy_not_installed(struct conn *c)
{
	struct br_buf why;
	const char *e = br_buf_str(&c->ex.err);
	size_t len = strlen(e);

	br_buf_init(&why, 0);
	while (len && e[len - 1] == '\n')
		len--;
	for (size_t i = 0; i < len; i++)
		br_buf_adds(&why, e[i] == '\n' ? "; " : (char[]){ e[i], 0 });
	c->ex.copy = COPY_FAILED;
	conn_fail(c, "%s not installed (exit %d): %s", c->run->remote, c->ex.status, br_buf_str(&why));
	br_buf_release(&why);
}

/* The command has exited: its output and status are the node's result. */
static int take_result(struct conn *c)
{
	struct val_ssh_result *r = &c->run->results[c->index];

	r->run_end_ms = br_now_ms();
	if (c->ex.out_over) {
		conn_fail(c, "output larger than %u bytes", VAL_SSH_OUT_MAX);
		return -1;
	}
	if ((c->ex.copy == COPY_SENT || c->ex.copy == COPY_FAILED) && c->ex.status == NOT_INSTALLED_STATUS &&
	    strstr(br_buf_str(&c->ex.err), NOT_INSTALLED_TEXT)) {
		r->uploaded = 0;
		copy_not_installed(c);
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

/* The whole of a node's work in one exec (copy_command): the node's copy,
 * when its digest is right, is run at once; when it is absent or differs
 * the command asks for it, receives it on its stdin, checks it and runs
 * it. Without a file to copy, this is the command itself. */
static int run_step(struct conn *c)
{
	struct run *run = c->run;
	struct val_ssh_result *r = &run->results[c->index];
	int rc;

	/* The command starts once the channel is open: the window the
	 * command's clock reading falls in starts here (validate's skew). */
	if (c->ex.phase == 0)
		r->run_start_ms = br_now_ms();
	rc = exec_step(c, run->cmd, VAL_SSH_OUT_MAX);
	return rc ? rc : take_result(c);
}

/* Run the step the connection is at: 0 it finished (go on), 1 wait for
 * the socket, -1 the connection failed (already reported). */
static int do_step(struct conn *c)
{
	struct run *run = c->run;
	const struct val_ssh_options *o = run->o;
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
	case S_RUN:
		return run_step(c);
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

static void on_pace(struct br_loop_timer *t, void *ctx)
{
	struct conn *c = ctx;

	(void)t;
	if (!c->ex.ch || c->ex.copy != COPY_SENDING || c->ex.acked)
		return;
	c->ex.uncapped = 1;
	advance(c);
}

static void on_deadline(struct br_loop_timer *t, void *ctx)
{
	struct conn *c = ctx;

	(void)t;
	conn_fail(c, "no answer within %lld ms", (long long)(br_now_ms() - c->start_ms));
}

/* ---- starting ------------------------------------------------------------------- */

/* ProxyJump "[user@]host[:port][,...]" as ssh's own arguments: the hops
 * before the last as -J, the last one as the destination (an ssh:// URI, so
 * a port may ride along). */
static char *last_hop(const char *jump, char **ret_before)
{
	const char *comma = strrchr(jump, ',');
	const char *hop = comma ? comma + 1 : jump;

	*ret_before = comma ? br_xstrndup(jump, (size_t)(comma - jump)) : NULL;
	return br_xasprintf("ssh://%s", hop);
}

/* The session's socket is one end of a socketpair whose other end is the
 * stdin and stdout of `ssh -W address:port JUMP`: OpenSSH's own client
 * reaches the jump host (its config, agent, keys and known_hosts), and the
 * node's host key and login are still checked here. 0, or -1 with *why. */
static int proxy_spawn(struct conn *c, const struct val_ssh_target *t, char **why)
{
	const struct val_ssh_options *o = c->run->o;
	int sv[2];
	char *dest, *before, *forward;
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
		*why = br_xasprintf("socketpair: %s", strerror(errno));
		return -1;
	}
	dest = last_hop(t->proxy_jump, &before);
	forward = br_xasprintf("%s:%d", t->address, t->port ? t->port : 22);
	pid = fork();
	if (pid == 0) {
		char *argv[16];
		int n = 0, null = open("/dev/null", O_RDWR);

		dup2(sv[1], 0);
		dup2(sv[1], 1);
		if (null >= 0)
			dup2(null, 2);
		argv[n++] = "ssh";
		if (o->ssh_config) {
			argv[n++] = "-F";
			argv[n++] = br_xstrdup(o->ssh_config); /* exec'd or _exit next */
		}
		argv[n++] = "-o";
		argv[n++] = "BatchMode=yes";
		argv[n++] = "-o";
		argv[n++] = "ClearAllForwardings=yes";
		if (before) {
			argv[n++] = "-J";
			argv[n++] = before;
		}
		argv[n++] = "-W";
		argv[n++] = forward;
		argv[n++] = "--";
		argv[n++] = dest;
		argv[n] = NULL;
		execvp("ssh", argv);
		_exit(127);
	}
	free(dest);
	free(before);
	free(forward);
	close(sv[1]);
	if (pid < 0) {
		close(sv[0]);
		*why = br_xasprintf("fork: %s", strerror(errno));
		return -1;
	}
	if (fcntl(sv[0], F_SETFL, fcntl(sv[0], F_GETFL) | O_NONBLOCK)) {
		close(sv[0]);
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		*why = br_xasprintf("fcntl: %s", strerror(errno));
		return -1;
	}
	c->fd = sv[0];
	c->proxy = pid;
	return 0;
}

/* TCP connect (or a jump host's forward), then the steps from the
 * handshake on. */
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
	if (t->proxy_jump) {
		char *why = NULL;

		if (proxy_spawn(c, t, &why)) {
			conn_fail(c, "through %s: %s", t->proxy_jump, why);
			free(why);
			return;
		}
	} else {
		snprintf(port, sizeof(port), "%d", t->port ? t->port : 22);
		gai = getaddrinfo(t->address, port, &hints, &ai);
		if (gai) {
			conn_fail(c, "cannot resolve: %s", gai_strerror(gai));
			return;
		}
		c->fd =
		    socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai->ai_protocol);
		if (c->fd < 0 || (connect(c->fd, ai->ai_addr, ai->ai_addrlen) && errno != EINPROGRESS)) {
			freeaddrinfo(ai);
			conn_fail(c, "%s", strerror(errno));
			return;
		}
		freeaddrinfo(ai);
	}
	c->s = libssh2_session_init();
	if (!c->s) {
		conn_fail(c, "cannot set up an SSH session");
		return;
	}
	libssh2_session_set_blocking(c->s, 0);
	if (run->known) {
		char *algorithms =
		    known_key_algorithms(run->known, run->known_len, t->address, t->port ? t->port : 22);

		/* none of them supported here: libssh2's own order, and the
		 * check says what it got */
		if (algorithms)
			libssh2_session_method_pref(c->s, LIBSSH2_METHOD_HOSTKEY, algorithms);
		free(algorithms);
	}
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
	br_loop_timer_init(&c->pace, on_pace, c);
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
 * command too, should this side vanish. A file that ends itself is given
 * the limit instead: "cd / && exec 'FILE' 'OPTION' 'SECONDS' 'ARG'…". */
static char *command(const struct run *run, const char *file)
{
	const struct val_ssh_options *o = run->o;
	long long seconds = (long long)(o->run_timeout_ms + 999) / 1000;
	struct br_buf b;

	br_buf_init(&b, 0);
	if (file && o->limit_option) {
		br_buf_adds(&b, "cd / && exec ");
		val_shell_quote(&b, file);
		br_buf_adds(&b, " ");
		val_shell_quote(&b, o->limit_option);
		br_buf_addf(&b, " %lld", seconds);
	} else {
		br_buf_addf(&b, "cd / && exec timeout -k 5 %lld ", seconds);
		if (file)
			val_shell_quote(&b, file);
	}
	for (size_t i = 0; o->args && o->args[i]; i++) {
		if (file || i)
			br_buf_adds(&b, " ");
		val_shell_quote(&b, o->args[i]);
	}
	return br_buf_detach(&b);
}

/* POSIX sh, one exec for the whole of a node's work. The node's copy is
 * run only when sha256sum says its content is HEX (the name carries the
 * digest, but a copy altered in place has the name too); otherwise the
 * command asks for the copy (NO_COPY_TEXT HEX, first on stdout), takes it
 * from its stdin, and installs and runs it only once all of it came (the
 * channel's MAC vouches for the bytes; SIZE bytes then the run's end line
 * say none are missing), so a copy cut short (a full disk, the connection
 * lost) is never run nor left under the digest's name:
 *   [ -f 'FILE' ] && case "$(sha256sum -- 'FILE' 2>/dev/null)" in 'HEX '*)
 *   cd / && exec timeout …;; esac; echo 'NO_COPY_TEXT HEX'; umask 077;
 *   p='FILE'.part-NONCE-$$; set -C; head -c SIZE > "$p" && IFS= read -r end
 *   && [ "$end" = 'END_LINE' ] && chmod 0755 "$p" && mv -f -- "$p" 'FILE' &&
 *   cd / && exec timeout …;
 *   rm -f -- "$p"; echo 'NOT_INSTALLED_TEXT' >&2; exit NOT_INSTALLED_STATUS
 * Each program the shell starts is a fork and an exec on the node (about
 * 10 ms of a simulated host's CPU on the shared 2-core machine), so the
 * path from nothing starts three (head, chmod, mv) besides the copy itself:
 * no sha256sum of an absent file, no rm of a temporary name no earlier
 * shell can have used (it carries the run's random nonce), and no wc after
 * cat: head -c (coreutils, reading no byte past SIZE) takes the copy and
 * the shell's own read the end line after it, which a short copy never
 * reaches. A copy over SFTP instead cost two more sessions on the node (a
 * login shell each) and an sftp-server, for each node validated from
 * nothing; checking the copy's digest again, 14 ms of a simulated host's CPU.
 * The copy is written under a name of its own per run and shell (nodes that
 * share a filesystem, as simulated ones do, must not write one file), created
 * anew (noclobber: never through a link someone left there) and writable
 * by its owner only, then renamed over the digest's name in one step. The
 * check and the exec are one shell's steps: only the file's owner (the
 * validators' user; the directory is sticky) or root can change it between
 * them. */
static char *copy_command(const struct run *run, const char *hex)
{
	struct br_buf b;
	char *run_it = command(run, run->remote), *line = br_xasprintf("%s ", hex);
	char *ask = br_xasprintf("%s%s", NO_COPY_TEXT, hex);
	char *end = br_xstrndup(run->end_line, run->end_len - 1); /* without its newline */

	br_buf_init(&b, 0);
	br_buf_adds(&b, "[ -f ");
	val_shell_quote(&b, run->remote);
	br_buf_adds(&b, " ] && case \"$(sha256sum -- ");
	val_shell_quote(&b, run->remote);
	br_buf_adds(&b, " 2>/dev/null)\" in ");
	val_shell_quote(&b, line);
	br_buf_addf(&b, "*) %s;; esac; echo ", run_it);
	val_shell_quote(&b, ask);
	br_buf_adds(&b, "; umask 077; p=");
	val_shell_quote(&b, run->remote);
	br_buf_addf(&b, ".part-%s-$$; set -C; head -c %zu > \"$p\" && IFS= read -r end && [ \"$end\" = ",
		    run->nonce, run->len);
	val_shell_quote(&b, end);
	br_buf_adds(&b, " ] && chmod 0755 \"$p\" && mv -f -- \"$p\" ");
	val_shell_quote(&b, run->remote);
	br_buf_addf(&b, " && %s; rm -f -- \"$p\"; echo ", run_it);
	val_shell_quote(&b, NOT_INSTALLED_TEXT);
	br_buf_addf(&b, " >&2; exit %d", NOT_INSTALLED_STATUS);
	free(end);
	free(ask);
	free(line);
	free(run_it);
	return br_buf_detach(&b);
}

/* 64 random bits as hex; without the kernel's randomness, the time and
 * pid (unique enough for a temporary name, never a secret). */
static void run_nonce(struct run *run)
{
	unsigned char raw[8];

	if (RAND_bytes(raw, sizeof(raw)) != 1) {
		uint64_t t = (uint64_t)br_now_ms() ^ ((uint64_t)getpid() << 40);

		memcpy(raw, &t, sizeof(raw));
	}
	for (size_t i = 0; i < sizeof(raw); i++)
		snprintf(run->nonce + 2 * i, 3, "%02x", raw[i]);
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
		run_nonce(run);
		run->end_line = br_xasprintf("bringup-ssh: end of copy %s\n", run->nonce);
		run->end_len = strlen(run->end_line);
		run->cmd = copy_command(run, f->sha256);
		/* what its echo prints */
		run->no_copy_line = br_xasprintf("%s%s\n", NO_COPY_TEXT, f->sha256);
	} else {
		run->cmd = command(run, NULL);
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
	free(run.cmd);
	free(run.no_copy_line);
	free(run.end_line);
	return rc;
}
