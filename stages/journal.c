/* journal.h: journald's native protocol through libsystemd. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>
#include <systemd/sd-journal.h>

#include "common.h"
#include "journal.h"

/* The most fields a line carries: MESSAGE, PRIORITY, SYSLOG_IDENTIFIER and
 * the four of bringup's own. */
#define JOURNAL_FIELDS 7

static void field(struct iovec *iov, char **texts, int *n, const char *name, const char *value)
{
	if (!value)
		return;
	texts[*n] = br_xasprintf("%s=%s", name, value);
	iov[*n].iov_base = texts[*n];
	iov[*n].iov_len = strlen(texts[*n]);
	(*n)++;
}

static int send_line(int priority, const char *prog, const char *stage, const char *subsys, const char *node,
		     const char *bmc, const char *message)
{
	struct iovec iov[JOURNAL_FIELDS];
	char *texts[JOURNAL_FIELDS], prio[4];
	int n = 0, rc;

	snprintf(prio, sizeof(prio), "%d", priority);
	/* systemd.journal-fields(7): MESSAGE, PRIORITY, SYSLOG_IDENTIFIER;
	 * the rest ours, named as journald takes a field (A-Z, 0-9, _) */
	field(iov, texts, &n, "MESSAGE", message);
	field(iov, texts, &n, "PRIORITY", prio);
	field(iov, texts, &n, "SYSLOG_IDENTIFIER", prog);
	field(iov, texts, &n, "BRINGUP_STAGE", stage);
	field(iov, texts, &n, "BRINGUP_SUBSYSTEM", subsys);
	field(iov, texts, &n, "BRINGUP_NODE", node);
	field(iov, texts, &n, "BRINGUP_BMC", bmc);
	rc = sd_journal_sendv(iov, n);
	for (int i = 0; i < n; i++)
		free(texts[i]);
	return rc < 0 ? -1 : 0;
}

/* libsystemd sends to the system journal's socket (beside its stream
 * socket, /run/systemd/journal/stdout): a stream of another journal (a
 * journald namespace's, journal.NS/stdout) or a file named by
 * $JOURNAL_STREAM gets its stream lines, not entries in the wrong journal. */
#define JOURNAL_STDOUT "/run/systemd/journal/stdout"

static int stderr_is_system_journal(void)
{
	struct sockaddr_un peer;
	socklen_t len = sizeof(peer);
	struct stat st;

	if (fstat(STDERR_FILENO, &st) || !S_ISSOCK(st.st_mode))
		return 0;
	memset(&peer, 0, sizeof(peer));
	if (getpeername(STDERR_FILENO, (struct sockaddr *)&peer, &len) || peer.sun_family != AF_UNIX)
		return 0;
	return len > offsetof(struct sockaddr_un, sun_path) &&
	       !strncmp(peer.sun_path, JOURNAL_STDOUT, sizeof(peer.sun_path));
}

void stg_journal_install(void)
{
	if (stderr_is_system_journal())
		br_log_set_journal(send_line);
}
