/*
 * The loop itself: listening sockets, one libmicrohttpd daemon per
 * listener in epoll mode whose epoll fd sits in one outer epoll set, timers
 * and the stop signal.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "http_private.h"

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

/* ---- listeners ------------------------------------------------------------ */

static int listen_socket(int port, int *ret_fd, int *ret_port, struct br_err *err)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	socklen_t len = sizeof(sa);
	int fd, one = 1;

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return br_errf(err, BR_E_IO, "socket: %s", strerror(errno));
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) || listen(fd, LISTEN_BACKLOG) ||
	    getsockname(fd, (struct sockaddr *)&sa, &len)) {
		int e = errno;

		close(fd);
		return br_errf(err, BR_E_IO, "listen on 127.0.0.1:%d: %s", port, strerror(e));
	}
	*ret_fd = fd;
	*ret_port = ntohs(sa.sin_port);
	return 0;
}

static int start_daemon(struct sim_loop *loop, struct listener *l, struct br_err *err)
{
	int tls = loop->cfg.tls_key_pem && loop->cfg.tls_cert_pem;
	struct MHD_OptionItem opts[] = {
		{ MHD_OPTION_LISTEN_SOCKET, l->fd, NULL },
		{ MHD_OPTION_URI_LOG_CALLBACK, (intptr_t)sim_http_on_uri, l },
		{ MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)sim_http_on_completed, l },
		{ MHD_OPTION_CONNECTION_TIMEOUT, IDLE_TIMEOUT_S, NULL },
		/* MHD zeroes a connection's whole pool before each keep-alive
		 * request: its 32 KiB default was the simulator's top memset. */
		{ MHD_OPTION_CONNECTION_MEMORY_LIMIT, CONN_POOL_BYTES, NULL },
		{ MHD_OPTION_EXTERNAL_LOGGER, (intptr_t)sim_http_on_mhd_log, l },
		{ tls ? MHD_OPTION_HTTPS_MEM_KEY : MHD_OPTION_END, 0,
		  (void *)(uintptr_t)loop->cfg.tls_key_pem },
		{ MHD_OPTION_HTTPS_MEM_CERT, 0, (void *)(uintptr_t)loop->cfg.tls_cert_pem },
		{ MHD_OPTION_END, 0, NULL },
	};
	const union MHD_DaemonInfo *info;
	struct epoll_event ev = { .events = EPOLLIN };
	unsigned flags =
	    MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG | (tls ? MHD_USE_TLS : 0);

	l->daemon = MHD_start_daemon(flags, 0, NULL, NULL, sim_http_on_access, l, MHD_OPTION_ARRAY, opts,
				     MHD_OPTION_END);
	if (!l->daemon)
		return br_errf(err, BR_E_IO, "%s: libmicrohttpd would not start on %s", l->name, l->addr);
	info = MHD_get_daemon_info(l->daemon, MHD_DAEMON_INFO_EPOLL_FD);
	ev.data.ptr = l;
	if (!info || epoll_ctl(loop->epfd, EPOLL_CTL_ADD, info->epoll_fd, &ev))
		return br_errf(err, BR_E_IO, "%s: epoll_ctl: %s", l->name, strerror(errno));
	return 0;
}

/* Past this many listeners, bind() to port 0 costs the kernel a walk over
 * the bound ports for each new one (10,000 BMCs took minutes to listen):
 * take ports in turn from a random point of the ephemeral range instead,
 * skipping any in use. A small rack keeps the kernel's choice. */
#define SIM_PORT_CURSOR_AFTER 256

static int listen_next_port(int *ret_fd, int *ret_port, struct br_err *err)
{
	static int next;
	int lo = 32768, hi = 60999;
	FILE *f = fopen("/proc/sys/net/ipv4/ip_local_port_range", "re");

	if (f) {
		if (fscanf(f, "%d %d", &lo, &hi) != 2 || lo < 1024 || hi > 65535 || hi <= lo) {
			lo = 32768;
			hi = 60999;
		}
		fclose(f);
	}
	if (next < lo || next > hi)
		next = lo + (int)(((unsigned)getpid() * 2654435761u + (unsigned)br_now_ms()) %
				  (unsigned)(hi - lo + 1));
	for (int tries = 0; tries <= hi - lo; tries++) {
		int port = next;

		next = next >= hi ? lo : next + 1;
		if (!listen_socket(port, ret_fd, ret_port, NULL))
			return 0;
	}
	return br_errf(err, BR_E_IO, "no free port in %d..%d", lo, hi);
}

int sim_loop_listen(struct sim_loop *loop, const char *name, int port, sim_handler_fn handler, void *ctx,
		    int *ret_port, struct br_err *err)
{
	struct listener *l;
	int real_port = 0, rc;

	if (loop->started)
		return br_errf(err, BR_E_INVAL, "%s: the loop already serves", name);
	l = br_xcalloc(1, sizeof(*l));
	l->loop = loop;
	l->name = name;
	l->handler = handler;
	l->ctx = ctx;
	l->fd = -1;
	if (port == 0 && loop->nl >= SIM_PORT_CURSOR_AFTER)
		rc = listen_next_port(&l->fd, &real_port, err);
	else
		rc = listen_socket(port, &l->fd, &real_port, err);
	if (rc) {
		free(l);
		return br_err_prefix(err, "%s", name);
	}
	snprintf(l->addr, sizeof(l->addr), "127.0.0.1:%d", real_port);
	loop->ls = br_xrealloc(loop->ls, (loop->nl + 1) * sizeof(*loop->ls));
	loop->ls[loop->nl++] = l;
	*ret_port = real_port;
	return 0;
}

/* ---- the loop ------------------------------------------------------------- */

int sim_loop_new(const struct sim_loop_config *cfg, struct sim_loop **ret_loop, struct br_err *err)
{
	struct sim_loop *loop = br_xcalloc(1, sizeof(*loop));
	struct rlimit rl;

	/* 512 BMCs with a few connections each need more than the usual 1024 fds. */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	loop->cfg = *cfg;
	loop->epfd = -1;
	loop->log_fd = -1;
	br_buf_init(&loop->logbuf, 0);
	if (cfg->log_path) {
		loop->log_fd = open(cfg->log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
		if (loop->log_fd < 0) {
			int e = errno;

			sim_loop_free(loop);
			return br_errf(err, BR_E_IO, "%s: %s", cfg->log_path, strerror(e));
		}
	}
	*ret_loop = loop;
	return 0;
}

/* In a child: die with the process that forked it, as the pid file names
 * only that one. */
static void child_follow_parent(pid_t parent)
{
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != parent)
		raise(SIGTERM);
}

static int fork_procs(struct sim_loop *loop, int procs, int *ret_proc, struct br_err *err)
{
	pid_t parent = getpid();

	loop->children = br_xcalloc((size_t)procs, sizeof(*loop->children));
	for (int p = 1; p < procs; p++) {
		pid_t pid = fork();

		if (pid < 0)
			return br_errf(err, BR_E_IO, "fork: %s", strerror(errno));
		if (pid == 0) {
			child_follow_parent(parent);
			free(loop->children);
			loop->children = NULL;
			loop->nchildren = 0;
			*ret_proc = p;
			return 0;
		}
		loop->children[loop->nchildren++] = pid;
	}
	*ret_proc = 0;
	return 0;
}

int sim_loop_start(struct sim_loop *loop, int procs, int *ret_proc, struct br_err *err)
{
	int proc = 0, rc;

	if (procs < 1 || procs > SIM_PROCS_MAX)
		return br_errf(err, BR_E_INVAL, "serving processes: %d is not in 1..%d", procs,
			       SIM_PROCS_MAX);
	loop->started = 1;
	/* Nothing is logged or registered with epoll before the fork: an epoll
	 * set made before it would be one set shared by every process. */
	if (procs > 1 && (rc = fork_procs(loop, procs, &proc, err)))
		return rc;
	loop->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (loop->epfd < 0)
		return br_errf(err, BR_E_IO, "epoll_create1: %s", strerror(errno));
	for (size_t i = 0; i < loop->nl; i++) {
		struct listener *l = loop->ls[i];

		if ((int)(i % (size_t)procs) != proc) {
			close(l->fd); /* this process's copy; the serving one keeps its own */
			l->fd = -1;
		} else if (l->handler && (rc = start_daemon(loop, l, err))) {
			return rc;
		}
	}
	*ret_proc = proc;
	return 0;
}

static int next_timeout(struct sim_loop *loop)
{
	int64_t wait = SWEEP_MS;

	if (loop->log_dirty)
		return 0;
	for (size_t i = 0; i < loop->nl; i++)
		if (loop->ls[i]->again)
			return 0;
	if (loop->nheap && loop->heap[0]->due_ms != NEVER) {
		wait = loop->heap[0]->due_ms - br_now_ms();
		if (wait < 0)
			wait = 0;
		if (wait > SWEEP_MS)
			wait = SWEEP_MS;
	}
	return (int)wait;
}

static void run_daemon(struct listener *l)
{
	MHD_UNSIGNED_LONG_LONG timeout;

	MHD_run(l->daemon);
	/* Edge-triggered work MHD could not finish shows as a zero timeout. */
	l->again = MHD_get_timeout(l->daemon, &timeout) == MHD_YES && timeout == 0;
}

static void fire_timers(struct sim_loop *loop)
{
	int64_t now = br_now_ms();

	while (loop->nheap && loop->heap[0]->due_ms <= now) {
		struct req *q = sim_http_heap_pop(loop);

		MHD_resume_connection(q->conn);
		/* MHD notices a resume only when it runs; nothing wakes epoll for it. */
		q->l->again = 1;
	}
}

static void turn(struct sim_loop *loop, struct epoll_event *evs, int n, int64_t *last_sweep)
{
	int64_t now;

	for (int i = 0; i < n; i++)
		run_daemon(evs[i].data.ptr);
	for (size_t i = 0; i < loop->nl; i++)
		if (loop->ls[i]->again)
			run_daemon(loop->ls[i]);
	fire_timers(loop);
	now = br_now_ms();
	if (now - *last_sweep >= SWEEP_MS) {
		/* Idle keep-alive connections time out only when MHD runs. */
		for (size_t i = 0; i < loop->nl; i++)
			if (loop->ls[i]->daemon)
				run_daemon(loop->ls[i]);
		*last_sweep = now;
	}
	if (loop->log_dirty && (n == 0 || now - loop->last_flush >= LOG_FLUSH_MS))
		sim_http_log_flush(loop);
}

int sim_loop_run(struct sim_loop *loop, struct br_err *err)
{
	struct epoll_event evs[LOOP_EVENTS_MAX];
	struct sigaction sa = { .sa_handler = on_signal };
	sigset_t block, old, wait_mask;
	int64_t last_sweep = br_now_ms();
	int rc = 0;

	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, &old);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	wait_mask = old;
	sigdelset(&wait_mask, SIGINT);
	sigdelset(&wait_mask, SIGTERM);
	while (!stop_signal) {
		int n = epoll_pwait(loop->epfd, evs, LOOP_EVENTS_MAX, next_timeout(loop), &wait_mask);

		if (n < 0 && errno != EINTR) {
			rc = br_errf(err, BR_E_IO, "epoll_wait: %s", strerror(errno));
			break;
		}
		turn(loop, evs, n < 0 ? 0 : n, &last_sweep);
	}
	br_info("sim", "stopping on signal %d", (int)stop_signal);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return rc;
}

/* The pid file names only the first process: what stops it stops all. */
static void stop_children(struct sim_loop *loop)
{
	for (size_t i = 0; i < loop->nchildren; i++)
		kill(loop->children[i], SIGTERM);
	for (size_t i = 0; i < loop->nchildren; i++)
		while (waitpid(loop->children[i], NULL, 0) < 0 && errno == EINTR)
			;
	free(loop->children);
}

void sim_loop_free(struct sim_loop *loop)
{
	if (!loop)
		return;
	/* Suspended connections must be resumed before their daemon stops;
	 * they are closed unanswered. */
	loop->stopping = 1;
	while (loop->nheap)
		MHD_resume_connection(sim_http_heap_pop(loop)->conn);
	for (size_t i = 0; i < loop->nl; i++) {
		struct listener *l = loop->ls[i];

		if (l->daemon) {
			MHD_run(l->daemon);
			MHD_stop_daemon(l->daemon);
		} else if (l->fd >= 0) {
			close(l->fd);
		}
		free(l);
	}
	free(loop->ls);
	free(loop->heap);
	sim_http_log_flush(loop);
	if (loop->log_fd >= 0)
		close(loop->log_fd);
	br_buf_release(&loop->logbuf);
	if (loop->epfd >= 0)
		close(loop->epfd);
	stop_children(loop);
	free(loop);
}
