/* What the MAAS emulator's files share: its state and the request/reply
 * records a resource handler works on. Everything here runs under
 * sim_maas.lock. */
#ifndef BRINGUP_SIM_MAAS_PRIVATE_H
#define BRINGUP_SIM_MAAS_PRIVATE_H

#include <pthread.h>

#include "sim/maas.h"

/* Query arguments plus form fields of one request: Django's default
 * DATA_UPLOAD_MAX_NUMBER_FIELDS, which MAAS keeps (its
 * src/maasserver/djangosettings/settings.py sets only the memory size);
 * a request with more is refused 400, as MAAS refuses it. */
#define SIM_MAAS_PARAMS_MAX 1000

/* MAAS node status numbers the emulator moves through (NODE_STATUS of
 * src/maasserver/enum.py). */
enum {
	ST_NEW = 0,
	ST_COMMISSIONING = 1,
	ST_FAILED_COMMISSIONING = 2,
	ST_READY = 4,
	ST_DEPLOYED = 6,
	ST_BROKEN = 8,
	ST_DEPLOYING = 9,
	ST_ALLOCATED = 10,
	ST_FAILED_DEPLOYMENT = 11,
	ST_RELEASING = 12,
	ST_FAILED_RELEASING = 13,
	ST_DISK_ERASING = 14,
	ST_FAILED_DISK_ERASING = 15,
	ST_TESTING = 21,
	ST_FAILED_TESTING = 22,
};

struct sim_maas_param {
	char *name, *value;
};

/* Query arguments and form fields, in the order sent. */
struct sim_maas_params {
	struct sim_maas_param items[SIM_MAAS_PARAMS_MAX];
	size_t n;
	int too_many; /* more than SIM_MAAS_PARAMS_MAX were sent */
};

struct sim_maas_req {
	const char *method;
	const char *path; /* below /MAAS/api/2.0/, e.g. "machines/abc123/" */
	const char *op;	  /* NULL when none */
	struct sim_maas_params params;
	const char *authorization; /* the header as sent, NULL when none */
	const char *user;	   /* whose key signed it: SIM_MAAS_ADMIN or SIM_MAAS_OPERATOR */
	int user_is_admin;
};

struct sim_maas_reply {
	int status;
	char *body;		  /* malloc'ed text, or NULL with json set */
	json_t *json;		  /* a JSON answer (owned) */
	const char *content_type; /* default application/json */
	int retry_after;	  /* >0: sent as Retry-After */
	json_t *log;		  /* extra fields for the request log (owned) */
	/* Set by a handler whose answer is costly to build from a snapshot it
	 * took: called by the server after the state lock is released, to set
	 * json (and free render_ctx). */
	void (*render)(struct sim_maas_reply *r);
	void *render_ctx;
};

struct sim_maas_event {
	int64_t id;
	char type[40];
	char level[8];
	char username[16]; /* who caused it; "unknown" when no user did */
	char description[200];
	char created[32]; /* as the events API prints it */
};

#define SIM_MAAS_OWNER_DATA_MAX 16

struct sim_maas_owner_data {
	char key[64], value[128];
};

struct sim_maas_machine {
	char system_id[8];
	int host;	   /* index into hosts, -1: no physical machine has its MACs */
	char hostname[64]; /* the first label only */
	char domain[64];   /* the rest: "maas" unless given */
	char architecture[32];
	char macs[SIM_MAAS_MACS_MAX][18];
	uint64_t mac_keys[SIM_MAAS_MACS_MAX]; /* sim_maas_mac_key of each */
	size_t n_macs;
	char power_type[16];
	char power_address[128];
	char power_user[64];
	char node_id[40];      /* power_parameters_node_id, "" none */
	char power_driver[16]; /* power_parameters_power_driver (ipmi), "" none */
	int power_pass_set;
	char power_pass[128]; /* a secret: never logged, zeroed when replaced; MAAS keeps it too */
	char power_state[4];
	int status;	    /* as last advanced; see sim_maas_advance */
	int before_action;  /* status to return to on abort */
	int testing_from;   /* status testing started from */
	int tests;	    /* hardware test runs started */
	int broken_from;    /* status when marked broken (mark_fixed returns to Deployed) */
	int64_t since_ms;   /* when status was entered */
	int commissioned;   /* has finished commissioning once */
	int boot_disk;	    /* index into the host's disks, -1 none */
	int root_disk;	    /* where the storage layout put / ; -1 none */
	int installed_disk; /* where the OS went at the last deploy; -1 none */
	int64_t bd_base;    /* block device ids are bd_base + index */
	char distro_series[32];
	char status_message[200];
	int deploys, commissions;
	int erase;	     /* the running release erases disks */
	char agent_name[64]; /* given at allocate */
	char owner[32];	     /* who allocated it; "" when unowned */
	struct sim_maas_owner_data owner_data[SIM_MAAS_OWNER_DATA_MAX];
	size_t n_owner_data;
	unsigned char tags[SIM_MAAS_TAGS_MAX];
	struct sim_maas_event events[SIM_MAAS_EVENTS_MAX]; /* ring */
	size_t n_events, first_event;
};

struct sim_maas_tag {
	char name[64];
	char comment[128];
};

/* One MAC of a host, for finding the host by MAC (sim_maas_host_by_mac). */
struct sim_maas_host_mac {
	uint64_t key; /* sim_maas_mac_key */
	int host;
};

struct sim_maas {
	struct sim_maas_config cfg;
	struct sim_maas_host *hosts;
	/* Every host's MACs, by (key, host): hosts never change once started.
	 * A create matched each of its MACs against every host's, a string
	 * compare each, under the state lock: 100,000 compares a create at
	 * 512 hosts, and a rack's creates waited on one another for them. */
	struct sim_maas_host_mac *host_macs;
	size_t n_host_macs;
	char *consumer_key, *token_key, *token_secret; /* the admin's key */
	/* The operator's key (cfg.operator_api_key), all NULL when none. */
	char *op_consumer_key, *op_token_key, *op_token_secret;
	char *tls_key, *tls_cert; /* PEM; both set: HTTPS */
	char *log_path;
	FILE *log;
	struct MHD_Daemon *daemon;
	int port;
	pthread_mutex_t lock;
	struct sim_maas_machine *machines;
	size_t n_machines, cap_machines;
	struct sim_maas_tag tags[SIM_MAAS_TAGS_MAX];
	size_t n_tags;
	int64_t next_event_id, next_bd_id;
	int64_t start_ms; /* request log "at_ms" counts from here */
	uint64_t rng;
};

/* A MAC in lowercase colon form as a number, for comparing MACs cheaply
 * before comparing their text; UINT64_MAX for text that is not one. */
uint64_t sim_maas_mac_key(const char *mac);
/* Index into hosts of the first host with this MAC; -1 none. */
int sim_maas_host_by_mac(const struct sim_maas *m, const char *mac);

/* First value of a parameter; NULL when absent. */
const char *sim_maas_param(const struct sim_maas_params *p, const char *name);

/* Replies. json is stolen. */
void sim_maas_reply_json(struct sim_maas_reply *r, int status, json_t *json);
void sim_maas_reply_text(struct sim_maas_reply *r, int status, const char *fmt, ...) BR_PRINTF(3, 4);
/* 400 {"field": ["message"]}, MAAS's per-field form error. */
void sim_maas_reply_field(struct sim_maas_reply *r, const char *field, const char *fmt, ...) BR_PRINTF(3, 4);
/* 400 "Unrecognised signature: method=GET op=X". */
void sim_maas_reply_bad_op(struct sim_maas_reply *r, const struct sim_maas_req *req);
/* A field for the request log. */
void sim_maas_log_field(struct sim_maas_reply *r, const char *name, json_t *value);

/* Route a request to its resource (maas_machines.c, maas_devices.c). */
void sim_maas_dispatch(struct sim_maas *m, const struct sim_maas_req *req, struct sim_maas_reply *r);
void sim_maas_machines(struct sim_maas *m, const struct sim_maas_req *req, const char *rest,
		       struct sim_maas_reply *r);
void sim_maas_blockdevices(struct sim_maas *m, const struct sim_maas_req *req, const char *rest,
			   struct sim_maas_reply *r);
void sim_maas_tags(struct sim_maas *m, const struct sim_maas_req *req, const char *rest,
		   struct sim_maas_reply *r);
void sim_maas_events(struct sim_maas *m, const struct sim_maas_req *req, struct sim_maas_reply *r);

/* Start releasing a machine (erase: through Disk erasing); 0, or -1 with
 * the refusal in r. */
int sim_maas_release(struct sim_maas *m, struct sim_maas_machine *mc, int erase, struct sim_maas_reply *r);

/* GET or POST on machines/{id}/ (maas_actions.c). */
void sim_maas_machine_action(struct sim_maas *m, struct sim_maas_machine *mc, const struct sim_maas_req *req,
			     struct sim_maas_reply *r);

/* Machine helpers shared by the resources. */
struct sim_maas_machine *sim_maas_find(struct sim_maas *m, const char *system_id);
/* Apply the simulated time that has passed: commissioning and deploying end. */
void sim_maas_advance(struct sim_maas *m, struct sim_maas_machine *mc, int64_t now_ms);
void sim_maas_set_status(struct sim_maas *m, struct sim_maas_machine *mc, int status, const char *event_type,
			 const char *level, const char *fmt, ...) BR_PRINTF(6, 7);
/* Move the machine to status, with the status-change event MAAS writes for
 * it and nothing else (sim_maas_set_status calls it, then adds its own). */
void sim_maas_status_changed(struct sim_maas *m, struct sim_maas_machine *mc, int status);
/* Enter Testing from status from (op=test, or commissioning's end). */
void sim_maas_start_testing(struct sim_maas *m, struct sim_maas_machine *mc, int from, const char *fmt, ...)
    BR_PRINTF(4, 5);
json_t *sim_maas_machine_json(struct sim_maas *m, struct sim_maas_machine *mc);
/* Answer 200 with the machine's JSON, rendered once the state lock is
 * released from a copy of the machine as it is now. */
void sim_maas_reply_machine(struct sim_maas *m, const struct sim_maas_machine *mc, struct sim_maas_reply *r);
/* What a machine's JSON needs besides the machine itself, so that a long
 * list can be rendered outside the state lock (sim_maas_machines' list):
 * the hosts (never changed once started), a copy of the tags, the domain's
 * id. A machine's JSON never reads its events ring. */
struct sim_maas_view {
	const struct sim_maas_host *hosts;
	const struct sim_maas_tag *tags;
	size_t n_tags;
	int domain_id;
};
json_t *sim_maas_machine_json_view(const struct sim_maas_view *v, const struct sim_maas_machine *mc);
json_t *sim_maas_blockdevice_json(struct sim_maas *m, struct sim_maas_machine *mc, int index);
const char *sim_maas_status_name(int status);
/* Whether a machine in this status has an owner. */
int sim_maas_owned(int status);
json_t *sim_maas_zone_json(void);
json_t *sim_maas_pool_json(void);
json_t *sim_maas_domain_json(const char *name, int id, int records);
/* The id domains/ gives the domain of this name. */
int sim_maas_domain_id(const struct sim_maas *m, const char *name);

/* Whether MAAS could drive the machine's BMC with its power parameters
 * now (sim_maas_machines.c): judged at each use against the BMC as it is,
 * so a BMC whose password changed after enlisting stops answering MAAS
 * until MAAS is given the new one. */
int sim_maas_power_works(struct sim_maas *m, const struct sim_maas_machine *mc);

#endif
