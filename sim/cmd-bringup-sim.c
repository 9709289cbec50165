/*
 * bringup-sim: serve a simulated rack of Dell iDRAC9 BMCs and write the
 * manifest, wiring list, ground truth and environment a pipeline run needs.
 * Listener modules (the BMCs on the shared loop, the MAAS emulator on its
 * own threads) each start their listeners and add their lines to DIR/env.
 * With --https both serve certificates from one generated CA.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "http.h"
#include "idrac.h"
#include "maas.h"
#include "netbox.h"
#include "sim.h"
#include "tickets.h"
#include "vendor.h"

#define SIM_FLAKY_STALL_MS 20000
#define SIM_PROCS_AUTO_NODES 64 /* --procs default: one process up to this many nodes */
#define SIM_PROCS_AUTO_MAX 8
#define SIM_MALLOC_KEEP (32 * 1024 * 1024) /* bytes an arena keeps, and the smallest block mmap'ed */
/* Open files a serving process spends: per BMC its listening socket and
 * libmicrohttpd's epoll fd (0.9.75 in epoll mode makes no per-daemon
 * eventfd, suspend/resume included: counted on a running simulator), and
 * a reserve for the client's connections and our own files. */
#define SIM_FDS_PER_BMC 2
#define SIM_FDS_RESERVE 8192
/* Host trees by default up to this many nodes: each is ~1,500 files
 * (~120 ms to write here), so a 512-node discovery benchmark would spend a
 * minute and gigabytes on trees it never reads. --hosts forces them. */
#define SIM_HOSTS_AUTO_MAX 128

struct opts {
	int nodes, seed, latency_ms, flaky_stall_ms, bios_job_ms, bios_job_polls, https, daemon, base_port,
	    json, verbose, procs, no_ssh;
	int hosts, no_hosts;
	int fw_task_ms, bmc_reboot_ms;
	const char *image_dir;
	int maas_latency_ms, maas_commission_ms, maas_deploy_ms, maas_no_status_events;
	int connection_view;
	int netbox_max_page, netbox_no_state_field;
	const char *dir, *fault_rate, *vendor;
	struct br_strlist faults;
};

struct run {
	struct opts *o;
	char *dir; /* absolute */
	struct sim_rack rack;
	struct sim_config cfg;
	struct sim_bmc_config bmc_cfg;
	struct sim_bmc *bmcs;
	struct sim_loop *loop;
	struct sim_maas *maas;
	struct sim_netbox *netbox;
	struct sim_jira *jira;
	struct sim_servicenow *servicenow;
	struct sim_github *github;
	struct sim_ssh *ssh; /* the simulated hosts' sshds, or NULL */
	char *tls_key, *tls_cert;
	struct br_buf env; /* DIR/env, one line per variable */
	int procs;	   /* serving processes */
	int proc;	   /* this one's number; 0: the first, which owns the pid file and MAAS */
	int ready_fd;	   /* --daemon: the pipe to the waiting parent, else -1 */
	/* The RTC ticker's thread: started, asked to stop, and its wake-up. */
	pthread_t rtc;
	int rtc_started, rtc_stop;
	pthread_mutex_t rtc_lock;
	pthread_cond_t rtc_cond;
};

/* One process answers a small rack with CPU to spare; past that its one
 * core is the limit (512 BMCs x 56 requests took ~2.8 s of CPU), so use
 * half the machine, leaving the rest to the client under test. */
static int default_procs(int nodes)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	long need = (long)nodes * SIM_FDS_PER_BMC + SIM_FDS_RESERVE, fit = 1;
	struct rlimit rl;

	/* A rack whose BMCs one process cannot hold open (10,000 at a
	 * 20,000-file limit) is split until each share fits. */
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur > 1024)
		fit = (need + (long)rl.rlim_cur - 1024 - 1) / ((long)rl.rlim_cur - 1024);
	if (fit > SIM_PROCS_MAX)
		fit = SIM_PROCS_MAX;
	if (nodes <= SIM_PROCS_AUTO_NODES || cpus < 4)
		return (int)fit;
	cpus = cpus / 2 < SIM_PROCS_AUTO_MAX ? cpus / 2 : SIM_PROCS_AUTO_MAX;
	return (int)(cpus > fit ? cpus : fit);
}

static int parse_config(struct run *r, struct br_err *err)
{
	struct opts *o = r->o;
	int rc = 0;

	if (!o->dir)
		return br_errf(err, BR_E_INVAL, "--dir is required");
	r->cfg.nodes = o->nodes;
	r->cfg.seed = (uint64_t)(int64_t)o->seed;
	r->cfg.flaky_stall_ms = o->flaky_stall_ms;
	if (o->vendor && sim_vendor_parse(o->vendor, &r->cfg.vendor))
		return br_errf(err, BR_E_INVAL,
			       "--vendor '%s': dell, hpe, lenovo, supermicro, openbmc, ami or mixed",
			       o->vendor);
	for (size_t i = 0; i < o->faults.n && !rc; i++)
		rc = sim_faults_parse(o->faults.items[i], &r->cfg.faults, &r->cfg.n_faults, err);
	if (rc)
		return rc;
	if (o->fault_rate) {
		char *end = NULL;

		errno = 0;
		r->cfg.fault_rate = strtod(o->fault_rate, &end);
		if (errno || !end || *end || end == o->fault_rate)
			return br_errf(err, BR_E_INVAL, "--fault-rate '%s' is not a number", o->fault_rate);
	}
	if (o->image_dir && *o->image_dir != '/') {
		/* a daemon leaves the directory it was started in */
		char *abs = realpath(o->image_dir, NULL);

		if (!abs)
			return br_errf(err, BR_E_INVAL, "--image-dir %s: not found", o->image_dir);
		o->image_dir = abs; /* lives as long as the process */
	}
	if (o->latency_ms < 0 || o->flaky_stall_ms < 0 || o->bios_job_ms < 0 || o->bios_job_polls < 0 ||
	    o->fw_task_ms < 0 || o->bmc_reboot_ms < 0 || o->base_port < 0 || o->base_port + o->nodes > 65536)
		return br_errf(
		    err, BR_E_INVAL,
		    "--latency-ms, --flaky-stall-ms, --bios-job-ms, --bios-job-polls and --base-port "
		    "must be >= 0 "
		    "and the ports must fit below 65536");
	if (o->procs < 0 || o->procs > SIM_PROCS_MAX)
		return br_errf(err, BR_E_INVAL, "--procs %d is not in 0 (automatic)..%d", o->procs,
			       SIM_PROCS_MAX);
	r->procs = o->procs ? o->procs : default_procs(o->nodes);
	if (r->procs > o->nodes)
		r->procs = o->nodes > 0 ? o->nodes : 1;
	if (mkdir(o->dir, 0755) && errno != EEXIST)
		return br_errf(err, BR_E_IO, "%s: %s", o->dir, strerror(errno));
	r->dir = realpath(o->dir, NULL);
	if (!r->dir)
		return br_errf(err, BR_E_IO, "%s: %s", o->dir, strerror(errno));
	return sim_rack_generate(&r->rack, &r->cfg, err);
}

/* The BMC listener module: one iDRAC per node, bmc_down ones never answer. */
static int start_bmcs(struct run *r, struct br_err *err)
{
	r->bmc_cfg.user = "root";
	r->bmc_cfg.password = r->rack.password;
	r->bmc_cfg.flaky_stall_ms = r->o->flaky_stall_ms;
	r->bmc_cfg.bios_job_ms = r->o->bios_job_ms;
	r->bmc_cfg.bios_job_polls = r->o->bios_job_polls;
	r->bmc_cfg.connection_view = r->o->connection_view;
	r->bmc_cfg.fw_task_ms = r->o->fw_task_ms;
	r->bmc_cfg.bmc_reboot_ms = r->o->bmc_reboot_ms;
	r->bmc_cfg.image_dir = r->o->image_dir;
	r->bmcs = br_xcalloc(r->rack.n, sizeof(*r->bmcs));
	for (size_t i = 0; i < r->rack.n; i++) {
		struct sim_node *n = &r->rack.nodes[i];
		int down = sim_fault_has(&n->faults, SIM_F_BMC_DOWN), port, rc;

		r->bmcs[i].node = n;
		r->bmcs[i].cfg = &r->bmc_cfg;
		rc = sim_loop_listen(r->loop, n->hostname, r->o->base_port ? r->o->base_port + (int)i : 0,
				     down ? NULL : sim_vendor_handle, &r->bmcs[i], &port, err);
		if (rc)
			return rc;
		sim_node_set_port(n, port);
	}
	br_buf_addf(&r->env, "BRINGUP_BMC_PASSWORD=%s\n", r->rack.password);
	br_buf_addf(&r->env, "BRINGUP_BMC_SCHEME=%s\n", r->o->https ? "https" : "http");
	if (r->o->https)
		br_buf_addf(&r->env, "BRINGUP_CA_FILE=%s/ca.pem\n", r->dir);
	return 0;
}

/* The NetBox stand-in on the BMCs' loop: the rack as a site's NetBox
 * holds it (servers, switches, the cables of wiring.csv), under a random
 * v1 token in DIR/env, and a second one without write permission
 * (NETBOX_RO_TOKEN). */
static int start_netbox(struct run *r, struct br_err *err)
{
	static const char hex[] = "0123456789abcdef";
	struct sim_netbox_config nc = { .max_page_size = r->o->netbox_max_page,
					.https = r->o->https,
					.no_state_field = r->o->netbox_no_state_field };
	char token[SIM_NETBOX_TOKEN_LEN + 1], ro_token[SIM_NETBOX_TOKEN_LEN + 1];
	unsigned char raw[2 * SIM_NETBOX_TOKEN_LEN];
	int rc, port;

	if (getrandom(raw, sizeof(raw), 0) != (ssize_t)sizeof(raw))
		return br_errf(err, BR_E_IO, "NetBox token: getrandom: %s", strerror(errno));
	for (size_t i = 0; i < SIM_NETBOX_TOKEN_LEN; i++) {
		token[i] = hex[raw[i] % 16];
		ro_token[i] = hex[raw[SIM_NETBOX_TOKEN_LEN + i] % 16];
	}
	token[SIM_NETBOX_TOKEN_LEN] = ro_token[SIM_NETBOX_TOKEN_LEN] = '\0';
	r->netbox = sim_netbox_new(&r->rack, &nc, token, ro_token);
	rc = sim_loop_listen(r->loop, "netbox", 0, sim_netbox_handle, r->netbox, &port, err);
	if (!rc) {
		br_buf_addf(&r->env, "NETBOX_URL=%s://127.0.0.1:%d/\n", r->o->https ? "https" : "http", port);
		br_buf_addf(&r->env, "NETBOX_TOKEN=%s\n", token);
		br_buf_addf(&r->env, "NETBOX_RO_TOKEN=%s\n", ro_token);
	}
	memset(token, 0, sizeof(token));
	memset(ro_token, 0, sizeof(ro_token));
	return rc;
}

static int random_hex(char *out, size_t n, struct br_err *err)
{
	static const char hex[] = "0123456789abcdef";
	unsigned char raw[64];

	if (n > sizeof(raw) || getrandom(raw, n, 0) != (ssize_t)n)
		return br_errf(err, BR_E_IO, "getrandom: %s", strerror(errno));
	for (size_t i = 0; i < n; i++)
		out[i] = hex[raw[i] % 16];
	out[n] = '\0';
	return 0;
}

/* The ticket systems tickets are filed in: Jira (a Data Center personal
 * access token, "Bearer"), ServiceNow (a user's basic credentials) and
 * GitHub (a fine-grained personal access token, "Bearer"). */
static int start_ticket_systems(struct run *r, struct br_err *err)
{
	char secret[33], *jira_auth = NULL, *sn_auth = NULL, *gh_auth = NULL, *pair;
	unsigned char b64[96];
	int rc, port;

	rc = random_hex(secret, 32, err);
	if (rc)
		return rc;
	jira_auth = br_xasprintf("Bearer %s", secret);
	r->jira = sim_jira_new("DC", jira_auth);
	rc = sim_loop_listen(r->loop, "jira", 0, sim_jira_handle, r->jira, &port, err);
	if (!rc)
		br_buf_addf(&r->env,
			    "JIRA_URL=%s://127.0.0.1:%d/\nJIRA_PROJECT=DC\nJIRA_AUTHORIZATION='%s'\n",
			    r->o->https ? "https" : "http", port, jira_auth);
	if (!rc)
		rc = random_hex(secret, 32, err);
	if (!rc) {
		pair = br_xasprintf("bringup:%s", secret);
		EVP_EncodeBlock(b64, (const unsigned char *)pair, (int)strlen(pair));
		free(pair);
		sn_auth = br_xasprintf("Basic %s", (char *)b64);
		r->servicenow = sim_servicenow_new(sn_auth);
		rc = sim_loop_listen(r->loop, "servicenow", 0, sim_servicenow_handle, r->servicenow, &port,
				     err);
	}
	if (!rc)
		br_buf_addf(&r->env, "SERVICENOW_URL=%s://127.0.0.1:%d/\nSERVICENOW_AUTHORIZATION='%s'\n",
			    r->o->https ? "https" : "http", port, sn_auth);
	if (!rc)
		rc = random_hex(secret, 32, err);
	if (!rc) {
		/* a fine-grained token's shape, "github_pat_…" */
		gh_auth = br_xasprintf("Bearer github_pat_%s", secret);
		r->github = sim_github_new("dc-ops/hardware", gh_auth);
		rc = sim_loop_listen(r->loop, "github", 0, sim_github_handle, r->github, &port, err);
	}
	if (!rc)
		br_buf_addf(&r->env,
			    "GITHUB_API_URL=%s://127.0.0.1:%d/\nGITHUB_REPO=dc-ops/"
			    "hardware\nGITHUB_AUTHORIZATION='%s'\n",
			    r->o->https ? "https" : "http", port, gh_auth);
	free(jira_auth);
	free(sn_auth);
	free(gh_auth);
	memset(secret, 0, sizeof(secret));
	return rc;
}

/* Whether node host's BMC takes the login MAAS was given: its accounts as
 * they are now (credentials rotation changes them). */
static int bmc_takes(void *ctx, size_t host, const char *user, const char *password)
{
	struct run *r = ctx;

	return host < r->rack.n && sim_account_takes(&r->rack.nodes[host], &r->bmc_cfg, user, password);
}

/* The MAAS emulator, on its own threads, knowing every node by its MACs. */
static int start_maas(struct run *r, struct br_err *err)
{
	struct sim_maas_config mc = { .latency_ms = r->o->maas_latency_ms < 0 ? r->o->latency_ms
									      : r->o->maas_latency_ms,
				      .commission_ms = r->o->maas_commission_ms,
				      .deploy_ms = r->o->maas_deploy_ms,
				      .no_status_events = r->o->maas_no_status_events };
	struct sim_maas_host *hosts = NULL;
	char key[SIM_MAAS_KEY_LEN], operator_key[SIM_MAAS_KEY_LEN],
	    *log_path = br_xasprintf("%s/maas-requests.log", r->dir);
	int rc;

	sim_maas_make_key(key);
	sim_maas_make_key(operator_key);
	sim_maas_hosts_from_rack(&r->rack, &hosts, &mc.n_hosts);
	mc.hosts = hosts;
	mc.bmc_takes = bmc_takes;
	mc.bmc_ctx = r;
	mc.api_key = key;
	mc.operator_api_key = operator_key;
	unlink(log_path);
	mc.log_path = log_path;
	mc.tls_key_pem = r->tls_key;
	mc.tls_cert_pem = r->tls_cert;
	rc = sim_maas_start(&mc, &r->maas, err);
	if (!rc) {
		br_buf_addf(&r->env, "MAAS_URL=%s://127.0.0.1:%d/MAAS/\n", r->o->https ? "https" : "http",
			    sim_maas_port(r->maas));
		br_buf_addf(&r->env, "MAAS_API_KEY=%s\n", key);
		/* A second MAAS user, not an admin: MAAS's owner-only rules
		 * (mark_broken) can be seen from the other side. */
		br_buf_addf(&r->env, "MAAS_OPERATOR_API_KEY=%s\n", operator_key);
	}
	free(hosts);
	free(log_path);
	return rc;
}

static int write_file_in(const char *dir, const char *name, const char *text, mode_t mode, struct br_err *err)
{
	char *path = br_xasprintf("%s/%s", dir, name);
	int rc = br_write_file(path, text, strlen(text), err);

	if (!rc && chmod(path, mode))
		rc = br_errf(err, BR_E_IO, "%s: %s", path, strerror(errno));
	free(path);
	return rc;
}

/* Each second: the simulated hosts' RTCs follow the clock. On its own
 * thread, not the serving loop's: a 512-host rack is 1,536 files renamed a
 * second, and on a bench host's disk that held the first process's BMCs
 * (every 8th BMC) unanswered for up to 370 ms at a time, one BMC in eight
 * late by that much in discover and configure. */
static void *rtc_thread(void *ctx)
{
	struct run *r = ctx;
	struct timespec next;

	pthread_mutex_lock(&r->rtc_lock);
	while (!r->rtc_stop) {
		struct br_err err = { 0 };

		clock_gettime(CLOCK_REALTIME, &next);
		next.tv_sec++;
		next.tv_nsec = 0;
		while (!r->rtc_stop && pthread_cond_timedwait(&r->rtc_cond, &r->rtc_lock, &next) != ETIMEDOUT)
			;
		if (r->rtc_stop)
			break;
		pthread_mutex_unlock(&r->rtc_lock);
		if (sim_hosts_rtc_tick(&r->rack, r->dir, &err))
			br_warn("sim", "RTC: %s", err.msg);
		pthread_mutex_lock(&r->rtc_lock);
	}
	pthread_mutex_unlock(&r->rtc_lock);
	return NULL;
}

static int rtc_start(struct run *r, struct br_err *err)
{
	sigset_t all, old;
	int rc;

	pthread_mutex_init(&r->rtc_lock, NULL);
	pthread_cond_init(&r->rtc_cond, NULL);
	/* Signals stay the serving loop's to take. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	rc = pthread_create(&r->rtc, NULL, rtc_thread, r);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc)
		return br_errf(err, BR_E_IO, "RTC ticker thread: %s", strerror(rc));
	r->rtc_started = 1;
	return 0;
}

static void rtc_stop(struct run *r)
{
	if (!r->rtc_started)
		return;
	pthread_mutex_lock(&r->rtc_lock);
	r->rtc_stop = 1;
	pthread_cond_signal(&r->rtc_cond);
	pthread_mutex_unlock(&r->rtc_lock);
	pthread_join(r->rtc, NULL);
	pthread_cond_destroy(&r->rtc_cond);
	pthread_mutex_destroy(&r->rtc_lock);
	r->rtc_started = 0;
}

static int start(struct run *r, struct br_err *err)
{
	struct sim_loop_config lc = { .latency_ms = r->o->latency_ms };
	char *log_path = br_xasprintf("%s/requests.log", r->dir);
	char pid[32];
	int rc, hosts = !r->o->no_hosts && (r->o->hosts || r->rack.n <= SIM_HOSTS_AUTO_MAX);

	if (r->o->https) {
		char *ca = br_xasprintf("%s/ca.pem", r->dir);

		rc = sim_tls_make(ca, &r->tls_key, &r->tls_cert, err);
		free(ca);
		if (rc)
			goto out;
		lc.tls_key_pem = r->tls_key;
		lc.tls_cert_pem = r->tls_cert;
	}
	unlink(log_path); /* each run logs afresh */
	lc.log_path = log_path;
	rc = sim_loop_new(&lc, &r->loop, err);
	if (!rc)
		rc = start_bmcs(r, err);
	if (!rc)
		rc = start_netbox(r, err);
	if (!rc)
		rc = start_ticket_systems(r, err);
	/* Every port listens before the fork, so each process holds them all
	 * and the handshake below still means "every port answers". */
	if (!rc)
		rc = sim_loop_start(r->loop, r->procs, &r->proc, err);
	if (r->proc) {
		/* The waiting parent reads the pipe to EOF and hears only the
		 * first process, which serves a share under the same config. */
		if (r->ready_fd >= 0)
			close(r->ready_fd);
		r->ready_fd = -1;
		goto out;
	}
	if (!rc)
		rc = start_maas(r, err);
	if (!rc)
		rc = sim_write_manifest(&r->rack, r->dir, err);
	if (!rc && hosts)
		rc = sim_hosts_write(&r->rack, r->dir, err);
	if (!rc && hosts && sim_rack_infiniband(&r->rack))
		rc = sim_ib_write_subnets(&r->rack, r->dir, err);
	if (!rc && hosts)
		rc = sim_active_write_tools(r->dir, err);
	if (!rc && hosts) {
		rc = sim_hosts_rtc_tick(&r->rack, r->dir, err);
		if (!rc)
			rc = rtc_start(r, err);
	}
	/* sshd is on by default where it is installed: the validators reach
	 * each simulated host as they would a real one. */
	if (!rc && hosts && !r->o->no_ssh && access(SIM_SSHD_PATH, X_OK) == 0)
		rc = sim_ssh_start(&r->rack, r->dir, &r->env, &r->ssh, err);
	if (rc)
		goto out;
	br_buf_addf(&r->env, "BRINGUP_WIRING=%s/wiring.csv\n", r->dir);
	/* The InfiniBand fabric's design, and the rate its NDR links train at. */
	if (sim_rack_infiniband(&r->rack))
		br_buf_addf(&r->env, "BRINGUP_IB_WIRING=%s/ib-wiring.csv\nBRINGUP_FABRIC_RATE=4xNDR\n",
			    r->dir);
	br_buf_addf(&r->env, "BRINGUP_SWITCHES=%s/switches.csv\n", r->dir);
	br_buf_addf(&r->env, "BRINGUP_SIM_DIR=%s\n", r->dir);
	rc = write_file_in(r->dir, "env", br_buf_str(&r->env), 0600, err);
	snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
	if (!rc)
		rc = write_file_in(r->dir, "sim.pid", pid, 0644, err);
out:
	free(log_path);
	return rc;
}

static char *summary(struct run *r)
{
	json_t *faults = json_object(), *doc;
	char *text;

	for (size_t i = 0; i < r->rack.n; i++)
		for (int f = 0; f < SIM_F_COUNT; f++)
			if (sim_fault_has(&r->rack.nodes[i].faults, f)) {
				const char *name = sim_fault_name((enum sim_fault)f);

				json_object_set_new(
				    faults, name,
				    json_integer(json_integer_value(json_object_get(faults, name)) + 1));
			}
	doc = json_pack("{s:s, s:i, s:i, s:s, s:s, s:s, s:o}", "dir", r->dir, "nodes", (int)r->rack.n, "pid",
			(int)getpid(), "scheme", r->o->https ? "https" : "http", "first_bmc",
			r->rack.nodes[0].bmc, "last_bmc", r->rack.nodes[r->rack.n - 1].bmc, "faults", faults);
	text = json_dumps(doc, JSON_COMPACT);
	json_decref(doc);
	return text;
}

static char *human_summary(struct run *r)
{
	return br_xasprintf("bringup-sim: %zu BMCs %s://%s .. %s, pid %ld, files in %s\n", r->rack.n,
			    r->o->https ? "https" : "http", r->rack.nodes[0].bmc,
			    r->rack.nodes[r->rack.n - 1].bmc, (long)getpid(), r->dir);
}

/* Fork: the parent waits on a pipe until the child serves every port (or
 * failed), prints what the child said and returns 1 with *ret_exit set;
 * the child returns 0 with the pipe's write end in *ret_ready_fd. */
static int daemonize(struct run *r, int *ret_ready_fd, int *ret_exit, struct br_err *err)
{
	int fds[2], fd;
	pid_t pid;
	char *log_path;

	if (pipe(fds))
		return br_errf(err, BR_E_IO, "pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		return br_errf(err, BR_E_IO, "fork: %s", strerror(errno));
	if (pid > 0) {
		struct br_buf said;
		char chunk[4096];
		ssize_t n;

		close(fds[1]);
		br_buf_init(&said, 1 << 20);
		while ((n = read(fds[0], chunk, sizeof(chunk))) > 0 || (n < 0 && errno == EINTR))
			if (n > 0)
				br_buf_add(&said, chunk, (size_t)n);
		close(fds[0]);
		if (said.len > 2 && said.data[0] == '0') {
			fputs(said.data + 2, stdout);
			*ret_exit = 0;
		} else {
			fprintf(stderr, "bringup-sim: %s",
				said.len > 2 ? said.data + 2 : "the simulator died before listening\n");
			*ret_exit = 1;
		}
		br_buf_release(&said);
		return 1;
	}
	close(fds[0]);
	setsid();
	log_path = br_xasprintf("%s/sim.log", r->dir);
	fd = open(log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	free(log_path);
	if (fd >= 0) {
		dup2(fd, STDOUT_FILENO);
		dup2(fd, STDERR_FILENO);
		close(fd);
	}
	fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		dup2(fd, STDIN_FILENO);
		close(fd);
	}
	*ret_ready_fd = fds[1];
	return 0;
}

static void tell_parent(int fd, int ok, const char *text)
{
	struct br_buf b;
	size_t off = 0;

	br_buf_init(&b, 0);
	br_buf_addf(&b, "%d %s%s", ok ? 0 : 1, text, text[0] && text[strlen(text) - 1] == '\n' ? "" : "\n");
	while (off < b.len) {
		ssize_t n = write(fd, b.data + off, b.len - off);

		if (n < 0 && errno != EINTR)
			break;
		if (n > 0)
			off += (size_t)n;
	}
	br_buf_release(&b);
	close(fd);
}

static void run_release(struct run *r)
{
	char *pid_path;

	rtc_stop(r);
	sim_ssh_stop(r->ssh);
	sim_maas_stop(r->maas);
	sim_loop_free(r->loop);
	sim_netbox_free(r->netbox);
	sim_jira_free(r->jira);
	sim_servicenow_free(r->servicenow);
	sim_github_free(r->github);
	if (r->dir && r->loop && !r->proc) {
		pid_path = br_xasprintf("%s/sim.pid", r->dir);
		unlink(pid_path);
		free(pid_path);
	}
	free(r->bmcs);
	if (r->tls_key)
		br_secret_free(r->tls_key);
	free(r->tls_cert);
	sim_rack_release(&r->rack);
	free(r->cfg.faults);
	br_buf_release(&r->env);
	free(r->dir);
	br_strlist_release(&r->o->faults);
}

/* The summary, then every fault --faults takes, from faults.c's table (sim.h
 * says what each does). Caller frees. */
static char *help_text(const char *summary)
{
	struct br_buf b;
	size_t line = 0;

	br_buf_init(&b, 0);
	br_buf_addf(&b,
		    "%s\n\nFaults (--faults KIND[:COUNT]; the first %d are the design's, picked by "
		    "--fault-rate):\n",
		    summary, SIM_F_DESIGN_COUNT);
	for (int f = 0; f < SIM_F_COUNT; f++) {
		const char *name = sim_fault_name((enum sim_fault)f);

		if (line && line + strlen(name) + 2 > 90) {
			br_buf_adds(&b, ",\n");
			line = 0;
		}
		br_buf_addf(&b, "%s%s", line ? ", " : "  ", name);
		line += strlen(name) + 2;
	}
	return br_buf_detach(&b);
}

int main(int argc, char **argv)
{
	struct opts o = { .nodes = 4,
			  .flaky_stall_ms = SIM_FLAKY_STALL_MS,
			  .bios_job_ms = SIM_JOB_RUN_MS,
			  .fw_task_ms = 2000,
			  .bmc_reboot_ms = 1000,
			  .maas_latency_ms = -1 };
	const struct br_option options[] = {
		{ "nodes", 'n', BR_OPT_INT, &o.nodes, "N", "number of simulated servers (default 4)" },
		{ "dir", 'd', BR_OPT_STRING, &o.dir, "DIR",
		  "where rack.csv, wiring.csv, truth.json, env go" },
		{ "seed", 's', BR_OPT_INT, &o.seed, "S",
		  "seed for every identifier and fault choice (default 0)" },
		{ "faults", 'f', BR_OPT_LIST, &o.faults, "KIND[:COUNT],...",
		  "put faults on COUNT nodes each" },
		{ "vendor", 0, BR_OPT_STRING, &o.vendor, "FAMILY",
		  "BMC family: dell (default), hpe, lenovo, supermicro, openbmc, ami, or mixed "
		  "(round-robin)" },
		{ "fault-rate", 0, BR_OPT_STRING, &o.fault_rate, "P",
		  "give each other node a random fault with probability P" },
		{ "latency-ms", 0, BR_OPT_INT, &o.latency_ms, "L", "delay every answer by L ms" },
		{ "flaky-stall-ms", 0, BR_OPT_INT, &o.flaky_stall_ms, "MS",
		  "how long a bmc_flaky stall lasts (default 20000)" },
		{ "bios-job-ms", 0, BR_OPT_INT, &o.bios_job_ms, "MS",
		  "how long a BIOS config job runs after the reset (default 1000)" },
		{ "bios-job-polls", 0, BR_OPT_INT, &o.bios_job_polls, "N",
		  "a BIOS config job also stays Running until read N times (default 0)" },
		{ "fw-task-ms", 0, BR_OPT_INT, &o.fw_task_ms, "MS",
		  "how long a firmware update's task runs (default 2000)" },
		{ "bmc-reboot-ms", 0, BR_OPT_INT, &o.bmc_reboot_ms, "MS",
		  "how long an iDRAC is away after its own update (default 1000)" },
		{ "image-dir", 0, BR_OPT_STRING, &o.image_dir, "DIR",
		  "where SimpleUpdate's ImageURI file names are read (the image server's files)" },
		{ "maas-latency-ms", 0, BR_OPT_INT, &o.maas_latency_ms, "L",
		  "delay every MAAS answer by L ms (default: --latency-ms)" },
		{ "maas-commission-ms", 0, BR_OPT_INT, &o.maas_commission_ms, "MS",
		  "how long MAAS commissioning takes (default 2000)" },
		{ "maas-deploy-ms", 0, BR_OPT_INT, &o.maas_deploy_ms, "MS",
		  "how long a MAAS deploy takes (default 3000)" },
		{ "maas-no-status-events", 0, BR_OPT_FLAG, &o.maas_no_status_events, NULL,
		  "write no 'Node changed status' events (every MAAS since 1.7 does: a MAAS-like server that "
		  "does not)" },
		{ "connection-view", 0, BR_OPT_FLAG, &o.connection_view, NULL,
		  "Dell iDRACs start with Connection View enabled (SwitchConnectionView.1.Enable): each "
		  "shows "
		  "the switch port behind every host port before PXE (default: Disabled, every port 'No "
		  "Link' until a client enables it)" },
		{ "netbox-max-page", 0, BR_OPT_INT, &o.netbox_max_page, "N",
		  "the NetBox stand-in's MAX_PAGE_SIZE: no page holds more (default 1000)" },
		{ "netbox-no-state-field", 0, BR_OPT_FLAG, &o.netbox_no_state_field, NULL,
		  "the NetBox stand-in's site defined no custom field bringup_state (bringup export's "
		  "writes of it are refused, 400)" },
		{ "https", 0, BR_OPT_FLAG, &o.https, NULL,
		  "serve the BMCs and MAAS over HTTPS with a generated CA (DIR/ca.pem)" },
		{ "daemon", 0, BR_OPT_FLAG, &o.daemon, NULL,
		  "return once every port listens; serve in the background" },
		{ "base-port", 0, BR_OPT_INT, &o.base_port, "P",
		  "BMC i on port P+i (default: any free port)" },
		{ "procs", 0, BR_OPT_INT, &o.procs, "P",
		  "serve the BMCs from P processes (default: 1 up to 64 nodes, else half the CPUs, at most "
		  "8)" },
		{ "hosts", 0, BR_OPT_FLAG, &o.hosts, NULL,
		  "write host trees (and start sshd) even above 128 nodes (default: up to 128)" },
		{ "no-hosts", 0, BR_OPT_FLAG, &o.no_hosts, NULL, "write no host trees and start no sshd" },
		{ "no-ssh", 0, BR_OPT_FLAG, &o.no_ssh, NULL,
		  "write host trees but start no sshd (default: start it when " SIM_SSHD_PATH " exists)" },
		{ "json", 0, BR_OPT_FLAG, &o.json, NULL, "print a JSON summary on stdout" },
		{ "verbose", 'v', BR_OPT_FLAG, &o.verbose, NULL, "more log detail (repeat for debug)" },
		{ 0 },
	};
	char *help = help_text(
	    "Serve a simulated rack of Dell iDRAC9 Redfish BMCs on 127.0.0.1, one port each, and a MAAS "
	    "API\n"
	    "emulator (MAAS_URL, MAAS_API_KEY in DIR/env; its log in DIR/maas-requests.log), a NetBox\n"
	    "API stand-in holding the rack's devices and cables (NETBOX_URL, NETBOX_TOKEN), and write\n"
	    "DIR/rack.csv, wiring.csv, truth.json, env, sim.pid and requests.log. Each node is also a\n"
	    "simulated host: DIR/hosts/HOSTNAME/ holds the sysfs/procfs tree and tool captures\n"
	    "bringup-probe reads, served by real sshd on 127.0.0.1 (one port per node; DIR/ssh_config,\n"
	    "DIR/ssh/ keys and known_hosts; BRINGUP_SSH_* in DIR/env). Stops on SIGINT/SIGTERM.");
	const struct br_command cmd = {
		"bringup-sim", "--nodes N --dir DIR [options]", help, options, NULL,
	};
	struct run r = { .o = &o, .ready_fd = -1 };
	struct br_err err = { 0 };
	int argi, exit_code = 0;
	char *text = NULL;

	br_log_init("bringup-sim", BR_LOG_WARN);
	switch (br_opt_parse(&cmd, argc, argv, &argi)) {
	case BR_OPT_OK:
		break;
	case BR_OPT_EXIT_OK:
		free(help);
		return 0;
	case BR_OPT_EXIT_USAGE:
		free(help);
		return 2;
	}
	free(help);
	if (o.verbose)
		br_log_set_level(o.verbose > 1 ? BR_LOG_DEBUG : BR_LOG_INFO);
	br_buf_init(&r.env, 0);
	if (argi < argc)
		br_errf(&err, BR_E_INVAL, "unexpected argument '%s'", argv[argi]);
	if (argi < argc || parse_config(&r, &err)) {
		fprintf(stderr, "bringup-sim: %s\n", err.msg);
		exit_code = 2;
		goto out;
	}
	signal(SIGPIPE, SIG_IGN);
	/* The MAAS emulator answers on a thread per connection, each with a
	 * malloc arena of its own: glibc gave an arena's heap back as soon as
	 * an answer was freed and grew it again for the next (mprotect and
	 * fresh pages, while holding the emulator's lock), and sent large
	 * bodies through mmap: a fifth of the emulator's CPU in a 512-machine
	 * enlist. Fixed thresholds keep the memory for the next answer. */
	mallopt(M_TRIM_THRESHOLD, SIM_MALLOC_KEEP);
	mallopt(M_MMAP_THRESHOLD, SIM_MALLOC_KEEP);
	if (o.daemon && daemonize(&r, &r.ready_fd, &exit_code, &err)) {
		if (err.code) {
			fprintf(stderr, "bringup-sim: %s\n", err.msg);
			exit_code = 1;
		}
		goto out;
	}
	if (start(&r, &err)) {
		if (r.ready_fd >= 0)
			tell_parent(r.ready_fd, 0, err.msg);
		else
			fprintf(stderr, "bringup-sim: %s\n", err.msg);
		exit_code = 1;
		goto out;
	}
	/* The first process speaks for all. */
	if (!r.proc)
		text = o.json ? summary(&r) : human_summary(&r);
	if (!r.proc && r.ready_fd >= 0) {
		tell_parent(r.ready_fd, 1, text);
	} else if (!r.proc) {
		fputs(text, stdout);
		if (o.json)
			fputc('\n', stdout);
		fflush(stdout);
	}
	if (sim_loop_run(r.loop, &err)) {
		br_error("sim", "%s", err.msg);
		exit_code = 1;
	}
out:
	free(text);
	run_release(&r);
	return exit_code;
}
