/*
 * ssh — running a command (the probe) on many nodes at once over SSH:
 * libssh2 sessions, non-blocking, on the process's one event loop
 * (common/loop.h). Public-key authentication only; host keys checked
 * against a known_hosts file (strict: an unknown or changed key is refused;
 * accept-new: an unknown key is recorded, a changed one still refused).
 * The file to run is copied only when the node's copy differs (its SHA-256
 * is in the remote name and checked with sha256sum by the command that
 * runs it), on that command's stdin when it asks: one session, one exec
 * per node either way. It runs under a time limit on both ends. No shell
 * text is built from inventory data: remote paths are made of hex digits,
 * arguments are single-quoted.
 *
 * Ownership: targets and options are borrowed for the run; results are the
 * caller's array, filled by val_ssh_run and emptied by
 * val_ssh_result_release.
 */
#ifndef BRINGUP_VALIDATORS_SSH_H
#define BRINGUP_VALIDATORS_SSH_H

#include <stdint.h>

#include "common.h"
#include "loop.h"

#define VAL_SSH_OUT_MAX (16u << 20)  /* a command's stdout kept (a probe document is ~100 KiB) */
#define VAL_SSH_ERR_MAX (64u << 10)  /* its stderr kept */
#define VAL_SSH_FILE_MAX (64u << 20) /* the file copied over */
#define VAL_SSH_ARGS_MAX 32
#define VAL_SSH_KNOWN_HOSTS_MAX (16u << 20) /* a known_hosts file kept in memory for a run */

enum val_ssh_host_keys { VAL_SSH_STRICT, VAL_SSH_ACCEPT_NEW };

/* The file copied to the nodes (the probe, ~1.6 MiB), read and digested
 * once: each of 16 workers reading and hashing it again spent ~20 ms of
 * CPU before its first connection. */
struct val_ssh_file {
	char *data;
	size_t len;
	char *sha256; /* hex */
};
/* Read path (at most VAL_SSH_FILE_MAX bytes) and digest it. */
int val_ssh_file_load(const char *path, struct val_ssh_file *ret_file, struct br_err *err);
void val_ssh_file_release(struct val_ssh_file *file);

struct val_ssh_target {
	const char *name;    /* for messages: the node's hostname */
	const char *address; /* IP address or name to connect to */
	int port;	     /* 0: 22 */
	/* ProxyJump as ssh_config says it ("[user@]host[:port][,...]"): the
	 * session runs through `ssh -W` to the last hop; NULL: direct. */
	const char *proxy_jump;
};

/* Nodes worked at once unless told otherwise (ssh.c says why). */
#define VAL_SSH_PARALLEL_DEFAULT 128

struct val_ssh_options {
	const char *user;	 /* default "ubuntu", MAAS's default user */
	const char *private_key; /* path; its .pub beside it is not needed */
	const char *known_hosts; /* path; created under accept-new */
	enum val_ssh_host_keys host_keys;
	const char *upload; /* local file to run there (the probe); NULL: run args[0] as is */
	const struct val_ssh_file *upload_file; /* upload read already (borrowed); NULL: read here */
	const char *remote_dir;			/* where the copy goes; default /var/tmp */
	const char *const *args; /* arguments (after the uploaded file, or the whole command) */
	/* The uploaded file ends itself, with what it started, when given this
	 * option and the run time limit in seconds (bringup-probe's
	 * --time-limit): it runs without timeout(1) around it, one process
	 * fewer per node. NULL: the node's timeout(1) ends it. */
	const char *limit_option;
	int64_t connect_timeout_ms; /* TCP connect, handshake and authentication; default 15 s */
	int64_t
	    run_timeout_ms; /* checking and copying the file, then the command itself, each; default 120 s */
	int max_parallel;   /* sessions at once; default 32 */
	const char *ssh_config; /* the file a jump host's ssh is given (-F); NULL: ssh's own */
};
void val_ssh_options_init(struct val_ssh_options *o);
/* Mistakes in o that would fail every node alike, found before any node is
 * reached (ssh_preflight.c): a user that is no user name; a private key
 * that cannot be read, is a public key or no key, or needs a passphrase; a
 * known_hosts that cannot be read, or under VAL_SSH_STRICT is missing or
 * holds no key (under accept-new: cannot be written). 0, or BR_E_* with a
 * message saying what to fix. */
int val_ssh_preflight(const struct val_ssh_options *o, struct br_err *err);

struct val_ssh_result {
	int ok;			   /* the command ran and exited (whatever its status) */
	char *error;		   /* why not, naming host:port and the step */
	enum br_fail_kind failure; /* why not, as a kind: from the step it failed in */
	int exit_status;	   /* its exit status; 128+N when killed by signal N */
	int uploaded;		   /* the file was copied this time */
	int replied;		   /* out holds a worker hook's reply, not the command's stdout */
	struct br_buf out, err;
	int64_t ms;			  /* connect to exit */
	int64_t run_start_ms, run_end_ms; /* br_now_ms() when the command was started and had ended */
};
void val_ssh_result_release(struct val_ssh_result *r);

/* Called as each target finishes (may be NULL). */
typedef void (*val_ssh_done_fn)(void *ctx, size_t index, const struct val_ssh_result *r);

/* Run on every target, at most max_parallel at once, on loop (which this
 * runs until all are done). results has n entries. Returns 0, or an error
 * when nothing could run at all (the upload file unreadable, bad options). */
int val_ssh_run(struct br_loop *loop, const struct val_ssh_target *targets, size_t n,
		const struct val_ssh_options *opts, struct val_ssh_result *results, val_ssh_done_fn done,
		void *ctx, struct br_err *err);

/* ---- ssh_pool.c: the same over forked workers (common/pool.h) -------------- */

#define VAL_SSH_WORKER_TARGETS 8 /* nodes a worker is worth forking for */
#define VAL_SSH_WORKERS_MAX 64

/* Workers for a rack of n_targets, by the pool's one rule
 * (br_pool_workers_auto): one per CPU, at most one per
 * VAL_SSH_WORKER_TARGETS nodes, at most VAL_SSH_WORKERS_MAX, at least 1. */
int val_ssh_workers_auto(size_t n_targets);

/* Run in a worker on each of its results before it is sent, so that work
 * needing only that node's result is done there, in parallel, and not by
 * the one process that collects them all. Returns 1 when it wrote a reply
 * in reply (capped at VAL_SSH_OUT_MAX), which then travels in place of the
 * command's stdout (the result delivered has `replied` set), 0 to send the
 * result as is. Called once more with r and reply NULL when the worker has
 * reported all its targets, to release what it opened. The worker is a
 * fork: ctx is its copy of the caller's, and what the parent had open
 * (a database connection) must not be used there. */
typedef int (*val_ssh_worker_fn)(void *ctx, size_t index, const struct val_ssh_result *r,
				 struct br_buf *reply);

/* val_ssh_run with the targets split in n_workers contiguous slices, each
 * run by a forked worker of the pool on its own loop, opts->max_parallel
 * shared among them (br_pool_share); in_worker (may be NULL) runs in the
 * worker on each result, done in this process, on a loop of its own, as
 * results arrive. A worker that
 * dies fails the targets it had not reported, with the reason.
 * n_workers <= 1: val_ssh_run here, in_worker not called. */
int val_ssh_run_workers(const struct val_ssh_target *targets, size_t n, const struct val_ssh_options *opts,
			int n_workers, struct val_ssh_result *results, val_ssh_worker_fn in_worker,
			val_ssh_done_fn done, void *ctx, struct br_err *err);

/* Append s to b as one single-quoted shell word. */
void val_shell_quote(struct br_buf *b, const char *s);

/* ---- ssh_config.c: where a node is reached --------------------------------- */

/* Each node's settings as OpenSSH resolves them from an ssh_config file
 * (`ssh -G`: Include, Match, Host patterns, tokens). The runner takes
 * HostName, Port and User; it logs in with its own key and checks its own
 * known_hosts (--ssh-key, --known-hosts win over IdentityFile and
 * UserKnownHostsFile, as one key serves every node) and goes through a
 * ProxyJump; a ProxyCommand, which it cannot honour, is an error naming the
 * keyword. */
struct val_ssh_host {
	char *hostname; /* where to connect; NULL: the file sets none */
	int port;	/* 0: the file sets none */
	char *user, *identity_file, *known_hosts;
	char *proxy_jump, *proxy_command; /* NULL: none */
};
void val_ssh_host_release(struct val_ssh_host *h);
/* Read the "keyword value" lines `ssh -G` prints (first value of a keyword
 * wins; the first of UserKnownHostsFile's files). 0 or BR_E_PROTO. */
int val_ssh_g_parse(const char *text, size_t len, struct val_ssh_host *ret, struct br_err *err);

struct val_ssh_config;
/* Check that ssh reads path (its own message on a syntax error, BR_E_INVAL;
 * BR_E_NOTFOUND without the file or without ssh). */
int val_ssh_config_load(const char *path, struct val_ssh_config **ret, struct br_err *err);
void val_ssh_config_free(struct val_ssh_config *cfg);
/* What the file sets for host (fields it does not set stay NULL/0); a NULL
 * cfg sets nothing. BR_E_UNSUPPORTED for a proxy command. */
int val_ssh_config_lookup(const struct val_ssh_config *cfg, const char *host, struct val_ssh_host *ret,
			  struct br_err *err);
/* The same for n hosts, their `ssh -G` run side by side (rets[i] for
 * hosts[i]); on an error, naming the host, every ret is released. */
int val_ssh_config_lookup_all(const struct val_ssh_config *cfg, const char *const *hosts, size_t n,
			      struct val_ssh_host *rets, struct br_err *err);

#endif
