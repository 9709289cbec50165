/* val_ssh_run over the worker pool (common/pool.h): the SSH side of a rack
 * (handshakes, the probe's copy, encryption) is most of validate's CPU,
 * and one process does it on one core. Each worker runs its slice of the
 * targets on its own loop and sends each result back as the pool's JSON
 * line; the caller's callback runs here, on this process's loop, as the
 * lines arrive. A hook of the caller's may run in the worker first and
 * send a reply of its own in place of the command's stdout: the per-node
 * work (parsing a probe document, judging it) is then spread over the
 * workers too. */
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <openssl/evp.h>

#include "common/pool.h"
#include "ssh.h"

/* The longest reason a worker sends for a node. */
#define SSH_POOL_ERROR_MAX 4096u
#define B64_LEN(n) (4 * (((size_t)(n) + 2) / 3))
/* A result's line: its bytes in base64 (the command's output need not be
 * UTF-8, which a JSON string must be), and its numbers. */
#define SSH_POOL_LINE_MAX                                                                                    \
	(B64_LEN(VAL_SSH_OUT_MAX) + B64_LEN(VAL_SSH_ERR_MAX) + B64_LEN(SSH_POOL_ERROR_MAX) + 1024)

int val_ssh_workers_auto(size_t n_targets)
{
	return br_pool_workers_auto(n_targets, VAL_SSH_WORKER_TARGETS, VAL_SSH_WORKERS_MAX);
}

struct ssh_pool {
	const struct val_ssh_target *targets;
	const struct val_ssh_options *opts;
	struct val_ssh_result *results;
	val_ssh_worker_fn in_worker;
	val_ssh_done_fn done;
	void *ctx;
};

/* ---- bytes in a line -------------------------------------------------------- */

static void put_bytes(json_t *line, const char *key, const char *data, size_t len)
{
	unsigned char *b64 = br_xmalloc(B64_LEN(len) + 1);
	int n = EVP_EncodeBlock(b64, (const unsigned char *)(data ? data : ""), (int)len);

	json_object_set_new(line, key, json_stringn((const char *)b64, (size_t)n));
	free(b64);
}

/* key's bytes into b (capped at its max); -1 when they are not base64 or
 * past the cap. */
static int take_bytes(json_t *line, const char *key, struct br_buf *b)
{
	json_t *s = json_object_get(line, key);
	size_t len = json_string_length(s), pad = 0;
	const char *text = json_string_value(s);
	unsigned char *raw;
	int n, rc;

	if (!text || len % 4)
		return -1;
	if (!len)
		return 0;
	pad = (text[len - 1] == '=') + (len > 1 && text[len - 2] == '=');
	raw = br_xmalloc(len / 4 * 3 + 1);
	n = EVP_DecodeBlock(raw, (const unsigned char *)text, (int)len);
	rc = n < 0 || (size_t)n < pad || br_buf_add(b, raw, (size_t)n - pad) ? -1 : 0;
	free(raw);
	return rc;
}

/* ---- the worker side ------------------------------------------------------ */

struct child {
	struct br_pool_worker *w;
	const struct ssh_pool *sp;
	size_t first;
	struct br_buf reply;
};

static void child_done(void *ctx, size_t index, const struct val_ssh_result *r)
{
	struct child *c = ctx;
	const struct br_buf *out = &r->out;
	int replied = 0;
	json_t *line;

	br_buf_reset(&c->reply);
	if (c->sp->in_worker && c->sp->in_worker(c->sp->ctx, c->first + index, r, &c->reply)) {
		replied = 1;
		out = &c->reply;
	}
	line = json_pack("{s:b, s:i, s:b, s:b, s:i, s:I, s:I, s:I}", "ok", r->ok, "exit_status",
			 r->exit_status, "uploaded", r->uploaded, "replied", replied, "failure",
			 (int)r->failure, "ms", (json_int_t)r->ms, "run_start_ms",
			 (json_int_t)r->run_start_ms, "run_end_ms", (json_int_t)r->run_end_ms);
	if (r->error || !r->ok) {
		const char *error = r->error ? r->error : "";
		size_t len = strlen(error);

		put_bytes(line, "error", error, len < SSH_POOL_ERROR_MAX ? len : SSH_POOL_ERROR_MAX);
	}
	put_bytes(line, "out", out->data, out->len);
	put_bytes(line, "err", r->err.data, r->err.len);
	br_pool_send(c->w, c->first + index, line);
}

static int work(struct br_pool_worker *w, size_t first, size_t count, void *ctx, struct br_err *err)
{
	const struct ssh_pool *sp = ctx;
	struct val_ssh_result *results = br_xcalloc(count ? count : 1, sizeof(*results));
	struct child c = { w, sp, first, { 0 } };
	struct val_ssh_options per = *sp->opts;
	struct br_loop *loop = NULL;
	struct br_err run_err = { 0 };
	int rc;

	/* A write to a parent gone fails (the pool then ends the worker)
	 * instead of killing it unseen; the worker ends with its parent. */
	signal(SIGPIPE, SIG_IGN);
	br_pool_end_with_parent(w);
	/* --parallel is for the whole rack: each worker gets its share. */
	per.max_parallel = (int)br_pool_share(w, sp->opts->max_parallel);
	br_buf_init(&c.reply, VAL_SSH_OUT_MAX);
	rc = br_loop_new(&loop, &run_err);
	if (!rc)
		rc = val_ssh_run(loop, sp->targets + first, count, &per, results, child_done, &c, &run_err);
	if (rc) {
		/* nothing ran: every target is told why */
		for (size_t i = 0; i < count; i++) {
			struct val_ssh_result r = { 0 };

			r.error = run_err.msg;
			child_done(&c, i, &r);
		}
	}
	if (sp->in_worker)
		sp->in_worker(sp->ctx, SIZE_MAX, NULL, NULL);
	for (size_t i = 0; i < count; i++)
		val_ssh_result_release(&results[i]);
	free(results);
	br_buf_release(&c.reply);
	br_loop_free(loop);
	return 0;
}

/* ---- the parent side ------------------------------------------------------ */

static void deliver(const struct ssh_pool *sp, size_t i, struct val_ssh_result *r)
{
	sp->results[i] = *r;
	if (sp->done)
		sp->done(sp->ctx, i, &sp->results[i]);
}

static void lost(const struct ssh_pool *sp, size_t i, const char *why)
{
	struct val_ssh_result r = { 0 };

	r.error = br_xstrdup(why);
	r.failure = BR_FAIL_WORKER;
	br_buf_init(&r.out, 0);
	br_buf_init(&r.err, 0);
	deliver(sp, i, &r);
}

static json_int_t jint(json_t *line, const char *key)
{
	return json_integer_value(json_object_get(line, key));
}

static void on_line(size_t i, json_t *line, int rc, const char *why, void *ctx)
{
	const struct ssh_pool *sp = ctx;
	struct val_ssh_result r = { 0 };
	struct br_buf error;
	json_int_t failure = jint(line, "failure");

	if (!line) {
		lost(sp, i, why);
		return;
	}
	r.ok = json_is_true(json_object_get(line, "ok"));
	r.exit_status = (int)jint(line, "exit_status");
	r.uploaded = json_is_true(json_object_get(line, "uploaded"));
	r.replied = json_is_true(json_object_get(line, "replied"));
	r.failure = failure >= 0 && failure < BR_FAIL_COUNT ? (enum br_fail_kind)failure : BR_FAIL_STAGE;
	r.ms = jint(line, "ms");
	r.run_start_ms = jint(line, "run_start_ms");
	r.run_end_ms = jint(line, "run_end_ms");
	br_buf_init(&error, SSH_POOL_ERROR_MAX);
	br_buf_init(&r.out, VAL_SSH_OUT_MAX);
	br_buf_init(&r.err, VAL_SSH_ERR_MAX);
	if ((json_object_get(line, "error") && take_bytes(line, "error", &error)) ||
	    take_bytes(line, "out", &r.out) || take_bytes(line, "err", &r.err)) {
		br_buf_release(&error);
		val_ssh_result_release(&r);
		lost(sp, i, "validation worker sent a result that cannot be read");
		return;
	}
	if (json_object_get(line, "error") || !r.ok)
		r.error = br_xstrdup(error.data ? error.data : "");
	br_buf_release(&error);
	deliver(sp, i, &r);
}

/* The words validate's nodes have always failed with for a dead worker. */
static char *end_reason(const struct br_pool_end *end, void *ctx)
{
	if (end->trouble)
		return br_xstrdup(end->trouble);
	if (end->interrupted)
		return br_xasprintf("interrupted by %s", br_signal_name(br_signal_caught()));
	if (WIFSIGNALED(end->status))
		return br_xasprintf(
		    "validation worker %ld was killed by signal %d before reporting this node", end->pid,
		    WTERMSIG(end->status));
	return br_xasprintf("validation worker %ld exited with status %d before reporting this node",
			    end->pid, WEXITSTATUS(end->status));
}

int val_ssh_run_workers(const struct val_ssh_target *targets, size_t n, const struct val_ssh_options *opts,
			int n_workers, struct val_ssh_result *results, val_ssh_worker_fn in_worker,
			val_ssh_done_fn done, void *ctx, struct br_err *err)
{
	struct val_ssh_options per = *opts;
	struct ssh_pool sp = { targets, &per, results, in_worker, done, ctx };
	/* a signal ends a worker at once: it has nothing to log out of */
	static const struct br_pool_fork_hooks hooks = { .end_reason = end_reason, .worker_signals_end = 1 };
	const struct br_pool pool = { "validate", "validation", n,   n_workers, SSH_POOL_LINE_MAX,
				      work,	  on_line,	&sp, NULL };
	struct val_ssh_file file = { 0 };
	struct br_loop *loop;
	int rc;

	if (n_workers > (int)n)
		n_workers = (int)n;
	if (n_workers <= 1) {
		if ((rc = br_loop_new(&loop, err)))
			return rc;
		rc = val_ssh_run(loop, targets, n, opts, results, done, ctx, err);
		br_loop_free(loop);
		return rc;
	}
	for (size_t i = 0; i < n; i++)
		memset(&results[i], 0, sizeof(results[i]));
	/* The file read and digested here, once, not by every worker; one
	 * that cannot be read is left to each worker, which fails its targets
	 * saying why, as before. */
	if (opts->upload && !opts->upload_file && !val_ssh_file_load(opts->upload, &file, NULL))
		per.upload_file = &file;
	rc = br_pool_exec(&pool, &hooks, NULL, err);
	val_ssh_file_release(&file);
	return rc;
}
