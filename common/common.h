/*
 * common — what every bringup module shares: error values, logging, growable
 * capped buffers, JSON helpers over jansson, option parsing with --help,
 * a progress display, a table printer, and the hardware-facts record that
 * the BMC clients fill and the inventory stores.
 *
 * Ownership: functions named x_new and x_dup return memory the caller frees;
 * struct br_buf owns its data until br_buf_detach(); br_hw owns every string
 * and array hung on it (free with br_hw_release()).
 */
#ifndef BRINGUP_COMMON_H
#define BRINGUP_COMMON_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

/* The version this tree was built as (Makefile: git describe); static. */
const char *br_version(void);

#define BR_PRINTF(a, b) __attribute__((format(printf, a, b)))

/* ---- errors ------------------------------------------------------------ */

/* Error codes shared by every module; 0 is success, all errors negative. */
enum br_errcode {
	BR_OK = 0,
	BR_E_INVAL = -1, /* bad input: file, line, field named in msg */
	BR_E_NOMEM = -2,
	BR_E_IO = -3, /* file or socket I/O */
	BR_E_NOTFOUND = -4,
	BR_E_EXISTS = -5,
	BR_E_TOOBIG = -6, /* a cap was hit */
	BR_E_TIMEOUT = -7,
	BR_E_AUTH = -8,	 /* credentials refused */
	BR_E_PROTO = -9, /* peer answered something we cannot use */
	BR_E_UNREACHABLE = -10,
	BR_E_DB = -11,
	BR_E_STATE = -12, /* wrong state for the operation */
	BR_E_UNSUPPORTED = -13,
	BR_E_INTERRUPTED = -14, /* SIGTERM/SIGINT: stopped, nothing to record */
	/* the database refused one write by a constraint or trigger: the
	 * data's doing, the database itself still usable (not BR_E_DB) */
	BR_E_REFUSED = -15,
};

#define BR_ERR_MSG_MAX 1024

struct br_err {
	int code;
	char msg[BR_ERR_MSG_MAX];
};

/* What to do about a TLS certificate bringup did not trust, for any peer
 * (WHO: "MAAS", "the BMC"): one wording everywhere. */
#define BR_TLS_HINT(who) "give " who "'s CA with --ca-file or $BRINGUP_CA_FILE; --insecure skips the check"

/* Record an error (err may be NULL) and return code, as git's error(). */
int br_errf(struct br_err *err, int code, const char *fmt, ...) BR_PRINTF(3, 4);
/* Prefix an existing message: "context: old message". Returns err->code. */
int br_err_prefix(struct br_err *err, const char *fmt, ...) BR_PRINTF(2, 3);
void br_err_clear(struct br_err *err);
const char *br_strerror(int code);

/* ---- why a node failed ---------------------------------------------------- */

/* Why a stage failed a node, typed where the failure is seen (the BMC's
 * 401, MAAS's commissioning status, the SSH handshake), never worked out
 * from a reason's words afterwards. The inventory keeps it beside the
 * reason; the tickets stage maps it to what a technician does
 * (templates/tickets/actions.conf, by br_fail_kind_name). BR_FAIL_NONE:
 * not failed; BR_FAIL_STAGE: a failure of no more precise kind. */
enum br_fail_kind {
	BR_FAIL_NONE,
	BR_FAIL_STAGE,		  /* stage_failed */
	BR_FAIL_BMC_UNREACHABLE,  /* bmc_unreachable: no connection, or no answer at all */
	BR_FAIL_BMC_AUTH,	  /* bmc_auth: credentials refused */
	BR_FAIL_BMC_DEADLINE,	  /* bmc_deadline: answered, too slowly to finish (a tarpit) */
	BR_FAIL_BMC_TLS,	  /* bmc_tls: its certificate not trusted */
	BR_FAIL_BMC_PROTOCOL,	  /* bmc_protocol: answers bringup cannot use */
	BR_FAIL_NO_HOST_MAC,	  /* no_host_mac: the BMC shows no host NIC MAC */
	BR_FAIL_MAC_CONFLICT,	  /* mac_conflict: another node's BMC claims its MACs */
	BR_FAIL_SERIAL_MISMATCH,  /* serial_mismatch: the BMC's serial is not the manifest's */
	BR_FAIL_BIOS_UNSUPPORTED, /* bios_unsupported: the baseline names what the BIOS lacks */
	BR_FAIL_BIOS_NOT_APPLIED, /* bios_not_applied: BIOS job or boot order did not take */
	BR_FAIL_MAAS_REFUSED,	  /* maas_refused: MAAS refused or lost the machine */
	BR_FAIL_BOOT_DISK,	  /* boot_disk_unmatched: no disk for the boot-disk rule or serial */
	BR_FAIL_POWER,		  /* power_failed: MAAS could not power the machine */
	BR_FAIL_COMMISSION,	  /* commission_failed */
	BR_FAIL_DEPLOY,		  /* deploy_failed */
	BR_FAIL_SSH_UNREACHABLE,  /* ssh_unreachable: no SSH connection to the node */
	BR_FAIL_SSH_AUTH,	  /* ssh_auth: the node refused the validators' key */
	BR_FAIL_SSH_HOST_KEY,	  /* ssh_host_key: host key unknown or changed */
	BR_FAIL_PROBE,		  /* probe_failed: the probe did not run or gave no document */
	BR_FAIL_WRONG_NODE,	  /* wrong_node: another machine answered at the node's address */
	BR_FAIL_TIME_LIMIT,	  /* time_limit: past a stage's time limit for one node */
	BR_FAIL_WORKER,		  /* worker_died: the process driving it died */
	BR_FAIL_FIRMWARE, /* firmware_update_failed: an update the BMC refused, failed or did not apply */
	/* credentials rotate: the BMC refused, did not take or does not log in
	 * with the new password, or kept its factory account enabled */
	BR_FAIL_BMC_CREDENTIALS,  /* bmc_credentials */
	BR_FAIL_MAAS_POWER,	  /* maas_power: MAAS refused the new power parameters */
	BR_FAIL_CREDENTIAL_STORE, /* credential_store: the new password's store failed */
};
#define BR_FAIL_COUNT (BR_FAIL_CREDENTIAL_STORE + 1)

/* "bmc_auth", ...; "none" for BR_FAIL_NONE. */
const char *br_fail_kind_name(enum br_fail_kind kind);
/* The kind named name; 0, or BR_E_INVAL (*ret untouched). */
int br_fail_kind_parse(const char *name, enum br_fail_kind *ret_kind);

/* ---- logging ----------------------------------------------------------- */

enum br_log_level { BR_LOG_ERROR, BR_LOG_WARN, BR_LOG_INFO, BR_LOG_DEBUG };

/* Program name shown in log lines, level threshold. Logs go to stderr. */
void br_log_init(const char *progname, enum br_log_level level);
void br_log_set_level(enum br_log_level level);
enum br_log_level br_log_get_level(void);
void br_log(enum br_log_level level, const char *subsys, const char *fmt, ...) BR_PRINTF(3, 4);
void br_vlog(enum br_log_level level, const char *subsys, const char *fmt, va_list ap) BR_PRINTF(3, 0);
/* A line about one node: node (its hostname) and bmc (its BMC's address)
 * are fields of their own in JSON; in text "NODE: " comes before the
 * message, as every stage has always written it. Either may be NULL. */
void br_log_node(enum br_log_level level, const char *subsys, const char *node, const char *bmc,
		 const char *fmt, ...) BR_PRINTF(5, 6);

struct br_buf;
/* How a log line is written: text ("TIME PROG: LEVEL[SUBSYS] message"),
 * or one JSON object a line ({"time", "prog", "level", "stage", "subsys",
 * "node", "bmc", "msg"}: stage is the program's, "discover" for
 * bringup-discover; node and bmc null when the line is about none) for a
 * log collector, or for journald's stream ("<PRIO>PROG: [SUBSYS] NODE
 * (bmc BMC): message", PRIO the syslog priority: 3 error, 4 warning,
 * 6 info, 7 debug; journald stamps the time). br_log_init takes
 * $BRINGUP_LOG_FORMAT's, else journal when stderr is the journal's stream
 * (br_log_stderr_is_journal); --log-format beats both. */
enum br_log_format { BR_LOG_TEXT, BR_LOG_JSON, BR_LOG_JOURNAL };
void br_log_set_format(enum br_log_format format);
/* "text", "json" or "journal"; 0, or BR_E_INVAL (*ret untouched). */
int br_log_format_parse(const char *name, enum br_log_format *ret_format);
/* True when $JOURNAL_STREAM ("DEVICE:INODE", set by systemd) names the
 * file fd 2 is (fstat). */
int br_log_stderr_is_journal(void);
/* Where stderr is the journal's stream and the format is journal, each
 * line goes to journald natively instead (when a sender is installed: only
 * where the stream is the system journal's), its parts as fields of their own
 * (MESSAGE the stream line's text; stage, subsys, node and bmc NULL when
 * the line has none), through this sender (stages/journal.c installs one on
 * libsystemd; none: stream lines). It returns 0 once sent; else the line
 * goes to stderr as a stream line. */
typedef int (*br_log_journal_fn)(int priority, const char *prog, const char *stage, const char *subsys,
				 const char *node, const char *bmc, const char *message);
void br_log_set_journal(br_log_journal_fn fn);
/* One line as the log writes it (no newline), appended to out: msg, node
 * and bmc escaped and redacted (br_buf_add_escaped); ts as br_iso_time. */
void br_log_format_line(struct br_buf *out, enum br_log_format format, const char *prog, const char *ts,
			enum br_log_level level, const char *subsys, const char *node, const char *bmc,
			const char *msg);
#define br_error(sub, ...) br_log(BR_LOG_ERROR, sub, __VA_ARGS__)
#define br_warn(sub, ...) br_log(BR_LOG_WARN, sub, __VA_ARGS__)
#define br_info(sub, ...) br_log(BR_LOG_INFO, sub, __VA_ARGS__)
#define br_debug(sub, ...) br_log(BR_LOG_DEBUG, sub, __VA_ARGS__)

/* ---- growable capped buffer --------------------------------------------- */

/* A NUL-terminated growable byte buffer that refuses to grow past max. */
struct br_buf {
	char *data; /* always NUL-terminated once anything was added; may be NULL when empty */
	size_t len;
	size_t cap;
	size_t max; /* 0: no cap */
};

void br_buf_init(struct br_buf *b, size_t max);
void br_buf_release(struct br_buf *b);
void br_buf_reset(struct br_buf *b);
/* Return 0 or BR_E_TOOBIG / BR_E_NOMEM; the buffer is unchanged on error. */
int br_buf_add(struct br_buf *b, const void *data, size_t len);
/* Room for extra more bytes at once (BR_E_TOOBIG past the cap). */
int br_buf_reserve(struct br_buf *b, size_t extra);
int br_buf_adds(struct br_buf *b, const char *s);
int br_buf_addf(struct br_buf *b, const char *fmt, ...) BR_PRINTF(2, 3);
int br_buf_vaddf(struct br_buf *b, const char *fmt, va_list ap) BR_PRINTF(2, 0);
/* Append text safe to print on a terminal or in a log: registered secrets
 * redacted (br_redact), C0 controls (ESC, CR, LF, TAB, ...), DEL, C1
 * controls and bytes that are not UTF-8 as "\xNN"; everything else kept. Every string that came from a BMC or
 * MAAS goes through this before a human sees it (the table printer and
 * the log do it), so a BMC cannot drive the operator's terminal. */
int br_buf_add_escaped(struct br_buf *b, const char *text);
/* The same as a new string (caller frees); NULL for NULL. */
char *br_escape(const char *text);
/* Contents as a string ("" when empty); owned by the buffer. */
const char *br_buf_str(const struct br_buf *b);
/* Hand the string to the caller (free()); the buffer is left empty. */
char *br_buf_detach(struct br_buf *b);

/* ---- small utilities ---------------------------------------------------- */

/* malloc-family wrappers that abort on OOM: a bringup run that cannot get
 * a few bytes cannot do anything sensible either. */
void *br_xmalloc(size_t n);
void *br_xcalloc(size_t n, size_t size);
void *br_xrealloc(void *p, size_t n);
char *br_xstrdup(const char *s);
char *br_xstrndup(const char *s, size_t n);
char *br_xasprintf(const char *fmt, ...) BR_PRINTF(1, 2);
/* Copy of s (of at most n bytes) cut to at most max bytes: a longer string
 * is cut at a UTF-8 character boundary and ends with U+2026, so it stays
 * text and reads as cut. NULL for NULL. For text from outside (BMCs, MAAS)
 * before it is kept. */
char *br_xstrndup_capped(const char *s, size_t n, size_t max);
char *br_xstrdup_capped(const char *s, size_t max);

/* strtol with full checks: whole string, range [min,max]. 0 or BR_E_INVAL. */
int br_parse_long(const char *s, long min, long max, long *ret_value);
/* Normalise a MAC to lowercase colon form "aa:bb:cc:dd:ee:ff". Accepts
 * colon, dash or no separators. 0 or BR_E_INVAL (out untouched). */
int br_mac_normalize(const char *in, char out[18]);
/* Monotonic time in milliseconds. */
int64_t br_now_ms(void);
/* Milliseconds since the Unix epoch (UTC, the wall clock: for comparing
 * with another machine's clock, never for intervals). */
int64_t br_wall_ms(void);
/* Wall clock as ISO 8601 UTC "2026-11-29T22:18:57Z" in out[21]. */
void br_iso_time(char out[21]);
/* Read a whole file, capped at max bytes. Caller frees *ret_data. */
int br_read_file(const char *path, size_t max, char **ret_data, size_t *ret_len, struct br_err *err);
/* The same for a file already open (fd, which this closes); path names it
 * in the error. */
int br_read_fd(int fd, const char *path, size_t max, char **ret_data, size_t *ret_len, struct br_err *err);
/* Does hay (may be NULL) contain needle, ignoring ASCII case? */
int br_contains_nocase(const char *hay, const char *needle);
/* Is path a directory (following links)? */
int br_is_dir(const char *path);
/* Write a file atomically (tmp + rename). */
int br_write_file(const char *path, const char *data, size_t len, struct br_err *err);
/* Resolve a secret reference "env:VAR" or "file:PATH" into its value
 * (trailing newline stripped). Caller frees. Literal values are refused. */
int br_secret_resolve(const char *ref, char **ret_secret, struct br_err *err);
/* True if ref has the form of a secret reference. */
int br_secret_ref_valid(const char *ref);
/* Number the groups n targets belong to by name: name_of(i, ctx) is
 * target i's (NULL or "": in none). Equal names are one group, numbered
 * from 0 in name order; group_of[i * stride] gets i's number, SIZE_MAX
 * for none. Returns how many groups. O(n log n), whatever the groups. */
size_t br_groups_number(size_t n, const char *(*name_of)(size_t i, const void *ctx), const void *ctx,
			size_t *group_of, size_t stride);
/* Whether a node in zone (NULL or "": in none) is among zones, a
 * comma-separated list (NULL: every zone, a node in none included). */
int br_zones_have(const char *zones, const char *zone);

/* ---- redaction ---------------------------------------------------------- */

/* Secrets this process submits are registered (br_secret_resolve does it for
 * every reference it resolves; the MAAS client for its key's parts), and
 * cut out of server text before it is kept or shown: the log, the table
 * printer (br_escape), br_json_print and the inventory's reasons do it.
 * Shorter secrets are not redacted: a 3-byte pattern would cut words. */
#define BR_REDACT_MIN 4
#define BR_REDACTED "<redacted>"
/* Register a secret (and its percent-encoded forms). The table has no limit:
 * a rack of any size keeps every password it registers. */
void br_redact_add(const char *secret);
/* Undo one br_redact_add of the same secret (registrations are counted). */
void br_redact_remove(const char *secret);
/* How many strings (secrets and their encodings) are registered. */
size_t br_redact_count(void);
/* 1 when text holds a registered secret. */
int br_redact_needed(const char *text);
/* text with every registered secret replaced by BR_REDACTED (caller frees;
 * NULL for NULL). */
char *br_redact(const char *text);
/* The same on every string value of a JSON document, in place. */
void br_redact_json(json_t *doc);
/* Zero and free a secret. */
void br_secret_free(char *secret);
/* Directory of the running executable (from /proc/self/exe). Caller frees. */
char *br_self_dir(void);

/* ---- JSON helpers over jansson ----------------------------------------- */

#define BR_JSON_DEPTH_MAX 64

/* Parse a buffer with a size cap and a nesting-depth cap (jansson's own
 * limit is far deeper than anything a BMC legitimately sends). */
json_t *br_json_parse(const char *data, size_t len, size_t max, struct br_err *err);
/* br_json_parse for text whose nesting br_json_shape has bounded already
 * (its depth at most BR_JSON_DEPTH_MAX): the parsed tree is not walked
 * again to measure it, a pass over every value of every answer. */
json_t *br_json_parse_shaped(const char *data, size_t len, size_t max, struct br_err *err);
json_t *br_json_load_file(const char *path, size_t max, struct br_err *err);
/* br_json_parse for text from outside (a server's answer, a node's
 * document): the text's shape is counted first (br_json_shape below) and
 * refused, BR_E_TOOBIG, when it holds more than max_values values or nests
 * deeper than BR_JSON_DEPTH_MAX, before jansson spends memory on it. */
json_t *br_json_parse_bounded(const char *data, size_t len, size_t max_bytes, size_t max_values,
			      struct br_err *err);
/* What a JSON text would cost before it is parsed (jansson spends some 200
 * bytes per value: 8 MiB of "[{},{},...]" became 654 MB). A bounded scan
 * that only counts, never parses a value: values (commas and openings
 * outside strings), the deepest nesting, and the elements of the array
 * under `key` in the top-level object (-1: none; key may be NULL). */
struct br_json_shape {
	size_t values;
	int depth;
	long key_elems;
};
void br_json_shape(const char *data, size_t len, const char *key, struct br_json_shape *ret);
/* Borrowed lookups that return NULL / fallback when absent or of another type.
 * path is "A/B/C": each component a member name. */
json_t *br_json_path(json_t *root, const char *path);
const char *br_json_str(json_t *obj, const char *path);
int64_t br_json_int(json_t *obj, const char *path, int64_t fallback);
double br_json_num(json_t *obj, const char *path, double fallback);
/* Print to a stream: indented, keys in insertion order, newline at end. */
int br_json_print(FILE *f, json_t *doc);
/* json_string that never fails on NULL (gives json null). New reference. */
json_t *br_json_string_or_null(const char *s);

/* ---- option parsing --------------------------------------------------- */

enum br_opt_type { BR_OPT_FLAG, BR_OPT_STRING, BR_OPT_INT, BR_OPT_LIST };

/* One option. value points at int (FLAG, INT), const char * (STRING), or
 * struct br_strlist (LIST: may repeat). An option with no long name ends
 * a table. */
struct br_option {
	const char *name; /* long name without "--" */
	int short_name;	  /* 0 for none */
	enum br_opt_type type;
	void *value;
	const char *argname; /* shown in --help, e.g. "PATH" */
	const char *help;
};

struct br_strlist {
	char **items;
	size_t n;
};
void br_strlist_add(struct br_strlist *l, const char *s);
void br_strlist_release(struct br_strlist *l);

/* Options every stage takes. */
struct br_common_opts {
	const char *db;		/* --db, default $BRINGUP_DB or ./bringup.db */
	int json;		/* --json */
	int verbose;		/* -v, repeatable */
	int quiet;		/* -q */
	int force;		/* --force: take named nodes whatever their state */
	const char *log_format; /* --log-format text|json|journal; NULL: $BRINGUP_LOG_FORMAT, else journal on
				   the journal's stream, else text */
	const char *zone;	/* --zone, default $BRINGUP_ZONE; NULL: every zone */
};

struct br_command {
	const char *name;		 /* "bringup-discover" */
	const char *usage;		 /* "[options] [HOST...]" */
	const char *summary;		 /* one paragraph shown under usage */
	const struct br_option *options; /* terminated by {0} */
	struct br_common_opts *common;	 /* NULL: no common options */
};

enum br_opt_result { BR_OPT_OK = 0, BR_OPT_EXIT_OK = 1, BR_OPT_EXIT_USAGE = 2 };

/* Parse argv; sets logging from -v/-q. Options and operands come in any
 * order ("status HOST --json"); "--" ends the options. On BR_OPT_OK the
 * operands, in their order, are argv[*ret_argi..argc-1] (argv's slots are
 * rearranged; the strings are not touched). --help and --version print to
 * stdout and return BR_OPT_EXIT_OK; a bad option prints an error (with
 * the option meant, where one is near) to stderr and returns
 * BR_OPT_EXIT_USAGE (the exit code for bad usage). */
enum br_opt_result br_opt_parse(const struct br_command *cmd, int argc, char **argv, int *ret_argi);
void br_opt_help(const struct br_command *cmd, FILE *f);
/* Logging from the common -v/-vv/--verbose/-q/--quiet found in argv[1..]
 * before "--", for a command that passes its options on to stages it
 * runs (run, controller) and so cannot parse them itself. */
void br_opt_log_level(int argc, char *const *argv);
/* The candidate closest to word by edit distance, when near enough to be
 * a slip of the fingers (at most 2 edits, and fewer than half of word's
 * letters), else NULL. Borrowed from candidates. */
const char *br_did_you_mean(const char *word, const char *const *candidates, size_t n);
/* The options cmd parses (its own, then the common ones) as a document:
 * {"command": NAME, "options": [{"name", "short" (or null), "argument":
 * whether it takes a value}]}, for `bringup run` to hand each stage only
 * the options it knows (stg_stage_parse prints it for --options-json). */
json_t *br_opt_table_json(const struct br_command *cmd);

/* ---- progress display ------------------------------------------------- */

/* On a TTY (stderr) and not quiet: a redrawn line, sized to the terminal:
 * "discover  60/64 done  2 failed  2 left: gpu-r06-u24 (61s), gpu-r02-u10
 * (58s)  ETA 4s". The nodes still out are named, those out longest first
 * (BR_PROGRESS_NAMED at most), when the caller names its items. The ETA
 * is shown only when it means something: once an item has finished, and
 * not while the rest are stuck (nothing finished for BR_PROGRESS_STUCK_FACTOR
 * times the average time between finishes, and at least
 * BR_PROGRESS_STUCK_MIN_MS): then "nothing finished for 57s" instead.
 * Off a TTY: prints nothing. */
#define BR_PROGRESS_NAMED 3
#define BR_PROGRESS_STUCK_FACTOR 4
#define BR_PROGRESS_STUCK_MIN_MS 3000
struct br_progress {
	const char *label;
	size_t total, done, failed;
	int64_t start_ms, last_draw_ms, last_done_ms;
	size_t drawn_done; /* done as last drawn, +1 (0: never drawn) */
	int enabled;
	/* Per item, once named (br_progress_item): its name (borrowed) and
	 * when it started, or -1 once finished. */
	const char **names;
	int64_t *started_ms;
};
void br_progress_init(struct br_progress *p, const char *label, size_t total);
/* Item i (below total) is name (borrowed: it must outlive p), started
 * now (br_progress_init's time until br_progress_item_start). */
void br_progress_item(struct br_progress *p, size_t i, const char *name);
void br_progress_item_start(struct br_progress *p, size_t i);
/* Item i finished; counts it (done, and failed unless ok) and redraws. */
void br_progress_item_done(struct br_progress *p, size_t i, int ok);
/* Counts alone, for a caller that does not name its items. */
void br_progress_update(struct br_progress *p, size_t done, size_t failed);
void br_progress_finish(struct br_progress *p);
/* Frees what br_progress_item allocated (br_progress_finish does too). */
void br_progress_release(struct br_progress *p);
/* The line as drawn at now_ms on a terminal of `columns` (0: no limit),
 * into out (appended). */
void br_progress_format(const struct br_progress *p, int64_t now_ms, size_t columns, struct br_buf *out);
/* Log lines call this to clear a live progress line first. */
void br_progress_clear_line(void);

/* ---- the terminal (term.c) ---------------------------------------------- */

#define BR_TERM_COLUMNS_MAX 10000
/* The width output to fd should fit: $COLUMNS when set (1 to
 * BR_TERM_COLUMNS_MAX), else the terminal's (TIOCGWINSZ), else 0: no
 * limit (a pipe, a file). */
size_t br_term_columns(int fd);
/* "…" where the locale's character set is UTF-8, else "...". Static. */
const char *br_ellipsis(void);
/* Columns text takes: its characters (UTF-8 sequences count one). */
size_t br_text_columns(const char *s);
/* A copy of s cut to cols columns, ending in br_ellipsis() when cut; whole
 * characters only. Caller frees. */
char *br_text_cut(const char *s, size_t cols);

/* ---- table printer ---------------------------------------------------- */

#define BR_TABLE_COLS_MAX 16
struct br_table {
	size_t ncols;
	const char *headers[BR_TABLE_COLS_MAX];
	size_t width[BR_TABLE_COLS_MAX];
	char **cells; /* nrows * ncols, owned */
	size_t nrows, cap_rows;
};
void br_table_init(struct br_table *t, size_t ncols, const char *const *headers);
/* Copies the strings; NULL cells print as "-". */
void br_table_add(struct br_table *t, const char *const *cells);
void br_table_print(const struct br_table *t, FILE *f);
/* The same on lines of at most `columns` (br_term_columns; 0: no limit):
 * the widest columns narrowed, their cells cut with br_ellipsis(). */
void br_table_print_fit(const struct br_table *t, size_t columns, FILE *f);
/* The table as CSV (RFC 4180 quoting, libcsv), header row first; cells as
 * added (escaped, "-" for none). */
void br_table_print_csv(const struct br_table *t, FILE *f);
void br_table_release(struct br_table *t);

#include "hw.h"

/* ---- csv.c: CSV files row by row (libcsv) ---------------------------------- */

/* Called for each non-empty row with the line it starts on; the fields are
 * borrowed for the call. Non-zero stops the reading. */
typedef int (*br_csv_row_fn)(void *ctx, unsigned line, const struct br_strlist *fields);
/* Read path (at most max_bytes) and hand each row to fn. A UTF-8 byte-order
 * mark is skipped; a NUL byte or malformed quoting becomes a "PATH:LINE:
 * message" in problems and ends the reading. Returns non-zero only when the
 * file cannot be read (err says why). */
int br_csv_read(const char *path, size_t max_bytes, br_csv_row_fn fn, void *ctx, struct br_strlist *problems,
		struct br_err *err);
/* Add "PATH:LINE: FIELD: message" (no FIELD part when field is NULL). */
void br_csv_problem(struct br_strlist *problems, const char *path, unsigned line, const char *field,
		    const char *fmt, ...) BR_PRINTF(5, 6);

#endif
