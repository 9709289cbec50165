/* The SSH runner's options checked before any node is reached: a key, a
 * known_hosts file or a user that cannot work fails every node alike, and
 * is the operator's to fix, not a datacenter technician's. */
#define _DEFAULT_SOURCE /* explicit_bzero */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ssh.h"

#define SSH_KEY_FILE_MAX (64u << 10) /* a private key file; RSA 16384 is ~13 KiB */

/* The armour of every private key format libssh2 reads: OpenSSH's own, and
 * PEM (PKCS#1, SEC1, PKCS#8). */
static const char *private_armour(const char *text)
{
	const char *begin = strstr(text, "-----BEGIN ");
	const char *eol = begin ? strchr(begin, '\n') : NULL;
	const char *kind = begin ? strstr(begin, "PRIVATE KEY-----") : NULL;

	return kind && (!eol || kind < eol) ? begin : NULL;
}

/* A key behind a passphrase: libssh2 is given none, so every login fails.
 * OpenSSH's format names its cipher in the base64 body: unencrypted keys
 * all begin "openssh-key-v1\0" + the string "none" (PROTOCOL.key), which is
 * this base64 text. PEM says so in a header or in its armour. */
static int encrypted(const char *armour)
{
	static const char openssh_none[] = "b3BlbnNzaC1rZXktdjEAAAAABG5vbmU";
	const char *body = strchr(armour, '\n');

	if (!strncmp(armour, "-----BEGIN OPENSSH PRIVATE KEY-----", 35))
		return !body ||
		       strncmp(body + 1 + strspn(body + 1, "\r\n"), openssh_none, strlen(openssh_none));
	return !strncmp(armour, "-----BEGIN ENCRYPTED PRIVATE KEY-----", 37) ||
	       strstr(armour, "Proc-Type: 4,ENCRYPTED") != NULL;
}

static int key_check(const char *path, struct br_err *err)
{
	char *text = NULL;
	const char *armour;
	size_t len;
	int rc = 0;

	if (br_read_file(path, SSH_KEY_FILE_MAX, &text, &len, err))
		return br_err_prefix(err, "the validators' private key (--ssh-key or $BRINGUP_SSH_KEY)");
	armour = private_armour(text);
	if (!armour && (!strncmp(text, "ssh-", 4) || !strncmp(text, "ecdsa-", 6) || !strncmp(text, "sk-", 3)))
		rc = br_errf(err, BR_E_INVAL,
			     "--ssh-key %s is a public key: give the private half (the file without .pub)",
			     path);
	else if (!armour)
		rc = br_errf(err, BR_E_INVAL,
			     "--ssh-key %s is not a private key (no '-----BEGIN ... PRIVATE KEY-----' line)",
			     path);
	else if (encrypted(armour))
		rc = br_errf(
		    err, BR_E_INVAL,
		    "--ssh-key %s is protected by a passphrase, which validate has no way to give: use "
		    "a key without one for the validators",
		    path);
	explicit_bzero(text, len);
	free(text);
	return rc;
}

/* Any line that is not blank or a comment: what it holds is the runner's
 * to judge, per node. */
static int has_host_key(const char *text)
{
	const char *line = text;

	while (line && *line) {
		const char *p = line + strspn(line, " \t\r");

		if (*p && *p != '#' && *p != '\n')
			return 1;
		line = strchr(line, '\n');
		line = line ? line + 1 : NULL;
	}
	return 0;
}

#define STRICT_UNKNOWN                                                                                       \
	"under --host-key-policy strict every node's key would be refused as unknown; record the "           \
	"nodes' keys in it (ssh-keyscan) or run with --host-key-policy accept-new"

static int known_hosts_check(const char *path, enum val_ssh_host_keys policy, struct br_err *err)
{
	char *text = NULL;
	size_t len;
	int rc = 0;

	if (access(path, F_OK) && errno == ENOENT) {
		if (policy == VAL_SSH_ACCEPT_NEW)
			return 0; /* written as the nodes' keys are seen */
		return br_errf(err, BR_E_NOTFOUND, "known_hosts %s does not exist: " STRICT_UNKNOWN, path);
	}
	if (br_read_file(path, VAL_SSH_KNOWN_HOSTS_MAX, &text, &len, err))
		return br_err_prefix(err, "known_hosts (--known-hosts or $BRINGUP_KNOWN_HOSTS)");
	if (policy == VAL_SSH_STRICT && !has_host_key(text))
		rc = br_errf(err, BR_E_INVAL, "known_hosts %s holds no host key: " STRICT_UNKNOWN, path);
	else if (policy == VAL_SSH_ACCEPT_NEW && access(path, W_OK))
		rc =
		    br_errf(err, BR_E_IO,
			    "known_hosts %s cannot be written (%s): --host-key-policy accept-new records the "
			    "nodes' keys there",
			    path, strerror(errno));
	free(text);
	return rc;
}

/* A name a login account can have: POSIX's portable user name characters
 * (letters, digits, '.', '_', '-'; not '-' first), 32 bytes at most (what
 * useradd and utmp hold). */
static int user_check(const char *user, struct br_err *err)
{
	static const char portable[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-";
	size_t len = user ? strlen(user) : 0;

	if (!len)
		return br_errf(err, BR_E_INVAL, "the SSH user is empty (--ssh-user or $BRINGUP_SSH_USER)");
	if (len > 32 || user[strspn(user, portable)] || user[0] == '-')
		return br_errf(err, BR_E_INVAL,
			       "SSH user '%s' cannot be an account on the nodes: a user name is at most 32 "
			       "letters, digits, '.', '_' or '-', not starting with '-'",
			       user);
	return 0;
}

int val_ssh_preflight(const struct val_ssh_options *o, struct br_err *err)
{
	int rc = user_check(o->user, err);

	if (!rc)
		rc = o->private_key ? key_check(o->private_key, err)
				    : br_errf(err, BR_E_INVAL, "ssh: no private key given");
	if (!rc)
		rc = o->known_hosts ? known_hosts_check(o->known_hosts, o->host_keys, err)
				    : br_errf(err, BR_E_INVAL, "ssh: no known_hosts file given");
	return rc;
}
