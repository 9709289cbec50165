/* Per-node leases (inventory.h): who works a node now. */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <stdint.h>
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

/* ---- the tokens this process holds -------------------------------------
 * node id -> the fencing token this process took its lease with. Process
 * wide, not per connection: a stage's workers and round children are
 * forked from the process that took the leases and write under them with
 * connections of their own. Open addressing on the node id; 0 is empty,
 * -1 a removed key. */
static struct held_token {
	int64_t id, token;
} * held;
static size_t held_cap, held_used;

static size_t held_slot(int64_t id, int for_insert)
{
	size_t mask = held_cap - 1, i = (size_t)((uint64_t)id * 0x9E3779B97F4A7C15ull) & mask,
	       tomb = SIZE_MAX;

	for (;; i = (i + 1) & mask) {
		if (held[i].id == id)
			return i;
		if (held[i].id == -1 && tomb == SIZE_MAX)
			tomb = i;
		if (!held[i].id)
			return for_insert && tomb != SIZE_MAX ? tomb : i;
	}
}

static void held_put(int64_t id, int64_t token)
{
	size_t i;

	if ((held_used + 1) * 2 > held_cap) {
		struct held_token *old = held;
		size_t old_cap = held_cap;

		held_cap = held_cap ? held_cap * 2 : 64;
		held = br_xcalloc(held_cap, sizeof(*held));
		held_used = 0;
		for (size_t k = 0; k < old_cap; k++)
			if (old[k].id > 0) {
				held[held_slot(old[k].id, 1)] = old[k];
				held_used++;
			}
		free(old);
	}
	i = held_slot(id, 1);
	if (held[i].id != id)
		held_used++;
	held[i].id = id;
	held[i].token = token;
}

static int64_t held_get(int64_t id)
{
	size_t i;

	if (!held_cap)
		return 0;
	i = held_slot(id, 0);
	return held[i].id == id ? held[i].token : 0;
}

static void held_drop(int64_t id)
{
	size_t i;

	if (!held_cap)
		return;
	i = held_slot(id, 0);
	if (held[i].id == id)
		held[i].id = -1;
}

static void held_clear(void)
{
	free(held);
	held = NULL;
	held_cap = held_used = 0;
}

/* The holder pid this process's leases name (its own, or, in a worker or
 * round child forked from it, its parent's): what renewal renews. */
static long holder_pid;

int inv_lease_fence(struct inv *inv, int64_t id, struct br_err *err)
{
	int64_t mine = held_get(id), token, last;
	struct invb_stmt *st;
	char *name, *host;
	long pid;
	int rc;

	if (!mine || inv->unfenced)
		return 0;
	rc =
	    inv_prepare(inv,
			"SELECT l.token, t.token, t.pid, t.host, n.hostname FROM nodes n"
			" LEFT JOIN leases l ON l.node_id = n.id LEFT JOIN lease_tokens t ON t.node_id = n.id"
			" WHERE n.id = ?",
			&st, err);
	if (rc)
		return rc;
	invb_bind_int64(st, 1, id);
	rc = invb_step(st);
	if (rc != INVB_ROW) {
		rc = rc == INVB_DONE ? 0 : inv_dberr(inv, err, "check the lease");
		inv_finalize(inv, st);
		return rc;
	}
	if (!invb_column_is_null(st, 0) && invb_column_int64(st, 0) == mine) {
		inv_finalize(inv, st);
		return 0;
	}
	last = invb_column_is_null(st, 1) ? 0 : invb_column_int64(st, 1);
	token = invb_column_is_null(st, 0) ? 0 : invb_column_int64(st, 0);
	pid = (long)invb_column_int64(st, 2);
	host = inv_col_dup(st, 3);
	name = inv_col_dup(st, 4);
	if (last != mine)
		rc = br_errf(err, BR_E_STATE,
			     "lease on %s lost to %ld@%s (token %lld); this write (token %lld) refused",
			     name ? name : "?", pid, host ? host : "?", (long long)last, (long long)mine);
	else
		rc = br_errf(
		    err, BR_E_STATE, "lease on %s lost: no longer held (token %lld%s); this write refused",
		    name ? name : "?", (long long)mine, token ? ", the lease row names another" : "");
	free(host);
	free(name);
	inv_finalize(inv, st);
	return rc;
}

int inv_lease_token(struct inv *inv, const char *hostname, int64_t *ret_token, struct br_err *err)
{
	int64_t id;
	int rc = inv_node_id(inv, hostname, &id, NULL, err);

	*ret_token = rc ? 0 : held_get(id);
	return rc;
}

int inv_leases_renew(struct inv *inv, int ttl_s, size_t *ret_n, struct br_err *err)
{
	char host[LEASE_HOST_MAX];
	struct invb_stmt *st;
	int rc;

	if (ret_n)
		*ret_n = 0;
	if (!holder_pid || !held_cap)
		return 0;
	inv_this_host(host);
	/* A lease another holder took names its pid now: not renewed. */
	rc = inv_prepare(inv, "UPDATE leases SET expires_at=? WHERE pid=? AND host=?", &st, err);
	if (rc)
		return rc;
	invb_bind_int64(st, 1, (int64_t)time(NULL) + ttl_s);
	invb_bind_int64(st, 2, (int64_t)holder_pid);
	inv_bind_text(st, 3, host);
	rc = invb_step(st) == INVB_DONE ? 0 : inv_dberr(inv, err, "renew leases");
	if (!rc && ret_n)
		*ret_n = (size_t)invb_changes(inv->db);
	inv_finalize(inv, st);
	return rc;
}

int inv_lease_ttl(int *ret_ttl, struct br_err *err)
{
	const char *v = getenv("BRINGUP_LEASE_TTL");
	long ttl;

	*ret_ttl = INV_LEASE_TTL_S;
	if (!v || !*v)
		return 0;
	if (br_parse_long(v, INV_LEASE_TTL_MIN_S, INV_LEASE_TTL_MAX_S, &ttl))
		return br_errf(err, BR_E_INVAL,
			       "BRINGUP_LEASE_TTL: '%s' is not a number of seconds from %d to %d", v,
			       INV_LEASE_TTL_MIN_S, INV_LEASE_TTL_MAX_S);
	*ret_ttl = (int)ttl;
	return 0;
}

int inv_lease_keepalive_ms(int ttl_s)
{
	int ms = ttl_s * 1000 / 3;

	return ms < INV_LEASE_KEEPALIVE_S * 1000 ? ms : INV_LEASE_KEEPALIVE_S * 1000;
}

/* The current lease of node id, if any: 1 with *h filled, 0 when none. */
static int read_lease(struct inv *inv, int64_t id, struct inv_lease *h, struct br_err *err)
{
	struct invb_stmt *st;
	int rc;

	rc = inv_prepare(inv,
			 "SELECT stage, pid, host, expires_at, pid_start, token FROM leases WHERE node_id=?",
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
		h->token = invb_column_int64(st, 5);
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
		       int64_t token, struct br_err *err)
{
	struct invb_stmt *st;
	int rc;

	rc = inv_prepare(inv,
			 "INSERT INTO leases(node_id, stage, pid, host, expires_at, pid_start, token)"
			 " VALUES (?,?,?,?,?,?,?) ON CONFLICT (node_id) DO UPDATE SET stage=excluded.stage,"
			 " pid=excluded.pid, host=excluded.host, expires_at=excluded.expires_at,"
			 " pid_start=excluded.pid_start, token=excluded.token",
			 &st, err);
	if (rc)
		return rc;
	invb_bind_int64(st, 1, id);
	inv_bind_text(st, 2, stage);
	invb_bind_int64(st, 3, (int64_t)getpid());
	inv_bind_text(st, 4, host);
	invb_bind_int64(st, 5, expires_at);
	invb_bind_int64(st, 6, inv_self_start());
	invb_bind_int64(st, 7, token);
	rc = invb_step(st) == INVB_DONE ? 0 : inv_dberr(inv, err, "write lease");
	inv_finalize(inv, st);
	return rc;
}

/* The node's next fencing token, issued to this process (within the
 * transaction): one more than the last one issued, whoever holds it. */
static int next_token(struct inv *inv, int64_t id, const char *stage, const char *host, int64_t *ret_token,
		      struct br_err *err)
{
	struct invb_stmt *st;
	int rc;

	rc = inv_prepare(inv,
			 "INSERT INTO lease_tokens(node_id, token, stage, pid, host) VALUES (?, 1, ?, ?, ?)"
			 " ON CONFLICT (node_id) DO UPDATE SET token=lease_tokens.token + 1,"
			 " stage=excluded.stage, pid=excluded.pid, host=excluded.host",
			 &st, err);
	if (rc)
		return rc;
	invb_bind_int64(st, 1, id);
	inv_bind_text(st, 2, stage);
	invb_bind_int64(st, 3, (int64_t)getpid());
	inv_bind_text(st, 4, host);
	rc = invb_step(st) == INVB_DONE ? 0 : inv_dberr(inv, err, "issue a lease token");
	inv_finalize(inv, st);
	if (rc)
		return rc;
	rc = inv_prepare(inv, "SELECT token FROM lease_tokens WHERE node_id=?", &st, err);
	if (rc)
		return rc;
	invb_bind_int64(st, 1, id);
	if (invb_step(st) == INVB_ROW)
		*ret_token = invb_column_int64(st, 0);
	else
		rc = inv_dberr(inv, err, "read the lease token");
	inv_finalize(inv, st);
	return rc;
}

/* The node's history says who held it before a takeover. */
static int note_takeover(struct inv *inv, int64_t id, enum inv_state state, const struct inv_lease *h,
			 const char *why, struct br_err *err)
{
	char *what = br_xasprintf("lease taken over from stage %s pid %ld on host %s, %s (token %lld)",
				  h->stage, h->pid, h->host, why, (long long)h->token);
	int rc = inv_event_add(inv, id, inv_state_name(state), inv_state_name(state), what, err);

	free(what);
	return rc;
}

/* Within the transaction: 0 when the lease is ours to take (*renewed 1
 * when it is ours already, *h its row), BR_E_EXISTS (holder in *h) when a
 * live holder keeps it. */
static int may_take(struct inv *inv, const char *hostname, int64_t id, enum inv_state state, const char *host,
		    int64_t now, struct inv_lease *h, int *renewed, struct br_err *err)
{
	char until[32], *why;
	int rc = read_lease(inv, id, h, err);

	*renewed = 0;
	if (rc <= 0)
		return rc;
	if (h->pid == (long)getpid() && !strcmp(h->host, host)) {
		*renewed = 1;
		return 0; /* ours: renewed */
	}
	describe(h, until);
	if (h->expires_at <= now) {
		br_info("inventory", "%s: taking over the lease of %s (pid %ld on %s): it expired at %s",
			hostname, h->stage, h->pid, h->host, until);
		why = br_xasprintf("expired at %s", until);
		rc = note_takeover(inv, id, state, h, why, err);
		free(why);
		return rc;
	}
	if (!holder_alive(h, host)) {
		br_info("inventory", "%s: taking over the lease of %s (pid %ld on %s): that process is gone",
			hostname, h->stage, h->pid, h->host);
		return note_takeover(inv, id, state, h, "that process is gone", err);
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
	int64_t now = (int64_t)time(NULL), id, token = 0;
	enum inv_state state;
	int rc, renewed = 0;

	inv_this_host(host);
	/* The takeover's event is written before this process holds the
	 * token: not fenced by a token it held before. */
	inv->unfenced = 1;
	rc = inv_node_id(inv, hostname, &id, &state, err);
	if (!rc)
		rc = may_take(inv, hostname, id, state, host, now, &holder, &renewed, err);
	inv->unfenced = 0;
	if (!rc && renewed && holder.token && holder.token == held_get(id))
		token = holder.token;
	else if (!rc)
		rc = next_token(inv, id, stage, host, &token, err);
	if (!rc)
		rc = write_lease(inv, id, stage, host, now + ttl_s, token, err);
	if (!rc) {
		/* Rolled back later, the entry names a token the node's lease
		 * does not carry: this process's writes to it are refused. */
		held_put(id, token);
		holder_pid = (long)getpid();
		rc = inv_node_get(inv, hostname, ret_node, err);
	}
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
	if (!rc && holder_pid == (long)getpid())
		held_clear();
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
	if (!rc) {
		int64_t id;

		if (!inv_node_id(inv, hostname, &id, NULL, NULL))
			held_drop(id);
	}
	return rc;
}
