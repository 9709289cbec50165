/* Per-node leases (inventory.h): who works a node now. */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "inv_private.h"

#define LEASE_HOST_MAX INV_HOST_MAX

void inv_this_host(char host[INV_HOST_MAX])
{
	if (gethostname(host, LEASE_HOST_MAX - 1))
		snprintf(host, LEASE_HOST_MAX, "localhost");
	host[LEASE_HOST_MAX - 1] = '\0';
}

/* What /proc/PID/stat says of process pid: when it started, in clock
 * ticks after boot (field 22; 0 when it cannot be read), and whether it has
 * exited and only waits to be reaped (state Z or X, field 3; exited may be
 * NULL). With the pid the start time names one process: a pid the kernel
 * handed to another process since does not keep a dead holder's lease. A
 * zombie keeps its pid until its parent reaps it, which an init that does
 * not reap (some container inits) never does: a SIGKILLed stage's lease
 * must not outlive it there. */
static int64_t pid_start(long pid, int *exited)
{
	char path[64], *data = NULL, *p;
	size_t len;
	long long ticks = 0;

	if (exited)
		*exited = 0;
	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	if (br_read_file(path, 4096, &data, &len, NULL))
		return 0;
	/* The command name (field 2) may hold spaces and parentheses: count
	 * fields after its last ')'. */
	p = data ? strrchr(data, ')') : NULL;
	if (exited && p && p[1] == ' ' && (p[2] == 'Z' || p[2] == 'X'))
		*exited = 1;
	for (int field = 2; p && field < 22; field++)
		p = strchr(p + 1, ' ');
	if (p)
		ticks = strtoll(p + 1, NULL, 10);
	free(data);
	return ticks > 0 ? (int64_t)ticks : 0;
}

/* This process's start time, read once per process (a forked child reads
 * its own): a batch of leases would otherwise read /proc once per node. */
int64_t inv_self_start(void)
{
	static long pid;
	static int64_t start;

	if (pid != (long)getpid()) {
		pid = (long)getpid();
		start = pid_start(pid, NULL);
	}
	return start;
}

void inv_lease_release(struct inv_lease *lease)
{
	if (!lease)
		return;
	free(lease->stage);
	free(lease->host);
	memset(lease, 0, sizeof(*lease));
}

/* A holder on this host is alive while its pid is; one elsewhere cannot be
 * asked, and only its expiry ends it. */
int inv_holder_alive(long pid, int64_t started_at, const char *holder_host, const char *host)
{
	int64_t started;
	int exited;

	if (strcmp(holder_host, host))
		return 1;
	if (pid <= 0 || (kill((pid_t)pid, 0) && errno == ESRCH))
		return 0;
	started = pid_start(pid, &exited);
	if (exited)
		return 0;
	return !started_at || !started || started == started_at;
}

static int holder_alive(const struct inv_lease *h, const char *host)
{
	return inv_holder_alive(h->pid, h->pid_start, h->host, host);
}

static void describe(const struct inv_lease *h, char out[32])
{
	struct tm tm;
	time_t t = (time_t)h->expires_at;

	if (!gmtime_r(&t, &tm) || !strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(out, 32, "%lld", (long long)h->expires_at);
}

/* The current lease of node id, if any: 1 with *h filled, 0 when none. */
static int read_lease(struct inv *inv, int64_t id, struct inv_lease *h, struct br_err *err)
{
	struct invb_stmt *st;
	int rc;

	rc = inv_prepare(inv, "SELECT stage, pid, host, expires_at, pid_start FROM leases WHERE node_id=?",
			 &st, err);
	if (rc)
		return rc;
	invb_bind_int64(st, 1, id);
	rc = invb_step(st);
	if (rc == INVB_ROW) {
		h->stage = inv_col_dup(st, 0);
		h->pid = (long)invb_column_int64(st, 1);
		h->host = inv_col_dup(st, 2);
		h->expires_at = invb_column_int64(st, 3);
		h->pid_start = invb_column_int64(st, 4);
		rc = h->stage && h->host ? 1 : 0;
		if (!rc)
			inv_lease_release(h);
	} else {
		rc = rc == INVB_DONE ? 0 : inv_dberr(inv, err, "read lease");
	}
	inv_finalize(inv, st);
	return rc;
}

static int write_lease(struct inv *inv, int64_t id, const char *stage, const char *host, int64_t expires_at,
		       struct br_err *err)
{
	struct invb_stmt *st;
	int rc;

	rc = inv_prepare(inv,
			 "INSERT INTO leases(node_id, stage, pid, host, expires_at, pid_start)"
			 " VALUES (?,?,?,?,?,?) ON CONFLICT (node_id) DO UPDATE SET stage=excluded.stage,"
			 " pid=excluded.pid, host=excluded.host, expires_at=excluded.expires_at,"
			 " pid_start=excluded.pid_start",
			 &st, err);
	if (rc)
		return rc;
	invb_bind_int64(st, 1, id);
	inv_bind_text(st, 2, stage);
	invb_bind_int64(st, 3, (int64_t)getpid());
	inv_bind_text(st, 4, host);
	invb_bind_int64(st, 5, expires_at);
	invb_bind_int64(st, 6, inv_self_start());
	rc = invb_step(st) == INVB_DONE ? 0 : inv_dberr(inv, err, "write lease");
	inv_finalize(inv, st);
	return rc;
}

/* Within the transaction: 0 when the lease is ours to take, BR_E_EXISTS
 * (holder in *h) when a live holder keeps it. */
static int may_take(struct inv *inv, const char *hostname, int64_t id, const char *host, int64_t now,
		    struct inv_lease *h, struct br_err *err)
{
	char until[32];
	int rc = read_lease(inv, id, h, err);

	if (rc <= 0)
		return rc;
	if (h->pid == (long)getpid() && !strcmp(h->host, host))
		return 0; /* ours: renewed */
	describe(h, until);
	if (h->expires_at <= now) {
		br_info("inventory", "%s: taking over the lease of %s (pid %ld on %s): it expired at %s",
			hostname, h->stage, h->pid, h->host, until);
		return 0;
	}
	if (!holder_alive(h, host)) {
		br_info("inventory", "%s: taking over the lease of %s (pid %ld on %s): that process is gone",
			hostname, h->stage, h->pid, h->host);
		return 0;
	}
	if (inv->lease_yield && !strcmp(h->host, host)) {
		struct inv_node node;
		int yields;

		rc = inv_node_get(inv, hostname, &node, err);
		if (rc)
			return rc;
		yields = inv->lease_yield(inv->lease_yield_ctx, h, &node);
		inv_node_release(&node);
		if (yields) {
			br_info("inventory",
				"%s: taking over the lease of %s (pid %ld): it moved the node on", hostname,
				h->stage, h->pid);
			return 0;
		}
	}
	return br_errf(err, BR_E_EXISTS, "%s: %s (pid %ld on %s) is working on it (lease until %s)", hostname,
		       h->stage, h->pid, h->host, until);
}

/* Within the caller's transaction: BR_E_EXISTS leaves it usable. */
static int take_in_tx(struct inv *inv, const char *hostname, const char *stage, int ttl_s,
		      struct inv_node *ret_node, struct inv_lease *ret_holder, struct br_err *err)
{
	struct inv_lease holder = { 0 };
	char host[LEASE_HOST_MAX];
	int64_t now = (int64_t)time(NULL), id;
	int rc;

	inv_this_host(host);
	rc = inv_node_id(inv, hostname, &id, NULL, err);
	if (!rc)
		rc = may_take(inv, hostname, id, host, now, &holder, err);
	if (!rc)
		rc = write_lease(inv, id, stage, host, now + ttl_s, err);
	if (!rc)
		rc = inv_node_get(inv, hostname, ret_node, err);
	if (rc == BR_E_EXISTS && ret_holder) {
		*ret_holder = holder;
		return rc;
	}
	inv_lease_release(&holder);
	return rc;
}

int inv_lease_take(struct inv *inv, const char *hostname, const char *stage, int ttl_s,
		   struct inv_node *ret_node, struct inv_lease *ret_holder, struct br_err *err)
{
	int rc = inv_tx_begin(inv, err);

	if (rc)
		return rc;
	rc = take_in_tx(inv, hostname, stage, ttl_s, ret_node, ret_holder, err);
	if (!rc) {
		rc = inv_tx_commit(inv, err);
		if (rc)
			inv_node_release(ret_node);
	}
	if (rc)
		inv_tx_rollback(inv);
	return rc;
}

int inv_leases_take(struct inv *inv, const char *const *hostnames, size_t n, const char *stage, int ttl_s,
		    inv_lease_fn fn, void *ctx, struct br_err *err)
{
	struct inv_node *fresh = br_xcalloc(INV_LEASE_BATCH, sizeof(*fresh));
	struct br_err *why = br_xcalloc(INV_LEASE_BATCH, sizeof(*why));
	int *rcs = br_xcalloc(INV_LEASE_BATCH, sizeof(*rcs)), rc = 0;

	for (size_t first = 0; first < n && !rc; first += INV_LEASE_BATCH) {
		size_t count = n - first < INV_LEASE_BATCH ? n - first : INV_LEASE_BATCH, done = 0;

		rc = inv_tx_begin(inv, err);
		for (; !rc && done < count; done++) {
			memset(&why[done], 0, sizeof(why[done]));
			rcs[done] = take_in_tx(inv, hostnames[first + done], stage, ttl_s, &fresh[done], NULL,
					       &why[done]);
			if (rcs[done] && rcs[done] != BR_E_EXISTS)
				rc = br_errf(err, rcs[done], "%s", why[done].msg);
		}
		if (!rc)
			rc = inv_tx_commit(inv, err);
		if (rc) {
			inv_tx_rollback(inv);
			for (size_t i = 0; i < done; i++)
				if (!rcs[i])
					inv_node_release(&fresh[i]);
			break;
		}
		for (size_t i = 0; i < count; i++)
			fn(ctx, first + i, rcs[i], rcs[i] ? NULL : &fresh[i], &why[i]);
	}
	free(fresh);
	free(why);
	free(rcs);
	return rc;
}

void inv_lease_set_yield(struct inv *inv, inv_lease_yield_fn fn, void *ctx)
{
	inv->lease_yield = fn;
	inv->lease_yield_ctx = ctx;
}

int inv_leases_give_back(struct inv *inv, struct br_err *err)
{
	char host[LEASE_HOST_MAX];
	struct invb_stmt *st;
	int rc;

	inv_this_host(host);
	rc = inv_prepare(inv, "DELETE FROM leases WHERE pid=? AND host=?", &st, err);
	if (rc)
		return rc;
	invb_bind_int64(st, 1, (int64_t)getpid());
	inv_bind_text(st, 2, host);
	rc = invb_step(st) == INVB_DONE ? 0 : inv_dberr(inv, err, "give back leases");
	inv_finalize(inv, st);
	return rc;
}

int inv_lease_give_back_node(struct inv *inv, const char *hostname, struct br_err *err)
{
	char host[LEASE_HOST_MAX];
	struct invb_stmt *st;
	int rc;

	inv_this_host(host);
	rc = inv_prepare(
	    inv,
	    "DELETE FROM leases WHERE node_id=(SELECT id FROM nodes WHERE hostname=?) AND pid=? AND"
	    " host=?",
	    &st, err);
	if (rc)
		return rc;
	inv_bind_text(st, 1, hostname);
	invb_bind_int64(st, 2, (int64_t)getpid());
	inv_bind_text(st, 3, host);
	rc = invb_step(st) == INVB_DONE ? 0 : inv_dberr(inv, err, "give back lease");
	inv_finalize(inv, st);
	return rc;
}
