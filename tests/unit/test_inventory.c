/* Unit tests for inventory/: state changes as compare-and-set, per-node
 * leases, a stage's verdicts in batches. Each test works on its own inventory file.
 * test_inventory_pg.c runs every one of them again on PostgreSQL: it
 * defines INV_TEST_PG and its own fixture_where/fixture_drop (a database
 * per test) and includes this file. */
#define _DEFAULT_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "inventory/backend.h"
#include "inventory/inventory.h"

struct fixture {
	char path[192];
	struct inv *inv;
};

/* Each test's inventory: a file of its own, and the files SQLite keeps
 * beside it. */
static void fixture_where_sqlite(char *where, size_t len)
{
	int fd;

	snprintf(where, len, "/tmp/br-unit-inv.XXXXXX");
	fd = mkstemp(where);
	assert_true(fd >= 0);
	close(fd);
}

static void fixture_drop_sqlite(const char *where)
{
	char side[240];

	unlink(where);
	snprintf(side, sizeof(side), "%s-wal", where);
	unlink(side);
	snprintf(side, sizeof(side), "%s-shm", where);
	unlink(side);
}

#ifndef INV_TEST_PG
static void fixture_where(char *where, size_t len)
{
	fixture_where_sqlite(where, len);
}

static void fixture_drop(const char *where)
{
	fixture_drop_sqlite(where);
}
#endif

static int setup(void **state)
{
	static const struct inv_manifest_row rows[] = {
		{ "node-a", "r01", 1, "127.0.0.1:1", "root", "env:PW", "xe9680", "redfish", NULL, NULL, 0,
		  NULL, NULL, NULL, NULL },
		{ "node-b", "r01", 2, "127.0.0.1:2", "root", "env:PW", "xe9680", "redfish", NULL, NULL, 0,
		  NULL, NULL, NULL, NULL },
	};
	struct fixture *f = calloc(1, sizeof(*f));
	struct br_err err = { 0 };

	fixture_where(f->path, sizeof(f->path));
	assert_int_equal(inv_open(f->path, &f->inv, &err), 0);
	assert_int_equal(inv_import(f->inv, rows, 2, "rack.csv", NULL, &err), 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	inv_close(f->inv);
	fixture_drop(f->path);
	free(f);
	return 0;
}

static enum inv_state state_of(struct inv *inv, const char *host)
{
	struct inv_node n;
	enum inv_state s;

	assert_int_equal(inv_node_get(inv, host, &n, NULL), 0);
	s = n.state;
	inv_node_release(&n);
	return s;
}

/* configure read `discovered`; enlist deployed the node meanwhile: the
 * late write must not take it back. */
static void test_state_compare_and_set(void **state)
{
	struct fixture *f = *state;
	struct br_err err = { 0 };

	assert_int_equal(inv_node_set_state(f->inv, "node-a", INV_NEW, INV_DISCOVERED, "read", &err), 0);
	assert_int_equal(inv_node_set_state(f->inv, "node-a", INV_DISCOVERED, INV_DEPLOYED, "deployed", &err),
			 0);
	assert_int_equal(inv_node_set_state(f->inv, "node-a", INV_DISCOVERED, INV_CONFIGURED, "late", &err),
			 BR_E_STATE);
	assert_non_null(strstr(err.msg, "node-a is now 'deployed', not 'discovered'"));
	assert_int_equal(state_of(f->inv, "node-a"), INV_DEPLOYED);
	/* storing a BMC's facts compares too */
	{
		struct br_hw hw;

		br_hw_init(&hw);
		assert_int_equal(inv_store_hw(f->inv, "node-a", &hw, INV_NEW, INV_DISCOVERED, "again", &err),
				 BR_E_STATE);
		br_hw_release(&hw);
	}
	assert_int_equal(state_of(f->inv, "node-a"), INV_DEPLOYED);
}

/* A child process takes the lease and waits: the parent is refused with
 * the holder named; once the child is gone, the lease is taken over, even
 * while the dead child is a zombie no one has reaped yet (an orphaned
 * stage under an init that does not reap keeps its pid that way). */
static void test_lease(void **state)
{
	struct fixture *f = *state;
	struct br_err err = { 0 };
	struct inv_lease holder = { 0 };
	struct inv_node n;
	int ready[2], status;
	siginfo_t info;
	char host[256] = { 0 }, want[512], c;
	pid_t child;

	gethostname(host, sizeof(host) - 1);
	assert_int_equal(pipe(ready), 0);
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		struct inv *own;

		close(ready[0]);
		if (inv_open(f->path, &own, NULL) ||
		    inv_lease_take(own, "node-b", "bringup-enlist", 60, &n, NULL, NULL))
			_exit(1);
		inv_node_release(&n);
		if (write(ready[1], "x", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(ready[1]);
	assert_int_equal(read(ready[0], &c, 1), 1);
	close(ready[0]);
	assert_int_equal(inv_lease_take(f->inv, "node-b", "bringup-configure", 60, &n, &holder, &err),
			 BR_E_EXISTS);
	snprintf(want, sizeof(want), "node-b: bringup-enlist (pid %ld on %s) is working on it", (long)child,
		 host);
	assert_non_null(strstr(err.msg, want));
	assert_string_equal(holder.stage, "bringup-enlist");
	assert_int_equal(holder.pid, (long)child);
	inv_lease_release(&holder);
	/* Another node is free. */
	assert_int_equal(inv_lease_take(f->inv, "node-a", "bringup-configure", 60, &n, NULL, &err), 0);
	inv_node_release(&n);
	kill(child, SIGKILL);
	memset(&info, 0, sizeof(info));
	assert_int_equal(waitid(P_PID, (id_t)child, &info, WEXITED | WNOWAIT), 0);
	assert_int_equal(info.si_pid, child);
	assert_int_equal(inv_lease_take(f->inv, "node-b", "bringup-configure", 60, &n, NULL, &err), 0);
	assert_string_equal(n.hostname, "node-b");
	inv_node_release(&n);
	assert_int_equal(waitpid(child, &status, 0), child);
	/* Ours now: taking it again renews it; giving back frees both. */
	assert_int_equal(inv_lease_take(f->inv, "node-b", "bringup-configure", 60, &n, NULL, &err), 0);
	inv_node_release(&n);
	assert_int_equal(inv_leases_give_back(f->inv, &err), 0);
}

/* Raw SQL on the fixture's file, as another writer would change it. */
static void raw_sql(const struct fixture *f, const char *sql)
{
	struct invb_conn *db;

	assert_int_equal(invb_for(f->path)->open(f->path, 0, &db, NULL), 0);
	assert_int_equal(invb_exec(db, sql), 0);
	db->ops->close(db);
}

/* One integer a query on the fixture's inventory gives. */
static int64_t raw_int(const struct fixture *f, const char *sql)
{
	struct invb_conn *db;
	struct invb_stmt *st;
	int64_t v = -1;

	assert_int_equal(invb_for(f->path)->open(f->path, 0, &db, NULL), 0);
	assert_int_equal(invb_prepare(db, sql, 0, &st), 0);
	if (invb_step(st) == INVB_ROW)
		v = invb_column_int64(st, 0);
	invb_finalize(st);
	db->ops->close(db);
	return v;
}

/* Fencing (issue 25): a lease that expired is taken over by another
 * process with the next token; every write this process then makes to the
 * node is refused naming the new holder, the node left as the new holder
 * has it, and renewal does not take it back. Taken again (the other holder
 * gone), the next token, and writes pass; given back, writes outside a
 * lease are not fenced. */
static void test_lease_fence(void **state)
{
	struct fixture *f = *state;
	struct br_err err = { 0 };
	struct inv_check check = { "link", INV_CHECK_PASS, "up", NULL, NULL };
	struct inv_event *ev = NULL;
	struct inv_node n;
	int64_t t1 = 0, t2 = 0, t3 = 0;
	char host[256] = { 0 }, want[512];
	size_t renewed = 9, n_ev = 0;
	int status, ttl = 0, found = 0;
	pid_t child;

	gethostname(host, sizeof(host) - 1);
	assert_int_equal(inv_lease_take(f->inv, "node-a", "bringup-configure", 60, &n, NULL, &err), 0);
	inv_node_release(&n);
	assert_int_equal(inv_lease_token(f->inv, "node-a", &t1, &err), 0);
	assert_true(t1 > 0);
	/* Taking it again is a renewal: the same token. */
	assert_int_equal(inv_lease_take(f->inv, "node-a", "bringup-configure", 60, &n, NULL, &err), 0);
	inv_node_release(&n);
	assert_int_equal(inv_lease_token(f->inv, "node-a", &t2, &err), 0);
	assert_int_equal(t2, t1);
	assert_int_equal(inv_node_set_state(f->inv, "node-a", INV_NEW, INV_DISCOVERED, "ours", &err), 0);
	assert_int_equal(inv_leases_renew(f->inv, 60, &renewed, &err), 0);
	assert_int_equal(renewed, 1);

	/* It expires (this process paused past it); another takes it over. */
	raw_sql(f, "UPDATE leases SET expires_at = 1");
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		struct inv *own;
		int64_t tok = 0;

		if (inv_open(f->path, &own, NULL) ||
		    inv_lease_take(own, "node-a", "bringup-enlist", 60, &n, NULL, NULL))
			_exit(1);
		inv_node_release(&n);
		if (inv_lease_token(own, "node-a", &tok, NULL) || tok != t1 + 1 ||
		    inv_node_set_state(own, "node-a", INV_DISCOVERED, INV_CONFIGURED, "theirs", NULL))
			_exit(2);
		inv_close(own);
		_exit(0);
	}
	assert_int_equal(waitpid(child, &status, 0), child);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	snprintf(want, sizeof(want), "lease on node-a lost to %ld@%s (token %lld)", (long)child, host,
		 (long long)(t1 + 1));
	/* Even a write whose compare-and-set would pass (configured, as it is now). */
	assert_int_equal(inv_node_set_state(f->inv, "node-a", INV_CONFIGURED, INV_ENLISTED, "late", &err),
			 BR_E_STATE);
	assert_non_null(strstr(err.msg, want));
	assert_int_equal(inv_node_note(f->inv, "node-a", "late note", &err), BR_E_STATE);
	assert_non_null(strstr(err.msg, want));
	assert_int_equal(inv_checks_put(f->inv, "node-a", "validate", &check, 1, &err), BR_E_STATE);
	assert_int_equal(inv_store_probe(f->inv, "node-a", "{}", &err), BR_E_STATE);
	assert_int_equal(inv_node_set_maas(f->inv, "node-a", "abc123", "10.0.0.1", &err), BR_E_STATE);
	assert_int_equal(state_of(f->inv, "node-a"), INV_CONFIGURED);
	assert_int_equal(raw_int(f, "SELECT count(*) FROM check_results"), 0);
	assert_int_equal(raw_int(f, "SELECT count(*) FROM probe_facts"), 0);
	assert_int_equal(raw_int(f, "SELECT count(*) FROM nodes WHERE maas_system_id IS NOT NULL"), 0);
	/* Renewal leaves a lease another holder took alone. */
	assert_int_equal(inv_leases_renew(f->inv, 60, &renewed, &err), 0);
	assert_int_equal(renewed, 0);
	/* Another node this process still holds is not fenced. */
	assert_int_equal(inv_lease_take(f->inv, "node-b", "bringup-configure", 60, &n, NULL, &err), 0);
	inv_node_release(&n);
	assert_int_equal(inv_node_note(f->inv, "node-b", "fine", &err), 0);

	/* The history says who lost the lease, and when it had expired. */
	assert_int_equal(inv_node_events(f->inv, "node-a", &ev, &n_ev, &err), 0);
	snprintf(want, sizeof(want),
		 "lease taken over from stage bringup-configure pid %ld on host %s, expired at",
		 (long)getpid(), host);
	for (size_t i = 0; i < n_ev; i++)
		found += ev[i].reason && strstr(ev[i].reason, want) != NULL;
	assert_int_equal(found, 1);
	inv_events_free(ev, n_ev);

	/* The other holder is gone: taken again with the next token. */
	assert_int_equal(inv_lease_take(f->inv, "node-a", "bringup-configure", 60, &n, NULL, &err), 0);
	inv_node_release(&n);
	assert_int_equal(inv_lease_token(f->inv, "node-a", &t3, &err), 0);
	assert_int_equal(t3, t1 + 2);
	assert_int_equal(
	    inv_node_set_state(f->inv, "node-a", INV_CONFIGURED, INV_ENLISTED, "ours again", &err), 0);
	assert_int_equal(inv_leases_renew(f->inv, 60, &renewed, &err), 0);
	assert_int_equal(renewed, 2);
	assert_true(raw_int(f, "SELECT min(expires_at) FROM leases") > 1);
	assert_int_equal(inv_leases_give_back(f->inv, &err), 0);
	/* Outside any lease (an operator's command): not fenced. */
	assert_int_equal(inv_lease_token(f->inv, "node-a", &t3, &err), 0);
	assert_int_equal(t3, 0);
	assert_int_equal(inv_node_note(f->inv, "node-a", "by hand", &err), 0);
	/* The token survives the give-back: the next take is one more. */
	assert_int_equal(raw_int(f, "SELECT token FROM lease_tokens t JOIN nodes n ON n.id = t.node_id"
				    " WHERE n.hostname = 'node-a'"),
			 t1 + 2);

	/* The time to live: BRINGUP_LEASE_TTL, checked. */
	unsetenv("BRINGUP_LEASE_TTL");
	assert_int_equal(inv_lease_ttl(&ttl, &err), 0);
	assert_int_equal(ttl, INV_LEASE_TTL_S);
	setenv("BRINGUP_LEASE_TTL", "1", 1);
	assert_int_equal(inv_lease_ttl(&ttl, &err), BR_E_INVAL);
	assert_non_null(strstr(err.msg, "BRINGUP_LEASE_TTL"));
	setenv("BRINGUP_LEASE_TTL", "30", 1);
	assert_int_equal(inv_lease_ttl(&ttl, &err), 0);
	assert_int_equal(ttl, 30);
	unsetenv("BRINGUP_LEASE_TTL");
	assert_int_equal(inv_lease_keepalive_ms(INV_LEASE_TTL_S), INV_LEASE_KEEPALIVE_S * 1000);
	assert_int_equal(inv_lease_keepalive_ms(3), 1000);
}

/* bmc_sessions: a session recorded by a process that is gone (SIGKILLed,
 * still a zombie) is orphaned, one of a live process (this one) is not, a
 * removed one is no more, one of another host is that host's, and one past
 * INV_BMC_SESSION_MAX_AGE_S is dropped without being returned. */
static void test_bmc_sessions(void **state)
{
	struct fixture *f = *state;
	struct inv_bmc_session *s = NULL;
	struct br_err err = { 0 };
	size_t n = 0;
	int ready[2], status;
	siginfo_t info;
	pid_t child;
	char c;

	assert_int_equal(pipe(ready), 0);
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		struct inv *own;

		close(ready[0]);
		if (inv_open(f->path, &own, NULL) ||
		    inv_bmc_session_add(own, "node-a", "http://a/redfish/v1/SessionService/Sessions/1",
					NULL) ||
		    inv_bmc_session_add(own, "node-a", "http://a/redfish/v1/SessionService/Sessions/2",
					NULL) ||
		    inv_bmc_session_add(own, "node-b", "http://b/redfish/v1/SessionService/Sessions/7", NULL))
			_exit(1);
		if (write(ready[1], "x", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(ready[1]);
	assert_int_equal(read(ready[0], &c, 1), 1);
	close(ready[0]);
	assert_int_equal(
	    inv_bmc_session_add(f->inv, "node-b", "http://b/redfish/v1/SessionService/Sessions/8", &err), 0);
	assert_int_not_equal(inv_bmc_session_add(f->inv, "no-such-node", "http://x/redfish/v1/S/1", &err), 0);
	assert_int_equal(inv_bmc_sessions_orphaned(f->inv, &s, &n, &err), 0);
	assert_int_equal(n, 0); /* both holders alive */
	inv_bmc_sessions_free(s, n);

	kill(child, SIGKILL);
	memset(&info, 0, sizeof(info));
	assert_int_equal(waitid(P_PID, (id_t)child, &info, WEXITED | WNOWAIT), 0);
	assert_int_equal(inv_bmc_sessions_orphaned(f->inv, &s, &n, &err), 0);
	assert_int_equal(n, 3);
	assert_string_equal(s[0].hostname, "node-a");
	assert_string_equal(s[0].uri, "http://a/redfish/v1/SessionService/Sessions/1");
	assert_string_equal(s[1].uri, "http://a/redfish/v1/SessionService/Sessions/2");
	assert_string_equal(s[2].hostname, "node-b");
	assert_string_equal(s[2].uri, "http://b/redfish/v1/SessionService/Sessions/7");
	inv_bmc_sessions_free(s, n);
	assert_int_equal(waitpid(child, &status, 0), child);

	assert_int_equal(
	    inv_bmc_session_remove(f->inv, "node-a", "http://a/redfish/v1/SessionService/Sessions/1", &err),
	    0);
	raw_sql(f, "UPDATE bmc_sessions SET host = 'another-host' WHERE uri LIKE '%/Sessions/2'");
	raw_sql(f, "UPDATE bmc_sessions SET opened_at = 1000 WHERE uri LIKE '%/Sessions/7'");
	assert_int_equal(inv_bmc_sessions_orphaned(f->inv, &s, &n, &err), 0);
	assert_int_equal(n, 0);
	inv_bmc_sessions_free(s, n);
	/* the old one dropped; another host's and this process's kept */
	{
		struct invb_conn *db;
		struct invb_stmt *st;

		assert_int_equal(invb_for(f->path)->open(f->path, 0, &db, NULL), 0);
		assert_int_equal(invb_prepare(db, "SELECT count(*) FROM bmc_sessions", 0, &st), 0);
		assert_int_equal(invb_step(st), INVB_ROW);
		assert_int_equal(invb_column_int64(st, 0), 2);
		invb_finalize(st);
		db->ops->close(db);
	}
}

/* inv_lease_set_yield: a live holder's lease is taken over exactly when
 * the rule says so, the rule shown the holder and the node. */
struct yield_seen {
	int answer, calls;
	char stage[32];
	long pid;
};

static int yield_rule(void *ctx, const struct inv_lease *holder, const struct inv_node *node)
{
	struct yield_seen *y = ctx;

	y->calls++;
	snprintf(y->stage, sizeof(y->stage), "%s", holder->stage);
	y->pid = holder->pid;
	assert_string_equal(node->hostname, "node-b");
	return y->answer;
}

static void test_lease_yield(void **state)
{
	struct fixture *f = *state;
	struct br_err err = { 0 };
	struct yield_seen y = { 0 };
	struct inv_node n;
	int ready[2], status;
	pid_t child;
	char c;

	assert_int_equal(pipe(ready), 0);
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		struct inv *own;

		close(ready[0]);
		if (inv_open(f->path, &own, NULL) ||
		    inv_lease_take(own, "node-b", "bringup-discover", 60, &n, NULL, NULL))
			_exit(1);
		inv_node_release(&n);
		if (write(ready[1], "x", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(ready[1]);
	assert_int_equal(read(ready[0], &c, 1), 1);
	close(ready[0]);
	inv_lease_set_yield(f->inv, yield_rule, &y);
	assert_int_equal(inv_lease_take(f->inv, "node-b", "bringup-configure", 60, &n, NULL, &err),
			 BR_E_EXISTS);
	assert_int_equal(y.calls, 1);
	assert_string_equal(y.stage, "bringup-discover");
	assert_int_equal(y.pid, (long)child);
	y.answer = 1;
	assert_int_equal(inv_lease_take(f->inv, "node-b", "bringup-configure", 60, &n, NULL, &err), 0);
	inv_node_release(&n);
	/* Ours now: the rule is not asked about our own lease. */
	assert_int_equal(inv_lease_take(f->inv, "node-b", "bringup-configure", 60, &n, NULL, &err), 0);
	inv_node_release(&n);
	assert_int_equal(y.calls, 2);
	inv_lease_set_yield(f->inv, NULL, NULL);
	assert_int_equal(inv_leases_give_back(f->inv, &err), 0);
	kill(child, SIGKILL);
	assert_int_equal(waitpid(child, &status, 0), child);
}

/* ---- inv_load_hw_firmware, inv_load_hw_disks ------------------------------ */

static void set_facts(const char *path, const char *facts)
{
	struct invb_conn *db;
	struct invb_stmt *st;

	assert_int_equal(invb_for(path)->open(path, 0, &db, NULL), 0);
	assert_int_equal(invb_prepare(db,
				      "UPDATE hw_facts SET facts = ? WHERE node_id ="
				      " (SELECT id FROM nodes WHERE hostname = 'node-a')",
				      0, &st),
			 0);
	invb_bind_text(st, 1, facts);
	assert_int_equal(invb_step(st), INVB_DONE);
	invb_finalize(st);
	db->ops->close(db);
}

/* configure's reading of the source and of the firmware alone gives what
 * the whole document gives, in order, fields that are not strings left out as
 * br_hw_from_json leaves them; a damaged document is an error. */
static void test_load_hw_firmware(void **state)
{
	static const char *const ids[] = { "Installed-1-2.3.5__BIOS.Setup.1-1", "Installed-2-7.0__iDRAC.1",
					   "Previous-3-1.0__NIC.Slot.1-1" };
	struct fixture *f = *state;
	struct br_err err = { 0 };
	struct br_hw hw, all, fw;
	char *source = NULL;

	br_hw_init(&hw);
	hw.source = strdup("redfish");
	for (size_t i = 0; i < 3; i++) {
		struct br_firmware *x = br_hw_add_firmware(&hw);

		x->id = strdup(ids[i]);
		x->name = strdup(i == 1 ? "iDRAC" : "BIOS");
		x->version = i == 2 ? NULL : strdup(i ? "7.0" : "2.3.5");
		x->updateable = i == 0;
	}
	for (size_t i = 0; i < 2; i++) {
		struct br_drive *d = br_hw_add_drive(&hw);

		d->id = strdup(i ? "Disk.Bay.1" : "Disk.Bay.0");
		d->serial = strdup(i ? "S2" : "S1");
	}
	br_hw_add_volume(&hw)->id = strdup("Disk.Virtual.0");
	br_volume_add_drive(&hw.volumes[0], "Disk.Bay.1");
	br_hw_add_sensor(&hw)->name = strdup("Inlet Temp");
	assert_int_equal(inv_store_hw(f->inv, "node-a", &hw, INV_NEW, INV_DISCOVERED, "read", &err), 0);
	br_hw_release(&hw);

	/* the source alone, as stored beside the document; none for a node
	 * never discovered; a node not in the inventory is an error */
	assert_int_equal(inv_hw_source(f->inv, "node-a", &source, &err), 0);
	assert_string_equal(source, "redfish");
	free(source);
	assert_int_equal(inv_hw_source(f->inv, "node-b", &source, &err), 0);
	assert_null(source);
	assert_int_equal(inv_hw_source(f->inv, "node-z", &source, &err), BR_E_NOTFOUND);
	/* the facts written, copied out of the write-ahead log ahead of the
	 * close (the pool's parent does it once every outcome is in) */
	assert_int_equal(inv_checkpoint(f->inv, &err), 0);

	assert_int_equal(inv_load_hw(f->inv, "node-a", &all, &err), 0);
	assert_int_equal(inv_load_hw_firmware(f->inv, "node-a", &fw, &err), 0);
	assert_string_equal(fw.source, "redfish");
	assert_int_equal(fw.n_firmware, all.n_firmware);
	assert_int_equal(fw.n_firmware, 3);
	for (size_t i = 0; i < fw.n_firmware; i++) {
		assert_string_equal(fw.firmware[i].id, all.firmware[i].id);
		assert_string_equal(fw.firmware[i].name, all.firmware[i].name);
		if (all.firmware[i].version)
			assert_string_equal(fw.firmware[i].version, all.firmware[i].version);
		else
			assert_null(fw.firmware[i].version);
		assert_int_equal(fw.firmware[i].updateable, all.firmware[i].updateable);
	}
	assert_int_equal(fw.n_nics + fw.n_pcie + fw.n_drives + fw.n_sensors, 0);
	br_hw_release(&fw);

	/* the boot-disk rule's reading: drives and volumes as the whole
	 * document gives them, nothing else */
	assert_int_equal(inv_load_hw_disks(f->inv, "node-a", &fw, &err), 0);
	assert_int_equal(fw.n_drives, 2);
	assert_string_equal(fw.drives[1].serial, all.drives[1].serial);
	assert_int_equal(fw.n_volumes, 1);
	assert_non_null(br_hw_volume_of_drive(&fw, "Disk.Bay.1"));
	assert_null(br_hw_volume_of_drive(&fw, "Disk.Bay.0"));
	assert_null(fw.source);
	assert_int_equal(fw.n_firmware + fw.n_sensors, 0);
	assert_int_equal(all.n_sensors, 1);
	br_hw_release(&all);
	br_hw_release(&fw);

	/* never discovered: nothing known, no error */
	assert_int_equal(inv_load_hw_firmware(f->inv, "node-b", &fw, &err), 0);
	assert_null(fw.source);
	assert_int_equal(fw.n_firmware, 0);
	br_hw_release(&fw);

	set_facts(f->path, "{\"source\": 5, \"firmware\": [{\"id\": 7, \"version\": \"1\"}]}");
	assert_int_equal(inv_load_hw_firmware(f->inv, "node-a", &fw, &err), 0);
	assert_null(fw.source);
	assert_int_equal(fw.n_firmware, 1);
	assert_null(fw.firmware[0].id);
	assert_string_equal(fw.firmware[0].version, "1");
	br_hw_release(&fw);

	set_facts(f->path, "{\"firmware\": {\"id\": \"x\"}}");
	assert_int_equal(inv_load_hw_firmware(f->inv, "node-a", &fw, &err), BR_E_INVAL);
	assert_non_null(strstr(err.msg, "'firmware' is not an array"));
	assert_int_equal(fw.n_firmware, 0);
	set_facts(f->path, "{\"firmware\": [5]}");
	assert_int_equal(inv_load_hw_firmware(f->inv, "node-a", &fw, &err), BR_E_INVAL);
	assert_non_null(strstr(err.msg, "firmware[0] is not an object"));
#ifndef INV_TEST_PG /* a jsonb column holds no damaged document */
	set_facts(f->path, "{\"firmware\": [");
	assert_true(inv_load_hw_firmware(f->inv, "node-a", &fw, &err) < 0);
	assert_non_null(strstr(err.msg, "stored facts of node-a"));
#endif
}

/* gate's batch: one transaction for both nodes, yet each is its own
 * compare-and-set: node-b, failed by another run meanwhile, fails alone
 * (naming its state) while node-a is promoted and its ticket closed; both
 * checks read in one go; the MAAS events recorded for both. */
static void test_gate_batch(void **state)
{
	struct fixture *f = *state;
	struct br_err err = { 0 };
	const struct inv_check put[] = { { "cabling", INV_CHECK_PASS, "ok", NULL, NULL },
					 { "firmware:bios", INV_CHECK_PASS, "ok", NULL, NULL } };
	const struct inv_fault fault = { "cabling", "port 1 unplugged", "plug it", 0 };
	struct inv_ticket_stats st = { 0 };
	struct inv_check *checks[2] = { NULL, NULL };
	size_t n_checks[2] = { 9, 9 };
	int64_t ids[2];
	struct inv_node n;
	struct inv_event *ev = NULL;
	size_t n_ev = 0;
	const char *hosts[] = { "node-a", "node-b" }, *whats[] = { "MAAS: tagged golden", "MAAS: noted" };
	int rcs[2] = { -1, -1 };
	struct inv_state_change v[2] = {
		{ .hostname = "node-a",
		  .from = INV_VALIDATED,
		  .to = INV_GOLDEN,
		  .reason = "passed",
		  .close_tickets = 1 },
		{ .hostname = "node-b", .from = INV_VALIDATED, .to = INV_QUARANTINED, .reason = "failed" },
	};

	for (int i = 0; i < 2; i++) {
		assert_int_equal(
		    inv_node_set_state(f->inv, hosts[i], INV_NEW, INV_VALIDATED, "validated", &err), 0);
		assert_int_equal(inv_node_get(f->inv, hosts[i], &n, &err), 0);
		ids[i] = n.id;
		inv_node_release(&n);
	}
	assert_int_equal(inv_checks_put(f->inv, "node-a", "validate", put, 2, &err), 0);
	assert_int_equal(inv_tickets_sync(f->inv, "node-a", &fault, 1, &st, &err), 0);
	assert_int_equal(inv_node_set_state(f->inv, "node-b", INV_VALIDATED, INV_FAILED, "another run", &err),
			 0);

	assert_int_equal(inv_checks_read_many(f->inv, ids, 2, checks, n_checks, &err), 0);
	assert_int_equal(n_checks[0], 2);
	assert_string_equal(checks[0][1].name, "firmware:bios");
	assert_int_equal(n_checks[1], 0);
	inv_checks_free(checks[0], n_checks[0]);
	inv_checks_free(checks[1], n_checks[1]);

	assert_int_equal(inv_state_changes_record(f->inv, v, 2, &err), 0);
	assert_int_equal(v[0].rc, 0);
	assert_true(v[0].moved);
	assert_int_equal(v[0].tickets_closed, 1);
	assert_int_equal(v[1].rc, BR_E_STATE);
	assert_false(v[1].moved);
	assert_non_null(strstr(v[1].err.msg, "node-b is now 'failed', not 'validated'"));
	assert_int_equal(state_of(f->inv, "node-a"), INV_GOLDEN);
	assert_int_equal(state_of(f->inv, "node-b"), INV_FAILED);

	assert_int_equal(inv_notes_add(f->inv, hosts, whats, 2, rcs, &err), 0);
	assert_int_equal(rcs[0], 0);
	assert_int_equal(rcs[1], 0);
	assert_int_equal(inv_node_events(f->inv, "node-a", &ev, &n_ev, &err), 0);
	assert_true(n_ev >= 3);
	assert_string_equal(ev[n_ev - 1].reason, "MAAS: tagged golden");
	assert_string_equal(ev[n_ev - 2].to_state, "golden");
	inv_events_free(ev, n_ev);
}

struct outcomes {
	int rc[4];
	int calls;
};

static void on_verdict(void *ctx, size_t index, int rc, const struct br_err *why)
{
	struct outcomes *o = ctx;

	assert_true(index < 4);
	assert_true(rc == 0 || why->msg[0]);
	o->rc[index] = rc;
	o->calls++;
}

static size_t events_of(struct inv *inv, const char *host)
{
	struct inv_event *ev = NULL;
	size_t n = 0;

	assert_int_equal(inv_node_events(inv, host, &ev, &n, NULL), 0);
	inv_events_free(ev, n);
	return n;
}

static size_t checks_of(struct inv *inv, const char *host)
{
	struct inv_node node;
	struct inv_check *c = NULL;
	size_t n = 0;

	assert_int_equal(inv_node_get(inv, host, &node, NULL), 0);
	assert_int_equal(inv_node_checks(inv, node.id, &c, &n, NULL), 0);
	inv_checks_free(c, n);
	inv_node_release(&node);
	return n;
}

/* A stage's verdicts in one batch: a node's facts, checks and move are
 * written together; a node another run moved, and one that is gone, are
 * left out with the reason while the others stand; the same verdict again
 * records no second event. */
static void test_verdicts(void **state)
{
	struct fixture *f = *state;
	struct br_err err = { 0 };
	struct inv_check checks[] = { { "pcie", INV_CHECK_PASS, "x16", NULL, NULL },
				      { "psu", INV_CHECK_FAIL, "PSU2 failed", NULL, NULL } };
	struct inv_verdict v[] = {
		{ "node-a", "{\"probe_version\":1}", checks, 2, INV_DEPLOYED, INV_VALIDATED, BR_FAIL_NONE,
		  "2 checks" },
		{ "node-b", "{\"probe_version\":1}", checks, 2, INV_CONFIGURED, INV_VALIDATED, BR_FAIL_NONE,
		  "2 checks" },
		{ "node-x", NULL, NULL, 0, INV_DEPLOYED, INV_FAILED, BR_FAIL_SSH_UNREACHABLE, "unreachable" },
	};
	struct outcomes o = { { -1, -1, -1, -1 }, 0 };
	char *doc = NULL;
	size_t events_a;

	assert_int_equal(inv_node_set_state(f->inv, "node-a", INV_NEW, INV_DEPLOYED, "deployed", &err), 0);
	assert_int_equal(inv_node_set_state(f->inv, "node-b", INV_NEW, INV_DEPLOYED, "deployed", &err), 0);
	assert_int_equal(inv_verdicts_put(f->inv, "validate", v, 3, on_verdict, &o, &err), 0);
	assert_int_equal(o.calls, 3);
	assert_int_equal(o.rc[0], 0);
	assert_int_equal(o.rc[1], BR_E_STATE);
	assert_int_equal(o.rc[2], BR_E_NOTFOUND);
	assert_int_equal(state_of(f->inv, "node-a"), INV_VALIDATED);
	assert_int_equal(checks_of(f->inv, "node-a"), 2);
	assert_int_equal(inv_load_probe(f->inv, "node-a", &doc, &err), 0);
	assert_string_equal(doc, "{\"probe_version\":1}");
	free(doc);
	/* nothing of node-b: not its facts, not its checks, not a move */
	assert_int_equal(state_of(f->inv, "node-b"), INV_DEPLOYED);
	assert_int_equal(checks_of(f->inv, "node-b"), 0);
	assert_int_equal(inv_load_probe(f->inv, "node-b", &doc, NULL), BR_E_NOTFOUND);
	/* again: the same state and reason, the checks replaced by one */
	events_a = events_of(f->inv, "node-a");
	v[0].from = INV_VALIDATED;
	v[0].n_checks = 1;
	o.calls = 0;
	assert_int_equal(inv_verdicts_put(f->inv, "validate", v, 1, on_verdict, &o, &err), 0);
	assert_int_equal(o.calls, 1);
	assert_int_equal(o.rc[0], 0);
	assert_int_equal(events_of(f->inv, "node-a"), events_a);
	assert_int_equal(checks_of(f->inv, "node-a"), 1);
}

/* A failed node keeps why as the kind its stage typed; leaving `failed`
 * forgets it; a failure without a kind reads as stage_failed. */
static void test_failure_kind(void **state)
{
	struct fixture *f = *state;
	struct br_err err = { 0 };
	struct inv_node n;

	assert_int_equal(inv_node_fail(f->inv, "node-a", INV_NEW, BR_FAIL_BMC_AUTH, "HTTP 401", &err), 0);
	assert_int_equal(inv_node_get(f->inv, "node-a", &n, &err), 0);
	assert_int_equal(n.state, INV_FAILED);
	assert_int_equal(n.failure_kind, BR_FAIL_BMC_AUTH);
	inv_node_release(&n);
	/* the same reason, another kind: recorded */
	assert_int_equal(inv_node_fail(f->inv, "node-a", INV_FAILED, BR_FAIL_BMC_DEADLINE, "HTTP 401", &err),
			 0);
	assert_int_equal(inv_node_get(f->inv, "node-a", &n, &err), 0);
	assert_int_equal(n.failure_kind, BR_FAIL_BMC_DEADLINE);
	inv_node_release(&n);
	assert_int_equal(inv_node_set_state(f->inv, "node-a", INV_FAILED, INV_DISCOVERED, "ok", &err), 0);
	assert_int_equal(inv_node_get(f->inv, "node-a", &n, &err), 0);
	assert_int_equal(n.failure_kind, BR_FAIL_NONE);
	inv_node_release(&n);
	assert_int_equal(inv_node_set_state(f->inv, "node-a", INV_DISCOVERED, INV_FAILED, "why", &err), 0);
	assert_int_equal(inv_node_get(f->inv, "node-a", &n, &err), 0);
	assert_int_equal(n.failure_kind, BR_FAIL_STAGE);
	inv_node_release(&n);
}

static int attempts_of(struct inv *inv, const char *host)
{
	struct inv_node n;
	int a;

	assert_int_equal(inv_node_get(inv, host, &n, NULL), 0);
	a = n.attempts;
	inv_node_release(&n);
	return a;
}

/* An attempt ends on a move into failed or quarantined from another
 * state, whichever way it is recorded; the same verdict again, or a
 * retry failing again, is no new one; unretire resets the count. */
static void test_attempts(void **state)
{
	struct fixture *f = *state;
	struct br_err err = { 0 };
	struct inv_state_change gv = { .hostname = "node-a",
				       .from = INV_VALIDATED,
				       .to = INV_QUARANTINED,
				       .reason = "failed checks: psu" };
	const struct inv_verdict vv = {
		"node-a", NULL, NULL, 0, INV_DEPLOYED, INV_QUARANTINED, BR_FAIL_NONE, "failed checks: psu"
	};
	const struct inv_fault psu = { "psu", "PS4 Critical", "replace it", 0 };
	struct inv_ticket_stats stats = { 0 };
	size_t closed = 0;

	assert_int_equal(inv_node_fail(f->inv, "node-a", INV_NEW, BR_FAIL_BMC_AUTH, "HTTP 401", &err), 0);
	assert_int_equal(attempts_of(f->inv, "node-a"), 1);
	assert_int_equal(inv_node_fail(f->inv, "node-a", INV_FAILED, BR_FAIL_BMC_AUTH, "HTTP 403", &err), 0);
	assert_int_equal(attempts_of(f->inv, "node-a"), 1);
	assert_int_equal(inv_node_set_state(f->inv, "node-a", INV_FAILED, INV_VALIDATED, "ok", &err), 0);
	assert_int_equal(inv_state_changes_record(f->inv, &gv, 1, &err), 0);
	assert_int_equal(gv.rc, 0);
	assert_int_equal(attempts_of(f->inv, "node-a"), 2);
	gv.from = INV_QUARANTINED;
	gv.reason = "failed checks: psu; pcie";
	assert_int_equal(inv_state_changes_record(f->inv, &gv, 1, &err), 0);
	assert_int_equal(attempts_of(f->inv, "node-a"), 2);
	assert_int_equal(inv_node_set_state(f->inv, "node-a", INV_QUARANTINED, INV_DEPLOYED, "again", &err),
			 0);
	assert_int_equal(inv_verdicts_put(f->inv, "validate", &vv, 1, NULL, NULL, &err), 0);
	assert_int_equal(attempts_of(f->inv, "node-a"), 3);
	assert_int_equal(attempts_of(f->inv, "node-b"), 0);

	/* unretire: only a retired node; back to new, 0, tickets closed */
	assert_int_equal(inv_node_unretire(f->inv, "node-a", "back", NULL, &err), BR_E_STATE);
	assert_non_null(strstr(err.msg, "node-a is 'quarantined', not retired"));
	assert_int_equal(inv_tickets_sync(f->inv, "node-a", &psu, 1, &stats, &err), 0);
	assert_int_equal(inv_node_set_state(f->inv, "node-a", INV_QUARANTINED, INV_RETIRED, "retired", &err),
			 0);
	assert_int_equal(attempts_of(f->inv, "node-a"), 3);
	assert_int_equal(inv_node_unretire(f->inv, "node-a", "repaired", &closed, &err), 0);
	assert_int_equal(closed, 1);
	assert_int_equal(state_of(f->inv, "node-a"), INV_NEW);
	assert_int_equal(attempts_of(f->inv, "node-a"), 0);
	assert_string_equal(inv_state_name(INV_RETIRED), "retired");
}

/* The manifest's serial: stored by import, changed by a re-import with an
 * event naming it, and checked when a BMC's facts are stored: another
 * machine's serial is stored as evidence and fails the node. */
static void test_expected_serial(void **state)
{
	struct fixture *f = *state;
	struct br_err err = { 0 };
	struct inv_import_stats stats;
	struct inv_manifest_row row = { "node-a", "r01",    1,	       "127.0.0.1:1", "root",
					"env:PW", "xe9680", "redfish", NULL,	      NULL,
					0,	  "CN-A",   NULL,      NULL,	      "pdu-r01-a" };
	struct inv_node n;
	struct br_hw hw;
	struct inv_event *ev = NULL;
	size_t n_ev = 0;

	assert_int_equal(inv_import(f->inv, &row, 1, "rack.csv", &stats, &err), 0);
	assert_int_equal(stats.updated, 1);
	assert_int_equal(inv_node_get(f->inv, "node-a", &n, &err), 0);
	assert_string_equal(n.expected_serial, "CN-A");
	assert_string_equal(n.power_domain, "pdu-r01-a");
	inv_node_release(&n);
	assert_int_equal(inv_import(f->inv, &row, 1, "rack.csv", &stats, &err), 0);
	assert_int_equal(stats.unchanged, 1);
	/* the power domain moved (a re-cabled feed): stored, and said */
	row.power_domain = "pdu-r01-b";
	assert_int_equal(inv_import(f->inv, &row, 1, "rack.csv", &stats, &err), 0);
	assert_int_equal(stats.updated, 1);
	assert_int_equal(inv_node_get(f->inv, "node-a", &n, &err), 0);
	assert_string_equal(n.power_domain, "pdu-r01-b");
	inv_node_release(&n);
	assert_int_equal(inv_node_events(f->inv, "node-a", &ev, &n_ev, &err), 0);
	assert_true(n_ev > 0);
	assert_non_null(strstr(ev[n_ev - 1].reason, "power_domain pdu-r01-a -> pdu-r01-b"));
	inv_events_free(ev, n_ev);

	br_hw_init(&hw);
	hw.system_serial = br_xstrdup("CN-B");
	hw.service_tag = br_xstrdup("TAGB");
	assert_int_equal(inv_store_hw(f->inv, "node-a", &hw, INV_NEW, INV_DISCOVERED, "read", &err),
			 BR_E_EXISTS);
	assert_string_equal(err.msg, "the BMC at 127.0.0.1:1 reports serial CN-B (service tag TAGB), the "
				     "manifest expects CN-A: a swapped management cable or a wrong row");
	assert_int_equal(inv_node_get(f->inv, "node-a", &n, &err), 0);
	assert_int_equal(n.state, INV_FAILED);
	assert_int_equal(n.failure_kind, BR_FAIL_SERIAL_MISMATCH);
	assert_string_equal(n.system_serial, "CN-B"); /* the evidence is kept */
	inv_node_release(&n);

	/* the manifest fixed: the same BMC's facts now discover the node */
	row.expected_serial = "tagb";
	assert_int_equal(inv_import(f->inv, &row, 1, "rack.csv", &stats, &err), 0);
	assert_int_equal(stats.updated, 1);
	assert_int_equal(inv_store_hw(f->inv, "node-a", &hw, INV_FAILED, INV_DISCOVERED, "read", &err), 0);
	assert_int_equal(state_of(f->inv, "node-a"), INV_DISCOVERED);
	br_hw_release(&hw);
}

/* ---- times, upserts and RETURNING, as the backends share them -------------- */

/* "2026-01-31T23:59:59.123Z": what SQLite's strftime('%Y-%m-%dT%H:%M:%fZ')
 * stored before times were computed in C, and what they are now. */
static void assert_time(const char *at)
{
	static const char shape[] = "dddd-dd-ddTdd:dd:dd.dddZ";

	assert_non_null(at);
	assert_int_equal(strlen(at), strlen(shape));
	for (size_t i = 0; shape[i]; i++)
		if (shape[i] == 'd')
			assert_true(at[i] >= '0' && at[i] <= '9');
		else
			assert_int_equal(at[i], shape[i]);
}

/* Rows written with portable SQL (ON CONFLICT ... DO UPDATE, RETURNING,
 * bound times) read back as the SQLite-only forms left them: one check
 * result per name, a node's first event on its own id, every time in the
 * stored shape, closed tickets listed only when asked for. */
static void test_portable_writes(void **state)
{
	struct fixture *f = *state;
	struct br_err err = { 0 };
	struct inv_check first[] = { { "psu", INV_CHECK_PASS, "ok", NULL, NULL },
				     { "thermal", INV_CHECK_FAIL, "hot", NULL, "sensor:1" } };
	struct inv_check again[] = { { "psu", INV_CHECK_FAIL, "PSU 2 Critical", NULL, "psu:2" } };
	struct inv_fault fault = { "psu", "PSU 2 Critical", "replace PSU 2", 0 };
	struct inv_ticket_stats stats = { 0 };
	struct inv_ticket *t;
	struct inv_check *c;
	struct inv_event *ev;
	struct inv_node n;
	enum inv_state from;
	size_t count, closed = 0;
	int again_flag = -1;

	assert_int_equal(inv_node_get(f->inv, "node-b", &n, &err), 0);
	assert_time(n.created_at);
	assert_time(n.updated_at);
	assert_int_equal(inv_node_events(f->inv, "node-b", &ev, &count, &err), 0);
	assert_int_equal(count, 1);
	assert_string_equal(ev[0].to_state, "new");
	assert_time(ev[0].at);
	inv_events_free(ev, count);

	assert_int_equal(inv_checks_put(f->inv, "node-b", "validate", first, 2, &err), 0);
	assert_int_equal(inv_checks_put(f->inv, "node-b", "gate", again, 1, &err), 0);
	assert_int_equal(inv_node_checks(f->inv, n.id, &c, &count, &err), 0);
	assert_int_equal(count, 2);
	assert_string_equal(c[0].name, "psu");
	assert_int_equal(c[0].result, INV_CHECK_FAIL);
	assert_string_equal(c[0].detail, "PSU 2 Critical");
	assert_string_equal(c[0].component, "psu:2");
	assert_time(c[0].at);
	assert_string_equal(c[1].name, "thermal");
	assert_string_equal(c[1].component, "sensor:1");
	inv_checks_free(c, count);

	assert_int_equal(inv_tickets_sync(f->inv, "node-b", &fault, 1, &stats, &err), 0);
	assert_int_equal(stats.opened, 1);
	assert_int_equal(inv_tickets_close_node(f->inv, "node-b", &closed, &err), 0);
	assert_int_equal(closed, 1);
	assert_int_equal(inv_tickets_list(f->inv, 0, &t, &count, &err), 0);
	assert_int_equal(count, 0);
	inv_tickets_free(t, count);
	assert_int_equal(inv_tickets_list(f->inv, 1, &t, &count, &err), 0);
	assert_int_equal(count, 1);
	assert_true(t[0].closed);
	assert_int_equal(t[0].version, 2);
	assert_time(t[0].opened_at);
	assert_time(t[0].closed_at);
	assert_string_equal(t[0].closed_at, t[0].updated_at);
	inv_tickets_free(t, count);

	assert_int_equal(inv_node_set_state(f->inv, "node-b", INV_NEW, INV_FAILED, "one", &err), 0);
	assert_int_equal(inv_node_failed_from(f->inv, "node-b", &from, &again_flag, &err), 0);
	assert_int_equal(from, INV_NEW);
	assert_int_equal(again_flag, 0);
	assert_int_equal(inv_node_set_state(f->inv, "node-b", INV_FAILED, INV_FAILED, "two", &err), 0);
	assert_int_equal(inv_node_failed_from(f->inv, "node-b", &from, &again_flag, &err), 0);
	assert_int_equal(again_flag, 1);
	inv_node_release(&n);
}

/* ---- read-only opens (the viewers) ------------------------------------------ */

/* INV_OPEN_READONLY through the backend seam: a path that names no
 * database is BR_E_NOTFOUND and is not created; an inventory opened so
 * reads, and refuses every write; a corrupted row is an error naming the
 * node and the field. */
static void test_open_readonly(void **state)
{
	struct fixture *f = *state;
	struct inv *ro = NULL;
	struct inv_node *nodes = NULL;
	struct br_err err = { 0 };
	size_t n = 0;
	char missing[256];

	/* A file that is not there (PostgreSQL never creates a database, so
	 * this is SQLite's part: test_inventory_pg runs these tests too). */
	if (!strstr(f->path, "://") && !strchr(f->path, '=')) {
		snprintf(missing, sizeof(missing), "%s.not-there", f->path);
		assert_int_equal(inv_open_with(missing, INV_OPEN_READONLY, &ro, &err), BR_E_NOTFOUND);
		assert_non_null(strstr(err.msg, missing));
		assert_int_equal(access(missing, F_OK), -1);
	}

	err = (struct br_err){ 0 };
	assert_int_equal(inv_open_with(f->path, INV_OPEN_READONLY, &ro, &err), 0);
	assert_true(inv_readonly(ro));
	assert_int_equal(inv_nodes_list(ro, &nodes, &n, &err), 0);
	assert_int_equal(n, 2);
	inv_nodes_free(nodes, n);
	assert_int_not_equal(inv_node_set_state(ro, "node-a", INV_NEW, INV_DISCOVERED, "x", &err), 0);
	inv_close(ro);

	/* An unknown state: named, not read as failed. */
	{
		struct invb_conn *db;

		assert_int_equal(invb_for(f->path)->open(f->path, 0, &db, NULL), 0);
		assert_int_equal(invb_exec(db, "UPDATE nodes SET state = 'bogus' WHERE hostname = 'node-b'"),
				 0);
		db->ops->close(db);
	}
	err = (struct br_err){ 0 };
	assert_int_not_equal(inv_nodes_list(f->inv, &nodes, &n, &err), 0);
	assert_non_null(strstr(err.msg, "node 'node-b': state: 'bogus' is not a state"));
}

/* ---- the backend interface itself ------------------------------------------ */

/* What a step answered is classified (a refused row is a constraint, not
 * a bare error), RETURNING gives the new id, changes counts rows, and a
 * write transaction rolls back to nothing. */
static void test_backend(void **state)
{
	struct fixture *f = *state;
	const struct invb_ops *ops = invb_for(f->path);
	struct invb_conn *db;
	struct invb_stmt *st;
	int64_t first;

	assert_int_equal(ops->open(f->path, 0, &db, NULL), 0);
	assert_int_equal(ops->schema_version(db), INV_SCHEMA_VERSION);
	assert_false(invb_in_transaction(db));
	assert_int_equal(invb_begin_write(db), 0);
	assert_true(invb_in_transaction(db));
	assert_int_equal(invb_prepare(db,
				      "INSERT INTO events(node_id, from_state, to_state, reason, at)"
				      " VALUES (?, NULL, ?, ?, ?) RETURNING id",
				      0, &st),
			 0);
	invb_bind_int64(st, 1, 1);
	invb_bind_text(st, 2, "new");
	invb_bind_null(st, 3);
	invb_bind_text(st, 4, "2026-01-01T00:00:00.000Z");
	assert_int_equal(invb_step(st), INVB_ROW);
	first = invb_column_int64(st, 0);
	assert_true(first > 0);
	assert_int_equal(invb_step(st), INVB_DONE);
	invb_reset(st);
	assert_int_equal(invb_step(st), INVB_ROW);
	assert_int_equal(invb_column_int64(st, 0), first + 1);
	invb_finalize(st);
	assert_int_equal(
	    invb_prepare(db,
			 "INSERT INTO nodes(hostname, rack, unit, bmc, bmc_user,"
			 " bmc_password_ref, profile) VALUES ('node-a', 'r', 1, 'x', 'u', 'p', 'q')",
			 0, &st),
	    0);
	assert_int_equal(invb_step(st), INVB_CONSTRAINT);
	invb_finalize(st);
	assert_int_equal(invb_prepare(db, "UPDATE nodes SET notes = 'n' WHERE rack = 'r01'", 0, &st), 0);
	assert_int_equal(invb_step(st), INVB_DONE);
	assert_int_equal(invb_changes(db), 2);
	invb_finalize(st);
	invb_rollback(db);
	assert_false(invb_in_transaction(db));
	assert_int_equal(invb_prepare(db, "SELECT count(*) FROM nodes WHERE notes IS NOT NULL", 0, &st), 0);
	assert_int_equal(invb_step(st), INVB_ROW);
	assert_int_equal(invb_column_int64(st, 0), 0);
	assert_false(invb_column_is_null(st, 0));
	invb_finalize(st);
	db->ops->close(db);
}

/* A node whose discovery failed keeps what names the machine, failed
 * with the kind the client gave, and no MAC claim. */
static void test_store_failed_facts(void **state)
{
	struct fixture *f = *state;
	struct br_err err = { 0 };
	struct inv_node n;
	struct br_hw hw;

	br_hw_init(&hw);
	hw.system_serial = br_xstrdup("CN-FAIL");
	hw.bmc_mac = br_xstrdup("c8:4b:d6:00:00:01");
	assert_int_equal(inv_store_hw_kind(f->inv, "node-a", &hw, INV_NEW, INV_FAILED, BR_FAIL_NO_HOST_MAC,
					   "no host NIC MAC", &err),
			 0);
	assert_int_equal(inv_node_get(f->inv, "node-a", &n, &err), 0);
	assert_int_equal(n.state, INV_FAILED);
	assert_int_equal(n.failure_kind, BR_FAIL_NO_HOST_MAC);
	assert_int_equal(n.attempts, 1);
	assert_string_equal(n.system_serial, "CN-FAIL");
	assert_string_equal(n.reason, "no host NIC MAC");
	inv_node_release(&n);
	br_hw_release(&hw);
}

/* A BMC whose report holds one host NIC MAC (mac), as a discover stores it. */
static void store_with_mac(struct inv *inv, const char *host, const char *mac, enum inv_state from,
			   int want_rc, struct br_err *err)
{
	struct br_hw hw;
	struct br_nic *nic;

	br_hw_init(&hw);
	hw.system_serial = strdup(host);
	nic = br_hw_add_nic(&hw);
	nic->mac = strdup(mac);
	nic->name = strdup("NIC.Slot.1-1-1");
	nic->source = strdup("EthernetInterfaces");
	assert_int_equal(inv_store_hw(inv, host, &hw, from, INV_DISCOVERED, "read", err), want_rc);
	br_hw_release(&hw);
}

/* Issue 29, finding 6: a BMC met later that reports a MAC of a node past
 * discovery (golden here, or failed in validate) fails itself, naming that
 * node, which keeps its state; between two nodes still at discovery the
 * claim is judged on evidence as before (neither shows the manifest's
 * boot disk: both fail). */
static void test_claim_never_moves_settled_node(void **state)
{
	struct fixture *f = *state;
	struct br_err err = { 0 };
	struct inv_node b;

	store_with_mac(f->inv, "node-a", "aa:bb:cc:00:00:01", INV_NEW, 0, &err);
	assert_int_equal(inv_node_set_state(f->inv, "node-a", INV_DISCOVERED, INV_GOLDEN, "proven", &err), 0);
	store_with_mac(f->inv, "node-b", "aa:bb:cc:00:00:01", INV_NEW, BR_E_EXISTS, &err);
	assert_non_null(strstr(err.msg, "already node-a's (BMC 127.0.0.1:1), which is golden"));
	assert_int_equal(state_of(f->inv, "node-a"), INV_GOLDEN);
	assert_int_equal(inv_node_get(f->inv, "node-b", &b, NULL), 0);
	assert_int_equal(b.state, INV_FAILED);
	assert_non_null(strstr(b.reason, "node-a"));
	inv_node_release(&b);

	/* failed in validate: past discovery too */
	assert_int_equal(inv_node_set_state(f->inv, "node-a", INV_GOLDEN, INV_DEPLOYED, "again", &err), 0);
	assert_int_equal(inv_node_set_state(f->inv, "node-a", INV_DEPLOYED, INV_FAILED, "probe", &err), 0);
	br_err_clear(&err);
	store_with_mac(f->inv, "node-b", "aa:bb:cc:00:00:01", INV_FAILED, BR_E_EXISTS, &err);
	assert_non_null(strstr(err.msg, "which is failed"));
	assert_int_equal(inv_node_get(f->inv, "node-a", &b, NULL), 0);
	assert_string_equal(b.reason, "probe");
	inv_node_release(&b);

	/* both at discovery, no evidence either way: both fail */
	assert_int_equal(inv_node_set_state(f->inv, "node-a", INV_FAILED, INV_DISCOVERED, "reset", &err), 0);
	assert_int_equal(inv_node_set_state(f->inv, "node-a", INV_DISCOVERED, INV_NEW, "reset", &err), 0);
	assert_int_equal(inv_node_set_state(f->inv, "node-a", INV_NEW, INV_DISCOVERED, "reset", &err), 0);
	br_err_clear(&err);
	store_with_mac(f->inv, "node-b", "aa:bb:cc:00:00:01", INV_FAILED, BR_E_EXISTS, &err);
	assert_int_equal(state_of(f->inv, "node-a"), INV_FAILED);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_state_compare_and_set, setup, teardown),
		cmocka_unit_test_setup_teardown(test_store_failed_facts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lease, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lease_fence, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bmc_sessions, setup, teardown),
		cmocka_unit_test_setup_teardown(test_claim_never_moves_settled_node, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lease_yield, setup, teardown),
		cmocka_unit_test_setup_teardown(test_load_hw_firmware, setup, teardown),
		cmocka_unit_test_setup_teardown(test_gate_batch, setup, teardown),
		cmocka_unit_test_setup_teardown(test_verdicts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_failure_kind, setup, teardown),
		cmocka_unit_test_setup_teardown(test_attempts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_expected_serial, setup, teardown),
		cmocka_unit_test_setup_teardown(test_portable_writes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_backend, setup, teardown),
		cmocka_unit_test_setup_teardown(test_open_readonly, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
