/* Error values with messages, and the log. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include "common.h"

/* A log message is cut here before it is escaped. */
#define BR_LOG_LINE_MAX 4096

int br_errf(struct br_err *err, int code, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return code;
	err->code = code;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return code;
}

int br_err_prefix(struct br_err *err, const char *fmt, ...)
{
	char prefix[BR_ERR_MSG_MAX];
	char old[BR_ERR_MSG_MAX];
	va_list ap;

	if (!err)
		return BR_E_INVAL;
	va_start(ap, fmt);
	vsnprintf(prefix, sizeof(prefix), fmt, ap);
	va_end(ap);
	memcpy(old, err->msg, sizeof(old));
	{
		struct br_buf b;

		br_buf_init(&b, 0);
		br_buf_addf(&b, "%s: %s", prefix, old);
		snprintf(err->msg, sizeof(err->msg), "%.*s", (int)(sizeof(err->msg) - 1), br_buf_str(&b));
		br_buf_release(&b);
	}
	return err->code;
}

void br_err_clear(struct br_err *err)
{
	if (!err)
		return;
	err->code = 0;
	err->msg[0] = '\0';
}

const char *br_strerror(int code)
{
	switch ((enum br_errcode)code) {
	case BR_OK:
		return "success";
	case BR_E_INVAL:
		return "invalid input";
	case BR_E_NOMEM:
		return "out of memory";
	case BR_E_IO:
		return "I/O error";
	case BR_E_NOTFOUND:
		return "not found";
	case BR_E_EXISTS:
		return "already exists";
	case BR_E_TOOBIG:
		return "too big";
	case BR_E_TIMEOUT:
		return "timed out";
	case BR_E_AUTH:
		return "authentication failed";
	case BR_E_PROTO:
		return "protocol error";
	case BR_E_UNREACHABLE:
		return "unreachable";
	case BR_E_DB:
		return "database error";
	case BR_E_STATE:
		return "wrong state";
	case BR_E_UNSUPPORTED:
		return "unsupported";
	case BR_E_INTERRUPTED:
		return "interrupted";
	case BR_E_REFUSED:
		return "refused by the database";
	}
	return "unknown error";
}

/* ---- log --------------------------------------------------------------- */

static const char *log_progname = "bringup";
static enum br_log_level log_level = BR_LOG_WARN;
static enum br_log_format log_format = BR_LOG_TEXT;
static int stderr_journal;	       /* br_log_init: br_log_stderr_is_journal */
static br_log_journal_fn journal_send; /* br_log_set_journal */
/* syslog(3) priorities of the levels: LOG_ERR, LOG_WARNING, LOG_INFO, LOG_DEBUG */
static const int prios[] = { 3, 4, 6, 7 };

void br_log_set_journal(br_log_journal_fn fn)
{
	journal_send = fn;
}

void br_log_init(const char *progname, enum br_log_level level)
{
	const char *slash = strrchr(progname, '/');
	const char *env = getenv("BRINGUP_LOG_FORMAT");

	log_progname = slash ? slash + 1 : progname;
	log_level = level;
	stderr_journal = br_log_stderr_is_journal();
	/* a wrong value is the option parser's to report (opt.c) */
	if (env && *env)
		br_log_format_parse(env, &log_format);
	else if (stderr_journal)
		log_format = BR_LOG_JOURNAL;
}

int br_log_stderr_is_journal(void)
{
	/* systemd.exec(5): $JOURNAL_STREAM is "DEVICE:INODE" of the stream
	 * it connected stdout/stderr to; a child whose stderr was redirected
	 * since keeps the variable but not the stream. */
	const char *env = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	char *end;
	struct stat st;

	if (!env || !*env)
		return 0;
	errno = 0;
	dev = strtoull(env, &end, 10);
	if (errno || end == env || *end != ':')
		return 0;
	env = end + 1;
	ino = strtoull(env, &end, 10);
	if (errno || end == env || *end)
		return 0;
	if (fstat(STDERR_FILENO, &st))
		return 0;
	return (unsigned long long)st.st_dev == dev && (unsigned long long)st.st_ino == ino;
}

void br_log_set_level(enum br_log_level level)
{
	log_level = level;
}
enum br_log_level br_log_get_level(void)
{
	return log_level;
}

void br_log_set_format(enum br_log_format format)
{
	log_format = format;
}

int br_log_format_parse(const char *name, enum br_log_format *ret_format)
{
	if (!strcmp(name, "text"))
		*ret_format = BR_LOG_TEXT;
	else if (!strcmp(name, "json"))
		*ret_format = BR_LOG_JSON;
	else if (!strcmp(name, "journal"))
		*ret_format = BR_LOG_JOURNAL;
	else
		return BR_E_INVAL;
	return 0;
}

/* The stage a program is: "discover" for bringup-discover; NULL for others. */
static const char *prog_stage(const char *prog)
{
	return !strncmp(prog, "bringup-", 8) ? prog + 8 : NULL;
}

/* One JSON object a line; the strings already escaped (valid UTF-8, no
 * controls, secrets redacted), so jansson takes each. */
static void add_json_line(struct br_buf *out, const char *prog, const char *ts, const char *level,
			  const char *subsys, const char *node, const char *bmc, const char *msg)
{
	const char *stage = prog_stage(prog);
	json_t *o =
	    json_pack("{s:s, s:s, s:s, s:o, s:o, s:o, s:o, s:s}", "time", ts, "prog", prog, "level", level,
		      "stage", br_json_string_or_null(stage), "subsys", br_json_string_or_null(subsys),
		      "node", br_json_string_or_null(node), "bmc", br_json_string_or_null(bmc), "msg", msg);
	char *text = o ? json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;

	if (text)
		br_buf_adds(out, text);
	free(text);
	json_decref(o);
}

/* A journal line's text before its message: "PROG: [SUBSYS] NODE (bmc BMC): ". */
static void journal_text(struct br_buf *field, const char *prog, const char *subsys, const char *node,
			 const char *bmc)
{
	br_buf_addf(field, "%s: [%s] ", prog, subsys ? subsys : "-");
	if (node || bmc) {
		br_buf_adds(field, node ? node : "-");
		if (bmc)
			br_buf_addf(field, " (bmc %s)", bmc);
		br_buf_adds(field, ": ");
	}
}

/* The line to journald natively (journal_send): 0 once sent. */
static int journal_line(enum br_log_level level, const char *subsys, const char *node, const char *bmc,
			const char *msg)
{
	const char *stage = prog_stage(log_progname);
	struct br_buf text, n, b, m;
	int rc;

	br_buf_init(&text, 0);
	br_buf_init(&n, 0);
	br_buf_init(&b, 0);
	br_buf_init(&m, 0);
	journal_text(&text, log_progname, subsys, node, bmc);
	br_buf_adds(&text, msg);
	br_buf_add_escaped(&m, br_buf_str(&text));
	if (node)
		br_buf_add_escaped(&n, node);
	if (bmc)
		br_buf_add_escaped(&b, bmc);
	rc = journal_send(prios[level], log_progname, stage, subsys, node ? br_buf_str(&n) : NULL,
			  bmc ? br_buf_str(&b) : NULL, br_buf_str(&m));
	br_buf_release(&text);
	br_buf_release(&n);
	br_buf_release(&b);
	br_buf_release(&m);
	return rc;
}

void br_log_format_line(struct br_buf *out, enum br_log_format format, const char *prog, const char *ts,
			enum br_log_level level, const char *subsys, const char *node, const char *bmc,
			const char *msg)
{
	static const char *const names[] = { "error", "warning", "info", "debug" };
	struct br_buf field;

	br_buf_init(&field, 0);
	if (format == BR_LOG_JSON) {
		struct br_buf n, b;

		br_buf_init(&n, 0);
		br_buf_init(&b, 0);
		br_buf_add_escaped(&field, msg);
		if (node)
			br_buf_add_escaped(&n, node);
		if (bmc)
			br_buf_add_escaped(&b, bmc);
		add_json_line(out, prog, ts, names[level], subsys, node ? br_buf_str(&n) : NULL,
			      bmc ? br_buf_str(&b) : NULL, br_buf_str(&field));
		br_buf_release(&n);
		br_buf_release(&b);
		br_buf_release(&field);
		return;
	}
	/* Messages carry BMC and MAAS text: one line, no terminal controls,
	 * no secret a server echoed. */
	if (format == BR_LOG_JOURNAL) {
		/* journald reads "<N>" at the start of a stream line as the
		 * line's priority (sd-daemon(3)) and stamps the time itself. */
		br_buf_addf(out, "<%d>", prios[level]);
		journal_text(&field, prog, subsys, node, bmc);
	} else {
		br_buf_addf(out, "%s %s: %s[%s] ", ts, prog, names[level], subsys ? subsys : "-");
		if (node) {
			br_buf_adds(&field, node);
			br_buf_adds(&field, ": ");
		}
	}
	br_buf_adds(&field, msg);
	br_buf_add_escaped(out, br_buf_str(&field));
	br_buf_release(&field);
}

static void log_line(enum br_log_level level, const char *subsys, const char *node, const char *bmc,
		     const char *fmt, va_list ap) BR_PRINTF(5, 0);
static void log_line(enum br_log_level level, const char *subsys, const char *node, const char *bmc,
		     const char *fmt, va_list ap)
{
	char msg[BR_LOG_LINE_MAX];
	char ts[21];
	struct br_buf line;

	if (level > log_level)
		return;
	br_iso_time(ts);
	if (vsnprintf(msg, sizeof(msg), fmt, ap) < 0)
		return;
	if (log_format == BR_LOG_JOURNAL && stderr_journal && journal_send &&
	    !journal_line(level, subsys, node, bmc, msg))
		return;
	br_buf_init(&line, 0);
	br_progress_clear_line();
	br_log_format_line(&line, log_format, log_progname, ts, level, subsys, node, bmc, msg);
	fprintf(stderr, "%s\n", br_buf_str(&line));
	br_buf_release(&line);
}

void br_vlog(enum br_log_level level, const char *subsys, const char *fmt, va_list ap)
{
	log_line(level, subsys, NULL, NULL, fmt, ap);
}

void br_log(enum br_log_level level, const char *subsys, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_line(level, subsys, NULL, NULL, fmt, ap);
	va_end(ap);
}

void br_log_node(enum br_log_level level, const char *subsys, const char *node, const char *bmc,
		 const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_line(level, subsys, node, bmc, fmt, ap);
	va_end(ap);
}

const char *br_fail_kind_name(enum br_fail_kind kind)
{
	switch (kind) {
	case BR_FAIL_NONE:
		return "none";
	case BR_FAIL_STAGE:
		return "stage_failed";
	case BR_FAIL_BMC_UNREACHABLE:
		return "bmc_unreachable";
	case BR_FAIL_BMC_AUTH:
		return "bmc_auth";
	case BR_FAIL_BMC_DEADLINE:
		return "bmc_deadline";
	case BR_FAIL_BMC_TLS:
		return "bmc_tls";
	case BR_FAIL_BMC_PROTOCOL:
		return "bmc_protocol";
	case BR_FAIL_NO_HOST_MAC:
		return "no_host_mac";
	case BR_FAIL_MAC_CONFLICT:
		return "mac_conflict";
	case BR_FAIL_SERIAL_MISMATCH:
		return "serial_mismatch";
	case BR_FAIL_BIOS_UNSUPPORTED:
		return "bios_unsupported";
	case BR_FAIL_BIOS_NOT_APPLIED:
		return "bios_not_applied";
	case BR_FAIL_MAAS_REFUSED:
		return "maas_refused";
	case BR_FAIL_BOOT_DISK:
		return "boot_disk_unmatched";
	case BR_FAIL_POWER:
		return "power_failed";
	case BR_FAIL_COMMISSION:
		return "commission_failed";
	case BR_FAIL_DEPLOY:
		return "deploy_failed";
	case BR_FAIL_SSH_UNREACHABLE:
		return "ssh_unreachable";
	case BR_FAIL_SSH_AUTH:
		return "ssh_auth";
	case BR_FAIL_SSH_HOST_KEY:
		return "ssh_host_key";
	case BR_FAIL_PROBE:
		return "probe_failed";
	case BR_FAIL_WRONG_NODE:
		return "wrong_node";
	case BR_FAIL_TIME_LIMIT:
		return "time_limit";
	case BR_FAIL_WORKER:
		return "worker_died";
	case BR_FAIL_FIRMWARE:
		return "firmware_update_failed";
	case BR_FAIL_BMC_CREDENTIALS:
		return "bmc_credentials";
	case BR_FAIL_MAAS_POWER:
		return "maas_power";
	case BR_FAIL_CREDENTIAL_STORE:
		return "credential_store";
	}
	return "stage_failed";
}

int br_fail_kind_parse(const char *name, enum br_fail_kind *ret_kind)
{
	for (int k = 0; name && k < BR_FAIL_COUNT; k++)
		if (!strcmp(name, br_fail_kind_name((enum br_fail_kind)k))) {
			*ret_kind = (enum br_fail_kind)k;
			return 0;
		}
	return BR_E_INVAL;
}
