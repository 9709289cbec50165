/*
 * sim/maas — an emulator of the Canonical MAAS API 2.0, enough of it for
 * enlisting a rack: machines (create, read, list with filters), the node
 * state machine with simulated commissioning and deploying times, block
 * devices in each machine's kernel order, set_boot_disk and
 * set_storage_layout with MAAS's rules, tags, events, users/?op=whoami,
 * OAuth 1.0 PLAINTEXT checking, MAAS's error wording, and a JSON-lines
 * request log (method, path, op, status, time; never the key, never form
 * secrets).
 *
 * It serves from its own libmicrohttpd threads on 127.0.0.1, over HTTP or,
 * given a key and certificate, HTTPS (a thread per connection, one mutex
 * around the state; a machine list is copied under it and rendered after,
 * so long answers overlap as MAAS's region serves them) so it can run beside the
 * simulated BMCs' event loop, or alone in a test. Durations are computed
 * from timestamps when a machine is read, so no timer thread is needed.
 *
 * A machine is known to MAAS only once created through the API; it is
 * matched to one of the configured physical hosts by MAC, which gives it
 * its disks, whether commissioning fails, and the address it gets when
 * deployed.
 *
 * Ownership: sim_maas_start copies the configuration (hosts, key and
 * certificate included); sim_maas_stop stops the daemon and frees
 * everything, wiping the copied secrets.
 */
#ifndef BRINGUP_SIM_MAAS_H
#define BRINGUP_SIM_MAAS_H

#include <stdint.h>

#include "common.h"

#define SIM_MAAS_MACS_MAX 16
#define SIM_MAAS_DISKS_MAX 16
#define SIM_MAAS_HOSTS_MAX 16384 /* above the largest bench rack (10,000) */
#define SIM_MAAS_MACHINES_MAX 16384
#define SIM_MAAS_TAGS_MAX 256
#define SIM_MAAS_EVENTS_MAX 64		 /* kept per machine, oldest dropped */
#define SIM_MAAS_BODY_MAX (1024u * 1024) /* request body; more gets 413 */
#define SIM_MAAS_COMMISSION_MS 2000
#define SIM_MAAS_DEPLOY_MS 3000

struct sim_maas_disk {
	char name[16]; /* kernel name at commissioning: "nvme0n1" */
	char serial[48];
	char model[48];
	uint64_t size;	   /* bytes */
	char id_path[128]; /* "/dev/disk/by-id/nvme-..." */
};

/* A physical machine MAAS can find by MAC. */
struct sim_maas_host {
	char hostname[64];
	char macs[SIM_MAAS_MACS_MAX][18]; /* lowercase colon form */
	size_t n_macs;
	struct sim_maas_disk disks[SIM_MAAS_DISKS_MAX]; /* in kernel order: disks[0] gets the lowest id */
	size_t n_disks;
	int commission_fail; /* commissioning fails with a script result */
	int commission_hang; /* commissioning never ends */
	int echo_request;    /* test fault maas_echo: a create is refused, echoing the request */
	char ip[46];	     /* address once deployed */
	/* Its BMC, as MAAS would reach it; bmc_address "": no BMC simulated,
	 * any power parameters work. */
	char bmc_address[64]; /* "127.0.0.1:PORT" */
	char bmc_user[32];
	char bmc_password[64];	 /* a secret: wiped by sim_maas_stop */
	char redfish_system[40]; /* the Redfish System id: "System.Embedded.1" */
	int power_fail;		 /* MAAS cannot power it whatever it is given */
	int test_fail_once;	 /* the first hardware testing fails */
	int deleted_at_tag;	 /* test fault maas_deleted_at_tag: its machine is deleted as a
				    tag update naming it arrives */
	int update_fail;	 /* test fault maas_update_fail: a PUT of its machine gets 500 */
};

struct sim_maas_config {
	int port;	     /* 0: any free port */
	int latency_ms;	     /* added to every answer */
	const char *api_key; /* consumer:token:secret the emulator accepts: the admin's */
	/* A second user's key, not an admin (SIM_MAAS_OPERATOR): what a
	 * machine one user owns looks like to another. NULL: no such user. */
	const char *operator_api_key;
	const char *log_path; /* JSON lines, NULL: no log */
	int commission_ms;    /* 0: SIM_MAAS_COMMISSION_MS */
	int deploy_ms;	      /* 0: SIM_MAAS_DEPLOY_MS */
	int busy_percent;     /* answer this share of requests 503 / 409 + Retry-After */
	/* Write no "Node changed status" events: no MAAS since 1.7.0 does so
	 * (see sim_maas_status_changed); it stands for a MAAS-like server that
	 * does not, which a client must still drive. */
	int no_status_events;
	const struct sim_maas_host *hosts;
	size_t n_hosts;
	/* Whether hosts[host]'s BMC takes this login now (its accounts change
	 * when its credentials rotate); called on the emulator's threads.
	 * NULL: the host's bmc_user and bmc_password, as started. */
	int (*bmc_takes)(void *ctx, size_t host, const char *user, const char *password);
	void *bmc_ctx;
	const char *tls_key_pem; /* both set: serve HTTPS; the key is a secret, never logged */
	const char *tls_cert_pem;
};

struct sim_maas;

int sim_maas_start(const struct sim_maas_config *cfg, struct sim_maas **ret_maas, struct br_err *err);
/* The port it listens on. */
int sim_maas_port(const struct sim_maas *maas);
/* Stop serving and free everything; accepts NULL. */
void sim_maas_stop(struct sim_maas *maas);

/* ---- maas_rack.c: the simulated rack as MAAS sees it ----------------------- */

struct sim_rack;

/* One host per node: every present NIC's MAC, the BOSS drive and the
 * present data drives in kernel order (nvme_order puts a data drive first
 * and the intended boot disk second), commission_fail, and the loopback
 * address the deployed host answers on (127.100.I/250.I%250+1). Caller
 * frees *ret_hosts. */
void sim_maas_hosts_from_rack(const struct sim_rack *rack, struct sim_maas_host **ret_hosts, size_t *ret_n);

#define SIM_MAAS_ADMIN "admin"
#define SIM_MAAS_OPERATOR "operator" /* the second user: not an admin */
#define SIM_MAAS_KEY_LEN (18 + 1 + 18 + 1 + 32 + 1)
/* A fresh random key "consumer:token:secret", shaped like MAAS's. */
void sim_maas_make_key(char out[SIM_MAAS_KEY_LEN]);

#endif
